#include "core/api/http_api.h"

#include "core/api/history_api.h"
#include "core/api/http_reply.h"
#include "core/api/metrics.h"
#include "core/api/move_api.h"
#include "core/api/node_api.h"
#include "core/api/node_rows.h"
#include "core/api/proposal_api.h"
#include "core/api/report_api.h"

#include "protocol/json_reader.h"

#include <boost/asio/post.hpp>
#include <boost/beast/http/status.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace tidepool::api {

namespace http = boost::beast::http;
using nlohmann::json;
using protocol::detail::Alphabet;
using protocol::detail::JsonReader;

namespace {

constexpr std::size_t kMaxBatch = 10'000;

std::optional<std::int64_t> parseId(std::string_view text)
{
    const auto value = parseInteger(text);
    return value && *value > 0 ? value : std::nullopt;
}

ApiResult<json> parseBody(const net::HttpRequest& request)
{
    auto body = parseJsonBody(request.body(), 16);
    if (!body)
        return tl::unexpected(ApiError { 400, std::move(body.error()) });
    return std::move(*body);
}

// POST /v1/evaluate takes no parameters: an empty body or an empty object, as tidepoolctl and the console send.
// Anything else is refused, so that a client that believes it asked for something (a scope, a dry run) learns it did
// not.
std::optional<std::string> evaluateBodyError(std::string_view body)
{
    if (body.find_first_not_of(" \t\r\n") == std::string_view::npos)
        return std::nullopt;
    const auto parsed = parseJsonBody(body, 16, "POST /v1/evaluate takes an empty body or {}");
    if (!parsed)
        return parsed.error();
    if (!parsed->empty())
        return "field `" + clipText(parsed->begin().key(), 64)
            + "` is not known: POST /v1/evaluate takes no fields (an empty body or {})";
    return std::nullopt;
}

json reportJson(const FilterReport& report)
{
    json rejected = json::object();
    for (std::size_t i = 1; i < kRejectReasonCount; ++i)
        if (report.rejected[i] > 0)
            rejected[std::string(toString(static_cast<RejectReason>(i)))] = report.rejected[i];
    return json { { "nodesConsidered", report.nodesConsidered }, { "feasible", report.feasible },
        { "mainReason", std::string(toString(report.mainReason())) }, { "rejected", std::move(rejected) } };
}

// What a workload's JSON says, copied out of the core (`workloadView`), so that the JSON can be written on another
// thread.
struct WorkloadView {
    WorkloadId id = 0;
    std::string name;
    std::string pool;
    WorkloadPhase phase = WorkloadPhase::Pending;
    std::int32_t priority = 0;
    LatencyClass latency = LatencyClass::Batch;
    Tier tier = Tier::Invalid;
    Resources requests;
    AcceleratorKind acceleratorKind = AcceleratorKind::None;
    std::int32_t acceleratorCount = 0;
    std::int32_t acceleratorShare = 0;
    std::string detail;
    std::int64_t submittedMs = 0, placedMs = 0, runningMs = 0, finishedMs = 0;
    std::uint32_t attempts = 0;
    std::int32_t incarnation = 0;
    std::string node; // "" = not placed
    bool translated = false;
    std::vector<DeviceShare> devices;
    std::int32_t pid = 0;
    std::int32_t exitCode = 0;
    std::vector<std::string> argv;
    std::int64_t memoryLimitMiB = 0;
    std::int64_t cpuLimitMillis = 0;
    RestartPolicy restart = RestartPolicy::Never;
    std::int32_t maxRestarts = -1;
    std::int32_t restarts = 0;
    std::int64_t restartAtMs = 0;
    std::string previousNode; // "" = no previous launch
    std::int32_t previousIncarnation = -1;
    std::int64_t maxRuntimeMs = 0;
    std::int32_t stopGraceMs = -1;
    bool rightSize = true;
    MeasuredWorkloadUse measured;
    bool resizeUnconfirmed = false;
    std::string resizeRefused;
    std::int64_t cpuP90Millis = -1; // of its CPU histogram; -1: none
};

WorkloadView workloadView(const ControlPlane& plane, const LiveWorkload& w)
{
    const Workload& x = w.workload;
    return WorkloadView { x.id, x.name, w.poolName, w.phase, x.priority, x.latency, x.tier(), x.requests,
        x.accelerators.any() ? x.accelerators.kind : AcceleratorKind::None, x.accelerators.count,
        x.accelerators.sharePerDevice, w.detail, w.submittedMs, w.placedMs, w.runningMs, w.finishedMs, w.attempts,
        w.incarnation, w.node != kNoNode ? plane.cluster().node(w.node).name : std::string(), w.translated, w.devices,
        w.pid, w.exitCode, w.argv, w.memoryLimitMiB, w.cpuLimitMillis, w.restart, w.maxRestarts, w.restarts,
        w.restartAtMs, w.previousNode != kNoNode ? plane.cluster().node(w.previousNode).name : std::string(),
        w.previousIncarnation, w.maxRuntimeMs, w.stopGraceMs, w.rightSize, w.measured, w.resizeUnconfirmed(),
        w.resizeRefused, w.cpuP90Millis };
}

json workloadJson(const WorkloadView& w)
{
    json j { { "id", w.id }, { "name", w.name }, { "pool", w.pool }, { "phase", std::string(toString(w.phase)) },
        { "priority", w.priority }, { "latency", std::string(toString(w.latency)) },
        { "tier", std::string(toString(w.tier)) }, { "cpuMillis", w.requests.cpuMillis },
        { "memoryMiB", w.requests.memoryMiB }, { "memBandwidthMBps", w.requests.memBandwidthMBps },
        { "netBandwidthMbps", w.requests.netBandwidthMbps }, { "detail", w.detail }, { "submittedMs", w.submittedMs },
        { "attempts", w.attempts }, { "incarnation", w.incarnation } };
    if (w.acceleratorKind != AcceleratorKind::None)
        j["accelerators"] = json { { "kind", std::string(toString(w.acceleratorKind)) },
            { "count", w.acceleratorCount }, { "share", w.acceleratorShare } };
    if (!w.node.empty()) {
        j["node"] = w.node;
        j["translated"] = w.translated;
        json devices = json::array();
        for (const DeviceShare& d : w.devices)
            devices.push_back(json { { "device", d.device }, { "share", d.share } });
        j["devices"] = std::move(devices);
    }
    if (w.pid)
        j["pid"] = w.pid;
    if (w.placedMs)
        j["placedMs"] = w.placedMs;
    if (w.runningMs)
        j["runningMs"] = w.runningMs;
    // A workload waiting out a restart back-off has ended a launch too: how it ended is its last exit code.
    if (w.finishedMs || w.restartAtMs) {
        if (w.finishedMs)
            j["finishedMs"] = w.finishedMs;
        j["exitCode"] = w.exitCode;
    }
    if (w.restart != RestartPolicy::Never) {
        j["restart"] = std::string(toString(w.restart));
        if (w.maxRestarts >= 0)
            j["maxRestarts"] = w.maxRestarts;
    }
    if (w.restarts)
        j["restarts"] = w.restarts;
    if (w.maxRuntimeMs)
        j["maxRuntimeMs"] = w.maxRuntimeMs;
    if (w.stopGraceMs >= 0)
        j["stopGraceMs"] = w.stopGraceMs;
    if (!w.rightSize)
        j["rightSize"] = false;
    if (w.restartAtMs)
        j["restartAtMs"] = w.restartAtMs;
    if (!w.previousNode.empty())
        j["previous"] = json { { "node", w.previousNode }, { "incarnation", w.previousIncarnation } };
    if (!w.argv.empty())
        j["command"] = w.argv;
    if (w.memoryLimitMiB)
        j["memoryLimitMiB"] = w.memoryLimitMiB;
    if (w.cpuLimitMillis)
        j["cpuLimitMillis"] = w.cpuLimitMillis;
    if (w.measured.atMs)
        j["measured"] = json { { "atMs", w.measured.atMs }, { "cpuMillis", w.measured.cpuMillis },
            { "memoryMiB", w.measured.memoryMiB }, { "peakCpuMillis", w.measured.peakCpuMillis },
            { "peakMemoryMiB", w.measured.peakMemoryMiB }, { "sinceMs", w.measured.sinceMs } };
    if (w.measured.atMs && w.cpuP90Millis >= 0)
        j["measured"]["cpuP90Millis"] = w.cpuP90Millis;
    // A resize of the running launch its agent has not confirmed yet, or refused (it runs with what it had).
    if (w.resizeUnconfirmed || !w.resizeRefused.empty())
        j["resize"] = w.resizeUnconfirmed ? json { { "state", "sent" } }
                                          : json { { "state", "refused" }, { "error", w.resizeRefused } };
    return j;
}

json workloadJson(const ControlPlane& plane, const LiveWorkload& w)
{
    return workloadJson(workloadView(plane, w));
}

// What a node's JSON says but its usage (`node_rows.h`), copied out of the core (`nodeView`), so that the JSON can be
// written on another thread. Equal rests make equal rows, whatever field is added here: the fingerprint cache relies
// on it.
struct NodeRest {
    NodeId id = kNoNode;
    std::string name;
    NodeState state = NodeState::Joining;
    std::string cordon;
    bool peakReserved = false;
    Isa isa = Isa::Invalid;
    Tier tier = Tier::Invalid;
    std::string cpuModel;
    std::int32_t numaNodes = 1;
    std::string agentVersion;
    std::vector<std::string> agentFeatures;
    bool connected = false;
    std::string remote;
    Resources capacity, free;
    std::size_t workloads = 0;
    std::vector<Device> devices;
    std::vector<std::string> deviceModels; // by device: the model's name, "" for none
    std::vector<std::string> pools;
    std::vector<protocol::TranslationFactor> translation;
    std::optional<NodeDrain> drain;
    bool operator==(const NodeRest&) const = default;
};

struct NodeView {
    NodeRest rest;
    double cpuUtilisation = 0.0;
    std::int64_t memoryUsedMiB = 0;
    std::vector<protocol::DeviceSample> deviceSamples;
    std::vector<protocol::PoolUsage> poolUsage;
    std::int64_t lastHeartbeatMs = 0;
    std::uint64_t heartbeats = 0;
};

NodeView nodeView(const ControlPlane& plane, const LiveNode& live)
{
    const ClusterState& cluster = plane.cluster();
    const Node& n = cluster.node(live.id);
    NodeView v { NodeRest { live.id, n.name, live.state, live.cordon, n.peakReserved, n.isa, n.tier, live.cpuModel,
                     live.numaNodes, live.agentVersion, live.agentFeatures, !live.sessionId.empty(), live.remote,
                     n.capacity, n.free, n.residents.size(), n.devices, {}, {}, live.translation, live.drain },
        live.cpuUtilisation, live.memoryUsedMiB, live.devices, live.poolUsage, live.lastHeartbeatMs, live.heartbeats };
    v.rest.deviceModels.reserve(n.devices.size());
    for (const Device& d : n.devices)
        v.rest.deviceModels.push_back(d.model == kNoModel ? std::string() : cluster.modelName(d.model));
    v.rest.pools.reserve(n.pools.size());
    for (const PoolId p : n.pools)
        v.rest.pools.push_back(cluster.pool(p).name);
    return v;
}

// A node's row less its usage (`core/api/node_rows.h`).
json nodeRestJson(const NodeRest& n)
{
    json devices = json::array();
    for (std::size_t i = 0; i < n.devices.size(); ++i) {
        const Device& d = n.devices[i];
        devices.push_back(
            json { { "index", i }, { "kind", std::string(toString(d.kind)) }, { "model", n.deviceModels[i] },
                { "shareCapacity", d.shareCapacity }, { "shareFree", d.shareFree }, { "memoryMiB", d.memoryMiB } });
    }
    json translation = json::object();
    for (const protocol::TranslationFactor& t : n.translation)
        translation[t.fromIsa] = t.factor;
    json row { { "id", n.id }, { "name", n.name }, { "state", std::string(toString(n.state)) }, { "cordon", n.cordon },
        { "peakReserved", n.peakReserved }, { "isa", std::string(toString(n.isa)) },
        { "tier", std::string(toString(n.tier)) }, { "cpuModel", n.cpuModel }, { "numaNodes", n.numaNodes },
        { "agentVersion", n.agentVersion }, { "agentFeatures", n.agentFeatures }, { "connected", n.connected },
        { "remote", n.remote }, { "cpuMillis", n.capacity.cpuMillis }, { "cpuMillisFree", n.free.cpuMillis },
        { "memoryMiB", n.capacity.memoryMiB }, { "memoryMiBFree", n.free.memoryMiB }, { "workloads", n.workloads },
        { "devices", std::move(devices) }, { "pools", n.pools }, { "translation", std::move(translation) } };
    if (n.drain)
        row["drain"] = drainJson(*n.drain);
    // Only where its agent shapes the link (`tidepool-agent --net-shape`): elsewhere the network is not counted.
    if (n.capacity.netBandwidthMbps != kUnlimited) {
        row["netMbps"] = n.capacity.netBandwidthMbps;
        row["netMbpsFree"] = n.free.netBandwidthMbps;
    }
    return row;
}

// What its heartbeats change, as `applyNodeUsage` takes it.
json nodeUsageJson(const NodeView& n)
{
    json devices = json::array();
    for (const protocol::DeviceSample& s : n.deviceSamples)
        devices.push_back(
            json { { "index", s.index }, { "utilisation", s.utilisation }, { "memoryUsedMiB", s.memoryUsedMiB } });
    json pools = json::array();
    for (const protocol::PoolUsage& u : n.poolUsage) {
        json pool { { "name", u.name }, { "cpuMillis", u.cpuMillis }, { "memoryMiB", u.memoryMiB } };
        if (u.netMbps >= 0.0)
            pool["netMbps"] = u.netMbps;
        pools.push_back(std::move(pool));
    }
    return json { { "cpuUtilisation", n.cpuUtilisation }, { "memoryUsedMiB", n.memoryUsedMiB },
        { "lastHeartbeatMs", n.lastHeartbeatMs }, { "heartbeats", n.heartbeats }, { "devices", std::move(devices) },
        { "poolUsage", std::move(pools) } };
}

// The whole row: the rest, its fingerprint and the usage merged in as a reader that keeps rows merges it.
json nodeJson(const NodeView& n, const std::string& fingerprint)
{
    json row = nodeRestJson(n.rest);
    applyNodeUsage(row, nodeUsageJson(n));
    row["fingerprint"] = fingerprint;
    return row;
}

bool isActive(WorkloadPhase phase)
{
    return phase == WorkloadPhase::Launching || phase == WorkloadPhase::Running || phase == WorkloadPhase::Stopping;
}

// What the agents measured the pool's cgroups using (`ControlPlane::measuredPoolUse`); null where none measures it.
json measuredJson(const MeasuredPoolUse& use)
{
    if (use.nodes == 0)
        return nullptr;
    return json { { "nodes", use.nodes }, { "cpuMillis", use.cpuMillis }, { "memoryMiB", use.memoryMiB },
        { "netNodes", use.netNodes }, { "netMbps", use.netNodes == 0 ? json(nullptr) : json(use.netMbps) } };
}

// A pool's disruption budget as set: a number of workloads, "25%", or null for none.
json disruptionBudgetJson(const DisruptionBudget& budget)
{
    if (budget.percent >= 0)
        return toString(budget);
    return budget.isNone() ? json(nullptr) : json(budget.count);
}

json poolJson(const ControlPlane& plane, PoolId id, const MeasuredPoolUse& measured)
{
    const Pool& p = plane.cluster().pool(id);
    auto limit = [](std::int64_t v) { return v >= kUnlimited ? json(nullptr) : json(v); };
    std::int64_t acceleratorShareUsed = 0;
    json acceleratorQuota = json::object(), acceleratorUsed = json::object();
    // A quota lowered below what the pool's running work holds keeps that work (nothing is evicted for it) and lets
    // nothing new in until the use falls below it: say which, so that whoever lowered it sees it.
    json overQuota = json::array();
    const std::tuple<const char*, std::int64_t, std::int64_t> resources[]
        = { { "cpuMillis", p.used.cpuMillis, p.quota.cpuMillis }, { "memoryMiB", p.used.memoryMiB, p.quota.memoryMiB },
              { "memBandwidthMBps", p.used.memBandwidthMBps, p.quota.memBandwidthMBps },
              { "netBandwidthMbps", p.used.netBandwidthMbps, p.quota.netBandwidthMbps } };
    for (const auto& [name, used, quota] : resources)
        if (used > quota)
            overQuota.push_back(json { { "resource", name }, { "used", used }, { "quota", quota } });
    for (const AcceleratorKind kind : { AcceleratorKind::Gpu, AcceleratorKind::Npu, AcceleratorKind::Fpga }) {
        const auto k = static_cast<std::size_t>(kind);
        acceleratorShareUsed += p.acceleratorUsed[k];
        acceleratorQuota[std::string(toString(kind))] = limit(p.acceleratorQuota[k]);
        acceleratorUsed[std::string(toString(kind))] = p.acceleratorUsed[k];
        if (p.acceleratorUsed[k] > p.acceleratorQuota[k])
            overQuota.push_back(json { { "resource", "acceleratorQuota." + std::string(toString(kind)) },
                { "used", p.acceleratorUsed[k] }, { "quota", p.acceleratorQuota[k] } });
    }
    return json { { "id", p.id }, { "name", p.name }, { "businessLine", p.businessLine },
        { "tier", p.tier == Tier::Invalid ? json(nullptr) : json(std::string(toString(p.tier))) },
        { "cpuMillis", limit(p.quota.cpuMillis) }, { "memoryMiB", limit(p.quota.memoryMiB) },
        { "memBandwidthMBps", limit(p.quota.memBandwidthMBps) },
        { "netBandwidthMbps", limit(p.quota.netBandwidthMbps) }, { "cpuMillisUsed", p.used.cpuMillis },
        { "memoryMiBUsed", p.used.memoryMiB }, { "memBandwidthMBpsUsed", p.used.memBandwidthMBps },
        { "netBandwidthMbpsUsed", p.used.netBandwidthMbps }, { "acceleratorShareUsed", acceleratorShareUsed },
        { "acceleratorQuota", std::move(acceleratorQuota) }, { "acceleratorUsed", std::move(acceleratorUsed) },
        { "overQuota", std::move(overQuota) }, { "offTier", plane.workloadsOffTier(id) },
        { "ioWeight", plane.poolIoWeight(id) },
        { "maxDisrupted", disruptionBudgetJson(plane.poolDisruptionBudget(id)) },
        { "disruptionBudget", limit(plane.poolMaxDisrupted(id)) }, { "disrupted", plane.disruptedIn(id) },
        { "nodes", p.nodes.size() }, { "measured", measuredJson(measured) } };
}

json poolJson(const ControlPlane& plane, PoolId id)
{
    return poolJson(plane, id, plane.measuredPoolUse()[static_cast<std::size_t>(id)]);
}

} // namespace

