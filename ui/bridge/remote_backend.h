#pragma once
// The console attached to a running `tidepoold` through its HTTP/JSON API (`tidepool --connect URL`). A thread of its
// own polls the API once a `pollInterval` (and at once after each command, each `refresh`, and each change the daemon
// records: a second thread waits for its events, `GET /v1/events?after=LATEST&waitMs=`, on a connection of its own, and
// wakes the first when one comes, at most once per `minChangeGap`), builds a
// `ConsoleSnapshot` from the answers (`remote_snapshot.h`) and hands it to the console; decisions are `POST
// /v1/proposals/{id}/approve|reject`, answered with the daemon's state of the proposal or its error (a decision taken:
// after the poll that shows it, as the embedded core answers). Several consoles attached to one daemon see each
// other's decisions at their next poll (at once with the event watch). The Accelerators, Forecasts and Events views
// and the daemon's disk and certificate alerts come from tidepoold's console feed (`GET /v1/devices`, `/v1/events`,
// `/v1/forecasts`, `/v1/alerts`; `console_feed.h`), asked only for what is new (`remote_views.h`); an approval's or a
// rejection's comment goes with the decision and is audited by the daemon.
//
// When the daemon cannot be reached, refuses the token (401) or answers something unexpected, the console is told
// through `ConsoleEvents::failure` (in words `describe` makes: the composition root passes translated ones) and the
// backend keeps retrying, waiting twice as long after each failure up to `maxBackoff`; the first good poll brings the
// snapshots back. A `MoveCommand` is `POST /v1/workloads/{id}/move`, answered with where the workload went or the
// core's refusal and the scheduler's reasons (`core/api/move_api.h`); a daemon that cannot be reached is a refusal
// ("unreachable") saying so.
//
// Thread affinity: construct, `submit`, `refresh` and `stop` on any one thread (the GUI's); they only queue work for
// the backend's thread, which does all the I/O (a synchronous `api::ApiClient`, one keep-alive connection), besides
// the event watch's thread and its own client, and a follower's: a read of output that waits for the next line
// (`LogsCommand::waitMs`) goes on a thread and a connection of its own, made at the first such read, so that it never
// holds up the polls. `stop` waits for a request in flight, at most `requestTimeout`, and cancels the watch's and the
// follower's (`ApiClient::cancel`). Events are called on the backend's threads.

#include "ui/bridge/console_backend.h"
#include "ui/bridge/remote_views.h"

#include "core/model/types.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>

namespace tidepool::api {
class ApiClient;
} // namespace tidepool::api

