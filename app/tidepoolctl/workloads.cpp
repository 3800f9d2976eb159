// The workload commands other than `submit`: `list`, `get`, `why` and `cancel`, and their printers. Tables show
// CPU in cores and memory in binary units; `-o json` keeps the daemon's `cpuMillis` and `memoryMiB`.
#include "app/tidepoolctl/commands.h"

#include "core/api/control_plane.h"
#include "protocol/messages.h"

#include <algorithm>
#include <cstdio>

namespace tidepool::ctl {

using api::HttpMethod;

void printWorkloads(const json& list)
{
    Table table({ "ID", "NAME", "PHASE", "NODE", "POOL", "CPU", "MEM", "AGE", "DETAIL" });
    for (const json& w : list)
        table.add({ text(w, "id"), text(w, "name"), text(w, "phase"), text(w, "node"), text(w, "pool"),
            cores(integer(w, "cpuMillis")), mebibytes(integer(w, "memoryMiB")), age(integer(w, "submittedMs")),
            clip(text(w, "detail", ""), 80) });
    table.print();
}

namespace {

std::string acceleratorText(const json& a)
{
    std::string s = text(a, "kind") + " x" + text(a, "count");
    if (integer(a, "share") > 0)
        s += ", share " + text(a, "share") + " per device";
    return s;
}

void printWorkload(const json& w)
{
    std::vector<std::pair<std::string, std::string>> f {
        { "ID", text(w, "id") },
        { "Name", text(w, "name") },
        { "Phase", text(w, "phase") },
        { "Node", text(w, "node") },
        { "Pool", text(w, "pool") },
        { "Priority", text(w, "priority") },
        { "Latency", text(w, "latency") },
        { "CPU",
            cores(integer(w, "cpuMillis")) + " (" + text(w, "cpuMillis") + " millicores)"
                + (present(w, "cpuLimitMillis") ? ", limited to " + cores(integer(w, "cpuLimitMillis"))
                                                : std::string()) },
        { "Memory",
            mebibytes(integer(w, "memoryMiB"))
                + (present(w, "memoryLimitMiB") ? ", limited to " + mebibytes(integer(w, "memoryLimitMiB"))
                                                : std::string(", no limit of its own (its pool's)")) },
    };
    if (present(w, "accelerators"))
        f.emplace_back("Accelerators", acceleratorText(w["accelerators"]));
    if (present(w, "devices") && !w["devices"].empty()) {
        std::string devices;
        for (const json& d : w["devices"])
            devices += (devices.empty() ? "" : ", ") + text(d, "device") + " (share " + text(d, "share") + ")";
        f.emplace_back("Devices", devices);
    }
    if (present(w, "translated"))
        f.emplace_back("Translated", w["translated"].is_boolean() && w["translated"].get<bool>() ? "yes" : "no");
    if (present(w, "command"))
        f.emplace_back("Command", joined(w["command"], " "));
    if (present(w, "pid"))
        f.emplace_back("PID", text(w, "pid"));
    f.emplace_back("Submitted", age(integer(w, "submittedMs")) + " ago");
    if (present(w, "placedMs"))
        f.emplace_back("Placed", age(integer(w, "placedMs")) + " ago");
    if (present(w, "runningMs"))
        f.emplace_back("Running", age(integer(w, "runningMs")) + " ago");
    if (present(w, "finishedMs")) {
        f.emplace_back("Finished", age(integer(w, "finishedMs")) + " ago");
        f.emplace_back("Exit code", text(w, "exitCode"));
    }
    f.emplace_back("Attempts", text(w, "attempts"));
    f.emplace_back("Detail", text(w, "detail"));
    printFields(f);
}

void printWhy(const json& why)
{
    const json report = why.value("report", json::object());
    const std::string mainReason = text(report, "mainReason");
    printFields({
        { "Workload", text(why, "id") },
        { "Phase", text(why, "phase") },
        { "Node", text(why, "node") },
        { "Reason", text(why, "reason", "(none recorded)") },
        { "Last attempt",
            text(report, "nodesConsidered") + " nodes considered, " + text(report, "feasible") + " feasible"
                + (mainReason == "none" || mainReason == "-" ? "" : "; mostly " + mainReason) },
    });
    const json rejected = report.value("rejected", json::object());
    if (!rejected.is_object() || rejected.empty())
        return;
    std::vector<std::pair<std::int64_t, std::string>> rows;
    for (const auto& [reason, count] : rejected.items())
        rows.emplace_back(count.is_number() ? count.get<std::int64_t>() : 0, reason);
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    Table table({ "REASON", "NODES" });
    for (const auto& [count, reason] : rows)
        table.add({ reason, std::to_string(count) });
    std::puts("");
    table.print();
}

} // namespace

Result<void> list(Session& session, const std::vector<std::string>& words)
{
    const std::string cmd = "list";
    auto parsed = parseOptions(cmd, words, { { "--phase" }, { "--node" }, { "--limit" }, { "--after" } });
    if (!parsed)
        return tl::unexpected(parsed.error());
    if (auto none = noPositionals(cmd, *parsed); !none)
        return tl::unexpected(none.error());
    std::string query;
    if (const auto phase = parsed->last("--phase")) {
        if (!api::parseWorkloadPhase(*phase))
            return usageError(cmd + ": --phase: \"" + *phase
                + "\" is not a phase (pending, launching, running, stopping, succeeded, failed, killed, oom_killed, "
                  "cancelled)");
        query += "&phase=" + *phase;
    }
    if (const auto node = parsed->last("--node")) {
        auto valid = nameValue(cmd, "--node", *node);
        if (!valid)
            return tl::unexpected(valid.error());
        query += "&node=" + *node;
    }
    if (auto added = addIntegerParameter(query, cmd, *parsed, "--limit", 1, 1'000'000'000); !added)
        return tl::unexpected(added.error());
    if (auto added = addIntegerParameter(query, cmd, *parsed, "--after", 0, protocol::kMaxWorkloadId); !added)
        return tl::unexpected(added.error());
    // The next page's command: this one's options, with --after moved on.
    std::string again = "tidepoolctl list";
    for (const char* option : { "--phase", "--node", "--limit" })
        if (const auto value = parsed->last(option))
            again += std::string(" ") + option + " " + *value;
    if (!query.empty())
        query[0] = '?';
    return session.callAndShow(HttpMethod::Get, "/v1/workloads" + query, [again](const json& j) {
        printWorkloads(j.value("workloads", json::array()));
        // The daemon answers a page (1000 by default): say how to get the next one.
        if (j.value("more", false) && j.contains("nextAfter"))
            std::printf("more: %s --after %s\n", again.c_str(), text(j, "nextAfter").c_str());
    });
}

Result<void> logs(Session& session, const std::vector<std::string>& words)
{
    const std::string cmd = "logs";
    auto parsed = parseOptions(cmd, words, { { "--stderr", false }, { "--bytes" } });
    if (!parsed)
        return tl::unexpected(parsed.error());
    auto id = idValue(cmd, *parsed, "workload ID", protocol::kMaxWorkloadId);
    if (!id)
        return tl::unexpected(id.error());
    std::string target = "/v1/workloads/" + *id + "/logs?stream=" + (parsed->has("--stderr") ? "stderr" : "stdout");
    if (const auto bytes = parsed->last("--bytes")) {
        auto n = integerValue(cmd, "--bytes", *bytes, 1, protocol::kMaxLogBytes);
        if (!n)
            return tl::unexpected(n.error());
        target += "&bytes=" + std::to_string(*n);
    }
    return session.callAndShow(HttpMethod::Get, target, [](const json& j) {
        // The agent sent text of lines and tabs; each line is made safe for the terminal as every other text is.
        const std::string data = present(j, "data") && j["data"].is_string() ? j["data"].get<std::string>() : "";
        std::string out;
        for (std::size_t start = 0; start < data.size();) {
            const std::size_t end = std::min(data.find('\n', start), data.size());
            const std::string_view line = std::string_view(data).substr(start, end - start);
            for (std::size_t from = 0; from <= line.size();) {
                const std::size_t tab = std::min(line.find('\t', from), line.size());
                out += terminalSafe(line.substr(from, tab - from));
                if (tab < line.size())
                    out += '\t';
                from = tab + 1;
            }
            out += '\n';
            start = end + 1;
        }
        std::fputs(out.c_str(), stdout);
        if (j.value("truncated", false))
            std::fprintf(stderr, "%s\n",
                terminalSafe("tidepoolctl: the last " + std::to_string(data.size()) + " bytes of "
                    + text(j, "sizeBytes") + " that node " + text(j, "node") + " keeps of its " + text(j, "stream")
                    + " (--bytes for more, up to " + std::to_string(protocol::kMaxLogBytes) + ")")
                    .c_str());
    });
}

Result<void> workloadCommand(Session& session, const std::string& cmd, const std::vector<std::string>& words)
{
    auto parsed = parseOptions(cmd, words, {});
    if (!parsed)
        return tl::unexpected(parsed.error());
    auto id = idValue(cmd, *parsed, "workload ID", protocol::kMaxWorkloadId);
    if (!id)
        return tl::unexpected(id.error());
    if (cmd == "get")
        return session.callAndShow(HttpMethod::Get, "/v1/workloads/" + *id, printWorkload);
    if (cmd == "why")
        return session.callAndShow(HttpMethod::Get, "/v1/workloads/" + *id + "/why", printWhy);
    return session.callAndShow(HttpMethod::Delete, "/v1/workloads/" + *id, [](const json& w) {
        const std::string phase = text(w, "phase");
        const std::string node = present(w, "node") ? " on " + text(w, "node") : std::string();
        const std::string line
            = "workload " + text(w, "id") + ": " + phase + (phase == "stopping" ? node + ", the stop is sent" : "");
        std::puts(terminalSafe(line).c_str());
    });
}

} // namespace tidepool::ctl
