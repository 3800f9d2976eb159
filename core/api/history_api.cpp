#include "core/api/history_api.h"

#include "core/api/control_plane.h"
#include "core/api/http_reply.h"

namespace tidepool::api {

namespace http = boost::beast::http;
using nlohmann::json;

namespace {

constexpr std::int64_t kDayMs = 24LL * 3600 * 1000;
constexpr std::size_t kMaxAuditPage = 10'000;

// A query parameter that must be an integer when present; `fallback` when absent.
ApiResult<std::int64_t> integerParameter(std::string_view query, std::string_view key, std::int64_t fallback)
{
    const auto text = queryValue(query, key);
    if (!text)
        return fallback;
    const auto value = parseInteger(*text);
    if (!value)
        return tl::unexpected(ApiError { 400, "query `" + std::string(key) + "` must be an integer" });
    return *value;
}

net::HttpResponse storeFailure(const Error& error)
{
    return errorReply(503, "cannot read the database: " + error.message);
}

net::HttpResponse series(store::Store& store)
{
    auto keys = store.seriesList();
    if (!keys)
        return storeFailure(keys.error());
    json list = json::array();
    for (const store::SeriesKey& k : *keys)
        list.push_back({ { "scope", k.scope }, { "name", k.name }, { "resource", k.resource } });
    return reply(http::status::ok, json { { "series", std::move(list) } });
}

net::HttpResponse history(store::Store& store, std::string_view query)
{
    store::SeriesKey key;
    for (auto [field, value] : { std::pair { "scope", &key.scope }, { "name", &key.name }, { "resource", &key.resource } }) {
        auto text = queryValue(query, field);
        if (!text || text->empty())
            return errorReply(400, std::string("query `") + field + "` is required");
        *value = std::move(*text);
    }
    // A scope the recorder never writes is a typo, not a series with no points (a report says so too).
    if (key.scope != "pool" && key.scope != "node" && key.scope != "tier")
        return errorReply(400, "query `scope` must be pool, node or tier, not \"" + clipText(key.scope, 64) + "\"");
    const std::int64_t now = unixMillis();
    const auto to = integerParameter(query, "to", now);
    const auto from = to ? integerParameter(query, "from", *to - kDayMs) : to;
    if (!from)
        return errorReply(from.error().status, from.error().message);
    if (*from > *to)
        return errorReply(400, "query `from` is after `to`");
    const std::string resolutionText = queryValue(query, "resolution").value_or("raw");
    store::Resolution resolution = store::Resolution::Invalid;
    if (resolutionText == "raw")
        resolution = store::Resolution::Raw;
    else if (resolutionText == "5m")
        resolution = store::Resolution::FiveMinutes;
    else
        return errorReply(400, "query `resolution` must be raw or 5m");
    auto points = store.history(key, *from, *to, resolution);
    if (!points)
        return storeFailure(points.error());
    json list = json::array();
    for (const store::HistoryPoint& p : *points)
        list.push_back(resolution == store::Resolution::Raw
                ? json { { "atMs", p.atMs }, { "value", p.mean } }
                : json { { "atMs", p.atMs }, { "mean", p.mean }, { "min", p.min }, { "max", p.max }, { "count", p.count } });
    return reply(http::status::ok,
        json { { "scope", key.scope }, { "name", key.name }, { "resource", key.resource }, { "resolution", resolutionText },
            { "fromMs", *from }, { "toMs", *to }, { "points", std::move(list) } });
}

net::HttpResponse audit(store::Store& store, std::string_view query)
{
    store::AuditQuery q;
    const auto from = integerParameter(query, "from", q.fromMs);
    const auto to = integerParameter(query, "to", q.toMs);
    const auto after = integerParameter(query, "after", q.afterId);
    const auto limit = integerParameter(query, "limit", static_cast<std::int64_t>(q.limit));
    for (const auto* p : { &from, &to, &after, &limit })
        if (!*p)
            return errorReply(p->error().status, p->error().message);
    if (*limit < 1 || *limit > static_cast<std::int64_t>(kMaxAuditPage))
        return errorReply(400, "query `limit` must be 1 to " + std::to_string(kMaxAuditPage));
    if (*from > *to) // as /v1/history answers
        return errorReply(400, "query `from` is after `to`");
    if (*after < 0)
        return errorReply(400, "query `after` must be an audit entry id (0 or more)");
    q.fromMs = *from;
    q.toMs = *to;
    q.afterId = *after;
    q.limit = static_cast<std::size_t>(*limit);
    auto entries = store.audit(q);
    if (!entries)
        return storeFailure(entries.error());
    json list = json::array();
    for (const store::AuditEntry& e : *entries)
        list.push_back({ { "id", e.id }, { "atMs", e.atMs }, { "actor", e.actor }, { "source", e.source },
            { "action", e.action }, { "target", e.target }, { "outcome", e.outcome }, { "detail", e.detail },
            { "role", e.role }, { "stage", e.stage }, { "request", e.request } });
    return reply(http::status::ok, json { { "entries", std::move(list) } });
}

} // namespace

net::HttpResponse historyRoute(store::Store* store, const std::vector<std::string>& parts, std::string_view query)
{
    if (!store)
        return errorReply(404, "tidepoold keeps no history: it was started without a database (--db)");
    if (parts.size() != 2)
        return errorReply(404, "no resource under /v1/" + parts[1]);
    if (parts[1] == "series")
        return series(*store);
    if (parts[1] == "history")
        return history(*store, query);
    return audit(*store, query);
}

} // namespace tidepool::api
