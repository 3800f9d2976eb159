// Persistence of the live system in a real database, SQLite or PostgreSQL (store_backend.h): the store's own round
// trip and failure behaviour (a commit that cannot get the database keeps its changes and a later one writes them
// all), refusing a database from a newer version, and a control plane restarted on the same database — placements
// bound again, pending work still pending, ids continuing, nodes given the restart grace before they are declared
// lost, and agents that return reconciled without anything starting twice. On PostgreSQL also: a connection the server
// killed is taken up again by the next commit, a second store on the same database is refused, a commit whose
// `COMMIT` went unanswered is settled by asking the server (its audit entries written once), and a server process
// that stops answering fails the commit within the store's answer timeout.
#include "core/api/control_plane.h"
#include "core/model/node.h"
#include "core/store/store.h"
#include "store_backend.h"

#include <QtTest>

#include <boost/asio/io_context.hpp>

#include <QElapsedTimer>
#include <QFile>

#include <csignal>
#include <memory>
#include <sys/types.h>

using namespace tidepool;
using namespace tidepool::api;

namespace {

template <typename E> std::string name(E value)
{
    return std::string(tidepool::api::toString(value));
}

protocol::Inventory inventory(std::vector<protocol::WorkloadStatus> workloads = {})
{
    protocol::Inventory inv;
    inv.isa = "x86_64";
    inv.cpuMillis = 4000;
    inv.memoryMiB = 8192;
    inv.devices.push_back(protocol::DeviceInfo { 0, "gpu", "T4", 16384, 1000 });
    inv.workloads = std::move(workloads);
    return inv;
}

SubmitRequest request(const std::string& workloadName, std::int64_t cpu)
{
    SubmitRequest r;
    r.name = workloadName;
    r.requests.cpuMillis = cpu;
    r.requests.memoryMiB = 256;
    r.argv = { "/bin/sleep", "600" };
    r.env = { "MODE=test" };
    return r;
}

// PostgreSQL: runs `sql` on `conn` (several statements may be separated by semicolons) and returns the last result's
// first value ("" when it has no rows), or nullopt after a warning naming the failure.
std::optional<std::string> run(PGconn* conn, const std::string& sql)
{
    PGresult* r = PQexec(conn, sql.c_str());
    const ExecStatusType status = PQresultStatus(r);
    std::optional<std::string> value;
    if (status == PGRES_TUPLES_OK)
        value = PQntuples(r) > 0 ? std::string(PQgetvalue(r, 0, 0)) : std::string();
    else if (status == PGRES_COMMAND_OK)
        value = std::string();
    else
        qWarning("%s: %s", sql.c_str(), PQerrorMessage(conn));
    PQclear(r);
    return value;
}

std::shared_ptr<PGconn> connectTo(const std::string& conninfo)
{
    return std::shared_ptr<PGconn>(PQconnectdb(conninfo.c_str()), PQfinish);
}

// A deferred trigger on the audit log that makes the store's `COMMIT` wait, inside the server, for the advisory lock
// `kGateLock` while the table `tidepool_test_gate` has a row: the test holds the lock, so the store's commit gets no
// answer until the test lets it go on (the server then commits) or the session is ended (it rolls back).
constexpr const char* kGateLock = "4242";
const char* const kGateSql
    = "CREATE TABLE tidepool_test_gate (closed BOOLEAN); "
      "INSERT INTO tidepool_test_gate VALUES (true); "
      "CREATE FUNCTION tidepool_test_wait() RETURNS trigger LANGUAGE plpgsql SET lock_timeout = 0 "
      "AS $$ BEGIN IF EXISTS (SELECT 1 FROM tidepool_test_gate) THEN "
      "PERFORM pg_advisory_xact_lock(4242); END IF; RETURN NULL; END $$; "
      "CREATE CONSTRAINT TRIGGER tidepool_test_wait AFTER INSERT ON audit "
      "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION tidepool_test_wait()";

store::AuditEntry auditEntry(const std::string& action)
{
    return store::AuditEntry { 0, 5, "tidepoold", "", action, "pool batch", "ok", {}, "", "completed", "" };
}

} // namespace

class TestStore : public QObject {
    Q_OBJECT

private:
    testing::StoreBackend m_backend;
    // Each test's own (`init`): what an earlier test's planes posted and never ran goes with that test's.
    std::unique_ptr<boost::asio::io_context> m_io;
    std::vector<std::pair<std::string, protocol::Message>> m_sent;

    std::unique_ptr<store::Store> open()
    {
        auto opened = m_backend.open();
        if (!opened)
            qFatal("%s", opened.error().message.c_str());
        return std::move(*opened);
    }

    std::unique_ptr<ControlPlane> plane(store::Store& store, std::chrono::milliseconds grace)
    {
        ControlPlaneConfig config;
        config.suspectAfter = std::chrono::milliseconds(1000);
        config.lostAfter = std::chrono::milliseconds(3000);
        config.restartGrace = grace;
        config.restartBackoff = std::chrono::minutes(10); // due only when a test says so (`releaseRestarts`)
        AgentLink link { [this](const std::string& s, const protocol::Message& m) {
                            m_sent.emplace_back(s, m);
                            return true;
                        },
            [](const std::string&, const std::string&) { return true; } };
        auto created = ControlPlane::create(*m_io, config, link, {}, &store);
        if (!created)
            qFatal("%s", created.error().message.c_str());
        return std::move(*created);
    }