json poolSettings(const ControlPlane& plane, PoolId id)
{
    json settings = poolJson(plane, id);
    for (const char* usage : { "id", "cpuMillisUsed", "memoryMiBUsed", "memBandwidthMBpsUsed", "netBandwidthMbpsUsed",
             "acceleratorShareUsed", "acceleratorUsed", "overQuota", "offTier", "disruptionBudget", "disrupted",
             "nodes", "measured" })
        settings.erase(usage);
    return settings;
}

json settingsChanged(const json& before, const json& after)
{
    json changed = json::object();
    for (const auto& [field, value] : after.items())
        if (before.value(field, json()) != value)
            changed[field] = json { { "from", before.value(field, json()) }, { "to", value } };
    return changed;
}

namespace {

// A quota field of a pool: a number within [min, max], or `null` for unlimited; absent keeps `value`.
void readQuota(
    JsonReader& r, const json& object, const char* key, std::int64_t min, std::int64_t max, std::int64_t& value)
{
    const auto it = object.find(key);
    if (it != object.end() && it->is_null()) {
        r.skip(key);
        value = kUnlimited;
    } else if (r.has(key)) {
        value = r.integer(key, min, max);
    }
}

} // namespace

ApiResult<PoolRequest> parsePoolRequest(const json& body, std::optional<PoolRequest> base)
{
    std::optional<protocol::Error> readError;
    JsonReader r(body, "", readError);
    const bool creating = !base;
    PoolRequest p = base.value_or(PoolRequest {});
    if (creating) {
        p.name = r.string("name", Alphabet::Name, 64);
        // A name a command line or a URL cannot carry as it is: tidepoolctl takes "-rf" for an option, and clients
        // that normalise paths turn /v1/pools/.. into /v1/.
        if (r.ok() && (p.name.front() == '-' || p.name.find_first_not_of('.') == std::string::npos))
            r.fail(protocol::ErrorCode::BadName, "name",
                "field `name` is \"" + p.name + "\": a pool's name may not begin with '-' or be only dots");
    }
    if (const auto line = body.find("businessLine"); line != body.end() && line->is_null()) {
        r.skip("businessLine"); // none: the pool is a cost row of its own in reports
        p.businessLine.clear();
    } else if (r.has("businessLine")) {
        p.businessLine = r.string("businessLine", Alphabet::Text, 256);
    }
    if (const auto tierField = body.find("tier"); tierField != body.end() && tierField->is_null()) {
        r.skip("tier");
        p.tier = Tier::Invalid;
    } else if (r.has("tier")) {
        const std::string tier = r.string("tier", Alphabet::Name, 16);
        if (r.ok()) {
            const auto parsed = parseTier(tier);
            if (!parsed)
                r.fail(protocol::ErrorCode::OutOfRange, "tier", "field `tier` must be hot, warm or cold");
            else
                p.tier = *parsed;
        }
    }
    constexpr std::int64_t kMaxBandwidth = std::int64_t { 1 } << 40; // as a workload's request
    readQuota(r, body, "cpuMillis", 1, protocol::kMaxCpuMillis, p.cpuMillis);
    readQuota(r, body, "memoryMiB", 1, protocol::kMaxMemoryMiB, p.memoryMiB);
    readQuota(r, body, "memBandwidthMBps", 1, kMaxBandwidth, p.memBandwidthMBps);
    readQuota(r, body, "netBandwidthMbps", 1, kMaxBandwidth, p.netBandwidthMbps);
    if (const auto all = body.find("acceleratorQuota"); all != body.end() && all->is_null()) {
        r.skip("acceleratorQuota");
        for (const AcceleratorKind kind : { AcceleratorKind::Gpu, AcceleratorKind::Npu, AcceleratorKind::Fpga })
            p.acceleratorQuota[static_cast<std::size_t>(kind)] = kUnlimited;
    } else if (const json* accelerators = r.optionalObject("acceleratorQuota")) {
        JsonReader a = r.child(*accelerators, r.pathOf("acceleratorQuota"));
        for (const AcceleratorKind kind : { AcceleratorKind::Gpu, AcceleratorKind::Npu, AcceleratorKind::Fpga }) {
            const std::string key(toString(kind));
            // A share of a device is at most 1,000,000 units and a workload takes at most 64 devices.
            readQuota(a, *accelerators, key.c_str(), 0, std::int64_t { 64'000'000 },
                p.acceleratorQuota[static_cast<std::size_t>(kind)]);
        }
        a.rejectUnknownFields();
    }
    if (r.has("ioWeight"))
        p.ioWeight = static_cast<std::int32_t>(r.integer("ioWeight", 1, 10'000));
    // null: no budget; 0: none of its workloads is moved by drains and migrations (a drain waits for its deadline);
    // "25%": a quarter of its workloads, rounded up.
    if (const auto budget = body.find("maxDisrupted"); budget != body.end() && budget->is_string()) {
        r.skip("maxDisrupted");
        // A number as a string ("2") is refused, as Kubernetes refuses it: a string is a percentage.
        if (const auto parsed = parseDisruptionBudget(budget->get<std::string>()); parsed && parsed->percent >= 0)
            p.maxDisrupted = *parsed;
        else
            r.fail(protocol::ErrorCode::OutOfRange, "maxDisrupted",
                "field `maxDisrupted` must be a number of workloads (0 to 1000000), a percentage of the pool's "
                "workloads (\"0%\" to \"100%\") or null for no budget");
    } else {
        std::int64_t count = p.maxDisrupted.percent < 0 ? p.maxDisrupted.count : kUnlimited;
        const bool given = budget != body.end();
        readQuota(r, body, "maxDisrupted", 0, kMaxDisruptionBudget, count);
        if (given)
            p.maxDisrupted = DisruptionBudget::workloads(count);
    }
    r.rejectUnknownFields();
    return checkedRead(readError, std::move(p));
}

ApiResult<std::uint64_t> cursorSequence(
    std::string_view cursor, const std::string& runId, std::string_view name, std::string_view what)
{
    const std::string query = "query `" + std::string(name) + "`";
    const auto dot = cursor.find('.');
    std::optional<std::int64_t> sequence;
    if (dot != std::string_view::npos)
        sequence = parseInteger(cursor.substr(dot + 1));
    if (!sequence || *sequence < 0)
        return tl::unexpected(
            ApiError { 400, query + " must be a cursor a " + std::string(what) + " list answered (RUN.SEQUENCE)" });
    if (cursor.substr(0, dot) != runId)
        return tl::unexpected(ApiError { 410,
            query + ": the cursor is from another run of tidepoold (it restarted); list the " + std::string(what)
                + "s again" });
    return static_cast<std::uint64_t>(*sequence);
}

// The fingerprint of each node's row as last written: a rest equal to the one kept keeps its fingerprint, so that a
// poll hashes only the rows that changed. On the serialiser thread only.
struct NodeFingerprints {
    std::unordered_map<NodeId, std::pair<NodeRest, std::string>> byNode;

    const std::string& of(const NodeRest& rest)
    {
        auto& [kept, fingerprint] = byNode[rest.id];
        if (fingerprint.empty() || !(kept == rest)) {
            kept = rest;
            fingerprint = nodeFingerprint(nodeRestJson(rest));
        }
        return fingerprint;
    }
    // Forgets the nodes that a listing of all of them did not have.
    void keepOnly(const std::vector<NodeView>& views)
    {
        std::unordered_set<NodeId> listed;
        for (const NodeView& v : views)
            listed.insert(v.rest.id);
        std::erase_if(byNode, [&](const auto& entry) { return !listed.count(entry.first); });
    }
};

HttpApi::HttpApi(
    boost::asio::io_context& io, ControlPlane& plane, std::vector<OperatorToken> tokens, MetricsSource extraMetrics)
    : m_io(io)
    , m_plane(plane)
    , m_tokens(std::move(tokens))
    , m_requestPrefix(std::to_string(unixMillis()) + ".")
    , m_extraMetrics(std::move(extraMetrics))
    , m_fingerprints(std::make_shared<NodeFingerprints>())
{
}

std::optional<std::size_t> HttpApi::authorise(const net::HttpRequest& request) const
{
    const auto header = request.find(http::field::authorization);
    if (header == request.end())
        return std::nullopt;
    const std::string_view value(header->value().data(), header->value().size());
    constexpr std::string_view kBearer = "Bearer ";
    if (value.substr(0, kBearer.size()) != kBearer)
        return std::nullopt;
    return matchToken(m_tokens, value.substr(kBearer.size()));
}

std::optional<net::HttpResponse> HttpApi::methodNotAllowed(
    const net::HttpRequest& request, const std::vector<std::string>& parts, std::string_view target) const
{
    std::vector<http::verb> allowed = allowedMethods(parts);
    if (allowed.empty() && parts.size() >= 2 && parts[0] == "v1" && m_readRoutes.count(parts[1]))
        allowed = { http::verb::get, http::verb::head };
    if (allowed.empty() || std::find(allowed.begin(), allowed.end(), request.method()) != allowed.end())
        return std::nullopt;
    const std::string allow = allowHeader(allowed);
    net::HttpResponse response = errorReply(405,
        std::string(request.method_string().substr(0, 32)) + " is not allowed on "
            + std::string(target.substr(0, std::min(target.find('?'), std::string_view::size_type { 256 })))
            + ": it takes " + allow);
    response.set(http::field::allow, allow);
    return response;
}

void HttpApi::handle(const net::HttpRequest& request, const std::string& peer, net::HttpRespond respond)
{
    ++m_stats.requests;
    const std::string_view target(request.target().data(), request.target().size());
    std::string_view query;
    const std::vector<std::string> parts = splitPath(target, query);
    const http::verb verb = request.method();

    if (parts.size() == 1 && parts[0] == "healthz" && verb == http::verb::get)
        return respond(reply(http::status::ok,
            json { { "status", "ok" }, { "readOnly", !m_plane.readOnlyReason().empty() } }));
    if (parts.size() == 1 && parts[0] == "metrics" && verb == http::verb::get) {
        net::HttpResponse response { http::status::ok, 11 };
        response.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
        response.body() = renderMetrics();
        return respond(std::move(response));
    }
    if (parts.empty() || parts[0] != "v1") {
        ++m_stats.clientErrors;
        if (auto wrongMethod = methodNotAllowed(request, parts, target))
            return respond(std::move(*wrongMethod));
        return respond(errorReply(404, "no resource at " + std::string(target.substr(0, 256))));
    }
    const auto token = authorise(request);
    if (!token) {
        ++m_stats.unauthorised;
        net::HttpResponse response = errorReply(401, "missing or wrong operator token (Authorization: Bearer <token>)");
        response.set(http::field::www_authenticate, "Bearer realm=\"tidepool\"");
        return respond(std::move(response));
    }
    const OperatorToken& caller = m_tokens[*token];
    const std::string path(target.substr(0, target.find('?')).substr(0, 256));
    const std::string action = std::string(request.method_string()) + " " + path;
    // A method the path does not take is a 405 before roles are checked (no role may call it) and changes nothing;
    // an attempted change is audited, as a forbidden one is.
    if (auto wrongMethod = methodNotAllowed(request, parts, target)) {
        ++m_stats.clientErrors;
        if (verb == http::verb::get || verb == http::verb::head)
            return respond(std::move(*wrongMethod));
        store::AuditEntry entry = received(caller, peer, action, path);
        return answerChange(std::move(*wrongMethod), std::move(entry), path, std::move(respond));
    }
    // Roles are checked here, in the core, for every call: before the body is read and before anything changes.
    if (const Role needed = requiredRole(verb, parts); caller.role < needed) {
        ++m_stats.forbidden;
        const std::string message = "forbidden: " + action + " needs the " + std::string(toString(needed))
            + " role; token \"" + caller.name + "\" has the " + std::string(toString(caller.role)) + " role";
        store::AuditEntry entry = received(caller, peer, action, path);
        return answerChange(reply(http::status::forbidden,
                                json { { "error", message }, { "requiredRole", std::string(toString(needed)) },
                                    { "role", std::string(toString(caller.role)) } }),
            std::move(entry), path, std::move(respond));
    }
    // What-if is a POST that changes nothing: it is neither refused while read-only nor held for a commit.
    const bool whatIf = parts.size() == 2 && parts[1] == "whatif";
    const bool changes = verb != http::verb::get && verb != http::verb::head && !whatIf;
    if (changes && !m_plane.readOnlyReason().empty()) {
        ++m_stats.refusedReadOnly;
        return respond(errorReply(503,
            "tidepoold is read-only because its database cannot be written (" + m_plane.readOnlyReason()
                + "); nothing was changed; retry when the alert clears"));
    }
    if (parts.size() >= 2 && (parts[1] == "history" || parts[1] == "series" || parts[1] == "audit")) {
        if (verb != http::verb::get)
            return respond(errorReply(404, "no resource for " + action));
        if (parts[1] == "audit" && m_plane.readOnlyReason().empty()) { // read-only: reads go on, without a commit
            // Audit entries written since the last commit (the completed entries of calls already answered) are
            // committed first, so that the log shows every call whose answer the reader may have seen.
            store::Store* store = m_plane.store();
            return m_plane.whenSaved([store, parts, query = std::string(query), respond = std::move(respond)](
                                         const std::optional<std::string>&) mutable {
                respond(historyRoute(store, parts, query));
            });
        }
        return respond(historyRoute(m_plane.store(), parts, query));
    }
    if (parts.size() >= 2 && parts[1] == "whoami") {
        // Who this token is and what it may do, so that a console can say so before anyone tries.
        if (parts.size() != 2 || verb != http::verb::get)
            return respond(errorReply(404, "no resource under /v1/whoami"));
        return respond(reply(http::status::ok,
            json { { "token", caller.name }, { "actor", caller.actor() }, { "role", std::string(toString(caller.role)) } }));
    }
    if (parts.size() >= 2 && parts[1] == "report") {
        if (parts.size() != 2 || verb != http::verb::get)
            return respond(errorReply(404, "no resource under /v1/report"));
        return respond(reportRoute(m_plane, m_rebalancer, m_reportSettings, query));
    }
    if (parts.size() >= 2)
        if (const auto served = m_readRoutes.find(parts[1]); served != m_readRoutes.end()) {
            ReadAnswer answer = served->second(parts, query);
            if (auto* write = std::get_if<OffThreadWriter>(&answer))
                return answerOffThread(std::move(*write), std::move(respond));
            if (auto* later = std::get_if<LaterAnswer>(&answer))
                return (*later)(std::move(respond));
            return respond(std::move(std::get<net::HttpResponse>(answer)));
        }
    if (whatIf)
        return respond(whatIfRoute(m_plane, request));
    if (verb == http::verb::get && parts.size() == 2 && parts[1] == "nodes")
        return listNodes(query, std::move(respond));
    if (verb == http::verb::get && parts.size() == 2 && parts[1] == "workloads")
        return listWorkloads(query, std::move(respond));
    if (verb == http::verb::get && parts.size() == 4 && parts[1] == "workloads" && parts[3] == "logs")
        return workloadLogs(parts[2], query, std::move(respond));
    const bool proposals = parts.size() >= 2 && (parts[1] == "proposals" || parts[1] == "evaluate");
    m_auditTarget = path;
    m_auditDetail = json::object();
    if (!changes)
        return respond(proposals
                ? proposalRoute(m_rebalancer, request, parts, query, caller.actor(), m_auditTarget, m_auditDetail)
                : route(request, parts));

    // A change: audited as received before it acts.
    store::AuditEntry entry = received(caller, peer, action, path);
    if (parts.size() == 2 && parts[1] == "evaluate" && verb == http::verb::post)
        if (const auto refused = evaluateBodyError(request.body())) {
            ++m_stats.clientErrors;
            return answerChange(errorReply(400, *refused), std::move(entry), path, std::move(respond));
        }
    if (parts.size() == 2 && parts[1] == "evaluate" && verb == http::verb::post && m_rebalancer) {
        // Forecasting runs on the rebalancer's worker; the answer comes when it is done.
        m_rebalancer->evaluate(m_plane.nowMs(),
            [this, respond = std::move(respond), entry = std::move(entry)](std::vector<std::int64_t> created) mutable {
                json list = json::array();
                for (const std::int64_t id : created)
                    list.push_back(rebalance::toJson(*m_rebalancer->proposal(id)));
                answerChange(reply(http::status::ok, json { { "created", std::move(list) } }), std::move(entry),
                    "evaluation", std::move(respond));
            });
        return;
    }
    if (parts.size() == 4 && parts[1] == "nodes" && verb == http::verb::post) {
        // An operator's cordon, uncordon or drain of a node, by the token's actor (node_api.h).
        net::HttpResponse done
            = nodeOperationRoute(m_plane, request, parts, caller.actor(), m_auditTarget, m_auditDetail);
        if (done.result_int() >= 400 && done.result_int() < 500)
            ++m_stats.clientErrors;
        return answerChange(std::move(done), std::move(entry), m_auditTarget, std::move(respond));
    }
    if (parts.size() == 4 && parts[1] == "workloads" && parts[3] == "move" && verb == http::verb::post) {
        // An operator's move, by the token's actor (move_api.h).
        net::HttpResponse moved = moveRoute(m_plane, request, parts, caller.actor(), m_auditTarget, m_auditDetail);
        if (moved.result_int() >= 400 && moved.result_int() < 500)
            ++m_stats.clientErrors;
        return answerChange(std::move(moved), std::move(entry), m_auditTarget, std::move(respond));
    }
    if (parts.size() == 4 && parts[1] == "workloads" && parts[3] == "resize" && verb == http::verb::post) {
        // An operator's resize, by the token's actor (move_api.h).
        net::HttpResponse resized = resizeRoute(m_plane, request, parts, caller.actor(), m_auditTarget, m_auditDetail);
        if (resized.result_int() >= 400 && resized.result_int() < 500)
            ++m_stats.clientErrors;
        return answerChange(std::move(resized), std::move(entry), m_auditTarget, std::move(respond));
    }
    net::HttpResponse response = proposals
        ? proposalRoute(m_rebalancer, request, parts, query, caller.actor(), m_auditTarget, m_auditDetail)
        : route(request, parts);
    answerChange(std::move(response), std::move(entry), m_auditTarget, std::move(respond));
}

void HttpApi::answerOffThread(OffThreadWriter write, net::HttpRespond respond)
{
    if (m_queuedWrites >= kMaxQueuedWrites) {
        ++m_stats.refusedBusy;
        net::HttpResponse busy = errorReply(503,
            "the daemon is busy writing " + std::to_string(m_queuedWrites)
                + " large reads (its limit); retry in a second, or read a page (`limit`)");
        busy.set(http::field::retry_after, "1");
        return respond(std::move(busy));
    }
    ++m_queuedWrites;
    boost::asio::post(m_serialiser,
        [this, write = std::move(write), respond = std::move(respond), io = &m_io,
            alive = std::weak_ptr<int>(m_alive)]() mutable {
            net::HttpResponse response = write();
            boost::asio::post(
                *io, [this, respond = std::move(respond), response = std::move(response), alive]() mutable {
                    if (!alive.lock())
                        return; // the API is gone, and `this` with it
                    --m_queuedWrites;
                    respond(std::move(response));
                });
        });
}

void HttpApi::listNodes(std::string_view query, net::HttpRespond respond)
{
    const auto fail = [&](int status, const std::string& message) {
        ++m_stats.clientErrors;
        respond(errorReply(status, message));
    };
    // `ids`: only these nodes' rows (a reader refreshing the rows whose fingerprint changed); unknown ids are left out.
    std::optional<std::set<std::int64_t>> ids;
    if (const auto list = queryValue(query, "ids")) {
        ids.emplace();
        for (std::size_t start = 0; start <= list->size();) {
            const std::size_t comma = std::min(list->find(',', start), list->size());
            const auto id = parseInteger(list->substr(start, comma - start)); // node ids start at 0
            if (!id || *id < 0)
                return fail(400, "query `ids` must be node ids separated by commas");
            ids->insert(*id);
            start = comma + 1;
        }
    }
    // `usageSince`: every node's fingerprint, and the usage of those heard from since the cursor a read answered.
    std::optional<std::uint64_t> usageSince;
    if (const auto since = queryValue(query, "usageSince")) {
        const auto sequence = cursorSequence(*since, m_plane.runId(), "usageSince", "node");
        if (!sequence)
            return fail(sequence.error().status, sequence.error().message);
        usageSince = *sequence;
    }
    std::vector<NodeView> views;
    std::vector<bool> heardFrom; // with `usageSince`: whether the node's usage goes with its fingerprint
    views.reserve(m_plane.nodes().size());
    for (const LiveNode& n : m_plane.nodes())
        if (!ids || ids->count(n.id)) {
            views.push_back(nodeView(m_plane, n));
            heardFrom.push_back(usageSince && n.usageSequence > *usageSince);
        }
    json answer { { "usageCursor", m_plane.runId() + "." + std::to_string(m_plane.usageSequence()) } };
    // Writing 2,000 nodes as JSON took the core's thread 50-80 ms (BENCHMARKS.md §3c): written off it.
    answerOffThread(
        [views = std::move(views), heardFrom = std::move(heardFrom), answer = std::move(answer),
            compact = usageSince.has_value(), all = !ids, fingerprints = m_fingerprints]() mutable {
            json list = json::array();
            for (std::size_t i = 0; i < views.size(); ++i) {
                const std::string& fingerprint = fingerprints->of(views[i].rest);
                if (!compact) {
                    list.push_back(nodeJson(views[i], fingerprint));
                    continue;
                }
                json entry { { "id", views[i].rest.id }, { "name", views[i].rest.name },
                    { "fingerprint", fingerprint } };
                if (heardFrom[i])
                    entry["usage"] = nodeUsageJson(views[i]);
                list.push_back(std::move(entry));
            }
            if (all)
                fingerprints->keepOnly(views);
            answer["nodes"] = std::move(list);
            return reply(http::status::ok, answer);
        },
        std::move(respond));
}

void HttpApi::workloadLogs(const std::string& id, std::string_view query, net::HttpRespond respond)
{
    const auto fail = [&](int status, const std::string& message) {
        ++m_stats.clientErrors;
        respond(errorReply(status, message));
    };
    LogsQuery logs;
    const auto workload = parseId(id);
    if (!workload)
        return fail(400, "workload id \"" + clipText(id, 64) + "\" is not a positive integer");
    logs.workload = *workload;
    if (const auto stream = queryValue(query, "stream")) {
        if (*stream != "stdout" && *stream != "stderr")
            return fail(400, "query `stream` must be stdout or stderr");
        logs.stderrStream = *stream == "stderr";
    }
    if (const auto bytes = queryValue(query, "bytes")) {
        const auto parsed = parseId(*bytes);
        if (!parsed || *parsed > protocol::kMaxLogBytes)
            return fail(
                400, "query `bytes` must be a whole number of bytes, 1 to " + std::to_string(protocol::kMaxLogBytes));
        logs.maxBytes = *parsed;
    }
    // A follower's next read: from the `end` of its last answer, in the launch it named.
    if (const auto from = queryValue(query, "from")) {
        const auto parsed = parseInteger(*from);
        if (!parsed || *parsed < 0 || *parsed > protocol::kMaxLogPosition)
            return fail(400,
                "query `from` must be a position in the stream, 0 to " + std::to_string(protocol::kMaxLogPosition)
                    + " (the `end` of an earlier answer)");
        logs.from = *parsed;
    }
    if (const auto incarnation = queryValue(query, "incarnation")) {
        const auto parsed = parseInteger(*incarnation);
        if (logs.from < 0)
            return fail(400, "query `incarnation` goes with `from`: the launch whose stream `from` is in");
        if (!parsed || *parsed < 0 || *parsed > protocol::kMaxIncarnation)
            return fail(400, "query `incarnation` must be 0 to " + std::to_string(protocol::kMaxIncarnation));
        logs.incarnation = static_cast<std::int32_t>(*parsed);
    }
    if (const auto waitMs = queryValue(query, "waitMs")) {
        const auto parsed = parseInteger(*waitMs);
        if (!parsed || *parsed < 0 || *parsed > protocol::kMaxLogWaitMs)
            return fail(400,
                "query `waitMs` must be a whole number of milliseconds from 0 to "
                    + std::to_string(protocol::kMaxLogWaitMs));
        if (*parsed > 0 && logs.from < 0)
            return fail(400, "query `waitMs` goes with `from`: only a follower's read waits for output");
        logs.waitMs = static_cast<std::int32_t>(*parsed);
    }
    if (const auto previous = queryValue(query, "previous")) {
        if (*previous != "1" && *previous != "true" && *previous != "0" && *previous != "false")
            return fail(400, "query `previous` must be 1 or 0 (true or false)");
        logs.previous = *previous == "1" || *previous == "true";
        if (logs.previous && logs.from >= 0)
            return fail(
                400, "query `previous` reads a launch that has ended, whole: it does not go with `from` (following)");
    }
    net::HttpRespond watched = respond; // the same answer: told when its reader goes
    const std::int64_t waiting = m_plane.queryLogs(logs,
        [this, alive = std::weak_ptr<int>(m_alive), logs, respond = std::move(respond)](LogsAnswer answer) mutable {
            if (answer.status != 200) {
                if (alive.lock() && answer.status < 500)
                    ++m_stats.clientErrors;
                return respond(errorReply(answer.status, answer.error));
            }
            const protocol::LogReply& r = answer.reply;
            json body { { "id", logs.workload }, { "node", answer.node }, { "incarnation", answer.incarnation },
                { "phase", std::string(toString(answer.phase)) }, { "stream", logs.stderrStream ? "stderr" : "stdout" },
                { "sizeBytes", r.sizeBytes }, { "truncated", r.truncated }, { "data", r.data } };
            // From an agent that can be followed: where `data` lies in the stream (the next read is `from=end`).
            if (r.end >= 0) {
                body["start"] = r.start;
                body["end"] = r.end;
            }
            respond(reply(http::status::ok, body));
        });
    // A follower that goes while its read waits (at its agent, for output) gives its place back at once.
    if (waiting > 0)
        watched.onClientGone([this, alive = std::weak_ptr<int>(m_alive), waiting] {
            if (alive.lock())
                m_plane.abandonLogs(waiting);
        });
}

void HttpApi::listWorkloads(std::string_view query, net::HttpRespond respond)
{
    const auto fail = [&](int status, const std::string& message) {
        ++m_stats.clientErrors;
        respond(errorReply(status, message));
    };
    std::optional<WorkloadPhase> phase;
    if (const auto p = queryValue(query, "phase")) {
        phase = parseWorkloadPhase(*p);
        if (!phase)
            return fail(400, "query `phase` names no workload phase");
    }
    const auto nodeFilter = queryValue(query, "node");
    std::size_t limit = 1000;
    if (const auto l = queryValue(query, "limit")) {
        const auto parsed = parseId(*l);
        if (!parsed)
            return fail(400, "query `limit` must be a positive integer");
        limit = static_cast<std::size_t>(*parsed);
    }
    const auto wanted = [&](const LiveWorkload& w) {
        return (!phase || w.phase == *phase)
            && (!nodeFilter || (w.node != kNoNode && m_plane.cluster().node(w.node).name == *nodeFilter));
    };
    // The cursor names this run of the core and its latest workload change: a reader that lists everything once can
    // then ask for only what changed since (`changedSince`), ended workloads included.
    const auto cursor = [this](std::uint64_t sequence) { return m_plane.runId() + "." + std::to_string(sequence); };
    std::vector<WorkloadView> views;
    json answer;
    if (const auto since = queryValue(query, "changedSince")) {
        const auto sequence = cursorSequence(*since, m_plane.runId(), "changedSince", "workload");
        if (!sequence)
            return fail(sequence.error().status, sequence.error().message);
        std::uint64_t last = m_plane.workloadSequence();
        const auto& changes = m_plane.workloadChanges();
        for (auto it = changes.upper_bound(*sequence); it != changes.end(); ++it) {
            if (views.size() >= limit) {
                last = std::prev(it)->first; // the rest comes with the next read
                break;
            }
            const LiveWorkload* w = m_plane.workload(it->second);
            if (w && wanted(*w))
                views.push_back(workloadView(m_plane, *w));
        }
        answer = json { { "cursor", cursor(last) }, { "more", last != m_plane.workloadSequence() } };
    } else {
        // A page of `limit`, in id order, from after the id `after` names: `more` says the limit cut it, and
        // `nextAfter` where the next page starts. Follow the first page's cursor with `changedSince` afterwards: it
        // holds whatever changed while the pages were read.
        std::int64_t after = 0;
        if (const auto a = queryValue(query, "after")) {
            const auto parsed = parseInteger(*a);
            if (!parsed || *parsed < 0)
                return fail(400, "query `after` must be a workload id (0 or more)");
            after = *parsed;
        }
        bool more = false;
        const auto& workloads = m_plane.workloads();
        for (auto it = workloads.upper_bound(after); it != workloads.end(); ++it) {
            if (!wanted(it->second))
                continue;
            if (views.size() >= limit) {
                more = true;
                break;
            }
            views.push_back(workloadView(m_plane, it->second));
        }
        answer = json { { "cursor", cursor(m_plane.workloadSequence()) }, { "more", more } };
        if (more)
            answer["nextAfter"] = views.back().id;
    }
    // With `usage=1`: what every workload measured now used ([id, cpuMillis, memoryMiB]), changed or not: its use
    // moves with every heartbeat, which a reader of changes alone would not see.
    std::vector<std::array<std::int64_t, 3>> usage;
    const bool withUsage = queryValue(query, "usage") == std::optional<std::string>("1");
    if (withUsage)
        for (const auto& [id, w] : m_plane.workloads())
            if (w.measured.atMs > 0 && (w.phase == WorkloadPhase::Running || w.phase == WorkloadPhase::Stopping)
                && wanted(w) && !m_plane.nodes()[static_cast<std::size_t>(w.node)].sessionId.empty())
                usage.push_back({ id, w.measured.cpuMillis, w.measured.memoryMiB });
    const std::size_t rows = views.size() + usage.size() / 8;
    // Listing 10,000 workloads as JSON took the core's thread 120-186 ms (BENCHMARKS.md §3c): written off it. A small
    // page (a console following changes, a script's look at a few) is written here, not queued behind large ones.
    OffThreadWriter write
        = [views = std::move(views), answer = std::move(answer), usage = std::move(usage), withUsage]() mutable {
              json list = json::array();
              for (const WorkloadView& w : views)
                  list.push_back(workloadJson(w));
              answer["workloads"] = std::move(list);
              if (withUsage)
                  answer["usage"] = usage;
              return reply(http::status::ok, answer);
          };
    if (rows <= kInlineRows)
        return respond(write());
    answerOffThread(std::move(write), std::move(respond));
}

store::AuditEntry HttpApi::received(const OperatorToken& caller, const std::string& peer, const std::string& action,
    const std::string& path)
{
    store::AuditEntry entry;
    entry.atMs = m_plane.nowMs();
    entry.actor = caller.actor();
    entry.role = std::string(toString(caller.role));
    entry.source = peer;
    entry.action = action;
    entry.target = path;
    entry.stage = "received";
    entry.request = m_requestPrefix + std::to_string(++m_requestCount);
    m_plane.audit(entry);
    return entry;
}

void HttpApi::answerChange(net::HttpResponse response, store::AuditEntry entry, const std::string& target,
    net::HttpRespond respond)
{
    // The change (and its received entry) is durable first; then its completed entry says how it ended. A refusal
    // changed nothing, so it is answered as it is even when its entries could not be saved.
    ControlPlane* plane = &m_plane; // outlives every handler: the daemon stops the io_context before destroying it
    entry.target = target.substr(0, 256);
    json detail = std::exchange(m_auditDetail, json::object());
    plane->whenSaved([plane, respond = std::move(respond), response = std::move(response), entry = std::move(entry),
                         detail = std::move(detail)](const std::optional<std::string>& notSaved) mutable {
        int status = static_cast<int>(response.result_int());
        if (notSaved && status < 400) {
            response = errorReply(503,
                "the change was made but could not be saved (" + *notSaved
                    + "); tidepoold is read-only and keeps retrying; it is lost if tidepoold stops before then");
            status = 503;
        }
        entry.atMs = plane->nowMs();
        entry.stage = "completed";
        entry.outcome = status < 400 ? "ok" : json::parse(response.body(), nullptr, false).value("error", "refused");
        entry.detail = std::move(detail);
        entry.detail["status"] = status;
        // Written with the next commit (within 50 ms, or with the next change, whichever comes first), not waited
        // for: a second commit before every answer doubled a sequential client's latency (4 to 8 ms p50 here) and
        // the core thread's fsyncs. Reads of the audit log commit what is pending first, so a client that was
        // answered finds the completed entry there; only a crash in that window can leave a received entry alone.
        plane->audit(std::move(entry));
        respond(std::move(response));
    });
}

net::HttpResponse HttpApi::route(const net::HttpRequest& request, const std::vector<std::string>& parts)
{
    const std::string_view target(request.target().data(), request.target().size());
    const http::verb verb = request.method();
    auto fail = [this](int status, const std::string& message) {
        ++m_stats.clientErrors;
        return errorReply(status, message);
    };
    auto failWith = [&fail](const ApiError& e) { return fail(e.status, e.message); };
    const std::string resource = parts.size() > 1 ? parts[1] : std::string();

    if (resource == "summary" && parts.size() == 2 && verb == http::verb::get) {
        json nodes = json::object();
        const auto nodeCounts = m_plane.nodeCounts();
        for (int i = 1; i < kNodeStateCount; ++i)
            nodes[std::string(toString(static_cast<NodeState>(i)))] = nodeCounts[static_cast<std::size_t>(i)];
        json phases = json::object();
        const auto phaseCounts = m_plane.phaseCounts();
        for (int i = 1; i < kWorkloadPhaseCount; ++i)
            phases[std::string(toString(static_cast<WorkloadPhase>(i)))] = phaseCounts[static_cast<std::size_t>(i)];
        // Launching, running or stopping workloads by the tier they belong on (the console's overview).
        std::map<std::string, std::int64_t> activeByTier { { "hot", 0 }, { "warm", 0 }, { "cold", 0 } };
        for (const auto& [id, w] : m_plane.workloads())
            if (isActive(w.phase))
                ++activeByTier[std::string(toString(w.workload.tier()))];
        const ControlPlaneStats& s = m_plane.stats();
        return reply(http::status::ok,
            json { { "nodes", std::move(nodes) }, { "workloads", std::move(phases) }, { "submitted", s.submitted },
                { "acknowledged", s.acknowledged }, { "firstSubmitMs", s.firstSubmitMs },
                { "lastAckMs", s.lastAckMs }, { "nowMs", m_plane.nowMs() },
                { "readOnlyReason", m_plane.readOnlyReason() }, { "activeWorkloadsByTier", std::move(activeByTier) } });
    }

    if (resource == "workloads") {
        if (parts.size() == 2 && verb == http::verb::post) {
            auto body = parseBody(request);
            if (!body)
                return failWith(body.error());
            std::vector<SubmitRequest> batch;
            const auto items = body->find("workloads");
            if (items != body->end()) {
                if (!items->is_array() || items->empty() || items->size() > kMaxBatch || body->size() != 1)
                    return fail(400,
                        "field `workloads` must be the only field, an array of 1 to " + std::to_string(kMaxBatch)
                            + " workload objects");
                for (std::size_t i = 0; i < items->size(); ++i) {
                    const std::string path = "workloads[" + std::to_string(i) + "]";
                    if (!(*items)[i].is_object())
                        return fail(400, "field `" + path + "` must be an object");
                    auto parsed = parseNewSubmission((*items)[i], path);
                    if (!parsed)
                        return failWith(parsed.error());
                    batch.push_back(std::move(*parsed));
                }
            } else {
                auto parsed = parseNewSubmission(*body);
                if (!parsed)
                    return failWith(parsed.error());
                batch.push_back(std::move(*parsed));
            }
            // Refer only to pools that exist before anything is submitted, so that a batch is all or nothing.
            for (std::size_t i = 0; i < batch.size(); ++i)
                if (!batch[i].pool.empty() && !m_plane.poolByName(batch[i].pool))
                    return fail(400,
                        "field `" + (items != body->end() ? "workloads[" + std::to_string(i) + "]." : std::string())
                            + "pool`: no pool is named \"" + batch[i].pool + "\"");
            json results = json::array();
            for (SubmitRequest& s : batch) {
                auto id = m_plane.submit(std::move(s));
                if (!id)
                    return failWith(id.error());
                results.push_back(workloadJson(m_plane, *m_plane.workload(*id)));
                m_auditTarget = (results.size() == 1 ? "workload " : m_auditTarget.substr(0, m_auditTarget.find(".."))
                    + "..") + std::to_string(*id);
            }
            if (items != body->end())
                return reply(http::status::created, json { { "workloads", std::move(results) } });
            return reply(http::status::created, results.front());
        }
        if (parts.size() >= 3) {
            const auto id = parseId(parts[2]);
            if (!id)
                return fail(400, "workload id \"" + clipText(parts[2], 64) + "\" is not a positive integer");
            const LiveWorkload* w = m_plane.workload(*id);
            if (parts.size() == 3 && verb == http::verb::delete_) {
                if (auto cancelled = m_plane.cancel(*id); !cancelled)
                    return failWith(cancelled.error());
                return reply(http::status::ok, workloadJson(m_plane, *m_plane.workload(*id)));
            }
            if (!w)
                return fail(404, "no workload has id " + std::to_string(*id));
            if (parts.size() == 3 && verb == http::verb::get)
                return reply(http::status::ok, workloadJson(m_plane, *w));
            if (parts.size() == 4 && parts[3] == "why" && verb == http::verb::get) {
                json j { { "id", w->workload.id }, { "phase", std::string(toString(w->phase)) },
                    { "reason", m_plane.why(*w) }, { "report", reportJson(w->lastReport) } };
                if (w->node != kNoNode)
                    j["node"] = m_plane.cluster().node(w->node).name;
                return reply(http::status::ok, j);
            }
        }
    }

    if (resource == "nodes" && verb == http::verb::get) {
        if (parts.size() == 3) {
            const LiveNode* n = m_plane.nodeByName(parts[2]);
            if (!n)
                return fail(404, "no node is named \"" + parts[2].substr(0, 253) + "\"");
            {
                const NodeView view = nodeView(m_plane, *n);
                return reply(http::status::ok, nodeJson(view, nodeFingerprint(nodeRestJson(view.rest))));
            }
        }
    }

    if (resource == "pools") {
        if (parts.size() == 2 && verb == http::verb::get) {
            json list = json::array();
            const std::vector<MeasuredPoolUse> measured = m_plane.measuredPoolUse();
            for (const Pool& p : m_plane.cluster().pools())
                if (!p.removed)
                    list.push_back(poolJson(m_plane, p.id, measured[static_cast<std::size_t>(p.id)]));
            return reply(http::status::ok, json { { "pools", std::move(list) } });
        }
        if (parts.size() == 3 && verb == http::verb::get) {
            const auto existing = m_plane.poolByName(parts[2]);
            if (!existing)
                return fail(404, "no pool is named \"" + clipText(parts[2], 64) + "\"");
            return reply(http::status::ok, poolJson(m_plane, *existing));
        }
        if (parts.size() == 2 && verb == http::verb::post) {
            auto body = parseBody(request);
            if (!body)
                return failWith(body.error());
            auto pool = parsePoolRequest(*body, std::nullopt);
            if (!pool)
                return failWith(pool.error());
            auto created = m_plane.createPool(*pool);
            if (!created)
                return failWith(created.error());
            // The audit entry says which pool and with what settings.
            m_auditTarget = "pool " + pool->name;
            m_auditDetail["settings"] = poolSettings(m_plane, *created);
            return reply(http::status::created, poolJson(m_plane, *created));
        }
        if (parts.size() == 3 && verb == http::verb::put) {
            auto body = parseBody(request);
            if (!body)
                return failWith(body.error());
            const auto existing = m_plane.poolByName(parts[2]);
            if (!existing)
                return fail(404, "no pool is named \"" + clipText(parts[2], 64) + "\"");
            auto pool = parsePoolRequest(*body, m_plane.poolRequestOf(*existing));
            if (!pool)
                return failWith(pool.error());
            const json before = poolSettings(m_plane, *existing);
            if (auto updated = m_plane.updatePool(parts[2], *pool); !updated)
                return failWith(updated.error());
            // The audit entry says what changed, from what to what (a quota lowered, a tier lifted).
            m_auditTarget = "pool " + parts[2];
            m_auditDetail["changed"] = settingsChanged(before, poolSettings(m_plane, *existing));
            return reply(http::status::ok, poolJson(m_plane, *existing));
        }
        if (parts.size() == 3 && verb == http::verb::delete_) {
            const auto existing = m_plane.poolByName(parts[2]);
            if (!existing)
                return fail(404, "no pool is named \"" + clipText(parts[2], 64) + "\"");
            // The audit entry keeps the settings it had, so that a deleted pool can be made again as it was.
            const json settings = poolSettings(m_plane, *existing);
            if (auto deleted = m_plane.deletePool(parts[2]); !deleted)
                return failWith(deleted.error());
            m_auditTarget = "pool " + parts[2];
            m_auditDetail["settings"] = settings;
            return reply(http::status::ok, json { { "deleted", parts[2] }, { "settings", settings } });
        }
    }
    return fail(404, "no resource for " + std::string(request.method_string()) + " "
            + std::string(target.substr(0, 256)));
}

std::string HttpApi::renderMetrics() const
{
    std::string out;
    out.reserve(8192);
    appendMetric(out, "tidepool_nodes", "gauge", "Nodes known to the core, by liveness state.");
    const auto nodeCounts = m_plane.nodeCounts();
    for (int i = 1; i < kNodeStateCount; ++i)
        appendSample(out, "tidepool_nodes",
            "{state=\"" + std::string(toString(static_cast<NodeState>(i))) + "\"}",
            static_cast<double>(nodeCounts[static_cast<std::size_t>(i)]));
    // Out of service: cordoned (an operator's or a power-down's), and of those, draining at a pace.
    double cordoned = 0, draining = 0;
    for (const LiveNode& live : m_plane.nodes()) {
        cordoned += live.cordon.empty() ? 0 : 1;
        draining += live.drain ? 1 : 0;
    }
    appendMetric(out, "tidepool_nodes_cordoned", "gauge", "Nodes that take no new work (cordoned).");
    appendSample(out, "tidepool_nodes_cordoned", "", cordoned);
    appendMetric(out, "tidepool_nodes_draining", "gauge", "Nodes a paced drain is emptying.");
    appendSample(out, "tidepool_nodes_draining", "", draining);
    appendMetric(out, "tidepool_workloads", "gauge", "Workloads known to the core, by phase.");
    const auto phases = m_plane.phaseCounts();
    for (int i = 1; i < kWorkloadPhaseCount; ++i)
        appendSample(out, "tidepool_workloads",
            "{phase=\"" + std::string(toString(static_cast<WorkloadPhase>(i))) + "\"}",
            static_cast<double>(phases[static_cast<std::size_t>(i)]));

    const ControlPlaneStats& s = m_plane.stats();
    struct Counter {
        std::string_view name;
        std::string_view help;
        std::uint64_t value;
    };
    const Counter counters[] = {
        { "tidepool_workloads_submitted_total", "Workloads accepted through the API.", s.submitted },
        { "tidepool_placements_total", "Placement attempts that found a node.", s.placements },
        { "tidepool_placement_failures_total", "Placement attempts that left a workload pending.",
            s.placementFailures },
        { "tidepool_preemptions_total", "Workloads evicted for higher-priority ones.", s.preemptions },
        { "tidepool_workload_restarts_total", "Launches ended that a workload's restart policy started again.",
            s.restarts },
        { "tidepool_workloads_over_runtime_total", "Launches stopped for running past their maximum runtime.",
            s.overran },
        { "tidepool_drain_moves_total", "Workloads drains moved off their nodes.", s.drainMoves },
        { "tidepool_drain_evictions_total",
            "Workloads paced drains stopped and queued again at their deadline: no other node took them.",
            s.drainEvictions },
        { "tidepool_workload_resizes_total", "Workloads given a new size, waiting or in place where they run.",
            s.resizes },
        { "tidepool_workload_resizes_confirmed_total", "Resizes of running workloads their agents applied in place.",
            s.resizesConfirmed },
        { "tidepool_workload_resizes_refused_total",
            "Resizes of running workloads their agents refused (the workload keeps what it had).", s.resizesRefused },
        { "tidepool_log_reads_abandoned_total",
            "Reads of workload output whose reader went away before its agent answered (a follower's waiting read "
            "among them): its place was given back at once.",
            s.logReadsAbandoned },
        { "tidepool_launches_sent_total", "Launch commands sent to agents.", s.launchesSent },
        { "tidepool_launches_acknowledged_total", "Launches an agent reported running.", s.acknowledged },
        { "tidepool_nodes_lost_total", "Times a node was declared lost.", s.nodesLost },
        { "tidepool_workloads_replaced_after_node_loss_total", "Workloads put back to pending by a lost node.",
            s.replacedAfterLoss },
        { "tidepool_duplicate_stops_total", "Stops sent to copies running where the core no longer places them.",
            s.duplicateStops },
        { "tidepool_node_sessions_replaced_total", "Joins of a node whose previous session was still open.",
            s.sessionsReplaced },
        { "tidepool_stops_sent_total", "Stop commands sent to agents.", s.stopsSent },
        { "tidepool_stops_unanswered_total", "Stops an agent did not answer in time; they left the stop window.",
            s.stopsUnanswered },
        { "tidepool_foreign_workload_ids_ignored_total",
            "Workload ids agents reported far beyond those the core gave out: not taken into its numbering.",
            s.foreignIdsIgnored },
        { "tidepool_foreign_workloads_left_alone_total",
            "Workloads agents run under the id of a pending workload the core never launched: not adopted.",
            s.foreignWorkloadsLeftAlone },
        { "tidepool_store_commits_total", "Transactions written to the database.", s.storeCommits },
        { "tidepool_store_errors_total", "Database writes that failed and are retried.", s.storeErrors },
        { "tidepool_api_requests_total", "HTTP API requests.", m_stats.requests },
        { "tidepool_api_unauthorised_total", "API requests refused for a missing or wrong token.",
            m_stats.unauthorised },
        { "tidepool_api_forbidden_total", "API requests refused because the token's role may not make them.",
            m_stats.forbidden },
        { "tidepool_api_client_errors_total", "API requests refused with another 4xx.", m_stats.clientErrors },
        { "tidepool_api_refused_read_only_total", "Changes refused while the database could not be written.",
            m_stats.refusedReadOnly },
        { "tidepool_api_refused_busy_total", "Large reads refused (503) while the most allowed waited to be written.",
            m_stats.refusedBusy },
    };
    for (const Counter& c : counters) {
        appendMetric(out, c.name, "counter", c.help);
        appendSample(out, c.name, "", static_cast<double>(c.value));
    }

    appendMetric(out, "tidepool_store_commit_seconds_total", "counter", "Time spent writing to the database.");
    appendSample(out, "tidepool_store_commit_seconds_total", "", static_cast<double>(s.storeCommitMicrosTotal) / 1e6);
    // The alert: 1 while the database cannot be written and the daemon refuses changes.
    appendMetric(out, "tidepool_store_read_only", "gauge", "1 while the database cannot be written and changes are refused.");
    appendSample(out, "tidepool_store_read_only", "", m_plane.readOnlyReason().empty() ? 0.0 : 1.0);

    appendMetric(out, "tidepool_placement_duration_seconds", "histogram", "Time of one placement attempt.");
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < kPlacementBucketsMicros.size(); ++i) {
        cumulative += s.placementMicrosBuckets[i];
        char le[32];
        std::snprintf(le, sizeof le, "%g", kPlacementBucketsMicros[i] / 1e6);
        appendSample(out, "tidepool_placement_duration_seconds_bucket", std::string("{le=\"") + le + "\"}",
            static_cast<double>(cumulative));
    }
    cumulative += s.placementMicrosBuckets.back();
    appendSample(out, "tidepool_placement_duration_seconds_bucket", "{le=\"+Inf\"}", static_cast<double>(cumulative));
    appendSample(out, "tidepool_placement_duration_seconds_sum", "", static_cast<double>(s.placementMicrosTotal) / 1e6);
    appendSample(out, "tidepool_placement_duration_seconds_count", "", static_cast<double>(cumulative));

    // Cluster capacity and allocation.
    // CPU and memory only: the bandwidths of nodes that do not report them are unlimited, and do not add up.
    struct {
        std::int64_t cpuMillis = 0, memoryMiB = 0;
    } capacity, free;
    std::int64_t shareCapacity = 0, shareFree = 0;
    for (const LiveNode& live : m_plane.nodes()) {
        if (live.state != NodeState::Ready && live.state != NodeState::Suspect)
            continue;
        const Node& n = m_plane.cluster().node(live.id);
        capacity.cpuMillis += n.capacity.cpuMillis;
        capacity.memoryMiB += n.capacity.memoryMiB;
        free.cpuMillis += n.free.cpuMillis;
        free.memoryMiB += n.free.memoryMiB;
        shareCapacity += n.deviceShareCapacityTotal();
        shareFree += n.deviceShareFreeTotal();
    }
    appendMetric(out, "tidepool_cluster_cpu_millis", "gauge", "CPU of ready and suspect nodes, in millicores.");
    appendSample(out, "tidepool_cluster_cpu_millis", "{kind=\"capacity\"}", static_cast<double>(capacity.cpuMillis));
    appendSample(out, "tidepool_cluster_cpu_millis", "{kind=\"allocated\"}",
        static_cast<double>(capacity.cpuMillis - free.cpuMillis));
    appendMetric(out, "tidepool_cluster_memory_mib", "gauge", "Memory of ready and suspect nodes, in MiB.");
    appendSample(out, "tidepool_cluster_memory_mib", "{kind=\"capacity\"}", static_cast<double>(capacity.memoryMiB));
    appendSample(out, "tidepool_cluster_memory_mib", "{kind=\"allocated\"}",
        static_cast<double>(capacity.memoryMiB - free.memoryMiB));
    appendMetric(out, "tidepool_cluster_accelerator_share", "gauge",
        "Accelerator share units (milli-GPUs, NPU cores, FPGA slots) of ready and suspect nodes.");
    appendSample(out, "tidepool_cluster_accelerator_share", "{kind=\"capacity\"}", static_cast<double>(shareCapacity));
    appendSample(out, "tidepool_cluster_accelerator_share", "{kind=\"allocated\"}",
        static_cast<double>(shareCapacity - shareFree));

    appendPoolTierAcceleratorMetrics(out, m_plane);
    if (m_rebalancer)
        appendRebalancerMetrics(out, *m_rebalancer);
    if (m_extraMetrics)
        m_extraMetrics(out);

    // The process's own CPU time and resident memory, as Prometheus client libraries export them.
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    const double cpuSeconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    appendMetric(out, "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.");
    appendSample(out, "process_cpu_seconds_total", "", cpuSeconds);
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    if (statm >> pages >> resident) {
        appendMetric(out, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
        appendSample(out, "process_resident_memory_bytes", "", static_cast<double>(resident) * sysconf(_SC_PAGESIZE));
    }
    return out;
}

} // namespace tidepool::api
