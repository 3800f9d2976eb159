// The console attached to a real `tidepoold` (`tidepool --connect`): a daemon on a database seeded with a week of
// history (so that an evaluation proposes two quota raises) and a `tidepool-fleet` of simulated agents, started from
// the bin directory on loopback; `RemoteBackend`s polling its API through a `CoreBridge`, as the console runs them. It
// protects: the snapshot's nodes, pools, workloads and proposals are the API's; an approval and a rejection made in the
// console are the daemon's (state, decider, audit entry) and a second console sees them; a refusal says why; a wrong
// token and a dead port are clear failures, and the console keeps retrying until a daemon answers; a move is the
// daemon's (into another pool, shown by the next snapshot) or its refusal with the scheduler's reasons. After its first
// read the console follows the nodes by their fingerprints and the usage heard since (`core/api/node_rows.h`), and
// the rows it makes are the rows the daemon sends.
// QT_QPA_PLATFORM=offscreen; no mocks.

#include "core/api/node_rows.h"
#include "core/api/operator_tokens.h"
#include "core/net/http_server.h"
#include "daemon_fixture.h"
#include "ui/bridge/core_bridge.h"
#include "ui/bridge/remote_backend.h"
#include "ui/labels.h"
#include "ui/move_text.h"
#include "ui/remote_text.h"
#include "ui/views/logs_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <filesystem>
#include <memory>
#include <set>
#include <thread>

#include <unistd.h>

using namespace tidepool;
using namespace tidepool::ui;
using api::HttpMethod;
using fixture::json;

namespace {

constexpr int kNodes = 4;

const ProposalRow* proposal(const SnapshotPtr& snapshot, std::int64_t id)
{
    if (!snapshot)
        return nullptr;
    for (const ProposalRow& p : snapshot->proposals)
        if (p.id == id)
            return &p;
    return nullptr;
}

int readyNodes(const SnapshotPtr& snapshot)
{
    if (!snapshot)
        return 0;
    return static_cast<int>(std::count_if(
        snapshot->nodes.begin(), snapshot->nodes.end(), [](const NodeRow& n) { return n.state == "ready"; }));
}

// A console: the bridge and its backend, stopped in the right order.
struct Console {
    CoreBridge bridge;
    std::unique_ptr<RemoteBackend> backend;
    QStringList failures;

    explicit Console(RemoteConfig config)
    {
        QObject::connect(&bridge, &CoreBridge::coreFailed, &bridge, [this](const QString& m) { failures << m; });
        backend = std::make_unique<RemoteBackend>(std::move(config), bridge.events());
        bridge.setBackend(backend.get());
    }
    ~Console()
    {
        bridge.setBackend(nullptr);
        backend->stop();
    }
};

} // namespace

class TestRemoteBackend : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void parsesConnectUrls_data();
    void parsesConnectUrls();
    void snapshotIsTheApis();
    void approvalAndRejectionAreTheDaemonsAndASecondConsoleSeesThem();
    void wrongTokenIsAClearFailure();
    void deadPortIsAClearFailureAndTheConsoleRetriesUntilADaemonAnswers();
    void aMoveIsTheDaemonsAndTheNextSnapshotShowsIt();
    void aNodeIsDrainedAndUncordonedThroughTheDaemon();
    void anAnswerOfTheWrongShapeDoesNotStopTheConsole();
    void theConsoleFollowsWorkloadChanges();
    void aChangeIsShownWithoutWaitingForThePoll();
    void nodeRowsAreFollowedByFingerprintsAndUsage();
    void deviceRowsAreFollowedByWhatChanged();
    void aRefusedMoveSaysWhyWithTheSchedulersReasons();
    void commandsAfterStopAreRefused();
    void showOutputAsksTheWorkloadsAgent();
    void followShowsTheOutputAsItIsWritten();
    void theViewsAreTheDaemonsFeed();
    void httpsIsVerifiedAgainstTheCa();

private:
    RemoteConfig config(std::uint16_t port, const QString& token = {}) const;

    QTemporaryDir m_dir;
    QString m_token;
    QString m_tokenFile;
    QString m_joinFile;
    std::uint16_t m_apiPort = 0;
    std::unique_ptr<QProcess> m_daemon;
    std::unique_ptr<QProcess> m_fleet;
    std::unique_ptr<QProcess> m_late; // the daemon started on a port a console already retries
    std::unique_ptr<QProcess> m_secure; // a daemon whose API speaks HTTPS
    std::int64_t m_raiseWeb0 = 0;
    std::int64_t m_raiseWeb1 = 0;
    std::int64_t m_workload = 0;
};

RemoteConfig TestRemoteBackend::config(std::uint16_t port, const QString& token) const
{
    RemoteConfig c;
    c.endpoint = *parseConnectUrl("http://127.0.0.1:" + std::to_string(port));
    c.token = (token.isEmpty() ? m_token : token).toStdString();
    c.pollInterval = std::chrono::milliseconds(200);
    c.minBackoff = std::chrono::milliseconds(200);
    c.maxBackoff = std::chrono::milliseconds(800);
    c.describe = remoteProblemText;
    return c;
}

