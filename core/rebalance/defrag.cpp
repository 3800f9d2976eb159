// The defragmenter's search: a cheap plan for every node (which movable residents would have to leave for the
// arrival to fit there), then, cheapest plans first, a real attempt through the scheduler that is rolled back
// exactly when any step fails.

#include "core/rebalance/defrag.h"

#include "core/sched/filters.h"

#include <algorithm>
#include <cassert>
#include <tuple>

namespace tidepool::rebalance {

namespace {

bool samePlacement(const std::optional<Placement>& a, const std::optional<Placement>& b)
{
    if (a.has_value() != b.has_value())
        return false;
    if (!a)
        return true;
    if (a->node != b->node || a->translated != b->translated || a->shares.size() != b->shares.size())
        return false;
    for (std::size_t i = 0; i < a->shares.size(); ++i) {
        const DeviceShare& x = a->shares[i];
        const DeviceShare& y = b->shares[i];
        if (x.device != y.device || x.share != y.share || x.memoryMiB != y.memoryMiB)
            return false;
    }
    return true;
}

bool usable(const Device& d, const AcceleratorRequest& a)
{
    return d.kind == a.kind && a.allows(d.model) && d.memoryMiB >= a.memoryMiBPerDevice;
}

} // namespace

Defragmenter::ShapeKey Defragmenter::shapeOf(const Workload& w)
{
    const AcceleratorRequest& a = w.accelerators;
    return { w.requests.cpuMillis, w.requests.memoryMiB, w.requests.memBandwidthMBps, w.requests.netBandwidthMbps,
        static_cast<std::int32_t>(a.kind), a.count, a.sharePerDevice, a.memoryMiBPerDevice, a.allowedModels, w.pool,
        static_cast<std::int32_t>(w.tier()), w.nativeIsas, w.allowTranslation, w.priority };
}

namespace {

// Whether a workload has a node to go to other than a given one, answered once per request shape.
class DestinationMemo {
public:
    bool hasDestination(const ClusterState& cluster, const Workload& w, NodeId except)
    {
        auto known
            = std::find_if(m_byWorkload.begin(), m_byWorkload.end(), [&](const auto& p) { return p.first == &w; });
        if (known == m_byWorkload.end()) {
            m_byWorkload.emplace_back(&w, entryFor(cluster, w));
            known = std::prev(m_byWorkload.end());
        }
        const std::vector<NodeId>& nodes = m_entries[known->second].nodes;
        return std::any_of(nodes.begin(), nodes.end(), [&](NodeId n) { return n != except; });
    }

private:
    struct Entry {
        Defragmenter::ShapeKey key;
        std::vector<NodeId> nodes; // at most two
    };

    std::size_t entryFor(const ClusterState& cluster, const Workload& w)
    {
        Defragmenter::ShapeKey key = Defragmenter::shapeOf(w);
        auto it = std::find_if(m_entries.begin(), m_entries.end(), [&](const Entry& e) { return e.key == key; });
        if (it != m_entries.end())
            return static_cast<std::size_t>(it - m_entries.begin());
        const AcceleratorRequest& a = w.accelerators;
        Entry entry { std::move(key), {} };
        for (const Node& node : cluster.nodes()) {
            if (!node.schedulable || !node.free.fits(w.requests))
                continue;
            const bool fits = !a.any() || std::any_of(node.devices.begin(), node.devices.end(), [&](const Device& d) {
                return d.shareFree >= a.sharePerDevice && d.memoryFreeMiB >= a.memoryMiBPerDevice && usable(d, a);
            });
            if (fits)
                entry.nodes.push_back(node.id);
            if (entry.nodes.size() == 2)
                break;
        }
        m_entries.push_back(std::move(entry));
        return m_entries.size() - 1;
    }

