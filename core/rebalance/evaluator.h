#pragma once
// The global evaluation: from the cluster as it is and each pool's forecast, the proposals worth an operator's
// attention. Pure planning: it reads a snapshot and returns proposals; it changes nothing.
//
// - Peak shifting (`quota`): a pool whose forecast p90 peak over the lookahead, with headroom, exceeds its CPU quota
//   gets a raise ahead of the peak, taken from pools whose own forecast leaves them slack (largest slack first) and
//   from capacity no quota holds (beyond the quotas, less what pools with no limit ask for now: a GPU lent to their
//   batch is not idle); a pool raised earlier whose forecast fits its base quota again is given its base
//   back (the trough). Memory limits likewise, as proposals of their own (key `quota:<pool>:memory`): a memory-bound
//   pool waits for memory however many cores it has; no donor is asked below its own forecast need with headroom,
//   and applying never lowers a limit below what the pool's workloads hold (`Rebalancer`). Accelerator quotas
//   likewise, kind by kind in the kind's share units (key `quota:<pool>:gpu`, `:npu`, `:fpga`): a pool whose forecast
//   GPU peak exceeds its GPU quota takes the share other pools' forecasts leave idle, and gives it back in the
//   trough. A quota of 0 (a pool kept off a kind) is neither raised nor drawn on.
// - Lending (`lend`, `reclaim`): the hot tier keeps reserved, for its forecast accelerator peak with headroom, as few
//   hot nodes as hold it (those reserved already first, then those with the least batch on them); the other hot
//   nodes' accelerators are lent to batch. A peak coming proposes reserving more (their batch moves to the cold
//   tier); a trough proposes lending the surplus.
// - Carbon (`defer`): when the grid's carbon intensity is forecast to fall by at least `minCarbonSaving` within
//   `maxDeferral`, and deferrable batch is about, hold deferrable batch until the lowest window (each workload still
//   starts by its own deadline).
// - Energy (`power_down`, `power_up`): a ready node idle for `idleBeforePowerDown` is cordoned for power-down when the
//   rest of the cluster still holds the forecast peak with headroom and `powerDownMargin`, of CPU and of memory
//   alike (a memory-bound pool needs the nodes its memory fits on however idle their cores), tier by tier: work that
//   may run only on some tiers (services on warm nodes) must still fit the nodes of those tiers. Never the last
//   `minReadyPerTier` of a tier, never a node with accelerators while work for accelerators of its kind is pending
//   or the hot tier's forecast peak of its kind needs them. A node powered down earlier is proposed back up when the
//   forecast peak of work it may run needs it, or when pending work or the hot tier's forecast peak of its
//   accelerator kind needs its accelerators. A node powered up and still booting counts as in service; one powered
//   down `maxPowerDownsPerNodePerDay` times in the last day stays on. A pool (or the hot tier) with too little history
//   for a forecast counts at its highest load of the last day (`cpuRecentPeakMillis`, `hotRecentPeak`). Accelerators
//   are counted kind by kind (GPU, NPU, FPGA), each in its own units: an FPGA slot is not a milli-GPU, and FPGA work
//   waiting keeps only FPGA hosts on.
//
// Thread affinity: none; a pure function.

#include "core/model/node.h"
#include "core/model/pool.h"
#include "core/rebalance/proposal.h"

#include <array>

#include <chrono>

