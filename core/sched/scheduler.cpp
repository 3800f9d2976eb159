#include "core/sched/scheduler.h"

#include "core/sched/filters.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tidepool {

namespace {

bool inPool(const Node& node, PoolId pool)
{
    return std::find(node.pools.begin(), node.pools.end(), pool) != node.pools.end();
}

void prefetchNode(const Node& node)
{
    const auto* bytes = reinterpret_cast<const char*>(&node);
    for (std::size_t offset = 0; offset < sizeof(Node); offset += 64)
        __builtin_prefetch(bytes + offset);
    __builtin_prefetch(bytes + sizeof(Node) - 1);
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
    auto usable = [&](const Device& d) {
        return d.kind == a.kind && a.allows(d.model) && d.memoryFreeMiB >= a.memoryMiBPerDevice;
    };
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

void Scheduler::nodesChanged()
{
    m_indexStale = true;
}

void Scheduler::refreshIndex()
{
    // A node added without `nodesChanged` is noticed as well: re-keying it in an index built before it would write
    // past the index's entries.
    if (!m_indexStale && m_index.nodeCount() == m_cluster.nodes().size())
        return;
    m_index.rebuild(m_cluster);
    m_indexStale = false;
}

RejectReason Scheduler::check(const Node& node, const Workload& w, bool& translated)
{
    translated = false;
    if (!node.schedulable)
        return RejectReason::Unschedulable;
    if (w.pool != kNoPool && !inPool(node, w.pool))
        return RejectReason::NotInPool;
    if (const RejectReason r = filters::tier(node.tier, node.peakReserved, w, filters::poolTier(m_cluster, w));
        r != RejectReason::None)
        return r;
    if (const RejectReason r = filters::isa(node.isa, w, m_slowdowns, translated); r != RejectReason::None)
        return r;
    return checkCapacity(node, w);
}

void Scheduler::keepOff(WorkloadId workload, NodeId node)
{
    std::vector<NodeId>& nodes = m_keptOff[workload];
    if (std::find(nodes.begin(), nodes.end(), node) == nodes.end())
        nodes.push_back(node);
}

void Scheduler::allowOn(WorkloadId workload, NodeId node)
{
    const auto it = m_keptOff.find(workload);
    if (it == m_keptOff.end())
        return;
    std::erase(it->second, node);
    if (it->second.empty())
        m_keptOff.erase(it);
}

void Scheduler::forgetKeptOff(WorkloadId workload)
{
    m_keptOff.erase(workload);
}

bool Scheduler::keepsOff(WorkloadId workload, NodeId node) const
{
    if (m_keptOff.empty())
        return false;
    const auto it = m_keptOff.find(workload);
    return it != m_keptOff.end() && std::find(it->second.begin(), it->second.end(), node) != it->second.end();
}

RejectReason Scheduler::checkCapacity(const Node& node, const Workload& w)
{
    if (keepsOff(w.id, node.id))
        return RejectReason::IdHeldThere;
    if (w.accelerators.any())
        if (const RejectReason r = filters::accelerator(node, w); r != RejectReason::None)
            return r;
    if (const RejectReason r = filters::scalar(node.free, w.requests); r != RejectReason::None)
        return r;
    if (w.pool != kNoPool
        && !m_cluster.pool(w.pool).fits(w.requests, w.accelerators.kind, filters::acceleratorShare(node, w)))
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
    refreshIndex();
    const Workload& w = record->workload;
    const ScoreContext ctx { m_cluster, m_slowdowns };
    for (Weighted& p : m_policies)
        p.policy->prepare(ctx, w);

    m_candidates.clear();
    if (m_config.exhaustive) {
        fullScan(w, decision);
    } else {
        // The bounded walk of the index first; its cap on nodes examined per class keeps one placement cheap when
        // many nodes pass the index key but fail on another resource. Only when that finds nothing is the walk
        // repeated without the cap; when that finds nothing either, its report already counts every node exactly.
        // A full scan is left for clusters the index cannot describe exactly (`NodeIndex::exact`).
        if (!walkIndex(w, decision, true) && m_candidates.empty()) {
            decision.report = {};
            walkIndex(w, decision, false);
        }
        if (m_candidates.empty() && !m_index.exact())
            fullScan(w, decision);
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

void Scheduler::fullScan(const Workload& w, Decision& decision)
{
    decision.report = {};
    m_candidates.clear();
    for (const Node& node : m_cluster.nodes()) {
        Candidate c { .node = node.id };
        const RejectReason r = check(node, w, c.translated);
        if (r == RejectReason::None) {
            decision.report.accept();
            m_candidates.push_back(c);
        } else {
            decision.report.reject(r);
        }
    }
}

void Scheduler::scoreCandidates(const Workload& w, std::vector<Candidate>& candidates, Decision& decision)
{
    const ScoreContext ctx { m_cluster, m_slowdowns };
    const std::size_t n = candidates.size();
    // The policies read most of each candidate's node between them, the first one to ask paying for every cache
    // miss in turn; fetching all the nodes up front lets the misses overlap.
    for (const Candidate& c : candidates)
        prefetchNode(m_cluster.node(c.node));
    m_total.assign(n, 0.0);
    for (std::size_t p = 0; p < m_policies.size(); ++p) {
        auto& raw = m_raw[p];
        raw.resize(n);
        m_policies[p].policy->scoreAll(ctx, w, candidates, raw);
        m_policies[p].policy->normalize(raw);
        for (std::size_t i = 0; i < n; ++i)
            m_total[i] += m_policies[p].weight * static_cast<double>(raw[i]);
    }
    std::size_t best = 0;
    auto rank = [&](NodeId node) {
        return m_config.tieRank.empty() ? static_cast<std::uint32_t>(node)
                                        : m_config.tieRank[static_cast<std::size_t>(node)];
    };
    for (std::size_t i = 1; i < n; ++i) {
        if (m_total[i] > m_total[best]
            || (m_total[i] == m_total[best] && rank(candidates[i].node) < rank(candidates[best].node)))
            best = i;
    }
    decision.score = static_cast<std::int64_t>(std::llround(m_total[best]));
    decision.placement = makePlacement(w, candidates[best]);
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
    refreshIndex();
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
    refreshIndex();
    m_index.update(m_cluster.node(placement.node));
    const ScoreContext ctx { m_cluster, m_slowdowns };
    for (Weighted& pol : m_policies)
        pol.policy->onUnbind(ctx, record->workload, placement);
    return {};
}

} // namespace tidepool
