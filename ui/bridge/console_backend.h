#pragma once
// The seam between the console and a core: what the GUI may ask (decide a proposal) and what it is told (snapshots,
// the outcome of each command, a failure of the core). Three cores implement it: the demo's simulation
// (`demo_core.h`), the embedded single-box core (`embedded_backend.h`) and a remote `tidepoold` through its API
// (`remote_backend.h`, `--connect`).
// Plain C++, no Qt: the core side never sees a QObject, and the bridge (`core_bridge.h`) never sees the core.
//
// Thread affinity: `submit` and `stop` may be called from any thread (the GUI's); they only post work to the core's
// thread. The `ConsoleEvents` callbacks are called on the core's thread and must not block; only a command refused
// because the core has stopped is answered at once, on the caller's thread. So the sinks must be thread-safe.

#include "core/report/report.h"
#include "ui/bridge/console_snapshot.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace tidepool::ui {

enum class Decision : std::uint8_t { Invalid = 0, Approve, Reject };

struct ProposalCommand {
    std::uint64_t requestId = 0; // chosen by the caller; echoed in the outcome
    std::int64_t proposalId = 0;
    Decision decision = Decision::Invalid;
    std::string comment; // a rejection's reason; an approval's note (both audited)
};

struct CommandOutcome {
    std::uint64_t requestId = 0;
    std::int64_t proposalId = 0;
    Decision decision = Decision::Invalid;
    bool ok = false;
    std::string state; // the proposal's state after the command, when known
    std::string message; // the core's reason when refused, or what happened
};

// An operator's change to a pool (the Pools tab's New, Edit and Delete): `body` as `POST /v1/pools` and
// `PUT /v1/pools/{name}` take it (`api::parsePoolRequest`; fields an edit leaves out keep their values), none for a
// deletion. Applied by the embedded core and the demo on their thread, audited as the console's, or sent to tidepoold.
enum class PoolAction : std::uint8_t { Invalid = 0, Create, Update, Delete };

struct PoolCommand {
    std::uint64_t requestId = 0; // chosen by the caller; echoed in the result
    PoolAction action = PoolAction::Invalid;
    std::string name;
    nlohmann::json body = nlohmann::json::object();
};

struct PoolResult {
    std::uint64_t requestId = 0;
    PoolAction action = PoolAction::Invalid;
    std::string name;
    bool ok = false;
    std::string message; // the core's reason when refused (in English, naming the field), or what happened
};

// An operator takes a node out of service and back (the Nodes page's context menu), as tidepoold's
// POST /v1/nodes/{name}/cordon, /uncordon and /drain do (core/api/node_api.h): carried out by the core and answered
// through `ConsoleEvents::nodeChanged` once durable (or refused).
enum class NodeAction : std::uint8_t { Invalid = 0, Cordon, Uncordon, Drain };

struct NodeCommand {
    std::uint64_t requestId = 0;
    NodeAction action = NodeAction::Invalid;
    std::string node;
    std::string reason; // of a cordon or a drain; may be empty
    std::int32_t maxParallel = 0; // Drain: at most this many moving at once (`api::DrainOptions`); 0: all at once
};

struct NodeResult {
    std::uint64_t requestId = 0;
    NodeAction action = NodeAction::Invalid;
    std::string node;
    bool ok = false;
    std::string message; // the core's reason when refused (in English)
    std::string cordon; // the node's cordon after it ("" once uncordoned)
    std::string lifted; // Uncordon: the cordon it lifted ("" when there was none)
    std::size_t moved = 0; // Drain: its workloads that moved to other nodes
    std::vector<std::string> stayed; // Drain: "NAME (workload ID): why no other node took it", one a workload
    bool paced = false; // Drain: with a budget (`NodeCommand::maxParallel`): it goes on until the node is empty
    std::int64_t waiting = 0; // a paced drain: the node's workloads waiting for their turn
};

// The answer to `command` when it was not carried out: `why`.
inline NodeResult stoppedResult(const NodeCommand& command, std::string why)
{
    NodeResult result;
    result.requestId = command.requestId;
    result.action = command.action;
    result.node = command.node;
    result.message = std::move(why);
    return result;
}

// An operator's resize of a workload (the Tiers board's and the Pools tree's Resize…), as tidepoold's
// POST /v1/workloads/{id}/resize (`api::ControlPlane::resize`): a waiting one is placed at its new size, a running one
// resized in place; answered through `ConsoleEvents::resized` once durable (or refused).
struct ResizeCommand {
    std::uint64_t requestId = 0;
    std::int64_t workloadId = 0;
    // Its new requests and own limits, whole; a limit of 0: none of its own.
    std::int64_t cpuMillis = 0;
    std::int64_t memoryMiB = 0;
    std::int64_t cpuLimitMillis = 0;
    std::int64_t memoryLimitMiB = 0;
};

struct ResizeResult {
    std::uint64_t requestId = 0;
    std::int64_t workloadId = 0;
    bool ok = false;
    std::string message; // what changed, or the core's reason when refused (in English)
    std::string node; // where it runs, resized in place; empty while it waits
    bool sentToAgent = false; // its agent was told the new weight and limits
};

