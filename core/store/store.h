#pragma once
// What the core keeps across restarts: pools, the nodes it has seen (with their capacity and devices, so that their
// workloads can be bound again before the agents return), workloads with their phase and placement, utilisation
// history (raw samples and 5-minute aggregates), forecasts, rebalance proposals and the audit log.
// `Store` is the interface the control plane writes through; the scheduler does not know which database is behind it.
// `openSqliteStore` keeps a local file (WAL mode, schema versioned with `PRAGMA user_version`, forward migrations);
// `openPostgresStore` a PostgreSQL database for shared deployments (the same tables at the same schema version).
//
// Thread affinity: one thread (the core's); a store is not synchronised.

#include "core/model/pool.h"
#include "core/model/types.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tidepool::store {

struct StoredPool {
    std::string name;
    std::string businessLine;
    std::string tier; // "" = any
    std::int64_t cpuMillis = 0; // the core's kUnlimited when unlimited
    std::int64_t memoryMiB = 0;
    std::int32_t ioWeight = 100;
    std::int64_t memBandwidthMBps = kUnlimited; // added in schema version 7
    std::int64_t netBandwidthMbps = kUnlimited;
    std::int64_t gpuShare = kUnlimited; // accelerator quotas in share units
    std::int64_t npuShare = kUnlimited;
    std::int64_t fpgaShare = kUnlimited;
    // How many of its workloads drains and approved migrations may have moved and not running again at once (its
    // disruption budget); kUnlimited: no budget. Added in schema version 11.
    std::int64_t maxDisrupted = kUnlimited;
    // Or its budget as a percentage of its workloads (0..100; -1: `maxDisrupted` says it). Added in schema version 12.
    std::int32_t maxDisruptedPercent = -1;
    bool operator==(const StoredPool&) const = default;
};

// A pool an operator deleted, as it was then: kept (until the 5-minute aggregates it had are pruned) so that reports
// over a period it lived in still count it, by its business line and on its nodes' prices. Added in schema version 8.
struct DeletedPool {
    std::string name;
    std::string businessLine;
    std::string tier; // "" = any
    // The nodes it was carved out of when it was deleted; empty: every node (pools are carved out of every node unless
    // restricted, and a list of 2,000 names for each deletion would say nothing more).
    std::vector<std::string> nodes;
    std::int64_t deletedMs = 0; // Unix epoch
    bool operator==(const DeletedPool&) const = default;
};

struct StoredNode {
    std::string name;
    std::string isa;
    std::string tier;
    std::int64_t cpuMillis = 0;
    std::int64_t memoryMiB = 0;
    nlohmann::json devices = nlohmann::json::array(); // [{kind, model, memoryMiB, shareCapacity}]
    std::string cpuModel;
    std::int64_t lastSeenMs = 0;
    std::string cordon; // why it takes no new work; "" = it does
    bool peakReserved = false; // hot capacity kept for the next peak: no batch lands there
    // A paced drain under way (`api::NodeDrain`): 0 = none.
    std::int64_t drainMaxParallel = 0;
    std::int64_t drainStartedMs = 0, drainDeadlineMs = 0; // Unix epoch; deadline 0 = none
    std::string drainActor {};
    std::int64_t drainMoved = 0, drainEvicted = 0;
    bool operator==(const StoredNode&) const = default;
};

struct StoredWorkload {
    std::int64_t id = 0;
    nlohmann::json spec; // the submission, as the API took it
    std::string phase;
    std::string node; // "" when not placed
    nlohmann::json devices = nlohmann::json::array(); // [{device, share, memoryMiB}]
    bool translated = false;
    std::int32_t pid = 0;
    std::int32_t exitCode = 0;
    std::string detail;
    std::int64_t submittedMs = 0, placedMs = 0, runningMs = 0, finishedMs = 0;
    // The launch the core expects statuses of, and the highest it ever sent (a relaunch takes the next one).
    std::int32_t incarnation = 0;
    std::int32_t highestIncarnation = 0;
    // Its restart policy's restarts, in all and in a row soon after starting; pending for a restart: placed no sooner
    // than `restartAtMs` (Unix ms; 0 = not waiting). The launch before the current one: where it ran ("" = none).
    std::int32_t restarts = 0;
    std::int32_t crashLoop = 0;
    std::int64_t restartAtMs = 0;
    std::string previousNode;
    std::int32_t previousIncarnation = -1;
    // What its current launch was measured using at its peaks, since its first sample (Unix ms; 0: not measured), so
    // that right-sizing goes on from them after a restart of the core. Saved as they rise by a tenth or more (and
    // with every other change of the workload), not with every heartbeat. Added in schema version 13.
    std::int64_t measuredSinceMs = 0;
    std::int64_t peakCpuMillis = 0;
    std::int64_t peakMemoryMiB = 0;
    // Its CPU use as a decaying histogram (`UsageHistogram::toJson`; null: none), saved with its peaks and at least
    // hourly while it is measured. Added in schema version 13.
    nlohmann::json cpuHistogram = nullptr;
    bool operator==(const StoredWorkload&) const = default;
};

