// The console's single-box mode (`tidepool` alone): the real core in-process (`EmbeddedBackend` over `api::CoreHost`,
// as tidepoold composes it) with a database seeded with a week of history, agents joining from a real
// `tidepool-fleet` on the agent port with the join token, and its HTTP API on a local port. It protects: the cluster
// starts empty and the joined nodes appear in the snapshot; the rebalancer's proposals are approved in the console as
// `operator:console`, answered once durable and audited in the database; the API serves the same core to another
// console (a `RemoteBackend`); a workload dropped on another pool in the console's Pools tree moves there (the next
// snapshot shows it under that pool), and one the pool's quota cannot hold is refused with the reason shown; pools are
// made, changed and deleted from the Pools tab, as the console's, and through the API by another console; a core
// that cannot bind its agent port, or whose database another core holds, is a clear failure. QT_QPA_PLATFORM=offscreen;
// no mocks.

#include "core/api/daemon_config.h"
#include "daemon_fixture.h"
#include "ui/bridge/core_bridge.h"
#include "ui/bridge/embedded_backend.h"
#include "ui/bridge/proposal_decision.h"
#include "ui/bridge/remote_backend.h"
#include "ui/models/pools_model.h"
#include "ui/models/roles.h"
#include "ui/move_text.h"
#include "ui/views/main_window.h"
#include "ui/views/pool_dialog.h"
#include "ui/views/pools_page.h"
#include "ui/views/resize_dialog.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTreeView>

#include <memory>

using namespace tidepool;
using namespace tidepool::ui;
using fixture::json;

namespace {

constexpr int kNodes = 3;

int readyNodes(const SnapshotPtr& snapshot)
{
    if (!snapshot)
        return 0;
    return static_cast<int>(std::count_if(
        snapshot->nodes.begin(), snapshot->nodes.end(), [](const NodeRow& n) { return n.state == "ready"; }));
}

const ProposalRow* pendingRaise(const SnapshotPtr& snapshot, const std::string& key)
{
    if (!snapshot)
        return nullptr;
    for (const ProposalRow& p : snapshot->proposals)
        if (p.subject == key && p.state == "pending")
            return &p;
    return nullptr;
}

// The row of `rows` named `name`; null when none is.
template <typename Row> const Row* named(const std::vector<Row>& rows, const std::string& name)
{
    const auto it = std::find_if(rows.begin(), rows.end(), [&name](const Row& r) { return r.name == name; });
    return it == rows.end() ? nullptr : &*it;
}

const PoolRow* poolNamed(const SnapshotPtr& snapshot, const std::string& name)
{
    return snapshot ? named(snapshot->pools, name) : nullptr;
}

const WorkloadRow* workloadNamed(const SnapshotPtr& snapshot, const std::string& name)
{
    return snapshot ? named(snapshot->workloads, name) : nullptr;
}

// The Pools tree's row of pool `pool`, or of workload `workload` under it (on any of its nodes); invalid when absent.
QModelIndex poolsRow(const PoolsModel& model, const QString& pool, const QString& workload = {})
{
    for (int l = 0; l < model.rowCount(); ++l) {
        const QModelIndex line = model.index(l, 0);
        for (int p = 0; p < model.rowCount(line); ++p) {
            const QModelIndex poolRow = model.index(p, 0, line);
            if (poolRow.data(RawTextRole).toString() != pool)
                continue;
            if (workload.isEmpty())
                return poolRow;
            for (int n = 0; n < model.rowCount(poolRow); ++n)
                for (int w = 0; w < model.rowCount(model.index(n, 0, poolRow)); ++w)
                    if (const QModelIndex row = model.index(w, 0, model.index(n, 0, poolRow));
                        row.data(RawTextRole).toString() == workload)
                        return row;
        }
    }
    return {};
}

// Drops the Pools tree's row of `workload` (in pool `from`) on pool `to`'s row, as the view does.
bool dropOnPool(PoolsModel& model, const QString& workload, const QString& from, const QString& to)
{
    const QModelIndex row = poolsRow(model, from, workload);
    const QModelIndex target = poolsRow(model, to);
    if (!row.isValid() || !target.isValid())
        return false;
    std::unique_ptr<QMimeData> data(model.mimeData({ row }));
    return data && model.dropMimeData(data.get(), Qt::MoveAction, -1, -1, target);
}

} // namespace

