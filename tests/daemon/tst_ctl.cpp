// tidepoolctl against the real binaries on loopback: a `tidepoold` on ephemeral ports and a `tidepool-fleet` of five
// simulated agents, driven through QProcess as an operator would. It protects what operators and scripts rely on:
// the table and JSON outputs of every command, the exit status (0 done, 1 refused or unreachable, 2 a wrong command
// line) with a message naming the option, the daemon's error or the address, and that the token is never printed.
// The daemon records history every second, so that `series` and `history` have points to show; a second daemon,
// started on a database seeded with a week of history, has real proposals to approve and reject.
// The daemons and the fleet are stopped in `cleanupTestCase`; should the test die first, the kernel kills them
// (`PR_SET_PDEATHSIG`).

#include "core/api/api_client.h"
#include "core/api/control_plane.h"
#include "core/api/http_api.h"
#include "core/model/pool.h"
#include "core/store/store.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <QDateTime>
#include <QDeadlineTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <memory>
#include <utility>

using namespace tidepool;
using nlohmann::json;

// QCOMPARE prints both sides of a failed comparison of `std::string`s.
template <> inline char* QTest::toString(const std::string& s)
{
    return qstrdup(s.c_str());
}

namespace {

constexpr int kNodes = 5;

QString binary(const char* name)
{
    return QString::fromUtf8(TIDEPOOL_BIN_DIR) + QLatin1Char('/') + QString::fromUtf8(name);
}

QString randomToken()
{
    static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    QString token;
    for (int i = 0; i < 32; ++i)
        token += QLatin1Char(kAlphabet[QRandomGenerator::system()->bounded(int(sizeof kAlphabet) - 1)]);
    return token;
}

json parsed(const QString& text)
{
    return json::parse(text.toStdString(), nullptr, false); // a discarded value when it is not JSON
}

// Accessors that never throw, so that a wrong response fails the one check instead of the whole run.
json at(const json& j, const char* pointer)
{
    const json::json_pointer p(pointer);
    return j.is_structured() && j.contains(p) ? j.at(p) : json();
}

int num(const json& j, const char* pointer)
{
    const json v = at(j, pointer);
    return v.is_number_integer() ? v.get<int>() : -1;
}

std::string str(const json& j, const char* pointer)
{
    const json v = at(j, pointer);
    return v.is_string() ? v.get<std::string>() : std::string("<missing>");
}

// The cells of a table row; every column but the last (DETAIL) is a single word.
QStringList cells(const QString& line)
{
    return line.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
}

// If this test dies without cleaning up (a crash, an abort, an escaped exception), the kernel kills the daemon and
// the fleet it started too.
void killWithParent(QProcess& process)
{
    process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
}

struct CtlRun {
    int exitCode = -1;
    QString out;
    QString err;
};

QStringList lines(const QString& text)
{
    return text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

bool hasLine(const QString& text, const QString& pattern)
{
    return text.contains(QRegularExpression(pattern, QRegularExpression::MultilineOption));
}

// How tidepoolctl prints a time: UTC, ISO 8601 to the second.
QString utc(std::int64_t ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(QStringLiteral("yyyy-MM-dd'T'HH:mm:ss'Z'"));
}

const QString kIsoTime = QStringLiteral("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");

// The columns a terminal gives the text of these tests: CJK ideographs and emoji two, combining accents none.
int columns(const QString& text)
{
    int n = 0;
    for (const char32_t c : text.toUcs4())
        n += c >= 0x0300 && c <= 0x036F ? 0 : (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x1F300 && c <= 0x1FAFF) ? 2 : 1;
    return n;
}

// A database as a daemon would have left it after a week (as tst_durability seeds it): pools web-0 … web-N-1
// (4000 mCPU quota each) whose CPU demand swings daily up to 4500 mCPU with the peak 30 minutes from now, and a
// pool "batch" (a steady 2000 mCPU of its 1,000,000 quota) with slack to give, so that an evaluation proposes
// raising each web pool.
void seedWeekOfHistory(const std::string& path, int webPools)
{
    auto opened = store::openSqliteStore(path);
    QVERIFY(opened);
    store::Store& s = **opened;
    constexpr std::int64_t kStep = store::kAggregateBucketMs;
    const std::int64_t now = api::unixMillis() / kStep * kStep;
    const double pi = std::acos(-1.0);
    std::vector<store::Sample> samples;
    for (int i = 0; i < webPools; ++i) {
        const std::string name = "web-" + std::to_string(i);
        s.putPool({ name, "web", "", 4000, kUnlimited, 100 });
        for (std::int64_t t = now - 7 * 86'400'000LL; t < now; t += kStep)
            samples.push_back({ { "pool", name, "cpu" }, t,
                3000 + 1500 * std::cos(2 * pi * static_cast<double>(t - now - 1'800'000) / 86'400'000.0) });
    }
    for (std::int64_t t = now - 7 * 86'400'000LL; t < now; t += kStep)
        samples.push_back({ { "pool", "batch", "cpu" }, t, 2000.0 });
    s.putPool({ "batch", "research", "", 1'000'000, kUnlimited, 100 });
    s.addSamples(samples);
    QVERIFY(s.commit());
    QVERIFY(s.maintain(now, store::Retention { 0, 0, 0, 0, 0 }));
}

} // namespace

class TestCtl : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void cleanup();

    void summaryCountsReadyNodes();
    void submitTablePrintsIdPhaseAndNode();
    void submitJsonIsTheDaemonsObject();
    void submitFileBatchAndGpuShare();
    void listFiltersByPhaseNodeAndLimit();
    void getShowsOneWorkload();
    void logsOfASimulatedNodeSayWhyThereAreNone();
    void whyExplainsPendingWithNodeCounts();
    void cancelStopsOnceThenRefuses();
    void nodesTableAndDetail();
    void poolsCreateAndSetKeepsOtherFields();
    void poolsDeleteWaitsForItsWorkToEnd();
    void tablesPadByDisplayWidthAndEscapeHostileText();
    void quotaOfNothingIsRefusedAlikeByPoolsSetAndWhatIf();
    void workloadAskingForNothingIsRefused();
    void moveIntoAPoolOntoANodeAndRefusalsWithReasons();
    void aWorkloadIsResizedInPlaceOrWhileItWaits();
    void aNodeIsCordonedDrainedAndUncordoned();
    void aPacedDrainIsWaitedForUntilTheNodeIsEmpty();
    void aPoolsDisruptionBudgetHoldsADrain();
    void seriesAndHistoryShowRecordedPoints();
    void historyAndAuditTakeIsoDatesAndRelativeTimes();
    void auditShowsTheSubmitByTheTokensFingerprint();
    void eventsListAndFollowTheTimeline();
    void aLaunchPastItsMaximumRuntimeFails();
    void proposalsOnAFreshDaemonIsAnEmptyTable();
    void evaluateWithoutHistoryProposesNothing();
    void whatIfPrintsTheReSimulation();
    void proposalShowOfAnUnknownIdNamesIt();
    void proposalsApproveAndRejectOnSeededHistory();
    void wrongTokenIsRefused();
    void usageErrorsExitTwoNamingTheOption_data();
    void usageErrorsExitTwoNamingTheOption();
    void unreachableServerIsNamed();
    void environmentGivesTheDefaults();
    void apiClientReturnsStatusAndBody();

private:
    CtlRun ctl(const QStringList& args, const QString& tokenFile = {}, const QProcessEnvironment& env = cleanEnv());
    std::uint16_t startDaemon(QProcess& daemon, const QString& db, const QString& log, const QStringList& extra,
        QString* agentPort = nullptr);
    static QProcessEnvironment cleanEnv();
    QString writeFile(const QString& name, const QByteArray& content);
    std::string workloadPhase(const std::string& id);
    std::string submitJson(const QStringList& args);
    // The node workload `id` is placed on ("" for none), and each of `ids` moved onto `node` where it is elsewhere.
    std::string nodeOfWorkload(const std::string& id);
    void moveAllTo(const std::vector<std::string>& ids, const std::string& node);

    QTemporaryDir m_dir;
    QString m_token;
    QString m_tokenFile;
    QString m_joinFile;
    QString m_api; // 127.0.0.1:PORT
    std::uint16_t m_apiPort = 0;
    std::unique_ptr<QProcess> m_daemon;
    std::unique_ptr<QProcess> m_fleet;
    std::unique_ptr<QProcess> m_seeded; // the daemon on seeded history, for proposals
    bool m_tokenPrinted = false;
    std::string m_webId; // a running workload
    std::string m_webNode;
    std::string m_hugeId; // a workload no node can take
};

QProcessEnvironment TestCtl::cleanEnv()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("TIDEPOOL_SERVER"));
    env.remove(QStringLiteral("TIDEPOOL_TOKEN_FILE"));
    return env;
}

QString TestCtl::writeFile(const QString& name, const QByteArray& content)
{
    const QString path = m_dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(content) != content.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

CtlRun TestCtl::ctl(const QStringList& args, const QString& tokenFile, const QProcessEnvironment& env)
{
    QProcess process;
    process.setProcessEnvironment(env);
    QStringList all;
    if (!env.contains(QStringLiteral("TIDEPOOL_SERVER")))
        all << QStringLiteral("--server") << m_api;
    if (!env.contains(QStringLiteral("TIDEPOOL_TOKEN_FILE")))
        all << QStringLiteral("--token-file") << (tokenFile.isEmpty() ? m_tokenFile : tokenFile);
    process.start(binary("tidepoolctl"), all + args);
    CtlRun run;
    if (!process.waitForFinished(30'000)) {
        process.kill();
        process.waitForFinished();
        run.err = QStringLiteral("tidepoolctl did not finish within 30 s");
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    if (run.out.contains(m_token) || run.err.contains(m_token))
        m_tokenPrinted = true;
    return run;
}

std::string TestCtl::workloadPhase(const std::string& id)
{
    const CtlRun run
        = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("get"), QString::fromStdString(id) });
    json j = parsed(run.out);
    return str(j, "/phase");
}

std::string TestCtl::nodeOfWorkload(const std::string& id)
{
    return str(
        parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("get"), QString::fromStdString(id) })
                   .out),
        "/node");
}

void TestCtl::moveAllTo(const std::vector<std::string>& ids, const std::string& node)
{
    for (const std::string& id : ids)
        if (nodeOfWorkload(id) != node)
            QCOMPARE(ctl({ QStringLiteral("move"), QString::fromStdString(id), QStringLiteral("--node"),
                             QString::fromStdString(node) })
                         .exitCode,
                0);
}

std::string TestCtl::submitJson(const QStringList& args)
{
    const CtlRun run
        = ctl(QStringList { QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("submit") } + args);
    json j = parsed(run.out);
    return run.exitCode == 0 && num(j, "/id") > 0 ? std::to_string(num(j, "/id")) : std::string();
}

// Starts tidepoold on ephemeral ports with this suite's tokens and database `db`, logging to `log`. Returns its API
// port once both listeners are bound, and its agent port in `agentPort`; 0 when it stopped before (the log says why).
std::uint16_t TestCtl::startDaemon(
    QProcess& daemon, const QString& db, const QString& log, const QStringList& extra, QString* agentPort)
{
    killWithParent(daemon);
    daemon.setStandardOutputFile(log);
    daemon.setStandardErrorFile(log, QIODevice::Append);
    daemon.start(binary("tidepoold"),
        QStringList { QStringLiteral("--agent-listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--api-listen"),
            QStringLiteral("127.0.0.1:0"), QStringLiteral("--db"), db, QStringLiteral("--join-token-file"), m_joinFile,
            QStringLiteral("--operator-token-file"), m_tokenFile, QStringLiteral("--heartbeat-interval-ms"),
            QStringLiteral("200"), QStringLiteral("--suspect-after-ms"), QStringLiteral("1000"),
            QStringLiteral("--lost-after-ms"), QStringLiteral("2000") }
            + extra);
    if (!daemon.waitForStarted())
        return 0;

    // "... ready: agents on 127.0.0.1:PORT, API on 127.0.0.1:PORT", once both listeners are bound.
    const QRegularExpression ready(
        QStringLiteral("ready: agents on 127\\.0\\.0\\.1:(\\d+), API on 127\\.0\\.0\\.1:(\\d+)"));
    for (QDeadlineTimer deadline(15'000); !deadline.hasExpired() && daemon.state() == QProcess::Running;
         QTest::qWait(50)) {
        QFile file(log);
        const QRegularExpressionMatch match = file.open(QIODevice::ReadOnly)
            ? ready.match(QString::fromUtf8(file.readAll()))
            : QRegularExpressionMatch();
        if (!match.hasMatch())
            continue;
        if (agentPort)
            *agentPort = match.captured(1);
        return static_cast<std::uint16_t>(match.captured(2).toUInt());
    }
    return 0;
}

void TestCtl::initTestCase()
{
    QVERIFY(m_dir.isValid());
    for (const char* name : { "tidepoold", "tidepoolctl", "tidepool-fleet" })
        QVERIFY2(QFile::exists(binary(name)), qPrintable(binary(name)));
    m_token = randomToken();
    m_tokenFile = writeFile(QStringLiteral("operator.token"), m_token.toUtf8() + '\n');
    m_joinFile = writeFile(QStringLiteral("join.token"), randomToken().toUtf8() + '\n');

    // History every second (the least it takes), so that `series` and `history` soon have points.
    m_daemon = std::make_unique<QProcess>();
    QString agentPort;
    m_apiPort = startDaemon(*m_daemon, m_dir.filePath(QStringLiteral("t.db")),
        m_dir.filePath(QStringLiteral("tidepoold.log")),
        { QStringLiteral("--history-interval-ms"), QStringLiteral("1000") }, &agentPort);
    QVERIFY2(m_apiPort != 0, "tidepoold stopped before it was ready");
    m_api = QStringLiteral("127.0.0.1:") + QString::number(m_apiPort);

    const QString fleetLog = m_dir.filePath(QStringLiteral("fleet.log"));
    m_fleet = std::make_unique<QProcess>();
    killWithParent(*m_fleet);
    m_fleet->setStandardOutputFile(fleetLog);
    m_fleet->setStandardErrorFile(fleetLog, QIODevice::Append);
    m_fleet->start(binary("tidepool-fleet"),
        { QStringLiteral("--core"), QStringLiteral("127.0.0.1:") + agentPort, QStringLiteral("--join-token-file"),
            m_joinFile, QStringLiteral("--nodes"), QString::number(kNodes), QStringLiteral("--report-every"),
            QStringLiteral("0") });
    QVERIFY2(m_fleet->waitForStarted(), qPrintable(m_fleet->errorString()));

    auto readyNodes = [this] {
        json j = parsed(ctl({ QStringLiteral("summary"), QStringLiteral("-o"), QStringLiteral("json") }).out);
        return num(j, "/nodes/ready");
    };
    QTRY_COMPARE_WITH_TIMEOUT(readyNodes(), kNodes, 30'000);
}

void TestCtl::cleanupTestCase()
{
    for (QProcess* process : { m_fleet.get(), m_daemon.get(), m_seeded.get() }) {
        if (!process || process->state() == QProcess::NotRunning)
            continue;
        process->terminate();
        if (!process->waitForFinished(5'000)) {
            process->kill();
            process->waitForFinished();
        }
    }
}

void TestCtl::cleanup()
{
    if (QTest::currentTestFailed()) {
        QFile log(m_dir.filePath(QStringLiteral("tidepoold.log")));
        if (log.open(QIODevice::ReadOnly))
            qWarning("tidepoold's log so far:\n%s", log.readAll().right(4000).constData());
    }
    const bool printed = std::exchange(m_tokenPrinted, false);
    QVERIFY2(!printed, "tidepoolctl printed the operator token");
}

void TestCtl::summaryCountsReadyNodes()
{
    const CtlRun run = ctl({ QStringLiteral("summary") });
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains(QStringLiteral("Nodes:")), qPrintable(run.out));
    QVERIFY2(run.out.contains(QStringLiteral("5 ready")), qPrintable(run.out));
}

void TestCtl::submitTablePrintsIdPhaseAndNode()
{
    const CtlRun run = ctl({ QStringLiteral("submit"), QStringLiteral("--name"), QStringLiteral("web"),
        QStringLiteral("--cpu"), QStringLiteral("500"), QStringLiteral("--memory"), QStringLiteral("256"),
        QStringLiteral("--"), QStringLiteral("sleep"), QStringLiteral("600") });
    QCOMPARE(run.exitCode, 0);
    const QStringList lines = run.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 2);
    QCOMPARE(cells(lines[0]).mid(0, 4),
        (QStringList {
            QStringLiteral("ID"), QStringLiteral("NAME"), QStringLiteral("PHASE"), QStringLiteral("NODE") }));
    const QStringList row = cells(lines[1]);
    QVERIFY2(row.size() >= 8, qPrintable(lines[1]));
    bool numeric = false;
    QVERIFY(row[0].toLongLong(&numeric) > 0 && numeric);
    QCOMPARE(row[1], QStringLiteral("web"));
    QVERIFY2(row[2] == QStringLiteral("launching") || row[2] == QStringLiteral("running"), qPrintable(row[2]));
    QVERIFY2(row[3].startsWith(QStringLiteral("fleet-")), qPrintable(row[3]));
    QCOMPARE(row[4], QStringLiteral("default"));
    QCOMPARE(row[5], QStringLiteral("-/0.5")); // CPU in cores: not measured yet, asked for
    QCOMPARE(row[6], QStringLiteral("-/256Mi"));
    m_webId = row[0].toStdString();
    m_webNode = row[3].toStdString();
}

void TestCtl::submitJsonIsTheDaemonsObject()
{
    const CtlRun run = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("submit"),
        QStringLiteral("--name"), QStringLiteral("nightly"), QStringLiteral("--cpu"), QStringLiteral("250"),
        QStringLiteral("--memory"), QStringLiteral("128"), QStringLiteral("--memory-limit"), QStringLiteral("512"),
        QStringLiteral("--cpu-limit"), QStringLiteral("1000"), QStringLiteral("--priority"), QStringLiteral("5"),
        QStringLiteral("--latency"), QStringLiteral("batch"), QStringLiteral("--env"), QStringLiteral("MODE=full"),
        QStringLiteral("--no-right-size"), QStringLiteral("--"), QStringLiteral("true") });
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.err.isEmpty());
    json j = parsed(run.out);
    QVERIFY2(j.is_object(), qPrintable(run.out));
    QVERIFY(num(j, "/id") > 0);
    QCOMPARE(str(j, "/name"), std::string("nightly"));
    QCOMPARE(num(j, "/cpuMillis"), 250);
    QCOMPARE(num(j, "/memoryMiB"), 128);
    QCOMPARE(num(j, "/memoryLimitMiB"), 512);
    QCOMPARE(num(j, "/cpuLimitMillis"), 1000);
    QCOMPARE(num(j, "/priority"), 5);
    QCOMPARE(str(j, "/latency"), std::string("batch"));
    QVERIFY2(at(j, "/command") == json::array({ "true" }), qPrintable(run.out));
    QVERIFY2(at(j, "/rightSize") == json(false), qPrintable(run.out)); // never right-sized
    // Unchanged: one line of the daemon's compact JSON.
    QCOMPARE(run.out.count(QLatin1Char('\n')), 1);
}

