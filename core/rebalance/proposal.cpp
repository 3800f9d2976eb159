#include "core/rebalance/proposal.h"

#include <algorithm>
#include <array>
#include <cstdlib>

namespace tidepool::rebalance {

namespace {

using nlohmann::json;

constexpr std::array<std::string_view, kProposalKindCount> kKinds { "", "quota", "power_down", "power_up", "lend",
    "reclaim", "consolidate", "migrate", "defer", "resize" };
constexpr std::array<std::string_view, 7> kStates { "", "pending", "approved", "rejected", "expired", "applied", "failed" };
constexpr std::array<std::string_view, 4> kRisks { "", "low", "medium", "high" };
constexpr std::array<std::string_view, 19> kActionTypes { "", "set_cpu_quota", "cordon", "uncordon", "reserve",
    "release", "migrate", "take_cpu_quota", "give_cpu_quota", "hold_deferrable", "drain", "evict", "set_memory_quota",
    "take_memory_quota", "give_memory_quota", "set_accelerator_quota", "take_accelerator_quota",
    "give_accelerator_quota", "resize" };
static_assert(static_cast<std::size_t>(Action::Type::Resize) + 1 == kActionTypes.size());

template <typename E, std::size_t N> std::optional<E> parseName(const std::array<std::string_view, N>& names, std::string_view text)
{
    for (std::size_t i = 1; i < N; ++i)
        if (names[i] == text)
            return static_cast<E>(i);
    return std::nullopt;
}

} // namespace

QuotaAmounts quotaAmounts(const Action& a)
{
    if (a.changesCpuQuota())
        return { a.cpuMillis, a.expectCpuMillis };
    if (a.changesMemoryQuota())
        return { a.memoryMiB, a.expectMemoryMiB };
    return { a.quotaShare, a.expectQuotaShare };
}

std::string_view toString(ProposalKind kind) { return kKinds[static_cast<std::size_t>(kind)]; }
std::string_view toString(ProposalState state) { return kStates[static_cast<std::size_t>(state)]; }
std::string_view toString(Risk risk) { return kRisks[static_cast<std::size_t>(risk)]; }
std::optional<ProposalKind> parseProposalKind(std::string_view text) { return parseName<ProposalKind>(kKinds, text); }
std::optional<ProposalState> parseProposalState(std::string_view text) { return parseName<ProposalState>(kStates, text); }
std::optional<Risk> parseRisk(std::string_view text) { return parseName<Risk>(kRisks, text); }

bool equivalentPlans(const std::vector<Action>& a, const std::vector<Action>& b, QuotaSteps steps)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const Action& x = a[i];
        const Action& y = b[i];
        if (x.type != y.type || x.target != y.target || x.accelerator != y.accelerator)
            return false;
        if (x.type == Action::Type::Resize) {
            // Measured peaks move a little between evaluations: the same workload from the same requests to within a
            // tenth (or a quota step) of the new ones is the same advice.
            const auto near = [](std::int64_t u, std::int64_t v, std::int64_t step) {
                return std::abs(u - v) <= std::max<std::int64_t>(step, std::max(u, v) / 10);
            };
            if (x.workload != y.workload || x.expectCpuMillis != y.expectCpuMillis
                || x.expectMemoryMiB != y.expectMemoryMiB || !near(x.cpuMillis, y.cpuMillis, steps.cpuMillis)
                || !near(x.memoryMiB, y.memoryMiB, steps.memoryMiB))
                return false;
            continue;
        }
        if (!x.changesQuota()) {
            if (!(x == y))
                return false;
            continue;
        }
        // A set: on the same quota, to within a step. A take or give: the amount and the donor's floor, each within a
        // step.
        const QuotaAmounts u = quotaAmounts(x), v = quotaAmounts(y);
        const std::int64_t step = x.changesCpuQuota() ? steps.cpuMillis
            : x.changesMemoryQuota()                  ? steps.memoryMiB
                                                      : steps.acceleratorShare[static_cast<std::size_t>(x.accelerator)];
        const bool set = x.type == Action::Type::SetCpuQuota || x.type == Action::Type::SetMemoryQuota
            || x.type == Action::Type::SetAcceleratorQuota;
        if (std::abs(u.amount - v.amount) > step || (set ? u.expect != v.expect : std::abs(u.expect - v.expect) > step))
            return false;
    }
    return true;
}

