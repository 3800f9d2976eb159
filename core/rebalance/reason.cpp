#include "core/rebalance/reason.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>

// Marks a form for Qt Linguist (`update_translations` reads this file; the console translates the forms in context
// "Reason"). The core has no Qt: the macro only names the text.
#define QT_TRANSLATE_NOOP(context, text) text

namespace tidepool::rebalance {

namespace {

using nlohmann::json;

constexpr std::array kForms {
    // Peak shifting (quotas).
    ReasonForm { "quota-above",
        QT_TRANSLATE_NOOP("Reason",
            "pool %1 is forecast to need %2 (p90) around %3, %4 with %5% headroom, above its %6 quota of %7") },
    ReasonForm { "quota-raise", QT_TRANSLATE_NOOP("Reason", "raise it to %1 ahead of the peak") },
    ReasonForm { "quota-from-pool", QT_TRANSLATE_NOOP("Reason", "take %1 from pool %2") },
    ReasonForm { "quota-from-capacity", QT_TRANSLATE_NOOP("Reason", "take %1 of capacity no quota holds") },
    ReasonForm { "quota-fits-base",
        QT_TRANSLATE_NOOP("Reason", "pool %1's forecast peak (%2 p90) fits its base %3 quota of %4 again") },
    ReasonForm { "quota-give-back", QT_TRANSLATE_NOOP("Reason", "give back the %1 it was raised by") },
    // Lending the hot tier's GPUs.
    ReasonForm { "hot-peak",
        QT_TRANSLATE_NOOP("Reason", "hot-tier accelerator demand is forecast to reach %1 devices (p90) around %2") },
    ReasonForm { "hot-peak-later", QT_TRANSLATE_NOOP("Reason", "it is forecast to reach %1 devices (p90) around %2") },
    ReasonForm { "hot-power-up",
        QT_TRANSLATE_NOOP("Reason",
            "power hot node %1 up again and reserve its %2 accelerators for it, rather than stop the batch on lent "
            "nodes") },
    ReasonForm { "hot-reserve", QT_TRANSLATE_NOOP("Reason", "reserve %1 more hot nodes (%2 devices) for it") },
    ReasonForm { "hot-make-room", QT_TRANSLATE_NOOP("Reason", "make room on %1 drained hot nodes") },
    ReasonForm {
        "hot-move-batch", QT_TRANSLATE_NOOP("Reason", "move the %1 batch workloads on them to the cold tier") },
    ReasonForm { "hot-drain",
        QT_TRANSLATE_NOOP("Reason", "drain %1 hot nodes (%2 devices) for it, starting no new batch there") },
    ReasonForm { "hot-drain-batch-ends",
        QT_TRANSLATE_NOOP("Reason", "let the %1 batch workloads running there end on their own until then") },
    ReasonForm { "hot-stays-under",
        QT_TRANSLATE_NOOP(
            "Reason", "hot-tier accelerator demand is forecast to stay under %1 devices (p90) for the lookahead") },
    ReasonForm { "hot-lend",
        QT_TRANSLATE_NOOP("Reason", "lend %1 reserved hot nodes (%2 devices) to batch until the next peak") },
    // Carbon.
    ReasonForm { "carbon-falls",
        QT_TRANSLATE_NOOP(
            "Reason", "the grid's carbon intensity is %1 g/kWh now and forecast to fall to %2 g/kWh at %3") },
    ReasonForm { "carbon-hold",
        QT_TRANSLATE_NOOP("Reason", "hold deferrable batch until then (each still starts by its own deadline)") },
    // Energy.
    ReasonForm { "accelerators-short",
        QT_TRANSLATE_NOOP("Reason",
            "%1 accelerators in service fall %2 short of the hot tier's forecast %1 peak with headroom and the %1 work "
            "waiting for them") },
    ReasonForm {
        "power-up-for-accelerators", QT_TRANSLATE_NOOP("Reason", "power node %1 up again for its %2 %3 accelerators") },
    ReasonForm { "capacity-short",
        QT_TRANSLATE_NOOP(
            "Reason", "the forecast %1 peak (%2 p90, %3 with headroom) exceeds the %4 of nodes in service") },
    ReasonForm { "capacity-short-tiers",
        QT_TRANSLATE_NOOP("Reason",
            "the forecast %1 peak of work that may run only on %2 nodes (%3 p90, %4 with headroom) exceeds the %5 of "
            "%2 "
            "nodes in service") },
    ReasonForm { "power-up", QT_TRANSLATE_NOOP("Reason", "power node %1 up again") },
    ReasonForm { "node-idle", QT_TRANSLATE_NOOP("Reason", "node %1 has run nothing for %2 minutes") },
    ReasonForm { "rest-holds-cpu",
        QT_TRANSLATE_NOOP("Reason", "the rest of the cluster holds the forecast CPU peak (%1 p90) with headroom") },
    ReasonForm { "rest-holds-cpu-memory",
        QT_TRANSLATE_NOOP("Reason",
            "the rest of the cluster holds the forecast CPU peak (%1 p90) and memory peak (%2 p90) with headroom") },
    ReasonForm { "recent-peak-pools",
        QT_TRANSLATE_NOOP(
            "Reason", "pools %1 are counted at the highest load of the last day: too little history for a forecast") },
    ReasonForm { "accelerators-left",
        QT_TRANSLATE_NOOP("Reason",
            "no %1 work waits, and the %2 left in service hold the hot tier's forecast %1 peak (%3 with headroom)") },
    ReasonForm { "accelerators-left-free",
        QT_TRANSLATE_NOOP("Reason",
            "no %1 work waits, and the %2 left in service with no batch on them hold the hot tier's forecast %1 peak "
            "(%3 with headroom)") },
    ReasonForm { "power-down", QT_TRANSLATE_NOOP("Reason", "cordon it and power it down") },
    // Defragmentation and hot spots.
    ReasonForm { "gpus-fragmented",
        QT_TRANSLATE_NOOP("Reason",
            "GPUs are fragmented: moving %1 batch workloads that hold shares of partly used GPUs onto other partly "
            "used "
            "GPUs frees %2 whole GPUs") },
    ReasonForm { "whole-gpus-wanted", QT_TRANSLATE_NOOP("Reason", "waiting work wants %1") },
    ReasonForm { "moved-restart", QT_TRANSLATE_NOOP("Reason", "each moved workload restarts") },
    ReasonForm { "hot-spot", QT_TRANSLATE_NOOP("Reason", "node %1 runs at or above %2% CPU") },
    ReasonForm { "off-tier",
        QT_TRANSLATE_NOOP(
            "Reason", "pool %1 keeps its workloads on the %2 tier; %3 of them still run on other tiers' nodes") },
    ReasonForm { "off-tier-moves", QT_TRANSLATE_NOOP("Reason", "move %1 of them to nodes of its tier that take them") },
    ReasonForm { "hot-spots", QT_TRANSLATE_NOOP("Reason", "nodes %1 run at or above %2% CPU") },
    ReasonForm {
        "hot-spot-moves", QT_TRANSLATE_NOOP("Reason", "move %1 batch workloads to the coolest nodes that take them") },
    // Right-sizing (`resize`).
    ReasonForm { "resize-measured",
        QT_TRANSLATE_NOOP("Reason",
            "%1 running workloads of pool %2 used at most %3 and %4 together (each its peak over at least %5 hours), "
            "against the %6 and %7 they ask for") },
    ReasonForm {
        "resize-to", QT_TRANSLATE_NOOP("Reason", "ask for %1 and %2 instead: each its peak with %3% to spare") },
    // Since CPU is sized from a percentile of its samples (proposals from before kept the two above).
    ReasonForm { "resize-used",
        QT_TRANSLATE_NOOP("Reason",
            "%1 running workloads of pool %2 used %3 (each the %4th percentile of its CPU samples) and at most %5 "
            "(each "
            "its memory's peak) together over at least %6 hours, against the %7 and %8 they ask for") },
    ReasonForm {
        "resize-to-target", QT_TRANSLATE_NOOP("Reason", "ask for %1 and %2 instead: each of those with %3% to spare") },
    ReasonForm { "resize-raised", QT_TRANSLATE_NOOP("Reason", "%1 of them use more than they ask for") },
    ReasonForm { "resize-no-room",
        QT_TRANSLATE_NOOP("Reason",
            "%1 more use more than they ask for, but their nodes or the pool's quota have no room to raise them now") },
    ReasonForm { "resize-in-place",
        QT_TRANSLATE_NOOP("Reason", "each is resized where it runs, without a restart; its limits stay") },
    // Service-level risk (`Effect::sloRiskWhy`).
    ReasonForm { "risk-fits-raised", QT_TRANSLATE_NOOP("Reason", "none: the p90 peak fits the raised %1 quota") },
    ReasonForm { "risk-exceeds-raised",
        QT_TRANSLATE_NOOP("Reason", "the p90 peak still exceeds the raised %1 quota: work will wait") },
    ReasonForm {
        "risk-fits-base", QT_TRANSLATE_NOOP("Reason", "none: the p90 peak with headroom fits the base %1 quota") },
    ReasonForm { "risk-held-by",
        QT_TRANSLATE_NOOP(
            "Reason", "the pool's %1 quota of %2 still holds it below its forecast need of %3: work will wait") },
    ReasonForm { "risk-raise-too",
        QT_TRANSLATE_NOOP("Reason", "the peak also needs the %1 raise proposed with it: approve both") },
    ReasonForm {
        "risk-reserved", QT_TRANSLATE_NOOP("Reason", "lowers it: the forecast peak finds reserved accelerators") },
    ReasonForm { "risk-reserved-spare",
        QT_TRANSLATE_NOOP("Reason", "none: what stays reserved holds the peak with 50% to spare") },
    ReasonForm { "risk-reserved-headroom",
        QT_TRANSLATE_NOOP("Reason", "what stays reserved holds the forecast peak with headroom") },
    ReasonForm { "risk-deferrable",
        QT_TRANSLATE_NOOP("Reason", "none: only deferrable batch waits, and never past its deadline") },
    ReasonForm { "risk-waiting-placed", QT_TRANSLATE_NOOP("Reason", "lowers it: waiting work gets a place") },
    ReasonForm { "risk-more-capacity", QT_TRANSLATE_NOOP("Reason", "lowers it: more capacity for the peak") },
    ReasonForm { "risk-rest-twice", QT_TRANSLATE_NOOP("Reason", "none: the rest holds twice the forecast peak") },
    ReasonForm { "risk-rest-spare", QT_TRANSLATE_NOOP("Reason", "the rest holds the forecast peak with %1% to spare") },
    ReasonForm { "risk-batch-moves",
        QT_TRANSLATE_NOOP("Reason",
            "none for services: only batch moves; the moved batch loses the progress it did not checkpoint") },
    ReasonForm { "risk-hot-spots",
        QT_TRANSLATE_NOOP("Reason", "lowers it for what stays on the hot nodes; the moved batch restarts") },
    ReasonForm { "risk-resize-lower",
        QT_TRANSLATE_NOOP(
            "Reason", "one that later needs more than its peak with the margin competes for what its node has spare") },
    ReasonForm {
        "risk-resize-raise", QT_TRANSLATE_NOOP("Reason", "lowers it: what they use is held for them on their nodes") },
    ReasonForm { "risk-off-tier",
        QT_TRANSLATE_NOOP("Reason", "each moved workload restarts: a service among them is down while it does") },
};

// Terms, and the units of amounts ("unit-<resource>", %1 the number).
constexpr std::array kTerms {
    ReasonForm { "cpu", QT_TRANSLATE_NOOP("Reason", "CPU") },
    ReasonForm { "memory", QT_TRANSLATE_NOOP("Reason", "memory") },
    ReasonForm { "gpu", QT_TRANSLATE_NOOP("Reason", "GPU") },
    ReasonForm { "npu", QT_TRANSLATE_NOOP("Reason", "NPU") },
    ReasonForm { "fpga", QT_TRANSLATE_NOOP("Reason", "FPGA") },
    ReasonForm { "hot", QT_TRANSLATE_NOOP("Reason", "hot") },
    ReasonForm { "warm", QT_TRANSLATE_NOOP("Reason", "warm") },
    ReasonForm { "cold", QT_TRANSLATE_NOOP("Reason", "cold") },
    ReasonForm { "unit-cpu", QT_TRANSLATE_NOOP("Reason", "%1 mCPU") },
    ReasonForm { "unit-memory", QT_TRANSLATE_NOOP("Reason", "%1 MiB") },
    ReasonForm { "unit-gpu", QT_TRANSLATE_NOOP("Reason", "%1 milli-devices") },
    ReasonForm { "unit-npu", QT_TRANSLATE_NOOP("Reason", "%1 NPU cores") },
    ReasonForm { "unit-fpga", QT_TRANSLATE_NOOP("Reason", "%1 FPGA slots") },
};
// A set of terms (tiers: "hot+warm") joins them so.
constexpr std::string_view kTermsJoined = " or ";

const ReasonForm* find(std::span<const ReasonForm> forms, std::string_view code)
{
    const auto it = std::find_if(forms.begin(), forms.end(), [&](const ReasonForm& f) { return f.code == code; });
    return it == forms.end() ? nullptr : &*it;
}

// A term, or a set of them ("hot+warm"), in `translate`'s language; nullopt for a word that is no term.
std::optional<std::string> termText(std::string_view code, const Translate& translate)
{
    std::string text;
    for (std::size_t start = 0; start <= code.size();) {
        const std::size_t plus = std::min(code.find('+', start), code.size());
        const ReasonForm* term = find(kTerms, code.substr(start, plus - start));
        if (!term)
            return std::nullopt;
        text += (start == 0 ? "" : translate(kTermsJoined)) + translate(term->english);
        start = plus + 1;
    }
    return text;
}

// One argument in `translate`'s language; nullopt when it is none of the kinds in the header.
std::optional<std::string> argText(const json& arg, const Translate& translate)
{
    if (arg.is_string())
        return arg.get<std::string>();
    if (arg.is_number_integer())
        return std::to_string(arg.get<std::int64_t>());
    if (arg.is_number())
        return std::to_string(static_cast<std::int64_t>(arg.get<double>()));
    if (!arg.is_object())
        return std::nullopt;
    if (const auto n = arg.find("n"); n != arg.end() && n->is_number()) {
        const ReasonForm* unit = find(kTerms, "unit-" + arg.value("unit", std::string()));
        if (!unit)
            return std::nullopt;
        return fillForm(translate(unit->english), { std::to_string(n->get<std::int64_t>()) });
    }
    if (const auto ms = arg.find("ms"); ms != arg.end() && ms->is_number_integer())
        return clockTime(ms->get<std::int64_t>());
    if (const auto term = arg.find("term"); term != arg.end() && term->is_string())
        return termText(term->get<std::string>(), translate);
    return std::nullopt;
}

std::string asIs(std::string_view english)
{
    return std::string(english);
}

} // namespace

std::string fillForm(std::string_view form, const std::vector<std::string>& args)
{
    std::string text;
    for (std::size_t i = 0; i < form.size(); ++i) {
        if (form[i] == '%' && i + 1 < form.size() && form[i + 1] >= '1' && form[i + 1] <= '9') {
            const auto n = static_cast<std::size_t>(form[i + 1] - '1');
            if (n < args.size()) {
                text += args[n];
                ++i;
                continue;
            }
        }
        text += form[i];
    }
    return text;
}

std::span<const ReasonForm> reasonForms()
{
    return kForms;
}

std::span<const ReasonForm> reasonTerms()
{
    return kTerms;
}

const ReasonForm* reasonForm(std::string_view code)
{
    return find(kForms, code);
}

const ReasonForm* reasonTerm(std::string_view code)
{
    return find(kTerms, code);
}

json amountArg(double value, std::string_view unit)
{
    return json { { "n", static_cast<std::int64_t>(std::floor(value)) }, { "unit", unit } };
}

json timeArg(std::int64_t unixMs)
{
    return json { { "ms", unixMs } };
}

json termArg(std::string_view term)
{
    return json { { "term", term } };
}

Clause clause(std::string_view code, json::array_t args)
{
    return Clause { std::string(code), json(std::move(args)) };
}

std::string clockTime(std::int64_t unixMs)
{
    const auto seconds = static_cast<std::time_t>(unixMs / 1000);
    std::tm utc {};
    gmtime_r(&seconds, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%H:%M UTC", &utc);
    return text;
}

std::string englishArg(const json& arg)
{
    if (auto text = argText(arg, asIs))
        return *std::move(text);
    // What the English has always shown of an argument it cannot read: a term or unit as it is, else the JSON.
    if (arg.is_object()) {
        if (const auto n = arg.find("n"); n != arg.end() && n->is_number())
            return std::to_string(n->get<std::int64_t>()) + " " + arg.value("unit", std::string());
        if (const auto term = arg.find("term"); term != arg.end() && term->is_string())
            return term->get<std::string>();
    }
    return arg.dump();
}

std::string english(const Why& why)
{
    std::string text;
    for (const Clause& c : why) {
        std::vector<std::string> args;
        if (c.args.is_array())
            for (const json& arg : c.args)
                args.push_back(englishArg(arg));
        const ReasonForm* form = reasonForm(c.code);
        text += (text.empty() ? "" : "; ") + (form ? fillForm(form->english, args) : c.code);
    }
    return text;
}

std::optional<std::string> worded(const Why& why, const Translate& translate)
{
    std::string text;
    for (std::size_t i = 0; i < why.size(); ++i) {
        const Clause& c = why[i];
        const ReasonForm* form = reasonForm(c.code);
        if (!form || !c.args.is_array())
            return std::nullopt;
        std::vector<std::string> args;
        for (const json& arg : c.args) {
            auto word = argText(arg, translate);
            if (!word)
                return std::nullopt;
            args.push_back(*std::move(word));
        }
        text += (i == 0 ? "" : translate("; ")) + fillForm(translate(form->english), args);
    }
    return text;
}

json toJson(const Why& why)
{
    json out = json::array();
    for (const Clause& c : why)
        out.push_back(json { { "code", c.code }, { "args", c.args } });
    return out;
}

Expected<Why> whyFromJson(const json& in, std::string_view field)
{
    if (!in.is_array())
        return makeError(ErrorCode::ParseError, "field `" + std::string(field) + "` is not an array of clauses");
    Why why;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const json& c = in[i];
        const std::string where = "field `" + std::string(field) + "[" + std::to_string(i) + "]` ";
        if (!c.is_object() || !c.contains("code") || !c["code"].is_string())
            return makeError(ErrorCode::ParseError, where + "has no `code`");
        if (c.contains("args") && !c["args"].is_array())
            return makeError(ErrorCode::ParseError, where + "has `args` that are not an array");
        why.push_back(Clause { c["code"].get<std::string>(), c.value("args", json::array()) });
    }
    return why;
}

} // namespace tidepool::rebalance