void TestCtl::submitFileBatchAndGpuShare()
{
    const QString batch = writeFile(QStringLiteral("batch.json"),
        R"({"workloads": [{"name": "a", "cpuMillis": 100, "memoryMiB": 64},
                          {"name": "b", "cpuMillis": 100, "memoryMiB": 64, "tier": "cold"}]})");
    const CtlRun table = ctl({ QStringLiteral("submit"), QStringLiteral("-f"), batch });
    QCOMPARE(table.exitCode, 0);
    QCOMPARE(table.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts).size(), 3); // header and two rows

    const QString one = writeFile(QStringLiteral("one.json"), R"({"name": "from-file", "cpuMillis": 100})");
    const CtlRun merged = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("submit"),
        QStringLiteral("-f"), one, QStringLiteral("--memory"), QStringLiteral("96") });
    QCOMPARE(merged.exitCode, 0);
    QCOMPARE(num(parsed(merged.out), "/memoryMiB"), 96);
    QCOMPARE(str(parsed(merged.out), "/name"), std::string("from-file"));

    // A quarter of a GPU: only the generated fleet's GPU servers can take it.
    const CtlRun gpu = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("submit"),
        QStringLiteral("--name"), QStringLiteral("infer"), QStringLiteral("--cpu"), QStringLiteral("1000"),
        QStringLiteral("--memory"), QStringLiteral("1024"), QStringLiteral("--gpu-share"), QStringLiteral("250") });
    QCOMPARE(gpu.exitCode, 0);
    json j = parsed(gpu.out);
    QCOMPARE(num(j, "/accelerators/share"), 250);
    QCOMPARE(str(j, "/accelerators/kind"), std::string("gpu"));
    QVERIFY2(at(j, "/node").is_string() && !at(j, "/devices").empty(), qPrintable(gpu.out));
    const CtlRun node = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("nodes"),
        QString::fromStdString(str(j, "/node")) });
    QCOMPARE(node.exitCode, 0);
    QCOMPARE(str(parsed(node.out), "/devices/0/kind"), std::string("gpu"));
}

void TestCtl::listFiltersByPhaseNodeAndLimit()
{
    QVERIFY(!m_webId.empty());
    QTRY_COMPARE_WITH_TIMEOUT(workloadPhase(m_webId), std::string("running"), 10'000);

    const CtlRun table = ctl({ QStringLiteral("list") });
    QCOMPARE(table.exitCode, 0);
    const QStringList lines = table.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QVERIFY(lines.size() >= 3);
    QVERIFY2(lines[0].startsWith(QStringLiteral("ID  ")) && lines[0].contains(QStringLiteral("DETAIL")),
        qPrintable(lines[0]));
    bool found = false;
    for (const QString& line : lines)
        if (cells(line).value(0) == QString::fromStdString(m_webId)) {
            found = true;
            QCOMPARE(cells(line).value(2), QStringLiteral("running"));
        }
    QVERIFY2(found, qPrintable(table.out));

    json running = parsed(ctl({ QStringLiteral("list"), QStringLiteral("--phase"), QStringLiteral("running"),
                                  QStringLiteral("-o"), QStringLiteral("json") })
                              .out);
    QVERIFY(!at(running, "/workloads").empty());
    for (const json& w : at(running, "/workloads"))
        QCOMPARE(str(w, "/phase"), std::string("running"));

    json onNode = parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("list"),
                                 QStringLiteral("--node"), QString::fromStdString(m_webNode) })
                             .out);
    QVERIFY(!at(onNode, "/workloads").empty());
    for (const json& w : at(onNode, "/workloads"))
        QCOMPARE(str(w, "/node"), m_webNode);

    json limited = parsed(
        ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("list"), QStringLiteral("--limit=1") }).out);
    QCOMPARE(at(limited, "/workloads").size(), std::size_t { 1 });
}

void TestCtl::getShowsOneWorkload()
{
    QVERIFY(!m_webId.empty());
    const CtlRun run = ctl({ QStringLiteral("get"), QString::fromStdString(m_webId) });
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(
        run.out.contains(QRegularExpression(QStringLiteral("^Name:\\s+web$"), QRegularExpression::MultilineOption)),
        qPrintable(run.out));
    QVERIFY(run.out.contains(
        QRegularExpression(QStringLiteral("^Node:\\s+") + QString::fromStdString(m_webNode) + QLatin1Char('$'),
            QRegularExpression::MultilineOption)));
    QVERIFY(run.out.contains(
        QRegularExpression(QStringLiteral("^Command:\\s+sleep 600$"), QRegularExpression::MultilineOption)));
    QVERIFY2(
        run.out.contains(QRegularExpression(QStringLiteral("^Memory:\\s+256Mi, no limit of its own \\(its pool's\\)$"),
            QRegularExpression::MultilineOption)),
        qPrintable(run.out));

    json j = parsed(
        ctl({ QStringLiteral("get"), QString::fromStdString(m_webId), QStringLiteral("-o"), QStringLiteral("json") })
            .out);
    QCOMPARE(std::to_string(num(j, "/id")), m_webId);

    // What it uses, as its agent measures it (tidepool-fleet: 30% of the CPU it asked for, half its memory), in the
    // heartbeats; in the list beside what it asked for.
    QTRY_VERIFY_WITH_TIMEOUT(parsed(ctl({ QStringLiteral("get"), QString::fromStdString(m_webId), QStringLiteral("-o"),
                                            QStringLiteral("json") })
                                        .out)
                                 .contains("measured"),
        10'000);
    j = parsed(
        ctl({ QStringLiteral("get"), QString::fromStdString(m_webId), QStringLiteral("-o"), QStringLiteral("json") })
            .out);
    QCOMPARE(num(j, "/measured/cpuMillis"), 150);
    QCOMPARE(num(j, "/measured/memoryMiB"), 128);
    QCOMPARE(num(j, "/measured/peakMemoryMiB"), 128);
    QCOMPARE(num(j, "/measured/cpuP90Millis"), 154); // the upper edge of its 5% bucket (`UsageHistogram`)
    QVERIFY(num(j, "/measured/atMs") > num(j, "/runningMs") - 1000);
    QVERIFY(num(j, "/measured/sinceMs") > 0 && num(j, "/measured/sinceMs") <= num(j, "/measured/atMs"));
    const CtlRun used = ctl({ QStringLiteral("get"), QString::fromStdString(m_webId) });
    QVERIFY2(used.out.contains(
                 QRegularExpression(QStringLiteral("^Used:\\s+CPU 0.15 \\(90th percentile 0.154, at most 0.15\\), "
                                                   "memory 128Mi \\(at most 128Mi\\) over the "
                                                   "last \\d+s of this launch, as its node measured it \\d+s ago$"),
                     QRegularExpression::MultilineOption)),
        qPrintable(used.out));
    // The pools' measured use is in /metrics beside what their workloads hold: the fleet's 30% of it.
    api::ApiClient client("127.0.0.1", m_apiPort, m_token.toStdString(), std::chrono::seconds(5));
    const auto metrics = client.request(api::HttpMethod::Get, "/metrics", "");
    QVERIFY(metrics && metrics->status == 200);
    const QString text = QString::fromStdString(metrics->body);
    const auto sample = [&](const QString& series) {
        const auto match = QRegularExpression(
            QRegularExpression::escape(series) + QStringLiteral(" (\\d+)$"), QRegularExpression::MultilineOption)
                               .match(text);
        return match.hasMatch() ? match.captured(1).toLongLong() : -1;
    };
    const qint64 allocated = sample(QStringLiteral("tidepool_pool_cpu_millis{pool=\"default\",kind=\"allocated\"}"));
    const qint64 cpuUsed = sample(QStringLiteral("tidepool_pool_cpu_millis{pool=\"default\",kind=\"used\"}"));
    QVERIFY2(allocated > 0 && cpuUsed > 0 && cpuUsed <= allocated, qPrintable(text.left(4000)));
    QVERIFY(sample(QStringLiteral("tidepool_pool_memory_mib{pool=\"default\",kind=\"used\"}")) > 0);
    const CtlRun listed = ctl({ QStringLiteral("list"), QStringLiteral("--node"), QString::fromStdString(m_webNode) });
    QVERIFY2(hasLine(listed.out,
                 QStringLiteral("^") + QString::fromStdString(m_webId)
                     + QStringLiteral("\\s+web\\s+running\\s+\\S+\\s+default\\s+0.15/0.5\\s+128Mi/256Mi\\s")),
        qPrintable(listed.out));

    const CtlRun missing = ctl({ QStringLiteral("get"), QStringLiteral("999999") });
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains(QStringLiteral("no workload has id 999999")), qPrintable(missing.err));
    QVERIFY(missing.out.isEmpty());
}

// `logs` asks the node's agent; tidepool-fleet's simulated agents run nothing and say so, which tidepoolctl shows as
// the daemon's words (exit 1). A bad option is a usage error before anything is sent.
void TestCtl::logsOfASimulatedNodeSayWhyThereAreNone()
{
    QVERIFY(!m_webId.empty());
    const CtlRun run = ctl({ QStringLiteral("logs"), QString::fromStdString(m_webId), QStringLiteral("--stderr") });
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QStringLiteral("is simulated (tidepool-fleet): its workloads run nothing"))
            && run.err.contains(QStringLiteral("HTTP 404")),
        qPrintable(run.err));
    QVERIFY(run.out.isEmpty());
    const CtlRun tooMuch = ctl({ QStringLiteral("logs"), QString::fromStdString(m_webId), QStringLiteral("--bytes"),
        QStringLiteral("262145") });
    QCOMPARE(tooMuch.exitCode, 2);
    QVERIFY2(tooMuch.err.contains(QStringLiteral("--bytes")), qPrintable(tooMuch.err));
}

void TestCtl::whyExplainsPendingWithNodeCounts()
{
    // A thousand cores: more than any node of the fleet has.
    m_hugeId = submitJson({ QStringLiteral("--name"), QStringLiteral("huge"), QStringLiteral("--cpu"),
        QStringLiteral("1000000"), QStringLiteral("--memory"), QStringLiteral("64") });
    QVERIFY(!m_hugeId.empty());
    QCOMPARE(workloadPhase(m_hugeId), std::string("pending"));

    const CtlRun run = ctl({ QStringLiteral("why"), QString::fromStdString(m_hugeId) });
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains(
                 QRegularExpression(QStringLiteral("^Phase:\\s+pending$"), QRegularExpression::MultilineOption)),
        qPrintable(run.out));
    QVERIFY2(run.out.contains(QStringLiteral("insufficient CPU")), qPrintable(run.out));
    QVERIFY2(run.out.contains(
                 QRegularExpression(QStringLiteral("^insufficient CPU\\s+5$"), QRegularExpression::MultilineOption)),
        qPrintable(run.out));

    json j = parsed(
        ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("why"), QString::fromStdString(m_hugeId) })
            .out);
    QCOMPARE(num(j, "/report/nodesConsidered"), kNodes);
    QCOMPARE(num(j, "/report/rejected/insufficient CPU"), kNodes);

    // "Why here" for a placed one.
    const CtlRun here = ctl({ QStringLiteral("why"), QString::fromStdString(m_webId) });
    QCOMPARE(here.exitCode, 0);
    QVERIFY2(here.out.contains(QString::fromStdString("placed on " + m_webNode)), qPrintable(here.out));
}

void TestCtl::cancelStopsOnceThenRefuses()
{
    QVERIFY(!m_hugeId.empty() && !m_webId.empty());
    const CtlRun pending = ctl({ QStringLiteral("cancel"), QString::fromStdString(m_hugeId) });
    QCOMPARE(pending.exitCode, 0);
    QVERIFY2(pending.out.contains(QStringLiteral("cancelled")), qPrintable(pending.out));

    const CtlRun again = ctl({ QStringLiteral("cancel"), QString::fromStdString(m_hugeId) });
    QCOMPARE(again.exitCode, 1);
    QVERIFY2(again.err.contains(QStringLiteral("has already ended")), qPrintable(again.err));

    const CtlRun running = ctl(
        { QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("cancel"), QString::fromStdString(m_webId) });
    QCOMPARE(running.exitCode, 0);
    const std::string phase = str(parsed(running.out), "/phase");
    QVERIFY2(phase == "stopping" || phase == "cancelled", phase.c_str());
    QTRY_COMPARE_WITH_TIMEOUT(workloadPhase(m_webId), std::string("cancelled"), 10'000);
}

void TestCtl::nodesTableAndDetail()
{
    const CtlRun run = ctl({ QStringLiteral("nodes") });
    QCOMPARE(run.exitCode, 0);
    const QStringList lines = run.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), kNodes + 1);
    QCOMPARE(cells(lines[0]),
        (QStringList { QStringLiteral("NAME"), QStringLiteral("STATE"), QStringLiteral("ISA"), QStringLiteral("TIER"),
            QStringLiteral("CPU(free/total)"), QStringLiteral("MEM(free/total)"), QStringLiteral("ACCEL(free/total)"),
            QStringLiteral("UTIL"), QStringLiteral("WORKLOADS") }));
    // Each kind of accelerator named, all in one cell (a script splits the row on blanks).
    const QRegularExpression accelerators(
        QStringLiteral("^(-|(gpu|npu|fpga):[0-9.]+/[0-9]+(,(gpu|npu|fpga):[0-9.]+/[0-9]+)*)$"));
    bool someAccelerator = false;
    for (int i = 1; i < lines.size(); ++i) {
        const QStringList row = cells(lines[i]);
        QCOMPARE(row.size(), 9);
        QVERIFY(row[0].startsWith(QStringLiteral("fleet-")));
        QCOMPARE(row[1], QStringLiteral("ready"));
        QVERIFY2(row[4].contains(QLatin1Char('/')), qPrintable(lines[i]));
        QVERIFY2(row[7].endsWith(QLatin1Char('%')), qPrintable(lines[i]));
        QVERIFY2(accelerators.match(row[6]).hasMatch(), qPrintable(lines[i]));
        someAccelerator = someAccelerator || row[6] != QStringLiteral("-");
    }
    QVERIFY2(someAccelerator, qPrintable(run.out));

    const CtlRun one = ctl({ QStringLiteral("nodes"), QStringLiteral("fleet-0") });
    QCOMPARE(one.exitCode, 0);
    QVERIFY(one.out.contains(
        QRegularExpression(QStringLiteral("^Name:\\s+fleet-0$"), QRegularExpression::MultilineOption)));
    QVERIFY(
        one.out.contains(QRegularExpression(QStringLiteral("^State:\\s+ready"), QRegularExpression::MultilineOption)));
    // Fleet agents do not shape their links: their network is not counted.
    QVERIFY(one.out.contains(
        QRegularExpression(QStringLiteral("^Network:\\s+not shaped$"), QRegularExpression::MultilineOption)));
    // The fleet's agents name the protocol features they speak, as a real agent does.
    QVERIFY2(one.out.contains(
                 QRegularExpression(QStringLiteral("^Agent:\\s+tidepool-fleet 0.1 \\(protocol features: "
                                                   "incarnation, pool-usage, net-shape, launch-pool, logs, log-follow, "
                                                   "workload-usage, resize\\)$"),
                     QRegularExpression::MultilineOption)),
        qPrintable(one.out));

    json all = parsed(ctl({ QStringLiteral("nodes"), QStringLiteral("-o"), QStringLiteral("json") }).out);
    QCOMPARE(at(all, "/nodes").size(), std::size_t { kNodes });

    const CtlRun missing = ctl({ QStringLiteral("nodes"), QStringLiteral("no-such-node") });
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains(QStringLiteral("no node is named \"no-such-node\"")), qPrintable(missing.err));
}

