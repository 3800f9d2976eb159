#include "core/report/report_json.h"

namespace tidepool::report {

using nlohmann::json;

namespace {

json number(double value)
{
    return measured(value) && !std::isinf(value) ? json(value) : json(nullptr);
}

json numbers(const std::vector<double>& values)
{
    json out = json::array();
    for (const double v : values)
        out.push_back(number(v));
    return out;
}

// Reads fields of one object, remembering the first that was wrong.
class Reader {
public:
    Reader(const json& object, std::string path, std::string* error)
        : m_object(object)
        , m_path(std::move(path))
        , m_error(error)
    {
        if (!object.is_object())
            fail("");
    }

    double number(const char* key)
    {
        const json* v = find(key);
        if (!v || v->is_null())
            return kNotMeasured;
        if (!v->is_number()) {
            fail(key);
            return kNotMeasured;
        }
        return v->get<double>();
    }
    std::int64_t integer(const char* key)
    {
        const json* v = find(key);
        if (!v || !v->is_number_integer()) {
            fail(key);
            return 0;
        }
        return v->get<std::int64_t>();
    }
    std::string text(const char* key)
    {
        const json* v = find(key);
        if (!v || !v->is_string()) {
            fail(key);
            return {};
        }
        return v->get<std::string>();
    }
    // A string that may be absent (a field newer reports add): empty then.
    std::string optionalText(const char* key)
    {
        const json* v = find(key);
        return v ? text(key) : std::string();
    }
    std::vector<double> numbers(const char* key)
    {
        std::vector<double> out;
        const json* v = find(key);
        if (!v || !v->is_array()) {
            fail(key);
            return out;
        }
        for (const json& item : *v) {
            if (!item.is_null() && !item.is_number()) {
                fail(key);
                return out;
            }
            out.push_back(item.is_null() ? kNotMeasured : item.get<double>());
        }
        return out;
    }
    const json& array(const char* key)
    {
        static const json kEmpty = json::array();
        const json* v = find(key);
        if (!v || !v->is_array()) {
            fail(key);
            return kEmpty;
        }
        return *v;
    }
    const json& object(const char* key)
    {
        static const json kEmpty = json::object();
        const json* v = find(key);
        if (!v || !v->is_object()) {
            fail(key);
            return kEmpty;
        }
        return *v;
    }
    std::string path(const char* key) const { return m_path.empty() ? key : m_path + "." + key; }
    std::string* error() const { return m_error; }

private:
    const json* find(const char* key) const
    {
        if (!m_object.is_object())
            return nullptr;
        const auto it = m_object.find(key);
        return it == m_object.end() ? nullptr : &*it;
    }
    void fail(const char* key)
    {
        if (m_error->empty())
            *m_error = *key ? path(key) : (m_path.empty() ? std::string("the report") : m_path);
    }

