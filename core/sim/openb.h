#pragma once
// Replay of the Alibaba openb GPU-sharing trace (cluster-trace-gpu-v2023) the way the FGD paper's authors replay it
// (Weng et al., USENIX ATC 2023; see ../shared/data/README.md): pods only arrive, the name-sorted list is shuffled
// with the seed and inflated by random draws to 1.3× the cluster's GPU capacity, each pod is placed once through
// the real `Scheduler` (exhaustive scoring, one random tie order per seed) or skipped, and the GPU allocation is
// sampled after every pod.
//
// Thread affinity: none; a replay owns the cluster and scheduler it builds and runs on the calling thread.

#include "core/model/cluster.h"
#include "core/sched/policy.h"
#include "core/sched/scheduler.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tidepool::sim {

// One row of `openb_node_list_*.csv` (columns `sn, cpu_milli, memory_mib, gpu, model`).
struct OpenbNode {
    std::string name;
    std::int64_t cpuMillis = 0;
    std::int64_t memoryMiB = 0;
    std::int32_t gpus = 0;
    std::string model; // empty for CPU-only nodes
};

// One row of `openb_pod_list_*.csv` (columns `name, cpu_milli, memory_mib, num_gpu, gpu_milli[, gpu_spec,
// creation_time, deletion_time]`; the phase and qos columns are ignored, as in the paper's replay).
struct OpenbPod {
    std::string name;
    std::int64_t cpuMillis = 0;
    std::int64_t memoryMiB = 0;
    std::int32_t gpus = 0; // 0 = CPU-only; > 1 = whole GPUs on one node
    std::int32_t gpuMilli = 0; // per GPU; < 1000 with one GPU = a fractional share
    std::vector<std::string> gpuSpec; // allowed models in the order given (empty = any)
    // The pod's life in the trace, seconds from the trace's start, where the columns are there and filled (-1 when
    // not): what `tidepool-sim scenario` replays as batch arrivals and run times. The paper's replay ignores them.
    std::int64_t creationS = -1;
    std::int64_t deletionS = -1;

    std::int64_t requestedMilli() const { return std::int64_t { gpus } * gpuMilli; }
};

// Strict loaders: a missing column, a wrong field count, a non-numeric or negative number, an inconsistent GPU
// request or a malformed `gpu_spec` stops with an error naming the file, the line and the field.
Expected<std::vector<OpenbNode>> loadOpenbNodes(const std::string& path);
Expected<std::vector<OpenbPod>> loadOpenbPods(const std::string& path);

inline constexpr std::int32_t kGpuShareCapacity = 1000; // milli-GPUs per GPU

// Builds the simulated cluster: one node per row, each GPU a device of 1000 milli-GPUs of the node's model.
ClusterState makeOpenbCluster(const std::vector<OpenbNode>& nodes);
// The workload for one pod of the trace (model names are interned into `cluster`).
Workload makeOpenbWorkload(const OpenbPod& pod, WorkloadId id, ClusterState& cluster);

// What a repair step did for a pod that fit nowhere (see `ReplayOptions::repair`).
struct RepairOutcome {
    bool placed = false;
    std::int64_t moves = 0;
};

struct ReplayOptions {
    std::uint64_t seed = 42;
    double inflation = 1.3; // target arrived GPU demand as a multiple of capacity; <= 0 keeps the list as is
    bool checkInvariants = false; // check every node, device and pool after every placement (slow)
    // Called when a pod fits nowhere, before it counts as failed: may move placed pods (through the scheduler)
    // and place it. Unset = the paper's behaviour (the pod is skipped).
    std::function<RepairOutcome(Scheduler&, ClusterState&, WorkloadId)> repair;
};

inline constexpr int kAllocationColumns = 131; // arrived GPU demand 0%..130% of capacity

struct ReplayResult {
    std::string policy;
    std::uint64_t seed = 0;
    std::int64_t gpusTotal = 0;
    std::int64_t podsOriginal = 0;
    std::int64_t podsTotal = 0; // after inflation
    std::int64_t podsFailed = 0;
    std::int64_t gpuPodsFailed = 0;
    std::int64_t moves = 0;
    std::vector<double> allocationPct; // column x = mean allocation % over rows whose arrived % rounds to x
    double unallocatedPctAt100 = 0;
    double wallMs = 0;
};

// The pod stream of one run: the name-sorted list shuffled with the seed, then inflated by random draws.
// Also returns the tie order (a random rank per node) through `tieRank`.
std::vector<const OpenbPod*> openbStream(const std::vector<OpenbPod>& pods, std::int64_t gpuCapacityMilli,
    const ReplayOptions& options, std::size_t nodeCount, std::vector<std::uint32_t>& tieRank);

// Runs one replay with the profile `policy` (a registered policy or built-in profile name).
Expected<ReplayResult> replayOpenb(const std::vector<OpenbNode>& nodes, const std::vector<OpenbPod>& pods,
    const std::string& policy, const ReplayOptions& options, const PolicyRegistry& registry);

// Mean allocation per arrived-demand column from per-pod samples (both in percent).
std::vector<double> allocationColumns(const std::vector<double>& arrivedPct, const std::vector<double>& allocatedPct);

} // namespace tidepool::sim
