#pragma once
// One cgroup per resource pool, enforced by the kernel: `<parent>/<base>/<pool>` (base "tidepool" by default, the
// parent from `CgroupLayout`) with a child `wl-<id>` per workload, so that processes are accounted and OOM kills are
// attributed per workload while the limits hold for the pool as a whole.
//
// What is enforced and how (cgroup v2 file / cgroup v1 file):
//   - CPU: `cpuMillis` as a CFS bandwidth quota over a 100 ms period, cpu.max "quota period" / cpu.cfs_quota_us and
//     cpu.cfs_period_us;
//   - memory: `memoryBytes`, memory.max / memory.limit_in_bytes, with swap disabled where the kernel accounts it
//     (memory.swap.max 0 / memory.memsw.limit_in_bytes equal to the limit); absent swap files are ignored;
//   - IO: `ioWeight` 1..10000 (v2 scale), io.weight (or io.bfq.weight) / blkio.weight (or blkio.bfq.weight) scaled
//     linearly to 10..1000 as runc does; per-device byte and IO-per-second throttles, io.max / blkio.throttle.*;
//   - network: with a cgroup v1 net_prio hierarchy, `netPriority` is written to net_prio.ifpriomap ("<device>
//     <priority>") of the pool and of each of its workloads (a child takes its parent's map only when created), so
//     that every packet the pool's processes send through the device carries the priority of its class in the
//     device's HTB tree, which `NetShaper` (net_shaper.h) keeps; with a v1 net_cls hierarchy, `netClassId` is written
//     to net_cls.classid for an operator's own tc filters. cgroup v2 has neither: network use is accounted only.
// Names of pools and workloads are limited to [A-Za-z0-9._-] (not "." or "..", at most 64 characters), so no name can
// reach outside the base cgroup. Every write failure names the file and carries the errno text.
//
// Thread affinity: not thread-safe; one owner thread (the agent's). Ownership: a value that owns nothing but paths;
// the cgroups it creates outlive it (workloads must survive the agent) until removed on request.

#include "agents/isolation/cgroup_layout.h"
#include "protocol/owner_lock.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::agent {

struct IoDeviceLimit {
    std::uint32_t major = 0; // block device numbers, as in /proc/partitions
    std::uint32_t minor = 0;
    std::uint64_t readBytesPerSec = 0; // 0 = unthrottled
    std::uint64_t writeBytesPerSec = 0;
    std::uint64_t readIops = 0;
    std::uint64_t writeIops = 0;
};

// Applying limits is declarative: a limit left unset is reset to unlimited (or the kernel's default weight), and
// devices missing from `ioDevices` lose their throttles.
struct PoolLimits {
    std::optional<std::uint32_t> cpuMillis; // 1000 = one core; at least 10 (the kernel's 1 ms minimum quota)
    std::optional<std::uint64_t> memoryBytes; // at least one page (4096)
    std::optional<std::uint32_t> ioWeight; // 1..10000, cgroup v2 scale (default 100)
    std::vector<IoDeviceLimit> ioDevices;
    std::optional<std::uint32_t> netClassId; // net_cls classid (0xAAAABBBB = tc handle AAAA:BBBB), v1 only
    // The skb priority the pool's traffic through `device` carries: its HTB class (0xAAAABBBB = class AAAA:BBBB), v1.
    struct NetPriority {
        std::string device;
        std::uint32_t priority = 0;
        bool operator==(const NetPriority&) const = default;
    };
    std::optional<NetPriority> netPriority;
};

// What the kernel of this host cannot enforce of the limits asked for (missing controllers or files); the rest holds.
struct LimitReport {
    std::vector<std::string> notEnforced;
};

struct CgroupUsage {
    std::uint64_t cpuUsageUsec = 0; // CPU time of all processes, ever (v2 cpu.stat usage_usec, v1 cpuacct.usage)
    std::uint64_t memoryBytes = 0; // charged now (memory.current / memory.usage_in_bytes)
    std::uint64_t oomKills = 0; // processes killed by the OOM killer (memory.events / memory.oom_control oom_kill)
};