void TestRemoteBackend::initTestCase()
{
    QVERIFY(m_dir.isValid());
    for (const char* name : { "tidepoold", "tidepool-fleet" })
        QVERIFY2(QFile::exists(fixture::binary(name)), qPrintable(fixture::binary(name)));
    m_token = fixture::randomToken();
    m_tokenFile = fixture::writeFile(m_dir.filePath(QStringLiteral("operator.token")), m_token.toUtf8() + '\n');
    m_joinFile
        = fixture::writeFile(m_dir.filePath(QStringLiteral("join.token")), fixture::randomToken().toUtf8() + '\n');
    const QString db = m_dir.filePath(QStringLiteral("seeded.db"));
    fixture::seedWeekOfHistory(db.toStdString());
    if (QTest::currentTestFailed())
        return;

    m_daemon = std::make_unique<QProcess>();
    std::uint16_t agentPort = 0;
    m_apiPort = fixture::startDaemon(*m_daemon,
        { QStringLiteral("--db"), db, QStringLiteral("--join-token-file"), m_joinFile,
            QStringLiteral("--operator-token-file"), m_tokenFile },
        m_dir.filePath(QStringLiteral("tidepoold.log")), &agentPort);
    QVERIFY2(m_apiPort != 0, "tidepoold stopped before it was ready");
    m_fleet = std::make_unique<QProcess>();
    QVERIFY(fixture::startFleet(*m_fleet, agentPort, m_joinFile, kNodes, m_dir.filePath(QStringLiteral("fleet.log"))));

    const std::string token = m_token.toStdString();
    QTRY_COMPARE_WITH_TIMEOUT(
        fixture::call(m_apiPort, token, HttpMethod::Get, "/v1/summary").value("/nodes/ready"_json_pointer, 0), kNodes,
        30'000);
    // A running workload, so that the pools have a footprint and the snapshot a workload row.
    const json submitted = fixture::call(m_apiPort, token, HttpMethod::Post, "/v1/workloads",
        json { { "name", "etl-1" }, { "pool", "batch" }, { "latency", "batch" }, { "cpuMillis", 500 },
            { "memoryMiB", 256 } }
            .dump());
    QVERIFY2(submitted.is_object() && submitted.contains("id"), submitted.dump().c_str());
    m_workload = submitted["id"].get<std::int64_t>();
    QTRY_COMPARE_WITH_TIMEOUT(
        fixture::call(m_apiPort, token, HttpMethod::Get, "/v1/workloads/" + std::to_string(m_workload))
            .value("phase", std::string()),
        std::string("running"), 15'000);
    // Both web pools are forecast above their quota: one proposal each.
    const json evaluated = fixture::call(m_apiPort, token, HttpMethod::Post, "/v1/evaluate");
    QVERIFY2(evaluated.is_object(), evaluated.dump().c_str());
    for (const json& p : evaluated["created"]) {
        if (p["key"] == "quota:web-0")
            m_raiseWeb0 = p["id"].get<std::int64_t>();
        if (p["key"] == "quota:web-1")
            m_raiseWeb1 = p["id"].get<std::int64_t>();
    }
    QVERIFY2(m_raiseWeb0 > 0 && m_raiseWeb1 > 0, evaluated.dump().c_str());
}

void TestRemoteBackend::cleanupTestCase()
{
    for (QProcess* process : { m_fleet.get(), m_daemon.get(), m_late.get(), m_secure.get() })
        fixture::stopProcess(process);
}

void TestRemoteBackend::parsesConnectUrls_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("url"); // empty: refused
    QTest::addColumn<QString>("error");
    QTest::newRow("http with port") << QStringLiteral("http://10.0.0.5:8080") << QStringLiteral("http://10.0.0.5:8080")
                                    << QString();
    QTest::newRow("trailing slash") << QStringLiteral("http://ctl.example:9000/")
                                    << QStringLiteral("http://ctl.example:9000") << QString();
    QTest::newRow("no scheme") << QStringLiteral("127.0.0.1:7081") << QStringLiteral("http://127.0.0.1:7081")
                               << QString();
    QTest::newRow("default port") << QStringLiteral("http://core.lan") << QStringLiteral("http://core.lan:7080")
                                  << QString();
    QTest::newRow("ipv6") << QStringLiteral("http://[::1]:8080") << QStringLiteral("http://[::1]:8080") << QString();
    QTest::newRow("https") << QStringLiteral("https://core.lan:8443/") << QStringLiteral("https://core.lan:8443")
                           << QString();
    QTest::newRow("path") << QStringLiteral("http://core.lan:80/v1") << QString() << QStringLiteral("without a path");
    QTest::newRow("port 0") << QStringLiteral("http://core.lan:0") << QString() << QStringLiteral("port from 1");
    QTest::newRow("other scheme") << QStringLiteral("ftp://core.lan:21") << QString()
                                  << QStringLiteral("must be http://HOST:PORT or https://HOST:PORT");
}

void TestRemoteBackend::parsesConnectUrls()
{
    QFETCH(QString, text);
    QFETCH(QString, url);
    QFETCH(QString, error);
    const auto parsed = parseConnectUrl(text.toStdString());
    if (url.isEmpty()) {
        QVERIFY(!parsed);
        QVERIFY2(QString::fromStdString(parsed.error().message).contains(error), parsed.error().message.c_str());
    } else {
        QVERIFY2(parsed, parsed ? "" : parsed.error().message.c_str());
        QCOMPARE(QString::fromStdString(parsed->url), url);
    }
}

void TestRemoteBackend::snapshotIsTheApis()
{
    const std::string token = m_token.toStdString();
    // Quotas beyond CPU and memory on the batch pool (its one workload asks for neither), so that the console's
    // reading of them is checked against values, not only against "unlimited".
    const json quotas = fixture::call(m_apiPort, token, HttpMethod::Put, "/v1/pools/batch",
        json { { "memBandwidthMBps", 20000 }, { "acceleratorQuota", { { "npu", 64 }, { "fpga", 0 } } } }.dump());
    QVERIFY2(quotas.value("memBandwidthMBps", 0) == 20000, quotas.dump().c_str());
    // A pool without a business line, which the console must not take for one.
    const json solo = fixture::call(m_apiPort, token, HttpMethod::Post, "/v1/pools", R"({"name":"solo"})");
    QVERIFY2(solo.value("name", "") == "solo", solo.dump().c_str());
    Console console(config(m_apiPort));
    // The console's snapshot, then the API's view of the same moment (nothing changes in between but utilisation).
    QTRY_VERIFY2_WITH_TIMEOUT(readyNodes(console.bridge.latest()) == kNodes
            && proposal(console.bridge.latest(), m_raiseWeb1) != nullptr && !console.bridge.latest()->workloads.empty(),
        qPrintable(console.failures.join(QLatin1Char('\n'))), 10'000);
    const SnapshotPtr s = console.bridge.latest();
    QVERIFY2(console.failures.isEmpty(), qPrintable(console.failures.join(QLatin1Char('\n'))));
    QCOMPARE(s->source, "http://127.0.0.1:" + std::to_string(m_apiPort));
    QVERIFY(s->nowMs > 0);
    QVERIFY(s->readOnlyReason.empty());
    // Who the token is, as the core says (the Proposals page enables its buttons by it).
    const json whoami = fixture::call(m_apiPort, token, HttpMethod::Get, "/v1/whoami");
    QVERIFY(!s->role.empty());
    QCOMPARE(s->role, whoami.value("role", std::string()));
    QCOMPARE(s->actor, whoami.value("actor", std::string()));

    const json nodes = fixture::call(m_apiPort, token, HttpMethod::Get, "/v1/nodes")["nodes"];
    QCOMPARE(s->nodes.size(), nodes.size());
    for (const json& n : nodes) {
        const auto row = std::find_if(
            s->nodes.begin(), s->nodes.end(), [&](const NodeRow& r) { return r.name == n["name"].get<std::string>(); });
        QVERIFY2(row != s->nodes.end(), n.dump().c_str());
        QCOMPARE(row->id, n["id"].get<std::int32_t>());
        QCOMPARE(row->isa, n["isa"].get<std::string>());
        QCOMPARE(row->tier, n["tier"].get<std::string>());
        QCOMPARE(row->state, std::string("ready"));
        QCOMPARE(row->cpuMillis, n["cpuMillis"].get<std::int64_t>());
        QCOMPARE(row->memoryMiB, n["memoryMiB"].get<std::int64_t>());
        QCOMPARE(row->accelerators, static_cast<int>(n["devices"].size()));
    }
    QVERIFY(std::is_sorted(
        s->nodes.begin(), s->nodes.end(), [](const NodeRow& a, const NodeRow& b) { return a.id < b.id; }));

    const json pools = fixture::call(m_apiPort, token, HttpMethod::Get, "/v1/pools")["pools"];
    QCOMPARE(s->pools.size(), pools.size());
    int withoutLine = 0;
    for (const json& p : pools) {
        const auto row = std::find_if(
            s->pools.begin(), s->pools.end(), [&](const PoolRow& r) { return r.name == p["name"].get<std::string>(); });
        QVERIFY2(row != s->pools.end(), p.dump().c_str());
        QCOMPARE(row->id, p["id"].get<std::int32_t>());
        QCOMPARE(row->cpuQuotaMillis, p["cpuMillis"].is_null() ? -1 : p["cpuMillis"].get<std::int64_t>());
        QCOMPARE(row->cpuUsedMillis, p["cpuMillisUsed"].get<std::int64_t>());
        const auto limit = [](const json& v) { return v.is_null() ? std::int64_t { -1 } : v.get<std::int64_t>(); };
        QCOMPARE(row->memBandwidthQuotaMBps, limit(p["memBandwidthMBps"]));
        QCOMPARE(row->netBandwidthQuotaMbps, limit(p["netBandwidthMbps"]));
        QCOMPARE(row->acceleratorQuotaShare,
            (std::array<std::int64_t, 3> { limit(p["acceleratorQuota"]["gpu"]), limit(p["acceleratorQuota"]["npu"]),
                limit(p["acceleratorQuota"]["fpga"]) }));
        if (row->name == "batch") {
            QCOMPARE(row->memBandwidthQuotaMBps, std::int64_t { 20000 });
            QCOMPARE(row->acceleratorQuotaShare, (std::array<std::int64_t, 3> { -1, 64, 0 }));
        }
        if (row->name == "web-0")
            QCOMPARE(row->businessLine, std::string("web"));
        // The row keeps the pool's own business line, none included: the report dialog offers only real ones as a
        // scope. The pools view groups a pool without one under its name.
        QCOMPARE(row->businessLine, p["businessLine"].get<std::string>());
        withoutLine += row->businessLine.empty() ? 1 : 0;
        QCOMPARE(row->lineOrName(), row->businessLine.empty() ? row->name : row->businessLine);
    }
    QCOMPARE(withoutLine, 1); // solo
    // The running workload: a row, and its pool's footprint on its node.
    const json w = fixture::call(m_apiPort, token, HttpMethod::Get, "/v1/workloads/" + std::to_string(m_workload));
    const auto workload = std::find_if(
        s->workloads.begin(), s->workloads.end(), [&](const WorkloadRow& r) { return r.id == m_workload; });
    QVERIFY(workload != s->workloads.end());
    QCOMPARE(workload->phase, std::string("running"));
    QCOMPARE(workload->node, w["node"].get<std::string>());
    QCOMPARE(workload->pool, std::string("batch"));
    const auto batch
        = std::find_if(s->pools.begin(), s->pools.end(), [](const PoolRow& r) { return r.name == "batch"; });
    QCOMPARE(batch->workloads, 1);
    QCOMPARE(batch->nodes.size(), std::size_t { 1 });
    QCOMPARE(batch->nodes.front().node, w["node"].get<std::string>());
    QCOMPARE(batch->nodes.front().cpuMillis, std::int64_t { 500 });

    const json proposals = fixture::call(m_apiPort, token, HttpMethod::Get, "/v1/proposals")["proposals"];
    QCOMPARE(s->proposals.size(), proposals.size());
    const ProposalRow* raise = proposal(s, m_raiseWeb0);
    QVERIFY(raise);
    QCOMPARE(raise->kind, std::string("quota"));
    QCOMPARE(raise->subject, std::string("quota:web-0"));
    QVERIFY(!raise->reason.empty());
    // Its reason comes as clauses too, which the console words (CPU in cores) instead of showing the daemon's English.
    const json why = json::parse(raise->why);
    QVERIFY2(why.is_array() && !why.empty(), raise->why.c_str());
    QCOMPARE(why[0]["code"].get<std::string>(), std::string("quota-above"));
    const QString reason = reasonText(raise->why, raise->reason);
    QVERIFY2(reason.startsWith(QStringLiteral("pool web-0 is forecast to need "))
            && reason.contains(QStringLiteral(" cores")) && reason != QString::fromStdString(raise->reason),
        qPrintable(reason));
    QVERIFY(!raise->plan.empty());
    QVERIFY2(QString::fromStdString(raise->plan.front()).contains(QStringLiteral("set_cpu_quota")),
        raise->plan.front().c_str());
    QVERIFY(raise->expiresMs > raise->createdMs);

    QCOMPARE(s->overview.proposalsWaiting, 2);
    int total = 0;
    for (const auto& [isa, states] : s->overview.nodesByIsaAndState)
        for (const auto& [state, count] : states)
            total += count;
    QCOMPARE(total, kNodes);
    QCOMPARE(s->overview.workloadsByPhase.at("running"), 1);
    QCOMPARE(s->overview.activeWorkloadsByTier.at("cold"), 1); // batch belongs on the cold tier
}

void TestRemoteBackend::approvalAndRejectionAreTheDaemonsAndASecondConsoleSeesThem()
{
    Console first(config(m_apiPort));
    Console second(config(m_apiPort));
    QTRY_VERIFY_WITH_TIMEOUT(proposal(first.bridge.latest(), m_raiseWeb0), 10'000);
    QTRY_VERIFY_WITH_TIMEOUT(proposal(second.bridge.latest(), m_raiseWeb0), 10'000);
    QCOMPARE(proposal(second.bridge.latest(), m_raiseWeb0)->state, std::string("pending"));

    QSignalSpy finished(&first.bridge, &CoreBridge::commandFinished);
    const quint64 approve = first.bridge.approve(m_raiseWeb0, QStringLiteral("ahead of the peak"));
    QVERIFY(approve != 0);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10'000);
    const auto outcome = finished.takeFirst().at(0).value<CommandOutcome>();
    QCOMPARE(outcome.requestId, approve);
    QVERIFY2(outcome.ok, outcome.message.c_str());
    QCOMPARE(outcome.state, std::string("applied"));

    // The daemon's own record: the state, who decided (the token's name), and the audit entry.
    const std::string token = m_token.toStdString();
    const json stored
        = fixture::call(m_apiPort, token, HttpMethod::Get, "/v1/proposals/" + std::to_string(m_raiseWeb0));
    QCOMPARE(stored.value("state", std::string()), std::string("applied"));
    QCOMPARE(stored.value("decidedBy", std::string()), "operator:" + api::tokenFingerprint(token));
    const json audit = fixture::call(m_apiPort, token, HttpMethod::Get, "/v1/audit");
    bool audited = false;
    for (const json& e : audit.value("entries", json::array()))
        audited = audited
            || (e.value("action", std::string()) == "POST /v1/proposals/" + std::to_string(m_raiseWeb0) + "/approve"
                && e.value("outcome", std::string()) == "ok" && e.value("stage", std::string()) == "completed"
                && e.value("/detail/comment"_json_pointer, std::string()) == "ahead of the peak");
    QVERIFY2(audited, audit.dump().c_str());

    // The other console sees it at its next poll; the first at once.
    QCOMPARE(proposal(first.bridge.latest(), m_raiseWeb0)->state, std::string("applied"));
    QTRY_COMPARE_WITH_TIMEOUT(proposal(second.bridge.latest(), m_raiseWeb0)->state, std::string("applied"), 5'000);
    QCOMPARE(proposal(second.bridge.latest(), m_raiseWeb0)->decidedBy, "operator:" + api::tokenFingerprint(token));

    // A rejection from the second console, with its reason; the first sees it.
    QSignalSpy rejected(&second.bridge, &CoreBridge::commandFinished);
    second.bridge.reject(m_raiseWeb1, QStringLiteral("not before the release"));
    QTRY_COMPARE_WITH_TIMEOUT(rejected.size(), 1, 10'000);
    const auto rejection = rejected.takeFirst().at(0).value<CommandOutcome>();
    QVERIFY2(rejection.ok, rejection.message.c_str());
    QCOMPARE(rejection.state, std::string("rejected"));
    QTRY_COMPARE_WITH_TIMEOUT(proposal(first.bridge.latest(), m_raiseWeb1)->state, std::string("rejected"), 5'000);
    QCOMPARE(proposal(first.bridge.latest(), m_raiseWeb1)->detail, std::string("not before the release"));

    // Deciding again is the daemon's refusal, in its words, with the state it has.
    first.bridge.approve(m_raiseWeb0, {});
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10'000);
    const auto again = finished.takeFirst().at(0).value<CommandOutcome>();
    QVERIFY(!again.ok);
    QVERIFY2(QString::fromStdString(again.message).contains(QStringLiteral("not pending (HTTP 409)")),
        again.message.c_str());
    QCOMPARE(again.state, std::string("applied"));
    QVERIFY2(first.failures.isEmpty(), qPrintable(first.failures.join(QLatin1Char('\n'))));
}

void TestRemoteBackend::wrongTokenIsAClearFailure()
{
    Console console(config(m_apiPort, QStringLiteral("not-the-operator-token")));
    QTRY_VERIFY_WITH_TIMEOUT(!console.failures.isEmpty(), 10'000);
    const QString message = console.failures.first();
    QVERIFY2(message.contains(QStringLiteral("refused the operator token (HTTP 401)")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("--token-file")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("retrying in")), qPrintable(message));
    QVERIFY2(!message.contains(QStringLiteral("not-the-operator-token")), qPrintable(message));
    // It keeps retrying, and shows nothing it could not read.
    QTRY_VERIFY_WITH_TIMEOUT(console.failures.size() >= 2, 10'000);
    QVERIFY(!console.bridge.latest());
}

void TestRemoteBackend::deadPortIsAClearFailureAndTheConsoleRetriesUntilADaemonAnswers()
{
    const std::uint16_t port = fixture::freePort();
    QVERIFY(port != 0);
    Console console(config(port));
    QTRY_VERIFY_WITH_TIMEOUT(!console.failures.isEmpty(), 10'000);
    const QString url = QStringLiteral("http://127.0.0.1:") + QString::number(port);
    QVERIFY2(console.failures.first().startsWith(QStringLiteral("Cannot reach tidepoold at ") + url),
        qPrintable(console.failures.first()));
    QVERIFY2(console.failures.first().contains(QStringLiteral("refused")), qPrintable(console.failures.first()));
    QVERIFY(!console.bridge.latest());

    // A daemon (without a database: no proposals) comes up on that port: the console attaches by itself.
    m_late = std::make_unique<QProcess>();
    const std::uint16_t api = fixture::startDaemon(*m_late,
        { QStringLiteral("--join-token-file"), m_joinFile, QStringLiteral("--operator-token-file"), m_tokenFile },
        m_dir.filePath(QStringLiteral("late.log")), nullptr, QStringLiteral("127.0.0.1:") + QString::number(port));
    QCOMPARE(api, port);
    QTRY_VERIFY_WITH_TIMEOUT(console.bridge.latest(), 10'000);
    QCOMPARE(console.bridge.latest()->source, url.toStdString());
    QVERIFY(console.bridge.latest()->nodes.empty());
    QVERIFY(console.bridge.latest()->proposals.empty());
    fixture::stopProcess(m_late.get());
}

// A drop in a console attached with --connect is `POST /v1/workloads/{id}/move`: the daemon moves the workload into
// another pool (its node chosen by the core), the console hears where it went, and its next snapshot shows it there.
void TestRemoteBackend::aMoveIsTheDaemonsAndTheNextSnapshotShowsIt()
{
    Console console(config(m_apiPort));
    QTRY_VERIFY_WITH_TIMEOUT(console.bridge.latest() && !console.bridge.latest()->workloads.empty(), 10'000);
    QSignalSpy moved(&console.bridge, &CoreBridge::moveFinished);
    const quint64 id = console.bridge.move(m_workload, {}, {}, QStringLiteral("web-1"));
    QTRY_COMPARE_WITH_TIMEOUT(moved.size(), 1, 10'000);
    const auto result = moved.takeFirst().at(0).value<MoveResult>();
    QCOMPARE(result.requestId, id);
    QVERIFY2(result.ok, result.message.c_str());
    QCOMPARE(result.refusal, std::string());
    QCOMPARE(result.workload, std::string("etl-1"));
    QCOMPARE(result.pool, std::string("web-1"));
    QVERIFY(!result.node.empty());
    QVERIFY(result.tier == "hot" || result.tier == "warm" || result.tier == "cold");
    QVERIFY2(result.message.find("into pool web-1") != std::string::npos, result.message.c_str());
    // The daemon has it there, and so does the console's next snapshot.
    const json daemon = fixture::call(
        m_apiPort, m_token.toStdString(), HttpMethod::Get, "/v1/workloads/" + std::to_string(m_workload));
    QCOMPARE(daemon.value("pool", std::string()), std::string("web-1"));
    QCOMPARE(daemon.value("node", std::string()), result.node);
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const SnapshotPtr s = console.bridge.latest();
            for (const WorkloadRow& w : s ? s->workloads : std::vector<WorkloadRow> {})
                if (w.id == m_workload)
                    return w.pool == "web-1" && w.node == result.node;
            return false;
        }(),
        5'000);

    // Resized through the daemon (`POST /v1/workloads/{id}/resize`): in place on its node once it runs, its agent
    // told; the next snapshot has its new request. A limit below its request comes back in the daemon's words.
    const std::string path = "/v1/workloads/" + std::to_string(m_workload);
    QTRY_VERIFY_WITH_TIMEOUT(
        fixture::call(m_apiPort, m_token.toStdString(), HttpMethod::Get, path).value("phase", std::string())
            == "running",
        10'000);
    const std::int64_t memory
        = fixture::call(m_apiPort, m_token.toStdString(), HttpMethod::Get, path).value("memoryMiB", std::int64_t { 0 });
    QSignalSpy resized(&console.bridge, &CoreBridge::workloadResized);
    const quint64 resizeId = console.bridge.resize(m_workload, 300, memory, 0, 0);
    QTRY_COMPARE_WITH_TIMEOUT(resized.size(), 1, 10'000);
    auto answer = resized.takeFirst().at(0).value<ResizeResult>();
    QCOMPARE(answer.requestId, resizeId);
    QVERIFY2(answer.ok, answer.message.c_str());
    QCOMPARE(answer.node, result.node);
    QVERIFY(answer.sentToAgent);
    QVERIFY2(answer.message.find("→ 300m") != std::string::npos, answer.message.c_str());
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const SnapshotPtr s = console.bridge.latest();
            for (const WorkloadRow& w : s ? s->workloads : std::vector<WorkloadRow> {})
                if (w.id == m_workload)
                    return w.cpuMillis == 300;
            return false;
        }(),
        5'000);
    console.bridge.resize(m_workload, 300, memory, 0, 1);
    QTRY_COMPARE_WITH_TIMEOUT(resized.size(), 1, 10'000);
    answer = resized.takeFirst().at(0).value<ResizeResult>();
    QVERIFY(!answer.ok);
    QVERIFY2(answer.message.find("is below the memory it asks for") != std::string::npos
            && answer.message.find("(HTTP 400)") != std::string::npos,
        answer.message.c_str());
}

// The Nodes page's actions through tidepoold: a drain of the node the workload runs on cordons it by the console's
// token and moves the workload to another node, as the daemon and the next snapshot show; uncordoned, it is in service
// again. The daemon's refusals come back in its words; a name no node may have is not sent at all.
void TestRemoteBackend::aNodeIsDrainedAndUncordonedThroughTheDaemon()
{
    Console console(config(m_apiPort));
    QTRY_VERIFY_WITH_TIMEOUT(console.bridge.latest() && !console.bridge.latest()->workloads.empty(), 10'000);
    const std::string token = m_token.toStdString();
    const auto nodeOf = [&] {
        return fixture::call(m_apiPort, token, HttpMethod::Get, "/v1/workloads/" + std::to_string(m_workload))
            .value("node", std::string());
    };
    const std::string node = nodeOf();
    QVERIFY(!node.empty());
    QSignalSpy changed(&console.bridge, &CoreBridge::nodeChanged);
    const quint64 id
        = console.bridge.changeNode(NodeAction::Drain, QString::fromStdString(node), QStringLiteral("kernel update"));
    QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10'000);
    NodeResult result = changed.takeFirst().at(0).value<NodeResult>();
    QCOMPARE(result.requestId, id);
    QVERIFY2(result.ok, result.message.c_str());
    QVERIFY2(
        result.cordon.starts_with("by operator:") && result.cordon.ends_with(": kernel update"), result.cordon.c_str());
    QCOMPARE(result.moved, std::size_t { 1 });
    QVERIFY(result.stayed.empty());
    QVERIFY(nodeOf() != node);
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const SnapshotPtr s = console.bridge.latest();
            for (const NodeRow& n : s ? s->nodes : std::vector<NodeRow> {})
                if (n.name == node)
                    return n.cordon == result.cordon;
            return false;
        }(),
        5'000);

    console.bridge.changeNode(NodeAction::Uncordon, QString::fromStdString(node));
    QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10'000);
    result = changed.takeFirst().at(0).value<NodeResult>();
    QVERIFY2(result.ok, result.message.c_str());
    QVERIFY2(result.lifted.ends_with(": kernel update"), result.lifted.c_str());
    QCOMPARE(result.cordon, std::string());
    const json nodes = fixture::call(m_apiPort, token, HttpMethod::Get, "/v1/nodes");
    for (const json& n : nodes.value("nodes", json::array()))
        QCOMPARE(n.value("cordon", std::string("?")), std::string());

    // A paced drain (one at a time) of where it went: the daemon takes the budget, moves it and has nothing left.
    const std::string second = nodeOf();
    console.bridge.changeNode(NodeAction::Drain, QString::fromStdString(second), QStringLiteral("bios"), 1);
    QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10'000);
    result = changed.takeFirst().at(0).value<NodeResult>();
    QVERIFY2(result.ok, result.message.c_str());
    QVERIFY(result.paced);
    QCOMPARE(result.moved, std::size_t { 1 });
    QCOMPARE(result.waiting, std::int64_t { 0 });
    QVERIFY(nodeOf() != second);
    console.bridge.changeNode(NodeAction::Uncordon, QString::fromStdString(second));
    QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10'000);
    QVERIFY(changed.takeFirst().at(0).value<NodeResult>().ok);

    console.bridge.changeNode(NodeAction::Cordon, QStringLiteral("nowhere"));
    QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10'000);
    result = changed.takeFirst().at(0).value<NodeResult>();
    QVERIFY(!result.ok);
    QCOMPARE(result.message, std::string("no node is named \"nowhere\" (HTTP 404)"));
    console.bridge.changeNode(NodeAction::Cordon, QStringLiteral("../pools"));
    QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10'000);
    result = changed.takeFirst().at(0).value<NodeResult>();
    QVERIFY(!result.ok);
    QCOMPARE(result.message, std::string("no node is named \"../pools\""));
}

// A server that is not quite tidepoold answers a drain, a proposal's approval, a move and an output read with fields of
// the wrong types: the console reads them as absent and answers each command, and its backend goes on answering the
// next one (a throw there would end its thread, and with it the console's connection).
void TestRemoteBackend::anAnswerOfTheWrongShapeDoesNotStopTheConsole()
{
    boost::asio::io_context io;
    auto server = net::HttpServer::create(io, {},
        [](const net::HttpRequest& request, const std::string&, net::HttpRespond respond) {
            net::HttpResponse response;
            response.version(request.version());
            response.set(boost::beast::http::field::content_type, "application/json");
            const std::string target(request.target());
            if (request.method() == boost::beast::http::verb::post && target.starts_with("/v1/nodes/")) {
                response.result(boost::beast::http::status::ok);
                response.body() = R"({"node": "n1", "cordon": 5, "lifted": [], "moved": "lots",
                    "workloads": [{"moved": "yes", "workload": "x", "name": 7, "error": {}}]})";
            } else if (target.starts_with("/v1/proposals/")) {
                response.result(boost::beast::http::status::ok);
                response.body() = R"({"id": 1, "state": 5, "detail": ["applied"]})";
            } else if (target.starts_with("/v1/workloads/7/move")) {
                response.result(boost::beast::http::status::ok);
                response.body() = R"({"moved": "yes", "name": 3, "node": null, "reasons": [{"reason": 1}]})";
            } else if (target.starts_with("/v1/workloads/7/logs")) {
                response.result(boost::beast::http::status::ok);
                response.body()
                    = R"({"data": "out\n", "sizeBytes": 4, "node": 7, "truncated": "no", "phase": {}, "start": "0"})";
            } else {
                response.result(boost::beast::http::status::service_unavailable);
                response.body() = R"({"error": "not a daemon"})";
            }
            response.prepare_payload();
            respond(std::move(response));
        },
        {});
    const auto port = server->listen("127.0.0.1", 0);
    QVERIFY(port);
    std::thread serving([&io] { io.run(); });
    const auto stopServing = qScopeGuard([&] {
        boost::asio::post(io, [&] { server->stop(); });
        io.stop();
        serving.join();
    });

    Console console(config(*port));
    QSignalSpy changed(&console.bridge, &CoreBridge::nodeChanged);
    console.bridge.changeNode(NodeAction::Drain, QStringLiteral("n1"));
    QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10'000);
    NodeResult result = changed.takeFirst().at(0).value<NodeResult>();
    QVERIFY(result.ok);
    QCOMPARE(result.cordon, std::string());
    QCOMPARE(result.moved, std::size_t { 0 });
    QCOMPARE(result.stayed.size(), std::size_t { 1 }); // "moved": "yes" is not a move
    console.bridge.changeNode(NodeAction::Uncordon, QStringLiteral("n1"));
    QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10'000);
    QVERIFY(changed.takeFirst().at(0).value<NodeResult>().ok);
    // The other answers the console reads, each with fields of the wrong types: answered, and it goes on.
    QSignalSpy decided(&console.bridge, &CoreBridge::commandFinished);
    console.bridge.approve(1, QString());
    QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 10'000);
    const auto outcome = decided.takeFirst().at(0).value<CommandOutcome>();
    QVERIFY(outcome.ok);
    QCOMPARE(outcome.state, std::string()); // 5 is no state
    QSignalSpy moved(&console.bridge, &CoreBridge::moveFinished);
    console.bridge.move(7, QStringLiteral("n1"), QString(), QString());
    QTRY_COMPARE_WITH_TIMEOUT(moved.size(), 1, 10'000);
    QVERIFY(!moved.takeFirst().at(0).value<MoveResult>().ok); // "yes" is no move
    QSignalSpy read(&console.bridge, &CoreBridge::logsRead);
    console.bridge.readLogs(7, false);
    QTRY_COMPARE_WITH_TIMEOUT(read.size(), 1, 10'000);
    const auto logs = read.takeFirst().at(0).value<LogsResult>();
    QVERIFY(logs.ok);
    QCOMPARE(logs.data, std::string("out\n"));
    QCOMPARE(logs.node, std::string());
    QVERIFY(!logs.truncated);
    QCOMPARE(logs.start, std::int64_t { -1 });
    QVERIFY(!logs.ended);
    // Still answering after all of them.
    console.bridge.changeNode(NodeAction::Uncordon, QStringLiteral("n1"));
    QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10'000);
    for (const QString& failure : console.failures)
        QVERIFY2(!failure.contains(QStringLiteral("stopped")), qPrintable(failure));
}

// After its first full read the console asks only for the workloads changed since (`changedSince`): a new one
// appears in its next snapshot, a cancelled one leaves it, and the rest stay as they were.
void TestRemoteBackend::theConsoleFollowsWorkloadChanges()
{
    Console console(config(m_apiPort));
    const auto shown = [&](std::int64_t id) -> const WorkloadRow* {
        const SnapshotPtr s = console.bridge.latest();
        for (const WorkloadRow& w : s ? s->workloads : std::vector<WorkloadRow> {})
            if (w.id == id)
                return &w;
        return nullptr;
    };
    QTRY_VERIFY_WITH_TIMEOUT(shown(m_workload) != nullptr, 10'000);
    const std::size_t before = console.bridge.latest()->workloads.size();
    const std::string token = m_token.toStdString();
    const json submitted = fixture::call(m_apiPort, token, HttpMethod::Post, "/v1/workloads",
        json { { "name", "late-arrival" }, { "pool", "batch" }, { "latency", "batch" }, { "cpuMillis", 100 },
            { "memoryMiB", 64 }, { "cpuLimitMillis", 200 }, { "memoryLimitMiB", 128 }, { "restart", "always" },
            { "maxRestarts", 4 }, { "maxRuntimeMs", 3'600'000 } }
            .dump());
    QVERIFY2(submitted.contains("id"), submitted.dump().c_str());
    const auto id = submitted["id"].get<std::int64_t>();
    QTRY_VERIFY_WITH_TIMEOUT(shown(id) && shown(id)->phase == "running", 10'000);
    // What it was submitted with, as the daemon says it.
    QCOMPARE(shown(id)->cpuLimitMillis, std::int64_t { 200 });
    QCOMPARE(shown(id)->memoryLimitMiB, std::int64_t { 128 });
    QCOMPARE(shown(id)->restart, std::string("always"));
    QCOMPARE(shown(id)->maxRestarts, 4);
    QCOMPARE(shown(id)->maxRuntimeMs, std::int64_t { 3'600'000 });
    QCOMPARE(shown(id)->restarts, 0);
    // What it uses, as its agent measures it (tidepool-fleet: 30% of its CPU, half its memory), comes with each poll
    // (`usage=1`), though the workload does not change.
    QTRY_VERIFY_WITH_TIMEOUT(shown(id) && shown(id)->usedMeasured, 10'000);
    QCOMPARE(shown(id)->cpuUsedMillis, std::int64_t { 30 });
    QCOMPARE(shown(id)->memoryUsedMiB, std::int64_t { 32 });
    const json listed = fixture::call(m_apiPort, token, HttpMethod::Get, "/v1/workloads?phase=running&usage=1");
    QVERIFY2(std::any_of(listed["usage"].begin(), listed["usage"].end(),
                 [&](const json& u) {
                     return u == json::array({ id, 30, 32 });
                 }),
        listed.dump().c_str());
    QVERIFY(!fixture::call(m_apiPort, token, HttpMethod::Get, "/v1/workloads?phase=running").contains("usage"));
    // Its launch's peaks and CPU percentile: the daemon marks the workload changed once they are worth saving (its
    // first sample, a rise of a tenth, hourly), so that the console, which reads only changed workloads, has them.
    QTRY_VERIFY_WITH_TIMEOUT(shown(id) && shown(id)->measuredSinceMs > 0, 10'000);
    QCOMPARE(shown(id)->peakCpuMillis, std::int64_t { 30 });
    QCOMPARE(shown(id)->peakMemoryMiB, std::int64_t { 32 });
    QVERIFY2(
        shown(id)->cpuP90Millis >= 30 && shown(id)->cpuP90Millis < 35, std::to_string(shown(id)->cpuP90Millis).c_str());
    QCOMPARE(console.bridge.latest()->workloads.size(), before + 1);
    const json cancelled = fixture::call(m_apiPort, token, HttpMethod::Delete, "/v1/workloads/" + std::to_string(id));
    QVERIFY2(cancelled.contains("phase"), cancelled.dump().c_str());
    QTRY_VERIFY_WITH_TIMEOUT(shown(id) == nullptr, 10'000);
    QCOMPARE(console.bridge.latest()->workloads.size(), before);
    QVERIFY(shown(m_workload) != nullptr);
}

// A change the daemon records is on screen at once, not at the next poll: the console's event watch (`GET
// /v1/events?waitMs=` on a second connection) wakes its poller, here one that polls once a minute. Without the watch
// the same change waits for that poll. Stopping does not wait for the watch's 25-second read.
void TestRemoteBackend::aChangeIsShownWithoutWaitingForThePoll()
{
    const std::string token = m_token.toStdString();
    for (const bool watch : { true, false }) {
        RemoteConfig c = config(m_apiPort);
        c.pollInterval = std::chrono::minutes(1);
        c.eventWait = watch ? std::chrono::milliseconds(25'000) : std::chrono::milliseconds(0);
        auto console = std::make_unique<Console>(c);
        const auto shown = [&](std::int64_t id) {
            const SnapshotPtr s = console->bridge.latest();
            return s && std::any_of(s->workloads.begin(), s->workloads.end(), [&](const WorkloadRow& w) {
                return w.id == id;
            });
        };
        QTRY_VERIFY_WITH_TIMEOUT(console->bridge.latest() != nullptr, 10'000); // the first poll, at once
        QTest::qWait(1000); // the watch has learnt the newest event and waits for the next
        const json submitted = fixture::call(m_apiPort, token, HttpMethod::Post, "/v1/workloads",
            json { { "name", watch ? "seen-at-once" : "seen-at-the-poll" }, { "pool", "batch" }, { "latency", "batch" },
                { "cpuMillis", 100 }, { "memoryMiB", 64 } }
                .dump());
        QVERIFY2(submitted.contains("id"), submitted.dump().c_str());
        const auto id = submitted["id"].get<std::int64_t>();
        if (watch)
            QTRY_VERIFY_WITH_TIMEOUT(shown(id), 10'000);
        else {
            QTest::qWait(3000);
            QVERIFY(!shown(id));
        }
        QVERIFY(fixture::call(m_apiPort, token, HttpMethod::Delete, "/v1/workloads/" + std::to_string(id))
                    .contains("phase"));
        if (watch) {
            QTRY_VERIFY_WITH_TIMEOUT(!shown(id), 10'000);
            QTest::qWait(500); // waiting for the next event again
        }
        QElapsedTimer stopping;
        stopping.start();
        console.reset();
        QVERIFY2(stopping.elapsed() < 5000, std::to_string(stopping.elapsed()).c_str());
    }
}

// A refusal comes back with the core's code, its words and the scheduler's reasons per node, as an embedded core
// answers it: five hundred cores fit on no node of pool batch. A daemon that cannot be reached is a refusal saying so.
void TestRemoteBackend::nodeRowsAreFollowedByFingerprintsAndUsage()
{
    const std::string token = m_token.toStdString();
    const auto get = [&](const std::string& target, int* status = nullptr) {
        return fixture::call(m_apiPort, token, HttpMethod::Get, target, {}, status);
    };
    const auto byId = [](const json& answer) {
        std::map<std::int64_t, json> rows;
        for (const json& row : answer["nodes"])
            rows[row["id"].get<std::int64_t>()] = row;
        return rows;
    };
    // A full read: each row carries the fingerprint of what is not usage, and the answer a cursor of heartbeats.
    const json full = get("/v1/nodes");
    QVERIFY2(full.contains("usageCursor") && full["usageCursor"].is_string(), full.dump().c_str());
    QCOMPARE(full["nodes"].size(), std::size_t(kNodes));
    for (const json& row : full["nodes"]) {
        json rest = row;
        for (const char* field : api::kNodeUsageFields)
            rest.erase(field);
        rest.erase(api::kPoolUsageField);
        rest.erase("fingerprint");
        for (json& device : rest["devices"])
            for (const char* field : api::kDeviceUsageFields)
                device.erase(field);
        QCOMPARE(row.value("fingerprint", std::string()), api::nodeFingerprint(rest));
    }

    // The usage heard since a cursor, merged into the rows read before, makes the rows a full read answers. Agents
    // beat every 200 ms here, so it is checked where no heartbeat fell between the usage and the full read.
    std::map<std::int64_t, json> rows = byId(full);
    std::string cursor = full["usageCursor"].get<std::string>();
    bool compared = false;
    std::size_t heardFrom = 0;
    for (int attempt = 0; attempt < 20 && !compared; ++attempt) {
        QTest::qWait(300);
        const json since = get("/v1/nodes?usageSince=" + cursor);
        QVERIFY2(since.contains("usageCursor") && since["nodes"].size() == std::size_t(kNodes), since.dump().c_str());
        for (const json& entry : since["nodes"]) {
            QVERIFY2(!entry.contains("cpuMillis") && !entry.contains("devices"), entry.dump().c_str()); // compact
            json& row = rows[entry["id"].get<std::int64_t>()];
            QCOMPARE(entry.value("fingerprint", std::string()), row.value("fingerprint", std::string()));
            if (entry.contains("usage")) {
                ++heardFrom;
                QVERIFY2(api::applyNodeUsage(row, entry["usage"]), entry.dump().c_str());
            }
        }
        cursor = since["usageCursor"].get<std::string>();
        const json now = get("/v1/nodes");
        const json after = get("/v1/nodes?usageSince=" + cursor);
        if (std::none_of(
                after["nodes"].begin(), after["nodes"].end(), [](const json& e) { return e.contains("usage"); })) {
            QCOMPARE(json(rows).dump(), json(byId(now)).dump());
            compared = true;
        }
    }
    QVERIFY2(compared, "a heartbeat fell between every usage read and full read");
    // Usage of another shape changes nothing in the row.
    for (const char* bad : { R"({"cpuUtilisation": 0.5})",
             R"({"cpuUtilisation": 0.5, "memoryUsedMiB": 1, "lastHeartbeatMs": 1, "heartbeats": "many"})",
             R"({"cpuUtilisation": 0.5, "memoryUsedMiB": 1, "lastHeartbeatMs": 1, "heartbeats": 2,
                 "devices": [{"index": 0, "utilisation": 0.5}]})",
             R"({"cpuUtilisation": 0.5, "memoryUsedMiB": 1, "lastHeartbeatMs": 1, "heartbeats": 2, "devices": [],
                 "poolUsage": [{"name": "web", "cpuMillis": 5}]})",
             R"({"cpuUtilisation": 0.5, "memoryUsedMiB": 1, "lastHeartbeatMs": 1, "heartbeats": 2, "devices": [],
                 "poolUsage": [{"name": "web", "cpuMillis": 5, "memoryMiB": 1, "netMbps": "fast"}]})",
             R"({"cpuUtilisation": 0.5, "memoryUsedMiB": 1, "lastHeartbeatMs": 1, "heartbeats": 2, "devices": [],
                 "poolUsage": {"web": 5}})",
             "[]" }) {
        json row = rows.begin()->second;
        QVERIFY2(!api::applyNodeUsage(row, json::parse(bad)), bad);
        QCOMPARE(row, rows.begin()->second);
    }
    QVERIFY(heardFrom >= std::size_t(kNodes));
    for (const auto& [id, row] : rows)
        QVERIFY2(row["heartbeats"].get<std::int64_t>() > byId(full)[id]["heartbeats"].get<std::int64_t>(),
            row.dump().c_str());

    // A placement changes the node's fingerprint, and `ids` reads that row alone.
    std::vector<std::string> started;
    const auto startWorkload = [&](const std::string& name) {
        const json submitted = fixture::call(m_apiPort, token, HttpMethod::Post, "/v1/workloads",
            json { { "name", name }, { "pool", "batch" }, { "latency", "batch" }, { "cpuMillis", 300 },
                { "memoryMiB", 128 } }
                .dump());
        QVERIFY2(submitted.contains("id"), submitted.dump().c_str());
        started.push_back("/v1/workloads/" + std::to_string(submitted["id"].get<std::int64_t>()));
        QTRY_COMPARE_WITH_TIMEOUT(get(started.back()).value("phase", std::string()), std::string("running"), 15'000);
    };
    startWorkload("fingerprinted");
    if (QTest::currentTestFailed())
        return;
    const std::string workload = started.back();
    const std::string node = get(workload).value("node", std::string());
    const json since = get("/v1/nodes?usageSince=" + cursor);
    std::vector<std::int64_t> changed;
    for (const json& entry : since["nodes"])
        if (entry["fingerprint"] != rows[entry["id"].get<std::int64_t>()]["fingerprint"]) {
            changed.push_back(entry["id"].get<std::int64_t>());
            QCOMPARE(entry.value("name", std::string()), node);
        }
    QCOMPARE(changed.size(), std::size_t(1));
    const json one = get("/v1/nodes?ids=" + std::to_string(changed[0]));
    QVERIFY2(one.contains("nodes") && one["nodes"].size() == 1, one.dump().c_str());
    QCOMPARE(one["nodes"][0]["name"].get<std::string>(), node);
    QCOMPARE(one["nodes"][0]["workloads"].get<std::int64_t>(), rows[changed[0]]["workloads"].get<std::int64_t>() + 1);

    // A console that has read the nodes once shows the next placement through the fingerprint.
    Console console(config(m_apiPort));
    QTRY_VERIFY_WITH_TIMEOUT(readyNodes(console.bridge.latest()) == kNodes, 10'000);
    startWorkload("fingerprinted-2");
    if (QTest::currentTestFailed())
        return;
    const std::map<std::int64_t, json> expected = byId(get("/v1/nodes"));
    const auto shown = [&] {
        const SnapshotPtr s = console.bridge.latest();
        for (const NodeRow& row : s->nodes)
            if (row.workloads != expected.at(row.id)["workloads"].get<int>()
                || row.cpuAllocatedMillis
                    != expected.at(row.id)["cpuMillis"].get<std::int64_t>()
                        - expected.at(row.id)["cpuMillisFree"].get<std::int64_t>())
                return false;
        return true;
    };
    QTRY_VERIFY_WITH_TIMEOUT(shown(), 5'000);
    QVERIFY2(console.failures.isEmpty(), qPrintable(console.failures.join(QLatin1Char('\n'))));

    // Bad cursors and ids are refused naming the query.
    int status = 0;
    json refused = get("/v1/nodes?usageSince=yesterday", &status);
    QCOMPARE(status, 400);
    QVERIFY2(refused.value("error", std::string()).find("usageSince") != std::string::npos, refused.dump().c_str());
    refused = get("/v1/nodes?usageSince=another-run.12", &status);
    QCOMPARE(status, 410);
    QVERIFY2(refused.value("error", std::string()).find("restarted") != std::string::npos, refused.dump().c_str());
    refused = get("/v1/nodes?ids=1,x", &status);
    QCOMPARE(status, 400);
    QVERIFY2(refused.value("error", std::string()).find("`ids`") != std::string::npos, refused.dump().c_str());
    // The workloads stop, so that the other tests see the cluster as before.
    for (const std::string& path : started)
        fixture::call(m_apiPort, token, HttpMethod::Delete, path);
}

void TestRemoteBackend::deviceRowsAreFollowedByWhatChanged()
{
    const std::string token = m_token.toStdString();
    const auto get = [&](const std::string& target, int* status = nullptr) {
        return fixture::call(m_apiPort, token, HttpMethod::Get, target, {}, status);
    };
    const auto byKey = [](const json& answer) {
        std::map<std::int64_t, json> rows;
        for (const json& row : answer["devices"])
            rows[row["key"].get<std::int64_t>()] = row;
        return rows;
    };
    // What a later answer says, merged into the rows held; the number of rows sent whole and of usage entries.
    const auto merge
        = [](std::map<std::int64_t, json>& rows, const json& since, std::size_t& whole, std::size_t& usage) {
              for (const json& row : since["devices"]) {
                  rows[row["key"].get<std::int64_t>()] = row;
                  ++whole;
              }
              for (const json& u : since["usage"]) {
                  QVERIFY2(rows.count(u[0].get<std::int64_t>()), u.dump().c_str());
                  json& row = rows[u[0].get<std::int64_t>()];
                  row["utilisation"] = u[1];
                  row["memoryUsedMiB"] = u[2];
                  ++usage;
              }
              if (since.contains("keys")) {
                  std::set<std::int64_t> keep;
                  for (const json& key : since["keys"])
                      keep.insert(key.get<std::int64_t>());
                  std::erase_if(rows, [&](const auto& entry) { return !keep.count(entry.first); });
              }
          };
    const json full = get("/v1/devices");
    QVERIFY2(full.contains("cursor") && full["cursor"].is_string(), full.dump().substr(0, 300).c_str());
    QVERIFY(!full.contains("usage") && !full.contains("changedSince"));
    std::map<std::int64_t, json> rows = byKey(full);
    QVERIFY(!rows.empty());

    // Changes since a cursor, merged into the rows read before, make the rows a full read answers; agents beat every
    // 200 ms, so it is checked where nothing changed between the last changes and the full read.
    std::string cursor = full["cursor"].get<std::string>();
    std::size_t whole = 0, usage = 0;
    bool compared = false;
    for (int attempt = 0; attempt < 20 && !compared; ++attempt) {
        QTest::qWait(300);
        const json since = get("/v1/devices?changedSince=" + cursor);
        QVERIFY2(since.value("changedSince", std::string()) == cursor, since.dump().substr(0, 300).c_str());
        QVERIFY(since["usage"].is_array());
        merge(rows, since, whole, usage);
        if (QTest::currentTestFailed())
            return;
        cursor = since["cursor"].get<std::string>();
        const json now = get("/v1/devices");
        const json after = get("/v1/devices?changedSince=" + cursor);
        if (after["devices"].empty() && after["usage"].empty()) {
            QCOMPARE(json(rows).dump(), json(byKey(now)).dump());
            compared = true;
        }
    }
    QVERIFY2(compared, "a device changed between every read of the changes and the full read");
    // Nothing but usage changed (the fleet's devices here run at a steady 30 %, so there may be none): no row went
    // out whole. Usage alone is followed in tst_view_json, with heartbeats of changing utilisation.
    QCOMPARE(whole, std::size_t(0));
    QVERIFY(usage <= rows.size() * 20);

    // A placement on a GPU sends that device's row whole (its holders changed), and only that one.
    const json submitted = fixture::call(m_apiPort, token, HttpMethod::Post, "/v1/workloads",
        json { { "name", "gpu-followed" }, { "pool", "batch" }, { "latency", "batch" }, { "cpuMillis", 100 },
            { "memoryMiB", 64 }, { "accelerators", { { "kind", "gpu" }, { "share", 250 } } } }
            .dump());
    QVERIFY2(submitted.contains("id"), submitted.dump().c_str());
    const std::string workload = "/v1/workloads/" + std::to_string(submitted["id"].get<std::int64_t>());
    QTRY_COMPARE_WITH_TIMEOUT(get(workload).value("phase", std::string()), std::string("running"), 15'000);
    const json since = get("/v1/devices?changedSince=" + cursor);
    QVERIFY2(!since.contains("keys"), since.dump().substr(0, 300).c_str()); // no device came or went
    QCOMPARE(since["devices"].size(), std::size_t(1));
    const json& held = since["devices"][0];
    QCOMPARE(held["holders"].size(), std::size_t(1));
    QCOMPARE(held["holders"][0]["name"].get<std::string>(), std::string("gpu-followed"));
    QCOMPARE(held["shareAllocated"].get<std::int64_t>(),
        rows[held["key"].get<std::int64_t>()]["shareAllocated"].get<std::int64_t>() + 250);

    // A console that has read the devices once shows the holder through the changes.
    Console console(config(m_apiPort));
    QTRY_VERIFY_WITH_TIMEOUT(console.bridge.latest() && !console.bridge.latest()->devices.empty(), 10'000);
    fixture::call(m_apiPort, token, HttpMethod::Delete, workload);
    const auto shownFreed = [&] {
        for (const DeviceRow& row : console.bridge.latest()->devices)
            if (row.key == held["key"].get<std::int64_t>())
                return row.holders.empty();
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(shownFreed(), 10'000);
    QVERIFY2(console.failures.isEmpty(), qPrintable(console.failures.join(QLatin1Char('\n'))));

    // Bad cursors are refused naming the query; another run's is gone.
    int status = 0;
    json refused = get("/v1/devices?changedSince=yesterday", &status);
    QCOMPARE(status, 400);
    QVERIFY2(refused.value("error", std::string()).find("`changedSince`") != std::string::npos, refused.dump().c_str());
    refused = get("/v1/devices?changedSince=" + cursor.substr(0, cursor.find('.')) + ".99999999", &status);
    QCOMPARE(status, 400); // ahead of the daemon
    refused = get("/v1/devices?changedSince=another-run.1", &status);
    QCOMPARE(status, 410);
    QVERIFY2(refused.value("error", std::string()).find("restarted") != std::string::npos, refused.dump().c_str());
}

void TestRemoteBackend::aRefusedMoveSaysWhyWithTheSchedulersReasons()
{
    const std::string token = m_token.toStdString();
    const json submitted = fixture::call(m_apiPort, token, HttpMethod::Post, "/v1/workloads",
        json { { "name", "too-big" }, { "latency", "batch" }, { "cpuMillis", 500'000 }, { "memoryMiB", 64 } }.dump());
    QVERIFY2(submitted.is_object() && submitted.contains("id"), submitted.dump().c_str());
    const std::int64_t big = submitted["id"].get<std::int64_t>();

    Console console(config(m_apiPort));
    QSignalSpy moved(&console.bridge, &CoreBridge::moveFinished);
    console.bridge.move(big, {}, {}, QStringLiteral("batch"));
    QTRY_COMPARE_WITH_TIMEOUT(moved.size(), 1, 10'000);
    auto result = moved.takeFirst().at(0).value<MoveResult>();
    QVERIFY(!result.ok);
    QCOMPARE(result.workloadId, big);
    QCOMPARE(result.workload, std::string("too-big"));
    QCOMPARE(result.refusal, std::string("no_feasible_node"));
    QCOMPARE(result.pool, std::string("batch"));
    QCOMPARE(result.nodesConsidered, kNodes);
    QVERIFY(!result.reasons.empty());
    QCOMPARE(result.reasons.front().reason, std::string("insufficient CPU"));
    int counted = 0;
    for (const ReasonCount& r : result.reasons)
        counted += r.nodes;
    QCOMPARE(counted, kNodes);
    QVERIFY2(result.message.find("cannot take workload " + std::to_string(big)) != std::string::npos,
        result.message.c_str());
    QVERIFY2(
        moveResultText(result).contains(rejectReasonLabel("insufficient CPU")), qPrintable(moveResultText(result)));
    // Nothing moved.
    QCOMPARE(fixture::call(m_apiPort, token, HttpMethod::Get, "/v1/workloads/" + std::to_string(big))
                 .value("phase", std::string()),
        std::string("pending"));
    fixture::call(m_apiPort, token, HttpMethod::Delete, "/v1/workloads/" + std::to_string(big));

    // No daemon at all: refused, saying it could not be reached.
    Console nowhere(config(fixture::freePort()));
    QSignalSpy unanswered(&nowhere.bridge, &CoreBridge::moveFinished);
    nowhere.bridge.move(big, {}, QStringLiteral("warm"));
    QTRY_COMPARE_WITH_TIMEOUT(unanswered.size(), 1, 15'000);
    result = unanswered.takeFirst().at(0).value<MoveResult>();
    QVERIFY(!result.ok);
    QCOMPARE(result.refusal, std::string("unreachable"));
    QVERIFY2(result.message.find("cannot reach tidepoold at http://127.0.0.1:") != std::string::npos,
        result.message.c_str());
}

void TestRemoteBackend::commandsAfterStopAreRefused()
{
    Console console(config(m_apiPort));
    console.backend->stop();
    console.backend->stop(); // idempotent
    QSignalSpy finished(&console.bridge, &CoreBridge::commandFinished);
    console.bridge.approve(m_raiseWeb1, {});
    QTRY_COMPARE(finished.size(), 1);
    const auto outcome = finished.takeFirst().at(0).value<CommandOutcome>();
    QVERIFY(!outcome.ok);
    QCOMPARE(outcome.message, std::string("the console has stopped"));
}

// Show output… through tidepoold: the daemon asks the agent of the workload's node, here one of tidepool-fleet's
// simulated agents, whose answer (it runs nothing) the dialog shows; so for either stream, and after a stop.
void TestRemoteBackend::showOutputAsksTheWorkloadsAgent()
{
    Console console(config(m_apiPort));
    QSignalSpy read(&console.bridge, &CoreBridge::logsRead);
    LogsDialog dialog(console.bridge, m_workload, QStringLiteral("etl-1"));
    QTRY_COMPARE_WITH_TIMEOUT(read.size(), 1, 10'000);
    LogsResult result = read.takeFirst().at(0).value<LogsResult>();
    QCOMPARE(result.workloadId, m_workload);
    QVERIFY(!result.ok && !result.stderrStream);
    QVERIFY2(result.message.find("is simulated (tidepool-fleet): its workloads run nothing") != std::string::npos
            && result.message.find("(HTTP 404)") != std::string::npos,
        result.message.c_str());
    QVERIFY2(dialog.status()->text().startsWith(QStringLiteral("No output to show: "))
            && dialog.status()->text().contains(QStringLiteral("tidepool-fleet")),
        qPrintable(dialog.status()->text()));
    QVERIFY(dialog.text()->toPlainText().isEmpty());

    dialog.streamBox()->setCurrentIndex(1); // asks again, for stderr
    QTRY_COMPARE_WITH_TIMEOUT(read.size(), 1, 10'000);
    result = read.takeFirst().at(0).value<LogsResult>();
    QVERIFY(result.stderrStream);

    // A workload the daemon does not know: its words.
    console.bridge.readLogs(99'999'999, false);
    QTRY_COMPARE_WITH_TIMEOUT(read.size(), 1, 10'000);
    result = read.takeFirst().at(0).value<LogsResult>();
    QVERIFY2(result.message == "no workload has id 99999999 (HTTP 404)", result.message.c_str());

    console.backend->stop();
    dialog.refresh();
    QTRY_COMPARE_WITH_TIMEOUT(read.size(), 1, 5'000);
    QCOMPARE(read.takeFirst().at(0).value<LogsResult>().message, std::string("the console has stopped"));
}

// Show output…'s Follow against a real agent (its own daemon, so that the workload runs there): the text grows as the
// workload writes, each byte once, the last line without its newline too, and following stops by itself once the
// workload has ended and all it wrote is shown. Then Previous launch, of a workload its restart policy started again.
// Root, for the agent's cgroups.
void TestRemoteBackend::followShowsTheOutputAsItIsWritten()
{
    namespace fs = std::filesystem;
    if (::geteuid() != 0)
        QSKIP("needs root: a real agent creates cgroups");
    if (!fs::exists("/sys/fs/cgroup/cgroup.controllers") && !fs::exists("/sys/fs/cgroup/cpu")
        && !fs::exists("/sys/fs/cgroup/cpu,cpuacct"))
        QSKIP("no cgroup cpu controller is mounted");
    QProcess daemon;
    std::uint16_t agentPort = 0;
    const std::uint16_t api = fixture::startDaemon(daemon,
        { QStringLiteral("--db"), m_dir.filePath(QStringLiteral("follow.db")), QStringLiteral("--join-token-file"),
            m_joinFile, QStringLiteral("--operator-token-file"), m_tokenFile },
        m_dir.filePath(QStringLiteral("follow-daemon.log")), &agentPort);
    QVERIFY2(api != 0, "tidepoold stopped before it was ready");
    const std::string base = "tidepool-ui-follow-" + std::to_string(::getpid());
    QProcess agent;
    fixture::killWithParent(agent);
    agent.setProcessChannelMode(QProcess::MergedChannels);
    agent.setStandardOutputFile(m_dir.filePath(QStringLiteral("follow-agent.log")));
    agent.start(fixture::binary("tidepool-agent"),
        { QStringLiteral("--core"), QStringLiteral("127.0.0.1:%1").arg(agentPort), QStringLiteral("--join-token-file"),
            m_joinFile, QStringLiteral("--state-dir"), m_dir.filePath(QStringLiteral("follow-agent")),
            QStringLiteral("--name"), QStringLiteral("real-1"), QStringLiteral("--accelerator-file"), QString(),
            QStringLiteral("--no-slowdown"), QStringLiteral("--cgroup-name"), QString::fromStdString(base) });
    QVERIFY(agent.waitForStarted());
    const auto cleanUp = qScopeGuard([&] {
        fixture::stopProcess(&agent);
        fixture::stopProcess(&daemon);
        // The agent leaves its base cgroups, empty: removed, the deepest first, in every hierarchy.
        std::vector<fs::path> dirs;
        std::error_code ec;
        for (fs::recursive_directory_iterator it("/sys/fs/cgroup", fs::directory_options::skip_permission_denied, ec),
             end;
             !ec && it != end; it.increment(ec))
            if (it->is_directory(ec) && !it->is_symlink(ec) && it->path().string().find(base) != std::string::npos)
                dirs.push_back(it->path());
        std::sort(
            dirs.begin(), dirs.end(), [](const fs::path& a, const fs::path& b) { return a.string() > b.string(); });
        for (const fs::path& dir : dirs)
            ::rmdir(dir.c_str());
    });
    const std::string token = m_token.toStdString();
    QTRY_COMPARE_WITH_TIMEOUT(
        fixture::call(api, token, HttpMethod::Get, "/v1/summary").value("/nodes/ready"_json_pointer, 0), 1, 30'000);
    const json submitted = fixture::call(api, token, HttpMethod::Post, "/v1/workloads",
        json { { "name", "ticker" }, { "cpuMillis", 100 }, { "memoryMiB", 16 },
            { "command",
                { "/bin/sh", "-c",
                    "i=0; while [ $i -lt 8 ]; do echo tick $i; i=$((i+1)); sleep 0.3; done; printf 'done'" } } }
            .dump());
    QVERIFY2(submitted.is_object() && submitted.contains("id"), submitted.dump().c_str());

    Console console(config(api));
    QSignalSpy read(&console.bridge, &CoreBridge::logsRead);
    LogsDialog dialog(console.bridge, submitted["id"].get<std::int64_t>(), QStringLiteral("ticker"));
    dialog.setFollowInterval(std::chrono::milliseconds(50));
    dialog.followBox()->setChecked(true);
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.followBox()->isChecked(), 30'000);
    QCOMPARE(dialog.text()->toPlainText(),
        QStringLiteral("tick 0\ntick 1\ntick 2\ntick 3\ntick 4\ntick 5\ntick 6\ntick 7\ndone"));
    QVERIFY2(dialog.status()->text().startsWith(QStringLiteral("It has ended (succeeded): that is all of its standard "
                                                               "output.")),
        qPrintable(dialog.status()->text()));
    // It was read as it was written, in several reads, not at the end in one.
    int withData = 0;
    for (const QList<QVariant>& answer : read)
        withData += answer.at(0).value<LogsResult>().data.empty() ? 0 : 1;
    QVERIFY2(withData >= 3, qPrintable(QString::number(withData)));
    // Each read waited at the agent for the next line (`waitMs`), rather than asking every 50 ms for 2.4 s.
    QVERIFY2(read.size() < 30, qPrintable(QString::number(read.size())));

    // A workload its restart policy started again (its first launch exits 3, the second runs on): the console counts
    // the restart, the dialog shows the current launch, and with Previous launch the one before it, not followed.
    const json flaky = fixture::call(api, token, HttpMethod::Post, "/v1/workloads",
        json { { "name", "flaky" }, { "cpuMillis", 100 }, { "memoryMiB", 16 }, { "restart", "on-failure" },
            { "command",
                { "/bin/sh", "-c",
                    "echo run $TIDEPOOL_INCARNATION; [ $TIDEPOOL_INCARNATION -ge 1 ] && exec sleep 600; exit 3" } } }
            .dump());
    QVERIFY2(flaky.is_object() && flaky.contains("id"), flaky.dump().c_str());
    const std::int64_t flakyId = flaky["id"].get<std::int64_t>();
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const SnapshotPtr s = console.bridge.latest();
            return s && std::any_of(s->workloads.begin(), s->workloads.end(), [&](const WorkloadRow& w) {
                return w.id == flakyId && w.restarts == 1 && w.phase == "running";
            });
        }(),
        30'000);
    LogsDialog output(console.bridge, flakyId, QStringLiteral("flaky"));
    QTRY_COMPARE_WITH_TIMEOUT(output.text()->toPlainText(), QStringLiteral("run 1\n"), 15'000);
    output.previousBox()->setChecked(true);
    QVERIFY(!output.followBox()->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(output.text()->toPlainText(), QStringLiteral("run 0\n"), 15'000);
    QVERIFY2(output.status()->text().contains(QStringLiteral("of its previous launch (launch 0;")),
        qPrintable(output.status()->text()));
    output.previousBox()->setChecked(false);
    QVERIFY(output.followBox()->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(output.text()->toPlainText(), QStringLiteral("run 1\n"), 15'000);
    fixture::call(api, token, HttpMethod::Delete, "/v1/workloads/" + std::to_string(flakyId));

    // A follower's read waiting at the agent holds up nothing: the polls go on (on their own connection), and the
    // console stops at once, cancelling the read.
    const json quiet = fixture::call(api, token, HttpMethod::Post, "/v1/workloads",
        json { { "name", "quiet" }, { "cpuMillis", 100 }, { "memoryMiB", 16 },
            { "command", { "/bin/sh", "-c", "echo start; exec sleep 600" } } }
            .dump());
    QVERIFY2(quiet.is_object() && quiet.contains("id"), quiet.dump().c_str());
    LogsDialog waiting(console.bridge, quiet["id"].get<std::int64_t>(), QStringLiteral("quiet"));
    waiting.followBox()->setChecked(true);
    QTRY_COMPARE_WITH_TIMEOUT(waiting.text()->toPlainText(), QStringLiteral("start\n"), 15'000);
    QTest::qWait(500); // its next read waits at the agent
    const std::uint64_t before = console.bridge.latest()->sequence;
    QTRY_VERIFY_WITH_TIMEOUT(console.bridge.latest()->sequence >= before + 3, 5'000);
    QVERIFY(waiting.followBox()->isChecked());
    QElapsedTimer stopping;
    stopping.start();
    console.backend->stop();
    QVERIFY2(stopping.elapsed() < 5000, std::to_string(stopping.elapsed()).c_str());
    fixture::call(api, token, HttpMethod::Delete, "/v1/workloads/" + std::to_string(quiet["id"].get<std::int64_t>()));
}

// `--connect https://… --ca FILE`: with the CA that signed the daemon's certificate the console attaches; with another
// CA it shows a failure naming the URL and why the certificate was refused, and nothing of the daemon.
void TestRemoteBackend::theViewsAreTheDaemonsFeed()
{
    // What the daemon has: its devices (in /v1/nodes) and the forecasts its evaluation stored.
    const std::string token = m_token.toStdString();
    const json nodes = fixture::call(m_apiPort, token, HttpMethod::Get, "/v1/nodes");
    std::size_t devices = 0;
    for (const json& n : nodes.value("nodes", json::array()))
        devices += n.value("devices", json::array()).size();
    Console console(config(m_apiPort));
    auto ready = [&] {
        const SnapshotPtr s = console.bridge.latest();
        return s && s->devices.size() == devices && !s->deviceHistory.empty() && !s->events.empty()
            && std::any_of(s->forecasts.begin(), s->forecasts.end(),
                [](const ForecastSeriesPtr& f) { return f->name == "web-0" && !f->model.empty(); });
    };
    QTRY_VERIFY_WITH_TIMEOUT(ready(), 15'000);
    const SnapshotPtr s = console.bridge.latest();
    QVERIFY2(console.failures.isEmpty(), qPrintable(console.failures.join(QLatin1Char('\n'))));
    // Every device of the daemon's nodes, with the frame the feed sampled of each.
    for (const json& n : nodes["nodes"])
        for (std::size_t d = 0; d < n["devices"].size(); ++d) {
            const auto key = DeviceRow::keyOf(n["id"].get<std::int32_t>(), static_cast<std::int32_t>(d));
            const auto row = std::find_if(
                s->devices.begin(), s->devices.end(), [&](const DeviceRow& r) { return r.key == key; });
            QVERIFY2(row != s->devices.end(), n.dump().c_str());
            QCOMPARE(row->node, n["name"].get<std::string>());
            QCOMPARE(row->shareCapacity, n["devices"][d]["shareCapacity"].get<std::int32_t>());
        }
    // Frames as the daemon's collector took them (the first when it started, before the agents came).
    for (const DeviceFramePtr& frame : s->deviceHistory)
        QCOMPARE(frame->values.size(), std::size_t { frame->layout->firstOfNode.back() });
    // The placement of the workload started in initTestCase, as the daemon's event log has it.
    QVERIFY(std::any_of(s->events.begin(), s->events.end(),
        [](const EventRowPtr& e) { return e->subject == "etl-1" && e->category == "placement"; }));
    // The stored forecast with its history of the seeded week.
    const auto web0 = *std::find_if(s->forecasts.begin(), s->forecasts.end(),
        [](const ForecastSeriesPtr& f) { return f->name == "web-0" && !f->model.empty(); });
    QVERIFY(!web0->history.empty());
    QVERIFY(!web0->forecast.empty());
    for (const ForecastPoint& p : web0->forecast)
        QVERIFY(p.p10 <= p.mean && p.mean <= p.p90);

    // A new event reaches the console at its next poll, after those it has, not as a second copy of them.
    const std::size_t before = s->events.size();
    const json submitted = fixture::call(m_apiPort, token, HttpMethod::Post, "/v1/workloads",
        json { { "name", "etl-feed" }, { "pool", "batch" }, { "latency", "batch" }, { "cpuMillis", 100 },
            { "memoryMiB", 64 } }
            .dump());
    QVERIFY2(submitted.contains("id"), submitted.dump().c_str());
    auto placed = [&] {
        const SnapshotPtr now = console.bridge.latest();
        return std::any_of(now->events.begin(), now->events.end(),
            [](const EventRowPtr& e) { return e->subject == "etl-feed" && e->category == "placement"; });
    };
    QTRY_VERIFY_WITH_TIMEOUT(placed(), 10'000);
    const SnapshotPtr after = console.bridge.latest();
    QVERIFY(after->events.size() > before);
    for (std::size_t i = 1; i < after->events.size(); ++i)
        QVERIFY(after->events[i - 1]->sequence < after->events[i]->sequence);
    QVERIFY2(console.failures.isEmpty(), qPrintable(console.failures.join(QLatin1Char('\n'))));

    // The routes are the viewer's reads; their queries are checked.
    const auto bad = fixture::call(m_apiPort, token, HttpMethod::Get, "/v1/events?after=-1");
    QVERIFY2(bad.value("error", std::string()).find("`after`") != std::string::npos, bad.dump().c_str());
    // Asked with the revision it has, the daemon sends the series again only when one changed (a backtest that ends
    // between the two calls moves it: then again).
    bool unchanged = false;
    for (int attempt = 0; attempt < 5 && !unchanged; ++attempt) {
        const auto revision
            = fixture::call(m_apiPort, token, HttpMethod::Get, "/v1/forecasts").value("revision", std::int64_t { -1 });
        QVERIFY(revision >= 0);
        const json again = fixture::call(
            m_apiPort, token, HttpMethod::Get, "/v1/forecasts?ifRevision=" + std::to_string(revision));
        unchanged = again.value("unchanged", false) && !again.contains("series");
    }
    QVERIFY(unchanged);
}

void TestRemoteBackend::httpsIsVerifiedAgainstTheCa()
{
    for (const char* dir : { "tls", "other-tls" }) {
        QProcess certs;
        certs.start(fixture::binary("tidepoold"),
            { QStringLiteral("certs"), QStringLiteral("init"), QStringLiteral("--dir"), m_dir.filePath(QLatin1String(dir)),
                QStringLiteral("--names"), QStringLiteral("core.test"), QStringLiteral("--agents"), QStringLiteral("0"),
                // Ten days: the daemon's certificate is expiring, and a console attached to it is told.
                QStringLiteral("--days"), QStringLiteral("10") });
        QVERIFY(certs.waitForFinished(30'000));
        QVERIFY2(certs.exitCode() == 0, certs.readAllStandardError().constData());
    }
    m_secure = std::make_unique<QProcess>();
    const QString pem = m_dir.filePath(QStringLiteral("tls/core.pem"));
    const QString key = m_dir.filePath(QStringLiteral("tls/core.key"));
    const std::uint16_t port = fixture::startDaemon(*m_secure,
        { QStringLiteral("--join-token-file"), m_joinFile, QStringLiteral("--operator-token-file"), m_tokenFile,
            QStringLiteral("--api-tls-cert"), pem, QStringLiteral("--api-tls-key"), key },
        m_dir.filePath(QStringLiteral("secure.log")));
    QVERIFY(port != 0);
    const auto secureConfig = [&](const char* caDir) {
        RemoteConfig c = config(port);
        c.endpoint = *parseConnectUrl("https://127.0.0.1:" + std::to_string(port));
        c.caFile = m_dir.filePath(QLatin1String(caDir) + QStringLiteral("/ca.pem")).toStdString();
        return c;
    };
    {
        Console trusted(secureConfig("tls"));
        QTRY_VERIFY_WITH_TIMEOUT(trusted.bridge.latest() != nullptr, 10'000);
        QVERIFY2(trusted.failures.isEmpty(), qPrintable(trusted.failures.join(QLatin1Char('\n'))));
        // The alert is the daemon's (its certificate file, on its machine), through GET /v1/alerts.
        const auto alerts = trusted.bridge.latest()->alerts;
        const auto expiring = std::find_if(alerts.begin(), alerts.end(),
            [](const AlertRow& a) { return a.kind == "certificate-expiring"; });
        QVERIFY2(expiring != alerts.end(), "no certificate-expiring alert");
        QCOMPARE(QString::fromStdString(expiring->subject), pem);
        const std::int64_t inDays = (expiring->value - trusted.bridge.latest()->nowMs) / 86'400'000;
        QVERIFY2(inDays >= 9 && inDays <= 10, qPrintable(QString::number(inDays)));
    }
    Console foreign(secureConfig("other-tls"));
    QTRY_VERIFY_WITH_TIMEOUT(!foreign.failures.isEmpty(), 10'000);
    const QString message = foreign.failures.first();
    QVERIFY2(message.contains(QStringLiteral("https://127.0.0.1:") + QString::number(port)), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("unable to get local issuer certificate")), qPrintable(message));
    QVERIFY(!foreign.bridge.latest());
    fixture::stopProcess(m_secure.get());
}

QTEST_MAIN(TestRemoteBackend)
#include "tst_remote_backend.moc"
