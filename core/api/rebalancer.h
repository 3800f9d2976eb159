#pragma once
// The 5-minute evaluation loop and the life of its proposals. Every `period` it forecasts each pool's CPU and memory
// demand, and its accelerators of each kind it holds a quota of, from the stored 5-minute history (`core/forecast`),
// stores the forecasts, runs the evaluation (`rebalance::evaluate`), and keeps one pending proposal per subject: an
// unchanged proposal stays, a changed one supersedes it, one no longer proposed and one past its expiry expire. A
// subject an operator rejected is not proposed again while the plan for it stays the same, for `rejectionHold`.
// Low-risk proposals of the kinds configured for it are approved by rule.
//
// Approving applies a proposal only if the state it was planned on still holds (each action names what it expects:
// a pool's quota, a node idle and in service); otherwise it is re-planned on the state as it is now and the
// operator is pointed at the new proposal, like `nomad job plan` and `-check-index`. Applying goes through the
// control plane, records every step, and a failed step rolls back the steps before it and says exactly which
// failed. Every proposal and decision is written to the store and survives a restart.
//
// Forecasting is the expensive part (milliseconds per pool), so the loop and the API's "evaluate now" fit the models
// on a worker thread of the rebalancer's own, from history read on the core's thread, and finish on the core's
// thread: the core never stalls placements for it.
//
// The power hook (`powerCommand`, see power_command.h): an approved power-down proposal cordons its node and then runs
// `<program> off <node>`; an approved power-up proposal runs `<program> on <node>` and then lifts the cordon (the node
// joins when its agent comes back). The command runs on a worker thread of its own, with a timeout, and finishes on
// the core's thread; until then the proposal stays `approved` with the step `running`. A node switched off is `off`
// once its agent leaves (not lost, no alert); powered up, it is `booting` until its agent is back, and the evaluation
// counts it as capacity on its way meanwhile (no second node powered up for the same peak). A failing or timed-out
// command fails its step with its exit status and the tail of its standard error, and the steps before it are rolled
// back as for any failed step (a power-down's cordon is lifted). A restart while a command ran leaves the proposal
// `failed`, its outcome unknown.
//
// Thread affinity: the core's io_context thread; only the pure forecasting runs on the worker. Ownership: borrows
// the control plane, which must outlive it.

#include "core/api/control_plane.h"
#include "core/api/power_command.h"
#include "core/forecast/model.h"
#include "core/rebalance/carbon.h"
#include "core/rebalance/evaluator.h"
#include "core/rebalance/hotspots.h"
#include "core/rebalance/rightsize.h"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include <array>
#include <chrono>
#include <unordered_map>

