// `openPostgresStore`: the store of a shared deployment, in a PostgreSQL database that outlives the daemon's machine.
// The same tables and meaning as the SQLite store at the same schema version; one tidepoold writes a database (a
// session-level advisory lock); a commit is one transaction whose statements travel in a pipeline; a connection the
// server dropped (or that did not answer in time) is taken up again at the next commit or read.
#include "core/store/pending_changes.h"
#include "core/store/pg_db.h"
#include "core/store/pg_history.h"
#include "core/store/pg_schema.h"
#include "core/store/store.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <thread>

namespace tidepool::store {

namespace {

using pg::number;

// The advisory lock that makes tidepoold the one writer of a database: "tidepool" in ASCII, as a 64-bit key.
constexpr std::int64_t kWriterLock = 0x74696465706f6f6c;

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

// A commit whose outcome turned out to be written comes off the pending changes, as if it had succeeded: a value
// still as that commit wrote it is done, one changed since is still to be written; the samples, forecasts and audit
// entries it wrote are the first ones still pending, as later ones were appended and no commit succeeded meanwhile.
void removeWritten(PendingChanges& pending, const PendingChanges& written)
{
    const auto removeUnchanged = [](auto& now, const auto& then) {
        for (const auto& [key, value] : then)
            if (const auto it = now.find(key); it != now.end() && it->second == value)
                now.erase(it);
    };
    removeUnchanged(pending.pools, written.pools);
    removeUnchanged(pending.nodes, written.nodes);
    removeUnchanged(pending.workloads, written.workloads);
    removeUnchanged(pending.proposals, written.proposals);
    removeUnchanged(pending.meta, written.meta);
    const auto removeFirst = [](auto& now, const auto& then) {
        now.erase(now.begin(), now.begin() + static_cast<std::ptrdiff_t>(std::min(now.size(), then.size())));
    };
    removeFirst(pending.samples, written.samples);
    removeFirst(pending.forecasts, written.forecasts);
    removeFirst(pending.audit, written.audit);
}

class PostgresStore final : public BufferedStore {
public:
    explicit PostgresStore(std::unique_ptr<pg::Connection> connection)
        : m_db(std::move(connection))
        , m_history(*m_db)
    {
    }

    Expected<void> open()
    {
        if (auto locked = lockDatabase(); !locked)
            return locked;
        return pg::migrate(*m_db, kSchemaVersion);
    }

    Expected<Snapshot> load() override
    {
        return retrying([this] { return readSnapshot(); });
    }

    // Not retried within the call. A failed commit keeps its changes pending. When the connection was lost (or closed
    // after the server did not answer in time) after `COMMIT` was sent, whether the server committed is unknown: the
    // transaction's id and a copy of the batch are kept, and `settle` asks the server once a new session holds the
    // writer's lock. Writing the batch again blindly would be harmless for the upserts but would put the audit
    // entries, plain inserts, in the log twice.
    Expected<void> commit() override
    {
        if (m_pending.size() == 0)
            return {};
        if (auto up = ready(); !up)
            return up;
        if (m_pending.size() == 0)
            return {}; // the interrupted commit had written everything
        pg::Transaction transaction(*m_db);
        std::int64_t transactionId = 0;
        Expected<void> written;
        if (auto begun = transaction.beginWithId())
            transactionId = *begun;
        else
            written = tl::unexpected(begun.error());
        if (written)
            written = m_history.prepare(m_pending);
        if (written) {
            pg::Pipeline pipeline(*m_db);
            writeState(pipeline);
            m_history.writeSamples(pipeline, m_pending.samples);
            for (const StoredForecast& forecast : m_pending.forecasts)
                m_history.writeForecast(pipeline, forecast);
            m_history.writeAudit(pipeline, m_pending.audit);
            written = pipeline.finish();
        }
        if (written) {
            written = transaction.commit();
            // Without an answer and without a connection, `COMMIT` may or may not have taken effect. A `COMMIT` the
            // server refused on a live connection (a deferred constraint) was rolled back.
            if (!written && m_db->broken())
                m_inDoubt = InDoubt { transactionId, m_pending };
        }
        if (!written) {
            // The batch stays pending for the next commit: nothing of it reached the database (the transaction
            // rolls back), or, in doubt, `settle` finds out before anything else is written.
            m_history.forget();
            return written;
        }
        m_pending.clear();
        return {};
    }

