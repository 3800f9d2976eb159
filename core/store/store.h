#pragma once
// What the core keeps across restarts: pools, the nodes it has seen (with their capacity, so that their
// workloads can be bound again before the agents return), and workloads with their phase and placement.
// `Store` is the interface the control plane writes through, so that a shared deployment can later move to
// PostgreSQL without touching the scheduler; `SqliteStore` is the implementation (WAL mode, schema versioned
// with `PRAGMA user_version`, forward migrations).
//
// Thread affinity: one thread (the core's); a store is not synchronised.

#include "core/model/types.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
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
    bool operator==(const StoredPool&) const = default;
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
    bool operator==(const StoredWorkload&) const = default;
};

struct Snapshot {
    std::vector<StoredPool> pools;
    std::vector<StoredNode> nodes;
    std::vector<StoredWorkload> workloads; // by id
};

// Changes are collected and written together: `commit` makes everything since the last commit durable in one
// transaction, or fails and keeps it pending (a full disk, a locked file), so that a later commit can retry
// without losing or half-writing anything.
class Store {
public:
    virtual ~Store() = default;
    virtual Expected<Snapshot> load() = 0;
    virtual void putPool(const StoredPool& pool) = 0;
    virtual void putNode(const StoredNode& node) = 0;
    virtual void putWorkload(const StoredWorkload& workload) = 0;
    virtual void removeWorkload(std::int64_t id) = 0;
    virtual Expected<void> commit() = 0;
    virtual std::size_t pending() const = 0; // changes not yet committed
};

// Opens (creating when missing) the SQLite database at `path`; the error names the path and SQLite's reason.
Expected<std::unique_ptr<Store>> openSqliteStore(const std::string& path);

inline constexpr int kSchemaVersion = 1;

} // namespace tidepool::store
