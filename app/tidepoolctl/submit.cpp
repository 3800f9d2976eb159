// `submit`: one workload from options (and optionally a JSON file they override), or a batch from a file. The
// request is checked here with the daemon's own validation (`api::parseNewSubmission`), so that a bad value is a
// usage error naming the option or the file's field, and nothing is sent.
#include "app/tidepoolctl/commands.h"

#include "core/api/workload_spec.h"
#include "core/model/types.h"
#include "protocol/messages.h"

#include <fstream>
#include <sstream>
#include <tuple>

namespace tidepool::ctl {

using api::HttpMethod;

namespace {

Result<json> readJsonFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        return usageError("submit: -f: " + path + " cannot be read");
    std::stringstream content;
    content << in.rdbuf();
    try {
        json j = json::parse(content.str());
        if (!j.is_object())
            return usageError("submit: -f: " + path + " must hold one JSON object");
        return j;
    } catch (const json::exception& e) {
        return usageError("submit: -f: " + path + " is not valid JSON: " + e.what());
    }
}

// The `accelerators` object of `--gpu`, `--gpu-share`, `--gpu-model` and `--gpu-memory`.
Result<json> gpuRequest(const std::string& cmd, const ParsedOptions& o)
{
    if (o.has("--gpu") && o.has("--gpu-share"))
        return usageError(cmd + ": --gpu (whole GPUs) and --gpu-share (a share of one) exclude each other");
    json accelerators { { "kind", "gpu" }, { "count", 1 } };
    const std::tuple<const char*, const char*, std::int64_t, std::int64_t> numbers[] = {
        { "--gpu", "count", 1, 64 },
        { "--gpu-share", "share", 1, 1'000'000 },
        { "--gpu-memory", "memoryMiB", 0, protocol::kMaxMemoryMiB },
    };
    for (const auto& [option, field, min, max] : numbers)
        if (const auto value = o.last(option)) {
            auto n = integerValue(cmd, option, *value, min, max);
            if (!n)
                return tl::unexpected(n.error());
            accelerators[field] = *n;
        }
    if (o.has("--gpu-model")) {
        json models = json::array();
        for (const std::string& model : o.all("--gpu-model")) {
            if (auto valid = nameValue(cmd, "--gpu-model", model); !valid)
                return tl::unexpected(valid.error());
            models.push_back(model);
        }
        accelerators["models"] = std::move(models);
    }
    return accelerators;
}

// Writes the options of `submit` into `body` (empty, or the object of `-f`), checking each and naming it.
Result<void> applySubmitOptions(const std::string& cmd, const ParsedOptions& o, json& body)
{
    if (const auto name = o.last("--name")) {
        if (auto valid = nameValue(cmd, "--name", *name); !valid)
            return tl::unexpected(valid.error());
        body["name"] = *name;
    }
    const std::tuple<const char*, const char*, std::int64_t, std::int64_t> numbers[] = {
        { "--cpu", "cpuMillis", 0, protocol::kMaxCpuMillis },
        { "--memory", "memoryMiB", 0, protocol::kMaxMemoryMiB },
        { "--memory-limit", "memoryLimitMiB", 1, protocol::kMaxMemoryMiB },
        { "--cpu-limit", "cpuLimitMillis", 10, protocol::kMaxCpuMillis },
        { "--priority", "priority", -1'000'000, 1'000'000 },
        { "--max-restarts", "maxRestarts", 0, 1'000'000 },
    };
    for (const auto& [option, field, min, max] : numbers)
        if (const auto value = o.last(option)) {
            auto n = integerValue(cmd, option, *value, min, max);
            if (!n)
                return tl::unexpected(n.error());
            body[field] = *n;
        }
    if (const auto pool = o.last("--pool")) {
        if (auto valid = nameValue(cmd, "--pool", *pool); !valid)
            return tl::unexpected(valid.error());
        body["pool"] = *pool;
    }
    if (const auto latency = o.last("--latency")) {
        if (!parseLatencyClass(*latency))
            return usageError(cmd + ": --latency: \"" + *latency + "\" must be real-time, latency-sensitive or batch");
        body["latency"] = *latency;
    }
    if (const auto tier = o.last("--tier")) {
        if (!parseTier(*tier))
            return usageError(cmd + ": --tier: \"" + *tier + "\" must be hot, warm or cold");
        body["tier"] = *tier;
    }
    if (o.has("--isa")) {
        json isas = json::array();
        for (const std::string& value : o.all("--isa")) {
            std::stringstream items(value);
            for (std::string isa; std::getline(items, isa, ',');) {
                if (!parseIsa(isa))
                    return usageError(cmd + ": --isa: \"" + isa + "\" must be x86_64, aarch64 or riscv64");
                isas.push_back(isa);
            }
        }
        body["isas"] = std::move(isas);
    }
    if (o.has("--allow-translation"))
        body["allowTranslation"] = true;
    if (o.has("--no-right-size"))
        body["rightSize"] = false;
    if (const auto runtime = o.last("--max-runtime")) {
        auto ms = durationValue(cmd, "--max-runtime", *runtime, 1000, 366LL * 86'400'000);
        if (!ms)
            return tl::unexpected(ms.error());
        body["maxRuntimeMs"] = *ms;
    }
    if (const auto grace = o.last("--stop-grace")) {
        auto ms = durationValue(cmd, "--stop-grace", *grace, 0, api::kMaxStopGraceMs);
        if (!ms)
            return tl::unexpected(ms.error());
        body["stopGraceMs"] = *ms;
    }
    if (const auto restart = o.last("--restart")) {
        if (!api::parseRestartPolicy(*restart))
            return usageError(cmd + ": --restart: \"" + *restart + "\" must be never, on-failure or always");
        body["restart"] = *restart;
    }
    if (o.has("--gpu") || o.has("--gpu-share") || o.has("--gpu-model") || o.has("--gpu-memory")) {
        auto accelerators = gpuRequest(cmd, o);
        if (!accelerators)
            return tl::unexpected(accelerators.error());
        body["accelerators"] = std::move(*accelerators);
    }
    if (o.has("--env")) {
        json env = json::array();
        for (const std::string& pair : o.all("--env")) {
            const auto eq = pair.find('=');
            if (eq == 0 || eq == std::string::npos)
                return usageError(cmd + ": --env: \"" + pair + "\" must read NAME=value");
            env.push_back(pair);
        }
        body["env"] = std::move(env);
    }
    if (o.hasCommand) {
        if (o.command.empty())
            return usageError(cmd + ": `--` must be followed by the command to run");
        body["command"] = o.command;
    }
    return {};
}

} // namespace

