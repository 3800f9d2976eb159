#pragma once
// Network shaping by pool, enforced by the kernel: an HTB tree on the node's egress device with one class per pool,
// and each pool's packets put into its class by the priority its cgroup gives them (net_prio.ifpriomap, written by
// `PoolCgroups::applyLimits`): HTB takes a packet whose skb priority names one of its leaf classes straight into that
// class, with no filter (the kernel's cgroup classifier is not needed, and often not built).
//
//   1:      the htb root qdisc; unclassified packets go to 1:fffe
//   1:1     the link: rate = ceil = the link's rate
//   1:fffe  everything outside the pools (the host, the agent's own connection to the core): rate = what the pools'
//           guarantees leave of the link, at least 1 Mbit/s; ceil = the link
//   1:N     one pool (N from 0x10): rate = its guarantee on this node (what its workloads placed here asked for, from
//           the core), at least 1 Mbit/s; ceil = the link
//
// A guarantee is a floor under contention, not a cap: a class borrows what the others leave, up to the link. The
// classes are set with `tc` (iproute2), run without a shell; a command that fails is an error naming it and quoting
// its stderr. Only egress is shaped, and only with cgroup v1 (net_prio has no v2 counterpart; there a BPF program
// would have to set the priority). Replacing the device's root qdisc replaces what was there (on a multi-queue NIC its
// `mq` of per-queue qdiscs, so all traffic goes through one queue); an htb root a previous agent set up is kept with
// its classes, so that running workloads stay shaped across an agent restart.
//
// Thread affinity: not thread-safe; one owner thread (the agent's). Ownership: owns nothing but names; the qdisc
// outlives it until `remove`.

#include "agents/isolation/isolation_error.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::agent {

struct NetShapeConfig {
    std::string device; // the egress device, as in /sys/class/net
    std::int64_t linkMbps = 0; // 0: the device's speed (/sys/class/net/<device>/speed), which must then be known
    std::filesystem::path tc; // empty: /usr/sbin/tc, else /sbin/tc
    std::filesystem::path sysClassNet = "/sys/class/net";
    std::chrono::milliseconds timeout { 5000 }; // per tc command
};

// The bytes each HTB class of the root qdisc `kHandle`: has sent, by class minor, from `tc -s class show` output
// ("class htb 1:10 parent 1:1 ..." followed by " Sent 1234 bytes 5 pkt ..."). Classes of other qdiscs, and a class
// whose counter line is missing or garbled, are left out.
std::map<std::uint32_t, std::uint64_t> parseClassBytes(std::string_view tcOutput, std::uint32_t handle);

struct PoolRate {
    std::string pool;
    std::int64_t guaranteedMbps = 0; // 0: best effort (the minimum rate, borrowing up to the link)
};

class NetShaper {
public:
    static constexpr std::uint32_t kHandle = 1; // the root qdisc's major number
    static constexpr std::uint32_t kDefaultMinor = 0xfffe;
    static constexpr std::uint32_t kFirstPoolMinor = 0x10;
    static constexpr std::uint32_t kLastPoolMinor = 0xfff0;

    // Checks the device and the link rate, finds tc, and installs the root qdisc, the link class and the default
    // class (or keeps them, as a previous agent left them).
    static IsolationExpected<NetShaper> create(NetShapeConfig config);

    // "eth0:25000" or "eth0" (the rate from the device), as `tidepool-agent --net-shape` takes it.
    static IsolationExpected<NetShapeConfig> parseOption(std::string_view value);

    const std::string& device() const { return m_config.device; }
    std::int64_t linkMbps() const { return m_config.linkMbps; }

    // Takes the class a previous agent gave `pool` (the priority in its cgroup's net_prio.ifpriomap), so that its
    // running workloads, whose cgroups carry that priority, stay in their pool's class. Ignores a priority that is
    // not one of this tree's pool classes or that another pool holds.
    void adopt(const std::string& pool, std::uint32_t priority);

    // Sets every pool's class (adding those it does not have), sets the default class to what the guarantees leave of
    // the link, and removes the classes of pools not in `pools`; a class whose rate is unchanged is left alone.
    // Guarantees beyond the link are set as asked (HTB then shares the link in their proportion) and said in the
    // returned notes.
    IsolationExpected<std::vector<std::string>> apply(const std::vector<PoolRate>& pools);

    // The skb priority of `pool`'s class (0x0001NNNN), once `apply` or `adopt` gave it one; 0 otherwise.
    std::uint32_t priorityOf(std::string_view pool) const;

    // The bytes each pool's class has sent since the class was made (one `tc -s class show`), by pool; pools without
    // a class are absent. A class removed and made again starts from 0.
    IsolationExpected<std::map<std::string, std::uint64_t>> sentBytes() const;

    // Removes the root qdisc, and so every class (the device gets its default qdisc back).
    IsolationExpected<void> remove();

private:
    explicit NetShaper(NetShapeConfig config);
    // Runs tc with `args`; its standard output, or an error naming the command and quoting its stderr.
    IsolationExpected<std::string> tc(const std::vector<std::string>& args) const;
    IsolationExpected<void> setClass(std::uint32_t parentMinor, std::uint32_t minor, std::int64_t rateMbps) const;

    NetShapeConfig m_config;
    std::map<std::string, std::uint32_t, std::less<>> m_minors; // pool → class minor
    std::map<std::string, std::int64_t, std::less<>> m_rates; // pool → the rate its class was last set to
    std::int64_t m_defaultRate = -1; // likewise for the default class
};

} // namespace tidepool::agent
