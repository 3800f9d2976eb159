#include "core/rebalance/hotspots.h"

#include "core/rebalance/planning.h"

#include <algorithm>

namespace tidepool::rebalance {

HotSpotPlan planHotSpotMoves(const ClusterState& cluster, const PolicyRegistry& registry,
    const std::map<NodeId, double>& utilisation, const std::function<bool(const Workload&)>& movable,
    const HotSpotConfig& config)
{
    HotSpotPlan plan;
    std::map<NodeId, double> predicted = utilisation;
    std::vector<NodeId> hot;
    for (const auto& [id, u] : utilisation)
        if (u >= config.hotAbove && cluster.node(id).schedulable)
            hot.push_back(id);
    if (hot.empty())
        return plan;
    ClusterState copy = cluster;
    auto scheduler = planningScheduler(copy, registry);
    if (!scheduler)
        return plan;
    std::sort(hot.begin(), hot.end(), [&](NodeId a, NodeId b) { return predicted[a] > predicted[b]; });

    for (const NodeId source : hot) {
        const Node& node = copy.node(source);
        const double capacity = static_cast<double>(std::max<std::int64_t>(1, node.capacity.cpuMillis));
        // CPU-only batch, largest CPU request first: the fewest moves for the relief.
        std::vector<WorkloadId> candidates;
        for (const WorkloadId id : node.residents) {
            const WorkloadRecord* r = copy.workload(id);
            if (r && r->placement && r->placement->shares.empty() && movable(r->workload))
                candidates.push_back(id);
        }
        std::sort(candidates.begin(), candidates.end(), [&](WorkloadId a, WorkloadId b) {
            return copy.workload(a)->workload.requests.cpuMillis > copy.workload(b)->workload.requests.cpuMillis;
        });
        bool relieved = false;
        for (const WorkloadId id : candidates) {
            if (predicted[source] < config.hotAbove || plan.moves.size() >= config.maxMoves)
                break;
            const Workload w = copy.workload(id)->workload;
            const Placement old = *copy.workload(id)->placement;
            (void)(*scheduler)->release(id);
            std::optional<NodeId> coolest;
            for (const auto& [target, u] : predicted) {
                if (target == source || u >= config.coolBelow)
                    continue;
                bool translated = false;
                if (!copy.node(target).schedulable || (*scheduler)->check(copy.node(target), w, translated) != RejectReason::None)
                    continue;
                if (!coolest || u < predicted[*coolest])
                    coolest = target;
            }
            if (!coolest || !(*scheduler)->bindExternal(Placement { id, *coolest, {}, false })) {
                (void)(*scheduler)->bindExternal(old);
                continue;
            }
            const double share = static_cast<double>(w.requests.cpuMillis);
            predicted[source] -= share / capacity;
            predicted[*coolest]
                += share / static_cast<double>(std::max<std::int64_t>(1, copy.node(*coolest).capacity.cpuMillis));
            Action a;
            a.type = Action::Type::Migrate;
            a.workload = id;
            a.from = node.name;
            a.target = copy.node(*coolest).name;
            plan.moves.push_back(std::move(a));
            relieved = true;
        }
        if (relieved)
            plan.hotNodes.push_back(node.name);
    }
    return plan;
}

} // namespace tidepool::rebalance
