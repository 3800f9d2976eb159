#pragma once
// What tidepoold serves to consoles attached with `--connect` beyond the core's own resources, so that they show what
// an embedded console shows: the Accelerators view's devices and their sample history, the Events view's timeline, the
// Forecasts view's series with their backtests, and the alerts of the machine the daemon runs on (its database's disk,
// its certificates). The very collectors an embedded console uses (`view_collector.h`, `alerts.h`) run here, on the
// core's thread, and their rows go out as `view_json.h` has them (the devices' written on the API's serialiser thread):
//   GET /v1/devices[?framesAfter=MS]  {"devices": [...], "history": {"layouts", "frames"}, "sampleMs", "maxFrames",
//                                     "cursor"}: every device now, and the history frames taken after MS (default: all
//                                     kept); "cursor" (RUN.SEQUENCE) says which devices' state this was
//   GET /v1/devices?changedSince=CURSOR[&framesAfter=MS]  the same, but "devices" holds only the rows whose state
//                                     other than their usage changed since CURSOR, "usage" [[key, utilisation,
//                                     memoryUsedMiB], ...] (null: not measured) the rows of which only the usage
//                                     changed, and "keys" [...] every device's key when devices came or went since;
//                                     "changedSince" echoes CURSOR. 400 for a malformed cursor, 410 for another run's
//                                     (the console reads them all again)
//   GET /v1/events[?after=SEQ&limit=N&category=C&subject=S&node=N]
//                                     {"events": [...], "latest": SEQ, "scanned": SEQ}: events after SEQ, oldest
//                                     first, at most N (default and most 5000), only those whose category, subject and
//                                     node are the ones given; "scanned" is the last one looked at (read on from it),
//                                     "latest" the newest there is, so a console that sees it smaller than what it
//                                     holds knows the daemon restarted
//   GET /v1/forecasts[?ifRevision=R]  {"revision": R, "series": [...]}; {"revision": R, "unchanged": true} when
//                                     nothing changed since revision R (series are read once per 5-minute bucket)
//   GET /v1/alerts                    {"alerts": [...]}: the disk and certificate alerts (a console works out the
//                                     node and read-only alerts from the rows it has)
// All are viewer-role reads. `sample` is called on a timer so that the device history and the event timeline keep
// growing while no console is attached.
//
// Thread affinity: the core's thread (it reads the control plane, the rebalancer and the store); the forecast
// collector backtests on a thread of its own. Ownership: borrows the plane and the rebalancer, which must outlive it.

#include "core/api/http_api.h"
#include "ui/bridge/alerts.h"
#include "ui/bridge/view_collector.h"

#include <cstdint>

namespace tidepool::ui {

class ConsoleFeed {
public:
    // `rebalancer` may be null (no store: no proposals, no forecasts).
    ConsoleFeed(const api::ControlPlane& plane, const api::Rebalancer* rebalancer, HostAlertSources alerts);

    // Advances the device history and the event timeline to the core's present.
    void sample();
    // Adds the four routes to `api`.
    void install(api::HttpApi& api);

    // Every device's row (about 2 MB with 6,800 devices), or those changed since a cursor: written off the core's
    // thread.
    api::HttpApi::ReadAnswer devices(std::string_view query);
    net::HttpResponse events(std::string_view query);
    net::HttpResponse forecasts(std::string_view query);
    net::HttpResponse alerts();

private:
    // When each device's row last changed, by the sequence of the `devices` call that saw it: its usage (utilisation,
    // memory used) and the rest apart.
    struct DeviceChange {
        std::uint64_t rest = 0;
        std::uint64_t usage = 0;
    };
    // Compares the rows just filled with those of the last call and moves the sequence on where something changed.
    void trackDeviceChanges();

    const api::ControlPlane& m_plane;
    const api::Rebalancer* m_rebalancer;
    HostAlertSources m_alerts;
    DeviceCollector m_devices;
    EventCollector m_events;
    ForecastCollector m_forecasts;
    ConsoleSnapshot m_scratch; // what the collectors last filled
    std::vector<DeviceRow> m_sentDevices; // the rows of the last `devices` call, by key
    std::vector<DeviceChange> m_deviceChanges; // of each of them
    std::uint64_t m_deviceSequence = 0;
    std::uint64_t m_deviceKeysChanged = 0; // the sequence at which devices last came or went
    std::vector<ForecastSeriesPtr> m_lastSeries;
    std::uint64_t m_forecastRevision = 0;
};

} // namespace tidepool::ui
