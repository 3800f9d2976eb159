#pragma once
// The workloads of a `ConsoleSnapshot` (the Tiers board's cards and the Pools tree's leaves) and the operator's move
// command with its result. Plain C++ with the core's own names ("pending", "hot", "insufficient CPU"); the views
// translate them (`move_text.h`, `labels.h`).
//
// Measured use: agents report what a node uses (CPU, memory, each device's utilisation), what each pool's cgroup uses
// of it (CPU, memory) and what each running workload's own cgroup uses, in their heartbeats. A workload's measured CPU
// and memory are its own where its agent measures them (`usedMeasured`: the embedded console reads them from the core,
// a remote one with each poll, `usage=1`); else its pool's on its node less what the pool's workloads measured on
// their own used, split among the rest in proportion to what they request, or, where the agent does not measure that
// pool (yet), its node's, split likewise among the node's workloads. Its accelerators' are its devices' utilisation
// by its share. -1 where nothing is measured (waiting for a place, or a node not heard from yet).
//
// Thread affinity: none once built; shared read-only between threads.

#include <cstdint>
#include <string>
#include <vector>

namespace tidepool::ui {

struct WorkloadRow {
    std::int64_t id = 0; // the core's WorkloadId: rows are sorted by it
    std::string name;
    std::int32_t poolId = -1;
    std::string pool;
    std::string phase; // pending, launching, running, stopping
    std::string latency; // real_time, latency_sensitive, batch
    std::string homeTier; // where its latency class (or its pin) sends it
    std::int32_t nodeId = -1; // -1 while it waits for a place
    std::string node;
    std::string tier; // its node's tier; its home tier while it waits
    std::int32_t priority = 0;
    bool translated = false;
    std::int64_t cpuMillis = 0; // requested
    std::int64_t memoryMiB = 0;
    std::int64_t memBandwidthMBps = 0;
    std::int64_t netBandwidthMbps = 0;
    std::string acceleratorKind; // gpu, npu, fpga; empty without
    double accelerators = 0.0; // requested, in devices (a half GPU is 0.5)
    std::int64_t cpuUsedMillis = -1; // measured (see above)
    std::int64_t memoryUsedMiB = -1;
    bool usedMeasured = false; // `cpuUsedMillis` and `memoryUsedMiB` are its own cgroup's, not a share
    // Its launch's own figures since its first sample (`measuredSinceMs`, Unix ms; 0: none), where its agent measures
    // its cgroup: its CPU's 90th percentile (newer samples weighing more: what right-sizing sizes CPU from) and its
    // peaks (memory is sized from its peak). A console over the API has them as of the last time they moved enough for
    // the core to save them (a rise of a tenth, or hourly). -1: none.
    std::int64_t measuredSinceMs = 0;
    std::int64_t cpuP90Millis = -1;
    std::int64_t peakCpuMillis = -1;
    std::int64_t peakMemoryMiB = -1;
    double acceleratorsUsed = -1.0; // devices busy
    double netUsedMbps = -1.0; // its pool's measured traffic on its shaped node, split by requests; -1: not measured
    std::string detail; // why it waits, or why it is where it is
    std::int32_t restarts = 0; // how many times its restart policy started it again
    std::string restart = "never"; // its restart policy: never, on-failure, always
    std::int32_t maxRestarts = -1; // with a restart policy, how many times at most; -1: no limit
    std::int64_t maxRuntimeMs = 0; // each launch's longest run; 0: none
    std::int64_t cpuLimitMillis = 0; // its own limits on its node; 0: only its pool's
    std::int64_t memoryLimitMiB = 0;
    bool operator==(const WorkloadRow&) const = default;
};

// An operator's move of a workload (a drop on the Tiers board or the Pools tree): onto a node, onto a tier or into a
// pool, where the core picks the node (`api::MoveTarget`).
struct MoveCommand {
    std::uint64_t requestId = 0; // chosen by the caller; echoed in the result
    std::int64_t workloadId = 0;
    std::string node; // a node's name; empty: the best node of `tier` or `pool`
    std::string tier; // hot, warm, cold
    std::string pool; // a pool's name: the workload moves into it; empty: it stays in its own
};

// How many of the target's nodes one reason of the scheduler's filters refused.
struct ReasonCount {
    std::string reason; // the core's name: "insufficient CPU", "no accelerator of the requested kind"
    int nodes = 0;
    bool operator==(const ReasonCount&) const = default;
};

struct MoveResult {
    std::uint64_t requestId = 0;
    std::int64_t workloadId = 0;
    std::string workload; // its name, when known
    bool ok = false;
    // Why not, as the core's code: no_workload, no_target, not_movable, already_there, pool_tier, pool_quota,
    // no_feasible_node, read_only; "stopped" or "starting" when the core was not running; "not_saved" when moved but
    // not durable; "unreachable" when a remote core could not be asked; empty when moved.
    std::string refusal;
    std::string node; // where it went; the node asked for when refused
    std::string tier; // the tier it went to; the tier asked for, or the tier of the node asked for, when refused
    std::string pool; // the pool asked for, which it is in once moved; empty when the move named none
    std::string poolTier; // pool_tier: the tier that pool keeps its workloads on
    std::vector<ReasonCount> reasons; // the target's nodes that refused it, per reason, most first
    int nodesConsidered = 0;
    std::string message; // the core's words, in English
};

} // namespace tidepool::ui
