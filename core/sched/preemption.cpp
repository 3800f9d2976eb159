// Priority with preemption: when a workload fits nowhere, find the node where evicting the fewest and least
// important strictly-lower-priority workloads makes it fit. Victims are chosen lowest priority first, newest
// first within a priority (the least sunk work), and never include equal or higher priorities. Evictions that turn
// out not to be needed (a CPU-only victim when the workload is short of GPU share) are given back before the
// choice is compared across nodes, so the chosen set is minimal on its node.

#include "core/sched/filters.h"
#include "core/sched/scheduler.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace tidepool {

namespace {

bool capacityProblem(RejectReason why)
{
    return why == RejectReason::InsufficientCpu || why == RejectReason::InsufficientMemory
        || why == RejectReason::InsufficientMemBandwidth || why == RejectReason::InsufficientNetBandwidth
        || why == RejectReason::InsufficientAcceleratorShare || why == RejectReason::InsufficientAcceleratorMemory
        || why == RejectReason::NotEnoughIdleAccelerators || why == RejectReason::PoolQuotaExhausted;
}

// A copy of one node and of the workload's pool on which evictions are tried without touching the cluster. One
// scratch serves every node a search considers, so that its buffers are reused.
struct Scratch {
    Node node;
    std::optional<Pool> pool; // only what `Pool::fits` reads: not the pool's node list, which is long

    void reset(const Node& from, const Pool* workloadPool)
    {
        node = from;
        pool.reset();
        if (workloadPool) {
            Pool& p = pool.emplace();
            p.id = workloadPool->id;
            p.quota = workloadPool->quota;
            p.used = workloadPool->used;
            p.acceleratorQuota = workloadPool->acceleratorQuota;
            p.acceleratorUsed = workloadPool->acceleratorUsed;
        }
    }

    // `sign` +1 evicts the victim (gives its resources back), -1 restores it.
    void evict(const WorkloadRecord& victim, int sign)
    {
        const Resources& r = victim.workload.requests;
        const bool samePool = pool && victim.workload.pool == pool->id;
        node.free = sign > 0 ? node.free + r : node.free - r;
        if (samePool)
            pool->used = sign > 0 ? pool->used - r : pool->used + r;
        for (const DeviceShare& s : victim.placement->shares) {
            Device& d = node.devices[static_cast<std::size_t>(s.device)];
            d.shareFree += sign * s.share;
            d.memoryFreeMiB += sign * s.memoryMiB;
            if (samePool)
                pool->acceleratorUsed[static_cast<std::size_t>(d.kind)] -= sign * s.share;
        }
    }
};

} // namespace

bool Scheduler::mayHoldVictims(const Node& node, std::int32_t priority)
{
    const auto i = static_cast<std::size_t>(node.id);
    if (i >= m_priorityFloor.size())
        m_priorityFloor.resize(m_cluster.nodes().size());
    PriorityFloor& floor = m_priorityFloor[i];
    if (floor.version != node.version || floor.residents != node.residents.size()) {
        floor.priority = std::numeric_limits<std::int32_t>::max();
        for (WorkloadId id : node.residents)
            if (const WorkloadRecord* r = m_cluster.workload(id))
                floor.priority = std::min(floor.priority, r->workload.priority);
        floor.version = node.version;
        floor.residents = node.residents.size();
    }
    return floor.priority < priority;
}

