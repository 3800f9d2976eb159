#include "core/report/html_report.h"

#include "core/report/labels.h"

#include <algorithm>
#include <cstdio>

namespace tidepool::report {

namespace {

constexpr const char* kRequestedColour = "#2b6cb0";
constexpr const char* kUsedColour = "#dd6b20";
constexpr const char* kCapacityColour = "#718096";
constexpr const char* kEnergyColour = "#38a169";

std::string num(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", value);
    return text;
}

// A line chart of per-bucket series over the period, with a dashed capacity line, as inline SVG.
std::string lineChart(const ReportData& d, const ResourceUse& u)
{
    constexpr double kW = 640, kH = 220, kLeft = 56, kRight = 12, kTop = 12, kBottom = 28;
    double top = std::max(u.capacity, 0.0);
    for (const auto* values : { &u.requested, &u.used })
        for (const double v : *values)
            if (measured(v))
                top = std::max(top, v);
    top = niceAxisTop(top);
    const std::size_t n = d.buckets.size();
    const auto x = [&](std::size_t i) {
        return kLeft
            + (kW - kLeft - kRight) * (static_cast<double>(i) + 0.5) / static_cast<double>(std::max<std::size_t>(n, 1));
    };
    const auto y = [&](double v) { return kTop + (kH - kTop - kBottom) * (1.0 - v / top); };
    std::string svg = "<svg class=\"chart\" viewBox=\"0 0 640 220\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">";
    svg += "<rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" + num(kW - kLeft - kRight) + "\" height=\""
        + num(kH - kTop - kBottom) + "\" fill=\"#f7fafc\" stroke=\"#cbd5e0\"/>";
    for (int g = 0; g <= 4; ++g) {
        const double v = top * g / 4.0;
        svg += "<text x=\"" + num(kLeft - 4) + "\" y=\"" + num(y(v) + 4) + "\" font-size=\"10\" text-anchor=\"end\">"
            + formatNumber(v,
                top < 4        ? 2
                    : top < 40 ? 1
                               : 0)
            + "</text>";
        svg += "<line x1=\"" + num(kLeft) + "\" x2=\"" + num(kW - kRight) + "\" y1=\"" + num(y(v)) + "\" y2=\""
            + num(y(v)) + "\" stroke=\"#e2e8f0\"/>";
    }
    const std::size_t every = std::max<std::size_t>(1, n / 6);
    for (std::size_t i = 0; i < n; i += every)
        svg += "<text x=\"" + num(x(i)) + "\" y=\"" + num(kH - 10) + "\" font-size=\"10\" text-anchor=\"middle\">"
            + formatTime(d.buckets[i]).substr(5) + "</text>";
    if (u.capacity > 0)
        svg += "<line x1=\"" + num(kLeft) + "\" x2=\"" + num(kW - kRight) + "\" y1=\"" + num(y(u.capacity)) + "\" y2=\""
            + num(y(u.capacity)) + "\" stroke=\"" + kCapacityColour + "\" stroke-dasharray=\"6 4\"/>";
    for (const auto& [values, colour] : { std::pair { &u.requested, kRequestedColour }, { &u.used, kUsedColour } }) {
        std::string path;
        for (std::size_t i = 0; i < n && i < values->size(); ++i) {
            if (!measured((*values)[i]))
                continue;
            path += (path.empty() || !measured((*values)[i - 1]) ? "M" : "L") + num(x(i)) + "," + num(y((*values)[i]))
                + " ";
        }
        if (!path.empty())
            svg += "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"2\"/>";
    }
    return svg + "</svg>";
}

std::string barChart(const ReportData& d, const std::vector<double>& values)
{
    constexpr double kW = 640, kH = 180, kLeft = 56, kRight = 12, kTop = 12, kBottom = 28;
    double top = 0;
    for (const double v : values)
        if (measured(v))
            top = std::max(top, v);
    top = niceAxisTop(top);
    const std::size_t n = values.size();
    const double slot = (kW - kLeft - kRight) / static_cast<double>(std::max<std::size_t>(n, 1));
    std::string svg = "<svg class=\"chart\" viewBox=\"0 0 640 180\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">";
    svg += "<rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" + num(kW - kLeft - kRight) + "\" height=\""
        + num(kH - kTop - kBottom) + "\" fill=\"#f7fafc\" stroke=\"#cbd5e0\"/>";
    for (int g = 0; g <= 4; ++g) {
        const double v = top * g / 4.0;
        const double yy = kTop + (kH - kTop - kBottom) * (1.0 - v / top);
        svg += "<text x=\"" + num(kLeft - 4) + "\" y=\"" + num(yy + 4) + "\" font-size=\"10\" text-anchor=\"end\">"
            + formatNumber(v,
                top < 4        ? 2
                    : top < 40 ? 1
                               : 0)
            + "</text>";
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (!measured(values[i]))
            continue;
        const double h = (kH - kTop - kBottom) * values[i] / top;
        svg += "<rect x=\"" + num(kLeft + slot * static_cast<double>(i) + slot * 0.1) + "\" y=\""
            + num(kH - kBottom - h) + "\" width=\"" + num(slot * 0.8) + "\" height=\"" + num(h) + "\" fill=\""
            + kEnergyColour + "\"/>";
    }
    const std::size_t every = std::max<std::size_t>(1, n / 6);
    for (std::size_t i = 0; i < n && i < d.buckets.size(); i += every)
        svg += "<text x=\"" + num(kLeft + slot * (static_cast<double>(i) + 0.5)) + "\" y=\"" + num(kH - 10)
            + "\" font-size=\"10\" text-anchor=\"middle\">" + formatTime(d.buckets[i]).substr(5) + "</text>";
    return svg + "</svg>";
}

class Table {
public:
    Table(std::string& out, Language lang, std::initializer_list<const char*> keys)
        : m_out(out)
    {
        m_out += "<table><thead><tr>";
        for (const char* key : keys)
            m_out += "<th>" + htmlEscape(label(lang, key)) + "</th>";
        m_out += "</tr></thead><tbody>\n";
    }
    ~Table() { m_out += "</tbody></table>\n"; }
    // Cells are given as text; every one is escaped.
    void row(std::initializer_list<std::string> cells)
    {
        m_out += "<tr>";
        for (const std::string& c : cells)
            m_out += "<td>" + htmlEscape(c) + "</td>";
        m_out += "</tr>\n";
    }

private:
    std::string& m_out;
};

std::string percent(double share)
{
    return measured(share) ? formatNumber(share * 100.0, 0) + " %" : "—";
}

std::string ratio(double part, double whole)
{
    return measured(part) && whole > 0 ? percent(part / whole) : "—";
}

} // namespace

std::string htmlEscape(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

std::string valueLabel(Language language, std::string_view value)
{
    return std::string(label(language, value == "pending" ? std::string_view("pending-state") : value));
}

std::string renderHtml(const ReportData& d)
{
    const Language lang = d.request.language;
    const auto L = [&](const char* key) { return htmlEscape(label(lang, key)); };
    std::string out;
    out += "<!DOCTYPE html>\n<html lang=\"";
    out += lang == Language::ZhCN ? "zh-CN" : "en";
    out += "\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + L("title") + " — " + htmlEscape(scopeTitle(d.request))
        + "</title>\n<style>\n"
          "body{font-family:\"Noto Sans\",\"Noto Sans CJK SC\",\"WenQuanYi Micro "
          "Hei\",sans-serif;margin:2em;color:#1a202c}\n"
          "table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #cbd5e0;padding:.25em .6em;"
          "text-align:left}th{background:#edf2f7}td{font-variant-numeric:tabular-nums}\n"
          ".chart{width:100%;max-width:640px;display:block;margin:.5em 0}.legend span{margin-right:1.5em}\n"
          ".swatch{display:inline-block;width:1em;height:.3em;vertical-align:middle;margin-right:.3em}\n"
          "</style>\n</head>\n<body>\n";
    out += "<h1>" + L("title") + "</h1>\n<p>" + L("scope") + ": " + htmlEscape(scopeTitle(d.request)) + "<br>"
        + L("period") + ": " + formatTime(d.request.fromMs) + " – " + formatTime(d.request.toMs) + " " + L("utc")
        + "<br>" + L("nodes") + ": " + std::to_string(d.nodes) + ", " + L("pools") + ": " + std::to_string(d.pools)
        + "<br>" + L("generated") + ": " + formatTime(d.generatedMs) + " " + L("utc") + "</p>\n";

    out += "<h2>" + L("utilisation") + "</h2>\n";
    {
        Table t(out, lang,
            { "resource", "unit", "capacity", "requested-mean", "requested-peak", "used-mean", "used-peak",
                "requested-share", "used-share" });
        for (const ResourceUse& u : d.utilisation)
            t.row({ valueLabel(lang, u.resource), valueLabel(lang, u.unit), formatNumber(u.capacity),
                formatNumber(u.requestedMean), formatNumber(u.requestedPeak), formatNumber(u.usedMean),
                formatNumber(u.usedPeak), ratio(u.requestedMean, u.capacity), ratio(u.usedMean, u.capacity) });
    }
    // Whose use "used" is: a pool's own where its cgroups were measured, else its nodes' (`ResourceUse::usedBy`).
    const bool byPools = std::any_of(
        d.utilisation.begin(), d.utilisation.end(), [](const ResourceUse& u) { return u.usedBy == "pools"; });
    out += "<p>" + L(byPools ? "used-by-pools" : "used-by-nodes") + "</p>\n";
    for (const ResourceUse& u : d.utilisation) {
        out += "<h3>" + htmlEscape(valueLabel(lang, u.resource)) + " (" + htmlEscape(valueLabel(lang, u.unit))
            + ")</h3>\n<div class=\"legend\"><span><i class=\"swatch\" style=\"background:" + kRequestedColour
            + "\"></i>" + L("requested") + "</span><span><i class=\"swatch\" style=\"background:" + kUsedColour
            + "\"></i>" + L("used") + "</span><span><i class=\"swatch\" style=\"background:" + kCapacityColour
            + "\"></i>" + L("capacity") + "</span></div>\n" + lineChart(d, u) + "\n";
    }

    out += "<h2>" + L("tiers") + "</h2>\n";
    {
        Table t(out, lang,
            { "tier", "nodes", "cpu-capacity", "cpu-allocated", "cpu-used", "occupancy", "cpu-requested",
                "accelerators", "accelerators-allocated", "accelerators-requested" });
        for (const TierOccupancy& r : d.tiers)
            t.row({ valueLabel(lang, r.tier), std::to_string(r.nodes), formatNumber(r.cpuCapacity),
                formatNumber(r.cpuAllocatedMean), formatNumber(r.cpuUsedMean), ratio(r.cpuAllocatedMean, r.cpuCapacity),
                formatNumber(r.cpuRequestedMean), formatNumber(r.acceleratorCapacity, 0),
                formatNumber(r.acceleratorAllocatedMean, 2), formatNumber(r.acceleratorRequestedMean, 2) });
    }

    out += "<h2>" + L("pending") + "</h2>\n";
    {
        const PendingStats& p = d.pending;
        Table t(out, lang, { "submitted", "placed", "waiting", "mean", "p50", "p90", "max" });
        t.row({ std::to_string(p.submitted), std::to_string(p.placed), std::to_string(p.waiting),
            formatDuration(p.meanMs), formatDuration(p.p50Ms), formatDuration(p.p90Ms), formatDuration(p.maxMs) });
    }

    out += "<h2>" + L("forecasts") + "</h2>\n";
    if (d.forecasts.empty())
        out += "<p>" + L("none") + "</p>\n";
    else {
        Table t(out, lang, { "pool", "resource", "model", "smape", "coverage", "mase", "points", "note" });
        for (const ForecastAccuracy& f : d.forecasts)
            t.row({ f.pool, valueLabel(lang, f.resource), f.model, formatNumber(f.smapePct),
                formatNumber(f.coveragePct), formatNumber(f.mase, 2), std::to_string(f.scoredPoints), f.note });
    }

    out += "<h2>" + L("proposals") + "</h2>\n";
    if (d.proposals.empty())
        out += "<p>" + L("none") + "</p>\n";
    else {
        Table t(out, lang,
            { "id", "kind", "state", "risk", "created", "decided-by", "predicted", "realised", "watts-saved",
                "reason" });
        for (const ProposalOutcome& o : d.proposals)
            t.row({ std::to_string(o.id), valueLabel(lang, o.kind), valueLabel(lang, o.state), valueLabel(lang, o.risk),
                formatTime(o.createdMs), o.decidedBy, percent(o.predictedUtilisation), percent(o.realisedUtilisation),
                formatNumber(o.predictedWattsSaved, 0), o.reason });
    }

    out += "<h2>" + L("energy") + "</h2>\n";
    {
        Table t(out, lang, { "energy-kwh", "co2-kg", "mean-watts", "intensity" });
        t.row({ formatNumber(d.energy.kWh, 2), formatNumber(d.energy.co2Kg, 2), formatNumber(d.energy.meanWatts, 0),
            formatNumber(d.energy.gramsPerKWh, 0) });
    }
    out += "<h3>" + L("energy-per-bucket") + "</h3>\n" + barChart(d, d.energy.kWhPerBucket) + "\n";

    out += "<h2>" + L("costs") + "</h2>\n";
    if (d.costs.empty())
        out += "<p>" + L("none") + "</p>\n";
    else {
        Table t(out, lang, { "business-line", "cpu-core-hours", "memory-gib-hours", "accelerator-hours", "cost" });
        for (const BusinessLineCost& c : d.costs)
            t.row({ costSubject(lang, c), formatNumber(c.cpuCoreHours), formatNumber(c.memoryGiBHours),
                formatNumber(c.acceleratorHours),
                measured(c.cost) ? formatNumber(c.cost, 2) + " " + d.currency : "—" });
    }

    out += "<h2>" + L("notes") + "</h2>\n<ul>\n";
    for (const std::string& note : d.notes)
        out += "<li>" + htmlEscape(note) + "</li>\n";
    out += "</ul>\n</body>\n</html>\n";
    return out;
}

} // namespace tidepool::report
