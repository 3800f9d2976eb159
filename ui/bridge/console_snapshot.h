#pragma once
// What the console shows, as one immutable value: the core builds a `ConsoleSnapshot` on its own thread after every
// change it wants seen and hands it over as `SnapshotPtr`; the GUI thread only reads it. Plain C++ with the core's
// own names ("x86_64", "ready", "hot", "pending"): the views translate them for display (`labels.h`).
//
// Thread affinity: none once built; shared read-only between threads.

#include "ui/bridge/view_rows.h"
#include "ui/bridge/workload_rows.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tidepool::ui {

struct NodeRow {
    std::int32_t id = -1; // the core's NodeId: rows are sorted by it
    std::string name;
    std::string isa;
    std::string tier;
    std::string state; // joining, ready, suspect, lost, off (powered down), booting (powered up, agent not back)
    std::string cordon; // why it is cordoned; empty when in service
    // A paced drain under way (`api::NodeDrain`): at most `drainMaxParallel` (0: none under way) moving at once, how
    // many are moving and how many it moved.
    std::int32_t drainMaxParallel = 0;
    std::int64_t drainMoving = 0, drainMoved = 0;
    bool peakReserved = false;
    std::int64_t cpuMillis = 0;
    std::int64_t cpuAllocatedMillis = 0; // requested by what is placed there
    double cpuUtilisation = 0.0; // measured by its agent, 0..1
    std::int64_t memoryMiB = 0;
    std::int64_t memoryAllocatedMiB = 0;
    std::string acceleratorKind; // gpu, npu, fpga; empty without accelerators
    int accelerators = 0;
    std::int64_t acceleratorShare = 0; // divisible share of all its devices (milli-GPUs, NPU cores, FPGA slots)
    std::int64_t acceleratorShareAllocated = 0;
    double acceleratorUtilisation = 0.0; // mean of its devices as measured, 0..1
    int workloads = 0; // placed there
    bool operator==(const NodeRow&) const = default;
};

// One pool's footprint on one node: what its workloads placed there request, and what they use as measured (their
// node's measured use split by requests, `workload_rows.h`). The row with an empty `node` holds its waiting workloads.
struct PoolNodeRow {
    std::string node;
    std::int64_t cpuMillis = 0;
    std::int64_t memoryMiB = 0;
    int workloads = 0;
    std::int64_t nodeCpuMillis = 0; // the node's capacity, what the bars of a node row measure against
    std::int64_t nodeMemoryMiB = 0;
    std::int64_t memBandwidthMBps = 0; // requested
    std::int64_t netBandwidthMbps = 0;
    double accelerators = 0.0; // requested, in devices
    std::int64_t cpuUsedMillis = 0; // measured
    std::int64_t memoryUsedMiB = 0;
    double acceleratorsUsed = 0.0;
    double netUsedMbps = -1.0; // measured where the node shapes its link; -1: not measured
    std::vector<std::int32_t> workloadRows; // its workloads: indexes into the snapshot's `workloads`, in id order
    bool operator==(const PoolNodeRow&) const = default;
};

struct PoolRow {
    std::int32_t id = -1;
    std::string name;
    std::string businessLine; // empty: none
    // The pools view's group: the business line, or the pool's own name where it has none. (Only real business lines
    // are offered as a report's scope: the daemon knows no line named after such a pool.)
    const std::string& lineOrName() const { return businessLine.empty() ? name : businessLine; }
    std::string tier; // empty: any tier
    std::int64_t cpuQuotaMillis = -1; // -1: unlimited
    std::int64_t cpuUsedMillis = 0;
    std::int64_t memoryQuotaMiB = -1;
    std::int64_t memoryUsedMiB = 0;
    std::int64_t acceleratorShareUsed = 0;
    int workloads = 0; // placed
    std::vector<PoolNodeRow> nodes; // where its workloads run, by node name (the waiting ones first, node "")
    std::int64_t memBandwidthQuotaMBps = -1; // -1: unlimited
    std::int64_t memBandwidthUsedMBps = 0; // requested by its placed workloads
    std::int64_t netBandwidthQuotaMbps = -1;
    std::int64_t netBandwidthUsedMbps = 0;
    // Accelerator quotas and what placed workloads take of them, in share units, for gpu, npu and fpga; -1: no quota.
    std::array<std::int64_t, 3> acceleratorQuotaShare { -1, -1, -1 };
    std::array<std::int64_t, 3> acceleratorUsedShare {};
    double accelerators = 0.0; // requested by its placed workloads, in devices
    std::int64_t cpuMeasuredMillis = 0; // measured, split by requests
    std::int64_t memoryMeasuredMiB = 0;
    double acceleratorsMeasured = 0.0;
    double netMeasuredMbps = -1.0; // on the nodes that shape their links; -1: none of its nodes measures it
    int waiting = 0; // its workloads waiting for a place
    std::int32_t ioWeight = 100; // its block IO weight on its nodes (1..10000)
    // Its disruption budget: how many of its workloads drains and migrations may have moved and not running again at
    // once (now, for a percentage); -1: none. The percentage of its workloads it was set as (-1: a number). And how
    // many that is now.
    std::int64_t maxDisrupted = -1;
    std::int32_t maxDisruptedPercent = -1;
    std::int64_t disrupted = 0;
    bool operator==(const PoolRow&) const = default;
};