// A CPU request as cgroup v1's cpu.shares (1024 a core, at least 2, at most 262144) and as cgroup v2's cpu.weight (the
// shares mapped onto 1..10000 as runc and Kubernetes map them).
// What a workload's own cgroup is given beside its pool's limits (`PoolCgroups::createWorkload`); 0 leaves each.
struct WorkloadResources {
    std::uint64_t cpuMillis = 0;
    std::uint64_t memoryLimitBytes = 0;
    std::uint32_t cpuLimitMillis = 0; // at least 10
};

std::uint64_t cpuSharesFor(std::uint64_t cpuMillis);
std::uint64_t cpuWeightFor(std::uint64_t cpuMillis);

class PoolCgroups {
public:
    static constexpr std::size_t kMaxNameLength = 64;
    static constexpr std::uint64_t kCpuPeriodUsec = 100'000;

    // Creates the base cgroup (and, for v2, enables cpu, memory and io for its children; when the agent's own cgroup
    // cannot delegate because it has processes, falls back to the hierarchy's root). `baseName` is checked like a
    // pool name; tests use a unique one.
    static IsolationExpected<PoolCgroups> create(CgroupLayout layout, std::string baseName = "tidepool");

    // Fails with `BadName`, naming `field` and the name, unless `name` is 1..64 of [A-Za-z0-9._-] and not "." or "..".
    static IsolationExpected<void> checkName(std::string_view field, std::string_view name);

    const CgroupLayout& layout() const { return m_layout; }
    const CgroupPaths& base() const { return m_base; }
    const std::vector<std::string>& notes() const { return m_notes; }

    // Claims the base for this process, while the lock lives (`protocol::OwnerLock` on the base's directory of the
    // memory hierarchy). Two agents on one base would each take the other's pools for ones the core had not listed
    // and remove them, emptied workload cgroups included, between a launch's mkdir and its process joining; and each
    // would report the other's pools' usage as its own. Fails with `Busy`, naming the base's directory and its holder,
    // while another process holds it: give each agent of one host (of one cgroup) a base of its own.
    IsolationExpected<protocol::OwnerLock> claimBase() const;

    // Creates the pool's cgroup if missing (idempotent).
    IsolationExpected<CgroupPaths> createPool(std::string_view pool);
    // Applies `limits` to an existing pool.
    IsolationExpected<LimitReport> applyLimits(std::string_view pool, const PoolLimits& limits);
    // Creates `wl-<id>` (`wl-<id>@<incarnation>` for a relaunch) under an existing pool (idempotent); on v2 sets
    // memory.oom.group so that an OOM kill takes the whole workload. Then what `own` asks (0 leaves each as the kernel
    // has it):
    //   - `cpuMillis` (the CPU it asked for): its weight among the pool's workloads, in proportion, as Kubernetes sets
    //     a request (`cpuSharesFor`, `cpuWeightFor`): cpu.shares (v1) or cpu.weight (v2), so that workloads that
    //     compete for the pool's CPU get it in the ratio of their requests rather than of their threads;
    //   - `memoryLimitBytes`: its own memory limit inside the pool's, swap included as for pools (memory.max and
    //     memory.swap.max 0, or memory.limit_in_bytes and memory.memsw.limit_in_bytes), so that a workload that
    //     outgrows it is OOM-killed alone rather than its pool-mates with it. At least 4096;
    //   - `cpuLimitMillis`: its own CPU bandwidth quota inside its pool's (cpu.max / cpu.cfs_quota_us, the pools'
    //     period), so that it never takes more than that however idle the pool is. v1 refuses a child's quota above its
    //     parent's: there, one above the pool's is the pool's (v2 takes it, and the pool's binds). At least 10.
    IsolationExpected<CgroupPaths> createWorkload(
        std::string_view pool, std::string_view workloadId, std::uint32_t incarnation = 0, WorkloadResources own = {});
    // Changes what a workload's existing cgroup was given (`createWorkload`), in place, while it runs: unlike there, 0
    // is a value, not "leave it": `cpuMillis` 0 restores the kernel's default weight, a limit of 0 removes the
    // workload's own limit (it shares its pool's). A memory limit below what the cgroup holds now is refused
    // (`BadLimit`, naming both), changing nothing: the kernel would reclaim, and failing that OOM-kill, to enforce it.
    // The memory limit is written first, then the CPU limit, then the weight; an error names the first that failed
    // (those before it hold).
    IsolationExpected<void> resizeWorkload(
        std::string_view pool, std::string_view workloadId, std::uint32_t incarnation, WorkloadResources own);
    // The pool's weight beside the other pools: `cpuMillis` is what its running workloads here asked for together (as
    // Kubernetes weighs a pod by its containers' requests), so that a workload's request weighs the same whichever pool
    // it is in. The runner keeps it current (`Runner`).
    IsolationExpected<void> setPoolCpuWeight(std::string_view pool, std::uint64_t cpuMillis);

