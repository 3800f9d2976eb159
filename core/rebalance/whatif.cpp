#include "core/rebalance/whatif.h"

#include "core/rebalance/planning.h"

#include <algorithm>
#include <tuple>

namespace tidepool::rebalance {

namespace {

double idleGpus(const ClusterState& cluster)
{
    double idle = 0.0;
    for (const Node& node : cluster.nodes())
        if (node.schedulable)
            for (const Device& d : node.devices)
                if (d.kind == AcceleratorKind::Gpu && d.shareFree == d.shareCapacity)
                    idle += 1.0;
    return idle;
}

bool latencySensitive(const Workload& w)
{
    return w.latency == LatencyClass::RealTime || w.latency == LatencyClass::LatencySensitive;
}

struct Simulation {
    ClusterState cluster;
    std::map<WorkloadId, NodeId> placedOn;
};

// Places `order` again from scratch on a copy of `base` with `profile`.
Expected<Simulation> resimulate(const ClusterState& base, const PolicyRegistry& registry,
    const std::string& profileName, const std::vector<WorkloadId>& order,
    const std::function<Expected<void>(ClusterState&)>& change)
{
    Simulation sim { base, {} };
    for (const WorkloadId id : order)
        if (const WorkloadRecord* r = sim.cluster.workload(id); r && r->placement)
            if (auto done = sim.cluster.unbind(id); !done)
                return tl::unexpected(done.error());
    if (auto applied = change(sim.cluster); !applied)
        return tl::unexpected(applied.error());
    auto scheduler = planningScheduler(sim.cluster, registry, profileName);
    if (!scheduler)
        return tl::unexpected(scheduler.error());
    for (const WorkloadId id : order) {
        const Decision decision = (*scheduler)->place(id);
        // Preemption may unbind a lower priority placed earlier in this pass: it then counts as waiting.
        for (const WorkloadId victim : decision.victims)
            sim.placedOn.erase(victim);
        if (decision.placement)
            sim.placedOn[id] = decision.placement->node;
    }
    return sim;
}

WhatIfOutcome compare(const ClusterState& before, const Simulation& after, const std::vector<WorkloadId>& order,
    std::vector<WhatIfMove>* changes)
{
    WhatIfOutcome o;
    for (const WorkloadId id : order) {
        const WorkloadRecord* r = before.workload(id);
        const NodeId was = r->placement ? r->placement->node : kNoNode;
        const auto it = after.placedOn.find(id);
        const NodeId will = it == after.placedOn.end() ? kNoNode : it->second;
        if (will != kNoNode)
            ++o.placed;
        else
            ++o.waiting;
        if (was == will)
            continue;
        if (was != kNoNode && will != kNoNode)
            ++o.moves;
        else if (will != kNoNode)
            ++o.started;
        else
            ++o.stopped;
        const bool sensitive = latencySensitive(r->workload);
        if (sensitive && was != kNoNode)
            ++o.sloAtRisk;
        if (changes && changes->size() < 1000)
            changes->push_back(
                WhatIfMove { id, r->workload.name, was != kNoNode ? before.node(was).name : std::string(),
                    will != kNoNode ? before.node(will).name : std::string(), sensitive });
    }
    o.idleGpus = idleGpus(after.cluster);
    return o;
}

} // namespace

Expected<WhatIfResult> whatIf(const ClusterState& cluster, const PolicyRegistry& registry,
    const std::string& currentProfile, const std::vector<WorkloadId>& workloads, const WhatIfChange& change)
{
    std::vector<WorkloadId> order;
    for (const WorkloadId id : workloads)
        if (cluster.workload(id))
            order.push_back(id);
    std::sort(order.begin(), order.end(), [&](WorkloadId a, WorkloadId b) {
        const auto pa = cluster.workload(a)->workload.priority, pb = cluster.workload(b)->workload.priority;
        return pa != pb ? pa > pb : a < b;
    });

    auto applyChange = [&](ClusterState& c) -> Expected<void> {
        for (const auto& [field, quotas, set] : { std::tuple { "pools", &change.poolCpuMillis, &Resources::cpuMillis },
                 { "poolMemory", &change.poolMemoryMiB, &Resources::memoryMiB } })
            for (const auto& [name, amount] : *quotas) {
                const auto pool = std::find_if(
                    c.pools().begin(), c.pools().end(), [&](const Pool& p) { return !p.removed && p.name == name; });
                if (pool == c.pools().end())
                    return makeError(ErrorCode::NotFound,
                        "field `" + std::string(field) + "`: no pool is named \"" + clipText(name, 64) + "\"");
                c.mutablePool(pool->id).quota.*set = amount;
            }
        for (const auto& [key, share] : change.poolAcceleratorShare) {
            const auto& [name, kind] = key;
            const auto pool = std::find_if(
                c.pools().begin(), c.pools().end(), [&](const Pool& p) { return !p.removed && p.name == name; });
            if (pool == c.pools().end())
                return makeError(
                    ErrorCode::NotFound, "field `poolAccelerators`: no pool is named \"" + clipText(name, 64) + "\"");
            c.mutablePool(pool->id).acceleratorQuota[static_cast<std::size_t>(kind)] = share;
        }
        for (const std::string& name : change.removeNodes) {
            const auto node
                = std::find_if(c.nodes().begin(), c.nodes().end(), [&](const Node& n) { return n.name == name; });
            if (node == c.nodes().end())
                return makeError(
                    ErrorCode::NotFound, "field `removeNodes`: no node is named \"" + clipText(name, 64) + "\"");
            Node& n = c.mutableNode(node->id);
            n.schedulable = false;
            ++n.version;
        }
        return {};
    };
    WhatIfResult result;
    result.profile = change.profile.empty() ? currentProfile : change.profile;
    result.idleGpusNow = idleGpus(cluster);
    auto with = resimulate(cluster, registry, result.profile, order, applyChange);
    if (!with)
        return tl::unexpected(with.error());
    auto without
        = resimulate(cluster, registry, currentProfile, order, [](ClusterState&) { return Expected<void> {}; });
    if (!without)
        return tl::unexpected(without.error());
    result.withChange = compare(cluster, *with, order, &result.changes);
    result.withoutChange = compare(cluster, *without, order, nullptr);
    for (const WorkloadId id : order) {
        const auto placed = [id](const Simulation& sim) {
            const auto it = sim.placedOn.find(id);
            return it == sim.placedOn.end() ? kNoNode : it->second;
        };
        const NodeId was = placed(*without), will = placed(*with);
        if (was == will || result.effect.size() >= 1000)
            continue;
        const Workload& w = cluster.workload(id)->workload;
        result.effect.push_back(WhatIfMove { id, w.name, was != kNoNode ? cluster.node(was).name : std::string(),
            will != kNoNode ? cluster.node(will).name : std::string(), latencySensitive(w) });
    }
    return result;
}

nlohmann::json toJson(const WhatIfResult& r)
{
    auto outcome = [](const WhatIfOutcome& o) {
        return nlohmann::json { { "placed", o.placed }, { "waiting", o.waiting }, { "moves", o.moves },
            { "started", o.started }, { "stopped", o.stopped }, { "sloAtRisk", o.sloAtRisk },
            { "idleGpus", o.idleGpus } };
    };
    const auto moves = [](const std::vector<WhatIfMove>& list) {
        nlohmann::json out = nlohmann::json::array();
        for (const WhatIfMove& m : list)
            out.push_back({ { "id", m.workload }, { "name", m.name }, { "from", m.from }, { "to", m.to },
                { "latencySensitive", m.latencySensitive } });
        return out;
    };
    return nlohmann::json { { "profile", r.profile }, { "idleGpusNow", r.idleGpusNow },
        { "gpusFreed", r.withChange.idleGpus - r.idleGpusNow },
        { "gpusFreedByChange", r.withChange.idleGpus - r.withoutChange.idleGpus },
        { "withChange", outcome(r.withChange) }, { "withoutChange", outcome(r.withoutChange) },
        { "changes", moves(r.changes) }, { "effect", moves(r.effect) } };
}

} // namespace tidepool::rebalance
