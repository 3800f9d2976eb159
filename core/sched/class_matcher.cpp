#include "core/sched/class_matcher.h"

#include "core/sched/filters.h"

#include <algorithm>

namespace tidepool {

namespace {

// The static checks `Scheduler::check` makes, decided once for a whole class. Must agree with `check` for every
// node of the class except on `schedulable` and `peakReserved`, which vary per node.
RejectReason matchClass(const NodeIndex::Class& c, const Workload& w, Tier poolTier, const SlowdownTable& slowdowns,
    NodeIndex::Match& match)
{
    if (w.pool != kNoPool && !std::binary_search(c.pools.begin(), c.pools.end(), w.pool))
        return RejectReason::NotInPool;
    if (const RejectReason r = filters::tier(c.tier, false, w, poolTier); r != RejectReason::None)
        return r;
    match.peakSensitive = filters::tier(c.tier, true, w, poolTier) == RejectReason::PeakReserved;
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

const ClassMatcher::Result& ClassMatcher::match(
    const NodeIndex& index, const Workload& w, Tier poolTier, const SlowdownTable& slowdowns)
{
    if (index.generation() != m_generation || !(slowdowns == m_slowdowns) || m_kept.size() >= kMaxKept) {
        m_kept.clear();
        m_generation = index.generation();
        m_slowdowns = slowdowns;
    }
    const AcceleratorRequest& a = w.accelerators;
    Signature key { w.pool, poolTier, w.pinnedTier, w.latency, w.nativeIsas, w.allowTranslation,
        a.any() ? a.kind : AcceleratorKind::None, a.any() ? a.allowedModels : std::vector<ModelId> {} };
    auto it = m_kept.find(key);
    if (it == m_kept.end())
        it = m_kept.emplace(std::move(key), compute(index, w, poolTier, slowdowns)).first;
    return it->second;
}

ClassMatcher::Result ClassMatcher::compute(
    const NodeIndex& index, const Workload& w, Tier poolTier, const SlowdownTable& slowdowns) const
{
    Result result;
    const auto& classes = index.classes();
    for (std::size_t i = 0; i < classes.size(); ++i) {
        const NodeIndex::Class& c = classes[i];
        if (c.byKey.empty())
            continue;
        NodeIndex::Match match { static_cast<std::int32_t>(i), false, false };
        if (const RejectReason r = matchClass(c, w, poolTier, slowdowns, match); r != RejectReason::None)
            rejectClass(result.rejected, c, r, match.peakSensitive);
        else
            result.matching.push_back(match);
    }
    return result;
}

} // namespace tidepool
