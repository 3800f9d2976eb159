#include "core/rebalance/tier_moves.h"

#include "core/rebalance/planning.h"

namespace tidepool::rebalance {

std::vector<WorkloadId> offTierWorkloads(const ClusterState& cluster, PoolId pool)
{
    std::vector<WorkloadId> off;
    const Tier tier = cluster.pool(pool).tier;
    if (tier == Tier::Invalid)
        return off;
    for (const Node& node : cluster.nodes()) {
        if (node.tier == tier)
            continue;
        for (const WorkloadId id : node.residents)
            if (const WorkloadRecord* r = cluster.workload(id); r && r->workload.pool == pool)
                off.push_back(id);
    }
    return off;
}

TierMovePlan planTierMoves(const ClusterState& cluster, const PolicyRegistry& registry, PoolId pool,
    const std::function<bool(const Workload&)>& movable, std::size_t maxMoves)
{
    TierMovePlan plan;
    const Tier tier = cluster.pool(pool).tier;
    const std::vector<WorkloadId> off = offTierWorkloads(cluster, pool);
    plan.offTier = off.size();
    std::vector<WorkloadId> candidates;
    for (const WorkloadId id : off) {
        const WorkloadRecord* r = cluster.workload(id);
        if (r->placement && r->placement->shares.empty() && movable(r->workload))
            candidates.push_back(id);
    }
    if (candidates.empty())
        return plan;
    ClusterState copy = cluster;
    auto scheduler = planningScheduler(copy, registry);
    if (!scheduler)
        return plan;
    for (const WorkloadId id : candidates) {
        if (plan.moves.size() >= maxMoves)
            break;
        const Placement old = *copy.workload(id)->placement;
        (void)(*scheduler)->release(id);
        // A dry run, bound here only when it is a move: placed by the filters that hold the pool to its tier (checked
        // all the same), and without preempting anything.
        const Decision decision = (*scheduler)->place(id, true);
        if (!decision.placement || !decision.victims.empty() || copy.node(decision.placement->node).tier != tier
            || !(*scheduler)->bindExternal(*decision.placement)) {
            (void)(*scheduler)->bindExternal(old);
            continue;
        }
        Action a;
        a.type = Action::Type::Migrate;
        a.workload = id;
        a.from = copy.node(old.node).name;
        a.target = copy.node(decision.placement->node).name;
        plan.moves.push_back(std::move(a));
    }
    return plan;
}

} // namespace tidepool::rebalance
