// Priority with preemption: when a workload fits nowhere, find the node where evicting the fewest and least
// important strictly-lower-priority workloads makes it fit. Victims are chosen lowest priority first, newest
// first within a priority (the least sunk work), and never include equal or higher priorities.

#include "core/sched/scheduler.h"

#include <algorithm>
#include <tuple>

namespace tidepool {

bool Scheduler::tryPreempt(const Workload& w, Decision& decision, bool dryRun)
{
    struct Choice {
        NodeId node = kNoNode;
        std::vector<WorkloadId> victims;
        std::tuple<std::int32_t, std::size_t, std::int64_t> cost { 0, 0, 0 }; // max victim priority, count, sum
    };
    std::optional<Choice> best;
    auto rank = [&](NodeId node) {
        return m_config.tieRank.empty() ? static_cast<std::uint32_t>(node) : m_config.tieRank[static_cast<std::size_t>(node)];
    };

    for (const Node& node : m_cluster.nodes()) {
        bool translated = false;
        const RejectReason why = check(node, w, translated);
        const bool capacityProblem = why == RejectReason::InsufficientCpu || why == RejectReason::InsufficientMemory
            || why == RejectReason::InsufficientMemBandwidth || why == RejectReason::InsufficientNetBandwidth
            || why == RejectReason::InsufficientAcceleratorShare || why == RejectReason::PoolQuotaExhausted;
        if (!capacityProblem)
            continue;
        std::vector<const WorkloadRecord*> lower;
        for (WorkloadId id : node.residents) {
            const WorkloadRecord* r = m_cluster.workload(id);
            if (r && r->workload.priority < w.priority)
                lower.push_back(r);
        }
        if (lower.empty())
            continue;
        // Residents are in bind order, so a stable sort by priority keeps the oldest first; walk it backwards
        // within each priority by sorting on (priority, reverse bind position).
        std::vector<std::pair<const WorkloadRecord*, std::size_t>> order;
        for (std::size_t i = 0; i < lower.size(); ++i)
            order.emplace_back(lower[i], i);
        std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
            if (a.first->workload.priority != b.first->workload.priority)
                return a.first->workload.priority < b.first->workload.priority;
            return a.second > b.second;
        });

        // Evict on a scratch copy of the node (and the pool's usage) until the workload fits.
        Node scratch = node;
        Pool* poolScratch = nullptr;
        Pool poolCopy;
        if (w.pool != kNoPool) {
            poolCopy = m_cluster.pool(w.pool);
            poolScratch = &poolCopy;
        }
        Choice choice;
        choice.node = node.id;
        bool fits = false;
        for (const auto& [victim, pos] : order) {
            (void)pos;
            const Placement& p = *victim->placement;
            scratch.free += victim->workload.requests;
            for (const DeviceShare& s : p.shares) {
                Device& d = scratch.devices[static_cast<std::size_t>(s.device)];
                d.shareFree += s.share;
                d.memoryFreeMiB += s.memoryMiB;
                if (poolScratch && victim->workload.pool == w.pool)
                    poolScratch->acceleratorUsed[static_cast<std::size_t>(d.kind)] -= s.share;
            }
            if (poolScratch && victim->workload.pool == w.pool)
                poolScratch->used -= victim->workload.requests;
            choice.victims.push_back(victim->workload.id);
            auto& [maxPriority, count, sum] = choice.cost;
            maxPriority = std::max(maxPriority, victim->workload.priority);
            ++count;
            sum += victim->workload.priority;
            if (count == 1)
                maxPriority = victim->workload.priority;
            std::int64_t share = 0;
            if (w.accelerators.any())
                for (const Device& d : scratch.devices)
                    if (d.kind == w.accelerators.kind) {
                        share = std::int64_t { w.accelerators.shareOn(d.shareCapacity) } * w.accelerators.count;
                        break;
                    }
            bool t = false;
            const RejectReason again = [&] {
                // Re-run the node checks against the scratch state; the pool check uses the scratch pool.
                if (w.pool == kNoPool)
                    return check(scratch, w, t);
                const Pool saved = m_cluster.pool(w.pool);
                (void)saved;
                RejectReason r = check(scratch, w, t);
                if (r == RejectReason::PoolQuotaExhausted && poolScratch->fits(w.requests, w.accelerators.kind, share))
                    r = RejectReason::None;
                return r;
            }();
            if (again == RejectReason::None) {
                fits = true;
                break;
            }
        }
        if (!fits)
            continue;
        if (!best || choice.cost < best->cost || (choice.cost == best->cost && rank(choice.node) < rank(best->node)))
            best = std::move(choice);
    }
    if (!best)
        return false;

    decision.victims = best->victims;
    if (dryRun) {
        Candidate c { best->node, false, -1 };
        decision.placement = makePlacement(w, c);
        return true;
    }
    for (WorkloadId victim : best->victims)
        (void)release(victim);
    const Node& node = m_cluster.node(best->node);
    Candidate c { node.id, false, -1 };
    (void)check(node, w, c.translated);
    std::vector<Candidate> one { c };
    scoreCandidates(w, one, decision);
    if (decision.placement) {
        if (auto r = m_cluster.bind(*decision.placement); !r) {
            decision.placement.reset();
            return false;
        }
        notifyBind(w, *decision.placement);
    }
    return decision.placement.has_value();
}

} // namespace tidepool
