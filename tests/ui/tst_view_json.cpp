// The console views' JSON (ui/bridge/view_json.h) and how a remote console merges what tidepoold's feed sends
// (ui/bridge/remote_views.h): every field makes the trip, a bad field is named with its place, and polls take only
// what is new.
#include "core/api/control_plane.h"
#include "core/rebalance/reason.h"
#include "ui/bridge/console_feed.h"
#include "ui/bridge/remote_views.h"
#include "ui/bridge/view_json.h"

#include <QtTest/QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>

using namespace tidepool;
using namespace tidepool::ui;
using nlohmann::json;

namespace {

DeviceRow fpgaRow()
{
    DeviceRow row;
    row.nodeId = 3;
    row.index = 1;
    row.key = DeviceRow::keyOf(3, 1);
    row.node = "fpga-01";
    row.tier = "hot";
    row.nodeState = "ready";
    row.kind = "fpga";
    row.model = "Alveo-U250";
    row.shareCapacity = 4;
    row.shareAllocated = 3;
    row.memoryMiB = 65536;
    row.memoryAllocatedMiB = 0;
    row.utilisation = 0.5;
    row.memoryUsedMiB = -1; // not measured
    row.holders = { DeviceHolder { 7, "transcode-7", "video", 2, 0 }, DeviceHolder { 9, "transcode-9", "video", 1, 0 } };
    row.slotHolders = { 7, 7, 9, 0 };
    return row;
}

// Two frames on one layout with one FPGA of four slots (device position 1 of two devices), the second a later one.
std::vector<DeviceFramePtr> frames()
{
    auto layout = std::make_shared<DeviceLayout>();
    layout->firstOfNode = { 0, 1, 2 };
    layout->slotRanges = { SlotRange { 1, 0, 4 } };
    auto held = std::make_shared<SlotFrame>();
    held->holders = { 7, 7, 9, 0 };
    held->workloads = { SlotHolder { 7, "transcode-7", "video" }, SlotHolder { 9, "transcode-9", "video" } };
    std::vector<DeviceFramePtr> out;
    for (std::int64_t at : { 60'000, 120'000 }) {
        auto frame = std::make_shared<DeviceFrame>();
        frame->atMs = at;
        frame->layout = layout;
        frame->values = { DeviceSampleValue { 500, 250, DeviceSampleValue::kNotMeasured, 100 },
            DeviceSampleValue { DeviceSampleValue::kNotMeasured, 750, 10, 0 } };
        frame->slotFrame = held;
        out.push_back(std::move(frame));
    }
    return out;
}

json devicesAnswer(const std::vector<DeviceFramePtr>& history)
{
    return json { { "devices", json::array({ toJson(fpgaRow()) }) }, { "history", deviceHistoryToJson(history) },
        { "sampleMs", 60'000 }, { "maxFrames", 3 } };
}

json eventsAnswer(std::uint64_t first, std::uint64_t last)
{
    json rows = json::array();
    for (std::uint64_t s = first; s <= last; ++s)
        rows.push_back(toJson(EventRow { s, static_cast<std::int64_t>(s) * 1000, "placement", "w" + std::to_string(s),
            "pending", "launching", "n1", "", "", "" }));
    return json { { "events", rows }, { "latest", last } };
}

// A control plane with no store whose agents take every message.
std::unique_ptr<api::ControlPlane> makePlane(boost::asio::io_context& io)
{
    api::AgentLink link { [](const std::string&, const protocol::Message&) { return true; },
        [](const std::string&, const std::string&) { return true; } };
    auto created = api::ControlPlane::create(io, api::ControlPlaneConfig {}, link, {}, nullptr);
    return created ? std::move(*created) : nullptr;
}

// Node `name` joined to `plane` with 8 cores, 16 GiB and `gpus` T4s.
void joinNode(api::ControlPlane& plane, const std::string& session, const std::string& name, int gpus)
{
    protocol::Inventory inv;
    inv.isa = "x86_64";
    inv.cpuMillis = 8000;
    inv.memoryMiB = 16384;
    for (int d = 0; d < gpus; ++d)
        inv.devices.push_back(protocol::DeviceInfo { d, "gpu", "T4", 16384, 1000 });
    plane.onJoined(session, "127.0.0.1:1", protocol::Hello { name, "t", std::nullopt });
    plane.onInventory(session, inv);
}

// A plane with node n1 joined (8 cores, no GPU), for the feed's event reads.
std::unique_ptr<api::ControlPlane> planeWithANode(boost::asio::io_context& io)
{
    auto plane = makePlane(io);
    if (plane)
        joinNode(*plane, "s1", "n1", 0);
    return plane;
}

} // namespace

class TestViewJson : public QObject {
    Q_OBJECT
private slots:
    void rowsMakeTheTrip();
    void historyMakesTheTripSharingLayoutsAndSlotFrames();
    void badFieldsAreNamedWithTheirPlace();
    void remoteViewsTakeOnlyWhatIsNew();
    void aBadAnswerTakesNothing();
    void theFeedSendsWhatChangedSinceACursor();
    void anEventReadWaitsUntilOneComes();
    void anEventReaderThatLeavesGivesUpItsPlace();
};

void TestViewJson::rowsMakeTheTrip()
{
    const DeviceRow device = fpgaRow();
    auto back = deviceFromJson(json::parse(toJson(device).dump()), "devices[0]");
    QVERIFY2(back, back ? "" : back.error().message.c_str());
    QVERIFY(*back == device);

    ForecastSeries f;
    f.scope = "pool";
    f.name = "web-0";
    f.resource = "cpu";
    f.history = { HistoryValue { 0, 1.5 }, HistoryValue { 300'000, std::nan("") } }; // a gap
    f.model = "seasonal";
    f.madeMs = 300'000;
    f.forecast = { ForecastPoint { 600'000, 2.0, 1.0, 3.0 } };
    f.backtest = BacktestError { true, "", 12, 10.5, std::nan(""), 80.0, 72 };
    auto series = forecastFromJson(json::parse(toJson(f).dump()), "series[0]");
    QVERIFY2(series, series ? "" : series.error().message.c_str());
    QCOMPARE(series->history.size(), std::size_t { 2 });
    QCOMPARE(series->history[0].value, 1.5);
    QVERIFY(std::isnan(series->history[1].value));
    QCOMPARE(series->forecast[0].p90, 3.0);
    QVERIFY(series->backtest.done);
    QVERIFY(std::isnan(series->backtest.mase));
    QCOMPARE(series->backtest.scoredPoints, std::size_t { 72 });
    QCOMPARE(series->key(), f.key());

    const EventRow e { 12, 3000, "approval", "proposal/4", "pending", "applied", "", "token:alice", "ahead of the peak",
        "" };
    auto event = eventFromJson(json::parse(toJson(e).dump()), "events[0]");
    QVERIFY(event);
    QCOMPARE(event->detail, e.detail);
    QCOMPARE(event->sequence, e.sequence);
    QVERIFY(event->detailWhy.empty());
    // A new proposal's event carries its reason's clauses.
    EventRow proposed = e;
    proposed.detailWhy = tidepool::rebalance::toJson({ tidepool::rebalance::clause("power-down") }).dump();
    event = eventFromJson(json::parse(toJson(proposed).dump()), "events[1]");
    QVERIFY(event);
    QCOMPARE(event->detailWhy, proposed.detailWhy);

    const AlertRow a { "certificate-expiring", "/etc/tidepool/core.pem", "", 1'800'000'000'000, 0 };
    auto alert = alertFromJson(json::parse(toJson(a).dump()), "alerts[0]");
    QVERIFY(alert);
    QVERIFY(*alert == a);
}

void TestViewJson::historyMakesTheTripSharingLayoutsAndSlotFrames()
{
    const auto sent = frames();
    const json j = json::parse(deviceHistoryToJson(sent).dump());
    QCOMPARE(j["layouts"].size(), std::size_t { 1 }); // sent once for both frames
    auto back = deviceHistoryFromJson(j);
    QVERIFY2(back, back ? "" : back.error().message.c_str());
    QCOMPARE(back->size(), std::size_t { 2 });
    for (std::size_t i = 0; i < 2; ++i) {
        QCOMPARE((*back)[i]->atMs, sent[i]->atMs);
        QVERIFY((*back)[i]->layout->firstOfNode == sent[i]->layout->firstOfNode);
        QVERIFY((*back)[i]->layout->slotRanges == sent[i]->layout->slotRanges);
        QVERIFY(*(*back)[i]->slotFrame == *sent[i]->slotFrame);
        for (std::size_t d = 0; d < 2; ++d) {
            QCOMPARE((*back)[i]->values[d].utilisation, sent[i]->values[d].utilisation);
            QCOMPARE((*back)[i]->values[d].allocated, sent[i]->values[d].allocated);
            QCOMPARE((*back)[i]->values[d].memoryUsed, sent[i]->values[d].memoryUsed);
            QCOMPARE((*back)[i]->values[d].memoryAllocated, sent[i]->values[d].memoryAllocated);
        }
    }
    QCOMPARE((*back)[0]->layout.get(), (*back)[1]->layout.get());
    QCOMPARE((*back)[0]->slotFrame.get(), (*back)[1]->slotFrame.get());
    // Read again with the first reading's layout: the same layout object, as frames of one collector share it.
    auto again = deviceHistoryFromJson(j, (*back)[0]->layout);
    QVERIFY(again);
    QCOMPARE((*again)[0]->layout.get(), (*back)[0]->layout.get());
}

void TestViewJson::badFieldsAreNamedWithTheirPlace()
{
    json device = toJson(fpgaRow());
    device["holders"][1]["share"] = "two";
    auto bad = deviceFromJson(device, "devices[4]");
    QVERIFY(!bad);
    QCOMPARE(QString::fromStdString(bad.error().message), QStringLiteral("devices[4].holders[1].share is not a whole number"));

    device = toJson(fpgaRow());
    device.erase("kind");
    bad = deviceFromJson(device, "devices[0]");
    QVERIFY(!bad);
    QCOMPARE(QString::fromStdString(bad.error().message), QStringLiteral("devices[0].kind is missing"));

    device = toJson(fpgaRow());
    device["key"] = 1;
    QVERIFY(!deviceFromJson(device, "d"));

    json history = deviceHistoryToJson(frames());
    history["frames"][1]["values"].erase(0);
    auto frames = deviceHistoryFromJson(history);
    QVERIFY(!frames);
    QVERIFY2(QString::fromStdString(frames.error().message).contains(QStringLiteral("device history.frames[1].values has 7 values")),
        frames.error().message.c_str());

    history = deviceHistoryToJson(::frames());
    history["frames"][0]["layout"] = 3;
    QVERIFY(!deviceHistoryFromJson(history));
    history = deviceHistoryToJson(::frames());
    history["frames"][0]["slots"]["holders"].push_back(5);
    frames = deviceHistoryFromJson(history);
    QVERIFY(!frames);
    QVERIFY2(QString::fromStdString(frames.error().message).contains(QStringLiteral("slots.holders has 5 slots")),
        frames.error().message.c_str());
    history = deviceHistoryToJson(::frames());
    history["frames"][0]["slots"] = nullptr;
    QVERIFY(!deviceHistoryFromJson(history));

    json series = toJson(ForecastSeries {});
    series["forecast"] = json::array({ json::array({ 1, 2 }) });
    auto f = forecastFromJson(series, "series[2]");
    QVERIFY(!f);
    QCOMPARE(QString::fromStdString(f.error().message),
        QStringLiteral("series[2].forecast[0] is not [time, mean, p10, p90]"));
    QVERIFY(!eventFromJson(json::array(), "events[0]"));
}

void TestViewJson::remoteViewsTakeOnlyWhatIsNew()
{
    RemoteViews views;
    QCOMPARE(QString::fromStdString(views.devicesTarget()), QStringLiteral("/v1/devices"));
    QCOMPARE(QString::fromStdString(views.eventsTarget()), QStringLiteral("/v1/events?after=0"));
    QCOMPARE(QString::fromStdString(views.forecastsTarget()), QStringLiteral("/v1/forecasts"));

    ForecastSeries web0;
    web0.scope = "pool";
    web0.name = "web-0";
    web0.resource = "cpu";
    const json forecasts { { "revision", 1 }, { "series", json::array({ toJson(web0) }) } };
    const json alerts { { "alerts", json::array({ toJson(AlertRow { "disk-low", "/var/lib/tidepool", "", 10, 100 }) }) } };
    QVERIFY(views.take(devicesAnswer(frames()), eventsAnswer(1, 3), forecasts, alerts));
    QCOMPARE(QString::fromStdString(views.devicesTarget()), QStringLiteral("/v1/devices?framesAfter=120000"));
    QCOMPARE(QString::fromStdString(views.eventsTarget()), QStringLiteral("/v1/events?after=3"));
    QCOMPARE(QString::fromStdString(views.forecastsTarget()), QStringLiteral("/v1/forecasts?ifRevision=1"));

    // The next poll: two later frames (one past `maxFrames`), events 4 and 5, forecasts unchanged.
    auto later = frames();
    for (std::size_t i = 0; i < later.size(); ++i) {
        auto copy = std::make_shared<DeviceFrame>(*later[i]);
        copy->atMs += 120'000;
        later[i] = copy;
    }
    const json unchanged { { "revision", 1 }, { "unchanged", true } };
    QVERIFY(views.take(devicesAnswer(later), eventsAnswer(4, 5), unchanged, alerts));
    ConsoleSnapshot s;
    s.alerts = { AlertRow { "read-only", "", "disk full", 0, 0 }, AlertRow { "node-lost", "n2", "", 0, 0 } };
    views.fill(s);
    QCOMPARE(s.devices.size(), std::size_t { 1 });
    QVERIFY(s.devices[0] == fpgaRow());
    QCOMPARE(s.deviceHistory.size(), std::size_t { 3 }); // the oldest fell off
    QCOMPARE(s.deviceHistory.front()->atMs, std::int64_t { 120'000 });
    QCOMPARE(s.deviceHistory.back()->atMs, std::int64_t { 240'000 });
    QCOMPARE(s.events.size(), std::size_t { 5 });
    QCOMPARE(s.events.back()->sequence, std::uint64_t { 5 });
    QCOMPARE(s.forecasts.size(), std::size_t { 1 }); // kept from the first poll
    QCOMPARE(s.forecasts[0]->name, std::string("web-0"));
    // The daemon's disk alert after the store's and before the nodes'.
    QCOMPARE(s.alerts.size(), std::size_t { 3 });
    QCOMPARE(s.alerts[1].kind, std::string("disk-low"));

    // A daemon that started again numbers its events from 1: the console starts over rather than mixing two runs.
    QVERIFY(views.take(json(), eventsAnswer(1, 2), json(), json()));
    QCOMPARE(views.newestEvent(), std::uint64_t { 0 });
    QVERIFY(views.take(json(), eventsAnswer(1, 2), json(), json()));
    QCOMPARE(views.newestEvent(), std::uint64_t { 2 });
}

void TestViewJson::aBadAnswerTakesNothing()
{
    RemoteViews views;
    QVERIFY(views.take(devicesAnswer(frames()), eventsAnswer(1, 3), json(), json()));
    json broken = eventsAnswer(4, 6);
    broken["events"][2]["atMs"] = "later";
    auto taken = views.take(devicesAnswer(frames()), broken, json(), json());
    QVERIFY(!taken);
    QVERIFY2(QString::fromStdString(taken.error().message)
                 .contains(QStringLiteral("GET /v1/events: events[2].atMs is not a whole number")),
        taken.error().message.c_str());
    QCOMPARE(views.newestEvent(), std::uint64_t { 3 }); // nothing of that answer was taken
}

// A real control plane and the feed tidepoold serves: after a full read, each answer since a cursor holds the rows
// that changed whole, the usage of those whose usage alone changed, and the keys when devices came or went; merged
// by `RemoteViews`, they make the rows a full read answers.
void TestViewJson::theFeedSendsWhatChangedSinceACursor()
{
    boost::asio::io_context io;
    const auto created = makePlane(io);
    QVERIFY(created);
    api::ControlPlane& plane = *created;
    const auto join
        = [&](const std::string& session, const std::string& name, int gpus) { joinNode(plane, session, name, gpus); };
    join("s1", "n1", 2);
    ConsoleFeed feed(io, plane, nullptr, HostAlertSources {});
    const auto get = [&](const std::string& query, unsigned expected = 200) {
        auto answer = feed.devices(query);
        const net::HttpResponse r = std::holds_alternative<net::HttpResponse>(answer)
            ? std::get<net::HttpResponse>(answer)
            : std::get<api::HttpApi::OffThreadWriter>(answer)();
        if (r.result_int() != expected)
            qWarning("%s: %u %s", query.c_str(), r.result_int(), r.body().c_str());
        return r.result_int() == expected ? json::parse(r.body()) : json();
    };
    const auto sameRows = [&](const RemoteViews& views) {
        ConsoleSnapshot s;
        views.fill(s);
        std::vector<DeviceRow> full;
        const json answer = get("");
        for (const json& row : answer["devices"])
            full.push_back(*deviceFromJson(row, "devices[]"));
        return s.devices == full;
    };

    RemoteViews views;
    const json first = get("");
    QCOMPARE(first["devices"].size(), std::size_t(2));
    QVERIFY(views.take(first, json(), json(), json()));
    QVERIFY(QString::fromStdString(views.devicesTarget()).startsWith(QStringLiteral("/v1/devices?framesAfter=")));
    QVERIFY(QString::fromStdString(views.devicesTarget())
                .endsWith(QString::fromStdString("&changedSince=" + views.deviceCursor())));
    const std::string query = "changedSince=" + views.deviceCursor();

    // Nothing changed: nothing but the cursor.
    json since = get(query);
    QCOMPARE(since["devices"].size(), std::size_t(0));
    QCOMPARE(since["usage"].size(), std::size_t(0));
    QVERIFY(!since.contains("keys"));
    QCOMPARE(since["cursor"], first["cursor"]);

    // A heartbeat measures GPU 1: its usage alone, the utilisation to a hundredth of a percent (as in a whole row).
    protocol::Heartbeat hb;
    hb.samples.push_back(
        protocol::UtilisationSample { 1000, 0.5, 2048, { protocol::DeviceSample { 1, 0.123456, 100 } } });
    plane.onHeartbeat("s1", hb);
    since = get(query);
    QCOMPARE(since["devices"].size(), std::size_t(0));
    QCOMPARE(since["usage"].dump(), std::string("[[1,0.1235,100]]"));
    QVERIFY(since["cursor"] != first["cursor"]);
    QVERIFY(views.take(since, json(), json(), json()));
    QVERIFY(sameRows(views));
    QCOMPARE(get("")["devices"][1]["utilisation"].dump(), std::string("0.1235"));

    // A placement on a GPU: that row whole (its holder), not as usage.
    api::SubmitRequest a;
    a.name = "a";
    a.requests = { 500, 256, 0, 0 };
    a.accelerators.kind = AcceleratorKind::Gpu;
    a.accelerators.count = 1;
    a.accelerators.sharePerDevice = 250;
    a.argv = { "/bin/true" };
    QVERIFY(plane.submit(a));
    const std::string cursorBefore = views.deviceCursor();
    since = get("changedSince=" + cursorBefore);
    QCOMPARE(since["devices"].size(), std::size_t(1));
    QCOMPARE(since["devices"][0]["holders"].size(), std::size_t(1));
    QCOMPARE(since["usage"].size(), std::size_t(0));
    QVERIFY(views.take(since, json(), json(), json()));
    QVERIFY(sameRows(views));
    // Asked again from an older cursor, the answer holds every change since that one.
    const json older = get(query);
    QCOMPARE(older["devices"].size(), std::size_t(1));
    QCOMPARE(older["usage"].size(), std::size_t(1));

    // A node with one more GPU joins: the keys, and its row whole.
    join("s2", "n2", 1);
    since = get("changedSince=" + views.deviceCursor());
    QCOMPARE(since["keys"].size(), std::size_t(3));
    QVERIFY(views.take(since, json(), json(), json()));
    QVERIFY(sameRows(views));
    ConsoleSnapshot shown;
    views.fill(shown);
    QCOMPARE(shown.devices.size(), std::size_t(3));
    QCOMPARE(shown.devices.back().node, std::string("n2"));

    // Cursors: malformed, ahead of the daemon, of another run.
    for (const auto& [cursor, status, words] : { std::tuple { std::string("soon"), 400u, "query `changedSince`" },
             std::tuple { plane.runId() + ".999", 400u, "query `changedSince`" },
             std::tuple { std::string("other-run.1"), 410u, "restarted" } }) {
        const std::string error = get("changedSince=" + cursor, status).value("error", std::string());
        QVERIFY2(error.find(words) != std::string::npos, cursor.c_str());
    }

    // Bad changes are refused naming the field; usage of a device the console does not hold makes it read all again.
    json bad = get("changedSince=" + views.deviceCursor());
    bad["usage"] = json::array({ json::array({ DeviceRow::keyOf(0, 0), 1.5, 0 }) });
    auto taken = views.take(bad, json(), json(), json());
    QVERIFY(!taken);
    QVERIFY2(taken.error().message.find("usage[0][1] is not a utilisation") != std::string::npos,
        taken.error().message.c_str());
    QVERIFY(!views.deviceCursor().empty());
    bad["usage"] = json::array({ json::array({ DeviceRow::keyOf(7, 0), 0.5, 0 }) });
    taken = views.take(bad, json(), json(), json());
    QVERIFY(!taken);
    QVERIFY2(taken.error().message.find("device " + std::to_string(DeviceRow::keyOf(7, 0))) != std::string::npos,
        taken.error().message.c_str());
    QVERIFY(views.deviceCursor().empty());
    QVERIFY(!QString::fromStdString(views.devicesTarget()).contains(QStringLiteral("changedSince")));
    bad["changedSince"] = "someone-else.3";
    QVERIFY(!views.take(bad, json(), json(), json())); // a cursor it did not ask with
    // An older tidepoold answers every row and no cursor: the console keeps reading them all.
    json old = get("");
    old.erase("cursor");
    QVERIFY(views.take(old, json(), json(), json()));
    QVERIFY(views.deviceCursor().empty());
    QVERIFY(sameRows(views));
    plane.stop();
}

// `GET /v1/events?waitMs=MS` (Nomad's blocking query): with nothing to answer, the read waits; an event the core
// records answers it as soon as the core is done with what recorded it, one that does not match leaves it waiting until
// its time is up, and beyond `kMaxEventWaiters` a read is answered at once.
void TestViewJson::anEventReadWaitsUntilOneComes()
{
    boost::asio::io_context io;
    const auto created = planeWithANode(io);
    QVERIFY(created);
    api::ControlPlane& plane = *created;
    auto feed = std::make_unique<ConsoleFeed>(io, plane, nullptr, HostAlertSources {});
    const auto now = [&](const std::string& query, unsigned expected = 200) {
        auto answer = feed->events(query);
        if (!std::holds_alternative<net::HttpResponse>(answer))
            return json { { "held", true } };
        const net::HttpResponse& r = std::get<net::HttpResponse>(answer);
        if (r.result_int() != expected)
            qWarning("%s: %u %s", query.c_str(), r.result_int(), r.body().c_str());
        return r.result_int() == expected ? json::parse(r.body()) : json();
    };
    // A read that waits, and what it was answered (empty until it is).
    struct Held {
        std::optional<net::HttpResponse> answer;
    };
    const auto hold = [&](const std::string& query) {
        auto held = std::make_shared<Held>();
        auto answer = feed->events(query);
        if (auto* later = std::get_if<api::HttpApi::LaterAnswer>(&answer))
            (*later)([held](net::HttpResponse r) { held->answer = std::move(r); });
        else
            held->answer = std::get<net::HttpResponse>(answer);
        return held;
    };
    const std::string latest = std::to_string(now("")["latest"].get<std::uint64_t>());
    QVERIFY(now("after=" + latest).value("events", json::array()).empty());
    QVERIFY(!now("after=" + latest).contains("waitedMs")); // not asked to wait

    // Nothing new: both wait. A submission answers the first, once the core is done (not from inside the submit); the
    // second asked for another subject and waits on.
    const auto all = hold("after=" + latest + "&waitMs=60000");
    const auto other = hold("after=" + latest + "&waitMs=200&subject=nobody");
    QVERIFY(!all->answer && !other->answer);
    QCOMPARE(feed->waitingEventReaders(), std::size_t { 2 });
    api::SubmitRequest a;
    a.name = "etl";
    a.requests = { 500, 256, 0, 0 };
    a.argv = { "/bin/true" };
    QVERIFY(plane.submit(a));
    QVERIFY(!all->answer);
    io.poll();
    QVERIFY(all->answer);
    QCOMPARE(all->answer->result_int(), 200u);
    const json woken = json::parse(all->answer->body());
    QVERIFY2(!woken["events"].empty(), woken.dump().c_str());
    QCOMPARE(woken["events"][0].value("subject", std::string()), std::string("etl"));
    QVERIFY(woken.value("waitedMs", -1) >= 0 && woken.value("waitedMs", -1) < 60'000);
    QVERIFY(!other->answer);
    QCOMPARE(feed->waitingEventReaders(), std::size_t { 1 });
    // Its time up, it is answered with none, read on from the newest.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!other->answer && std::chrono::steady_clock::now() < deadline)
        io.run_one_for(std::chrono::milliseconds(50));
    QVERIFY(other->answer);
    const json timedOut = json::parse(other->answer->body());
    QVERIFY(timedOut["events"].empty());
    QCOMPARE(timedOut["scanned"], woken["latest"]);
    QVERIFY2(timedOut.value("waitedMs", 0) >= 200, timedOut.dump().c_str());
    QCOMPARE(feed->waitingEventReaders(), std::size_t { 0 });

    // Events already there are answered at once, waiting or not.
    QCOMPARE(now("after=" + latest + "&waitMs=60000").value("waitedMs", -1), 0);
    // Bad waits are refused naming the query.
    for (const char* bad : { "waitMs=300001", "waitMs=soon", "waitMs=-1" })
        QVERIFY2(now(bad, 400).value("error", std::string()).find("query `waitMs`") != std::string::npos, bad);

    // At most kMaxEventWaiters wait; the next is answered at once. Those waiting when the feed goes get a 503.
    const std::string newest = std::to_string(woken["latest"].get<std::uint64_t>());
    std::vector<std::shared_ptr<Held>> crowd;
    for (std::size_t i = 0; i < kMaxEventWaiters; ++i)
        crowd.push_back(hold("after=" + newest + "&waitMs=60000"));
    QCOMPARE(feed->waitingEventReaders(), kMaxEventWaiters);
    const json beyond = now("after=" + newest + "&waitMs=60000");
    QVERIFY2(!beyond.contains("held") && beyond["events"].empty(), beyond.dump().c_str());
    QCOMPARE(beyond.value("waitedMs", -1), 0);
    feed.reset();
    for (const auto& held : crowd) {
        QVERIFY(held->answer);
        QCOMPARE(held->answer->result_int(), 503u);
    }
    QVERIFY(plane.submit(a)); // the plane no longer calls the feed
    io.poll();
    plane.stop();
}

// Readers that wait for events over real connections (the feed's routes behind a real HTTP server, as tidepoold
// serves them) and then close them give their places back at once: a console that reconnects over and over cannot
// fill `kMaxEventWaiters` with readers that have gone, and the next reader still waits for its event.
void TestViewJson::anEventReaderThatLeavesGivesUpItsPlace()
{
    boost::asio::io_context io;
    const auto created = planeWithANode(io);
    QVERIFY(created);
    api::ControlPlane& plane = *created;
    auto feed = std::make_unique<ConsoleFeed>(io, plane, nullptr, HostAlertSources {});
    auto server = net::HttpServer::create(io, {},
        [&](const net::HttpRequest& request, const std::string&, net::HttpRespond respond) {
            const std::string target(request.target());
            auto answer = feed->events(target.substr(std::min(target.size(), target.find('?') + 1)));
            if (auto* later = std::get_if<api::HttpApi::LaterAnswer>(&answer))
                return (*later)(std::move(respond));
            respond(std::move(std::get<net::HttpResponse>(answer)));
        },
        {});
    const auto port = server->listen("127.0.0.1", 0);
    QVERIFY(port);
    const auto runUntil = [&](const std::function<bool()>& done) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (!done() && std::chrono::steady_clock::now() < deadline)
            io.run_one_for(std::chrono::milliseconds(10));
        return done();
    };
    // A blocking loopback socket that has sent a waiting read of the events after the newest.
    const std::string latest = std::to_string(
        json::parse(std::get<net::HttpResponse>(feed->events("")).body())["latest"].get<std::uint64_t>());
    const std::string request = "GET /v1/events?after=" + latest + "&waitMs=60000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    const auto reader = [&] {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address {};
        address.sin_family = AF_INET;
        address.sin_port = htons(*port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0
            || ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
            ::close(fd);
            return -1;
        }
        return fd;
    };

    // Every place taken, then every reader gone: the places are free again long before their minute is up.
    std::vector<int> crowd;
    for (std::size_t i = 0; i < kMaxEventWaiters; ++i)
        crowd.push_back(reader());
    QVERIFY(std::find(crowd.begin(), crowd.end(), -1) == crowd.end());
    QVERIFY(runUntil([&] { return feed->waitingEventReaders() == kMaxEventWaiters; }));
    for (const int fd : crowd)
        ::close(fd);
    QVERIFY(runUntil([&] { return feed->waitingEventReaders() == 0; }));
    QCOMPARE(feed->eventReadersGone(), std::uint64_t { kMaxEventWaiters });
    QCOMPARE(server->stats().clientsGone, std::uint64_t { kMaxEventWaiters });

    // The next reader waits (it would be answered at once with the places full), and its event reaches it.
    const int next = reader();
    QVERIFY(next >= 0);
    QVERIFY(runUntil([&] { return feed->waitingEventReaders() == 1; }));
    api::SubmitRequest a;
    a.name = "etl";
    a.requests = { 500, 256, 0, 0 };
    a.argv = { "/bin/true" };
    QVERIFY(plane.submit(a));
    std::string received;
    QVERIFY(runUntil([&] {
        char chunk[4096];
        const auto n = ::recv(next, chunk, sizeof chunk, MSG_DONTWAIT);
        if (n > 0)
            received.append(chunk, static_cast<std::size_t>(n));
        return received.find("\"subject\":\"etl\"") != std::string::npos;
    }));
    QVERIFY2(received.rfind("HTTP/1.1 200", 0) == 0, received.c_str());
    ::close(next);
    QCOMPARE(feed->eventReadersGone(), std::uint64_t { kMaxEventWaiters });
    server->stop();
    feed.reset();
    plane.stop();
}

QTEST_GUILESS_MAIN(TestViewJson)
#include "tst_view_json.moc"