    std::vector<Entry> m_entries;
    std::vector<std::pair<const Workload*, std::size_t>> m_byWorkload;
};

} // namespace

namespace {

// True when `b` asks for at least what `a` asks in every dimension and may go only where `a` may: wherever `b`
// fits after some moves, `a` would fit after the same moves.
bool asksAtLeast(const Workload& b, const Workload& a)
{
    const AcceleratorRequest& x = b.accelerators;
    const AcceleratorRequest& y = a.accelerators;
    return b.requests.cpuMillis >= a.requests.cpuMillis && b.requests.memoryMiB >= a.requests.memoryMiB
        && b.requests.memBandwidthMBps >= a.requests.memBandwidthMBps
        && b.requests.netBandwidthMbps >= a.requests.netBandwidthMbps && x.kind == y.kind && x.count == y.count
        && x.wholeDevices() == y.wholeDevices() && x.sharePerDevice >= y.sharePerDevice
        && x.memoryMiBPerDevice >= y.memoryMiBPerDevice && x.allowedModels == y.allowedModels && b.pool == a.pool
        && b.tier() == a.tier() && b.nativeIsas == a.nativeIsas && b.allowTranslation == a.allowTranslation;
}

} // namespace

bool isMovable(const Workload& w)
{
    const AcceleratorRequest& a = w.accelerators;
    return !a.any() || (a.count == 1 && !a.wholeDevices());
}

Defragmenter::Defragmenter(DefragOptions options)
    : m_options(options)
{
}

std::int64_t Defragmenter::Journal::moves(const ClusterState& cluster, WorkloadId arrival) const
{
    // A workload moved when its placement now differs from the one it had before its first logged step.
    std::vector<WorkloadId> seen;
    std::int64_t moved = 0;
    for (const Step& step : steps) {
        if (step.workload == arrival || std::find(seen.begin(), seen.end(), step.workload) != seen.end())
            continue;
        seen.push_back(step.workload);
        const std::optional<Placement> before = step.bound ? std::nullopt : std::optional<Placement>(step.placement);
        if (!samePlacement(before, cluster.workload(step.workload)->placement))
            ++moved;
    }
    return moved;
}

DefragOutcome Defragmenter::makeRoom(Scheduler& scheduler, ClusterState& cluster, WorkloadId id)
{
    const WorkloadRecord* record = cluster.workload(id);
    if (!record || record->placement || m_options.maxMoves <= 0)
        return {};
    // A shape that found no room stays without room while workloads only arrive: binding more can only take away
    // free capacity and destinations. One bind raises both the cluster version and the placed count by one, so
    // equal rises mean nothing was released, added or reconfigured since; anything else forgets the verdicts.
    if (m_hopelessCluster != &cluster
        || cluster.version() - m_hopelessVersion != cluster.placedCount() - m_hopelessPlaced) {
        m_hopeless.clear();
        m_hopelessCluster = &cluster;
    }
    const Workload& w = record->workload;
    if (std::any_of(m_hopeless.begin(), m_hopeless.end(), [&](const Workload& h) { return asksAtLeast(w, h); }))
        return {};
    Journal journal;
    std::vector<NodeId> excluded;
    std::int32_t budget = m_options.maxMoves;
    const bool placed = placeWithMoves(scheduler, cluster, id, budget, 0, excluded, journal);
    if (!placed)
        m_hopeless.push_back(w);
    else
        m_hopeless.clear(); // the moves may have opened room for shapes that found none before
    m_hopelessVersion = cluster.version();
    m_hopelessPlaced = cluster.placedCount();
    if (!placed)
        return {};
    return { true, journal.moves(cluster, id) };
}

bool Defragmenter::placeWithMoves(Scheduler& scheduler, ClusterState& cluster, WorkloadId id, std::int32_t& budget,
    int depth, std::vector<NodeId>& excluded, Journal& journal)
{
    const Workload& w = cluster.workload(id)->workload;
    std::vector<Plan> plans;
    for (const Node& node : cluster.nodes()) {
        if (std::find(excluded.begin(), excluded.end(), node.id) != excluded.end())
            continue;
        if (std::optional<Plan> plan = planNode(scheduler, cluster, node, w, budget))
            plans.push_back(std::move(*plan));
    }
    // Rank: plans whose every evicted workload has somewhere to go as things are come first (an evicted workload
    // that fits nowhere needs a chained move), then fewer moves, then less share and CPU moved.
    DestinationMemo memo;
    for (Plan& plan : plans) {
        plan.homeless = 0;
        for (const Workload* e : plan.evictWorkloads)
            plan.homeless += !memo.hasDestination(cluster, *e, plan.node);
    }
    const bool mayChain = depth < m_options.chainDepth;
    std::erase_if(plans, [&](const Plan& plan) {
        return plan.homeless > 0
            && (!mayChain || plan.homeless + static_cast<std::int32_t>(plan.evict.size()) > budget);
    });
    auto cheaper = [](const Plan& a, const Plan& b) {
        return std::tuple(a.homeless, a.evict.size(), a.movedShare, a.movedCpuMillis, a.node)
            < std::tuple(b.homeless, b.evict.size(), b.movedShare, b.movedCpuMillis, b.node);
    };
    const std::int32_t limit = depth == 0 ? m_options.candidateNodes : std::max(1, m_options.candidateNodes / 4);
    const std::size_t tried = std::min(plans.size(), static_cast<std::size_t>(std::max(1, limit)));
    std::partial_sort(plans.begin(), plans.begin() + static_cast<std::ptrdiff_t>(tried), plans.end(), cheaper);

    for (std::size_t p = 0; p < tried; ++p) {
        const Plan& plan = plans[p];
        const std::size_t mark = journal.steps.size();
        bool ok = true;
        for (WorkloadId e : plan.evict)
            ok = ok && release(scheduler, cluster, e, journal);
        if (ok) {
            const Decision decision = scheduler.place(id);
            ok = decision.placement.has_value();
            if (ok)
                journal.steps.push_back({ id, *decision.placement, true });
        }
        std::int32_t left = budget - static_cast<std::int32_t>(plan.evict.size());
        if (ok) {
            excluded.push_back(plan.node);
            for (WorkloadId e : plan.evict)
                ok = ok && rebind(scheduler, cluster, e, left, depth, excluded, journal);
            excluded.pop_back();
        }
        if (ok) {
            budget = left;
            return true;
        }
        rollback(scheduler, journal, mark);
    }
    return false;
}

const Defragmenter::NodeResidents& Defragmenter::residentsOf(const ClusterState& cluster, const Node& node)
{
    if (m_residentsCluster != &cluster || m_residents.size() != cluster.nodes().size()) {
        m_residentsCluster = &cluster;
        m_residents.assign(cluster.nodes().size(), {});
    }
    NodeResidents& cached = m_residents[static_cast<std::size_t>(node.id)];
    if (cached.versionPlusOne == node.version + 1)
        return cached;
    cached.versionPlusOne = node.version + 1;
    cached.movable.clear();
    cached.pinned.assign(node.devices.size(), 0);
    for (WorkloadId r : node.residents) {
        const WorkloadRecord* rec = cluster.workload(r);
        if (!rec || !rec->placement)
            continue;
        if (!isMovable(rec->workload)) {
            for (const DeviceShare& s : rec->placement->shares)
                cached.pinned[static_cast<std::size_t>(s.device)] = 1;
            continue;
        }
        MovableResident m;
        m.id = r;
        m.workload = &rec->workload;
        m.requests = rec->workload.requests;
        if (!rec->placement->shares.empty()) {
            m.device = rec->placement->shares.front().device;
            m.share = rec->placement->shares.front().share;
            m.deviceMemoryMiB = rec->placement->shares.front().memoryMiB;
        }
        cached.movable.push_back(m);
    }
    return cached;
}

std::optional<Defragmenter::Plan> Defragmenter::planNode(
    Scheduler& scheduler, const ClusterState& cluster, const Node& node, const Workload& w, std::int32_t budget)
{
    // Static fit first: nothing that moving residents could change.
    if (!node.schedulable || !node.capacity.fits(w.requests))
        return std::nullopt;
    if (w.pool != kNoPool && std::find(node.pools.begin(), node.pools.end(), w.pool) == node.pools.end())
        return std::nullopt;
    bool translated = false;
    if (filters::tier(node.tier, node.peakReserved, w, filters::poolTier(cluster, w)) != RejectReason::None
        || filters::isa(node.isa, w, scheduler.slowdowns(), translated) != RejectReason::None)
        return std::nullopt;
    const AcceleratorRequest& a = w.accelerators;
    if (a.any()) {
        std::int32_t usableDevices = 0;
        for (const Device& d : node.devices)
            usableDevices += usable(d, a);
        if (usableDevices < a.count)
            return std::nullopt;
    }

    const NodeResidents& residents = residentsOf(cluster, node);
    const std::vector<MovableResident>& movable = residents.movable;
    Plan plan;
    plan.node = node.id;
    m_evicted.assign(movable.size(), 0);
    auto evict = [&](std::size_t i) {
        m_evicted[i] = 1;
        plan.evict.push_back(movable[i].id);
        plan.evictWorkloads.push_back(movable[i].workload);
    };

    if (a.any() && a.wholeDevices()) {
        // The `count` usable devices that are cheapest to empty: fewest residents, then least share in use.
        m_deviceChoice.clear();
        for (std::size_t d = 0; d < node.devices.size(); ++d) {
            const Device& dev = node.devices[d];
            if (!usable(dev, a) || residents.pinned[d])
                continue;
            std::int32_t count = 0;
            for (const MovableResident& r : movable)
                count += r.device == static_cast<std::int16_t>(d);
            m_deviceChoice.push_back({ count, dev.shareCapacity - dev.shareFree, static_cast<std::int16_t>(d) });
        }
        if (m_deviceChoice.size() < static_cast<std::size_t>(a.count))
            return std::nullopt;
        std::partial_sort(m_deviceChoice.begin(), m_deviceChoice.begin() + a.count, m_deviceChoice.end());
        std::int32_t needed = 0;
        for (std::int32_t k = 0; k < a.count; ++k)
            needed += std::get<0>(m_deviceChoice[static_cast<std::size_t>(k)]);
        if (needed > budget)
            return std::nullopt;
        for (std::int32_t k = 0; k < a.count; ++k)
            for (std::size_t i = 0; i < movable.size(); ++i)
                if (movable[i].device == std::get<2>(m_deviceChoice[static_cast<std::size_t>(k)]))
                    evict(i);
    } else if (a.any()) {
        // One device with enough free share: the one where the fewest residents have to leave.
        std::vector<std::size_t> best;
        bool found = false;
        for (std::size_t d = 0; d < node.devices.size() && !(found && best.empty()); ++d) {
            const Device& dev = node.devices[d];
            if (!usable(dev, a) || residents.pinned[d])
                continue;
            const std::int32_t shareShort = a.sharePerDevice - dev.shareFree;
            const std::int64_t memoryShort = a.memoryMiBPerDevice - dev.memoryFreeMiB;
            if (shareShort <= 0 && memoryShort <= 0) {
                best.clear();
                found = true;
                continue;
            }
            std::vector<std::size_t> on; // movable residents on this device, largest share first
            for (std::size_t i = 0; i < movable.size(); ++i)
                if (movable[i].device == static_cast<std::int16_t>(d))
                    on.push_back(i);
            std::sort(on.begin(), on.end(),
                [&](std::size_t x, std::size_t y) { return movable[x].share > movable[y].share; });
            std::vector<std::size_t> pick;
            // The smallest single resident that frees enough, else the largest ones until enough is free.
            for (auto it = on.rbegin(); it != on.rend(); ++it)
                if (movable[*it].share >= shareShort && movable[*it].deviceMemoryMiB >= memoryShort) {
                    pick = { *it };
                    break;
                }
            std::int32_t share = 0;
            std::int64_t memory = 0;
            for (std::size_t k = 0; pick.empty() && k < on.size(); ++k) {
                share += movable[on[k]].share;
                memory += movable[on[k]].deviceMemoryMiB;
                if (share >= shareShort && memory >= memoryShort)
                    pick.assign(on.begin(), on.begin() + static_cast<std::ptrdiff_t>(k + 1));
            }
            if (!pick.empty() && (!found || pick.size() < best.size())) {
                best = std::move(pick);
                found = true;
            }
        }
        if (!found)
            return std::nullopt;
        for (std::size_t i : best)
            evict(i);
    }

    // CPU and memory: what is still short after the accelerator evictions comes from the other movable
    // residents, CPU-only ones first among equals.
    Resources available = node.free;
    for (std::size_t i = 0; i < movable.size(); ++i)
        if (m_evicted[i])
            available += movable[i].requests;
    for (;;) {
        const std::int64_t cpuShort = w.requests.cpuMillis - available.cpuMillis;
        const std::int64_t memoryShort = w.requests.memoryMiB - available.memoryMiB;
        if (cpuShort <= 0 && memoryShort <= 0)
            break;
        if (static_cast<std::int32_t>(plan.evict.size()) >= budget)
            return std::nullopt;
        std::size_t pick = movable.size();
        std::tuple<int, double, int> pickKey {};
        for (std::size_t i = 0; i < movable.size(); ++i) {
            if (m_evicted[i])
                continue;
            const Resources& r = movable[i].requests;
            const double cpuPart
                = cpuShort > 0 ? std::min(1.0, static_cast<double>(r.cpuMillis) / static_cast<double>(cpuShort)) : 1.0;
            const double memoryPart = memoryShort > 0
                ? std::min(1.0, static_cast<double>(r.memoryMiB) / static_cast<double>(memoryShort))
                : 1.0;
            const bool covers = cpuPart >= 1.0 && memoryPart >= 1.0;
            const int withDevice = movable[i].device >= 0 ? 1 : 0;
            // A resident that covers the whole shortfall: the smallest such; otherwise the largest contribution.
            const double size = static_cast<double>(r.cpuMillis)
                    / static_cast<double>(std::max<std::int64_t>(1, node.capacity.cpuMillis))
                + static_cast<double>(r.memoryMiB)
                    / static_cast<double>(std::max<std::int64_t>(1, node.capacity.memoryMiB));
            const std::tuple<int, double, int> key { covers ? 0 : 1, covers ? size : -(cpuPart + memoryPart),
                withDevice };
            if (pick == movable.size() || key < pickKey) {
                pick = i;
                pickKey = key;
            }
        }
        if (pick == movable.size())
            return std::nullopt;
        evict(pick);
        available += movable[pick].requests;
    }
    if (plan.evict.empty() || static_cast<std::int32_t>(plan.evict.size()) > budget || !available.fits(w.requests))
        return std::nullopt;
    for (std::size_t i = 0; i < movable.size(); ++i)
        if (m_evicted[i]) {
            plan.movedShare += movable[i].share;
            plan.movedCpuMillis += movable[i].requests.cpuMillis;
        }
    return plan;
}

bool Defragmenter::release(Scheduler& scheduler, ClusterState& cluster, WorkloadId id, Journal& journal)
{
    const WorkloadRecord* record = cluster.workload(id);
    if (!record || !record->placement)
        return false;
    const Placement before = *record->placement;
    if (!scheduler.release(id))
        return false;
    journal.steps.push_back({ id, before, false });
    return true;
}

bool Defragmenter::rebind(Scheduler& scheduler, ClusterState& cluster, WorkloadId id, std::int32_t& budget, int depth,
    std::vector<NodeId>& excluded, Journal& journal)
{
    if (m_options.destination == DestinationRule::Policy) {
        const Decision decision = scheduler.place(id);
        if (decision.placement) {
            journal.steps.push_back({ id, *decision.placement, true });
            return true;
        }
    } else if (std::optional<Placement> target = tightestPlacement(scheduler, cluster.workload(id)->workload)) {
        if (scheduler.bindExternal(*target)) {
            journal.steps.push_back({ id, *target, true });
            return true;
        }
    }
    // Nothing takes it as things are: one level down, make room for it the same way.
    if (depth + 1 > m_options.chainDepth || budget <= 0)
        return false;
    return placeWithMoves(scheduler, cluster, id, budget, depth + 1, excluded, journal);
}

std::optional<Placement> Defragmenter::tightestPlacement(Scheduler& scheduler, const Workload& w)
{
    const AcceleratorRequest& a = w.accelerators;
    struct Target {
        std::tuple<std::int64_t, std::int64_t, std::int64_t> key;
        NodeId node;
        std::int16_t device;
    };
    std::vector<Target> targets;
    for (const Node& node : scheduler.cluster().nodes()) {
        if (!node.schedulable || !node.free.fits(w.requests))
            continue;
        const std::int64_t cpuAfter = node.free.cpuMillis - w.requests.cpuMillis;
        if (!a.any()) {
            // CPU where no device share is left is CPU no accelerator workload can use: take that first.
            targets.push_back({ { node.deviceShareFreeTotal(), node.idleDeviceCount(), cpuAfter }, node.id, -1 });
            continue;
        }
        std::int16_t device = -1;
        for (std::size_t d = 0; d < node.devices.size(); ++d) {
            const Device& dev = node.devices[d];
            if (usable(dev, a) && dev.shareFree >= a.sharePerDevice && dev.memoryFreeMiB >= a.memoryMiBPerDevice
                && (device < 0 || dev.shareFree < node.devices[static_cast<std::size_t>(device)].shareFree))
                device = static_cast<std::int16_t>(d);
        }
        if (device >= 0)
            targets.push_back({ { node.devices[static_cast<std::size_t>(device)].shareFree - a.sharePerDevice,
                                    node.idleDeviceCount(), cpuAfter },
                node.id, device });
    }
    std::sort(targets.begin(), targets.end(),
        [](const Target& x, const Target& y) { return std::tie(x.key, x.node) < std::tie(y.key, y.node); });
    for (const Target& t : targets) {
        bool translated = false;
        if (scheduler.check(scheduler.cluster().node(t.node), w, translated) != RejectReason::None)
            continue;
        Placement p;
        p.workload = w.id;
        p.node = t.node;
        p.translated = translated;
        if (t.device >= 0)
            p.shares.push_back({ t.device, a.sharePerDevice, a.memoryMiBPerDevice });
        return p;
    }
    return std::nullopt;
}

void Defragmenter::rollback(Scheduler& scheduler, Journal& journal, std::size_t mark)
{
    // Undo in reverse: what was bound is released, what was released gets its placement back. Each step restores
    // a state that held before, so none of these can fail.
    while (journal.steps.size() > mark) {
        const Journal::Step step = std::move(journal.steps.back());
        journal.steps.pop_back();
        [[maybe_unused]] const bool undone = step.bound ? scheduler.release(step.workload).has_value()
                                                        : scheduler.bindExternal(step.placement).has_value();
        assert(undone);
    }
}

} // namespace tidepool::rebalance
