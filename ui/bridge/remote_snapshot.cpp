#include "ui/bridge/remote_snapshot.h"

#include "core/api/drain_options.h"
#include "ui/bridge/snapshot_builder.h"
#include "ui/bridge/workload_snapshot.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>

namespace tidepool::ui {

using nlohmann::json;

namespace {

// A quota the API sends as null when unlimited.
std::int64_t limitOf(const json& value)
{
    return value.is_null() ? -1 : value.get<std::int64_t>();
}

// What one unit of request on a node stands for in measured use there (as `workload_snapshot.cpp` computes it from
// the live node): the node's measured use over what its workloads request. Negative: not measured yet.
struct NodeUse {
    std::int32_t id = -1;
    std::string tier;
    std::int64_t cpuMillis = 0;
    std::int64_t memoryMiB = 0;
    double cpuPerMilli = -1.0;
    double memoryPerMiB = -1.0;
    std::vector<std::int32_t> shareCapacity; // by device index
    std::vector<double> busyPerShare;
};

NodeRow nodeRow(const json& j, NodeUse& use)
{
    NodeRow row;
    row.id = j.at("id").get<std::int32_t>();
    row.name = j.at("name").get<std::string>();
    row.isa = j.at("isa").get<std::string>();
    row.tier = j.at("tier").get<std::string>();
    row.state = j.at("state").get<std::string>();
    row.cordon = j.at("cordon").get<std::string>();
    if (const auto drain = j.find("drain"); drain != j.end() && drain->is_object()) {
        row.drainMaxParallel = std::max(1, drain->value("maxParallel", 1));
        row.drainMoving = drain->value("moving", std::int64_t { 0 });
        row.drainMoved = drain->value("moved", std::int64_t { 0 });
    }
    row.peakReserved = j.at("peakReserved").get<bool>();
    row.cpuMillis = j.at("cpuMillis").get<std::int64_t>();
    row.cpuAllocatedMillis = row.cpuMillis - j.at("cpuMillisFree").get<std::int64_t>();
    row.cpuUtilisation = j.at("cpuUtilisation").get<double>();
    row.memoryMiB = j.at("memoryMiB").get<std::int64_t>();
    row.memoryAllocatedMiB = row.memoryMiB - j.at("memoryMiBFree").get<std::int64_t>();
    row.workloads = j.at("workloads").get<int>();
    const json& devices = j.at("devices");
    double utilisation = 0.0;
    int measured = 0;
    use.id = row.id;
    use.tier = row.tier;
    use.cpuMillis = row.cpuMillis;
    use.memoryMiB = row.memoryMiB;
    for (const json& d : devices) {
        const auto capacity = d.at("shareCapacity").get<std::int32_t>();
        const auto allocated = capacity - d.at("shareFree").get<std::int32_t>();
        if (row.acceleratorKind.empty())
            row.acceleratorKind = d.at("kind").get<std::string>();
        ++row.accelerators;
        row.acceleratorShare += capacity;
        row.acceleratorShareAllocated += allocated;
        use.shareCapacity.push_back(capacity);
        use.busyPerShare.push_back(0.0);
        if (d.contains("utilisation")) {
            const double busy = d.at("utilisation").get<double>();
            utilisation += busy;
            ++measured;
            use.busyPerShare.back() = allocated > 0 ? busy / static_cast<double>(allocated) : 0.0;
        }
    }
    row.acceleratorUtilisation = measured == 0 ? 0.0 : utilisation / measured;
    if (j.at("heartbeats").get<std::uint64_t>() > 0) {
        use.cpuPerMilli = row.cpuAllocatedMillis > 0
            ? row.cpuUtilisation * static_cast<double>(row.cpuMillis) / static_cast<double>(row.cpuAllocatedMillis)
            : 0.0;
        use.memoryPerMiB = row.memoryAllocatedMiB > 0 ? static_cast<double>(j.at("memoryUsedMiB").get<std::int64_t>())
                / static_cast<double>(row.memoryAllocatedMiB)
                                                      : 0.0;
    }
    return row;
}

PoolRow poolRow(const json& j)
{
    PoolRow row;
    row.id = j.at("id").get<std::int32_t>();
    row.name = j.at("name").get<std::string>();
    row.businessLine = j.at("businessLine").get<std::string>();
    row.tier = j.at("tier").is_null() ? std::string() : j.at("tier").get<std::string>();
    row.cpuQuotaMillis = limitOf(j.at("cpuMillis"));
    row.cpuUsedMillis = j.at("cpuMillisUsed").get<std::int64_t>();
    row.memoryQuotaMiB = limitOf(j.at("memoryMiB"));
    row.memoryUsedMiB = j.at("memoryMiBUsed").get<std::int64_t>();
    row.acceleratorShareUsed = j.at("acceleratorShareUsed").get<std::int64_t>();
    row.memBandwidthQuotaMBps = limitOf(j.at("memBandwidthMBps"));
    row.netBandwidthQuotaMbps = limitOf(j.at("netBandwidthMbps"));
    const auto io = j.find("ioWeight");
    row.ioWeight = io != j.end() && io->is_number_integer() ? io->get<std::int32_t>() : 100;
    // Daemons before disruption budgets (schema version 11) send neither: none. A percentage ("25%") comes with what
    // it lets move now (`disruptionBudget`).
    if (const auto budget = j.find("maxDisrupted"); budget != j.end() && budget->is_string()) {
        const auto parsed = api::parseDisruptionBudget(budget->get<std::string>());
        row.maxDisruptedPercent = parsed ? parsed->percent : -1;
        row.maxDisrupted = j.contains("disruptionBudget") ? limitOf(j.at("disruptionBudget")) : -1;
    } else {
        row.maxDisrupted = budget != j.end() ? limitOf(*budget) : -1;
    }
    row.disrupted = j.value("disrupted", std::int64_t { 0 });
    // Daemons before the accelerator quotas (schema version 7) send neither object: no quota.
    const json quota = j.value("acceleratorQuota", json::object());
    const json used = j.value("acceleratorUsed", json::object());
    const char* const kinds[] = { "gpu", "npu", "fpga" };
    for (std::size_t k = 0; k < std::size(kinds); ++k) {
        row.acceleratorQuotaShare[k] = quota.contains(kinds[k]) ? limitOf(quota.at(kinds[k])) : -1;
        row.acceleratorUsedShare[k] = used.value(kinds[k], std::int64_t { 0 });
    }
    return row;
}

ProposalRow proposalRow(const json& j)
{
    ProposalRow row;
    row.id = j.at("id").get<std::int64_t>();
    row.kind = j.at("kind").get<std::string>();
    row.state = j.at("state").get<std::string>();
    row.risk = j.at("risk").get<std::string>();
    row.subject = j.at("key").get<std::string>();
    row.reason = j.at("reason").get<std::string>();
    row.why = j.value("why", json::array()).dump(); // a daemon before session 22 sends none
    const json& effect = j.at("effect");
    row.utilisationBefore = effect.at("utilisationBefore").get<double>();
    row.utilisationAfter = effect.at("utilisationAfter").get<double>();
    row.gpusFreed = effect.at("gpusFreed").get<double>();
    row.wattsSaved = effect.at("wattsSaved").get<double>();
    row.co2GramsPerHour = effect.at("co2GramsPerHour").get<double>();
    row.sloRisk = effect.at("sloRisk").get<std::string>();
    row.sloRiskWhy = effect.value("sloRiskWhy", json::array()).dump();
    for (const json& action : j.at("plan"))
        row.plan.push_back(describeAction(action));
    row.createdMs = j.at("createdMs").get<std::int64_t>();
    row.expiresMs = j.at("expiresMs").get<std::int64_t>();
    row.decidedBy = j.at("decidedBy").get<std::string>();
    row.decidedMs = j.at("decidedMs").get<std::int64_t>();
    row.detail = j.at("detail").get<std::string>();
    return row;
}

bool placed(const std::string& phase)
{
    return phase == "launching" || phase == "running" || phase == "stopping";
}

WorkloadRow workloadRow(const json& j, const std::map<std::string, const NodeUse*>& nodes,
    const std::map<std::string, std::int32_t>& poolIds)
{
    WorkloadRow row;
    row.id = j.at("id").get<std::int64_t>();
    row.name = j.at("name").get<std::string>();
    row.pool = j.at("pool").get<std::string>();
    const auto pool = poolIds.find(row.pool);
    row.poolId = pool == poolIds.end() ? -1 : pool->second;
    row.phase = j.at("phase").get<std::string>();
    row.latency = j.at("latency").get<std::string>();
    row.homeTier = j.at("tier").get<std::string>();
    row.priority = j.at("priority").get<std::int32_t>();
    row.cpuMillis = j.at("cpuMillis").get<std::int64_t>();
    row.memoryMiB = j.at("memoryMiB").get<std::int64_t>();
    row.memBandwidthMBps = j.at("memBandwidthMBps").get<std::int64_t>();
    row.netBandwidthMbps = j.at("netBandwidthMbps").get<std::int64_t>();
    if (j.contains("accelerators"))
        row.acceleratorKind = j.at("accelerators").at("kind").get<std::string>();
    row.detail = j.at("detail").get<std::string>();
    // Fields of later daemons: absent (or of another type) they keep their defaults.
    const auto whole = [&j](const char* key, std::int64_t low, std::int64_t high, std::int64_t otherwise) {
        const auto it = j.find(key);
        return it != j.end() && it->is_number_integer() ? std::clamp(it->get<std::int64_t>(), low, high) : otherwise;
    };
    constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
    constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
    row.restarts = static_cast<std::int32_t>(whole("restarts", 0, kInt32Max, 0));
    if (const auto it = j.find("restart");
        it != j.end() && (*it == json("on-failure") || *it == json("always") || *it == json("never")))
        row.restart = it->get<std::string>();
    row.maxRestarts = static_cast<std::int32_t>(whole("maxRestarts", 0, kInt32Max, -1));
    row.maxRuntimeMs = whole("maxRuntimeMs", 0, kInt64Max, 0);
    row.cpuLimitMillis = whole("cpuLimitMillis", 0, kInt64Max, 0);
    row.memoryLimitMiB = whole("memoryLimitMiB", 0, kInt64Max, 0);
    row.tier = row.homeTier;
    // Its launch's measured figures (daemons from schema version 13 on): peaks, and the 90th percentile where kept.
    if (const auto m = j.find("measured");
        m != j.end() && m->is_object() && (row.phase == "running" || row.phase == "stopping")) {
        const auto figure = [&m](const char* key) {
            const auto it = m->find(key);
            return it != m->end() && it->is_number_integer() ? std::max<std::int64_t>(-1, it->get<std::int64_t>())
                                                             : std::int64_t { -1 };
        };
        row.measuredSinceMs = std::max<std::int64_t>(0, figure("sinceMs"));
        if (row.measuredSinceMs > 0) {
            row.cpuP90Millis = figure("cpuP90Millis");
            row.peakCpuMillis = figure("peakCpuMillis");
            row.peakMemoryMiB = figure("peakMemoryMiB");
        }
    }
    if (!placed(row.phase) || !j.contains("node"))
        return row;
    row.node = j.at("node").get<std::string>();
    row.translated = j.value("translated", false);
    const auto at = nodes.find(row.node);
    if (at == nodes.end())
        return row;
    const NodeUse& use = *at->second;
    row.nodeId = use.id;
    row.tier = use.tier;
    double busy = 0.0;
    for (const json& share : j.value("devices", json::array())) {
        const auto device = share.at("device").get<std::int64_t>();
        const auto units = share.at("share").get<double>();
        if (device < 0 || static_cast<std::size_t>(device) >= use.shareCapacity.size())
            continue;
        const auto index = static_cast<std::size_t>(device);
        if (use.shareCapacity[index] > 0)
            row.accelerators += units / static_cast<double>(use.shareCapacity[index]);
        busy += units * use.busyPerShare[index];
    }
    if (use.cpuPerMilli >= 0) {
        row.cpuUsedMillis = static_cast<std::int64_t>(use.cpuPerMilli * static_cast<double>(row.cpuMillis) + 0.5);
        row.memoryUsedMiB = static_cast<std::int64_t>(use.memoryPerMiB * static_cast<double>(row.memoryMiB) + 0.5);
        row.acceleratorsUsed = busy;
    }
    // What it uses now, its own cgroup's, where the daemon measures it (`usage=1`, put on the row by the backend).
    if (const auto now = j.find("usedNow"); now != j.end() && now->is_array() && now->size() == 2
        && (*now)[0].is_number_integer() && (*now)[1].is_number_integer()) {
        row.cpuUsedMillis = std::max<std::int64_t>(0, (*now)[0].get<std::int64_t>());
        row.memoryUsedMiB = std::max<std::int64_t>(0, (*now)[1].get<std::int64_t>());
        row.usedMeasured = true;
    }
    return row;
}

// Each pool's footprint per node from the workload rows, as `addWorkloads` makes it from the live plane.
void addFootprints(ConsoleSnapshot& snapshot, const std::map<std::string, const NodeUse*>& nodes)
{
    std::map<std::int32_t, std::map<std::string, PoolNodeRow>> footprint; // pool id → node name ("" waiting)
    for (std::size_t row = 0; row < snapshot.workloads.size(); ++row) {
        const WorkloadRow& w = snapshot.workloads[row];
        if (w.poolId >= 0)
            addToFootprint(footprint[w.poolId][w.nodeId < 0 ? std::string() : w.node], w, row);
    }
    for (PoolRow& pool : snapshot.pools) {
        for (auto& [name, onNode] : footprint[pool.id]) {
            if (name.empty()) {
                pool.waiting = onNode.workloads;
            } else {
                onNode.node = name;
                if (const auto at = nodes.find(name); at != nodes.end()) {
                    onNode.nodeCpuMillis = at->second->cpuMillis;
                    onNode.nodeMemoryMiB = at->second->memoryMiB;
                }
                addToPoolTotals(pool, onNode);
            }
            pool.nodes.push_back(onNode); // by node name: the map's order, the waiting ones ("") first
        }
    }
}

void addOverview(const json& summary, ConsoleSnapshot& snapshot)
{
    countOverviewRows(snapshot);
    OverviewCounts& o = snapshot.overview;
    for (const auto& [phase, count] : summary.at("workloads").items())
        if (count.get<int>() > 0)
            o.workloadsByPhase[phase] = count.get<int>();
    o.pendingWorkloads = summary.at("workloads").value("pending", 0);
    for (const auto& [tier, count] : summary.at("activeWorkloadsByTier").items())
        if (count.get<int>() > 0)
            o.activeWorkloadsByTier[tier] = count.get<int>();
}

// Runs one part of the mapping, naming it in the error.
template <typename F> Expected<void> part(const char* what, F&& f)
{
    try {
        f();
        return {};
    } catch (const json::exception& e) {
        return makeError(
            ErrorCode::ParseError, std::string("unexpected answer from tidepoold to ") + what + ": " + e.what());
    }
}

} // namespace

Expected<std::shared_ptr<ConsoleSnapshot>> snapshotFromApi(
    const ApiState& state, std::uint64_t sequence, std::string source)
{
    auto snapshot = std::make_shared<ConsoleSnapshot>();
    snapshot->sequence = sequence;
    snapshot->source = std::move(source);
    std::vector<NodeUse> uses;
    std::map<std::string, const NodeUse*> byName;
    std::map<std::string, std::int32_t> poolIds;
    PoolMeasurements measured; // from the connected nodes' `poolUsage` (daemons before it send none)
    const std::pair<const char*, std::function<void()>> steps[] = {
        { "GET /v1/summary",
            [&] {
                snapshot->nowMs = state.summary.at("nowMs").get<std::int64_t>();
                snapshot->readOnlyReason = state.summary.at("readOnlyReason").get<std::string>();
            } },
        { "GET /v1/nodes",
            [&] {
                uses.resize(state.nodes.size());
                for (std::size_t i = 0; i < state.nodes.size(); ++i)
                    snapshot->nodes.push_back(nodeRow(state.nodes.at(i), uses[i]));
                for (std::size_t i = 0; i < uses.size(); ++i)
                    byName[snapshot->nodes[i].name] = &uses[i];
                for (const json& node : state.nodes)
                    if (node.value("connected", false))
                        for (const json& u : node.value("poolUsage", json::array()))
                            measured[{ node.at("name").get<std::string>(), u.at("name").get<std::string>() }]
                                = MeasuredOnNode { u.at("cpuMillis").get<std::int64_t>(),
                                      u.at("memoryMiB").get<std::int64_t>(), u.value("netMbps", -1.0) };
            } },
        { "GET /v1/pools",
            [&] {
                for (const json& p : state.pools)
                    snapshot->pools.push_back(poolRow(p));
                for (const PoolRow& p : snapshot->pools)
                    poolIds[p.name] = p.id;
            } },
        { "GET /v1/proposals",
            [&] {
                if (!state.proposals.is_null())
                    for (const json& p : state.proposals)
                        snapshot->proposals.push_back(proposalRow(p));
            } },
        { "GET /v1/workloads",
            [&] {
                for (const json& w : state.workloads)
                    snapshot->workloads.push_back(workloadRow(w, byName, poolIds));
            } },
        { "GET /v1/summary", [&] { addOverview(state.summary, *snapshot); } },
    };
    // In order, each step reading what the ones before it made.
    for (const auto& [what, step] : steps)
        if (auto done = part(what, step); !done)
            return tl::unexpected(done.error());
    // The views expect rows by id, as the embedded builder makes them.
    auto byId = [](const auto& a, const auto& b) { return a.id < b.id; };
    std::sort(snapshot->nodes.begin(), snapshot->nodes.end(), byId);
    std::sort(snapshot->pools.begin(), snapshot->pools.end(), byId);
    std::sort(snapshot->proposals.begin(), snapshot->proposals.end(), byId);
    std::sort(snapshot->workloads.begin(), snapshot->workloads.end(), byId);
    applyPoolMeasurements(snapshot->workloads, measured);
    addFootprints(*snapshot, byName);
    return snapshot;
}

} // namespace tidepool::ui
