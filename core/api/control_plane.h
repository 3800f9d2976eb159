#pragma once
// The live cluster: what `tidepoold` (and later the console) runs around the scheduling core. It turns agent events
// (join, inventory, heartbeat, workload updates, disconnects) into nodes of a `ClusterState`, places submitted
// workloads with the `Scheduler`, sends the agents their pools, launches and stops, tracks every node's liveness
// (ready → suspect → lost) and every workload's phase, and re-places the workloads of lost nodes.
//
// Reconciliation: an agent sends its full inventory, with every workload it holds, after each (re)join. The core
// compares that list with its own placements for the node: acknowledged launches become running, finished ones
// release their resources, launches the agent never received are sent again (the agent refuses an (id, incarnation)
// it holds, so nothing starts twice), a workload the core moved elsewhere while the node was away is stopped there,
// an older incarnation still running beside the current one is stopped, and one that is still waiting for a place is
// taken back where it runs. Each relaunch of a workload (re-placed, preempted, migrated, even to another device of
// the same node) is a new incarnation, and statuses of older incarnations are ignored.
//
// Thread affinity: everything runs on the io_context thread given at construction (the core's thread); the events,
// the API calls and the timers are all called there. Nothing here is synchronised.

#include "core/api/cluster_events.h"
#include "core/api/drain_options.h"
#include "core/model/cluster.h"
#include "core/model/usage_histogram.h"
#include "core/sched/scheduler.h"
#include "core/store/store.h"
#include "protocol/frame.h"
#include "protocol/log_sink.h"
#include "protocol/messages.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tidepool::api {

using Clock = std::chrono::steady_clock;

// off: powered down by an approved proposal (cordoned for it, holding nothing) and its agent gone: expected, not lost.
// booting: an off node whose power-down cordon was lifted (a power-up), until its agent comes back.
enum class NodeState : std::uint8_t { Invalid = 0, Joining, Ready, Suspect, Lost, Off, Booting };
// pending: waiting for a place; launching: placed, launch sent, not yet acknowledged; running: acknowledged;
// stopping: a stop was sent; the rest are final.
enum class WorkloadPhase : std::uint8_t {
    Invalid = 0,
    Pending,
    Launching,
    Running,
    Stopping,
    Succeeded, // exited 0
    Failed, // exited non-zero, or could not start
    Killed, // ended by a signal it was not asked for
    OomKilled,
    Cancelled, // stopped at an operator's request
};
inline constexpr int kNodeStateCount = 7;
inline constexpr int kWorkloadPhaseCount = 10;

// What ends of a launch start the workload again (as Docker's --restart): never; on-failure: a non-zero exit, a
// signal it was not asked for, its pool's OOM killer, a launch that could not start; always: also a zero exit. An
// operator's cancel (or stop) never does, and a lost node's workloads are placed again whatever the policy.
enum class RestartPolicy : std::uint8_t { Never = 0, OnFailure, Always };

std::string_view toString(NodeState state);
std::string_view toString(WorkloadPhase phase);
std::string_view toString(RestartPolicy policy);
std::optional<RestartPolicy> parseRestartPolicy(std::string_view text);
std::optional<WorkloadPhase> parseWorkloadPhase(std::string_view text);
bool isFinal(WorkloadPhase phase);

// The actor of the phase change with which a workload's restart policy puts it back in the queue (`events()`).
inline constexpr std::string_view kRestartPolicyActor = "restart policy";

// The pool of workloads that name none; it always exists.
inline constexpr std::string_view kDefaultPool = "default";
// How long deferrable batch may be held for a low-carbon window when it names no deadline.
inline constexpr std::int64_t kDefaultDeferralMs = 12LL * 3600 * 1000;

// Unix epoch milliseconds now, on the system clock.
std::int64_t unixMillis();

