#include "ui/bridge/console_feed.h"

#include "core/api/control_plane.h"
#include "core/api/http_reply.h"
#include "ui/bridge/view_json.h"

#include <algorithm>

namespace tidepool::ui {

namespace http = boost::beast::http;
using nlohmann::json;

namespace {

// A non-negative whole number from the query, or `fallback` when absent; nullopt when it is there but bad.
std::optional<std::int64_t> queryNumber(std::string_view query, std::string_view key, std::int64_t fallback)
{
    const auto text = api::queryValue(query, key);
    if (!text)
        return fallback;
    const auto value = api::parseInteger(*text);
    if (!value || *value < 0)
        return std::nullopt;
    return value;
}

} // namespace

ConsoleFeed::ConsoleFeed(const api::ControlPlane& plane, const api::Rebalancer* rebalancer, HostAlertSources alerts)
    : m_plane(plane)
    , m_rebalancer(rebalancer)
    , m_alerts(std::move(alerts))
{
}

void ConsoleFeed::sample()
{
    m_scratch.nowMs = m_plane.nowMs();
    m_devices.fill(m_plane, m_scratch);
    m_events.fill(m_plane, m_rebalancer, m_scratch);
    // Reads the store once per 5-minute bucket and after each evaluation; backtests in the background.
    m_forecasts.fill(m_plane, m_scratch, m_rebalancer ? m_rebalancer->evaluations() : 0);
}

void ConsoleFeed::install(api::HttpApi& api)
{
    api.addReadRoute(
        "devices", [this](const std::vector<std::string>& parts, std::string_view query) -> api::HttpApi::ReadAnswer {
            if (parts.size() != 2)
                return api::errorReply(404, "no resource under /v1/devices");
            return devices(query);
        });
    api.addReadRoute("events", [this](const std::vector<std::string>& parts, std::string_view query) {
        return parts.size() == 2 ? events(query) : api::errorReply(404, "no resource under /v1/events");
    });
    api.addReadRoute("forecasts", [this](const std::vector<std::string>& parts, std::string_view query) {
        return parts.size() == 2 ? forecasts(query) : api::errorReply(404, "no resource under /v1/forecasts");
    });
    api.addReadRoute("alerts", [this](const std::vector<std::string>& parts, std::string_view) {
        return parts.size() == 2 ? alerts() : api::errorReply(404, "no resource under /v1/alerts");
    });
}

void ConsoleFeed::trackDeviceChanges()
{
    const std::vector<DeviceRow>& now = m_scratch.devices;
    const std::uint64_t next = m_deviceSequence + 1;
    bool changed = false;
    bool keysChanged = !std::is_sorted(now.begin(), now.end(),
        [](const DeviceRow& a, const DeviceRow& b) { return a.key < b.key; }); // never: the collector orders them
    std::vector<DeviceChange> changes(now.size());
    std::size_t j = 0;
    for (std::size_t i = 0; i < now.size() && !keysChanged; ++i) {
        while (j < m_sentDevices.size() && m_sentDevices[j].key < now[i].key) {
            ++j; // gone
            keysChanged = true;
        }
        if (j == m_sentDevices.size() || m_sentDevices[j].key != now[i].key) {
            keysChanged = true; // new
            changes[i] = { next, next };
            continue;
        }
        const DeviceRow& before = m_sentDevices[j];
        changes[i] = m_deviceChanges[j++];
        if (before == now[i])
            continue;
        changed = true;
        DeviceRow rest = before; // the row before with the usage of now: equal when only the usage changed
        rest.utilisation = now[i].utilisation;
        rest.memoryUsedMiB = now[i].memoryUsedMiB;
        (rest == now[i] ? changes[i].usage : changes[i].rest) = next;
    }
    keysChanged = keysChanged || j != m_sentDevices.size();
    if (keysChanged) {
        // Devices came or went (or the order was not the keys'): every row is new to a reader with a cursor.
        for (DeviceChange& c : changes)
            c = { next, next };
        m_deviceKeysChanged = next;
    }
    if (changed || keysChanged)
        m_deviceSequence = next;
    m_sentDevices.swap(m_scratch.devices); // the collector fills the scratch rows anew each time
    m_deviceChanges = std::move(changes);
}

api::HttpApi::ReadAnswer ConsoleFeed::devices(std::string_view query)
{
    const auto after = queryNumber(query, "framesAfter", -1);
    if (!after)
        return api::errorReply(400, "query `framesAfter` must be a time in Unix epoch milliseconds");
    std::optional<std::uint64_t> since;
    const auto cursorText = api::queryValue(query, "changedSince");
    if (cursorText) {
        const auto sequence = api::cursorSequence(*cursorText, m_plane.runId(), "changedSince", "device");
        if (!sequence)
            return api::errorReply(sequence.error().status, sequence.error().message);
        if (*sequence > m_deviceSequence)
            return api::errorReply(400, "query `changedSince` must be a cursor a device list answered (RUN.SEQUENCE)");
        since = *sequence;
    }
    m_scratch.nowMs = m_plane.nowMs();
    m_devices.fill(m_plane, m_scratch);
    trackDeviceChanges();
    std::vector<DeviceFramePtr> frames; // immutable once taken: shared with the writer
    for (const DeviceFramePtr& frame : m_scratch.deviceHistory)
        if (frame->atMs > *after)
            frames.push_back(frame);
    json answer { { "sampleMs", m_devices.sampleMs() }, { "maxFrames", m_devices.maxFrames() },
        { "cursor", m_plane.runId() + "." + std::to_string(m_deviceSequence) } };
    // The rows to write in full, and with a cursor the usage of those of which only that changed.
    std::vector<DeviceRow> rows;
    std::vector<DeviceUsage> usage;
    if (!since)
        rows = m_sentDevices;
    else {
        answer["changedSince"] = *cursorText;
        for (std::size_t i = 0; i < m_sentDevices.size(); ++i) {
            const DeviceRow& row = m_sentDevices[i];
            if (m_deviceChanges[i].rest > *since)
                rows.push_back(row);
            else if (m_deviceChanges[i].usage > *since)
                usage.push_back(DeviceUsage { row.key, row.utilisation, row.memoryUsedMiB });
        }
        if (m_deviceKeysChanged > *since) {
            json keys = json::array();
            for (const DeviceRow& row : m_sentDevices)
                keys.push_back(row.key);
            answer["keys"] = std::move(keys);
        }
    }
    return api::HttpApi::OffThreadWriter([rows = std::move(rows), usage = std::move(usage), frames = std::move(frames),
                                             answer = std::move(answer), compact = since.has_value()]() mutable {
        json list = json::array();
        for (const DeviceRow& row : rows)
            list.push_back(toJson(row));
        answer["devices"] = std::move(list);
        if (compact) {
            json changed = json::array();
            for (const DeviceUsage& u : usage)
                changed.push_back(toJson(u));
            answer["usage"] = std::move(changed);
        }
        answer["history"] = deviceHistoryToJson(frames);
        return api::reply(http::status::ok, answer);
    });
}

net::HttpResponse ConsoleFeed::events(std::string_view query)
{
    const auto after = queryNumber(query, "after", 0);
    const auto limit = queryNumber(query, "limit", static_cast<std::int64_t>(kMaxEventRows));
    if (!after)
        return api::errorReply(400, "query `after` must be an event sequence number");
    if (!limit || *limit < 1 || *limit > static_cast<std::int64_t>(kMaxEventRows))
        return api::errorReply(400, "query `limit` must be a whole number from 1 to " + std::to_string(kMaxEventRows));
    m_scratch.nowMs = m_plane.nowMs();
    m_events.fill(m_plane, m_rebalancer, m_scratch);
    const std::vector<EventRowPtr>& all = m_scratch.events; // by sequence
    auto first = std::upper_bound(all.begin(), all.end(), static_cast<std::uint64_t>(*after),
        [](std::uint64_t sequence, const EventRowPtr& row) { return sequence < row->sequence; });
    // Only the rows whose category, subject and node are those given (each whole; none: every row).
    const auto category = api::queryValue(query, "category");
    const auto subject = api::queryValue(query, "subject");
    const auto node = api::queryValue(query, "node");
    const auto matches = [&](const EventRow& row) {
        return (!category || row.category == *category) && (!subject || row.subject == *subject)
            && (!node || row.node == *node);
    };
    // The oldest `limit` of those after `after` that match: a reader pages forward from `scanned`, the last row looked
    // at (the newest one when the page is not full).
    json rows = json::array();
    std::uint64_t scanned = *after;
    for (auto it = first; it != all.end() && rows.size() < static_cast<std::size_t>(*limit); ++it) {
        scanned = (*it)->sequence;
        if (matches(**it))
            rows.push_back(toJson(**it));
    }
    if (rows.size() < static_cast<std::size_t>(*limit) && !all.empty())
        scanned = std::max<std::uint64_t>(scanned, all.back()->sequence);
    return api::reply(http::status::ok,
        json { { "events", std::move(rows) }, { "latest", all.empty() ? 0 : all.back()->sequence },
            { "scanned", scanned } });
}

net::HttpResponse ConsoleFeed::forecasts(std::string_view query)
{
    const auto known = queryNumber(query, "ifRevision", -1);
    if (!known)
        return api::errorReply(400, "query `ifRevision` must be a revision number");
    m_scratch.nowMs = m_plane.nowMs();
    m_forecasts.fill(m_plane, m_scratch, m_rebalancer ? m_rebalancer->evaluations() : 0);
    // A series that did not change keeps its pointer (`ForecastCollector`), so pointers tell what changed.
    if (m_scratch.forecasts != m_lastSeries) {
        m_lastSeries = m_scratch.forecasts;
        ++m_forecastRevision;
    }
    const auto revision = static_cast<std::int64_t>(m_forecastRevision);
    if (*known == revision)
        return api::reply(http::status::ok, json { { "revision", revision }, { "unchanged", true } });
    json series = json::array();
    for (const ForecastSeriesPtr& s : m_lastSeries)
        series.push_back(toJson(*s));
    return api::reply(http::status::ok, json { { "revision", revision }, { "series", std::move(series) } });
}

net::HttpResponse ConsoleFeed::alerts()
{
    json rows = json::array();
    for (const AlertRow& alert : hostAlerts(m_alerts, m_plane.nowMs()))
        rows.push_back(toJson(alert));
    return api::reply(http::status::ok, json { { "alerts", std::move(rows) } });
}

} // namespace tidepool::ui
