// The scheduler's bounded mode: walk the free-capacity index instead of every node.
//
// Classes that fail a static check (pool, tier, ISA, accelerator kind or model) are rejected in bulk, each once per
// placement. In every other class the walk starts at the first node whose key can hold the request and takes
// feasible nodes from the tight end (packing) and a quarter from the loose end (headroom), splitting the score
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

// The static checks `Scheduler::check` makes, decided once for a whole class. Must agree with `check` for every
// node of the class except on `schedulable` and `peakReserved`, which vary per node.
RejectReason matchClass(
    const NodeIndex::Class& c, const Workload& w, const SlowdownTable& slowdowns, NodeIndex::Match& match)
{
    if (w.pool != kNoPool && !std::binary_search(c.pools.begin(), c.pools.end(), w.pool))
        return RejectReason::NotInPool;
    if (const RejectReason r = filters::tier(c.tier, false, w); r != RejectReason::None)
        return r;
    match.peakSensitive = filters::tier(c.tier, true, w) == RejectReason::PeakReserved;
    if (const RejectReason r = filters::isa(c.isa, w, slowdowns, match.translated); r != RejectReason::None)
        return r;
    const AcceleratorRequest& a = w.accelerators;
    if (a.any()) {
        if (c.kind != a.kind)
            return RejectReason::NoAccelerator;
        if (!a.allowedModels.empty() && c.modelMask >> 63 == 0) {
            bool any = false;
            for (ModelId m : a.allowedModels)
                any = any || (m >= 0 && m < 63 && (c.modelMask >> m & 1u));
            if (!any)
                return RejectReason::WrongAcceleratorModel;
        }
    }
    return RejectReason::None;
}

// Counts a whole class as rejected with the reason `Scheduler::check` would give each node: cordoned nodes first,
// then nodes a forecast peak reserves (where the tier rule got that far), then the class's own reason.
void rejectClass(FilterReport& report, const NodeIndex::Class& c, RejectReason reason, bool peakSensitive)
{
    std::int32_t rest = static_cast<std::int32_t>(c.byKey.size()) - c.unschedulable;
    report.reject(RejectReason::Unschedulable, c.unschedulable);
    if (peakSensitive) {
        report.reject(RejectReason::PeakReserved, c.peakReserved);
        rest -= c.peakReserved;
    }
    report.reject(reason, rest);
}

} // namespace

bool Scheduler::walkIndex(const Workload& w, Decision& decision, bool capped)
{
    const auto& classes = m_index.classes();
    m_matching.clear();
    for (std::size_t i = 0; i < classes.size(); ++i) {
        const NodeIndex::Class& c = classes[i];
        if (c.byKey.empty())
            continue;
        NodeIndex::Match match { static_cast<std::int32_t>(i), false, false };
        if (const RejectReason r = matchClass(c, w, m_slowdowns, match); r != RejectReason::None)
            rejectClass(decision.report, c, r, match.peakSensitive);
        else
            m_matching.push_back(match);
    }
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
        while (lo != hi && found < tightQuota && examined < examineCap) {
            consider(lo->second);
            ++lo;
        }
        while (lo != hi && found < perClass && examined < examineCap) {
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
