// tidepoolctl against the real binaries on loopback: a `tidepoold` on ephemeral ports and a `tidepool-fleet` of five
// simulated agents, driven through QProcess as an operator would. It protects what operators and scripts rely on:
// the table and JSON outputs of every command, the exit status (0 done, 1 refused or unreachable, 2 a wrong command
// line) with a message naming the option, the daemon's error or the address, and that the token is never printed.
// The daemon and the fleet are stopped in `cleanupTestCase`; should the test die first, the kernel kills them
// (`PR_SET_PDEATHSIG`).

#include "core/api/api_client.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <sys/prctl.h>

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
    void whyExplainsPendingWithNodeCounts();
    void cancelStopsOnceThenRefuses();
    void nodesTableAndDetail();
    void poolsCreateAndSetKeepsOtherFields();
    void wrongTokenIsRefused();
    void usageErrorsExitTwoNamingTheOption_data();
    void usageErrorsExitTwoNamingTheOption();
    void unreachableServerIsNamed();
    void environmentGivesTheDefaults();
    void apiClientReturnsStatusAndBody();

private:
    CtlRun ctl(const QStringList& args, const QString& tokenFile = {}, const QProcessEnvironment& env = cleanEnv());
    static QProcessEnvironment cleanEnv();
    QString writeFile(const QString& name, const QByteArray& content);
    std::string workloadPhase(const std::string& id);
    std::string submitJson(const QStringList& args);

    QTemporaryDir m_dir;
    QString m_token;
    QString m_tokenFile;
    QString m_api; // 127.0.0.1:PORT
    std::uint16_t m_apiPort = 0;
    std::unique_ptr<QProcess> m_daemon;
    std::unique_ptr<QProcess> m_fleet;
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

std::string TestCtl::submitJson(const QStringList& args)
{
    const CtlRun run
        = ctl(QStringList { QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("submit") } + args);
    json j = parsed(run.out);
    return run.exitCode == 0 && num(j, "/id") > 0 ? std::to_string(num(j, "/id")) : std::string();
}

