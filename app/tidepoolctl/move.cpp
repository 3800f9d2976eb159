// `tidepoolctl move ID (--node N | --tier T | --pool P ...)`: an operator's move of a workload over
// `POST /v1/workloads/{id}/move` (core/api/move_api.h). Moved: where it went. Refused: the daemon's reason and, when
// the scheduler's filters judged the target, how many nodes each of its reasons refused, most first; exit 1. With
// `-o json` the daemon's answer is printed as it is either way, so that a script reads the refusal's code and reasons.
//
// `tidepoolctl resize ID [--cpu MILLIS] [--memory MIB] [--cpu-limit MILLIS|none] [--memory-limit MIB|none]`: an
// operator's resize over `POST /v1/workloads/{id}/resize` (move_api.h). Resized: what changed and where; refused: the
// daemon's reason, exit 1.
#include "app/tidepoolctl/commands.h"

#include "core/model/types.h"
#include "protocol/messages.h"

#include <cstdio>
#include <tuple>
#include <utility>

namespace tidepool::ctl {

using api::HttpMethod;

namespace {

// "workload 12 (etl) moved to node fleet-3 (warm tier) in pool batch".
void printMoved(const json& answer)
{
    const std::string name = text(answer, "name", "");
    const std::string tier = text(answer, "tier", "");
    const std::string line = "workload " + text(answer, "workload") + (name.empty() ? "" : " (" + name + ")")
        + " moved to node " + text(answer, "node") + (tier.empty() ? "" : " (" + tier + " tier)") + " in pool "
        + text(answer, "pool");
    std::puts(terminalSafe(line).c_str());
}

// The refusal in words: the daemon's message, its code, and the nodes each reason refused.
Failure refusal(const json& answer, int status)
{
    // Each line is made terminal-safe on its own: the lines are tidepoolctl's, their words the daemon's.
    std::string message = terminalSafe("workload " + text(answer, "workload") + " was not moved ("
        + text(answer, "refusal") + "): " + text(answer, "error") + " (HTTP " + std::to_string(status) + ")");
    const json reasons = answer.value("reasons", json::array());
    const std::string considered = text(answer, "nodesConsidered", "?");
    if (reasons.is_array())
        for (const json& r : reasons)
            message
                += "\n  " + terminalSafe(text(r, "reason") + ": " + text(r, "nodes") + " of " + considered + " nodes");
    return Failure { 1, message };
}

} // namespace

// "workload 12 resized by token:ops: CPU 500m → 250m in place on node fleet-3; its agent applies the new weight and
// limits".
void printResized(const json& answer)
{
    std::string line = text(answer, "message");
    if (answer.value("sentToAgent", false))
        line += "; its agent applies the new weight and limits (tidepoolctl get shows when it has)";
    std::puts(terminalSafe(line).c_str());
}

Result<void> resize(Session& session, const Words& words)
{
    const std::string cmd = "resize";
    auto parsed = parseOptions(cmd, words, { { "--cpu" }, { "--memory" }, { "--cpu-limit" }, { "--memory-limit" } });
    if (!parsed)
        return tl::unexpected(parsed.error());
    auto id = idValue(cmd, *parsed, "workload ID", protocol::kMaxWorkloadId);
    if (!id)
        return tl::unexpected(id.error());
    json body = json::object();
    const std::tuple<const char*, const char*, std::int64_t, std::int64_t, bool> numbers[] = {
        { "--cpu", "cpuMillis", 0, protocol::kMaxCpuMillis, false },
        { "--memory", "memoryMiB", 0, protocol::kMaxMemoryMiB, false },
        { "--cpu-limit", "cpuLimitMillis", 10, protocol::kMaxCpuMillis, true },
        { "--memory-limit", "memoryLimitMiB", 1, protocol::kMaxMemoryMiB, true },
    };
    for (const auto& [option, field, min, max, removable] : numbers)
        if (const auto value = parsed->last(option)) {
            if (removable && *value == "none") {
                body[field] = nullptr;
                continue;
            }
            auto n = integerValue(cmd, option, *value, min, max);
            if (!n)
                return tl::unexpected(n.error());
            body[field] = *n;
        }
    if (body.empty())
        return usageError(cmd
            + ": say what to change: --cpu MILLIS, --memory MIB, --cpu-limit MILLIS|none or "
              "--memory-limit MIB|none");
    auto response = session.exchange(HttpMethod::Post, "/v1/workloads/" + *id + "/resize", body.dump());
    if (!response)
        return tl::unexpected(response.error());
    if (response->status != 200)
        return tl::unexpected(session.failureOf(*response));
    return session.show(response->body, printResized);
}

Result<void> move(Session& session, const Words& words)
{
    const std::string cmd = "move";
    auto parsed = parseOptions(cmd, words, { { "--node" }, { "--tier" }, { "--pool" } });
    if (!parsed)
        return tl::unexpected(parsed.error());
    auto id = idValue(cmd, *parsed, "workload ID", protocol::kMaxWorkloadId);
    if (!id)
        return tl::unexpected(id.error());
    json body = json::object();
    for (const auto& [option, field] : { std::pair { "--node", "node" }, std::pair { "--pool", "pool" } })
        if (const auto value = parsed->last(option)) {
            auto valid = nameValue(cmd, option, *value);
            if (!valid)
                return tl::unexpected(valid.error());
            body[field] = *valid;
        }
    if (const auto tier = parsed->last("--tier")) {
        if (!parseTier(*tier))
            return usageError(cmd + ": --tier: \"" + *tier + "\" must be hot, warm or cold");
        body["tier"] = *tier;
    }
    if (body.empty())
        return usageError(cmd
            + ": say where to: --node NAME, --tier hot|warm|cold or --pool NAME (a pool with a node "
              "or a tier narrows it)");

    auto response = session.exchange(HttpMethod::Post, "/v1/workloads/" + *id + "/move", body.dump());
    if (!response)
        return tl::unexpected(response.error());
    const json answer = json::parse(response->body, nullptr, false);
    const bool refused = answer.is_object() && answer.contains("refusal");
    if (response->status != 200 && !refused)
        return tl::unexpected(session.failureOf(*response));
    if (session.output() == Output::Json || !refused) {
        if (auto shown = session.show(response->body, printMoved); !shown)
            return shown;
    }
    if (refused)
        return tl::unexpected(refusal(answer, response->status));
    return {};
}

} // namespace tidepool::ctl
