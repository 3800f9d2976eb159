// The Accelerators, Forecasts and Events views over real snapshots of a real core (the demo's simulated fleet through
// the control plane, rebalancer and SQLite store): their models under QAbstractItemModelTester as snapshots come, go
// back and repeat; the pages built from those snapshots, their charts holding the points the snapshots carry, and the
// events filtered by kind and by the filter bar.
#include "core/rebalance/reason.h"
#include "demo_fixture.h"
#include "ui/models/device_history_model.h"
#include "ui/models/devices_model.h"
#include "ui/models/event_kind_filter.h"
#include "ui/models/events_model.h"
#include "ui/models/filter_proxy.h"
#include "ui/models/forecast_list_model.h"
#include "ui/models/forecast_points_model.h"
#include "ui/models/roles.h"
#include "ui/view_labels.h"
#include "ui/views/accelerators_page.h"
#include "ui/views/events_page.h"
#include "ui/views/filter_bar.h"
#include "ui/views/forecasts_page.h"
#include "ui/views/table_page.h"

#include <QtCharts/QAreaSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChartView>
#include <QtCharts/QHorizontalBarSeries>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>

#include <cmath>
#include <set>

using namespace tidepool::ui;

Q_DECLARE_METATYPE(std::vector<int>)

class TestConsoleViews : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::vector<SnapshotPtr> m_snapshots; // see initTestCase
    std::size_t m_gpus = 0;

    SnapshotPtr at(int i) const { return i < 0 ? SnapshotPtr {} : m_snapshots[static_cast<std::size_t>(i)]; }

    static void addSequences()
    {
        QTest::addColumn<std::vector<int>>("sequence");
        QTest::newRow("forward in time") << std::vector<int> { 0, 1, 2, 3 };
        QTest::newRow("backward in time") << std::vector<int> { 3, 2, 1, 0 };
        QTest::newRow("through an empty snapshot") << std::vector<int> { 2, -1, 3, -1 };
        QTest::newRow("same snapshot twice") << std::vector<int> { 3, 3 };
    }

    // The series of `snapshot` with a forecast, a pool's CPU first.
    static ForecastSeriesPtr forecastSeries(const SnapshotPtr& snapshot)
    {
        ForecastSeriesPtr found;
        for (const ForecastSeriesPtr& s : snapshot->forecasts)
            if (!s->model.empty() && (!found || (s->scope == "pool" && s->resource == "cpu" && found->scope != "pool")))
                found = s;
        return found;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        auto started = DemoDriver::start(test::smallDemo(m_dir));
        QVERIFY2(started, started ? "" : started.error().message.c_str());
        DemoDriver& driver = **started;
        // 0: the fleet has just joined; 1: an hour later, a snapshot every simulated minute as the demo publishes them.
        driver.advance();
        m_snapshots.push_back(driver.snapshot());
        for (int i = 0; i < 60; ++i) {
            driver.advance();
            (void)driver.snapshot();
        }
        m_snapshots.push_back(driver.snapshot());
        // 2: the first forecasts and proposals, after a day of history; the backtests run on their thread.
        while ((test::pendingCount(driver.snapshot()) == 0 || !forecastSeries(driver.snapshot())) && !driver.done())
            driver.advance();
        driver.views().forecasts().settle();
        m_snapshots.push_back(driver.snapshot());
        QVERIFY2(forecastSeries(m_snapshots.back()), "no forecast in the whole run");
        // 3: a proposal approved by the operator, half an hour later.
        std::int64_t decided = 0;
        for (const ProposalRow& p : m_snapshots.back()->proposals)
            if (p.state == "pending" && decided == 0)
                decided = p.id;
        QVERIFY(decided > 0);
        bool answered = false;
        driver.decide(ProposalCommand { 1, decided, Decision::Approve, "fine" },
            [&answered](const CommandOutcome&) { answered = true; });
        QVERIFY(answered);
        for (int i = 0; i < 30; ++i) {
            driver.advance();
            (void)driver.snapshot();
        }
        m_snapshots.push_back(driver.snapshot());
        for (const DeviceRow& d : m_snapshots.back()->devices)
            m_gpus += d.kind == "gpu" ? 1 : 0;
    }

    // ---- the snapshot ------------------------------------------------------------------------------------------

    void snapshotCarriesTheViews()
    {
        const SnapshotPtr& last = m_snapshots.back();
        // 4 hot nodes of 8 GPUs each.
        QCOMPARE(m_gpus, std::size_t(32));
        QCOMPARE(last->devices.size(), std::size_t(32));
        // Every device share a workload holds is on its device's row, and the holders add up to what is allocated.
        for (const DeviceRow& d : last->devices) {
            std::int64_t held = 0;
            for (const DeviceHolder& h : d.holders)
                held += h.share;
            QCOMPARE(held, static_cast<std::int64_t>(d.shareAllocated));
            QVERIFY(d.utilisation >= 0.0); // the simulated agents measure their devices
        }
        // A frame a minute, bounded.
        QCOMPARE(m_snapshots[1]->deviceHistory.size(), std::size_t(61));
        QCOMPARE(last->deviceHistory.size(), kDeviceHistoryFrames);
        // The events: placements from the start, the approval, the proposals.
        std::set<std::string> categories;
        for (const EventRowPtr& e : last->events)
            categories.insert(e->category);
        for (const char* expected : { "placement", "approval", "proposal" })
            QVERIFY2(categories.count(expected), expected);
        // A new proposal's event carries its reason as clauses too, which make its English detail.
        std::size_t proposed = 0;
        for (const EventRowPtr& e : last->events)
            if (e->category == "proposal" && e->from.empty()) {
                ++proposed;
                const auto why = tidepool::rebalance::whyFromJson(nlohmann::json::parse(e->detailWhy));
                QVERIFY2(why && !why->empty(), e->detailWhy.c_str());
                QCOMPARE(tidepool::rebalance::english(*why), e->detail);
            }
        QVERIFY(proposed > 0);
        QVERIFY(last->events.size() <= kMaxEventRows);
        // An unchanged series is shared, not copied, between snapshots.
        const auto series = forecastSeries(m_snapshots[2]);
        QVERIFY(series->backtest.done);
        QVERIFY2(series->backtest.failure.empty(), series->backtest.failure.c_str());
        QVERIFY(series->backtest.scoredPoints > 0);
        QVERIFY(!series->forecast.empty());
        QVERIFY(series->history.size() >= 288);
        // The series of what the scopes' nodes hold (`<resource>_placed`, the reports' occupancy) are not forecast:
        // the pools' and tiers' demand series are.
        for (const ForecastSeriesPtr& s : last->forecasts)
            QVERIFY2(!s->resource.ends_with("_placed"), s->key().c_str());
        QVERIFY(std::any_of(last->forecasts.begin(), last->forecasts.end(),
            [](const ForecastSeriesPtr& s) { return s->scope == "tier" && s->resource == "cpu"; }));
        // The history keeps up with the core's clock: its last bucket closed at most two buckets ago.
        for (const ForecastSeriesPtr& s : last->forecasts)
            QVERIFY2(last->nowMs - s->history.back().atMs <= 3 * 5 * 60'000,
                qPrintable(QStringLiteral("%1: %2 min behind")
                               .arg(QString::fromStdString(s->key()))
                               .arg((last->nowMs - s->history.back().atMs) / 60'000)));
    }

    // ---- the models under the tester --------------------------------------------------------------------------

    void devicesModel_data() { addSequences(); }
    void devicesModel()
    {
        QFETCH(std::vector<int>, sequence);
        DevicesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(m_snapshots[0]);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        for (const int i : sequence) {
            model.setSnapshot(at(i));
            QCOMPARE(static_cast<std::size_t>(model.rowCount()), at(i) ? at(i)->devices.size() : 0);
        }
        // Only an empty snapshot resets.
        const auto empties = static_cast<int>(std::count(sequence.begin(), sequence.end(), -1));
        QCOMPARE(resets.count(), empties * 2 - (sequence.back() == -1 ? 1 : 0));
    }

    void deviceHistoryModel_data() { addSequences(); }
    void deviceHistoryModel()
    {
        QFETCH(std::vector<int>, sequence);
        DeviceHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const DeviceRow& device = m_snapshots.back()->devices.front();
        model.setDevice(device.nodeId, device.index);
        for (const int i : sequence) {
            model.setSnapshot(at(i));
            QCOMPARE(static_cast<std::size_t>(model.rowCount()), at(i) ? at(i)->deviceHistory.size() : 0);
        }
    }

    void forecastModels_data() { addSequences(); }
    void forecastModels()
    {
        QFETCH(std::vector<int>, sequence);
        ForecastListModel list;
        ForecastPointsModel points;
        QAbstractItemModelTester listTester(&list, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester pointsTester(&points, QAbstractItemModelTester::FailureReportingMode::QtTest);
        points.setSeries(forecastSeries(m_snapshots[2])->key());
        for (const int i : sequence) {
            list.setSnapshot(at(i));
            points.setSnapshot(at(i));
            QCOMPARE(static_cast<std::size_t>(list.rowCount()), at(i) ? at(i)->forecasts.size() : 0);
        }
    }

    void eventsModel_data() { addSequences(); }
    void eventsModel()
    {
        QFETCH(std::vector<int>, sequence);
        EventsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        EventKindFilter kinds;
        kinds.setSourceModel(&model);
        kinds.setKinds({ "placement" });
        QAbstractItemModelTester kindTester(&kinds, QAbstractItemModelTester::FailureReportingMode::QtTest);
        for (const int i : sequence) {
            model.setSnapshot(at(i));
            QCOMPARE(static_cast<std::size_t>(model.rowCount()), at(i) ? at(i)->events.size() : 0);
        }
    }

    // A drain's start, change and end are rows of their own kind, the cordon it keeps in their change.
    void drainEventsAreAKindOfTheirOwn()
    {
        EventRow row;
        row.category = "drain";
        row.from = row.to = "by operator:alice: bios";
        row.detail = "drain started: at most 2 moving at once";
        QCOMPARE(EventsModel::changeText(row), QStringLiteral("draining (cordoned: by operator:alice: bios)"));
        QCOMPARE(eventCategoryLabel("drain"), QStringLiteral("drain"));
        row.category = "cordon";
        QCOMPARE(EventsModel::changeText(row), QStringLiteral("cordoned: by operator:alice: bios"));
    }

    void eventsOnlyAppendAndDrop()
    {
        // Later snapshots keep the events they share as they are: rows are inserted and removed, never changed.
        EventsModel model;
        model.setSnapshot(m_snapshots[2]);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        model.setSnapshot(m_snapshots[3]);
        QCOMPARE(changed.count(), 0);
        QCOMPARE(resets.count(), 0);
        QVERIFY(inserted.count() > 0);
        QCOMPARE(model.rows().back().event->sequence, m_snapshots[3]->events.back()->sequence);
    }

    // ---- the pages ---------------------------------------------------------------------------------------------

    void acceleratorsChartHoldsTheHistory()
    {
        DevicesModel devices;
        AcceleratorsPage page(&devices);
        page.resize(1100, 700);
        page.show();
        devices.setSnapshot(m_snapshots.back());
        page.setSnapshot(m_snapshots.back());
        // Nothing selected: the first device of the table is charted.
        QCOMPARE(page.chartedDevices().size(), std::size_t(1));
        // Select two devices: both charted, three series each (memory area, utilisation, requested share).
        QTreeView* view = page.table()->view();
        int shared = -1;
        for (int r = 0; r < view->model()->rowCount() && shared < 0; ++r)
            if (view->model()->index(r, DevicesModel::Holders).data(SortRole).toInt() > 0)
                shared = r;
        QVERIFY(shared >= 0);
        view->selectionModel()->select(
            view->model()->index(shared, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        view->selectionModel()->select(
            view->model()->index(shared == 0 ? 1 : 0, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QCOMPARE(page.chartedDevices().size(), std::size_t(2));
        const QList<QAbstractSeries*> series = page.historyChart()->chart()->series();
        int visible = 0;
        for (const QAbstractSeries* s : series)
            visible += s->isVisible() ? 1 : 0;
        QCOMPARE(visible, 6);
        // The charted points are the snapshot's frames of that device, in percent.
        const std::int64_t key = page.chartedDevices().front();
        const auto rows = DeviceHistoryModel::rowsOf(m_snapshots.back()->deviceHistory,
            static_cast<std::int32_t>(key / 65536), static_cast<std::int32_t>(key % 65536));
        QCOMPARE(rows.size(), kDeviceHistoryFrames);
        auto* utilisation = qobject_cast<QLineSeries*>(series[1]);
        auto* requested = qobject_cast<QLineSeries*>(series[2]);
        QVERIFY(utilisation && requested);
        QCOMPARE(static_cast<std::size_t>(requested->count()), rows.size());
        QCOMPARE(static_cast<std::size_t>(utilisation->count()), rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            QCOMPARE(requested->at(static_cast<int>(i)).x(), static_cast<qreal>(rows[i].atMs));
            QVERIFY(std::abs(requested->at(static_cast<int>(i)).y() - rows[i].allocated * 100.0) < 1e-9);
            QVERIFY(
                std::abs(utilisation->at(static_cast<int>(i)).y() - rows[i].utilisation.value_or(-1) * 100.0) < 1e-9);
        }
        // The last frame is the device as it is now.
        const DeviceRow* device = devices.rowAt(devices.rowOf(key));
        QVERIFY(device);
        QVERIFY(std::abs(rows.back().allocated - static_cast<double>(device->shareAllocated) / device->shareCapacity)
            < 0.001);
        // The bars: one category per holder and one for what is free, per charted device.
        const QList<QAbstractSeries*> bars = page.sharesChart()->chart()->series();
        QCOMPARE(bars.size(), 1);
        auto* barSeries = qobject_cast<QHorizontalBarSeries*>(bars.front());
        QVERIFY(barSeries);
        std::size_t categories = 0;
        for (const std::int64_t charted : page.chartedDevices())
            categories += devices.rowAt(devices.rowOf(charted))->holders.size() + 1;
        QCOMPARE(static_cast<std::size_t>(barSeries->barSets().front()->count()), categories);
        // A new snapshot moves the window on without losing the selection.
        page.setSnapshot(m_snapshots[2]);
        QCOMPARE(page.chartedDevices().size(), std::size_t(2));
    }

    void acceleratorsTableFilters()
    {
        DevicesModel devices;
        AcceleratorsPage page(&devices);
        devices.setSnapshot(m_snapshots.back());
        page.setSnapshot(m_snapshots.back());
        const std::string node = m_snapshots.back()->devices.front().node;
        page.table()->filterBar()->findChild<QLineEdit*>()->setText(
            QStringLiteral("node=") + QString::fromStdString(node));
        QTRY_COMPARE(page.table()->proxy()->rowCount(), 8);
        page.table()->filterBar()->findChild<QLineEdit*>()->setText(QStringLiteral("kind=npu"));
        QTRY_COMPARE(page.table()->proxy()->rowCount(), 0);
    }

    void fpgaAndNpuShareUnits()
    {
        // The demo's fleet has GPUs only: an FPGA's slots and an NPU's cores, as a fleet with them reports.
        auto snapshot = std::make_shared<ConsoleSnapshot>();
        DeviceRow fpga;
        fpga.nodeId = 1;
        fpga.key = DeviceRow::keyOf(1, 0);
        fpga.node = "edge-1";
        fpga.kind = "fpga";
        fpga.shareCapacity = 4;
        fpga.shareAllocated = 3;
        fpga.holders = { DeviceHolder { 7, "decoder", "video", 2, 0 }, DeviceHolder { 8, "filter", "video", 1, 0 } };
        DeviceRow npu = fpga;
        npu.index = 1;
        npu.key = DeviceRow::keyOf(1, 1);
        npu.kind = "npu";
        npu.shareCapacity = 8;
        npu.shareAllocated = 2;
        npu.holders = { DeviceHolder { 9, "ocr", "docs", 2, 0 } };
        snapshot->devices = { fpga, npu };
        DevicesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(snapshot);
        QCOMPARE(model.index(0, DevicesModel::Requested).data().toString(), QStringLiteral("3 of 4 slots"));
        QCOMPARE(model.index(1, DevicesModel::Requested).data().toString(), QStringLiteral("2 of 8 cores"));
        QCOMPARE(model.index(0, DevicesModel::Holders).data().toString(),
            QStringLiteral("decoder 2 of 4 slots, filter 1 of 4 slots"));
        QCOMPARE(model.index(0, DevicesModel::Requested).data(SortRole).toDouble(), 0.75);
        // Not measured: no achieved value, and the tooltip says why.
        QCOMPARE(model.index(0, DevicesModel::Achieved).data(SortRole).toDouble(), -1.0);
        QVERIFY(!model.index(0, DevicesModel::Achieved).data(Qt::ToolTipRole).toString().isEmpty());
    }

    void forecastChartHoldsHistoryBandAndPeaks()
    {
        ForecastsPage page;
        page.resize(1000, 600);
        page.show();
        page.setSnapshot(m_snapshots[2]);
        const ForecastSeriesPtr series = forecastSeries(m_snapshots[2]);
        // Until the operator chooses, a pool's CPU with its forecast is shown.
        QCOMPARE(page.pointsModel()->seriesKey(), series->key());
        QCOMPARE(page.selector()->currentText(), ForecastListModel::seriesName(*series));
        QCOMPARE(static_cast<std::size_t>(page.actualSeries()->count()), series->history.size());
        QCOMPARE(static_cast<std::size_t>(page.meanSeries()->count()), series->forecast.size());
        QCOMPARE(static_cast<std::size_t>(page.bandSeries()->upperSeries()->count()), series->forecast.size());
        QCOMPARE(static_cast<std::size_t>(page.bandSeries()->lowerSeries()->count()), series->forecast.size());
        // In cores: millicores / 1000.
        QCOMPARE(page.actualSeries()->at(0).x(), static_cast<qreal>(series->history.front().atMs));
        QVERIFY(std::abs(page.actualSeries()->at(0).y() - series->history.front().value / 1000.0) < 1e-9);
        QVERIFY(std::abs(page.bandSeries()->upperSeries()->at(0).y() - series->forecast.front().p90 / 1000.0) < 1e-9);
        QVERIFY(std::abs(page.bandSeries()->lowerSeries()->at(0).y() - series->forecast.front().p10 / 1000.0) < 1e-9);
        // Peaks: the highest actual value and the highest p90 ahead.
        QCOMPARE(page.peakSeries()->count(), 2);
        double highest = 0.0, highestP90 = 0.0;
        for (const HistoryValue& v : series->history)
            highest = std::max(highest, v.value);
        for (const ForecastPoint& p : series->forecast)
            highestP90 = std::max(highestP90, p.p90);
        std::set<double> peaks;
        for (int i = 0; i < page.peakSeries()->count(); ++i)
            peaks.insert(page.peakSeries()->at(i).y());
        QVERIFY(peaks.count(highest / 1000.0));
        QVERIFY(peaks.count(highestP90 / 1000.0));
        // The backtest error, in words.
        QVERIFY2(
            page.backtestLabel()->text().contains(QStringLiteral("sMAPE")), qPrintable(page.backtestLabel()->text()));
        // Choosing another series keeps it across snapshots.
        std::string other;
        for (const ForecastSeriesPtr& s : m_snapshots[2]->forecasts)
            if (s->key() != series->key() && s->resource == "memory")
                other = s->key();
        QVERIFY(!other.empty());
        QVERIFY(page.selectSeries(other));
        page.setSnapshot(m_snapshots[3]);
        QCOMPARE(page.pointsModel()->seriesKey(), other);
        QCOMPARE(page.meanSeries()->count(), 0); // no forecast for memory
        QVERIFY(page.actualSeries()->count() > 0);
        QVERIFY(page.backtestLabel()->text().contains(QStringLiteral("No forecast")));
    }

    void largeClusterUpdate()
    {
        // A fleet the size the console must stay smooth with (10,000 nodes, a third of them with 8 GPUs), its device
        // table and Accelerators page shown, and a full timeline: one update in which every device's utilisation
        // changed and 500 events are new is taken in place, rows changed and not reset. (Its time on the UI thread
        // is measured by `tidepool-bench-console`, BENCHMARKS.md §8, not here.)
        auto before = std::make_shared<ConsoleSnapshot>();
        for (std::int32_t node = 0; node < 3400; ++node)
            for (std::int32_t d = 0; d < 8; ++d) {
                DeviceRow row;
                row.nodeId = node;
                row.index = d;
                row.key = DeviceRow::keyOf(node, d);
                row.node = "hot-" + std::to_string(node);
                row.tier = "hot";
                row.nodeState = "ready";
                row.kind = "gpu";
                row.model = "A10";
                row.shareCapacity = 1000;
                row.shareAllocated = 500;
                row.memoryMiB = 24576;
                row.utilisation = 0.4;
                row.holders = { DeviceHolder { node * 8 + d, "batch-" + std::to_string(node * 8 + d), "batch", 250, 0 },
                    DeviceHolder { node * 8 + d + 1, "infer-" + std::to_string(node), "inference", 250, 0 } };
                before->devices.push_back(std::move(row));
            }
        for (std::uint64_t i = 1; i <= kMaxEventRows; ++i)
            before->events.push_back(std::make_shared<const EventRow>(
                EventRow { i, static_cast<std::int64_t>(i) * 1000, "placement", "batch-" + std::to_string(i), "pending",
                    "launching", "hot-" + std::to_string(i % 3400), "", "placed", "" }));
        before->deviceHistory = m_snapshots.back()->deviceHistory;
        auto after = std::make_shared<ConsoleSnapshot>(*before);
        // Every GPU reports a new utilisation at each heartbeat: all rows change.
        for (DeviceRow& row : after->devices)
            row.utilisation = 0.9;
        after->events.erase(after->events.begin(), after->events.begin() + 500);
        for (std::uint64_t i = kMaxEventRows + 1; i <= kMaxEventRows + 500; ++i)
            after->events.push_back(
                std::make_shared<const EventRow>(EventRow { i, static_cast<std::int64_t>(i) * 1000, "finish",
                    "batch-" + std::to_string(i), "running", "succeeded", "hot-1", "", "exited with code 0", "" }));

        DevicesModel devices;
        AcceleratorsPage accelerators(&devices);
        EventsModel events;
        EventsPage timeline(&events);
        accelerators.resize(1100, 700);
        timeline.resize(1100, 700);
        accelerators.show();
        timeline.show();
        devices.setSnapshot(before);
        accelerators.setSnapshot(before);
        events.setSnapshot(before);
        QApplication::processEvents();
        QSignalSpy resets(&devices, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&devices, &QAbstractItemModel::dataChanged);
        devices.setSnapshot(after);
        accelerators.setSnapshot(after);
        events.setSnapshot(after);
        QApplication::processEvents();
        QCOMPARE(resets.count(), 0);
        QVERIFY(changed.count() > 0);
        QCOMPARE(devices.rowCount(), static_cast<int>(after->devices.size()));
        QCOMPARE(timeline.table()->proxy()->rowCount(), static_cast<int>(kMaxEventRows));
    }

    void eventsFilterByKindAndText()
    {
        EventsModel model;
        EventsPage page(&model);
        page.resize(1000, 600);
        page.show();
        model.setSnapshot(m_snapshots.back());
        const int all = page.table()->proxy()->rowCount();
        QCOMPARE(static_cast<std::size_t>(all), m_snapshots.back()->events.size());
        // Newest first.
        const QModelIndex top = page.table()->proxy()->index(0, EventsModel::Time);
        const QModelIndex bottom = page.table()->proxy()->index(all - 1, EventsModel::Time);
        QVERIFY(top.data(SortRole).toLongLong() >= bottom.data(SortRole).toLongLong());
        // The kind box: only decisions, which name the approved proposal.
        const int decisions = page.kindBox()->findData(QStringLiteral("approval"));
        QVERIFY(decisions > 0);
        page.kindBox()->setCurrentIndex(decisions);
        QTRY_VERIFY(page.table()->proxy()->rowCount() > 0);
        for (int r = 0; r < page.table()->proxy()->rowCount(); ++r) {
            QCOMPARE(page.table()->proxy()->index(r, EventsModel::Kind).data(RawTextRole).toString(),
                QStringLiteral("approval"));
            QVERIFY(page.table()
                        ->proxy()
                        ->index(r, EventsModel::Actor)
                        .data()
                        .toString()
                        .startsWith(QStringLiteral("operator:console")));
        }
        // Placements, narrowed by the filter bar to one node.
        page.setKind(QStringLiteral("placement"));
        const int placements = page.table()->proxy()->rowCount();
        QVERIFY(placements > 0);
        const QString node = page.table()->proxy()->index(0, EventsModel::Node).data().toString();
        QVERIFY(!node.isEmpty());
        page.table()->filterBar()->findChild<QLineEdit*>()->setText(QStringLiteral("node=") + node);
        QTRY_VERIFY(page.table()->proxy()->rowCount() < placements);
        for (int r = 0; r < page.table()->proxy()->rowCount(); ++r)
            QCOMPARE(page.table()->proxy()->index(r, EventsModel::Node).data().toString(), node);
        // `kind=` in the filter bar works too, with every kind in the box.
        page.setKind(QString());
        QCOMPARE(page.kindBox()->currentIndex(), 0);
        page.table()->filterBar()->findChild<QLineEdit*>()->setText(QStringLiteral("kind=proposal"));
        QTRY_VERIFY(page.table()->proxy()->rowCount() > 0);
        for (int r = 0; r < page.table()->proxy()->rowCount(); ++r)
            QCOMPARE(page.table()->proxy()->index(r, EventsModel::Kind).data(RawTextRole).toString(),
                QStringLiteral("proposal"));
    }
};

QTEST_MAIN(TestConsoleViews)
#include "tst_console_views.moc"