struct ProposalRow {
    std::int64_t id = 0; // rows are sorted by it
    std::string kind;
    std::string state;
    std::string risk;
    std::string subject; // the proposal's key: "quota:batch", "power:cold-1"
    std::string reason; // in English
    std::string
        why; // the reason's clauses as JSON (`rebalance::toJson(Why)`), for `reasonText`; "[]" from an older core
    double utilisationBefore = 0.0;
    double utilisationAfter = 0.0;
    double gpusFreed = 0.0;
    double wattsSaved = 0.0;
    double co2GramsPerHour = 0.0;
    std::string sloRisk; // in English
    std::string sloRiskWhy; // the same as clauses, as `why`
    std::vector<std::string> plan; // one line per action
    std::int64_t createdMs = 0;
    std::int64_t expiresMs = 0;
    std::string decidedBy;
    std::int64_t decidedMs = 0;
    std::string detail;
    bool operator==(const ProposalRow&) const = default;
};

struct TierLoad {
    std::string tier;
    int nodes = 0;
    std::int64_t cpuMillis = 0;
    std::int64_t cpuAllocatedMillis = 0;
    std::int64_t acceleratorShare = 0;
    std::int64_t acceleratorShareAllocated = 0;
    bool operator==(const TierLoad&) const = default;
};

struct OverviewCounts {
    std::map<std::string, std::map<std::string, int>> nodesByIsaAndState; // isa → state → nodes
    std::map<std::string, int> acceleratorsByKind; // devices
    std::vector<TierLoad> tiers; // hot, warm, cold
    std::map<std::string, int> workloadsByPhase; // every known workload
    std::map<std::string, int> activeWorkloadsByTier; // launching, running or stopping
    int pendingWorkloads = 0;
    int proposalsWaiting = 0;
    bool operator==(const OverviewCounts&) const = default;
};

// Something an operator should look at (`alerts.h`). The Overview words it from `kind`: node-lost, node-suspect
// (`subject` the node), read-only (`detail` the store's reason), disk-low (`subject` the directory, `value` the bytes
// free, `total` the file system's size), disk-unreadable, certificate-expiring and certificate-expired (`subject`
// the file, `value` when it expires, Unix ms), certificate-unreadable (`detail` why).
struct AlertRow {
    std::string kind;
    std::string subject;
    std::string detail;
    std::int64_t value = 0;
    std::int64_t total = 0;
    bool operator==(const AlertRow&) const = default;
};

// How many closed proposals (decided or expired) a snapshot carries, newest first: about two days of a busy cluster's
// (the 8-day scenario of BENCHMARKS §7 makes about 210 a day), so that a snapshot a second stays small however long
// the daemon has run.
inline constexpr std::size_t kConsoleClosedProposals = 500;

struct ConsoleSnapshot {
    std::uint64_t sequence = 0; // grows with every snapshot of one core
    std::int64_t nowMs = 0; // the core's clock (simulated in the demo), Unix epoch ms
    std::string source; // "demo", "embedded" or the URL of a tidepoold ("http://10.0.0.5:7080")
    bool finished = false; // the demo run has reached its end: nothing changes any more
    std::string readOnlyReason; // the store cannot be written; empty when it can
    std::vector<AlertRow> alerts; // most urgent first: the store, the disk, certificates, then nodes
    // Who the console is to the core and what it may do: "admin" for the embedded core and the demo (the operator
    // at the console owns them), the token's role ("viewer", "operator", "admin") over --connect; empty: not known.
    std::string role;
    std::string actor;
    std::vector<NodeRow> nodes; // by id
    std::vector<PoolRow> pools; // by id
    // By id: every pending and approved proposal, and the newest `kConsoleClosedProposals` closed ones (a daemon
    // keeps months of them; the rest are in `tidepoolctl proposals --before` and the audit log).
    std::vector<ProposalRow> proposals;
    OverviewCounts overview;
    std::vector<WorkloadRow> workloads; // every workload waiting, launching, running or stopping, by id
    // The Accelerators, Forecasts and Events views (`view_rows.h`), filled by a `ViewCollector` when the backend has one.
    std::vector<DeviceRow> devices; // by key
    std::vector<DeviceFramePtr> deviceHistory; // oldest first, a bounded number of frames
    std::vector<ForecastSeriesPtr> forecasts; // by key (scope, name, resource)
    std::vector<EventRowPtr> events; // by sequence, the latest ones
};

using SnapshotPtr = std::shared_ptr<const ConsoleSnapshot>;

} // namespace tidepool::ui
