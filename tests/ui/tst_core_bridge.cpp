// The console's bridge to an embedded core running on a thread of its own: snapshots of the real core (the demo's
// simulated fleet) arrive on the GUI thread; approving a proposal with the Proposals tab's button goes to the core,
// changes the proposal in the rebalancer and in the SQLite store, and writes an audit record; rejecting needs a
// comment, which is stored; a refused decision is audited and shown; after the core stops, commands are refused.
#include "core/api/control_plane.h"
#include "core/api/rebalancer.h"
#include "core/store/store.h"
#include "demo_fixture.h"
#include "ui/bridge/core_bridge.h"
#include "ui/bridge/demo_core.h"
#include "ui/bridge/snapshot_builder.h"
#include "ui/bridge/workload_snapshot.h"
#include "ui/labels.h"
#include "ui/models/filter_proxy.h"
#include "ui/models/nodes_model.h"
#include "ui/models/proposals_model.h"
#include "ui/models/tiers_model.h"
#include "ui/views/logs_dialog.h"
#include "ui/views/main_window.h"
#include "ui/views/node_actions.h"
#include "ui/views/pool_dialog.h"
#include "ui/views/pools_page.h"
#include "ui/views/proposals_page.h"
#include "ui/views/table_page.h"
#include "ui/views/tiers_page.h"

#include <QApplication>
#include <QComboBox>
#include <QCompleter>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QStringListModel>
#include <QTabWidget>
#include <QTest>
#include <QThread>
#include <QTimer>
#include <QTreeView>

#include <boost/asio/io_context.hpp>

#include <functional>

using namespace tidepool;
using namespace tidepool::ui;

namespace {

// A snapshot of a console whose role at its core is `role`, holding what `fill` puts in it, delivered as a core would.
void deliverAs(CoreBridge& bridge, const char* role, const std::function<void(ConsoleSnapshot&)>& fill)
{
    auto s = std::make_shared<ConsoleSnapshot>();
    s->role = role;
    fill(*s);
    bridge.events().snapshot(std::move(s));
    QCoreApplication::sendPostedEvents(&bridge);
}

// Node `name`'s row in the latest snapshot.
std::optional<NodeRow> nodeRowOf(const CoreBridge& bridge, const std::string& name)
{
    if (const SnapshotPtr s = bridge.latest())
        for (const NodeRow& n : s->nodes)
            if (n.name == name)
                return n;
    return std::nullopt;
}

// The busiest ready CPU node, where it holds at least `least` workloads (a workload on an accelerator may have nowhere
// else to go); "" otherwise.
std::string busiestCpuNode(const CoreBridge& bridge, int least)
{
    const SnapshotPtr s = bridge.latest();
    if (!s)
        return {};
    const NodeRow* best = nullptr;
    for (const NodeRow& n : s->nodes)
        if (n.acceleratorKind.empty() && n.state == "ready" && (!best || n.workloads > best->workloads))
            best = &n;
    return best && best->workloads >= least ? best->name : std::string();
}

} // namespace

class TestCoreBridge : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    static std::optional<ProposalRow> proposal(const SnapshotPtr& snapshot, std::int64_t id)
    {
        if (snapshot)
            for (const ProposalRow& p : snapshot->proposals)
                if (p.id == id)
                    return p;
        return std::nullopt;
    }

    // Waiting proposals, the steadiest first: a power-down stays as it is while its node stays idle, where a quota
    // shift is re-planned (and the old one superseded) whenever the forecast moves.
    static std::vector<std::int64_t> pending(const SnapshotPtr& snapshot)
    {
        std::vector<std::int64_t> steady, others;
        if (snapshot)
            for (const ProposalRow& p : snapshot->proposals)
                if (p.state == "pending")
                    (p.kind == "power_down" ? steady : others).push_back(p.id);
        steady.insert(steady.end(), others.begin(), others.end());
        return steady;
    }

    // The small demo, half an hour on at once and stepping every 50 ms: its pools and nodes hold running work.
    // A console on a busy demo's core, its Nodes page showing.
    struct NodesPageOnDemo {
        explicit NodesPageOnDemo(const DemoCoreConfig& config)
            : core(config, bridge.events())
            , window(bridge)
        {
            bridge.setBackend(&core);
            window.findChild<QTabWidget*>()->setCurrentWidget(window.nodesPage());
        }
        CoreBridge bridge;
        QSignalSpy changed { &bridge, &CoreBridge::nodeChanged };
        DemoCore core;
        MainWindow window;
    };

    static DemoCoreConfig busyDemo(QTemporaryDir& dir)
    {
        DemoCoreConfig config;
        config.demo = test::smallDemo(dir);
        config.fastForwardMs = 30 * 60'000;
        config.tick = std::chrono::milliseconds(50);
        return config;
    }