namespace tidepool::ui {

// What went wrong with the daemon, for `RemoteConfig::describe`.
struct RemoteProblem {
    enum class Kind : std::uint8_t {
        Invalid = 0,
        Unreachable, // no answer: refused, reset, timed out, name not resolved
        Unauthorised, // 401: the token was refused
        Refused, // another HTTP error status
        BadAnswer, // an answer the console cannot read (a daemon of another version)
    };
    Kind kind = Kind::Invalid;
    std::string url;
    std::string detail; // the client's or the daemon's own words, in English
    int status = 0; // the HTTP status, when there was one
    int retryInSeconds = 0;
};

// The problem in English: what the console shows when no translated `describe` is given.
std::string describeInEnglish(const RemoteProblem& problem);

struct RemoteEndpoint {
    std::string url; // normalised: "http://host:port" or "https://host:port"
    std::string host;
    std::uint16_t port = 0;
    bool tls = false; // https://
};

// "http://host:port", "https://host:port", either with a trailing "/", or "host:port" (plain HTTP); the port defaults
// to 7080, tidepoold's. The error names the text and what is wrong with it.
Expected<RemoteEndpoint> parseConnectUrl(const std::string& text);

struct RemoteConfig {
    RemoteEndpoint endpoint;
    std::string token; // the operator token (Authorization: Bearer); never shown
    // With https://: the CA (PEM) the daemon's certificate must chain to; empty: the system's trust store. The
    // certificate must also name the URL's host. A handshake that fails is reported as `Unreachable`, with the reason.
    std::string caFile;
    std::chrono::milliseconds pollInterval { 1000 };
    std::chrono::milliseconds requestTimeout { 5000 };
    std::chrono::milliseconds minBackoff { 1000 };
    std::chrono::milliseconds maxBackoff { 30'000 };
    // How long each wait for the daemon's next event lasts (the API's `waitMs`); 0: no event watch, polls only.
    std::chrono::milliseconds eventWait { 25'000 };
    // Polls the events wake are this far apart at least: a burst of changes is read in one.
    std::chrono::milliseconds minChangeGap { 100 };
    // Called on the backend's thread, so it must be thread-safe; empty: `describeInEnglish`.
    std::function<std::string(const RemoteProblem&)> describe;
};

class RemoteBackend final : public ConsoleBackend {
public:
    // Starts the thread, which polls at once.
    RemoteBackend(RemoteConfig config, ConsoleEvents events);
    ~RemoteBackend() override;
    RemoteBackend(const RemoteBackend&) = delete;
    RemoteBackend& operator=(const RemoteBackend&) = delete;

    void submit(ProposalCommand command) override;
    void submit(MoveCommand command) override;
    // GET /v1/report, read with `report::reportFromJson`; answered with the daemon's error when refused.
    void submit(ReportCommand command) override;
    // POST /v1/pools, PUT /v1/pools/{name} or DELETE /v1/pools/{name}; answered with the daemon's error when refused
    // (a token without the admin role: 403).
    void submit(PoolCommand command) override;
    void submit(NodeCommand command) override;
    void submit(ResizeCommand command) override;
    void submit(LogsCommand command) override;
    void refresh() override;
    void stop() override;

private:
    using Command = std::variant<ProposalCommand, MoveCommand, ReportCommand, PoolCommand, LogsCommand, NodeCommand,
        ResizeCommand>;

    // Queues a command for the backend's thread; refused at once once stopping.
    void enqueue(Command command);
    // All on the backend's thread.
    void run();
    // The event watch's thread: wakes `run` when the daemon records an event (`m_changed`).
    void watchEvents();
    // The follower's thread: the waiting reads of output (`m_follows`), one at a time.
    void follow();
    bool poll(api::ApiClient& client, std::chrono::milliseconds backoff);
    // The nodes' rows from what changed since the last poll (`m_nodeRows`); nullopt when they must be read in full.
    std::optional<nlohmann::json> nodesSinceLastPoll(api::ApiClient& client);
    // Keeps a full read's rows and cursor, where the daemon gives them.
    void keepNodes(const nlohmann::json& answer);
    void execute(api::ApiClient& client, const ProposalCommand& command);
    void execute(api::ApiClient& client, const MoveCommand& command);
    void execute(api::ApiClient& client, const ReportCommand& command);
    void execute(api::ApiClient& client, const PoolCommand& command);
    void execute(api::ApiClient& client, const NodeCommand& command);
    void execute(api::ApiClient& client, const ResizeCommand& command);
    void execute(api::ApiClient& client, const LogsCommand& command);
    void refuse(const Command& command, const std::string& why);
    void fail(RemoteProblem problem);

    const RemoteConfig m_config;
    const ConsoleEvents m_events;
    std::uint64_t m_sequence = 0; // backend thread only
    RemoteViews m_views; // backend thread only
    // The live workloads as of `m_workloadCursor` (backend thread only): after one full read, each poll asks the
    // daemon only for the workloads changed since (`GET /v1/workloads?changedSince=`). Empty cursor: read them all
    // (the first poll, after a failed read of the changes, a restarted daemon, or a daemon too old to give cursors).
    std::map<std::int64_t, nlohmann::json> m_liveWorkloads;
    // What each workload measured now uses (`usage=1`): id → (cpuMillis, memoryMiB), as of the latest read.
    std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> m_workloadUsage;
    void addUsage(const nlohmann::json& entry);
    void takeUsage(const nlohmann::json& page);
    std::string m_workloadCursor;
    // The nodes' rows as of `m_nodeCursor` (backend thread only), by id: after one full read, each poll asks for every
    // node's fingerprint and the usage of those heard from since (`GET /v1/nodes?usageSince=`, core/api/node_rows.h),
    // and reads again only the rows whose fingerprint changed. A node's row is about 1 KB, its usage a third of that,
    // and agents are heard from every 5 s while a console polls every second. Empty cursor: read them all.
    std::map<std::int64_t, nlohmann::json> m_nodeRows;
    std::string m_nodeCursor;

    std::mutex m_mutex; // guards the four below
    std::condition_variable m_wake;
    std::condition_variable m_watchWake; // the event watch's pauses end early when stopping
    std::deque<Command> m_commands;
    bool m_refresh = false;
    bool m_changed = false; // the daemon recorded events since the last poll
    bool m_stopping = false;
    std::thread m_thread;
    std::unique_ptr<api::ApiClient> m_watchClient; // the event watch's; cancelled by `stop`
    std::thread m_watcher;
    std::deque<LogsCommand> m_follows; // guarded by `m_mutex`, as the two below are made
    std::condition_variable m_followWake;
    std::unique_ptr<api::ApiClient> m_followClient; // the follower's; cancelled by `stop`
    std::thread m_follower;
};

} // namespace tidepool::ui
