#pragma once
// Days of a heterogeneous cluster in simulated time, run through the real core: the control plane (placement,
// pools, tiers, preemption, the SQLite store), the history recorder, and in `tidepool` mode the 5-minute rebalancer
// whose proposals an operator approves (every one, at once). Only the agents are simulated: a launch is running at
// once, a batch job exits when its trace lifetime has run, a stop is acknowledged at once; a node powered down by a
// proposal is switched off once it holds nothing (its agent leaves), and one powered up again boots for `bootMs`
// before its agent joins again.
//
// The load is real:
// - business lines (warm tier, latency-sensitive services): each follows a cluster-wide CPU series of
//   `../shared/data/load-series`, scaled to its peak, as replicas of 4 cores that an autoscaler adds and removes
//   every minute; one line lives 8 hours east of the others;
// - real-time inference (hot tier, one GPU per replica): the requests per second of a GenAI serving fleet
//   (`../shared/data/services/qps.csv`, 22.3 hours stretched onto a day, repeated at the level of the Google
//   series' same day), scaled to its peak; an
//   autoscaler keeps replicas at a target utilisation, and the p99 response time comes from an M/M/c model of each
//   minute (`latency.h`);
// - batch (cold tier): the openb pods with their trace lifetimes as run times (CPU-only and GPU ones), arrivals in
//   trace order with the gaps compressed so that the offered CPU load is `batchLoad` of the cold tier.
//
// Optionally (`fpgaNodes`, `npuNodes`; none by default, so the figures of BENCHMARKS.md hold) hosts of time-sliced
// accelerators and a stream of work for each, whose load is synthetic: ../shared/data has no FPGA or NPU trace. Each
// stream is a Poisson process of workloads in a pool of its own ("video-transcode" on FPGA slots, "speech-to-text"
// on NPU cores) whose rate follows the "video" line's series (the Google cluster's CPU, 8 hours east), scaled so that
// about three quarters of the slots or cores are held at its peak; each asks for 1 to 4 slots or cores of one device
// and runs for 5 to 60 minutes (log-uniform), drawn from `seed`. The hosts join with devices, so the core puts them in
// the hot tier; the books' GPU figures count GPUs only.
//
// `static` is static allocation: each line's quota is its own peak, CPU batch is pinned to the cold tier, inference
// keeps a fixed set of hot nodes sized for its peak with the evaluation's headroom (1.2), GPU batch runs on the other
// hot nodes, and every node is on all the time. `tidepool` starts from the same state, lets batch go wherever
// the scheduler's tiers allow, and runs the evaluation loop with every proposal approved.
//
// Thread affinity: none; a run owns its io_context, control plane and store, on the calling thread.

#include "core/model/types.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tidepool::api {
class ControlPlane;
class Rebalancer;
} // namespace tidepool::api

