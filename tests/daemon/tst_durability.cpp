// What tidepoold promises about its database, tested on the real daemon and real files: a change it acknowledged
// survives a kill -9 at any moment (many rounds, killed at random times while a client keeps changing things), the
// database passes `PRAGMA integrity_check` after every kill, and a database that cannot be written (a full disk,
// a write lock held by someone else) turns the daemon read-only with an alert: changes are refused with a 503
// naming the reason, reads go on, and it recovers by itself when the cause goes away. The kill -9 rounds run on a
// PostgreSQL database too (tests/core/store_backend.h; skipped without TIDEPOOL_TEST_POSTGRES, failed with CI=true).
#include "../core/store_backend.h"
#include "harness.h"

#include "core/api/http_api.h"
#include "core/store/store.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

namespace http = harness::http;
using harness::request;
using nlohmann::json;

namespace {

std::string integrityCheck(const std::string& path)
{
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
        return "cannot open";
    sqlite3_stmt* s = nullptr;
    std::string out = "no answer";
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    sqlite3_close(db);
    return out;
}

bool run(const QString& program, const QStringList& args)
{
    QProcess p;
    p.start(program, args);
    return p.waitForFinished(10'000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

// A database as a daemon would have left it after a week: pools web-0 … web-N-1 (4000 mCPU quota each) whose CPU
// demand swings daily up to 4500 mCPU with the peak 30 minutes from now, and a pool "batch" (a steady 2000 mCPU of
// its 1,000,000 quota) with slack to give, so
// that every evaluation proposes raising each web pool until it is raised.
void seedWeekOfHistory(const std::string& path, int webPools)
{
    auto opened = tidepool::store::openStore(path);
    QVERIFY(opened);
    tidepool::store::Store& s = **opened;
    constexpr std::int64_t kStep = tidepool::store::kAggregateBucketMs;
    const std::int64_t now = tidepool::api::unixMillis() / kStep * kStep;
    const double pi = std::acos(-1.0);
    std::vector<tidepool::store::Sample> samples;
    for (int i = 0; i < webPools; ++i) {
        const std::string name = "web-" + std::to_string(i);
        s.putPool({ name, "web", "", 4000, tidepool::kUnlimited, 100 });
        for (std::int64_t t = now - 7 * 86'400'000LL; t < now; t += kStep)
            samples.push_back({ { "pool", name, "cpu" }, t,
                3000 + 1500 * std::cos(2 * pi * static_cast<double>(t - now - 1'800'000) / 86'400'000.0) });
    }
    for (std::int64_t t = now - 7 * 86'400'000LL; t < now; t += kStep)
        samples.push_back({ { "pool", "batch", "cpu" }, t, 2000.0 });
    s.putPool({ "batch", "research", "", 1'000'000, tidepool::kUnlimited, 100 });
    s.addSamples(samples);
    QVERIFY(s.commit());
    QVERIFY(s.maintain(now, tidepool::store::Retention { 0, 0, 0, 0, 0 }));
}

} // namespace

class TestDurability : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<QProcess> m_daemon;
    std::uint16_t m_agentPort = 0;
    std::uint16_t m_apiPort = 0;
    std::string m_token = "operator-token-0123456789abcdef";
    QString m_log;
    QString m_mount; // a tmpfs this suite mounted, unmounted in cleanup

    QString path(const QString& name) const { return m_dir.filePath(name); }

    bool startDaemon(const QString& db)
    {
        m_daemon = std::make_unique<QProcess>();
        return harness::startDaemon(*m_daemon,
            { QStringLiteral("--agent-listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--api-listen"),
                QStringLiteral("127.0.0.1:0"), QStringLiteral("--db"), db, QStringLiteral("--join-token-file"),
                path(QStringLiteral("join.token")), QStringLiteral("--operator-token-file"),
                path(QStringLiteral("op.token")),
                // A rejected proposal comes back at the next evaluation: the loop decides what is pending again and
                // again.
                QStringLiteral("--rejection-hold-minutes"), QStringLiteral("0") },
            m_agentPort, m_apiPort, m_log);
    }

    void killDaemon()
    {
        if (!m_daemon)
            return;
        m_daemon->kill(); // SIGKILL: no flush, no goodbye
        m_daemon->waitForFinished(5000);
        m_daemon.reset();
    }

    harness::Reply submit(const std::string& name)
    {
        return request(m_apiPort, http::verb::post, "/v1/workloads", m_token,
            json { { "name", name }, { "cpuMillis", 100 }, { "memoryMiB", 64 }, { "command", { "/bin/true" } } }.dump());
    }

    json get(const std::string& target) { return request(m_apiPort, http::verb::get, target, m_token).data(); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        for (const auto& [file, content] : { std::pair { "join.token", std::string("join-token-0123456789abcdef") },
                 std::pair { "op.token", m_token } }) {
            QFile f(path(QString::fromLatin1(file)));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(content + "\n"));
        }
    }