    const json& m_object;
    std::string m_path;
    std::string* m_error;
};

std::string item(const Reader& parent, const char* key, std::size_t i)
{
    return parent.path(key) + "[" + std::to_string(i) + "]";
}

} // namespace

json toJson(const ReportData& d)
{
    json utilisation = json::array();
    for (const ResourceUse& u : d.utilisation)
        utilisation.push_back({ { "resource", u.resource }, { "unit", u.unit }, { "capacity", number(u.capacity) },
            { "requestedMean", number(u.requestedMean) }, { "requestedPeak", number(u.requestedPeak) },
            { "usedMean", number(u.usedMean) }, { "usedPeak", number(u.usedPeak) },
            { "requested", numbers(u.requested) }, { "used", numbers(u.used) }, { "usedBy", u.usedBy } });
    json tiers = json::array();
    for (const TierOccupancy& t : d.tiers)
        tiers.push_back({ { "tier", t.tier }, { "nodes", t.nodes }, { "cpuCapacity", number(t.cpuCapacity) },
            { "cpuAllocatedMean", number(t.cpuAllocatedMean) }, { "cpuRequestedMean", number(t.cpuRequestedMean) },
            { "cpuUsedMean", number(t.cpuUsedMean) }, { "acceleratorCapacity", number(t.acceleratorCapacity) },
            { "acceleratorAllocatedMean", number(t.acceleratorAllocatedMean) },
            { "acceleratorRequestedMean", number(t.acceleratorRequestedMean) } });
    json forecasts = json::array();
    for (const ForecastAccuracy& f : d.forecasts)
        forecasts.push_back({ { "pool", f.pool }, { "resource", f.resource }, { "model", f.model },
            { "smapePct", number(f.smapePct) }, { "coveragePct", number(f.coveragePct) }, { "mase", number(f.mase) },
            { "scoredPoints", f.scoredPoints }, { "note", f.note } });
    json proposals = json::array();
    for (const ProposalOutcome& p : d.proposals)
        proposals.push_back({ { "id", p.id }, { "kind", p.kind }, { "state", p.state }, { "risk", p.risk },
            { "reason", p.reason }, { "createdMs", p.createdMs }, { "decidedMs", p.decidedMs },
            { "decidedBy", p.decidedBy }, { "predictedUtilisation", number(p.predictedUtilisation) },
            { "realisedUtilisation", number(p.realisedUtilisation) },
            { "predictedWattsSaved", number(p.predictedWattsSaved) } });
    json costs = json::array();
    for (const BusinessLineCost& c : d.costs) {
        costs.push_back({ { "businessLine", c.businessLine }, { "cpuCoreHours", number(c.cpuCoreHours) },
            { "memoryGiBHours", number(c.memoryGiBHours) }, { "acceleratorHours", number(c.acceleratorHours) },
            { "cost", number(c.cost) } });
        if (!c.pool.empty())
            costs.back()["pool"] = c.pool;
    }
    const PendingStats& p = d.pending;
    return {
        { "request",
            { { "fromMs", d.request.fromMs }, { "toMs", d.request.toMs },
                { "scope", std::string(toString(d.request.scope)) }, { "name", d.request.name },
                { "language", std::string(toString(d.request.language)) } } },
        { "generatedMs", d.generatedMs },
        { "stepMs", d.stepMs },
        { "buckets", d.buckets },
        { "nodes", d.nodes },
        { "pools", d.pools },
        { "utilisation", std::move(utilisation) },
        { "tiers", std::move(tiers) },
        { "pending",
            { { "submitted", p.submitted }, { "placed", p.placed }, { "waiting", p.waiting },
                { "meanMs", number(p.meanMs) }, { "p50Ms", number(p.p50Ms) }, { "p90Ms", number(p.p90Ms) },
                { "maxMs", number(p.maxMs) } } },
        { "forecasts", std::move(forecasts) },
        { "proposals", std::move(proposals) },
        { "energy",
            { { "kWh", number(d.energy.kWh) }, { "co2Kg", number(d.energy.co2Kg) },
                { "meanWatts", number(d.energy.meanWatts) }, { "gramsPerKWh", number(d.energy.gramsPerKWh) },
                { "kWhPerBucket", numbers(d.energy.kWhPerBucket) } } },
        { "currency", d.currency },
        { "costs", std::move(costs) },
        { "notes", d.notes },
    };
}

Expected<ReportData> reportFromJson(const json& j)
{
    std::string error;
    ReportData d;
    Reader r(j, "", &error);
    Reader request(r.object("request"), "request", &error);
    d.request.fromMs = request.integer("fromMs");
    d.request.toMs = request.integer("toMs");
    const auto scope = parseScopeKind(request.text("scope"));
    const auto language = parseLanguage(request.text("language"));
    d.request.name = request.text("name");
    if (error.empty() && (!scope || !language))
        error = !scope ? "request.scope" : "request.language";
    d.request.scope = scope.value_or(ScopeKind::Invalid);
    d.request.language = language.value_or(Language::Invalid);
    d.generatedMs = r.integer("generatedMs");
    d.stepMs = r.integer("stepMs");
    for (const json& b : r.array("buckets"))
        d.buckets.push_back(b.is_number_integer() ? b.get<std::int64_t>() : 0);
    d.nodes = static_cast<int>(r.integer("nodes"));
    d.pools = static_cast<int>(r.integer("pools"));
    const json& utilisation = r.array("utilisation");
    for (std::size_t i = 0; i < utilisation.size(); ++i) {
        Reader u(utilisation[i], item(r, "utilisation", i), &error);
        d.utilisation.push_back({ u.text("resource"), u.text("unit"), u.number("capacity"), u.number("requestedMean"),
            u.number("requestedPeak"), u.number("usedMean"), u.number("usedPeak"), u.numbers("requested"),
            u.numbers("used") });
        // Reports from before measured pool use say nothing: theirs was the nodes'.
        if (const std::string by = u.optionalText("usedBy"); !by.empty())
            d.utilisation.back().usedBy = by;
    }
    const json& tiers = r.array("tiers");
    for (std::size_t i = 0; i < tiers.size(); ++i) {
        Reader t(tiers[i], item(r, "tiers", i), &error);
        d.tiers.push_back({ t.text("tier"), static_cast<int>(t.integer("nodes")), t.number("cpuCapacity"),
            t.number("cpuAllocatedMean"), t.number("cpuRequestedMean"), t.number("cpuUsedMean"),
            t.number("acceleratorCapacity"), t.number("acceleratorAllocatedMean"),
            t.number("acceleratorRequestedMean") });
    }
    Reader p(r.object("pending"), "pending", &error);
    d.pending = { static_cast<int>(p.integer("submitted")), static_cast<int>(p.integer("placed")),
        static_cast<int>(p.integer("waiting")), p.number("meanMs"), p.number("p50Ms"), p.number("p90Ms"),
        p.number("maxMs") };
    const json& forecasts = r.array("forecasts");
    for (std::size_t i = 0; i < forecasts.size(); ++i) {
        Reader f(forecasts[i], item(r, "forecasts", i), &error);
        d.forecasts.push_back(
            { f.text("pool"), f.text("resource"), f.text("model"), f.number("smapePct"), f.number("coveragePct"),
                f.number("mase"), static_cast<std::size_t>(f.integer("scoredPoints")), f.text("note") });
    }
    const json& proposals = r.array("proposals");
    for (std::size_t i = 0; i < proposals.size(); ++i) {
        Reader o(proposals[i], item(r, "proposals", i), &error);
        d.proposals.push_back({ o.integer("id"), o.text("kind"), o.text("state"), o.text("risk"), o.text("reason"),
            o.integer("createdMs"), o.integer("decidedMs"), o.text("decidedBy"), o.number("predictedUtilisation"),
            o.number("realisedUtilisation"), o.number("predictedWattsSaved") });
    }
    Reader e(r.object("energy"), "energy", &error);
    d.energy = { e.number("kWh"), e.number("co2Kg"), e.number("meanWatts"), e.number("gramsPerKWh"),
        e.numbers("kWhPerBucket") };
    d.currency = r.text("currency");
    const json& costs = r.array("costs");
    for (std::size_t i = 0; i < costs.size(); ++i) {
        Reader c(costs[i], item(r, "costs", i), &error);
        d.costs.push_back({ c.text("businessLine"), c.number("cpuCoreHours"), c.number("memoryGiBHours"),
            c.number("acceleratorHours"), c.number("cost"), c.optionalText("pool") });
    }
    for (const json& n : r.array("notes"))
        d.notes.push_back(n.is_string() ? n.get<std::string>() : std::string());
    if (!error.empty())
        return makeError(ErrorCode::ParseError, "the report's JSON has no valid `" + error + "`");
    if (d.stepMs <= 0)
        return makeError(ErrorCode::ParseError, "the report's JSON has no valid `stepMs`");
    for (const ResourceUse& u : d.utilisation)
        if (u.requested.size() != d.buckets.size() || u.used.size() != d.buckets.size())
            return makeError(ErrorCode::ParseError, "the report's JSON has series of another length than `buckets`");
    if (d.energy.kWhPerBucket.size() != d.buckets.size())
        return makeError(ErrorCode::ParseError, "the report's JSON has series of another length than `buckets`");
    return d;
}

} // namespace tidepool::report