void TestCtl::poolsCreateAndSetKeepsOtherFields()
{
    const CtlRun created
        = ctl({ QStringLiteral("pools"), QStringLiteral("create"), QStringLiteral("gold"), QStringLiteral("--cpu"),
            QStringLiteral("4000"), QStringLiteral("--memory"), QStringLiteral("8192"), QStringLiteral("--tier"),
            QStringLiteral("warm"), QStringLiteral("--business-line"), QStringLiteral("search") });
    QCOMPARE(created.exitCode, 0);
    const QStringList row = cells(created.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts).value(1));
    QCOMPARE(row.mid(0, 5),
        (QStringList { QStringLiteral("gold"), QStringLiteral("search"), QStringLiteral("warm"), QStringLiteral("0/4"),
            QStringLiteral("0Mi/8Gi") }));

    // `set` changes what it is given; the daemon's PUT replaces the quota, so the client keeps the rest.
    const CtlRun set = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("pools"),
        QStringLiteral("set"), QStringLiteral("gold"), QStringLiteral("--cpu"), QStringLiteral("6000") });
    QCOMPARE(set.exitCode, 0);
    json j = parsed(set.out);
    QCOMPARE(num(j, "/cpuMillis"), 6000);
    QCOMPARE(num(j, "/memoryMiB"), 8192);
    QCOMPARE(str(j, "/tier"), std::string("warm"));
    QCOMPARE(str(j, "/businessLine"), std::string("search"));
    QCOMPARE(num(j, "/offTier"), 0); // none of its work runs off its tier
    // An empty business line clears it (the pool is then a cost row of its own in reports); the rest stays.
    const CtlRun cleared = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("pools"),
        QStringLiteral("set"), QStringLiteral("gold"), QStringLiteral("--business-line"), QString() });
    QCOMPARE(cleared.exitCode, 0);
    QCOMPARE(str(parsed(cleared.out), "/businessLine"), std::string());
    QCOMPARE(num(parsed(cleared.out), "/cpuMillis"), 6000);
    QCOMPARE(ctl({ QStringLiteral("pools"), QStringLiteral("set"), QStringLiteral("gold"),
                     QStringLiteral("--business-line"), QStringLiteral("search") })
                 .exitCode,
        0);

    const CtlRun unlimited = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("pools"),
        QStringLiteral("set"), QStringLiteral("gold"), QStringLiteral("--memory"), QStringLiteral("unlimited") });
    QCOMPARE(unlimited.exitCode, 0);
    QVERIFY(at(parsed(unlimited.out), "/memoryMiB").is_null());
    QCOMPARE(num(parsed(unlimited.out), "/cpuMillis"), 6000);

    // Accelerator quotas (share units per kind) and bandwidth quotas; `unlimited` lifts one kind, the others stay.
    const CtlRun accelerators = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("pools"),
        QStringLiteral("set"), QStringLiteral("gold"), QStringLiteral("--gpu"), QStringLiteral("2000"),
        QStringLiteral("--fpga"), QStringLiteral("0"), QStringLiteral("--mem-bandwidth"), QStringLiteral("5000"),
        QStringLiteral("--net-bandwidth"), QStringLiteral("800") });
    QCOMPARE(accelerators.exitCode, 0);
    j = parsed(accelerators.out);
    QCOMPARE(num(j, "/acceleratorQuota/gpu"), 2000);
    QCOMPARE(num(j, "/acceleratorQuota/fpga"), 0);
    QVERIFY(at(j, "/acceleratorQuota/npu").is_null());
    QCOMPARE(num(j, "/memBandwidthMBps"), 5000);
    QCOMPARE(num(j, "/netBandwidthMbps"), 800);
    QCOMPARE(num(j, "/cpuMillis"), 6000);
    const CtlRun lifted = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("pools"),
        QStringLiteral("set"), QStringLiteral("gold"), QStringLiteral("--gpu"), QStringLiteral("unlimited") });
    QCOMPARE(lifted.exitCode, 0);
    QVERIFY(at(parsed(lifted.out), "/acceleratorQuota/gpu").is_null());
    QCOMPARE(num(parsed(lifted.out), "/acceleratorQuota/fpga"), 0);

    const CtlRun listed = ctl({ QStringLiteral("pools") });
    QCOMPARE(listed.exitCode, 0);
    QVERIFY2(
        listed.out.contains(QRegularExpression(
            QStringLiteral("^gold\\s+search\\s+warm\\s+0/6\\s+0Mi/unlimited\\s+fpga 0/0\\s+0/5000MB/s\\s+0/800Mb/s"),
            QRegularExpression::MultilineOption)),
        qPrintable(listed.out));

    const CtlRun twice = ctl({ QStringLiteral("pools"), QStringLiteral("create"), QStringLiteral("gold") });
    QCOMPARE(twice.exitCode, 1);
    QVERIFY2(twice.err.contains(QStringLiteral("already exists")), qPrintable(twice.err));

    const CtlRun missing
        = ctl({ QStringLiteral("pools"), QStringLiteral("set"), QStringLiteral("lead"), QStringLiteral("--cpu=1000") });
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains(QStringLiteral("no pool is named \"lead\"")), qPrintable(missing.err));

    json placed = parsed(
        ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("submit"), QStringLiteral("--name"),
                QStringLiteral("in-gold"), QStringLiteral("--cpu"), QStringLiteral("100"), QStringLiteral("--memory"),
                QStringLiteral("64"), QStringLiteral("--pool"), QStringLiteral("gold") })
            .out);
    QCOMPARE(str(placed, "/pool"), std::string("gold"));

    // A CPU quota lowered below what runs: the workload keeps running and the table says the pool is over it.
    const std::string placedId = std::to_string(num(placed, "/id"));
    QTRY_COMPARE_WITH_TIMEOUT(str(parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("get"),
                                                 QString::fromStdString(placedId) })
                                             .out),
                                  "/phase"),
        std::string("running"), 10'000);
    QCOMPARE(ctl({ QStringLiteral("pools"), QStringLiteral("set"), QStringLiteral("gold"), QStringLiteral("--cpu"),
                     QStringLiteral("50") })
                 .exitCode,
        0);
    const CtlRun over = ctl({ QStringLiteral("pools") });
    QVERIFY2(
        over.out.contains(QRegularExpression(QStringLiteral("^gold\\s.*\\sCPU$"), QRegularExpression::MultilineOption)),
        qPrintable(over.out));
    QVERIFY2(over.out.contains(
                 QRegularExpression(QStringLiteral("^default\\s.*\\s-$"), QRegularExpression::MultilineOption)),
        qPrintable(over.out));
}

// `pools delete` is refused while the pool's workload runs, naming it; once the workload has ended the pool goes, the
// workload keeps its name, the audit entry keeps the settings it had; the default pool cannot be deleted.
void TestCtl::poolsDeleteWaitsForItsWorkToEnd()
{
    QCOMPARE(ctl({ QStringLiteral("pools"), QStringLiteral("create"), QStringLiteral("brief"), QStringLiteral("--cpu"),
                     QStringLiteral("500"), QStringLiteral("--business-line"), QStringLiteral("search") })
                 .exitCode,
        0);
    const std::string placedId = submitJson(
        { QStringLiteral("--name"), QStringLiteral("in-brief"), QStringLiteral("--cpu"), QStringLiteral("100"),
            QStringLiteral("--memory"), QStringLiteral("64"), QStringLiteral("--pool"), QStringLiteral("brief") });
    QVERIFY(!placedId.empty());
    const CtlRun busy = ctl({ QStringLiteral("pools"), QStringLiteral("delete"), QStringLiteral("brief") });
    QCOMPARE(busy.exitCode, 1);
    QVERIFY2(
        busy.err.contains(QString::fromStdString(
            "pool brief still holds 1 workload that has not ended (the first: workload " + placedId + ", in-brief")),
        qPrintable(busy.err));
    QCOMPARE(ctl({ QStringLiteral("cancel"), QString::fromStdString(placedId) }).exitCode, 0);
    QTRY_COMPARE_WITH_TIMEOUT(str(parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("get"),
                                                 QString::fromStdString(placedId) })
                                             .out),
                                  "/phase"),
        std::string("cancelled"), 10'000);
    const CtlRun deleted = ctl({ QStringLiteral("pools"), QStringLiteral("delete"), QStringLiteral("brief") });
    QVERIFY2(deleted.exitCode == 0, qPrintable(deleted.err));
    QCOMPARE(deleted.out, QStringLiteral("pool brief deleted\n"));
    const json pools = parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("pools") }).out);
    for (const json& p : at(pools, "/pools"))
        QVERIFY2(str(p, "/name") != "brief", pools.dump().c_str());
    QCOMPARE(str(parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("get"),
                                QString::fromStdString(placedId) })
                            .out),
                 "/pool"),
        std::string("brief"));
    const CtlRun again = ctl({ QStringLiteral("pools"), QStringLiteral("delete"), QStringLiteral("brief") });
    QCOMPARE(again.exitCode, 1);
    QVERIFY2(again.err.contains(QStringLiteral("no pool is named \"brief\"")), qPrintable(again.err));
    const json audit = parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("audit") }).out);
    bool audited = false;
    for (const json& e : at(audit, "/entries"))
        if (str(e, "/action") == "DELETE /v1/pools/brief" && str(e, "/stage") == "completed"
            && str(e, "/outcome") == "ok") {
            QCOMPARE(str(e, "/target"), std::string("pool brief"));
            QCOMPARE(num(e, "/detail/settings/cpuMillis"), 500);
            QCOMPARE(str(e, "/detail/settings/businessLine"), std::string("search"));
            audited = true;
        }
    QVERIFY2(audited, audit.dump().c_str());
    // A report over a period it lived in still counts it, under its business line, and says it was deleted.
    const CtlRun report = ctl({ QStringLiteral("report"), QStringLiteral("--from"), QStringLiteral("-1h"),
        QStringLiteral("--to"), QStringLiteral("now"), QStringLiteral("--scope"), QStringLiteral("pool"),
        QStringLiteral("--name"), QStringLiteral("brief"), QStringLiteral("--format"), QStringLiteral("json"),
        QStringLiteral("-o"), QStringLiteral("-") });
    QVERIFY2(report.exitCode == 0, qPrintable(report.err));
    const json reported = parsed(report.out);
    QCOMPARE(num(reported, "/pools"), 1);
    QVERIFY2(reported.dump().find("Pool brief was deleted at") != std::string::npos, reported.dump().c_str());
    QVERIFY2(reported.dump().find("\"businessLine\":\"search\"") != std::string::npos, reported.dump().c_str());
    const CtlRun defaultPool = ctl({ QStringLiteral("pools"), QStringLiteral("delete"), QStringLiteral("default") });
    QCOMPARE(defaultPool.exitCode, 1);
    QVERIFY2(
        defaultPool.err.contains(QStringLiteral("the default pool cannot be deleted")), qPrintable(defaultPool.err));
    const CtlRun usage = ctl({ QStringLiteral("pools"), QStringLiteral("delete") });
    QCOMPARE(usage.exitCode, 2);
    QVERIFY2(usage.err.contains(QStringLiteral("pools delete: give exactly one pool name")), qPrintable(usage.err));
}

// Tables pad by the columns a terminal gives the text, not by its bytes, and show the characters a hostile string
// could use to reorder, break or take over a line as visible escapes; the JSON keeps the daemon's text exactly.
void TestCtl::tablesPadByDisplayWidthAndEscapeHostileText()
{
    // A business line is free text: Chinese, an emoji and a combining accent, plain ASCII, and one with a right-to-left
    // override, a line separator, a C1 control (NEL) and an isolate.
    const QString hostile = QStringLiteral("ops") + QChar(0x202E) + QStringLiteral("evil") + QChar(0x2028)
        + QStringLiteral("x") + QChar(0x0085) + QChar(0x2066) + QStringLiteral("y");
    const QString hostileShown = QStringLiteral("ops\\u202Eevil\\u2028x\\u0085\\u2066y");
    const std::pair<QString, QString> lineOf[] = {
        { QStringLiteral("wide-cjk"), QStringLiteral("研发部") },
        { QStringLiteral("wide-emoji"),
            QString::fromUtf8("\xF0\x9F\x9A\x80"
                              "cafe\xCC\x81") },
        { QStringLiteral("plain-ascii"), QStringLiteral("search") },
        { QStringLiteral("hostile"), hostile },
    };
    for (const auto& [name, line] : lineOf) {
        const CtlRun created = ctl({ QStringLiteral("pools"), QStringLiteral("create"), name,
            QStringLiteral("--business-line"), line, QStringLiteral("--tier"), QStringLiteral("warm") });
        QVERIFY2(created.exitCode == 0, qPrintable(created.err));
    }
    const CtlRun table = ctl({ QStringLiteral("pools") });
    QCOMPARE(table.exitCode, 0);
    const QStringList rows = lines(table.out);
    const int tierColumn = columns(rows.value(0).left(rows.value(0).indexOf(QStringLiteral("TIER"))));
    QVERIFY(tierColumn > 0);
    for (const auto& [name, line] : lineOf) {
        const QString shown = name == QStringLiteral("hostile") ? hostileShown : line;
        QString row;
        for (const QString& r : rows)
            if (r.startsWith(name + QLatin1Char(' ')))
                row = r;
        QVERIFY2(row.contains(shown), qPrintable(name + QStringLiteral(":\n") + table.out));
        // TIER begins in the header's column, whatever the business line's bytes.
        int tierAt = row.indexOf(shown) + shown.size();
        while (tierAt < row.size() && row[tierAt] == QLatin1Char(' '))
            ++tierAt;
        QVERIFY2(row.mid(tierAt).startsWith(QStringLiteral("warm")), qPrintable(row));
        QVERIFY2(columns(row.left(tierAt)) == tierColumn,
            qPrintable(QStringLiteral("TIER at column %1, not %2:\n").arg(columns(row.left(tierAt))).arg(tierColumn)
                + table.out));
    }
    for (const char16_t c : { u'\u202E', u'\u2028', u'\u0085', u'\u2066' })
        QVERIFY2(!table.out.contains(QChar(c)), qPrintable(table.out));

    // The JSON is the daemon's, unchanged; the table has a line for each pool.
    const json pools = parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("pools") }).out);
    QCOMPARE(static_cast<std::size_t>(rows.size()), at(pools, "/pools").size() + 1);
    std::string kept;
    for (const json& p : at(pools, "/pools"))
        if (str(p, "/name") == "hostile")
            kept = str(p, "/businessLine");
    QCOMPARE(kept, hostile.toStdString());

    // Fields ("Key:  value") are escaped as tables are: a workload's command.
    const std::string id = submitJson({ QStringLiteral("--name"), QStringLiteral("bidi"), QStringLiteral("--cpu"),
        QStringLiteral("10"), QStringLiteral("--memory"), QStringLiteral("16"), QStringLiteral("--"),
        QStringLiteral("echo"), QStringLiteral("a") + QChar(0x202E) + QStringLiteral("b") });
    QVERIFY(!id.empty());
    const CtlRun got = ctl({ QStringLiteral("get"), QString::fromStdString(id) });
    QCOMPARE(got.exitCode, 0);
    QVERIFY2(hasLine(got.out, QStringLiteral("^Command:\\s+echo a\\\\u202Eb$")), qPrintable(got.out));
    QVERIFY(!got.out.contains(QChar(0x202E)));
    ctl({ QStringLiteral("cancel"), QString::fromStdString(id) }); // it may have ended already
}

// `pools set` and `whatif` take a pool's quota with the same checks and the same message: a CPU or memory quota of
// nothing is refused by both, an accelerator quota of 0 (the pool kept off that kind) is taken by both.
void TestCtl::quotaOfNothingIsRefusedAlikeByPoolsSetAndWhatIf()
{
    const std::pair<QStringList, QStringList> pairs[] = {
        { { QStringLiteral("--cpu"), QStringLiteral("0") }, { QStringLiteral("--pool"), QStringLiteral("gold=0") } },
        { { QStringLiteral("--memory"), QStringLiteral("0") },
            { QStringLiteral("--pool-memory"), QStringLiteral("gold=0") } },
        { { QStringLiteral("--gpu"), QStringLiteral("-1") },
            { QStringLiteral("--pool-gpu"), QStringLiteral("gold=-1") } },
    };
    for (const auto& [setArgs, whatIfArgs] : pairs) {
        const CtlRun set
            = ctl(QStringList { QStringLiteral("pools"), QStringLiteral("set"), QStringLiteral("gold") } + setArgs);
        const CtlRun whatIf = ctl(QStringList { QStringLiteral("whatif") } + whatIfArgs);
        QCOMPARE(set.exitCode, 2);
        QCOMPARE(whatIf.exitCode, 2);
        QVERIFY2(set.err.startsWith(QStringLiteral("tidepoolctl: pools set: ") + setArgs[0] + QStringLiteral(": \"")),
            qPrintable(set.err));
        QVERIFY2(whatIf.err.startsWith(
                     QStringLiteral("tidepoolctl: whatif: ") + whatIfArgs[0] + QStringLiteral(" gold: \"")),
            qPrintable(whatIf.err));
        // The same words after the option.
        QCOMPARE(whatIf.err.mid(whatIf.err.indexOf(QLatin1Char('"'))), set.err.mid(set.err.indexOf(QLatin1Char('"'))));
        QVERIFY2(set.err.contains(QStringLiteral("must be a whole number of")), qPrintable(set.err));
    }
    QVERIFY(ctl({ QStringLiteral("whatif"), QStringLiteral("--pool"), QStringLiteral("gold=0") })
                .err.contains(QStringLiteral("millicores from 1 to")));
    // What `pools set` takes, `whatif` takes.
    QCOMPARE(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("whatif"), QStringLiteral("--pool"),
                     QStringLiteral("gold=1"), QStringLiteral("--pool-gpu"), QStringLiteral("gold=0") })
                 .exitCode,
        0);
}

// A workload that asks for no CPU, no memory and no accelerator is refused: by tidepoolctl naming its options or
// the file's field, and by the daemon itself (400, naming the field; a batch all or nothing).
void TestCtl::workloadAskingForNothingIsRefused()
{
    const CtlRun options = ctl({ QStringLiteral("submit"), QStringLiteral("--name"), QStringLiteral("idle"),
        QStringLiteral("--cpu"), QStringLiteral("0"), QStringLiteral("--memory"), QStringLiteral("0") });
    QCOMPARE(options.exitCode, 2);
    QVERIFY(options.out.isEmpty());
    QVERIFY2(options.err.contains(QStringLiteral("submit: --cpu 0 and --memory 0 ask for nothing")),
        qPrintable(options.err));

    const QString file
        = writeFile(QStringLiteral("nothing.json"), R"({"name": "idle", "cpuMillis": 0, "memoryMiB": 0})");
    const CtlRun fromFile = ctl({ QStringLiteral("submit"), QStringLiteral("-f"), file });
    QCOMPARE(fromFile.exitCode, 2);
    QVERIFY2(fromFile.err.contains(file + QStringLiteral(": field `cpuMillis`: the workload asks for nothing")),
        qPrintable(fromFile.err));

    api::ApiClient client("127.0.0.1", m_apiPort, m_token.toStdString(), std::chrono::seconds(5));
    const auto one
        = client.request(api::HttpMethod::Post, "/v1/workloads", R"({"name": "idle", "cpuMillis": 0, "memoryMiB": 0})");
    QVERIFY(one);
    QCOMPARE(one->status, 400);
    QVERIFY2(str(parsed(QString::fromStdString(one->body)), "/error")
                 .find("field `cpuMillis`: the workload asks for "
                       "nothing")
            != std::string::npos,
        one->body.c_str());
    const auto batch = client.request(api::HttpMethod::Post, "/v1/workloads",
        R"({"workloads": [{"name": "before-idle", "cpuMillis": 10, "memoryMiB": 1},
                          {"name": "idle", "cpuMillis": 0, "memoryMiB": 0}]})");
    QVERIFY(batch);
    QCOMPARE(batch->status, 400);
    QVERIFY2(str(parsed(QString::fromStdString(batch->body)), "/error").find("field `workloads[1].cpuMillis`")
            != std::string::npos,
        batch->body.c_str());
    for (const json& w :
        at(parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("list") }).out), "/workloads"))
        QVERIFY2(str(w, "/name") != "before-idle" && str(w, "/name") != "idle", w.dump().c_str());

    // CPU alone is something.
    const std::string cpuOnly = submitJson({ QStringLiteral("--name"), QStringLiteral("cpu-only"),
        QStringLiteral("--cpu"), QStringLiteral("10"), QStringLiteral("--memory"), QStringLiteral("0") });
    QVERIFY(!cpuOnly.empty());
    ctl({ QStringLiteral("cancel"), QString::fromStdString(cpuOnly) });
}