struct ControlPlaneConfig {
    std::string profile = "default";
    std::int32_t heartbeatIntervalMs = 5000; // what agents are told; the timeouts below are in the same spirit
    // Like the Kubernetes node controller (40 s grace, then eviction) and Nomad (heartbeat TTL plus a grace):
    // a node that has not been heard from for `suspectAfter` takes no new work; after `lostAfter` its workloads
    // are placed elsewhere.
    std::chrono::milliseconds suspectAfter { 15'000 };
    std::chrono::milliseconds lostAfter { 45'000 };
    // After the core starts, nodes it knows from before (a restored database) are not declared lost before this.
    std::chrono::milliseconds restartGrace { 60'000 };
    // A node powered up (booting) whose agent has not come back after this is declared lost: the power-up failed.
    // Servers with many GPUs take minutes to boot (firmware, memory training, the OS, the agent).
    std::chrono::milliseconds bootTimeout { 15 * 60'000 };
    std::chrono::milliseconds tick { 500 }; // how often liveness is checked (and restarts that are due go out)
    // A workload that ends as its restart policy says goes back to the queue after a back-off: `restartBackoff` after
    // the first end, doubled after each launch that ended within `restartResetAfter` of running (a crash loop), up to
    // `restartBackoffMax`; a launch that ran longer starts the doubling over. Like Kubernetes' CrashLoopBackOff (10 s
    // doubling to 5 min, reset after 10 min), with a quicker first restart.
    std::chrono::milliseconds restartBackoff { 1'000 };
    std::chrono::milliseconds restartBackoffMax { 300'000 };
    std::chrono::milliseconds restartResetAfter { 600'000 };
    std::int32_t stopGraceMs = 10'000; // SIGTERM → SIGKILL, told to agents with each stop
    // Launches sent to one node that its agent has not answered yet: the rest wait and go as answers come. A burst onto
    // one node (a batch of thousands of small workloads, or every launch it missed while away) would otherwise overrun
    // its connection's queue (`AgentServerConfig::maxQueuedFrames`: the session is closed, and on its return the same
    // launches go again) and the agent's answers its own (`AgentClientConfig::maxQueuedFrames`, 256).
    std::size_t launchWindow = 128;
    // Stops sent to one node that its agent has not answered yet (the agent answers each: with the copy's end, or at
    // once when it has ended or is not held there), likewise: a reconnect that stops thousands at once (cancelled while
    // the node was away, say) would otherwise overrun the session's queue. A stop unanswered after
    // `stopAnswerTimeout` (an agent from before stops were answered) leaves the window, so that it never wedges.
    std::size_t stopWindow = 128;
    std::chrono::milliseconds stopAnswerTimeout { 60'000 };
    // An id an agent reports that the core does not know moves the core's next id past it (a database replaced: the
    // agent holds records of the old one's workloads), but only within this margin above the highest id the core has
    // given out itself: a report of a far larger id (a corrupt record, a hostile agent; ids go up to 2^53) is logged
    // and ignored rather than spend the id space.
    WorkloadId adoptedIdMargin = 1'000'000;
    std::size_t maxWorkloads = 1'000'000; // known at once (pending, running and the last finished ones)
    std::size_t keepFinished = 10'000; // finished workloads kept for queries; older ones are forgotten
    std::size_t keepEvents = 10'000; // the latest placements, phase and node changes and audited actions (`events`)
    // How long an operator's read of a workload's output (`queryLogs`) waits for its agent's answer.
    std::chrono::milliseconds logsTimeout { 10'000 };
    // The largest frame the agent server takes (`DaemonConfig::maxFrameBytes`): a read asks for no more output than
    // an answer of this size carries (each byte of it may take three as text), so that a daemon configured with small
    // frames never takes an agent's answer for a hostile frame and drops the agent.
    std::uint32_t agentMaxFrameBytes = protocol::kDefaultMaxFrameBytes;
    // The wall clock (Unix epoch ms) that stamps submissions, placements, history, proposals and carbon windows;
    // empty = the system clock. A simulation (`tidepool-sim scenario`) runs the whole core on simulated days with it.
    std::function<std::int64_t()> clock;
};

// An operator's read of the end of a workload's output (`ControlPlane::queryLogs`, `GET /v1/workloads/{id}/logs`).
// A follower reads on from the `end` of each answer (`from`), naming the launch it follows (`incarnation`): when the
// workload was launched again meanwhile, it is answered from the beginning of the new launch's stream.
struct LogsQuery {
    WorkloadId workload = 0;
    bool stderrStream = false;
    std::int64_t maxBytes = 64 * 1024; // 1 to protocol::kMaxLogBytes: the last this many bytes, or the first `from` on
    std::int64_t from = -1; // -1: the end of the stream; else 0 to protocol::kMaxLogPosition (`LogRequest::from`)
    std::int32_t incarnation = -1; // with `from`: the launch whose stream `from` is in; -1 the current one
    bool previous = false; // the launch before the current one (`LiveWorkload::previousNode`), read whole; no `from`
    // With `from`: held at the agent until there is output from `from` on, the launch ends, or this long has passed
    // (1 to protocol::kMaxLogWaitMs; 0 answered at once). Only an agent that names kFeatureLogWait holds it, and only
    // `kMaxLogFollows` wait at once: beyond them, or with an agent from before, it is answered at once.
    std::int32_t waitMs = 0;
};
struct LogsAnswer {
    int status = 200; // an HTTP status: 200 with `reply`, else `error` says why there is none
    std::string error;
    std::string node; // where it was asked
    std::int32_t incarnation = 0; // of which launch
    WorkloadPhase phase = WorkloadPhase::Invalid; // the workload's when it was asked: final, its output is complete
    protocol::LogReply reply; // the agent's answer (its own `error` when it holds none: a 404 here)
};
using LogsDone = std::function<void(LogsAnswer)>;

// How the control plane reaches agents: the agent server in the daemon, a recorder in tests.
struct AgentLink {
    std::function<bool(const std::string& sessionId, const protocol::Message&)> send;
    std::function<bool(const std::string& sessionId, const std::string& reason)> disconnect;
};

// A workload as submitted through the API, validated.
struct SubmitRequest {
    std::string name;
    std::string pool; // empty = the "default" pool
    Resources requests;
    AcceleratorRequest accelerators;
    std::vector<std::string> acceleratorModels; // names; resolved to ids at submit
    std::int32_t priority = 0;
    LatencyClass latency = LatencyClass::Batch;
    Tier pinnedTier = Tier::Invalid;
    IsaMask nativeIsas = 0;
    bool allowTranslation = false;
    bool deferrable = false; // batch that may wait for a low-carbon window
    std::int64_t deadlineMs = 0; // deferrable: start by then at the latest (Unix ms); 0 = 12 hours after submission
    std::vector<std::string> argv;
    std::vector<std::string> env;
    // The most memory it may use on its node (its agent's cgroup limit for it, inside its pool's), at least
    // `requests.memoryMiB`; 0 = none of its own: it shares its pool's limit with its pool-mates there.
    std::int64_t memoryLimitMiB = 0;
    // The most CPU it may use on its node (its own bandwidth quota there, inside its pool's), at least
    // `requests.cpuMillis` and 10 millicores; 0 = none of its own: it may use what its pool's quota leaves.
    std::int64_t cpuLimitMillis = 0;
    RestartPolicy restart = RestartPolicy::Never;
    std::int32_t maxRestarts = -1; // with a restart policy: how many times at most, in all; -1 = no limit
    // The longest each launch may run (as Slurm's --time, Kubernetes' activeDeadlineSeconds): one running longer is
    // stopped and fails, and is not restarted; 0 = no limit.
    std::int64_t maxRuntimeMs = 0;
    // How long its stops wait between SIGTERM and SIGKILL (as Kubernetes' terminationGracePeriodSeconds, Nomad's
    // kill_timeout), 0 to `kMaxStopGraceMs`; -1 = the core's (`ControlPlaneConfig::stopGraceMs`).
    std::int32_t stopGraceMs = -1;
    // Whether the evaluation may propose new requests for it from its measured use (right-sizing, as a Vertical Pod
    // Autoscaler's updateMode: Off): false for work whose size is deliberate (a fixed heap, headroom for bursts).
    bool rightSize = true;
};
inline constexpr std::int32_t kMaxStopGraceMs = 3'600'000;

// What a workload's current launch used, as its node's agent measured the workload's cgroup
// (`protocol::WorkloadUsage`, kFeatureWorkloadUsage): at the latest sample and the most at any sample since it started.
struct MeasuredWorkloadUse {
    std::int64_t atMs = 0; // the latest sample's time (Unix epoch ms); 0: not measured
    std::int64_t cpuMillis = 0; // 1000: one core busy over the sample's interval
    std::int64_t memoryMiB = 0;
    std::int64_t peakCpuMillis = 0;
    std::int64_t peakMemoryMiB = 0;
    std::int64_t sinceMs = 0; // its first sample's time: the peaks are of the time since
    bool operator==(const MeasuredWorkloadUse&) const = default;
};

// A change of what a workload asks for and may use (`ControlPlane::resize`, `POST /v1/workloads/{id}/resize`): each
// field left out keeps its value; a limit of 0 removes the workload's own limit (it shares its pool's).
struct ResizeRequest {
    std::optional<std::int64_t> cpuMillis;
    std::optional<std::int64_t> memoryMiB;
    std::optional<std::int64_t> cpuLimitMillis;
    std::optional<std::int64_t> memoryLimitMiB;
    bool empty() const { return !cpuMillis && !memoryMiB && !cpuLimitMillis && !memoryLimitMiB; }
};

struct ResizeOutcome {
    bool changed = false; // false: it asked for this already
    std::string node; // where it runs, resized in place; empty: not placed (it is placed at its new size)
    bool sentToAgent = false; // its agent was sent the new weight and limits (`LiveWorkload::resizeUnconfirmed`)
    std::string message; // what changed, in English (logs, audit)
};

// What a running launch was given: its requests and its own limits (0: none), as a `protocol::Resize` sends them.
struct WorkloadSize {
    Resources requests;
    std::int64_t cpuLimitMillis = 0;
    std::int64_t memoryLimitMiB = 0;
    bool operator==(const WorkloadSize&) const = default;
};

struct LiveWorkload {
    Workload workload;
    std::string poolName;
    std::vector<std::string> argv;
    std::vector<std::string> env;
    std::int64_t memoryLimitMiB = 0; // SubmitRequest::memoryLimitMiB
    std::int64_t cpuLimitMillis = 0; // SubmitRequest::cpuLimitMillis
    WorkloadPhase phase = WorkloadPhase::Pending;
    NodeId node = kNoNode; // where it is placed (launching, running, stopping)
    std::vector<DeviceShare> devices;
    bool translated = false;
    std::int32_t pid = 0;
    std::int32_t exitCode = 0;
    std::string detail; // why pending, why it failed, what ended it
    FilterReport lastReport; // of the last placement attempt ("why pending" / "why here")
    std::int64_t submittedMs = 0, placedMs = 0, runningMs = 0, finishedMs = 0; // Unix epoch ms; 0 = not yet
    std::int64_t deadlineMs = 0; // deferrable: held for a low-carbon window at most until then
    std::uint32_t attempts = 0; // placement attempts
    // Which launch of it is current (`protocol::Launch::incarnation`): statuses of older ones are stale. Every
    // relaunch (requeued, preempted, migrated) takes `highestIncarnation` + 1, so an agent never mistakes it for a
    // launch it has seen.
    std::int32_t incarnation = 0;
    std::int32_t highestIncarnation = 0;
    // The launch before the current one (relaunched after a restart, a move, a preemption or a lost node): where it
    // ran and which it was, so that its output can still be read (`LogsQuery::previous`); kNoNode: none.
    NodeId previousNode = kNoNode;
    std::int32_t previousIncarnation = -1;
    RestartPolicy restart = RestartPolicy::Never; // SubmitRequest::restart
    std::int32_t maxRestarts = -1; // SubmitRequest::maxRestarts
    std::int32_t restarts = 0; // how many times its restart policy started it again
    std::int32_t crashLoop = 0; // of those, how many in a row after launches that ended soon (the back-off's exponent)
    std::int64_t restartAtMs = 0; // pending for a restart: placed no sooner than then (Unix ms); 0 = not waiting
    std::int64_t maxRuntimeMs = 0; // SubmitRequest::maxRuntimeMs
    std::int32_t stopGraceMs = -1; // SubmitRequest::stopGraceMs
    bool rightSize = true; // SubmitRequest::rightSize
    bool overran = false; // stopping because its launch ran past `maxRuntimeMs`: it ends failed
    // Waiting for a restart after a launch that never ran (could not start there: a program or a library that node
    // lacks): restarted through the queue, not on that node again. Not kept across restarts of the core.
    bool neverRan = false;
    // What its current launch used (running or stopping, on an agent that measures it; a new launch starts it again).
    // Not a change (`changeSequence` stays): it moves with every heartbeat; but when its peaks or its CPU's 90th
    // percentile have moved enough to be saved (`saveMeasuredUseWhenDue`), lists that follow changes read it again. Its
    // peaks and since when are kept across restarts of the core (`savedPeaks`: what the store holds), so that
    // right-sizing does not start its wait again; a restored workload reads as measured (`atMs`) from its first sample
    // after the restart.
    MeasuredWorkloadUse measured;
    MeasuredWorkloadUse savedPeaks; // `sinceMs` and the peaks only
    // Its launch's CPU samples, newer ones weighing more (right-sizing asks for their 90th percentile), and the time
    // of the sample it was last saved at; kept across restarts like the peaks.
    UsageHistogram cpuHistogram;
    std::int64_t histogramSavedAtMs = 0;
    std::int64_t cpuP90Millis = -1; // `cpuHistogram`'s 90th percentile, kept with it (for lists and consoles); -1: none
    // Resizes of its running launch sent to its agent and not answered yet, oldest first (the latest is sent again
    // when its agent rejoins); what its agent last confirmed it holds (its launch's, before the first resize); and the
    // agent's refusal of the latest one ("" when none). When the last answer is a refusal the core goes back to what
    // the agent holds, where its node still has room for it. Not kept across restarts of the core.
    std::deque<WorkloadSize> resizesSent;
    std::deque<std::string> resizeActors; // who asked for each of `resizesSent` ("resize proposal 12", a token)
    std::string resizeActor; // who asked for its latest resize
    WorkloadSize agentSize;
    std::string resizeRefused;
    bool resizeUnconfirmed() const { return !resizesSent.empty(); }
    WorkloadSize size() const { return WorkloadSize { workload.requests, cpuLimitMillis, memoryLimitMiB }; }
    std::uint64_t changeSequence = 0; // when it last changed (`ControlPlane::workloadsChangedSince`)
};

// A paced drain under way on a node (`DrainOptions::maxParallel` > 0, or an all-at-once drain that pools' disruption
// budgets held: `kMaxDrainParallel`), advanced by the liveness tick until the node holds nothing; ended early by
// lifting the node's cordon. Kept across restarts (but `moving` and `blocked`, which the workloads and the next try say
// again).
struct NodeDrain {
    std::int32_t maxParallel = 1;
    std::int64_t startedMs = 0;
    std::int64_t deadlineAtMs = 0; // Unix epoch ms; 0: none
    std::string actor; // who started it: the moves are theirs
    std::set<WorkloadId> moving; // moved off it by the drain, not running on their new node yet
    std::int64_t moved = 0; // moves it made, in all
    std::int64_t evicted = 0; // stopped and queued again at the deadline: no other node took them
    // At its latest try: how many of the node's workloads could not move (no other node took them, or their pool's
    // disruption budget held them), and why the first of them stayed.
    std::int64_t blocked = 0;
    std::string blockedReason;
    bool operator==(const NodeDrain&) const = default;
};

struct LiveNode {
    NodeId id = kNoNode;
    NodeState state = NodeState::Joining;
    std::string sessionId; // empty while disconnected
    std::string remote;
    std::string agentVersion;
    std::vector<std::string>
        agentFeatures; // what its hello named (protocol::kFeature*); none from an agent before them
    std::string cpuModel;
    std::int32_t numaNodes = 1;
    std::vector<protocol::TranslationFactor> translation;
    Clock::time_point lastSeen {};
    std::int64_t joinedMs = 0;
    std::int64_t lastHeartbeatMs = 0;
    double cpuUtilisation = 0.0;
    std::int64_t memoryUsedMiB = 0;
    std::vector<protocol::DeviceSample> devices;
    // Each pool's use of the node, as its agent measured it in the latest sample (empty: the agent does not measure
    // pools, or nothing ran in one yet).
    std::vector<protocol::PoolUsage> poolUsage;
    std::uint64_t heartbeats = 0;
    std::uint64_t usageSequence = 0; // its latest heartbeat's number (`ControlPlane::usageSequence`)
    // Launches on this session not answered yet, and those waiting for room (`ControlPlaneConfig::launchWindow`), by
    // (workload, incarnation); both are forgotten when the session ends (its next inventory says what arrived).
    std::set<std::pair<WorkloadId, std::int32_t>> launchesInFlight, launchesWaiting;
    std::deque<std::pair<WorkloadId, std::int32_t>> launchQueue;
    // Stops on this session not answered yet, with when each went, and those waiting for room
    // (`ControlPlaneConfig::stopWindow`), by (workload, incarnation); forgotten when the session ends, like launches.
    std::map<std::pair<WorkloadId, std::int32_t>, Clock::time_point> stopsInFlight;
    std::set<std::pair<WorkloadId, std::int32_t>> stopsWaiting;
    std::deque<std::pair<WorkloadId, std::int32_t>> stopQueue;
    // Taken out of scheduling by an operator or an approved power-down proposal (the reason says which); kept across
    // restarts and reconnects.
    std::string cordon;
    std::optional<NodeDrain> drain; // a paced drain under way (`ControlPlane::drain`)
    Clock::time_point bootingSince {}; // when its power-down cordon was lifted while it was off
    // Every utilisation sample received since the history recorder last took them (buffered backlogs included).
    std::vector<protocol::UtilisationSample> unrecorded;
    // The link's rate its agent shapes the node's egress at (`kUnlimited`: not shaped). Where shaped, the pools it is
    // sent carry each pool's guaranteed rate, the last sent here (by `poolsSent`; `ControlPlane::poolsToSend`), sent
    // again when placements change it.
    std::int64_t netLinkMbps = kUnlimited;
    std::vector<std::int64_t> poolNetSent;
    bool netOverLinkLogged = false;
    // The pools of the last `pools` message on this session, and those launches carried since (empty: none yet, or
    // none in use). An agent naming launch-pool is sent only the pools its workloads are in
    // (`ControlPlane::poolsToSend`): a pool reaches it with its first launch there, inside the launch, not at its
    // creation (which then costs nothing per node) nor at a join, and a later message leaves out those whose workloads
    // there have all gone. One from before is sent every pool at its join and at its first launch into a pool
    // created since.
    std::vector<PoolId> poolsSent;
    bool netShaped() const { return netLinkMbps != kUnlimited; }
};

// What a pool's cgroups used, as the agents of the connected nodes measured it (`protocol::PoolUsage`), summed over
// those nodes: the kernel's account, beside what the pool's workloads asked for.
struct MeasuredPoolUse {
    std::size_t nodes = 0; // connected nodes whose latest sample measured the pool
    std::int64_t cpuMillis = 0; // 1000 = one core busy
    std::int64_t memoryMiB = 0;
    std::size_t netNodes = 0; // of `nodes`, those that shape and so measured its egress
    double netMbps = 0.0;
};

// Counters for /metrics and the summary.
struct ControlPlaneStats {
    std::uint64_t submitted = 0;
    std::uint64_t placements = 0;
    std::uint64_t placementFailures = 0; // attempts that left a workload pending
    std::uint64_t preemptions = 0; // workloads evicted for higher priorities
    std::uint64_t restarts = 0; // launches ended that a restart policy started again
    std::uint64_t overran = 0; // launches stopped for running past their maximum runtime
    std::uint64_t drainMoves = 0; // workloads drains (paced or all at once) moved off their nodes
    std::uint64_t drainEvictions = 0; // workloads paced drains stopped and queued again at their deadline
    std::uint64_t resizes = 0; // workloads given a new size (`resize`), waiting or in place
    std::uint64_t logReadsAbandoned = 0; // reads of output whose reader went away before the agent answered
    std::uint64_t resizesConfirmed = 0; // resizes of running launches their agents applied
    std::uint64_t resizesRefused = 0; // resizes of running launches their agents refused
    std::uint64_t launchesSent = 0;
    std::uint64_t acknowledged = 0; // launches acknowledged as running
    std::uint64_t nodesLost = 0;
    std::uint64_t replacedAfterLoss = 0; // workloads put back to pending because their node was lost
    std::uint64_t duplicateStops = 0; // stops sent for copies that ran where the core no longer placed them
    std::uint64_t stopsSent = 0;
    std::uint64_t stopsUnanswered = 0; // stops that left the window by `stopAnswerTimeout`, unanswered
    std::uint64_t foreignIdsIgnored = 0; // ids reported by agents past `adoptedIdMargin`, not adopted
    // Running workloads reported under the id of a pending workload this core never launched: not adopted.
    std::uint64_t foreignWorkloadsLeftAlone = 0;
    std::uint64_t sessionsReplaced = 0; // a node joined again while its previous session was still open
    std::uint64_t placementMicrosTotal = 0;
    std::uint64_t storeCommits = 0;
    std::uint64_t storeErrors = 0; // failed commits (a full disk, a locked file); the changes are retried
    std::uint64_t storeCommitMicrosTotal = 0;
    std::size_t restoredNodes = 0;
    std::size_t restoredWorkloads = 0;
    std::int64_t firstSubmitMs = 0; // Unix ms of the first submission since start
    std::int64_t lastAckMs = 0; // Unix ms of the latest launch acknowledgement
    std::array<std::uint64_t, 12> placementMicrosBuckets {}; // histogram, bounds in `kPlacementBucketsMicros`
};
inline constexpr std::array<double, 11> kPlacementBucketsMicros { 10, 25, 50, 100, 250, 500, 1000, 2500, 5000,
    10000, 100000 };

// An API refusal: the HTTP status and a message naming the field or object at fault.
struct ApiError {
    int status = 400;
    std::string message;
};
template <typename T> using ApiResult = tl::expected<T, ApiError>;

// `value`, or a 400 carrying the first error a `protocol::detail::JsonReader` recorded while reading it.
template <typename T> ApiResult<T> checkedRead(const std::optional<protocol::Error>& readError, T value)
{
    if (readError)
        return tl::unexpected(ApiError { 400, readError->message });
    return value;
}

// Everything placement looks at, so that two workloads with the same shape are placed or refused alike.
using PlacementShape = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, AcceleratorKind, std::int32_t,
    std::int32_t, std::int64_t, std::vector<ModelId>, PoolId, Tier, LatencyClass, IsaMask, bool, std::int32_t, bool>;
PlacementShape placementShape(const Workload& w);

struct PoolRequest {
    std::string name;
    std::string businessLine;
    Tier tier = Tier::Invalid; // Invalid = any tier
    std::int64_t cpuMillis = kUnlimited;
    std::int64_t memoryMiB = kUnlimited;
    std::int32_t ioWeight = 100;
    std::int64_t memBandwidthMBps = kUnlimited; // admission only: the scheduler keeps the pool's requests within it
    std::int64_t netBandwidthMbps = kUnlimited; // likewise (agents account a pool's traffic; no tc shaping)
    // In share units per kind, as workloads request them (`Pool::acceleratorQuota`); the `None` entry is unused.
    std::array<std::int64_t, kAcceleratorKindCount> acceleratorQuota { kUnlimited, kUnlimited, kUnlimited, kUnlimited };
    // Its disruption budget (as a Kubernetes PodDisruptionBudget's maxUnavailable): how many of its workloads that
    // drains and approved migrations moved may be on their way at once, stopped where they ran and not running again
    // yet, as a number or a percentage of its workloads; 0: none moves (a drain waits for its deadline); none: no
    // budget. An operator's own move, a lost node's re-placement and preemption do not ask it; a drain's deadline
    // overrides it.
    DisruptionBudget maxDisrupted;
};

// Where an operator moves a workload (the console's Tiers board and Pools tree, `POST /v1/workloads/{id}/move`): onto
// one node, onto a tier or into another pool. Without a node the core picks one: among the tier's nodes, or the pool's
// (on the pool's tier when it has one); a pool and a tier together narrow it to the pool's nodes of that tier. With a
// node, `tier` (when given) must be the node's and the node must be one of the pool's.
struct MoveTarget {
    std::string node; // a node's name; empty: the best node of `tier` or of `pool`
    Tier tier = Tier::Invalid;
    std::string pool; // a pool's name: the workload moves into it; empty: it stays in its own
    // Alone: the best node other than the one it is on, wherever the scheduler's filters let it run (a drain's).
    bool elsewhere = false;
};

// Why a move was refused, as a code that a console translates; `MoveOutcome::message` says it in English.
enum class MoveRefusal : std::uint8_t {
    None = 0, // moved
    NoWorkload, // no such workload
    NoTarget, // no such node or pool, a node not of the tier given, or neither a node, a tier nor a pool given
    NotMovable, // it has ended or is being stopped
    AlreadyThere, // it is on that node, on a node of that tier, or (a pool alone) in that pool
    PoolTier, // its pool (or the pool it would move into) keeps its workloads on another tier
    PoolQuota, // the pool it would move into has no quota left for it: `message` names the resource and the shortfall
    NoFeasibleNode, // the scheduler's filters refused every node of the target: `report` says why
    ReadOnly, // the store cannot be written
};
std::string_view toString(MoveRefusal refusal);

struct MoveOutcome {
    MoveRefusal refusal = MoveRefusal::None;
    std::string node; // where it went; the node asked for when refused
    std::string pool; // the pool it is in once moved; the pool asked for (or its own) when refused
    Tier tier = Tier::Invalid; // the tier of the node it went to; the tier asked for (or the node's) when refused
    Tier poolTier = Tier::Invalid; // `PoolTier`: the tier that pool keeps its workloads on
    // Every node of the target, per reason, as the scheduler's filters judged them for this workload ("why pending"
    // for the move): one node for a node target, the tier's or the pool's nodes otherwise.
    FilterReport report;
    std::string message; // what happened or why not, in English (logs, audit)
    bool moved() const { return refusal == MoveRefusal::None; }
};

// What a drain did (`ControlPlane::drain`): each workload it found on the node, moved or not.
struct DrainOutcome {
    std::string cordon; // the node's cordon after it
    std::vector<std::pair<WorkloadId, MoveOutcome>> moves; // in the node's bind order (a paced drain: those it moved)
    std::optional<NodeDrain> paced; // a paced drain: where it stands after its first step (none: it has finished)
    std::int64_t waiting = 0; // a paced drain: the node's workloads still there, waiting for their turn
    std::size_t moved() const
    {
        return static_cast<std::size_t>(
            std::count_if(moves.begin(), moves.end(), [](const auto& m) { return m.second.moved(); }));
    }
};

class ControlPlane {
public:
    // Fails when the configured profile is unknown or invalid, or when `store` cannot be read. With a store, the
    // pools, nodes and workloads it holds are restored first: nodes wait (suspect, taking no new work) for their
    // agents, and none is declared lost before `restartGrace` has passed; every change is written back to it.
    static Expected<std::unique_ptr<ControlPlane>> create(boost::asio::io_context& io, ControlPlaneConfig config,
        AgentLink link, protocol::LogSink log, store::Store* store = nullptr);
    ~ControlPlane();

    // Starts the liveness timer.
    void start();
    void stop();

    // Agent events (wire them to `net::AgentServerEvents`).
    void onJoined(const std::string& sessionId, const std::string& remote, const protocol::Hello& hello);
    void onInventory(const std::string& sessionId, const protocol::Inventory& inventory);
    void onHeartbeat(const std::string& sessionId, const protocol::Heartbeat& heartbeat);
    void onWorkloadUpdate(const std::string& sessionId, const protocol::WorkloadStatus& status);
    void onLeft(const std::string& sessionId, const std::string& reason);
    void onLogReply(const std::string& sessionId, const protocol::LogReply& reply);
    void onResized(const std::string& sessionId, const protocol::Resized& answer);

    // Asks the agent of the node a workload runs on, or last ran on (an ended workload's output stays with its agent
    // until the agent's retention removes its record), for the end of its output. `done` runs once, on the core's
    // thread: with the agent's answer; at once with why there is none (no such workload, 404; not placed now, 409;
    // its node not joined now or its agent from before logs, 503; `kMaxLogQueries` waiting already, 503); with 503
    // when its agent leaves before answering, 504 when no answer comes within `ControlPlaneConfig::logsTimeout` (after
    // the query's `waitMs`). Returns the read's id while it waits for its agent (0 when `done` has run already), for
    // `abandonLogs`. Reads held for output (`LogsQuery::waitMs`) count against `kMaxLogFollows`, not `kMaxLogQueries`.
    static constexpr std::size_t kMaxLogQueries = 64;
    static constexpr std::size_t kMaxLogFollows = 256;
    std::int64_t queryLogs(const LogsQuery& query, LogsDone done);
    // Forgets a read whose reader went away (`net::HttpRespond::onClientGone`): `done` is not called, its place is
    // free at once, and its agent's answer, when it comes, is dropped.
    void abandonLogs(std::int64_t requestId);
    std::size_t logReadsWaiting() const { return m_logsWaits.size(); }

    // API operations.
    ApiResult<WorkloadId> submit(SubmitRequest request);
    ApiResult<void> cancel(WorkloadId id);
    ApiResult<PoolId> createPool(const PoolRequest& request);
    ApiResult<void> updatePool(const std::string& name, const PoolRequest& request);
    // Deletes a pool: refused for the default pool (404 for an unknown one) and while any workload in it has not ended
    // (409, naming the first and how many: cancel them or move them to another pool first). Its agents remove its
    // cgroups at their next heartbeat; the records of workloads that ended in it keep its name; its history stays.
    ApiResult<void> deletePool(const std::string& name);
    // The pools deleted while the store kept history (restored with it, oldest first), as they were when deleted: a
    // report over a period one of them lived in counts it.
    const std::vector<store::DeletedPool>& deletedPools() const { return m_deletedPools; }

    // Persistence. `whenSaved` calls `done` once everything changed so far is durable (nullopt) or could not be
    // written (the store's error); at once when nothing is persisted. The API answers a change only then, so an
    // acknowledged change survives a crash. While the store cannot be written, `readOnlyReason` says why (an
    // alert in the log and in /metrics) and the API refuses changes; pending changes are retried every second and
    // the daemon leaves read-only mode as soon as a commit succeeds.
    using SavedCallback = std::function<void(const std::optional<std::string>& error)>;
    void whenSaved(SavedCallback done);
    const std::string& readOnlyReason() const { return m_readOnlyReason; }
    bool persistent() const { return m_store != nullptr; }
    store::Store* store() const { return m_store; }
    // Written with the next commit.
    void audit(store::AuditEntry entry);
    void persistSamples(const std::vector<store::Sample>& samples);
    void persistForecast(const store::StoredForecast& forecast);
    void persistProposal(const store::StoredProposal& proposal);
    // The proposals the store held at start, handed once to the rebalancer.
    std::vector<store::StoredProposal> takeRestoredProposals() { return std::exchange(m_restoredProposals, {}); }
    // The store's `meta` table as it was at start (empty without a store), for the parts that keep settings there.
    const std::map<std::string, std::string>& restoredMeta() const { return m_restoredMeta; }
    // Takes every node's utilisation samples received since the last call.
    std::vector<std::pair<NodeId, std::vector<protocol::UtilisationSample>>> takeUtilisation();

    // Cordons a node (no new work lands on it; what runs there stays) with `reason`, or with an empty reason lifts it.
    ApiResult<void> setCordon(const std::string& node, std::string reason);
    // An operator's cordon of a node for maintenance (`POST /v1/nodes/{name}/cordon`): "by ACTOR: REASON". Refused
    // (409) for a node a power-down proposal cordoned: lifting that one is a power-up (`operatorUncordon`).
    ApiResult<void> operatorCordon(const std::string& node, const std::string& reason, const std::string& actor);
    // Lifts a node's cordon, whoever set it; a powered-down node's lifted cordon is its power-up (it boots until its
    // agent is back). Returns what it lifted ("" when there was none).
    ApiResult<std::string> operatorUncordon(const std::string& node, const std::string& actor);
    // Cordons the node (unless it is cordoned already) and moves each workload placed there (launching, running)
    // onto the best other node that takes it (`MoveTarget::elsewhere`), as an operator's move by `actor`: stopped
    // there, launched again elsewhere. Without `options.maxParallel` all move at once, and one that no other node
    // takes stays, running, with the refusal saying why. With it the drain goes on (`LiveNode::drain`), moving the
    // next as each moved one runs, trying again the ones no node took, until the node is empty or the deadline
    // passes (`DrainOptions`); a drain under way takes the new options. Lifting the cordon ends it.
    ApiResult<DrainOutcome> drain(
        const std::string& node, const std::string& reason, const std::string& actor, const DrainOptions& options = {});
    // Reserves a hot-tier node for the next peak (no batch lands there, and with `stopBatch` the batch running there
    // is stopped and queued again, on a node reserved already as well; returns how many) or, with `reserved` false,
    // lends it to batch again. Without `stopBatch` the node drains: its batch runs on to its end.
    ApiResult<std::size_t> setPeakReserved(
        const std::string& node, bool reserved, const std::string& why, bool stopBatch = true);
    // Moves a running workload from the device share it holds on `from` to `device` of node `to`: bound there, stopped
    // where it ran, launched again. Refused, changing nothing, when it no longer holds that share on `from` or
    // the target cannot take it.
    ApiResult<void> migrate(WorkloadId id, const std::string& from, std::int32_t fromDevice, const std::string& to,
        std::int32_t device);
    // An operator's move of a pending or placed (launching, running) workload onto `target`. The scheduler's filters
    // judge the target's nodes with the workload's own resources released (capacity, accelerators, ISA, its latency
    // class's tier rules, its pool's quota), and its pool's tier, when the pool has one, must be the target's. Among
    // the feasible nodes of a tier or a pool the move takes one where it runs natively, then the one with the most
    // free CPU. Into another pool: that pool's quota must hold it (`PoolQuota` otherwise, naming the resource), the
    // old pool's usage is released and the new one's charged, and the workload's pool is persisted with it.
    // Moved: bound there, stopped where it ran, launched as a new incarnation, a held or queued one taken out of the
    // queue, its detail naming `actor` (and the pools, when it changed pool). Refused: nothing changes, and the
    // outcome says why.
    MoveOutcome move(WorkloadId id, const MoveTarget& target, const std::string& actor);
    // Changes what a workload asks for and may use, by `actor` (workload_resize.cpp). Waiting (pending, held, waiting
    // for a restart): it is placed at its new size. Running: in place, on its node, without a restart (as Kubernetes'
    // in-place pod resize): its node must have room for the new request beside what else runs there, and its pool's
    // quota; its agent is sent the new CPU weight and limits (a `resize`) when they change, and must name
    // kFeatureResize and be connected; a memory limit below what it was measured using is refused. Refused (nothing
    // changes): 404 unknown, 400 a bad value (a limit below its request, a workload that would ask for nothing), 409
    // ended, stopping, launching (its launch is not answered yet) or no room, 503 its agent away. Accelerators are not
    // resized: move it (it restarts) to change those.
    ApiResult<ResizeOutcome> resize(WorkloadId id, const ResizeRequest& request, const std::string& actor);
    // Holds deferrable batch (submitted `deferrable`, not yet placed) until `untilMs` (Unix ms), a low-carbon window:
    // each is placed at the hold's end or at its own deadline, whichever comes first. 0 lifts the hold. With a store
    // the hold is kept (the `meta` key `carbon_hold`) and restored at start, so a restart does not release held work
    // before its window.
    void setCarbonHold(std::int64_t untilMs, std::string reason);
    std::int64_t carbonHoldUntilMs() const { return m_carbonHoldUntilMs; }
    // Places held deferrable work whose hold or deadline has passed; run by the liveness timer.
    void releaseHeld(std::int64_t nowMs);
    // Starts the workloads whose restart back-off has passed: on the node their last launch ran on when it takes them,
    // through the queue otherwise; run by the liveness timer.
    void releaseRestarts(std::int64_t nowMs);
    // Each paced drain's next step (`ControlPlane::drain`): moves as many as its budget allows, ends it once the node
    // is empty. The outcome's moves are those this step made.
    void advanceDrains(std::int64_t nowMs);
    DrainOutcome advanceDrain(NodeId node, std::int64_t nowMs);
    // Stops the running workloads whose launch has run past its `maxRuntimeMs` by `nowMs`; run by the liveness timer.
    void enforceRuntimeLimits(std::int64_t nowMs);
    // Counts every change to pools, nodes and workloads: what a rebalance proposal was planned on.
    std::uint64_t stateVersion() const { return m_stateVersion; }
    // Workload changes in order, for readers that follow them (the remote console) instead of reading every workload
    // each time: each change of a workload (phase, node, detail, a placement attempt) gives it the next number of
    // this run of the core; `workloadsChangedSince(n)` lists, oldest change first, those whose latest change is
    // after n. Numbers start again with each run, which `runId` (random, set at start) tells apart.
    std::uint64_t workloadSequence() const { return m_workloadSequence; }
    const std::map<std::uint64_t, WorkloadId>& workloadChanges() const { return m_workloadChanges; }
    const std::string& runId() const { return m_runId; }
    // Heartbeats in order, likewise: each gives its node (`LiveNode::usageSequence`) the next number of this run, so
    // that a reader can ask which nodes' utilisation changed since it last read them.
    std::uint64_t usageSequence() const { return m_usageSequence; }
    // Now on the configured wall clock, Unix epoch ms.
    std::int64_t nowMs() const { return m_config.clock ? m_config.clock() : unixMillis(); }

    // Liveness check, normally run by the timer; public for tests that drive time.
    void checkLiveness(Clock::time_point now);
    // Tries every pending workload, in priority order; normally posted (`schedulePendingRetry`).
    void retryPending();

    const ClusterState& cluster() const { return m_cluster; }
    const PolicyRegistry& registry() const { return m_registry; }
    // Translation slowdowns the scheduler uses: the default until an agent reports a measured factor.
    const SlowdownTable& slowdowns() const { return m_scheduler->slowdowns(); }
    const std::map<WorkloadId, LiveWorkload>& workloads() const { return m_workloads; }
    const LiveWorkload* workload(WorkloadId id) const;
    const std::vector<LiveNode>& nodes() const { return m_nodes; } // by NodeId
    const LiveNode* nodeByName(std::string_view name) const;
    std::optional<PoolId> poolByName(std::string_view name) const;
    std::int32_t poolIoWeight(PoolId id) const { return m_poolIoWeight[static_cast<std::size_t>(id)]; }
    // Pool `id`'s disruption budget as set (`PoolRequest::maxDisrupted`), how many of its workloads that lets move
    // at once now (a percentage of its workloads now; kUnlimited: no budget), and how many of its workloads drains and
    // migrations moved that do not run again yet.
    const DisruptionBudget& poolDisruptionBudget(PoolId id) const
    {
        return m_poolDisruptionBudget[static_cast<std::size_t>(id)];
    }
    std::int64_t poolMaxDisrupted(PoolId id) const;
    std::int64_t disruptedIn(PoolId id) const;
    // Why pool `id` lets `moves` more of its workloads be moved by a drain or a migration now: empty when its budget
    // has room for them, else the reason in words ("pool batch's disruption budget is taken: 2 of its workloads are
    // moving, at most 2 at once").
    std::string disruptionBudgetRefusal(PoolId id, std::int64_t moves = 1) const;
    // The request that would leave pool `id` as it is: the base of a partial update.
    PoolRequest poolRequestOf(PoolId id) const;
    // The pool's placed workloads on nodes of another tier than its own: a tier set after they were placed leaves them
    // where they are until they end or are moved. 0 for a pool without a tier.
    std::size_t workloadsOffTier(PoolId id) const;
    // Every pool's measured use, by PoolId; pools no agent measures read as zeros with `nodes` 0.
    std::vector<MeasuredPoolUse> measuredPoolUse() const;
    // Which of the quotas of `w`'s pool keeps it out, in words ("pool ml quota: gpu share: it asks for 1000 ...").
    std::string poolShortfall(const Workload& w) const;
    const ControlPlaneStats& stats() const { return m_stats; }
    // What happened lately, for the console's timeline (bounded by `keepEvents`).
    const ClusterEventLog& events() const { return m_events; }
    // Called after each event is recorded (`ClusterEventLog::setListener`): the console feed's waiting readers.
    void setEventListener(std::function<void()> listener) { m_events.setListener(std::move(listener)); }
    // Called when an agent refuses a resize (`onResized`) with the workload, who asked for it (`resize`'s actor) and
    // the outcome in words: the rebalancer notes it on the proposal that asked.
    using ResizeRefusedListener = std::function<void(WorkloadId, const std::string& actor, const std::string& outcome)>;
    void setResizeRefusedListener(ResizeRefusedListener listener) { m_resizeRefused = std::move(listener); }
    std::array<std::size_t, kNodeStateCount> nodeCounts() const;
    std::array<std::size_t, kWorkloadPhaseCount> phaseCounts() const { return m_phaseCounts; }
    const ControlPlaneConfig& config() const { return m_config; }
    // The "why pending" / "why here" line of a workload, with the per-reason counts of its last attempt.
    std::string why(const LiveWorkload& w) const;

    ControlPlane(boost::asio::io_context& io, ControlPlaneConfig config, AgentLink link,
        protocol::LogSink log); // use `create`

private:
    // `f` as a handler for the io_context that does nothing once this plane is gone: a post, or a timer that had
    // already expired when the plane was destroyed, still runs when its owner destroys the plane before the
    // io_context has run what was queued (a cancelled timer's handler is called with success once it was queued).
    template <typename F> auto whileAlive(F f)
    {
        return [alive = std::weak_ptr<const bool>(m_alive), f = std::move(f)](auto&&... args) mutable {
            if (!alive.expired())
                f(std::forward<decltype(args)>(args)...);
        };
    }

    struct PendingJoinInfo {
        protocol::Hello hello;
        std::string remote;
    };

    LiveNode* nodeOfSession(const std::string& sessionId);
    // `endedMs`: a restored record of a workload that ended then, which may name a pool deleted since
    // (`deletedPool`): one deleted after it ended, even where a pool has its name again, or one no pool has now.
    ApiResult<WorkloadId> addWorkload(SubmitRequest request, WorkloadId id, std::optional<std::int64_t> endedMs = {});
    // The removed pool named `name` that ended workloads' records refer to, made (removed) when there is none yet.
    PoolId deletedPool(const std::string& name);
    ApiResult<WorkloadId> submitRestored(SubmitRequest request, const store::StoredWorkload& stored, WorkloadPhase phase);
    // The node an operator's change names: 404 when there is none, 503 while the store cannot be written.
    ApiResult<NodeId> nodeToChange(const std::string& name) const;
    void reconcile(LiveNode& node, const std::vector<protocol::WorkloadStatus>& reported);
    void applyStatus(LiveNode& node, const protocol::WorkloadStatus& status, bool fromInventory);
    // Stops launch `incarnation` of `id` on the node (within `stopWindow`; a stop of it already on its way is not sent
    // again).
    void stopOn(LiveNode& node, WorkloadId id, std::int32_t incarnation);
    void sendStop(LiveNode& node, std::pair<WorkloadId, std::int32_t> key);
    // The agent answered about (id, incarnation) with `state`: a stop in flight that it ends leaves the window.
    void stopAnswered(LiveNode& node, WorkloadId id, std::int32_t incarnation, const std::string& state);
    // Stops unanswered past `stopAnswerTimeout` leave the window.
    void expireStops(LiveNode& node, Clock::time_point now);
    // The next launch of `w` is a new incarnation; the current one, launched on `launchedOn` (kNoNode: never
    // launched), becomes its previous launch.
    void newIncarnation(LiveWorkload& w, NodeId launchedOn);
    // `actor`: what made the change, where not the workload's agent (`kRestartPolicyActor`); kept in the event.
    void setPhase(LiveWorkload& w, WorkloadPhase phase, std::string actor = {});
    bool tryPlace(LiveWorkload& w);
    void launch(LiveWorkload& w);
    void sendLaunch(LiveNode& node, const LiveWorkload& w);
    // Sends a running workload's current CPU request and limits to its node's agent (`protocol::Resize`).
    void sendResize(LiveNode& node, LiveWorkload& w);
    // Charges a placed workload `size` on its node and pool instead of what it asks for now (unbound and bound again
    // on the same placement); "" when done, else why not (nothing changed). Sets its limits too.
    std::string rebindAtSize(LiveWorkload& w, const WorkloadSize& size);
    // The agent answered about (id, incarnation): a launch in flight leaves the window and waiting ones go.
    void launchAnswered(LiveNode& node, WorkloadId id, std::int32_t incarnation);
    void forgetLaunches(LiveNode& node);
    void finish(LiveWorkload& w, WorkloadPhase phase, std::int32_t exitCode, std::string detail);
    // Takes pending `w` out of the queue, the carbon hold and the restart back-off, wherever it waits.
    void unqueue(LiveWorkload& w);
    // The current launch of `w` ended as `phase` (not at an operator's request): its restart policy starts it again
    // after a back-off, or it has ended (`finish`).
    void launchEnded(LiveWorkload& w, WorkloadPhase phase, std::int32_t exitCode, std::string detail);
    void requeue(LiveWorkload& w, std::string why);
    // Sends the node's agent the pools in use there (`poolsToSend`, with `also`), their limits and, where it shapes,
    // their guarantees; an empty message when none is, so that the agent drops the classes of pools no longer there.
    void sendPools(LiveNode& node, PoolId also = kNoPool);
    static bool poolSent(const LiveNode& node, PoolId pool);
    // What the node's agent is told of pool `id`: its quota capped by the node, and (shaped) guarantee `netMbps`.
    protocol::PoolLimits poolLimits(const LiveNode& node, PoolId id, std::int64_t netMbps) const;
    // Sets the node's network capacity to what its agent reported, or to what its workloads hold where that is more.
    void applyNetworkCapacity(LiveNode& node);
    // The pools an agent is sent: those of the workloads placed on its node, and `also` (a launch's), in `Node::pools`
    // order, each with the network its workloads there asked for, Mbit/s. To an agent that names launch-pool a pool no
    // workload uses there is not sent: it makes a pool's cgroup (and, shaping, its class) only where the pool runs
    // something, and removes the others. One from before is sent every pool of the node (0 Mbit/s where unused), as it
    // always was: it removes none, and so a burst into many pools costs its node one message, not one a pool.
    struct PoolsToSend {
        std::vector<PoolId> pools;
        std::vector<std::int64_t> netMbps;
    };
    PoolsToSend poolsToSend(const LiveNode& node, PoolId also = kNoPool) const;
    // What the node's agent was last sent is out of date: a pool it holds is in use there no more, or (shaped) a pool
    // in use there asks for another guarantee than it was sent.
    bool poolsSentChanged(const LiveNode& node) const;
    void nodeBecameLost(LiveNode& node);
    // Cordoned by a power-down proposal and holding nothing: it may be switched off, and its silence is expected.
    bool poweredDownAndEmpty(const LiveNode& node) const;
    void setNodeState(LiveNode& node, NodeState state);
    // Brings the scheduler's view of `node` in line with its state and cordon.
    void refreshSchedulable(const LiveNode& node);
    // Posts one pass over the pending work. `capacityFreed`: what placement can use may have grown (work ended, a node
    // joined, a quota rose), so shapes that found no place are tried again; otherwise (work arrived behind older
    // pending work, or preemption queued its victims) capacity has only shrunk since they failed, and they are not.
    void schedulePendingRetry(bool capacityFreed = true);
    void retryPass();
    void forgetOldFinished();
    void onTick();
    void logLine(const std::string& line) const;
    Expected<void> restore(const store::Snapshot& snapshot);
    void markWorkload(WorkloadId id);
    // Saves `w`'s measured use with the next flush when its peaks rose by a tenth (at least 10m of CPU or 16 MiB)
    // over what the store holds, its launch's first sample came, or its CPU histogram was last saved an hour of
    // samples ago: not a change of the workload (no state version), but lists that follow changes read it again
    // (`noteWorkloadChange`). Without a store, what it would save counts as saved.
    void saveMeasuredUseWhenDue(LiveWorkload& w);
    void noteWorkloadChange(LiveWorkload& w); // for `workloadChanges` only (markWorkload does it too)
    void markNode(NodeId id);
    void markPool(PoolId id);
    void scheduleFlush();
    // True (and says so in its detail) when `w` is deferrable and the carbon hold keeps it waiting now.
    bool holdForCarbon(LiveWorkload& w, std::int64_t nowMs);
    // Writes the carbon hold (or its end) with the next commit; reads it back from a restored `meta` table.
    void persistCarbonHold();
    Expected<void> restoreCarbonHold(const std::map<std::string, std::string>& meta);
    // Writes whether `node` boots (and since when) with the next commit; restores the booting nodes of a `meta`
    // table, so that a restart during a power-up neither forgets the boot nor declares the node lost after the grace.
    void persistBooting(const LiveNode& node);
    Expected<void> restoreBooting(const std::map<std::string, std::string>& meta);
    void flush();

    // Reads of workloads' output waiting for their agents (`queryLogs`), by request id.
    struct LogsWait {
        std::string sessionId;
        LogsAnswer answer; // node and incarnation filled in when asked
        LogsDone done;
        std::unique_ptr<boost::asio::steady_timer> timeout;
        bool held = false; // asked to wait for output (`LogsQuery::waitMs`): counts in `m_logsHeld`
    };
    void endLogsWait(std::int64_t requestId, LogsAnswer answer);
    std::map<std::int64_t, LogsWait> m_logsWaits;
    ResizeRefusedListener m_resizeRefused;
    std::size_t m_logsHeld = 0; // of them, those held for output
    std::int64_t m_nextLogsRequest = 1;
    boost::asio::io_context& m_io;
    ControlPlaneConfig m_config;
    AgentLink m_link;
    protocol::LogSink m_log;
    ClusterState m_cluster;
    PolicyRegistry m_registry;
    std::unique_ptr<Scheduler> m_scheduler; // borrows m_cluster
    boost::asio::steady_timer m_timer;
    std::vector<LiveNode> m_nodes; // by NodeId
    std::unordered_map<std::string, NodeId> m_nodeByName;
    std::unordered_map<std::string, NodeId> m_nodeBySession;
    std::unordered_map<std::string, PendingJoinInfo> m_pendingJoins; // joined, inventory not yet received
    std::unordered_map<std::string, PoolId> m_poolByName;
    std::vector<std::int32_t> m_poolIoWeight; // by PoolId
    std::vector<DisruptionBudget> m_poolDisruptionBudget; // by PoolId
    // Moved by a drain or a migration and perhaps not running again yet (`disruptedIn` counts those that are not;
    // the liveness tick drops the rest).
    std::set<WorkloadId> m_disrupted;
    std::vector<store::DeletedPool> m_deletedPools; // oldest first
    std::unordered_map<PoolId, std::size_t> m_deletionOf; // a pool deleted since the start: its m_deletedPools entry
    std::map<WorkloadId, LiveWorkload> m_workloads;
    std::set<std::pair<std::int32_t, WorkloadId>> m_pending; // (-priority, id): highest priority, then oldest
    std::set<WorkloadId> m_cancelledAway; // cancelled while their node was unreachable: stop them on return
    std::deque<WorkloadId> m_finishedOrder;
    std::array<std::size_t, kWorkloadPhaseCount> m_phaseCounts {};
    WorkloadId m_nextId = 1;
    WorkloadId m_highestOwnId = 0; // the highest id this core has given out or restored (not one adopted from agents)
    bool m_retryPosted = false;
    std::shared_ptr<const bool> m_alive = std::make_shared<const bool>(true); // `whileAlive`
    // The shapes that found no place since capacity last grew (`schedulePendingRetry`).
    std::set<PlacementShape> m_failedShapes;
    // Likewise for drains' moves, which do not preempt (so a shape here may still be placed by preempting: kept
    // apart from the queue's).
    std::set<PlacementShape> m_drainFailedShapes;
    bool m_stopped = false;
    std::uint64_t m_stateVersion = 1;
    std::uint64_t m_workloadSequence = 0;
    std::uint64_t m_usageSequence = 0;
    std::map<std::uint64_t, WorkloadId> m_workloadChanges; // each workload's latest change, by its number
    std::string m_runId;
    std::int64_t m_carbonHoldUntilMs = 0;
    std::set<std::pair<std::int32_t, WorkloadId>> m_held; // deferrable work waiting for a low-carbon window
    std::set<std::pair<std::int64_t, WorkloadId>> m_restarting; // (restartAtMs, id): ended, restarted after a back-off
    // (when its launch's runtime limit passes, id) for each launch seen running with one; entries of launches that
    // ended or were replaced since are dropped when they come due.
    std::set<std::pair<std::int64_t, WorkloadId>> m_runtimeLimits;
    std::string m_carbonHoldReason;
    std::vector<store::StoredProposal> m_restoredProposals;
    std::map<std::string, std::string> m_restoredMeta;
    bool m_restored = false; // nodes were restored from a database: the restart grace applies
    store::Store* m_store = nullptr; // not owned; null = nothing persisted
    std::set<WorkloadId> m_dirtyWorkloads;
    std::set<NodeId> m_dirtyNodes;
    std::set<PoolId> m_dirtyPools;
    std::vector<WorkloadId> m_forgotten;
    boost::asio::steady_timer m_flushTimer;
    boost::asio::steady_timer m_saveTimer; // an immediate flush for changes someone waits on
    bool m_flushArmed = false;
    bool m_saveArmed = false;
    std::vector<SavedCallback> m_saveWaiters;
    std::string m_lastStoreError;
    std::string m_readOnlyReason;
    Clock::time_point m_startedAt;
    ControlPlaneStats m_stats;
    ClusterEventLog m_events;
};

} // namespace tidepool::api