    Expected<std::vector<HistoryPoint>> history(
        const SeriesKey& series, std::int64_t fromMs, std::int64_t toMs, Resolution resolution) override
    {
        return retrying([&] { return m_history.history(series, fromMs, toMs, resolution); });
    }
    Expected<std::vector<SeriesKey>> seriesList() override
    {
        return retrying([this] { return m_history.seriesList(); });
    }
    Expected<std::optional<StoredForecast>> latestForecast(const SeriesKey& series) override
    {
        return retrying([&] { return m_history.latestForecast(series); });
    }
    Expected<std::vector<AuditEntry>> audit(const AuditQuery& query) override
    {
        return retrying([&] { return m_history.audit(query); });
    }
    Expected<void> maintain(std::int64_t nowMs, const Retention& retention) override
    {
        if (auto up = ready(); !up)
            return up;
        auto done = m_history.maintain(nowMs, retention);
        if (!done)
            m_history.forget();
        return done;
    }

private:
    // Session-level: held while this connection lives, and released by the server when it ends (a crash included).
    // A daemon restarted at once after a kill -9 may find its predecessor's session still ending, so the lock is
    // tried for 2 s before the database is declared in use.
    //
    // Taking it again after the connection was lost or given up on: the server may still run this store's previous
    // session, holding the lock (a server process that was stuck, or one that has not yet noticed that its client
    // went away, which over TCP can take hours), so that session is ended first. It is recognised by its server
    // process id and start time, recorded when it took the lock, so no other client's session is ever ended.
    Expected<void> lockDatabase()
    {
        if (m_session)
            (void)m_db->query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = $1 AND "
                              "(extract(epoch FROM backend_start) * 1000000)::bigint = $2 AND pid <> pg_backend_pid()",
                { number(m_session->pid), number(m_session->startedUs) }, "cannot end the previous session");
        for (int attempt = 0; attempt < 20; ++attempt) {
            if (attempt > 0)
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            auto taken = m_db->query("SELECT pg_try_advisory_lock($1), pg_backend_pid(), "
                                     "(SELECT (extract(epoch FROM backend_start) * 1000000)::bigint "
                                     "FROM pg_stat_activity WHERE pid = pg_backend_pid())",
                { number(kWriterLock) }, "cannot take the writer's lock");
            if (!taken)
                return tl::unexpected(taken.error());
            if (taken->boolean(0, 0)) {
                m_session = Session { taken->integer(0, 1), taken->integer(0, 2) };
                m_locked = true;
                return {};
            }
        }
        std::string holder;
        auto who = m_db->query("SELECT a.pid, coalesce(host(a.client_addr), 'a local socket'), a.application_name "
                               "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                               "WHERE l.locktype = 'advisory' AND l.granted AND l.database = "
                               "(SELECT oid FROM pg_database WHERE datname = current_database()) "
                               "AND (l.classid::bigint << 32 | l.objid::bigint) = $1",
            { number(kWriterLock) }, "cannot find the lock's holder");
        if (who && who->rows() > 0 && m_session && who->integer(0, 0) == m_session->pid)
            return makeError(ErrorCode::IoError,
                m_db->name() + ": the writer's lock is still held by this daemon's previous session (server process "
                    + who->text(0, 0)
                    + "), which was asked to end and has not yet (a stopped or stuck server process ends when it "
                      "runs again); the next attempt tries again");
        if (who && who->rows() > 0)
            holder = " (server process " + who->text(0, 0) + ", connected from " + who->text(0, 1) + ", application \""
                + who->text(0, 2) + "\")";
        return makeError(ErrorCode::InvalidArgument,
            m_db->name() + " is in use by another tidepoold" + holder
                + "; one daemon writes a database, so stop that one or give this one another database (a session "
                  "of a machine that died lingers until the server notices; pg_terminate_backend ends it)");
    }

