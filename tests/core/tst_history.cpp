// The store's history side and its schema, in a real database, SQLite or PostgreSQL (store_backend.h): forward
// migrations from every earlier SQLite schema version with data in it, raw samples aggregated into 5-minute buckets
// (again when late samples arrive), retention, forecasts, proposals and the audit log round-tripping, and the history
// recorder's series from a live control plane.
#include "core/api/control_plane.h"
#include "core/api/history_recorder.h"
#include "core/store/store.h"
#include "store_backend.h"

#include <QtTest>

#include <boost/asio/io_context.hpp>

#include <sqlite3.h>

using namespace tidepool;
using namespace tidepool::api;

namespace {

constexpr std::int64_t kMinute = 60'000;
constexpr std::int64_t kDay = 24 * 60 * kMinute;
constexpr std::int64_t kT0 = 1'800'000'000'000; // a whole 5-minute boundary, in 2027

std::string scalar(const std::string& path, const char* sql)
{
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_stmt* s = nullptr;
    std::string out;
    if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    sqlite3_close(db);
    return out;
}

bool execute(const std::string& path, const char* sql)
{
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    const bool ok = sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

store::SeriesKey poolCpu(const std::string& pool)
{
    return store::SeriesKey { "pool", pool, "cpu" };
}

} // namespace

class TestHistory : public QObject {
    Q_OBJECT

private:
    testing::StoreBackend m_backend;
    std::string dbPath() const { return m_backend.location(); }

    // A control plane on `store` with a pool "batch" and nodes joined (4 cores, 8 GiB and `devices` each), their
    // sessions named "s-<node>".
    static Expected<std::unique_ptr<ControlPlane>> planeWithBatchPool(boost::asio::io_context& io, store::Store& store,
        const std::vector<std::string>& nodes, const std::vector<protocol::DeviceInfo>& devices = {})
    {
        AgentLink link { [](const std::string&, const protocol::Message&) { return true; },
            [](const std::string&, const std::string&) { return true; } };
        auto created = ControlPlane::create(io, ControlPlaneConfig {}, link, {}, &store);
        if (!created)
            return created;
        PoolRequest pool;
        pool.name = "batch";
        if (!(*created)->createPool(pool))
            qFatal("the pool batch could not be created");
        protocol::Inventory inv;
        inv.isa = "x86_64";
        inv.cpuMillis = 4000;
        inv.memoryMiB = 8192;
        inv.devices = devices;
        for (const std::string& node : nodes) {
            (*created)->onJoined("s-" + node, "127.0.0.1:1", protocol::Hello { node, "t", std::nullopt });
            (*created)->onInventory("s-" + node, inv);
        }
        return created;
    }

