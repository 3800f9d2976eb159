// The console's item models over real snapshots of a real core (the demo's simulated fleet through the control plane,
// rebalancer and SQLite store): each under QAbstractItemModelTester while snapshots add, remove and change rows, in
// both directions of time, through an empty snapshot, and with nodes leaving and returning.
#include "core/api/drain_options.h"
#include "core/rebalance/proposal.h"
#include "demo_fixture.h"
#include "ui/bridge/workload_snapshot.h"
#include "ui/labels.h"
#include "ui/models/nodes_model.h"
#include "ui/models/pools_model.h"
#include "ui/models/proposals_model.h"
#include "ui/models/roles.h"
#include "ui/views/proposal_detail.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

#include <map>
#include <set>
#include <tuple>

using namespace tidepool::ui;

Q_DECLARE_METATYPE(std::vector<int>)

class TestConsoleModels : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::vector<SnapshotPtr> m_snapshots; // see initTestCase
    std::int64_t m_decided = 0;

    SnapshotPtr at(int i) const { return i < 0 ? SnapshotPtr {} : m_snapshots[static_cast<std::size_t>(i)]; }

    static void addSequences()
    {
        QTest::addColumn<std::vector<int>>("sequence");
        QTest::newRow("forward in time") << std::vector<int> { 0, 1, 2, 3, 4 };
        QTest::newRow("backward in time") << std::vector<int> { 4, 3, 2, 1, 0 };
        QTest::newRow("nodes, pools and proposals leave and return") << std::vector<int> { 3, 5, 3, 5, 4 };
        QTest::newRow("through an empty snapshot") << std::vector<int> { 2, -1, 3, -1 };
        QTest::newRow("same snapshot twice") << std::vector<int> { 3, 3 };
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        auto started = DemoDriver::start(test::smallDemo(m_dir));
        QVERIFY2(started, started ? "" : started.error().message.c_str());
        DemoDriver& driver = **started;
        // 0: the fleet has just joined; 1: half an hour later (utilisation and placements changed).
        driver.advance();
        m_snapshots.push_back(driver.snapshot());
        for (int i = 0; i < 30; ++i)
            driver.advance();
        m_snapshots.push_back(driver.snapshot());
        // 2: the first proposals, after a day of history.
        while (test::pendingCount(driver.snapshot()) == 0 && !driver.done())
            driver.advance();
        m_snapshots.push_back(driver.snapshot());
        QVERIFY2(test::pendingCount(m_snapshots.back()) > 0, "no proposal in the whole run");
        // 3: one of them approved by the operator (its row changes).
        for (const ProposalRow& p : m_snapshots.back()->proposals)
            if (p.state == "pending" && m_decided == 0)
                m_decided = p.id;
        bool answered = false;
        driver.decide(ProposalCommand { 1, m_decided, Decision::Approve, "fine" },
            [&answered](const CommandOutcome&) { answered = true; });
        driver.advance();
        QVERIFY(answered);
        m_snapshots.push_back(driver.snapshot());
        // 4: two more evaluations: proposals come, go and change.
        for (int i = 0; i < 10; ++i)
            driver.advance();
        m_snapshots.push_back(driver.snapshot());
        // 5: snapshot 3 with every other node, the first pool and the oldest proposal gone.
        auto fewer = std::make_shared<ConsoleSnapshot>(*m_snapshots[3]);
        std::erase_if(fewer->nodes, [](const NodeRow& n) { return n.id % 2 == 1; });
        fewer->pools.erase(fewer->pools.begin());
        fewer->proposals.erase(fewer->proposals.begin());
        m_snapshots.push_back(fewer);
        QCOMPARE(m_snapshots.size(), std::size_t(6));
        QCOMPARE(m_snapshots[0]->nodes.size(), std::size_t(12));
        QVERIFY(m_snapshots[0]->nodes != m_snapshots[1]->nodes);
    }

    void nodes_data() { addSequences(); }
    void nodes()
    {
        QFETCH(std::vector<int>, sequence);
        NodesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        int expectedResets = 0;
        SnapshotPtr shown;
        for (const int i : sequence) {
            const SnapshotPtr next = at(i);
            const bool wasEmpty = !shown || shown->nodes.empty();
            const bool isEmpty = !next || next->nodes.empty();
            expectedResets += (wasEmpty != isEmpty) ? 1 : 0;
            model.setSnapshot(next);
            shown = next;
            const auto& rows = next ? next->nodes : std::vector<NodeRow> {};
            QCOMPARE(model.rowCount(), static_cast<int>(rows.size()));
            for (int r = 0; r < model.rowCount(); ++r) {
                const NodeRow& row = rows[static_cast<std::size_t>(r)];
                QCOMPARE(model.index(r, NodesModel::Name).data().toString(), QString::fromStdString(row.name));
                QCOMPARE(model.index(r, NodesModel::Tier).data().toString(), tierLabel(row.tier));
                QCOMPARE(model.index(r, NodesModel::CpuUsed).data().toString(), percentText(row.cpuUtilisation));
                QCOMPARE(model.index(r, NodesModel::Workloads).data().toInt(), row.workloads);
            }
        }
        // Only a load into an empty model, or an empty snapshot, resets; everything else is a diff.
        QCOMPARE(resets.count(), expectedResets);
    }

    void nodesAnnounceChangedRows()
    {
        NodesModel model;
        model.setSnapshot(at(0));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        model.setSnapshot(at(1));
        QVERIFY(changed.count() > 0);
        QCOMPARE(inserted.count() + removed.count(), 0);
        model.setSnapshot(at(5));
        QVERIFY(removed.count() > 0);
        model.setSnapshot(at(3));
        QVERIFY(inserted.count() > 0);
    }

    // A node with a paced drain under way says so in its Cordon cell, with its progress; its raw text (filters, sort)
    // stays the cordon itself; once the drain is over the cell is the cordon again.
    void aDrainingNodesCordonCellSaysItsProgress()
    {
        auto snapshot = std::make_shared<ConsoleSnapshot>();
        NodeRow row;
        row.id = 0;
        row.name = "warm-1";
        row.state = "ready";
        row.cordon = "by operator:alice: bios";
        row.drainMaxParallel = 2;
        row.drainMoving = 1;
        row.drainMoved = 3;
        snapshot->nodes.push_back(row);
        NodesModel model;
        model.setSnapshot(snapshot);
        QCOMPARE(model.index(0, NodesModel::Cordon).data().toString(),
            QStringLiteral("by operator:alice: bios — draining: 1 moving (at most 2), 3 moved"));
        QCOMPARE(model.index(0, NodesModel::Cordon).data(tidepool::ui::RawTextRole).toString(),
            QStringLiteral("by operator:alice: bios"));
        // An all-at-once drain that a pool's disruption budget turned paced has no pace of its own to show.
        auto held = std::make_shared<ConsoleSnapshot>(*snapshot);
        held->nodes[0].drainMaxParallel = tidepool::api::kMaxDrainParallel;
        model.setSnapshot(held);
        QCOMPARE(model.index(0, NodesModel::Cordon).data().toString(),
            QStringLiteral(
                "by operator:alice: bios — draining: 1 moving (as pools' disruption budgets allow), 3 moved"));
        model.setSnapshot(snapshot);
        auto over = std::make_shared<ConsoleSnapshot>(*snapshot);
        over->nodes[0].drainMaxParallel = 0;
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setSnapshot(over);
        QVERIFY(changed.count() > 0);
        QCOMPARE(model.index(0, NodesModel::Cordon).data().toString(), QStringLiteral("by operator:alice: bios"));
    }

    void proposals_data() { addSequences(); }
    void proposals()
    {
        QFETCH(std::vector<int>, sequence);
        ProposalsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        for (const int i : sequence) {
            const SnapshotPtr next = at(i);
            model.setSnapshot(next);
            const auto& rows = next ? next->proposals : std::vector<ProposalRow> {};
            QCOMPARE(model.rowCount(), static_cast<int>(rows.size()));
            for (int r = 0; r < model.rowCount(); ++r) {
                const ProposalRow& row = rows[static_cast<std::size_t>(r)];
                QCOMPARE(model.index(r, ProposalsModel::Id).data().toLongLong(), row.id);
                QCOMPARE(model.index(r, ProposalsModel::State).data().toString(), proposalStateLabel(row.state));
                QCOMPARE(model.index(r, ProposalsModel::Reason).data().toString(), reasonText(row.why, row.reason));
                QCOMPARE(model.rowOf(row.id), r);
            }
        }
    }

    // A proposal's plan reads as sentences in the detail pane, whatever the action: every step of every proposal the
    // demo's rebalancer made, and one of each kind of action the core writes (a move from device 0 included, which
    // once read as a move off no device), with the amounts in the units the console shows elsewhere.
    void proposalPlansReadAsSentences()
    {
        std::size_t steps = 0;
        for (const SnapshotPtr& snapshot : m_snapshots)
            for (const ProposalRow& row : snapshot->proposals)
                for (const std::string& step : row.plan) {
                    ++steps;
                    const QString text = planStepText(step);
                    QVERIFY2(!text.contains(QLatin1Char('{')) && !text.isEmpty(), qPrintable(text));
                }
        QVERIFY(steps > 0);

        using tidepool::rebalance::Action;
        Action migrate;
        migrate.type = Action::Type::Migrate;
        migrate.workload = 42;
        migrate.from = "g1";
        migrate.target = "g2";
        migrate.fromDevice = 0;
        migrate.device = 1;
        migrate.share = 500;
        Action hold;
        hold.type = Action::Type::HoldDeferrable;
        hold.untilMs = 0;
        const std::vector<std::pair<Action, QString>> cases {
            { Action::setCpuQuota("web", 5500, 4000),
                QStringLiteral("Set pool web's CPU quota from 4.0 cores to 5.5 cores") },
            { Action::takeMemoryQuota("batch", 3072, 9728),
                QStringLiteral("Take 3.0 GiB of pool batch's memory quota (it keeps at least 9.5 GiB)") },
            { Action::setAcceleratorQuota("ml", tidepool::AcceleratorKind::Gpu, 4000, 2000),
                QStringLiteral("Set pool ml's GPU quota from 2000 share units to 4000 share units") },
            { migrate, QStringLiteral("Move workload 42 from node g1 device 0 to node g2 device 1 (share 500)") },
            { Action::onNode(Action::Type::Cordon, "cold-1", "power-down <idle>"),
                QStringLiteral("Cordon node cold-1: power-down <idle>") },
            { Action::onNode(Action::Type::Release, "hot-2"), QStringLiteral("Lend hot node hot-2 to batch") },
            { hold, QStringLiteral("Lift the hold on deferrable batch") },
            { Action::resize(7, "n3", 300, 2000, 1024, 4096),
                QStringLiteral("Resize workload 7 on node n3 in place: CPU 2.0 cores → 0.3 cores, memory 4.0 GiB → "
                               "1.0 GiB") },
        };
        ProposalRow row;
        row.id = 1;
        row.kind = "quota";
        row.state = "pending";
        for (const auto& [action, expected] : cases) {
            const std::string json = tidepool::rebalance::toJson(action).dump();
            QCOMPARE(planStepText(json), expected);
            row.plan.push_back(json);
        }
        // Not an action this console knows, or not JSON at all: shown as it is.
        QCOMPARE(planStepText(R"({"action":"teleport","target":"n1"})"),
            QStringLiteral(R"({"action":"teleport","target":"n1"})"));
        QCOMPARE(planStepText("set quota"), QStringLiteral("set quota"));
        // In the detail pane, each a list item, escaped.
        ProposalDetail detail;
        detail.showProposal(&row);
        QVERIFY2(
            detail.text().contains(QStringLiteral("<li>Set pool web's CPU quota from 4.0 cores to 5.5 cores</li>")),
            qPrintable(detail.text()));
        QVERIFY2(detail.text().contains(QStringLiteral("power-down &lt;idle&gt;")), qPrintable(detail.text()));
        QVERIFY(!detail.text().contains(QStringLiteral("set_cpu_quota")));
    }

    // A proposal's reason is worded from its clauses in the console's units: every proposal the demo's rebalancer made
    // has them, and reads as its English with CPU in cores and memory in GiB; a name is shown as it is (a pool called
    // "%2" is not a placeholder) and escaped in the detail pane. Without clauses (a daemon from before them), with a
    // clause this console does not know, or with an argument it cannot read, the daemon's English is shown.
    void proposalReasonsReadInTheConsolesWords()
    {
        std::size_t worded = 0;
        for (const SnapshotPtr& snapshot : m_snapshots)
            for (const ProposalRow& row : snapshot->proposals) {
                const auto why = nlohmann::json::parse(row.why);
                QVERIFY2(why.is_array() && !why.empty(), row.reason.c_str());
                const QString text = reasonText(row.why, row.reason);
                QVERIFY2(!text.contains(QLatin1Char('{')) && !text.contains(QStringLiteral("%1")), qPrintable(text));
                worded += text != QString::fromStdString(row.reason) ? 1 : 0;
            }
        QVERIFY(worded > 0); // some with amounts the console words its own way

        namespace rb = tidepool::rebalance;
        const rb::Why why { rb::clause("quota-above",
                                { "%2<b>", rb::amountArg(5000, "cpu"), rb::timeArg(0), rb::amountArg(6000, "cpu"), 20,
                                    rb::termArg("memory"), rb::amountArg(4096, "memory") }),
            rb::clause("quota-from-capacity", { rb::amountArg(1500, "gpu") }), rb::clause("power-down") };
        const std::string json = rb::toJson(why).dump();
        const std::string english = rb::english(why);
        QCOMPARE(reasonText(json, english),
            QStringLiteral("pool %2<b> is forecast to need 5.0 cores (p90) around ") + timeText(0)
                + QStringLiteral(", 6.0 cores with 20% headroom, above its memory quota of 4.0 GiB; take 1500 "
                                 "milli-devices of capacity no quota holds; cordon it and power it down"));
        QCOMPARE(reasonText("[]", english), QString::fromStdString(english));
        QCOMPARE(reasonText("not json", english), QString::fromStdString(english));
        const auto unreadable = [&](rb::Clause c) {
            rb::Why changed = why;
            changed.push_back(std::move(c));
            return reasonText(rb::toJson(changed).dump(), english) == QString::fromStdString(english);
        };
        QVERIFY(unreadable(rb::clause("from-a-newer-daemon", { 1 })));
        QVERIFY(unreadable(rb::clause("power-up", { nlohmann::json { { "shape", "unknown" } } })));
        QVERIFY(unreadable(rb::clause("power-up-for-accelerators", { "n1", 2, rb::termArg("qpu") })));
        QVERIFY(unreadable(rb::clause("quota-raise", { rb::amountArg(3, "qubits") })));

        ProposalRow row;
        row.id = 9;
        row.kind = "quota";
        row.state = "pending";
        row.reason = english;
        row.why = json;
        const rb::Why risk { rb::clause("risk-rest-spare", { 15 }) };
        row.sloRisk = rb::english(risk);
        row.sloRiskWhy = rb::toJson(risk).dump();
        ProposalDetail detail;
        detail.showProposal(&row);
        QVERIFY2(detail.text().contains(QStringLiteral("pool %2&lt;b&gt; is forecast to need 5.0 cores")),
            qPrintable(detail.text()));
        QVERIFY2(detail.text().contains(QStringLiteral("the rest holds the forecast peak with 15% to spare")),
            qPrintable(detail.text()));
    }

    void proposalStateChangesInPlace()
    {
        ProposalsModel model;
        model.setSnapshot(at(2));
        const int row = model.rowOf(m_decided);
        QVERIFY(row >= 0);
        QCOMPARE(model.index(row, ProposalsModel::State).data(tidepool::ui::RawTextRole).toString(),
            QStringLiteral("pending"));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        model.setSnapshot(at(3));
        const int after = model.rowOf(m_decided);
        QVERIFY(after >= 0);
        QVERIFY(model.index(after, ProposalsModel::State).data(tidepool::ui::RawTextRole).toString()
            != QStringLiteral("pending"));
        QCOMPARE(model.index(after, ProposalsModel::DecidedBy).data().toString(), QString::fromLatin1(kConsoleActor));
        QVERIFY(changed.count() > 0);
        QCOMPARE(resets.count(), 0);
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
            std::set<std::string> lines;
            std::map<std::string, const PoolRow*> pools;
            if (next)
                for (const PoolRow& p : next->pools) {
                    lines.insert(p.lineOrName());
                    pools[p.name] = &p;
                }
            QCOMPARE(model.rowCount(), static_cast<int>(lines.size()));
            std::size_t seenPools = 0;
            for (int l = 0; l < model.rowCount(); ++l) {
                const QModelIndex line = model.index(l, 0);
                for (int p = 0; p < model.rowCount(line); ++p, ++seenPools) {
                    const QString name = model.index(p, PoolsModel::Name, line).data().toString();
                    const PoolRow* pool = pools.at(name.toStdString());
                    QCOMPARE(
                        model.index(p, PoolsModel::CpuRequested, line).data().toString(), coresText(pool->cpuUsedMillis));
                    QCOMPARE(model.index(p, PoolsModel::Workloads, line).data().toInt(), pool->workloads);
                    const QModelIndex poolIndex = model.index(p, 0, line);
                    QCOMPARE(model.rowCount(poolIndex), static_cast<int>(pool->nodes.size()));
                    for (int n = 0; n < model.rowCount(poolIndex); ++n)
                        QCOMPARE(model.index(n, PoolsModel::Name, poolIndex).data(tidepool::ui::RawTextRole).toString(),
                            QString::fromStdString(pool->nodes[static_cast<std::size_t>(n)].node));
                }
            }
            QCOMPARE(seenPools, pools.size());
        }
    }

    void poolsDiffNodesWithoutReset()
    {
        // While the pools stay, their nodes come and go as rows of their own; only a pool that goes resets.
        PoolsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(at(0));
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        for (const int i : { 1, 2, 4, 1, 0 })
            model.setSnapshot(at(i));
        QCOMPARE(resets.count(), 0);
        QVERIFY(inserted.count() > 0);
        QVERIFY(removed.count() > 0);
        QVERIFY(changed.count() > 0);
        model.setSnapshot(at(5));
        QCOMPARE(resets.count(), 1);
    }

    void poolsShowTheirAcceleratorQuotas()
    {
        // A pool's accelerator quotas are in the tooltip of its Accelerators cell; a pool without one has none.
        auto snapshot = std::make_shared<ConsoleSnapshot>(*at(1));
        QVERIFY(snapshot->pools.size() >= 2);
        PoolRow& limited = snapshot->pools[0];
        limited.acceleratorQuotaShare = { 2000, -1, 0 };
        limited.acceleratorUsedShare = { 1500, 0, 0 };
        PoolsModel model;
        model.setSnapshot(snapshot);
        std::map<std::string, QString> tips;
        for (int l = 0; l < model.rowCount(); ++l) {
            const QModelIndex line = model.index(l, 0);
            for (int p = 0; p < model.rowCount(line); ++p)
                tips[model.index(p, PoolsModel::Name, line).data().toString().toStdString()]
                    = model.index(p, PoolsModel::Accelerators, line).data(Qt::ToolTipRole).toString();
        }
        QCOMPARE(tips.size(), snapshot->pools.size());
        QCOMPARE(tips.at(limited.name),
            QStringLiteral("Accelerator quota: gpu 1500 of 2000 share units, fpga 0 of 0 share units"));
        QCOMPARE(tips.at(snapshot->pools[1].name), QString());
    }

    void poolsSayTheirDisruptionBudgets()
    {
        // The Workloads cell's tooltip: no budget, a number, a percentage with what it lets move now, none at all.
        PoolRow pool;
        QCOMPARE(PoolsModel::disruptionTip(pool),
            QStringLiteral(
                "No disruption budget: drains and approved migrations move any number of its workloads at once."));
        pool.maxDisrupted = 2;
        pool.disrupted = 1;
        QCOMPARE(PoolsModel::disruptionTip(pool),
            QStringLiteral("Disruption budget: at most 2 of its workloads moved by drains and approved migrations at "
                           "once, until each runs again (1 moving now)."));
        pool.maxDisruptedPercent = 25;
        pool.maxDisrupted = 1;
        QCOMPARE(PoolsModel::disruptionTip(pool),
            QStringLiteral("Disruption budget: 25% of its workloads, rounded up; at most 1 of them moved by drains and "
                           "approved migrations at once now, until each runs again (1 moving now)."));
        pool.maxDisruptedPercent = 0;
        pool.maxDisrupted = 0;
        QVERIFY(PoolsModel::disruptionTip(pool).startsWith(QStringLiteral("Disruption budget 0:")));
    }

    void poolsShowWhereWorkRuns()
    {
        // Half an hour in, the services' pools hold replicas on warm nodes and the tree shows them under their pool.
        PoolsModel model;
        model.setSnapshot(at(1));
        int nodeRows = 0;
        for (int l = 0; l < model.rowCount(); ++l)
            for (int p = 0; p < model.rowCount(model.index(l, 0)); ++p)
                nodeRows += model.rowCount(model.index(p, 0, model.index(l, 0)));
        QVERIFY(nodeRows > 0);
    }

    // Where a node's agent shapes its link, each pool's class says what the pool sent: split among the pool's
    // workloads there by their network requests, summed to the node and the pool, and shown against the request, the
    // pool's guarantee on the node and its quota. Where no agent shapes, traffic is not told apart by pool: "—".
    void poolsShowMeasuredNetworkWhereLinksAreShaped()
    {
        std::vector<WorkloadRow> rows(4);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            rows[i].id = static_cast<std::int64_t>(i + 1);
            rows[i].name = "w" + std::to_string(i + 1);
            rows[i].poolId = i < 3 ? 0 : 1;
            rows[i].pool = i < 3 ? "web" : "batch";
            rows[i].phase = "running";
            rows[i].nodeId = i < 2 || i == 3 ? 0 : 1;
            rows[i].node = rows[i].nodeId == 0 ? "shaped" : "plain";
        }
        rows[0].netBandwidthMbps = 100;
        rows[1].netBandwidthMbps = 300;
        rows[2].netBandwidthMbps = 50;
        rows[3].netBandwidthMbps = 10;
        // web sent 80 Mbit/s on the shaped node; batch, idle there, was left out; the plain node measures no traffic.
        applyPoolMeasurements(rows,
            { { { "shaped", "web" }, MeasuredOnNode { 500, 100, 80.0 } },
                { { "plain", "web" }, MeasuredOnNode { 200, 50, -1.0 } } });
        QCOMPARE(rows[0].netUsedMbps, 20.0);
        QCOMPARE(rows[1].netUsedMbps, 60.0);
        QCOMPARE(rows[2].netUsedMbps, -1.0);
        QCOMPARE(rows[3].netUsedMbps, 0.0);

        auto snapshot = std::make_shared<ConsoleSnapshot>();
        snapshot->sequence = 1;
        snapshot->workloads = rows;
        for (const auto& [id, name, quota] :
            { std::tuple { 0, "web", std::int64_t { 400 } }, std::tuple { 1, "batch", std::int64_t { -1 } } }) {
            PoolRow pool;
            pool.id = id;
            pool.name = name;
            pool.netBandwidthQuotaMbps = quota;
            for (const char* node : { "plain", "shaped" }) {
                PoolNodeRow onNode;
                onNode.node = node;
                for (std::size_t r = 0; r < rows.size(); ++r)
                    if (rows[r].poolId == id && rows[r].node == node)
                        addToFootprint(onNode, rows[r], r);
                if (onNode.workloads > 0) {
                    addToPoolTotals(pool, onNode);
                    pool.nodes.push_back(onNode);
                }
            }
            snapshot->pools.push_back(pool);
        }
        QCOMPARE(snapshot->pools[0].netMeasuredMbps, 80.0);
        QCOMPARE(snapshot->pools[1].netMeasuredMbps, 0.0);

        PoolsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(snapshot);
        std::map<std::string, QModelIndex> pools;
        for (int l = 0; l < model.rowCount(); ++l)
            for (int p = 0; p < model.rowCount(model.index(l, 0)); ++p) {
                const QModelIndex pool = model.index(p, 0, model.index(l, 0));
                pools[pool.data().toString().toStdString()] = pool;
            }
        QCOMPARE(pools.size(), std::size_t { 2 });
        const QModelIndex web = pools.at("web");
        const auto cell = [&](const QModelIndex& row, int role) {
            return model.index(row.row(), PoolsModel::NetworkUsed, row.parent()).data(role);
        };
        QCOMPARE(cell(web, Qt::DisplayRole).toString(), QStringLiteral("80.0 Mb/s"));
        QCOMPARE(cell(web, ShareRole).toDouble(), 0.2); // of its 400 Mbit/s quota
        std::map<std::string, QModelIndex> nodes;
        for (int n = 0; n < model.rowCount(web); ++n)
            nodes[model.index(n, 0, web).data(RawTextRole).toString().toStdString()] = model.index(n, 0, web);
        QCOMPARE(cell(nodes.at("shaped"), Qt::DisplayRole).toString(), QStringLiteral("80.0 Mb/s"));
        QCOMPARE(cell(nodes.at("shaped"), ShareRole).toDouble(), 0.2); // of the 400 its workloads there asked for
        QCOMPARE(cell(nodes.at("plain"), Qt::DisplayRole).toString(), QStringLiteral("—"));
        QCOMPARE(cell(nodes.at("plain"), ShareRole).toDouble(), -1.0);
        std::map<std::string, QModelIndex> workloads;
        for (int w = 0; w < model.rowCount(nodes.at("shaped")); ++w)
            workloads[model.index(w, 0, nodes.at("shaped")).data().toString().toStdString()]
                = model.index(w, 0, nodes.at("shaped"));
        QCOMPARE(cell(workloads.at("w2"), Qt::DisplayRole).toString(), QStringLiteral("60.0 Mb/s"));
        QCOMPARE(cell(workloads.at("w2"), ShareRole).toDouble(), 0.2); // of its 300
        QCOMPARE(cell(pools.at("batch"), Qt::DisplayRole).toString(), QStringLiteral("0.0 Mb/s"));
        QCOMPARE(cell(pools.at("batch"), ShareRole).toDouble(), -1.0); // no quota to measure against
        QVERIFY(model.headerData(PoolsModel::NetworkUsed, Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("shapes its link")));
    }
};

QTEST_MAIN(TestConsoleModels)
#include "tst_console_models.moc"