// `move` over the real daemon: into a pool (the core picks the node) and onto a node of it, the table naming where it
// went and the JSON the daemon's answer; a move the target pool's quota cannot hold, and one the scheduler's filters
// refuse, exit 1 with the reason (and the nodes per reason); the API refuses a body it cannot read, naming the field.
// An operator takes a node out of service and back: cordoned (nothing new lands there; the table and the detail say
// so, and by whom), drained (its workloads move to other nodes; where none takes them they stay and the exit status
// is 1), uncordoned. Audited, and the API names what is wrong with a body. Every node is uncordoned at the end.
void TestCtl::aNodeIsCordonedDrainedAndUncordoned()
{
    const std::string id = submitJson({ QStringLiteral("--name"), QStringLiteral("tenant"), QStringLiteral("--cpu"),
        QStringLiteral("250"), QStringLiteral("--memory"), QStringLiteral("64") });
    QVERIFY(!id.empty());
    const std::string node = nodeOfWorkload(id);
    QVERIFY(node.starts_with("fleet-"));
    const QString qnode = QString::fromStdString(node);
    std::vector<QString> others;
    for (const json& n :
        at(parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("nodes") }).out), "/nodes"))
        if (str(n, "/name") != node)
            others.push_back(QString::fromStdString(str(n, "/name")));
    QCOMPARE(others.size(), std::size_t { kNodes - 1 });

    const CtlRun cordoned = ctl({ QStringLiteral("nodes"), QStringLiteral("cordon"), qnode, QStringLiteral("--reason"),
        QStringLiteral("disk swap") });
    QVERIFY2(cordoned.exitCode == 0, qPrintable(cordoned.err));
    QVERIFY2(hasLine(cordoned.out,
                 QStringLiteral("^node ") + qnode
                     + QStringLiteral(" cordoned \\(by operator:\\S+: disk swap\\): no new work lands there; what "
                                      "runs there stays$")),
        qPrintable(cordoned.out));
    QVERIFY2(hasLine(ctl({ QStringLiteral("nodes") }).out,
                 QStringLiteral("^") + qnode + QStringLiteral("\\s+ready,cordoned\\s")),
        "the table says it is cordoned");
    QVERIFY2(hasLine(ctl({ QStringLiteral("nodes"), qnode }).out,
                 QStringLiteral("^Cordon:\\s+by operator:\\S+: disk swap$")),
        "the detail says by whom and why");
    // What runs there stays; what comes lands elsewhere.
    QCOMPARE(nodeOfWorkload(id), node);
    const std::string later = submitJson({ QStringLiteral("--name"), QStringLiteral("later"), QStringLiteral("--cpu"),
        QStringLiteral("250"), QStringLiteral("--memory"), QStringLiteral("64") });
    QVERIFY(!later.empty() && nodeOfWorkload(later) != node);

    // Drained: the workload moves to another node (what earlier tests left there may have nowhere else to go: the
    // exit status says whether any stayed).
    const CtlRun drained = ctl(
        { QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("nodes"), QStringLiteral("drain"), qnode });
    const json drainedJson = parsed(drained.out);
    QVERIFY2(drainedJson.is_object(), qPrintable(drained.out + drained.err));
    QCOMPARE(drained.exitCode, num(drainedJson, "/stayed") > 0 ? 1 : 0);
    QVERIFY2(str(drainedJson, "/cordon").ends_with(": disk swap"), qPrintable(drained.out));
    const std::string movedTo = nodeOfWorkload(id);
    QVERIFY(movedTo != node && movedTo.starts_with("fleet-"));
    bool tenantMoved = false;
    for (const json& w : at(drainedJson, "/workloads"))
        if (std::to_string(num(w, "/workload")) == id)
            tenantMoved = at(w, "/moved") == json(true) && str(w, "/node") == movedTo;
    QVERIFY2(tenantMoved, qPrintable(drained.out));

    // With every other node cordoned, a drain moves nothing: each stays, with why, and the exit status is 1.
    for (const QString& other : others)
        QCOMPARE(ctl({ QStringLiteral("nodes"), QStringLiteral("cordon"), other }).exitCode, 0);
    QVERIFY(ctl({ QStringLiteral("nodes"), QStringLiteral("uncordon"), qnode }).exitCode == 0);
    const CtlRun back = ctl({ QStringLiteral("move"), QString::fromStdString(id), QStringLiteral("--node"), qnode });
    QVERIFY2(back.exitCode == 0, qPrintable(back.err));
    const CtlRun stuck = ctl({ QStringLiteral("nodes"), QStringLiteral("drain"), qnode });
    QCOMPARE(stuck.exitCode, 1);
    QVERIFY2(hasLine(stuck.out,
                 QStringLiteral("^node ") + qnode
                     + QStringLiteral(
                         " cordoned \\(by operator:\\S+: drained\\); 0 workload\\(s\\) moved off it, \\d+ stay$")),
        qPrintable(stuck.out));
    QVERIFY2(
        hasLine(stuck.out,
            QStringLiteral("^") + QString::fromStdString(id)
                + QStringLiteral("\\s+tenant\\s+-\\s+no other node can take workload ") + QString::fromStdString(id)),
        qPrintable(stuck.out));
    QVERIFY2(stuck.err.contains(QStringLiteral("that no other node takes")), qPrintable(stuck.err));
    QCOMPARE(nodeOfWorkload(id), node);

    // Uncordoned, every one; again: nothing to lift. No such node: the daemon's words.
    for (const QString& other : others) {
        const CtlRun lifted = ctl({ QStringLiteral("nodes"), QStringLiteral("uncordon"), other });
        QVERIFY2(lifted.exitCode == 0 && lifted.out.contains(QStringLiteral(" uncordoned (it was: by operator:")),
            qPrintable(lifted.out + lifted.err));
    }
    // The drain cordoned it again, for being drained.
    const CtlRun lifted = ctl({ QStringLiteral("nodes"), QStringLiteral("uncordon"), qnode });
    QVERIFY2(
        hasLine(lifted.out,
            QStringLiteral("^node ") + qnode + QStringLiteral(" uncordoned \\(it was: by operator:\\S+: drained\\)$")),
        qPrintable(lifted.out + lifted.err));
    const CtlRun again = ctl({ QStringLiteral("nodes"), QStringLiteral("uncordon"), qnode });
    QVERIFY2(again.exitCode == 0, qPrintable(again.err));
    QVERIFY2(hasLine(again.out, QStringLiteral("^node ") + qnode + QStringLiteral(" was not cordoned$")),
        qPrintable(again.out));
    QVERIFY(!ctl({ QStringLiteral("nodes") }).out.contains(QStringLiteral("cordoned")));
    const CtlRun missing = ctl({ QStringLiteral("nodes"), QStringLiteral("drain"), QStringLiteral("nope") });
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains(QStringLiteral("no node is named \"nope\"")), qPrintable(missing.err));
    QCOMPARE(ctl({ QStringLiteral("nodes"), QStringLiteral("cordon") }).exitCode, 2);

    // The API names what is wrong with a body, and changes nothing.
    api::ApiClient client("127.0.0.1", m_apiPort, m_token.toStdString(), std::chrono::seconds(5));
    const std::string cordon = "/v1/nodes/" + node + "/cordon";
    for (const auto& [body, field] :
        { std::pair { R"({"reason": 5})", "reason" }, std::pair { R"({"why": "x"})", "why" },
            std::pair { R"([1])", "JSON object" }, std::pair { R"({"reason": "a\u0007b"})", "reason" } }) {
        const auto refused = client.request(api::HttpMethod::Post, cordon, body);
        QVERIFY(refused);
        QVERIFY2(refused->status == 400 && refused->body.find(field) != std::string::npos, refused->body.c_str());
    }
    const auto uncordonWithReason
        = client.request(api::HttpMethod::Post, "/v1/nodes/" + node + "/uncordon", R"({"reason": "x"})");
    QVERIFY(uncordonWithReason && uncordonWithReason->status == 400);
    QVERIFY(!ctl({ QStringLiteral("nodes") }).out.contains(QStringLiteral("cordoned")));
    // Each change is in the audit log, against the node, with the cordon it left.
    const json audit = parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("audit"),
                                      QStringLiteral("--limit"), QStringLiteral("1000") })
                                  .out);
    int drains = 0;
    for (const json& e : at(audit, "/entries"))
        if (str(e, "/target") == "node " + node && str(e, "/action") == "POST /v1/nodes/" + node + "/drain")
            ++drains;
    QVERIFY2(drains >= 2, audit.dump().substr(0, 2000).c_str());
}

// A paced drain over the real daemon and its agents: `nodes drain --max-parallel 1 --deadline 8s --wait` moves the
// node's workloads one at a time, each when the one before runs on its new node, prints its progress and returns once
// the node is empty (what an earlier test left there that no other node takes is queued again at the deadline); the
// node's detail says none is under way now. The API names a bad pace in the body.
void TestCtl::aPacedDrainIsWaitedForUntilTheNodeIsEmpty()
{
    std::vector<std::string> ids;
    for (int i = 0; i < 3; ++i)
        ids.push_back(submitJson({ QStringLiteral("--name"), QStringLiteral("paced-%1").arg(i), QStringLiteral("--cpu"),
            QStringLiteral("100"), QStringLiteral("--memory"), QStringLiteral("32") }));
    const std::string node = nodeOfWorkload(ids[0]);
    QVERIFY(node.starts_with("fleet-"));
    const QString qnode = QString::fromStdString(node);
    moveAllTo(ids, node);
    const std::int64_t there
        = num(parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("nodes"), qnode }).out),
            "/workloads");
    QVERIFY(there >= 3);

    const CtlRun drained = ctl({ QStringLiteral("nodes"), QStringLiteral("drain"), qnode, QStringLiteral("--reason"),
        QStringLiteral("bios"), QStringLiteral("--max-parallel"), QStringLiteral("1"), QStringLiteral("--deadline"),
        QStringLiteral("8s"), QStringLiteral("--wait"), QStringLiteral("--interval-ms"), QStringLiteral("100") });
    QVERIFY2(drained.exitCode == 0, qPrintable(drained.out + drained.err));
    QVERIFY2(hasLine(drained.out,
                 QStringLiteral("^node ") + qnode
                     + QStringLiteral(" cordoned \\(by operator:\\S+: bios\\); 1 workload\\(s\\) moved off it now, ")
                     + QString::number(there - 1)
                     + QStringLiteral(
                         " waiting for their turn; draining at most 1 moving at once: 1 moving, 1 moved"
                         "(; \\d+ cannot move yet \\(.*\\))?; deadline in \\d+s, started by operator:\\S+ \\d+s ago$")),
        qPrintable(drained.out));
    QVERIFY2(hasLine(drained.out, QStringLiteral("^node ") + qnode + QStringLiteral(" drained: nothing runs there$")),
        qPrintable(drained.out));
    QVERIFY2(hasLine(drained.out, QStringLiteral("^\\d+ there; at most 1 moving at once: [01] moving, \\d+ moved")),
        qPrintable(drained.out));
    for (const std::string& id : ids) {
        const std::string now = nodeOfWorkload(id);
        QVERIFY2(now != node && now.starts_with("fleet-"), now.c_str()); // moved in its turn, not queued again
    }
    const CtlRun detail = ctl({ QStringLiteral("nodes"), qnode });
    QVERIFY2(hasLine(detail.out, QStringLiteral("^Drain:\\s+none under way$")), qPrintable(detail.out));
    // The metrics count its moves; it is cordoned still, and draining no more.
    api::ApiClient client("127.0.0.1", m_apiPort, m_token.toStdString(), std::chrono::seconds(5));
    const auto metrics = client.request(api::HttpMethod::Get, "/metrics", "");
    QVERIFY(metrics && metrics->status == 200);
    const QString text = QString::fromStdString(metrics->body);
    QVERIFY2(hasLine(text, QStringLiteral("^tidepool_drain_moves_total [3-9]\\d*$")), qPrintable(text.left(3000)));
    QVERIFY2(hasLine(text, QStringLiteral("^tidepool_nodes_draining 0$")), qPrintable(text.left(3000)));
    QVERIFY2(hasLine(text, QStringLiteral("^tidepool_nodes_cordoned [1-9]\\d*$")), qPrintable(text.left(3000)));
    QVERIFY2(hasLine(detail.out, QStringLiteral("^Workloads:\\s+0$")), qPrintable(detail.out));
    QCOMPARE(ctl({ QStringLiteral("nodes"), QStringLiteral("uncordon"), qnode }).exitCode, 0);

    const std::string path = "/v1/nodes/" + node + "/drain";
    for (const auto& [body, words] : { std::pair { R"({"maxParallel": "x"})", "maxParallel" },
             std::pair { R"({"maxParallel": 1, "deadlineMs": 5})", "deadlineMs" },
             std::pair { R"({"deadlineMs": 60000})", "give maxParallel with deadlineMs" } }) {
        const auto refused = client.request(api::HttpMethod::Post, path, body);
        QVERIFY(refused);
        QVERIFY2(refused->status == 400 && refused->body.find(words) != std::string::npos, refused->body.c_str());
    }
    QVERIFY(!ctl({ QStringLiteral("nodes") }).out.contains(QStringLiteral("cordoned")));
    for (const std::string& id : ids)
        ctl({ QStringLiteral("cancel"), QString::fromStdString(id) });
}

// A pool's disruption budget (`pools create|set --max-disrupted`, a number or a percentage of its workloads): an
// all-at-once drain moves no more of the pool's workloads at once than it allows, goes on by itself as those run on
// their new nodes, and `--wait` follows it until the node is empty; the pools table, the pool's JSON and the metrics
// show the budget.
void TestCtl::aPoolsDisruptionBudgetHoldsADrain()
{
    const CtlRun created = ctl({ QStringLiteral("pools"), QStringLiteral("create"), QStringLiteral("steady"),
        QStringLiteral("--max-disrupted"), QStringLiteral("1") });
    QVERIFY2(created.exitCode == 0, qPrintable(created.err));
    QVERIFY2(created.out.contains(QRegularExpression(
                 QStringLiteral("^steady\\s.*\\s0/1\\s+\\d+\\s+-$"), QRegularExpression::MultilineOption)),
        qPrintable(created.out));
    const CtlRun lifted = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("pools"),
        QStringLiteral("set"), QStringLiteral("steady"), QStringLiteral("--max-disrupted"), QStringLiteral("none") });
    QCOMPARE(lifted.exitCode, 0);
    QVERIFY(at(parsed(lifted.out), "/maxDisrupted").is_null());
    const CtlRun set = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("pools"),
        QStringLiteral("set"), QStringLiteral("steady"), QStringLiteral("--max-disrupted"), QStringLiteral("1") });
    QCOMPARE(num(parsed(set.out), "/maxDisrupted"), 1);
    QCOMPARE(num(parsed(set.out), "/disrupted"), 0);
    api::ApiClient client("127.0.0.1", m_apiPort, m_token.toStdString(), std::chrono::seconds(5));
    for (const char* body : { R"({"maxDisrupted": -1})", R"({"maxDisrupted": "2"})", R"({"maxDisrupted": 1000001})",
             R"({"maxDisrupted": "101%"})", R"({"maxDisrupted": "x%"})", R"({"maxDisrupted": "-5%"})",
             R"({"maxDisrupted": "%"})", R"({"maxDisrupted": true})" }) {
        const auto refused = client.request(api::HttpMethod::Put, "/v1/pools/steady", body);
        QVERIFY(refused);
        QVERIFY2(
            refused->status == 400 && refused->body.find("maxDisrupted") != std::string::npos, refused->body.c_str());
    }
    const CtlRun badShare = ctl({ QStringLiteral("pools"), QStringLiteral("set"), QStringLiteral("steady"),
        QStringLiteral("--max-disrupted"), QStringLiteral("150%") });
    QCOMPARE(badShare.exitCode, 2);
    QVERIFY2(badShare.err.contains(QStringLiteral("\"150%\" must be a number of workloads from 0 to 1000000, a "
                                                  "percentage of the pool's workloads from 0% to 100%, or none")),
        qPrintable(badShare.err));
    // 30% of the pool's workloads, rounded up: none while it holds none, one of the three below.
    const CtlRun share = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("pools"),
        QStringLiteral("set"), QStringLiteral("steady"), QStringLiteral("--max-disrupted"), QStringLiteral("30%") });
    QCOMPARE(share.exitCode, 0);
    QCOMPARE(at(parsed(share.out), "/maxDisrupted").get<std::string>(), std::string("30%"));
    QCOMPARE(num(parsed(share.out), "/disruptionBudget"), 0);

    std::vector<std::string> ids;
    for (int i = 0; i < 3; ++i)
        ids.push_back(submitJson({ QStringLiteral("--name"), QStringLiteral("steady-%1").arg(i),
            QStringLiteral("--cpu"), QStringLiteral("100"), QStringLiteral("--memory"), QStringLiteral("32"),
            QStringLiteral("--pool"), QStringLiteral("steady") }));
    // All three on a node where nothing else runs (earlier tests leave work that only its node takes), so that the
    // drain can empty it.
    std::string node;
    const json nodes = parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("nodes") }).out);
    for (const json& n : nodes.value("nodes", json::array()))
        if (node.empty() && n.value("workloads", -1) == 0 && n.value("state", "") == "ready")
            node = n.value("name", "");
    QVERIFY2(!node.empty(), nodes.dump().c_str());
    const QString qnode = QString::fromStdString(node);
    moveAllTo(ids, node);
    const CtlRun table = ctl({ QStringLiteral("pools") });
    QVERIFY2(table.out.contains(QRegularExpression(
                 QStringLiteral("^steady\\s.*\\s0/1\\(30%\\)\\s+\\d+\\s+-$"), QRegularExpression::MultilineOption)),
        qPrintable(table.out));

    const CtlRun drained = ctl({ QStringLiteral("nodes"), QStringLiteral("drain"), qnode, QStringLiteral("--wait"),
        QStringLiteral("--interval-ms"), QStringLiteral("100") });
    QVERIFY2(drained.exitCode == 0, qPrintable(drained.out + drained.err));
    // Of the pool's three, one moved at once; the others wait for it, running where they are.
    QVERIFY2(hasLine(drained.out,
                 QStringLiteral("^node ") + qnode
                     + QStringLiteral(
                         " cordoned \\(by operator:\\S+: drained\\); \\d+ workload\\(s\\) moved off it now, "
                         "[2-9]\\d* waiting for their turn; draining as many moving at once as their "
                         "pools' disruption budgets allow: \\d+ moving, \\d+ moved; [2-9]\\d* cannot move "
                         "yet \\(pool steady's disruption budget is taken: 1 of its workloads is moving, "
                         "at most 1 at once \\(30% of its workloads\\)\\); no deadline, started by operator:\\S+ .*$")),
        qPrintable(drained.out));
    QVERIFY2(hasLine(drained.out, QStringLiteral("^node ") + qnode + QStringLiteral(" drained: nothing runs there$")),
        qPrintable(drained.out));
    for (const std::string& id : ids) {
        const std::string now = nodeOfWorkload(id);
        QVERIFY2(now != node && now.starts_with("fleet-"), now.c_str());
    }
    const auto metrics = client.request(api::HttpMethod::Get, "/metrics", "");
    QVERIFY(metrics && metrics->status == 200);
    const QString text = QString::fromStdString(metrics->body);
    QVERIFY2(hasLine(text, QStringLiteral("^tidepool_pool_disrupted\\{pool=\"steady\",kind=\"budget\"\\} 1$")),
        qPrintable(text.left(3000)));
    QVERIFY2(hasLine(text, QStringLiteral("^tidepool_pool_disrupted\\{pool=\"steady\",kind=\"moving\"\\} [01]$")),
        qPrintable(text.left(3000)));
    // The timeline has the drain's start and end as a category of their own, apart from the cordon.
    const CtlRun drains = ctl({ QStringLiteral("events"), QStringLiteral("--category"), QStringLiteral("drain"),
        QStringLiteral("--node"), qnode });
    QCOMPARE(drains.exitCode, 0);
    QVERIFY2(
        hasLine(drains.out,
            QStringLiteral("\\sdrain\\s+") + qnode + QStringLiteral("\\s.*drain started: 1 moved at once, 2 waiting")),
        qPrintable(drains.out));
    QVERIFY2(hasLine(drains.out, QStringLiteral("drain finished: 3 moved$")), qPrintable(drains.out));
    const CtlRun cordons = ctl({ QStringLiteral("events"), QStringLiteral("--category"), QStringLiteral("cordon"),
        QStringLiteral("--node"), qnode });
    QVERIFY2(!cordons.out.contains(QStringLiteral("drain started")), qPrintable(cordons.out));
    // The audit keeps the budget with the pool's settings.
    const CtlRun audit = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("audit"),
        QStringLiteral("--limit"), QStringLiteral("50") });
    QVERIFY2(audit.out.contains(QStringLiteral("\"maxDisrupted\"")), qPrintable(audit.out.left(2000)));

    QCOMPARE(ctl({ QStringLiteral("nodes"), QStringLiteral("uncordon"), qnode }).exitCode, 0);
    for (const std::string& id : ids)
        ctl({ QStringLiteral("cancel"), QString::fromStdString(id) });
}

