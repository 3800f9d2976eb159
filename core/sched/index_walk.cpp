// The scheduler's bounded mode: walk the free-capacity index instead of every node.
//
// Classes that fail a static check (pool, tier, ISA, accelerator kind or model) are rejected in bulk, as
// `ClassMatcher` decides. In every other class the walk starts at the first node whose key can hold the request and
// takes feasible nodes from the tight end (packing) and a quarter from the loose end (headroom), splitting the score
// budget across the matching classes. Nodes before the key bound and nodes the walk does not reach are not
// counted, so the report's counts sum to the nodes considered, as everywhere.

#include "core/sched/filters.h"
#include "core/sched/scheduler.h"

#include <algorithm>
#include <limits>

namespace tidepool {

namespace {

// How many nodes a class may examine per feasible node it is asked for, and a floor, before the capped walk moves
// on. Infeasible nodes past the key bound are those short of CPU or memory (GPU nodes with share left but no CPU
// are common at high load); without the cap one placement could examine a whole class of them.
constexpr std::int32_t kExaminePerWanted = 2;
constexpr std::int32_t kExamineFloor = 4;
// How far ahead of the node being examined the walk prefetches.
constexpr std::ptrdiff_t kPrefetchAhead = 4;

} // namespace

bool Scheduler::walkIndex(const Workload& w, Decision& decision, bool capped)
{
    const auto& classes = m_index.classes();
    const ClassMatcher::Result& matched
        = m_classMatcher.match(m_index, w, filters::poolTier(m_cluster, w), m_slowdowns);
    decision.report.add(matched.rejected);
    m_matching.assign(matched.matching.begin(), matched.matching.end());
    if (m_matching.empty())
        return true;

    // The budget is split evenly; with more matching classes than budget, each still offers its tightest node.
    const auto matching = static_cast<std::int32_t>(m_matching.size());
    const std::int32_t perClass = std::max<std::int32_t>(1, m_config.scoreBudget / matching);
    const std::int32_t tightQuota = perClass - perClass / 4;
    const std::int32_t examineCap
        = capped ? perClass * kExaminePerWanted + kExamineFloor : std::numeric_limits<std::int32_t>::max();
    bool complete = true;
    for (const NodeIndex::Match& match : m_matching) {
        const NodeIndex::Class& c = classes[static_cast<std::size_t>(match.cls)];
        std::int32_t found = 0;
        std::int32_t examined = 0;
        auto consider = [&](NodeId id) {
            const Node& node = m_cluster.node(id);
            ++examined;
            RejectReason r = RejectReason::None;
            if (!node.schedulable)
                r = RejectReason::Unschedulable;
            else if (match.peakSensitive && node.peakReserved)
                r = RejectReason::PeakReserved;
            else
                r = checkCapacity(node, w);
            if (r != RejectReason::None) {
                decision.report.reject(r);
                return;
            }
            decision.report.accept();
            m_candidates.push_back(Candidate { .node = id, .translated = match.translated });
            ++found;
        };
        const std::int64_t required = NodeIndex::requiredKey(c.kind, w);
        if (c.maxKey < required)
            continue; // no node of the class reaches the bound: nothing to examine, and the class is complete
        auto lo = NodeIndex::lowerBound(c, required);
        auto hi = c.byKey.end();
        // The nodes are scattered in memory and each `consider` waits for its node; asking for the ones a few
        // places ahead lets those waits overlap.
        auto prefetch = [&](NodeId id) {
            const Node& node = m_cluster.node(id);
            __builtin_prefetch(&node.free);
            __builtin_prefetch(&node.schedulable);
        };
        while (lo != hi && found < tightQuota && examined < examineCap) {
            if (hi - lo > kPrefetchAhead)
                prefetch((lo + kPrefetchAhead)->second);
            consider(lo->second);
            ++lo;
        }
        while (lo != hi && found < perClass && examined < examineCap) {
            if (hi - lo > kPrefetchAhead)
                prefetch((hi - 1 - kPrefetchAhead)->second);
            --hi;
            consider(hi->second);
        }
        complete = complete && (lo == hi || found >= perClass);
    }
    if (complete && m_candidates.empty())
        countBelowBounds(w, decision);
    return complete;
}

void Scheduler::countBelowBounds(const Workload& w, Decision& decision)
{
    // Every node at or above its class's key bound has been checked one by one; those below cannot hold the
    // request: the key says they lack accelerator share (or CPU, in CPU-only classes), unless `check` would stop
    // earlier on the node's cached flags.
    const auto& classes = m_index.classes();
    for (const NodeIndex::Match& match : m_matching) {
        const NodeIndex::Class& c = classes[static_cast<std::size_t>(match.cls)];
        const RejectReason shortOf = c.kind == AcceleratorKind::None ? RejectReason::InsufficientCpu
            : w.accelerators.any() && w.accelerators.wholeDevices()  ? RejectReason::NotEnoughIdleAccelerators
                                                                     : RejectReason::InsufficientAcceleratorShare;
        const auto bound = NodeIndex::lowerBound(c, NodeIndex::requiredKey(c.kind, w));
        for (auto it = c.byKey.begin(); it != bound; ++it) {
            if (!m_index.schedulable(it->second))
                decision.report.reject(RejectReason::Unschedulable);
            else if (match.peakSensitive && m_index.peakReserved(it->second))
                decision.report.reject(RejectReason::PeakReserved);
            else
                decision.report.reject(shortOf);
        }
    }
}

} // namespace tidepool
