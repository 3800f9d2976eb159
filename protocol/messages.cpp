#include "protocol/messages.h"

#include "protocol/json_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>

namespace tidepool::protocol {

using detail::Alphabet;
using detail::JsonReader;
using nlohmann::json;

namespace {

// The deepest messages (heartbeat → samples → sample → devices → device; workload_state → status) nest at most five
// levels.
constexpr int kMaxJsonDepth = 8;

std::string toHex(const std::uint8_t* bytes, std::size_t size)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(2 * size);
    for (std::size_t i = 0; i < size; ++i) {
        hex.push_back(kDigits[bytes[i] >> 4]);
        hex.push_back(kDigits[bytes[i] & 0xf]);
    }
    return hex;
}

json toJson(const Hello& m)
{
    json j { { "nodeName", m.nodeName }, { "agentVersion", m.agentVersion } };
    if (m.inventory)
        j["inventory"] = json { { "isa", m.inventory->isa }, { "cpuMillis", m.inventory->cpuMillis },
            { "memoryMiB", m.inventory->memoryMiB }, { "accelerators", m.inventory->accelerators } };
    if (!m.tokenId.empty())
        j["tokenId"] = m.tokenId;
    if (!m.features.empty())
        j["features"] = m.features;
    return j;
}
json toJson(const Challenge& m)
{
    return json { { "nonce", toHex(m.nonce.data(), m.nonce.size()) } };
}
json toJson(const Auth& m)
{
    return json { { "mac", toHex(m.mac.data(), m.mac.size()) } };
}
json toJson(const Welcome& m)
{
    json j { { "sessionId", m.sessionId }, { "heartbeatIntervalMs", m.heartbeatIntervalMs } };
    if (!m.features.empty())
        j["features"] = m.features;
    return j;
}
json toJson(const Reject& m)
{
    json j { { "reason", m.reason } };
    // A refused join says nothing more, as every reject did before causes.
    if (m.cause != RejectCause::JoinRefused)
        j["cause"] = toString(m.cause);
    return j;
}
json toJson(const Heartbeat& m)
{
    json samples = json::array();
    for (const UtilisationSample& s : m.samples) {
        json devices = json::array();
        for (const DeviceSample& d : s.devices)
            devices.push_back(
                json { { "index", d.index }, { "utilisation", d.utilisation }, { "memoryUsedMiB", d.memoryUsedMiB } });
        json sample { { "timestampMs", s.timestampMs }, { "cpuUtilisation", s.cpuUtilisation },
            { "memoryUsedMiB", s.memoryUsedMiB }, { "devices", std::move(devices) } };
        if (!s.pools.empty()) {
            json pools = json::array();
            for (const PoolUsage& p : s.pools) {
                json pool { { "name", p.name }, { "cpuMillis", p.cpuMillis }, { "memoryMiB", p.memoryMiB } };
                if (p.netMbps >= 0.0)
                    pool["netMbps"] = p.netMbps;
                pools.push_back(std::move(pool));
            }
            sample["pools"] = std::move(pools);
        }
        if (!s.workloads.empty()) {
            json workloads = json::array();
            for (const WorkloadUsage& w : s.workloads)
                workloads.push_back(json { { "workloadId", w.workloadId }, { "incarnation", w.incarnation },
                    { "cpuMillis", w.cpuMillis }, { "memoryMiB", w.memoryMiB } });
            sample["workloads"] = std::move(workloads);
        }
        samples.push_back(std::move(sample));
    }
    return json { { "sequence", m.sequence }, { "samples", std::move(samples) } };
}

json toJson(const WorkloadStatus& w)
{
    json j { { "workloadId", w.workloadId }, { "state", w.state }, { "pid", w.pid }, { "exitCode", w.exitCode } };
    if (!w.detail.empty())
        j["detail"] = w.detail;
    if (w.incarnation != 0)
        j["incarnation"] = w.incarnation;
    return j;
}
json toJson(const Inventory& m)
{
    json devices = json::array();
    for (const DeviceInfo& d : m.devices)
        devices.push_back(json { { "index", d.index }, { "kind", d.kind }, { "model", d.model },
            { "memoryMiB", d.memoryMiB }, { "shareCapacity", d.shareCapacity } });
    json translation = json::array();
    for (const TranslationFactor& t : m.translation)
        translation.push_back(json { { "fromIsa", t.fromIsa }, { "factor", t.factor } });
    json workloads = json::array();
    for (const WorkloadStatus& w : m.workloads)
        workloads.push_back(toJson(w));
    json j { { "isa", m.isa }, { "cpuFeatures", m.cpuFeatures }, { "cpuMillis", m.cpuMillis },
        { "memoryMiB", m.memoryMiB }, { "numaNodes", m.numaNodes }, { "devices", std::move(devices) },
        { "translation", std::move(translation) }, { "workloads", std::move(workloads) } };
    if (!m.cpuModel.empty())
        j["cpuModel"] = m.cpuModel;
    if (m.netMbps != 0)
        j["netMbps"] = m.netMbps;
    return j;
}
json toJson(const WorkloadUpdate& m)
{
    return json { { "status", toJson(m.status) } };
}
json toJson(const PoolLimits& p)
{
    json pool { { "name", p.name }, { "cpuMillis", p.cpuMillis }, { "memoryMiB", p.memoryMiB },
        { "ioWeight", p.ioWeight } };
    if (p.netMbps != 0)
        pool["netMbps"] = p.netMbps;
    return pool;
}
json toJson(const PoolConfig& m)
{
    json pools = json::array();
    for (const PoolLimits& p : m.pools)
        pools.push_back(toJson(p));
    return json { { "pools", std::move(pools) } };
}
json toJson(const Launch& m)
{
    json j { { "workloadId", m.workloadId }, { "name", m.name }, { "pool", m.pool }, { "argv", m.argv },
        { "env", m.env }, { "cpuMillis", m.cpuMillis }, { "memoryMiB", m.memoryMiB }, { "devices", m.devices } };
    // Only a relaunch carries it: a first launch reads the same to agents from before incarnations.
    if (m.incarnation != 0)
        j["incarnation"] = m.incarnation;
    if (m.memoryLimitMiB != 0)
        j["memoryLimitMiB"] = m.memoryLimitMiB;
    if (m.cpuLimitMillis != 0)
        j["cpuLimitMillis"] = m.cpuLimitMillis;
    if (m.poolLimits)
        j["poolLimits"] = toJson(*m.poolLimits);
    return j;
}
json toJson(const LogRequest& m)
{
    json j { { "requestId", m.requestId }, { "workloadId", m.workloadId },
        { "stream", m.stderrStream ? "stderr" : "stdout" }, { "maxBytes", m.maxBytes } };
    if (m.incarnation != 0)
        j["incarnation"] = m.incarnation;
    if (m.from >= 0)
        j["from"] = m.from;
    if (m.waitMs > 0)
        j["waitMs"] = m.waitMs;
    return j;
}
json toJson(const LogReply& m)
{
    json j { { "requestId", m.requestId }, { "sizeBytes", m.sizeBytes }, { "truncated", m.truncated } };
    if (!m.data.empty())
        j["data"] = m.data;
    if (!m.error.empty())
        j["error"] = m.error;
    if (m.start >= 0)
        j["start"] = m.start;
    if (m.end >= 0)
        j["end"] = m.end;
    return j;
}
json toJson(const Resize& m)
{
    json j { { "workloadId", m.workloadId }, { "cpuMillis", m.cpuMillis }, { "memoryMiB", m.memoryMiB },
        { "memoryLimitMiB", m.memoryLimitMiB }, { "cpuLimitMillis", m.cpuLimitMillis } };
    if (m.incarnation != 0)
        j["incarnation"] = m.incarnation;
    return j;
}
json toJson(const Resized& m)
{
    json j { { "workloadId", m.workloadId } };
    if (m.incarnation != 0)
        j["incarnation"] = m.incarnation;
    if (!m.error.empty())
        j["error"] = m.error;
    return j;
}
json toJson(const Stop& m)
{
    json j { { "workloadId", m.workloadId }, { "graceMs", m.graceMs } };
    if (m.incarnation)
        j["incarnation"] = *m.incarnation;
    return j;
}

// An optional incarnation: absent reads as 0 (a peer from before incarnations); present, 0 to `kMaxIncarnation`.
std::int32_t optionalIncarnation(JsonReader& r)
{
    if (!r.has("incarnation"))
        return 0;
    return static_cast<std::int32_t>(r.integer("incarnation", 0, kMaxIncarnation));
}

// Optional text: absent reads as empty; present, it must be 1 to `maxBytes` bytes like any other string.
std::string optionalText(JsonReader& r, std::string_view key, detail::Alphabet alphabet, std::size_t maxBytes)
{
    if (!r.has(key))
        return {};
    return r.string(key, alphabet, maxBytes);
}

WorkloadStatus readWorkloadStatus(JsonReader& r)
{
    WorkloadStatus w;
    w.workloadId = r.integer("workloadId", 1, kMaxWorkloadId);
    w.state = r.string("state", Alphabet::Name, kMaxTokenBytes);
    if (r.ok() && !isWorkloadState(w.state))
        r.fail(ErrorCode::OutOfRange, r.pathOf("state"),
            "field `" + r.pathOf("state")
                + "` names no workload state; use running, exited, killed, oom_killed, failed, stopped or lost");
    w.pid = static_cast<std::int32_t>(r.integer("pid", 0, std::numeric_limits<std::int32_t>::max()));
    w.exitCode = static_cast<std::int32_t>(r.integer("exitCode", -255, 255));
    w.detail = optionalText(r, "detail", Alphabet::Text, kMaxTextBytes);
    w.incarnation = optionalIncarnation(r);
    return w;
}

Inventory readInventory(JsonReader& r)
{
    Inventory m;
    m.isa = r.string("isa", Alphabet::Name, kMaxTokenBytes);
    m.cpuModel = optionalText(r, "cpuModel", Alphabet::Text, kMaxTextBytes);
    m.cpuFeatures = r.strings("cpuFeatures", Alphabet::Name, kMaxCpuFeatures, kMaxTokenBytes);
    m.cpuMillis = r.integer("cpuMillis", 1, kMaxCpuMillis);
    m.memoryMiB = r.integer("memoryMiB", 1, kMaxMemoryMiB);
    m.numaNodes = static_cast<std::int32_t>(r.integer("numaNodes", 1, 1024));
    r.objects("devices", static_cast<std::size_t>(kMaxAccelerators), [&](JsonReader& d) {
        DeviceInfo device;
        device.index = static_cast<std::int32_t>(d.integer("index", 0, kMaxAccelerators - 1));
        device.kind = d.string("kind", Alphabet::Name, kMaxTokenBytes);
        if (d.ok() && device.kind != "gpu" && device.kind != "npu" && device.kind != "fpga")
            d.fail(ErrorCode::OutOfRange, d.pathOf("kind"), "field `" + d.pathOf("kind") + "` must be gpu, npu or fpga");
        device.model = d.string("model", Alphabet::Name, kMaxTokenBytes);
        device.memoryMiB = d.integer("memoryMiB", 0, kMaxMemoryMiB);
        device.shareCapacity = static_cast<std::int32_t>(d.integer("shareCapacity", 1, 1'000'000));
        m.devices.push_back(std::move(device));
    });
    r.objects("translation", 16, [&](JsonReader& t) {
        TranslationFactor factor;
        factor.fromIsa = t.string("fromIsa", Alphabet::Name, kMaxTokenBytes);
        factor.factor = t.number("factor", 1.0, 1000.0);
        m.translation.push_back(std::move(factor));
    });
    r.objects("workloads", kMaxWorkloadsPerNode,
        [&](JsonReader& w) { m.workloads.push_back(readWorkloadStatus(w)); });
    if (r.has("netMbps"))
        m.netMbps = r.integer("netMbps", 1, kMaxNetMbps);
    return m;
}

WorkloadUpdate readWorkloadUpdate(JsonReader& r)
{
    WorkloadUpdate m;
    if (const json* status = r.optionalObject("status")) {
        JsonReader sr = r.child(*status, r.pathOf("status"));
        m.status = readWorkloadStatus(sr);
        sr.rejectUnknownFields();
    } else if (r.ok()) {
        r.fail(ErrorCode::MissingField, "status", "field `status` is missing");
    }
    return m;
}

PoolLimits readPoolLimits(JsonReader& p)
{
    PoolLimits limits;
    limits.name = p.string("name", Alphabet::Name, kMaxTokenBytes);
    limits.cpuMillis = p.integer("cpuMillis", 1, kMaxCpuMillis);
    limits.memoryMiB = p.integer("memoryMiB", 1, kMaxMemoryMiB);
    limits.ioWeight = static_cast<std::int32_t>(p.integer("ioWeight", 1, 10'000));
    if (p.has("netMbps"))
        limits.netMbps = p.integer("netMbps", 1, kMaxNetMbps);
    return limits;
}

PoolConfig readPoolConfig(JsonReader& r)
{
    PoolConfig m;
    r.objects("pools", kMaxPoolsPerNode, [&](JsonReader& p) { m.pools.push_back(readPoolLimits(p)); });
    return m;
}

Launch readLaunch(JsonReader& r)
{
    Launch m;
    m.workloadId = r.integer("workloadId", 1, kMaxWorkloadId);
    m.name = r.string("name", Alphabet::Name, kMaxNameBytes);
    m.pool = r.string("pool", Alphabet::Name, kMaxTokenBytes);
    m.argv = r.strings("argv", Alphabet::Text, kMaxArgs, kMaxTextBytes);
    m.env = r.strings("env", Alphabet::Text, kMaxEnv, kMaxTextBytes);
    for (std::size_t i = 0; i < m.env.size() && r.ok(); ++i) {
        const auto eq = m.env[i].find('=');
        if (eq == 0 || eq == std::string::npos) {
            const std::string path = r.pathOf("env") + "[" + std::to_string(i) + "]";
            r.fail(ErrorCode::BadName, path, "field `" + path + "` must read NAME=value");
        }
    }
    m.cpuMillis = r.integer("cpuMillis", 0, kMaxCpuMillis);
    m.memoryMiB = r.integer("memoryMiB", 0, kMaxMemoryMiB);
    m.memoryLimitMiB = r.optionalAtLeast("memoryLimitMiB", 1, kMaxMemoryMiB, "memoryMiB", m.memoryMiB);
    m.cpuLimitMillis = r.optionalAtLeast("cpuLimitMillis", 10, kMaxCpuMillis, "cpuMillis", m.cpuMillis);
    if (const json* devices = r.array("devices", static_cast<std::size_t>(kMaxAccelerators))) {
        for (std::size_t i = 0; i < devices->size() && r.ok(); ++i) {
            const json& d = (*devices)[i];
            if (!d.is_number_integer() || d.get<std::int64_t>() < 0 || d.get<std::int64_t>() >= kMaxAccelerators) {
                const std::string path = r.pathOf("devices") + "[" + std::to_string(i) + "]";
                r.fail(ErrorCode::OutOfRange, path,
                    "field `" + path + "` must be a device index 0 to " + std::to_string(kMaxAccelerators - 1));
                break;
            }
            m.devices.push_back(static_cast<std::int32_t>(d.get<std::int64_t>()));
        }
    }
    m.incarnation = optionalIncarnation(r);
    if (const json* limits = r.optionalObject("poolLimits")) {
        JsonReader lr = r.child(*limits, r.pathOf("poolLimits"));
        m.poolLimits = readPoolLimits(lr);
        lr.rejectUnknownFields();
        if (lr.ok() && m.poolLimits->name != m.pool)
            r.fail(ErrorCode::OutOfRange, r.pathOf("poolLimits") + ".name",
                "field `" + r.pathOf("poolLimits") + ".name` must be the launch's pool, " + m.pool);
    }
    return m;
}

LogRequest readLogRequest(JsonReader& r)
{
    LogRequest m;
    m.requestId = r.integer("requestId", 1, kMaxWorkloadId);
    m.workloadId = r.integer("workloadId", 1, kMaxWorkloadId);
    m.incarnation = optionalIncarnation(r);
    const std::string stream = r.string("stream", Alphabet::Name, kMaxTokenBytes);
    if (r.ok() && stream != "stdout" && stream != "stderr")
        r.fail(
            ErrorCode::OutOfRange, r.pathOf("stream"), "field `" + r.pathOf("stream") + "` must be stdout or stderr");
    m.stderrStream = stream == "stderr";
    m.maxBytes = r.integer("maxBytes", 1, kMaxLogBytes);
    if (r.has("from"))
        m.from = r.integer("from", 0, kMaxLogPosition);
    if (r.has("waitMs")) {
        m.waitMs = static_cast<std::int32_t>(r.integer("waitMs", 1, kMaxLogWaitMs));
        if (r.ok() && m.from < 0)
            r.fail(ErrorCode::OutOfRange, r.pathOf("waitMs"),
                "field `" + r.pathOf("waitMs") + "` goes with `from`: only a following read waits for output");
    }
    return m;
}

LogReply readLogReply(JsonReader& r)
{
    LogReply m;
    m.requestId = r.integer("requestId", 1, kMaxWorkloadId);
    // U+FFFD takes three bytes where it replaces one.
    if (r.has("data"))
        m.data = r.string("data", Alphabet::Lines, 3 * static_cast<std::size_t>(kMaxLogBytes));
    m.sizeBytes = r.integer("sizeBytes", 0, std::numeric_limits<std::int64_t>::max());
    m.truncated = r.boolean("truncated");
    if (r.has("error"))
        m.error = r.string("error", Alphabet::Text, kMaxTextBytes);
    if (r.ok() && !m.data.empty() && !m.error.empty())
        r.fail(ErrorCode::OutOfRange, r.pathOf("error"),
            "an answer carries `" + r.pathOf("data") + "` or `" + r.pathOf("error") + "`, not both");
    const bool positioned = r.has("start");
    if (positioned)
        m.start = r.integer("start", 0, kMaxLogPosition);
    if (positioned || r.has("end"))
        m.end = r.integer("end", positioned ? m.start : 0, kMaxLogPosition);
    if (r.ok() && m.end >= 0 && m.start < 0)
        r.fail(ErrorCode::MissingField, r.pathOf("start"),
            "field `" + r.pathOf("start") + "` must come with `" + r.pathOf("end") + "`");
    return m;
}

Stop readStop(JsonReader& r)
{
    Stop m;
    m.workloadId = r.integer("workloadId", 1, kMaxWorkloadId);
    m.graceMs = static_cast<std::int32_t>(r.integer("graceMs", 0, 3'600'000));
    if (r.has("incarnation"))
        m.incarnation = static_cast<std::int32_t>(r.integer("incarnation", 0, kMaxIncarnation));
    return m;
}

Resize readResize(JsonReader& r)
{
    Resize m;
    m.workloadId = r.integer("workloadId", 1, kMaxWorkloadId);
    m.incarnation = optionalIncarnation(r);
    m.cpuMillis = r.integer("cpuMillis", 0, kMaxCpuMillis);
    m.memoryMiB = r.integer("memoryMiB", 0, kMaxMemoryMiB);
    // 0 removes the limit; any other value is a limit, at least the request (and, for CPU, 10 millicores).
    m.memoryLimitMiB = r.integer("memoryLimitMiB", 0, kMaxMemoryMiB);
    m.cpuLimitMillis = r.integer("cpuLimitMillis", 0, kMaxCpuMillis);
    if (r.ok() && m.memoryLimitMiB != 0 && m.memoryLimitMiB < std::max<std::int64_t>(1, m.memoryMiB))
        r.fail(ErrorCode::OutOfRange, r.pathOf("memoryLimitMiB"),
            "field `" + r.pathOf("memoryLimitMiB") + "` must be 0 or at least `" + r.pathOf("memoryMiB") + "` ("
                + std::to_string(m.memoryMiB) + "), got " + std::to_string(m.memoryLimitMiB));
    if (r.ok() && m.cpuLimitMillis != 0 && m.cpuLimitMillis < std::max<std::int64_t>(10, m.cpuMillis))
        r.fail(ErrorCode::OutOfRange, r.pathOf("cpuLimitMillis"),
            "field `" + r.pathOf("cpuLimitMillis") + "` must be 0 or at least 10 and `" + r.pathOf("cpuMillis") + "` ("
                + std::to_string(m.cpuMillis) + "), got " + std::to_string(m.cpuLimitMillis));
    return m;
}

Resized readResized(JsonReader& r)
{
    Resized m;
    m.workloadId = r.integer("workloadId", 1, kMaxWorkloadId);
    m.incarnation = optionalIncarnation(r);
    if (r.has("error"))
        m.error = r.string("error", Alphabet::Text, kMaxTextBytes);
    return m;
}

Hello readHello(JsonReader& r)
{
    Hello m;
    m.nodeName = r.string("nodeName", Alphabet::Name, kMaxNameBytes);
    m.agentVersion = r.string("agentVersion", Alphabet::Text, kMaxTextBytes);
    if (const json* inventory = r.optionalObject("inventory")) {
        JsonReader ir = r.child(*inventory, r.pathOf("inventory"));
        InventorySummary s;
        s.isa = ir.string("isa", Alphabet::Name, kMaxTokenBytes);
        s.cpuMillis = ir.integer("cpuMillis", 1, kMaxCpuMillis);
        s.memoryMiB = ir.integer("memoryMiB", 1, kMaxMemoryMiB);
        s.accelerators = static_cast<std::int32_t>(ir.integer("accelerators", 0, kMaxAccelerators));
        ir.rejectUnknownFields();
        m.inventory = std::move(s);
    }
    if (r.has("tokenId"))
        m.tokenId = r.string("tokenId", Alphabet::Name, kMaxTokenBytes);
    if (r.has("features"))
        m.features = r.strings("features", Alphabet::Name, kMaxFeatures, kMaxTokenBytes);
    return m;
}

Challenge readChallenge(JsonReader& r)
{
    Challenge m;
    r.hexBytes("nonce", m.nonce.data(), m.nonce.size());
    return m;
}

Auth readAuth(JsonReader& r)
{
    Auth m;
    r.hexBytes("mac", m.mac.data(), m.mac.size());
    return m;
}

Welcome readWelcome(JsonReader& r)
{
    Welcome m;
    m.sessionId = r.string("sessionId", Alphabet::Name, kMaxTokenBytes);
    m.heartbeatIntervalMs
        = static_cast<std::int32_t>(r.integer("heartbeatIntervalMs", kMinHeartbeatIntervalMs, kMaxHeartbeatIntervalMs));
    if (r.has("features"))
        m.features = r.strings("features", Alphabet::Name, kMaxFeatures, kMaxTokenBytes);
    return m;
}

Reject readReject(JsonReader& r)
{
    Reject m;
    m.reason = r.string("reason", Alphabet::Text, kMaxTextBytes);
    if (r.has("cause")) {
        const std::string cause = r.string("cause", Alphabet::Name, kMaxTokenBytes);
        if (cause == toString(RejectCause::Replaced))
            m.cause = RejectCause::Replaced;
        else if (cause == toString(RejectCause::Closed))
            m.cause = RejectCause::Closed;
        else if (r.ok())
            r.fail(ErrorCode::OutOfRange, r.pathOf("cause"),
                "field `" + r.pathOf("cause") + "` must be replaced or closed");
    }
    return m;
}

Heartbeat readHeartbeat(JsonReader& r)
{
    Heartbeat m;
    m.sequence = r.unsignedInteger("sequence");
    const json* samples = r.array("samples", kMaxSamplesPerHeartbeat);
    if (!samples)
        return m;
    for (std::size_t i = 0; i < samples->size() && r.ok(); ++i) {
        const json& item = (*samples)[i];
        const std::string path = r.pathOf("samples") + "[" + std::to_string(i) + "]";
        if (!item.is_object()) {
            r.fail(ErrorCode::WrongType, path, "field `" + path + "` must be an object");
            break;
        }
        JsonReader sr = r.child(item, path);
        UtilisationSample s;
        s.timestampMs = sr.integer("timestampMs", 0, std::numeric_limits<std::int64_t>::max());
        s.cpuUtilisation = sr.number("cpuUtilisation", 0.0, 1.0);
        s.memoryUsedMiB = sr.integer("memoryUsedMiB", 0, kMaxMemoryMiB);
        if (const json* devices = sr.array("devices", kMaxDevicesPerSample)) {
            for (std::size_t d = 0; d < devices->size() && sr.ok(); ++d) {
                const json& deviceItem = (*devices)[d];
                const std::string devicePath = sr.pathOf("devices") + "[" + std::to_string(d) + "]";
                if (!deviceItem.is_object()) {
                    sr.fail(ErrorCode::WrongType, devicePath, "field `" + devicePath + "` must be an object");
                    break;
                }
                JsonReader dr = sr.child(deviceItem, devicePath);
                DeviceSample device;
                device.index = static_cast<std::int32_t>(dr.integer("index", 0, kMaxAccelerators - 1));
                device.utilisation = dr.number("utilisation", 0.0, 1.0);
                device.memoryUsedMiB = dr.integer("memoryUsedMiB", 0, kMaxMemoryMiB);
                dr.rejectUnknownFields();
                s.devices.push_back(device);
            }
        }
        if (sr.has("pools"))
            sr.objects("pools", kMaxPoolsPerNode, [&](JsonReader& pr) {
                PoolUsage pool;
                pool.name = pr.string("name", Alphabet::Name, kMaxTokenBytes);
                pool.cpuMillis = pr.integer("cpuMillis", 0, kMaxCpuMillis);
                pool.memoryMiB = pr.integer("memoryMiB", 0, kMaxMemoryMiB);
                if (pr.has("netMbps"))
                    pool.netMbps = pr.number("netMbps", 0.0, static_cast<double>(kMaxNetMbps));
                s.pools.push_back(std::move(pool));
            });
        if (sr.has("workloads"))
            sr.objects("workloads", kMaxWorkloadsPerNode, [&](JsonReader& wr) {
                WorkloadUsage w;
                w.workloadId = wr.integer("workloadId", 1, kMaxWorkloadId);
                w.incarnation = static_cast<std::int32_t>(wr.integer("incarnation", 0, kMaxIncarnation));
                w.cpuMillis = wr.integer("cpuMillis", 0, kMaxCpuMillis);
                w.memoryMiB = wr.integer("memoryMiB", 0, kMaxMemoryMiB);
                s.workloads.push_back(w);
            });
        sr.rejectUnknownFields();
        m.samples.push_back(std::move(s));
    }
    return m;
}

Expected<Message> decodeObject(const json& root)
{
    std::optional<Error> error;
    JsonReader r(root, "", error);
    // The version comes first: a newer peer's message may have a type this side has never heard of.
    const auto version
        = r.integer("version", std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max());
    if (r.ok() && version != kProtocolVersion)
        r.fail(ErrorCode::UnsupportedVersion, "version",
            "field `version`: protocol version " + std::to_string(version)
                + " is not supported; this side speaks version " + std::to_string(kProtocolVersion));
    const std::string type = r.string("type", Alphabet::Name, kMaxTokenBytes);
    if (error)
        return tl::unexpected(std::move(*error));

    Message message;
    if (type == "hello")
        message = readHello(r);
    else if (type == "challenge")
        message = readChallenge(r);
    else if (type == "auth")
        message = readAuth(r);
    else if (type == "welcome")
        message = readWelcome(r);
    else if (type == "reject")
        message = readReject(r);
    else if (type == "heartbeat")
        message = readHeartbeat(r);
    else if (type == "inventory")
        message = readInventory(r);
    else if (type == "workload_state")
        message = readWorkloadUpdate(r);
    else if (type == "pools")
        message = readPoolConfig(r);
    else if (type == "launch")
        message = readLaunch(r);
    else if (type == "stop")
        message = readStop(r);
    else if (type == "log_request")
        message = readLogRequest(r);
    else if (type == "logs")
        message = readLogReply(r);
    else if (type == "resize")
        message = readResize(r);
    else if (type == "resized")
        message = readResized(r);
    else
        return makeError(
            ErrorCode::UnknownType, "type", "field `type` names no message of protocol version 1: \"" + type + "\"");
    r.rejectUnknownFields();
    if (error)
        return tl::unexpected(std::move(*error));
    return message;
}

} // namespace

std::string_view typeName(const Message& message)
{
    static constexpr std::string_view kNames[] = { "hello", "challenge", "auth", "welcome", "reject", "heartbeat",
        "inventory", "workload_state", "pools", "launch", "stop", "log_request", "logs", "resize", "resized" };
    static_assert(std::size(kNames) == std::variant_size_v<Message>);
    return kNames[message.index()];
}

std::string_view toString(RejectCause cause)
{
    switch (cause) {
    case RejectCause::JoinRefused: return "join_refused";
    case RejectCause::Replaced: return "replaced";
    case RejectCause::Closed: return "closed";
    case RejectCause::Invalid: break;
    }
    return "invalid";
}

bool hasFeature(const std::vector<std::string>& features, std::string_view feature)
{
    return std::find(features.begin(), features.end(), feature) != features.end();
}

std::vector<std::string> knownFeatures()
{
    return { std::string(kFeatureIncarnation), std::string(kFeaturePoolUsage), std::string(kFeatureNetShape),
        std::string(kFeatureLaunchPool), std::string(kFeatureLogs), std::string(kFeatureLogFollow),
        std::string(kFeatureWorkloadUsage), std::string(kFeatureResize), std::string(kFeatureLogWait) };
}

bool isWorkloadState(std::string_view state)
{
    return std::find(std::begin(kWorkloadStates), std::end(kWorkloadStates), state) != std::end(kWorkloadStates);
}

std::string encodeMessage(const Message& message)
{
    json j = std::visit([](const auto& m) { return toJson(m); }, message);
    j["type"] = typeName(message);
    j["version"] = kProtocolVersion;
    // Invalid UTF-8 in a string is replaced rather than thrown about: encoding never fails.
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Expected<Message> decodeMessage(std::string_view payload)
{
    if (!detail::nestingWithin(payload, kMaxJsonDepth))
        return makeError(
            ErrorCode::MalformedJson, {}, "the payload nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    try {
        const json root = json::parse(payload);
        if (!root.is_object())
            return makeError(ErrorCode::MalformedJson, {}, "the payload is not a JSON object");
        return decodeObject(root);
    } catch (const json::parse_error& e) {
        // Only the position: nlohmann's own message quotes the last token read, which is the peer's text and
        // may be a megabyte of it, or invalid UTF-8.
        return makeError(ErrorCode::MalformedJson, {}, "malformed JSON at byte " + std::to_string(e.byte));
    } catch (const json::exception& e) {
        return makeError(ErrorCode::MalformedJson, {}, std::string("malformed JSON: ") + e.what());
    } catch (const std::exception& e) {
        return makeError(ErrorCode::MalformedJson, {}, std::string("cannot decode the payload: ") + e.what());
    }
}

} // namespace tidepool::protocol
