#include "ui/bridge/remote_views.h"

#include "ui/bridge/alerts.h"
#include "ui/bridge/event_collector.h"
#include "ui/bridge/view_json.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace tidepool::ui {

using nlohmann::json;

namespace {

// A whole number that is not negative (nlohmann keeps non-negative literals made in code as signed).
bool isCount(const json& v)
{
    return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
}

Expected<void> misread(const char* route, const Error& e)
{
    return makeError(ErrorCode::ParseError, std::string("unexpected answer from tidepoold to GET ") + route + ": " + e.message);
}

// Every row of the array `field` of `answer`, read with `read(json, place)`; the error names the route and the row.
template <typename Read>
auto rowsOf(const json& answer, const char* field, const char* route, Read read)
    -> Expected<std::vector<typename decltype(read(answer, std::string()))::value_type>>
{
    using Row = typename decltype(read(answer, std::string()))::value_type;
    if (!answer.is_object() || !answer.contains(field) || !answer[field].is_array())
        return makeError(ErrorCode::ParseError,
            std::string("unexpected answer from tidepoold to GET ") + route + ": `" + field + "` is not an array");
    std::vector<Row> rows;
    const json& list = answer[field];
    rows.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
        auto row = read(list[i], std::string(field) + "[" + std::to_string(i) + "]");
        if (!row)
            return makeError(ErrorCode::ParseError,
                std::string("unexpected answer from tidepoold to GET ") + route + ": " + row.error().message);
        rows.push_back(std::move(*row));
    }
    return rows;
}

} // namespace

std::string RemoteViews::devicesTarget() const
{
    std::string target = "/v1/devices";
    if (!m_frames.empty())
        target += "?framesAfter=" + std::to_string(m_frames.back()->atMs);
    if (!m_deviceCursor.empty())
        target += (m_frames.empty() ? "?changedSince=" : "&changedSince=") + m_deviceCursor;
    return target;
}

std::string RemoteViews::eventsTarget() const
{
    return "/v1/events?after=" + std::to_string(newestEvent());
}

std::string RemoteViews::forecastsTarget() const
{
    return m_forecastRevision < 0 ? "/v1/forecasts" : "/v1/forecasts?ifRevision=" + std::to_string(m_forecastRevision);
}