bool Scheduler::tryPreempt(const Workload& w, Decision& decision, bool dryRun)
{
    struct Choice {
        NodeId node = kNoNode;
        std::vector<WorkloadId> victims;
        std::tuple<std::int32_t, std::size_t, std::int64_t> cost { 0, 0, 0 }; // max victim priority, count, sum
        std::vector<DeviceShare> shares;
        bool translated = false;
    };
    std::optional<Choice> best;
    auto rank = [&](NodeId node) {
        return m_config.tieRank.empty() ? static_cast<std::uint32_t>(node)
                                        : m_config.tieRank[static_cast<std::size_t>(node)];
    };
    const ScoreContext ctx { m_cluster, m_slowdowns };
    // The node checks against the scratch state. `check` tests the pool quota against the real pool, so when that
    // is the only objection and the scratch pool has room, the policies' filters (which `check` stopped before)
    // still get their say.
    auto fitsOn = [&](const Scratch& s, bool& translated) {
        RejectReason r = check(s.node, w, translated);
        if (r == RejectReason::PoolQuotaExhausted && s.pool
            && s.pool->fits(w.requests, w.accelerators.kind, filters::acceleratorShare(s.node, w))) {
            r = RejectReason::None;
            for (Weighted& p : m_policies)
                if (p.policy->filter(ctx, s.node, w) != RejectReason::None)
                    r = RejectReason::PolicyRejected;
        }
        return r == RejectReason::None;
    };

    Scratch scratch;
    const Pool* workloadPool = w.pool != kNoPool ? &m_cluster.pool(w.pool) : nullptr;
    std::vector<std::pair<const WorkloadRecord*, std::size_t>> order;
    std::vector<const WorkloadRecord*> evicted;
    auto consider = [&](const Node& node) {
        bool translated = false;
        if (!capacityProblem(check(node, w, translated)))
            return;
        // Residents are in bind order: sort by priority, and newest first within a priority.
        order.clear();
        for (std::size_t i = 0; i < node.residents.size(); ++i) {
            const WorkloadRecord* r = m_cluster.workload(node.residents[i]);
            if (r && r->placement && r->workload.priority < w.priority)
                order.emplace_back(r, i);
        }
        if (order.empty())
            return;
        std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
            if (a.first->workload.priority != b.first->workload.priority)
                return a.first->workload.priority < b.first->workload.priority;
            return a.second > b.second;
        });

        scratch.reset(node, workloadPool);
        evicted.clear();
        bool fits = false;
        for (const auto& entry : order) {
            scratch.evict(*entry.first, +1);
            evicted.push_back(entry.first);
            if ((fits = fitsOn(scratch, translated)))
                break;
        }
        if (!fits)
            return;
        // Give back, most important first, every eviction the workload can do without.
        for (std::size_t i = evicted.size(); i-- > 0;) {
            scratch.evict(*evicted[i], -1);
            if (fitsOn(scratch, translated))
                evicted.erase(evicted.begin() + static_cast<std::ptrdiff_t>(i));
            else
                scratch.evict(*evicted[i], +1);
        }
        (void)fitsOn(scratch, translated); // refreshes `translated` for the final state

        Choice choice;
        choice.node = node.id;
        choice.translated = translated;
        choice.shares = defaultDeviceChoice(scratch.node, w);
        auto& [maxPriority, count, sum] = choice.cost;
        maxPriority = evicted.front()->workload.priority;
        for (const WorkloadRecord* v : evicted) {
            choice.victims.push_back(v->workload.id);
            maxPriority = std::max(maxPriority, v->workload.priority);
            sum += v->workload.priority;
        }
        count = evicted.size();
        if (!best || choice.cost < best->cost || (choice.cost == best->cost && rank(choice.node) < rank(best->node)))
            best = std::move(choice);
    };
    // Nodes that hold anything evictable, by their lowest resident priority. Every victim on a node has at least
    // that priority, so once it exceeds the best choice's most important victim no later node can beat it.
    m_preemptable.clear();
    auto collect = [&](const Node& node) {
        if (mayHoldVictims(node, w.priority))
            m_preemptable.emplace_back(m_priorityFloor[static_cast<std::size_t>(node.id)].priority, node.id);
    };
    if (!m_config.exhaustive && m_index.exact()) {
        // The walk that found no room has left the classes that pass the static checks in `m_matching`; nodes of
        // other classes cannot take the workload whatever is evicted.
        for (const NodeIndex::Match& match : m_matching)
            for (const auto& [key, id] : m_index.classes()[static_cast<std::size_t>(match.cls)].byKey)
                collect(m_cluster.node(id));
    } else {
        for (const Node& node : m_cluster.nodes())
            collect(node);
    }
    std::sort(m_preemptable.begin(), m_preemptable.end());
    for (const auto& [floor, id] : m_preemptable) {
        if (best) {
            // No choice on a node costs less than (floor, 1, floor): at least one victim, none below the floor (and
            // a second victim makes the count larger). The bound grows with the floor, so once it exceeds the best
            // cost no later node can win; where it equals it, only a node ranked before the best one could.
            const std::tuple<std::int32_t, std::size_t, std::int64_t> bound { floor, 1, floor };
            if (bound > best->cost)
                break;
            if (bound == best->cost && rank(id) > rank(best->node))
                continue;
        }
        consider(m_cluster.node(id));
    }
    if (!best)
        return false;

    if (dryRun) {
        // Nothing is evicted: report the victims and where the workload would land once they are gone.
        decision.victims = best->victims;
        decision.placement = Placement { w.id, best->node, best->shares, best->translated };
        return true;
    }
    std::vector<Placement> evictedPlacements;
    for (WorkloadId victim : best->victims) {
        evictedPlacements.push_back(*m_cluster.workload(victim)->placement);
        (void)release(victim);
    }
    Candidate c { .node = best->node };
    if (check(m_cluster.node(best->node), w, c.translated) == RejectReason::None) {
        std::vector<Candidate> one { c };
        scoreCandidates(w, one, decision);
        if (decision.placement && m_cluster.bind(*decision.placement)) {
            notifyBind(w, *decision.placement);
            decision.victims = best->victims;
            return true;
        }
    }
    // The scratch simulation and the real state disagree only through a bug; put the victims back rather than
    // leave them evicted for nothing.
    decision.placement.reset();
    for (const Placement& p : evictedPlacements)
        (void)bindExternal(p);
    return false;
}

} // namespace tidepool
