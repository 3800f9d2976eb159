// The workload commands other than `submit`: `list`, `get`, `why` and `cancel`, and their printers. Tables show
// CPU in cores and memory in binary units; `-o json` keeps the daemon's `cpuMillis` and `memoryMiB`.
#include "app/tidepoolctl/commands.h"

#include "core/api/control_plane.h"
#include "protocol/messages.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

namespace tidepool::ctl {

using api::HttpMethod;

namespace {

// "0.912/2": what a workload used at its agent's latest sample over what it asked for; "-/2" where not measured.
std::string usedOf(const json& w, const char* used, const char* asked, std::string (*format)(std::int64_t))
{
    const bool measured = present(w, "measured") && w["measured"].is_object();
    return (measured ? format(integer(w["measured"], used)) : std::string("-")) + "/" + format(integer(w, asked));
}

} // namespace

void printWorkloads(const json& list)
{
    Table table(
        { "ID", "NAME", "PHASE", "NODE", "POOL", "CPU(used/req)", "MEM(used/req)", "RESTARTS", "AGE", "DETAIL" });
    for (const json& w : list)
        table.add({ text(w, "id"), text(w, "name"), text(w, "phase"), text(w, "node"), text(w, "pool"),
            usedOf(w, "cpuMillis", "cpuMillis", cores), usedOf(w, "memoryMiB", "memoryMiB", mebibytes),
            std::to_string(integer(w, "restarts")), age(integer(w, "submittedMs")), clip(text(w, "detail", ""), 80) });
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
    if (present(w, "measured") && w["measured"].is_object()) {
        const json& m = w["measured"];
        f.emplace_back("Used",
            "CPU " + cores(integer(m, "cpuMillis")) + " ("
                + (present(m, "cpuP90Millis") ? "90th percentile " + cores(integer(m, "cpuP90Millis")) + ", "
                                              : std::string())
                + "at most " + cores(integer(m, "peakCpuMillis")) + "), memory " + mebibytes(integer(m, "memoryMiB"))
                + " (at most " + mebibytes(integer(m, "peakMemoryMiB")) + ")"
                + (integer(m, "sinceMs") > 0 ? " over the last " + age(integer(m, "sinceMs")) : std::string())
                + " of this launch, as its node measured it " + age(integer(m, "atMs")) + " ago");
    }
    if (present(w, "resize") && w["resize"].is_object())
        f.emplace_back("Resize",
            text(w["resize"], "state") == "sent" ? std::string("sent to its agent, not confirmed yet")
                                                 : text(w["resize"], "error"));
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
    if (present(w, "finishedMs"))
        f.emplace_back("Finished", age(integer(w, "finishedMs")) + " ago");
    if (present(w, "exitCode"))
        f.emplace_back(present(w, "finishedMs") ? "Exit code" : "Last exit code", text(w, "exitCode"));
    if (present(w, "maxRuntimeMs"))
        f.emplace_back("Max runtime",
            span(integer(w, "maxRuntimeMs"))
                + (text(w, "phase") == "running" && present(w, "runningMs")
                        ? " (stopped " + relative(integer(w, "runningMs") + integer(w, "maxRuntimeMs")) + ")"
                        : std::string()));
    if (present(w, "stopGraceMs"))
        f.emplace_back("Stop grace", text(w, "stopGraceMs") + " ms between SIGTERM and SIGKILL");
    if (present(w, "restart"))
        f.emplace_back("Restart",
            text(w, "restart")
                + (present(w, "maxRestarts") ? ", at most " + text(w, "maxRestarts") + " times" : std::string()));
    if (present(w, "restarts"))
        f.emplace_back("Restarts", text(w, "restarts"));
    if (present(w, "restartAtMs"))
        f.emplace_back("Restarting", relative(integer(w, "restartAtMs")));
    if (present(w, "previous") && w["previous"].is_object())
        f.emplace_back("Previous launch",
            "incarnation " + text(w["previous"], "incarnation") + " on " + text(w["previous"], "node")
                + " (tidepoolctl logs " + text(w, "id") + " --previous)");
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

namespace {

// A workload's output as the agent sent it (text of lines and tabs), each line made safe for the terminal as every
// other text is; a last line without its newline stays without one (a follower prints its rest later).
std::string terminalOutput(const std::string& data)
{
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
        if (end < data.size())
            out += '\n';
        start = end + 1;
    }
    return out;
}

std::string outputData(const json& j)
{
    return present(j, "data") && j["data"].is_string() ? j["data"].get<std::string>() : "";
}

void note(const std::string& message)
{
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", terminalSafe("tidepoolctl: " + message).c_str());
}

// `logs --follow`: the end of the stream, then what is written after it, read on from where the last read ended,
// until the workload has ended and all it wrote is shown. Each read after the first waits at the agent for output
// (`waitMs`, within the request's time limit), so a line shows as it is written; a read answered at once with nothing
// (a daemon or an agent from before waiting reads, or too many waiting) is followed by the next after `interval`.
// Where the agent rotated out bytes before they could be read, or the workload was launched again, a note on stderr
// says so. An agent or a daemon that is away is waited for; a workload or a record that is gone ends it (exit status
// 1).
Result<void> follow(Session& session, const std::string& id, const std::string& stream, std::int64_t firstBytes,
    std::chrono::milliseconds interval)
{
    const std::string base = "/v1/workloads/" + id + "/logs?stream=" + stream;
    const bool asJson = session.output() == Output::Json;
    const auto endedPhase = [](const json& j) {
        const auto phase = api::parseWorkloadPhase(text(j, "phase"));
        return phase && api::isFinal(*phase);
    };
    std::int64_t position = -1; // none yet: the first read is of the end (`firstBytes`)
    std::int64_t incarnation = 0;
    std::string waitingFor; // the note last printed about a read that failed, not repeated while it lasts
    bool pause = false; // the last read failed, or found nothing without waiting for it: the next after `interval`
    bool ended = false; // at the last read: what it left is all there is
    const std::int64_t waitMs = std::min<std::int64_t>(protocol::kMaxLogWaitMs, session.timeout().count() / 2);
    for (bool first = true;; first = false) {
        if (pause)
            std::this_thread::sleep_for(interval);
        pause = true; // unless the read below says otherwise
        const std::string target = position < 0 ? base + "&bytes=" + std::to_string(firstBytes)
                                                : base + "&bytes=" + std::to_string(protocol::kMaxLogBytes)
                + "&from=" + std::to_string(position) + "&incarnation=" + std::to_string(incarnation)
                + (ended || waitMs <= 0 ? std::string() : "&waitMs=" + std::to_string(waitMs));
        const auto asked = std::chrono::steady_clock::now();
        auto response = session.exchange(api::HttpMethod::Get, target);
        // The daemon not reached at all at first is a wrong address or token file, not one to wait for.
        if (!response && first)
            return tl::unexpected(response.error());
        if (!response || response->status != 200) {
            const Failure failure = response ? session.failureOf(*response) : response.error();
            const int status = response ? response->status : 0;
            // Gone for good: the workload, or (404 from its agent) its record; refused: the token, the query.
            if (status == 404 || status == 400 || status == 401 || status == 403)
                return tl::unexpected(failure);
            // Waited for: a workload not placed yet (409), its agent away (503), an answer late (504), the daemon.
            if (failure.message != waitingFor)
                note(failure.message + "; trying again every " + std::to_string(interval.count()) + " ms");
            waitingFor = failure.message;
            ended = false;
            continue;
        }
        waitingFor.clear();
        const json answer = json::parse(response->body, nullptr, false);
        if (!answer.is_object())
            return tl::unexpected(Failure { 1, "unexpected response from tidepoold: not a JSON object" });
        if (!present(answer, "end") || !present(answer, "start"))
            return tl::unexpected(Failure { 1,
                "the agent of node " + text(answer, "node")
                    + " is from before following output: upgrade it, or read the end only (without --follow)" });
        const std::int64_t start = integer(answer, "start");
        const std::int64_t end = integer(answer, "end");
        if (position >= 0) {
            if (integer(answer, "incarnation") != incarnation)
                note("workload " + id + " was launched again (incarnation " + text(answer, "incarnation") + ", on node "
                    + text(answer, "node") + "): its " + stream + " from the beginning");
            else if (start > position)
                note(std::to_string(start - position) + " bytes were rotated out on node " + text(answer, "node")
                    + " before they could be read");
            else if (start < position)
                note("node " + text(answer, "node") + " keeps less of this " + stream
                    + " than was read (its record began again): from the beginning of what it keeps");
        }
        if (asJson)
            std::printf("%s\n", answer.dump().c_str());
        else
            std::fputs(terminalOutput(outputData(answer)).c_str(), stdout);
        std::fflush(stdout);
        // Ended before this read, which found nothing more: that was all.
        if (ended && end == start && endedPhase(answer)) {
            if (!asJson)
                note("workload " + id + " ended (" + text(answer, "phase") + "): that is all of its " + stream);
            return {};
        }
        position = end;
        incarnation = integer(answer, "incarnation");
        // At once after output (more may wait already, or the next read waits for it) and after the workload ended
        // (what it left is all there is); after nothing, at once only when the read was held for output.
        ended = endedPhase(answer);
        pause = !first && end == start && !ended && std::chrono::steady_clock::now() - asked < interval;
    }
}

} // namespace

Result<void> logs(Session& session, const std::vector<std::string>& words)
{
    const std::string cmd = "logs";
    auto parsed = parseOptions(cmd, words,
        { { "--stderr", false }, { "--bytes" }, { "-f", false }, { "--follow", false }, { "--interval-ms" },
            { "--previous", false } });
    if (!parsed)
        return tl::unexpected(parsed.error());
    auto id = idValue(cmd, *parsed, "workload ID", protocol::kMaxWorkloadId);
    if (!id)
        return tl::unexpected(id.error());
    const std::string stream = parsed->has("--stderr") ? "stderr" : "stdout";
    std::int64_t bytes = 64 * 1024;
    if (const auto value = parsed->last("--bytes")) {
        auto n = integerValue(cmd, "--bytes", *value, 1, protocol::kMaxLogBytes);
        if (!n)
            return tl::unexpected(n.error());
        bytes = *n;
    }
    const auto interval = followInterval(cmd, *parsed);
    if (!interval)
        return tl::unexpected(interval.error());
    const bool previous = parsed->has("--previous");
    if (interval->has_value() && previous)
        return usageError(cmd + ": --previous reads a launch that has ended: it does not go with --follow");
    if (interval->has_value())
        return follow(session, *id, stream, bytes, **interval);
    const std::string target = "/v1/workloads/" + *id + "/logs?stream=" + stream + "&bytes=" + std::to_string(bytes)
        + (previous ? "&previous=1" : "");
    return session.callAndShow(HttpMethod::Get, target, [](const json& j) {
        std::string out = terminalOutput(outputData(j));
        if (!out.empty() && out.back() != '\n')
            out += '\n';
        std::fputs(out.c_str(), stdout);
        if (j.value("truncated", false))
            std::fprintf(stderr, "%s\n",
                terminalSafe("tidepoolctl: the last " + std::to_string(outputData(j).size()) + " bytes of "
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