    // A connection the server dropped (or that was closed after the server did not answer in time) is taken up
    // again, with the writer's lock (which went with it): if another tidepoold took the database meanwhile, this one
    // stays refused, and nothing is read or written on the new connection until the lock is this store's again.
    Expected<void> ready()
    {
        if (m_db->broken()) {
            m_locked = false;
            m_history.forget();
            if (auto up = m_db->reconnect(); !up)
                return up;
        }
        if (!m_locked)
            if (auto locked = lockDatabase(); !locked)
                return locked;
        return settle();
    }

    // Decides a commit whose `COMMIT` went unanswered. This store holds the writer's lock again, on a new session;
    // the server released it from the old session only when that session ended, after it had finished (committed or
    // rolled back) its transaction, so the server now knows for certain which it was.
    Expected<void> settle()
    {
        if (!m_inDoubt)
            return {};
        auto status = m_db->query("SELECT txid_status($1)", { number(m_inDoubt->transactionId) },
            "cannot find out whether the interrupted commit was written");
        if (!status)
            return tl::unexpected(status.error());
        if (status->text(0, 0) == "committed")
            removeWritten(m_pending, m_inDoubt->batch);
        // "aborted": the batch is still pending and is written again. Null (an id so old that the server no longer
        // knows it, billions of transactions later) is treated alike, so that nothing is lost. "in progress" cannot
        // be the answer once the old session has ended.
        m_inDoubt.reset();
        return {};
    }

    // A read that failed because the connection was lost is tried once more on a new one: reads change nothing.
    template <typename Read> auto retrying(Read read) -> decltype(read())
    {
        if (auto up = ready(); !up)
            return tl::unexpected(up.error());
        auto result = read();
        if (result || !m_db->broken())
            return result;
        if (auto up = ready(); !up)
            return tl::unexpected(up.error());
        return read();
    }