Result<void> submit(Session& session, const std::vector<std::string>& words)
{
    const std::string cmd = "submit";
    auto parsed = parseOptions(cmd, words,
        { { "--name" }, { "--cpu" }, { "--memory" }, { "--memory-limit" }, { "--cpu-limit" }, { "--pool" },
            { "--priority" }, { "--latency" }, { "--tier" }, { "--isa" }, { "--allow-translation", false },
            { "--no-right-size", false }, { "--gpu" }, { "--gpu-share" }, { "--gpu-model" }, { "--gpu-memory" },
            { "--env" }, { "--restart" }, { "--max-restarts" }, { "--max-runtime" }, { "--stop-grace" }, { "-f" },
            { "--file" } },
        true);
    if (!parsed)
        return tl::unexpected(parsed.error());
    const ParsedOptions& o = *parsed;
    if (!o.positionals.empty())
        return usageError(cmd + ": unexpected \"" + o.positionals.front() + "\" (a command goes after `--`)");

    json body = json::object();
    const auto file = o.has("-f") ? o.last("-f") : o.last("--file");
    const std::string inFile = file ? *file + ": " : std::string();
    if (file) {
        auto loaded = readJsonFile(*file);
        if (!loaded)
            return tl::unexpected(loaded.error());
        body = std::move(*loaded);
    }
    const bool batch = body.contains("workloads");
    const std::size_t optionCount = o.values.size() - (o.has("-f") ? 1 : 0) - (o.has("--file") ? 1 : 0);
    if (batch && (optionCount > 0 || o.hasCommand))
        return usageError(cmd + ": " + inFile + "holds a batch (\"workloads\"); give no other options with it");

    // The items to check: the one submission, or each of the batch.
    std::vector<std::pair<std::string, const json*>> items;
    if (batch) {
        const json& list = body["workloads"];
        if (!list.is_array() || list.empty())
            return usageError(cmd + ": " + inFile + "field `workloads` must be a non-empty array");
        for (std::size_t i = 0; i < list.size(); ++i)
            items.emplace_back("workloads[" + std::to_string(i) + "]", &list[i]);
    } else {
        if (auto applied = applySubmitOptions(cmd, o, body); !applied)
            return tl::unexpected(applied.error());
        const std::pair<const char*, const char*> required[]
            = { { "name", "--name" }, { "cpuMillis", "--cpu" }, { "memoryMiB", "--memory" } };
        for (const auto& [field, option] : required)
            if (!body.contains(field))
                return usageError(cmd + ": " + option + " is required"
                    + (file ? " (or the field `" + std::string(field) + "` in " + *file + ")" : ""));
        // The daemon refuses a workload that asks for nothing (`parseNewSubmission` below says so by its fields);
        // given as options, it is said by the options.
        if (o.has("--cpu") && o.has("--memory") && body["cpuMillis"] == 0 && body["memoryMiB"] == 0
            && !body.contains("accelerators"))
            return usageError(cmd
                + ": --cpu 0 and --memory 0 ask for nothing: give the workload some CPU (--cpu MILLIS) or memory "
                  "(--memory MIB)");
        items.emplace_back(std::string(), &body);
    }
    // The daemon's own validation, here, so that a bad file or value is a usage error that names it.
    for (const auto& [path, item] : items) {
        if (!item->is_object())
            return usageError(cmd + ": " + inFile + "field `" + path + "` must be an object");
        if (auto valid = api::parseNewSubmission(*item, path); !valid)
            return usageError(cmd + ": " + inFile + valid.error().message);
    }

    auto response = session.call(HttpMethod::Post, "/v1/workloads", body.dump());
    if (!response)
        return tl::unexpected(response.error());
    return session.show(*response,
        [](const json& j) { printWorkloads(j.contains("workloads") ? j["workloads"] : json::array({ j })); });
}

} // namespace tidepool::ctl