namespace tidepool::sim {

enum class ScenarioMode : std::uint8_t { Invalid = 0, Static = 1, Tidepool = 2 };

struct ScenarioConfig {
    ScenarioMode mode = ScenarioMode::Tidepool;
    std::string dataDir; // ../shared/data
    std::string dbPath; // the SQLite file the core writes (replaced)
    std::int64_t days = 8; // simulated, warm-up included
    std::int64_t warmupDays = 2; // history for the forecasts; not measured
    std::int64_t stepMs = 60'000;
    std::int64_t evaluationPeriodMs = 5 * 60'000;
    // How long a powered-up node takes to boot: drawing power (and paid for) but taking no work until its agent is
    // back. A node powered down is off once it holds nothing: its agent leaves, and the core marks it off.
    std::int64_t bootMs = 5 * 60'000;
    // `rebalance::EvaluatorConfig::maxPowerDownsPerNodePerDay` (0 = no limit, the daemon's default).
    std::size_t maxPowerDownsPerNodePerDay = 0;
    // What forecast peaks are planned with (`rebalance::EvaluatorConfig::headroom`, 1.2 in the daemon): in `tidepool`
    // mode the evaluation's quotas, reservations and power planning; in `static` mode the hot nodes kept for
    // inference (its peak with this headroom). In [1, 3]. The batch load stays offered against the GPUs static
    // allocation leaves to batch at the default headroom.
    double headroom = 1.2;
    // The rebalancer's drain window before the lookahead (`api::RebalanceConfig::drainSteps`), in 5-minute steps.
    std::size_t drainSteps = 0; // the daemon's default (off), checked in scenario.cpp
    std::uint64_t seed = 42;
    // In `tidepool` mode, an operator approves every proposal right after each evaluation; false leaves them pending
    // for someone else to decide (the console's demo).
    bool operatorApproves = true;
    // Cluster: warm x86 servers (64 cores), hot 8-GPU servers (96 cores), cold aarch64 servers (64 cores).
    int warmNodes = 24;
    int hotNodes = 16;
    int coldNodes = 4; // the CPU-only batch is small in the trace: a few ARM servers hold it
    // Time-sliced accelerators (synthetic load, see above): x86 hosts of 2 FPGAs of 8 time-slice slots each, and
    // aarch64 hosts of 4 NPUs of 8 cores each. 0 leaves them and their workloads out.
    int fpgaNodes = 0;
    int npuNodes = 0;
    // Offered batch GPU load, as a share of the GPUs static allocation leaves to batch (at the default headroom).
    double batchLoad = 0.8;
    // Where in the openb trace the batch replay starts, as a share of its span, in [0, 1): the pods from there on
    // arrive first and the trace wraps around, so that runs differing only in this see the same load in another
    // order (the scenario is chaotic: `bench/scenario_spread.py` quotes medians over several starts). 0 = the trace
    // as it is.
    double batchStart = 0.0;
    // Inference: mean service time of one request on one replica, and the autoscaler's target utilisation.
    double inferenceServiceMs = 30.0;
    double inferenceTargetUtilisation = 0.6;
    double inferencePeakShare = 0.5; // the inference peak, as a share of the hot tier's GPUs
    // How long a replica takes from its launch (or its relaunch after a migration) to serving: an inference replica
    // loads its model, a service replica pulls and starts its container. It holds its resources meanwhile and serves
    // nothing; its agent reports it running when it is ready. 0 = at once. Batch runs start at once (their run time
    // is counted from the launch). Rounded up to whole steps.
    std::int64_t inferenceLaunchMs = 0;
    std::int64_t serviceLaunchMs = 0;
    // The autoscalers' scale-down stabilisation: a replica is removed only when the load has wanted fewer for this
    // long (the most wanted over the window is kept, as Kubernetes' HPA does, 5 minutes there by default), so that a
    // dip of a minute does not throw away a replica the next minute would have to load again. 0 = follow the load
    // minute by minute. Scaling up is never delayed.
    std::int64_t scaleDownDelayMs = 0;
    // In `tidepool` mode, the inference autoscaler also reads Tidepool's forecast of the inference pool (the latest
    // the evaluation loop stored, as `GET /v1/forecasts` serves it) and adds to what the load wants now the replicas
    // the forecast rises by within one launch time (`inferenceLaunchMs`), so that they have loaded when the load
    // arrives. It adds the rise, not the forecast level, so that the replicas it adds, which the pool's history
    // records, do not move the next day's forecast earlier. Static allocation has no forecast; ignored there.
    bool scaleAhead = false;
    // Relative hourly price of a node (for cost per unit of work): warm x86, cold aarch64, hot 8-GPU.
    double warmPrice = 1.0;
    double coldPrice = 0.85;
    double hotPrice = 6.0;
    double fpgaPrice = 2.0; // an FPGA host
    double npuPrice = 2.5; // an NPU host
    // Load no forecast knows of (none by default): for `durationMs` from `atMs` after the start (inside the measured
    // days), real-time inference asks `factor` times the requests of its trace plus `add` times its peak, and, where
    // `services`, each business line likewise of its CPU. A factor above 1 over hours is a peak larger than planned,
    // a long one a level shift; an `add` in a trough is a burst when the hot tier is lent to batch or powered down.
    // `ScenarioResult::surprise` keeps the books of the window.
    struct Surprise {
        std::int64_t atMs = 0;
        std::int64_t durationMs = 0; // 0 = no surprise
        double factor = 1.0;
        double add = 0.0;
        bool services = false;
    } surprise;
};

struct ScenarioResult {
    std::string mode;
    std::int64_t measuredHours = 0;
    // Time means over the measured days, of powered nodes only.
    double cpuUtilisation = 0; // CPU in use (services' demand, batch and inference requests) / powered CPU
    double gpuUtilisation = 0; // GPUs busy (inference load, batch shares) / powered GPUs
    double cpuAllocation = 0; // CPU requested by running workloads / powered CPU
    double gpuAllocation = 0;
    double poweredNodeHours = 0;
    // The hot nodes' powered hours by what they held: inference replicas (with or without batch), batch only,
    // nothing while reserved for the peak, nothing while lent, and booting.
    struct HotNodeHours {
        double inference = 0, batchOnly = 0, idleReserved = 0, idleLent = 0, booting = 0;
        double total() const { return inference + batchOnly + idleReserved + idleLent + booting; }
    } hotNodeHours;
    double cost = 0; // Σ powered node-hours × price
    double workCoreHours = 0; // CPU core-hours of useful work served (services' demand, finished batch, inference)
    double workGpuHours = 0;
    double costPerWork = 0; // cost / (core-hours + 10 × GPU-hours)
    // Batch jobs submitted in the measured days: finished ones' completion time (submit → end), and those left.
    std::size_t batchSubmitted = 0;
    std::size_t batchFinished = 0;
    double batchCompletionMeanS = 0;
    double batchCompletionP50S = 0;
    double batchCompletionP90S = 0;
    double batchWaitMeanS = 0; // submit → first start
    std::size_t batchPreempted = 0; // restarts of batch (preemption, reclaim), work lost
    double batchGpuHoursLost = 0; // the GPU-hours those stopped runs had done
    std::size_t batchPendingAtEnd = 0; // of those submitted in the measured days
    // Services: replica-minutes wanted but not running (pending), of all wanted.
    double serviceUnmetShare = 0;
    // Inference: p99 response time over all requests (seconds; -1 = unbounded: overloaded minutes), and the minutes
    // whose own p99 passed 200 ms.
    double inferenceP99S = 0;
    std::size_t inferenceSlowMinutes = 0;
    std::size_t inferenceMinutes = 0;
    double inferenceUnmetShare = 0;
    // The evaluation loop: proposals created and applied, by kind.
    std::vector<std::pair<std::string, std::size_t>> proposalsApplied;
    std::size_t proposalsCreated = 0;
    std::size_t invariantViolations = 0; // hourly checks of the cluster's books (nothing over capacity) that failed
    // The books of `ScenarioConfig::surprise`'s window, minute by minute (all zero without one).
    struct SurpriseBooks {
        std::size_t minutes = 0;
        double inferenceWanted = 0, inferenceMissing = 0; // replica-minutes
        double serviceWanted = 0, serviceMissing = 0;
        std::size_t serviceShortMinutes = 0; // minutes with some service replica wanted and not running
        std::size_t inferenceShortMinutes = 0; // minutes with some inference replica wanted and not running
        std::int64_t inferenceShortUntilMin = 0; // the end of the last such minute, from the window's start
        std::size_t inferenceSlowMinutes = 0; // minutes whose own p99 passed 200 ms
        double inferenceP99S = 0; // over the window's requests; -1 = unbounded
        std::size_t batchRestarts = 0; // batch runs stopped in the window (their work lost)
        std::size_t nodesBooting = 0; // nodes that were booting at some minute of the window
    } surprise;
    std::int64_t wallMs = 0;
};

std::string_view toString(ScenarioMode mode);
// The error names the file or setting at fault.
Expected<void> validate(const ScenarioConfig& config);
// A whole run: `ScenarioRun` stepped to its end.
Expected<ScenarioResult> runScenario(const ScenarioConfig& config);

// A run one step at a time, for a caller that drives it at its own pace (the console's demo mode runs one on its
// core thread at an accelerated clock). Everything happens on the thread that calls `start` and `step`.
class ScenarioRun {
public:
    // Loads the traces, builds the core and joins the simulated fleet; the error names the file or setting at fault.
    static Expected<std::unique_ptr<ScenarioRun>> start(const ScenarioConfig& config);
    ~ScenarioRun();

    bool done() const; // `days` of simulated time have passed
    void step(); // `stepMs` of simulated time: agents, autoscalers, batch, history, and the evaluation when due
    // Runs what the core has ready without advancing the clock: changes made between steps (a decision) are
    // committed to the store and their `whenSaved` callbacks run.
    void poll();
    ScenarioResult result() const; // the books so far
    api::ControlPlane& plane(); // the core the run drives, on simulated time
    api::Rebalancer* rebalancer(); // null in `static` mode
    std::int64_t nowMs() const; // the simulated clock, Unix epoch ms

private:
    ScenarioRun() = default;
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace tidepool::sim
