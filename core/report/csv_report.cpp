#include "core/report/csv_report.h"

#include "core/report/labels.h"

#include <cstdio>

namespace tidepool::report {

namespace {

std::string csvNumber(double value)
{
    if (!measured(value) || std::isinf(value))
        return {};
    // Plain decimals (no exponent, which some spreadsheets read as text), at most four places, no trailing zeros.
    char text[64];
    std::snprintf(text, sizeof text, "%.4f", value);
    std::string out = text;
    while (!out.empty() && out.back() == '0')
        out.pop_back();
    if (!out.empty() && out.back() == '.')
        out.pop_back();
    return out == "-0" ? "0" : out;
}

class CsvWriter {
public:
    explicit CsvWriter(std::string& out)
        : m_out(out)
    {
    }
    // section, subject, measure, time, value, unit: every field but the value is text.
    void row(std::string_view section, std::string_view subject, std::string_view measure, std::string_view time,
        const std::string& value, std::string_view unit)
    {
        m_out += csvTextField(section) + ',' + csvTextField(subject) + ',' + csvTextField(measure) + ','
            + csvTextField(time) + ',' + value + ',' + csvTextField(unit) + "\r\n";
    }
    void number(std::string_view section, std::string_view subject, std::string_view measure, double value,
        std::string_view unit = {})
    {
        row(section, subject, measure, {}, csvNumber(value), unit);
    }
    void text(std::string_view section, std::string_view subject, std::string_view measure, std::string_view value)
    {
        row(section, subject, measure, {}, csvTextField(value), {});
    }

private:
    std::string& m_out;
};

} // namespace

std::string csvTextField(std::string_view text)
{
    std::string field;
    if (!text.empty()
        && (text[0] == '=' || text[0] == '+' || text[0] == '-' || text[0] == '@' || text[0] == '\t' || text[0] == '\r'))
        field += '\'';
    field += text;
    const bool quote = field.find_first_of(",\"\r\n") != std::string::npos
        || (!field.empty() && (field.front() == ' ' || field.back() == ' '));
    if (!quote)
        return field;
    std::string quoted = "\"";
    for (const char c : field) {
        if (c == '"')
            quoted += '"';
        quoted += c;
    }
    return quoted + '"';
}

std::string renderCsv(const ReportData& d)
{
    const Language lang = d.request.language;
    std::string out = lang == Language::ZhCN ? "\xEF\xBB\xBF" : "";
    CsvWriter csv(out);
    csv.row("section", "subject", "measure", "time", "value", "unit");
    const std::string scope(toString(d.request.scope));
    csv.text("report", scope, "name", d.request.name);
    csv.text("report", scope, "from", formatTime(d.request.fromMs));
    csv.text("report", scope, "to", formatTime(d.request.toMs));
    csv.text("report", scope, "generated", formatTime(d.generatedMs));
    csv.text("report", scope, "language", toString(lang));
    csv.number("report", scope, "nodes", d.nodes);
    csv.number("report", scope, "pools", d.pools);
    for (const ResourceUse& u : d.utilisation) {
        csv.number("utilisation", u.resource, "capacity", u.capacity, u.unit);
        csv.number("utilisation", u.resource, "requested_mean", u.requestedMean, u.unit);
        csv.number("utilisation", u.resource, "requested_peak", u.requestedPeak, u.unit);
        csv.number("utilisation", u.resource, "used_mean", u.usedMean, u.unit);
        csv.number("utilisation", u.resource, "used_peak", u.usedPeak, u.unit);
        for (std::size_t i = 0; i < d.buckets.size(); ++i) {
            const std::string time = formatTime(d.buckets[i]);
            csv.row("utilisation", u.resource, "requested", time, csvNumber(u.requested[i]), u.unit);
            csv.row("utilisation", u.resource, "used", time, csvNumber(u.used[i]), u.unit);
        }
    }
    for (const TierOccupancy& t : d.tiers) {
        csv.number("tiers", t.tier, "nodes", t.nodes);
        csv.number("tiers", t.tier, "cpu_capacity", t.cpuCapacity, "cores");
        csv.number("tiers", t.tier, "cpu_allocated_mean", t.cpuAllocatedMean, "cores");
        csv.number("tiers", t.tier, "cpu_requested_mean", t.cpuRequestedMean, "cores");
        csv.number("tiers", t.tier, "cpu_used_mean", t.cpuUsedMean, "cores");
        csv.number("tiers", t.tier, "accelerator_capacity", t.acceleratorCapacity, "devices");
        csv.number("tiers", t.tier, "accelerator_allocated_mean", t.acceleratorAllocatedMean, "devices");
        csv.number("tiers", t.tier, "accelerator_requested_mean", t.acceleratorRequestedMean, "devices");
    }
    const PendingStats& p = d.pending;
    csv.number("pending", scope, "submitted", p.submitted);
    csv.number("pending", scope, "placed", p.placed);
    csv.number("pending", scope, "waiting", p.waiting);
    csv.number("pending", scope, "mean", p.meanMs, "ms");
    csv.number("pending", scope, "p50", p.p50Ms, "ms");
    csv.number("pending", scope, "p90", p.p90Ms, "ms");
    csv.number("pending", scope, "max", p.maxMs, "ms");
    for (const ForecastAccuracy& f : d.forecasts) {
        csv.text("forecasts", f.pool, "model", f.model);
        csv.number("forecasts", f.pool, "smape", f.smapePct, "%");
        csv.number("forecasts", f.pool, "coverage_p10_p90", f.coveragePct, "%");
        csv.number("forecasts", f.pool, "mase", f.mase);
        csv.number("forecasts", f.pool, "scored_points", static_cast<double>(f.scoredPoints));
        if (!f.note.empty())
            csv.text("forecasts", f.pool, "note", f.note);
    }
    for (const ProposalOutcome& o : d.proposals) {
        const std::string id = "proposal " + std::to_string(o.id);
        csv.text("proposals", id, "kind", o.kind);
        csv.text("proposals", id, "state", o.state);
        csv.text("proposals", id, "risk", o.risk);
        csv.text("proposals", id, "reason", o.reason);
        csv.text("proposals", id, "created", formatTime(o.createdMs));
        if (o.decidedMs > 0) {
            csv.text("proposals", id, "decided", formatTime(o.decidedMs));
            csv.text("proposals", id, "decided_by", o.decidedBy);
        }
        csv.number("proposals", id, "predicted_utilisation", o.predictedUtilisation);
        csv.number("proposals", id, "realised_utilisation", o.realisedUtilisation);
        csv.number("proposals", id, "predicted_watts_saved", o.predictedWattsSaved, "W");
    }
    csv.number("energy", scope, "energy", d.energy.kWh, "kWh");
    csv.number("energy", scope, "carbon", d.energy.co2Kg, "kg CO2");
    csv.number("energy", scope, "mean_power", d.energy.meanWatts, "W");
    csv.number("energy", scope, "grid_intensity", d.energy.gramsPerKWh, "g CO2/kWh");
    for (std::size_t i = 0; i < d.buckets.size(); ++i)
        csv.row("energy", scope, "energy", formatTime(d.buckets[i]), csvNumber(d.energy.kWhPerBucket[i]), "kWh");
    for (const BusinessLineCost& c : d.costs) {
        const std::string subject = costSubject(d.request.language, c);
        csv.number("costs", subject, "cpu_core_hours", c.cpuCoreHours, "core-h");
        csv.number("costs", subject, "memory_gib_hours", c.memoryGiBHours, "GiB-h");
        csv.number("costs", subject, "accelerator_hours", c.acceleratorHours, "device-h");
        csv.number("costs", subject, "cost", c.cost, d.currency);
    }
    return out;
}

} // namespace tidepool::report