// `tidepoolctl resize`: a running workload in place on its (simulated) node, its agent told and confirming; a waiting
// one placed at its new size; more than its node has room for refused with why (exit 1).
void TestCtl::aWorkloadIsResizedInPlaceOrWhileItWaits()
{
    const std::string id = submitJson({ QStringLiteral("--name"), QStringLiteral("resizer"), QStringLiteral("--cpu"),
        QStringLiteral("250"), QStringLiteral("--memory"), QStringLiteral("64"), QStringLiteral("--"),
        QStringLiteral("sleep"), QStringLiteral("600") });
    QVERIFY(!id.empty());
    const QString qid = QString::fromStdString(id);
    QVERIFY(QTest::qWaitFor([&] { return workloadPhase(id) == "running"; }, 10'000));
    const CtlRun resized = ctl({ QStringLiteral("resize"), qid, QStringLiteral("--cpu"), QStringLiteral("100"),
        QStringLiteral("--memory"), QStringLiteral("32"), QStringLiteral("--memory-limit"), QStringLiteral("48") });
    QVERIFY2(resized.exitCode == 0, qPrintable(resized.err));
    QVERIFY2(
        hasLine(resized.out,
            QStringLiteral("^workload ") + qid
                + QStringLiteral(" resized by \\S+: CPU 250m → 100m, memory 64 MiB → 32 MiB, memory limit none → "
                                 "48 MiB in place on node fleet-\\d+; its agent applies the new weight and limits")),
        qPrintable(resized.out));
    QVERIFY(QTest::qWaitFor(
        [&] {
            return !parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("get"), qid }).out)
                        .contains("resize");
        },
        10'000));
    const json got = parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("get"), qid }).out);
    QCOMPARE(num(got, "/cpuMillis"), 100);
    QCOMPARE(num(got, "/memoryMiB"), 32);
    QCOMPARE(num(got, "/memoryLimitMiB"), 48);

    // More than its node has: refused with why, nothing changed.
    const CtlRun tooBig = ctl({ QStringLiteral("resize"), qid, QStringLiteral("--cpu"), QStringLiteral("1000000") });
    QCOMPARE(tooBig.exitCode, 1);
    QVERIFY2(tooBig.err.contains(QStringLiteral("has no room for it (CPU: it would ask for 1000000m")),
        qPrintable(tooBig.err));
    QCOMPARE(num(parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("get"), qid }).out),
                 "/cpuMillis"),
        100);

    // Waiting for a node no node has: placed once it asks for what one has; answered with the daemon's JSON.
    const std::string huge = submitJson({ QStringLiteral("--name"), QStringLiteral("shrinker"), QStringLiteral("--cpu"),
        QStringLiteral("1000000"), QStringLiteral("--memory"), QStringLiteral("64") });
    QVERIFY(!huge.empty());
    QCOMPARE(workloadPhase(huge), std::string("pending"));
    const CtlRun shrunk = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("resize"),
        QString::fromStdString(huge), QStringLiteral("--cpu"), QStringLiteral("100") });
    QVERIFY2(shrunk.exitCode == 0, qPrintable(shrunk.err));
    const json answer = parsed(shrunk.out);
    QVERIFY2(at(answer, "/resized") == json(true), qPrintable(shrunk.out));
    QCOMPARE(str(answer, "/node"), std::string());
    QVERIFY(QTest::qWaitFor([&] { return workloadPhase(huge) == "running"; }, 10'000));
    for (const std::string& w : { id, huge })
        QCOMPARE(ctl({ QStringLiteral("cancel"), QString::fromStdString(w) }).exitCode, 0);
}

void TestCtl::moveIntoAPoolOntoANodeAndRefusalsWithReasons()
{
    for (const auto& [pool, cpu] : { std::pair { "movers", "4000" }, std::pair { "tiny", "100" } })
        QCOMPARE(ctl({ QStringLiteral("pools"), QStringLiteral("create"), QString::fromUtf8(pool),
                         QStringLiteral("--cpu"), QString::fromUtf8(cpu) })
                     .exitCode,
            0);
    const std::string id = submitJson({ QStringLiteral("--name"), QStringLiteral("mover"), QStringLiteral("--cpu"),
        QStringLiteral("250"), QStringLiteral("--memory"), QStringLiteral("64"), QStringLiteral("--"),
        QStringLiteral("sleep"), QStringLiteral("600") });
    QVERIFY(!id.empty());
    const QString qid = QString::fromStdString(id);
    QVERIFY(workloadPhase(id) != "pending");

    // Into the pool: the core picks one of its nodes.
    const CtlRun moved = ctl({ QStringLiteral("move"), qid, QStringLiteral("--pool"), QStringLiteral("movers") });
    QVERIFY2(moved.exitCode == 0, qPrintable(moved.err));
    QVERIFY2(
        hasLine(moved.out,
            QStringLiteral("^workload ") + qid
                + QStringLiteral(" \\(mover\\) moved to node fleet-\\d+ \\((hot|warm|cold) tier\\) in pool movers$")),
        qPrintable(moved.out));
    json got = parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("get"), qid }).out);
    QCOMPARE(str(got, "/pool"), std::string("movers"));
    const std::string first = str(got, "/node");
    const json pools = parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("pools") }).out);
    for (const json& p : at(pools, "/pools"))
        if (str(p, "/name") == "movers")
            QCOMPARE(num(p, "/cpuMillisUsed"), 250);

    // The pool and a node of it, answered with the daemon's JSON.
    std::string other;
    for (const json& n :
        at(parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("nodes") }).out), "/nodes"))
        if (str(n, "/name") != first && other.empty())
            other = str(n, "/name");
    QVERIFY(!other.empty());
    const CtlRun onto = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("move"), qid,
        QStringLiteral("--pool"), QStringLiteral("movers"), QStringLiteral("--node"), QString::fromStdString(other) });
    QVERIFY2(onto.exitCode == 0, qPrintable(onto.err));
    json answer = parsed(onto.out);
    QVERIFY2(at(answer, "/moved") == json(true), qPrintable(onto.out));
    QCOMPARE(str(answer, "/node"), other);
    QCOMPARE(str(answer, "/pool"), std::string("movers"));
    QCOMPARE(std::to_string(num(answer, "/workload")), id);

    // The target pool's quota cannot hold it: the resource and by how much.
    const CtlRun quota = ctl({ QStringLiteral("move"), qid, QStringLiteral("--pool"), QStringLiteral("tiny") });
    QCOMPARE(quota.exitCode, 1);
    QVERIFY(quota.out.isEmpty());
    QVERIFY2(quota.err.contains(QStringLiteral("(pool_quota)")), qPrintable(quota.err));
    QVERIFY2(quota.err.contains(QStringLiteral("CPU: it asks for 250 millicores and 100 of the pool's 100 are left "
                                               "(150 short)")),
        qPrintable(quota.err));
    QCOMPARE(
        str(parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("get"), qid }).out), "/pool"),
        std::string("movers"));

    // A thousand cores onto one node: the scheduler's reason, with its node count.
    const std::string huge = submitJson({ QStringLiteral("--name"), QStringLiteral("huge-mover"),
        QStringLiteral("--cpu"), QStringLiteral("1000000"), QStringLiteral("--memory"), QStringLiteral("64") });
    QVERIFY(!huge.empty());
    const QStringList hugeOnto { QStringLiteral("move"), QString::fromStdString(huge), QStringLiteral("--node"),
        QString::fromStdString(other) };
    const CtlRun refused = ctl(hugeOnto);
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains(QStringLiteral("(no_feasible_node)")), qPrintable(refused.err));
    QVERIFY2(hasLine(refused.err, QStringLiteral("^  insufficient CPU: 1 of 1 nodes$")), qPrintable(refused.err));
    const CtlRun refusedJson = ctl(QStringList { QStringLiteral("-o"), QStringLiteral("json") } + hugeOnto);
    QCOMPARE(refusedJson.exitCode, 1);
    answer = parsed(refusedJson.out);
    QCOMPARE(str(answer, "/refusal"), std::string("no_feasible_node"));
    QCOMPARE(num(answer, "/nodesConsidered"), 1);
    QCOMPARE(str(answer, "/reasons/0/reason"), std::string("insufficient CPU"));
    QCOMPARE(num(answer, "/reasons/0/nodes"), 1);
    QCOMPARE(workloadPhase(huge), std::string("pending"));

    // No such pool: the daemon's 404 names it.
    const CtlRun missing = ctl({ QStringLiteral("move"), qid, QStringLiteral("--pool"), QStringLiteral("lead") });
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains(QStringLiteral("no pool is named \"lead\"")), qPrintable(missing.err));

    // The API validates the body as its other routes do, naming the field.
    api::ApiClient client("127.0.0.1", m_apiPort, m_token.toStdString(), std::chrono::seconds(5));
    const std::pair<const char*, const char*> bodies[] = {
        { R"({"pool": 5})", "`pool`" },
        { R"({"tier": "lukewarm"})", "`tier` must be hot, warm or cold" },
        { R"({"pool": "movers", "colour": "red"})", "`colour`" },
        { R"({})", "a `node`, a `tier` or a `pool`" },
        { R"([1])", "must be a JSON object" },
    };
    for (const auto& [body, message] : bodies) {
        const auto bad = client.request(api::HttpMethod::Post, "/v1/workloads/" + id + "/move", body);
        QVERIFY(bad);
        QCOMPARE(bad->status, 400);
        QVERIFY2(str(parsed(QString::fromStdString(bad->body)), "/error").find(message) != std::string::npos,
            bad->body.c_str());
    }

    for (const std::string& w : { id, huge })
        QCOMPARE(ctl({ QStringLiteral("cancel"), QString::fromStdString(w) }).exitCode, 0);
}

void TestCtl::seriesAndHistoryShowRecordedPoints()
{
    // The daemon records every pool's demand every second, idle pools as zeros.
    auto hasDefaultCpu = [this] {
        const json j = parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("series") }).out);
        for (const json& s : at(j, "/series"))
            if (str(s, "/scope") == "pool" && str(s, "/name") == "default" && str(s, "/resource") == "cpu")
                return true;
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(hasDefaultCpu(), 10'000);
    const CtlRun series = ctl({ QStringLiteral("series") });
    QCOMPARE(series.exitCode, 0);
    QCOMPARE(cells(lines(series.out).value(0)),
        (QStringList { QStringLiteral("SCOPE"), QStringLiteral("NAME"), QStringLiteral("RESOURCE") }));
    QVERIFY2(hasLine(series.out, QStringLiteral("^pool\\s+default\\s+cpu$")), qPrintable(series.out));

    const QStringList key { QStringLiteral("--scope"), QStringLiteral("pool"), QStringLiteral("--name"),
        QStringLiteral("default"), QStringLiteral("--resource"), QStringLiteral("cpu") };
    const json recent = parsed(
        ctl(QStringList { QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("history") } + key).out);
    QCOMPARE(str(recent, "/resolution"), std::string("raw"));
    const json points = at(recent, "/points");
    QVERIFY2(points.is_array() && !points.empty(), recent.dump().c_str());

    // A window that ends at the latest point holds nothing that is still being written: the table and the JSON of
    // it agree row by row, times in UTC.
    const std::int64_t to = points.back().value("atMs", std::int64_t { 0 });
    const QStringList window { QStringLiteral("--from"), QString::number(to - 60'000), QStringLiteral("--to"),
        QString::number(to) };
    const json expected = at(
        parsed(
            ctl(QStringList { QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("history") } + key + window)
                .out),
        "/points");
    const CtlRun table = ctl(QStringList { QStringLiteral("history") } + key + window);
    QCOMPARE(table.exitCode, 0);
    const QStringList rows = lines(table.out);
    // CPU in cores, as the other tables print it (the series records millicores).
    QCOMPARE(cells(rows.value(0)), (QStringList { QStringLiteral("TIME"), QStringLiteral("VALUE(cores)") }));
    QCOMPARE(static_cast<std::size_t>(rows.size() - 1), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const QStringList row = cells(rows[static_cast<int>(i) + 1]);
        QCOMPARE(row.value(0), utc(expected[i].value("atMs", std::int64_t { 0 })));
        QCOMPARE(qRound64(row.value(1).toDouble() * 1000), qRound64(expected[i].value("value", -1.0)));
    }

    const CtlRun none = ctl(QStringList { QStringLiteral("history") } + key
        + QStringList { QStringLiteral("--from"), QStringLiteral("0"), QStringLiteral("--to"), QStringLiteral("1") });
    QCOMPARE(none.exitCode, 0);
    QCOMPARE(lines(none.out).size(), 1); // the header alone

    const CtlRun aggregates = ctl(QStringList { QStringLiteral("history") } + key
        + QStringList { QStringLiteral("--resolution"), QStringLiteral("5m") });
    QCOMPARE(aggregates.exitCode, 0);
    QCOMPARE(cells(lines(aggregates.out).value(0)),
        (QStringList { QStringLiteral("TIME"), QStringLiteral("MEAN(cores)"), QStringLiteral("MIN(cores)"),
            QStringLiteral("MAX(cores)"), QStringLiteral("COUNT") }));

    // Memory in binary units, as the other tables print it (the series records MiB): the default pool holds
    // workloads of this suite, so its demand is above zero.
    const CtlRun memory = ctl({ QStringLiteral("history"), QStringLiteral("--scope"), QStringLiteral("pool"),
        QStringLiteral("--name"), QStringLiteral("default"), QStringLiteral("--resource"), QStringLiteral("memory") });
    QCOMPARE(memory.exitCode, 0);
    const QStringList memoryRows = lines(memory.out);
    QCOMPARE(cells(memoryRows.value(0)), (QStringList { QStringLiteral("TIME"), QStringLiteral("VALUE") }));
    QVERIFY2(memoryRows.size() > 1, qPrintable(memory.out));
    for (int i = 1; i < memoryRows.size(); ++i)
        QVERIFY2(
            QRegularExpression(QStringLiteral("^[\\d.]+(Mi|Gi|Ti)$")).match(cells(memoryRows[i]).value(1)).hasMatch(),
            qPrintable(memoryRows[i]));
}

// `history` and `audit` take RFC 3339 / ISO 8601 times (with milliseconds and offsets), dates and times before now
// as well as epoch milliseconds, and name the option and the text of one they cannot read.
void TestCtl::historyAndAuditTakeIsoDatesAndRelativeTimes()
{
    const QStringList key { QStringLiteral("history"), QStringLiteral("--scope"), QStringLiteral("pool"),
        QStringLiteral("--name"), QStringLiteral("default"), QStringLiteral("--resource"), QStringLiteral("cpu") };
    const auto window = [&](const QStringList& range) {
        const CtlRun run = ctl(QStringList { QStringLiteral("-o"), QStringLiteral("json") } + key + range);
        return run.exitCode == 0 ? parsed(run.out) : json(run.err.toStdString());
    };
    const std::int64_t to = (api::unixMillis() - 60'000) / 1000 * 1000 + 250;
    const std::int64_t from = to - 3'600'000;
    const QString isoFrom = QDateTime::fromMSecsSinceEpoch(from, Qt::UTC).toString(Qt::ISODateWithMs); // ...250Z
    const QString offsetTo
        = QDateTime::fromMSecsSinceEpoch(to + 5'400'000, Qt::UTC).toString(QStringLiteral("yyyy-MM-dd'T'HH:mm:ss.zzz"))
        + QStringLiteral("+01:30");
    const json iso = window({ QStringLiteral("--from"), isoFrom, QStringLiteral("--to"), offsetTo });
    QCOMPARE(at(iso, "/fromMs"), json(from));
    QCOMPARE(at(iso, "/toMs"), json(to));

    // A date is its midnight UTC.
    const json day = window({ QStringLiteral("--from"), QStringLiteral("2026-12-06"), QStringLiteral("--to"),
        QStringLiteral("2026-12-06T10:00:00Z") });
    const std::int64_t midnight = QDateTime(QDate(2026, 12, 6), QTime(0, 0), Qt::UTC).toMSecsSinceEpoch();
    QCOMPARE(at(day, "/fromMs"), json(midnight));
    QCOMPARE(at(day, "/toMs"), json(midnight + 10 * 3'600'000));

    // Times before now, counted from one reading of the clock.
    const std::int64_t before = api::unixMillis();
    const json ago
        = window({ QStringLiteral("--from"), QStringLiteral("-1h"), QStringLiteral("--to"), QStringLiteral("-1m") });
    const std::int64_t after = api::unixMillis();
    const std::int64_t agoFrom = at(ago, "/fromMs").is_number() ? at(ago, "/fromMs").get<std::int64_t>() : 0;
    QVERIFY2(agoFrom >= before - 3'600'000 && agoFrom <= after - 3'600'000, ago.dump().c_str());
    QCOMPARE(at(ago, "/toMs"), json(agoFrom + 3'540'000));
    const CtlRun agoTable = ctl(key + QStringList { QStringLiteral("--from"), QStringLiteral("-1h") });
    QCOMPARE(agoTable.exitCode, 0);
    QVERIFY2(lines(agoTable.out).size() > 1, qPrintable(agoTable.out));

    // The audit log of the last hour holds this suite's submissions.
    const CtlRun audit = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("audit"),
        QStringLiteral("--from"), QStringLiteral("-1h"), QStringLiteral("--to"), QStringLiteral("now") });
    QCOMPARE(audit.exitCode, 0);
    QVERIFY2(!at(parsed(audit.out), "/entries").empty(), qPrintable(audit.out));
    const CtlRun auditIso = ctl({ QStringLiteral("audit"), QStringLiteral("--from"), isoFrom });
    QCOMPARE(auditIso.exitCode, 0);

    // A wrong way round names both as given, with the times they read as.
    const CtlRun backwards = ctl({ QStringLiteral("audit"), QStringLiteral("--from"),
        QStringLiteral("2026-12-06T10:00:00Z"), QStringLiteral("--to"), QStringLiteral("2026-12-06") });
    QCOMPARE(backwards.exitCode, 2);
    QVERIFY2(backwards.err.contains(QStringLiteral("audit: --from (2026-12-06T10:00:00Z = 2026-12-06T10:00:00Z) is "
                                                   "after --to (2026-12-06 = 2026-12-06T00:00:00Z)")),
        qPrintable(backwards.err));

    // What is not a time is named with its option.
    const std::pair<QStringList, QString> bad[] = {
        { { QStringLiteral("audit"), QStringLiteral("--to"), QStringLiteral("2026-13-01") },
            QStringLiteral("audit: --to: \"2026-13-01\" is not a time") },
        { { QStringLiteral("audit"), QStringLiteral("--from"), QStringLiteral("2025-02-29") },
            QStringLiteral("audit: --from: \"2025-02-29\" is not a time") },
        { key + QStringList { QStringLiteral("--from"), QStringLiteral("-5fortnights") },
            QStringLiteral("history: --from: \"-5fortnights\" is not a time") },
        { key + QStringList { QStringLiteral("--to"), QStringLiteral("2026-12-06T10:00:00+25:00") },
            QStringLiteral("history: --to: \"2026-12-06T10:00:00+25:00\" is not a time") },
        { key + QStringList { QStringLiteral("--from"), QStringLiteral("1969-12-31") },
            QStringLiteral("history: --from: \"1969-12-31\" is outside the times") },
    };
    for (const auto& [args, message] : bad) {
        const CtlRun run = ctl(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(message), qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("RFC 3339")) || run.err.contains(QStringLiteral("outside")),
            qPrintable(run.err));
    }
}