Expected<void> RemoteViews::take(const json& devices, const json& events, const json& forecasts, const json& alerts)
{
    // Everything is read first, and taken only when all of it could be.
    std::vector<DeviceRow> deviceRows;
    std::vector<DeviceUsage> deviceUsage;
    std::optional<std::vector<std::int64_t>> deviceKeys;
    std::string deviceCursor;
    bool changedOnly = false;
    std::unordered_map<std::int64_t, std::size_t> heldAt; // with changes only: where each device held is
    std::vector<DeviceFramePtr> frames;
    std::size_t maxFrames = 0;
    if (!devices.is_null()) {
        auto rows = rowsOf(devices, "devices", "/v1/devices", deviceFromJson);
        if (!rows)
            return tl::unexpected(rows.error());
        deviceRows = std::move(*rows);
        if (!devices.contains("history") || !devices.contains("maxFrames") || !isCount(devices["maxFrames"]))
            return misread("/v1/devices", Error { ErrorCode::ParseError, "`history` or `maxFrames` is missing" });
        if (devices.contains("cursor")) { // else an older tidepoold: every row, every poll
            if (!devices["cursor"].is_string())
                return misread("/v1/devices", Error { ErrorCode::ParseError, "`cursor` is not a string" });
            deviceCursor = devices["cursor"].get<std::string>();
        }
        if (devices.contains("changedSince")) {
            if (m_deviceCursor.empty() || devices["changedSince"] != m_deviceCursor)
                return misread("/v1/devices",
                    Error { ErrorCode::ParseError, "`changedSince` is not the cursor the console asked with" });
            changedOnly = true;
            auto usage = rowsOf(devices, "usage", "/v1/devices", deviceUsageFromJson);
            if (!usage)
                return tl::unexpected(usage.error());
            deviceUsage = std::move(*usage);
            if (devices.contains("keys")) {
                if (!devices["keys"].is_array())
                    return misread("/v1/devices", Error { ErrorCode::ParseError, "`keys` is not an array" });
                deviceKeys.emplace();
                for (const json& key : devices["keys"]) {
                    if (!key.is_number_integer())
                        return misread("/v1/devices", Error { ErrorCode::ParseError, "`keys` holds a non-integer" });
                    deviceKeys->push_back(key.get<std::int64_t>());
                }
            }
            // What changed must fit what is held: usage and keys only of devices held or sent now. Else the rows
            // held are not what the cursor says (a bug on one side): the next poll reads them all.
            for (std::size_t i = 0; i < m_devices.size(); ++i)
                heldAt.emplace(m_devices[i].key, i);
            std::unordered_set<std::int64_t> sent; // rows sent whole: usually none or a few
            for (const DeviceRow& row : deviceRows)
                sent.insert(row.key);
            const auto known = [&](std::int64_t key) { return heldAt.count(key) || sent.count(key); };
            const auto unknown = [&](std::int64_t key, const char* field) -> Expected<void> {
                m_deviceCursor.clear();
                return misread("/v1/devices",
                    Error { ErrorCode::ParseError,
                        "`" + std::string(field) + "` names device " + std::to_string(key)
                            + ", which the console does not hold; it reads every device again" });
            };
            for (const DeviceUsage& u : deviceUsage)
                if (!known(u.key))
                    return unknown(u.key, "usage");
            if (deviceKeys)
                for (const std::int64_t key : *deviceKeys)
                    if (!known(key))
                        return unknown(key, "keys");
        }
        maxFrames = devices["maxFrames"].get<std::size_t>();
        auto read = deviceHistoryFromJson(devices["history"], m_frames.empty() ? nullptr : m_frames.back()->layout);
        if (!read)
            return misread("/v1/devices", read.error());
        frames = std::move(*read);
    }
    std::vector<EventRowPtr> newEvents;
    bool restarted = false;
    if (!events.is_null()) {
        auto rows = rowsOf(events, "events", "/v1/events", eventFromJson);
        if (!rows)
            return tl::unexpected(rows.error());
        for (EventRow& row : *rows)
            newEvents.push_back(std::make_shared<const EventRow>(std::move(row)));
        if (!events.contains("latest") || !isCount(events["latest"]))
            return misread("/v1/events", Error { ErrorCode::ParseError, "`latest` is not an event sequence number" });
        // A daemon that started again numbers its events from 1: what we hold is another run's.
        restarted = events["latest"].get<std::uint64_t>() < newestEvent();
    }
    std::optional<std::vector<ForecastSeriesPtr>> series;
    std::int64_t revision = m_forecastRevision;
    if (!forecasts.is_null()) {
        if (!forecasts.is_object() || !forecasts.contains("revision") || !forecasts["revision"].is_number_integer())
            return misread("/v1/forecasts", Error { ErrorCode::ParseError, "`revision` is not a whole number" });
        revision = forecasts["revision"].get<std::int64_t>();
        if (!(forecasts.contains("unchanged") && forecasts["unchanged"] == json(true))) {
            auto rows = rowsOf(forecasts, "series", "/v1/forecasts", forecastFromJson);
            if (!rows)
                return tl::unexpected(rows.error());
            series.emplace();
            for (ForecastSeries& row : *rows)
                series->push_back(std::make_shared<const ForecastSeries>(std::move(row)));
        }
    }
    std::vector<AlertRow> alertRows;
    if (!alerts.is_null()) {
        auto rows = rowsOf(alerts, "alerts", "/v1/alerts", alertFromJson);
        if (!rows)
            return tl::unexpected(rows.error());
        alertRows = std::move(*rows);
    }

    if (!devices.is_null()) {
        if (!changedOnly)
            m_devices = std::move(deviceRows);
        else {
            bool appended = false;
            for (DeviceRow& row : deviceRows) {
                if (const auto it = heldAt.find(row.key); it != heldAt.end())
                    m_devices[it->second] = std::move(row);
                else {
                    heldAt.emplace(row.key, m_devices.size());
                    m_devices.push_back(std::move(row));
                    appended = true;
                }
            }
            for (const DeviceUsage& u : deviceUsage) {
                DeviceRow& row = m_devices[heldAt.at(u.key)];
                row.utilisation = u.utilisation;
                row.memoryUsedMiB = u.memoryUsedMiB;
            }
            if (deviceKeys) {
                const std::unordered_set<std::int64_t> keep(deviceKeys->begin(), deviceKeys->end());
                std::erase_if(m_devices, [&](const DeviceRow& row) { return !keep.count(row.key); });
            }
            if (appended) // by key, as the daemon sends them
                std::sort(m_devices.begin(), m_devices.end(),
                    [](const DeviceRow& a, const DeviceRow& b) { return a.key < b.key; });
        }
        m_deviceCursor = std::move(deviceCursor);
        for (DeviceFramePtr& frame : frames)
            if (m_frames.empty() || frame->atMs > m_frames.back()->atMs)
                m_frames.push_back(std::move(frame));
        while (m_frames.size() > maxFrames)
            m_frames.pop_front();
    } else {
        m_devices.clear(); // a daemon without the route
        m_deviceCursor.clear();
        m_frames.clear();
    }
    if (restarted)
        m_events.clear(); // the next poll asks from the start
    else
        for (EventRowPtr& row : newEvents)
            if (row->sequence > newestEvent())
                m_events.push_back(std::move(row));
    while (m_events.size() > kMaxEventRows)
        m_events.pop_front();
    if (series)
        m_forecasts = std::move(*series);
    m_forecastRevision = revision;
    m_alerts = std::move(alertRows);
    return {};
}

void RemoteViews::fill(ConsoleSnapshot& snapshot) const
{
    snapshot.devices = m_devices;
    snapshot.deviceHistory.assign(m_frames.begin(), m_frames.end());
    snapshot.forecasts = m_forecasts;
    snapshot.events.assign(m_events.begin(), m_events.end());
    insertHostAlerts(snapshot, m_alerts);
}

} // namespace tidepool::ui