// A history series: `scope` "pool" or "node", the pool's or node's name, and the resource ("cpu", "memory", or an
// accelerator kind such as "gpu"). What the value means is the recorder's (see `core/api/history_recorder.h`).
struct SeriesKey {
    std::string scope;
    std::string name;
    std::string resource;
    auto operator<=>(const SeriesKey&) const = default;
};

struct Sample {
    SeriesKey series;
    std::int64_t atMs = 0; // Unix epoch
    double value = 0.0;
};

enum class Resolution : std::uint8_t { Invalid, Raw, FiveMinutes };
inline constexpr std::int64_t kAggregateBucketMs = 5 * 60 * 1000;

// One point of a series: a raw sample (min = max = mean, count 1) or a 5-minute aggregate starting at `atMs`.
struct HistoryPoint {
    std::int64_t atMs = 0;
    double mean = 0.0;
    double min = 0.0;
    double max = 0.0;
    std::int64_t count = 0;
    bool operator==(const HistoryPoint&) const = default;
};

// A forecast made at `madeMs` by `model`: `points[k]` = {mean, p10, p90} for `madeMs + (k + 1) × stepMs`.
struct StoredForecast {
    SeriesKey series;
    std::int64_t madeMs = 0;
    std::string model;
    std::int64_t stepMs = 0;
    nlohmann::json points = nlohmann::json::array();
};

// A rebalance proposal. `state`: pending → approved | rejected | expired; approved → applied | failed.
struct StoredProposal {
    std::int64_t id = 0;
    std::string kind;
    std::string state;
    std::string risk;
    std::string reason;
    nlohmann::json effect = nlohmann::json::object();
    nlohmann::json plan = nlohmann::json::array();
    std::int64_t stateVersion = 0; // the cluster state version it was planned on
    std::int64_t createdMs = 0, expiresMs = 0;
    std::string decidedBy; // "" while pending
    std::int64_t decidedMs = 0;
    nlohmann::json steps = nlohmann::json::array(); // what applying did, step by step
    std::string detail;
    bool operator==(const StoredProposal&) const = default;
};

// Who did what, when, from where. `id` is assigned when it is committed. A change asked for through the API leaves
// two entries with the same `request`: "received" before it acts (its target the request's path, no outcome yet)
// and "completed" once the outcome is durable; what the daemon does by itself (a rule) leaves one "completed".
struct AuditEntry {
    std::int64_t id = 0;
    std::int64_t atMs = 0;
    std::string actor; // "token:<name>", "operator:<fingerprint>" (a plaintext token), "rule:<name>", "tidepoold"
    std::string source; // the client's address, "" for the daemon itself
    std::string action; // "POST /v1/workloads", "proposal.approve"
    std::string target;
    std::string outcome; // "ok" or the refusal; "" while only received
    nlohmann::json detail = nlohmann::json::object();
    std::string role; // the caller's role (viewer, operator, admin); "" for the daemon and before schema v6
    std::string stage = "completed"; // "received" or "completed"
    std::string request; // pairs a request's "received" and "completed" entries; "" when there is one entry
    bool operator==(const AuditEntry&) const = default;
};

struct AuditQuery {
    std::int64_t fromMs = 0;
    std::int64_t toMs = std::numeric_limits<std::int64_t>::max();
    std::int64_t afterId = 0; // for paging: entries with a larger id
    std::size_t limit = 1000;
};

// How long history is kept. Zero keeps forever.
struct Retention {
    std::int64_t rawMs = 2LL * 24 * 3600 * 1000;
    std::int64_t aggregateMs = 90LL * 24 * 3600 * 1000;
    std::int64_t forecastMs = 7LL * 24 * 3600 * 1000;
    std::int64_t auditMs = 0;
    // Closed proposals (rejected, expired, applied, failed) created and decided longer ago than this are deleted; the
    // audit log keeps their decisions. As long as the 5-minute aggregates by default, so that a report over the kept
    // history lists its proposals. Pending and approved ones stay, and so does the newest proposal of all, whose id the
    // next one follows (ids are never reused).
    std::int64_t proposalMs = 90LL * 24 * 3600 * 1000;
};

// The closed proposals `Retention::proposalMs` prunes, in SQL: `?1` is the cutoff (now - proposalMs).
inline constexpr const char* kPruneProposalsSql
    = "DELETE FROM proposals WHERE state IN ('rejected', 'expired', 'applied', 'failed') AND created_ms < $1 "
      "AND decided_ms < $1 AND id < (SELECT max(id) FROM proposals)";

struct Snapshot {
    std::vector<StoredPool> pools;
    std::vector<DeletedPool> deletedPools; // oldest first
    std::vector<StoredNode> nodes;
    std::vector<StoredWorkload> workloads; // by id
    std::vector<StoredProposal> proposals; // by id
    std::int64_t nextProposalId = 1;
    // The `meta` table: small settings of the core that outlive it (the carbon hold, the history watermark), by key.
    std::map<std::string, std::string> meta;
};

