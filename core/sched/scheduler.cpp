#include "core/sched/scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tidepool {

namespace {

bool inPool(const Node& node, PoolId pool)
{
    return std::find(node.pools.begin(), node.pools.end(), pool) != node.pools.end();
}

// Tier and spill rules: untiered nodes take anything; a pinned workload takes only its tier; real-time work may
// spill from hot to warm; batch may spill to warm, and to hot only where no forecast peak reserves the node.
RejectReason tierCheck(const Node& node, const Workload& w)
{
    if (node.tier == Tier::Invalid)
        return RejectReason::None;
    if (w.pinnedTier != Tier::Invalid)
        return node.tier == w.pinnedTier ? RejectReason::None : RejectReason::TierNotAllowed;
    switch (homeTier(w.latency)) {
    case Tier::Hot:
        return node.tier == Tier::Hot || node.tier == Tier::Warm ? RejectReason::None : RejectReason::TierNotAllowed;
    case Tier::Warm:
        return node.tier == Tier::Warm ? RejectReason::None : RejectReason::TierNotAllowed;
    case Tier::Cold:
        if (node.tier == Tier::Hot && node.peakReserved)
            return RejectReason::PeakReserved;
        return RejectReason::None;
    case Tier::Invalid: break;
    }
    return RejectReason::TierNotAllowed;
}

RejectReason isaCheck(const Node& node, const Workload& w, const SlowdownTable& slowdowns, bool& translated)
{
    translated = false;
    if (w.runsNatively(node.isa))
        return RejectReason::None;
    if (!w.allowTranslation || !std::isfinite(slowdowns.bestFactor(w.nativeIsas, node.isa)))
        return RejectReason::WrongIsa;
    translated = true;
    return RejectReason::None;
}

// Accelerator kind, model and share on the node's current free state.
RejectReason acceleratorCheck(const Node& node, const Workload& w)
{
    const AcceleratorRequest& a = w.accelerators;
    if (!a.any())
        return RejectReason::None;
    bool kindSeen = false;
    bool modelSeen = false;
    std::int32_t idle = 0;
    for (const Device& d : node.devices) {
        if (d.kind != a.kind)
            continue;
        kindSeen = true;
        if (!a.allows(d.model))
            continue;
        modelSeen = true;
        if (a.wholeDevices()) {
            if (d.idle() && d.memoryFreeMiB >= a.memoryMiBPerDevice && ++idle >= a.count)
                return RejectReason::None;
        } else if (d.shareFree >= a.sharePerDevice && d.memoryFreeMiB >= a.memoryMiBPerDevice) {
            return RejectReason::None;
        }
    }
    if (!kindSeen)
        return RejectReason::NoAccelerator;
    if (!modelSeen)
        return RejectReason::WrongAcceleratorModel;
    return RejectReason::InsufficientAcceleratorShare;
}

RejectReason scalarCheck(const Resources& free, const Resources& r)
{
    if (free.cpuMillis < r.cpuMillis)
        return RejectReason::InsufficientCpu;
    if (free.memoryMiB < r.memoryMiB)
        return RejectReason::InsufficientMemory;
    if (free.memBandwidthMBps < r.memBandwidthMBps)
        return RejectReason::InsufficientMemBandwidth;
    if (free.netBandwidthMbps < r.netBandwidthMbps)
        return RejectReason::InsufficientNetBandwidth;
    return RejectReason::None;
}

std::int64_t acceleratorShareOf(const Node& node, const Workload& w)
{
    const AcceleratorRequest& a = w.accelerators;
    if (!a.any())
        return 0;
    std::int32_t capacity = 0;
    for (const Device& d : node.devices)
        if (d.kind == a.kind) {
            capacity = d.shareCapacity;
            break;
        }
    return std::int64_t { a.shareOn(capacity) } * a.count;
}

// Static class-level checks shared by every node of an index class.
RejectReason classCheck(const NodeIndex::Class& c, const Workload& w, const SlowdownTable& slowdowns)
{
    if (w.pool != kNoPool && !std::binary_search(c.pools.begin(), c.pools.end(), w.pool))
        return RejectReason::NotInPool;
    Node probe;
    probe.tier = c.tier;
    probe.isa = c.isa;
    if (const RejectReason r = tierCheck(probe, w); r != RejectReason::None && r != RejectReason::PeakReserved)
        return r;
    bool translated = false;
    if (const RejectReason r = isaCheck(probe, w, slowdowns, translated); r != RejectReason::None)
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

} // namespace

SlowdownTable::SlowdownTable()
{
    for (auto& row : m_factor)
        row.fill(kDefaultTranslationSlowdown);
    for (std::size_t i = 0; i < m_factor.size(); ++i)
        m_factor[i][i] = 1.0;
}

double SlowdownTable::bestFactor(IsaMask native, Isa to) const
{
    double best = std::numeric_limits<double>::infinity();
    for (int i = 1; i < kIsaCount; ++i)
        if (native & (1u << i))
            best = std::min(best, factor(static_cast<Isa>(i), to));
    return best;
}

std::string Decision::reason() const
{
    if (placement)
        return "placed on node " + std::to_string(placement->node) + (placement->translated ? " (translated)" : "")
            + " with score " + std::to_string(score) + "; " + report.summary();
    return std::string("pending: ") + std::string(toString(report.mainReason())) + "; " + report.summary();
}

std::vector<DeviceShare> defaultDeviceChoice(const Node& node, const Workload& w, std::int16_t preferred)
{
    const AcceleratorRequest& a = w.accelerators;
    std::vector<DeviceShare> shares;
    if (!a.any())
        return shares;
    auto usable = [&](const Device& d) { return d.kind == a.kind && a.allows(d.model) && d.memoryFreeMiB >= a.memoryMiBPerDevice; };
    if (a.wholeDevices()) {
        for (std::size_t i = 0; i < node.devices.size() && static_cast<std::int32_t>(shares.size()) < a.count; ++i) {
            const Device& d = node.devices[i];
            if (usable(d) && d.idle())
                shares.push_back({ static_cast<std::int16_t>(i), d.shareCapacity, a.memoryMiBPerDevice });
        }
        if (static_cast<std::int32_t>(shares.size()) < a.count)
            shares.clear();
        return shares;
    }
    if (preferred >= 0 && static_cast<std::size_t>(preferred) < node.devices.size()) {
        const Device& d = node.devices[static_cast<std::size_t>(preferred)];
        if (usable(d) && d.shareFree >= a.sharePerDevice) {
            shares.push_back({ preferred, a.sharePerDevice, a.memoryMiBPerDevice });
            return shares;
        }
    }
    std::int16_t best = -1;
    for (std::size_t i = 0; i < node.devices.size(); ++i) {
        const Device& d = node.devices[i];
        if (usable(d) && d.shareFree >= a.sharePerDevice
            && (best < 0 || d.shareFree < node.devices[static_cast<std::size_t>(best)].shareFree))
            best = static_cast<std::int16_t>(i);
    }
    if (best >= 0)
        shares.push_back({ best, a.sharePerDevice, a.memoryMiBPerDevice });
    return shares;
}

Scheduler::Scheduler(ClusterState& cluster, Profile profile, const PolicyRegistry& registry, PolicyOptions options,
    SchedulerConfig config)
    : m_cluster(cluster)
    , m_profile(std::move(profile))
    , m_config(std::move(config))
{
    for (const ProfileEntry& e : m_profile.entries) {
        auto policy = registry.make(e.policy, options);
        if (policy)
            m_policies.push_back({ std::move(policy), e.weight });
    }
    m_raw.resize(m_policies.size());
    nodesChanged();
}

Scheduler::~Scheduler() = default;

void Scheduler::nodesChanged() { m_index.rebuild(m_cluster); }

RejectReason Scheduler::check(const Node& node, const Workload& w, bool& translated)
{
    translated = false;
    if (!node.schedulable)
        return RejectReason::Unschedulable;
    if (w.pool != kNoPool && !inPool(node, w.pool))
        return RejectReason::NotInPool;
    if (const RejectReason r = tierCheck(node, w); r != RejectReason::None)
        return r;
    if (const RejectReason r = isaCheck(node, w, m_slowdowns, translated); r != RejectReason::None)
        return r;
    if (const RejectReason r = acceleratorCheck(node, w); r != RejectReason::None)
        return r;
    if (const RejectReason r = scalarCheck(node.free, w.requests); r != RejectReason::None)
        return r;
    if (w.pool != kNoPool && !m_cluster.pool(w.pool).fits(w.requests, w.accelerators.kind, acceleratorShareOf(node, w)))
        return RejectReason::PoolQuotaExhausted;
    const ScoreContext ctx { m_cluster, m_slowdowns };
    for (Weighted& p : m_policies)
        if (p.policy->filter(ctx, node, w) != RejectReason::None)
            return RejectReason::PolicyRejected;
    return RejectReason::None;
}

Decision Scheduler::place(WorkloadId id, bool dryRun)
{
    Decision decision;
    const WorkloadRecord* record = m_cluster.workload(id);
    if (!record || record->placement) {
        decision.report.reject(RejectReason::None, 0);
        return decision;
    }
    const Workload& w = record->workload;
    const ScoreContext ctx { m_cluster, m_slowdowns };
    for (Weighted& p : m_policies)
        p.policy->prepare(ctx, w);

    m_candidates.clear();
    auto consider = [&](const Node& node) {
        Candidate c { node.id, false, -1 };
        const RejectReason r = check(node, w, c.translated);
        if (r == RejectReason::None) {
            decision.report.accept();
            m_candidates.push_back(c);
            return true;
        }
        decision.report.reject(r);
        return false;
    };
    auto fullScan = [&] {
        decision.report = {};
        m_candidates.clear();
        for (const Node& node : m_cluster.nodes())
            consider(node);
    };

    if (m_config.exhaustive) {
        fullScan();
    } else {
        // Bounded walk of the index: skip classes that fail statically, start each class at the first node whose
        // free-capacity key can hold the request, and score at most a budget of feasible nodes overall, split
        // across the matching classes, taken from the tight end (packing) and a quarter from the loose end.
        auto& classes = m_index.classes();
        std::int32_t matching = 0;
        for (const auto& c : classes)
            matching += classCheck(c, w, m_slowdowns) == RejectReason::None && !c.byKey.empty();
        const std::int32_t perClass = matching == 0 ? 0 : std::max<std::int32_t>(4, m_config.scoreBudget / matching);
        for (const auto& c : classes) {
            if (c.byKey.empty())
                continue;
            if (const RejectReason r = classCheck(c, w, m_slowdowns); r != RejectReason::None) {
                decision.report.reject(r, static_cast<std::int32_t>(c.byKey.size()));
                continue;
            }
            auto lo = c.byKey.lower_bound({ NodeIndex::requiredKey(c.kind, w), std::numeric_limits<NodeId>::min() });
            auto hi = c.byKey.end();
            std::int32_t found = 0;
            const std::int32_t tightQuota = perClass - perClass / 4;
            while (lo != hi && found < tightQuota) {
                found += consider(m_cluster.node(lo->second));
                ++lo;
            }
            while (lo != hi && found < perClass) {
                --hi;
                found += consider(m_cluster.node(hi->second));
            }
        }
        if (m_candidates.empty())
            fullScan(); // an exact "why pending" over every node
    }

    if (m_candidates.empty()) {
        if (m_profile.preemption)
            tryPreempt(w, decision, dryRun);
        return decision;
    }

    scoreCandidates(w, m_candidates, decision);
    if (!dryRun && decision.placement) {
        if (auto r = m_cluster.bind(*decision.placement); !r) {
            // Filters and bind disagree only through a bug; report it as pending rather than corrupting state.
            decision.placement.reset();
            return decision;
        }
        notifyBind(w, *decision.placement);
    }
    return decision;
}

void Scheduler::scoreCandidates(const Workload& w, std::vector<Candidate>& candidates, Decision& decision)
{
    const ScoreContext ctx { m_cluster, m_slowdowns };
    const std::size_t n = candidates.size();
    m_total.assign(n, 0.0);
    for (std::size_t p = 0; p < m_policies.size(); ++p) {
        auto& raw = m_raw[p];
        raw.resize(n);
        for (std::size_t i = 0; i < n; ++i)
            raw[i] = m_policies[p].policy->score(ctx, m_cluster.node(candidates[i].node), w, candidates[i]);
        m_policies[p].policy->normalize(raw);
        for (std::size_t i = 0; i < n; ++i)
            m_total[i] += m_policies[p].weight * static_cast<double>(raw[i]);
    }
    std::size_t best = 0;
    auto rank = [&](NodeId node) {
        return m_config.tieRank.empty() ? static_cast<std::uint32_t>(node) : m_config.tieRank[static_cast<std::size_t>(node)];
    };
    for (std::size_t i = 1; i < n; ++i) {
        if (m_total[i] > m_total[best] || (m_total[i] == m_total[best] && rank(candidates[i].node) < rank(candidates[best].node)))
            best = i;
    }
    decision.score = static_cast<std::int64_t>(std::llround(m_total[best]));
    Placement placement = makePlacement(w, candidates[best]);
    decision.placement = placement;
}

Placement Scheduler::makePlacement(const Workload& w, const Candidate& c) const
{
    Placement p;
    p.workload = w.id;
    p.node = c.node;
    p.translated = c.translated;
    p.shares = defaultDeviceChoice(m_cluster.node(c.node), w, c.device);
    return p;
}

void Scheduler::notifyBind(const Workload& w, const Placement& p)
{
    m_index.update(m_cluster.node(p.node));
    const ScoreContext ctx { m_cluster, m_slowdowns };
    for (Weighted& pol : m_policies)
        pol.policy->onBind(ctx, w, p);
}

Expected<void> Scheduler::bindExternal(const Placement& placement)
{
    if (auto r = m_cluster.bind(placement); !r)
        return r;
    notifyBind(m_cluster.workload(placement.workload)->workload, placement);
    return {};
}

Expected<void> Scheduler::release(WorkloadId id)
{
    const WorkloadRecord* record = m_cluster.workload(id);
    if (!record || !record->placement)
        return makeError(ErrorCode::NotFound, "workload " + std::to_string(id) + " is not placed");
    const Placement placement = *record->placement;
    if (auto r = m_cluster.unbind(id); !r)
        return r;
    m_index.update(m_cluster.node(placement.node));
    const ScoreContext ctx { m_cluster, m_slowdowns };
    for (Weighted& pol : m_policies)
        pol.policy->onUnbind(ctx, record->workload, placement);
    return {};
}

} // namespace tidepool
