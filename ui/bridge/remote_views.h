#pragma once
// The Accelerators, Forecasts and Events views and the host alerts of a console attached with `--connect`, kept
// between polls from what tidepoold serves (`console_feed.h`): each poll asks only for what is new (device rows changed
// since the cursor of the last answer, and only the usage of those whose usage alone changed; device frames after the
// newest held, events after the newest held, forecasts when their revision moved) and merges it, so that a poll of a
// large fleet does not resend every device and hours of history. A daemon without these routes (an older tidepoold)
// answers 404: the views stay empty, as they were before; one without device cursors answers every row each poll.
//
// Thread affinity: the remote backend's thread (one thread); `fill` copies pointers into a snapshot, whose rows are
// then shared read-only.

#include "core/model/types.h"
#include "ui/bridge/console_snapshot.h"

#include <nlohmann/json.hpp>

#include <deque>
#include <string>

namespace tidepool::ui {

class RemoteViews {
public:
    // The targets of this poll's four GETs.
    std::string devicesTarget() const;
    std::string eventsTarget() const;
    std::string forecastsTarget() const;
    static std::string alertsTarget() { return "/v1/alerts"; }

    // Takes the four answers (each null when the daemon has no such route). Fails naming the first bad field; then
    // nothing is taken, and the next poll asks again for the same, except that changed devices that do not fit the
    // rows held (usage or keys of a device not held) make the next poll read every device.
    Expected<void> take(const nlohmann::json& devices, const nlohmann::json& events, const nlohmann::json& forecasts,
        const nlohmann::json& alerts);
    // Sets the snapshot's devices, device history, forecasts and events, and puts the host alerts among its alerts.
    void fill(ConsoleSnapshot& snapshot) const;

    // After the daemon refused the device cursor (410: it restarted): the next poll reads every device.
    void forgetDeviceCursor() { m_deviceCursor.clear(); }
    const std::string& deviceCursor() const { return m_deviceCursor; }

    std::size_t frameCount() const { return m_frames.size(); }
    std::uint64_t newestEvent() const { return m_events.empty() ? 0 : m_events.back()->sequence; }

private:
    std::vector<DeviceRow> m_devices; // by key
    std::string m_deviceCursor; // of the answer they are as of; empty: read them all
    std::deque<DeviceFramePtr> m_frames;
    std::deque<EventRowPtr> m_events;
    std::vector<ForecastSeriesPtr> m_forecasts;
    std::int64_t m_forecastRevision = -1;
    std::vector<AlertRow> m_alerts;
};

} // namespace tidepool::ui
