#pragma once
// The global evaluation: from the cluster as it is and each pool's forecast, the proposals worth an operator's
// attention. Pure planning: it reads a snapshot and returns proposals; it changes nothing.
//
// - Peak shifting (`quota`): a pool whose forecast p90 peak over the lookahead, with headroom, exceeds its CPU quota
//   gets a raise ahead of the peak, taken from pools whose own forecast leaves them slack (largest slack first) and
//   from capacity no quota holds; a pool raised earlier whose forecast fits its base quota again is given its base
//   back (the trough).
// - Lending (`lend`, `reclaim`): the hot tier keeps reserved, for its forecast accelerator peak with headroom, as few
//   hot nodes as hold it (those reserved already first, then those with the least batch on them); the other hot
//   nodes' accelerators are lent to batch. A peak coming proposes reserving more (their batch moves to the cold
//   tier); a trough proposes lending the surplus.
// - Carbon (`defer`): when the grid's carbon intensity is forecast to fall by at least `minCarbonSaving` within
//   `maxDeferral`, and deferrable batch is about, hold deferrable batch until the lowest window (each workload still
//   starts by its own deadline).
// - Energy (`power_down`, `power_up`): a ready node idle for `idleBeforePowerDown` is cordoned for power-down when the
//   rest of the cluster still holds the forecast peak with headroom and `powerDownMargin` (never the last
//   `minReadyPerTier` of a tier, never a node with accelerators while accelerator work is pending); a node powered
//   down earlier is proposed back up when the forecast peak needs it, or when pending accelerator work needs its
//   accelerators.
//
// Thread affinity: none; a pure function.

#include "core/rebalance/proposal.h"

#include <chrono>

namespace tidepool::rebalance {

struct PoolOutlook {
    std::string name;
    std::int64_t cpuQuotaMillis = 0; // the core's kUnlimited when unlimited
    double cpuDemandMillis = 0.0; // requested by its pending, launching and running workloads now
    std::optional<double> cpuPeakMillis; // forecast p90 peak over the lookahead; nullopt = too little history
    std::int64_t peakAtMs = 0; // when that peak is forecast
    std::optional<std::int64_t> baseCpuMillis; // the quota a quota proposal raised it from, while raised
};

struct NodeOutlook {
    std::string name;
    std::string tier;
    bool ready = false;
    std::string cordon; // "" = schedulable when ready
    std::int64_t cpuMillis = 0;
    std::size_t residents = 0;
    std::size_t accelerators = 0;
    std::int64_t idleSinceMs = 0; // 0 = busy now
    bool peakReserved = false; // hot: kept for the next peak, no batch
    double acceleratorMilli = 0.0; // its accelerators, in milli-devices (1000 each)
    std::size_t batchResidents = 0; // cold-tier workloads running there
};

struct EvaluationInput {
    std::int64_t nowMs = 0;
    std::uint64_t stateVersion = 0;
    std::vector<PoolOutlook> pools;
    std::vector<NodeOutlook> nodes;
    // The hot tier's accelerator demand (milli-devices) now and its forecast p90 peak over the lookahead.
    double hotAcceleratorDemand = 0.0;
    std::optional<double> hotAcceleratorPeak;
    std::int64_t hotPeakAtMs = 0;
    // The grid's carbon intensity (g CO2 per kWh) at points in time, ascending; the deferrable batch's CPU
    // (pending and running, millicores); the hold in force (0 = none).
    std::vector<std::pair<std::int64_t, double>> carbon;
    double deferrableCpuMillis = 0.0;
    std::int64_t carbonHoldUntilMs = 0;
    // Work waiting for a place now: accelerator share (milli-devices) wanted by pending workloads. A node that could
    // take it is not powered down, and a powered-down one is brought back for it.
    double pendingAcceleratorMilli = 0.0;
};

struct EvaluatorConfig {
    double headroom = 1.2; // a forecast peak is planned for with this much to spare
    std::int64_t quotaStepMillis = 500; // quotas move in whole steps
    std::chrono::milliseconds idleBeforePowerDown { 30 * 60'000 };
    std::size_t maxPowerDownsPerRound = 4;
    // Hysteresis: a node is powered down only when the rest holds the forecast peak with headroom and this much more,
    // so that the next evaluation's slightly higher forecast does not power it straight back up.
    double powerDownMargin = 0.1;
    std::size_t minReadyPerTier = 1;
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

// The reason prefix of a cordon that a power-down proposal set; power-up proposals only lift those.
inline constexpr std::string_view kPowerDownCordon = "powered down";

std::vector<Proposal> evaluate(const EvaluationInput& input, const EvaluatorConfig& config);

// A pending proposal of `kind` about `key`, planned on `input`'s state and expiring after `config.validity`.
Proposal newProposal(ProposalKind kind, std::string key, const EvaluationInput& input, const EvaluatorConfig& config);

} // namespace tidepool::rebalance