    void cleanup()
    {
        killDaemon();
        if (!m_mount.isEmpty()) {
            run(QStringLiteral("umount"), { QStringLiteral("-l"), m_mount });
            m_mount.clear();
        }
    }

    // Many rounds of: restart on the same database, check that every change acknowledged so far is there, let a
    // client submit, cancel and create pools as fast as it can, and kill -9 the daemon at a random moment.
    void killNineLosesNoAcknowledgedChange()
    {
        const QString db = path(QStringLiteral("kill9.db"));
        seedWeekOfHistory(db.toStdString(), 12);
        killNineRounds(db, 25);
    }

    // The same on PostgreSQL (`--db postgresql://...`), in fewer rounds: what is tested is the daemon's promise (an
    // answer only once its change is committed), not PostgreSQL's own crash safety.
    void killNineLosesNoAcknowledgedChangeOnPostgres()
    {
        tidepool::testing::StoreBackend postgres(true);
        if (const std::string why = postgres.unavailable(); !why.empty()) {
            if (tidepool::testing::StoreBackend::mustRun())
                QFAIL(("CI=true: " + why).c_str());
            QSKIP(why.c_str());
        }
        QVERIFY(postgres.fresh());
        const QString db = QString::fromStdString(postgres.uri());
        seedWeekOfHistory(db.toStdString(), 12);
        killNineRounds(db, 8);
        killDaemon();
    }

private:
    void killNineRounds(const QString& db, const int kRounds)
    {
        const bool sqlite = !tidepool::store::isPostgresLocation(db.toStdString());
        std::set<std::int64_t> submitted, cancelled;
        std::set<std::string> pools;
        std::map<std::int64_t, std::string> decided; // proposal → the state its acknowledged decision left
        std::mt19937 random(20261203);
        std::size_t acknowledgedTotal = 0;
        for (int round = 0; round <= kRounds; ++round) {
            QVERIFY2(startDaemon(db), qPrintable(m_log));
            const json list = get("/v1/workloads?limit=1000000");
            QVERIFY(list.contains("workloads"));
            std::map<std::int64_t, std::string> phases;
            for (const json& w : list["workloads"])
                phases[w["id"].get<std::int64_t>()] = w["phase"].get<std::string>();
            for (const std::int64_t id : submitted) {
                QVERIFY2(phases.count(id), qPrintable(QStringLiteral("round %1: acknowledged workload %2 is gone").arg(round).arg(id)));
                if (cancelled.count(id))
                    QCOMPARE(phases[id], std::string("cancelled"));
            }
            std::set<std::string> present;
            const json poolList = get("/v1/pools"); // a named value: iterating a temporary's member would dangle
            for (const json& p : poolList["pools"])
                present.insert(p["name"].get<std::string>());
            for (const std::string& name : pools)
                QVERIFY2(present.count(name), qPrintable(QStringLiteral("round %1: acknowledged pool %2 is gone")
                                                      .arg(round)
                                                      .arg(QString::fromStdString(name))));
            for (const auto& [id, state] : decided) {
                const json proposal = get("/v1/proposals/" + std::to_string(id));
                QVERIFY2(proposal.value("state", "") == state,
                    qPrintable(QStringLiteral("round %1: proposal %2 was acknowledged %3, is %4")
                                   .arg(round)
                                   .arg(id)
                                   .arg(QString::fromStdString(state), QString::fromStdString(proposal.dump()))));
            }
            if (round == kRounds)
                break;

            // One approval per round for certain (the client below decides more, racing the kill): an evaluation
            // when nothing is pending, then the oldest pending proposal.
            json pending = get("/v1/proposals?state=pending");
            if (pending["proposals"].empty()) {
                QCOMPARE(request(m_apiPort, http::verb::post, "/v1/evaluate", m_token).status, 200);
                pending = get("/v1/proposals?state=pending");
            }
            if (!pending["proposals"].empty()) {
                const std::int64_t id = pending["proposals"].back()["id"];
                const auto approved = request(m_apiPort, http::verb::post, "/v1/proposals/" + std::to_string(id) + "/approve", m_token);
                QVERIFY2(approved.status == 200, approved.body.c_str());
                decided[id] = approved.data().value("state", "");
            }

            std::atomic<bool> stop { false };
            std::atomic<int> roundAcknowledged { 0 };
            std::mutex mutex;
            std::thread client([&, round] {
                std::mt19937 local(static_cast<unsigned>(round));
                for (int i = 0; !stop; ++i) {
                    if (i % 6 == 1) {
                        // An operator's decision on a pending proposal (a fresh evaluation when none is pending).
                        const json pending = get("/v1/proposals?state=pending");
                        if (!pending.contains("proposals") || pending["proposals"].empty()) {
                            request(m_apiPort, http::verb::post, "/v1/evaluate", m_token);
                            continue;
                        }
                        const std::int64_t id = pending["proposals"][local() % pending["proposals"].size()]["id"];
                        const bool approve = local() % 3 != 0;
                        const auto r = request(m_apiPort, http::verb::post,
                            "/v1/proposals/" + std::to_string(id) + (approve ? "/approve" : "/reject"), m_token);
                        if (r.status == 200) {
                            std::lock_guard lock(mutex);
                            decided[id] = r.data().value("state", "");
                        }
                        continue;
                    }
                    if (i % 7 == 3) {
                        const std::string name = "pool-" + std::to_string(round) + "-" + std::to_string(i);
                        const auto r = request(m_apiPort, http::verb::post, "/v1/pools", m_token,
                            json { { "name", name }, { "businessLine", "test" } }.dump());
                        if (r.status == 201) {
                            std::lock_guard lock(mutex);
                            pools.insert(name);
                        }
                        continue;
                    }
                    std::int64_t victim = 0;
                    {
                        std::lock_guard lock(mutex);
                        if (i % 5 == 4 && !submitted.empty())
                            victim = *std::next(submitted.begin(), static_cast<long>(local() % submitted.size()));
                    }
                    if (victim) {
                        const auto r = request(m_apiPort, http::verb::delete_, "/v1/workloads/" + std::to_string(victim), m_token);
                        if (r.status == 200) {
                            std::lock_guard lock(mutex);
                            cancelled.insert(victim);
                        }
                        continue;
                    }
                    const auto r = submit("w-" + std::to_string(round) + "-" + std::to_string(i));
                    if (r.status == 201) {
                        std::lock_guard lock(mutex);
                        submitted.insert(r.data()["id"].get<std::int64_t>());
                        ++acknowledgedTotal;
                        ++roundAcknowledged;
                    }
                }
            });
            // A few acknowledged submissions in every round, however slow the machine, then the kill at a random
            // moment of what follows.
            QVERIFY(harness::waitFor([&] { return roundAcknowledged >= 4; }, 20'000));
            std::this_thread::sleep_for(std::chrono::milliseconds(random() % 200));
            killDaemon();
            stop = true;
            client.join();
            if (sqlite)
                QCOMPARE(integrityCheck(db.toStdString()), std::string("ok"));
        }
        std::size_t approved = 0;
        for (const auto& [id, state] : decided)
            approved += state == "applied";
        qInfo("%zu workloads, %zu cancels, %zu pools and %zu proposal decisions (%zu approvals) acknowledged over %d "
              "kills; none lost",
            acknowledgedTotal, cancelled.size(), pools.size(), decided.size(), approved, kRounds);
        QVERIFY(acknowledgedTotal >= 4 * static_cast<std::size_t>(kRounds));
        QVERIFY(approved >= static_cast<std::size_t>(kRounds) * 2 / 5);
    }

private slots:

    // Every change is audited twice, as received before it acts and as completed with the outcome once durable, with
    // who (a plaintext token's fingerprint, never the token, and its role), from where and what; refused changes too;
    // reads are not.
    void auditRecordsWhoDidWhatFromWhere()
    {
        const QString db = path(QStringLiteral("audit.db"));
        QVERIFY2(startDaemon(db), qPrintable(m_log));
        QCOMPARE(submit("audited").status, 201);
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/pools", m_token, R"({"name": "bad name!"})").status, 400);
        QCOMPARE(request(m_apiPort, http::verb::get, "/v1/workloads", m_token).status, 200);
        const json audit = get("/v1/audit");
        QVERIFY2(audit.contains("entries") && audit["entries"].size() == 4, audit.dump().c_str());
        const json& received = audit["entries"][0];
        const json& first = audit["entries"][1];
        QCOMPARE(received["stage"].get<std::string>(), std::string("received"));
        QCOMPARE(received["target"].get<std::string>(), std::string("/v1/workloads"));
        QCOMPARE(received["outcome"].get<std::string>(), std::string());
        QCOMPARE(first["stage"].get<std::string>(), std::string("completed"));
        QCOMPARE(first["request"].get<std::string>(), received["request"].get<std::string>());
        QCOMPARE(first["actor"].get<std::string>(), "operator:" + tidepool::api::tokenFingerprint(m_token));
        // A plaintext token (the format before roles) may do everything it could before.
        QCOMPARE(first["role"].get<std::string>(), std::string("admin"));
        QVERIFY(first["source"].get<std::string>().rfind("127.0.0.1:", 0) == 0);
        QCOMPARE(first["action"].get<std::string>(), std::string("POST /v1/workloads"));
        QCOMPARE(first["target"].get<std::string>(), std::string("workload 1"));
        QCOMPARE(first["outcome"].get<std::string>(), std::string("ok"));
        QCOMPARE(first["detail"]["status"].get<int>(), 201);
        const json& refused = audit["entries"][3];
        QCOMPARE(audit["entries"][2]["stage"].get<std::string>(), std::string("received"));
        QCOMPARE(refused["request"].get<std::string>(), audit["entries"][2]["request"].get<std::string>());
        QVERIFY(refused["request"].get<std::string>() != first["request"].get<std::string>());
        QCOMPARE(refused["action"].get<std::string>(), std::string("POST /v1/pools"));
        QVERIFY2(refused["outcome"].get<std::string>().find("name") != std::string::npos, refused.dump().c_str());
        QCOMPARE(refused["detail"]["status"].get<int>(), 400);
        QVERIFY(audit.dump().find(m_token) == std::string::npos);
        // Paging and bad queries.
        QCOMPARE(get("/v1/audit?after=" + std::to_string(first["id"].get<std::int64_t>()))["entries"].size(), std::size_t { 2 });
        QCOMPARE(request(m_apiPort, http::verb::get, "/v1/audit?limit=0", m_token).status, 400);
        // As /v1/history answers them (they answered an empty page), and a scope no series has.
        for (const char* bad : { "/v1/audit?from=5&to=1", "/v1/audit?after=-5",
                 "/v1/history?from=5&to=1&scope=pool&name=p&resource=cpu", "/v1/history?scope=x&name=y&resource=z" }) {
            const harness::Reply r = request(m_apiPort, http::verb::get, bad, m_token);
            QCOMPARE(r.status, 400);
            QVERIFY2(r.body.find("query `") != std::string::npos, r.body.c_str());
        }
    }

    // Another process holds the database's write lock (an operator's sqlite3 shell, a backup tool): commits fail,
    // the daemon turns read-only and says why, reads go on, and it recovers when the lock is released.
    void lockedDatabaseTurnsReadOnlyAndRecovers()
    {
        const QString db = path(QStringLiteral("locked.db"));
        QVERIFY2(startDaemon(db), qPrintable(m_log));
        QCOMPARE(submit("before").status, 201);
        sqlite3* other = nullptr;
        QCOMPARE(sqlite3_open(db.toStdString().c_str(), &other), SQLITE_OK);
        QCOMPARE(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);

        // The change is made in memory, cannot be saved (after SQLite's 2 s busy wait), and is answered so.
        const auto unsaved = submit("during");
        QCOMPARE(unsaved.status, 503);
        QVERIFY2(unsaved.body.find("could not be saved") != std::string::npos, unsaved.body.c_str());
        QVERIFY2(unsaved.body.find("locked") != std::string::npos, unsaved.body.c_str());
        const auto refused = submit("refused");
        QCOMPARE(refused.status, 503);
        QVERIFY2(refused.body.find("read-only") != std::string::npos, refused.body.c_str());
        QCOMPARE(harness::metric(m_apiPort, "tidepool_store_read_only"), 1.0);
        QCOMPARE(request(m_apiPort, http::verb::get, "/v1/workloads", m_token).status, 200); // reads go on
        m_daemon->waitForReadyRead(100);
        m_log += QString::fromUtf8(m_daemon->readAllStandardError());
        QVERIFY2(m_log.contains(QStringLiteral("ALERT store")), qPrintable(m_log));

        sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
        sqlite3_close(other);
        QVERIFY(harness::waitFor([&] { return harness::metric(m_apiPort, "tidepool_store_read_only") == 0.0; }, 10'000));
        QCOMPARE(submit("after").status, 201);

        // Everything the daemon held, including the change it could not save at first, is in the database now.
        killDaemon();
        QVERIFY2(startDaemon(db), qPrintable(m_log));
        std::set<std::string> names;
        const json listed = get("/v1/workloads");
        for (const json& w : listed["workloads"])
            names.insert(w["name"].get<std::string>());
        QCOMPARE(names, (std::set<std::string> { "before", "during", "after" }));
        QCOMPARE(integrityCheck(db.toStdString()), std::string("ok"));
    }

    // A real full disk: the database on a 4 MiB tmpfs that a filler file then fills.
    void fullDiskTurnsReadOnlyAndRecovers()
    {
        if (geteuid() != 0)
            QSKIP("mounting a small tmpfs needs root");
        QVERIFY(QDir().mkpath(path(QStringLiteral("small"))));
        if (!run(QStringLiteral("mount"), { QStringLiteral("-t"), QStringLiteral("tmpfs"), QStringLiteral("-o"),
                QStringLiteral("size=4m"), QStringLiteral("tmpfs"), path(QStringLiteral("small")) }))
            QSKIP("mount -t tmpfs failed: this root cannot mount (an unprivileged container?)");
        m_mount = path(QStringLiteral("small"));
        const QString db = m_mount + QStringLiteral("/tidepool.db");
        QVERIFY2(startDaemon(db), qPrintable(m_log));
        std::set<std::string> acknowledged;
        QCOMPARE(submit("first").status, 201);
        acknowledged.insert("first");

        QFile filler(m_mount + QStringLiteral("/filler"));
        QVERIFY(filler.open(QIODevice::WriteOnly));
        const QByteArray chunk(64 * 1024, 'x');
        while (filler.write(chunk) == chunk.size() && filler.flush()) {
        }
        filler.close();

        // The WAL may still have room for a few commits; sooner or later one needs space and fails.
        harness::Reply reply;
        int attempt = 0;
        for (; attempt < 2000; ++attempt) {
            const std::string name = "fill-" + std::to_string(attempt) + std::string(200, 'n');
            reply = submit(name);
            if (reply.status != 201)
                break;
            acknowledged.insert(name);
        }
        QCOMPARE(reply.status, 503);
        QVERIFY2(reply.body.find("full") != std::string::npos, reply.body.c_str());
        const auto refused = submit("refused");
        QCOMPARE(refused.status, 503);
        QVERIFY2(refused.body.find("read-only") != std::string::npos, refused.body.c_str());
        QCOMPARE(harness::metric(m_apiPort, "tidepool_store_read_only"), 1.0);
        QVERIFY(get("/v1/summary").contains("workloads")); // reads go on

        QVERIFY(QFile::remove(m_mount + QStringLiteral("/filler")));
        QVERIFY(harness::waitFor([&] { return harness::metric(m_apiPort, "tidepool_store_read_only") == 0.0; }, 10'000));
        QCOMPARE(submit("after").status, 201);
        acknowledged.insert("after");

        killDaemon();
        QCOMPARE(integrityCheck(db.toStdString()), std::string("ok"));
        QVERIFY2(startDaemon(db), qPrintable(m_log));
        std::set<std::string> names;
        const json listed = get("/v1/workloads?limit=100000");
        for (const json& w : listed["workloads"])
            names.insert(w["name"].get<std::string>());
        for (const std::string& name : acknowledged)
            QVERIFY2(names.count(name), name.c_str());
        QVERIFY(!names.count("refused"));
    }

    // A second tidepoold on a database another one writes would load the same state and write over it (SQLite's own
    // locks last a transaction): it does not start, and names the database and the daemon that holds it; the first
    // goes on, and a daemon started once it has gone (killed: the kernel lets the lock go) takes the database over.
    void aSecondDaemonOnTheDatabaseIsRefused()
    {
        const QString db = path(QStringLiteral("shared.db"));
        QVERIFY2(startDaemon(db), qPrintable(m_log));
        QCOMPARE(submit("first").status, 201);
        QProcess second;
        QString log;
        std::uint16_t a = 0, b = 0;
        QVERIFY(!harness::startDaemon(second,
            { QStringLiteral("--agent-listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--api-listen"),
                QStringLiteral("127.0.0.1:0"), QStringLiteral("--db"), db, QStringLiteral("--join-token-file"),
                path(QStringLiteral("join.token")), QStringLiteral("--operator-token-file"),
                path(QStringLiteral("op.token")) },
            a, b, log));
        second.waitForFinished(5000);
        log += QString::fromUtf8(second.readAllStandardError());
        QVERIFY(second.exitCode() != 0);
        const QString holder
            = QStringLiteral("in use by another tidepoold or embedded core: tidepoold, pid %1, holds %2.lock")
                  .arg(m_daemon->processId())
                  .arg(db);
        QVERIFY2(log.contains(holder), qPrintable(log));
        QCOMPARE(submit("second").status, 201); // the first goes on

        killDaemon();
        QVERIFY2(startDaemon(db), qPrintable(m_log));
        QCOMPARE(get("/v1/workloads")["workloads"].size(), std::size_t { 2 });
    }

    // A database on a read-only file system cannot be opened for writing: the daemon does not start, and says which
    // database and why.
    void readOnlyDatabaseAtStartIsNamed()
    {
        if (geteuid() != 0)
            QSKIP("mounting a tmpfs read-only needs root");
        QVERIFY(QDir().mkpath(path(QStringLiteral("ro"))));
        if (!run(QStringLiteral("mount"), { QStringLiteral("-t"), QStringLiteral("tmpfs"), QStringLiteral("-o"),
                QStringLiteral("size=4m"), QStringLiteral("tmpfs"), path(QStringLiteral("ro")) }))
            QSKIP("mount -t tmpfs failed: this root cannot mount (an unprivileged container?)");
        m_mount = path(QStringLiteral("ro"));
        const QString db = m_mount + QStringLiteral("/tidepool.db");
        QVERIFY2(startDaemon(db), qPrintable(m_log));
        QCOMPARE(submit("kept").status, 201);
        m_daemon->terminate();
        QVERIFY(m_daemon->waitForFinished(5000));
        QVERIFY(run(QStringLiteral("mount"), { QStringLiteral("-o"), QStringLiteral("remount,ro"), m_mount }));
        QProcess daemon;
        QString log;
        std::uint16_t a = 0, b = 0;
        QVERIFY(!harness::startDaemon(daemon, { QStringLiteral("--agent-listen"), QStringLiteral("127.0.0.1:0"),
            QStringLiteral("--api-listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--db"), db,
            QStringLiteral("--join-token-file"), path(QStringLiteral("join.token")), QStringLiteral("--operator-token-file"),
            path(QStringLiteral("op.token")) }, a, b, log));
        daemon.waitForFinished(5000);
        log += QString::fromUtf8(daemon.readAllStandardError());
        QVERIFY(daemon.exitCode() != 0);
        QVERIFY2(log.contains(db) && log.contains(QStringLiteral("read-only")), qPrintable(log));
        QVERIFY(run(QStringLiteral("mount"), { QStringLiteral("-o"), QStringLiteral("remount,rw"), m_mount }));
        QVERIFY2(startDaemon(db), qPrintable(m_log));
        QCOMPARE(get("/v1/workloads")["workloads"].size(), std::size_t { 1 });
    }
};

QTEST_GUILESS_MAIN(TestDurability)
#include "tst_durability.moc"