json toJson(const Action& action)
{
    json j { { "action", std::string(kActionTypes[static_cast<std::size_t>(action.type)]) }, { "target", action.target } };
    if (action.type == Action::Type::TakeCpuQuota || action.type == Action::Type::GiveCpuQuota) {
        j["cpuMillis"] = action.cpuMillis;
        j["floorCpuMillis"] = action.expectCpuMillis;
    }
    if (action.type == Action::Type::SetCpuQuota) {
        j["cpuMillis"] = action.cpuMillis;
        j["expectCpuMillis"] = action.expectCpuMillis;
    }
    if (action.type == Action::Type::TakeMemoryQuota || action.type == Action::Type::GiveMemoryQuota) {
        j["memoryMiB"] = action.memoryMiB;
        j["floorMemoryMiB"] = action.expectMemoryMiB;
    }
    if (action.type == Action::Type::SetMemoryQuota) {
        j["memoryMiB"] = action.memoryMiB;
        j["expectMemoryMiB"] = action.expectMemoryMiB;
    }
    if (action.changesAcceleratorQuota()) {
        j["accelerator"] = std::string(toString(action.accelerator));
        j["quotaShare"] = action.quotaShare;
        j[action.type == Action::Type::SetAcceleratorQuota ? "expectQuotaShare" : "floorQuotaShare"]
            = action.expectQuotaShare;
    }
    if (action.type == Action::Type::Cordon)
        j["reason"] = action.reason;
    if (action.type == Action::Type::HoldDeferrable)
        j["untilMs"] = action.untilMs;
    if (action.type == Action::Type::Resize) {
        j["workload"] = action.workload;
        j["cpuMillis"] = action.cpuMillis;
        j["expectCpuMillis"] = action.expectCpuMillis;
        j["memoryMiB"] = action.memoryMiB;
        j["expectMemoryMiB"] = action.expectMemoryMiB;
    }
    if (action.type == Action::Type::Migrate) {
        j["workload"] = action.workload;
        j["from"] = action.from;
        j["fromDevice"] = action.fromDevice;
        j["device"] = action.device;
        j["share"] = action.share;
    }
    return j;
}

json toJson(const Effect& effect)
{
    return json { { "utilisationBefore", effect.utilisationBefore }, { "utilisationAfter", effect.utilisationAfter },
        { "gpusFreed", effect.gpusFreed }, { "wattsSaved", effect.wattsSaved },
        { "co2GramsPerHour", effect.co2GramsPerHour }, { "sloRisk", effect.sloRisk },
        { "sloRiskWhy", toJson(effect.sloRiskWhy) } };
}

json toJson(const Proposal& p)
{
    json plan = json::array();
    for (const Action& a : p.plan)
        plan.push_back(toJson(a));
    return json { { "id", p.id }, { "kind", std::string(toString(p.kind)) },
        { "state", std::string(toString(p.state)) }, { "risk", std::string(toString(p.risk)) }, { "key", p.key },
        { "reason", p.reason }, { "why", toJson(p.why) }, { "effect", toJson(p.effect) }, { "plan", std::move(plan) },
        { "stateVersion", p.stateVersion }, { "createdMs", p.createdMs }, { "expiresMs", p.expiresMs },
        { "decidedBy", p.decidedBy }, { "decidedMs", p.decidedMs }, { "steps", p.steps }, { "detail", p.detail } };
}

store::StoredProposal toStored(const Proposal& p)
{
    json actions = json::array();
    for (const Action& a : p.plan)
        actions.push_back(toJson(a));
    return store::StoredProposal { p.id, std::string(toString(p.kind)), std::string(toString(p.state)),
        std::string(toString(p.risk)), p.reason, toJson(p.effect),
        json { { "key", p.key }, { "actions", std::move(actions) }, { "why", toJson(p.why) } },
        static_cast<std::int64_t>(p.stateVersion), p.createdMs, p.expiresMs, p.decidedBy, p.decidedMs, p.steps,
        p.detail };
}

