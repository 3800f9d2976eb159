// The rebalance commands over core/api/proposal_api.h: `proposals`, `proposal show|approve|reject ID` and
// `evaluate`, and their printers (the fields are those of core/rebalance/proposal.h).
//
// A decision the daemon cannot take (the proposal is not pending, has expired, or was planned on a state that has
// since changed and was re-planned) is its 409, which the session reports as exit 1 with the daemon's message: that
// message names the re-planned proposal, which is what the operator has to look at next.
#include "app/tidepoolctl/commands.h"

#include "core/rebalance/proposal.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <tuple>

namespace tidepool::ctl {

using api::HttpMethod;

namespace {

constexpr std::int64_t kMaxProposalId = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMaxProposalPage = 10'000; // what the daemon answers at most in one page
constexpr std::size_t kMaxReasonBytes = 1000; // what the daemon accepts for a rejection's reason

void printProposals(const json& list)
{
    Table table({ "ID", "KIND", "STATE", "RISK", "AGE", "REASON" });
    for (const json& p : list)
        table.add({ text(p, "id"), text(p, "kind"), text(p, "state"), text(p, "risk"), age(integer(p, "createdMs")),
            clip(text(p, "reason", ""), 80) });
    table.print();
}

// "100 W saved" or, for a negative saving, "30 W more": the sign in words, so that it cannot be misread.
std::string saving(double value, const char* unit)
{
    return decimal(std::fabs(value), 1) + " " + unit + (value < 0 ? " more" : " saved");
}

// A time as UTC with how far it is from now: "2026-12-03T09:41:05Z (in 8m)".
std::string when(std::int64_t ms)
{
    return ms <= 0 ? "-" : utcTime(ms) + " (" + relative(ms) + ")";
}

// What one action of a plan changes, in the units the other commands print.
std::string change(const json& action)
{
    const std::string type = text(action, "action");
    if (type == "set_cpu_quota")
        return "CPU quota " + cores(integer(action, "expectCpuMillis")) + " -> " + cores(integer(action, "cpuMillis"))
            + " cores";
    if (type == "take_cpu_quota" || type == "give_cpu_quota")
        return "CPU quota " + std::string(type == "take_cpu_quota" ? "-" : "+") + cores(integer(action, "cpuMillis"))
            + " cores (keeping at least " + cores(integer(action, "floorCpuMillis")) + ")";
    if (type == "set_memory_quota")
        return "memory quota " + mebibytes(integer(action, "expectMemoryMiB")) + " -> "
            + mebibytes(integer(action, "memoryMiB"));
    if (type == "take_memory_quota" || type == "give_memory_quota")
        return "memory quota " + std::string(type == "take_memory_quota" ? "-" : "+")
            + mebibytes(integer(action, "memoryMiB")) + " (keeping at least "
            + mebibytes(integer(action, "floorMemoryMiB")) + ")";
    // Share units as pools count them: 1000 a GPU, NPU cores, FPGA slots.
    std::string kind = text(action, "accelerator", ""); // "GPU"
    std::transform(kind.begin(), kind.end(), kind.begin(), [](unsigned char c) { return std::toupper(c); });
    if (type == "set_accelerator_quota")
        return kind + " quota " + text(action, "expectQuotaShare") + " -> " + text(action, "quotaShare")
            + " share units";
    if (type == "take_accelerator_quota" || type == "give_accelerator_quota")
        return kind + " quota " + std::string(type == "take_accelerator_quota" ? "-" : "+") + text(action, "quotaShare")
            + " share units (keeping at least " + text(action, "floorQuotaShare") + ")";
    if (type == "cordon")
        return "cordon: " + text(action, "reason");
    // The workload restarts on the target node's device; its node and device now say where it runs until then.
    if (type == "migrate")
        return "workload " + text(action, "workload") + " from " + text(action, "from") + " device "
            + text(action, "fromDevice") + " to device " + text(action, "device") + " (share " + text(action, "share")
            + ")";
    if (type == "resize")
        return "workload " + text(action, "workload") + " CPU " + cores(integer(action, "expectCpuMillis")) + " -> "
            + cores(integer(action, "cpuMillis")) + " cores, memory " + mebibytes(integer(action, "expectMemoryMiB"))
            + " -> " + mebibytes(integer(action, "memoryMiB"));
    // Uncordon, reserve and release act on the target node alone: the action names the whole change.
    return "-";
}

void printProposal(const json& p)
{
    const json effect = p.value("effect", json::object());
    std::vector<std::pair<std::string, std::string>> fields {
        { "Proposal", text(p, "id") },
        { "Kind", text(p, "kind") },
        { "State", text(p, "state") },
        { "Risk", text(p, "risk") },
        { "Key", text(p, "key") },
        { "Reason", text(p, "reason") },
        { "Utilisation",
            percent(real(effect, "utilisationBefore")) + " -> " + percent(real(effect, "utilisationAfter")) },
        { "GPUs freed", decimal(real(effect, "gpusFreed"), 2) },
        { "Power", saving(real(effect, "wattsSaved"), "W") },
        { "CO2", saving(real(effect, "co2GramsPerHour"), "g/h") },
        { "SLO risk", text(effect, "sloRisk") },
        { "State version", text(p, "stateVersion") },
        { "Created", when(integer(p, "createdMs")) },
        { "Expires", when(integer(p, "expiresMs")) },
        { "Decided by", text(p, "decidedBy") },
        { "Decided", when(integer(p, "decidedMs")) },
        { "Detail", text(p, "detail") },
    };
    const json plan = p.value("plan", json::array());
    if (!plan.is_array() || plan.empty())
        fields.emplace_back("Plan", "no actions");
    printFields(fields);
    if (plan.is_array() && !plan.empty()) {
        Table table({ "ACTION", "TARGET", "CHANGE" });
        for (const json& action : plan)
            table.add({ text(action, "action"), text(action, "target"), change(action) });
        std::puts("");
        table.print();
    }
    const json steps = p.value("steps", json::array());
    if (steps.is_array() && !steps.empty()) {
        Table table({ "STEP", "OUTCOME" });
        for (const json& step : steps)
            table.add({ text(step, "step"), text(step, "outcome") });
        std::puts("");
        table.print();
    }
}

// The body of `proposal reject`: the reason when one is given. Control characters are refused because the reason
// is shown in tables and the audit log, where a newline or an escape sequence would garble them.
Result<std::string> rejectBody(const std::string& cmd, const ParsedOptions& o)
{
    json body = json::object();
    if (const auto reason = o.last("--reason")) {
        if (reason->empty() || reason->size() > kMaxReasonBytes
            || std::any_of(reason->begin(), reason->end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
            return usageError(cmd + ": --reason must be 1 to " + std::to_string(kMaxReasonBytes)
                + " bytes without control characters");
        body["reason"] = *reason;
    }
    return body.dump();
}

} // namespace

Result<void> proposals(Session& session, const Words& words)
{
    const std::string cmd = "proposals";
    auto parsed = parseOptions(cmd, words, { { "--state" }, { "--limit" }, { "--before" } });
    if (!parsed)
        return tl::unexpected(parsed.error());
    if (auto none = noPositionals(cmd, *parsed); !none)
        return tl::unexpected(none.error());
    std::string query;
    if (const auto state = parsed->last("--state")) {
        if (!rebalance::parseProposalState(*state))
            return usageError(
                cmd + ": --state: \"" + *state + "\" must be pending, approved, rejected, expired, applied or failed");
        query += "&state=" + *state;
    }
    if (auto added = addIntegerParameter(query, cmd, *parsed, "--limit", 1, kMaxProposalPage); !added)
        return tl::unexpected(added.error());
    if (auto added = addIntegerParameter(query, cmd, *parsed, "--before", 1, kMaxProposalId); !added)
        return tl::unexpected(added.error());
    // The next page's command: this one's filter and page size, with --before moved on (as `list` says it).
    std::string again = "tidepoolctl proposals";
    for (const char* option : { "--state", "--limit" })
        if (const auto value = parsed->last(option))
            again += std::string(" ") + option + " " + *value;
    if (!query.empty())
        query[0] = '?';
    return session.callAndShow(HttpMethod::Get, "/v1/proposals" + query, [again](const json& j) {
        printProposals(j.value("proposals", json::array()));
        // The daemon answers a page (1000 by default): say how to get the next one.
        if (j.value("more", false) && j.contains("nextBefore"))
            std::printf("more: %s --before %s\n", again.c_str(), text(j, "nextBefore").c_str());
    });
}

Result<void> proposal(Session& session, const Words& words)
{
    const std::string sub = words.empty() ? std::string() : words.front();
    if (sub != "show" && sub != "approve" && sub != "reject")
        return usageError(sub.empty() ? std::string("proposal: give show, approve or reject and a proposal ID")
                                      : "proposal: unknown subcommand \"" + sub + "\" (show, approve or reject)");
    const std::string cmd = "proposal " + sub;
    const Words rest(words.begin() + 1, words.end());
    auto parsed = sub == "reject" ? parseOptions(cmd, rest, { { "--reason" } }) : parseOptions(cmd, rest, {});
    if (!parsed)
        return tl::unexpected(parsed.error());
    auto id = idValue(cmd, *parsed, "proposal ID", kMaxProposalId);
    if (!id)
        return tl::unexpected(id.error());
    if (sub == "show")
        return session.callAndShow(HttpMethod::Get, "/v1/proposals/" + *id, printProposal);
    if (sub == "approve")
        return session.callAndShow(HttpMethod::Post, "/v1/proposals/" + *id + "/approve", printProposal);
    auto body = rejectBody(cmd, *parsed);
    if (!body)
        return tl::unexpected(body.error());
    return session.callAndShow(HttpMethod::Post, "/v1/proposals/" + *id + "/reject", printProposal, *body);
}

Result<void> evaluate(Session& session, const Words& words)
{
    const std::string cmd = "evaluate";
    auto parsed = parseOptions(cmd, words, {});
    if (!parsed)
        return tl::unexpected(parsed.error());
    if (auto none = noPositionals(cmd, *parsed); !none)
        return tl::unexpected(none.error());
    return session.callAndShow(HttpMethod::Post, "/v1/evaluate", [](const json& j) {
        const json created = j.value("created", json::array());
        if (!created.is_array() || created.empty())
            std::puts("no new proposals");
        else
            printProposals(created);
    });
}

Result<void> whatIf(Session& session, const Words& words)
{
    const std::string cmd = "whatif";
    auto parsed = parseOptions(cmd, words,
        { { "--profile" }, { "--pool" }, { "--pool-memory" }, { "--pool-gpu" }, { "--pool-npu" }, { "--pool-fpga" },
            { "--remove-node" } });
    if (!parsed)
        return tl::unexpected(parsed.error());
    if (auto none = noPositionals(cmd, *parsed); !none)
        return tl::unexpected(none.error());
    json body = json::object();
    if (const auto profile = parsed->last("--profile")) {
        auto name = nameValue(cmd, "--profile", *profile);
        if (!name)
            return tl::unexpected(name.error());
        body["profile"] = *name;
    }
    // --pool NAME=MILLICORES, --pool-memory NAME=MIB and --pool-gpu|npu|fpga NAME=SHARE (or NAME=unlimited): the CPU,
    // memory or accelerator quota to try, checked as `pools set` checks the quota it would set.
    for (const auto& [option, field, unit, kind] : { std::tuple { "--pool", "pools", "MILLICORES", QuotaKind::Cpu },
             std::tuple { "--pool-memory", "poolMemory", "MIB", QuotaKind::Memory },
             std::tuple { "--pool-gpu", "gpu", "SHARE", QuotaKind::Gpu },
             std::tuple { "--pool-npu", "npu", "SHARE", QuotaKind::Npu },
             std::tuple { "--pool-fpga", "fpga", "SHARE", QuotaKind::Fpga } })
        for (const std::string& pool : parsed->all(option)) {
            const auto eq = pool.find('=');
            if (eq == std::string::npos || eq == 0)
                return usageError(
                    cmd + ": " + option + ": \"" + pool + "\" must read NAME=" + unit + " or NAME=unlimited");
            auto name = nameValue(cmd, option, pool.substr(0, eq));
            if (!name)
                return tl::unexpected(name.error());
            auto amount = quotaValue(cmd, std::string(option) + " " + *name, kind, pool.substr(eq + 1), true);
            if (!amount)
                return tl::unexpected(amount.error());
            const bool accelerator = std::string_view(unit) == "SHARE";
            json& slot = accelerator ? body["poolAccelerators"][*name][field] : body[field][*name];
            slot = *amount ? json(**amount) : json(nullptr);
        }
    for (const std::string& node : parsed->all("--remove-node")) {
        auto name = nameValue(cmd, "--remove-node", node);
        if (!name)
            return tl::unexpected(name.error());
        body["removeNodes"].push_back(*name);
    }
    return session.callAndShow(
        HttpMethod::Post, "/v1/whatif",
        [](const json& j) {
            printFields({ { "Profile", text(j, "profile") }, { "Idle GPUs now", decimal(real(j, "idleGpusNow"), 0) },
                { "GPUs freed", decimal(real(j, "gpusFreed"), 0) },
                { "GPUs freed by the change", decimal(real(j, "gpusFreedByChange"), 0) } });
            std::puts("");
            Table outcomes({ "RE-SIMULATION", "PLACED", "WAITING", "MOVES", "STARTED", "STOPPED", "SLO-AT-RISK", "IDLE-GPUS" });
            for (const auto& [label, key] : { std::pair { "with the change", "withChange" }, { "without it", "withoutChange" } }) {
                const json o = j.value(key, json::object());
                outcomes.add({ label, text(o, "placed"), text(o, "waiting"), text(o, "moves"), text(o, "started"),
                    text(o, "stopped"), text(o, "sloAtRisk"), decimal(real(o, "idleGpus"), 0) });
            }
            outcomes.print();
            // What the change alone does (with it against without it), then every place the re-simulation with the
            // change differs from now: a re-simulation reshuffles what runs now, which is not the change's doing.
            const auto printMoves = [](const json& list, const char* heading, const char* from) {
                std::puts("");
                if (!list.is_array() || list.empty()) {
                    std::printf("%s: none\n", heading);
                    return;
                }
                std::printf("%s:\n", heading);
                Table moves({ "ID", "NAME", from, "WITH THE CHANGE", "LATENCY-SENSITIVE" });
                for (const json& m : list)
                    moves.add({ text(m, "id"), clip(text(m, "name"), 40), text(m, "from", "(waiting)"),
                        text(m, "to", "(waiting)"), m.value("latencySensitive", false) ? "yes" : "no" });
                moves.print();
            };
            printMoves(j.value("effect", json::array()), "What the change does (against the re-simulation without it)",
                "WITHOUT IT");
            printMoves(j.value("changes", json::array()), "Against where work is now", "NOW");
        },
        body.dump());
}

} // namespace tidepool::ctl
