// TLS on the agent link and the API, end to end: `tidepoold certs init` makes a CA, the core's certificate and agent
// bootstrap tokens (and refuses to overwrite them); a tidepoold started with those files speaks HTTPS only on its
// API (plain HTTP is answered 400 and counted), tidepoolctl lists nodes over https:// with the CA and is refused
// with another CA; the HTTPS client checks the chain and the host name; a bootstrap token joins one node only, that
// node again after a restart of the daemon, and never another node; tokens appended by `certs tokens` are taken on
// SIGHUP.
#include "harness.h"

#include "core/api/api_client.h"
#include "core/api/daemon_config.h"
#include "core/net/certificates.h"
#include "core/net/http_server.h"
#include "protocol/transport/tls.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <csignal>

#include <atomic>
#include <memory>
#include <thread>

namespace http = harness::http;
using harness::kBin;
using harness::waitFor;
using nlohmann::json;
using namespace tidepool;

namespace {

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

Run runTool(const QString& tool, const QStringList& args)
{
    QProcess process;
    process.start(kBin + QLatin1Char('/') + tool, args);
    Run run;
    if (!process.waitForFinished(60'000)) {
        process.kill();
        process.waitForFinished(5000);
        run.err = QStringLiteral("did not finish");
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

int modeOf(const QString& path)
{
    struct stat st {};
    if (::stat(path.toLocal8Bit().constData(), &st) != 0)
        return -1;
    return static_cast<int>(st.st_mode & 07777);
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestTls : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string m_token = "operator-token-0123456789abcdef";
    std::unique_ptr<QProcess> m_daemon;
    std::vector<std::unique_ptr<QProcess>> m_fleets;
    std::uint16_t m_agentPort = 0;
    std::uint16_t m_apiPort = 0;
    QString m_daemonLog;
    int m_database = 0; // each test function starts from an empty database of its own

    QString path(const QString& name) const { return m_dir.filePath(name); }

    static void writeFile(const QString& file, const QByteArray& content)
    {
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
    }

    // tidepoold with everything `certs init` made in tls/: TLS for agents, HTTPS for the API, bootstrap tokens only.
    bool startDaemon(std::uint16_t agentPort = 0)
    {
        m_daemon = std::make_unique<QProcess>();
        return harness::startDaemon(*m_daemon,
            { QStringLiteral("--agent-listen"), QStringLiteral("127.0.0.1:%1").arg(agentPort), QStringLiteral("--api-listen"),
                QStringLiteral("127.0.0.1:0"), QStringLiteral("--db"), path(QStringLiteral("tls-%1.db").arg(m_database)),
                QStringLiteral("--operator-token-file"), path(QStringLiteral("op.token")), QStringLiteral("--tls-cert"),
                path(QStringLiteral("tls/core.pem")), QStringLiteral("--tls-key"), path(QStringLiteral("tls/core.key")),
                QStringLiteral("--api-tls-cert"), path(QStringLiteral("tls/core.pem")), QStringLiteral("--api-tls-key"),
                path(QStringLiteral("tls/core.key")), QStringLiteral("--agent-token-file"),
                path(QStringLiteral("tls/agent-tokens")), QStringLiteral("--heartbeat-interval-ms"), QStringLiteral("200"),
                QStringLiteral("--suspect-after-ms"), QStringLiteral("1000"), QStringLiteral("--lost-after-ms"),
                QStringLiteral("2000") },
            m_agentPort, m_apiPort, m_daemonLog);
    }

    void stopDaemon()
    {
        if (!m_daemon)
            return;
        m_daemon->terminate();
        if (!m_daemon->waitForFinished(5000)) {
            m_daemon->kill();
            m_daemon->waitForFinished(5000);
        }
        m_daemonLog += QString::fromUtf8(m_daemon->readAllStandardError());
        m_daemon.reset();
    }

    void startFleet(const QString& prefix, const QString& tokenFile)
    {
        auto fleet = std::make_unique<QProcess>();
        fleet->start(kBin + QStringLiteral("/tidepool-fleet"),
            { QStringLiteral("--core"), QStringLiteral("127.0.0.1:%1").arg(m_agentPort), QStringLiteral("--join-token-file"),
                tokenFile, QStringLiteral("--nodes"), QStringLiteral("1"), QStringLiteral("--prefix"), prefix,
                QStringLiteral("--report-every"), QStringLiteral("0"), QStringLiteral("--tls-ca"), path(QStringLiteral("tls/ca.pem")) });
        fleet->waitForStarted(5000);
        m_fleets.push_back(std::move(fleet));
    }

    // The daemon's JSON over HTTPS, verified against tls/ca.pem.
    Expected<api::ApiResponse> httpsGet(const std::string& target)
    {
        api::ApiClient client("127.0.0.1", m_apiPort, m_token, std::chrono::seconds(5));
        if (auto tls = client.useTls(path(QStringLiteral("tls/ca.pem")).toStdString()); !tls)
            return tl::unexpected(tls.error());
        return client.request(api::HttpMethod::Get, target);
    }

    double metric(const std::string& series)
    {
        const auto r = httpsGet("/metrics");
        if (!r || r->status != 200)
            return -1;
        const std::string prefix = series + " ";
        for (std::size_t at = 0; (at = r->body.find(prefix, at)) != std::string::npos; at += prefix.size())
            if (at == 0 || r->body[at - 1] == '\n')
                return std::stod(r->body.substr(at + prefix.size()));
        return -1;
    }

    std::vector<std::string> nodeNames()
    {
        std::vector<std::string> names;
        const auto r = httpsGet("/v1/nodes");
        if (!r || r->status != 200)
            return names;
        const json nodes = json::parse(r->body, nullptr, false);
        if (nodes.is_object() && nodes.contains("nodes"))
            for (const json& n : nodes["nodes"])
                if (n.value("state", "") == "ready")
                    names.push_back(n.value("name", ""));
        return names;
    }

    bool daemonLogMentions(const QString& text)
    {
        return waitFor(
            [&] {
                m_daemon->waitForReadyRead(50);
                m_daemonLog += QString::fromUtf8(m_daemon->readAllStandardError());
                return m_daemonLog.contains(text);
            },
            5000);
    }

    Run ctl(const QStringList& args)
    {
        return runTool(QStringLiteral("tidepoolctl"), QStringList { QStringLiteral("--token-file"), path(QStringLiteral("op.token")) } + args);
    }

    QString apiUrl(const QString& host = QStringLiteral("127.0.0.1")) const
    {
        return QStringLiteral("https://%1:%2").arg(host).arg(m_apiPort);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        writeFile(path(QStringLiteral("op.token")), QByteArray::fromStdString(m_token + "\n"));
        const Run made = runTool(QStringLiteral("tidepoold"),
            { QStringLiteral("certs"), QStringLiteral("init"), QStringLiteral("--dir"), path(QStringLiteral("tls")),
                QStringLiteral("--names"), QStringLiteral("core.test,10.0.0.5"), QStringLiteral("--agents"), QStringLiteral("3") });
        QVERIFY2(made.exitCode == 0, qPrintable(made.err));
        const Run other = runTool(QStringLiteral("tidepoold"),
            { QStringLiteral("certs"), QStringLiteral("init"), QStringLiteral("--dir"), path(QStringLiteral("other")),
                QStringLiteral("--names"), QStringLiteral("core.test"), QStringLiteral("--agents"), QStringLiteral("0") });
        QVERIFY2(other.exitCode == 0, qPrintable(other.err));
    }

    void init() { ++m_database; }

    void cleanup()
    {
        for (auto& fleet : m_fleets) {
            fleet->kill();
            fleet->waitForFinished(5000);
        }
        m_fleets.clear();
        stopDaemon();
    }

    // What `certs init` writes: keys and tokens readable by their owner only, the token file in the daemon's format,
    // and a second run refused (naming the file) rather than replacing a CA agents trust, unless --force.
    void certsInitWritesFilesAndRefusesToOverwrite()
    {
        for (const char* name : { "ca.key", "core.key", "agent-tokens" })
            QCOMPARE(modeOf(path(QStringLiteral("tls/") + QLatin1String(name))), 0600);
        for (const char* name : { "ca.pem", "core.pem" })
            QCOMPARE(modeOf(path(QStringLiteral("tls/") + QLatin1String(name))), 0644);
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("other/agent-tokens")))); // --agents 0
        const auto tokens = api::readBootstrapTokenFile(path(QStringLiteral("tls/agent-tokens")).toStdString());
        QVERIFY2(tokens, tokens ? "" : tokens.error().message.c_str());
        QCOMPARE(tokens->size(), std::size_t { 3 });
        QVERIFY(tokens->at(0).id != tokens->at(1).id);

        const QByteArray ca = readAll(path(QStringLiteral("tls/ca.pem")));
        const QStringList again { QStringLiteral("certs"), QStringLiteral("init"), QStringLiteral("--dir"), path(QStringLiteral("tls")),
            QStringLiteral("--names"), QStringLiteral("core.test") };
        const Run refused = runTool(QStringLiteral("tidepoold"), again);
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains(path(QStringLiteral("tls/ca.pem")) + QStringLiteral(" exists")), qPrintable(refused.err));
        QVERIFY2(refused.err.contains(QStringLiteral("--force")), qPrintable(refused.err));
        QCOMPARE(readAll(path(QStringLiteral("tls/ca.pem"))), ca);

        // --force replaces them, in a directory of its own here so that the other tests keep their CA.
        const QStringList fresh { QStringLiteral("certs"), QStringLiteral("init"), QStringLiteral("--dir"), path(QStringLiteral("forced")),
            QStringLiteral("--names"), QStringLiteral("core.test") };
        QCOMPARE(runTool(QStringLiteral("tidepoold"), fresh).exitCode, 0);
        const QByteArray first = readAll(path(QStringLiteral("forced/ca.pem")));
        QCOMPARE(runTool(QStringLiteral("tidepoold"), fresh).exitCode, 1);
        QCOMPARE(runTool(QStringLiteral("tidepoold"), fresh + QStringList { QStringLiteral("--force") }).exitCode, 0);
        QVERIFY(readAll(path(QStringLiteral("forced/ca.pem"))) != first);

        // Bad input names what was wrong.
        const Run badName = runTool(QStringLiteral("tidepoold"),
            { QStringLiteral("certs"), QStringLiteral("init"), QStringLiteral("--dir"), path(QStringLiteral("bad")),
                QStringLiteral("--names"), QStringLiteral("core.test,not a name") });
        QCOMPARE(badName.exitCode, 2);
        QVERIFY2(badName.err.contains(QStringLiteral("\"not a name\" is neither a DNS name nor an IP address")), qPrintable(badName.err));
        const Run unwritable = runTool(QStringLiteral("tidepoold"),
            { QStringLiteral("certs"), QStringLiteral("init"), QStringLiteral("--dir"), QStringLiteral("/proc/tidepool-certs"),
                QStringLiteral("--names"), QStringLiteral("core.test") });
        QCOMPARE(unwritable.exitCode, 1);
        QVERIFY2(unwritable.err.contains(QStringLiteral("/proc/tidepool-certs")), qPrintable(unwritable.err));

        // More tokens later, and a client certificate signed by the same CA.
        const Run more = runTool(QStringLiteral("tidepoold"),
            { QStringLiteral("certs"), QStringLiteral("tokens"), QStringLiteral("--dir"), path(QStringLiteral("forced")),
                QStringLiteral("--agents"), QStringLiteral("2") });
        QCOMPARE(more.exitCode, 0);
        QCOMPARE(more.out.trimmed().split(QLatin1Char('\n')).size(), 2);
        const auto grown = api::readBootstrapTokenFile(path(QStringLiteral("forced/agent-tokens")).toStdString());
        QVERIFY(grown && grown->size() == 12);
        QCOMPARE(modeOf(path(QStringLiteral("forced/agent-tokens"))), 0600);
        const Run agent = runTool(QStringLiteral("tidepoold"),
            { QStringLiteral("certs"), QStringLiteral("agent"), QStringLiteral("--dir"), path(QStringLiteral("forced")),
                QStringLiteral("--name"), QStringLiteral("node-7") });
        QVERIFY2(agent.exitCode == 0, qPrintable(agent.err));
        QCOMPARE(modeOf(path(QStringLiteral("forced/agents/node-7.key"))), 0600);
        QVERIFY(transport::makeClientContext({ path(QStringLiteral("forced/ca.pem")).toStdString(),
            path(QStringLiteral("forced/agents/node-7.pem")).toStdString(), path(QStringLiteral("forced/agents/node-7.key")).toStdString() }));
        const Run noCa = runTool(QStringLiteral("tidepoold"),
            { QStringLiteral("certs"), QStringLiteral("agent"), QStringLiteral("--dir"), path(QStringLiteral("nowhere")),
                QStringLiteral("--name"), QStringLiteral("node-7") });
        QCOMPARE(noCa.exitCode, 1);
        QVERIFY2(noCa.err.contains(path(QStringLiteral("nowhere/ca.pem"))), qPrintable(noCa.err));
    }