    // Paths only; nothing is created or checked but the names.
    IsolationExpected<CgroupPaths> poolPaths(std::string_view pool) const;
    IsolationExpected<CgroupPaths> workloadPaths(
        std::string_view pool, std::string_view workloadId, std::uint32_t incarnation = 0) const;

    // Each pool's priority for `device` in its net_prio.ifpriomap (the shaping class a previous agent gave it), for
    // the pools that have one other than 0; empty without a net_prio hierarchy.
    std::map<std::string, std::uint32_t> netPriorities(std::string_view device) const;

    // The names of the pool cgroups under the base (of the memory hierarchy), sorted; directories whose names are
    // not pool names are left out.
    std::vector<std::string> pools() const;

    IsolationExpected<CgroupUsage> usage(const CgroupPaths& group) const;
    // Process ids in the cgroup (from the memory hierarchy's cgroup.procs).
    IsolationExpected<std::vector<int>> processes(const CgroupPaths& group) const;
    // The file whose `oom_kill` line counts OOM kills in the cgroup: memory.events (v2) or memory.oom_control (v1).
    std::filesystem::path oomCounterFile(const CgroupPaths& group) const;
    // cgroup.kill (v2, Linux 5.14+) when the kernel has it; empty otherwise.
    std::filesystem::path killFile(const CgroupPaths& group) const;

    // rmdir of the workload's cgroup in every hierarchy; `Busy` while processes remain.
    IsolationExpected<void> removeWorkload(
        std::string_view pool, std::string_view workloadId, std::uint32_t incarnation = 0);
    // rmdir of the pool's cgroup; `Busy` while it has workload cgroups or processes.
    IsolationExpected<void> removePool(std::string_view pool);
    // Removes every empty workload and pool cgroup under the base, then the base itself if empty; returns how many
    // directories went.
    std::size_t pruneEmpty();
    // Removes the cgroups of the pools under the base that are not in `keep` and run nothing: their workload cgroups
    // without processes first (finished workloads', and those a previous agent left), then the pool's own. A pool with
    // a process left stays for a later call. Returns the pools removed; says in `problems` why one that ran nothing
    // could not go. Only for pools that take no launch meanwhile (the core lists a pool before it launches in it): a
    // starting workload's cgroup is empty for a moment; and so only by the base's holder (`claimBase`).
    std::vector<std::string> removePoolsOtherThan(
        const std::vector<std::string>& keep, std::vector<std::string>& problems);

private:
    PoolCgroups(CgroupLayout layout, CgroupPaths base, std::vector<std::string> notes);
    // The memory limit of `group`, swap included where the kernel accounts it; nullopt = none (cgroup_limits.cpp).
    IsolationExpected<void> limitMemory(const CgroupPaths& group, std::optional<std::uint64_t> bytes) const;
    // The CPU quota of `group` in millicores; nullopt = none (cgroup_limits.cpp).
    IsolationExpected<void> limitCpu(const CgroupPaths& group, std::optional<std::uint32_t> millis) const;
    // `BadLimit`, naming the field, for a workload's own limit the kernel would not take (below a page, below 10m).
    static IsolationExpected<void> checkWorkloadResources(const WorkloadResources& own);
    // A workload's own CPU quota inside `pool`: on v1, which refuses a child's quota above its parent's, at most the
    // pool's; as asked on v2 (which takes it, and the pool's binds).
    std::uint32_t cpuLimitUnder(const CgroupPaths& pool, std::uint32_t millis) const;

    CgroupLayout m_layout;
    CgroupPaths m_base;
    std::vector<std::string> m_notes;
};

} // namespace tidepool::agent
