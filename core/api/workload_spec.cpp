#include "core/api/workload_spec.h"

#include "protocol/json_reader.h"

namespace tidepool::api {

using nlohmann::json;
using protocol::detail::Alphabet;
using protocol::detail::JsonReader;

namespace {

constexpr std::size_t kMaxNameBytes = 253;

} // namespace

ApiResult<SubmitRequest> parseSubmitRequest(const json& body, const std::string& path)
{
    std::optional<protocol::Error> readError;
    JsonReader r(body, path, readError);
    SubmitRequest s;
    s.name = r.string("name", Alphabet::Name, kMaxNameBytes);
    if (r.has("pool"))
        s.pool = r.string("pool", Alphabet::Name, 64);
    s.requests.cpuMillis = r.integer("cpuMillis", 0, protocol::kMaxCpuMillis);
    s.requests.memoryMiB = r.integer("memoryMiB", 0, protocol::kMaxMemoryMiB);
    s.memoryLimitMiB = r.optionalAtLeast("memoryLimitMiB", 1, protocol::kMaxMemoryMiB, "memoryMiB",
        s.requests.memoryMiB, "the workload would be killed for using what it asked for");
    s.cpuLimitMillis = r.optionalAtLeast("cpuLimitMillis", 10, protocol::kMaxCpuMillis, "cpuMillis",
        s.requests.cpuMillis, "the workload could never use what it asked for");
    if (r.has("memBandwidthMBps"))
        s.requests.memBandwidthMBps = r.integer("memBandwidthMBps", 0, std::int64_t { 1 } << 40);
    if (r.has("netBandwidthMbps"))
        s.requests.netBandwidthMbps = r.integer("netBandwidthMbps", 0, std::int64_t { 1 } << 40);
    if (r.has("priority"))
        s.priority = static_cast<std::int32_t>(r.integer("priority", -1'000'000, 1'000'000));
    if (r.has("latency")) {
        const std::string latency = r.string("latency", Alphabet::Name, 32);
        if (r.ok()) {
            if (const auto parsed = parseLatencyClass(latency))
                s.latency = *parsed;
            else
                r.fail(protocol::ErrorCode::OutOfRange, r.pathOf("latency"),
                    "field `" + r.pathOf("latency") + "` must be real-time, latency-sensitive or batch");
        }
    }
    if (r.has("tier")) {
        const std::string tier = r.string("tier", Alphabet::Name, 16);
        if (r.ok()) {
            if (const auto parsed = parseTier(tier))
                s.pinnedTier = *parsed;
            else
                r.fail(protocol::ErrorCode::OutOfRange, r.pathOf("tier"),
                    "field `" + r.pathOf("tier") + "` must be hot, warm or cold");
        }
    }
    if (r.has("isas")) {
        const auto isas = r.strings("isas", Alphabet::Name, 8, 16);
        for (std::size_t i = 0; i < isas.size() && r.ok(); ++i) {
            if (const auto isa = parseIsa(isas[i]))
                s.nativeIsas = static_cast<IsaMask>(s.nativeIsas | isaBit(*isa));
            else
                r.fail(protocol::ErrorCode::OutOfRange, r.pathOf("isas") + "[" + std::to_string(i) + "]",
                    "field `" + r.pathOf("isas") + "[" + std::to_string(i) + "]` must be x86_64, aarch64 or riscv64");
        }
    }
    if (r.has("allowTranslation"))
        s.allowTranslation = r.boolean("allowTranslation");
    if (r.has("deferrable"))
        s.deferrable = r.boolean("deferrable");
    if (r.has("deadlineMs")) {
        s.deadlineMs = r.integer("deadlineMs", 1, 32'503'680'000'000); // up to the year 3000
        if (!s.deferrable)
            r.fail(protocol::ErrorCode::OutOfRange, r.pathOf("deadlineMs"),
                "field `" + r.pathOf("deadlineMs") + "` applies only to deferrable work (\"deferrable\": true)");
    }
    if (s.deferrable && s.latency != LatencyClass::Batch)
        r.fail(protocol::ErrorCode::OutOfRange, r.pathOf("deferrable"),
            "field `" + r.pathOf("deferrable") + "`: only batch work may be deferred");
    if (r.has("restart")) {
        const std::string restart = r.string("restart", Alphabet::Name, 16);
        if (r.ok()) {
            if (const auto parsed = parseRestartPolicy(restart))
                s.restart = *parsed;
            else
                r.fail(protocol::ErrorCode::OutOfRange, r.pathOf("restart"),
                    "field `" + r.pathOf("restart") + "` must be never, on-failure or always");
        }
    }
    if (r.has("maxRestarts")) {
        s.maxRestarts = static_cast<std::int32_t>(r.integer("maxRestarts", 0, 1'000'000));
        if (r.ok() && s.restart == RestartPolicy::Never)
            r.fail(protocol::ErrorCode::OutOfRange, r.pathOf("maxRestarts"),
                "field `" + r.pathOf("maxRestarts")
                    + "` applies only with a restart policy (\"restart\": \"on-failure\" or \"always\")");
    }
    if (r.has("maxRuntimeMs"))
        s.maxRuntimeMs = r.integer("maxRuntimeMs", 1000, 366LL * 86'400'000);
    if (r.has("stopGraceMs"))
        s.stopGraceMs = static_cast<std::int32_t>(r.integer("stopGraceMs", 0, kMaxStopGraceMs));
    if (r.has("rightSize"))
        s.rightSize = r.boolean("rightSize");
    if (r.has("command")) {
        s.argv = r.strings("command", Alphabet::Text, protocol::kMaxArgs, protocol::kMaxTextBytes);
        // Left out, a workload has no program (a simulated fleet's agents run such work); given, it must name one: an
        // agent would only refuse the launch, after the workload had waited for and taken a place.
        // (An empty string in it is refused by the reader, as any empty text.)
        if (r.ok() && s.argv.empty())
            r.fail(protocol::ErrorCode::OutOfRange, r.pathOf("command"),
                "field `" + r.pathOf("command")
                    + "` is empty: it must name the program to run, then its arguments (or leave the field out)");
    }
    if (r.has("env"))
        s.env = r.strings("env", Alphabet::Text, protocol::kMaxEnv, protocol::kMaxTextBytes);
    for (std::size_t i = 0; i < s.env.size() && r.ok(); ++i) {
        const auto eq = s.env[i].find('=');
        if (eq == 0 || eq == std::string::npos)
            r.fail(protocol::ErrorCode::BadName, r.pathOf("env") + "[" + std::to_string(i) + "]",
                "field `" + r.pathOf("env") + "[" + std::to_string(i) + "]` must read NAME=value");
    }
    if (const json* accelerators = r.optionalObject("accelerators")) {
        JsonReader a = r.child(*accelerators, r.pathOf("accelerators"));
        const std::string kind = a.string("kind", Alphabet::Name, 16);
        if (a.ok()) {
            const auto parsed = parseAcceleratorKind(kind);
            if (!parsed || *parsed == AcceleratorKind::None)
                a.fail(protocol::ErrorCode::OutOfRange, a.pathOf("kind"),
                    "field `" + a.pathOf("kind") + "` must be gpu, npu or fpga");
            else
                s.accelerators.kind = *parsed;
        }
        s.accelerators.count = a.has("count") ? static_cast<std::int32_t>(a.integer("count", 1, 64)) : 1;
        if (a.has("share"))
            s.accelerators.sharePerDevice = static_cast<std::int32_t>(a.integer("share", 1, 1'000'000));
        if (a.has("memoryMiB"))
            s.accelerators.memoryMiBPerDevice = a.integer("memoryMiB", 0, protocol::kMaxMemoryMiB);
        if (a.has("models"))
            s.acceleratorModels = a.strings("models", Alphabet::Name, 32, 64);
        a.rejectUnknownFields();
    }
    r.rejectUnknownFields();
    return checkedRead(readError, std::move(s));
}

ApiResult<SubmitRequest> parseNewSubmission(const json& body, const std::string& path)
{
    auto request = parseSubmitRequest(body, path);
    if (!request)
        return request;
    // A share is of one device, and a GPU is 1000 milli-GPUs: more could never be placed.
    const AcceleratorRequest& a = request->accelerators;
    if (a.kind == AcceleratorKind::Gpu && a.sharePerDevice > 1000)
        return tl::unexpected(ApiError { 400,
            "field `" + (path.empty() ? std::string() : path + ".")
                + "accelerators.share`: " + std::to_string(a.sharePerDevice)
                + " milli-GPUs is more than one GPU holds (1000); ask for whole GPUs with `count`" });
    // A workload that asks for nothing would be placed anywhere and counted nowhere: no pool quota or node capacity
    // would ever hold it back. A stored one still restores (it is read with `parseSubmitRequest` alone).
    if (request->requests.cpuMillis == 0 && request->requests.memoryMiB == 0 && !request->accelerators.any()) {
        const std::string prefix = path.empty() ? std::string() : path + ".";
        return tl::unexpected(ApiError { 400,
            "field `" + prefix + "cpuMillis`: the workload asks for nothing (`" + prefix + "cpuMillis` and `" + prefix
                + "memoryMiB` are 0 and it asks for no accelerator); ask for some CPU or memory" });
    }
    const std::string field = path.empty() ? std::string("env") : path + ".env";
    for (std::size_t i = 0; i < request->env.size(); ++i) {
        const std::string_view name = std::string_view(request->env[i]).substr(0, request->env[i].find('='));
        if (name.starts_with("TIDEPOOL_") || name == "CUDA_VISIBLE_DEVICES")
            return tl::unexpected(ApiError { 400,
                "field `" + field + "[" + std::to_string(i) + "]`: " + std::string(name)
                    + " is set by the agent for each workload (its id, its incarnation, the GPUs it was given) and "
                      "may not be set by a submission" });
    }
    return request;
}

json submissionJson(const LiveWorkload& live, const ClusterState& cluster)
{
    const Workload& w = live.workload;
    json j { { "name", w.name }, { "pool", live.poolName }, { "cpuMillis", w.requests.cpuMillis },
        { "memoryMiB", w.requests.memoryMiB }, { "priority", w.priority },
        { "latency", std::string(toString(w.latency)) }, { "allowTranslation", w.allowTranslation } };
    if (w.deferrable) {
        j["deferrable"] = true;
        j["deadlineMs"] = live.deadlineMs;
    }
    if (live.restart != RestartPolicy::Never) {
        j["restart"] = std::string(toString(live.restart));
        if (live.maxRestarts >= 0)
            j["maxRestarts"] = live.maxRestarts;
    }
    if (live.maxRuntimeMs)
        j["maxRuntimeMs"] = live.maxRuntimeMs;
    if (live.stopGraceMs >= 0)
        j["stopGraceMs"] = live.stopGraceMs;
    if (!live.rightSize)
        j["rightSize"] = false;
    if (live.memoryLimitMiB)
        j["memoryLimitMiB"] = live.memoryLimitMiB;
    if (live.cpuLimitMillis)
        j["cpuLimitMillis"] = live.cpuLimitMillis;
    if (w.requests.memBandwidthMBps)
        j["memBandwidthMBps"] = w.requests.memBandwidthMBps;
    if (w.requests.netBandwidthMbps)
        j["netBandwidthMbps"] = w.requests.netBandwidthMbps;
    if (w.pinnedTier != Tier::Invalid)
        j["tier"] = std::string(toString(w.pinnedTier));
    if (w.nativeIsas) {
        json isas = json::array();
        for (const Isa isa : { Isa::X86_64, Isa::Aarch64, Isa::Riscv64 })
            if (w.nativeIsas & isaBit(isa))
                isas.push_back(std::string(toString(isa)));
        j["isas"] = std::move(isas);
    }
    if (!live.argv.empty())
        j["command"] = live.argv;
    if (!live.env.empty())
        j["env"] = live.env;
    if (w.accelerators.any()) {
        json a { { "kind", std::string(toString(w.accelerators.kind)) }, { "count", w.accelerators.count } };
        if (w.accelerators.sharePerDevice)
            a["share"] = w.accelerators.sharePerDevice;
        if (w.accelerators.memoryMiBPerDevice)
            a["memoryMiB"] = w.accelerators.memoryMiBPerDevice;
        if (!w.accelerators.allowedModels.empty()) {
            json models = json::array();
            for (const ModelId m : w.accelerators.allowedModels)
                models.push_back(cluster.modelName(m));
            a["models"] = std::move(models);
        }
        j["accelerators"] = std::move(a);
    }
    return j;
}

} // namespace tidepool::api
