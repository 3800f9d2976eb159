// The read-only commands over core/api/history_api.h: `series`, `history` and `audit`. Times are given as epoch
// milliseconds, ISO 8601 / RFC 3339 times, dates or times before now (`timeValue`), go to the daemon as Unix epoch
// milliseconds, as its API takes them, and come back in tables as UTC.
#include "app/tidepoolctl/commands.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>

namespace tidepool::ctl {

using api::HttpMethod;

namespace {

// 9999-12-31T23:59:59.999Z: the latest time a table can print as a four-digit year.
constexpr std::int64_t kMaxTimeMs = 253'402'300'799'999;
constexpr std::int64_t kMaxAuditPage = 10'000; // what the daemon answers at most
constexpr std::int64_t kMaxAuditId = std::numeric_limits<std::int64_t>::max();

void printSeries(const json& list)
{
    Table table({ "SCOPE", "NAME", "RESOURCE" });
    for (const json& s : list)
        table.add({ text(s, "scope"), text(s, "name"), text(s, "resource") });
    table.print();
}

// How a series' values read in the units of the other tables (history_recorder.h says what each resource
// records): CPU millicores as cores, MiB in binary units, milli-devices as devices, utilisation as a percentage.
// `unit` goes in the headers of the columns whose numbers carry no unit of their own.
struct SeriesUnit {
    std::string unit;
    std::function<std::string(double)> format;
};

SeriesUnit unitOf(std::string resource)
{
    for (const std::string_view suffix : { "_placed", "_used", "_util" })
        if (resource.size() > suffix.size() && resource.ends_with(suffix)) {
            if (suffix == "_util")
                return { "", [](double v) { return percent(v); } };
            resource.resize(resource.size() - suffix.size());
        }
    if (resource == "net")
        return { "(Mbit/s)", [](double v) { return decimal(v, 1); } };
    if (resource == "cpu")
        return { "(cores)", [](double v) { return decimal(v / 1000.0, 3); } };
    if (resource == "memory")
        return { "", [](double mib) {
                    if (mib >= 1024.0 * 1024.0)
                        return decimal(mib / (1024.0 * 1024.0), 1) + "Ti";
                    if (mib >= 1024.0)
                        return decimal(mib / 1024.0, 1) + "Gi";
                    return decimal(mib, 1) + "Mi";
                } };
    for (const char* kind : { "gpu", "npu", "fpga" })
        if (resource == kind) {
            std::string devices = kind;
            std::transform(devices.begin(), devices.end(), devices.begin(),
                [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
            return { "(" + devices + "s)", [](double v) { return decimal(v / 1000.0, 3); } };
        }
    return { "", [](double v) { return decimal(v, 3); } };
}

// Raw points are single values; 5-minute points are aggregates of the samples in their bucket.
void printHistory(const json& h)
{
    const bool raw = text(h, "resolution") != "5m";
    const SeriesUnit unit = unitOf(text(h, "resource", ""));
    Table table(raw
            ? std::vector<std::string> { "TIME", "VALUE" + unit.unit }
            : std::vector<std::string> { "TIME", "MEAN" + unit.unit, "MIN" + unit.unit, "MAX" + unit.unit, "COUNT" });
    for (const json& p : h.value("points", json::array())) {
        if (raw)
            table.add({ utcTime(integer(p, "atMs")), unit.format(real(p, "value")) });
        else
            table.add({ utcTime(integer(p, "atMs")), unit.format(real(p, "mean")), unit.format(real(p, "min")),
                unit.format(real(p, "max")), text(p, "count") });
    }
    table.print();
}

void printAudit(const json& list)
{
    Table table({ "ID", "TIME", "ACTOR", "ROLE", "SOURCE", "STAGE", "ACTION", "TARGET", "OUTCOME" });
    for (const json& e : list) {
        const std::string role = text(e, "role");
        const std::string outcome = text(e, "outcome");
        table.add({ text(e, "id"), utcTime(integer(e, "atMs")), text(e, "actor"), role.empty() ? "-" : role,
            text(e, "source"), text(e, "stage"), text(e, "action"), text(e, "target"),
            outcome.empty() ? "-" : clip(outcome, 80) });
    }
    table.print();
}

// `--from` and `--to` as query parameters, checked: each a time `timeValue` reads that the tables can print, and not
// the wrong way round (which the daemon would refuse only after the request). Times before now are counted from one
// reading of the clock, so that `--from -1h --to -1m` is the hour it says.
Result<std::string> timeRange(const std::string& cmd, const ParsedOptions& o)
{
    const std::int64_t now = nowMs();
    std::string query;
    std::optional<std::pair<std::int64_t, std::string>> from;
    std::optional<std::pair<std::int64_t, std::string>> to;
    for (auto [option, value] : { std::pair { "--from", &from }, std::pair { "--to", &to } }) {
        const auto given = o.last(option);
        if (!given)
            continue;
        auto ms = timeValue(cmd, option, *given, now);
        if (!ms)
            return tl::unexpected(ms.error());
        if (*ms < 0 || *ms > kMaxTimeMs)
            return usageError(cmd + ": " + option + ": \"" + *given
                + "\" is outside the times tidepoolctl prints (1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z)");
        *value = { *ms, *given };
        query += "&" + std::string(option + 2) + "=" + std::to_string(*ms);
    }
    // Said as given, with the time it reads as where that is not the given text.
    const auto said = [](const std::pair<std::int64_t, std::string>& t) {
        return t.second == std::to_string(t.first) ? t.second : t.second + " = " + utcTime(t.first);
    };
    if (from && to && from->first > to->first)
        return usageError(cmd + ": --from (" + said(*from) + ") is after --to (" + said(*to) + ")");
    return query;
}

} // namespace

Result<void> series(Session& session, const Words& words)
{
    const std::string cmd = "series";
    auto parsed = parseOptions(cmd, words, {});
    if (!parsed)
        return tl::unexpected(parsed.error());
    if (auto none = noPositionals(cmd, *parsed); !none)
        return tl::unexpected(none.error());
    return session.callAndShow(
        HttpMethod::Get, "/v1/series", [](const json& j) { printSeries(j.value("series", json::array())); });
}

Result<void> history(Session& session, const Words& words)
{
    const std::string cmd = "history";
    auto parsed = parseOptions(
        cmd, words, { { "--scope" }, { "--name" }, { "--resource" }, { "--from" }, { "--to" }, { "--resolution" } });
    if (!parsed)
        return tl::unexpected(parsed.error());
    if (auto none = noPositionals(cmd, *parsed); !none)
        return tl::unexpected(none.error());
    const std::string options[] = { "--scope", "--name", "--resource" };
    for (const std::string& option : options)
        if (!parsed->has(option))
            return usageError(cmd + ": " + option + " is required");
    const std::string scope = *parsed->last("--scope");
    // The daemon takes any scope and answers a misspelt one with no points, so the scopes the history recorder
    // writes (core/api/history_recorder.h) are checked here.
    if (scope != "pool" && scope != "node" && scope != "tier")
        return usageError(cmd + ": --scope: \"" + scope + "\" must be pool, node or tier");
    // Names and resources ("cpu", "gpu_util") use the name alphabet, so they need no escaping in the query.
    auto name = nameValue(cmd, "--name", *parsed->last("--name"));
    if (!name)
        return tl::unexpected(name.error());
    auto resource = nameValue(cmd, "--resource", *parsed->last("--resource"));
    if (!resource)
        return tl::unexpected(resource.error());
    std::string query = "?scope=" + scope + "&name=" + *name + "&resource=" + *resource;
    auto range = timeRange(cmd, *parsed);
    if (!range)
        return tl::unexpected(range.error());
    query += *range;
    if (const auto resolution = parsed->last("--resolution")) {
        if (*resolution != "raw" && *resolution != "5m")
            return usageError(cmd + ": --resolution: \"" + *resolution + "\" must be raw or 5m");
        query += "&resolution=" + *resolution;
    }
    return session.callAndShow(HttpMethod::Get, "/v1/history" + query, printHistory);
}

Result<void> audit(Session& session, const Words& words)
{
    const std::string cmd = "audit";
    auto parsed = parseOptions(cmd, words, { { "--after" }, { "--limit" }, { "--from" }, { "--to" } });
    if (!parsed)
        return tl::unexpected(parsed.error());
    if (auto none = noPositionals(cmd, *parsed); !none)
        return tl::unexpected(none.error());
    std::string query;
    if (auto added = addIntegerParameter(query, cmd, *parsed, "--after", 0, kMaxAuditId); !added)
        return tl::unexpected(added.error());
    if (auto added = addIntegerParameter(query, cmd, *parsed, "--limit", 1, kMaxAuditPage); !added)
        return tl::unexpected(added.error());
    auto range = timeRange(cmd, *parsed);
    if (!range)
        return tl::unexpected(range.error());
    query += *range;
    if (!query.empty())
        query[0] = '?';
    return session.callAndShow(
        HttpMethod::Get, "/v1/audit" + query, [](const json& j) { printAudit(j.value("entries", json::array())); });
}

} // namespace tidepool::ctl