    Expected<Snapshot> readSnapshot()
    {
        Snapshot snapshot;
        std::map<std::string, nlohmann::json> devices; // by node
        std::map<std::int64_t, nlohmann::json> placements; // by workload
        auto rows
            = m_db->query("SELECT node, idx, kind, model, memory_mib, share_capacity FROM devices ORDER BY node, idx",
                {}, "cannot read the devices");
        if (!rows)
            return tl::unexpected(rows.error());
        for (int r = 0; r < rows->rows(); ++r) {
            auto& list = devices[rows->text(r, 0)];
            if (list.is_null())
                list = nlohmann::json::array();
            list.push_back({ { "kind", rows->text(r, 2) }, { "model", rows->text(r, 3) },
                { "memoryMiB", rows->integer(r, 4) }, { "shareCapacity", rows->integer(r, 5) } });
        }
        rows = m_db->query("SELECT workload, device, share, memory_mib FROM placements ORDER BY workload, device", {},
            "cannot read the placements");
        if (!rows)
            return tl::unexpected(rows.error());
        for (int r = 0; r < rows->rows(); ++r) {
            auto& list = placements[rows->integer(r, 0)];
            if (list.is_null())
                list = nlohmann::json::array();
            list.push_back({ { "device", rows->integer(r, 1) }, { "share", rows->integer(r, 2) },
                { "memoryMiB", rows->integer(r, 3) } });
        }
        rows = m_db->query(
            "SELECT name, business_line, tier, cpu_millis, memory_mib, io_weight, mem_bandwidth_mbps, "
            "net_bandwidth_mbps, gpu_share, npu_share, fpga_share, max_disrupted, max_disrupted_percent FROM pools "
            "ORDER BY written",
            {}, "cannot read the pools");
        if (!rows)
            return tl::unexpected(rows.error());
        for (int r = 0; r < rows->rows(); ++r)
            snapshot.pools.push_back(StoredPool { rows->text(r, 0), rows->text(r, 1), rows->text(r, 2),
                rows->integer(r, 3), rows->integer(r, 4), static_cast<std::int32_t>(rows->integer(r, 5)),
                rows->integer(r, 6), rows->integer(r, 7), rows->integer(r, 8), rows->integer(r, 9),
                rows->integer(r, 10), rows->integer(r, 11), static_cast<std::int32_t>(rows->integer(r, 12)) });
        rows = m_db->query("SELECT name, business_line, tier, nodes, deleted_ms FROM deleted_pools "
                           "ORDER BY deleted_ms, name",
            {}, "cannot read the deleted pools");
        if (!rows)
            return tl::unexpected(rows.error());
        for (int r = 0; r < rows->rows(); ++r)
            snapshot.deletedPools.push_back(DeletedPool { rows->text(r, 0), rows->text(r, 1), rows->text(r, 2),
                nodeNamesFrom(rows->text(r, 3)), rows->integer(r, 4) });
        rows = m_db->query("SELECT name, isa, tier, cpu_millis, memory_mib, cpu_model, last_seen_ms, cordon, "
                           "peak_reserved, drain_max_parallel, drain_started_ms, drain_deadline_ms, drain_actor, "
                           "drain_moved, drain_evicted FROM nodes ORDER BY written",
            {}, "cannot read the nodes");
        if (!rows)
            return tl::unexpected(rows.error());
        for (int r = 0; r < rows->rows(); ++r) {
            StoredNode n { rows->text(r, 0), rows->text(r, 1), rows->text(r, 2), rows->integer(r, 3),
                rows->integer(r, 4), nlohmann::json::array(), rows->text(r, 5), rows->integer(r, 6), rows->text(r, 7),
                rows->boolean(r, 8), rows->integer(r, 9), rows->integer(r, 10), rows->integer(r, 11), rows->text(r, 12),
                rows->integer(r, 13), rows->integer(r, 14) };
            if (const auto it = devices.find(n.name); it != devices.end())
                n.devices = std::move(it->second);
            snapshot.nodes.push_back(std::move(n));
        }
        rows = m_db->query("SELECT id, spec, phase, node, translated, pid, exit_code, detail, submitted_ms, placed_ms, "
                           "running_ms, finished_ms, incarnation, highest_incarnation, restarts, crash_loop, "
                           "restart_at_ms, previous_node, previous_incarnation, measured_since_ms, peak_cpu_millis, "
                           "peak_memory_mib, cpu_histogram FROM workloads ORDER BY id",
            {}, "cannot read the workloads");
        if (!rows)
            return tl::unexpected(rows.error());
        for (int r = 0; r < rows->rows(); ++r) {
            StoredWorkload w;
            w.id = rows->integer(r, 0);
            w.spec = parseJson(rows->text(r, 1));
            w.phase = rows->text(r, 2);
            w.node = rows->text(r, 3);
            if (const auto it = placements.find(w.id); it != placements.end())
                w.devices = std::move(it->second);
            w.translated = rows->boolean(r, 4);
            w.pid = static_cast<std::int32_t>(rows->integer(r, 5));
            w.exitCode = static_cast<std::int32_t>(rows->integer(r, 6));
            w.detail = rows->text(r, 7);
            w.submittedMs = rows->integer(r, 8);
            w.placedMs = rows->integer(r, 9);
            w.runningMs = rows->integer(r, 10);
            w.finishedMs = rows->integer(r, 11);
            w.incarnation = static_cast<std::int32_t>(rows->integer(r, 12));
            w.highestIncarnation = static_cast<std::int32_t>(rows->integer(r, 13));
            w.restarts = static_cast<std::int32_t>(rows->integer(r, 14));
            w.crashLoop = static_cast<std::int32_t>(rows->integer(r, 15));
            w.restartAtMs = rows->integer(r, 16);
            w.previousNode = rows->text(r, 17);
            w.previousIncarnation = static_cast<std::int32_t>(rows->integer(r, 18));
            w.measuredSinceMs = rows->integer(r, 19);
            w.peakCpuMillis = rows->integer(r, 20);
            w.peakMemoryMiB = rows->integer(r, 21);
            w.cpuHistogram = optionalJson(rows->text(r, 22));
            snapshot.workloads.push_back(std::move(w));
        }
        rows = m_db->query("SELECT key, value FROM meta", {}, "cannot read the meta table");
        if (!rows)
            return tl::unexpected(rows.error());
        for (int r = 0; r < rows->rows(); ++r)
            snapshot.meta[rows->text(r, 0)] = rows->text(r, 1);
        rows = m_db->query("SELECT id, kind, state, risk, reason, effect, plan, state_version, created_ms, expires_ms, "
                           "decided_by, decided_ms, steps, detail FROM proposals ORDER BY id",
            {}, "cannot read the proposals");
        if (!rows)
            return tl::unexpected(rows.error());
        for (int r = 0; r < rows->rows(); ++r)
            snapshot.proposals.push_back(StoredProposal { rows->integer(r, 0), rows->text(r, 1), rows->text(r, 2),
                rows->text(r, 3), rows->text(r, 4), parseJson(rows->text(r, 5)), parseJson(rows->text(r, 6)),
                rows->integer(r, 7), rows->integer(r, 8), rows->integer(r, 9), rows->text(r, 10), rows->integer(r, 11),
                parseJson(rows->text(r, 12)), rows->text(r, 13) });
        snapshot.nextProposalId = snapshot.proposals.empty() ? 1 : snapshot.proposals.back().id + 1;
        return snapshot;
    }

