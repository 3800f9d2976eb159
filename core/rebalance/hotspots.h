#pragma once
// Migrations off hot spots: a node whose measured CPU utilisation is at or above `hotAbove` sheds batch (the
// movable workloads the caller names), largest CPU request first, to the coolest nodes that take them (measured
// utilisation below `coolBelow`, checked by a scheduler on a copy of the cluster: tier, pool, ISA, CPU, memory),
// until its predicted utilisation falls under `hotAbove`. Predicted utilisation moves by each workload's CPU request
// over the node's capacity: what it asked for is what it is assumed to use.
//
// Thread affinity: none; it reads `cluster` and works on a copy.

#include "core/rebalance/proposal.h"
#include "core/sched/scheduler.h"

#include <functional>
#include <map>

namespace tidepool::rebalance {

struct HotSpotConfig {
    double hotAbove = 0.9;
    double coolBelow = 0.6;
    std::size_t maxMoves = 8;
};

struct HotSpotPlan {
    std::vector<Action> moves; // Migrate actions (device -1: CPU only)
    std::vector<std::string> hotNodes; // the nodes it relieves
};

// `utilisation`: measured CPU utilisation (0..1) by node id; nodes missing from it are left alone.
HotSpotPlan planHotSpotMoves(const ClusterState& cluster, const PolicyRegistry& registry,
    const std::map<NodeId, double>& utilisation, const std::function<bool(const Workload&)>& movable,
    const HotSpotConfig& config);

} // namespace tidepool::rebalance