Expected<Proposal> fromStored(const store::StoredProposal& s)
{
    const std::string where = "stored proposal " + std::to_string(s.id) + ": ";
    Proposal p;
    p.id = s.id;
    const auto kind = parseProposalKind(s.kind);
    const auto state = parseProposalState(s.state);
    const auto risk = parseRisk(s.risk);
    if (!kind || !state || !risk)
        return makeError(ErrorCode::ParseError, where + "unknown kind, state or risk (" + s.kind + ", " + s.state + ", " + s.risk + ")");
    p.kind = *kind;
    p.state = *state;
    p.risk = *risk;
    p.reason = s.reason;
    if (!s.plan.is_object() || !s.plan.contains("actions") || !s.plan["actions"].is_array())
        return makeError(ErrorCode::ParseError, where + "field `plan` holds no actions");
    p.key = s.plan.value("key", std::string());
    if (const auto why = s.plan.find("why"); why != s.plan.end()) { // proposals stored before session 22 have none
        auto clauses = whyFromJson(*why, "plan.why");
        if (!clauses)
            return makeError(ErrorCode::ParseError, where + clauses.error().message);
        p.why = std::move(*clauses);
    }
    for (const json& a : s.plan["actions"]) {
        Action action;
        const auto type = parseName<Action::Type>(kActionTypes, a.value("action", std::string()));
        if (!type)
            return makeError(ErrorCode::ParseError, where + "field `plan.actions` has an unknown action");
        action.type = *type;
        action.target = a.value("target", std::string());
        action.cpuMillis = a.value("cpuMillis", std::int64_t { 0 });
        action.expectCpuMillis = a.value(a.contains("floorCpuMillis") ? "floorCpuMillis" : "expectCpuMillis", std::int64_t { 0 });
        action.memoryMiB = a.value("memoryMiB", std::int64_t { 0 });
        action.expectMemoryMiB
            = a.value(a.contains("floorMemoryMiB") ? "floorMemoryMiB" : "expectMemoryMiB", std::int64_t { 0 });
        if (action.changesAcceleratorQuota()) {
            const auto kind = parseAcceleratorKind(a.value("accelerator", std::string()));
            if (!kind || *kind == AcceleratorKind::None)
                return makeError(
                    ErrorCode::ParseError, where + "field `plan.actions.accelerator` names no accelerator kind");
            action.accelerator = *kind;
            action.quotaShare = a.value("quotaShare", std::int64_t { 0 });
            action.expectQuotaShare
                = a.value(a.contains("floorQuotaShare") ? "floorQuotaShare" : "expectQuotaShare", std::int64_t { 0 });
        }
        action.reason = a.value("reason", std::string());
        action.workload = a.value("workload", std::int64_t { 0 });
        action.from = a.value("from", std::string());
        action.fromDevice = a.value("fromDevice", -1);
        action.device = a.value("device", -1);
        action.share = a.value("share", 0);
        action.untilMs = a.value("untilMs", std::int64_t { 0 });
        p.plan.push_back(std::move(action));
    }
    if (s.effect.is_object()) {
        p.effect.utilisationBefore = s.effect.value("utilisationBefore", 0.0);
        p.effect.utilisationAfter = s.effect.value("utilisationAfter", 0.0);
        p.effect.gpusFreed = s.effect.value("gpusFreed", 0.0);
        p.effect.wattsSaved = s.effect.value("wattsSaved", 0.0);
        p.effect.co2GramsPerHour = s.effect.value("co2GramsPerHour", 0.0);
        p.effect.sloRisk = s.effect.value("sloRisk", std::string());
        if (const auto why = s.effect.find("sloRiskWhy"); why != s.effect.end()) {
            auto clauses = whyFromJson(*why, "effect.sloRiskWhy");
            if (!clauses)
                return makeError(ErrorCode::ParseError, where + clauses.error().message);
            p.effect.sloRiskWhy = std::move(*clauses);
        }
    }
    p.stateVersion = static_cast<std::uint64_t>(s.stateVersion);
    p.createdMs = s.createdMs;
    p.expiresMs = s.expiresMs;
    p.decidedBy = s.decidedBy;
    p.decidedMs = s.decidedMs;
    p.steps = s.steps.is_array() ? s.steps : json::array();
    p.detail = s.detail;
    return p;
}

void explain(Proposal& p, Why why)
{
    p.reason = english(why);
    p.why = std::move(why);
}

void explainRisk(Effect& effect, Why why)
{
    effect.sloRisk = english(why);
    effect.sloRiskWhy = std::move(why);
}

} // namespace tidepool::rebalance
