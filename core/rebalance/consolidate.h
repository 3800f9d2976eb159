#pragma once
// Consolidation of fractional accelerators: GPUs that are partly used, emptiest first, are emptied by moving their
// residents onto other partly used GPUs (the tightest that takes each, best fit), so that whole GPUs come free for
// work that needs them. Only movable residents (the caller says which: batch holding a share of one GPU) are moved,
// a GPU is emptied completely or not at all, and every move is checked by a scheduler on a copy of the cluster
// (tier, pool, ISA, CPU, memory, model), so a plan it returns can be bound as it stands.
//
// Thread affinity: none; it reads `cluster` and works on a copy.

#include "core/rebalance/proposal.h"
#include "core/sched/scheduler.h"

#include <functional>

namespace tidepool::rebalance {

struct ConsolidationPlan {
    std::vector<Action> moves; // Migrate actions
    std::size_t gpusFreed = 0;
};

// With `withinNodes` false, a share only moves to a GPU of another node.
ConsolidationPlan planConsolidation(const ClusterState& cluster, const PolicyRegistry& registry,
    const std::function<bool(const Workload&)>& movable, std::size_t maxMoves, bool withinNodes = true);

} // namespace tidepool::rebalance
