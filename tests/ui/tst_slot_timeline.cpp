// FPGA slot timelines: how `DeviceCollector` numbers an FPGA's time-slice slots (the core only counts them), in steps
// and over a real run of the demo's core with FPGA hosts; the `SlotTimelineModel` read from a known sequence of frames
// under QAbstractItemModelTester as snapshots come, go back and repeat; and the Accelerators page showing the timeline
// for a selected FPGA, its blocks where the spans are and their tooltips.
#include "demo_fixture.h"
#include "ui/bridge/device_collector.h"
#include "ui/models/devices_model.h"
#include "ui/models/roles.h"
#include "ui/models/slot_timeline_model.h"
#include "ui/views/accelerators_page.h"
#include "ui/views/slot_timeline_view.h"
#include "ui/views/table_page.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>

#include <map>
#include <set>

using namespace tidepool::ui;

using Slots = std::vector<std::int64_t>;
using Holders = std::vector<DeviceHolder>;
Q_DECLARE_METATYPE(std::vector<int>)
Q_DECLARE_METATYPE(Slots)
Q_DECLARE_METATYPE(Holders)

namespace {

DeviceHolder holder(std::int64_t id, std::int32_t share)
{
    return DeviceHolder { id, "w" + std::to_string(id), "video", share, 0 };
}

constexpr std::int64_t kT0 = 1'793'000'000'000; // a minute boundary in November 2026
constexpr std::int64_t kMinute = 60'000;

// A GPU on node 0 and a 4-slot FPGA on node 1; the FPGA's slots at five minutes (see `knownSpans`).
std::shared_ptr<const DeviceLayout> layout()
{
    auto l = std::make_shared<DeviceLayout>();
    l->firstOfNode = { 0, 1, 2 };
    l->slotRanges = { SlotRange { 1, 0, 4 } };
    return l;
}

DeviceFramePtr frame(std::int64_t atMs, const std::shared_ptr<const DeviceLayout>& l, Slots holders)
{
    static const std::map<std::int64_t, SlotHolder> kNames { { 7, SlotHolder { 7, "decoder", "video" } },
        { 8, SlotHolder { 8, "filter", "video" } }, { 9, SlotHolder { 9, "scaler", "ads" } } };
    auto f = std::make_shared<DeviceFrame>();
    f->atMs = atMs;
    f->layout = l;
    f->values.resize(2);
    auto s = std::make_shared<SlotFrame>();
    std::set<std::int64_t> ids;
    for (const std::int64_t id : holders)
        if (id != 0)
            ids.insert(id);
    for (const std::int64_t id : ids)
        s->workloads.push_back(kNames.at(id));
    s->holders = std::move(holders);
    f->slotFrame = std::move(s);
    return f;
}

std::vector<DeviceFramePtr> knownFrames()
{
    const auto l = layout();
    return { frame(kT0, l, { 7, 7, 0, 0 }), frame(kT0 + kMinute, l, { 7, 7, 8, 0 }),
        frame(kT0 + 2 * kMinute, l, { 0, 0, 8, 0 }), frame(kT0 + 3 * kMinute, l, { 9, 9, 8, 0 }),
        frame(kT0 + 4 * kMinute, l, { 9, 9, 0, 0 }) };
}

// The snapshot after the first `frames` of `knownFrames` (0: none), with the devices as they were then.
SnapshotPtr knownSnapshot(std::size_t frames)
{
    auto snapshot = std::make_shared<ConsoleSnapshot>();
    const auto all = knownFrames();
    snapshot->deviceHistory.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(frames));
    snapshot->nowMs = frames ? snapshot->deviceHistory.back()->atMs : kT0;
    DeviceRow gpu;
    gpu.nodeId = 0;
    gpu.key = DeviceRow::keyOf(0, 0);
    gpu.node = "hot-01";
    gpu.tier = "hot";
    gpu.kind = "gpu";
    gpu.shareCapacity = 1000;
    DeviceRow fpga;
    fpga.nodeId = 1;
    fpga.key = DeviceRow::keyOf(1, 0);
    fpga.node = "fpga-01";
    fpga.tier = "hot";
    fpga.kind = "fpga";
    fpga.model = "Alveo U250";
    fpga.shareCapacity = 4;
    fpga.slotHolders = frames ? snapshot->deviceHistory.back()->slotFrame->holders : Slots(4, 0);
    for (const SlotHolder& h :
        frames ? snapshot->deviceHistory.back()->slotFrame->workloads : std::vector<SlotHolder> {}) {
        const auto held
            = static_cast<std::int32_t>(std::count(fpga.slotHolders.begin(), fpga.slotHolders.end(), h.workload));
        fpga.holders.push_back(DeviceHolder { h.workload, h.name, h.pool, held, 0 });
        fpga.shareAllocated += held;
    }
    snapshot->devices = { gpu, fpga };
    return snapshot;
}

