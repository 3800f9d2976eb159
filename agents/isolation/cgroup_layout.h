#pragma once
// Which cgroup hierarchies this host offers and where the agent may create its own, detected from
// /proc/self/mountinfo and /proc/self/cgroup, never assumed:
//   - cgroup v2: a cgroup2 mount whose root `cgroup.controllers` lists both `cpu` and `memory` (a hybrid host's
//     /sys/fs/cgroup/unified with only `hugetlb` does not count);
//   - else cgroup v1: `cgroup` mounts carrying the `cpu` and `memory` controllers (required), `cpuacct` (CPU usage),
//     `blkio` (IO weight and throttles), `net_cls` (a classid for tc) and `net_prio` (the priority that puts a
//     pool's packets in its shaping class) when mounted;
//   - else none: an error that says what was found.
// The parent under which the agent's base cgroup goes is the agent's own cgroup when that directory is writable (and,
// for v2, has cpu and memory in its `cgroup.controllers`), otherwise the hierarchy's root.
//
// Thread affinity: none; detection reads files and returns a value.

#include "agents/isolation/isolation_error.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::agent {

enum class CgroupVersion : std::uint8_t { Invalid = 0, V1, V2 };

// One cgroup as a directory per controller the isolation uses. With cgroup v2 every set path is the same directory;
// with v1 each is in its controller's hierarchy (`cpuacct` may equal `cpu` when they are mounted together). An empty
// path means that controller is not available.
struct CgroupPaths {
    std::filesystem::path cpu; // cpu.max, or cpu.cfs_quota_us and cpu.cfs_period_us
    std::filesystem::path cpuacct; // usage: cpu.stat usage_usec (v2) or cpuacct.usage (v1)
    std::filesystem::path memory; // memory.max / memory.limit_in_bytes, OOM counters, cgroup.procs for listing
    std::filesystem::path io; // io.weight and io.max / blkio.*; empty without an io (v2) or blkio (v1) controller
    std::filesystem::path netCls; // net_cls.classid, v1 only; empty otherwise
    std::filesystem::path netPrio; // net_prio.ifpriomap, v1 only (network shaping, net_shaper.h); empty otherwise

    // The set paths without repeats, `memory` first: the directories whose cgroup.procs a process joins.
    std::vector<std::filesystem::path> distinct() const;
    // Every set path extended by `name`.
    CgroupPaths child(std::string_view name) const;
    bool operator==(const CgroupPaths&) const = default;
};

struct CgroupLayout {
    CgroupVersion version = CgroupVersion::Invalid;
    CgroupPaths parents; // where the base cgroup goes: the agent's own cgroup if writable, else the root
    CgroupPaths roots; // the hierarchies' mount points (for v2, the fallback when the own cgroup cannot delegate)
    std::vector<std::string> notes; // what was chosen and why, and what is missing, for the agent's log
};

// Reads /proc/self/mountinfo and /proc/self/cgroup.
IsolationExpected<CgroupLayout> detectCgroupLayout();
// The same over given file contents (tests feed synthetic mounts pointing into a temporary directory).
IsolationExpected<CgroupLayout> detectCgroupLayout(std::string_view mountinfo, std::string_view selfCgroup);

} // namespace tidepool::agent
