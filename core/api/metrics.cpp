#include "core/api/metrics.h"

#include "core/api/control_plane.h"
#include "core/api/rebalancer.h"
#include "core/model/pool.h"

#include <array>
#include <cstdio>
#include <vector>

namespace tidepool::api {

void appendMetric(std::string& out, std::string_view name, std::string_view type, std::string_view help)
{
    out += "# HELP ";
    out += name;
    out += ' ';
    out += help;
    out += "\n# TYPE ";
    out += name;
    out += ' ';
    out += type;
    out += '\n';
}

void appendSample(std::string& out, std::string_view name, std::string_view labels, double value)
{
    out += name;
    out += labels;
    out += ' ';
    char buffer[64];
    const int n = std::snprintf(buffer, sizeof buffer, "%.17g", value);
    out.append(buffer, static_cast<std::size_t>(n));
    out += '\n';
}

std::string labelPair(std::string_view name, std::string_view value)
{
    std::string pair(name);
    pair += "=\"";
    for (const char c : value) {
        if (c == '\\' || c == '"')
            pair += '\\';
        if (c == '\n')
            pair += "\\n";
        else
            pair += c;
    }
    pair += '"';
    return pair;
}

namespace {

constexpr std::array kKinds { AcceleratorKind::Gpu, AcceleratorKind::Npu, AcceleratorKind::Fpga };
constexpr std::array kTiers { Tier::Hot, Tier::Warm, Tier::Cold, Tier::Invalid };

std::size_t index(AcceleratorKind kind)
{
    return static_cast<std::size_t>(kind);
}
std::size_t index(Tier tier)
{
    return static_cast<std::size_t>(tier);
}

std::string_view tierLabel(Tier tier)
{
    return tier == Tier::Invalid ? "none" : toString(tier);
}

std::string labels(std::initializer_list<std::pair<std::string_view, std::string_view>> pairs)
{
    std::string out = "{";
    for (const auto& [name, value] : pairs) {
        if (out.size() > 1)
            out += ',';
        out += labelPair(name, value);
    }
    out += '}';
    return out;
}

// Capacity and allocation of a set of nodes (a tier, or one accelerator kind across the cluster).
struct Held {
    std::int64_t cpuMillis = 0, cpuFree = 0, memoryMiB = 0, memoryFree = 0;
    std::array<std::int64_t, kAcceleratorKindCount> share {}, shareFree {};
};

// What the devices of one kind on ready and suspect nodes are, hold and report.
struct Devices {
    std::int64_t count = 0, share = 0, shareFree = 0, memoryMiB = 0;
    std::int64_t reporting = 0, memoryUsedMiB = 0;
    double busy = 0.0; // summed over the reporting devices
};

bool inService(NodeState state)
{
    return state == NodeState::Ready || state == NodeState::Suspect;
}

} // namespace

void appendPoolTierAcceleratorMetrics(std::string& out, const ControlPlane& plane)
{
    const ClusterState& cluster = plane.cluster();

    // Nodes: by tier and state (all of them), capacity and allocation by tier and by accelerator kind (in service).
    std::array<std::array<std::size_t, kNodeStateCount>, 4> nodesByTier {};
    std::array<Held, 4> tiers {};
    std::array<Devices, kAcceleratorKindCount> devices {};
    std::array<bool, kAcceleratorKindCount> kindKnown {}; // on any node, in service or not: its series stay
    for (const LiveNode& live : plane.nodes()) {
        const Node& n = cluster.node(live.id);
        ++nodesByTier[index(n.tier)][static_cast<std::size_t>(live.state)];
        for (const Device& d : n.devices)
            kindKnown[index(d.kind)] = true;
        if (!inService(live.state))
            continue;
        Held& t = tiers[index(n.tier)];
        t.cpuMillis += n.capacity.cpuMillis;
        t.cpuFree += n.free.cpuMillis;
        t.memoryMiB += n.capacity.memoryMiB;
        t.memoryFree += n.free.memoryMiB;
        for (const Device& d : n.devices) {
            t.share[index(d.kind)] += d.shareCapacity;
            t.shareFree[index(d.kind)] += d.shareFree;
            Devices& k = devices[index(d.kind)];
            ++k.count;
            k.share += d.shareCapacity;
            k.shareFree += d.shareFree;
            k.memoryMiB += d.memoryMiB;
        }
        for (const protocol::DeviceSample& sample : live.devices) {
            if (sample.index < 0 || static_cast<std::size_t>(sample.index) >= n.devices.size())
                continue;
            Devices& k = devices[index(n.devices[static_cast<std::size_t>(sample.index)].kind)];
            ++k.reporting;
            k.busy += sample.utilisation;
            k.memoryUsedMiB += sample.memoryUsedMiB;
        }
    }

    // Pools: their quotas, what their placed work holds (the quota's books), and their workloads by live phase.
    const std::vector<Pool>& pools = cluster.pools();
    constexpr std::array kLivePhases { WorkloadPhase::Pending, WorkloadPhase::Launching, WorkloadPhase::Running,
        WorkloadPhase::Stopping };
    std::vector<std::array<std::size_t, kWorkloadPhaseCount>> phases(pools.size());
    for (const auto& [id, w] : plane.workloads())
        if (w.workload.pool >= 0 && static_cast<std::size_t>(w.workload.pool) < pools.size())
            ++phases[static_cast<std::size_t>(w.workload.pool)][static_cast<std::size_t>(w.phase)];

    // What a pool's placed work holds of one resource, its quota where it has one, and what its cgroups used where
    // agents measure them (kind="used": the sum over the nodes that do).
    const std::vector<MeasuredPoolUse> measured = plane.measuredPoolUse();
    const auto heldAndQuota = [&](std::string_view name, std::string_view help, auto used, auto quota, auto inUse) {
        appendMetric(out, name, "gauge", help);
        for (const Pool& p : pools) {
            if (p.removed)
                continue;
            appendSample(
                out, name, labels({ { "pool", p.name }, { "kind", "allocated" } }), static_cast<double>(used(p)));
            if (quota(p) < kUnlimited)
                appendSample(
                    out, name, labels({ { "pool", p.name }, { "kind", "quota" } }), static_cast<double>(quota(p)));
            if (const MeasuredPoolUse& m = measured[static_cast<std::size_t>(p.id)]; m.nodes > 0)
                appendSample(
                    out, name, labels({ { "pool", p.name }, { "kind", "used" } }), static_cast<double>(inUse(m)));
        }
    };
    heldAndQuota(
        "tidepool_pool_cpu_millis",
        "Each pool's CPU quota (where it has one), the CPU its placed workloads hold and what its cgroups used where "
        "agents measure them, in millicores.",
        [](const Pool& p) { return p.used.cpuMillis; }, [](const Pool& p) { return p.quota.cpuMillis; },
        [](const MeasuredPoolUse& m) { return m.cpuMillis; });
    heldAndQuota(
        "tidepool_pool_memory_mib",
        "Each pool's memory limit (where it has one), the memory its placed workloads hold and what its cgroups use "
        "where agents measure them, in MiB.",
        [](const Pool& p) { return p.used.memoryMiB; }, [](const Pool& p) { return p.quota.memoryMiB; },
        [](const MeasuredPoolUse& m) { return m.memoryMiB; });
    appendMetric(out, "tidepool_pool_accelerator_share", "gauge",
        "Each pool's accelerator quota (where it has one; 0 keeps it off the kind) and what its placed workloads "
        "hold, in share units (milli-GPUs, NPU cores, FPGA slots).");
    for (const Pool& p : pools)
        for (const AcceleratorKind kind : kKinds) {
            const std::size_t k = index(kind);
            if (p.removed || (!kindKnown[k] && p.acceleratorUsed[k] == 0 && p.acceleratorQuota[k] >= kUnlimited))
                continue;
            const std::string_view accelerator = toString(kind);
            appendSample(out, "tidepool_pool_accelerator_share",
                labels({ { "pool", p.name }, { "accelerator", accelerator }, { "kind", "allocated" } }),
                static_cast<double>(p.acceleratorUsed[k]));
            if (p.acceleratorQuota[k] < kUnlimited)
                appendSample(out, "tidepool_pool_accelerator_share",
                    labels({ { "pool", p.name }, { "accelerator", accelerator }, { "kind", "quota" } }),
                    static_cast<double>(p.acceleratorQuota[k]));
        }
    appendMetric(out, "tidepool_pool_workloads", "gauge", "Each pool's workloads, by live phase.");
    for (std::size_t i = 0; i < pools.size(); ++i)
        for (const WorkloadPhase phase : kLivePhases)
            if (!pools[i].removed)
                appendSample(out, "tidepool_pool_workloads",
                    labels({ { "pool", pools[i].name }, { "phase", toString(phase) } }),
                    static_cast<double>(phases[i][static_cast<std::size_t>(phase)]));
    appendMetric(out, "tidepool_pool_disrupted", "gauge",
        "Each pool's workloads that drains and migrations moved and that do not run again yet (kind=\"moving\"), and "
        "its disruption budget where it has one (kind=\"budget\").");
    for (const Pool& p : pools) {
        if (p.removed)
            continue;
        appendSample(out, "tidepool_pool_disrupted", labels({ { "pool", p.name }, { "kind", "moving" } }),
            static_cast<double>(plane.disruptedIn(p.id)));
        if (const std::int64_t budget = plane.poolMaxDisrupted(p.id); budget < kUnlimited)
            appendSample(out, "tidepool_pool_disrupted", labels({ { "pool", p.name }, { "kind", "budget" } }),
                static_cast<double>(budget));
    }

    // Tiers: hot, warm and cold always; "none" where a node has no tier.
    std::vector<Tier> shownTiers;
    for (const Tier tier : kTiers) {
        std::size_t nodes = 0;
        for (const std::size_t count : nodesByTier[index(tier)])
            nodes += count;
        if (tier != Tier::Invalid || nodes > 0)
            shownTiers.push_back(tier);
    }
    appendMetric(out, "tidepool_tier_nodes", "gauge", "Nodes of each tier, by liveness state.");
    for (const Tier tier : shownTiers)
        for (int s = 1; s < kNodeStateCount; ++s)
            appendSample(out, "tidepool_tier_nodes",
                labels({ { "tier", tierLabel(tier) }, { "state", toString(static_cast<NodeState>(s)) } }),
                static_cast<double>(nodesByTier[index(tier)][static_cast<std::size_t>(s)]));
    // One resource of each tier's nodes in service: their capacity, and what is allocated of it.
    const auto tierHeld = [&](std::string_view name, std::string_view help, auto capacity, auto free) {
        appendMetric(out, name, "gauge", help);
        for (const Tier tier : shownTiers) {
            const Held& t = tiers[index(tier)];
            appendSample(out, name, labels({ { "tier", tierLabel(tier) }, { "kind", "capacity" } }),
                static_cast<double>(capacity(t)));
            appendSample(out, name, labels({ { "tier", tierLabel(tier) }, { "kind", "allocated" } }),
                static_cast<double>(capacity(t) - free(t)));
        }
    };
    tierHeld(
        "tidepool_tier_cpu_millis", "CPU of each tier's ready and suspect nodes, in millicores.",
        [](const Held& t) { return t.cpuMillis; }, [](const Held& t) { return t.cpuFree; });
    tierHeld(
        "tidepool_tier_memory_mib", "Memory of each tier's ready and suspect nodes, in MiB.",
        [](const Held& t) { return t.memoryMiB; }, [](const Held& t) { return t.memoryFree; });
    appendMetric(out, "tidepool_tier_accelerator_share", "gauge",
        "Accelerator share units of each tier's ready and suspect nodes, by kind.");
    for (const Tier tier : shownTiers)
        for (const AcceleratorKind kind : kKinds) {
            if (!kindKnown[index(kind)])
                continue;
            const Held& t = tiers[index(tier)];
            appendSample(out, "tidepool_tier_accelerator_share",
                labels({ { "tier", tierLabel(tier) }, { "accelerator", toString(kind) }, { "kind", "capacity" } }),
                static_cast<double>(t.share[index(kind)]));
            appendSample(out, "tidepool_tier_accelerator_share",
                labels({ { "tier", tierLabel(tier) }, { "accelerator", toString(kind) }, { "kind", "allocated" } }),
                static_cast<double>(t.share[index(kind)] - t.shareFree[index(kind)]));
        }

    // Accelerators by kind: the kinds any node has.
    std::vector<AcceleratorKind> kinds;
    for (const AcceleratorKind kind : kKinds)
        if (kindKnown[index(kind)])
            kinds.push_back(kind);
    appendMetric(out, "tidepool_accelerator_devices", "gauge", "Accelerator devices on ready and suspect nodes.");
    for (const AcceleratorKind kind : kinds)
        appendSample(out, "tidepool_accelerator_devices", labels({ { "accelerator", toString(kind) } }),
            static_cast<double>(devices[index(kind)].count));
    appendMetric(out, "tidepool_accelerator_share", "gauge",
        "Accelerator share units of ready and suspect nodes: capacity, and what placed workloads hold.");
    for (const AcceleratorKind kind : kinds) {
        const Devices& d = devices[index(kind)];
        appendSample(out, "tidepool_accelerator_share",
            labels({ { "accelerator", toString(kind) }, { "kind", "capacity" } }), static_cast<double>(d.share));
        appendSample(out, "tidepool_accelerator_share",
            labels({ { "accelerator", toString(kind) }, { "kind", "allocated" } }),
            static_cast<double>(d.share - d.shareFree));
    }
    appendMetric(out, "tidepool_accelerator_busy_ratio", "gauge",
        "Mean measured utilisation (0-1) of the accelerators whose agents report one, on ready and suspect nodes.");
    for (const AcceleratorKind kind : kinds) {
        const Devices& d = devices[index(kind)];
        if (d.reporting > 0)
            appendSample(out, "tidepool_accelerator_busy_ratio", labels({ { "accelerator", toString(kind) } }),
                d.busy / static_cast<double>(d.reporting));
    }
    appendMetric(out, "tidepool_accelerator_memory_mib", "gauge",
        "Accelerator memory of ready and suspect nodes, and the memory the reporting devices measure in use, in MiB.");
    for (const AcceleratorKind kind : kinds) {
        const Devices& d = devices[index(kind)];
        appendSample(out, "tidepool_accelerator_memory_mib",
            labels({ { "accelerator", toString(kind) }, { "kind", "capacity" } }), static_cast<double>(d.memoryMiB));
        if (d.reporting > 0)
            appendSample(out, "tidepool_accelerator_memory_mib",
                labels({ { "accelerator", toString(kind) }, { "kind", "used" } }),
                static_cast<double>(d.memoryUsedMiB));
    }
}

void appendRebalancerMetrics(std::string& out, const Rebalancer& rebalancer)
{
    const RebalancerStats& s = rebalancer.stats();
    appendMetric(out, "tidepool_evaluations_total", "counter",
        "Evaluations of the cluster finished (the periodic loop, evaluations asked for, re-plans).");
    appendSample(out, "tidepool_evaluations_total", "", static_cast<double>(s.evaluations));
    appendMetric(out, "tidepool_evaluation_last_timestamp_seconds", "gauge",
        "When the last evaluation finished (before the first: when the loop started), Unix seconds.");
    appendSample(
        out, "tidepool_evaluation_last_timestamp_seconds", "", static_cast<double>(s.lastEvaluationMs) / 1000.0);
    appendMetric(out, "tidepool_evaluation_duration_seconds", "gauge",
        "Wall time of the last evaluation, from reading the history to the proposals, forecasting included.");
    appendSample(out, "tidepool_evaluation_duration_seconds", "", s.lastEvaluationSeconds);

    std::array<std::size_t, rebalance::kProposalKindCount> pending {};
    for (const auto& [id, p] : rebalancer.proposals())
        if (p.open())
            ++pending[static_cast<std::size_t>(p.kind)];
    appendMetric(out, "tidepool_proposals_pending", "gauge", "Proposals waiting for a decision, by kind.");
    for (std::size_t k = 1; k < rebalance::kProposalKindCount; ++k)
        appendSample(out, "tidepool_proposals_pending",
            labels({ { "kind", rebalance::toString(static_cast<rebalance::ProposalKind>(k)) } }),
            static_cast<double>(pending[k]));
    appendMetric(out, "tidepool_proposal_state_changes_total", "counter",
        "Proposals that entered each state since the daemon started (pending: created; approved: by an operator or a "
        "rule, whatever the outcome).");
    for (std::size_t st = 1; st < rebalance::kProposalStateCount; ++st)
        appendSample(out, "tidepool_proposal_state_changes_total",
            labels({ { "state", rebalance::toString(static_cast<rebalance::ProposalState>(st)) } }),
            static_cast<double>(s.entered[st]));
}

} // namespace tidepool::api