inline ResizeResult stoppedResult(const ResizeCommand& command, std::string why)
{
    ResizeResult result;
    result.requestId = command.requestId;
    result.workloadId = command.workloadId;
    result.message = std::move(why);
    return result;
}

// A report for File → Export report: built on the core's thread (embedded, demo) or fetched from tidepoold's
// GET /v1/report (--connect), and answered through `ConsoleEvents::reported`.
struct ReportCommand {
    std::uint64_t requestId = 0;
    report::ReportRequest request;
};

struct ReportResult {
    std::uint64_t requestId = 0;
    std::shared_ptr<const report::ReportData> data; // null when it failed
    std::string message; // why it failed
};

// The end of a workload's output (the Tiers board's and the Pools tree's Show output…): asked of the agent that holds
// it by the embedded core (`ControlPlane::queryLogs`) or tidepoold (`GET /v1/workloads/{id}/logs`); the demo's nodes
// are simulated and have none.
// A follower (Show output…'s Follow) asks `from` the `end` of its last answer, in the launch it read
// (`api::LogsQuery`).
struct LogsCommand {
    std::uint64_t requestId = 0;
    std::int64_t workloadId = 0;
    bool stderrStream = false;
    std::int64_t maxBytes = 64 * 1024;
    std::int64_t from = -1; // -1: the last `maxBytes`; else the first `maxBytes` from this stream position on
    std::int32_t incarnation = -1; // with `from`: the launch whose stream it is in
    // With `from`: held at the agent while there is nothing from there on, at most this long (`api::LogsQuery::waitMs`;
    // an agent or a daemon from before answers at once); 0: answered at once.
    std::int32_t waitMs = 0;
    bool previous = false; // the launch before the current one, read whole (`api::LogsQuery::previous`); no `from`
};

struct LogsResult {
    std::uint64_t requestId = 0;
    std::int64_t workloadId = 0;
    bool stderrStream = false;
    bool ok = false;
    std::string message; // why there is none (in English), when not ok
    std::string node;
    std::string data; // UTF-8 text of lines (protocol::LogReply::data)
    std::int64_t sizeBytes = 0; // what the agent keeps of the stream
    bool truncated = false;
    std::int64_t start = -1; // the stream positions of `data`'s first byte and of the one after its last; -1 from an
    std::int64_t end = -1; // agent that cannot be followed
    std::int32_t incarnation = 0; // which launch's stream
    bool ended = false; // the workload had ended when it was asked: a read from `end` finding nothing is all of it
    std::string phase; // its phase then ("running", "succeeded", ...)
};

// The answer to `command`, not ok until filled in.
inline LogsResult logsResultFor(const LogsCommand& command)
{
    LogsResult result;
    result.requestId = command.requestId;
    result.workloadId = command.workloadId;
    result.stderrStream = command.stderrStream;
    return result;
}

struct ConsoleEvents {
    std::function<void(SnapshotPtr)> snapshot;
    std::function<void(CommandOutcome)> outcome;
    std::function<void(MoveResult)> moved; // the result of a `MoveCommand`
    std::function<void(std::string)> failure; // the core could not start or stopped by itself
    std::function<void(ReportResult)> reported; // the answer to a `ReportCommand`
    std::function<void(PoolResult)> poolChanged; // the answer to a `PoolCommand`
    std::function<void(LogsResult)> logsRead; // the answer to a `LogsCommand`
    std::function<void(NodeResult)> nodeChanged; // the answer to a `NodeCommand`
    std::function<void(ResizeResult)> resized; // the answer to a `ResizeCommand`
};

class ConsoleBackend {
public:
    virtual ~ConsoleBackend() = default;
    // Queues the command for the core; its outcome arrives through `ConsoleEvents::outcome`, once the decision is
    // durable (or refused).
    virtual void submit(ProposalCommand command) = 0;
    // Queues an operator's move of a workload; its result arrives through `ConsoleEvents::moved`, once the move and
    // its audit entry are durable (or refused, saying why).
    virtual void submit(MoveCommand command) = 0;
    // Queues a report; it arrives through `ConsoleEvents::reported` (or the reason it could not be made).
    virtual void submit(ReportCommand command) = 0;
    // Queues a pool's creation, change or deletion; its result arrives through `ConsoleEvents::poolChanged`, once the
    // change and its audit entry are durable (or refused, saying why).
    virtual void submit(PoolCommand command) = 0;
    // Asks for the end of a workload's output; it arrives through `ConsoleEvents::logsRead` (or why there is none).
    virtual void submit(LogsCommand command) = 0;
    // Queues an operator's cordon, uncordon or drain of a node; its result arrives through
    // `ConsoleEvents::nodeChanged`.
    virtual void submit(NodeCommand command) = 0;
    // Queues an operator's resize of a workload; its result arrives through `ConsoleEvents::resized`.
    virtual void submit(ResizeCommand command) = 0;
    // Asks for a snapshot of the core as it is now (F5), beside the ones it sends on its own.
    virtual void refresh() = 0;
    // Stops accepting commands, stops the core and joins its thread. Events stop before it returns. Idempotent.
    virtual void stop() = 0;
};

} // namespace tidepool::ui
