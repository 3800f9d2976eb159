// The Tiers board and the Pools tree's workloads over a real core (the demo's simulated fleet through the control
// plane and its SQLite store): both models under QAbstractItemModelTester while snapshots come and go; dropping a card
// on another tier through the model's drop path moves the workload there (the core's state changes and an audit record
// is written); a forbidden drop (a GPU workload onto a CPU-only node) shows the scheduler's reason and moves nothing;
// the Pools tree shows each node's workloads with their measured use, and its workload rows drop on another pool or a
// pool's node as a move request (the end-to-end pool move is in tst_embedded_backend).
#include "core/store/store.h"
#include "demo_fixture.h"
#include "ui/bridge/core_bridge.h"
#include "ui/bridge/demo_core.h"
#include "ui/labels.h"
#include "ui/models/filter_proxy.h"
#include "ui/models/pools_model.h"
#include "ui/models/roles.h"
#include "ui/models/tiers_model.h"
#include "ui/models/workload_mime.h"
#include "ui/move_text.h"
#include "ui/translations.h"
#include "ui/views/main_window.h"
#include "ui/views/tiers_page.h"

#include <QAbstractItemModelTester>
#include <QPersistentModelIndex>
#include <QLabel>
#include <QMimeData>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QTreeView>

#include <algorithm>
#include <map>

using namespace tidepool;
using namespace tidepool::ui;

Q_DECLARE_METATYPE(std::vector<int>)

namespace {

const WorkloadRow* workload(const SnapshotPtr& snapshot, std::int64_t id)
{
    if (snapshot)
        for (const WorkloadRow& w : snapshot->workloads)
            if (w.id == id)
                return &w;
    return nullptr;
}

const NodeRow* node(const SnapshotPtr& snapshot, const std::string& name)
{
    if (snapshot)
        for (const NodeRow& n : snapshot->nodes)
            if (n.name == name)
                return &n;
    return nullptr;
}

// Free CPU of a tier, as the snapshot's overview counts it.
std::int64_t freeCpu(const SnapshotPtr& snapshot, const std::string& tier)
{
    for (const TierLoad& t : snapshot->overview.tiers)
        if (t.tier == tier)
            return t.cpuMillis - t.cpuAllocatedMillis;
    return 0;
}

std::vector<store::AuditEntry> moveAudits(const std::string& dbPath, std::int64_t workloadId)
{
    std::vector<store::AuditEntry> found;
    auto store = store::openSqliteStore(dbPath);
    if (!store)
        return found;
    auto audit = (*store)->audit(store::AuditQuery {});
    if (!audit)
        return found;
    for (const store::AuditEntry& e : *audit)
        if (e.action == "workload.move" && e.target == "workload/" + std::to_string(workloadId))
            found.push_back(e);
    return found;
}

} // namespace