void TestCtl::initTestCase()
{
    QVERIFY(m_dir.isValid());
    for (const char* name : { "tidepoold", "tidepoolctl", "tidepool-fleet" })
        QVERIFY2(QFile::exists(binary(name)), qPrintable(binary(name)));
    m_token = randomToken();
    m_tokenFile = writeFile(QStringLiteral("operator.token"), m_token.toUtf8() + '\n');
    const QString joinFile = writeFile(QStringLiteral("join.token"), randomToken().toUtf8() + '\n');

    const QString daemonLog = m_dir.filePath(QStringLiteral("tidepoold.log"));
    m_daemon = std::make_unique<QProcess>();
    killWithParent(*m_daemon);
    m_daemon->setStandardOutputFile(daemonLog);
    m_daemon->setStandardErrorFile(daemonLog, QIODevice::Append);
    m_daemon->start(binary("tidepoold"),
        { QStringLiteral("--agent-listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--api-listen"),
            QStringLiteral("127.0.0.1:0"), QStringLiteral("--db"), m_dir.filePath(QStringLiteral("t.db")),
            QStringLiteral("--join-token-file"), joinFile, QStringLiteral("--operator-token-file"), m_tokenFile,
            QStringLiteral("--heartbeat-interval-ms"), QStringLiteral("200"), QStringLiteral("--suspect-after-ms"),
            QStringLiteral("1000"), QStringLiteral("--lost-after-ms"), QStringLiteral("2000") });
    QVERIFY2(m_daemon->waitForStarted(), qPrintable(m_daemon->errorString()));

    // "... ready: agents on 127.0.0.1:PORT, API on 127.0.0.1:PORT", once both listeners are bound.
    const QRegularExpression ready(
        QStringLiteral("ready: agents on 127\\.0\\.0\\.1:(\\d+), API on 127\\.0\\.0\\.1:(\\d+)"));
    QRegularExpressionMatch match;
    auto readLog = [&] {
        QFile log(daemonLog);
        if (log.open(QIODevice::ReadOnly))
            match = ready.match(QString::fromUtf8(log.readAll()));
        return match.hasMatch() || m_daemon->state() != QProcess::Running;
    };
    QTRY_VERIFY_WITH_TIMEOUT(readLog(), 15'000);
    QVERIFY2(match.hasMatch(), "tidepoold stopped before it was ready");
    const QString agentPort = match.captured(1);
    m_apiPort = static_cast<std::uint16_t>(match.captured(2).toUInt());
    m_api = QStringLiteral("127.0.0.1:") + match.captured(2);

    const QString fleetLog = m_dir.filePath(QStringLiteral("fleet.log"));
    m_fleet = std::make_unique<QProcess>();
    killWithParent(*m_fleet);
    m_fleet->setStandardOutputFile(fleetLog);
    m_fleet->setStandardErrorFile(fleetLog, QIODevice::Append);
    m_fleet->start(binary("tidepool-fleet"),
        { QStringLiteral("--core"), QStringLiteral("127.0.0.1:") + agentPort, QStringLiteral("--join-token-file"),
            joinFile, QStringLiteral("--nodes"), QString::number(kNodes), QStringLiteral("--report-every"),
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
    for (QProcess* process : { m_fleet.get(), m_daemon.get() }) {
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
    QCOMPARE(row[5], QStringLiteral("0.5")); // CPU in cores
    QCOMPARE(row[6], QStringLiteral("256Mi"));
    m_webId = row[0].toStdString();
    m_webNode = row[3].toStdString();
}

void TestCtl::submitJsonIsTheDaemonsObject()
{
    const CtlRun run = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("submit"),
        QStringLiteral("--name"), QStringLiteral("nightly"), QStringLiteral("--cpu"), QStringLiteral("250"),
        QStringLiteral("--memory"), QStringLiteral("128"), QStringLiteral("--priority"), QStringLiteral("5"),
        QStringLiteral("--latency"), QStringLiteral("batch"), QStringLiteral("--env"), QStringLiteral("MODE=full"),
        QStringLiteral("--"), QStringLiteral("true") });
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.err.isEmpty());
    json j = parsed(run.out);
    QVERIFY2(j.is_object(), qPrintable(run.out));
    QVERIFY(num(j, "/id") > 0);
    QCOMPARE(str(j, "/name"), std::string("nightly"));
    QCOMPARE(num(j, "/cpuMillis"), 250);
    QCOMPARE(num(j, "/memoryMiB"), 128);
    QCOMPARE(num(j, "/priority"), 5);
    QCOMPARE(str(j, "/latency"), std::string("batch"));
    QVERIFY2(at(j, "/command") == json::array({ "true" }), qPrintable(run.out));
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

    json j = parsed(
        ctl({ QStringLiteral("get"), QString::fromStdString(m_webId), QStringLiteral("-o"), QStringLiteral("json") })
            .out);
    QCOMPARE(std::to_string(num(j, "/id")), m_webId);

    const CtlRun missing = ctl({ QStringLiteral("get"), QStringLiteral("999999") });
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains(QStringLiteral("no workload has id 999999")), qPrintable(missing.err));
    QVERIFY(missing.out.isEmpty());
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
            QStringLiteral("CPU(free/total)"), QStringLiteral("MEM(free/total)"), QStringLiteral("GPUs"),
            QStringLiteral("UTIL"), QStringLiteral("WORKLOADS") }));
    for (int i = 1; i < lines.size(); ++i) {
        const QStringList row = cells(lines[i]);
        QCOMPARE(row.size(), 9);
        QVERIFY(row[0].startsWith(QStringLiteral("fleet-")));
        QCOMPARE(row[1], QStringLiteral("ready"));
        QVERIFY2(row[4].contains(QLatin1Char('/')), qPrintable(lines[i]));
        QVERIFY2(row[7].endsWith(QLatin1Char('%')), qPrintable(lines[i]));
    }

    const CtlRun one = ctl({ QStringLiteral("nodes"), QStringLiteral("fleet-0") });
    QCOMPARE(one.exitCode, 0);
    QVERIFY(one.out.contains(
        QRegularExpression(QStringLiteral("^Name:\\s+fleet-0$"), QRegularExpression::MultilineOption)));
    QVERIFY(
        one.out.contains(QRegularExpression(QStringLiteral("^State:\\s+ready"), QRegularExpression::MultilineOption)));

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

    const CtlRun unlimited = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("pools"),
        QStringLiteral("set"), QStringLiteral("gold"), QStringLiteral("--memory"), QStringLiteral("unlimited") });
    QCOMPARE(unlimited.exitCode, 0);
    QVERIFY(at(parsed(unlimited.out), "/memoryMiB").is_null());
    QCOMPARE(num(parsed(unlimited.out), "/cpuMillis"), 6000);

    const CtlRun listed = ctl({ QStringLiteral("pools") });
    QCOMPARE(listed.exitCode, 0);
    QVERIFY2(listed.out.contains(QRegularExpression(QStringLiteral("^gold\\s+search\\s+warm\\s+0/6\\s+0Mi/unlimited"),
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
    QTest::newRow("-o yaml") << QStringList { QStringLiteral("-o"), QStringLiteral("yaml"), QStringLiteral("nodes") }
                             << QStringLiteral("-o: \"yaml\"");
    QTest::newRow("unknown command") << QStringList { QStringLiteral("reboot") } << QStringLiteral("unknown command");
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