    // The files of `certs init` as they are: agents join over TLS with a bootstrap token, tidepoolctl lists them over
    // https:// with the CA; another CA, plain HTTP, and an https client of an unreadable CA file are refused, each
    // saying why, and the refusals touch nothing.
    void certsInitFilesWorkEndToEnd()
    {
        QVERIFY2(startDaemon(), qPrintable(m_daemonLog));
        QVERIFY2(m_daemonLog.contains(QStringLiteral("the API speaks HTTPS only")), qPrintable(m_daemonLog));
        const auto tokens = api::readBootstrapTokenFile(path(QStringLiteral("tls/agent-tokens")).toStdString());
        QVERIFY(tokens);
        writeFile(path(QStringLiteral("agent-1.token")), QByteArray::fromStdString(protocol::bootstrapTokenText(tokens->at(0)) + "\n"));
        startFleet(QStringLiteral("boot"), path(QStringLiteral("agent-1.token")));
        QVERIFY2(waitFor([&] { return nodeNames() == std::vector<std::string> { "boot-0" }; }, 15'000), qPrintable(m_daemonLog));

        const Run listed = ctl({ QStringLiteral("--server"), apiUrl(), QStringLiteral("--ca"), path(QStringLiteral("tls/ca.pem")),
            QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("nodes") });
        QVERIFY2(listed.exitCode == 0, qPrintable(listed.err));
        const json nodes = json::parse(listed.out.toStdString(), nullptr, false);
        QVERIFY(nodes.is_object() && nodes["nodes"].size() == 1);
        QCOMPARE(nodes["nodes"][0]["name"].get<std::string>(), std::string("boot-0"));
        // The certificate names localhost too.
        QCOMPARE(ctl({ QStringLiteral("--server"), apiUrl(QStringLiteral("localhost")), QStringLiteral("--ca"),
                         path(QStringLiteral("tls/ca.pem")), QStringLiteral("summary") })
                     .exitCode,
            0);

        const Run foreign = ctl({ QStringLiteral("--server"), apiUrl(), QStringLiteral("--ca"), path(QStringLiteral("other/ca.pem")),
            QStringLiteral("nodes") });
        QCOMPARE(foreign.exitCode, 1);
        QVERIFY2(foreign.err.contains(QStringLiteral("tidepoold at ") + apiUrl() + QStringLiteral(": TLS handshake: "))
                && foreign.err.contains(QStringLiteral("unable to get local issuer certificate"))
                && foreign.err.contains(path(QStringLiteral("other/ca.pem"))),
            qPrintable(foreign.err));
        const Run noCaFile = ctl({ QStringLiteral("--server"), apiUrl(), QStringLiteral("--ca"), path(QStringLiteral("missing.pem")),
            QStringLiteral("nodes") });
        QCOMPARE(noCaFile.exitCode, 2);
        QVERIFY2(noCaFile.err.contains(path(QStringLiteral("missing.pem"))), qPrintable(noCaFile.err));
        const Run caWithHttp = ctl({ QStringLiteral("--server"), QStringLiteral("http://127.0.0.1:%1").arg(m_apiPort),
            QStringLiteral("--ca"), path(QStringLiteral("tls/ca.pem")), QStringLiteral("nodes") });
        QCOMPARE(caWithHttp.exitCode, 2);
        QVERIFY2(caWithHttp.err.contains(QStringLiteral("--ca is for an https:// server")), qPrintable(caWithHttp.err));

        // Plain HTTP to the HTTPS listener: a clear 400, counted and logged; the daemon serves on, unchanged.
        const harness::Reply plain = harness::request(m_apiPort, http::verb::get, "/v1/nodes", m_token);
        QCOMPARE(plain.status, 400);
        QVERIFY2(plain.body.find("HTTPS API") != std::string::npos, plain.body.c_str());
        const Run plainCtl = ctl({ QStringLiteral("--server"), QStringLiteral("127.0.0.1:%1").arg(m_apiPort), QStringLiteral("nodes") });
        QCOMPARE(plainCtl.exitCode, 1);
        QVERIFY2(plainCtl.err.contains(QStringLiteral("use https://")), qPrintable(plainCtl.err));
        QVERIFY(metric("tidepool_api_tls_handshake_failures_total") >= 3); // the other CA, plain HTTP twice
        QVERIFY(daemonLogMentions(QStringLiteral("the client spoke plain HTTP to the HTTPS listener")));
        QCOMPARE(m_daemon->state(), QProcess::Running);
        QVERIFY(nodeNames() == std::vector<std::string> { "boot-0" });
    }

    // A bootstrap token joins one node: another node presenting it is refused (logged, counted), before and after a
    // restart of the daemon, while the node it is bound to joins again after the restart.
    void reusedBootstrapTokenIsRefusedAcrossARestart()
    {
        QVERIFY2(startDaemon(), qPrintable(m_daemonLog));
        const auto tokens = api::readBootstrapTokenFile(path(QStringLiteral("tls/agent-tokens")).toStdString());
        QVERIFY(tokens);
        writeFile(path(QStringLiteral("agent-2.token")), QByteArray::fromStdString(protocol::bootstrapTokenText(tokens->at(1)) + "\n"));
        startFleet(QStringLiteral("first"), path(QStringLiteral("agent-2.token")));
        QVERIFY2(waitFor([&] {
            const auto names = nodeNames();
            return std::find(names.begin(), names.end(), "first-0") != names.end();
        }, 15'000), qPrintable(m_daemonLog));
        startFleet(QStringLiteral("second"), path(QStringLiteral("agent-2.token")));
        QVERIFY(waitFor([&] { return metric("tidepool_agent_token_reuse_refused_total") >= 1; }, 10'000));
        QVERIFY(daemonLogMentions(
            QString::fromStdString("bootstrap token " + tokens->at(1).id + " is already bound to node first-0")));

        // Restarted on the same agent port and database: the binding was durable before the welcome.
        const std::uint16_t agentPort = m_agentPort;
        stopDaemon();
        QVERIFY2(startDaemon(agentPort), qPrintable(m_daemonLog));
        QVERIFY2(m_daemonLog.contains(QStringLiteral("3 agent bootstrap tokens, 1 of them used")), qPrintable(m_daemonLog));
        QVERIFY2(waitFor([&] {
            const auto names = nodeNames();
            return std::find(names.begin(), names.end(), "first-0") != names.end();
        }, 20'000), qPrintable(m_daemonLog));
        QVERIFY(waitFor([&] { return metric("tidepool_agent_token_reuse_refused_total") >= 1; }, 20'000));
        const auto names = nodeNames();
        QVERIFY(std::find(names.begin(), names.end(), "second-0") == names.end());
    }

    // `tidepoold certs tokens` appends a token to the file of a running daemon: an agent presenting it is refused as
    // unknown until SIGHUP makes the daemon read the file again, and joins after it. A damaged file on a later SIGHUP
    // is logged and the tokens in use stay, so the node bound before still rejoins.
    void sighupReadsTheBootstrapTokensAgain()
    {
        QVERIFY2(startDaemon(), qPrintable(m_daemonLog));
        const QString tokenFile = path(QStringLiteral("tls/agent-tokens"));
        const QByteArray before = readAll(tokenFile);
        const Run added = runTool(QStringLiteral("tidepoold"),
            { QStringLiteral("certs"), QStringLiteral("tokens"), QStringLiteral("--dir"), path(QStringLiteral("tls")),
                QStringLiteral("--agents"), QStringLiteral("1") });
        QVERIFY2(added.exitCode == 0, qPrintable(added.err));
        const QString newLine = added.out.trimmed();
        QVERIFY2(newLine.startsWith(QStringLiteral("tpb1.")) && !newLine.contains(QLatin1Char('\n')), qPrintable(added.out));
        QVERIFY(readAll(tokenFile).startsWith(before));
        const QString newId = newLine.section(QLatin1Char('.'), 1, 1);
        writeFile(path(QStringLiteral("late.token")), newLine.toUtf8() + '\n');

        // Not read yet: refused as unknown.
        startFleet(QStringLiteral("late"), path(QStringLiteral("late.token")));
        QVERIFY2(daemonLogMentions(QStringLiteral("unknown bootstrap token ") + newId), qPrintable(m_daemonLog));
        QVERIFY(metric("tidepool_agent_joins_rejected_total") >= 1);
        m_fleets.back()->kill();
        m_fleets.back()->waitForFinished(5000);

        ::kill(static_cast<pid_t>(m_daemon->processId()), SIGHUP);
        QVERIFY2(daemonLogMentions(QStringLiteral("SIGHUP: 4 agent bootstrap tokens read from ") + tokenFile),
            qPrintable(m_daemonLog));
        startFleet(QStringLiteral("late"), path(QStringLiteral("late.token")));
        QVERIFY2(waitFor([&] {
            const auto names = nodeNames();
            return std::find(names.begin(), names.end(), "late-0") != names.end();
        }, 15'000), qPrintable(m_daemonLog));

        // A damaged file: logged with the line, nothing forgotten; the bound node comes back after losing its link.
        QByteArray damaged = readAll(tokenFile);
        writeFile(tokenFile, damaged + "not-a-token\n");
        ::kill(static_cast<pid_t>(m_daemon->processId()), SIGHUP);
        QVERIFY2(daemonLogMentions(QStringLiteral("SIGHUP: the agent bootstrap tokens are unchanged: ")), qPrintable(m_daemonLog));
        QVERIFY2(m_daemonLog.contains(QStringLiteral("not a bootstrap token")), qPrintable(m_daemonLog));
        writeFile(tokenFile, damaged);
        QCOMPARE(m_daemon->state(), QProcess::Running);
        for (auto& fleet : m_fleets) {
            fleet->kill();
            fleet->waitForFinished(5000);
        }
        m_fleets.clear();
        startFleet(QStringLiteral("late"), path(QStringLiteral("late.token")));
        QVERIFY2(waitFor([&] { return metric("tidepool_agent_joins_total") >= 2; }, 15'000), qPrintable(m_daemonLog));
        QVERIFY(metric("tidepool_agent_token_reuse_refused_total") <= 0);
    }

    // Bad TLS settings and token files stop the daemon before it starts, naming the file (and the line), never
    // echoing a secret.
    void badSettingsNameTheFile()
    {
        const QStringList base { QStringLiteral("--operator-token-file"), path(QStringLiteral("op.token")),
            QStringLiteral("--api-listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--check-config") };
        const auto check = [&](const QStringList& extra) { return runTool(QStringLiteral("tidepoold"), base + extra); };
        const QByteArray good = readAll(path(QStringLiteral("tls/agent-tokens")));
        writeFile(path(QStringLiteral("damaged-tokens")), good + "secret-garbage-line\n");
        const int badLine = good.count('\n') + 1;
        const Run damaged = check({ QStringLiteral("--agent-token-file"), path(QStringLiteral("damaged-tokens")) });
        QCOMPARE(damaged.exitCode, 2);
        QVERIFY2(damaged.err.contains(QStringLiteral("agent token file %1, line %2: not a bootstrap token")
                                          .arg(path(QStringLiteral("damaged-tokens")))
                                          .arg(badLine)),
            qPrintable(damaged.err));
        QVERIFY(!damaged.err.contains(QStringLiteral("secret-garbage-line")));
        const Run none = check({});
        QCOMPARE(none.exitCode, 2);
        QVERIFY2(none.err.contains(QStringLiteral("--join-token-file or --agent-token-file is required")), qPrintable(none.err));
        const QStringList tokens { QStringLiteral("--agent-token-file"), path(QStringLiteral("tls/agent-tokens")) };
        QCOMPARE(check(tokens).exitCode, 0);
        const Run half = check(tokens + QStringList { QStringLiteral("--api-tls-cert"), path(QStringLiteral("tls/core.pem")) });
        QCOMPARE(half.exitCode, 2);
        QVERIFY2(half.err.contains(QStringLiteral("--api-tls-cert and --api-tls-key")), qPrintable(half.err));
        const Run noKey = check(tokens
            + QStringList { QStringLiteral("--api-tls-cert"), path(QStringLiteral("tls/core.pem")), QStringLiteral("--api-tls-key"),
                path(QStringLiteral("tls/missing.key")) });
        QCOMPARE(noKey.exitCode, 2);
        QVERIFY2(noKey.err.contains(path(QStringLiteral("tls/missing.key"))), qPrintable(noKey.err));
        const Run wrongKey = check(tokens
            + QStringList { QStringLiteral("--api-tls-cert"), path(QStringLiteral("tls/core.pem")), QStringLiteral("--api-tls-key"),
                path(QStringLiteral("tls/ca.key")) });
        QCOMPARE(wrongKey.exitCode, 2);
        QVERIFY2(wrongKey.err.contains(path(QStringLiteral("tls/ca.key"))) && wrongKey.err.contains(QStringLiteral("mismatch")),
            qPrintable(wrongKey.err));
    }

    // The HTTPS client checks the chain and the host name, and says which failed with the URL; an https client of a
    // plain listener is told the handshake failed. In process, with a certificate that names core.test and
    // 127.0.0.1 only.
    void httpsClientVerifiesTheChainAndTheName()
    {
        auto ca = net::makeCertificateAuthority("test CA", 30);
        QVERIFY(ca);
        auto core = net::issueCertificate(*ca, { "core.test", { "core.test", "127.0.0.1" }, net::CertificateUsage::Server, 30, 0 });
        QVERIFY(core);
        writeFile(path(QStringLiteral("named.pem")), QByteArray::fromStdString(core->certificatePem));
        writeFile(path(QStringLiteral("named.key")), QByteArray::fromStdString(core->keyPem));
        writeFile(path(QStringLiteral("named-ca.pem")), QByteArray::fromStdString(ca->certificatePem));
        auto context = transport::makeServerContext(
            { path(QStringLiteral("named.pem")).toStdString(), path(QStringLiteral("named.key")).toStdString(), {} });
        QVERIFY(context);

        boost::asio::io_context io;
        auto guard = boost::asio::make_work_guard(io);
        const auto answer = [](const net::HttpRequest&, const std::string&, net::HttpRespond respond) {
            net::HttpResponse response { http::status::ok, 11 };
            response.body() = R"({"ok":true})";
            respond(std::move(response));
        };
        net::HttpServerConfig tlsConfig;
        tlsConfig.tls = *context;
        auto secure = net::HttpServer::create(io, tlsConfig, answer, {});
        auto plain = net::HttpServer::create(io, {}, answer, {});
        const auto securePort = secure->listen("127.0.0.1", 0);
        const auto plainPort = plain->listen("127.0.0.1", 0);
        QVERIFY(securePort && plainPort);
        std::thread thread([&] { io.run(); });
        const auto get = [](api::ApiClient& client) { return client.request(api::HttpMethod::Get, "/v1/summary"); };
        const std::string caFile = path(QStringLiteral("named-ca.pem")).toStdString();

        api::ApiClient good("127.0.0.1", *securePort, "t", std::chrono::seconds(5));
        QVERIFY(good.useTls(caFile));
        const auto ok = get(good);
        QVERIFY2(ok && ok->status == 200, ok ? ok->body.c_str() : ok.error().message.c_str());

        api::ApiClient wrongName("localhost", *securePort, "t", std::chrono::seconds(5));
        QVERIFY(wrongName.useTls(caFile));
        const auto mismatch = get(wrongName);
        QVERIFY(!mismatch);
        const std::string url = "https://localhost:" + std::to_string(*securePort);
        QVERIFY2(mismatch.error().message.find("tidepoold at " + url + ": TLS handshake") != std::string::npos
                && mismatch.error().message.find("hostname mismatch") != std::string::npos,
            mismatch.error().message.c_str());

        api::ApiClient foreign("127.0.0.1", *securePort, "t", std::chrono::seconds(5));
        QVERIFY(foreign.useTls(path(QStringLiteral("other/ca.pem")).toStdString()));
        const auto untrusted = get(foreign);
        QVERIFY(!untrusted);
        QVERIFY2(untrusted.error().message.find("unable to get local issuer certificate") != std::string::npos,
            untrusted.error().message.c_str());

        api::ApiClient cleartext("127.0.0.1", *securePort, "t", std::chrono::seconds(5));
        const auto refused = get(cleartext);
        QVERIFY(refused && refused->status == 400);

        api::ApiClient httpsToPlain("127.0.0.1", *plainPort, "t", std::chrono::seconds(5));
        QVERIFY(httpsToPlain.useTls(caFile));
        const auto noTls = get(httpsToPlain);
        QVERIFY(!noTls);
        QVERIFY2(noTls.error().message.find("TLS handshake") != std::string::npos, noTls.error().message.c_str());

        api::ApiClient missing("127.0.0.1", *securePort, "t");
        const auto unreadable = missing.useTls(path(QStringLiteral("nope.pem")).toStdString());
        QVERIFY(!unreadable);
        QVERIFY(unreadable.error().message.find(path(QStringLiteral("nope.pem")).toStdString()) != std::string::npos);

        boost::asio::post(io, [&] {
            secure->stop();
            plain->stop();
        });
        guard.reset();
        thread.join();
        QCOMPARE(secure->stats().requests, std::uint64_t { 1 });
        QCOMPARE(secure->stats().tlsHandshakeFailures, std::uint64_t { 3 });
        QCOMPARE(plain->stats().requests, std::uint64_t { 0 });
    }

    // Over HTTPS too, an answer the handler defers is written on the same kept-alive connection once it comes (the
    // server's watch for the client leaving ends first, so that its read and the answer's write do not race on the
    // TLS stream), and a client that gives up and closes while it waits is told to the handler.
    void aDeferredAnswerOverHttpsKeepsItsConnection()
    {
        auto context = transport::makeServerContext({ path(QStringLiteral("tls/core.pem")).toStdString(),
            path(QStringLiteral("tls/core.key")).toStdString(), {} });
        QVERIFY(context);
        boost::asio::io_context io;
        auto guard = boost::asio::make_work_guard(io);
        std::atomic<int> gone { 0 };
        const auto answer
            = [&io, &gone](const net::HttpRequest& request, const std::string&, net::HttpRespond respond) {
                  if (request.target() == "/forever") {
                      respond.onClientGone([&gone, respond]() mutable {
                          ++gone;
                          respond = {};
                      });
                      return;
                  }
                  auto timer = std::make_shared<boost::asio::steady_timer>(io, std::chrono::milliseconds(50));
                  timer->async_wait([timer, respond](const boost::system::error_code&) {
                      net::HttpResponse response { http::status::ok, 11 };
                      response.body() = R"({"late":true})";
                      respond(std::move(response));
                  });
              };
        net::HttpServerConfig tlsConfig;
        tlsConfig.tls = *context;
        auto secure = net::HttpServer::create(io, tlsConfig, answer, {});
        const auto port = secure->listen("127.0.0.1", 0);
        QVERIFY(port);
        std::thread thread([&] { io.run(); });
        const std::string caFile = path(QStringLiteral("tls/ca.pem")).toStdString();

        api::ApiClient client("127.0.0.1", *port, "t", std::chrono::seconds(5));
        QVERIFY(client.useTls(caFile));
        for (int i = 0; i < 3; ++i) {
            const auto late = client.request(api::HttpMethod::Get, "/v1/summary");
            QVERIFY2(late && late->status == 200 && late->body == R"({"late":true})",
                late ? late->body.c_str() : late.error().message.c_str());
        }
        api::ApiClient impatient("127.0.0.1", *port, "t", std::chrono::milliseconds(300));
        QVERIFY(impatient.useTls(caFile));
        QVERIFY(!impatient.request(api::HttpMethod::Get, "/forever"));
        QVERIFY(waitFor([&] { return gone.load() == 1; }, 5000));

        boost::asio::post(io, [&] { secure->stop(); });
        guard.reset();
        thread.join();
        QCOMPARE(secure->stats().connectionsAccepted, std::uint64_t { 2 }); // the three on one connection
        QCOMPARE(secure->stats().requests, std::uint64_t { 4 });
        QCOMPARE(secure->stats().clientsGone, std::uint64_t { 1 });
    }
};

QTEST_GUILESS_MAIN(TestTls)
#include "tst_tls.moc"
