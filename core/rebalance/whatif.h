#pragma once
// What-if: re-simulate the whole cluster under a changed profile, changed pool quotas or nodes taken out, and say
// what would differ from the placements it has now — moves, work that would start or would have to wait,
// accelerators freed, and the latency-sensitive work put at risk — without changing anything. Every workload that
// is placed or waiting is placed again from an empty cluster, highest priority first (then oldest), by a scheduler
// of its own on a copy of the cluster; the same re-simulation without the change is reported beside it, so that
// the change's own effect can be told from what a full repacking would do anyway.
//
// Thread affinity: none; it reads `cluster` and works on copies. It costs one placement per workload, twice.

#include "core/rebalance/proposal.h"
#include "core/sched/scheduler.h"

#include <map>
#include <string>
#include <vector>

namespace tidepool::rebalance {

struct WhatIfChange {
    std::string profile; // "" = the profile the core runs
    std::map<std::string, std::int64_t> poolCpuMillis; // pool → the CPU quota to try (kUnlimited for none)
    std::map<std::string, std::int64_t> poolMemoryMiB; // pool → the memory quota to try (kUnlimited for none)
    // (pool, kind) → the accelerator quota to try, in share units (kUnlimited for none)
    std::map<std::pair<std::string, AcceleratorKind>, std::int64_t> poolAcceleratorShare;
    std::vector<std::string> removeNodes; // taken out of service (cordoned, powered down)
};

struct WhatIfMove {
    WorkloadId workload = 0;
    std::string name;
    std::string from; // "" = was waiting
    std::string to; // "" = would wait
    bool latencySensitive = false; // real-time or latency-sensitive: a move restarts it
};

struct WhatIfOutcome {
    std::size_t placed = 0; // of the workloads re-simulated
    std::size_t waiting = 0;
    std::size_t moves = 0; // placed before and after, on another node
    std::size_t started = 0; // waiting now, placed after
    std::size_t stopped = 0; // placed now, waiting after
    std::size_t sloAtRisk = 0; // latency-sensitive work that would move or wait
    double idleGpus = 0.0; // whole GPUs with nothing on them after
};

struct WhatIfResult {
    std::string profile;
    double idleGpusNow = 0.0;
    WhatIfOutcome withChange;
    WhatIfOutcome withoutChange; // the same re-simulation, as the cluster is configured now
    std::vector<WhatIfMove> changes; // with the change: every workload whose node would differ (at most 1000)
    // What the change alone does: every workload the re-simulation places differently with the change than without
    // it, `from` being where it would be without it (at most 1000). A re-simulation reshuffles what runs now (from
    // scratch, in priority order), so `changes` holds moves that are not the change's; this does not.
    std::vector<WhatIfMove> effect;
};

// `workloads`: the ids to re-simulate (placed or waiting). The error names an unknown pool, node or profile.
Expected<WhatIfResult> whatIf(const ClusterState& cluster, const PolicyRegistry& registry, const std::string& currentProfile,
    const std::vector<WorkloadId>& workloads, const WhatIfChange& change);

nlohmann::json toJson(const WhatIfResult& result);

} // namespace tidepool::rebalance
