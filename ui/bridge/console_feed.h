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
//   GET /v1/events[?after=SEQ&limit=N&category=C&subject=S&node=N&waitMs=MS]
//                                     {"events": [...], "latest": SEQ, "scanned": SEQ}: events after SEQ, oldest
//                                     first, at most N (default and most 5000), only those whose category, subject and
//                                     node are the ones given; "scanned" is the last one looked at (read on from it),
//                                     "latest" the newest there is, so a console that sees it smaller than what it
//                                     holds knows the daemon restarted. With `waitMs` (at most 300000) and none to
//                                     answer yet, the request waits until one comes (answered as soon as the core has
//                                     recorded it) or MS have passed, as Nomad's blocking queries do; "waitedMs" says
//                                     how long it waited. At most `kMaxEventWaiters` wait at once: a request beyond
//                                     them is answered at once (`"waitedMs": 0`), and its reader polls. A reader
//                                     that closes its connection while it waits leaves at once (its place is free
//                                     for the next; `net::HttpRespond::onClientGone`)
//   GET /v1/forecasts[?ifRevision=R]  {"revision": R, "series": [...]}; {"revision": R, "unchanged": true} when
//                                     nothing changed since revision R (series are read once per 5-minute bucket)
//   GET /v1/alerts                    {"alerts": [...]}: the disk and certificate alerts (a console works out the
//                                     node and read-only alerts from the rows it has)
// All are viewer-role reads. `sample` is called on a timer so that the device history and the event timeline keep
// growing while no console is attached.
//
// Thread affinity: the core's thread (it reads the control plane, the rebalancer and the store); the forecast
// collector backtests on a thread of its own. Ownership: borrows the plane and the rebalancer, which must outlive it;
// it is the plane's event listener while it lives.

#include "core/api/http_api.h"
#include "ui/bridge/alerts.h"
#include "ui/bridge/view_collector.h"

#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <map>
#include <memory>

namespace tidepool::ui {

// Event requests waiting at once (`waitMs`); each holds a connection of the API's.
inline constexpr std::size_t kMaxEventWaiters = 64;
inline constexpr std::int64_t kMaxEventWaitMs = 300'000;

class ConsoleFeed {
public:
    // `io` is the core's io_context; `rebalancer` may be null (no store: no proposals, no forecasts).
    ConsoleFeed(boost::asio::io_context& io, api::ControlPlane& plane, const api::Rebalancer* rebalancer,
        HostAlertSources alerts);
    // Answers the event requests still waiting (503: the daemon is stopping) and leaves the plane's events.
    ~ConsoleFeed();
    ConsoleFeed(const ConsoleFeed&) = delete;
    ConsoleFeed& operator=(const ConsoleFeed&) = delete;

    // Advances the device history and the event timeline to the core's present.
    void sample();
    // Adds the four routes to `api`.
    void install(api::HttpApi& api);

    // Every device's row (about 2 MB with 6,800 devices), or those changed since a cursor: written off the core's
    // thread.
    api::HttpApi::ReadAnswer devices(std::string_view query);
    // An answer at once, or with `waitMs` and nothing to answer yet, a `LaterAnswer` that waits.
    api::HttpApi::ReadAnswer events(std::string_view query);
    std::size_t waitingEventReaders() const { return m_eventWaiters.size(); }
    // Waiting readers that closed their connection before their answer, since the feed began.
    std::uint64_t eventReadersGone() const { return m_eventReadersGone; }
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

    // What an events request asks for.
    struct EventQuery {
        std::uint64_t after = 0;
        std::size_t limit = kMaxEventRows;
        std::optional<std::string> category;
        std::optional<std::string> subject;
        std::optional<std::string> node;
        std::int64_t waitMs = 0;
    };
    struct EventWaiter {
        EventQuery query;
        std::int64_t sinceMs = 0; // steady clock
        std::unique_ptr<boost::asio::steady_timer> timer; // its wait's end
        net::HttpRespond respond;
    };
    // The timeline up to now, and the answer to `query` from it: nullopt when it has no event to give yet and `wait`.
    void fillEvents();
    std::optional<net::HttpResponse> eventAnswer(const EventQuery& query, bool wait, std::int64_t waitedMs) const;
    void waitForEvents(EventQuery query, net::HttpRespond respond);
    // Answers the waiting requests that have events now. Posted by the plane's event listener, run each second while
    // any waits (proposals are not in the plane's events) and at each `sample`.
    void answerEventWaiters();
    void armEventSweep();

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

    boost::asio::io_context& m_io;
    api::ControlPlane& m_listened;
    std::map<std::uint64_t, EventWaiter> m_eventWaiters; // by a number of their own
    std::uint64_t m_nextWaiter = 1;
    std::uint64_t m_eventReadersGone = 0;
    bool m_wakePosted = false;
    boost::asio::steady_timer m_eventSweep;
    std::shared_ptr<int> m_alive = std::make_shared<int>(0); // handlers posted check it is still there
};

} // namespace tidepool::ui