    // A plane on `store` with pool batch (3000 millicores) and node n1 joined (session s1).
    std::unique_ptr<ControlPlane> planeWithBatchAndN1(store::Store& store)
    {
        auto first = plane(store, std::chrono::milliseconds(60'000));
        PoolRequest pool;
        pool.name = "batch";
        pool.cpuMillis = 3000;
        if (!first->createPool(pool))
            qFatal("cannot create pool batch");
        first->onJoined("s1", "127.0.0.1:1", protocol::Hello { "n1", "t", std::nullopt });
        first->onInventory("s1", inventory());
        return first;
    }

    std::size_t launchesTo(const std::string& session)
    {
        return static_cast<std::size_t>(std::count_if(m_sent.begin(), m_sent.end(),
            [&](const auto& s) { return s.first == session && std::holds_alternative<protocol::Launch>(s.second); }));
    }

    // Opens the store with a 1-second answer timeout, holds the gate that makes its `COMMIT` wait in the server, and
    // commits `pool` with an audit entry: the commit fails in time for want of an answer, naming the server, and
    // keeps both changes pending.
    void commitUnanswered(
        const store::StoredPool& pool, std::unique_ptr<store::Store>& opened, std::shared_ptr<PGconn>& gate)
    {
        store::PostgresOptions options;
        options.answerTimeout = std::chrono::milliseconds(1000);
        auto created = m_backend.open(options);
        QVERIFY2(created, created ? "" : created.error().message.c_str());
        opened = std::move(*created);
        QVERIFY(m_backend.execute(kGateSql));
        gate = connectTo(m_backend.location());
        QVERIFY(run(gate.get(), std::string("SELECT pg_advisory_lock(") + kGateLock + ")"));

        opened->putPool(pool);
        opened->addAudit(auditEntry("pool.create"));
        QElapsedTimer timer;
        timer.start();
        const auto unanswered = opened->commit();
        QVERIFY(!unanswered);
        QVERIFY2(timer.elapsed() < 5000, std::to_string(timer.elapsed()).c_str());
        QVERIFY2(
            unanswered.error().message.find("cannot commit: the server did not answer within 1 s") != std::string::npos,
            unanswered.error().message.c_str());
        QVERIFY(unanswered.error().message.find(m_backend.errorName()) != std::string::npos);
        QCOMPARE(opened->pending(), std::size_t { 2 });
    }

private slots:
    void initTestCase()
    {
        if (const std::string why = m_backend.unavailable(); !why.empty()) {
            if (testing::StoreBackend::mustRun())
                QFAIL(("CI=true: " + why).c_str());
            QSKIP(why.c_str());
        }
    }

    void init()
    {
        QVERIFY(m_backend.fresh());
        m_sent.clear();
        m_io = std::make_unique<boost::asio::io_context>();
    }

    void cleanup() { m_backend.drop(); }

    void storeRoundTripsAndKeepsWhatItCouldNotWrite()
    {
        auto opened = m_backend.open();
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        store::Store& s = **opened;
        // Every quota a value of its own, so that a column read into the wrong field shows.
        const store::StoredPool pool { "batch", "research", "cold", 2000, 4096, 50, 7000, 900, 3000, 0, kUnlimited };
        const store::StoredNode node { "n1", "aarch64", "cold", 64000, 262144,
            nlohmann::json::array(
                { { { "kind", "npu" }, { "model", "Ascend" }, { "memoryMiB", 1 }, { "shareCapacity", 32 } } }),
            "Neoverse-N1", 1234, "powered down by proposal 3" };
        store::StoredWorkload w;
        w.id = 7;
        w.spec = { { "name", "w" }, { "cpuMillis", 1 }, { "memoryMiB", 1 } };
        w.phase = "running";
        w.node = "n1";
        w.detail = "détail with ünïcode";
        w.restarts = 5; // each a value of its own
        w.crashLoop = 2;
        w.restartAtMs = 1'700'000'000'123;
        w.previousNode = "n0";
        w.previousIncarnation = 4;
        w.measuredSinceMs = 1'700'000'000'456;
        w.peakCpuMillis = 1250;
        w.peakMemoryMiB = 3072;
        s.putPool(pool);
        s.putNode(node);
        s.putWorkload(w);

        // Another connection holds the write lock: the commit fails, names the database, and keeps everything.
        auto lock = m_backend.holdWriteLock();
        QVERIFY(lock);
        const auto blocked = s.commit();
        QVERIFY(!blocked);
        QVERIFY2(
            blocked.error().message.find(m_backend.errorName()) != std::string::npos, blocked.error().message.c_str());
        QCOMPARE(s.pending(), std::size_t { 3 });
        lock.reset();
        QVERIFY(s.commit());
        QCOMPARE(s.pending(), std::size_t { 0 });

        opened->reset(); // PostgreSQL: one store writes a database at a time
        auto reopened = m_backend.open();
        QVERIFY(reopened);
        const auto snapshot = (*reopened)->load();
        QVERIFY(snapshot);
        QCOMPARE(snapshot->pools, std::vector<store::StoredPool> { pool });
        QCOMPARE(snapshot->nodes, std::vector<store::StoredNode> { node });
        QCOMPARE(snapshot->workloads, std::vector<store::StoredWorkload> { w });
        (*reopened)->removeWorkload(7);
        QVERIFY((*reopened)->commit());
        QVERIFY((*reopened)->load()->workloads.empty());
    }

    // A deleted pool is gone from the database and kept among the deleted ones, as it was; a deletion that could not
    // be written waits for the next commit; a pool deleted and made again under its name before a commit is stored as
    // the new one; deleted pools are pruned with the 5-minute aggregates.
    void aDeletedPoolIsGoneAndItsNameCanBeUsedAgain()
    {
        auto opened = m_backend.open();
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        store::Store& s = **opened;
        const store::StoredPool batch { "batch", "research", "cold", 2000, 4096, 50, 7000, 900, 3000, 0, kUnlimited };
        const store::StoredPool web { "web", "shop", "warm", 1000, 512, 100, kUnlimited, kUnlimited, kUnlimited,
            kUnlimited, kUnlimited };
        s.putPool(batch);
        s.putPool(web);
        QVERIFY(s.commit());

        constexpr std::int64_t kDay = 86'400'000;
        const std::int64_t t0 = 1'700'000'000'000;
        const store::DeletedPool batchDeleted { "batch", "research", "cold", { "n1", "n2" }, t0 };
        s.removePool(batchDeleted);
        auto lock = m_backend.holdWriteLock();
        QVERIFY(lock);
        QVERIFY(!s.commit());
        QCOMPARE(s.pending(), std::size_t { 2 }); // the row to delete and the deleted pool to keep
        lock.reset();
        QVERIFY(s.commit());
        QCOMPARE(s.load()->pools, std::vector<store::StoredPool> { web });
        QCOMPARE(s.load()->deletedPools, std::vector<store::DeletedPool> { batchDeleted });

        store::StoredPool webAgain = web;
        webAgain.cpuMillis = 250;
        webAgain.businessLine = "ads";
        const store::DeletedPool webDeleted { "web", "shop", "warm", {}, t0 + 30 * kDay };
        s.removePool(webDeleted);
        s.putPool(webAgain);
        QVERIFY(s.commit());
        opened->reset(); // PostgreSQL: one store writes a database at a time
        auto reopened = m_backend.open();
        QVERIFY(reopened);
        QCOMPARE((*reopened)->load()->pools, std::vector<store::StoredPool> { webAgain });
        QCOMPARE((*reopened)->load()->deletedPools, (std::vector<store::DeletedPool> { batchDeleted, webDeleted }));

        store::Retention retention;
        retention.aggregateMs = 60 * kDay;
        QVERIFY((*reopened)->maintain(t0 + 61 * kDay, retention));
        QCOMPARE((*reopened)->load()->deletedPools, std::vector<store::DeletedPool> { webDeleted });
    }

    // After a restart, a deleted pool is still deleted, the workloads that ended in it are restored naming it (they
    // do not stop the core from starting), and its name can be given to a new pool.
    void aDeletedPoolStaysDeletedAcrossARestart()
    {
        WorkloadId ended = 0;
        {
            auto opened = open();
            auto first = planeWithBatchAndN1(*opened);
            SubmitRequest r = request("ended", 500);
            r.pool = "batch";
            ended = *first->submit(r);
            first->onWorkloadUpdate("s1", protocol::WorkloadStatus { ended, "exited", 1, 0, {} });
            QVERIFY(first->deletePool("batch"));
            QCOMPARE(first->deletedPools().size(), std::size_t { 1 });
            first->stop();
        }
        auto opened = open();
        auto second = plane(*opened, std::chrono::milliseconds(60'000));
        QVERIFY(!second->poolByName("batch"));
        // Kept as it was when deleted, for reports over the days it lived.
        QCOMPARE(second->deletedPools().size(), std::size_t { 1 });
        const store::DeletedPool& kept = second->deletedPools()[0];
        QCOMPARE(kept.name, std::string("batch"));
        QVERIFY(kept.nodes.empty()); // it was on every node (n1)
        QVERIFY(kept.deletedMs > 0 && kept.deletedMs <= second->nowMs());
        const LiveWorkload* w = second->workload(ended);
        QVERIFY(w);
        QCOMPARE(name(w->phase), name(WorkloadPhase::Succeeded));
        QCOMPARE(w->poolName, std::string("batch"));
        QVERIFY(second->cluster().pool(w->workload.pool).removed);
        PoolRequest again;
        again.name = "batch";
        again.cpuMillis = 1000;
        const auto made = second->createPool(again);
        QVERIFY(made);
        QCOMPARE(second->cluster().pool(*made).quota.cpuMillis, std::int64_t { 1000 });
        // Work that ends in the new pool belongs to it; after the next restart, the record that ended before the
        // deletion still belongs to the deleted one, though a pool has its name again.
        second->onJoined("s1", "127.0.0.1:1", protocol::Hello { "n1", "t", std::nullopt });
        second->onInventory("s1", inventory());
        SubmitRequest r = request("ended-again", 500);
        r.pool = "batch";
        const WorkloadId endedAgain = *second->submit(r);
        second->onWorkloadUpdate("s1", protocol::WorkloadStatus { endedAgain, "exited", 1, 0, {} });
        QCOMPARE(name(second->workload(endedAgain)->phase), name(WorkloadPhase::Succeeded));
        second->stop();
        second.reset();
        opened.reset();
        auto reopened = open();
        auto third = plane(*reopened, std::chrono::milliseconds(60'000));
        const PoolId live = *third->poolByName("batch");
        QCOMPARE(third->workload(endedAgain)->workload.pool, live);
        const PoolId old = third->workload(ended)->workload.pool;
        QVERIFY(old != live);
        QVERIFY(third->cluster().pool(old).removed);
        QCOMPARE(third->workload(ended)->poolName, std::string("batch"));
        third->stop();
    }

    void newerSchemaIsRefused()
    {
        {
            auto opened = m_backend.open();
            QVERIFY(opened);
        }
        QVERIFY(m_backend.setSchemaVersion(99));
        const auto refused = m_backend.open();
        QVERIFY(!refused);
        QVERIFY(refused.error().message.find("99") != std::string::npos);
        QVERIFY(refused.error().message.find(m_backend.errorName()) != std::string::npos);
    }

    // The server ends the store's session (a restart, a failover, `pg_terminate_backend`): the commit that meets the
    // dead connection fails and keeps its changes, the next one connects again and writes them all, and reads connect
    // again by themselves. The writer's lock comes back with the connection.
    void postgresReconnectsAfterTheServerDroppedTheConnection()
    {
        if (!m_backend.postgres())
            QSKIP("PostgreSQL only: an SQLite file has no connection to lose");
        auto s = open();
        s->putPool(store::StoredPool { "before", "research", "", 1000, 1024, 100 });
        QVERIFY(s->commit());
        QCOMPARE(m_backend.killConnections(), 1);

        const store::StoredPool pool { "batch", "research", "cold", 2000, 4096, 50 };
        store::StoredWorkload w;
        w.id = 9;
        w.spec = { { "name", "w" } };
        w.phase = "pending";
        w.devices = nlohmann::json::array({ { { "device", 0 }, { "share", 250 }, { "memoryMiB", 512 } } });
        s->putPool(pool);
        s->putWorkload(w);
        s->addSamples(
            { { { "pool", "batch", "cpu" }, 60'000, 1500.0 }, { { "pool", "batch", "cpu" }, 120'000, 2500.0 } });
        s->addAudit(store::AuditEntry {
            0, 5, "tidepoold", "", "workload.submit", "workload 9", "ok", {}, "", "completed", "" });
        const auto lost = s->commit();
        QVERIFY(!lost);
        QVERIFY2(lost.error().message.find(m_backend.errorName()) != std::string::npos, lost.error().message.c_str());
        QCOMPARE(s->pending(), std::size_t { 5 });
        const auto again = s->commit();
        QVERIFY2(again, again ? "" : again.error().message.c_str());
        QCOMPARE(s->pending(), std::size_t { 0 });
        QVERIFY(!m_backend.open()); // the new session holds the writer's lock again

        QCOMPARE(m_backend.killConnections(), 1);
        const auto snapshot = s->load();
        QVERIFY2(snapshot, snapshot ? "" : snapshot.error().message.c_str());
        QCOMPARE(snapshot->pools.size(), std::size_t { 2 });
        QCOMPARE(snapshot->pools[1], pool);
        QCOMPARE(snapshot->workloads, std::vector<store::StoredWorkload> { w });
        const auto points = s->history({ "pool", "batch", "cpu" }, 0, 1'000'000, store::Resolution::Raw);
        QVERIFY(points);
        QCOMPARE(points->size(), std::size_t { 2 });
        QCOMPARE(points->back().mean, 2500.0);
        QCOMPARE(s->audit({})->size(), std::size_t { 1 });
    }

    // One tidepoold writes a database: a second store on it is refused, naming it, until the first has gone. SQLite's
    // own locks last a transaction: two stores on one file would each load the same state and write over each other.
    void aSecondWriterIsRefused()
    {
        auto first = open();
        first->putPool({ "first", "", "", 1000, 1024, 100 });
        QVERIFY(first->commit());
        const auto second = m_backend.open();
        QVERIFY(!second);
        QVERIFY2(second.error().message.find("in use by another tidepoold") != std::string::npos,
            second.error().message.c_str());
        QVERIFY(second.error().message.find(m_backend.errorName()) != std::string::npos);
        if (!m_backend.postgres()) { // the holder named from the pid it left in the lock file
            const std::string holder = "tst_store, pid " + std::to_string(::getpid());
            QVERIFY2(second.error().message.find(holder) != std::string::npos, second.error().message.c_str());
            QVERIFY(!store::openSqliteStore(m_backend.location(), true)); // nor does a fresh start remove its files
        }
        first.reset();
        const auto third = m_backend.open();
        QVERIFY2(third, third ? "" : third.error().message.c_str());
        const auto kept = (*third)->load();
        QVERIFY(kept && kept->pools.size() == 1 && kept->pools[0].name == "first"); // nothing removed, nothing lost
    }

    // The server committed, but the store never heard: its `COMMIT` waits in the server (a deferred trigger) past the
    // store's answer timeout, the store closes the connection, and the server then finishes the commit. The next
    // commit asks the server about the old transaction (`txid_status`) and writes only what came since: the audit
    // entry is in the log once, not twice.
    void postgresUnansweredCommitThatWasWrittenIsNotWrittenAgain()
    {
        if (!m_backend.postgres())
            QSKIP("PostgreSQL only: SQLite's commit has no connection to lose");
        std::unique_ptr<store::Store> opened;
        std::shared_ptr<PGconn> gate;
        const store::StoredPool pool { "batch", "research", "cold", 2000, 4096, 50 };
        commitUnanswered(pool, opened, gate);
        if (QTest::currentTestFailed())
            return;
        store::Store& s = *opened;

        // The server goes on and commits, for a client that has gone.
        QVERIFY(run(
            gate.get(), std::string("DELETE FROM tidepool_test_gate; SELECT pg_advisory_unlock(") + kGateLock + ")"));
        QTRY_COMPARE_WITH_TIMEOUT(run(gate.get(), "SELECT count(*) FROM audit").value_or("?"), std::string("1"), 10000);

        // Changed since: the pool again, and a second audit entry.
        store::StoredPool changed = pool;
        changed.cpuMillis = 3000;
        s.putPool(changed);
        s.addAudit(auditEntry("pool.update"));
        const auto settled = s.commit();
        QVERIFY2(settled, settled ? "" : settled.error().message.c_str());
        QCOMPARE(s.pending(), std::size_t { 0 });
        const auto log = s.audit({});
        QVERIFY(log);
        QCOMPARE(log->size(), std::size_t { 2 });
        QCOMPARE(
            run(gate.get(), "SELECT count(*) FROM audit WHERE action = 'pool.create'").value_or("?"), std::string("1"));
        QCOMPARE(s.load()->pools, std::vector<store::StoredPool> { changed });
    }

    // The other outcome: the store's `COMMIT` waits in the server past the answer timeout and never finishes there.
    // The next commit finds the store's previous session still holding the writer's lock (stuck, as one whose client
    // vanished can be for hours), ends it, learns from the server that the old transaction was rolled back, and
    // writes the batch again: the audit entry is in the log once.
    void postgresUnansweredCommitThatWasRolledBackIsWrittenAgain()
    {
        if (!m_backend.postgres())
            QSKIP("PostgreSQL only: SQLite's commit has no connection to lose");
        std::unique_ptr<store::Store> opened;
        std::shared_ptr<PGconn> gate;
        const store::StoredPool pool { "batch", "research", "cold", 2000, 4096, 50 };
        commitUnanswered(pool, opened, gate);
        if (QTest::currentTestFailed())
            return;
        store::Store& s = *opened;

        // The old session stays stuck in the trigger (the test still holds the lock); a new transaction would not
        // wait any more.
        QVERIFY(run(gate.get(), "DELETE FROM tidepool_test_gate"));
        QCOMPARE(run(gate.get(), "SELECT count(*) FROM audit").value_or("?"), std::string("0"));
        const auto settled = s.commit();
        QVERIFY2(settled, settled ? "" : settled.error().message.c_str());
        QCOMPARE(s.pending(), std::size_t { 0 });
        const auto log = s.audit({});
        QVERIFY(log);
        QCOMPARE(log->size(), std::size_t { 1 });
        QCOMPARE(log->front().action, std::string("pool.create"));
        QCOMPARE(s.load()->pools, std::vector<store::StoredPool> { pool });
        QVERIFY(run(gate.get(), std::string("SELECT pg_advisory_unlock(") + kGateLock + ")"));
    }

    // A server process that stops answering (here: stopped with SIGSTOP) fails the commit after the store's answer
    // timeout, naming the server and what was being done, instead of blocking the core for good; once it runs again,
    // the next commit connects again, retakes the writer's lock and writes everything.
    void postgresServerThatStopsAnsweringFailsTheCommitInTime()
    {
        if (!m_backend.postgres())
            QSKIP("PostgreSQL only: SQLite has no server to wait for");
        store::PostgresOptions options;
        options.answerTimeout = std::chrono::milliseconds(1000);
        auto opened = m_backend.open(options);
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        store::Store& s = **opened;
        s.putPool(store::StoredPool { "before", "research", "", 1000, 1024, 100 });
        QVERIFY(s.commit());

        // The store's server process: signalled directly, so the server must be on this machine (a Unix socket).
        const auto admin = connectTo(m_backend.location());
        const char* host = PQhost(admin.get());
        if (!host || host[0] != '/')
            QSKIP("needs the PostgreSQL server on this machine (a Unix socket), to stop the store's server process");
        const auto pidText = run(admin.get(),
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'tidepoold' "
            "AND pid <> pg_backend_pid()");
        QVERIFY(pidText && !pidText->empty());
        const pid_t pid = std::stoi(*pidText);
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
        QVERIFY(cmdline.open(QIODevice::ReadOnly));
        QVERIFY2(cmdline.readAll().startsWith("postgres"), "the store's server process is not a local postgres");
        QCOMPARE(::kill(pid, SIGSTOP), 0);
        // Whatever happens below, the server process runs again.
        const std::shared_ptr<void> resume(nullptr, [pid](void*) { ::kill(pid, SIGCONT); });

        const store::StoredPool pool { "batch", "research", "cold", 2000, 4096, 50 };
        s.putPool(pool);
        QElapsedTimer timer;
        timer.start();
        const auto hung = s.commit();
        const qint64 waitedMs = timer.elapsed();
        QVERIFY(!hung);
        QVERIFY2(waitedMs >= 900 && waitedMs < 5000, std::to_string(waitedMs).c_str());
        QVERIFY2(
            hung.error().message.find("did not answer within 1 s") != std::string::npos, hung.error().message.c_str());
        QVERIFY2(hung.error().message.find(m_backend.errorName()) != std::string::npos, hung.error().message.c_str());
        QVERIFY2(
            hung.error().message.find("cannot begin a transaction") != std::string::npos, hung.error().message.c_str());
        QCOMPARE(s.pending(), std::size_t { 1 });

        QCOMPARE(::kill(pid, SIGCONT), 0);
        const auto again = s.commit();
        QVERIFY2(again, again ? "" : again.error().message.c_str());
        QCOMPARE(s.pending(), std::size_t { 0 });
        const auto snapshot = s.load();
        QVERIFY(snapshot);
        QCOMPARE(snapshot->pools.size(), std::size_t { 2 });
        QCOMPARE(snapshot->pools[1], pool);
        QVERIFY(!m_backend.open()); // the new session holds the writer's lock
    }

    void restartRestoresAndWaitsForTheAgents()
    {
        WorkloadId running = 0, launching = 0, pending = 0, finished = 0;
        {
            auto opened = open();
            auto first = planeWithBatchAndN1(*opened);
            running = *first->submit(request("running", 1000));
            launching = *first->submit(request("launching", 1000));
            finished = *first->submit(request("finished", 500));
            pending = *first->submit(request("pending", 3000)); // does not fit: waits
            first->onWorkloadUpdate("s1", protocol::WorkloadStatus { running, "running", 4242, 0, {} });
            first->onWorkloadUpdate("s1", protocol::WorkloadStatus { finished, "exited", 1, 0, {} });
            QCOMPARE(name(first->workload(pending)->phase), name(WorkloadPhase::Pending));
            first->stop(); // writes what is left
        }

        m_sent.clear();
        auto opened = open();
        auto second = plane(*opened, std::chrono::milliseconds(60'000));
        QCOMPARE(second->stats().restoredNodes, std::size_t { 1 });
        const LiveNode* node = second->nodeByName("n1");
        QVERIFY(node);
        QCOMPARE(name(node->state), name(NodeState::Suspect));
        QCOMPARE(name(second->workload(running)->phase), name(WorkloadPhase::Running));
        QCOMPARE(second->workload(running)->pid, 4242);
        QCOMPARE(name(second->workload(launching)->phase), name(WorkloadPhase::Launching));
        QCOMPARE(name(second->workload(pending)->phase), name(WorkloadPhase::Pending));
        QCOMPARE(name(second->workload(finished)->phase), name(WorkloadPhase::Succeeded));
        QCOMPARE(second->workload(finished)->node, node->id); // where it ran, holding nothing there
        QCOMPARE(second->workload(running)->argv, (std::vector<std::string> { "/bin/sleep", "600" }));
        QCOMPARE(second->workload(running)->env, (std::vector<std::string> { "MODE=test" }));
        QVERIFY(second->poolByName("batch"));
        QCOMPARE(second->cluster().pool(*second->poolByName("batch")).quota.cpuMillis, std::int64_t { 3000 });
        // The placements hold their resources again: 2000 of the node's 4000 millicores.
        QCOMPARE(second->cluster().node(node->id).free.cpuMillis, std::int64_t { 2000 });
        QCOMPARE(second->cluster().node(node->id).devices.size(), std::size_t { 1 });
        // Ids continue after the restored ones.
        QCOMPARE(*second->submit(request("after", 100)), pending + 1);

        // Silent far beyond lostAfter, but inside the restart grace: not lost.
        second->checkLiveness(Clock::now() + std::chrono::milliseconds(10'000));
        QCOMPARE(name(second->nodeByName("n1")->state), name(NodeState::Suspect));

        // The agent returns with the running workload: nothing is started twice, the unacknowledged launch is sent.
        second->onJoined("s2", "127.0.0.1:2", protocol::Hello { "n1", "t", std::nullopt });
        second->onInventory("s2", inventory({ protocol::WorkloadStatus { running, "running", 4242, 0, {} } }));
        QCOMPARE(name(second->nodeByName("n1")->state), name(NodeState::Ready));
        QCOMPARE(second->nodes().size(), std::size_t { 1 });
        QCOMPARE(launchesTo("s2"), std::size_t { 1 });
        const auto& launch = std::get<protocol::Launch>(std::find_if(m_sent.begin(), m_sent.end(), [](const auto& s) {
            return std::holds_alternative<protocol::Launch>(s.second);
        })->second);
        QCOMPARE(launch.workloadId, launching);
    }

    // A workload waiting out its restart back-off when the core restarts waits on, to the same time, and its previous
    // launch is still known; a launch that was running goes on being counted from where it was.
    void aRestartBackOffSurvivesARestart()
    {
        WorkloadId id = 0;
        std::int64_t due = 0;
        {
            auto opened = open();
            auto first = planeWithBatchAndN1(*opened);
            auto r = request("crashy", 500);
            r.restart = RestartPolicy::OnFailure;
            r.maxRestarts = 3;
            id = *first->submit(r);
            first->onWorkloadUpdate("s1", protocol::WorkloadStatus { id, "exited", 1, 2, {} });
            QCOMPARE(name(first->workload(id)->phase), name(WorkloadPhase::Pending));
            due = first->workload(id)->restartAtMs;
            QVERIFY(due > 0);
            first->stop();
            m_io->poll(); // what it posted runs while it is there
            m_io->restart();
        }
        m_sent.clear();
        auto opened = open();
        auto second = plane(*opened, std::chrono::milliseconds(60'000));
        const LiveWorkload* w = second->workload(id);
        QCOMPARE(name(w->phase), name(WorkloadPhase::Pending));
        QCOMPARE(w->restartAtMs, due);
        QCOMPARE(w->restarts, 1);
        QCOMPARE(w->crashLoop, 1);
        QCOMPARE(name(w->restart), name(RestartPolicy::OnFailure));
        QCOMPARE(w->maxRestarts, 3);
        QCOMPARE(w->incarnation, 1);
        QCOMPARE(second->cluster().node(w->previousNode).name, std::string("n1"));
        QCOMPARE(w->previousIncarnation, 0);
        // The agent is back before the restart is due: nothing is launched until it is.
        second->onJoined("s2", "127.0.0.1:2", protocol::Hello { "n1", "t", std::nullopt });
        second->onInventory("s2", inventory({ protocol::WorkloadStatus { id, "exited", 1, 2, {}, 0 } }));
        m_io->poll();
        m_io->restart();
        QCOMPARE(launchesTo("s2"), std::size_t { 0 });
        second->releaseRestarts(due);
        m_io->poll();
        m_io->restart();
        QCOMPARE(launchesTo("s2"), std::size_t { 1 });
        QCOMPARE(name(w->phase), name(WorkloadPhase::Launching));
        second->stop();
    }

    // A paced drain goes on after a restart: its budget, deadline, who started it and what it moved are kept, and
    // what it was moving (launched elsewhere, not running yet) still holds its slot until it runs.
    void aPacedDrainSurvivesARestart()
    {
        std::vector<WorkloadId> ids;
        std::int64_t deadline = 0;
        {
            auto opened = open();
            auto first = planeWithBatchAndN1(*opened);
            for (int i = 0; i < 3; ++i) {
                ids.push_back(*first->submit(request("w" + std::to_string(i), 500)));
                first->onWorkloadUpdate("s1", protocol::WorkloadStatus { ids.back(), "running", 10 + i, 0, {} });
            }
            first->onJoined("s2", "127.0.0.1:2", protocol::Hello { "n2", "t", std::nullopt });
            first->onInventory("s2", inventory());
            PoolRequest budgeted = first->poolRequestOf(*first->poolByName(kDefaultPool));
            budgeted.maxDisrupted = DisruptionBudget::share(50); // 2 of its 3 workloads, rounded up
            QVERIFY(first->updatePool(std::string(kDefaultPool), budgeted));
            const auto drained = first->drain("n1", "disk", "operator:alice", DrainOptions { 1, 3'600'000 });
            QVERIFY2(drained, drained ? "" : drained.error().message.c_str());
            QCOMPARE(drained->moves.size(), std::size_t { 1 });
            QVERIFY(drained->paced);
            deadline = drained->paced->deadlineAtMs;
            first->stop();
            m_io->poll();
            m_io->restart();
        }
        m_sent.clear();
        auto opened = open();
        auto second = plane(*opened, std::chrono::milliseconds(60'000));
        const LiveNode* n1 = second->nodeByName("n1");
        QVERIFY(n1->drain);
        QCOMPARE(n1->drain->maxParallel, 1);
        QCOMPARE(n1->drain->deadlineAtMs, deadline);
        QCOMPARE(n1->drain->actor, std::string("operator:alice"));
        QCOMPARE(n1->drain->moved, std::int64_t { 1 });
        QCOMPARE(n1->drain->moving, (std::set<WorkloadId> { ids[0] }));
        // The pool's disruption budget is kept, and the moved one counts against it again.
        const PoolId defaultPool = *second->poolByName(kDefaultPool);
        QVERIFY(second->poolDisruptionBudget(defaultPool) == DisruptionBudget::share(50));
        QCOMPARE(second->poolMaxDisrupted(defaultPool), std::int64_t { 2 });
        QCOMPARE(second->disruptedIn(defaultPool), std::int64_t { 1 });
        QCOMPARE(n1->cordon, std::string("by operator:alice: disk"));
        // The agents are back; the moved one still launching: nothing more moves until it runs.
        second->onJoined("s3", "127.0.0.1:1", protocol::Hello { "n1", "t", std::nullopt });
        second->onInventory("s3",
            inventory({ protocol::WorkloadStatus { ids[1], "running", 11, 0, {}, 0 },
                protocol::WorkloadStatus { ids[2], "running", 12, 0, {}, 0 } }));
        second->onJoined("s4", "127.0.0.1:2", protocol::Hello { "n2", "t", std::nullopt });
        second->onInventory("s4", inventory());
        m_io->poll();
        m_io->restart();
        const std::size_t launched = launchesTo("s4"); // the moved one, sent again to the returned agent
        second->advanceDrains(unixMillis());
        QCOMPARE(launchesTo("s4"), launched);
        second->onWorkloadUpdate("s4", protocol::WorkloadStatus { ids[0], "running", 20, 0, {}, 1 });
        second->advanceDrains(unixMillis());
        QCOMPARE(launchesTo("s4"), launched + 1);
        QCOMPARE(second->cluster().node(second->workload(ids[1])->node).name, std::string("n2"));
        QCOMPARE(second->nodeByName("n1")->drain->moved, std::int64_t { 2 });
        second->stop();
    }

    // A workload being stopped for running past its maximum runtime when the core restarts still ends failed, not
    // cancelled, once its agent reports it stopped.
    void aStopForRunningTooLongSurvivesARestart()
    {
        WorkloadId id = 0;
        {
            auto opened = open();
            auto first = planeWithBatchAndN1(*opened);
            auto r = request("long", 500);
            r.maxRuntimeMs = 1000;
            id = *first->submit(r);
            first->onWorkloadUpdate("s1", protocol::WorkloadStatus { id, "running", 7, 0, {} });
            first->enforceRuntimeLimits(first->workload(id)->runningMs + 1000);
            QCOMPARE(name(first->workload(id)->phase), name(WorkloadPhase::Stopping));
            first->stop();
            m_io->poll();
            m_io->restart();
        }
        QTest::qWait(1100); // the limit has passed by the wall clock too when the second core reads it
        auto opened = open();
        auto second = plane(*opened, std::chrono::milliseconds(60'000));
        QCOMPARE(name(second->workload(id)->phase), name(WorkloadPhase::Stopping));
        second->onJoined("s2", "127.0.0.1:2", protocol::Hello { "n1", "t", std::nullopt });
        second->onInventory("s2", inventory({ protocol::WorkloadStatus { id, "killed", 0, 15, {}, 0 } }));
        QCOMPARE(name(second->workload(id)->phase), name(WorkloadPhase::Failed));
        QVERIFY2(second->workload(id)->detail.find("ran past its maximum runtime") != std::string::npos,
            second->workload(id)->detail.c_str());
        second->stop();
    }

    // A workload moved on its node (incarnation 1) and restarted core: the incarnation is kept, so the next move is a
    // new one (2) and the agent never takes it for a launch it has seen.
    void incarnationsSurviveARestart()
    {
        WorkloadId id = 0;
        {
            auto opened = open();
            auto first = plane(*opened, std::chrono::milliseconds(60'000));
            first->onJoined("s1", "127.0.0.1:1", protocol::Hello { "n1", "t", std::nullopt });
            first->onInventory("s1", inventory());
            id = *first->submit(request("moved", 100));
            first->onWorkloadUpdate("s1", protocol::WorkloadStatus { id, "running", 1, 0, {} });
            QVERIFY(first->migrate(id, "n1", -1, "n1", -1));
            first->onWorkloadUpdate("s1", protocol::WorkloadStatus { id, "running", 2, 0, {}, 1 });
            first->stop();
        }
        auto opened = open();
        auto second = plane(*opened, std::chrono::milliseconds(60'000));
        QCOMPARE(second->workload(id)->incarnation, 1);
        QCOMPARE(second->workload(id)->highestIncarnation, 1);
        second->onJoined("s2", "127.0.0.1:2", protocol::Hello { "n1", "t", std::nullopt });
        second->onInventory("s2",
            inventory({ protocol::WorkloadStatus { id, "killed", 0, 15, {}, 0 },
                protocol::WorkloadStatus { id, "running", 2, 0, {}, 1 } }));
        QCOMPARE(name(second->workload(id)->phase), name(WorkloadPhase::Running));
        QCOMPARE(second->workload(id)->pid, 2);
        m_sent.clear();
        QVERIFY(second->migrate(id, "n1", -1, "n1", -1));
        QCOMPARE(std::get<protocol::Launch>(m_sent.back().second).incarnation, 2);
        second->stop();
    }

    // A running workload's measured peaks (right-sizing's evidence) survive a restart of the core: the restored core
    // goes on from them, and from when they were measured since, instead of starting its wait again. They are saved
    // as they rise by a tenth, not with every heartbeat; a new launch starts them again, saved so too.
    void measuredPeaksSurviveARestart()
    {
        WorkloadId id = 0;
        UsageHistogram histogram;
        const auto beat = [](ControlPlane& plane, const std::string& session, WorkloadId workload, std::int64_t atMs,
                              std::int64_t cpuMillis, std::int64_t memoryMiB) {
            protocol::Heartbeat h;
            h.samples.push_back(protocol::UtilisationSample { atMs, 0.5, 1024, {} });
            h.samples.back().workloads.push_back(
                { workload, plane.workload(workload)->incarnation, cpuMillis, memoryMiB });
            plane.onHeartbeat(session, h);
        };
        const auto saved = [&](store::Store& store) {
            const auto snapshot = store.load();
            const auto it = std::find_if(snapshot->workloads.begin(), snapshot->workloads.end(),
                [&](const store::StoredWorkload& w) { return w.id == id; });
            return it == snapshot->workloads.end() ? store::StoredWorkload {} : *it;
        };
        const auto flushed = [this] {
            m_io->restart();
            m_io->run_for(std::chrono::milliseconds(200)); // past the 50 ms to the next commit
        };
        {
            auto opened = open();
            auto first = planeWithBatchAndN1(*opened);
            id = *first->submit(request("service", 1000));
            first->onWorkloadUpdate("s1", protocol::WorkloadStatus { id, "running", 7, 0, {} });
            flushed();
            QCOMPARE(name(first->workload(id)->phase), name(WorkloadPhase::Running));
            QCOMPARE(saved(*opened).measuredSinceMs, std::int64_t { 0 });
            beat(*first, "s1", id, 1'000, 300, 100);
            beat(*first, "s1", id, 2'000, 100, 120);
            flushed();
            QCOMPARE(saved(*opened).measuredSinceMs, std::int64_t { 1'000 });
            QCOMPARE(saved(*opened).peakCpuMillis, std::int64_t { 300 });
            QCOMPARE(saved(*opened).peakMemoryMiB, std::int64_t { 120 });
            // Less than a tenth more is not written on its own; a peak that rises further takes it along.
            beat(*first, "s1", id, 3'000, 310, 125);
            flushed();
            QCOMPARE(saved(*opened).peakCpuMillis, std::int64_t { 300 });
            QCOMPARE(saved(*opened).peakMemoryMiB, std::int64_t { 120 });
            // Saving them is not a change of the workload: proposals planned before are not stale for it.
            const std::uint64_t version = first->stateVersion();
            beat(*first, "s1", id, 4'000, 100, 400);
            flushed();
            QCOMPARE(saved(*opened).peakCpuMillis, std::int64_t { 310 });
            QCOMPARE(saved(*opened).peakMemoryMiB, std::int64_t { 400 });
            QCOMPARE(first->stateVersion(), version);
            // The CPU histogram goes with them, and on its own after an hour of samples.
            QCOMPARE(saved(*opened).cpuHistogram, first->workload(id)->cpuHistogram.toJson());
            beat(*first, "s1", id, 4'000 + 3'600'000, 100, 100);
            flushed();
            QCOMPARE(saved(*opened).cpuHistogram, first->workload(id)->cpuHistogram.toJson());
            QCOMPARE(saved(*opened).peakMemoryMiB, std::int64_t { 400 });
            histogram = first->workload(id)->cpuHistogram;
            first->stop();
        }
        auto opened = open();
        auto second = plane(*opened, std::chrono::milliseconds(60'000));
        // Restored: its peaks and since when, read as measured from the next sample on.
        QCOMPARE(second->workload(id)->measured, (MeasuredWorkloadUse { 0, 0, 0, 310, 400, 1'000 }));
        QVERIFY(second->workload(id)->cpuHistogram == histogram);
        QVERIFY(!histogram.empty());
        second->onJoined("s2", "127.0.0.1:2", protocol::Hello { "n1", "t", std::nullopt });
        second->onInventory("s2", inventory({ protocol::WorkloadStatus { id, "running", 7, 0, {}, 0 } }));
        QCOMPARE(name(second->workload(id)->phase), name(WorkloadPhase::Running));
        beat(*second, "s2", id, 10'000, 50, 200);
        QCOMPARE(second->workload(id)->measured, (MeasuredWorkloadUse { 10'000, 50, 200, 310, 400, 1'000 }));
        // Not saved again at once for its samples (at the wall clock's time, as an agent's): what the store holds
        // counts as saved when it was restored, so a restart does not make every workload's row be written again.
        const std::int64_t wallMs
            = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                  .count();
        beat(*second, "s2", id, wallMs, 50, 200);
        flushed();
        QVERIFY(saved(*opened).cpuHistogram != second->workload(id)->cpuHistogram.toJson());
        QCOMPARE(saved(*opened).cpuHistogram, histogram.toJson());
        // A new launch is measured from nothing, and so it is saved.
        QVERIFY(second->migrate(id, "n1", -1, "n1", -1));
        QCOMPARE(second->workload(id)->measured, MeasuredWorkloadUse {});
        flushed();
        QCOMPARE(saved(*opened).measuredSinceMs, std::int64_t { 0 });
        QCOMPARE(saved(*opened).peakMemoryMiB, std::int64_t { 0 });
        QVERIFY(saved(*opened).cpuHistogram.is_null());
        second->stop();
        m_io->restart();
        m_io->poll();

        // A damaged histogram (a hand-edited row) does not keep the core from starting: its CPU is measured again.
        store::StoredWorkload damaged = saved(*opened);
        damaged.phase = "running"; // its new launch acknowledged
        damaged.measuredSinceMs = 1'000;
        damaged.peakCpuMillis = 310;
        damaged.cpuHistogram = nlohmann::json { { "refMs", "yesterday" }, { "buckets", nlohmann::json::array() } };
        opened->putWorkload(damaged);
        QVERIFY(opened->commit());
        auto third = plane(*opened, std::chrono::milliseconds(60'000));
        QCOMPARE(third->workload(id)->measured.peakCpuMillis, std::int64_t { 310 });
        QVERIFY(third->workload(id)->cpuHistogram.empty());
        third->stop();
    }

    void afterTheGraceSilentNodesAreLost()
    {
        WorkloadId id = 0;
        {
            auto opened = open();
            auto first = plane(*opened, std::chrono::milliseconds(0));
            first->onJoined("s1", "127.0.0.1:1", protocol::Hello { "n1", "t", std::nullopt });
            first->onInventory("s1", inventory());
            id = *first->submit(request("w", 1000));
            first->onWorkloadUpdate("s1", protocol::WorkloadStatus { id, "running", 1, 0, {} });
            first->stop();
        }
        {
            auto opened = open();
            auto second = plane(*opened, std::chrono::milliseconds(5000));
            second->checkLiveness(Clock::now() + std::chrono::milliseconds(4000));
            QCOMPARE(name(second->nodeByName("n1")->state), name(NodeState::Suspect)); // grace still running
        }
        // Past the grace only by real time: the grace counts from the restart, so this plane waits it out.
        // A plane with no grace at all shows the other side.
        auto opened2 = open();
        auto third = plane(*opened2, std::chrono::milliseconds(0));
        third->checkLiveness(Clock::now() + std::chrono::milliseconds(3500));
        QCOMPARE(name(third->nodeByName("n1")->state), name(NodeState::Lost));
        QCOMPARE(name(third->workload(id)->phase), name(WorkloadPhase::Pending));
        QCOMPARE(third->stats().replacedAfterLoss, std::uint64_t { 1 });
    }

    // A node powered up (booting) when the daemon restarts is booting after it, not a silent node to be declared
    // lost after the grace; its boot timeout counts the time the daemon was down; once its agent is back the stored
    // state is gone. A damaged stored state is refused, named.
    void aBootingNodeStaysBootingAcrossARestart()
    {
        const std::string key = "booting:n1";
        {
            auto opened = open();
            auto first = plane(*opened, std::chrono::milliseconds(0));
            for (const char* n : { "n1", "n2" }) {
                first->onJoined(std::string("s-") + n, "127.0.0.1:1", protocol::Hello { n, "t", std::nullopt });
                first->onInventory(std::string("s-") + n, inventory());
            }
            QVERIFY(first->setCordon("n1", std::string(kPowerDownCordon) + " by proposal 7"));
            first->onLeft("s-n1", "switched off");
            QCOMPARE(name(first->nodeByName("n1")->state), name(NodeState::Off));
            QVERIFY(first->setCordon("n1", "")); // powered up
            QCOMPARE(name(first->nodeByName("n1")->state), name(NodeState::Booting));
            first->stop();
        }
        {
            auto opened = open();
            QVERIFY(opened->load()->meta.count(key));
            auto second = plane(*opened, std::chrono::milliseconds(0)); // no grace: silence is judged at once
            QCOMPARE(name(second->nodeByName("n1")->state), name(NodeState::Booting));
            QCOMPARE(name(second->nodeByName("n2")->state), name(NodeState::Suspect));
            second->checkLiveness(Clock::now() + std::chrono::milliseconds(3500)); // past lostAfter
            QCOMPARE(name(second->nodeByName("n1")->state), name(NodeState::Booting));
            QCOMPARE(name(second->nodeByName("n2")->state), name(NodeState::Lost));
            QCOMPARE(second->stats().nodesLost, std::uint64_t { 1 });
            second->onJoined("s-n1b", "127.0.0.1:1", protocol::Hello { "n1", "t", std::nullopt });
            second->onInventory("s-n1b", inventory());
            second->onHeartbeat("s-n1b", protocol::Heartbeat { 1, {} });
            QCOMPARE(name(second->nodeByName("n1")->state), name(NodeState::Ready));
            second->stop();
        }
        {
            auto opened = open();
            QVERIFY(!opened->load()->meta.count(key)); // back: nothing boots any more
            auto third = plane(*opened, std::chrono::milliseconds(0));
            QCOMPARE(name(third->nodeByName("n1")->state), name(NodeState::Suspect));
            third->stop();
        }
        // Powered up 20 minutes ago, before a long restart: past the 15-minute boot timeout, it is lost at once.
        {
            auto opened = open();
            opened->putMeta(key, nlohmann::json { { "sinceMs", unixMillis() - 20 * 60'000 } }.dump());
            QVERIFY(opened->commit());
            auto fourth = plane(*opened, std::chrono::milliseconds(0));
            QCOMPARE(name(fourth->nodeByName("n1")->state), name(NodeState::Booting));
            fourth->checkLiveness(Clock::now());
            QCOMPARE(name(fourth->nodeByName("n1")->state), name(NodeState::Lost));
            fourth->stop();
        }
        auto opened = open();
        opened->putMeta(key, R"({"sinceMs": "yesterday"})");
        QVERIFY(opened->commit());
        ControlPlaneConfig config;
        AgentLink link { [](const std::string&, const protocol::Message&) { return true; },
            [](const std::string&, const std::string&) { return true; } };
        const auto refused = ControlPlane::create(*m_io, config, link, {}, opened.get());
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.find("booting:n1") != std::string::npos, refused.error().message.c_str());
        QVERIFY2(refused.error().message.find("sinceMs") != std::string::npos, refused.error().message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestStore)
#include "tst_store.moc"
