// The read-only commands over core/api/history_api.h: `series`, `history` and `audit`. Times go to the daemon as
// Unix epoch milliseconds, as its API takes them, and come back in tables as UTC.
#include "app/tidepoolctl/commands.h"

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

// Raw points are single values; 5-minute points are aggregates of the samples in their bucket.
void printHistory(const json& h)
{
    const bool raw = text(h, "resolution") != "5m";
    Table table(raw ? std::vector<std::string> { "TIME", "VALUE" }
                    : std::vector<std::string> { "TIME", "MEAN", "MIN", "MAX", "COUNT" });
    for (const json& p : h.value("points", json::array())) {
        if (raw)
            table.add({ utcTime(integer(p, "atMs")), decimal(real(p, "value"), 3) });
        else
            table.add({ utcTime(integer(p, "atMs")), decimal(real(p, "mean"), 3), decimal(real(p, "min"), 3),
                decimal(real(p, "max"), 3), text(p, "count") });
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

// `--from` and `--to` as query parameters, checked: each a time the tables can print, and not the wrong way round
// (which the daemon would refuse only after the request).
Result<std::string> timeRange(const std::string& cmd, const ParsedOptions& o)
{
    std::string query;
    std::optional<std::int64_t> from;
    std::optional<std::int64_t> to;
    for (auto [option, value] : { std::pair { "--from", &from }, std::pair { "--to", &to } }) {
        const auto given = o.last(option);
        if (!given)
            continue;
        auto ms = integerValue(cmd, option, *given, 0, kMaxTimeMs);
        if (!ms)
            return tl::unexpected(ms.error());
        *value = *ms;
        query += "&" + std::string(option + 2) + "=" + std::to_string(*ms);
    }
    if (from && to && *from > *to)
        return usageError(cmd + ": --from (" + std::to_string(*from) + ") is after --to (" + std::to_string(*to) + ")");
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
