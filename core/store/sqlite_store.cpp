#include "core/store/store.h"

#include <sqlite3.h>

#include <map>
#include <optional>
#include <variant>

namespace tidepool::store {

namespace {

// Forward migrations: entry i takes the schema from version i to i + 1.
const char* const kMigrations[] = {
    R"sql(
    CREATE TABLE pools (
        name TEXT PRIMARY KEY,
        business_line TEXT NOT NULL,
        tier TEXT NOT NULL,
        cpu_millis INTEGER NOT NULL,
        memory_mib INTEGER NOT NULL,
        io_weight INTEGER NOT NULL
    );
    CREATE TABLE nodes (
        name TEXT PRIMARY KEY,
        isa TEXT NOT NULL,
        tier TEXT NOT NULL,
        cpu_millis INTEGER NOT NULL,
        memory_mib INTEGER NOT NULL,
        devices TEXT NOT NULL,
        cpu_model TEXT NOT NULL,
        last_seen_ms INTEGER NOT NULL
    );
    CREATE TABLE workloads (
        id INTEGER PRIMARY KEY,
        spec TEXT NOT NULL,
        phase TEXT NOT NULL,
        node TEXT NOT NULL,
        devices TEXT NOT NULL,
        translated INTEGER NOT NULL,
        pid INTEGER NOT NULL,
        exit_code INTEGER NOT NULL,
        detail TEXT NOT NULL,
        submitted_ms INTEGER NOT NULL,
        placed_ms INTEGER NOT NULL,
        running_ms INTEGER NOT NULL,
        finished_ms INTEGER NOT NULL
    );
    )sql",
};
static_assert(std::size(kMigrations) == kSchemaVersion);

class Statement {
public:
    Statement(sqlite3* db, const char* sql) { m_ok = sqlite3_prepare_v2(db, sql, -1, &m_statement, nullptr) == SQLITE_OK; }
    ~Statement() { sqlite3_finalize(m_statement); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    bool ok() const { return m_ok; }
    sqlite3_stmt* get() { return m_statement; }
    void bind(int index, std::int64_t value) { sqlite3_bind_int64(m_statement, index, value); }
    void bind(int index, const std::string& value)
    {
        sqlite3_bind_text(m_statement, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
    }
    int step() { return sqlite3_step(m_statement); }
    void reset()
    {
        sqlite3_reset(m_statement);
        sqlite3_clear_bindings(m_statement);
    }
    std::int64_t integer(int column) { return sqlite3_column_int64(m_statement, column); }
    std::string text(int column)
    {
        const auto* p = sqlite3_column_text(m_statement, column);
        return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(m_statement, column)))
                 : std::string();
    }

private:
    sqlite3_stmt* m_statement = nullptr;
    bool m_ok = false;
};

nlohmann::json parseJson(const std::string& text)
{
    return nlohmann::json::parse(text, nullptr, false);
}

class SqliteStore final : public Store {
public:
    SqliteStore(sqlite3* db, std::string path)
        : m_db(db)
        , m_path(std::move(path))
    {
    }
    ~SqliteStore() override { sqlite3_close_v2(m_db); }

    Expected<void> migrate()
    {
        // WAL: readers (a console, a report) never block the core's writer; NORMAL sync is durable at checkpoints
        // and safe against corruption, the usual pairing with WAL.
        for (const char* pragma : { "PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA busy_timeout=2000" })
            if (auto done = exec(pragma); !done)
                return done;
        Statement version(m_db, "PRAGMA user_version");
        if (!version.ok() || version.step() != SQLITE_ROW)
            return failure("cannot read the schema version");
        const auto current = version.integer(0);
        if (current > kSchemaVersion)
            return makeError(ErrorCode::InvalidArgument,
                "database " + m_path + " has schema version " + std::to_string(current) + ", newer than this tidepoold's "
                    + std::to_string(kSchemaVersion) + "; refusing to touch it");
        for (auto v = current; v < kSchemaVersion; ++v) {
            if (auto done = exec("BEGIN IMMEDIATE"); !done)
                return done;
            auto applied = exec(kMigrations[v]);
            if (applied)
                applied = exec(("PRAGMA user_version=" + std::to_string(v + 1)).c_str());
            if (!applied) {
                exec("ROLLBACK");
                return applied;
            }
            if (auto done = exec("COMMIT"); !done)
                return done;
        }
        return {};
    }