    // Queues the live state's changes: upserts, and a node's devices and a workload's placement replaced whole.
    void writeState(pg::Pipeline& pipeline)
    {
        for (const DeletedPool& p : m_pending.deletedPools)
            pipeline.add("INSERT INTO deleted_pools (name, deleted_ms, business_line, tier, nodes) "
                         "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name, deleted_ms) DO UPDATE SET "
                         "business_line = EXCLUDED.business_line, tier = EXCLUDED.tier, nodes = EXCLUDED.nodes",
                { p.name, number(p.deletedMs), p.businessLine, p.tier, nodeNamesText(p.nodes) },
                "cannot keep deleted pool " + p.name);
        for (const auto& [name, stored] : m_pending.pools) {
            if (!stored) {
                pipeline.add("DELETE FROM pools WHERE name = $1", { name }, "cannot delete pool " + name);
                continue;
            }
            const StoredPool& p = *stored;
            pipeline.add(
                "INSERT INTO pools (name, business_line, tier, cpu_millis, memory_mib, io_weight, mem_bandwidth_mbps, "
                "net_bandwidth_mbps, gpu_share, npu_share, fpga_share, max_disrupted, max_disrupted_percent) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (name) DO UPDATE SET "
                "business_line = EXCLUDED.business_line, tier = EXCLUDED.tier, cpu_millis = EXCLUDED.cpu_millis, "
                "memory_mib = EXCLUDED.memory_mib, io_weight = EXCLUDED.io_weight, "
                "mem_bandwidth_mbps = EXCLUDED.mem_bandwidth_mbps, net_bandwidth_mbps = EXCLUDED.net_bandwidth_mbps, "
                "gpu_share = EXCLUDED.gpu_share, npu_share = EXCLUDED.npu_share, fpga_share = EXCLUDED.fpga_share, "
                "max_disrupted = EXCLUDED.max_disrupted, max_disrupted_percent = EXCLUDED.max_disrupted_percent, "
                "written = EXCLUDED.written",
                { p.name, p.businessLine, p.tier, number(p.cpuMillis), number(p.memoryMiB),
                    number(std::int64_t { p.ioWeight }), number(p.memBandwidthMBps), number(p.netBandwidthMbps),
                    number(p.gpuShare), number(p.npuShare), number(p.fpgaShare), number(p.maxDisrupted),
                    number(std::int64_t { p.maxDisruptedPercent }) },
                "cannot write pool " + p.name);
        }
        for (const auto& [name, n] : m_pending.nodes) {
            pipeline.add(
                "INSERT INTO nodes (name, isa, tier, cpu_millis, memory_mib, cpu_model, last_seen_ms, cordon, "
                "peak_reserved, drain_max_parallel, drain_started_ms, drain_deadline_ms, drain_actor, "
                "drain_moved, drain_evicted) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, "
                "$14, $15) ON CONFLICT (name) DO UPDATE SET "
                "isa = EXCLUDED.isa, tier = EXCLUDED.tier, cpu_millis = EXCLUDED.cpu_millis, "
                "memory_mib = EXCLUDED.memory_mib, cpu_model = EXCLUDED.cpu_model, "
                "last_seen_ms = EXCLUDED.last_seen_ms, cordon = EXCLUDED.cordon, "
                "peak_reserved = EXCLUDED.peak_reserved, drain_max_parallel = EXCLUDED.drain_max_parallel, "
                "drain_started_ms = EXCLUDED.drain_started_ms, drain_deadline_ms = EXCLUDED.drain_deadline_ms, "
                "drain_actor = EXCLUDED.drain_actor, drain_moved = EXCLUDED.drain_moved, "
                "drain_evicted = EXCLUDED.drain_evicted, written = EXCLUDED.written",
                { n.name, n.isa, n.tier, number(n.cpuMillis), number(n.memoryMiB), n.cpuModel, number(n.lastSeenMs),
                    n.cordon, pg::boolean(n.peakReserved), number(n.drainMaxParallel), number(n.drainStartedMs),
                    number(n.drainDeadlineMs), n.drainActor, number(n.drainMoved), number(n.drainEvicted) },
                "cannot write node " + n.name);
            pipeline.add(
                "DELETE FROM devices WHERE node = $1", { n.name }, "cannot write the devices of node " + n.name);
            std::int64_t index = 0;
            for (const auto& d : n.devices)
                pipeline.add("INSERT INTO devices (node, idx, kind, model, memory_mib, share_capacity) "
                             "VALUES ($1, $2, $3, $4, $5, $6)",
                    { n.name, number(index++), d.value("kind", std::string()), d.value("model", std::string()),
                        number(d.value("memoryMiB", std::int64_t { 0 })),
                        number(d.value("shareCapacity", std::int64_t { 0 })) },
                    "cannot write the devices of node " + n.name);
        }
        for (const auto& [id, w] : m_pending.workloads) {
            const std::string what = "workload " + std::to_string(id);
            pipeline.add(
                "DELETE FROM placements WHERE workload = $1", { number(id) }, "cannot write the placement of " + what);
            if (!w) {
                pipeline.add("DELETE FROM workloads WHERE id = $1", { number(id) }, "cannot delete " + what);
                continue;
            }
            pipeline.add(
                "INSERT INTO workloads (id, spec, phase, node, translated, pid, exit_code, detail, submitted_ms, "
                "placed_ms, running_ms, finished_ms, incarnation, highest_incarnation, restarts, crash_loop, "
                "restart_at_ms, previous_node, previous_incarnation, measured_since_ms, peak_cpu_millis, "
                "peak_memory_mib, cpu_histogram) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, "
                "$21, $22, $23) "
                "ON CONFLICT (id) DO UPDATE SET spec = EXCLUDED.spec, phase = EXCLUDED.phase, "
                "node = EXCLUDED.node, translated = EXCLUDED.translated, pid = EXCLUDED.pid, "
                "exit_code = EXCLUDED.exit_code, detail = EXCLUDED.detail, "
                "submitted_ms = EXCLUDED.submitted_ms, placed_ms = EXCLUDED.placed_ms, "
                "running_ms = EXCLUDED.running_ms, finished_ms = EXCLUDED.finished_ms, "
                "incarnation = EXCLUDED.incarnation, highest_incarnation = EXCLUDED.highest_incarnation, "
                "restarts = EXCLUDED.restarts, crash_loop = EXCLUDED.crash_loop, "
                "restart_at_ms = EXCLUDED.restart_at_ms, previous_node = EXCLUDED.previous_node, "
                "previous_incarnation = EXCLUDED.previous_incarnation, "
                "measured_since_ms = EXCLUDED.measured_since_ms, peak_cpu_millis = EXCLUDED.peak_cpu_millis, "
                "peak_memory_mib = EXCLUDED.peak_memory_mib, cpu_histogram = EXCLUDED.cpu_histogram",
                { number(w->id), dumpJson(w->spec), w->phase, w->node, pg::boolean(w->translated),
                    number(std::int64_t { w->pid }), number(std::int64_t { w->exitCode }), w->detail,
                    number(w->submittedMs), number(w->placedMs), number(w->runningMs), number(w->finishedMs),
                    number(std::int64_t { w->incarnation }), number(std::int64_t { w->highestIncarnation }),
                    number(std::int64_t { w->restarts }), number(std::int64_t { w->crashLoop }), number(w->restartAtMs),
                    w->previousNode, number(std::int64_t { w->previousIncarnation }), number(w->measuredSinceMs),
                    number(w->peakCpuMillis), number(w->peakMemoryMiB),
                    w->cpuHistogram.is_null() ? std::string() : dumpJson(w->cpuHistogram) },
                "cannot write " + what);
            for (const auto& d : w->devices)
                pipeline.add("INSERT INTO placements (workload, device, share, memory_mib) VALUES ($1, $2, $3, $4)",
                    { number(id), number(d.value("device", std::int64_t { 0 })),
                        number(d.value("share", std::int64_t { 0 })),
                        number(d.value("memoryMiB", std::int64_t { 0 })) },
                    "cannot write the placement of " + what);
        }
        for (const auto& [id, p] : m_pending.proposals)
            pipeline.add(
                "INSERT INTO proposals (id, kind, state, risk, reason, effect, plan, state_version, created_ms, "
                "expires_ms, decided_by, decided_ms, steps, detail) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) "
                "ON CONFLICT (id) DO UPDATE SET kind = EXCLUDED.kind, state = EXCLUDED.state, "
                "risk = EXCLUDED.risk, reason = EXCLUDED.reason, effect = EXCLUDED.effect, plan = EXCLUDED.plan, "
                "state_version = EXCLUDED.state_version, created_ms = EXCLUDED.created_ms, "
                "expires_ms = EXCLUDED.expires_ms, decided_by = EXCLUDED.decided_by, "
                "decided_ms = EXCLUDED.decided_ms, steps = EXCLUDED.steps, detail = EXCLUDED.detail",
                { number(p.id), p.kind, p.state, p.risk, p.reason, dumpJson(p.effect), dumpJson(p.plan),
                    number(p.stateVersion), number(p.createdMs), number(p.expiresMs), p.decidedBy, number(p.decidedMs),
                    dumpJson(p.steps), p.detail },
                "cannot write proposal " + std::to_string(id));
        for (const auto& [key, value] : m_pending.meta) {
            if (value.empty())
                pipeline.add("DELETE FROM meta WHERE key = $1", { key }, "cannot write setting " + key);
            else
                pipeline.add("INSERT INTO meta (key, value) VALUES ($1, $2) "
                             "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                    { key, value }, "cannot write setting " + key);
        }
    }

    // The session that took the writer's lock (server process id and start time, in microseconds since 1970).
    struct Session {
        std::int64_t pid = 0;
        std::int64_t startedUs = 0;
    };
    // A commit that may or may not have been written: its transaction's id and what it wrote.
    struct InDoubt {
        std::int64_t transactionId = 0;
        PendingChanges batch;
    };

    std::unique_ptr<pg::Connection> m_db;
    pg::HistoryTables m_history;
    bool m_locked = false; // the current session holds the writer's lock
    std::optional<Session> m_session;
    std::optional<InDoubt> m_inDoubt;
};

} // namespace

Expected<std::unique_ptr<Store>> openPostgresStore(const std::string& conninfo, const PostgresOptions& options)
{
    if (options.answerTimeout <= std::chrono::milliseconds::zero())
        return makeError(ErrorCode::InvalidArgument,
            "the PostgreSQL answer timeout must be positive, not " + std::to_string(options.answerTimeout.count())
                + " ms");
    auto connection = pg::Connection::open(conninfo, options.answerTimeout);
    if (!connection)
        return tl::unexpected(connection.error());
    auto store = std::make_unique<PostgresStore>(std::move(*connection));
    if (auto opened = store->open(); !opened)
        return tl::unexpected(opened.error());
    return std::unique_ptr<Store>(std::move(store));
}

Expected<void> migratePostgresDatabase(const std::string& conninfo, int version)
{
    if (version != 0 && (version < 6 || version > kSchemaVersion))
        return makeError(ErrorCode::InvalidArgument,
            "schema version " + std::to_string(version) + " does not exist for PostgreSQL (it begins at 6)");
    auto connection = pg::Connection::open(conninfo, PostgresOptions {}.answerTimeout);
    if (!connection)
        return tl::unexpected(connection.error());
    return pg::migrate(**connection, version);
}

bool isPostgresLocation(const std::string& location)
{
    return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

Expected<std::unique_ptr<Store>> openStore(const std::string& location, const PostgresOptions& postgres)
{
    return isPostgresLocation(location) ? openPostgresStore(location, postgres) : openSqliteStore(location);
}

} // namespace tidepool::store