// Changes are collected and written together: `commit` makes everything since the last commit durable in one
// transaction, or fails and keeps it pending (a full disk, a locked file), so that a later commit can retry
// without losing or half-writing anything.
class Store {
public:
    virtual ~Store() = default;
    virtual Expected<Snapshot> load() = 0;
    virtual void putPool(const StoredPool& pool) = 0;
    // Deletes the pool named `pool.name` and keeps `pool` among the deleted ones; a later putPool under the name stores
    // a new pool.
    virtual void removePool(const DeletedPool& pool) = 0;
    virtual void putNode(const StoredNode& node) = 0;
    virtual void putWorkload(const StoredWorkload& workload) = 0;
    virtual void removeWorkload(std::int64_t id) = 0;
    virtual void putProposal(const StoredProposal& proposal) = 0;
    virtual void addSamples(const std::vector<Sample>& samples) = 0;
    virtual void putForecast(const StoredForecast& forecast) = 0;
    virtual void addAudit(const AuditEntry& entry) = 0;
    // Sets `key` of the `meta` table to `value` (JSON text, by convention); an empty value deletes the key.
    virtual void putMeta(const std::string& key, const std::string& value) = 0;
    virtual Expected<void> commit() = 0;
    virtual std::size_t pending() const = 0; // changes not yet committed

    // Reads see what has been committed. `fromMs` inclusive, `toMs` exclusive.
    virtual Expected<std::vector<HistoryPoint>> history(
        const SeriesKey& series, std::int64_t fromMs, std::int64_t toMs, Resolution resolution)
        = 0;
    virtual Expected<std::vector<SeriesKey>> seriesList() = 0;
    // The latest forecast of `series`, if any.
    virtual Expected<std::optional<StoredForecast>> latestForecast(const SeriesKey& series) = 0;
    virtual Expected<std::vector<AuditEntry>> audit(const AuditQuery& query) = 0;

    // Housekeeping in a transaction of its own: aggregates every closed 5-minute bucket into `samples_5m` (again for
    // buckets that late samples reached) and deletes what `retention` no longer keeps.
    virtual Expected<void> maintain(std::int64_t nowMs, const Retention& retention) = 0;
};

// Opens (creating when missing) the SQLite database at `path` and migrates it to `kSchemaVersion`; the error names
// the path and SQLite's reason. Commits are durable before they return (WAL, `synchronous=FULL`), so that what the
// daemon acknowledged survives a crash of the process or of the machine. The store is the database's one writer
// while it lives (`lockDatabase`, `<path>.lock`): a second store on the same file, in this process or another, is
// refused, naming the holder. `fresh` removes the database's files first, once the lock is held (a simulation).
Expected<std::unique_ptr<Store>> openSqliteStore(const std::string& path, bool fresh = false);

// Creates or migrates the database at `path` to `version` only (tests build every earlier version with it).
Expected<void> migrateSqliteDatabase(const std::string& path, int version);
// The same for a PostgreSQL database (`conninfo` as for `openPostgresStore`): version 0, or 6 and later.
Expected<void> migratePostgresDatabase(const std::string& conninfo, int version);

// Opens the PostgreSQL database `conninfo` names (a libpq URI, `postgresql://user@host:port/database`, or a
// `key=value` string; a password belongs in ~/.pgpass or PGPASSFILE, not in the string), creating or migrating the
// tables to `kSchemaVersion`; a database at a newer version is refused. One tidepoold writes a database: a second one
// is refused while the first holds its session's advisory lock. Commits are durable before they return
// (`synchronous_commit=on`); a connection the server dropped is taken up again at the next commit or read. Errors name
// the server and database (never the password) and PostgreSQL's reason.
struct PostgresOptions {
    // How long the store waits for the server to answer (or to take what the store sends) before it gives up: the
    // commit or read fails naming the server and what it was doing, the connection is closed, and the next commit or
    // read connects again. Without it a server that stopped answering (hung, or behind a network that drops packets
    // silently) would block the core's thread until TCP gives up, which can take hours. A single statement that
    // legitimately runs longer fails too, so this is generous.
    std::chrono::milliseconds answerTimeout { 30'000 };
};
Expected<std::unique_ptr<Store>> openPostgresStore(const std::string& conninfo, const PostgresOptions& options = {});

// Whether the daemon's `--db` names a PostgreSQL database: a libpq URI (`postgresql://` or `postgres://`). Anything
// else is an SQLite path.
bool isPostgresLocation(const std::string& location);
// `openPostgresStore` (with `postgres`) or `openSqliteStore`, as `location` says.
Expected<std::unique_ptr<Store>> openStore(const std::string& location, const PostgresOptions& postgres = {});

inline constexpr int kSchemaVersion = 13;

} // namespace tidepool::store