class TestEmbeddedBackend : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void agentsJoinAndProposalsAreDecidedInTheConsole();
    void aDropOnAnotherPoolMovesTheWorkloadOrSaysWhyNot();
    void poolsAreMadeChangedAndDeletedInTheConsole();
    void busyAgentPortIsAClearFailure();
    void aDatabaseInUseIsAClearFailure();

private:
    Expected<api::DaemonConfig> coreConfig(const QString& db, const QString& agentListen, bool api) const;
    // The embedded core on `db` with its API, publishing every 200 ms to `bridge` (attached); null, saying why, when
    // its settings are refused.
    std::unique_ptr<EmbeddedBackend> startEmbedded(CoreBridge& bridge, const QString& db) const;
    // Another console on the embedded core's API (a `RemoteBackend` polling every 200 ms with the operator token),
    // attached to `bridge`.
    std::unique_ptr<RemoteBackend> attachRemote(CoreBridge& bridge, std::uint16_t apiPort) const;

    QTemporaryDir m_dir;
    QString m_token;
    QString m_tokenFile;
    QString m_joinFile;
    std::unique_ptr<QProcess> m_fleet;
};

// The core's settings as `tidepool` makes them (app/tidepool/modes.cpp): the daemon's parser over the console's
// options, with fast heartbeats and an evaluation every second.
Expected<api::DaemonConfig> TestEmbeddedBackend::coreConfig(
    const QString& db, const QString& agentListen, bool api) const
{
    std::vector<std::string> args { "tidepool", "--agent-listen", agentListen.toStdString(), "--db", db.toStdString(),
        "--join-token-file", m_joinFile.toStdString(), "--api-listen", api ? "127.0.0.1:0" : "",
        "--heartbeat-interval-ms", "200", "--suspect-after-ms", "1000", "--lost-after-ms", "2000",
        "--evaluation-period-ms", "1000" };
    if (api)
        args.insert(args.end(), { "--operator-token-file", m_tokenFile.toStdString() });
    std::vector<const char*> argv;
    for (const std::string& a : args)
        argv.push_back(a.c_str());
    return api::parseDaemonConfig(static_cast<int>(argv.size()), argv.data());
}

void TestEmbeddedBackend::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFile::exists(fixture::binary("tidepool-fleet")), qPrintable(fixture::binary("tidepool-fleet")));
    m_token = fixture::randomToken();
    m_tokenFile = fixture::writeFile(m_dir.filePath(QStringLiteral("operator.token")), m_token.toUtf8() + '\n');
    m_joinFile
        = fixture::writeFile(m_dir.filePath(QStringLiteral("join.token")), fixture::randomToken().toUtf8() + '\n');
}

void TestEmbeddedBackend::cleanupTestCase()
{
    fixture::stopProcess(m_fleet.get());
}

std::unique_ptr<EmbeddedBackend> TestEmbeddedBackend::startEmbedded(CoreBridge& bridge, const QString& db) const
{
    auto config = coreConfig(db, QStringLiteral("127.0.0.1:0"), true);
    if (!config) {
        qWarning("%s", config.error().message.c_str());
        return nullptr;
    }
    EmbeddedConfig embedded;
    embedded.core = std::move(*config);
    embedded.publishInterval = std::chrono::milliseconds(200);
    auto backend = std::make_unique<EmbeddedBackend>(std::move(embedded), bridge.events());
    bridge.setBackend(backend.get());
    return backend;
}

std::unique_ptr<RemoteBackend> TestEmbeddedBackend::attachRemote(CoreBridge& bridge, std::uint16_t apiPort) const
{
    RemoteConfig remote;
    remote.endpoint = *parseConnectUrl("127.0.0.1:" + std::to_string(apiPort));
    remote.token = m_token.toStdString();
    remote.pollInterval = std::chrono::milliseconds(200);
    auto attached = std::make_unique<RemoteBackend>(remote, bridge.events());
    bridge.setBackend(attached.get());
    return attached;
}

