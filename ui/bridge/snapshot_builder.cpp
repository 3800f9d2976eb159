#include "ui/bridge/snapshot_builder.h"

#include "core/api/control_plane.h"
#include "core/api/rebalancer.h"

#include <algorithm>

namespace tidepool::ui {

namespace {

bool isActive(api::WorkloadPhase phase)
{
    return phase == api::WorkloadPhase::Launching || phase == api::WorkloadPhase::Running
        || phase == api::WorkloadPhase::Stopping;
}

std::int64_t quotaOrUnlimited(std::int64_t quota)
{
    return quota >= kUnlimited ? -1 : quota;
}

std::int64_t acceleratorShareOf(const api::LiveWorkload& w)
{
    std::int64_t share = 0;
    for (const DeviceShare& d : w.devices)
        share += d.share;
    return share;
}

NodeRow nodeRow(const api::ControlPlane& plane, const api::LiveNode& live)
{
    const Node& node = plane.cluster().node(live.id);
    NodeRow row;
    row.id = live.id;
    row.name = node.name;
    row.isa = std::string(toString(node.isa));
    row.tier = std::string(toString(node.tier));
    row.state = std::string(toString(live.state));
    row.cordon = live.cordon;
    row.peakReserved = node.peakReserved;
    row.cpuMillis = node.capacity.cpuMillis;
    row.cpuAllocatedMillis = node.capacity.cpuMillis - node.free.cpuMillis;
    row.cpuUtilisation = live.cpuUtilisation;
    row.memoryMiB = node.capacity.memoryMiB;
    row.memoryAllocatedMiB = node.capacity.memoryMiB - node.free.memoryMiB;
    if (!node.devices.empty())
        row.acceleratorKind = std::string(toString(node.acceleratorKind()));
    row.accelerators = static_cast<int>(node.devices.size());
    row.acceleratorShare = node.deviceShareCapacityTotal();
    row.acceleratorShareAllocated = row.acceleratorShare - node.deviceShareFreeTotal();
    double utilisation = 0.0;
    for (const protocol::DeviceSample& sample : live.devices)
        utilisation += sample.utilisation;
    row.acceleratorUtilisation = live.devices.empty() ? 0.0 : utilisation / static_cast<double>(live.devices.size());
    row.workloads = static_cast<int>(node.residents.size());
    return row;
}

std::string describe(const rebalance::Action& action)
{
    // The action's JSON, without the fields it leaves at their defaults, reads well enough for a first console.
    nlohmann::json json = rebalance::toJson(action);
    for (auto it = json.begin(); it != json.end();) {
        const bool empty = (it->is_number() && it->get<double>() == 0.0) || (it->is_string() && it->empty())
            || (it.key() == "fromDevice" && *it == -1) || (it.key() == "device" && *it == -1);
        it = empty && it.key() != "type" ? json.erase(it) : std::next(it);
    }
    return json.dump();
}

ProposalRow proposalRow(const rebalance::Proposal& p)
{
    ProposalRow row;
    row.id = p.id;
    row.kind = std::string(rebalance::toString(p.kind));
    row.state = std::string(rebalance::toString(p.state));
    row.risk = std::string(rebalance::toString(p.risk));
    row.subject = p.key;
    row.reason = p.reason;
    row.utilisationBefore = p.effect.utilisationBefore;
    row.utilisationAfter = p.effect.utilisationAfter;
    row.gpusFreed = p.effect.gpusFreed;
    row.wattsSaved = p.effect.wattsSaved;
    row.co2GramsPerHour = p.effect.co2GramsPerHour;
    row.sloRisk = p.effect.sloRisk;
    for (const rebalance::Action& action : p.plan)
        row.plan.push_back(describe(action));
    row.createdMs = p.createdMs;
    row.expiresMs = p.expiresMs;
    row.decidedBy = p.decidedBy;
    row.decidedMs = p.decidedMs;
    row.detail = p.detail;
    return row;
}

void addPools(const api::ControlPlane& plane, ConsoleSnapshot& snapshot)
{
    const auto& pools = plane.cluster().pools();
    // Each pool's footprint by node, from its placed workloads: pools span every node, so where they actually
    // run is what an operator wants to see under a pool.
    std::vector<std::map<NodeId, PoolNodeRow>> footprint(pools.size());
    for (const auto& [id, w] : plane.workloads()) {
        if (!isActive(w.phase) || w.node == kNoNode || w.workload.pool < 0
            || static_cast<std::size_t>(w.workload.pool) >= pools.size())
            continue;
        PoolNodeRow& row = footprint[static_cast<std::size_t>(w.workload.pool)][w.node];
        row.cpuMillis += w.workload.requests.cpuMillis;
        row.memoryMiB += w.workload.requests.memoryMiB;
        row.acceleratorShare += acceleratorShareOf(w);
        ++row.workloads;
    }
    for (const Pool& pool : pools) {
        PoolRow row;
        row.id = pool.id;
        row.name = pool.name;
        row.businessLine = pool.businessLine.empty() ? pool.name : pool.businessLine;
        row.tier = pool.tier == Tier::Invalid ? std::string() : std::string(toString(pool.tier));
        row.cpuQuotaMillis = quotaOrUnlimited(pool.quota.cpuMillis);
        row.cpuUsedMillis = pool.used.cpuMillis;
        row.memoryQuotaMiB = quotaOrUnlimited(pool.quota.memoryMiB);
        row.memoryUsedMiB = pool.used.memoryMiB;
        for (const std::int64_t used : pool.acceleratorUsed)
            row.acceleratorShareUsed += used;
        for (auto& [node, onNode] : footprint[static_cast<std::size_t>(pool.id)]) {
            onNode.node = plane.cluster().node(node).name;
            row.workloads += onNode.workloads;
            row.nodes.push_back(onNode);
        }
        std::sort(row.nodes.begin(), row.nodes.end(),
            [](const PoolNodeRow& a, const PoolNodeRow& b) { return a.node < b.node; });
        snapshot.pools.push_back(std::move(row));
    }
}

void addOverview(const api::ControlPlane& plane, ConsoleSnapshot& snapshot)
{
    OverviewCounts& o = snapshot.overview;
    for (const Tier tier : { Tier::Hot, Tier::Warm, Tier::Cold })
        o.tiers.push_back(TierLoad { std::string(toString(tier)) });
    for (const NodeRow& n : snapshot.nodes) {
        ++o.nodesByIsaAndState[n.isa][n.state];
        if (n.accelerators > 0)
            o.acceleratorsByKind[n.acceleratorKind] += n.accelerators;
        for (TierLoad& t : o.tiers) {
            if (t.tier != n.tier)
                continue;
            ++t.nodes;
            t.cpuMillis += n.cpuMillis;
            t.cpuAllocatedMillis += n.cpuAllocatedMillis;
            t.acceleratorShare += n.acceleratorShare;
            t.acceleratorShareAllocated += n.acceleratorShareAllocated;
        }
    }
    const auto phases = plane.phaseCounts();
    for (std::size_t i = 1; i < phases.size(); ++i)
        if (phases[i] > 0)
            o.workloadsByPhase[std::string(toString(static_cast<api::WorkloadPhase>(i)))] = static_cast<int>(phases[i]);
    o.pendingWorkloads = static_cast<int>(phases[static_cast<std::size_t>(api::WorkloadPhase::Pending)]);
    for (const auto& [id, w] : plane.workloads())
        if (isActive(w.phase))
            ++o.activeWorkloadsByTier[std::string(toString(w.workload.tier()))];
    for (const ProposalRow& p : snapshot.proposals)
        o.proposalsWaiting += p.state == "pending" ? 1 : 0;
}

} // namespace

std::shared_ptr<ConsoleSnapshot> buildSnapshot(
    const api::ControlPlane& plane, const api::Rebalancer* rebalancer, std::uint64_t sequence, std::string source)
{
    auto snapshot = std::make_shared<ConsoleSnapshot>();
    snapshot->sequence = sequence;
    snapshot->nowMs = plane.nowMs();
    snapshot->source = std::move(source);
    snapshot->readOnlyReason = plane.readOnlyReason();
    for (const api::LiveNode& live : plane.nodes())
        if (live.id != kNoNode)
            snapshot->nodes.push_back(nodeRow(plane, live));
    addPools(plane, *snapshot);
    if (rebalancer)
        for (const auto& [id, proposal] : rebalancer->proposals())
            snapshot->proposals.push_back(proposalRow(proposal));
    addOverview(plane, *snapshot);
    return snapshot;
}

} // namespace tidepool::ui
