#include "core/report/report_facts.h"

#include <set>

namespace tidepool::report {

std::string nodeClass(const Node& node)
{
    if (const std::string* label = node.label("class"); label && !label->empty())
        return *label;
    std::string name = std::string(toString(node.tier)) + "-" + std::string(toString(node.isa));
    if (node.acceleratorKind() != AcceleratorKind::None)
        name += "-" + std::string(toString(node.acceleratorKind()));
    return name;
}

ProposalFacts proposalFacts(const rebalance::Proposal& p)
{
    ProposalFacts f;
    f.id = p.id;
    f.kind = std::string(rebalance::toString(p.kind));
    f.state = std::string(rebalance::toString(p.state));
    f.risk = std::string(rebalance::toString(p.risk));
    f.reason = p.reason;
    f.why = p.why;
    f.createdMs = p.createdMs;
    f.decidedMs = p.decidedMs;
    f.decidedBy = p.decidedBy;
    f.utilisationBefore = p.effect.utilisationBefore;
    f.utilisationAfter = p.effect.utilisationAfter;
    f.wattsSaved = p.effect.wattsSaved;
    using Type = rebalance::Action::Type;
    for (const rebalance::Action& a : p.plan) {
        switch (a.type) {
        case Type::SetCpuQuota:
            f.poolQuotas.insert(f.poolQuotas.begin(), { a.target, static_cast<double>(a.cpuMillis) });
            break;
        case Type::SetMemoryQuota:
            f.poolQuotas.insert(f.poolQuotas.begin(), { a.target, static_cast<double>(a.memoryMiB) });
            f.quotaSeries = "memory";
            break;
        case Type::SetAcceleratorQuota:
            // The history counts accelerators in milli-devices, which are a GPU quota's share units but not NPU cores
            // or FPGA slots: only a GPU quota's realised utilisation can be read from it.
            f.poolQuotas.insert(f.poolQuotas.begin(),
                { a.target, a.accelerator == AcceleratorKind::Gpu ? static_cast<double>(a.quotaShare) : 0.0 });
            f.quotaSeries = std::string(toString(a.accelerator));
            break;
        case Type::TakeCpuQuota:
        case Type::GiveCpuQuota:
        case Type::TakeMemoryQuota:
        case Type::GiveMemoryQuota:
        case Type::TakeAcceleratorQuota:
        case Type::GiveAcceleratorQuota: f.poolQuotas.emplace_back(a.target, 0.0); break;
        case Type::Migrate:
            f.nodes.push_back(a.from);
            f.nodes.push_back(a.target);
            break;
        case Type::Resize: f.nodes.push_back(a.target); break;
        case Type::Cordon:
        case Type::Uncordon:
        case Type::Reserve:
        case Type::Release:
        case Type::Drain:
        case Type::Evict: f.nodes.push_back(a.target); break;
        case Type::HoldDeferrable:
        case Type::Invalid: break;
        }
    }
    return f;
}

ClusterFacts clusterFacts(const api::ControlPlane& plane, const api::Rebalancer* rebalancer)
{
    ClusterFacts facts;
    facts.nowMs = plane.nowMs();
    const ClusterState& cluster = plane.cluster();
    for (const Node& n : cluster.nodes()) {
        if (n.name.empty())
            continue;
        NodeFacts f;
        f.name = n.name;
        f.tier = std::string(toString(n.tier));
        f.isa = std::string(toString(n.isa));
        f.nodeClass = nodeClass(n);
        f.cpuCores = static_cast<double>(n.capacity.cpuMillis) / 1000.0;
        f.memoryGiB = static_cast<double>(n.capacity.memoryMiB) / 1024.0;
        for (const Device& d : n.devices)
            ++f.devices[std::string(toString(d.kind))];
        f.idleWatts = n.power.idleWatts;
        f.peakWatts = n.power.peakWatts;
        f.acceleratorPeakWatts = n.power.acceleratorPeakWatts;
        facts.nodes.push_back(std::move(f));
    }
    for (const Pool& p : cluster.pools()) {
        if (p.name.empty() || p.removed)
            continue;
        PoolFacts f;
        f.name = p.name;
        f.businessLine = p.businessLine;
        f.tier = p.tier == Tier::Invalid ? std::string() : std::string(toString(p.tier));
        for (const NodeId id : p.nodes)
            f.nodes.push_back(cluster.node(id).name);
        facts.pools.push_back(std::move(f));
    }
    // Deleted pools, the newest deletion of each name, unless a pool has its name again: the history is kept by name,
    // and a report counts it once, under the pool that has it now.
    std::set<std::string> named;
    for (const PoolFacts& p : facts.pools)
        named.insert(p.name);
    const auto& deleted = plane.deletedPools();
    for (auto it = deleted.rbegin(); it != deleted.rend(); ++it) {
        if (!named.insert(it->name).second)
            continue;
        PoolFacts f { it->name, it->businessLine, it->tier, it->nodes, it->deletedMs };
        if (f.nodes.empty()) // on every node
            for (const NodeFacts& n : facts.nodes)
                f.nodes.push_back(n.name);
        facts.pools.push_back(std::move(f));
    }
    for (const auto& [id, w] : plane.workloads()) {
        WorkloadFacts f;
        f.id = static_cast<std::int64_t>(id);
        f.pool = w.poolName;
        f.tier = std::string(toString(w.workload.tier()));
        f.submittedMs = w.submittedMs;
        f.placedMs = w.placedMs;
        f.finishedMs = w.finishedMs;
        facts.workloads.push_back(std::move(f));
    }
    if (rebalancer) {
        for (const auto& [id, p] : rebalancer->proposals())
            facts.proposals.push_back(proposalFacts(p));
        facts.closedProposalsKeptMs = rebalancer->keepClosedProposals().count();
    }
    return facts;
}

Expected<ReportData> buildLiveReport(const ReportRequest& request, const api::ControlPlane& plane,
    const api::Rebalancer* rebalancer, const ReportSettings& settings)
{
    store::Store* store = plane.store();
    if (!store)
        return makeError(ErrorCode::NotFound,
            "this core keeps no history (it was started without a database, --db), so it has nothing to report");
    // A period yet to come has no history, and the counts of what exists now are not its.
    if (const std::int64_t now = plane.nowMs(); request.fromMs >= now)
        return makeError(ErrorCode::InvalidArgument,
            "the period starts at " + formatTime(request.fromMs) + ", which has not come yet (now: " + formatTime(now)
                + "): there is nothing to report");
    return buildReport(request, clusterFacts(plane, rebalancer), *store, settings);
}

} // namespace tidepool::report
