#include "ui/bridge/snapshot_builder.h"

#include "core/api/control_plane.h"
#include "core/api/rebalancer.h"
#include "ui/bridge/alerts.h"
#include "ui/bridge/proposal_decision.h"
#include "ui/bridge/workload_snapshot.h"

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
    if (live.drain) {
        row.drainMaxParallel = live.drain->maxParallel;
        row.drainMoving = static_cast<std::int64_t>(live.drain->moving.size());
        row.drainMoved = live.drain->moved;
    }
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

ProposalRow proposalRow(const rebalance::Proposal& p)
{
    ProposalRow row;
    row.id = p.id;
    row.kind = std::string(rebalance::toString(p.kind));
    row.state = std::string(rebalance::toString(p.state));
    row.risk = std::string(rebalance::toString(p.risk));
    row.subject = p.key;
    row.reason = p.reason;
    row.why = rebalance::toJson(p.why).dump();
    row.utilisationBefore = p.effect.utilisationBefore;
    row.utilisationAfter = p.effect.utilisationAfter;
    row.gpusFreed = p.effect.gpusFreed;
    row.wattsSaved = p.effect.wattsSaved;
    row.co2GramsPerHour = p.effect.co2GramsPerHour;
    row.sloRisk = p.effect.sloRisk;
    row.sloRiskWhy = rebalance::toJson(p.effect.sloRiskWhy).dump();
    for (const rebalance::Action& action : p.plan)
        row.plan.push_back(describeAction(rebalance::toJson(action)));
    row.createdMs = p.createdMs;
    row.expiresMs = p.expiresMs;
    row.decidedBy = p.decidedBy;
    row.decidedMs = p.decidedMs;
    row.detail = p.detail;
    return row;
}

void addPools(const api::ControlPlane& plane, ConsoleSnapshot& snapshot)
{
    // Each pool's footprint by node (where its workloads run: pools span every node) comes with the workloads
    // (`addWorkloads`).
    for (const Pool& pool : plane.cluster().pools()) {
        if (pool.removed)
            continue;
        PoolRow row;
        row.id = pool.id;
        row.name = pool.name;
        row.businessLine = pool.businessLine;
        row.tier = pool.tier == Tier::Invalid ? std::string() : std::string(toString(pool.tier));
        row.cpuQuotaMillis = quotaOrUnlimited(pool.quota.cpuMillis);
        row.cpuUsedMillis = pool.used.cpuMillis;
        row.memoryQuotaMiB = quotaOrUnlimited(pool.quota.memoryMiB);
        row.memoryUsedMiB = pool.used.memoryMiB;
        row.memBandwidthQuotaMBps = quotaOrUnlimited(pool.quota.memBandwidthMBps);
        row.netBandwidthQuotaMbps = quotaOrUnlimited(pool.quota.netBandwidthMbps);
        row.ioWeight = plane.poolIoWeight(pool.id);
        row.maxDisrupted = quotaOrUnlimited(plane.poolMaxDisrupted(pool.id));
        row.maxDisruptedPercent = plane.poolDisruptionBudget(pool.id).percent;
        row.disrupted = plane.disruptedIn(pool.id);
        for (const AcceleratorKind kind : { AcceleratorKind::Gpu, AcceleratorKind::Npu, AcceleratorKind::Fpga }) {
            const auto k = static_cast<std::size_t>(kind);
            row.acceleratorShareUsed += pool.acceleratorUsed[k];
            row.acceleratorQuotaShare[k - 1] = quotaOrUnlimited(pool.acceleratorQuota[k]);
            row.acceleratorUsedShare[k - 1] = pool.acceleratorUsed[k];
        }
        snapshot.pools.push_back(std::move(row));
    }
}

void addOverview(const api::ControlPlane& plane, ConsoleSnapshot& snapshot)
{
    countOverviewRows(snapshot);
    OverviewCounts& o = snapshot.overview;
    const auto phases = plane.phaseCounts();
    for (std::size_t i = 1; i < phases.size(); ++i)
        if (phases[i] > 0)
            o.workloadsByPhase[std::string(toString(static_cast<api::WorkloadPhase>(i)))] = static_cast<int>(phases[i]);
    o.pendingWorkloads = static_cast<int>(phases[static_cast<std::size_t>(api::WorkloadPhase::Pending)]);
    for (const auto& [id, w] : plane.workloads())
        if (isActive(w.phase))
            ++o.activeWorkloadsByTier[std::string(toString(w.workload.tier()))];
}

} // namespace

std::string describeAction(const nlohmann::json& action)
{
    return action.dump();
}

void countOverviewRows(ConsoleSnapshot& snapshot)
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
    for (const ProposalRow& p : snapshot.proposals)
        o.proposalsWaiting += p.state == "pending" ? 1 : 0;
    addRowAlerts(snapshot);
}

std::shared_ptr<ConsoleSnapshot> buildSnapshot(
    const api::ControlPlane& plane, const api::Rebalancer* rebalancer, std::uint64_t sequence, std::string source)
{
    auto snapshot = std::make_shared<ConsoleSnapshot>();
    snapshot->sequence = sequence;
    snapshot->nowMs = plane.nowMs();
    snapshot->source = std::move(source);
    snapshot->readOnlyReason = plane.readOnlyReason();
    snapshot->role = "admin"; // the console that runs the core owns it
    snapshot->actor = kConsoleActor;
    for (const api::LiveNode& live : plane.nodes())
        if (live.id != kNoNode)
            snapshot->nodes.push_back(nodeRow(plane, live));
    addPools(plane, *snapshot);
    addWorkloads(plane, *snapshot);
    if (rebalancer) {
        // Open ones whatever their age, and the newest closed ones.
        std::size_t closed = 0;
        const auto& all = rebalancer->proposals();
        for (auto it = all.rbegin(); it != all.rend(); ++it)
            if (!it->second.closed() || closed++ < kConsoleClosedProposals)
                snapshot->proposals.push_back(proposalRow(it->second));
        std::reverse(snapshot->proposals.begin(), snapshot->proposals.end());
    }
    addOverview(plane, *snapshot);
    return snapshot;
}

} // namespace tidepool::ui
