#include "core/store/pending_changes.h"
#include "core/store/schema.h"
#include "core/store/sqlite_db.h"
#include "core/store/sqlite_history.h"
#include "core/store/store.h"

#include <filesystem>
#include <map>
#include <optional>

namespace tidepool::store {

namespace {

nlohmann::json parseJson(const std::string& text)
{
    return nlohmann::json::parse(text, nullptr, false);
}

std::string dumpJson(const nlohmann::json& value)
{
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A JSON column that may be empty: null then (a damaged text reads as a discarded value, which its reader refuses).
nlohmann::json optionalJson(const std::string& text)
{
    return text.empty() ? nlohmann::json(nullptr) : parseJson(text);
}

// Reads every row of `sql`, handing each to `row`; the error names `what`.
template <typename Row> Expected<void> readAll(Database& db, const char* sql, const std::string& what, Row row)
{
    Statement select(db, sql);
    if (!select.ok())
        return db.failure("cannot read the " + what);
    int rc = 0;
    while ((rc = select.step()) == SQLITE_ROW)
        row(select);
    if (rc != SQLITE_DONE)
        return db.failure("cannot read the " + what);
    return {};
}

class SqliteStore final : public BufferedStore {
public:
    SqliteStore(protocol::OwnerLock lock, std::unique_ptr<Database> db)
        : m_lock(std::move(lock))
        , m_db(std::move(db))
        , m_history(*m_db)
    {
    }

    Expected<void> open()
    {
        // WAL: readers (a console, a report) never block the core's writer. FULL makes each commit durable before
        // it returns, the promise behind every acknowledged write; commits are batched, so the sync is shared.
        for (const char* pragma : { "PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA busy_timeout=2000" })
            if (auto done = m_db->exec(pragma); !done)
                return done;
        return migrate(*m_db, kSchemaVersion);
    }

    Expected<Snapshot> load() override
    {
        Snapshot snapshot;
        std::map<std::string, nlohmann::json> devices; // by node
        std::map<std::int64_t, nlohmann::json> placements; // by workload
        auto read = readAll(*m_db, "SELECT node, idx, kind, model, memory_mib, share_capacity FROM devices ORDER BY node, idx",
            "devices", [&](Statement& s) {
                auto& list = devices[s.text(0)];
                if (list.is_null())
                    list = nlohmann::json::array();
                list.push_back({ { "kind", s.text(2) }, { "model", s.text(3) }, { "memoryMiB", s.integer(4) },
                    { "shareCapacity", s.integer(5) } });
            });
        if (read)
            read = readAll(*m_db, "SELECT workload, device, share, memory_mib FROM placements ORDER BY workload, device",
                "placements", [&](Statement& s) {
                    auto& list = placements[s.integer(0)];
                    if (list.is_null())
                        list = nlohmann::json::array();
                    list.push_back({ { "device", s.integer(1) }, { "share", s.integer(2) }, { "memoryMiB", s.integer(3) } });
                });
        if (read)
            read = readAll(*m_db,
                "SELECT name, business_line, tier, cpu_millis, memory_mib, io_weight, mem_bandwidth_mbps, "
                "net_bandwidth_mbps, gpu_share, npu_share, fpga_share, max_disrupted, max_disrupted_percent FROM pools "
                "ORDER BY rowid",
                "pools", [&](Statement& s) {
                    snapshot.pools.push_back(StoredPool { s.text(0), s.text(1), s.text(2), s.integer(3), s.integer(4),
                        static_cast<std::int32_t>(s.integer(5)), s.integer(6), s.integer(7), s.integer(8), s.integer(9),
                        s.integer(10), s.integer(11), static_cast<std::int32_t>(s.integer(12)) });
                });
        if (read)
            read = readAll(*m_db,
                "SELECT name, business_line, tier, nodes, deleted_ms FROM deleted_pools ORDER BY deleted_ms, name",
                "deleted pools", [&](Statement& s) {
                    snapshot.deletedPools.push_back(
                        DeletedPool { s.text(0), s.text(1), s.text(2), nodeNamesFrom(s.text(3)), s.integer(4) });
                });
        if (read)
            read = readAll(*m_db,
                "SELECT name, isa, tier, cpu_millis, memory_mib, cpu_model, last_seen_ms, cordon, peak_reserved, "
                "drain_max_parallel, drain_started_ms, drain_deadline_ms, drain_actor, drain_moved, drain_evicted "
                "FROM nodes ORDER BY rowid",
                "nodes", [&](Statement& s) {
                    StoredNode n { s.text(0), s.text(1), s.text(2), s.integer(3), s.integer(4), nlohmann::json::array(),
                        s.text(5), s.integer(6), s.text(7), s.integer(8) != 0, s.integer(9), s.integer(10),
                        s.integer(11), s.text(12), s.integer(13), s.integer(14) };
                    if (const auto it = devices.find(n.name); it != devices.end())
                        n.devices = std::move(it->second);
                    snapshot.nodes.push_back(std::move(n));
                });
        if (read)
            read = readAll(*m_db,
                "SELECT id, spec, phase, node, translated, pid, exit_code, detail, submitted_ms, placed_ms, "
                "running_ms, "
                "finished_ms, incarnation, highest_incarnation, restarts, crash_loop, restart_at_ms, previous_node, "
                "previous_incarnation, measured_since_ms, peak_cpu_millis, peak_memory_mib, cpu_histogram FROM "
                "workloads "
                "ORDER BY id",
                "workloads", [&](Statement& s) {
                    StoredWorkload w;
                    w.id = s.integer(0);
                    w.spec = parseJson(s.text(1));
                    w.phase = s.text(2);
                    w.node = s.text(3);
                    if (const auto it = placements.find(w.id); it != placements.end())
                        w.devices = std::move(it->second);
                    w.translated = s.integer(4) != 0;
                    w.pid = static_cast<std::int32_t>(s.integer(5));
                    w.exitCode = static_cast<std::int32_t>(s.integer(6));
                    w.detail = s.text(7);
                    w.submittedMs = s.integer(8);
                    w.placedMs = s.integer(9);
                    w.runningMs = s.integer(10);
                    w.finishedMs = s.integer(11);
                    w.incarnation = static_cast<std::int32_t>(s.integer(12));
                    w.highestIncarnation = static_cast<std::int32_t>(s.integer(13));
                    w.restarts = static_cast<std::int32_t>(s.integer(14));
                    w.crashLoop = static_cast<std::int32_t>(s.integer(15));
                    w.restartAtMs = s.integer(16);
                    w.previousNode = s.text(17);
                    w.previousIncarnation = static_cast<std::int32_t>(s.integer(18));
                    w.measuredSinceMs = s.integer(19);
                    w.peakCpuMillis = s.integer(20);
                    w.peakMemoryMiB = s.integer(21);
                    w.cpuHistogram = optionalJson(s.text(22));
                    snapshot.workloads.push_back(std::move(w));
                });
        if (read)
            read = readAll(*m_db, "SELECT key, value FROM meta ORDER BY key", "meta",
                [&](Statement& s) { snapshot.meta[s.text(0)] = s.text(1); });
        if (read)
            read = readAll(*m_db,
                "SELECT id, kind, state, risk, reason, effect, plan, state_version, created_ms, expires_ms, decided_by, "
                "decided_ms, steps, detail FROM proposals ORDER BY id",
                "proposals", [&](Statement& s) {
                    snapshot.proposals.push_back(StoredProposal { s.integer(0), s.text(1), s.text(2), s.text(3), s.text(4),
                        parseJson(s.text(5)), parseJson(s.text(6)), s.integer(7), s.integer(8), s.integer(9), s.text(10),
                        s.integer(11), parseJson(s.text(12)), s.text(13) });
                });
        if (!read)
            return tl::unexpected(read.error());
        snapshot.nextProposalId = snapshot.proposals.empty() ? 1 : snapshot.proposals.back().id + 1;
        return snapshot;
    }

    Expected<void> commit() override
    {
        if (pending() == 0)
            return {};
        Transaction transaction(*m_db);
        auto written = transaction.begin();
        if (written)
            written = writeState();
        if (written)
            written = m_history.writeSamples(m_pending.samples);
        for (std::size_t i = 0; written && i < m_pending.forecasts.size(); ++i)
            written = m_history.writeForecast(m_pending.forecasts[i]);
        if (written)
            written = m_history.writeAudit(m_pending.audit);
        if (written)
            written = transaction.commit();
        if (!written) {
            // Nothing of this batch reached the database (the transaction rolls back); it stays pending for the
            // next commit.
            m_history.forgetUncommitted();
            return written;
        }
        m_pending.clear();
        return {};
    }

    Expected<std::vector<HistoryPoint>> history(
        const SeriesKey& series, std::int64_t fromMs, std::int64_t toMs, Resolution resolution) override
    {
        return m_history.history(series, fromMs, toMs, resolution);
    }
    Expected<std::vector<SeriesKey>> seriesList() override { return m_history.seriesList(); }
    Expected<std::optional<StoredForecast>> latestForecast(const SeriesKey& series) override
    {
        return m_history.latestForecast(series);
    }
    Expected<std::vector<AuditEntry>> audit(const AuditQuery& query) override { return m_history.audit(query); }
    Expected<void> maintain(std::int64_t nowMs, const Retention& retention) override
    {
        auto done = m_history.maintain(nowMs, retention);
        if (!done)
            m_history.forgetUncommitted();
        return done;
    }

private:
    Expected<void> writeState()
    {
        Statement pool(*m_db,
            "INSERT OR REPLACE INTO pools (name, business_line, tier, cpu_millis, memory_mib, io_weight, "
            "mem_bandwidth_mbps, net_bandwidth_mbps, gpu_share, npu_share, fpga_share, max_disrupted, "
            "max_disrupted_percent) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
        Statement node(*m_db,
            "INSERT OR REPLACE INTO nodes (name, isa, tier, cpu_millis, memory_mib, cpu_model, last_seen_ms, cordon, "
            "peak_reserved, drain_max_parallel, drain_started_ms, drain_deadline_ms, drain_actor, drain_moved, "
            "drain_evicted) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
        Statement clearDevices(*m_db, "DELETE FROM devices WHERE node = ?");
        Statement device(*m_db,
            "INSERT INTO devices (node, idx, kind, model, memory_mib, share_capacity) VALUES (?,?,?,?,?,?)");
        Statement workload(*m_db,
            "INSERT OR REPLACE INTO workloads (id, spec, phase, node, translated, pid, exit_code, detail, "
            "submitted_ms, "
            "placed_ms, running_ms, finished_ms, incarnation, highest_incarnation, restarts, crash_loop, "
            "restart_at_ms, "
            "previous_node, previous_incarnation, measured_since_ms, peak_cpu_millis, peak_memory_mib, cpu_histogram) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
        Statement clearPlacements(*m_db, "DELETE FROM placements WHERE workload = ?");
        Statement placement(*m_db, "INSERT INTO placements (workload, device, share, memory_mib) VALUES (?,?,?,?)");
        Statement remove(*m_db, "DELETE FROM workloads WHERE id = ?");
        Statement proposal(*m_db,
            "INSERT OR REPLACE INTO proposals (id, kind, state, risk, reason, effect, plan, state_version, created_ms, "
            "expires_ms, decided_by, decided_ms, steps, detail) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
        Statement removePool(*m_db, "DELETE FROM pools WHERE name = ?");
        Statement deletedPool(*m_db,
            "INSERT OR REPLACE INTO deleted_pools (name, deleted_ms, business_line, tier, nodes) VALUES (?,?,?,?,?)");
        Statement setMeta(*m_db, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
        Statement clearMeta(*m_db, "DELETE FROM meta WHERE key = ?");
        for (const Statement* s : { &pool, &removePool, &deletedPool, &node, &clearDevices, &device, &workload,
                 &clearPlacements, &placement, &remove, &proposal, &setMeta, &clearMeta })
            if (!s->ok())
                return m_db->failure("cannot prepare the writes");
        for (const DeletedPool& p : m_pending.deletedPools) {
            deletedPool.bind(1, p.name);
            deletedPool.bind(2, p.deletedMs);
            deletedPool.bind(3, p.businessLine);
            deletedPool.bind(4, p.tier);
            deletedPool.bind(5, nodeNamesText(p.nodes));
            if (!deletedPool.run())
                return m_db->failure("cannot keep deleted pool " + p.name);
        }
        for (const auto& [name, stored] : m_pending.pools) {
            if (!stored) {
                removePool.bind(1, name);
                if (!removePool.run())
                    return m_db->failure("cannot delete pool " + name);
                continue;
            }
            const StoredPool& p = *stored;
            pool.bind(1, p.name);
            pool.bind(2, p.businessLine);
            pool.bind(3, p.tier);
            pool.bind(4, p.cpuMillis);
            pool.bind(5, p.memoryMiB);
            pool.bind(6, std::int64_t { p.ioWeight });
            pool.bind(7, p.memBandwidthMBps);
            pool.bind(8, p.netBandwidthMbps);
            pool.bind(9, p.gpuShare);
            pool.bind(10, p.npuShare);
            pool.bind(11, p.fpgaShare);
            pool.bind(12, p.maxDisrupted);
            pool.bind(13, std::int64_t { p.maxDisruptedPercent });
            if (!pool.run())
                return m_db->failure("cannot write pool " + p.name);
        }
        for (const auto& [name, n] : m_pending.nodes) {
            node.bind(1, n.name);
            node.bind(2, n.isa);
            node.bind(3, n.tier);
            node.bind(4, n.cpuMillis);
            node.bind(5, n.memoryMiB);
            node.bind(6, n.cpuModel);
            node.bind(7, n.lastSeenMs);
            node.bind(8, n.cordon);
            node.bind(9, std::int64_t { n.peakReserved ? 1 : 0 });
            node.bind(10, n.drainMaxParallel);
            node.bind(11, n.drainStartedMs);
            node.bind(12, n.drainDeadlineMs);
            node.bind(13, n.drainActor);
            node.bind(14, n.drainMoved);
            node.bind(15, n.drainEvicted);
            clearDevices.bind(1, n.name);
            if (!node.run() || !clearDevices.run())
                return m_db->failure("cannot write node " + n.name);
            std::int64_t index = 0;
            for (const auto& d : n.devices) {
                device.bind(1, n.name);
                device.bind(2, index++);
                device.bind(3, d.value("kind", std::string()));
                device.bind(4, d.value("model", std::string()));
                device.bind(5, d.value("memoryMiB", std::int64_t { 0 }));
                device.bind(6, d.value("shareCapacity", std::int64_t { 0 }));
                if (!device.run())
                    return m_db->failure("cannot write the devices of node " + n.name);
            }
        }
        for (const auto& [id, w] : m_pending.workloads) {
            clearPlacements.bind(1, id);
            if (!clearPlacements.run())
                return m_db->failure("cannot write the placement of workload " + std::to_string(id));
            if (!w) {
                remove.bind(1, id);
                if (!remove.run())
                    return m_db->failure("cannot delete workload " + std::to_string(id));
                continue;
            }
            workload.bind(1, w->id);
            workload.bind(2, dumpJson(w->spec));
            workload.bind(3, w->phase);
            workload.bind(4, w->node);
            workload.bind(5, std::int64_t { w->translated ? 1 : 0 });
            workload.bind(6, std::int64_t { w->pid });
            workload.bind(7, std::int64_t { w->exitCode });
            workload.bind(8, w->detail);
            workload.bind(9, w->submittedMs);
            workload.bind(10, w->placedMs);
            workload.bind(11, w->runningMs);
            workload.bind(12, w->finishedMs);
            workload.bind(13, std::int64_t { w->incarnation });
            workload.bind(14, std::int64_t { w->highestIncarnation });
            workload.bind(15, std::int64_t { w->restarts });
            workload.bind(16, std::int64_t { w->crashLoop });
            workload.bind(17, w->restartAtMs);
            workload.bind(18, w->previousNode);
            workload.bind(19, std::int64_t { w->previousIncarnation });
            workload.bind(20, w->measuredSinceMs);
            workload.bind(21, w->peakCpuMillis);
            workload.bind(22, w->peakMemoryMiB);
            workload.bind(23, w->cpuHistogram.is_null() ? std::string() : dumpJson(w->cpuHistogram));
            if (!workload.run())
                return m_db->failure("cannot write workload " + std::to_string(id));
            for (const auto& d : w->devices) {
                placement.bind(1, id);
                placement.bind(2, d.value("device", std::int64_t { 0 }));
                placement.bind(3, d.value("share", std::int64_t { 0 }));
                placement.bind(4, d.value("memoryMiB", std::int64_t { 0 }));
                if (!placement.run())
                    return m_db->failure("cannot write the placement of workload " + std::to_string(id));
            }
        }
        for (const auto& [id, p] : m_pending.proposals) {
            proposal.bind(1, p.id);
            proposal.bind(2, p.kind);
            proposal.bind(3, p.state);
            proposal.bind(4, p.risk);
            proposal.bind(5, p.reason);
            proposal.bind(6, dumpJson(p.effect));
            proposal.bind(7, dumpJson(p.plan));
            proposal.bind(8, p.stateVersion);
            proposal.bind(9, p.createdMs);
            proposal.bind(10, p.expiresMs);
            proposal.bind(11, p.decidedBy);
            proposal.bind(12, p.decidedMs);
            proposal.bind(13, dumpJson(p.steps));
            proposal.bind(14, p.detail);
            if (!proposal.run())
                return m_db->failure("cannot write proposal " + std::to_string(id));
        }
        for (const auto& [key, value] : m_pending.meta) {
            Statement& statement = value.empty() ? clearMeta : setMeta;
            statement.bind(1, key);
            if (!value.empty())
                statement.bind(2, value);
            if (!statement.run())
                return m_db->failure("cannot write setting " + key);
        }
        return {};
    }

    protocol::OwnerLock m_lock; // let go after the connection has closed (`lockDatabase`)
    std::unique_ptr<Database> m_db;
    HistoryTables m_history;
};

} // namespace

Expected<std::unique_ptr<Store>> openSqliteStore(const std::string& path, bool fresh)
{
    auto lock = lockDatabase(path);
    if (!lock)
        return tl::unexpected(lock.error());
    if (fresh)
        for (const char* suffix : { "", "-wal", "-shm", "-journal" })
            std::filesystem::remove(path + suffix);
    auto db = Database::open(path);
    if (!db)
        return tl::unexpected(db.error());
    auto store = std::make_unique<SqliteStore>(std::move(*lock), std::move(*db));
    if (auto opened = store->open(); !opened)
        return tl::unexpected(opened.error());
    return std::unique_ptr<Store>(std::move(store));
}

Expected<void> migrateSqliteDatabase(const std::string& path, int version)
{
    if (version < 0 || version > kSchemaVersion)
        return makeError(ErrorCode::InvalidArgument, "schema version " + std::to_string(version) + " does not exist");
    auto lock = lockDatabase(path);
    if (!lock)
        return tl::unexpected(lock.error());
    auto db = Database::open(path);
    if (!db)
        return tl::unexpected(db.error());
    if (auto wal = (*db)->exec("PRAGMA journal_mode=WAL"); !wal)
        return wal;
    return migrate(**db, version);
}

} // namespace tidepool::store
