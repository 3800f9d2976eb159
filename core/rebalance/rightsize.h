#pragma once
// Right-sizing (as Kubernetes' Vertical Pod Autoscaler recommends requests): a running workload whose measured use,
// over long enough, stays well below what it asks for holds capacity nobody uses (its node refuses other work for it,
// its pool's quota counts it); one that uses more than it asks for is placed and charged as if it used less. This
// plans, pool by pool, new CPU and memory requests from each workload's use since its launch started (as its node's
// agent measured its cgroup: `api::MeasuredWorkloadUse`) with a margin on top, where the change is worth a proposal:
// for CPU, which is compressible, the 90th percentile of its samples, newer ones weighing more (`UsageHistogram`, as
// the VPA recommender's target), so that a rare spike does not pin the request; for memory, which is not, its peak.
// Applying one resizes each workload in place (`ControlPlane::resize`): no restart, its limits stay.
//
// A request is rounded up to `cpuStepMillis` / `memoryStepMiB`, never below one step, never above the workload's own
// limit (a limit is at least its request), and a resource it asked none of stays none. A change is proposed when it
// moves the request by at least `minChangeFraction` of it and by at least `minCpuMillis` / `minMemoryMiB`; a
// workload measured for less than `observeFor` (its peaks may still be to come) is left alone.
//
// A pool's lowers and its raises are planned apart, as two proposals: a lower reclaims what a workload holds unused
// and risks its starving later, so an operator weighs it; a raise only reserves what a workload already uses, and is
// low-risk, so a rule may apply it at once (`autoApprove`), not a day later with the lowers. A workload that uses less
// of one resource and more of the other is in both, each with the other resource as it asks.
//
// Thread affinity: none; a pure function.

#include "core/rebalance/proposal.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tidepool::rebalance {

struct RightSizeConfig {
    // Measured for at least this long before its peaks are taken for what it needs; 0 turns right-sizing off.
    std::chrono::milliseconds observeFor { 6 * 3'600'000 };
    double margin = 1.15; // on top of the peak (the VPA recommender's 15% safety margin)
    double minChangeFraction = 0.25;
    std::int64_t minCpuMillis = 100;
    std::int64_t minMemoryMiB = 128;
    double cpuPercentile = 0.9; // of its CPU samples (`UsageHistogram::percentile`)
    std::int64_t cpuStepMillis = 10;
    std::int64_t memoryStepMiB = 16;
    std::size_t maxPerProposal = 20; // per pool, the largest changes first
};

// One running workload and what it was measured using.
struct WorkloadUse {
    std::int64_t id = 0;
    std::string name;
    std::string pool;
    std::string node;
    std::int64_t cpuMillis = 0; // its requests
    std::int64_t memoryMiB = 0;
    std::int64_t cpuLimitMillis = 0; // its own limits; 0 = none
    std::int64_t memoryLimitMiB = 0;
    std::int64_t observedMs = 0; // how long it has been measured, this launch
    std::int64_t peakCpuMillis = 0;
    std::int64_t peakMemoryMiB = 0;
    // Its CPU samples' `RightSizeConfig::cpuPercentile`; -1: none kept (a core from before histograms measured it),
    // its peak stands for it.
    std::int64_t cpuPercentileMillis = -1;
    std::int64_t cpuUsed() const { return cpuPercentileMillis >= 0 ? cpuPercentileMillis : peakCpuMillis; }
};

// What a raise may take now: each node's free CPU and memory, and what each pool's quotas leave of them (a large number
// for none), by name. A raise that does not fit, after the raises before it, is left out of the plan (applying it
// would fail, and roll back the rest of the proposal); what a lower would give back is not counted on, since the
// lowers may not be approved (once they are, the next evaluation finds the room).
struct RightSizeRoom {
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> nodes; // (millicores, MiB)
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> pools;
};

// A pool's lowers, or its raises: `Resize` actions, the largest change first, and their sums.
struct RightSizePlan {
    std::string pool;
    bool raises = false; // each of its resizes asks for more of what it changes; else each asks for less
    std::vector<Action> resizes;
    std::size_t noRoom = 0; // raises left out: their node or their pool has no room for them now
    std::int64_t cpuBefore = 0, cpuAfter = 0; // what they ask for together, now and after
    std::int64_t memoryBefore = 0, memoryAfter = 0;
    std::int64_t usedCpu = 0; // what they used together: the sum of each one's `cpuUsed`
    std::int64_t peakMemory = 0; // the sum of their memory peaks
};

// The request right-sizing gives `used` (a percentile or a peak) for a workload asking `asked` with its own `limit`
// (0: none).
std::int64_t rightSizedRequest(
    std::int64_t asked, std::int64_t used, std::int64_t limit, std::int64_t step, double margin);

// The request right-sizing proposes for one resource of a workload asking `asked` (its own limit `limit`, 0 for none)
// that used `used` (a percentile or a peak): `asked` itself where the change would be too small to be worth proposing
// (under `least` or under `minChangeFraction` of it).
std::int64_t proposedRequest(std::int64_t asked, std::int64_t used, std::int64_t limit, std::int64_t step,
    std::int64_t least, const RightSizeConfig& config);

// Each pool's plans, by pool name, its lowers before its raises; a plan with nothing in it is left out. Without `room`,
// raises are not checked against it.
std::vector<RightSizePlan> planRightSizing(
    const std::vector<WorkloadUse>& workloads, const RightSizeConfig& config, const RightSizeRoom* room = nullptr);

} // namespace tidepool::rebalance
