#pragma once
// Work a tier change left behind: a pool bound to a tier after its workloads were placed keeps them where they run,
// on other tiers' nodes, until they end or are moved. This plans the moves: each movable workload of the pool on a
// node of another tier goes where the scheduler would place it now (on a copy of the cluster, so every filter holds:
// the pool's tier, quota, ISA, CPU, memory), at most `maxMoves` of them.
//
// Thread affinity: none; it reads `cluster` and works on a copy.

#include "core/rebalance/proposal.h"
#include "core/sched/scheduler.h"

#include <functional>

namespace tidepool::rebalance {

struct TierMovePlan {
    std::vector<Action> moves; // Migrate actions (device -1: CPU only)
    std::size_t offTier = 0; // the pool's placed workloads on other tiers' nodes, moved or not
};

// The pool's placed workloads on nodes of another tier than its own, in node order; none for a pool without a tier.
std::vector<WorkloadId> offTierWorkloads(const ClusterState& cluster, PoolId pool);

// `movable`: which of the pool's workloads may be moved (running, CPU only: the caller says).
TierMovePlan planTierMoves(const ClusterState& cluster, const PolicyRegistry& registry, PoolId pool,
    const std::function<bool(const Workload&)>& movable, std::size_t maxMoves);

} // namespace tidepool::rebalance