void TestCtl::auditShowsTheSubmitByTheTokensFingerprint()
{
    const std::string id = submitJson({ QStringLiteral("--name"), QStringLiteral("audited"), QStringLiteral("--cpu"),
        QStringLiteral("100"), QStringLiteral("--memory"), QStringLiteral("64") });
    QVERIFY(!id.empty());
    const json all = parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("audit") }).out);
    std::int64_t entry = 0;
    for (const json& e : at(all, "/entries"))
        if (str(e, "/target") == "workload " + id)
            entry = e.value("id", std::int64_t { 0 });
    QVERIFY2(entry > 0, all.dump().c_str());

    const CtlRun run = ctl({ QStringLiteral("audit"), QStringLiteral("--after"), QString::number(entry - 1),
        QStringLiteral("--limit"), QStringLiteral("1") });
    QCOMPARE(run.exitCode, 0);
    const QStringList rows = lines(run.out);
    QCOMPARE(rows.size(), 2);
    QCOMPARE(cells(rows[0]),
        (QStringList { QStringLiteral("ID"), QStringLiteral("TIME"), QStringLiteral("ACTOR"), QStringLiteral("ROLE"),
            QStringLiteral("SOURCE"), QStringLiteral("STAGE"), QStringLiteral("ACTION"), QStringLiteral("TARGET"),
            QStringLiteral("OUTCOME") }));
    // ACTION and TARGET are two words each: "POST /v1/workloads", "workload 12".
    const QStringList row = cells(rows[1]);
    QCOMPARE(row.size(), 11);
    QCOMPARE(row[0], QString::number(entry));
    QVERIFY2(QRegularExpression(QLatin1Char('^') + kIsoTime + QLatin1Char('$')).match(row[1]).hasMatch(),
        qPrintable(row[1]));
    QVERIFY2(
        QRegularExpression(QStringLiteral("^operator:[0-9a-f]{12}$")).match(row[2]).hasMatch(), qPrintable(row[2]));
    QCOMPARE(row[2].toStdString(), "operator:" + api::tokenFingerprint(m_token.toStdString()));
    QCOMPARE(row[3], QStringLiteral("admin")); // a plaintext token (the format before roles)
    QVERIFY2(row[4].startsWith(QStringLiteral("127.0.0.1")), qPrintable(row[4]));
    QCOMPARE(row.mid(5),
        (QStringList { QStringLiteral("completed"), QStringLiteral("POST"), QStringLiteral("/v1/workloads"),
            QStringLiteral("workload"), QString::fromStdString(id), QStringLiteral("ok") }));
    QVERIFY(!run.out.contains(m_token));

    const json page
        = parsed(ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("audit"), QStringLiteral("--after"),
                         QString::number(entry), QStringLiteral("--limit"), QStringLiteral("10") })
                     .out);
    for (const json& e : at(page, "/entries"))
        QVERIFY(e.value("id", std::int64_t { 0 }) > entry);
}

// events: the newest rows of the daemon's timeline in order, filtered; -o json the answer; --follow prints a workload's
// placement and its cancel as they happen, and nothing that does not match. alerts: none on this machine, or a table.
void TestCtl::eventsListAndFollowTheTimeline()
{
    const std::string placed = submitJson({ QStringLiteral("--name"), QStringLiteral("timeline"),
        QStringLiteral("--cpu"), QStringLiteral("100"), QStringLiteral("--memory"), QStringLiteral("64") });
    QVERIFY(!placed.empty());
    const CtlRun all = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("events"),
        QStringLiteral("--limit"), QStringLiteral("5000") });
    QCOMPARE(all.exitCode, 0);
    const json timeline = parsed(all.out);
    const json& rows = at(timeline, "/events");
    QVERIFY2(rows.size() >= 3, all.out.toUtf8().constData()); // the fleet's nodes joined, workloads were placed
    std::int64_t previous = 0;
    for (const json& e : rows) {
        QVERIFY(e.at("sequence").get<std::int64_t>() > previous);
        previous = e.at("sequence").get<std::int64_t>();
    }
    QCOMPARE(previous, timeline.at("latest").get<std::int64_t>());

    // The newest three, as a table, the last the newest of all.
    CtlRun run = ctl({ QStringLiteral("events"), QStringLiteral("--limit"), QStringLiteral("3") });
    QCOMPARE(run.exitCode, 0);
    QStringList table = lines(run.out);
    QCOMPARE(table.size(), 4);
    QCOMPARE(cells(table[0]).mid(0, 5),
        (QStringList { QStringLiteral("SEQ"), QStringLiteral("TIME"), QStringLiteral("CATEGORY"),
            QStringLiteral("SUBJECT"), QStringLiteral("CHANGE") }));
    QCOMPARE(cells(table[3]).value(0), QString::number(previous));
    QVERIFY2(
        QRegularExpression(QLatin1Char('^') + kIsoTime + QLatin1Char('$')).match(cells(table[3]).value(1)).hasMatch(),
        qPrintable(table[3]));
    // Only placements; after a sequence, the first ones after it, and how to read on.
    run = ctl({ QStringLiteral("events"), QStringLiteral("--category"), QStringLiteral("placement") });
    QCOMPARE(run.exitCode, 0);
    table = lines(run.out);
    QVERIFY2(table.size() >= 2, qPrintable(run.out));
    for (const QString& line : table.mid(1))
        QCOMPARE(cells(line).value(2), QStringLiteral("placement"));
    // The daemon filters itself: only placements come back, and where to read on from ("scanned": the newest looked
    // at, the newest there is when the page is not full); a full page stops at its last match.
    api::ApiClient client("127.0.0.1", m_apiPort, m_token.toStdString(), std::chrono::seconds(5));
    const auto filtered = client.request(api::HttpMethod::Get, "/v1/events?after=0&category=placement", "");
    QVERIFY(filtered && filtered->status == 200);
    const json page = json::parse(filtered->body);
    QVERIFY2(!page.at("events").empty(), filtered->body.c_str());
    for (const json& e : page.at("events"))
        QCOMPARE(e.at("category").get<std::string>(), std::string("placement"));
    QCOMPARE(page.at("scanned"), page.at("latest"));
    const auto one = client.request(api::HttpMethod::Get, "/v1/events?after=0&limit=1&category=placement", "");
    QVERIFY(one && one->status == 200);
    const json onePage = json::parse(one->body);
    QCOMPARE(onePage.at("events").size(), std::size_t { 1 });
    QCOMPARE(onePage.at("scanned"), onePage.at("events").at(0).at("sequence"));
    QCOMPARE(onePage.at("events").at(0), page.at("events").at(0));
    const std::int64_t firstSequence = rows.at(0).at("sequence").get<std::int64_t>();
    run = ctl({ QStringLiteral("events"), QStringLiteral("--after"), QString::number(firstSequence),
        QStringLiteral("--limit"), QStringLiteral("1") });
    QCOMPARE(run.exitCode, 0);
    table = lines(run.out);
    QCOMPARE(table.size(), 3);
    QCOMPARE(cells(table[1]).value(0), QString::number(rows.at(1).at("sequence").get<std::int64_t>()));
    QCOMPARE(table[2], QStringLiteral("more: tidepoolctl events --after %1").arg(cells(table[1]).value(0)));

    // Followed: a new workload's placement and cancel appear as they happen; another workload's do not. Each read
    // waits in the daemon for a row, so they come well within the minute between polls of a daemon that cannot wait.
    QProcess follower;
    follower.setProcessEnvironment(cleanEnv());
    follower.start(binary("tidepoolctl"),
        { QStringLiteral("--server"), m_api, QStringLiteral("--token-file"), m_tokenFile, QStringLiteral("events"),
            QStringLiteral("--subject"), QStringLiteral("watched"), QStringLiteral("-f"),
            QStringLiteral("--interval-ms"), QStringLiteral("60000") });
    QVERIFY(follower.waitForStarted());
    const auto stop = qScopeGuard([&] {
        follower.kill();
        follower.waitForFinished();
    });
    QString seen;
    QTRY_VERIFY_WITH_TIMEOUT(
        (seen += QString::fromUtf8(follower.readAllStandardOutput())).startsWith(QStringLiteral("SEQ")), 10'000);
    const std::string other = submitJson({ QStringLiteral("--name"), QStringLiteral("unwatched"),
        QStringLiteral("--cpu"), QStringLiteral("100"), QStringLiteral("--memory"), QStringLiteral("64") });
    const std::string id = submitJson({ QStringLiteral("--name"), QStringLiteral("watched"), QStringLiteral("--cpu"),
        QStringLiteral("100"), QStringLiteral("--memory"), QStringLiteral("64") });
    QVERIFY(!id.empty() && !other.empty());
    QTRY_VERIFY_WITH_TIMEOUT(
        (seen += QString::fromUtf8(follower.readAllStandardOutput())).contains(QStringLiteral("placement  watched")),
        10'000);
    QCOMPARE(ctl({ QStringLiteral("cancel"), QString::fromStdString(id) }).exitCode, 0);
    QTRY_VERIFY_WITH_TIMEOUT(
        (seen += QString::fromUtf8(follower.readAllStandardOutput())).contains(QStringLiteral("stop  watched")),
        10'000);
    QVERIFY2(!seen.contains(QStringLiteral("unwatched")), qPrintable(seen));
    QCOMPARE(follower.state(), QProcess::Running); // it goes on until interrupted
    QCOMPARE(ctl({ QStringLiteral("cancel"), QString::fromStdString(other) }).exitCode, 0);
    QCOMPARE(ctl({ QStringLiteral("cancel"), QString::fromStdString(placed) }).exitCode, 0);

    run = ctl({ QStringLiteral("alerts") });
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(
        run.out == QStringLiteral("no alerts\n") || run.out.startsWith(QStringLiteral("KIND")), qPrintable(run.out));
}

// submit --max-runtime 1s: the daemon stops the launch a second after it was seen running, and it fails saying why;
// get shows the limit.
void TestCtl::aLaunchPastItsMaximumRuntimeFails()
{
    const std::string id = submitJson(
        { QStringLiteral("--name"), QStringLiteral("bounded"), QStringLiteral("--cpu"), QStringLiteral("100"),
            QStringLiteral("--memory"), QStringLiteral("64"), QStringLiteral("--max-runtime"), QStringLiteral("1s") });
    QVERIFY(!id.empty());
    CtlRun run = ctl({ QStringLiteral("get"), QString::fromStdString(id) });
    QVERIFY2(run.out.contains(QStringLiteral("Max runtime:")) && run.out.contains(QStringLiteral("1s")),
        qPrintable(run.out));
    QTRY_COMPARE_WITH_TIMEOUT(workloadPhase(id), std::string("failed"), 15'000);
    const json w = parsed(
        ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("get"), QString::fromStdString(id) }).out);
    QCOMPARE(w.value("maxRuntimeMs", std::int64_t { 0 }), std::int64_t { 1000 });
    QVERIFY2(str(w, "/detail") == "stopped: ran past its maximum runtime of 1000 ms", w.dump().c_str());
    QVERIFY(w.value("runningMs", std::int64_t { 0 }) > 0);
    QVERIFY2(
        w.value("finishedMs", std::int64_t { 0 }) - w.value("runningMs", std::int64_t { 0 }) >= 1000, w.dump().c_str());
}

void TestCtl::proposalsOnAFreshDaemonIsAnEmptyTable()
{
    const CtlRun run = ctl({ QStringLiteral("proposals") });
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.out, QStringLiteral("ID  KIND  STATE  RISK  AGE  REASON\n"));
    const CtlRun pending = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("proposals"),
        QStringLiteral("--state"), QStringLiteral("pending") });
    QCOMPARE(pending.exitCode, 0);
    QCOMPARE(at(parsed(pending.out), "/proposals"), json::array());
}

void TestCtl::evaluateWithoutHistoryProposesNothing()
{
    // Seconds of history are far from the day a forecast needs, and no node has been idle for half an hour.
    const CtlRun run = ctl({ QStringLiteral("evaluate") });
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.out, QStringLiteral("no new proposals\n"));
    const CtlRun j = ctl({ QStringLiteral("evaluate"), QStringLiteral("-o"), QStringLiteral("json") });
    QCOMPARE(j.exitCode, 0);
    QCOMPARE(at(parsed(j.out), "/created"), json::array());
}

void TestCtl::whatIfPrintsTheReSimulation()
{
    const CtlRun run = ctl({ QStringLiteral("whatif"), QStringLiteral("--pool"), QStringLiteral("default=unlimited") });
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(hasLine(run.out, QStringLiteral("^Profile:\\s+default$")), qPrintable(run.out));
    QVERIFY2(hasLine(run.out, QStringLiteral("^RE-SIMULATION\\s+PLACED\\s+WAITING\\s+MOVES")), qPrintable(run.out));
    QVERIFY2(hasLine(run.out, QStringLiteral("^with the change\\s+\\d+\\s+\\d+")), qPrintable(run.out));
    QVERIFY2(hasLine(run.out, QStringLiteral("^without it\\s+\\d+\\s+\\d+")), qPrintable(run.out));
    QVERIFY2(hasLine(run.out, QStringLiteral("^What the change does \\(against the re-simulation without it\\)")),
        qPrintable(run.out));
    const CtlRun j = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("whatif") });
    QCOMPARE(j.exitCode, 0);
    QVERIFY(parsed(j.out).contains("withoutChange"));
    // No change: nothing is the change's doing, however the re-simulation reshuffles against now.
    QCOMPARE(parsed(j.out)["effect"], json::array());
    QCOMPARE(parsed(j.out)["gpusFreedByChange"].get<double>(), 0.0);
    const CtlRun unknown = ctl({ QStringLiteral("whatif"), QStringLiteral("--pool"), QStringLiteral("nope=100") });
    QCOMPARE(unknown.exitCode, 1);
    QVERIFY2(unknown.err.contains(QStringLiteral("nope")), qPrintable(unknown.err));
    const CtlRun bad = ctl({ QStringLiteral("whatif"), QStringLiteral("--pool"), QStringLiteral("web") });
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains(QStringLiteral("NAME=MILLICORES")), qPrintable(bad.err));
    // A memory quota of 1 MiB for the default pool: none of its work would be placed (the other pools' would).
    const CtlRun memory = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("whatif"),
        QStringLiteral("--pool-memory"), QStringLiteral("default=1") });
    QCOMPARE(memory.exitCode, 0);
    const json m = parsed(memory.out);
    const int fewer = num(m, "/withoutChange/placed") - num(m, "/withChange/placed");
    QVERIFY2(fewer > 0 && num(m, "/withChange/stopped") >= fewer, memory.out.toUtf8().constData());
    QCOMPARE(num(m, "/withChange/waiting"), num(m, "/withoutChange/waiting") + fewer);
    const CtlRun badMemory
        = ctl({ QStringLiteral("whatif"), QStringLiteral("--pool-memory"), QStringLiteral("default=lots") });
    QCOMPARE(badMemory.exitCode, 2);
    QVERIFY2(badMemory.err.contains(QStringLiteral("--pool-memory")), qPrintable(badMemory.err));
    // Accelerator quotas go to the daemon by pool and kind; an unknown pool is its error, named.
    const CtlRun gpus
        = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("whatif"), QStringLiteral("--pool-gpu"),
            QStringLiteral("default=0"), QStringLiteral("--pool-fpga"), QStringLiteral("default=unlimited") });
    QCOMPARE(gpus.exitCode, 0);
    QVERIFY(parsed(gpus.out).contains("withChange"));
    const CtlRun noPool = ctl({ QStringLiteral("whatif"), QStringLiteral("--pool-npu"), QStringLiteral("nope=4") });
    QCOMPARE(noPool.exitCode, 1);
    QVERIFY2(noPool.err.contains(QStringLiteral("poolAccelerators")) && noPool.err.contains(QStringLiteral("nope")),
        qPrintable(noPool.err));
}

