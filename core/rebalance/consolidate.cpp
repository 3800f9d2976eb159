#include "core/rebalance/consolidate.h"

#include "core/rebalance/planning.h"

#include <algorithm>
#include <map>
#include <set>

namespace tidepool::rebalance {

namespace {

struct Slot {
    NodeId node = kNoNode;
    std::int16_t device = -1;
};

} // namespace

ConsolidationPlan planConsolidation(const ClusterState& cluster, const PolicyRegistry& registry,
    const std::function<bool(const Workload&)>& movable, std::size_t maxMoves, bool withinNodes)
{
    ConsolidationPlan plan;
    ClusterState copy = cluster;
    auto scheduler = planningScheduler(copy, registry);
    if (!scheduler)
        return plan;

    // Who sits on which GPU.
    std::map<std::pair<NodeId, std::int16_t>, std::vector<WorkloadId>> residents;
    for (const auto& [id, record] : copy.workloads())
        if (record.placement)
            for (const DeviceShare& s : record.placement->shares)
                residents[{ record.placement->node, s.device }].push_back(id);

    auto partlyUsed = [&](NodeId n, std::int16_t d) {
        const Device& dev = copy.node(n).devices[static_cast<std::size_t>(d)];
        return dev.kind == AcceleratorKind::Gpu && dev.shareFree > 0 && dev.shareFree < dev.shareCapacity;
    };
    std::vector<Slot> sources;
    for (const Node& node : copy.nodes())
        if (node.schedulable)
            for (std::size_t d = 0; d < node.devices.size(); ++d)
                if (partlyUsed(node.id, static_cast<std::int16_t>(d)))
                    sources.push_back({ node.id, static_cast<std::int16_t>(d) });
    // The emptiest first: the fewest share units to move for one whole GPU.
    auto used = [&](const Slot& s) {
        const Device& d = copy.node(s.node).devices[static_cast<std::size_t>(s.device)];
        return d.shareCapacity - d.shareFree;
    };
    std::sort(sources.begin(), sources.end(), [&](const Slot& a, const Slot& b) { return used(a) < used(b); });

    std::set<std::pair<NodeId, std::int16_t>> emptied, received;
    for (const Slot& source : sources) {
        if (received.count({ source.node, source.device }))
            continue; // a GPU that takes moved work is not emptied in the same plan: nothing moves twice
        const auto& here = residents[{ source.node, source.device }];
        if (here.empty() || plan.moves.size() + here.size() > maxMoves)
            continue;
        const bool allMovable = std::all_of(here.begin(), here.end(), [&](WorkloadId id) {
            const WorkloadRecord* r = copy.workload(id);
            return r && r->placement && r->placement->shares.size() == 1 && movable(r->workload);
        });
        if (!allMovable)
            continue;
        std::vector<std::pair<Placement, Placement>> done; // (old, new), to roll back
        bool ok = true;
        for (const WorkloadId id : here) {
            const WorkloadRecord* r = copy.workload(id);
            const Placement old = *r->placement;
            const Workload w = r->workload;
            (void)(*scheduler)->release(id);
            // Best fit: the partly used GPU elsewhere with the least free share that still takes it.
            std::optional<Placement> best;
            std::int32_t bestFree = 0;
            for (const Node& node : copy.nodes()) {
                bool translated = false;
                if (!node.schedulable || (!withinNodes && node.id == source.node)
                    || (*scheduler)->check(node, w, translated) != RejectReason::None)
                    continue;
                for (std::size_t d = 0; d < node.devices.size(); ++d) {
                    const Device& dev = node.devices[d];
                    const auto key = std::pair { node.id, static_cast<std::int16_t>(d) };
                    if ((node.id == source.node && static_cast<std::int16_t>(d) == source.device) || emptied.count(key)
                        || !partlyUsed(node.id, static_cast<std::int16_t>(d)) || dev.shareFree < old.shares[0].share
                        || dev.memoryFreeMiB < old.shares[0].memoryMiB || !w.accelerators.allows(dev.model))
                        continue;
                    if (!best || dev.shareFree < bestFree) {
                        best = Placement { id, node.id,
                            { DeviceShare { static_cast<std::int16_t>(d), old.shares[0].share, old.shares[0].memoryMiB } },
                            translated };
                        bestFree = dev.shareFree;
                    }
                }
            }
            if (!best || !(*scheduler)->bindExternal(*best)) {
                (void)(*scheduler)->bindExternal(old);
                ok = false;
                break;
            }
            done.emplace_back(old, *best);
        }
        if (!ok) {
            for (auto it = done.rbegin(); it != done.rend(); ++it) {
                (void)(*scheduler)->release(it->second.workload);
                (void)(*scheduler)->bindExternal(it->first);
            }
            continue;
        }
        emptied.insert({ source.node, source.device });
        ++plan.gpusFreed;
        for (const auto& [old, moved] : done) {
            residents[{ moved.node, moved.shares[0].device }].push_back(moved.workload);
            received.insert({ moved.node, moved.shares[0].device });
            Action a;
            a.type = Action::Type::Migrate;
            a.workload = moved.workload;
            a.from = copy.node(old.node).name;
            a.fromDevice = old.shares[0].device;
            a.target = copy.node(moved.node).name;
            a.device = moved.shares[0].device;
            a.share = old.shares[0].share;
            plan.moves.push_back(std::move(a));
        }
        residents[{ source.node, source.device }].clear();
    }
    return plan;
}

} // namespace tidepool::rebalance