    std::unique_ptr<store::Store> open()
    {
        auto opened = m_backend.open();
        if (!opened)
            qFatal("%s", opened.error().message.c_str());
        return std::move(*opened);
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

    void init() { QVERIFY(m_backend.fresh()); }
    void cleanup() { m_backend.drop(); }

    // PostgreSQL support began at schema version 6: a database left there, with a pool in it, opens at the current
    // version with the pool as it was and the quotas added since unlimited.
    void migratesPostgresFrom(int version)
    {
        if (version < 6)
            QSKIP("PostgreSQL databases start at schema version 6");
        QVERIFY(store::migratePostgresDatabase(dbPath(), version));
        QVERIFY(m_backend.execute("INSERT INTO pools (name, business_line, tier, cpu_millis, memory_mib, io_weight) "
                                  "VALUES ('batch', 'research', 'cold', 2000, 4096, 50)"));
        auto s = open();
        const auto snapshot = s->load();
        QVERIFY2(snapshot, snapshot ? "" : snapshot.error().message.c_str());
        QCOMPARE(snapshot->pools.size(), std::size_t { 1 });
        const store::StoredPool expected { "batch", "research", "cold", 2000, 4096, 50 };
        QCOMPARE(snapshot->pools[0], expected); // the new quotas default to the core's kUnlimited
        QVERIFY(!store::migratePostgresDatabase(dbPath(), 5));
    }

    void migratesFromEveryEarlierVersion_data()
    {
        QTest::addColumn<int>("version");
        for (int v = 0; v < store::kSchemaVersion; ++v)
            QTest::newRow(("from version " + std::to_string(v)).c_str()) << v;
    }

    // A database left at each earlier version, with that version's rows in it, opens at the current version with
    // nothing lost and a clean integrity check.
    void migratesFromEveryEarlierVersion()
    {
        QFETCH(int, version);
        if (m_backend.postgres()) {
            migratesPostgresFrom(version);
            return;
        }
        QVERIFY(store::migrateSqliteDatabase(dbPath(), version));
        QCOMPARE(scalar(dbPath(), "PRAGMA user_version"), std::to_string(version));
        if (version == 1) {
            QVERIFY(execute(dbPath(),
                "INSERT INTO pools VALUES ('batch', 'research', 'cold', 2000, 4096, 50);"
                "INSERT INTO nodes VALUES ('n1', 'x86_64', 'hot', 8000, 16384,"
                " '[{\"kind\":\"gpu\",\"model\":\"T4\",\"memoryMiB\":16384,\"shareCapacity\":1000},"
                "{\"kind\":\"gpu\",\"model\":\"T4\",\"memoryMiB\":16384,\"shareCapacity\":1000}]', 'Xeon', 99);"
                "INSERT INTO workloads VALUES (5, '{\"name\":\"w\"}', 'running', 'n1',"
                " '[{\"device\":1,\"share\":500,\"memoryMiB\":2048}]', 0, 77, 0, '', 1, 2, 3, 0);"));
        } else if (version >= 2) {
            QVERIFY(execute(dbPath(),
                "INSERT INTO pools (name, business_line, tier, cpu_millis, memory_mib, io_weight)"
                " VALUES ('batch', 'research', 'cold', 2000, 4096, 50);"
                "INSERT INTO nodes (name, isa, tier, cpu_millis, memory_mib, cpu_model, last_seen_ms)"
                " VALUES ('n1', 'x86_64', 'hot', 8000, 16384, 'Xeon', 99);"
                "INSERT INTO devices VALUES ('n1', 0, 'gpu', 'T4', 16384, 1000), ('n1', 1, 'gpu', 'T4', 16384, 1000);"
                "INSERT INTO workloads (id, spec, phase, node, translated, pid, exit_code, detail, submitted_ms,"
                " placed_ms, running_ms, finished_ms) VALUES (5, '{\"name\":\"w\"}', 'running', 'n1', 0, 77, 0, '', 1, "
                "2, 3, 0);"
                "INSERT INTO placements VALUES (5, 1, 500, 2048);"));
        }
        if (version >= 5)
            QVERIFY(execute(dbPath(), "UPDATE workloads SET incarnation = 3, highest_incarnation = 4;"));
        if (version >= 4)
            QVERIFY(execute(dbPath(), "UPDATE nodes SET cordon = 'powered down by proposal', peak_reserved = 1;"));
        if (version >= 3)
            QVERIFY(execute(dbPath(),
                "INSERT INTO proposals (id, kind, state, risk, reason, effect, plan, state_version, created_ms, expires_ms,"
                " decided_by, decided_ms, steps, detail) VALUES (1, 'quota', 'applied', 'low', 'why', '{}',"
                " '{\"key\":\"quota:batch\",\"actions\":[]}', 7, 1, 2, 'operator:x', 3, '[]', '');"
                "INSERT INTO audit (id, at_ms, actor, source, action, target, outcome, detail) VALUES (1, 5, 'operator:x',"
                " '127.0.0.1:1', 'POST /v1/pools', 'pool batch', 'ok', '{}');"));
        auto s = open();
        QCOMPARE(scalar(dbPath(), "PRAGMA user_version"), std::to_string(store::kSchemaVersion));
        QCOMPARE(scalar(dbPath(), "PRAGMA integrity_check"), std::string("ok"));
        const auto snapshot = s->load();
        QVERIFY2(snapshot, snapshot ? "" : snapshot.error().message.c_str());
        if (version == 0) {
            QVERIFY(snapshot->pools.empty() && snapshot->nodes.empty() && snapshot->workloads.empty());
            return;
        }
        QCOMPARE(snapshot->pools.size(), std::size_t { 1 });
        QCOMPARE(snapshot->pools[0].ioWeight, 50);
        // Added in version 7: pools from before have no bandwidth or accelerator quotas.
        QCOMPARE(snapshot->pools[0].memBandwidthMBps, kUnlimited);
        QCOMPARE(snapshot->pools[0].netBandwidthMbps, kUnlimited);
        QCOMPARE(snapshot->pools[0].gpuShare, kUnlimited);
        QCOMPARE(snapshot->pools[0].npuShare, kUnlimited);
        QCOMPARE(snapshot->pools[0].fpgaShare, kUnlimited);
        // Added in version 11: pools from before have no disruption budget; one set now is read back.
        QCOMPARE(snapshot->pools[0].maxDisrupted, kUnlimited);
        store::StoredPool budgeted = snapshot->pools[0];
        budgeted.maxDisrupted = 3;
        s->putPool(budgeted);
        QVERIFY(s->commit());
        QCOMPARE(s->load()->pools.at(0), budgeted);
        // Added in version 12: pools from before have no percentage budget; one set now is read back.
        QCOMPARE(snapshot->pools[0].maxDisruptedPercent, -1);
        budgeted.maxDisrupted = kUnlimited;
        budgeted.maxDisruptedPercent = 25;
        s->putPool(budgeted);
        QVERIFY(s->commit());
        QCOMPARE(s->load()->pools.at(0), budgeted);
        // Added in version 8: pools deleted before left nothing to keep; the table takes the next deletion.
        QVERIFY(snapshot->deletedPools.empty());
        const store::DeletedPool deleted { "batch", "research", "cold", { "n1" }, 42 };
        s->removePool(deleted);
        QVERIFY(s->commit());
        QVERIFY(s->load()->pools.empty());
        QCOMPARE(s->load()->deletedPools, std::vector<store::DeletedPool> { deleted });
        QCOMPARE(snapshot->nodes.size(), std::size_t { 1 });
        QCOMPARE(snapshot->nodes[0].devices.size(), std::size_t { 2 });
        QCOMPARE(snapshot->nodes[0].devices[1].value("model", ""), std::string("T4"));
        QCOMPARE(snapshot->nodes[0].devices[1].value("shareCapacity", 0), 1000);
        QCOMPARE(snapshot->workloads.size(), std::size_t { 1 });
        const auto& w = snapshot->workloads[0];
        QCOMPARE(w.pid, 77);
        QCOMPARE(w.devices.size(), std::size_t { 1 });
        QCOMPARE(w.devices[0].value("device", -1), 1);
        QCOMPARE(w.devices[0].value("share", 0), 500);
        QCOMPARE(w.devices[0].value("memoryMiB", 0), 2048);
        // Added in version 4: no cordon and no reservation on nodes from before; kept from version 4 on.
        QCOMPARE(snapshot->nodes[0].cordon, std::string(version >= 4 ? "powered down by proposal" : ""));
        QCOMPARE(snapshot->nodes[0].peakReserved, version >= 4);
        // Added in version 5: workloads from before are on their first launch; kept from version 5 on.
        QCOMPARE(w.incarnation, version >= 5 ? 3 : 0);
        QCOMPARE(w.highestIncarnation, version >= 5 ? 4 : 0);
        // Added in version 9: workloads from before were never restarted and have no previous launch on record.
        QCOMPARE(w.restarts, 0);
        QCOMPARE(w.crashLoop, 0);
        QCOMPARE(w.restartAtMs, std::int64_t { 0 });
        QCOMPARE(w.previousNode, std::string());
        QCOMPARE(w.previousIncarnation, -1);
        // Added in version 13: workloads from before have no measured peaks; ones written now are read back.
        QCOMPARE(w.measuredSinceMs, std::int64_t { 0 });
        QCOMPARE(w.peakCpuMillis, std::int64_t { 0 });
        QCOMPARE(w.peakMemoryMiB, std::int64_t { 0 });
        QVERIFY(w.cpuHistogram.is_null());
        store::StoredWorkload measured = w;
        measured.measuredSinceMs = 1'000;
        measured.peakCpuMillis = 310;
        measured.peakMemoryMiB = 400;
        measured.cpuHistogram = nlohmann::json { { "refMs", 5 }, { "buckets", { { 3, 1.5 } } } };
        s->putWorkload(measured);
        QVERIFY(s->commit());
        QCOMPARE(s->load()->workloads.at(0), measured);
        // Added in version 10: nodes from before have no drain under way; one written now is read back whole.
        QCOMPARE(snapshot->nodes[0].drainMaxParallel, std::int64_t { 0 });
        QCOMPARE(snapshot->nodes[0].drainActor, std::string());
        store::StoredNode draining = snapshot->nodes[0];
        draining.drainMaxParallel = 2;
        draining.drainStartedMs = 1000;
        draining.drainDeadlineMs = 61'000;
        draining.drainActor = "operator:alice";
        draining.drainMoved = 3;
        draining.drainEvicted = 1;
        s->putNode(draining);
        QVERIFY(s->commit());
        QCOMPARE(s->load()->nodes.at(0), draining);
        if (version >= 3) {
            QCOMPARE(snapshot->proposals.size(), std::size_t { 1 });
            QCOMPARE(snapshot->proposals[0].decidedBy, std::string("operator:x"));
            const auto entries = s->audit({});
            QCOMPARE(entries->size(), std::size_t { 1 });
            // Added in version 6: entries from before were written once, with their outcome, by a caller of no role.
            QCOMPARE(entries->front().stage, std::string("completed"));
            QCOMPARE(entries->front().role, std::string());
            QCOMPARE(entries->front().outcome, std::string("ok"));
        }
    }

    void samplesAggregateIntoFiveMinuteBuckets()
    {
        auto s = open();
        std::vector<store::Sample> samples;
        // Two buckets: values 1..5 at each minute of the first, 10 and 20 in the second, and one in an open bucket.
        for (int i = 0; i < 5; ++i)
            samples.push_back({ poolCpu("batch"), kT0 + i * kMinute, double(i + 1) });
        samples.push_back({ poolCpu("batch"), kT0 + 5 * kMinute, 10.0 });
        samples.push_back({ poolCpu("batch"), kT0 + 7 * kMinute, 20.0 });
        samples.push_back({ poolCpu("batch"), kT0 + 10 * kMinute, 99.0 });
        s->addSamples(samples);
        QVERIFY(s->commit());
        QVERIFY(s->maintain(kT0 + 11 * kMinute, store::Retention {}));

        auto raw = s->history(poolCpu("batch"), kT0, kT0 + kDay, store::Resolution::Raw);
        QVERIFY(raw);
        QCOMPARE(raw->size(), std::size_t { 8 });
        auto aggregated = s->history(poolCpu("batch"), kT0, kT0 + kDay, store::Resolution::FiveMinutes);
        QVERIFY(aggregated);
        // The bucket still open at 11 minutes (10..15) is not aggregated yet.
        QCOMPARE(aggregated->size(), std::size_t { 2 });
        QCOMPARE((*aggregated)[0], (store::HistoryPoint { kT0, 3.0, 1.0, 5.0, 5 }));
        QCOMPARE((*aggregated)[1], (store::HistoryPoint { kT0 + 5 * kMinute, 15.0, 10.0, 20.0, 2 }));

        // A late sample (an agent's backlog) for an aggregated bucket: that bucket is aggregated again.
        s->addSamples({ { poolCpu("batch"), kT0 + 9 * kMinute, 30.0 } });
        QVERIFY(s->commit());
        QVERIFY(s->maintain(kT0 + 16 * kMinute, store::Retention {}));
        aggregated = s->history(poolCpu("batch"), kT0, kT0 + kDay, store::Resolution::FiveMinutes);
        QCOMPARE(aggregated->size(), std::size_t { 3 });
        QCOMPARE((*aggregated)[1], (store::HistoryPoint { kT0 + 5 * kMinute, 20.0, 10.0, 30.0, 3 }));
        QCOMPARE((*aggregated)[2], (store::HistoryPoint { kT0 + 10 * kMinute, 99.0, 99.0, 99.0, 1 }));

        // An unknown series has no points rather than an error.
        const auto none = s->history(poolCpu("nobody"), 0, kT0 + kDay, store::Resolution::Raw);
        QVERIFY(none && none->empty());
        const auto series = s->seriesList();
        QVERIFY(series);
        QCOMPARE(*series, std::vector<store::SeriesKey> { poolCpu("batch") });
    }

    void retentionDropsRawSamplesBeforeAggregates()
    {
        auto s = open();
        s->addSamples({ { poolCpu("batch"), kT0, 1.0 }, { poolCpu("batch"), kT0 + 3 * kDay, 2.0 } });
        QVERIFY(s->commit());
        store::Retention retention; // raw 2 days, aggregates 90 days
        QVERIFY(s->maintain(kT0 + 3 * kDay + 10 * kMinute, retention));
        auto raw = s->history(poolCpu("batch"), 0, kT0 + 100 * kDay, store::Resolution::Raw);
        QCOMPARE(raw->size(), std::size_t { 1 }); // the 3-day-old sample is gone
        auto aggregated = s->history(poolCpu("batch"), 0, kT0 + 100 * kDay, store::Resolution::FiveMinutes);
        QCOMPARE(aggregated->size(), std::size_t { 2 }); // but its aggregate stays
        QVERIFY(s->maintain(kT0 + 92 * kDay, retention));
        aggregated = s->history(poolCpu("batch"), 0, kT0 + 100 * kDay, store::Resolution::FiveMinutes);
        QCOMPARE(aggregated->size(), std::size_t { 1 });
        QCOMPARE((*aggregated)[0].atMs, kT0 + 3 * kDay);
    }

    // Closed proposals older than `proposalMs` go; pending and approved ones stay however old, and so does the newest
    // proposal of all, whose id the next one follows.
    void retentionDropsOldClosedProposalsOnly()
    {
        auto proposal = [](std::int64_t id, const char* state, std::int64_t createdMs, std::int64_t decidedMs) {
            store::StoredProposal p;
            p.id = id;
            p.kind = "power_down";
            p.state = state;
            p.risk = "low";
            p.reason = "node n" + std::to_string(id) + " has been idle";
            p.effect = nlohmann::json::object();
            p.plan = nlohmann::json::array();
            p.createdMs = createdMs;
            p.expiresMs = createdMs + 10 * kMinute;
            p.decidedMs = decidedMs;
            return p;
        };
        const std::int64_t now = kT0 + 100 * kDay;
        auto s = open();
        s->putProposal(proposal(1, "applied", kT0, kT0 + kMinute)); // old, closed: goes
        s->putProposal(proposal(2, "expired", kT0, 0)); // never decided, old: goes
        s->putProposal(proposal(3, "rejected", kT0, now - kDay)); // created long ago, decided yesterday: stays
        s->putProposal(proposal(4, "pending", kT0, 0)); // still open: stays
        s->putProposal(proposal(5, "approved", kT0, kT0 + kMinute)); // its power command still runs: stays
        s->putProposal(proposal(6, "failed", now - 10 * kDay, now - 10 * kDay)); // recent: stays
        s->putProposal(proposal(7, "expired", kT0, 0)); // old and closed, but the newest: stays
        QVERIFY(s->commit());
        store::Retention retention;
        retention.proposalMs = 0; // keep forever
        QVERIFY(s->maintain(now, retention));
        QCOMPARE(s->load()->proposals.size(), std::size_t { 7 });
        retention.proposalMs = 90 * kDay;
        QVERIFY(s->maintain(now, retention));
        const auto snapshot = s->load();
        QVERIFY(snapshot);
        std::vector<std::int64_t> kept;
        for (const store::StoredProposal& p : snapshot->proposals)
            kept.push_back(p.id);
        QCOMPARE(kept, (std::vector<std::int64_t> { 3, 4, 5, 6, 7 }));
        QCOMPARE(snapshot->nextProposalId, std::int64_t { 8 });
    }

    void proposalsForecastsAndAuditRoundTrip()
    {
        store::StoredProposal p;
        p.id = 3;
        p.kind = "quota";
        p.state = "pending";
        p.risk = "low";
        p.reason = "pool batch is predicted to need 40% more CPU from 09:00";
        p.effect = { { "cpuMillis", 4000 } };
        p.plan = nlohmann::json::array({ { { "pool", "batch" }, { "cpuMillis", 14000 } } });
        p.stateVersion = 41;
        p.createdMs = kT0;
        p.expiresMs = kT0 + 10 * kMinute;
        {
            auto s = open();
            s->putProposal(p);
            s->putForecast(store::StoredForecast { poolCpu("batch"), kT0, "seasonal", 5 * kMinute,
                nlohmann::json::array({ { 1.0, 0.5, 1.5 }, { 2.0, 1.0, 3.0 } }) });
            s->putForecast(store::StoredForecast { poolCpu("batch"), kT0 - kMinute, "seasonal", 5 * kMinute,
                nlohmann::json::array({ { 9.0, 9.0, 9.0 } }) });
            for (int i = 0; i < 5; ++i)
                s->addAudit(store::AuditEntry { 0, kT0 + i, "token:alice", "127.0.0.1:5", "POST /v1/pools",
                    "pool p" + std::to_string(i), i % 2 ? "ok" : "", { { "status", 201 } }, "admin",
                    i % 2 ? "completed" : "received", "r" + std::to_string(i / 2) });
            QVERIFY(s->commit());
        }
        auto s = open();
        const auto snapshot = s->load();
        QCOMPARE(snapshot->proposals, std::vector<store::StoredProposal> { p });
        QCOMPARE(snapshot->nextProposalId, std::int64_t { 4 });
        const auto forecast = s->latestForecast(poolCpu("batch"));
        QVERIFY(forecast && *forecast);
        QCOMPARE((*forecast)->madeMs, kT0);
        QCOMPARE((*forecast)->points.size(), std::size_t { 2 });
        QCOMPARE((*forecast)->points[1][2].get<double>(), 3.0);

        store::AuditQuery q;
        q.limit = 2;
        auto page = s->audit(q);
        QVERIFY(page);
        QCOMPARE(page->size(), std::size_t { 2 });
        QCOMPARE((*page)[0].target, std::string("pool p0"));
        QCOMPARE((*page)[0].detail.value("status", 0), 201);
        // Schema v6: the caller's role, the stage and the request that pairs a received entry with its completion.
        QCOMPARE((*page)[0].role, std::string("admin"));
        QCOMPARE((*page)[0].stage, std::string("received"));
        QCOMPARE((*page)[1].stage, std::string("completed"));
        QCOMPARE((*page)[0].request, (*page)[1].request);
        QCOMPARE((*page)[1].outcome, std::string("ok"));
        q.afterId = page->back().id;
        q.limit = 10;
        page = s->audit(q);
        QCOMPARE(page->size(), std::size_t { 3 });
        QCOMPARE(page->front().target, std::string("pool p2"));
        q = store::AuditQuery {};
        q.fromMs = kT0 + 4;
        QCOMPARE(s->audit(q)->size(), std::size_t { 1 });
    }

    void recorderWritesPoolDemandAndNodeUsage()
    {
        boost::asio::io_context io;
        auto s = open();
        auto created = planeWithBatchPool(io, *s, { "n1" }, { protocol::DeviceInfo { 0, "gpu", "T4", 16384, 1000 } });
        QVERIFY(created);
        ControlPlane& plane = **created;
        SubmitRequest a;
        a.name = "a";
        a.pool = "batch";
        a.requests = { 1500, 1024, 0, 0 };
        a.accelerators.kind = AcceleratorKind::Gpu;
        a.accelerators.count = 1;
        a.accelerators.sharePerDevice = 250;
        a.argv = { "/bin/true" };
        SubmitRequest b = a;
        b.name = "b";
        b.requests = { 6000, 512, 0, 0 }; // does not fit: pending, and still demand
        b.accelerators = {};
        QVERIFY(plane.submit(a));
        QVERIFY(plane.submit(b));
        // Two heartbeats in one interval and one in the next: the node's series are their means per interval.
        for (const auto& [at, cpu] : { std::pair { kT0 + 1000, 0.25 }, { kT0 + 2000, 0.75 }, { kT0 + kMinute + 5, 0.5 } }) {
            protocol::Heartbeat hb;
            hb.samples.push_back(protocol::UtilisationSample { at, cpu, 2048, { protocol::DeviceSample { 0, 0.4, 100 } } });
            plane.onHeartbeat("s-n1", hb);
        }

        HistoryConfig config;
        config.interval = std::chrono::milliseconds(kMinute);
        HistoryRecorder recorder(io, plane, config, {});
        recorder.record(kT0 + 2 * kMinute);
        plane.stop(); // flushes
        auto value = [&](const store::SeriesKey& key) {
            auto points = s->history(key, 0, kT0 + kDay, store::Resolution::Raw);
            return points && !points->empty() ? points->back().mean : -1.0;
        };
        QCOMPARE(value(poolCpu("batch")), 7500.0);
        QCOMPARE(value({ "pool", "batch", "memory" }), 1536.0);
        QCOMPARE(value({ "pool", "batch", "gpu" }), 250.0);
        QCOMPARE(value(poolCpu("default")), 0.0); // idle pools are history too
        // Placed: a holds 1.5 cores, 1 GiB and a quarter of the GPU; b waits.
        QCOMPARE(value({ "pool", "batch", "cpu_placed" }), 1500.0);
        QCOMPARE(value({ "pool", "batch", "memory_placed" }), 1024.0);
        QCOMPARE(value({ "pool", "batch", "gpu_placed" }), 250.0);
        QCOMPARE(value({ "pool", "default", "cpu_placed" }), 0.0);
        const std::string tier(toString(plane.cluster().node(0).tier));
        QCOMPARE(value({ "tier", tier, "cpu_placed" }), 1500.0); // what the node holds
        QCOMPARE(value({ "tier", tier, "gpu_placed" }), 250.0);
        for (const char* other : { "hot", "warm", "cold" })
            if (tier != other)
                QCOMPARE(value({ "tier", other, "cpu_placed" }), 0.0);
        auto nodeCpu = s->history({ "node", "n1", "cpu" }, 0, kT0 + kDay, store::Resolution::Raw);
        QVERIFY(nodeCpu);
        QCOMPARE(nodeCpu->size(), std::size_t { 2 });
        QCOMPARE((*nodeCpu)[0], (store::HistoryPoint { kT0, 2000.0, 2000.0, 2000.0, 1 }));
        QCOMPARE((*nodeCpu)[1].atMs, kT0 + kMinute);
        QCOMPARE((*nodeCpu)[1].mean, 2000.0);
        QCOMPARE(value({ "node", "n1", "gpu_util" }), 0.4);
        QCOMPARE(value({ "node", "n1", "memory" }), 2048.0);
    }

    // What the agents measure of each pool's cgroups (their samples' `pools`) becomes pool/<name>/<resource>_used: per
    // node the mean over its samples in the interval (a sample without the pool counts as none), summed over the
    // nodes; egress only over the samples that measured it. A pool the core does not know gets no series. The pools'
    // measured use now (ControlPlane::measuredPoolUse) is the latest sample of each connected node.
    void recorderWritesPoolsMeasuredUse()
    {
        boost::asio::io_context io;
        auto s = open();
        auto created = planeWithBatchPool(io, *s, { "n1", "n2" });
        QVERIFY(created);
        ControlPlane& plane = **created;
        const auto heartbeat
            = [&](const std::string& session, std::int64_t at, std::vector<protocol::PoolUsage> pools) {
                  protocol::Heartbeat hb;
                  hb.samples.push_back(protocol::UtilisationSample { at, 0.5, 1024, {}, std::move(pools) });
                  plane.onHeartbeat(session, hb);
              };
        heartbeat("s-n1", kT0 + 1000, { { "batch", 1000, 100, 10.0 }, { "gone", 700, 70, -1.0 } });
        heartbeat("s-n1", kT0 + 2000, {}); // its workloads ended
        heartbeat("s-n2", kT0 + 1500, { { "batch", 300, 200, -1.0 } }); // not shaped

        const std::vector<MeasuredPoolUse> now = plane.measuredPoolUse();
        const auto batch = static_cast<std::size_t>(*plane.poolByName("batch"));
        QCOMPARE(now[batch].nodes, std::size_t { 1 }); // n1's latest sample has no pools
        QCOMPARE(now[batch].cpuMillis, std::int64_t { 300 });
        QCOMPARE(now[batch].memoryMiB, std::int64_t { 200 });
        QCOMPARE(now[batch].netNodes, std::size_t { 0 });
        QCOMPARE(now[static_cast<std::size_t>(*plane.poolByName("default"))].nodes, std::size_t { 0 });

        HistoryConfig config;
        config.interval = std::chrono::milliseconds(kMinute);
        HistoryRecorder recorder(io, plane, config, {});
        recorder.record(kT0 + 2 * kMinute);
        plane.stop(); // flushes
        auto points = [&](const store::SeriesKey& key) {
            return s->history(key, 0, kT0 + kDay, store::Resolution::Raw).value_or(std::vector<store::HistoryPoint> {});
        };
        QCOMPARE(
            points({ "pool", "batch", "cpu_used" }), (std::vector { store::HistoryPoint { kT0, 800, 800, 800, 1 } }));
        QCOMPARE(points({ "pool", "batch", "memory_used" }),
            (std::vector { store::HistoryPoint { kT0, 250, 250, 250, 1 } }));
        QCOMPARE(points({ "pool", "batch", "net_used" }), (std::vector { store::HistoryPoint { kT0, 10, 10, 10, 1 } }));
        QVERIFY(points({ "pool", "gone", "cpu_used" }).empty());
        QVERIFY(points({ "pool", "default", "cpu_used" }).empty()); // measured by none: no series, not zeros
    }
};

QTEST_GUILESS_MAIN(TestHistory)
#include "tst_history.moc"