void TestCtl::proposalShowOfAnUnknownIdNamesIt()
{
    const CtlRun run = ctl({ QStringLiteral("proposal"), QStringLiteral("show"), QStringLiteral("999") });
    QCOMPARE(run.exitCode, 1);
    QVERIFY(run.out.isEmpty());
    QVERIFY2(run.err.contains(QStringLiteral("no proposal has id 999")), qPrintable(run.err));
}

void TestCtl::proposalsApproveAndRejectOnSeededHistory()
{
    const QString db = m_dir.filePath(QStringLiteral("seeded.db"));
    seedWeekOfHistory(db.toStdString(), 2);
    if (QTest::currentTestFailed())
        return;
    {
        // And a memory-bound pool, "cache" (a 16 GiB limit; its memory swings daily up to 16000 MiB), beside
        // "archive", whose steady 8000 MiB leave most of its 64 GiB limit to give; and a GPU-bound pool, "vision" (a
        // quota of two GPUs; its GPUs swing daily up to three), beside "render", whose steady one GPU leaves most of
        // its eight to give.
        auto opened = store::openSqliteStore(db.toStdString());
        QVERIFY(opened);
        store::Store& s = **opened;
        constexpr std::int64_t kStep = store::kAggregateBucketMs;
        const std::int64_t now = api::unixMillis() / kStep * kStep;
        s.putPool({ "cache", "web", "", kUnlimited, 16384, 100 });
        s.putPool({ "archive", "research", "", kUnlimited, 65536, 100 });
        s.putPool({ "vision", "ml", "", kUnlimited, kUnlimited, 100, kUnlimited, kUnlimited, 2000 });
        s.putPool({ "render", "media", "", kUnlimited, kUnlimited, 100, kUnlimited, kUnlimited, 8000 });
        std::vector<store::Sample> samples;
        for (std::int64_t t = now - 7 * 86'400'000LL; t < now; t += kStep) {
            samples.push_back({ { "pool", "vision", "gpu" }, t,
                2'000
                    + 1'000
                        * std::cos(2 * std::acos(-1.0) * static_cast<double>(t - now - 1'800'000) / 86'400'000.0) });
            samples.push_back({ { "pool", "render", "gpu" }, t, 1'000.0 });
            samples.push_back({ { "pool", "cache", "memory" }, t,
                12'000
                    + 4'000
                        * std::cos(2 * std::acos(-1.0) * static_cast<double>(t - now - 1'800'000) / 86'400'000.0) });
            samples.push_back({ { "pool", "archive", "memory" }, t, 8'000.0 });
        }
        s.addSamples(samples);
        QVERIFY(s.commit());
        QVERIFY(s.maintain(now, store::Retention { 0, 0, 0, 0, 0 }));
    }
    m_seeded = std::make_unique<QProcess>();
    const std::uint16_t port = startDaemon(*m_seeded, db, m_dir.filePath(QStringLiteral("seeded.log")), {});
    QVERIFY2(port != 0, "the seeded tidepoold stopped before it was ready");
    const QStringList server { QStringLiteral("--server"), QStringLiteral("127.0.0.1:") + QString::number(port) };
    auto on = [&](const QStringList& args) { return ctl(server + args); };

    // Both web pools are forecast above their CPU quota: one proposal each, raised from batch's slack; cache above
    // its memory quota, raised from archive's; vision above its GPU quota, raised from render's.
    const CtlRun evaluated = on({ QStringLiteral("evaluate") });
    QCOMPARE(evaluated.exitCode, 0);
    const QStringList rows = lines(evaluated.out);
    QCOMPARE(rows.size(), 5);
    QCOMPARE(cells(rows[0]).mid(0, 6),
        (QStringList { QStringLiteral("ID"), QStringLiteral("KIND"), QStringLiteral("STATE"), QStringLiteral("RISK"),
            QStringLiteral("AGE"), QStringLiteral("REASON") }));
    QCOMPARE(cells(rows[1]).mid(1, 2), (QStringList { QStringLiteral("quota"), QStringLiteral("pending") }));
    std::map<std::string, std::int64_t> byKey;
    const json pending = parsed(on({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("proposals"),
                                       QStringLiteral("--state"), QStringLiteral("pending") })
                                    .out);
    for (const json& p : at(pending, "/proposals"))
        byKey[str(p, "/key")] = p.value("id", std::int64_t { 0 });
    QVERIFY2(byKey.count("quota:web-0") && byKey.count("quota:web-1") && byKey.count("quota:cache:memory")
            && byKey.count("quota:vision:gpu"),
        pending.dump().c_str());
    const QString first = QString::number(byKey["quota:web-0"]);
    const QString second = QString::number(byKey["quota:web-1"]);

    const CtlRun shown = on({ QStringLiteral("proposal"), QStringLiteral("show"), first });
    QCOMPARE(shown.exitCode, 0);
    for (const char* pattern : { "^Proposal:\\s+\\d+$", "^Kind:\\s+quota$", "^State:\\s+pending$",
             "^Key:\\s+quota:web-0$", "^Reason:\\s+pool web-0 is forecast", "^Utilisation:\\s+\\d+% -> \\d+%$",
             "^Power:\\s+0 W saved$", "^Expires:\\s+\\S+Z \\(in \\d+[sm]\\)$", "^Decided by:\\s+-$",
             "^ACTION\\s+TARGET\\s+CHANGE$", "^set_cpu_quota\\s+web-0\\s+CPU quota 4 -> [\\d.]+ cores$",
             "^take_cpu_quota\\s+batch\\s+CPU quota -[\\d.]+ cores \\(keeping at least [\\d.]+\\)$" })
        QVERIFY2(hasLine(shown.out, QString::fromUtf8(pattern)),
            qPrintable(QString::fromUtf8(pattern) + QLatin1Char('\n') + shown.out));
    QVERIFY(!shown.out.contains(QStringLiteral("STEP")));
    const QString memory = QString::number(byKey["quota:cache:memory"]);
    const CtlRun memoryShown = on({ QStringLiteral("proposal"), QStringLiteral("show"), memory });
    QCOMPARE(memoryShown.exitCode, 0);
    for (const char* pattern : { "^Reason:\\s+pool cache is forecast to need \\d+ MiB \\(p90\\) around \\d\\d:\\d\\d "
                                 "UTC, \\d+ MiB with 20% headroom, above its memory quota of 16384 MiB; raise it to",
             "^set_memory_quota\\s+cache\\s+memory quota 16Gi -> [\\d.]+Gi$",
             "^take_memory_quota\\s+archive\\s+memory quota -[\\d.]+Gi \\(keeping at least [\\d.]+Gi\\)$" })
        QVERIFY2(hasLine(memoryShown.out, QString::fromUtf8(pattern)),
            qPrintable(QString::fromUtf8(pattern) + QLatin1Char('\n') + memoryShown.out));
    const CtlRun memoryApproved = on({ QStringLiteral("proposal"), QStringLiteral("approve"), memory });
    QCOMPARE(memoryApproved.exitCode, 0);
    QVERIFY2(hasLine(memoryApproved.out, QStringLiteral("^State:\\s+applied$")), qPrintable(memoryApproved.out));
    QVERIFY2(
        hasLine(memoryApproved.out, QStringLiteral("^set pool cache's memory quota from 16384 to \\d+ MiB\\s+done$")),
        qPrintable(memoryApproved.out));

    const QString gpus = QString::number(byKey["quota:vision:gpu"]);
    const CtlRun gpusShown = on({ QStringLiteral("proposal"), QStringLiteral("show"), gpus });
    QCOMPARE(gpusShown.exitCode, 0);
    for (const char* pattern : { "^Reason:\\s+pool vision is forecast to need \\d+ milli-devices \\(p90\\) around "
                                 "\\d\\d:\\d\\d UTC, \\d+ milli-devices with 20% headroom, above its GPU quota of 2000 "
                                 "milli-devices; raise it to",
             "^set_accelerator_quota\\s+vision\\s+GPU quota 2000 -> \\d+ share units$",
             "^take_accelerator_quota\\s+render\\s+GPU quota -\\d+ share units \\(keeping at least \\d+\\)$" })
        QVERIFY2(hasLine(gpusShown.out, QString::fromUtf8(pattern)),
            qPrintable(QString::fromUtf8(pattern) + QLatin1Char('\n') + gpusShown.out));
    const CtlRun gpusApproved = on({ QStringLiteral("proposal"), QStringLiteral("approve"), gpus });
    QCOMPARE(gpusApproved.exitCode, 0);
    QVERIFY2(hasLine(gpusApproved.out, QStringLiteral("^State:\\s+applied$")), qPrintable(gpusApproved.out));
    QVERIFY2(hasLine(gpusApproved.out,
                 QStringLiteral("^set pool vision's GPU quota from 2000 to \\d+ share units\\s+done$")),
        qPrintable(gpusApproved.out));

    const CtlRun approved = on({ QStringLiteral("proposal"), QStringLiteral("approve"), first });
    QCOMPARE(approved.exitCode, 0);
    QVERIFY2(hasLine(approved.out, QStringLiteral("^State:\\s+applied$")), qPrintable(approved.out));
    QVERIFY2(hasLine(approved.out,
                 QStringLiteral("^Decided by:\\s+operator:")
                     + QString::fromStdString(api::tokenFingerprint(m_token.toStdString())) + QLatin1Char('$')),
        qPrintable(approved.out));
    QVERIFY2(hasLine(approved.out, QStringLiteral("^STEP\\s+OUTCOME$")), qPrintable(approved.out));
    QVERIFY2(hasLine(approved.out, QStringLiteral("^set pool web-0's CPU quota from 4000 to \\d+ mCPU\\s+done$")),
        qPrintable(approved.out));
    const json pools = parsed(on({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("pools") }).out);
    for (const json& p : at(pools, "/pools")) {
        if (str(p, "/name") == "web-0")
            QVERIFY2(num(p, "/cpuMillis") > 4000, p.dump().c_str());
        if (str(p, "/name") == "cache")
            QVERIFY2(num(p, "/memoryMiB") >= 19456, p.dump().c_str());
        if (str(p, "/name") == "archive")
            QVERIFY2(num(p, "/memoryMiB") < 65536, p.dump().c_str());
        if (str(p, "/name") == "vision")
            QVERIFY2(num(p, "/acceleratorQuota/gpu") >= 4000, p.dump().c_str());
        if (str(p, "/name") == "render")
            QVERIFY2(num(p, "/acceleratorQuota/gpu") < 8000, p.dump().c_str());
    }

    // Someone changes web-1's quota by hand after the second was planned: approving it is a 409 pointing at its
    // re-plan. (Taking from the shared donor, batch, does not make it stale: a donor's action only asks that batch
    // keeps its own forecast need.)
    QCOMPARE(on({ QStringLiteral("pools"), QStringLiteral("set"), QStringLiteral("web-1"), QStringLiteral("--cpu"),
                     QStringLiteral("4100") })
                 .exitCode,
        0);
    const CtlRun stale = on({ QStringLiteral("proposal"), QStringLiteral("approve"), second });
    QCOMPARE(stale.exitCode, 1);
    QVERIFY(stale.out.isEmpty());
    QVERIFY2(stale.err.contains(QStringLiteral("(HTTP 409)")), qPrintable(stale.err));
    const QRegularExpressionMatch replanned
        = QRegularExpression(QStringLiteral("re-planned as proposal (\\d+)")).match(stale.err);
    QVERIFY2(replanned.hasMatch(), qPrintable(stale.err));

    const CtlRun rejected = on({ QStringLiteral("proposal"), QStringLiteral("reject"), replanned.captured(1),
        QStringLiteral("--reason"), QStringLiteral("not before the release") });
    QCOMPARE(rejected.exitCode, 0);
    QVERIFY2(hasLine(rejected.out, QStringLiteral("^State:\\s+rejected$")), qPrintable(rejected.out));
    QVERIFY2(hasLine(rejected.out, QStringLiteral("^Detail:\\s+not before the release$")), qPrintable(rejected.out));

    const CtlRun again = on({ QStringLiteral("proposal"), QStringLiteral("approve"), first });
    QCOMPARE(again.exitCode, 1);
    QVERIFY2(again.err.contains(QStringLiteral("is applied, not pending (HTTP 409)")), qPrintable(again.err));

    const CtlRun listed = on({ QStringLiteral("proposals"), QStringLiteral("--state"), QStringLiteral("rejected") });
    QCOMPARE(listed.exitCode, 0);
    QCOMPARE(lines(listed.out).size(), 2);
    QCOMPARE(cells(lines(listed.out)[1]).mid(0, 3),
        (QStringList { replanned.captured(1), QStringLiteral("quota"), QStringLiteral("rejected") }));

    // Paging: one proposal a page, newest first; each page's last line says how to get the next, and the pages
    // together are the whole list.
    const json all = parsed(on({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("proposals") }).out);
    std::vector<std::int64_t> everyId;
    for (const json& p : at(all, "/proposals"))
        everyId.push_back(p.value("id", std::int64_t { 0 }));
    QVERIFY2(everyId.size() >= 3, all.dump().c_str());
    QCOMPARE(all.value("more", true), false);
    std::vector<std::int64_t> paged;
    QString before;
    for (std::size_t page = 0; page <= everyId.size(); ++page) {
        QStringList args { QStringLiteral("proposals"), QStringLiteral("--limit"), QStringLiteral("1") };
        if (!before.isEmpty())
            args << QStringLiteral("--before") << before;
        const CtlRun run = on(args);
        QCOMPARE(run.exitCode, 0);
        const QStringList rows = lines(run.out);
        QVERIFY2(rows.size() >= 2, qPrintable(run.out));
        paged.push_back(cells(rows[1])[0].toLongLong());
        const QRegularExpressionMatch next
            = QRegularExpression(QStringLiteral("^more: tidepoolctl proposals --limit 1 --before (\\d+)$"))
                  .match(rows.last());
        if (!next.hasMatch())
            break;
        before = next.captured(1);
    }
    QCOMPARE(paged, everyId);
    // A filtered page's last line repeats the filter: following the lines pages through the applied proposals alone.
    std::vector<std::int64_t> applied;
    for (const json& p : at(all, "/proposals"))
        if (str(p, "/state") == "applied")
            applied.push_back(p.value("id", std::int64_t { 0 }));
    QVERIFY2(applied.size() >= 2, all.dump().c_str());
    std::vector<std::int64_t> followed;
    QStringList next { QStringLiteral("proposals"), QStringLiteral("--state"), QStringLiteral("applied"),
        QStringLiteral("--limit"), QStringLiteral("1") };
    for (std::size_t page = 0; page <= applied.size() && !next.isEmpty(); ++page) {
        const CtlRun run = on(next);
        QCOMPARE(run.exitCode, 0);
        const QStringList rows = lines(run.out);
        QVERIFY2(rows.size() >= 2, qPrintable(run.out));
        QCOMPARE(cells(rows[1]).value(2), QStringLiteral("applied"));
        followed.push_back(cells(rows[1])[0].toLongLong());
        next.clear();
        if (rows.last().startsWith(QStringLiteral("more: "))) {
            QVERIFY2(QRegularExpression(
                         QStringLiteral("^more: tidepoolctl proposals --state applied --limit 1 --before \\d+$"))
                         .match(rows.last())
                         .hasMatch(),
                qPrintable(rows.last()));
            next = rows.last().mid(QStringLiteral("more: tidepoolctl ").size()).split(QLatin1Char(' '));
        }
    }
    QCOMPARE(followed, applied);
    const CtlRun zero = on({ QStringLiteral("proposals"), QStringLiteral("--limit"), QStringLiteral("0") });
    QCOMPARE(zero.exitCode, 2);
    QVERIFY2(zero.err.contains(QStringLiteral("--limit")), qPrintable(zero.err));

    // The seeded week as 5-minute aggregates: the last day by default, one sample in each.
    const CtlRun aggregates = on({ QStringLiteral("history"), QStringLiteral("--scope"), QStringLiteral("pool"),
        QStringLiteral("--name"), QStringLiteral("batch"), QStringLiteral("--resource"), QStringLiteral("cpu"),
        QStringLiteral("--resolution"), QStringLiteral("5m") });
    QCOMPARE(aggregates.exitCode, 0);
    const QStringList buckets = lines(aggregates.out);
    QVERIFY2(buckets.size() > 250, qPrintable(aggregates.out.left(400)));
    QCOMPARE(cells(buckets[0]),
        (QStringList { QStringLiteral("TIME"), QStringLiteral("MEAN(cores)"), QStringLiteral("MIN(cores)"),
            QStringLiteral("MAX(cores)"), QStringLiteral("COUNT") }));
    QVERIFY2(QRegularExpression(QLatin1Char('^') + kIsoTime + QStringLiteral("\\s+2\\s+2\\s+2\\s+1$"))
                 .match(buckets[1])
                 .hasMatch(),
        qPrintable(buckets[1]));

    m_seeded->terminate();
    QVERIFY(m_seeded->waitForFinished(5'000));
}

void TestCtl::wrongTokenIsRefused()
{
    const QString wrong = randomToken();
    const QString file = writeFile(QStringLiteral("wrong.token"), wrong.toUtf8() + '\n');
    const CtlRun run = ctl({ QStringLiteral("summary") }, file);
    QCOMPARE(run.exitCode, 1);
    QVERIFY(run.out.isEmpty());
    QVERIFY2(run.err.contains(QStringLiteral("missing or wrong operator token")), qPrintable(run.err));
    QVERIFY(!run.err.contains(wrong));

    const CtlRun unreadable = ctl({ QStringLiteral("summary") }, m_dir.filePath(QStringLiteral("absent.token")));
    QCOMPARE(unreadable.exitCode, 2);
    QVERIFY2(unreadable.err.contains(QStringLiteral("absent.token")), qPrintable(unreadable.err));
}

void TestCtl::usageErrorsExitTwoNamingTheOption_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("--max-runtime without a unit it knows") << QStringList { QStringLiteral("submit"),
        QStringLiteral("--name"), QStringLiteral("x"), QStringLiteral("--cpu"), QStringLiteral("1"),
        QStringLiteral("--memory"), QStringLiteral("1"), QStringLiteral("--max-runtime"),
        QStringLiteral("2weeks") } << QStringLiteral("--max-runtime: \"2weeks\" has an unknown unit");
    QTest::newRow("--max-runtime under a second") << QStringList { QStringLiteral("submit"), QStringLiteral("--name"),
        QStringLiteral("x"), QStringLiteral("--cpu"), QStringLiteral("1"), QStringLiteral("--memory"),
        QStringLiteral("1"), QStringLiteral("--max-runtime"), QStringLiteral("500ms") }
                                                  << QStringLiteral("must be from 1 s to 366 days");
    QTest::newRow("--stop-grace over an hour") << QStringList { QStringLiteral("submit"), QStringLiteral("--name"),
        QStringLiteral("x"), QStringLiteral("--cpu"), QStringLiteral("1"), QStringLiteral("--memory"),
        QStringLiteral("1"), QStringLiteral("--stop-grace"), QStringLiteral("2h") }
                                               << QStringLiteral("--stop-grace: \"2h\" must be from 0 ms to 1 h");
    QTest::newRow("--max-restarts without --restart") << QStringList { QStringLiteral("submit"),
        QStringLiteral("--name"), QStringLiteral("x"), QStringLiteral("--cpu"), QStringLiteral("1"),
        QStringLiteral("--memory"), QStringLiteral("1"), QStringLiteral("--max-restarts"),
        QStringLiteral("3") } << QStringLiteral("`maxRestarts` applies only with a restart policy");
    QTest::newRow("events --limit 0") << QStringList { QStringLiteral("events"), QStringLiteral("--limit"),
        QStringLiteral("0") } << QStringLiteral("--limit: \"0\"");
    QTest::newRow("events --interval-ms alone")
        << QStringList { QStringLiteral("events"), QStringLiteral("--interval-ms"), QStringLiteral("500") }
        << QStringLiteral("--interval-ms goes with --follow");
    const QStringList drain { QStringLiteral("nodes"), QStringLiteral("drain"), QStringLiteral("fleet-0") };
    QTest::newRow("drain --deadline alone")
        << (drain + QStringList { QStringLiteral("--deadline"), QStringLiteral("5m") })
        << QStringLiteral("--deadline paces a drain: give --max-parallel N with it");
    QTest::newRow("drain --max-parallel 0")
        << (drain + QStringList { QStringLiteral("--max-parallel"), QStringLiteral("0") })
        << QStringLiteral("--max-parallel: \"0\"");
    QTest::newRow("drain --deadline without a unit it knows") << (drain
        + QStringList { QStringLiteral("--max-parallel"), QStringLiteral("1"), QStringLiteral("--deadline"),
            QStringLiteral("soon") }) << QStringLiteral("--deadline: \"soon\"");
    QTest::newRow("drain --interval-ms without --wait")
        << (drain + QStringList { QStringLiteral("--interval-ms"), QStringLiteral("200") })
        << QStringLiteral("--interval-ms goes with --wait");
    const QString s = QStringLiteral("submit");
    QTest::newRow("submit without --name") << QStringList { s, QStringLiteral("--cpu"), QStringLiteral("100"),
        QStringLiteral("--memory"), QStringLiteral("10") }
                                           << QStringLiteral("--name is required");
    QTest::newRow("submit without --memory") << QStringList { s, QStringLiteral("--name"), QStringLiteral("x"),
        QStringLiteral("--cpu"), QStringLiteral("100") }
                                             << QStringLiteral("--memory is required");
    QTest::newRow("--cpu not a number") << QStringList { s, QStringLiteral("--name"), QStringLiteral("x"),
        QStringLiteral("--cpu"), QStringLiteral("lots"), QStringLiteral("--memory"), QStringLiteral("10") }
                                        << QStringLiteral("--cpu: \"lots\"");
    QTest::newRow("--cpu without a value") << QStringList { s, QStringLiteral("--name"), QStringLiteral("x"),
        QStringLiteral("--memory"), QStringLiteral("10"), QStringLiteral("--cpu") }
                                           << QStringLiteral("--cpu needs a value");
    QTest::newRow("--gpu with --gpu-share") << QStringList { s, QStringLiteral("--name"), QStringLiteral("x"),
        QStringLiteral("--cpu"), QStringLiteral("1"), QStringLiteral("--memory"), QStringLiteral("1"),
        QStringLiteral("--gpu"), QStringLiteral("1"), QStringLiteral("--gpu-share"), QStringLiteral("500") }
                                            << QStringLiteral("--gpu-share");
    QTest::newRow("bad --latency") << QStringList { s, QStringLiteral("--name"), QStringLiteral("x"),
        QStringLiteral("--cpu"), QStringLiteral("1"), QStringLiteral("--memory"), QStringLiteral("1"),
        QStringLiteral("--latency"), QStringLiteral("soon") }
                                   << QStringLiteral("--latency");
    QTest::newRow("--memory-limit below --memory") << QStringList { s, QStringLiteral("--name"), QStringLiteral("x"),
        QStringLiteral("--cpu"), QStringLiteral("1"), QStringLiteral("--memory"), QStringLiteral("64"),
        QStringLiteral("--memory-limit"),
        QStringLiteral("32") } << QStringLiteral("`memoryLimitMiB` (32) must be at least `memoryMiB` (64)");
    QTest::newRow("bad --env") << QStringList { s, QStringLiteral("--name"), QStringLiteral("x"),
        QStringLiteral("--cpu"), QStringLiteral("1"), QStringLiteral("--memory"), QStringLiteral("1"),
        QStringLiteral("--env"), QStringLiteral("NOEQUALS") }
                               << QStringLiteral("--env");
    QTest::newRow("unknown option") << QStringList { s, QStringLiteral("--colour"), QStringLiteral("red") }
                                    << QStringLiteral("unknown option --colour");
    QTest::newRow("list --phase") << QStringList { QStringLiteral("list"), QStringLiteral("--phase"),
        QStringLiteral("asleep") } << QStringLiteral("--phase");
    QTest::newRow("get without ID") << QStringList { QStringLiteral("get") } << QStringLiteral("workload ID");
    QTest::newRow("why with a bad ID") << QStringList { QStringLiteral("why"), QStringLiteral("12x") }
                                       << QStringLiteral("ID: \"12x\"");
    QTest::newRow("pools set with nothing") << QStringList { QStringLiteral("pools"), QStringLiteral("set"),
        QStringLiteral("gold") } << QStringLiteral("--cpu, --memory");
    QTest::newRow("pools create with a negative GPU quota") << QStringList { QStringLiteral("pools"),
        QStringLiteral("create"), QStringLiteral("gold"), QStringLiteral("--gpu"), QStringLiteral("-5") }
                                                            << QStringLiteral("--gpu");
    QTest::newRow("pools create with a negative disruption budget") << QStringList { QStringLiteral("pools"),
        QStringLiteral("create"), QStringLiteral("gold"), QStringLiteral("--max-disrupted"), QStringLiteral("-1") }
                                                                    << QStringLiteral("--max-disrupted");
    QTest::newRow("-o yaml") << QStringList { QStringLiteral("-o"), QStringLiteral("yaml"), QStringLiteral("nodes") }
                             << QStringLiteral("-o: \"yaml\"");
    QTest::newRow("unknown command") << QStringList { QStringLiteral("reboot") } << QStringLiteral("unknown command");
    QTest::newRow("move without a target")
        << QStringList { QStringLiteral("move"), QStringLiteral("12") } << QStringLiteral("move: say where to");
    QTest::newRow("move --tier lukewarm") << QStringList { QStringLiteral("move"), QStringLiteral("12"),
        QStringLiteral("--tier"), QStringLiteral("lukewarm") }
                                          << QStringLiteral("--tier: \"lukewarm\"");
    const QString h = QStringLiteral("history");
    const QStringList series { h, QStringLiteral("--scope"), QStringLiteral("pool"), QStringLiteral("--name"),
        QStringLiteral("default"), QStringLiteral("--resource"), QStringLiteral("cpu") };
    QTest::newRow("history without --name") << QStringList { h, QStringLiteral("--scope"), QStringLiteral("pool"),
        QStringLiteral("--resource"), QStringLiteral("cpu") }
                                            << QStringLiteral("history: --name is required");
    QTest::newRow("history --scope rack") << QStringList { h, QStringLiteral("--scope"), QStringLiteral("rack"),
        QStringLiteral("--name"), QStringLiteral("r1"), QStringLiteral("--resource"), QStringLiteral("cpu") }
                                          << QStringLiteral("--scope: \"rack\"");
    QTest::newRow("history --name with a slash") << QStringList { h, QStringLiteral("--scope"), QStringLiteral("node"),
        QStringLiteral("--name"), QStringLiteral("a/b"), QStringLiteral("--resource"), QStringLiteral("cpu") }
                                                 << QStringLiteral("--name \"a/b\"");
    QTest::newRow("history --from after --to") << series
            + QStringList { QStringLiteral("--from"), QStringLiteral("5"), QStringLiteral("--to"), QStringLiteral("1") }
                                               << QStringLiteral("--from (5) is after --to (1)");
    QTest::newRow("history --from not a time")
        << series + QStringList { QStringLiteral("--from"), QStringLiteral("yesterday") }
        << QStringLiteral("--from: \"yesterday\"");
    QTest::newRow("history --resolution 1h")
        << series + QStringList { QStringLiteral("--resolution"), QStringLiteral("1h") }
        << QStringLiteral("--resolution: \"1h\" must be raw or 5m");
    QTest::newRow("series with an argument") << QStringList { QStringLiteral("series"), QStringLiteral("cpu") }
                                             << QStringLiteral("series: unexpected \"cpu\"");
    QTest::newRow("audit --limit 0") << QStringList { QStringLiteral("audit"), QStringLiteral("--limit"),
        QStringLiteral("0") } << QStringLiteral("--limit: \"0\" must be a whole number from 1 to 10000");
    QTest::newRow("audit --after -1") << QStringList { QStringLiteral("audit"), QStringLiteral("--after=-1") }
                                      << QStringLiteral("--after: \"-1\"");
    QTest::newRow("proposals --state done") << QStringList { QStringLiteral("proposals"), QStringLiteral("--state"),
        QStringLiteral("done") } << QStringLiteral("--state: \"done\"");
    QTest::newRow("proposal approve abc") << QStringList { QStringLiteral("proposal"), QStringLiteral("approve"),
        QStringLiteral("abc") } << QStringLiteral("proposal approve: ID: \"abc\"");
    QTest::newRow("proposal show without ID") << QStringList { QStringLiteral("proposal"), QStringLiteral("show") }
                                              << QStringLiteral("give exactly one proposal ID");
    QTest::newRow("proposal without subcommand")
        << QStringList { QStringLiteral("proposal") } << QStringLiteral("show, approve or reject");
    QTest::newRow("proposal approve --reason") << QStringList { QStringLiteral("proposal"), QStringLiteral("approve"),
        QStringLiteral("1"), QStringLiteral("--reason"), QStringLiteral("x") }
                                               << QStringLiteral("unknown option --reason");
    QTest::newRow("proposal reject --reason with a newline") << QStringList { QStringLiteral("proposal"),
        QStringLiteral("reject"), QStringLiteral("1"), QStringLiteral("--reason"), QStringLiteral("a\nb") }
                                                             << QStringLiteral("--reason must be 1 to 1000 bytes");
    QTest::newRow("resize without a change") << QStringList { QStringLiteral("resize"), QStringLiteral("7") }
                                             << QStringLiteral("resize: say what to change");
    QTest::newRow("resize --cpu-limit abc") << QStringList { QStringLiteral("resize"), QStringLiteral("7"),
        QStringLiteral("--cpu-limit"), QStringLiteral("abc") }
                                            << QStringLiteral("--cpu-limit: \"abc\"");
    QTest::newRow("resize --memory none") << QStringList { QStringLiteral("resize"), QStringLiteral("7"),
        QStringLiteral("--memory"), QStringLiteral("none") }
                                          << QStringLiteral("--memory: \"none\"");
    QTest::newRow("evaluate with an argument") << QStringList { QStringLiteral("evaluate"), QStringLiteral("now") }
                                               << QStringLiteral("evaluate: unexpected \"now\"");
}

void TestCtl::usageErrorsExitTwoNamingTheOption()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const CtlRun run = ctl(args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.isEmpty());
    QVERIFY2(run.err.contains(message), qPrintable(run.err));
}

void TestCtl::unreachableServerIsNamed()
{
    // Port 1 (tcpmux) is closed on any machine these tests run on.
    QProcessEnvironment env = cleanEnv();
    env.insert(QStringLiteral("TIDEPOOL_SERVER"), QStringLiteral("127.0.0.1:1"));
    const CtlRun run = ctl({ QStringLiteral("summary") }, {}, env);
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QStringLiteral("127.0.0.1:1")), qPrintable(run.err));

    // A daemon that takes the request and never answers: a read times out; a change may have been made, and the
    // message says so (a script that retries at once could submit twice).
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    QVERIFY(listener >= 0);
    sockaddr_in address {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QCOMPARE(::bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    QCOMPARE(::listen(listener, 8), 0); // the kernel completes the handshakes; nothing reads or answers
    socklen_t length = sizeof address;
    QCOMPARE(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
    env.insert(QStringLiteral("TIDEPOOL_SERVER"), QStringLiteral("127.0.0.1:%1").arg(ntohs(address.sin_port)));
    const CtlRun read
        = ctl({ QStringLiteral("--timeout-ms"), QStringLiteral("300"), QStringLiteral("summary") }, m_tokenFile, env);
    const CtlRun change
        = ctl({ QStringLiteral("--timeout-ms"), QStringLiteral("300"), QStringLiteral("cancel"), QStringLiteral("5") },
            m_tokenFile, env);
    ::close(listener);
    QCOMPARE(read.exitCode, 1);
    QVERIFY2(read.err.contains(QStringLiteral("timed out after 300 ms")), qPrintable(read.err));
    QVERIFY2(!read.err.contains(QStringLiteral("may have made the change")), qPrintable(read.err));
    QCOMPARE(change.exitCode, 1);
    QVERIFY2(change.err.contains(QStringLiteral("timed out after 300 ms")), qPrintable(change.err));
    QVERIFY2(
        change.err.contains(QStringLiteral("may have made the change; check before retrying")), qPrintable(change.err));
    // A bad global option is named once, not after the program's name twice.
    const CtlRun zero
        = ctl({ QStringLiteral("--timeout-ms"), QStringLiteral("0"), QStringLiteral("summary") }, {}, env);
    QCOMPARE(zero.exitCode, 2);
    QVERIFY2(zero.err.contains(QStringLiteral("--timeout-ms: \"0\" must be a whole number")), qPrintable(zero.err));
    QVERIFY2(!zero.err.contains(QStringLiteral("tidepoolctl: tidepoolctl:")), qPrintable(zero.err));
}

void TestCtl::environmentGivesTheDefaults()
{
    QProcessEnvironment env = cleanEnv();
    env.insert(QStringLiteral("TIDEPOOL_SERVER"), m_api);
    env.insert(QStringLiteral("TIDEPOOL_TOKEN_FILE"), m_tokenFile);
    const CtlRun run = ctl({ QStringLiteral("summary"), QStringLiteral("-o"), QStringLiteral("json") }, {}, env);
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(num(parsed(run.out), "/nodes/ready"), kNodes);
}

void TestCtl::apiClientReturnsStatusAndBody()
{
    api::ApiClient client("127.0.0.1", m_apiPort, m_token.toStdString(), std::chrono::seconds(5));
    QCOMPARE(client.address(), std::string("127.0.0.1:") + std::to_string(m_apiPort));
    // Several requests over the one keep-alive connection, 2xx or not.
    for (int i = 0; i < 3; ++i) {
        const auto health = client.request(api::HttpMethod::Get, "/healthz");
        QVERIFY2(health, health ? "" : health.error().message.c_str());
        QCOMPARE(health->status, 200);
        QCOMPARE(str(parsed(QString::fromStdString(health->body)), "/status"), std::string("ok"));
        const auto missing = client.request(api::HttpMethod::Get, "/v1/workloads/999999");
        QVERIFY(missing);
        QCOMPARE(missing->status, 404);
    }
    const auto bad = client.request(api::HttpMethod::Post, "/v1/pools", R"({"name": "x y"})");
    QVERIFY(bad);
    QCOMPARE(bad->status, 400);

    api::ApiClient wrong("127.0.0.1", m_apiPort, "not-the-token-at-all", std::chrono::seconds(5));
    const auto refused = wrong.request(api::HttpMethod::Get, "/v1/summary");
    QVERIFY(refused);
    QCOMPARE(refused->status, 401);

    api::ApiClient nowhere("127.0.0.1", 1, m_token.toStdString(), std::chrono::seconds(5));
    const auto unreachable = nowhere.request(api::HttpMethod::Get, "/healthz");
    QVERIFY(!unreachable);
    QVERIFY2(unreachable.error().message.find("127.0.0.1:1") != std::string::npos, unreachable.error().message.c_str());
    QVERIFY(unreachable.error().message.find(m_token.toStdString()) == std::string::npos);
}

QTEST_GUILESS_MAIN(TestCtl)
#include "tst_ctl.moc"
