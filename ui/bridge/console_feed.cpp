#include "ui/bridge/console_feed.h"

#include "core/api/control_plane.h"
#include "core/api/http_reply.h"
#include "ui/bridge/view_json.h"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <chrono>

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

std::int64_t steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

ConsoleFeed::ConsoleFeed(
    boost::asio::io_context& io, api::ControlPlane& plane, const api::Rebalancer* rebalancer, HostAlertSources alerts)
    : m_plane(plane)
    , m_rebalancer(rebalancer)
    , m_alerts(std::move(alerts))
    , m_io(io)
    , m_listened(plane)
    , m_eventSweep(io)
{
    // Recorded events wake the waiting requests once the core is done with what recorded them.
    m_listened.setEventListener([this, alive = std::weak_ptr<int>(m_alive)] {
        if (m_eventWaiters.empty() || m_wakePosted)
            return;
        m_wakePosted = true;
        boost::asio::post(m_io, [this, alive] {
            if (alive.expired())
                return;
            m_wakePosted = false;
            answerEventWaiters();
        });
    });
}

ConsoleFeed::~ConsoleFeed()
{
    m_listened.setEventListener({});
    for (auto& [id, waiter] : m_eventWaiters) {
        waiter.timer->cancel();
        waiter.respond(api::errorReply(503, "tidepoold is stopping; ask again when it is back"));
    }
}

void ConsoleFeed::sample()
{
    m_scratch.nowMs = m_plane.nowMs();
    m_devices.fill(m_plane, m_scratch);
    if (m_eventWaiters.empty())
        m_events.fill(m_plane, m_rebalancer, m_scratch);
    else
        answerEventWaiters(); // fills the timeline itself
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

api::HttpApi::ReadAnswer ConsoleFeed::events(std::string_view query)
{
    const auto after = queryNumber(query, "after", 0);
    const auto limit = queryNumber(query, "limit", static_cast<std::int64_t>(kMaxEventRows));
    const auto waitMs = queryNumber(query, "waitMs", 0);
    if (!after)
        return api::errorReply(400, "query `after` must be an event sequence number");
    if (!limit || *limit < 1 || *limit > static_cast<std::int64_t>(kMaxEventRows))
        return api::errorReply(400, "query `limit` must be a whole number from 1 to " + std::to_string(kMaxEventRows));
    if (!waitMs || *waitMs > kMaxEventWaitMs)
        return api::errorReply(
            400, "query `waitMs` must be a whole number of milliseconds from 0 to " + std::to_string(kMaxEventWaitMs));
    // Only the rows whose category, subject and node are those given (each whole; none: every row).
    EventQuery q { static_cast<std::uint64_t>(*after), static_cast<std::size_t>(*limit),
        api::queryValue(query, "category"), api::queryValue(query, "subject"), api::queryValue(query, "node"),
        *waitMs };
    fillEvents();
    const bool wait = q.waitMs > 0 && m_eventWaiters.size() < kMaxEventWaiters;
    if (auto answer = eventAnswer(q, wait, 0))
        return std::move(*answer);
    return api::HttpApi::LaterAnswer([this, q = std::move(q)](net::HttpRespond respond) mutable {
        waitForEvents(std::move(q), std::move(respond));
    });
}

void ConsoleFeed::fillEvents()
{
    m_scratch.nowMs = m_plane.nowMs();
    m_events.fill(m_plane, m_rebalancer, m_scratch);
}

std::optional<net::HttpResponse> ConsoleFeed::eventAnswer(
    const EventQuery& query, bool wait, std::int64_t waitedMs) const
{
    const std::vector<EventRowPtr>& all = m_scratch.events; // by sequence
    auto first = std::upper_bound(all.begin(), all.end(), query.after,
        [](std::uint64_t sequence, const EventRowPtr& row) { return sequence < row->sequence; });
    const auto matches = [&](const EventRow& row) {
        return (!query.category || row.category == *query.category) && (!query.subject || row.subject == *query.subject)
            && (!query.node || row.node == *query.node);
    };
    // The oldest `limit` of those after `after` that match: a reader pages forward from `scanned`, the last row looked
    // at (the newest one when the page is not full).
    json rows = json::array();
    std::uint64_t scanned = query.after;
    for (auto it = first; it != all.end() && rows.size() < query.limit; ++it) {
        scanned = (*it)->sequence;
        if (matches(**it))
            rows.push_back(toJson(**it));
    }
    if (rows.empty() && wait)
        return std::nullopt;
    if (rows.size() < query.limit && !all.empty())
        scanned = std::max<std::uint64_t>(scanned, all.back()->sequence);
    json answer { { "events", std::move(rows) }, { "latest", all.empty() ? 0 : all.back()->sequence },
        { "scanned", scanned } };
    if (query.waitMs > 0)
        answer["waitedMs"] = waitedMs;
    return api::reply(http::status::ok, answer);
}

void ConsoleFeed::waitForEvents(EventQuery query, net::HttpRespond respond)
{
    const std::uint64_t id = m_nextWaiter++;
    const std::int64_t waitMs = query.waitMs;
    auto timer = std::make_unique<boost::asio::steady_timer>(m_io);
    timer->expires_after(std::chrono::milliseconds(waitMs));
    timer->async_wait([this, id, alive = std::weak_ptr<int>(m_alive)](const boost::system::error_code& ec) {
        if (ec || alive.expired())
            return;
        const auto it = m_eventWaiters.find(id);
        if (it == m_eventWaiters.end())
            return; // answered as its wait ended
        fillEvents();
        EventWaiter waiter = std::move(it->second);
        m_eventWaiters.erase(it);
        waiter.respond(*eventAnswer(waiter.query, false, steadyMs() - waiter.sinceMs));
    });
    // A reader that leaves (a console closed, a client that gave up) gives its place back at once, not when its wait
    // would have ended: a console that reconnects over and over must not fill `kMaxEventWaiters` with the dead.
    respond.onClientGone([this, id, alive = std::weak_ptr<int>(m_alive)] {
        if (alive.expired())
            return;
        const auto it = m_eventWaiters.find(id);
        if (it == m_eventWaiters.end())
            return;
        it->second.timer->cancel();
        m_eventWaiters.erase(it);
        ++m_eventReadersGone;
    });
    m_eventWaiters.emplace(id, EventWaiter { std::move(query), steadyMs(), std::move(timer), std::move(respond) });
    armEventSweep();
}

void ConsoleFeed::answerEventWaiters()
{
    if (m_eventWaiters.empty())
        return;
    fillEvents();
    for (auto it = m_eventWaiters.begin(); it != m_eventWaiters.end();) {
        auto answer = eventAnswer(it->second.query, true, steadyMs() - it->second.sinceMs);
        if (!answer) {
            ++it;
            continue;
        }
        EventWaiter waiter = std::move(it->second);
        it = m_eventWaiters.erase(it);
        waiter.timer->cancel();
        waiter.respond(std::move(*answer));
    }
}

void ConsoleFeed::armEventSweep()
{
    if (m_eventSweep.expiry() > boost::asio::steady_timer::clock_type::now())
        return; // armed
    m_eventSweep.expires_after(std::chrono::seconds(1));
    m_eventSweep.async_wait([this, alive = std::weak_ptr<int>(m_alive)](const boost::system::error_code& ec) {
        if (ec || alive.expired())
            return;
        answerEventWaiters();
        if (!m_eventWaiters.empty())
            armEventSweep();
    });
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