class TestTiersBoard : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::vector<SnapshotPtr> m_snapshots; // see initTestCase

    // The pools' rows list their workloads by index into the snapshot's: list those of a made-up snapshot again.
    static void relist(ConsoleSnapshot& snapshot)
    {
        for (PoolRow& pool : snapshot.pools)
            for (PoolNodeRow& onNode : pool.nodes) {
                onNode.workloadRows.clear();
                for (std::size_t w = 0; w < snapshot.workloads.size(); ++w) {
                    const WorkloadRow& row = snapshot.workloads[w];
                    if (row.poolId == pool.id && (row.nodeId < 0 ? std::string() : row.node) == onNode.node)
                        onNode.workloadRows.push_back(static_cast<std::int32_t>(w));
                }
            }
    }

    SnapshotPtr at(int i) const { return i < 0 ? SnapshotPtr {} : m_snapshots[static_cast<std::size_t>(i)]; }

    static void addSequences()
    {
        QTest::addColumn<std::vector<int>>("sequence");
        QTest::newRow("forward in time") << std::vector<int> { 0, 1, 2, 3 };
        QTest::newRow("backward in time") << std::vector<int> { 3, 2, 1, 0 };
        QTest::newRow("nodes and workloads leave and return") << std::vector<int> { 2, 4, 2, 4, 3 };
        QTest::newRow("through an empty snapshot") << std::vector<int> { 1, -1, 2, -1 };
        QTest::newRow("same snapshot twice") << std::vector<int> { 2, 2 };
    }

    // The demo core on its thread, the bridge and the window, with snapshots arriving slowly enough that a test can
    // look at one workload between two steps.
    struct Console {
        explicit Console(const QTemporaryDir& dir)
        {
            config.demo = test::smallDemo(dir);
            // The trace's first CPU-only batch jobs (the only workloads the tiers' rules let onto every tier) arrive
            // after 20 simulated hours; GPU batch and inference run from the start.
            config.fastForwardMs = 1230LL * 60 * 1000;
            config.fastForwardPublishSteps = 30;
            config.tick = std::chrono::milliseconds(500);
            window = std::make_unique<MainWindow>(bridge);
            core = std::make_unique<DemoCore>(config, bridge.events());
            bridge.setBackend(core.get());
        }
        ~Console() { stop(); }
        void stop()
        {
            bridge.setBackend(nullptr);
            if (core)
                core->stop();
        }
        DemoCoreConfig config;
        CoreBridge bridge;
        std::unique_ptr<MainWindow> window;
        std::unique_ptr<DemoCore> core;
    };

    QTemporaryDir m_consoleDir;
    std::unique_ptr<Console> m_console; // shared by the drop tests: it takes a while to reach the first CPU batch
    std::int64_t m_refusedId = 0, m_movedId = 0;
    std::string m_movedTo;

    Console& startConsole()
    {
        if (!m_console)
            m_console = std::make_unique<Console>(m_consoleDir);
        return *m_console;
    }

    // Drops the card of workload `id` on `target` through the model's drop path, as a view does.
    static bool drop(TiersModel* model, std::int64_t id, const QModelIndex& target)
    {
        const QModelIndex card = model->cardIndex(id);
        if (!card.isValid())
            return false;
        std::unique_ptr<QMimeData> data(model->mimeData({ card }));
        if (!data || !model->canDropMimeData(data.get(), Qt::MoveAction, -1, -1, target))
            return false;
        return model->dropMimeData(data.get(), Qt::MoveAction, -1, -1, target);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        auto started = DemoDriver::start(test::smallDemo(m_dir));
        QVERIFY2(started, started ? "" : started.error().message.c_str());
        DemoDriver& driver = **started;
        // 0: the fleet has just joined; 1, 2, 3: an hour, two and a half later (batch comes and goes, services scale).
        driver.advance();
        m_snapshots.push_back(driver.snapshot());
        for (int step : { 60, 90, 30 }) {
            for (int i = 0; i < step; ++i)
                driver.advance();
            m_snapshots.push_back(driver.snapshot());
        }
        // 4: snapshot 2 with every other node, its workloads and the first pool gone.
        auto fewer = std::make_shared<ConsoleSnapshot>(*m_snapshots[2]);
        std::erase_if(fewer->nodes, [](const NodeRow& n) { return n.id % 2 == 1; });
        std::erase_if(fewer->workloads, [](const WorkloadRow& w) { return w.nodeId % 2 == 1 || w.id % 3 == 0; });
        fewer->pools.erase(fewer->pools.begin());
        relist(*fewer);
        m_snapshots.push_back(fewer);
        // 5: snapshot 2 with every third workload gone, scattered over every node: many runs of removed rows.
        auto thinner = std::make_shared<ConsoleSnapshot>(*m_snapshots[2]);
        std::erase_if(thinner->workloads, [](const WorkloadRow& w) { return w.id % 3 == 0; });
        relist(*thinner);
        m_snapshots.push_back(thinner);
        QVERIFY(!m_snapshots[2]->workloads.empty());
        QVERIFY(m_snapshots[1]->workloads != m_snapshots[2]->workloads);
    }

    void tiers_data() { addSequences(); }
    void tiers()
    {
        QFETCH(std::vector<int>, sequence);
        TiersModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        for (const int i : sequence) {
            const SnapshotPtr next = at(i);
            model.setSnapshot(next);
            QCOMPARE(model.rowCount(), 3); // hot, warm, cold, always
            // Every workload is one card, on its node's tier (its own tier while it waits), under its node.
            int cards = 0;
            for (int t = 0; t < 3; ++t)
                cards += model.cardCount(model.index(t, 0));
            int expected = 0;
            if (next)
                for (const WorkloadRow& w : next->workloads) {
                    const bool shown = w.nodeId < 0 || node(next, w.node) != nullptr;
                    expected += shown ? 1 : 0;
                    if (!shown)
                        continue;
                    const QModelIndex card = model.cardIndex(w.id);
                    QVERIFY(card.isValid());
                    QCOMPARE(card.data().toString(), QString::fromStdString(w.name));
                    QCOMPARE(card.data(TiersModel::TierRole).toString(), QString::fromStdString(w.tier));
                    QCOMPARE(card.parent().data(TiersModel::NodeRole).toString(), QString::fromStdString(w.node));
                }
            QCOMPARE(cards, expected);
        }
        // Only the first load resets; everything after is a diff.
        QCOMPARE(resets.count(), 1);
    }

    void pools_data() { addSequences(); }
    void pools()
    {
        QFETCH(std::vector<int>, sequence);
        PoolsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        for (const int i : sequence) {
            const SnapshotPtr next = at(i);
            model.setSnapshot(next);
            // Under each node of a pool, its workloads there.
            int rows = 0;
            for (int l = 0; l < model.rowCount(); ++l) {
                const QModelIndex line = model.index(l, 0);
                for (int p = 0; p < model.rowCount(line); ++p) {
                    const QModelIndex pool = model.index(p, 0, line);
                    for (int n = 0; n < model.rowCount(pool); ++n) {
                        const QModelIndex onNode = model.index(n, 0, pool);
                        if (i != 4) // the made-up snapshot keeps the pools' counts of the workloads it dropped
                            QCOMPARE(
                                model.rowCount(onNode), model.index(n, PoolsModel::Workloads, pool).data().toInt());
                        rows += model.rowCount(onNode);
                    }
                }
            }
            int expected = 0;
            if (next)
                for (const WorkloadRow& w : next->workloads)
                    for (const PoolRow& p : next->pools)
                        expected += p.id == w.poolId ? 1 : 0;
            QCOMPARE(rows, expected);
        }
    }

    // An update with many scattered changes is one layout change (not a signal per run of rows), and the persistent
    // indexes that views keep (expanded rows, the selection) follow their rows by key through it: a card or a workload
    // row still shows the same workload, and one whose workload left is invalid.
    void bigUpdatesKeepPersistentIndexesOnTheirRows()
    {
        const SnapshotPtr before = at(2);
        const SnapshotPtr after = at(5);
        std::vector<qint64> kept, gone;
        for (const WorkloadRow& w : before->workloads) {
            const bool stays = std::any_of(after->workloads.begin(), after->workloads.end(),
                [&w](const WorkloadRow& n) { return n.id == w.id && n.node == w.node; });
            const bool leaves = std::none_of(
                after->workloads.begin(), after->workloads.end(), [&w](const WorkloadRow& n) { return n.id == w.id; });
            if (stays && w.nodeId >= 0 && kept.size() < 20)
                kept.push_back(w.id);
            if (leaves && gone.size() < 20)
                gone.push_back(w.id);
        }
        QVERIFY(!kept.empty() && !gone.empty());

        TiersModel tiers;
        QAbstractItemModelTester tiersTester(&tiers, QAbstractItemModelTester::FailureReportingMode::QtTest);
        tiers.setSnapshot(before);
        std::vector<std::pair<qint64, QPersistentModelIndex>> cards;
        for (const qint64 id : kept)
            cards.emplace_back(id, QPersistentModelIndex(tiers.cardIndex(id)));
        for (const qint64 id : gone)
            cards.emplace_back(-1, QPersistentModelIndex(tiers.cardIndex(id)));
        QSignalSpy tiersLayouts(&tiers, &QAbstractItemModel::layoutChanged);
        QSignalSpy tiersRemoved(&tiers, &QAbstractItemModel::rowsRemoved);
        tiers.setSnapshot(after);
        QCOMPARE(tiersLayouts.count(), 1);
        QCOMPARE(tiersRemoved.count(), 0);
        for (const auto& [id, card] : cards) {
            if (id < 0) {
                QVERIFY(!card.isValid());
                continue;
            }
            QVERIFY(card.isValid());
            QCOMPARE(card.data(TiersModel::WorkloadIdRole).toLongLong(), id);
            QCOMPARE(QModelIndex(card), tiers.cardIndex(id));
        }

        PoolsModel pools;
        QAbstractItemModelTester poolsTester(&pools, QAbstractItemModelTester::FailureReportingMode::QtTest);
        pools.setSnapshot(before);
        // Every workload row, with the id of the workload it shows (the pool's node row lists them in order).
        const auto workloadAt = [&pools](const SnapshotPtr& snapshot, const QModelIndex& row) -> const WorkloadRow* {
            const QString poolName = row.parent().parent().data(RawTextRole).toString();
            const std::string nodeName = row.parent().data(RawTextRole).toString().toStdString();
            for (const PoolRow& pool : snapshot->pools)
                for (const PoolNodeRow& onNode : pool.nodes)
                    if (QString::fromStdString(pool.name) == poolName && onNode.node == nodeName)
                        return &snapshot->workloads[static_cast<std::size_t>(
                            onNode.workloadRows[static_cast<std::size_t>(row.row())])];
            return nullptr;
        };
        std::vector<std::pair<WorkloadRow, QPersistentModelIndex>> rows;
        for (int l = 0; l < pools.rowCount(); ++l)
            for (int p = 0; p < pools.rowCount(pools.index(l, 0)); ++p) {
                const QModelIndex pool = pools.index(p, 0, pools.index(l, 0));
                for (int n = 0; n < pools.rowCount(pool); ++n) {
                    const QModelIndex onNode = pools.index(n, 0, pool);
                    for (int w = 0; w < pools.rowCount(onNode); ++w) {
                        const WorkloadRow* shown = workloadAt(before, pools.index(w, 0, onNode));
                        QVERIFY(shown);
                        rows.emplace_back(*shown, pools.index(w, 0, onNode));
                    }
                }
            }
        QSignalSpy poolsLayouts(&pools, &QAbstractItemModel::layoutChanged);
        pools.setSnapshot(after);
        QCOMPARE(poolsLayouts.count(), 1);
        int followed = 0, invalidated = 0;
        for (const auto& [was, row] : rows) {
            const auto now = std::find_if(after->workloads.begin(), after->workloads.end(),
                [&was](const WorkloadRow& w) { return w.id == was.id; });
            if (now == after->workloads.end() || now->node != was.node || now->poolId != was.poolId) {
                QVERIFY(!row.isValid());
                ++invalidated;
            } else {
                QVERIFY(row.isValid());
                const WorkloadRow* shown = workloadAt(after, row);
                QVERIFY(shown);
                QCOMPARE(shown->id, was.id);
                ++followed;
            }
        }
        QVERIFY(followed > 0);
        QVERIFY(invalidated > 0);
    }

    // A placed workload's row: its requests and its measured use beside them; the pool's totals likewise.
    void poolsShowWorkloadsAndMeasuredUse()
    {
        const SnapshotPtr snapshot = at(2);
        PoolsModel model;
        model.setSnapshot(snapshot);
        int measured = 0;
        for (int l = 0; l < model.rowCount(); ++l) {
            const QModelIndex line = model.index(l, 0);
            for (int p = 0; p < model.rowCount(line); ++p) {
                const QModelIndex pool = model.index(p, 0, line);
                for (int n = 0; n < model.rowCount(pool); ++n) {
                    const QModelIndex onNode = model.index(n, 0, pool);
                    for (int r = 0; r < model.rowCount(onNode); ++r) {
                        const QString name = model.index(r, PoolsModel::Name, onNode).data().toString();
                        const WorkloadRow* w = nullptr;
                        for (const WorkloadRow& row : snapshot->workloads)
                            if (QString::fromStdString(row.name) == name
                                && row.node == onNode.data().toString().toStdString())
                                w = &row;
                        QVERIFY2(w, qPrintable(name));
                        QCOMPARE(model.index(r, PoolsModel::CpuRequested, onNode).data().toString(),
                            coresText(w->cpuMillis));
                        QCOMPARE(model.index(r, PoolsModel::Workloads, onNode).data().toString(), phaseLabel(w->phase));
                        if (w->cpuUsedMillis >= 0) {
                            ++measured;
                            QCOMPARE(model.index(r, PoolsModel::CpuUsed, onNode).data().toString(),
                                coresText(w->cpuUsedMillis));
                            // The bar: what it uses against what it asked for.
                            QCOMPARE(model.index(r, PoolsModel::CpuUsed, onNode).data(ShareRole).toDouble(),
                                w->cpuMillis > 0 ? double(w->cpuUsedMillis) / double(w->cpuMillis) : -1.0);
                        }
                    }
                }
            }
        }
        QVERIFY2(measured > 0, "no workload with a measured use");
        // A pool's measured CPU is the sum of its workloads'.
        for (const PoolRow& pool : snapshot->pools) {
            std::int64_t sum = 0;
            for (const WorkloadRow& w : snapshot->workloads)
                if (w.poolId == pool.id && w.cpuUsedMillis > 0)
                    sum += w.cpuUsedMillis;
            QCOMPARE(pool.cpuMeasuredMillis, sum);
        }
    }

    // A card says how many times its workload's restart policy started it again; one never restarted says nothing.
    void aCardSaysHowOftenItsWorkloadWasRestarted()
    {
        QVERIFY(installTranslators(QLocale(QLocale::English))); // the plural forms are in the English catalogue
        ConsoleSnapshot changed = *at(2);
        QVERIFY(changed.workloads.size() >= 2);
        changed.workloads[0].restarts = 2;
        changed.workloads[1].restarts = 0;
        TiersModel model;
        model.setSnapshot(std::make_shared<const ConsoleSnapshot>(changed));
        const QModelIndex restarted = model.cardIndex(changed.workloads[0].id);
        const QModelIndex never = model.cardIndex(changed.workloads[1].id);
        QVERIFY(restarted.isValid() && never.isValid());
        QVERIFY2(restarted.data(TiersModel::SubtitleRole).toString().endsWith(QStringLiteral(" · restarted 2 times")),
            qPrintable(restarted.data(TiersModel::SubtitleRole).toString()));
        QVERIFY2(restarted.data(Qt::ToolTipRole)
                     .toString()
                     .contains(QStringLiteral("Restarted 2 times by its restart "
                                              "policy")),
            qPrintable(restarted.data(Qt::ToolTipRole).toString()));
        QVERIFY(!never.data(TiersModel::SubtitleRole).toString().contains(QStringLiteral("restarted")));
        QVERIFY(!never.data(Qt::ToolTipRole).toString().contains(QStringLiteral("Restarted")));
        QVERIFY(!never.data(Qt::ToolTipRole).toString().contains(QStringLiteral("Its own limits")));

        // What it was submitted with beyond its requests: its own limits, its policy, its longest run.
        changed.workloads[0].restart = "on-failure";
        changed.workloads[0].maxRestarts = 3;
        changed.workloads[0].maxRuntimeMs = 2 * 3600 * 1000;
        changed.workloads[0].cpuLimitMillis = 1500;
        changed.workloads[0].memoryLimitMiB = 2048;
        changed.workloads[1].restart = "always";
        model.setSnapshot(std::make_shared<const ConsoleSnapshot>(changed));
        const QString tip = model.cardIndex(changed.workloads[0].id).data(Qt::ToolTipRole).toString();
        QVERIFY2(
            tip.contains(QStringLiteral("Its own limits: CPU %1, memory %2").arg(coresText(1500), memoryText(2048))),
            qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("Restarted when it fails, at most 3 times")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("Stopped after running 2 h")), qPrintable(tip));
        const QString always = model.cardIndex(changed.workloads[1].id).data(Qt::ToolTipRole).toString();
        QVERIFY2(always.contains(QStringLiteral("Restarted whenever it ends"))
                && !always.contains(QStringLiteral("at most")),
            qPrintable(always));
    }

    // A GPU workload (batch if there is one) dropped on a CPU-only cold node: refused with the scheduler's reason.
    void aForbiddenDropShowsTheReasonAndMovesNothing()
    {
        Console& console = startConsole();
        TiersModel* model = console.window->tiersModel();
        QSignalSpy results(&console.bridge, &CoreBridge::moveFinished);
        const WorkloadRow* chosen = nullptr;
        std::string cold;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const SnapshotPtr s = console.bridge.latest();
                chosen = nullptr;
                if (!s)
                    return false;
                for (const NodeRow& n : s->nodes)
                    if (n.tier == "cold" && n.accelerators == 0)
                        cold = n.name;
                for (const WorkloadRow& w : s->workloads)
                    if (w.phase == "running" && w.acceleratorKind == "gpu" && model->cardIndex(w.id).isValid()
                        && (!chosen || (w.latency == "batch" && chosen->latency != "batch")))
                        chosen = &w;
                return chosen != nullptr && !cold.empty();
            }(),
            90'000);
        const std::int64_t id = chosen->id;
        const std::string from = chosen->node;
        const bool batch = chosen->latency == "batch";
        m_refusedId = id;

        const QModelIndex target = model->nodeIndex(QString::fromStdString(cold));
        QVERIFY(target.isValid());
        QVERIFY(drop(model, id, target));
        QTRY_COMPARE_WITH_TIMEOUT(results.count(), 1, 10'000);
        const auto result = results.takeFirst().at(0).value<MoveResult>();
        QVERIFY(!result.ok);
        QCOMPARE(result.refusal, std::string("no_feasible_node"));
        QCOMPARE(result.node, cold);
        QCOMPARE(result.reasons.size(), std::size_t(1));
        // A batch job may run on the cold tier but finds no GPU there; inference may not run there at all.
        QCOMPARE(
            result.reasons[0].reason, std::string(batch ? "no accelerator of the requested kind" : "tier not allowed"));

        // Shown to the operator: in the message strip and on the card, translated.
        const QString reason = rejectReasonLabel(result.reasons[0].reason);
        auto* message = console.window->tiersPage()->message();
        QVERIFY(message->isVisibleTo(console.window->tiersPage()));
        QVERIFY2(message->text().contains(reason), qPrintable(message->text()));
        const QModelIndex card = model->cardIndex(id);
        QVERIFY(card.isValid());
        QCOMPARE(card.data(TiersModel::NoteStateRole).toInt(), int(TiersModel::NoteState::Refused));
        QVERIFY(card.data(TiersModel::NoteRole).toString().contains(reason));
        QVERIFY(card.data(Qt::ToolTipRole).toString().contains(reason));
        // Nothing moved.
        const WorkloadRow* still = workload(console.bridge.latest(), id);
        QVERIFY(still);
        QCOMPARE(still->node, from);
    }

    // A running CPU batch job (the tiers' rules let it go anywhere) dropped on the tier with the most room.
    void droppingACardOnAnotherTierMovesIt()
    {
        Console& console = startConsole();
        TiersModel* model = console.window->tiersModel();
        QVERIFY(console.window->tabs()->indexOf(console.window->tiersPage()) >= 0);
        QSignalSpy results(&console.bridge, &CoreBridge::moveFinished);
        const WorkloadRow* chosen = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const SnapshotPtr s = console.bridge.latest();
                chosen = nullptr;
                if (s)
                    for (const WorkloadRow& w : s->workloads)
                        if (w.phase == "running" && w.latency == "batch" && w.acceleratorKind.empty()
                            && model->cardIndex(w.id).isValid())
                            chosen = &w;
                return chosen != nullptr;
            }(),
            90'000);
        const SnapshotPtr before = console.bridge.latest();
        const std::int64_t id = chosen->id;
        const std::string from = chosen->tier;
        std::string to;
        for (const char* tier : { "hot", "warm", "cold" })
            if (tier != from && (to.empty() || freeCpu(before, tier) > freeCpu(before, to)))
                to = tier;
        m_movedId = id;

        QVERIFY(drop(model, id, model->tierIndex(QString::fromStdString(to))));
        QCOMPARE(model->cardIndex(id).data(TiersModel::NoteStateRole).toInt(), int(TiersModel::NoteState::Moving));
        QTRY_COMPARE_WITH_TIMEOUT(results.count(), 1, 10'000);
        const auto result = results.takeFirst().at(0).value<MoveResult>();
        QVERIFY2(result.ok, result.message.c_str());
        m_movedTo = result.node;
        // The core moved it: onto a node of that tier, in the snapshot published with the answer.
        const SnapshotPtr after = console.bridge.latest();
        QVERIFY(node(after, result.node));
        QCOMPARE(node(after, result.node)->tier, to);
        if (const WorkloadRow* moved = workload(after, id)) { // a batch job may also have ended since
            QCOMPARE(moved->node, result.node);
            QCOMPARE(moved->tier, to);
            QTRY_COMPARE(model->cardIndex(id).data(TiersModel::TierRole).toString(), QString::fromStdString(to));
            QCOMPARE(model->cardIndex(id).data(TiersModel::NoteStateRole).toInt(), int(TiersModel::NoteState::Moved));
        }
        auto* message = console.window->tiersPage()->message();
        QVERIFY(message->isVisibleTo(console.window->tiersPage()));
        QCOMPARE(message->text(), moveResultText(result));
    }

    // Both drops, the move and the refusal, are in the audit log as the console's operator.
    void dropsAreAudited()
    {
        QVERIFY(m_console);
        QVERIFY(m_refusedId != 0 && m_movedId != 0);
        m_console->stop();
        const std::string db = m_console->config.demo.scenario.dbPath;
        const auto moved = moveAudits(db, m_movedId);
        QCOMPARE(moved.size(), std::size_t(1));
        QCOMPARE(moved[0].actor, std::string(kConsoleActor));
        QCOMPARE(moved[0].outcome, std::string("ok"));
        QCOMPARE(moved[0].detail.value("to", std::string()), m_movedTo);
        const auto refused = moveAudits(db, m_refusedId);
        QCOMPARE(refused.size(), std::size_t(1));
        QCOMPARE(refused[0].actor, std::string(kConsoleActor));
        QCOMPARE(refused[0].outcome, std::string("no_feasible_node"));
    }

    void cleanupTestCase() { m_console.reset(); }

    // The Pools tree's workload rows drag with the Tiers board's payload: dropped on another pool they ask for that
    // pool (the core picks the node), on a node of a pool for that pool and node, through the view's proxy as well;
    // a drop where the workload is already is not offered, and nothing changes in the model either way.
    void poolsTreeDropsAskForTheTargetPool()
    {
        const SnapshotPtr snapshot = at(2);
        PoolsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(snapshot);
        QCOMPARE(model.mimeTypes(), QStringList { TiersModel::kMimeType });
        // A placed workload's row, and a pool other than its own with a node row.
        QModelIndex row, ownPool, otherPool, otherNode;
        for (int l = 0; l < model.rowCount() && !row.isValid(); ++l)
            for (int p = 0; p < model.rowCount(model.index(l, 0)) && !row.isValid(); ++p) {
                const QModelIndex pool = model.index(p, 0, model.index(l, 0));
                for (int n = 0; n < model.rowCount(pool) && !row.isValid(); ++n) {
                    const QModelIndex onNode = model.index(n, 0, pool);
                    if (!onNode.data(RawTextRole).toString().isEmpty() && model.rowCount(onNode) > 0) {
                        row = model.index(0, 0, onNode);
                        ownPool = pool;
                    }
                }
            }
        QVERIFY(row.isValid());
        for (int l = 0; l < model.rowCount() && !otherNode.isValid(); ++l)
            for (int p = 0; p < model.rowCount(model.index(l, 0)) && !otherNode.isValid(); ++p) {
                const QModelIndex pool = model.index(p, 0, model.index(l, 0));
                if (pool == ownPool)
                    continue;
                for (int n = 0; n < model.rowCount(pool) && !otherNode.isValid(); ++n)
                    if (!model.index(n, 0, pool).data(RawTextRole).toString().isEmpty()) {
                        otherPool = pool;
                        otherNode = model.index(n, 0, pool);
                    }
            }
        QVERIFY(otherNode.isValid());
        QVERIFY(model.flags(row) & Qt::ItemIsDragEnabled);
        QVERIFY(model.flags(otherPool) & Qt::ItemIsDropEnabled);
        QVERIFY(!(model.flags(otherPool) & Qt::ItemIsDragEnabled));
        QVERIFY(!(model.flags(model.index(0, 0)) & Qt::ItemIsDropEnabled)); // a business line is no one place

        // Every column of the selected row: one workload in the payload, the row's, with where it is.
        QModelIndexList columns;
        for (int c = 0; c < model.columnCount(); ++c)
            columns << row.siblingAtColumn(c);
        std::unique_ptr<QMimeData> data(model.mimeData(columns));
        QVERIFY(data);
        const std::vector<DraggedWorkload> dragged = decodeWorkloads(data.get());
        QCOMPARE(dragged.size(), std::size_t { 1 });
        const WorkloadRow* w = workload(snapshot, dragged[0].id);
        QVERIFY(w);
        QCOMPARE(QString::fromStdString(w->name), row.data(RawTextRole).toString());
        QCOMPARE(QString::fromStdString(dragged[0].pool), ownPool.data(RawTextRole).toString());
        QCOMPARE(QString::fromStdString(dragged[0].node), row.parent().data(RawTextRole).toString());

        QSignalSpy requested(&model, &PoolsModel::moveRequested);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QVERIFY(model.canDropMimeData(data.get(), Qt::MoveAction, -1, -1, otherPool));
        QVERIFY(model.dropMimeData(data.get(), Qt::MoveAction, -1, -1, otherPool));
        QCOMPARE(requested.size(), 1);
        QCOMPARE(requested[0].at(0).toLongLong(), w->id);
        QCOMPARE(requested[0].at(1).toString(), otherPool.data(RawTextRole).toString());
        QCOMPARE(requested[0].at(2).toString(), QString());
        QVERIFY(model.dropMimeData(data.get(), Qt::MoveAction, -1, -1, otherNode));
        QCOMPARE(requested.size(), 2);
        QCOMPARE(requested[1].at(1).toString(), otherPool.data(RawTextRole).toString());
        QCOMPARE(requested[1].at(2).toString(), otherNode.data(RawTextRole).toString());
        // Its own pool, or its own node: already there.
        QVERIFY(!model.canDropMimeData(data.get(), Qt::MoveAction, -1, -1, ownPool));
        QVERIFY(!model.canDropMimeData(data.get(), Qt::MoveAction, -1, -1, row.parent()));
        QVERIFY(!model.dropMimeData(data.get(), Qt::MoveAction, -1, -1, ownPool));
        QVERIFY(!model.canDropMimeData(data.get(), Qt::CopyAction, -1, -1, otherPool));
        QCOMPARE(requested.size(), 2);
        QCOMPARE(changed.size(), 0);

        // A card dragged off the Tiers board drops on the tree too.
        TiersModel tiers;
        tiers.setSnapshot(snapshot);
        std::unique_ptr<QMimeData> card(tiers.mimeData({ tiers.cardIndex(w->id) }));
        QVERIFY(model.dropMimeData(card.get(), Qt::MoveAction, -1, -1, otherPool));
        QCOMPARE(requested.size(), 3);
        QCOMPARE(requested[2].at(0).toLongLong(), w->id);

        // Through the page's proxy, as the view drops.
        FilterProxy proxy;
        proxy.setSourceModel(&model);
        proxy.sort(0);
        const QModelIndex proxied = proxy.mapFromSource(otherPool);
        QVERIFY(proxy.flags(proxied) & Qt::ItemIsDropEnabled);
        QVERIFY(proxy.dropMimeData(data.get(), Qt::MoveAction, -1, -1, proxied));
        QCOMPARE(requested.size(), 4);
        QCOMPARE(requested[3].at(1).toString(), otherPool.data(RawTextRole).toString());
    }

    void aDropOnTheCardsOwnPlaceIsNotOffered()
    {
        TiersModel model;
        model.setSnapshot(at(2));
        for (const WorkloadRow& w : at(2)->workloads) {
            if (w.nodeId < 0)
                continue;
            const QModelIndex card = model.cardIndex(w.id);
            std::unique_ptr<QMimeData> data(model.mimeData({ card }));
            QVERIFY(!model.canDropMimeData(data.get(), Qt::MoveAction, -1, -1, card.parent()));
            QVERIFY(!model.canDropMimeData(
                data.get(), Qt::MoveAction, -1, -1, model.tierIndex(QString::fromStdString(w.tier))));
            QVERIFY(!model.canDropMimeData(data.get(), Qt::MoveAction, -1, -1, QModelIndex()));
            QSignalSpy requested(&model, &TiersModel::moveRequested);
            QVERIFY(!model.dropMimeData(data.get(), Qt::MoveAction, -1, -1, card.parent()));
            QCOMPARE(requested.count(), 0);
            return;
        }
        QFAIL("no placed workload");
    }
};

QTEST_MAIN(TestTiersBoard)
#include "tst_tiers_board.moc"