    Expected<Snapshot> load() override
    {
        Snapshot snapshot;
        Statement pools(m_db, "SELECT name, business_line, tier, cpu_millis, memory_mib, io_weight FROM pools ORDER BY rowid");
        Statement nodes(m_db,
            "SELECT name, isa, tier, cpu_millis, memory_mib, devices, cpu_model, last_seen_ms FROM nodes ORDER BY rowid");
        Statement workloads(m_db,
            "SELECT id, spec, phase, node, devices, translated, pid, exit_code, detail, submitted_ms, placed_ms, running_ms, "
            "finished_ms FROM workloads ORDER BY id");
        if (!pools.ok() || !nodes.ok() || !workloads.ok())
            return failure("cannot read the tables");
        int rc = 0;
        while ((rc = pools.step()) == SQLITE_ROW)
            snapshot.pools.push_back(StoredPool { pools.text(0), pools.text(1), pools.text(2), pools.integer(3),
                pools.integer(4), static_cast<std::int32_t>(pools.integer(5)) });
        if (rc != SQLITE_DONE)
            return failure("cannot read the pools");
        while ((rc = nodes.step()) == SQLITE_ROW)
            snapshot.nodes.push_back(StoredNode { nodes.text(0), nodes.text(1), nodes.text(2), nodes.integer(3),
                nodes.integer(4), parseJson(nodes.text(5)), nodes.text(6), nodes.integer(7) });
        if (rc != SQLITE_DONE)
            return failure("cannot read the nodes");
        while ((rc = workloads.step()) == SQLITE_ROW) {
            StoredWorkload w;
            w.id = workloads.integer(0);
            w.spec = parseJson(workloads.text(1));
            w.phase = workloads.text(2);
            w.node = workloads.text(3);
            w.devices = parseJson(workloads.text(4));
            w.translated = workloads.integer(5) != 0;
            w.pid = static_cast<std::int32_t>(workloads.integer(6));
            w.exitCode = static_cast<std::int32_t>(workloads.integer(7));
            w.detail = workloads.text(8);
            w.submittedMs = workloads.integer(9);
            w.placedMs = workloads.integer(10);
            w.runningMs = workloads.integer(11);
            w.finishedMs = workloads.integer(12);
            snapshot.workloads.push_back(std::move(w));
        }
        if (rc != SQLITE_DONE)
            return failure("cannot read the workloads");
        return snapshot;
    }

    void putPool(const StoredPool& pool) override { m_pools[pool.name] = pool; }
    void putNode(const StoredNode& node) override { m_nodes[node.name] = node; }
    void putWorkload(const StoredWorkload& workload) override { m_workloads[workload.id] = workload; }
    void removeWorkload(std::int64_t id) override { m_workloads[id] = std::nullopt; }
    std::size_t pending() const override { return m_pools.size() + m_nodes.size() + m_workloads.size(); }

