// The cluster commands: `nodes`, `pools` (with `create` and `set`) and `summary`, and their printers.
#include "app/tidepoolctl/commands.h"

#include "core/api/drain_options.h"
#include "core/model/types.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <thread>

namespace tidepool::ctl {

using api::HttpMethod;

namespace {

// Free and total devices of each accelerator kind, as one word a script can split: "gpu:1.5/4,fpga:1/2" (a shared
// device counts by its free share); "-" for none.
std::string acceleratorsOf(const json& node)
{
    std::map<std::string, std::pair<double, int>> byKind; // kind → (free devices, devices)
    for (const json& d : node.value("devices", json::array())) {
        const double capacity = real(d, "shareCapacity");
        auto& [free, total] = byKind[text(d, "kind")];
        free += capacity > 0 ? real(d, "shareFree") / capacity : 0.0;
        ++total;
    }
    std::string out;
    for (const auto& [kind, counts] : byKind) {
        out += (out.empty() ? "" : ",") + kind + ":" + decimal(counts.first, 2) + "/" + std::to_string(counts.second);
    }
    return out.empty() ? "-" : out;
}

// A paced drain under way, in one line: "at most 2 moving at once: 1 moving, 4 moved, 1 queued again; 1 cannot move
// yet (WHY: no other node takes it, or its pool's disruption budget); deadline in 29m".
std::string drainProgress(const json& drain)
{
    // An all-at-once drain that pools' disruption budgets held goes on with no budget of its own.
    std::string out = (integer(drain, "maxParallel") >= api::kMaxDrainParallel
                              ? std::string("as many moving at once as their pools' disruption budgets allow: ")
                              : "at most " + text(drain, "maxParallel") + " moving at once: ")
        + text(drain, "moving") + " moving, " + text(drain, "moved") + " moved";
    if (integer(drain, "evicted") > 0)
        out += ", " + text(drain, "evicted") + " queued again at the deadline";
    if (integer(drain, "blocked") > 0)
        out += "; " + text(drain, "blocked") + " cannot move yet (" + text(drain, "blockedReason") + ")";
    out += integer(drain, "deadlineMs") > 0 ? "; deadline " + relative(integer(drain, "deadlineMs"))
                                            : std::string("; no deadline");
    return out + ", started by " + text(drain, "actor") + " " + relative(integer(drain, "startedMs"));
}

void printNodes(const json& list)
{
    Table table({ "NAME", "STATE", "ISA", "TIER", "CPU(free/total)", "MEM(free/total)", "ACCEL(free/total)", "UTIL",
        "WORKLOADS" });
    for (const json& n : list)
        table.add({ text(n, "name"),
            text(n, "state")
                + (n.contains("drain")                  ? ",draining"
                        : text(n, "cordon", "").empty() ? ""
                                                        : ",cordoned"),
            text(n, "isa"), text(n, "tier"), cores(integer(n, "cpuMillisFree")) + "/" + cores(integer(n, "cpuMillis")),
            mebibytes(integer(n, "memoryMiBFree")) + "/" + mebibytes(integer(n, "memoryMiB")), acceleratorsOf(n),
            percent(real(n, "cpuUtilisation")), text(n, "workloads") });
    table.print();
}

void printNode(const json& n)
{
    std::string translation;
    // A named copy: `items()` of a temporary would refer to an object destroyed before the loop runs.
    const json factors = n.value("translation", json::object());
    for (const auto& [from, factor] : factors.items())
        translation += (translation.empty() ? "" : ", ") + from + " x" + decimal(factor.get<double>(), 2);
    printFields({
        { "Name", text(n, "name") },
        { "State", text(n, "state") + (n.value("connected", false) ? ", connected from " + text(n, "remote") : "") },
        { "ISA", text(n, "isa") + ", " + text(n, "cpuModel") + ", " + text(n, "numaNodes") + " NUMA node(s)" },
        { "Tier", text(n, "tier") },
        { "Cordon", text(n, "cordon", "").empty() ? "none: new work may land here" : text(n, "cordon") },
        { "Drain", n.contains("drain") ? drainProgress(n["drain"]) : std::string("none under way") },
        { "CPU",
            cores(integer(n, "cpuMillisFree")) + " of " + cores(integer(n, "cpuMillis")) + " cores free, "
                + percent(real(n, "cpuUtilisation")) + " used" },
        { "Memory",
            mebibytes(integer(n, "memoryMiBFree")) + " of " + mebibytes(integer(n, "memoryMiB")) + " free, "
                + mebibytes(integer(n, "memoryUsedMiB")) + " in use" },
        { "Network",
            n.contains("netMbps")
                ? text(n, "netMbpsFree") + " of " + text(n, "netMbps") + " Mbit/s free to guarantee (shaped by pool)"
                : std::string("not shaped") },
        { "Workloads", text(n, "workloads") },
        { "Pools", joined(n.value("pools", json::array()), ", ") },
        { "Translation", translation.empty() ? "-" : translation },
        { "Agent",
            text(n, "agentVersion") + " (protocol features: "
                + (n.value("agentFeatures", json::array()).empty() ? std::string("none, from before them")
                                                                   : joined(n["agentFeatures"], ", "))
                + ")" },
        { "Heartbeats", text(n, "heartbeats") + ", last " + age(integer(n, "lastHeartbeatMs")) + " ago" },
    });
    const json devices = n.value("devices", json::array());
    if (devices.empty())
        return;
    Table table({ "DEVICE", "KIND", "MODEL", "SHARE(free/total)", "MEMORY", "UTIL" });
    for (const json& d : devices)
        table.add({ text(d, "index"), text(d, "kind"), text(d, "model"),
            text(d, "shareFree") + "/" + text(d, "shareCapacity"), mebibytes(integer(d, "memoryMiB")),
            present(d, "utilisation") ? percent(real(d, "utilisation")) : "-" });
    std::puts("");
    table.print();
}

// "gpu 1000/2000, fpga 0/0": the accelerator kinds the pool has a quota for or uses, in share units; "-" for none.
std::string acceleratorQuotas(const json& p)
{
    const json quota = p.value("acceleratorQuota", json::object());
    const json used = p.value("acceleratorUsed", json::object());
    std::string out;
    for (const char* kind : { "gpu", "npu", "fpga" }) {
        const bool limited = present(quota, kind);
        const std::int64_t inUse = integer(used, kind);
        if (!limited && inUse == 0)
            continue;
        out += (out.empty() ? "" : ", ") + std::string(kind) + " " + std::to_string(inUse) + "/"
            + (limited ? std::to_string(integer(quota, kind)) : std::string("unlimited"));
    }
    return out.empty() ? "-" : out;
}

// "1200/unlimited": used against a bandwidth quota; "-" where neither is set.
std::string bandwidth(const json& p, const char* field, const char* unit)
{
    if (!present(p, field))
        return "-";
    return std::to_string(integer(p, std::string(field) + "Used")) + "/" + std::to_string(integer(p, field)) + unit;
}

// The quota an `overQuota` entry names, in the words the table's headers use: the daemon names it by its JSON field
// (`cpuMillis`, `acceleratorQuota.gpu`); a name this version does not know is shown as it is.
std::string quotaWords(const std::string& resource)
{
    static const std::pair<std::string_view, std::string_view> kWords[]
        = { { "cpuMillis", "CPU" }, { "memoryMiB", "memory" }, { "memBandwidthMBps", "memory bandwidth" },
              { "netBandwidthMbps", "network bandwidth" }, { "acceleratorQuota.gpu", "GPU" },
              { "acceleratorQuota.npu", "NPU" }, { "acceleratorQuota.fpga", "FPGA" } };
    for (const auto& [field, words] : kWords)
        if (resource == field)
            return std::string(words);
    return resource;
}

// "CPU, GPU": the quotas the pool's running work exceeds (the daemon's `overQuota`); "-" for none.
std::string overQuota(const json& p)
{
    std::string out;
    for (const json& o : p.value("overQuota", json::array()))
        out += (out.empty() ? "" : ", ") + quotaWords(text(o, "resource"));
    return out.empty() ? "-" : out;
}

// What the agents measured the pool's cgroups using, "cores/memory/Mbit/s" ("-" for what none measures): beside the
// "used" columns, which count what its placed workloads hold.
std::string measuredUse(const json& p)
{
    const auto it = p.find("measured");
    if (it == p.end() || !it->is_object())
        return "-";
    const json& m = *it;
    return cores(integer(m, "cpuMillis")) + "/" + mebibytes(integer(m, "memoryMiB")) + "/"
        + (present(m, "netMbps") ? decimal(real(m, "netMbps"), 1) + "Mb/s" : std::string("-"));
}

// "1/2": the pool's workloads drains and migrations have on their way, and its disruption budget ("none": no budget);
// "1/2(25%)" for a percentage of its workloads, 2 of them now.
std::string disruption(const json& p)
{
    if (!present(p, "maxDisrupted"))
        return text(p, "disrupted", "0") + "/none";
    const json& budget = p.at("maxDisrupted");
    if (!budget.is_string())
        return text(p, "disrupted", "0") + "/" + text(p, "maxDisrupted");
    return text(p, "disrupted", "0") + "/" + text(p, "disruptionBudget", "?") + "(" + budget.get<std::string>() + ")";
}

void printPools(const json& list)
{
    Table table({ "NAME", "BUSINESS-LINE", "TIER", "CPU(used/quota)", "MEM(used/quota)", "ACCEL(used/quota)",
        "MEMBW(used/quota)", "NET(used/quota)", "MEASURED(cpu/mem/net)", "MOVING(now/max)", "NODES", "OVER-QUOTA" });
    for (const json& p : list)
        table.add({ text(p, "name"), text(p, "businessLine"), text(p, "tier", "any"),
            cores(integer(p, "cpuMillisUsed")) + "/"
                + (present(p, "cpuMillis") ? cores(integer(p, "cpuMillis")) : std::string("unlimited")),
            mebibytes(integer(p, "memoryMiBUsed")) + "/"
                + (present(p, "memoryMiB") ? mebibytes(integer(p, "memoryMiB")) : std::string("unlimited")),
            acceleratorQuotas(p), bandwidth(p, "memBandwidthMBps", "MB/s"), bandwidth(p, "netBandwidthMbps", "Mb/s"),
            measuredUse(p), disruption(p), text(p, "nodes"), overQuota(p) });
    table.print();
    // A tier set after a pool's work was placed leaves that work where it is: say so, with what to do about it.
    for (const json& p : list)
        if (const std::int64_t off = integer(p, "offTier"); off > 0)
            std::fprintf(stderr,
                "tidepoolctl: note: pool %s: %lld workload(s) run on nodes of another tier than %s; they stay until "
                "they end or are moved (tidepoolctl move ID --tier %s)\n",
                terminalSafe(text(p, "name")).c_str(), static_cast<long long>(off), text(p, "tier").c_str(),
                text(p, "tier").c_str());
}

// "5 ready, 1 lost": the counts of an object in the given order of its keys (then any others), without zeros
// unless `keepZero`.
std::string counts(const json& object, std::initializer_list<std::string_view> order, bool keepZero)
{
    std::vector<std::string> keys(order.begin(), order.end());
    if (object.is_object())
        for (const auto& [key, value] : object.items())
            if (std::find(keys.begin(), keys.end(), key) == keys.end())
                keys.push_back(key);
    std::string out;
    for (const std::string& key : keys) {
        const std::int64_t n = integer(object, key);
        if (!object.contains(key) || (n == 0 && !keepZero))
            continue;
        out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + key;
    }
    return out.empty() ? "none" : out;
}

void printSummary(const json& s)
{
    printFields({
        { "Nodes",
            counts(
                s.value("nodes", json::object()), { "ready", "suspect", "lost", "joining", "off", "booting" }, true) },
        { "Workloads",
            counts(s.value("workloads", json::object()),
                { "pending", "launching", "running", "stopping", "succeeded", "failed", "killed", "oom_killed",
                    "cancelled" },
                false) },
        { "Submitted", text(s, "submitted") + " since start, " + text(s, "acknowledged") + " launches acknowledged" },
    });
}

// The body of `pools create` and `pools set`. The daemon's PUT changes only the fields it is given, and `null`
// sets a quota back to unlimited and the tier back to any, so `set` sends just what the operator asked for.
Result<json> poolBody(const std::string& cmd, const ParsedOptions& o, bool setting)
{
    json body = json::object();
    struct Quota {
        const char* option;
        const char* field;
        QuotaKind kind;
    };
    const Quota quotas[] = { { "--cpu", "cpuMillis", QuotaKind::Cpu }, { "--memory", "memoryMiB", QuotaKind::Memory },
        { "--mem-bandwidth", "memBandwidthMBps", QuotaKind::MemBandwidth },
        { "--net-bandwidth", "netBandwidthMbps", QuotaKind::NetBandwidth }, { "--gpu", "gpu", QuotaKind::Gpu },
        { "--npu", "npu", QuotaKind::Npu }, { "--fpga", "fpga", QuotaKind::Fpga } };
    for (const Quota& q : quotas) {
        const auto value = o.last(q.option);
        if (!value)
            continue;
        auto n = quotaValue(cmd, q.option, q.kind, *value, setting);
        if (!n)
            return tl::unexpected(n.error());
        // Accelerator quotas go into one object by kind; the others are fields of their own.
        const bool accelerator = q.kind == QuotaKind::Gpu || q.kind == QuotaKind::Npu || q.kind == QuotaKind::Fpga;
        json& slot = accelerator ? body["acceleratorQuota"][q.field] : body[q.field];
        slot = *n ? json(**n) : json(nullptr);
    }
    if (const auto tier = o.last("--tier")) {
        if (setting && *tier == "any")
            body["tier"] = nullptr;
        else if (!parseTier(*tier))
            return usageError(
                cmd + ": --tier: \"" + *tier + "\" must be hot, warm or cold" + (setting ? " (or any)" : ""));
        else
            body["tier"] = *tier;
    }
    if (const auto line = o.last("--business-line"); line && line->empty() && setting) {
        body["businessLine"] = nullptr; // none
    } else if (line) {
        if (line->empty() || line->size() > 256
            || std::any_of(line->begin(), line->end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
            return usageError(cmd + ": --business-line must be 1 to 256 printable bytes");
        body["businessLine"] = *line;
    }
    if (const auto weight = o.last("--io-weight")) {
        auto n = integerValue(cmd, "--io-weight", *weight, 1, 10'000);
        if (!n)
            return tl::unexpected(n.error());
        body["ioWeight"] = *n;
    }
    if (const auto budget = o.last("--max-disrupted")) {
        const auto parsed = api::parseDisruptionBudget(*budget);
        if (*budget == "none")
            body["maxDisrupted"] = nullptr;
        else if (!parsed)
            return usageError(cmd + ": --max-disrupted: \"" + *budget + "\" must be a number of workloads from 0 to "
                + std::to_string(api::kMaxDisruptionBudget) + ", a percentage of the pool's workloads from 0% to 100%, "
                + "or none");
        else if (parsed->percent >= 0)
            body["maxDisrupted"] = api::toString(*parsed);
        else
            body["maxDisrupted"] = parsed->count;
    }
    return body;
}

} // namespace

namespace {

// `nodes drain NAME ... --wait`: reads the node until its drain is over, printing its progress as it changes; fails
// when it ended (its cordon lifted) with workloads still there.
Result<void> waitForDrain(Session& session, const std::string& name, std::chrono::milliseconds interval)
{
    std::string shown;
    for (;;) {
        auto response = session.call(HttpMethod::Get, "/v1/nodes/" + name);
        if (!response)
            return tl::unexpected(response.error());
        const json node = json::parse(*response, nullptr, false);
        if (!node.is_object())
            return tl::unexpected(Failure { 1, "unexpected response from tidepoold's /v1/nodes/" + name });
        if (!node.contains("drain")) {
            if (integer(node, "workloads") > 0)
                return tl::unexpected(Failure { 1,
                    "node " + name + "'s drain ended (" + (text(node, "cordon", "").empty() ? "uncordoned" : "stopped")
                        + ") with " + text(node, "workloads") + " workload(s) still there" });
            std::printf("%s\n", terminalSafe("node " + name + " drained: nothing runs there").c_str());
            return {};
        }
        const json& drain = node["drain"];
        std::string line = text(node, "workloads") + " there; " + drainProgress(drain);
        // The deadline's "in 29m" changes each minute: a line is new when the counts are.
        const std::string counts = text(node, "workloads") + "/" + text(drain, "moving") + "/" + text(drain, "moved")
            + "/" + text(drain, "evicted") + "/" + text(drain, "blocked");
        if (counts != shown) {
            std::printf("%s\n", terminalSafe(line).c_str());
            std::fflush(stdout);
            shown = counts;
        }
        std::this_thread::sleep_for(interval);
    }
}

// `nodes cordon|uncordon NAME [--reason TEXT]`, `nodes drain NAME [--reason TEXT] [--max-parallel N [--deadline DUR]]
// [--wait [--interval-ms N]]` (node_api.h).
Result<void> nodeOperation(Session& session, const std::string& operation, const std::vector<std::string>& words)
{
    const std::string cmd = "nodes " + operation;
    auto parsed = operation == "uncordon" ? parseOptions(cmd, words, {})
        : operation == "drain"            ? parseOptions(cmd, words,
                         { { "--reason" }, { "--max-parallel" }, { "--deadline" }, { "--wait", false }, { "--interval-ms" } })
                                          : parseOptions(cmd, words, { { "--reason" } });
    if (!parsed)
        return tl::unexpected(parsed.error());
    json body = json::object();
    if (const auto parallel = parsed->last("--max-parallel")) {
        auto n = integerValue(cmd, "--max-parallel", *parallel, 1, api::kMaxDrainParallel);
        if (!n)
            return tl::unexpected(n.error());
        body["maxParallel"] = *n;
    }
    if (const auto deadline = parsed->last("--deadline")) {
        if (!body.contains("maxParallel"))
            return usageError(cmd + ": --deadline paces a drain: give --max-parallel N with it");
        auto ms = durationValue(cmd, "--deadline", *deadline, 1000, api::kMaxDrainDeadlineMs);
        if (!ms)
            return tl::unexpected(ms.error());
        body["deadlineMs"] = *ms;
    }
    std::chrono::milliseconds waitInterval { 1000 };
    if (const auto interval = parsed->last("--interval-ms")) {
        if (!parsed->has("--wait"))
            return usageError(cmd + ": --interval-ms goes with --wait");
        auto ms = integerValue(cmd, "--interval-ms", *interval, 100, 60'000);
        if (!ms)
            return tl::unexpected(ms.error());
        waitInterval = std::chrono::milliseconds(*ms);
    }
    if (parsed->positionals.size() != 1)
        return usageError(cmd + ": give exactly one node name");
    auto name = nameValue(cmd, "node name", parsed->positionals[0]);
    if (!name)
        return tl::unexpected(name.error());
    if (const auto reason = parsed->last("--reason"))
        body["reason"] = *reason;
    auto response = session.call(HttpMethod::Post, "/v1/nodes/" + *name + "/" + operation, body.dump());
    if (!response)
        return tl::unexpected(response.error());
    if (auto shown = session.show(*response,
            [&](const json& j) {
                if (operation == "cordon") {
                    std::printf("%s\n",
                        terminalSafe("node " + text(j, "node") + " cordoned (" + text(j, "cordon")
                            + "): no new work lands there; what runs there stays")
                            .c_str());
                } else if (operation == "uncordon") {
                    const std::string lifted = text(j, "lifted", "");
                    std::printf("%s\n",
                        terminalSafe(lifted.empty() ? "node " + text(j, "node") + " was not cordoned"
                                                    : "node " + text(j, "node") + " uncordoned (it was: " + lifted + ")"
                                    + (text(j, "state") == "booting" ? "; it powers up" : ""))
                            .c_str());
                } else if (j.contains("waiting")) {
                    std::printf("%s\n",
                        terminalSafe("node " + text(j, "node") + " cordoned (" + text(j, "cordon") + "); "
                            + text(j, "moved") + " workload(s) moved off it now, " + text(j, "waiting")
                            + " waiting for their turn"
                            + (j.contains("drain") ? "; draining " + drainProgress(j["drain"]) : "; drained"))
                            .c_str());
                    Table table({ "ID", "NAME", "TO" });
                    for (const json& w : j.value("workloads", json::array()))
                        table.add({ text(w, "workload"), text(w, "name"), text(w, "node") });
                    if (!j.value("workloads", json::array()).empty())
                        table.print();
                } else {
                    std::printf("%s\n",
                        terminalSafe("node " + text(j, "node") + " cordoned (" + text(j, "cordon") + "); "
                            + text(j, "moved") + " workload(s) moved off it, " + text(j, "stayed") + " stay")
                            .c_str());
                    Table table({ "ID", "NAME", "TO", "OUTCOME" });
                    for (const json& w : j.value("workloads", json::array()))
                        table.add({ text(w, "workload"), text(w, "name"),
                            w.value("moved", false) ? text(w, "node") : std::string("-"),
                            w.value("moved", false) ? std::string("moved") : clip(text(w, "error"), 100) });
                    if (!j.value("workloads", json::array()).empty())
                        table.print();
                }
            });
        !shown)
        return shown;
    // A drain that left workloads there has not emptied the node: a script should know (or waits for it to).
    const json answer = json::parse(*response, nullptr, false);
    if (operation == "drain" && parsed->has("--wait") && answer.is_object() && answer.contains("drain"))
        return waitForDrain(session, *name, waitInterval);
    if (operation == "drain" && answer.is_object() && answer.value("stayed", 0) > 0)
        return tl::unexpected(Failure { 1,
            "node " + text(answer, "node") + " still holds " + text(answer, "stayed")
                + " workload(s) that no other node takes: cancel them, make room elsewhere, or drain it again" });
    return {};
}

} // namespace

Result<void> nodes(Session& session, const std::vector<std::string>& words)
{
    const std::string cmd = "nodes";
    if (!words.empty() && (words[0] == "cordon" || words[0] == "uncordon" || words[0] == "drain"))
        return nodeOperation(session, words[0], { words.begin() + 1, words.end() });
    auto parsed = parseOptions(cmd, words, {});
    if (!parsed)
        return tl::unexpected(parsed.error());
    if (parsed->positionals.size() > 1)
        return usageError(cmd + ": give at most one node name");
    if (parsed->positionals.empty())
        return session.callAndShow(
            HttpMethod::Get, "/v1/nodes", [](const json& j) { printNodes(j.value("nodes", json::array())); });
    auto name = nameValue(cmd, "node name", parsed->positionals[0]);
    if (!name)
        return tl::unexpected(name.error());
    return session.callAndShow(HttpMethod::Get, "/v1/nodes/" + *name, printNode);
}

Result<void> pools(Session& session, const std::vector<std::string>& words)
{
    const std::string sub = words.empty() ? std::string() : words.front();
    if (sub.empty() || sub[0] == '-') {
        auto parsed = parseOptions("pools", words, {});
        if (!parsed)
            return tl::unexpected(parsed.error());
        return session.callAndShow(
            HttpMethod::Get, "/v1/pools", [](const json& j) { printPools(j.value("pools", json::array())); });
    }
    if (sub != "create" && sub != "set" && sub != "delete")
        return usageError("pools: unknown subcommand \"" + sub + "\" (create, set or delete)");
    const std::string cmd = "pools " + sub;
    const std::vector<std::string> rest { words.begin() + 1, words.end() };
    auto parsed = sub == "delete" ? parseOptions(cmd, rest, {}) // the name alone
                                  : parseOptions(cmd, rest,
                                      { { "--cpu" }, { "--memory" }, { "--tier" }, { "--business-line" },
                                          { "--io-weight" }, { "--mem-bandwidth" }, { "--net-bandwidth" }, { "--gpu" },
                                          { "--npu" }, { "--fpga" }, { "--max-disrupted" } });
    if (!parsed)
        return tl::unexpected(parsed.error());
    if (parsed->positionals.size() != 1)
        return usageError(cmd + ": give exactly one pool name");
    const std::string& name = parsed->positionals[0];
    if (!isName(name, 64))
        return usageError(cmd + ": pool name \"" + name + "\" must be 1 to 64 letters, digits, '.', '_' or '-'");
    if (sub == "delete")
        return session.callAndShow(HttpMethod::Delete, "/v1/pools/" + name,
            [](const json& j) { std::printf("pool %s deleted\n", j.value("deleted", std::string()).c_str()); });

    Result<std::string> response;
    if (sub == "create") {
        auto body = poolBody(cmd, *parsed, false);
        if (!body)
            return tl::unexpected(body.error());
        (*body)["name"] = name;
        response = session.call(HttpMethod::Post, "/v1/pools", body->dump());
    } else {
        if (parsed->values.empty())
            return usageError(cmd
                + ": give at least one of --cpu, --memory, --mem-bandwidth, --net-bandwidth, --gpu, --npu, --fpga, "
                  "--tier, --business-line, --io-weight, --max-disrupted");
        auto body = poolBody(cmd, *parsed, true);
        if (!body)
            return tl::unexpected(body.error());
        response = session.call(HttpMethod::Put, "/v1/pools/" + name, body->dump());
    }
    if (!response)
        return tl::unexpected(response.error());
    return session.show(*response, [](const json& p) { printPools(json::array({ p })); });
}

Result<void> summary(Session& session, const std::vector<std::string>& words)
{
    auto parsed = parseOptions("summary", words, {});
    if (!parsed)
        return tl::unexpected(parsed.error());
    if (auto none = noPositionals("summary", *parsed); !none)
        return tl::unexpected(none.error());
    return session.callAndShow(HttpMethod::Get, "/v1/summary", printSummary);
}

} // namespace tidepool::ctl
