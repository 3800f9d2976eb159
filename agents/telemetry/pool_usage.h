#pragma once
// Each pool's use of the node for the heartbeats (`protocol::PoolUsage`), as the kernel accounts it: the CPU time and
// memory of the pool's cgroup (its workloads' cgroups included; the host's own processes not) and, where the agent
// shapes egress (`NetShaper`), the bytes the pool's HTB class sent. CPU and network are rates between two readings,
// so a pool appears from its second reading on. Each running workload's use (`protocol::WorkloadUsage`) likewise,
// from its own cgroup, through a meter of its own.
//
// Thread affinity: one thread, the agent's; a `PoolUsageMeter` keeps the previous readings, so it is not shared.

#include "protocol/messages.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tidepool::agent {

class NetShaper;
class PoolCgroups;
struct WorkloadStatus;

struct PoolReading {
    std::uint64_t cpuUsageUsec = 0; // CPU time of the pool, ever
    std::uint64_t memoryBytes = 0; // charged now
    std::optional<std::uint64_t> sentBytes; // through the shaped device, ever; empty where the pool has no class
};

class PoolUsageMeter {
public:
    // The pools' use since the previous readings; `atUsec` is a monotonic clock's. A pool read for the first time, or
    // whose CPU counter went back (its cgroup was made again), is only primed; a pool's sent bytes that went back (its
    // class was made again), or that it had no class for at either reading, give no network rate. A pool that used
    // nothing (no CPU, no memory charged, nothing sent) is left out: absent reads as none, and a node carries a cgroup
    // for every pool of the cluster, most of them idle there. Pools missing from `readings` are forgotten.
    std::vector<protocol::PoolUsage> next(const std::map<std::string, PoolReading>& readings, std::int64_t atUsec);

private:
    struct Previous {
        PoolReading reading;
        std::int64_t atUsec = 0;
    };
    std::map<std::string, Previous> m_previous;
};

// Reads every pool cgroup under the base and, with a `shaper`, the bytes each pool's class sent. A pool whose files
// cannot be read is left out and said in `problems` (as is a failed `tc`, after which no pool has sent bytes).
std::map<std::string, PoolReading> readPools(
    const PoolCgroups& cgroups, const NetShaper* shaper, std::vector<std::string>& problems);

// Each running workload's cgroup among `workloads` (the runner's), by its record name (`recordName`: "42", "42@3"),
// for a `PoolUsageMeter` of their own. One whose cgroup is gone (it ended since) is left out; one whose files cannot be
// read for another reason is left out and said in `problems`.
std::map<std::string, PoolReading> readWorkloads(
    const PoolCgroups& cgroups, const std::vector<WorkloadStatus>& workloads, std::vector<std::string>& problems);
// Such a meter's figures as the workloads' usage; an entry whose name is not a record name of a numeric id is left out.
std::vector<protocol::WorkloadUsage> workloadUsageOf(const std::vector<protocol::PoolUsage>& measured);

} // namespace tidepool::agent