void TestEmbeddedBackend::agentsJoinAndProposalsAreDecidedInTheConsole()
{
    const QString db = m_dir.filePath(QStringLiteral("embedded.db"));
    fixture::seedWeekOfHistory(db.toStdString());
    if (QTest::currentTestFailed())
        return;
    CoreBridge bridge;
    QStringList failures;
    connect(&bridge, &CoreBridge::coreFailed, this, [&failures](const QString& m) { failures << m; });
    auto backend = startEmbedded(bridge, db);
    QVERIFY(backend);

    // An empty cluster (the seeded pools, no node) until agents join.
    QTRY_VERIFY_WITH_TIMEOUT(bridge.latest() && backend->agentPort() != 0, 10'000);
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
    QCOMPARE(bridge.latest()->source, std::string("embedded"));
    QVERIFY(bridge.latest()->nodes.empty());
    QVERIFY(backend->apiPort() != 0);

    m_fleet = std::make_unique<QProcess>();
    QVERIFY(fixture::startFleet(
        *m_fleet, backend->agentPort(), m_joinFile, kNodes, m_dir.filePath(QStringLiteral("fleet.log"))));
    QTRY_COMPARE_WITH_TIMEOUT(readyNodes(bridge.latest()), kNodes, 30'000);
    const SnapshotPtr joined = bridge.latest();
    QCOMPARE(joined->overview.tiers.size(), std::size_t { 3 });
    for (const NodeRow& n : joined->nodes) {
        QVERIFY2(QString::fromStdString(n.name).startsWith(QStringLiteral("fleet-")), n.name.c_str());
        QVERIFY(n.cpuMillis > 0);
    }
    QVERIFY(
        std::any_of(joined->pools.begin(), joined->pools.end(), [](const PoolRow& p) { return p.name == "web-0"; }));

    // The same core through its API, in another console.
    CoreBridge other;
    auto attached = attachRemote(other, backend->apiPort());
    QTRY_COMPARE_WITH_TIMEOUT(readyNodes(other.latest()), kNodes, 10'000);

    // Show output… asks the core, on its thread, which asks the workload's agent: for an id it does not know, its
    // words.
    QSignalSpy logs(&bridge, &CoreBridge::logsRead);
    const quint64 asked = bridge.readLogs(424'242, true);
    QTRY_COMPARE_WITH_TIMEOUT(logs.size(), 1, 5'000);
    const auto read = logs.takeFirst().at(0).value<LogsResult>();
    QCOMPARE(read.requestId, asked);
    QVERIFY(!read.ok && read.stderrStream);
    QCOMPARE(read.message, std::string("no workload has id 424242"));
    for (std::size_t i = 0; i < kNodes; ++i)
        QCOMPARE(other.latest()->nodes[i].name, joined->nodes[i].name);

    // The rebalancer (every second here) proposes raising web-0's quota; the console approves it.
    // An evaluation every second may supersede the proposal just read with an updated one: then the newest is approved.
    QSignalSpy finished(&bridge, &CoreBridge::commandFinished);
    std::int64_t id = 0;
    CommandOutcome outcome;
    for (int attempt = 0; attempt < 5 && !outcome.ok; ++attempt) {
        QTRY_VERIFY_WITH_TIMEOUT(pendingRaise(bridge.latest(), "quota:web-0"), 30'000);
        id = pendingRaise(bridge.latest(), "quota:web-0")->id;
        bridge.approve(id, QStringLiteral("approved in the embedded console"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10'000);
        outcome = finished.takeFirst().at(0).value<CommandOutcome>();
        if (!outcome.ok)
            qInfo("proposal %lld: %s", static_cast<long long>(id), outcome.message.c_str());
    }
    QVERIFY2(outcome.ok, outcome.message.c_str());
    QCOMPARE(outcome.state, std::string("applied"));
    const auto decided = std::find_if(bridge.latest()->proposals.begin(), bridge.latest()->proposals.end(),
        [id](const ProposalRow& p) { return p.id == id; });
    QVERIFY(decided != bridge.latest()->proposals.end());
    QCOMPARE(decided->decidedBy, std::string(kConsoleActor));
    // The remote console sees the embedded console's decision.
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(other.latest()->proposals.begin(), other.latest()->proposals.end(),
                                 [id](const ProposalRow& p) { return p.id == id && p.state == "applied"; }),
        5'000);

    other.setBackend(nullptr);
    attached->stop();
    bridge.setBackend(nullptr);
    backend->stop();
    backend->stop(); // idempotent
    fixture::stopProcess(m_fleet.get());

    // The database, reopened, holds the decision and its audit entry.
    auto store = store::openSqliteStore(db.toStdString());
    QVERIFY(store);
    auto audit = (*store)->audit(store::AuditQuery {});
    QVERIFY(audit);
    const auto entry = std::find_if(audit->begin(), audit->end(), [id](const store::AuditEntry& e) {
        return e.actor == kConsoleActor && e.target == "proposal/" + std::to_string(id);
    });
    QVERIFY(entry != audit->end());
    QCOMPARE(entry->action, std::string("proposal.approve"));
    QCOMPARE(entry->outcome, std::string("ok"));
    QCOMPARE(entry->detail.value("comment", std::string()), std::string("approved in the embedded console"));
}

// The Pools tab over the embedded core: a workload of pool "batch" dropped on pool "web-1" moves there (the core picks
// the node; the next snapshot and the tree show it under web-1), and one asking for more CPU than web-0's quota (4000
// mCPU) dropped on web-0 is refused, the page saying why, and stays where it was.
void TestEmbeddedBackend::aDropOnAnotherPoolMovesTheWorkloadOrSaysWhyNot()
{
    const QString db = m_dir.filePath(QStringLiteral("pools.db"));
    fixture::seedWeekOfHistory(db.toStdString());
    if (QTest::currentTestFailed())
        return;
    CoreBridge bridge;
    auto backend = startEmbedded(bridge, db);
    QVERIFY(backend);
    MainWindow window(bridge);
    PoolsModel& pools = *window.poolsModel();
    auto* page = qobject_cast<PoolsPage*>(window.poolsPage());
    QVERIFY(page);
    QTRY_VERIFY_WITH_TIMEOUT(bridge.latest() && backend->agentPort() != 0 && backend->apiPort() != 0, 10'000);
    QProcess fleet;
    QVERIFY(fixture::startFleet(
        fleet, backend->agentPort(), m_joinFile, kNodes, m_dir.filePath(QStringLiteral("pools-fleet.log"))));
    QTRY_COMPARE_WITH_TIMEOUT(readyNodes(bridge.latest()), kNodes, 30'000);

    const std::string token = m_token.toStdString();
    for (const auto& [name, cpu] : { std::pair { "etl-small", 500 }, std::pair { "etl-big", 6000 } }) {
        int status = 0;
        const json submitted = fixture::call(backend->apiPort(), token, api::HttpMethod::Post, "/v1/workloads",
            json { { "name", name }, { "pool", "batch" }, { "cpuMillis", cpu }, { "memoryMiB", 256 } }.dump(), &status);
        QVERIFY2(status == 201, submitted.dump().c_str());
    }
    auto placedIn = [&bridge](const std::string& name, const std::string& pool) {
        const WorkloadRow* w = workloadNamed(bridge.latest(), name);
        return w && w->pool == pool && w->nodeId >= 0;
    };
    QTRY_VERIFY_WITH_TIMEOUT(placedIn("etl-small", "batch") && placedIn("etl-big", "batch"), 15'000);
    window.catchUp();
    QVERIFY(poolsRow(pools, QStringLiteral("batch"), QStringLiteral("etl-small")).isValid());

    // Onto web-1: moved, and shown under web-1 once the next snapshot comes.
    QSignalSpy moved(&bridge, &CoreBridge::moveFinished);
    QVERIFY(dropOnPool(pools, QStringLiteral("etl-small"), QStringLiteral("batch"), QStringLiteral("web-1")));
    QTRY_COMPARE_WITH_TIMEOUT(moved.size(), 1, 10'000);
    MoveResult result = moved.takeFirst().at(0).value<MoveResult>();
    QVERIFY2(result.ok, result.message.c_str());
    QCOMPARE(result.pool, std::string("web-1"));
    QVERIFY(!result.node.empty());
    QCOMPARE(page->message()->text(), moveResultText(result));
    QVERIFY(page->message()->isVisibleTo(page));
    QTRY_VERIFY_WITH_TIMEOUT(placedIn("etl-small", "web-1"), 5'000);
    QCOMPARE(workloadNamed(bridge.latest(), "etl-small")->node, result.node);
    window.catchUp();
    QTRY_VERIFY_WITH_TIMEOUT(poolsRow(pools, QStringLiteral("web-1"), QStringLiteral("etl-small")).isValid(), 5'000);
    QVERIFY(!poolsRow(pools, QStringLiteral("batch"), QStringLiteral("etl-small")).isValid());

    // Onto web-0, whose quota cannot hold 6000 mCPU: refused, the reason on the page, nothing moved.
    QVERIFY(dropOnPool(pools, QStringLiteral("etl-big"), QStringLiteral("batch"), QStringLiteral("web-0")));
    QTRY_COMPARE_WITH_TIMEOUT(moved.size(), 1, 10'000);
    result = moved.takeFirst().at(0).value<MoveResult>();
    QVERIFY(!result.ok);
    QCOMPARE(result.refusal, std::string("pool_quota"));
    QCOMPARE(result.pool, std::string("web-0"));
    QVERIFY2(result.message.find("CPU: it asks for 6000 millicores") != std::string::npos, result.message.c_str());
    const QString shown = page->message()->text();
    QCOMPARE(shown, moveResultText(result));
    QVERIFY2(
        shown.contains(QStringLiteral("web-0")) && shown.contains(QStringLiteral("2000 short")), qPrintable(shown));
    QVERIFY(page->message()->property("refused").toBool());
    QVERIFY(placedIn("etl-big", "batch"));

    // Resize…: the dialog, filled in with what it asks for, resizes etl-small in place on its node and closes; one
    // its node has no room for stays open, saying why.
    QTRY_VERIFY_WITH_TIMEOUT(workloadNamed(bridge.latest(), "etl-small")->phase == "running", 10'000);
    // Measured by its agent (tidepool-fleet: 30% of its CPU, half its memory): the dialog says what right-sizing
    // would size it from.
    QTRY_VERIFY_WITH_TIMEOUT(workloadNamed(bridge.latest(), "etl-small")->peakCpuMillis >= 0, 10'000);
    const WorkloadRow small = *workloadNamed(bridge.latest(), "etl-small");
    QCOMPARE(small.peakCpuMillis, std::int64_t { 150 });
    QCOMPARE(small.peakMemoryMiB, std::int64_t { 128 });
    QVERIFY2(small.cpuP90Millis >= 150 && small.cpuP90Millis < 160, std::to_string(small.cpuP90Millis).c_str());
    ResizeDialog resize(bridge, small);
    const auto* measured = resize.findChild<QLabel*>(QStringLiteral("measuredUse"));
    QVERIFY(measured);
    QVERIFY2(measured->text().contains(QStringLiteral("Measured over "))
            && measured->text().contains(QStringLiteral("0.2 cores at the 90th percentile, 0.1 cores at most"))
            && measured->text().contains(QStringLiteral("memory 0.1 GiB at most")),
        qPrintable(measured->text()));
    QCOMPARE(resize.cpuBox()->value(), 0.5);
    QCOMPARE(resize.memoryBox()->value(), 256);
    QCOMPARE(resize.memoryLimitBox()->text(), QStringLiteral("none"));
    resize.cpuBox()->setValue(0.25);
    resize.memoryLimitBox()->setValue(512);
    resize.show();
    resize.accept();
    QVERIFY(resize.pendingRequest() != 0);
    QTRY_VERIFY_WITH_TIMEOUT(resize.result() == QDialog::Accepted && !resize.isVisible(), 10'000);
    QTRY_VERIFY_WITH_TIMEOUT(workloadNamed(bridge.latest(), "etl-small")->cpuMillis == 250, 5'000);
    const WorkloadRow resized = *workloadNamed(bridge.latest(), "etl-small");
    QCOMPARE(resized.memoryLimitMiB, std::int64_t { 512 });
    QCOMPARE(resized.node, small.node); // in place
    int auditStatus = 0;
    const json audit
        = fixture::call(backend->apiPort(), token, api::HttpMethod::Get, "/v1/audit?limit=20", {}, &auditStatus);
    bool audited = false;
    for (const json& e : audit.value("entries", json::array()))
        audited = audited
            || (e.value("action", std::string()) == "workload.resize" && e.value("outcome", std::string()) == "ok"
                && e.value("actor", std::string()) == "operator:console");
    QVERIFY2(audited, audit.dump().c_str());
    ResizeDialog tooBig(bridge, *workloadNamed(bridge.latest(), "etl-big"));
    tooBig.cpuBox()->setValue(900.0);
    tooBig.show();
    tooBig.accept();
    QTRY_VERIFY_WITH_TIMEOUT(tooBig.pendingRequest() == 0, 10'000);
    QVERIFY(tooBig.isVisible());
    QVERIFY2(tooBig.messageLabel()->text().startsWith(QStringLiteral("Not resized: ")),
        qPrintable(tooBig.messageLabel()->text()));
    QVERIFY2(tooBig.messageLabel()->text().contains(QStringLiteral("has no room for it")),
        qPrintable(tooBig.messageLabel()->text()));
    QCOMPARE(workloadNamed(bridge.latest(), "etl-big")->cpuMillis, std::int64_t { 6000 });

    bridge.setBackend(nullptr);
    backend->stop();
    fixture::stopProcess(&fleet);
}

// The Pools tab's New, Edit and Delete over the embedded core: a pool made in the dialog (a business line, a tier, a
// CPU quota of 2.5 cores and no GPU) appears in the snapshot as set; edited back to unlimited CPU and no business line,
// it changes; a name the API refuses is refused with the API's words; deleted, it goes; the default pool cannot be
// deleted from the page; each change is audited as the console's. Another console, through the core's API (a
// `RemoteBackend`), makes a pool too.
void TestEmbeddedBackend::poolsAreMadeChangedAndDeletedInTheConsole()
{
    const QString db = m_dir.filePath(QStringLiteral("pool-admin.db"));
    CoreBridge bridge;
    auto backend = startEmbedded(bridge, db);
    QVERIFY(backend);
    MainWindow window(bridge);
    auto* page = qobject_cast<PoolsPage*>(window.poolsPage());
    QVERIFY(page);
    QTRY_VERIFY_WITH_TIMEOUT(bridge.latest() && backend->apiPort() != 0, 10'000);
    QSignalSpy changed(&bridge, &CoreBridge::poolChanged);
    const auto answer = [&]() -> PoolResult {
        if (!QTest::qWaitFor([&] { return !changed.isEmpty(); }, 10'000))
            return PoolResult { 0, PoolAction::Invalid, {}, false, "no answer within 10 s" };
        return changed.takeFirst().at(0).value<PoolResult>();
    };

    PoolDialog fresh(nullptr);
    fresh.nameEdit()->setText(QStringLiteral("reports"));
    fresh.businessLineEdit()->setText(QStringLiteral("finance"));
    fresh.tierBox()->setCurrentIndex(fresh.tierBox()->findData(QStringLiteral("warm")));
    fresh.cpuBox()->setValue(2.5);
    fresh.acceleratorBox(0)->setValue(0); // no GPU at all
    fresh.ioWeightBox()->setValue(300);
    QVERIFY(fresh.body()["maxDisrupted"].is_null()); // no budget unless one is set
    fresh.disruptionBudgetBox()->setValue(2);
    const nlohmann::json body = fresh.body();
    QCOMPARE(body.value("maxDisrupted", -1), 2);
    QCOMPARE(body.value("cpuMillis", 0), 2500);
    QVERIFY(body["memoryMiB"].is_null()); // unlimited
    QCOMPARE(body["acceleratorQuota"].value("gpu", -1), 0);
    QVERIFY(body["acceleratorQuota"]["npu"].is_null());
    QVERIFY(page->changePool(PoolAction::Create, fresh.poolName(), body) != 0);
    PoolResult result = answer();
    QVERIFY2(result.ok, result.message.c_str());
    QCOMPARE(page->message()->text(), QStringLiteral("Pool reports created."));
    QTRY_VERIFY_WITH_TIMEOUT(poolNamed(bridge.latest(), "reports"), 5'000);
    const PoolRow made = *poolNamed(bridge.latest(), "reports");
    QCOMPARE(made.businessLine, std::string("finance"));
    QCOMPARE(made.tier, std::string("warm"));
    QCOMPARE(made.cpuQuotaMillis, std::int64_t { 2500 });
    QCOMPARE(made.acceleratorQuotaShare[0], std::int64_t { 0 });
    QCOMPARE(made.acceleratorQuotaShare[1], std::int64_t { -1 });
    QCOMPARE(made.ioWeight, 300);
    QCOMPARE(made.maxDisrupted, std::int64_t { 2 });
    QCOMPARE(made.disrupted, std::int64_t { 0 });

    // Selected in the tree, it is the pool the buttons act on; its dialog shows its settings.
    window.catchUp();
    QTRY_VERIFY_WITH_TIMEOUT(poolsRow(*window.poolsModel(), QStringLiteral("reports")).isValid(), 5'000);
    page->view()->setCurrentIndex(
        page->proxy()->mapFromSource(poolsRow(*window.poolsModel(), QStringLiteral("reports"))));
    QVERIFY(page->selectedPool() && page->selectedPool()->name == "reports");
    QVERIFY(page->editButton()->isEnabled() && page->deleteButton()->isEnabled());
    PoolDialog edit(page->selectedPool());
    QVERIFY(edit.nameEdit()->isReadOnly());
    QCOMPARE(edit.cpuBox()->value(), 2.5);
    QCOMPARE(edit.businessLineEdit()->text(), QStringLiteral("finance"));
    QCOMPARE(edit.ioWeightBox()->value(), 300);
    QCOMPARE(edit.disruptionBudgetBox()->value(), 2);
    QCOMPARE(poolsRow(*window.poolsModel(), QStringLiteral("reports"))
                 .siblingAtColumn(PoolsModel::Workloads)
                 .data(Qt::ToolTipRole)
                 .toString(),
        QStringLiteral("Disruption budget: at most 2 of its workloads moved by drains and approved migrations at once, "
                       "until each runs again (0 moving now)."));
    edit.cpuBox()->setValue(0); // unlimited
    edit.businessLineEdit()->clear();
    // The budget as a percentage of the pool's workloads: at most 100.
    edit.disruptionUnitBox()->setCurrentIndex(1);
    edit.disruptionBudgetBox()->setValue(150);
    QCOMPARE(edit.disruptionBudgetBox()->value(), 100);
    edit.disruptionBudgetBox()->setValue(50);
    QCOMPARE(edit.body().value("maxDisrupted", std::string()), std::string("50%"));
    QVERIFY(!edit.body().contains("name"));
    QVERIFY(page->changePool(PoolAction::Update, edit.poolName(), edit.body()) != 0);
    result = answer();
    QVERIFY2(result.ok, result.message.c_str());
    QCOMPARE(page->message()->text(), QStringLiteral("Pool reports changed."));
    QTRY_VERIFY_WITH_TIMEOUT(poolNamed(bridge.latest(), "reports")->cpuQuotaMillis == -1, 5'000);
    QCOMPARE(poolNamed(bridge.latest(), "reports")->businessLine, std::string());
    QCOMPARE(poolNamed(bridge.latest(), "reports")->tier, std::string("warm")); // kept
    QCOMPARE(poolNamed(bridge.latest(), "reports")->ioWeight, 300);
    QCOMPARE(poolNamed(bridge.latest(), "reports")->maxDisruptedPercent, 50);
    QCOMPARE(poolNamed(bridge.latest(), "reports")->maxDisrupted, std::int64_t { 0 }); // half of none
    PoolDialog again(poolNamed(bridge.latest(), "reports"));
    QCOMPARE(again.disruptionUnitBox()->currentIndex(), 1);
    QCOMPARE(again.disruptionBudgetBox()->value(), 50);
    QCOMPARE(again.disruptionBudgetBox()->suffix(), QStringLiteral("%"));

    // A name the API refuses, refused with its words.
    PoolDialog bad(nullptr);
    bad.nameEdit()->setText(QStringLiteral("-rf"));
    page->changePool(PoolAction::Create, bad.poolName(), bad.body());
    result = answer();
    QVERIFY(!result.ok);
    QVERIFY2(page->message()->text().contains(QStringLiteral("may not begin with '-'")),
        qPrintable(page->message()->text()));
    QVERIFY(page->message()->property("refused").toBool());

    // Another console, through the core's API.
    CoreBridge other;
    auto attached = attachRemote(other, backend->apiPort());
    QSignalSpy otherChanged(&other, &CoreBridge::poolChanged);
    // It reads the pools' settings from the API, IO weight included.
    QTRY_VERIFY_WITH_TIMEOUT(
        poolNamed(other.latest(), "reports") && poolNamed(other.latest(), "reports")->ioWeight == 300, 10'000);
    QCOMPARE(poolNamed(other.latest(), "reports")->maxDisruptedPercent, 50);
    QCOMPARE(poolNamed(other.latest(), "reports")->maxDisrupted, std::int64_t { 0 });
    other.changePool(PoolAction::Create, QStringLiteral("remote-made"),
        nlohmann::json { { "name", "remote-made" }, { "cpuMillis", 1000 } });
    QTRY_COMPARE_WITH_TIMEOUT(otherChanged.size(), 1, 10'000);
    const PoolResult remoteResult = otherChanged.takeFirst().at(0).value<PoolResult>();
    QVERIFY2(remoteResult.ok, remoteResult.message.c_str());
    QTRY_VERIFY_WITH_TIMEOUT(poolNamed(bridge.latest(), "remote-made"), 5'000);
    other.changePool(PoolAction::Delete, QStringLiteral("no-such-pool"));
    QTRY_COMPARE_WITH_TIMEOUT(otherChanged.size(), 1, 10'000);
    const PoolResult missing = otherChanged.takeFirst().at(0).value<PoolResult>();
    QVERIFY(!missing.ok);
    QVERIFY2(missing.message.find("no pool is named \"no-such-pool\" (HTTP 404)") != std::string::npos,
        missing.message.c_str());
    other.setBackend(nullptr);
    attached->stop();

    QVERIFY(page->changePool(PoolAction::Delete, QStringLiteral("reports")) != 0);
    result = answer();
    QVERIFY2(result.ok, result.message.c_str());
    QCOMPARE(page->message()->text(), QStringLiteral("Pool reports deleted."));
    QTRY_VERIFY_WITH_TIMEOUT(!poolNamed(bridge.latest(), "reports"), 5'000);

    // The default pool: never deletable from the page.
    window.catchUp();
    QTRY_VERIFY_WITH_TIMEOUT(poolsRow(*window.poolsModel(), QStringLiteral("default")).isValid(), 5'000);
    page->view()->setCurrentIndex(
        page->proxy()->mapFromSource(poolsRow(*window.poolsModel(), QStringLiteral("default"))));
    QVERIFY(page->editButton()->isEnabled());
    QVERIFY(!page->deleteButton()->isEnabled());

    bridge.setBackend(nullptr);
    backend->stop();
    auto store = store::openSqliteStore(db.toStdString());
    QVERIFY(store);
    auto audit = (*store)->audit(store::AuditQuery {});
    QVERIFY(audit);
    QStringList seen;
    for (const store::AuditEntry& e : *audit)
        if (e.actor == kConsoleActor && e.target.starts_with("pool "))
            seen << QString::fromStdString(e.action + " " + e.target + " " + (e.outcome == "ok" ? "ok" : "refused"));
    QCOMPARE(seen,
        (QStringList { QStringLiteral("pool.create pool reports ok"), QStringLiteral("pool.update pool reports ok"),
            QStringLiteral("pool.create pool -rf refused"), QStringLiteral("pool.delete pool reports ok") }));
}

void TestEmbeddedBackend::busyAgentPortIsAClearFailure()
{
    fixture::BoundPort busy;
    auto config = coreConfig(
        m_dir.filePath(QStringLiteral("busy.db")), QStringLiteral("127.0.0.1:") + QString::number(busy.port()), false);
    QVERIFY2(config, config ? "" : config.error().message.c_str());
    CoreBridge bridge;
    QSignalSpy failed(&bridge, &CoreBridge::coreFailed);
    EmbeddedConfig embedded;
    embedded.core = std::move(*config);
    EmbeddedBackend backend(std::move(embedded), bridge.events());
    bridge.setBackend(&backend);
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 10'000);
    const QString message = failed.takeFirst().at(0).toString();
    QVERIFY2(message.startsWith(QStringLiteral("the embedded core could not start: ")), qPrintable(message));
    QVERIFY2(message.contains(QString::number(busy.port())), qPrintable(message));
    // Commands are answered, not lost.
    QSignalSpy finished(&bridge, &CoreBridge::commandFinished);
    bridge.approve(1, {});
    QTRY_COMPARE(finished.size(), 1);
    QVERIFY(!finished.takeFirst().at(0).value<CommandOutcome>().ok);
    bridge.setBackend(nullptr);
    backend.stop();
}

// Another core writes the database (a tidepoold, another console; here a store this process holds): the embedded
// core does not start beside it, and the console says which database and who holds it.
void TestEmbeddedBackend::aDatabaseInUseIsAClearFailure()
{
    const QString db = m_dir.filePath(QStringLiteral("held.db"));
    auto holder = store::openSqliteStore(db.toStdString());
    QVERIFY2(holder, holder ? "" : holder.error().message.c_str());
    auto config = coreConfig(db, QStringLiteral("127.0.0.1:0"), false);
    QVERIFY2(config, config ? "" : config.error().message.c_str());
    CoreBridge bridge;
    QSignalSpy failed(&bridge, &CoreBridge::coreFailed);
    EmbeddedConfig embedded;
    embedded.core = std::move(*config);
    EmbeddedBackend backend(std::move(embedded), bridge.events());
    bridge.setBackend(&backend);
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 10'000);
    const QString message = failed.takeFirst().at(0).toString();
    QVERIFY2(message.startsWith(QStringLiteral("the embedded core could not start: database ") + db
                 + QStringLiteral(" is in use by another tidepoold or embedded core: "))
            && message.contains(QStringLiteral("pid %1").arg(QCoreApplication::applicationPid())),
        qPrintable(message));
    bridge.setBackend(nullptr);
    backend.stop();
}

QTEST_MAIN(TestEmbeddedBackend)
#include "tst_embedded_backend.moc"
