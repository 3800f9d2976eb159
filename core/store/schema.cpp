#include "core/store/schema.h"

#include "core/store/store.h"

#include <iterator>

namespace tidepool::store {

namespace {

// Forward migrations: entry i takes the schema from version i to i + 1. Never edit one that has shipped; add the next.
const char* const kMigrations[] = {
    // 0 → 1: the live state of the daemon.
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
    // 1 → 2: devices and placements become tables of their own (they were JSON columns), so that reports and the
    // console can query accelerators and shares with SQL.
    R"sql(
    CREATE TABLE devices (
        node TEXT NOT NULL,
        idx INTEGER NOT NULL,
        kind TEXT NOT NULL,
        model TEXT NOT NULL,
        memory_mib INTEGER NOT NULL,
        share_capacity INTEGER NOT NULL,
        PRIMARY KEY (node, idx)
    ) WITHOUT ROWID;
    INSERT INTO devices (node, idx, kind, model, memory_mib, share_capacity)
        SELECT n.name, CAST(d.key AS INTEGER), json_extract(d.value, '$.kind'), json_extract(d.value, '$.model'),
               json_extract(d.value, '$.memoryMiB'), json_extract(d.value, '$.shareCapacity')
        FROM nodes n, json_each(n.devices) d;
    ALTER TABLE nodes DROP COLUMN devices;
    CREATE TABLE placements (
        workload INTEGER NOT NULL,
        device INTEGER NOT NULL,
        share INTEGER NOT NULL,
        memory_mib INTEGER NOT NULL,
        PRIMARY KEY (workload, device)
    ) WITHOUT ROWID;
    INSERT INTO placements (workload, device, share, memory_mib)
        SELECT w.id, json_extract(d.value, '$.device'), json_extract(d.value, '$.share'),
               json_extract(d.value, '$.memoryMiB')
        FROM workloads w, json_each(w.devices) d;
    ALTER TABLE workloads DROP COLUMN devices;
    )sql",
    // 2 → 3: utilisation history (raw samples and 5-minute aggregates), forecasts, rebalance proposals, the audit log.
    R"sql(
    CREATE TABLE series (
        id INTEGER PRIMARY KEY,
        scope TEXT NOT NULL,
        name TEXT NOT NULL,
        resource TEXT NOT NULL,
        UNIQUE (scope, name, resource)
    );
    CREATE TABLE samples (
        series INTEGER NOT NULL,
        at_ms INTEGER NOT NULL,
        value REAL NOT NULL,
        PRIMARY KEY (series, at_ms)
    ) WITHOUT ROWID;
    CREATE TABLE samples_5m (
        series INTEGER NOT NULL,
        bucket_ms INTEGER NOT NULL,
        mean REAL NOT NULL,
        min REAL NOT NULL,
        max REAL NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (series, bucket_ms)
    ) WITHOUT ROWID;
    CREATE TABLE forecasts (
        series INTEGER NOT NULL,
        made_ms INTEGER NOT NULL,
        model TEXT NOT NULL,
        step_ms INTEGER NOT NULL,
        points TEXT NOT NULL,
        PRIMARY KEY (series, made_ms)
    ) WITHOUT ROWID;
    CREATE TABLE proposals (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        state TEXT NOT NULL,
        risk TEXT NOT NULL,
        reason TEXT NOT NULL,
        effect TEXT NOT NULL,
        plan TEXT NOT NULL,
        state_version INTEGER NOT NULL,
        created_ms INTEGER NOT NULL,
        expires_ms INTEGER NOT NULL,
        decided_by TEXT NOT NULL,
        decided_ms INTEGER NOT NULL,
        steps TEXT NOT NULL,
        detail TEXT NOT NULL
    );
    CREATE INDEX proposals_state ON proposals (state);
    CREATE TABLE audit (
        id INTEGER PRIMARY KEY,
        at_ms INTEGER NOT NULL,
        actor TEXT NOT NULL,
        source TEXT NOT NULL,
        action TEXT NOT NULL,
        target TEXT NOT NULL,
        outcome TEXT NOT NULL,
        detail TEXT NOT NULL
    );
    CREATE INDEX audit_at ON audit (at_ms);
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    )sql",
    // 3 → 4: a node's cordon (an operator's, or a power-down proposal's) and its reservation for the next peak (hot
    // capacity no batch may take) survive a restart.
    R"sql(
    ALTER TABLE nodes ADD COLUMN cordon TEXT NOT NULL DEFAULT '';
    ALTER TABLE nodes ADD COLUMN peak_reserved INTEGER NOT NULL DEFAULT 0;
    )sql",
    // 4 → 5: a workload's incarnation (which launch of it the core expects statuses of) and the highest it sent, so
    // that a relaunch after a restart still takes a new one and agents never mistake it for an older launch.
    R"sql(
    ALTER TABLE workloads ADD COLUMN incarnation INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE workloads ADD COLUMN highest_incarnation INTEGER NOT NULL DEFAULT 0;
    )sql",
    // 5 → 6: roles and two-stage auditing. Each entry says the caller's role and whether it was written when the
    // request was received or once its outcome was durable, and pairs the two by request; entries from before were
    // written once, with their outcome, so they are "completed".
    R"sql(
    ALTER TABLE audit ADD COLUMN role TEXT NOT NULL DEFAULT '';
    ALTER TABLE audit ADD COLUMN stage TEXT NOT NULL DEFAULT 'completed';
    ALTER TABLE audit ADD COLUMN request TEXT NOT NULL DEFAULT '';
    )sql",
    // 6 → 7: a pool's memory and network bandwidth quotas and its accelerator quotas (share units per kind) become
    // settable; pools from before have none of them (2305843009213693951 is the core's kUnlimited).
    R"sql(
    ALTER TABLE pools ADD COLUMN mem_bandwidth_mbps INTEGER NOT NULL DEFAULT 2305843009213693951;
    ALTER TABLE pools ADD COLUMN net_bandwidth_mbps INTEGER NOT NULL DEFAULT 2305843009213693951;
    ALTER TABLE pools ADD COLUMN gpu_share INTEGER NOT NULL DEFAULT 2305843009213693951;
    ALTER TABLE pools ADD COLUMN npu_share INTEGER NOT NULL DEFAULT 2305843009213693951;
    ALTER TABLE pools ADD COLUMN fpga_share INTEGER NOT NULL DEFAULT 2305843009213693951;
    )sql",
    // 7 → 8: pools an operator deleted, as they were then (`nodes` a JSON array of names), so that reports over a
    // period
    // they lived in still count them. Deletions made before this version left nothing to keep.
    R"sql(
    CREATE TABLE deleted_pools (
        name TEXT NOT NULL,
        deleted_ms INTEGER NOT NULL,
        business_line TEXT NOT NULL,
        tier TEXT NOT NULL,
        nodes TEXT NOT NULL,
        PRIMARY KEY (name, deleted_ms)
    ) WITHOUT ROWID;
    )sql",
    // 8 → 9: restart policies (the policy itself is in the spec): how many times a workload was restarted, in all and
    // in a row (its back-off), when a pending restart is due, and where its previous launch ran, whose output an
    // operator may still read. Workloads from before were never restarted and have no previous launch on record.
    R"sql(
    ALTER TABLE workloads ADD COLUMN restarts INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE workloads ADD COLUMN crash_loop INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE workloads ADD COLUMN restart_at_ms INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE workloads ADD COLUMN previous_node TEXT NOT NULL DEFAULT '';
    ALTER TABLE workloads ADD COLUMN previous_incarnation INTEGER NOT NULL DEFAULT -1;
    )sql",
    // 9 → 10: a paced drain under way on a node (its budget, start, deadline, who started it and what it has done so
    // far) goes on after a restart. Nodes from before have none.
    R"sql(
    ALTER TABLE nodes ADD COLUMN drain_max_parallel INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE nodes ADD COLUMN drain_started_ms INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE nodes ADD COLUMN drain_deadline_ms INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE nodes ADD COLUMN drain_actor TEXT NOT NULL DEFAULT '';
    ALTER TABLE nodes ADD COLUMN drain_moved INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE nodes ADD COLUMN drain_evicted INTEGER NOT NULL DEFAULT 0;
    )sql",
    // 10 → 11: a pool's disruption budget. Pools from before have none (the core's kUnlimited).
    R"sql(
    ALTER TABLE pools ADD COLUMN max_disrupted INTEGER NOT NULL DEFAULT 2305843009213693951;
    )sql",
    // 11 → 12: a disruption budget as a percentage of the pool's workloads; -1: none (max_disrupted says it).
    R"sql(
    ALTER TABLE pools ADD COLUMN max_disrupted_percent INTEGER NOT NULL DEFAULT -1;
    )sql",
    // 12 → 13: a running workload's measured peaks of its current launch and since when, and its CPU histogram (JSON;
    // '' none), for right-sizing after a restart. Workloads from before have none: measured again from their next
    // sample.
    R"sql(
    ALTER TABLE workloads ADD COLUMN measured_since_ms INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE workloads ADD COLUMN peak_cpu_millis INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE workloads ADD COLUMN peak_memory_mib INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE workloads ADD COLUMN cpu_histogram TEXT NOT NULL DEFAULT '';
    )sql",
};
static_assert(kUnlimited == 2305843009213693951, "the schema's default quota (version 7) is the core's kUnlimited");
static_assert(std::size(kMigrations) == kSchemaVersion);

} // namespace

Expected<int> schemaVersion(Database& db)
{
    Statement version(db, "PRAGMA user_version");
    if (!version.ok() || version.step() != SQLITE_ROW)
        return db.failure("cannot read the schema version");
    return static_cast<int>(version.integer(0));
}

Expected<void> migrate(Database& db, int target)
{
    auto current = schemaVersion(db);
    if (!current)
        return tl::unexpected(current.error());
    if (*current > kSchemaVersion)
        return makeError(ErrorCode::InvalidArgument,
            "database " + db.path() + " has schema version " + std::to_string(*current) + ", newer than this tidepoold's "
                + std::to_string(kSchemaVersion) + "; refusing to touch it");
    for (int v = *current; v < target; ++v) {
        Transaction transaction(db);
        if (auto begun = transaction.begin(); !begun)
            return begun;
        if (auto applied = db.exec(kMigrations[v]); !applied)
            return makeError(ErrorCode::IoError,
                "migrating to schema version " + std::to_string(v + 1) + ": " + applied.error().message);
        if (auto set = db.exec("PRAGMA user_version=" + std::to_string(v + 1)); !set)
            return set;
        if (auto done = transaction.commit(); !done)
            return done;
    }
    return {};
}

} // namespace tidepool::store