private Q_SLOTS:
    // A daemon keeps months of closed proposals; a snapshot carries every open one, however old, and only the newest
    // `kConsoleClosedProposals` closed ones, so that a snapshot a second stays small.
    void snapshotsCarryOpenProposalsAndTheNewestClosedOnes()
    {
        constexpr std::int64_t kStart = 1'800'000'000'000;
        boost::asio::io_context io;
        api::AgentLink link { [](const std::string&, const protocol::Message&) { return true; },
            [](const std::string&, const std::string&) { return true; } };
        auto plane = api::ControlPlane::create(io, api::ControlPlaneConfig {}, link, {}, nullptr);
        QVERIFY(plane);
        for (const char* name : { "n1", "n2", "n3" }) {
            protocol::Inventory inventory;
            inventory.isa = "x86_64";
            inventory.cpuMillis = 8000;
            inventory.memoryMiB = 32768;
            (*plane)->onJoined(name, "127.0.0.1:1", protocol::Hello { name, "t", std::nullopt });
            (*plane)->onInventory(name, inventory);
        }
        api::RebalanceConfig config;
        config.evaluator.idleBeforePowerDown = std::chrono::milliseconds(0);
        config.rejectionHold = std::chrono::milliseconds(0); // a rejected proposal comes back the next round
        auto rebalancer = api::Rebalancer::create(io, **plane, config, {});
        QVERIFY(rebalancer);
        api::Rebalancer& r = **rebalancer;
        // Every 5 minutes the idle nodes are proposed for power-down; one of them is rejected each round (and proposed
        // afresh the next), the other stays pending from the first round on.
        std::optional<std::int64_t> steady;
        std::string rejectedKey;
        for (int round = 0; round < static_cast<int>(kConsoleClosedProposals) + 100; ++round) {
            const std::int64_t now = kStart + round * 300'000;
            r.evaluateNow(now);
            for (const auto& [id, p] : r.proposals())
                if (p.open() && p.kind == rebalance::ProposalKind::PowerDown) {
                    if (rejectedKey.empty() && steady && p.id != *steady)
                        rejectedKey = p.key;
                    if (!steady)
                        steady = id;
                    else if (p.key == rejectedKey)
                        QVERIFY(r.reject(id, "operator:test", "keep it on", now + 1000));
                }
        }
        QVERIFY(steady);
        QCOMPARE(rebalance::toString(r.proposal(*steady)->state), std::string_view("pending"));
        std::size_t closedKept = 0;
        for (const auto& [id, p] : r.proposals())
            closedKept += p.closed();
        QVERIFY2(closedKept >= kConsoleClosedProposals + 50, std::to_string(closedKept).c_str());

        const auto snapshot = buildSnapshot(**plane, &r, 1, "embedded");
        std::vector<std::int64_t> closedShown;
        bool steadyShown = false;
        for (const ProposalRow& p : snapshot->proposals) {
            if (p.state != "pending" && p.state != "approved")
                closedShown.push_back(p.id);
            steadyShown = steadyShown || p.id == *steady;
        }
        QVERIFY(steadyShown); // the oldest proposal of all, still pending
        QCOMPARE(closedShown.size(), kConsoleClosedProposals);
        // The newest closed ones: every closed proposal the rebalancer holds above the oldest shown is shown.
        std::size_t newer = 0;
        for (const auto& [id, p] : r.proposals())
            newer += p.closed() && id >= closedShown.front();
        QCOMPARE(newer, kConsoleClosedProposals);
        QVERIFY(std::is_sorted(snapshot->proposals.begin(), snapshot->proposals.end(),
            [](const ProposalRow& a, const ProposalRow& b) { return a.id < b.id; }));
        (*plane)->stop();
    }

    // The embedded console reads every quota of a pool from the core, as the remote one reads the API's.
    void snapshotsCarryEveryPoolQuota()
    {
        boost::asio::io_context io;
        api::AgentLink link { [](const std::string&, const protocol::Message&) { return true; },
            [](const std::string&, const std::string&) { return true; } };
        auto plane = api::ControlPlane::create(io, api::ControlPlaneConfig {}, link, {}, nullptr);
        QVERIFY(plane);
        api::PoolRequest limited;
        limited.name = "ml";
        limited.memBandwidthMBps = 9000;
        limited.netBandwidthMbps = 400;
        limited.acceleratorQuota[static_cast<std::size_t>(AcceleratorKind::Gpu)] = 3000;
        limited.acceleratorQuota[static_cast<std::size_t>(AcceleratorKind::Fpga)] = 0;
        QVERIFY((*plane)->createPool(limited));
        api::PoolRequest open;
        open.name = "open";
        QVERIFY((*plane)->createPool(open));
        const auto snapshot = buildSnapshot(**plane, nullptr, 1, "embedded");
        std::map<std::string, PoolRow> rows;
        for (const PoolRow& p : snapshot->pools)
            rows[p.name] = p;
        QCOMPARE(rows.at("ml").memBandwidthQuotaMBps, std::int64_t { 9000 });
        QCOMPARE(rows.at("ml").netBandwidthQuotaMbps, std::int64_t { 400 });
        QCOMPARE(rows.at("ml").acceleratorQuotaShare, (std::array<std::int64_t, 3> { 3000, -1, 0 }));
        QCOMPARE(rows.at("open").memBandwidthQuotaMBps, std::int64_t { -1 });
        QCOMPARE(rows.at("open").acceleratorQuotaShare, (std::array<std::int64_t, 3> { -1, -1, -1 }));
        (*plane)->stop();
    }

    // Where an agent measures its pools' cgroups, a workload's measured use is its pool's use of the node split among
    // the pool's workloads there by their requests, not a share of the node's use (which counts the host and every
    // pool alike); a pool the agent left out used nothing; where no pool is measured (the node gone, an agent from
    // before), the node's share stays. The pool's measured total is its own.
    void snapshotsSplitEachPoolsMeasuredUseAmongItsWorkloads()
    {
        boost::asio::io_context io;
        api::AgentLink link { [](const std::string&, const protocol::Message&) { return true; },
            [](const std::string&, const std::string&) { return true; } };
        auto plane = api::ControlPlane::create(io, api::ControlPlaneConfig {}, link, {}, nullptr);
        QVERIFY(plane);
        for (const char* pool : { "web", "batch" }) {
            api::PoolRequest request;
            request.name = pool;
            QVERIFY((*plane)->createPool(request));
        }
        protocol::Inventory inventory;
        inventory.isa = "x86_64";
        inventory.cpuMillis = 8000;
        inventory.memoryMiB = 32768;
        (*plane)->onJoined("s1", "127.0.0.1:1", protocol::Hello { "n1", "t", std::nullopt });
        (*plane)->onInventory("s1", inventory);
        std::map<std::string, std::int64_t> ids;
        for (const auto& [name, pool, cpu, memory] : { std::tuple { "web-a", "web", 1000, 1024 },
                 std::tuple { "web-b", "web", 3000, 1024 }, std::tuple { "batch-c", "batch", 2000, 512 } }) {
            api::SubmitRequest submit;
            submit.name = name;
            submit.pool = pool;
            submit.requests = { cpu, memory, 0, 0 };
            submit.argv = { "/bin/true" };
            auto submitted = (*plane)->submit(submit);
            QVERIFY(submitted);
            ids[name] = *submitted;
        }
        // Half the node busy (4 cores of 6 requested), web's cgroup 2 cores and 1000 MiB of it.
        protocol::Heartbeat heartbeat;
        heartbeat.samples.push_back(
            protocol::UtilisationSample { 1000, 0.5, 6000, {}, { protocol::PoolUsage { "web", 2000, 1000, -1.0 } } });
        (*plane)->onHeartbeat("s1", heartbeat);

        const auto rowOf = [&](const ConsoleSnapshot& s, const std::string& name) {
            const auto it = std::find_if(
                s.workloads.begin(), s.workloads.end(), [&](const WorkloadRow& w) { return w.id == ids.at(name); });
            return it == s.workloads.end() ? WorkloadRow {} : *it;
        };
        const auto snapshot = buildSnapshot(**plane, nullptr, 1, "embedded");
        const auto row = [&](const std::string& name) { return rowOf(*snapshot, name); };
        QCOMPARE(row("web-a").phase, std::string("launching"));
        QCOMPARE(row("web-a").cpuUsedMillis, std::int64_t { 500 });
        QCOMPARE(row("web-b").cpuUsedMillis, std::int64_t { 1500 });
        QCOMPARE(row("web-a").memoryUsedMiB, std::int64_t { 500 });
        // batch's cgroup used nothing: the agent, which measured web there, left it out.
        QCOMPARE(row("batch-c").cpuUsedMillis, std::int64_t { 0 });
        QCOMPARE(row("batch-c").memoryUsedMiB, std::int64_t { 0 });
        const auto pool = std::find_if(
            snapshot->pools.begin(), snapshot->pools.end(), [](const PoolRow& p) { return p.name == "web"; });
        QVERIFY(pool != snapshot->pools.end());
        QCOMPARE(pool->cpuMeasuredMillis, std::int64_t { 2000 });
        QCOMPARE(pool->memoryMeasuredMiB, std::int64_t { 1000 });

        // web-a runs and its agent measures its own cgroup: its figures, and web-b what is left of web's.
        (*plane)->onWorkloadUpdate("s1", protocol::WorkloadStatus { ids.at("web-a"), "running", 10, 0, {} });
        heartbeat.samples.back().timestampMs = 2000;
        heartbeat.samples.back().workloads = { protocol::WorkloadUsage { ids.at("web-a"), 0, 1700, 300 } };
        (*plane)->onHeartbeat("s1", heartbeat);
        const auto own = buildSnapshot(**plane, nullptr, 2, "embedded");
        const auto ownRow = [&](const std::string& name) { return rowOf(*own, name); };
        QVERIFY(ownRow("web-a").usedMeasured && !ownRow("web-b").usedMeasured);
        QCOMPARE(ownRow("web-a").cpuUsedMillis, std::int64_t { 1700 });
        QCOMPARE(ownRow("web-a").memoryUsedMiB, std::int64_t { 300 });
        QCOMPARE(ownRow("web-b").cpuUsedMillis, std::int64_t { 300 });
        QCOMPARE(ownRow("web-b").memoryUsedMiB, std::int64_t { 700 });
        // Its launch's own figures since its first sample: the peaks, and the 90th percentile right-sizing sizes CPU
        // from, as the core's histogram has it.
        heartbeat.samples.back().timestampMs = 3000;
        heartbeat.samples.back().workloads = { protocol::WorkloadUsage { ids.at("web-a"), 0, 200, 250 } };
        (*plane)->onHeartbeat("s1", heartbeat);
        const WorkloadRow measured = rowOf(*buildSnapshot(**plane, nullptr, 3, "embedded"), "web-a");
        QCOMPARE(measured.measuredSinceMs, std::int64_t { 2000 });
        QCOMPARE(measured.peakCpuMillis, std::int64_t { 1700 });
        QCOMPARE(measured.peakMemoryMiB, std::int64_t { 300 });
        QCOMPARE(measured.cpuP90Millis, (*plane)->workload(ids.at("web-a"))->cpuHistogram.percentile(0.9));
        QVERIFY(measured.cpuP90Millis >= 1700);
        QCOMPARE(rowOf(*buildSnapshot(**plane, nullptr, 4, "embedded"), "web-b").peakCpuMillis, std::int64_t { -1 });
        // (Plural forms come from the translations, which this suite does not install: "hour(s)".)
        QCOMPARE(measuredUseText(measured, 2000 + 3 * 3'600'000),
            QStringLiteral("Measured over 3 hour(s): CPU %1 at the 90th percentile, 1.7 cores at most; memory 0.3 GiB "
                           "at most")
                .arg(coresText(measured.cpuP90Millis)));
        QCOMPARE(measuredUseText(rowOf(*own, "web-b"), 5000), QString());

        // A pool's measurement with nothing of it requested splits evenly; a disconnected node's is not used.
        std::vector<WorkloadRow> rows(2);
        for (WorkloadRow& w : rows) {
            w.nodeId = 0;
            w.node = "n1";
            w.pool = "idle";
            w.phase = "running";
        }
        applyPoolMeasurements(rows, { { { "n1", "idle" }, MeasuredOnNode { 301, 40 } } });
        QCOMPARE(rows[0].cpuUsedMillis, std::int64_t { 151 });
        QCOMPARE(rows[1].memoryUsedMiB, std::int64_t { 20 });
        // A pool the node's agent left out (it used nothing) reads as nothing there, not as the node's share.
        applyPoolMeasurements(rows, { { { "n1", "busy" }, MeasuredOnNode { 900, 90 } } });
        QCOMPARE(rows[0].cpuUsedMillis, std::int64_t { 0 });
        QCOMPARE(rows[1].memoryUsedMiB, std::int64_t { 0 });
        (*plane)->onLeft("s1", "test: the agent went away");
        const auto after = buildSnapshot(**plane, nullptr, 3, "embedded");
        const auto webA = std::find_if(after->workloads.begin(), after->workloads.end(),
            [&](const WorkloadRow& w) { return w.id == ids.at("web-a"); });
        QVERIFY(webA != after->workloads.end());
        QCOMPARE(webA->cpuUsedMillis, std::int64_t { 667 }); // the node's share again: 4 cores over 6, times 1
        QVERIFY(!webA->usedMeasured);
        (*plane)->stop();
    }

    void stopsCleanlyAtAnyPoint_data()
    {
        QTest::addColumn<int>("snapshotsFirst");
        QTest::newRow("while it loads the traces") << 0;
        QTest::newRow("while it fast-forwards") << 2;
        QTest::newRow("while it runs at its pace") << 40;
    }
    void stopsCleanlyAtAnyPoint()
    {
        // The core thread is joined and the run destroyed on it, whatever it was doing; nothing arrives afterwards.
        QFETCH(int, snapshotsFirst);
        QTemporaryDir dir;
        DemoCoreConfig config;
        config.demo = test::smallDemo(dir);
        config.fastForwardMs = 30 * 60'000;
        config.fastForwardPublishSteps = 1;
        config.tick = std::chrono::milliseconds(1);
        CoreBridge bridge;
        QSignalSpy snapshots(&bridge, &CoreBridge::snapshotChanged);
        QSignalSpy failures(&bridge, &CoreBridge::coreFailed);
        DemoCore core(config, bridge.events());
        if (snapshotsFirst > 0)
            QTRY_VERIFY_WITH_TIMEOUT(snapshots.count() >= snapshotsFirst, 30'000);
        core.stop();
        QCoreApplication::processEvents(); // what was queued before the stop
        const auto delivered = snapshots.count();
        QTest::qWait(50);
        QCOMPARE(snapshots.count(), delivered);
        QCOMPARE(failures.count(), 0);
        core.stop(); // idempotent
    }

    // The window feeds a snapshot to the visible page's models at once and to the hidden pages' one page per turn of
    // the event loop, so that no single turn carries every model's diff; a page that becomes visible catches up
    // before it is painted.
    void hiddenPagesCatchUpOnePageATurn()
    {
        const auto withNodes = [](int count) {
            auto s = std::make_shared<ConsoleSnapshot>();
            for (int i = 0; i < count; ++i) {
                NodeRow n;
                n.id = i;
                n.name = "node-" + std::to_string(i);
                n.isa = "x86_64";
                n.tier = "warm";
                n.state = "ready";
                s->nodes.push_back(n);
            }
            return s;
        };
        CoreBridge bridge;
        MainWindow window(bridge);
        QTabWidget* tabs = window.tabs();
        tabs->setCurrentWidget(window.nodesPage());
        const int pages = tabs->count();
        bridge.events().snapshot(withNodes(3));
        QCoreApplication::sendPostedEvents(&bridge); // the bridge's delivery alone, no timers
        QCOMPARE(window.nodesModel()->rowCount(), 3); // visible: at once
        QCOMPARE(window.pagesBehind(), pages - 1);
        QCOMPARE(window.tiersModel()->rowCount(), 0); // hidden: not yet
        QTRY_COMPARE(window.pagesBehind(), 0);
        QCOMPARE(window.tiersModel()->rowCount(), 3); // hot, warm, cold

        // A hidden page that becomes visible takes the latest snapshot before anything else happens.
        bridge.events().snapshot(withNodes(5));
        QCoreApplication::sendPostedEvents(&bridge);
        QCOMPARE(window.nodesModel()->rowCount(), 5);
        const int warm = window.tiersModel()->rowCount(window.tiersModel()->tierIndex(QStringLiteral("warm")));
        QCOMPARE(warm, 3);
        tabs->setCurrentWidget(window.tiersPage());
        QCOMPARE(window.tiersModel()->rowCount(window.tiersModel()->tierIndex(QStringLiteral("warm"))), 5);
        QCOMPARE(window.pagesBehind(), pages - 2);
        window.catchUp();
        QCOMPARE(window.pagesBehind(), 0);
    }

    // A console whose token is a viewer's cannot decide: both buttons are off and say why; an operator's can.
    void aViewersConsoleMayNotDecide()
    {
        CoreBridge bridge;
        MainWindow window(bridge);
        ProposalsPage* page = window.proposalsPage();
        window.tabs()->setCurrentWidget(page);
        auto* approve = page->findChild<QPushButton*>(QStringLiteral("approveButton"));
        auto* reject = page->findChild<QPushButton*>(QStringLiteral("rejectButton"));
        auto* comment = page->findChild<QLineEdit*>(QStringLiteral("commentEdit"));
        QVERIFY(approve && reject && comment);
        const auto deliver = [&bridge](const char* role) {
            deliverAs(bridge, role, [](ConsoleSnapshot& s) {
                ProposalRow p;
                p.id = 7;
                p.kind = "quota";
                p.state = "pending";
                p.subject = "quota:batch";
                s.proposals.push_back(p);
            });
        };
        deliver("viewer");
        QVERIFY(page->select(7));
        comment->setText(QStringLiteral("not tonight"));
        QVERIFY(!approve->isEnabled());
        QVERIFY(!reject->isEnabled());
        QVERIFY2(approve->toolTip().contains(QStringLiteral("viewer")), qPrintable(approve->toolTip()));
        QCOMPARE(reject->toolTip(), approve->toolTip());
        deliver("operator");
        QVERIFY(page->select(7));
        QVERIFY(approve->isEnabled());
        QVERIFY(reject->isEnabled());
        QVERIFY(approve->toolTip().isEmpty());
    }

    // What the console may ask follows its token's role, as the daemon's access rules have it: a viewer drags no
    // workload and changes no pool, an operator moves workloads but changes no pool, an admin does both; each control
    // that is off says which role it needs. Against the demo or an embedded core (role "admin") everything is on.
    void aConsolesRoleDecidesWhatItMayAsk()
    {
        CoreBridge bridge;
        MainWindow window(bridge);
        auto* pools = qobject_cast<PoolsPage*>(window.poolsPage());
        QVERIFY(pools);
        TiersPage* tiers = window.tiersPage();
        QVERIFY(tiers);
        auto* tiersHint = tiers->findChild<QLabel*>(QStringLiteral("tiersHint"));
        auto* poolsHint = pools->findChild<QLabel*>(QStringLiteral("poolsHint"));
        QVERIFY(tiersHint && poolsHint);
        QSignalSpy roleChanged(&bridge, &CoreBridge::roleChanged);
        const auto deliver = [&bridge](const char* role) {
            deliverAs(bridge, role, [](ConsoleSnapshot& s) {
                PoolRow web;
                web.id = 1;
                web.name = "web";
                web.businessLine = "search";
                web.tier = "warm";
                PoolRow batch;
                batch.id = 2;
                batch.name = "batch";
                batch.businessLine = "ads";
                s.pools = { web, batch };
            });
        };
        const auto dragsInTiers = [&] {
            int on = 0;
            for (const char* tier : { "hot", "warm", "cold" })
                on += tiers->column(QString::fromLatin1(tier))->dragEnabled() ? 1 : 0;
            return on;
        };

        // Not known yet (no snapshot): the core decides, nothing is held back.
        QCOMPARE(dragsInTiers(), 3);
        QVERIFY(pools->newButton()->isEnabled());

        deliver("viewer");
        QCOMPARE(roleChanged.size(), 1);
        QCOMPARE(bridge.role(), std::string("viewer"));
        QCOMPARE(dragsInTiers(), 0);
        QVERIFY(!pools->view()->dragEnabled());
        QVERIFY2(tiersHint->text().contains(QStringLiteral("(viewer) may look but not move workloads"))
                && tiersHint->text().contains(QStringLiteral("the operator role")),
            qPrintable(tiersHint->text()));
        QVERIFY2(poolsHint->text().contains(QStringLiteral("the operator role")), qPrintable(poolsHint->text()));
        QVERIFY(!pools->newButton()->isEnabled());
        QVERIFY2(
            pools->newButton()->toolTip().contains(QStringLiteral("may not create pools: that needs the admin role")),
            qPrintable(pools->newButton()->toolTip()));

        deliver("viewer"); // the same role again: no change to announce
        QCOMPARE(roleChanged.size(), 1);

        deliver("operator");
        QCOMPARE(roleChanged.size(), 2);
        QCOMPARE(dragsInTiers(), 3);
        QVERIFY(pools->view()->dragEnabled());
        QVERIFY2(tiersHint->text().startsWith(QStringLiteral("Drag a workload")), qPrintable(tiersHint->text()));
        QVERIFY(!pools->newButton()->isEnabled());
        QVERIFY(!pools->editButton()->isEnabled());
        QVERIFY(!pools->deleteButton()->isEnabled());
        QVERIFY2(pools->editButton()->toolTip().contains(QStringLiteral("(operator) may not change pools")),
            qPrintable(pools->editButton()->toolTip()));

        deliver("admin");
        QVERIFY(pools->newButton()->isEnabled());
        QVERIFY(pools->newButton()->toolTip().isEmpty());
        QVERIFY(!pools->editButton()->isEnabled()); // nothing selected
        QCOMPARE(pools->editButton()->toolTip(), QStringLiteral("Select a pool first."));

        // A new pool starts beside the selected one (its line and tier), with the cluster's lines to pick from.
        window.catchUp();
        QModelIndex webRow;
        for (int line = 0; line < pools->proxy()->rowCount() && !webRow.isValid(); ++line) {
            const QModelIndex parent = pools->proxy()->index(line, 0);
            for (int row = 0; row < pools->proxy()->rowCount(parent); ++row)
                if (pools->proxy()->index(row, 0, parent).data().toString() == QStringLiteral("web"))
                    webRow = pools->proxy()->index(row, 0, parent);
        }
        QVERIFY(webRow.isValid());
        pools->view()->setCurrentIndex(webRow);
        QVERIFY(pools->selectedPool() && pools->selectedPool()->name == "web");
        QVERIFY(pools->editButton()->isEnabled() && pools->deleteButton()->isEnabled());
        PoolDialog fresh(nullptr);
        pools->prepareDialog(fresh);
        QCOMPARE(fresh.businessLineEdit()->text(), QStringLiteral("search"));
        QCOMPARE(fresh.tierBox()->currentData().toString(), QStringLiteral("warm"));
        QVERIFY(fresh.nameEdit()->text().isEmpty());
        QVERIFY(fresh.body()["cpuMillis"].is_null()); // quotas stay unlimited
        QVERIFY(fresh.businessLineEdit()->completer());
        auto* offered = qobject_cast<QStringListModel*>(fresh.businessLineEdit()->completer()->model());
        QVERIFY(offered);
        QCOMPARE(offered->stringList(), (QStringList { QStringLiteral("ads"), QStringLiteral("search") }));
        // An edit keeps the pool's own settings.
        PoolDialog edit(pools->selectedPool());
        edit.startLike(PoolRow {});
        QCOMPARE(edit.businessLineEdit()->text(), QStringLiteral("search"));
    }

    // The demo's nodes are simulated: Show output… says there is none, and why.
    void theDemosWorkloadsWriteNoOutput()
    {
        QTemporaryDir dir;
        DemoCoreConfig config;
        config.demo = test::smallDemo(dir);
        CoreBridge bridge;
        DemoCore core(config, bridge.events());
        bridge.setBackend(&core);
        QTRY_VERIFY_WITH_TIMEOUT(bridge.latest() && !bridge.latest()->workloads.empty(), 20'000);
        const WorkloadRow first = bridge.latest()->workloads.front();
        LogsDialog dialog(bridge, first.id, QString::fromStdString(first.name));
        QTRY_VERIFY_WITH_TIMEOUT(dialog.status()->text().contains(QStringLiteral("simulated")), 5'000);
        QCOMPARE(dialog.status()->text(),
            QStringLiteral("No output to show: the demo's nodes are simulated: its workloads run nothing and write no "
                           "output"));
        QVERIFY(dialog.windowTitle().contains(QString::fromStdString(first.name)));
        bridge.setBackend(nullptr);
        core.stop();
    }

    // The demo's core takes the Pools tab's changes too: a pool made, one holding running work refused with the core's
    // words, the made one deleted; each answered once durable, with a snapshot that shows it.
    void poolsAreMadeAndDeletedInTheDemo()
    {
        QTemporaryDir dir;
        const DemoCoreConfig config = busyDemo(dir);
        CoreBridge bridge;
        QSignalSpy changed(&bridge, &CoreBridge::poolChanged);
        DemoCore core(config, bridge.events());
        bridge.setBackend(&core);
        const auto busyPool = [&bridge]() -> std::string {
            if (const SnapshotPtr s = bridge.latest())
                for (const PoolRow& p : s->pools)
                    if (p.workloads > 0 && p.name != "default")
                        return p.name;
            return {};
        };
        QTRY_VERIFY_WITH_TIMEOUT(!busyPool().empty(), 30'000);
        const auto has = [&bridge](const std::string& name) {
            const SnapshotPtr s = bridge.latest();
            return s && std::any_of(s->pools.begin(), s->pools.end(), [&](const PoolRow& p) { return p.name == name; });
        };

        QVERIFY(bridge.changePool(PoolAction::Create, QStringLiteral("scratch"),
                    nlohmann::json { { "name", "scratch" }, { "cpuMillis", 1000 } })
            != 0);
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10'000);
        PoolResult result = changed.takeFirst().at(0).value<PoolResult>();
        QVERIFY2(result.ok, result.message.c_str());
        QVERIFY(has("scratch")); // the snapshot that shows it came first

        const std::string busy = busyPool();
        bridge.changePool(PoolAction::Delete, QString::fromStdString(busy));
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10'000);
        result = changed.takeFirst().at(0).value<PoolResult>();
        QVERIFY(!result.ok);
        QVERIFY2(result.message.find("pool " + busy + " still holds") == 0, result.message.c_str());
        QVERIFY(has(busy));

        bridge.changePool(PoolAction::Delete, QStringLiteral("scratch"));
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10'000);
        result = changed.takeFirst().at(0).value<PoolResult>();
        QVERIFY2(result.ok, result.message.c_str());
        QVERIFY(!has("scratch"));
        bridge.setBackend(nullptr);
        core.stop();
    }

    // The Nodes page takes a node out of service and back, in the demo's core as in tidepoold: a drain cordons the
    // node (by the console's actor, with the reason) and moves its workloads off it; the line under the table says
    // so, and the snapshot shows the cordon and the empty node; uncordoned, it is in service again. A viewer's console
    // has the actions off, saying which role they need.
    void nodesAreDrainedAndUncordonedFromTheNodesPage()
    {
        QTemporaryDir dir;
        NodesPageOnDemo demo(busyDemo(dir));
        CoreBridge& bridge = demo.bridge;
        QSignalSpy& changed = demo.changed;
        DemoCore& core = demo.core;
        MainWindow& window = demo.window;
        const auto nodeRow = [&bridge](const std::string& name) { return nodeRowOf(bridge, name); };
        const auto busiest = [&bridge] { return busiestCpuNode(bridge, 2); };
        QTRY_VERIFY_WITH_TIMEOUT(!busiest().empty(), 30'000);
        const std::string node = busiest();
        const QString qnode = QString::fromStdString(node);
        QLabel* status = window.nodesPage()->findChild<QLabel*>(QStringLiteral("nodeActionStatus"));
        QVERIFY(status);
        NodeActions* actions = window.nodeActions();
        QVERIFY(actions->allowed(NodeAction::Drain, qnode)); // the demo's console is an admin's

        QVERIFY(actions->drain(qnode, QStringLiteral("firmware")) != 0);
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10'000);
        const NodeResult drained = changed.takeFirst().at(0).value<NodeResult>();
        QVERIFY2(drained.ok, drained.message.c_str());
        QCOMPARE(drained.cordon, std::string("by operator:console: firmware"));
        QVERIFY(drained.moved >= 1);
        QVERIFY2(status->text().startsWith(
                     QStringLiteral("Node %1 is cordoned (by operator:console: firmware); ").arg(qnode)),
            qPrintable(status->text()));
        // The snapshot that shows it came first: cordoned, and holding only what stayed.
        QCOMPARE(nodeRow(node)->cordon, drained.cordon);
        QCOMPARE(std::size_t(nodeRow(node)->workloads), drained.stayed.size());
        // The Nodes table shows the cordon in its row.
        QTRY_VERIFY_WITH_TIMEOUT(!window.nodesPage()
                                      ->proxy()
                                      ->match(window.nodesPage()->proxy()->index(0, NodesModel::Cordon),
                                          Qt::DisplayRole, QString::fromStdString(drained.cordon))
                                      .isEmpty(),
            5'000);

        QVERIFY(actions->uncordon(qnode) != 0);
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10'000);
        const NodeResult lifted = changed.takeFirst().at(0).value<NodeResult>();
        QVERIFY2(lifted.ok, lifted.message.c_str());
        QCOMPARE(lifted.lifted, drained.cordon);
        QCOMPARE(nodeRow(node)->cordon, std::string());
        QCOMPARE(status->text(),
            QStringLiteral("Node %1 is uncordoned (it was: %2): new work may land there again.")
                .arg(qnode, QString::fromStdString(drained.cordon)));

        // No such node: the core's words.
        actions->cordon(QStringLiteral("nowhere"), {});
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10'000);
        QVERIFY(!changed.takeFirst().at(0).value<NodeResult>().ok);
        QCOMPARE(status->text(), QStringLiteral("Node nowhere was not changed: no node is named \"nowhere\""));
        bridge.setBackend(nullptr);
        core.stop();

        // A viewer may not; an operator may.
        CoreBridge viewer;
        QTreeView view;
        QLabel line;
        NodeActions viewers(viewer, &view, &line);
        deliverAs(viewer, "viewer", [](ConsoleSnapshot&) {});
        QString why;
        QVERIFY(!viewers.allowed(NodeAction::Cordon, QStringLiteral("n1"), &why));
        QVERIFY2(why.contains(QStringLiteral("needs the operator role")), qPrintable(why));
        deliverAs(viewer, "operator", [](ConsoleSnapshot&) {});
        QVERIFY(viewers.allowed(NodeAction::Drain, QStringLiteral("n1")));
    }

    // A paced drain from the Nodes page: one workload at a time, the line under the table saying how many follow and
    // the node's Cordon cell its progress until the node is empty, in the demo's core (its simulated agents run what is
    // launched, so each moved workload frees the next one's turn).
    void aPacedDrainShowsItsProgressUntilTheNodeIsEmpty()
    {
        QTemporaryDir dir;
        NodesPageOnDemo demo(busyDemo(dir));
        CoreBridge& bridge = demo.bridge;
        QSignalSpy& changed = demo.changed;
        DemoCore& core = demo.core;
        MainWindow& window = demo.window;
        const auto nodeRow = [&bridge](const std::string& name) { return nodeRowOf(bridge, name); };
        const auto busiest = [&bridge] { return busiestCpuNode(bridge, 3); };
        QTRY_VERIFY_WITH_TIMEOUT(!busiest().empty(), 30'000);
        const std::string node = busiest();
        const QString qnode = QString::fromStdString(node);
        QLabel* status = window.nodesPage()->findChild<QLabel*>(QStringLiteral("nodeActionStatus"));
        QVERIFY(status);

        // Through the node's context menu, Drain…, and its two questions: why, and how many at once.
        window.show();
        QTreeView* view = window.nodesPage()->view();
        const QModelIndexList rows = window.nodesPage()->proxy()->match(
            window.nodesPage()->proxy()->index(0, NodesModel::Name), Qt::DisplayRole, qnode, 1, Qt::MatchExactly);
        QCOMPARE(rows.size(), 1);
        int answered = 0;
        QTimer answer;
        answer.setInterval(20);
        connect(&answer, &QTimer::timeout, [&] {
            if (answered == 0) {
                if (auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget()))
                    for (QAction* action : menu->actions())
                        if (action->text() == QStringLiteral("&Drain…") && action->isEnabled()) {
                            menu->setActiveAction(action);
                            QTest::keyClick(menu, Qt::Key_Return);
                            answered = 1;
                        }
            } else if (auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget())) {
                if (answered == 1 && dialog->inputMode() == QInputDialog::TextInput) {
                    dialog->setTextValue(QStringLiteral("bios"));
                    dialog->accept();
                    answered = 2;
                } else if (answered == 2 && dialog->inputMode() == QInputDialog::IntInput) {
                    QCOMPARE(dialog->intValue(), 0); // all at once unless asked otherwise
                    dialog->setIntValue(1);
                    dialog->accept();
                    answered = 3;
                }
            }
        });
        answer.start();
        emit view->customContextMenuRequested(view->visualRect(rows.first()).center());
        QCOMPARE(answered, 3); // the menu and both dialogs ran (and returned) within the emit
        answer.stop();
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10'000);
        const NodeResult drained = changed.takeFirst().at(0).value<NodeResult>();
        QVERIFY2(drained.ok, drained.message.c_str());
        QVERIFY(drained.paced);
        QCOMPARE(drained.moved, std::size_t { 1 });
        QVERIFY(drained.waiting >= 1);
        // (Plural forms come from the translations, which this suite does not install: "workload(s)".)
        QVERIFY2(
            status->text().startsWith(QStringLiteral("Node %1 is cordoned (by operator:console: bios); 1 workload(s) "
                                                     "moved off it now. %2 more follow")
                                          .arg(qnode)
                                          .arg(drained.waiting)),
            qPrintable(status->text()));
        // One at a time whenever a snapshot shows it, until it is over (the demo may get there before a snapshot is
        // seen here: tst_console_models checks the cell's words).
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const auto row = nodeRow(node);
                if (row->drainMaxParallel > 0 && (row->drainMaxParallel != 1 || row->drainMoving > 1))
                    qFatal("a drain with a budget of 1 moved %lld at once", static_cast<long long>(row->drainMoving));
                return row->drainMaxParallel == 0;
            }(),
            60'000);
        QCOMPARE(nodeRow(node)->workloads, 0);
        QCOMPARE(nodeRow(node)->cordon, drained.cordon);
        QTRY_VERIFY_WITH_TIMEOUT(!window.nodesPage()
                                      ->proxy()
                                      ->match(window.nodesPage()->proxy()->index(0, NodesModel::Cordon),
                                          Qt::DisplayRole, QString::fromStdString(drained.cordon))
                                      .isEmpty(),
            5'000);
        bridge.setBackend(nullptr);
        core.stop();
    }

    void approveAndRejectThroughTheConsole()
    {
        QVERIFY(m_dir.isValid());
        DemoCoreConfig config;
        config.demo = test::smallDemo(m_dir);
        // Full speed through the first hours (the first power-down proposals come after an hour of idle nodes; quota
        // shifts after a day of history), then slowly enough that a proposal stays as it is while the test decides it.
        config.fastForwardMs = 90LL * 60 * 1000;
        config.fastForwardPublishSteps = 10;
        config.tick = std::chrono::milliseconds(400);

        CoreBridge bridge;
        MainWindow window(bridge);
        QSignalSpy outcomes(&bridge, &CoreBridge::commandFinished);
        QThread* delivered = nullptr;
        connect(&bridge, &CoreBridge::snapshotChanged, this, [&delivered] { delivered = QThread::currentThread(); });
        auto core = std::make_unique<DemoCore>(config, bridge.events());
        bridge.setBackend(core.get());

        // Snapshots of the real core arrive, on the GUI thread, and reach the models.
        QTRY_VERIFY_WITH_TIMEOUT(bridge.latest() != nullptr, 30'000);
        QCOMPARE(delivered, QThread::currentThread());
        QCOMPARE(bridge.latest()->nodes.size(), std::size_t(12));
        QTRY_COMPARE_WITH_TIMEOUT(window.nodesModel()->rowCount(), 12, 5'000);
        // Proposals come after a day of history.
        QTRY_VERIFY_WITH_TIMEOUT(pending(bridge.latest()).size() >= 1, 120'000);
        const std::int64_t approvedId = pending(bridge.latest()).front();

        // Approve with the Proposals tab's button.
        ProposalsPage* page = window.proposalsPage();
        window.tabs()->setCurrentWidget(page);
        QVERIFY(page->select(approvedId));
        auto* approve = page->findChild<QPushButton*>(QStringLiteral("approveButton"));
        auto* reject = page->findChild<QPushButton*>(QStringLiteral("rejectButton"));
        auto* comment = page->findChild<QLineEdit*>(QStringLiteral("commentEdit"));
        auto* status = page->findChild<QLabel*>(QStringLiteral("decisionStatus"));
        QVERIFY(approve && reject && comment && status);
        // The list says what it holds: the newest closed proposals only, and where the older ones are.
        auto* scope = page->findChild<QLabel*>(QStringLiteral("proposalsScope"));
        QVERIFY(scope && !scope->isHidden());
        QVERIFY2(scope->text().contains(QString::number(kConsoleClosedProposals))
                && scope->text().contains(QStringLiteral("--before")),
            qPrintable(scope->text()));
        QVERIFY(approve->isEnabled());
        QVERIFY2(!reject->isEnabled(), "rejecting needs a comment");
        QTest::keyClicks(comment, QStringLiteral("approved in the console test"));
        QTest::mouseClick(approve, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(outcomes.count(), 1, 20'000);
        const auto approved = outcomes.takeFirst().at(0).value<CommandOutcome>();
        QVERIFY2(approved.ok, approved.message.c_str());
        QCOMPARE(approved.proposalId, approvedId);
        QVERIFY(approved.state != "pending");
        QVERIFY(status->text().contains(QString::number(approvedId)));
        // The rebalancer's state comes back in the next snapshot.
        QTRY_VERIFY_WITH_TIMEOUT(proposal(bridge.latest(), approvedId)->state != "pending", 10'000);
        QCOMPARE(proposal(bridge.latest(), approvedId)->decidedBy, std::string(kConsoleActor));

        // Deciding it again is refused by the core, and the refusal is shown (and audited, checked below).
        QVERIFY(bridge.approve(approvedId, QString()) != 0);
        QTRY_COMPARE_WITH_TIMEOUT(outcomes.count(), 1, 20'000);
        const auto refused = outcomes.takeFirst().at(0).value<CommandOutcome>();
        QVERIFY(!refused.ok);
        QVERIFY(!refused.message.empty());

        // Reject another waiting proposal, with a comment, if the core has one.
        std::int64_t rejectedId = 0;
        for (const std::int64_t id : pending(bridge.latest()))
            rejectedId = id != approvedId ? id : rejectedId;
        if (rejectedId != 0) {
            bridge.reject(rejectedId, QStringLiteral("not during the sale"));
            QTRY_COMPARE_WITH_TIMEOUT(outcomes.count(), 1, 20'000);
            const auto rejected = outcomes.takeFirst().at(0).value<CommandOutcome>();
            QVERIFY2(rejected.ok || rejected.state == "expired", rejected.message.c_str());
            if (!rejected.ok)
                rejectedId = 0; // it expired under us: nothing to check in the store
        }

        qInfo("approved #%lld (%s), rejected #%lld", static_cast<long long>(approvedId), approved.state.c_str(),
            static_cast<long long>(rejectedId));

        // Shut down in order: the core (joined), then the bridge is still there to refuse commands.
        bridge.setBackend(nullptr);
        core->stop();
        QCOMPARE(bridge.approve(approvedId, QString()), quint64(0));
        core->submit(ProposalCommand { 99, approvedId, ui::Decision::Approve, {} });
        QTRY_COMPARE_WITH_TIMEOUT(outcomes.count(), 1, 5'000);
        QVERIFY(!outcomes.takeFirst().at(0).value<CommandOutcome>().ok);
        core.reset();

        // The decisions are in the store, with their audit records.
        auto store = store::openSqliteStore(config.demo.scenario.dbPath);
        QVERIFY2(store, store ? "" : store.error().message.c_str());
        auto loaded = (*store)->load();
        QVERIFY(loaded);
        auto stored = [&loaded](std::int64_t id) -> const store::StoredProposal* {
            for (const auto& p : loaded->proposals)
                if (p.id == id)
                    return &p;
            return nullptr;
        };
        QVERIFY(stored(approvedId));
        QVERIFY(stored(approvedId)->state != "pending");
        QCOMPARE(stored(approvedId)->decidedBy, std::string(kConsoleActor));
        if (rejectedId != 0) {
            QVERIFY(stored(rejectedId));
            QCOMPARE(stored(rejectedId)->state, std::string("rejected"));
            QVERIFY(stored(rejectedId)->detail.find("not during the sale") != std::string::npos);
        }
        auto audit = (*store)->audit(store::AuditQuery {});
        QVERIFY(audit);
        int approvals = 0, refusals = 0, rejections = 0;
        for (const store::AuditEntry& e : *audit) {
            if (e.actor != kConsoleActor || e.target != "proposal/" + std::to_string(approvedId)) {
                rejections += e.action == "proposal.reject" && e.outcome == "ok" ? 1 : 0;
                continue;
            }
            QCOMPARE(e.action, std::string("proposal.approve"));
            if (e.outcome == "ok") {
                ++approvals;
                QCOMPARE(e.detail.value("comment", std::string()), std::string("approved in the console test"));
            } else {
                ++refusals;
            }
        }
        QCOMPARE(approvals, 1);
        QCOMPARE(refusals, 1);
        QCOMPARE(rejections, rejectedId != 0 ? 1 : 0);
    }
};

QTEST_MAIN(TestCoreBridge)
#include "tst_core_bridge.moc"