// What the five known frames show: 7 in slots 0-1 until minute 2, 8 in slot 2 from minute 1 to 4 (gone in the last
// frame), 9 in slots 0-1 from minute 3 on (still there: until the end of the last frame's minute).
std::vector<SlotSpan> knownSpans()
{
    return {
        SlotSpan { 0, kT0, kT0 + 2 * kMinute, true, false, 7, "decoder", "video", 2 },
        SlotSpan { 0, kT0 + 3 * kMinute, kT0 + 5 * kMinute, false, true, 9, "scaler", "ads", 2 },
        SlotSpan { 1, kT0, kT0 + 2 * kMinute, true, false, 7, "decoder", "video", 2 },
        SlotSpan { 1, kT0 + 3 * kMinute, kT0 + 5 * kMinute, false, true, 9, "scaler", "ads", 2 },
        SlotSpan { 2, kT0 + kMinute, kT0 + 4 * kMinute, false, false, 8, "filter", "video", 1 },
    };
}

} // namespace

class TestSlotTimeline : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // ---- numbering ---------------------------------------------------------------------------------------------

    void numbersSlots_data()
    {
        QTest::addColumn<Slots>("before");
        QTest::addColumn<int>("capacity");
        QTest::addColumn<Holders>("holders");
        QTest::addColumn<Slots>("after");
        QTest::addColumn<int>("unnumbered");
        QTest::newRow("first holders, in the order of their ids")
            << Slots {} << 8 << Holders { holder(12, 3), holder(5, 2) } << Slots { 5, 5, 12, 12, 12, 0, 0, 0 } << 0;
        QTest::newRow("holders keep their slots while another leaves")
            << Slots { 5, 5, 12, 12, 12, 0, 0, 0 } << 8 << Holders { holder(12, 3) }
            << Slots { 0, 0, 12, 12, 12, 0, 0, 0 } << 0;
        QTest::newRow("a newcomer takes the lowest free slots, even apart")
            << Slots { 0, 0, 12, 12, 12, 0, 0, 0 } << 8 << Holders { holder(12, 3), holder(20, 3) }
            << Slots { 20, 20, 12, 12, 12, 20, 0, 0 } << 0;
        QTest::newRow("one leaves and one comes at once: the freed slot is reused")
            << Slots { 5, 5, 12, 12, 12, 0, 0, 0 } << 8 << Holders { holder(5, 2), holder(30, 1) }
            << Slots { 5, 5, 30, 0, 0, 0, 0, 0 } << 0;
        QTest::newRow("a share that shrinks gives back its highest slots")
            << Slots { 5, 5, 12, 12, 12, 0, 0, 0 } << 8 << Holders { holder(5, 2), holder(12, 1) }
            << Slots { 5, 5, 12, 0, 0, 0, 0, 0 } << 0;
        QTest::newRow("a share that grows takes the lowest free ones")
            << Slots { 0, 5, 0, 12, 0, 0, 0, 0 } << 8 << Holders { holder(5, 3), holder(12, 1) }
            << Slots { 5, 5, 5, 12, 0, 0, 0, 0 } << 0;
        QTest::newRow("more held than the device has: the last holder goes short, nothing else moves")
            << Slots { 5, 5, 12, 12, 0, 0 } << 6 << Holders { holder(5, 2), holder(12, 2), holder(40, 4) }
            << Slots { 5, 5, 12, 12, 40, 40 } << 2;
        QTest::newRow("a device that shrank: holders past its end are numbered again")
            << Slots { 5, 0, 0, 0, 0, 12 } << 4 << Holders { holder(5, 1), holder(12, 1) } << Slots { 5, 12, 0, 0 }
            << 0;
        QTest::newRow("no capacity: nothing numbered, all said")
            << Slots { 5 } << 0 << Holders { holder(5, 1) } << Slots {} << 1;
        QTest::newRow("an absurd capacity is capped") << Slots {} << 1'000'000 << Holders { holder(5, 1) } << [] {
            Slots s(static_cast<std::size_t>(kMaxNumberedSlots), 0);
            s[0] = 5;
            return s;
        }() << 0;
    }

    void numbersSlots()
    {
        QFETCH(Slots, before);
        QFETCH(int, capacity);
        QFETCH(Holders, holders);
        QFETCH(Slots, after);
        QFETCH(int, unnumbered);
        Slots slotHolders = before;
        QCOMPARE(numberSlots(slotHolders, capacity, holders), unnumbered);
        QCOMPARE(slotHolders, after);
    }

    void collectorKeepsSlotsOverARealRun()
    {
        // A small fleet with one FPGA host (2 FPGAs of 8 slots) and its synthetic transcoding load, a snapshot every
        // simulated minute for four hours.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        DemoConfig config = test::smallDemo(dir);
        config.scenario.fpgaNodes = 1;
        auto started = DemoDriver::start(config);
        QVERIFY2(started, started ? "" : started.error().message.c_str());
        DemoDriver& driver = **started;
        std::map<std::int64_t, Slots> previous; // by device key
        std::map<std::int64_t, std::map<std::int64_t, std::int32_t>> previousShares;
        std::set<std::pair<std::int64_t, std::size_t>> everHeld; // (device, slot)
        int newcomers = 0, leavers = 0, reused = 0;
        for (int minute = 0; minute < 240; ++minute) {
            driver.advance();
            const SnapshotPtr snapshot = driver.snapshot();
            int fpgas = 0;
            const DeviceFramePtr& last = snapshot->deviceHistory.back();
            QCOMPARE(last->atMs, snapshot->nowMs); // a frame every minute
            QVERIFY(last->slotFrame);
            for (const DeviceRow& row : snapshot->devices) {
                if (row.kind != "fpga") {
                    QVERIFY(row.slotHolders.empty());
                    continue;
                }
                ++fpgas;
                // Every holder has as many slots as its share, and nothing else is in them.
                QCOMPARE(row.slotHolders.size(), static_cast<std::size_t>(row.shareCapacity));
                QCOMPARE(row.slotsUnnumbered, 0);
                std::map<std::int64_t, std::int32_t> shares;
                for (const DeviceHolder& h : row.holders) {
                    shares[h.workload] = h.share;
                    QCOMPARE(std::count(row.slotHolders.begin(), row.slotHolders.end(), h.workload),
                        static_cast<std::ptrdiff_t>(h.share));
                }
                QCOMPARE(std::count(row.slotHolders.begin(), row.slotHolders.end(), 0),
                    static_cast<std::ptrdiff_t>(row.shareCapacity - row.shareAllocated));
                // The frame holds the row's slots.
                const SlotRange* range = last->layout->slotRange(row.nodeId, row.index);
                QVERIFY(range);
                QCOMPARE(Slots(last->slotFrame->holders.begin() + range->first,
                             last->slotFrame->holders.begin() + range->first + range->count),
                    row.slotHolders);
                // From the last snapshot: leavers free their slots, stayers keep theirs, newcomers (by id) take the
                // lowest free ones.
                if (const auto before = previous.find(row.key); before != previous.end()) {
                    const auto& sharesBefore = previousShares[row.key];
                    bool sameShares = true;
                    for (const auto& [id, share] : shares)
                        if (const auto it = sharesBefore.find(id); it != sharesBefore.end() && it->second != share)
                            sameShares = false;
                    QVERIFY2(sameShares, "the simulated workloads keep their shares");
                    Slots expected = before->second;
                    for (std::size_t s = 0; s < expected.size(); ++s)
                        if (expected[s] != 0 && !shares.count(expected[s])) {
                            expected[s] = 0;
                            ++leavers;
                        }
                    for (const auto& [id, share] : shares) {
                        if (sharesBefore.count(id))
                            continue;
                        ++newcomers;
                        for (std::size_t s = 0, need = static_cast<std::size_t>(share); s < expected.size() && need > 0;
                             ++s)
                            if (expected[s] == 0) {
                                expected[s] = id;
                                --need;
                                reused += everHeld.count({ row.key, s }) ? 1 : 0;
                            }
                    }
                    QCOMPARE(row.slotHolders, expected);
                }
                for (std::size_t s = 0; s < row.slotHolders.size(); ++s)
                    if (row.slotHolders[s] != 0)
                        everHeld.insert({ row.key, s });
                previous[row.key] = row.slotHolders;
                previousShares[row.key] = shares;
            }
            QCOMPARE(fpgas, 2);
            QCOMPARE(last->layout->slotRanges.size(), std::size_t(2));
        }
        // The run exercised what the test is about.
        QVERIFY2(newcomers > 10, qPrintable(QString::number(newcomers)));
        QVERIFY2(leavers > 5, qPrintable(QString::number(leavers)));
        QVERIFY2(reused > 0, "no slot was held twice");
    }

    void fleetWithoutFpgasKeepsNoSlots()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto started = DemoDriver::start(test::smallDemo(dir));
        QVERIFY2(started, started ? "" : started.error().message.c_str());
        (*started)->advance();
        const SnapshotPtr snapshot = (*started)->snapshot();
        QVERIFY(!snapshot->deviceHistory.empty());
        QVERIFY(snapshot->deviceHistory.back()->layout->slotRanges.empty());
        QVERIFY(!snapshot->deviceHistory.back()->slotFrame);
        for (const DeviceRow& row : snapshot->devices)
            QVERIFY(row.slotHolders.empty());
    }

    // ---- the model ---------------------------------------------------------------------------------------------

    void knownFramesMakeKnownSpans()
    {
        const SlotTimeline timeline = SlotTimelineModel::timelineOf(knownFrames(), 1, 0);
        QCOMPARE(timeline.slotCount, 4);
        QCOMPARE(timeline.firstMs, kT0);
        QCOMPARE(timeline.lastMs, kT0 + 4 * kMinute);
        QCOMPARE(timeline.untilMs, kT0 + 5 * kMinute);
        QCOMPARE(timeline.spans, knownSpans());
        // The GPU and a device that is not there have none.
        QVERIFY(SlotTimelineModel::timelineOf(knownFrames(), 0, 0).spans.empty());
        QVERIFY(SlotTimelineModel::timelineOf(knownFrames(), 3, 0).spans.empty());
    }

    void aFrameWithoutTheFpgaEndsItsSpans()
    {
        auto frames = knownFrames();
        // Minute 2 from a fleet where the FPGA's node was gone.
        auto gone = std::make_shared<DeviceLayout>();
        gone->firstOfNode = { 0, 1, 1 };
        auto f = std::make_shared<DeviceFrame>();
        f->atMs = kT0 + 2 * kMinute;
        f->layout = gone;
        f->values.resize(1);
        frames[2] = f;
        const SlotTimeline timeline = SlotTimelineModel::timelineOf(frames, 1, 0);
        // 8 is seen at minute 1, not at 2, again at 3: two spans.
        std::vector<SlotSpan> slot2;
        for (const SlotSpan& s : timeline.spans)
            if (s.slot == 2)
                slot2.push_back(s);
        QCOMPARE(slot2.size(), std::size_t(2));
        QCOMPARE(slot2[0].startMs, kT0 + kMinute);
        QCOMPARE(slot2[0].endMs, kT0 + 2 * kMinute);
        QCOMPARE(slot2[1].startMs, kT0 + 3 * kMinute);
        QCOMPARE(slot2[1].endMs, kT0 + 4 * kMinute);
    }

    void modelFollowsSnapshots_data()
    {
        QTest::addColumn<std::vector<int>>("sequence"); // frames in each snapshot; -1: no snapshot
        QTest::newRow("forward in time") << std::vector<int> { 1, 2, 3, 4, 5 };
        QTest::newRow("backward in time") << std::vector<int> { 5, 4, 3, 2, 1 };
        QTest::newRow("through an empty history") << std::vector<int> { 3, 0, 5, -1, 5 };
        QTest::newRow("same snapshot twice") << std::vector<int> { 5, 5 };
    }

    void modelFollowsSnapshots()
    {
        QFETCH(std::vector<int>, sequence);
        SlotTimelineModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDevice(1, 0);
        for (const int frames : sequence) {
            const SnapshotPtr snapshot = frames < 0 ? SnapshotPtr {} : knownSnapshot(static_cast<std::size_t>(frames));
            model.setSnapshot(snapshot);
            const SlotTimeline expected
                = snapshot ? SlotTimelineModel::timelineOf(snapshot->deviceHistory, 1, 0) : SlotTimeline {};
            QCOMPARE(model.rows(), expected.spans);
            QCOMPARE(model.slotCount(), expected.slotCount);
        }
        if (sequence.back() == 5) {
            QCOMPARE(model.rows(), knownSpans());
            // The table's cells: the slot, the workload's name, its pool, its slots, and "now" for an open span.
            QCOMPARE(model.index(1, SlotTimelineModel::Workload).data().toString(), QStringLiteral("scaler"));
            QCOMPARE(model.index(1, SlotTimelineModel::Pool).data().toString(), QStringLiteral("ads"));
            QCOMPARE(model.index(1, SlotTimelineModel::Slots).data().toInt(), 2);
            QCOMPARE(model.index(1, SlotTimelineModel::End).data().toString(), QStringLiteral("now"));
            QVERIFY(model.index(0, SlotTimelineModel::Start).data().toString().startsWith(QStringLiteral("before ")));
            QCOMPARE(model.index(4, SlotTimelineModel::Start).data(SortRole).toLongLong(), kT0 + kMinute);
        }
        // Another device: nothing of this one's.
        model.setDevice(0, 0);
        QCOMPARE(model.rowCount(), 0);
    }

    void aGrowingHistoryExtendsTheOpenSpanInPlace()
    {
        SlotTimelineModel model;
        model.setDevice(1, 0);
        model.setSnapshot(knownSnapshot(4));
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setSnapshot(knownSnapshot(5));
        // Minute 4: 9's spans and 8's end move on; no row is removed or the model reset.
        QCOMPARE(resets.count(), 0);
        QCOMPARE(removed.count(), 0);
        QVERIFY(changed.count() > 0);
        QCOMPARE(model.rows(), knownSpans());
    }

    // ---- the page ----------------------------------------------------------------------------------------------

    void acceleratorsPageShowsTheTimelineOfASelectedFpga()
    {
        DevicesModel devices;
        AcceleratorsPage page(&devices);
        page.resize(1100, 700);
        page.show();
        const SnapshotPtr snapshot = knownSnapshot(5);
        devices.setSnapshot(snapshot);
        page.setSnapshot(snapshot);
        // The GPU is charted first: its share bars, no timeline.
        QVERIFY(!page.showsSlotTimeline());
        QTreeView* view = page.table()->view();
        int fpgaRow = -1;
        for (int r = 0; r < view->model()->rowCount(); ++r)
            if (view->model()->index(r, DevicesModel::Kind).data(RawTextRole).toString() == QLatin1String("fpga"))
                fpgaRow = r;
        QVERIFY(fpgaRow >= 0);
        view->setCurrentIndex(view->model()->index(fpgaRow, 0));
        QVERIFY(page.showsSlotTimeline());
        QCOMPARE(page.slotTimelineModel()->rows(), knownSpans());
        QApplication::processEvents();

        // Each span is drawn in its slot's row, from its start to its end, in its workload's colour.
        SlotTimelineView* timeline = page.slotTimeline();
        QVERIFY(timeline->isVisible());
        const auto& spans = page.slotTimelineModel()->rows();
        for (const SlotSpan& span : spans) {
            const QRect block = timeline->spanRect(span);
            QVERIFY(!block.isEmpty());
            QCOMPARE(timeline->spanAt(block.center()), &span);
        }
        QCOMPARE(timeline->spanRect(spans[0]).top() < timeline->spanRect(spans[4]).top(), true); // slot 0 above slot 2
        QCOMPARE(
            timeline->spanRect(spans[0]).left(), timeline->spanRect(spans[2]).left()); // 7 in slots 0 and 1 together
        QVERIFY(timeline->spanRect(spans[0]).right() < timeline->spanRect(spans[1]).left()); // free at minute 2
        QVERIFY(timeline->spanRect(spans[4]).left() > timeline->spanRect(spans[0]).left()); // 8 came a minute later
        // 8 left by the last frame: free at the right edge, where 9 still is.
        QVERIFY(timeline->spanRect(spans[4]).right() < timeline->spanRect(spans[1]).right() - 10);
        const QImage image = timeline->grab().toImage();
        for (const SlotSpan& span : spans) {
            const QRect block = timeline->spanRect(span);
            QCOMPARE(
                image.pixelColor(block.left() + 1, block.top() + 1), SlotTimelineView::workloadColour(span.workload));
        }
        // The tooltip of a block names the workload, its pool and its slots.
        const QString tip = page.slotTimelineModel()->index(1, 0).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("scaler")) && tip.contains(QStringLiteral("ads"))
                && tip.contains(QStringLiteral("Slots held: 2")),
            qPrintable(tip));
        // The device table speaks of slots, and says which ones a holder has.
        const QModelIndex fpga = devices.index(devices.rowOf(DeviceRow::keyOf(1, 0)), DevicesModel::Requested);
        QCOMPARE(fpga.data().toString(), QStringLiteral("2 of 4 slots"));
        QVERIFY(devices.index(fpga.row(), DevicesModel::Holders)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("in slots 0, 1")));

        // Should the holders ever hold more than the FPGA has, the title says so.
        auto overbooked = std::make_shared<ConsoleSnapshot>(*snapshot);
        overbooked->devices[1].slotsUnnumbered = 2;
        devices.setSnapshot(overbooked);
        page.setSnapshot(overbooked);
        auto* title = page.findChild<QLabel*>(QStringLiteral("slotTimelineTitle"));
        QVERIFY(title);
        QVERIFY2(title->text().contains(QStringLiteral("2 slots more")), qPrintable(title->text()));
        devices.setSnapshot(snapshot);
        page.setSnapshot(snapshot);
        QVERIFY(!title->text().contains(QStringLiteral("slots more")));

        // The GPU again: the share bars are back.
        view->setCurrentIndex(view->model()->index(fpgaRow == 0 ? 1 : 0, 0));
        QVERIFY(!page.showsSlotTimeline());
        QCOMPARE(page.slotTimelineModel()->rowCount(), 0);
    }
};

QTEST_MAIN(TestSlotTimeline)
#include "tst_slot_timeline.moc"