    Expected<void> commit() override
    {
        if (pending() == 0)
            return {};
        if (auto begun = exec("BEGIN IMMEDIATE"); !begun)
            return begun;
        auto written = writeAll();
        if (written)
            written = exec("COMMIT");
        if (!written) {
            // Nothing of this batch reached the database; it stays pending for the next commit.
            exec("ROLLBACK");
            return written;
        }
        m_pools.clear();
        m_nodes.clear();
        m_workloads.clear();
        return {};
    }

private:
    Expected<void> writeAll()
    {
        Statement pool(m_db,
            "INSERT OR REPLACE INTO pools (name, business_line, tier, cpu_millis, memory_mib, io_weight) VALUES (?,?,?,?,?,?)");
        Statement node(m_db,
            "INSERT OR REPLACE INTO nodes (name, isa, tier, cpu_millis, memory_mib, devices, cpu_model, last_seen_ms) "
            "VALUES (?,?,?,?,?,?,?,?)");
        Statement workload(m_db,
            "INSERT OR REPLACE INTO workloads (id, spec, phase, node, devices, translated, pid, exit_code, detail, "
            "submitted_ms, placed_ms, running_ms, finished_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
        Statement remove(m_db, "DELETE FROM workloads WHERE id = ?");
        if (!pool.ok() || !node.ok() || !workload.ok() || !remove.ok())
            return failure("cannot prepare the writes");
        for (const auto& [name, p] : m_pools) {
            pool.bind(1, p.name);
            pool.bind(2, p.businessLine);
            pool.bind(3, p.tier);
            pool.bind(4, p.cpuMillis);
            pool.bind(5, p.memoryMiB);
            pool.bind(6, p.ioWeight);
            if (pool.step() != SQLITE_DONE)
                return failure("cannot write pool " + p.name);
            pool.reset();
        }
        for (const auto& [name, n] : m_nodes) {
            node.bind(1, n.name);
            node.bind(2, n.isa);
            node.bind(3, n.tier);
            node.bind(4, n.cpuMillis);
            node.bind(5, n.memoryMiB);
            node.bind(6, n.devices.dump());
            node.bind(7, n.cpuModel);
            node.bind(8, n.lastSeenMs);
            if (node.step() != SQLITE_DONE)
                return failure("cannot write node " + n.name);
            node.reset();
        }
        for (const auto& [id, w] : m_workloads) {
            if (!w) {
                remove.bind(1, id);
                if (remove.step() != SQLITE_DONE)
                    return failure("cannot delete workload " + std::to_string(id));
                remove.reset();
                continue;
            }
            workload.bind(1, w->id);
            workload.bind(2, w->spec.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
            workload.bind(3, w->phase);
            workload.bind(4, w->node);
            workload.bind(5, w->devices.dump());
            workload.bind(6, w->translated ? 1 : 0);
            workload.bind(7, w->pid);
            workload.bind(8, w->exitCode);
            workload.bind(9, w->detail);
            workload.bind(10, w->submittedMs);
            workload.bind(11, w->placedMs);
            workload.bind(12, w->runningMs);
            workload.bind(13, w->finishedMs);
            if (workload.step() != SQLITE_DONE)
                return failure("cannot write workload " + std::to_string(id));
            workload.reset();
        }
        return {};
    }

    Expected<void> exec(const char* sql)
    {
        char* message = nullptr;
        if (sqlite3_exec(m_db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
            std::string why = message ? message : sqlite3_errmsg(m_db);
            sqlite3_free(message);
            return makeError(ErrorCode::IoError, "database " + m_path + ": " + why);
        }
        return {};
    }

    tl::unexpected<Error> failure(const std::string& what)
    {
        return makeError(ErrorCode::IoError, "database " + m_path + ": " + what + ": " + sqlite3_errmsg(m_db));
    }

    sqlite3* m_db;
    std::string m_path;
    std::map<std::string, StoredPool> m_pools;
    std::map<std::string, StoredNode> m_nodes;
    std::map<std::int64_t, std::optional<StoredWorkload>> m_workloads; // nullopt = delete
};

} // namespace

Expected<std::unique_ptr<Store>> openSqliteStore(const std::string& path)
{
    sqlite3* db = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        std::string why = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
        sqlite3_close_v2(db);
        return makeError(ErrorCode::IoError, "database " + path + ": cannot open: " + why);
    }
    auto store = std::make_unique<SqliteStore>(db, path);
    if (auto migrated = store->migrate(); !migrated)
        return tl::unexpected(migrated.error());
    return std::unique_ptr<Store>(std::move(store));
}

} // namespace tidepool::store
