// Roles, hashed operator tokens and the audit trail, on the real tidepoold (a process, real sockets, a real SQLite
// database). Protects: every role × every API route (a workload's move included) answers as the table in
// core/api/access.h says, enforced by the daemon whatever the client; a forbidden call is a 403 naming the role it
// needs, counted and audited; every change leaves a "received" and a "completed" audit entry with who, role, where,
// what and the outcome (a move's naming the workload); the token file holds
// salted hashes only (mode 0600) and a damaged one is refused naming the line; `tidepoold token add|remove|migrate`;
// the plaintext token file from before roles still works and migrates; tidepoolctl says which role a call needs;
// SIGHUP reads the token file again (a damaged one is logged and the tokens in use stay).

#include "harness.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <csignal>

#include <map>

using harness::kBin;
using harness::Reply;
using harness::request;
using nlohmann::json;
namespace http = boost::beast::http;

// QCOMPARE prints both sides of a failed comparison of `std::string`s.
template <> inline char* QTest::toString(const std::string& s)
{
    return qstrdup(s.c_str());
}

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
    if (!process.waitForFinished(30'000)) {
        process.kill();
        process.waitForFinished();
        run.err = QStringLiteral("%1 did not finish within 30 s").arg(tool);
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

// One route and the status each role gets: viewer, operator, admin. `{workload}` in the target is a workload made
// for the row (so that each cancel has one to cancel); `{role}` in the body makes a name unique per row.
struct Route {
    const char* name;
    http::verb verb;
    const char* target;
    const char* body;
    int viewer, oper, admin;
};

const Route kRoutes[] = {
    { "summary", http::verb::get, "/v1/summary", "", 200, 200, 200 },
    { "whoami", http::verb::get, "/v1/whoami", "", 200, 200, 200 },
    { "list workloads", http::verb::get, "/v1/workloads", "", 200, 200, 200 },
    { "get workload", http::verb::get, "/v1/workloads/1", "", 200, 200, 200 },
    { "why", http::verb::get, "/v1/workloads/1/why", "", 200, 200, 200 },
    { "nodes", http::verb::get, "/v1/nodes", "", 200, 200, 200 },
    { "node", http::verb::get, "/v1/nodes/nowhere", "", 404, 404, 404 },
    { "pools", http::verb::get, "/v1/pools", "", 200, 200, 200 },
    { "series", http::verb::get, "/v1/series", "", 200, 200, 200 },
    { "history", http::verb::get, "/v1/history?scope=pool&name=shared&resource=cpu", "", 200, 200, 200 },
    { "proposals", http::verb::get, "/v1/proposals", "", 200, 200, 200 },
    { "proposal", http::verb::get, "/v1/proposals/999", "", 404, 404, 404 },
    { "audit", http::verb::get, "/v1/audit", "", 403, 200, 200 },
    // A workload's output is an operator's to read; this one waits for a node, so there is none (409).
    { "logs", http::verb::get, "/v1/workloads/{workload}/logs", "", 403, 409, 409 },
    { "submit", http::verb::post, "/v1/workloads", R"({"name":"w-{role}","cpuMillis":100,"memoryMiB":64})", 403, 201,
        201 },
    { "cancel", http::verb::delete_, "/v1/workloads/{workload}", "", 403, 200, 200 },
    // No node has joined: the move is the core's refusal (no node of the pool can take it), not the role table's.
    { "move", http::verb::post, "/v1/workloads/{workload}/move", R"({"pool":"shared"})", 403, 409, 409 },
    // The workload waits for a node: it is simply given its new size.
    { "resize", http::verb::post, "/v1/workloads/{workload}/resize", R"({"cpuMillis":50})", 403, 200, 200 },
    // Taking a node out of service and back is an operator's, as approving a power-down is; no node has joined.
    { "cordon", http::verb::post, "/v1/nodes/nowhere/cordon", R"({"reason":"disk"})", 403, 404, 404 },
    { "uncordon", http::verb::post, "/v1/nodes/nowhere/uncordon", "", 403, 404, 404 },
    { "drain", http::verb::post, "/v1/nodes/nowhere/drain", "", 403, 404, 404 },
    { "approve", http::verb::post, "/v1/proposals/999/approve", "", 403, 404, 404 },
    { "reject", http::verb::post, "/v1/proposals/999/reject", R"({"reason":"no"})", 403, 404, 404 },
    { "evaluate", http::verb::post, "/v1/evaluate", "", 403, 200, 200 },
    { "whatif", http::verb::post, "/v1/whatif", "{}", 403, 200, 200 },
    { "create pool", http::verb::post, "/v1/pools", R"({"name":"p-{role}","cpuMillis":1000})", 403, 403, 201 },
    { "set pool", http::verb::put, "/v1/pools/shared", R"({"cpuMillis":3000})", 403, 403, 200 },
    // The role is checked before the pool is looked for: only the admin learns there is none of that name.
    { "delete pool", http::verb::delete_, "/v1/pools/nowhere", "", 403, 403, 404 },
    // No such route: a change the role table does not name is the admin's (fail closed), who learns it is not there.
    { "unknown change", http::verb::post, "/v1/nodes/n1/reboot", "", 403, 403, 404 },
    // A method the path does not take: a 405 for every role (no role may call it), audited as an attempted change.
    { "wrong method", http::verb::delete_, "/v1/pools", "", 405, 405, 405 },
    { "wrong method on one", http::verb::put, "/v1/workloads/{workload}", R"({"name":"x"})", 405, 405, 405 },
};

std::string replaced(std::string text, const std::string& key, const std::string& value)
{
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
        text.replace(at, key.size(), value);
    return text;
}

} // namespace

class TestAccess : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QProcess m_daemon;
    std::uint16_t m_agentPort = 0;
    std::uint16_t m_apiPort = 0;
    QString m_log;
    std::map<std::string, std::string> m_token; // by role
    std::int64_t m_lastAudit = 0; // the audit entries seen so far

    QString path(const QString& name) const { return m_dir.filePath(name); }

    static void writeFile(const QString& file, const QByteArray& content)
    {
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(f.write(content), content.size());
    }

    static QByteArray readFile(const QString& file)
    {
        QFile f(file);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

    Run addToken(const QString& file, const QString& name, const QString& role)
    {
        return runTool(QStringLiteral("tidepoold"),
            { QStringLiteral("token"), QStringLiteral("add"), QStringLiteral("--token-file"), file,
                QStringLiteral("--name"), name, QStringLiteral("--role"), role });
    }

    bool startDaemon(
        QProcess& daemon, const QString& tokenFile, const QString& db, std::uint16_t& apiPort, QString& log)
    {
        std::uint16_t agentPort = 0;
        return harness::startDaemon(daemon,
            { QStringLiteral("--agent-listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--api-listen"),
                QStringLiteral("127.0.0.1:0"), QStringLiteral("--db"), db, QStringLiteral("--join-token-file"),
                path(QStringLiteral("join.token")), QStringLiteral("--operator-token-file"), tokenFile },
            agentPort, apiPort, log);
    }

    static void stopDaemon(QProcess& daemon)
    {
        if (daemon.state() == QProcess::NotRunning)
            return;
        daemon.terminate();
        if (!daemon.waitForFinished(10'000)) {
            daemon.kill();
            daemon.waitForFinished();
        }
    }

    Reply call(const std::string& role, http::verb verb, const std::string& target, const std::string& body = {})
    {
        return request(m_apiPort, verb, target, m_token.at(role), body);
    }

    // The audit entries written since the last call.
    json newAudit()
    {
        const Reply r = call("admin", http::verb::get, "/v1/audit?limit=10000&after=" + std::to_string(m_lastAudit));
        json entries = r.status == 200 ? r.data().value("entries", json::array()) : json::array();
        for (const json& e : entries)
            m_lastAudit = std::max(m_lastAudit, e.value("id", std::int64_t { 0 }));
        return entries;
    }

    std::int64_t submitAsAdmin(const std::string& name)
    {
        const Reply r = call(
            "admin", http::verb::post, "/v1/workloads", R"({"name":")" + name + R"(","cpuMillis":100,"memoryMiB":64})");
        return r.status == 201 ? r.data().value("id", std::int64_t { 0 }) : 0;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        writeFile(path(QStringLiteral("join.token")), "join-token-0123456789abcdef\n");
        const std::pair<const char*, const char*> people[]
            = { { "vera", "viewer" }, { "otto", "operator" }, { "ada", "admin" } };
        for (const auto& [name, role] : people) {
            const Run run = addToken(path(QStringLiteral("tokens")), QString::fromUtf8(name), QString::fromUtf8(role));
            QVERIFY2(run.exitCode == 0, qPrintable(run.err));
            m_token[role] = run.out.trimmed().toStdString();
        }
        QVERIFY2(
            startDaemon(m_daemon, path(QStringLiteral("tokens")), path(QStringLiteral("access.db")), m_apiPort, m_log),
            qPrintable(m_log));
        QCOMPARE(call("admin", http::verb::post, "/v1/pools", R"({"name":"shared","cpuMillis":2000})").status, 201);
        QCOMPARE(submitAsAdmin("first"), std::int64_t { 1 });
        newAudit();
    }

    void cleanupTestCase() { stopDaemon(m_daemon); }

    // `tidepoold token add` prints the token alone, once; the file keeps only a salted hash of it, one line a token,
    // with mode 0600.
    void tokenFileHoldsSaltedHashesOnly()
    {
        const QByteArray file = readFile(path(QStringLiteral("tokens")));
        for (const auto& [role, token] : m_token) {
            QVERIFY2(
                QRegularExpression(QStringLiteral("^tp_[0-9a-f]{64}$")).match(QString::fromStdString(token)).hasMatch(),
                token.c_str());
            QVERIFY2(!file.contains(QByteArray::fromStdString(token)), role.c_str());
            QVERIFY2(!file.contains(QByteArray::fromStdString(token.substr(3, 16))), role.c_str());
        }
        const QList<QByteArray> lines = file.trimmed().split('\n');
        QCOMPARE(lines.size(), 3);
        const QRegularExpression line(
            QStringLiteral("^(vera:viewer|otto:operator|ada:admin):sha256:[0-9a-f]{32}:[0-9a-f]{64}$"));
        for (const QByteArray& l : lines)
            QVERIFY2(line.match(QString::fromUtf8(l)).hasMatch(), l.constData());
        // Salted: two tokens never share a salt.
        QVERIFY(lines[0].split(':')[3] != lines[1].split(':')[3]);
        struct stat st { };
        QCOMPARE(::stat(path(QStringLiteral("tokens")).toLocal8Bit().constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);
        // `token list` shows who holds which role, as the audit log names them.
        const Run list = runTool(QStringLiteral("tidepoold"),
            { QStringLiteral("token"), QStringLiteral("list"), QStringLiteral("--token-file"),
                path(QStringLiteral("tokens")) });
        QCOMPARE(list.exitCode, 0);
        QCOMPARE(list.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts).size(), 4);
        QVERIFY2(QRegularExpression(QStringLiteral("token:otto\\s+operator\\n")).match(list.out).hasMatch(),
            qPrintable(list.out));
    }

    void everyRoleOnEveryRoute_data()
    {
        QTest::addColumn<int>("route");
        QTest::addColumn<QString>("role");
        for (std::size_t i = 0; i < std::size(kRoutes); ++i)
            for (const char* role : { "viewer", "operator", "admin" })
                QTest::newRow((std::string(role) + " " + kRoutes[i].name).c_str()) << int(i) << QString::fromUtf8(role);
    }

    // The table of core/api/access.h, over HTTP: the status each role gets, and the audit entries each call leaves:
    // a change or a forbidden call a received and a completed entry with the caller's role and the status; an
    // allowed read none.
    void everyRoleOnEveryRoute()
    {
        QFETCH(int, route);
        QFETCH(QString, role);
        const Route& r = kRoutes[route];
        const std::string who = role.toStdString();
        std::string target = r.target;
        if (target.find("{workload}") != std::string::npos) {
            const std::int64_t id = submitAsAdmin("to-cancel");
            QVERIFY(id > 0);
            target = replaced(target, "{workload}", std::to_string(id));
        }
        newAudit();
        const int expected = who == "viewer" ? r.viewer : who == "operator" ? r.oper : r.admin;
        const Reply reply = call(who, r.verb, target, replaced(r.body, "{role}", who));
        QVERIFY2(reply.status == expected,
            qPrintable(QStringLiteral("%1: HTTP %2, expected %3: %4")
                           .arg(QString::fromUtf8(r.name))
                           .arg(reply.status)
                           .arg(expected)
                           .arg(QString::fromStdString(reply.body))));
        if (std::string(r.name) == "whoami") { // each token learns its own role
            QCOMPARE(reply.data().value("role", std::string()), who);
            QCOMPARE(reply.data().value("actor", std::string()),
                std::string(who == "viewer" ? "token:vera" : who == "operator" ? "token:otto" : "token:ada"));
        }
        if (reply.status == 403) {
            const json body = reply.data();
            QCOMPARE(body.value("role", std::string()), who);
            const std::string needed = body.value("requiredRole", std::string());
            QVERIFY2(needed == "operator" || needed == "admin", reply.body.c_str());
            QVERIFY2(body.value("error", std::string()).find("needs the " + needed + " role") != std::string::npos,
                reply.body.c_str());
        }

        const json entries = newAudit();
        const bool change = r.verb != http::verb::get && std::string(r.target) != "/v1/whatif";
        if (!change && reply.status != 403) {
            QVERIFY2(entries.empty(), entries.dump().c_str());
            return;
        }
        QVERIFY2(entries.size() == 2, entries.dump().c_str());
        const json& received = entries[0];
        const json& completed = entries[1];
        const auto method = http::to_string(r.verb);
        const std::string action = std::string(method.data(), method.size()) + " " + target.substr(0, target.find('?'));
        for (const json& e : entries) {
            QCOMPARE(e.value("role", std::string()), who);
            QCOMPARE(e.value("actor", std::string()),
                std::string(who == "viewer" ? "token:vera"
                        : who == "operator" ? "token:otto"
                                            : "token:ada"));
            QCOMPARE(e.value("action", std::string()), action);
            QVERIFY2(e.value("source", std::string()).rfind("127.0.0.1:", 0) == 0, e.dump().c_str());
        }
        QCOMPARE(received.value("stage", std::string()), std::string("received"));
        QCOMPARE(received.value("outcome", std::string()), std::string());
        QCOMPARE(completed.value("stage", std::string()), std::string("completed"));
        QCOMPARE(completed.value("request", std::string()), received.value("request", std::string()));
        QVERIFY(!received.value("request", std::string()).empty());
        QCOMPARE(completed["detail"].value("status", 0), expected);
        QVERIFY(completed.value("atMs", std::int64_t { 0 }) >= received.value("atMs", std::int64_t { 0 }));
        if (expected < 400)
            QCOMPARE(completed.value("outcome", std::string()), std::string("ok"));
        else
            QCOMPARE(completed.value("outcome", std::string()), reply.data().value("error", std::string()));
    }

    // A change's entries name what it acted on once done, and a forbidden call is counted in /metrics.
    void auditNamesTheTargetAndForbiddenCallsAreCounted()
    {
        newAudit();
        const Reply submitted = call(
            "operator", http::verb::post, "/v1/workloads", R"({"name":"audited","cpuMillis":100,"memoryMiB":64})");
        QCOMPARE(submitted.status, 201);
        const std::int64_t id = submitted.data().value("id", std::int64_t { 0 });
        json entries = newAudit();
        QCOMPARE(entries.size(), std::size_t { 2 });
        QCOMPARE(entries[0].value("target", std::string()), std::string("/v1/workloads"));
        QCOMPARE(entries[1].value("target", std::string()), "workload " + std::to_string(id));
        QVERIFY(entries[0].value("id", 0) < entries[1].value("id", 0));
        // A move's completed entry names the workload and says where it was asked to go and why it did not.
        const Reply move = call(
            "operator", http::verb::post, "/v1/workloads/" + std::to_string(id) + "/move", R"({"pool":"shared"})");
        QCOMPARE(move.status, 409);
        QCOMPARE(move.data().value("refusal", std::string()), std::string("no_feasible_node"));
        entries = newAudit();
        QCOMPARE(entries.size(), std::size_t { 2 });
        QCOMPARE(entries[0].value("target", std::string()), "/v1/workloads/" + std::to_string(id) + "/move");
        QCOMPARE(entries[1].value("target", std::string()), "workload " + std::to_string(id));
        QCOMPARE(entries[1]["detail"].value("pool", std::string()), std::string("shared"));
        QCOMPARE(entries[1]["detail"].value("refusal", std::string()), std::string("no_feasible_node"));
        QCOMPARE(entries[1].value("actor", std::string()), std::string("token:otto"));

        // A pool's creation names the pool and its settings; a change says what changed, from what to what.
        QCOMPARE(
            call("admin", http::verb::post, "/v1/pools", R"({"name":"audited-pool","cpuMillis":4000})").status, 201);
        entries = newAudit();
        QCOMPARE(entries.size(), std::size_t { 2 });
        QCOMPARE(entries[1].value("target", std::string()), std::string("pool audited-pool"));
        QCOMPARE(entries[1]["detail"]["settings"].value("cpuMillis", 0), 4000);
        QCOMPARE(call("admin", http::verb::put, "/v1/pools/audited-pool", R"({"cpuMillis":6000,"tier":"cold"})").status,
            200);
        entries = newAudit();
        QCOMPARE(entries.size(), std::size_t { 2 });
        QCOMPARE(entries[1].value("target", std::string()), std::string("pool audited-pool"));
        QCOMPARE(entries[1]["detail"]["changed"],
            (json { { "cpuMillis", { { "from", 4000 }, { "to", 6000 } } },
                { "tier", { { "from", nullptr }, { "to", "cold" } } } }));

        const double before = harness::metric(m_apiPort, "tidepool_api_forbidden_total");
        QVERIFY(before >= 0);
        const Reply forbidden = call("viewer", http::verb::delete_, "/v1/workloads/" + std::to_string(id));
        QCOMPARE(forbidden.status, 403);
        QCOMPARE(harness::metric(m_apiPort, "tidepool_api_forbidden_total"), before + 1);
        QVERIFY2(forbidden.data()
                     .value("error", std::string())
                     .find("needs the operator role; token \"vera\" has the viewer role")
                != std::string::npos,
            forbidden.body.c_str());
        entries = newAudit();
        QCOMPARE(entries.size(), std::size_t { 2 });
        QVERIFY2(entries[1].value("outcome", std::string()).rfind("forbidden: DELETE /v1/workloads/", 0) == 0,
            entries.dump().c_str());
        // The workload was not touched.
        QCOMPARE(
            call("viewer", http::verb::get, "/v1/workloads/" + std::to_string(id)).data().value("phase", std::string()),
            std::string("pending"));
    }

    // A missing, unknown or malformed token is a 401 as before (not a 403: nobody is known), and is not audited.
    void unknownTokensAre401AndNotAudited()
    {
        newAudit();
        const double before = harness::metric(m_apiPort, "tidepool_api_unauthorised_total");
        const std::string lookalike = "tp_" + std::string(64, 'a');
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/pools", lookalike, R"({"name":"x"})").status, 401);
        QCOMPARE(request(m_apiPort, http::verb::get, "/v1/summary", {}).status, 401);
        // A line of the token file is not a token.
        const QByteArray line = readFile(path(QStringLiteral("tokens"))).split('\n').front();
        QCOMPARE(request(m_apiPort, http::verb::get, "/v1/summary", line.toStdString()).status, 401);
        // A token with one character changed.
        std::string close = m_token.at("admin");
        close.back() = close.back() == '0' ? '1' : '0';
        QCOMPARE(request(m_apiPort, http::verb::get, "/v1/summary", close).status, 401);
        QCOMPARE(harness::metric(m_apiPort, "tidepool_api_unauthorised_total"), before + 4);
        QVERIFY(newAudit().empty());
        // Probes and scrapes need no token.
        QCOMPARE(request(m_apiPort, http::verb::get, "/healthz", {}).status, 200);
        QCOMPARE(request(m_apiPort, http::verb::get, "/metrics", {}).status, 200);
    }

    void damagedTokenFilesAreRefusedNamingTheLine_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        const QByteArray good = "ada:admin:sha256:00112233445566778899aabbccddeeff:"
                                "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n";
        QTest::newRow("fields") << QByteArray("# tokens\n\n" + good + "bob:operator:s3cret-token-that-leaks\n")
                                << QStringLiteral("line 4: has 3 ':'-separated fields, expected 5");
        QTest::newRow("role") << QByteArray(good + "bob:root:sha256:00112233445566778899aabbccddeeff:" + good.mid(50))
                              << QStringLiteral("line 2: the role must be viewer, operator or admin");
        QTest::newRow("scheme") << QByteArray(good).replace("sha256", "md5")
                                << QStringLiteral("line 1: the hash scheme must be sha256");
        QTest::newRow("salt") << QByteArray(good).replace("00112233445566778899aabbccddeeff:", "0011:")
                              << QStringLiteral("line 1: the salt must be 32 lower-case hex digits");
        QTest::newRow("hash") << QByteArray(good.left(50) + "XYZW" + good.mid(54))
                              << QStringLiteral("line 1: the hash must be 64 lower-case hex digits");
        QTest::newRow("name") << QByteArray("bad name" + good.mid(3))
                              << QStringLiteral("line 1: the name must be 1 to 64 letters");
        QTest::newRow("duplicate") << QByteArray(good + good)
                                   << QStringLiteral("line 2: the name \"ada\" is already used above");
        QTest::newRow("plaintext then more")
            << QByteArray("plaintext-token-0123456789\n" + good) << QStringLiteral("line 2: a plaintext token file");
        QTest::newRow("short plaintext") << QByteArray("short\n")
                                         << QStringLiteral("line 1: a plaintext token is shorter");
        QTest::newRow("empty") << QByteArray("# nothing\n") << QStringLiteral("holds no token");
    }

    // The daemon refuses to start on a damaged token file, naming the file and the line and never echoing a line.
    void damagedTokenFilesAreRefusedNamingTheLine()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        const QString file = path(QStringLiteral("damaged.tokens"));
        writeFile(file, content);
        const Run run = runTool(QStringLiteral("tidepoold"),
            { QStringLiteral("--join-token-file"), path(QStringLiteral("join.token")),
                QStringLiteral("--operator-token-file"), file, QStringLiteral("--check-config") });
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("operator token file ") + file), qPrintable(run.err));
        QVERIFY2(run.err.contains(expected), qPrintable(run.err));
        QVERIFY2(!run.err.contains(QStringLiteral("s3cret")), qPrintable(run.err));
    }

    // `token add` refuses what would make the file ambiguous or wrong, and changes nothing then.
    void tokenAddRefusesBadRequests()
    {
        const QString file = path(QStringLiteral("tokens"));
        const QByteArray before = readFile(file);
        Run run = addToken(file, QStringLiteral("otto"), QStringLiteral("viewer"));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("already has a token named \"otto\"")), qPrintable(run.err));
        QVERIFY(run.out.isEmpty());
        run = addToken(file, QStringLiteral("eve"), QStringLiteral("root"));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("must be viewer, operator or admin")), qPrintable(run.err));
        run = addToken(file, QStringLiteral("eve:admin"), QStringLiteral("admin"));
        QCOMPARE(run.exitCode, 2);
        run = runTool(QStringLiteral("tidepoold"),
            { QStringLiteral("token"), QStringLiteral("add"), QStringLiteral("--token-file"), file,
                QStringLiteral("--name"), QStringLiteral("eve") });
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("--role is required")), qPrintable(run.err));
        QCOMPARE(readFile(file), before);
        // Adding to a plaintext file (the format before roles) asks for its migration first.
        const QString legacy = path(QStringLiteral("legacy-add.token"));
        writeFile(legacy, "plaintext-token-0123456789abcdef\n");
        run = addToken(legacy, QStringLiteral("eve"), QStringLiteral("viewer"));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("tidepoold token migrate")), qPrintable(run.err));
        QCOMPARE(readFile(legacy), QByteArray("plaintext-token-0123456789abcdef\n"));
    }

    // The plaintext token file from before roles still starts the daemon, as an admin token, with a warning; `token
    // migrate` turns it into a hashed line for the same token, so clients keep their files; `token remove` revokes.
    void plaintextTokenFileWorksAndMigrates()
    {
        const QString file = path(QStringLiteral("legacy.token"));
        const std::string legacy = "plaintext-token-0123456789abcdef";
        writeFile(file, QByteArray::fromStdString(legacy + "\n"));
        QProcess daemon;
        std::uint16_t port = 0;
        QString log;
        QVERIFY2(startDaemon(daemon, file, path(QStringLiteral("legacy.db")), port, log), qPrintable(log));
        QVERIFY2(log.contains(QStringLiteral("holds a plaintext token")), qPrintable(log));
        QVERIFY(!log.contains(QString::fromStdString(legacy)));
        QCOMPARE(request(port, http::verb::post, "/v1/pools", legacy, R"({"name":"before"})").status, 201);
        stopDaemon(daemon);

        Run run = runTool(QStringLiteral("tidepoold"),
            { QStringLiteral("token"), QStringLiteral("migrate"), QStringLiteral("--token-file"), file,
                QStringLiteral("--name"), QStringLiteral("root") });
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY(!readFile(file).contains(QByteArray::fromStdString(legacy)));
        struct stat st { };
        QCOMPARE(::stat(file.toLocal8Bit().constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);
        run = addToken(file, QStringLiteral("temp"), QStringLiteral("operator"));
        QCOMPARE(run.exitCode, 0);
        const std::string temp = run.out.trimmed().toStdString();

        QVERIFY2(startDaemon(daemon, file, path(QStringLiteral("legacy.db")), port, log), qPrintable(log));
        QVERIFY2(!log.contains(QStringLiteral("plaintext")), qPrintable(log));
        QCOMPARE(request(port, http::verb::put, "/v1/pools/before", legacy, R"({"cpuMillis":500})").status, 200);
        QCOMPARE(request(port, http::verb::post, "/v1/workloads", temp, R"({"name":"t","cpuMillis":1,"memoryMiB":1})")
                     .status,
            201);
        const json audit = request(port, http::verb::get, "/v1/audit", legacy).data();
        bool migratedActor = false;
        for (const json& e : audit.value("entries", json::array()))
            migratedActor
                |= e.value("actor", std::string()) == "token:root" && e.value("role", std::string()) == "admin";
        QVERIFY2(migratedActor, audit.dump().c_str());

        // SIGHUP reads the file again: a removed token is refused and an added one accepted, without a restart.
        run = runTool(QStringLiteral("tidepoold"),
            { QStringLiteral("token"), QStringLiteral("remove"), QStringLiteral("--token-file"), file,
                QStringLiteral("--name"), QStringLiteral("temp") });
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        run = addToken(file, QStringLiteral("late"), QStringLiteral("viewer"));
        QCOMPARE(run.exitCode, 0);
        const std::string late = run.out.trimmed().toStdString();
        QCOMPARE(request(port, http::verb::get, "/v1/summary", late).status, 401);
        QCOMPARE(::kill(static_cast<pid_t>(daemon.processId()), SIGHUP), 0);
        QVERIFY(
            harness::waitFor([&] { return request(port, http::verb::get, "/v1/summary", late).status == 200; }, 5000));
        QCOMPARE(request(port, http::verb::get, "/v1/summary", temp).status, 401);
        QCOMPARE(request(port, http::verb::get, "/v1/summary", legacy).status, 200);
        // A damaged file on SIGHUP changes nothing: the tokens in use stay, and the log says why.
        const QByteArray kept = readFile(file);
        writeFile(file, kept + "broken line\n");
        QCOMPARE(::kill(static_cast<pid_t>(daemon.processId()), SIGHUP), 0);
        QVERIFY(harness::waitFor(
            [&] {
                daemon.waitForReadyRead(50);
                log += QString::fromUtf8(daemon.readAllStandardError());
                return log.contains(QStringLiteral("the operator tokens are unchanged"));
            },
            5000));
        QVERIFY2(log.contains(QStringLiteral("line ")), qPrintable(log));
        QCOMPARE(request(port, http::verb::get, "/v1/summary", late).status, 200);
        writeFile(file, kept);
        stopDaemon(daemon);

        // Plaintext tokens in the config file (the format before roles) are read too, with a warning.
        const QString config = path(QStringLiteral("legacy.json"));
        writeFile(config, R"({"operatorTokens": ["config-token-0123456789abcdef"]})");
        run = runTool(QStringLiteral("tidepoold"),
            { QStringLiteral("--config"), config, QStringLiteral("--join-token-file"),
                path(QStringLiteral("join.token")), QStringLiteral("--check-config") });
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("`operatorTokens` are plaintext")), qPrintable(run.err));
        QVERIFY(!run.err.contains(QStringLiteral("config-token")));
    }

    // tidepoolctl passes the daemon's refusal on with the role it needs and how to get a token with it.
    void ctlSaysWhichRoleACallNeeds()
    {
        const QString viewerFile = path(QStringLiteral("vera.token"));
        writeFile(viewerFile, QByteArray::fromStdString(m_token.at("viewer") + "\n"));
        const QStringList global { QStringLiteral("--server"), QStringLiteral("127.0.0.1:%1").arg(m_apiPort),
            QStringLiteral("--token-file"), viewerFile };
        Run run = runTool(QStringLiteral("tidepoolctl"), global + QStringList { QStringLiteral("pools") });
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        run = runTool(
            QStringLiteral("tidepoolctl"), global + QStringList { QStringLiteral("cancel"), QStringLiteral("1") });
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QStringLiteral("needs the operator role")), qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("tidepoold token add --role operator")), qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("HTTP 403")), qPrintable(run.err));
        QVERIFY(!run.err.contains(QString::fromStdString(m_token.at("viewer"))));
        // The daemon's hashed token file is not a token: said before anything is sent.
        run = runTool(QStringLiteral("tidepoolctl"),
            { QStringLiteral("--server"), QStringLiteral("127.0.0.1:%1").arg(m_apiPort), QStringLiteral("--token-file"),
                path(QStringLiteral("tokens")), QStringLiteral("summary") });
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("hashed token list")), qPrintable(run.err));
    }

    // SIGHUP reads the operator token file again: a token added with `token add` works only after it, one removed
    // with `token remove` stops working after it, and a damaged file is logged (naming the line) while the tokens in
    // use stay.
    void sighupReadsTheOperatorTokensAgain()
    {
        const QString file = path(QStringLiteral("tokens"));
        const QByteArray original = readFile(file);
        const auto hangUp = [&](const QString& expected) {
            const qsizetype seen = m_log.size();
            ::kill(static_cast<pid_t>(m_daemon.processId()), SIGHUP);
            return harness::waitFor(
                [&] {
                    m_daemon.waitForReadyRead(50);
                    m_log += QString::fromUtf8(m_daemon.readAllStandardError());
                    return m_log.indexOf(expected, seen) >= 0;
                },
                5000);
        };
        const Run added = addToken(file, QStringLiteral("sam"), QStringLiteral("viewer"));
        QVERIFY2(added.exitCode == 0, qPrintable(added.err));
        const std::string sam = added.out.trimmed().toStdString();
        QCOMPARE(request(m_apiPort, http::verb::get, "/v1/whoami", sam).status, 401);
        QVERIFY2(hangUp(QStringLiteral("SIGHUP: 4 operator tokens read from ") + file), qPrintable(m_log));
        const Reply whoami = request(m_apiPort, http::verb::get, "/v1/whoami", sam);
        QCOMPARE(whoami.status, 200);
        QCOMPARE(whoami.data().value("role", std::string()), std::string("viewer"));
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/pools", sam, R"({"name":"sams","cpuMillis":100})").status, 403);

        writeFile(file, original + "sam2:viewer:not-a-hash\n");
        QVERIFY2(hangUp(QStringLiteral("SIGHUP: the operator tokens are unchanged: ")), qPrintable(m_log));
        QVERIFY2(m_log.contains(QStringLiteral("line 4")), qPrintable(m_log));
        QCOMPARE(request(m_apiPort, http::verb::get, "/v1/whoami", sam).status, 200);
        QCOMPARE(call("admin", http::verb::get, "/v1/whoami").status, 200);

        writeFile(file, original);
        QVERIFY2(hangUp(QStringLiteral("SIGHUP: 3 operator tokens read from ") + file), qPrintable(m_log));
        QCOMPARE(request(m_apiPort, http::verb::get, "/v1/whoami", sam).status, 401);
        QCOMPARE(call("operator", http::verb::get, "/v1/whoami").status, 200);
        QCOMPARE(m_daemon.state(), QProcess::Running);
    }
};

QTEST_GUILESS_MAIN(TestAccess)
#include "tst_access.moc"