namespace tidepool::rebalance {

// A pool's quota of one resource and its demand, in the resource's unit (accelerators: the kind's share units,
// milli-GPUs, NPU cores, FPGA slots): the quota (`kUnlimited` when unlimited), the base a quota proposal raised it
// from, what its pending, launching and running workloads ask for now, and the forecast p90 peak over the lookahead
// and when (nullopt: no forecast, no proposal).
struct QuotaOutlook {
    std::int64_t quota = kUnlimited;
    std::optional<std::int64_t> base;
    double demand = 0.0;
    std::optional<double> peak;
    std::int64_t peakAtMs = 0;
};

struct PoolOutlook {
    std::string name;
    std::int64_t cpuQuotaMillis = 0; // the core's kUnlimited when unlimited
    double cpuDemandMillis = 0.0; // requested by its pending, launching and running workloads now
    // That demand by the tiers its workloads may run on (`filters::allowedTiers`), indexed by `TierMask`; what the
    // masks do not account for may run anywhere. Power planning splits the forecast peak in the same proportions.
    std::array<double, kTierMaskCount> cpuDemandByTiers {};
    std::optional<double> cpuPeakMillis; // forecast p90 peak over the lookahead; nullopt = too little history
    std::int64_t peakAtMs = 0; // when that peak is forecast
    // Without a forecast (under a day of history): the highest 5-minute mean of its CPU demand recorded in the last
    // day, 0 = none. Power planning holds at least this much for it, a cautious stand-in for the forecast it lacks:
    // a new pool's trough now says nothing about its peak. Quota planning ignores it (no forecast, no proposal).
    double cpuRecentPeakMillis = 0.0;
    std::optional<std::int64_t> baseCpuMillis; // the quota a quota proposal raised it from, while raised
    // Memory, as the CPU above: the limit, requested now, by the tiers it may run on, the forecast p90 peak, without a
    // forecast the highest 5-minute mean of the last day, and the limit a quota proposal raised it from. Power and
    // quota planning hold both resources.
    std::int64_t memoryQuotaMiB = kUnlimited;
    std::optional<std::int64_t> baseMemoryMiB;
    double memoryDemandMiB = 0.0;
    std::array<double, kTierMaskCount> memoryDemandByTiers {};
    std::optional<double> memoryPeakMiB;
    std::int64_t memoryPeakAtMs = 0;
    double memoryRecentPeakMiB = 0.0;
    // Accelerator quotas, indexed by `AcceleratorKind` (None unused).
    std::array<QuotaOutlook, kAcceleratorKindCount> accelerators {};
};

struct NodeOutlook {
    std::string name;
    std::string tier;
    bool ready = false;
    // Powered up by a proposal and its agent not back yet (`api::NodeState::Booting`): counted as in service, its
    // capacity on its way, and never proposed up again or down while it boots.
    bool booting = false;
    std::size_t powerDownsToday = 0; // power-downs of it applied in the last 24 hours
    std::string cordon; // "" = schedulable when ready
    std::int64_t cpuMillis = 0;
    std::int64_t memoryMiB = 0;
    std::size_t residents = 0;
    std::size_t accelerators = 0;
    std::int64_t idleSinceMs = 0; // 0 = busy now
    bool peakReserved = false; // hot: kept for the next peak, no batch
    // Its accelerators' kind and their share capacity in that kind's units (see `AcceleratorOutlook`); None and 0
    // for a CPU server. Lending, reserving and the hot tier's GPU peak concern GPU nodes only.
    AcceleratorKind acceleratorKind = AcceleratorKind::None;
    double acceleratorShare = 0.0;
    std::size_t batchResidents = 0; // cold-tier workloads running there
};

// One accelerator kind's demand, in the kind's own units: milli-GPUs (1000 a GPU), NPU cores, FPGA time-slice slots
// (as `Device::shareCapacity` counts them; a whole-device request counts a device's capacity).
struct AcceleratorOutlook {
    double pending = 0.0; // wanted by pending workloads now: a node that could take it is not powered down, and a
                          // powered-down one is brought back for it
    double hotDemand = 0.0; // the hot tier's demand now (pending, launching and running)
    std::optional<double> hotPeak; // the hot tier's forecast p90 peak over the lookahead; nullopt = no forecast
    std::int64_t hotPeakAtMs = 0;
    // Without a forecast: the hot tier's highest 5-minute mean of the last day, 0 = none; power planning keeps
    // accelerators of the kind on for it as for a forecast peak (lending still waits for a forecast).
    double hotRecentPeak = 0.0;
    // The same peak over the lookahead and the drain window after it (GPUs): hot nodes it needs beyond `hotPeak`
    // drain (no new batch) rather than stop their batch. nullopt = no drain window.
    std::optional<double> drainPeak;
    std::int64_t drainPeakAtMs = 0;
};

struct EvaluationInput {
    std::int64_t nowMs = 0;
    std::uint64_t stateVersion = 0;
    std::vector<PoolOutlook> pools;
    std::vector<NodeOutlook> nodes;
    // Accelerator demand kind by kind, indexed by `AcceleratorKind` (None unused). The GPUs' hot-tier peak is also
    // what lending plans on.
    std::array<AcceleratorOutlook, kAcceleratorKindCount> accelerators {};
    AcceleratorOutlook& accelerator(AcceleratorKind kind) { return accelerators[static_cast<std::size_t>(kind)]; }
    const AcceleratorOutlook& accelerator(AcceleratorKind kind) const
    {
        return accelerators[static_cast<std::size_t>(kind)];
    }
    // The grid's carbon intensity (g CO2 per kWh) at points in time, ascending; the deferrable batch's CPU
    // (pending and running, millicores); the hold in force (0 = none).
    std::vector<std::pair<std::int64_t, double>> carbon;
    double deferrableCpuMillis = 0.0;
    std::int64_t carbonHoldUntilMs = 0;
};

struct EvaluatorConfig {
    double headroom = 1.2; // a forecast peak is planned for with this much to spare (`tidepoold --headroom-percent`)
    std::int64_t quotaStepMillis = 500; // quotas move in whole steps
    std::int64_t quotaStepMiB = 512;
    // Accelerator quotas' steps by kind, in share units (None unused): half a GPU, one NPU core, one FPGA slot.
    std::array<std::int64_t, kAcceleratorKindCount> acceleratorQuotaStep { 0, 500, 1, 1 };
    std::chrono::milliseconds idleBeforePowerDown { 30 * 60'000 };
    std::size_t maxPowerDownsPerRound = 4;
    // Hysteresis: a node is powered down only when the rest holds the forecast peak with headroom and this much more,
    // so that the next evaluation's slightly higher forecast does not power it straight back up.
    double powerDownMargin = 0.1;
    std::size_t minReadyPerTier = 1;
    // A node powered down this many times in the last 24 hours is not proposed for power-down again until the oldest
    // of them is a day old: power cycles wear servers, and most of a short cycle's saving goes in booting. 0 = no
    // limit.
    std::size_t maxPowerDownsPerNodePerDay = 0;
    // Estimated idle draw of a server, for the predicted saving (a 2-socket server idles near 100 W; each idle
    // accelerator adds some 30 W; override with measured figures).
    double idleWattsPerNode = 100.0;
    double idleWattsPerAccelerator = 30.0;
    double carbonGramsPerKWh = 400.0; // the grid's intensity where the cluster runs
    std::chrono::milliseconds validity { 10 * 60'000 }; // proposals expire after this
    std::chrono::milliseconds maxDeferral { 12 * 3600'000 };
    double minCarbonSaving = 0.2; // a window at least this much cleaner than now
    double wattsPerBusyCore = 10.0; // a busy server core, for the predicted saving
};

using ::tidepool::kPowerDownCordon; // core/model/node.h

std::vector<Proposal> evaluate(const EvaluationInput& input, const EvaluatorConfig& config);

// A pending proposal of `kind` about `key`, planned on `input`'s state and expiring after `config.validity`.
Proposal newProposal(ProposalKind kind, std::string key, const EvaluationInput& input, const EvaluatorConfig& config);

} // namespace tidepool::rebalance