namespace tidepool::api {

struct RebalanceConfig {
    std::chrono::milliseconds period { 5 * 60'000 };
    std::size_t lookaheadSteps = 12; // 5-minute steps the evaluation plans for: the next hour
    // 5-minute steps after the lookahead in which a hot node the forecast peak will want drains: no new batch starts
    // there, and the batch running there may end on its own before the node is reserved and what is left is stopped.
    // 0 (the default) = hot nodes are reserved (and their batch stopped) only when the peak is within the lookahead.
    // Off by default: without run-time estimates a drain idles GPUs as often as it saves a run (BENCHMARKS.md §7).
    std::size_t drainSteps = 0;
    std::size_t forecastSteps = 288; // 5-minute steps stored for the console: the next day
    std::size_t historyDays = 14; // of 5-minute aggregates a forecast reads
    // A pool (or the hot tier) with less history (one day) gets no forecast and no quota proposal; power planning holds
    // its highest load of the last day for it instead (`PoolOutlook::cpuRecentPeakMillis`).
    std::size_t minHistorySteps = 288;
    std::string model = std::string(forecast::kSeasonalModel);
    std::vector<rebalance::ProposalKind> autoApprove; // low-risk kinds applied by rule
    std::size_t maxConsolidationMoves = 16; // per consolidation proposal
    std::size_t minGpusFreed = 1; // a consolidation is proposed when it frees at least this many whole GPUs
    // Moves between GPUs of one node. A migration stops the workload and launches it again with the same id and a
    // new incarnation, which the agent starts beside the records of the stopped one (it refuses only an (id,
    // incarnation) it has seen); statuses of the stopped incarnation are ignored. Off, a share only moves to another
    // node (for agents from before incarnations, which refuse the relaunch).
    bool consolidateWithinNodes = true;
    rebalance::HotSpotConfig hotSpots;
    std::size_t maxTierMoves = 8; // per pool whose tier was set after its work was placed
    // Right-sizing proposals (`resize`): running workloads' requests from their measured peaks (rightsize.h).
    rebalance::RightSizeConfig rightSize;
    rebalance::CarbonIntensity carbon; // the grid's intensity forecast (--carbon-intensity); empty = no deferral
    rebalance::EvaluatorConfig evaluator;
    // The physical power hook (--power-command): run as `<program> off|on <node>`; empty = power proposals only
    // cordon and uncordon. Past the timeout the command (its process group) is killed and its step fails.
    std::string powerCommand;
    std::chrono::milliseconds powerCommandTimeout { 60'000 };
    // Closed proposals created and decided longer ago than this are forgotten at the next evaluation, as the store's
    // maintenance deletes them (`store::Retention::proposalMs`, the same setting in tidepoold: `proposalDays`); 0 keeps
    // them all. Without it a daemon's memory, every evaluation and every console snapshot grow with its lifetime.
    std::chrono::milliseconds keepClosedProposals { 90LL * 24 * 3'600'000 };
    // Advice an operator rejected is not proposed again for this long while the evaluation's plan for its subject stays
    // the same (to within a quota step): a rejection means "not this", and the same proposal back five minutes later
    // would ask again. A different plan is proposed at once. 0 = every evaluation proposes afresh.
    std::chrono::milliseconds rejectionHold { 6 * 3'600'000 };
};

// What /metrics says of the loop (metrics.h).
struct RebalancerStats {
    std::uint64_t evaluations = 0; // finished, their forecasts stored
    std::int64_t lastEvaluationMs = 0; // Unix ms the last one finished; before the first, when the loop started
    double lastEvaluationSeconds = 0.0; // its wall time, from reading the history to the proposals
    // Proposals that entered each state since the daemon started, by `ProposalState`: pending when created, approved
    // when an operator or a rule approves (whatever the outcome), the others as they close.
    std::array<std::uint64_t, rebalance::kProposalStateCount> entered {};
};

class Rebalancer {
public:
    // Fails when `config.model` names no forecasting model. Restores the proposals the control plane's store held.
    static Expected<std::unique_ptr<Rebalancer>> create(
        boost::asio::io_context& io, ControlPlane& plane, RebalanceConfig config, protocol::LogSink log);

    void start();
    void stop();

    // One evaluation at `nowMs` (Unix epoch), forecasting on the worker; `done` gets the proposals it created, on the
    // core's thread. Normally run by the timer.
    void evaluate(std::int64_t nowMs, std::function<void(std::vector<std::int64_t>)> done);
    // The same, all on the calling thread (tests, and a re-plan while approving).
    std::vector<std::int64_t> evaluateNow(std::int64_t nowMs);

    const std::map<std::int64_t, rebalance::Proposal>& proposals() const { return m_proposals; }
    // Evaluations finished so far, their forecasts stored: a reader of the store's forecasts reads again when it grows.
    std::uint64_t evaluations() const { return m_stats.evaluations; }
    const RebalancerStats& stats() const { return m_stats; }
    const rebalance::Proposal* proposal(std::int64_t id) const;
    // Why `proposal(id)` is null, for a 404: no such proposal, or one closed so long ago that it was forgotten
    // (`keepClosedProposals`; the audit log still has its decision).
    std::string whyNoProposal(std::int64_t id) const;
    // How long closed proposals are kept (`RebalanceConfig::keepClosedProposals`; 0 = forever).
    std::chrono::milliseconds keepClosedProposals() const { return m_config.keepClosedProposals; }
    // Decisions; `actor` is who decided ("operator:<fingerprint>", "rule:..."). The error's status is 404 for an
    // unknown id, 409 for a proposal that is not pending, expired or re-planned (the message names the new one).
    ApiResult<const rebalance::Proposal*> approve(std::int64_t id, const std::string& actor, std::int64_t nowMs);
    ApiResult<const rebalance::Proposal*> reject(
        std::int64_t id, const std::string& actor, const std::string& why, std::int64_t nowMs);

    Rebalancer(boost::asio::io_context& io, ControlPlane& plane, RebalanceConfig config, protocol::LogSink log,
        std::unique_ptr<forecast::Model> model); // use `create`
    ~Rebalancer();

private:
    // What one evaluation works from: the cluster as it was, and each pool's history on the 5-minute grid.
    struct Job {
        rebalance::EvaluationInput input;
        // Each pool's CPU, as in `input.pools`; then each pool's memory, likewise; then the hot tier's accelerators,
        // kind by kind as in `hotKinds`; then pools' accelerators of one kind, as in `poolAccelerators`.
        std::vector<std::optional<forecast::Series>> history;
        std::vector<AcceleratorKind> hotKinds;
        std::vector<std::pair<std::size_t, AcceleratorKind>> poolAccelerators; // (index in `input.pools`, kind)
        std::array<double, kAcceleratorKindCount> unitsPerDevice {}; // a device's share, by kind (GPU: 1000)
        std::vector<std::optional<forecast::Forecast>> forecasts; // filled by `forecastAll`
        std::int64_t endMs = 0; // the first bucket not closed yet: where the forecasts start
        std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    };
    // The core's thread. Without `readHistory` the job holds no history (and so gets no forecasts).
    Job collect(std::int64_t nowMs, bool readHistory = true);
    void forecastAll(Job& job) const; // any thread
    // Puts the forecast peaks into the job's input, and with `store` writes the forecasts.
    void applyForecasts(Job& job, bool store);
    std::optional<forecast::Series> readSeries(const store::SeriesKey& key, std::int64_t fromMs, std::int64_t toMs);
    std::vector<std::int64_t> finish(Job& job); // the core's thread
    // Everything worth proposing on `input` and the cluster as it is: the evaluation's and a consolidation.
    std::vector<rebalance::Proposal> plan(const rebalance::EvaluationInput& input) const;
    // Right-sizing proposals, one per pool, from running workloads' measured peaks (`RebalanceConfig::rightSize`).
    void planRightSizing(const rebalance::EvaluationInput& input, std::vector<rebalance::Proposal>& proposals) const;
    // Keeps one pending proposal per subject, expires the rest, applies the rules; returns the proposals created.
    std::vector<std::int64_t> decide(const rebalance::EvaluationInput& input);
    rebalance::EvaluationInput snapshot(std::int64_t nowMs);
    // The first action whose expected state no longer holds, in words; "" when all hold.
    std::string staleness(const rebalance::Proposal& proposal) const;
    std::string applyAction(const rebalance::Action& action);
    // Undoes `done`, newest first, recording each undo as a step, and fails the proposal naming `failedStep`.
    void rollBack(rebalance::Proposal& proposal, const std::vector<const rebalance::Action*>& done,
        const std::string& failedStep, const std::string& failure);
    // The node an approved proposal switches on or off, when the power hook is configured and it is a power proposal.
    std::optional<std::string> powerTarget(const rebalance::Proposal& proposal) const;
    // Runs `<powerCommand> verb node` on the power worker; `finishPower` completes the proposal on the core's thread.
    void startPower(rebalance::Proposal& proposal, const std::string& verb, const std::string& node);
    void finishPower(std::int64_t id, const std::string& verb, const std::string& node, const PowerCommandResult& result);
    // The pending proposal `id`: a 404 when unknown, a 409 when decided already.
    ApiResult<rebalance::Proposal*> pendingProposal(std::int64_t id);
    void apply(rebalance::Proposal& proposal);
    void save(const rebalance::Proposal& proposal);
    // An agent refused a resize afterwards (`ControlPlane::setResizeRefusedListener`): when a proposal asked for it
    // ("resize proposal N"), its steps and detail say so, so that an applied right-sizing does not read as in force
    // where it is not.
    void onResizeRefused(WorkloadId workload, const std::string& actor, const std::string& outcome);
    void noteQuota(const rebalance::Action& action);
    std::int64_t add(rebalance::Proposal proposal);
    void arm();

    ControlPlane& m_plane;
    RebalanceConfig m_config;
    protocol::LogSink m_log;
    std::unique_ptr<forecast::Model> m_model;
    boost::asio::io_context& m_io;
    boost::asio::steady_timer m_timer;
    boost::asio::thread_pool m_worker { 1 };
    // Power commands may take a minute (a BMC that answers slowly): not on the forecasting worker.
    boost::asio::thread_pool m_powerWorker { 2 };
    std::shared_ptr<int> m_alive = std::make_shared<int>(0); // results posted back check it is still there
    bool m_running = false;
    bool m_evaluating = false; // one evaluation at a time
    std::map<std::int64_t, rebalance::Proposal> m_proposals;
    RebalancerStats m_stats;
    // The state each proposal was last saved in, so that saving it again in the same state is not counted as entering
    // it (`RebalancerStats::entered`).
    std::unordered_map<std::int64_t, rebalance::ProposalState> m_savedStates;
    std::int64_t m_nextId = 1;
    std::int64_t m_applying = 0; // the proposal whose plan `apply` is carrying out, for its resizes' actor
    // (pool, "cpu" | "memory" | "gpu" | "npu" | "fpga") → the quota a quota proposal raised it from, in its unit.
    std::map<std::pair<std::string, std::string>, std::int64_t> m_baseQuotas;
    std::map<std::string, std::int64_t> m_idleSince; // node → Unix ms it was first seen running nothing
    // The latest forecast peaks ("pool:<name>" CPU, "pool-memory:<name>", "pool-<kind>:<name>" a pool's accelerators
    // of a kind, "tier:hot" for GPUs, "tier:hot:<kind>") →
    // (p90 peak in the kind's units, when), for re-planning without forecasting; "recent:<key>" where a series had
    // too little history and its highest recent load stands in.
    std::map<std::string, std::pair<double, std::int64_t>> m_lastPeaks;
};

} // namespace tidepool::api
