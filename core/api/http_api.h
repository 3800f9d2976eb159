#pragma once
// The core's HTTP/JSON API, the standard interface for business systems, and its Prometheus `/metrics`:
//
//   GET    /healthz                      liveness of the daemon (no token)
//   GET    /metrics                      Prometheus text format 0.0.4 (no token)
//   GET    /v1/summary                   counts of nodes by state and workloads by phase, burst timings
//   POST   /v1/workloads                 submit one workload (an object) or many ({"workloads": [...]})
//   GET    /v1/workloads[?phase=P&node=N&limit=K&after=ID]   a page of K (default 1000) in id order, after ID; `more`
//                                        and `nextAfter` when the limit cut it; with a `cursor`: RUN.SEQUENCE of the
//                                        latest workload change (a reader paging through follows the first page's)
//   GET    /v1/workloads?changedSince=CURSOR[&limit=K]   only the workloads changed since (ended ones too), oldest
//                                        change first, and the next cursor; `more` when the limit cut it short; a
//                                        cursor of another run of the daemon (it restarted) is a 410. Either list with
//                                        `usage=1` also answers `usage`: [[id, cpuMillis, memoryMiB], ...] of every
//                                        workload (of the phase and node asked) measured now on a connected node
//   GET    /v1/workloads/{id}            a running workload's `measured` use where its agent measures it: {"atMs",
//                                        "cpuMillis", "memoryMiB", "peakCpuMillis", "peakMemoryMiB", "sinceMs" (the
//                                        first sample the peaks are of), "cpuP90Millis" (the 90th percentile of its
//                                        CPU samples, newer ones weighing more: `UsageHistogram`)} of its launch (a
//                                        change of it moves the `changedSince` cursor only when its peaks rose by a
//                                        tenth, at its first sample, or hourly: when the core saves them); after a
//                                        resize of its launch, `resize`: {"state": "sent"} until its agent confirms it,
//                                        {"state": "refused", "error"} when its agent refused it
//   GET    /v1/workloads/{id}/why        "why pending" / "why here" with the per-reason node counts
//   GET    /v1/workloads/{id}/logs[?stream=stdout|stderr&bytes=N]   the end of its output (default the last 64 KiB
//                                        of stdout, at most 256 KiB), from the agent that holds it: {"id", "node",
//                                        "incarnation", "stream", "sizeBytes" (what the agent keeps of it),
//                                        "truncated", "data" (UTF-8 text)}; 404 when the agent holds none, 409 while
//                                        the workload is on no node, 503 while its agent is away, 504 when it did not
//                                        answer in 10 s. Operator role: output may hold what not everyone should see.
//                                        A follower reads on with `from=END&incarnation=I` (the `end` and
//                                        `incarnation` of its last answer), and with `waitMs=MS` (at most 30000) its
//                                        read is held at an agent that waits (kFeatureLogWait) until there is output
//                                        from there on, the launch ends, or MS have passed (no `data` then); at most
//                                        `ControlPlane::kMaxLogFollows` are held at once, others answered at once. A
//                                        reader that closes its connection while its read waits gives its place back
//   DELETE /v1/workloads/{id}            cancel
//   POST   /v1/workloads/{id}/move       an operator's move to a node, a tier or a pool (move_api.h)
//   POST   /v1/workloads/{id}/resize     an operator's change of its CPU and memory requests and limits, in place where
//                                        it runs (move_api.h)
//   GET    /v1/nodes                     nodes with devices, pools, tier, state and utilisation
//   GET    /v1/nodes/{name}
//   GET    /v1/pools    GET /v1/pools/{name}    POST /v1/pools    PUT /v1/pools/{name}    DELETE /v1/pools/{name}
//                                        quotas: cpuMillis, memoryMiB, memBandwidthMBps, netBandwidthMbps and
//                                        acceleratorQuota {gpu, npu, fpga} in share units (null: unlimited); the
//                                        bandwidths and accelerators are held by admission (the scheduler), CPU and
//                                        memory also by each node's cgroups; `overQuota` lists the quotas the
//                                        pool's running work exceeds (one lowered below it: nothing is evicted);
//                                        DELETE refuses the default pool and a pool whose workloads have not all
//                                        ended (409, naming the first), and answers the settings it had
//   GET    /v1/series                    the history series the store holds
//   GET    /v1/history?scope=S&name=N&resource=R[&from=MS&to=MS&resolution=raw|5m]
//   GET    /v1/audit[?from=MS&to=MS&after=ID&limit=K]
//   GET    /v1/proposals[?state=S&limit=K&before=ID]   GET /v1/proposals/{id}
//   GET    /v1/report[?from=T&to=T&scope=S&name=N&language=L]   a report's data (report_api.h)
//   POST   /v1/proposals/{id}/approve   POST /v1/proposals/{id}/reject   POST /v1/evaluate   POST /v1/whatif
//
// HEAD of any of these is answered as its GET without the body (the server hands `handle` a GET: net/http_server.h),
// so a forbidden HEAD of /v1/audit is audited as "GET /v1/audit". A method a path does not take (PUT /v1/pools) is
// a 405 with an `Allow` header listing those it does (`allowedMethods` in access.h, and GET for the read routes),
// before the role is checked; an attempted change is audited with it. A path no route has is a 404.
//
// A change is answered only once it is durable: an acknowledged change survives a crash. While the database cannot
// be written (a full disk, a read-only file) every change is refused with a 503 naming the reason, and reads go on.
//
// Every /v1 request needs `Authorization: Bearer <operator token>`, checked against the salted hashes of the token
// file in constant time (operator_tokens.h); a missing or unknown token is a 401 and is counted. The token's role
// must then be at least the one the route needs:
//
// | role     | may call                                                                                          |
// | -------- | ------------------------------------------------------------------------------------------------- |
// | viewer   | every GET but /v1/audit and /v1/workloads/{id}/logs                                               |
// | operator | also GET /v1/audit and /v1/workloads/{id}/logs, POST /v1/workloads, DELETE /v1/workloads/{id},    |
// |          | POST /v1/workloads/{id}/move and /resize,                                                         |
// |          | POST /v1/proposals/{id}/approve and /reject, POST /v1/evaluate, POST /v1/whatif                   |
// | admin    | also POST /v1/pools, PUT and DELETE /v1/pools/{name}, and any change route not named above        |
// |          | (fail closed)                                                                                     |
//
// (the table with the reasons is in access.h). A call the role may not make is a 403 naming the role it needs and
// the one the token has (`requiredRole`, `role` in the body), counted in /metrics, and audited.
//
// The audit log: every change (every method but GET and HEAD, and what-if) writes a "received" entry before it acts
// and a "completed" one, with the outcome ("ok" or the error), once the change is durable; the two share a `request`
// id. Each names who (the token's name, or a plaintext token's fingerprint, and its role), from where (the client's
// address), what (method and path; the completed entry the target: "workload 12", "pool batch") and when. A
// forbidden call, read or change, leaves the same two entries with the 403's message as its outcome. The received
// entry is committed with the change or before it (commits are in order, all or nothing), so no change is ever
// durable without it. The completed entry is written once the change is durable and the answer sent, and committed
// with the next commit (within 50 ms): GET /v1/audit commits what is pending before it reads, so it shows every call
// already answered; only a crash in between can leave a received entry without its completed one. A change refused
// because the database cannot be written is not audited (the audit log could not take it either).
//
// Every body is validated before anything changes: a 4xx names the bad field by its JSON path
// (`workloads[3].cpuMillis`), and a batch with one bad item submits nothing. A key given twice in one object is
// refused, naming it (`parseJsonBody`), instead of the last one silently winning. POST /v1/evaluate takes no
// parameters: its body is empty or `{}`, anything else a 400.
//
// Thread affinity: the core's io_context thread (the HTTP server calls `handle` there). `GET /v1/nodes` and `GET
// /v1/workloads` are written as JSON on a serialiser thread of the API's own, from a copy the core's thread takes, and
// answered on the core's thread.

#include "core/api/access.h"
#include "core/api/control_plane.h"
#include "core/api/operator_tokens.h"
#include "core/api/rebalancer.h"
#include "core/api/workload_spec.h"
#include "core/net/http_server.h"
#include "core/report/report.h"

#include <boost/asio/thread_pool.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tidepool::api {

// Extra metric lines from other parts of the daemon (the agent server's counters), appended to /metrics.
using MetricsSource = std::function<void(std::string& out)>;

struct NodeFingerprints; // http_api.cpp

// A pool's request from an API body: a new pool (`base` empty, `name` required) or a change to an existing one, whose
// fields absent from the body keep their values in `base`; `null` sets a quota back to unlimited and a tier back to
// any. Accelerator quotas are an object by kind in share units, as workloads request them (`{"gpu": 2000}`: two whole
// GPUs, or four halves); a kind absent from it keeps its quota, 0 keeps the pool off that kind, and `null` (for a kind
// or the whole object) lifts it. `maxDisrupted` (0..1,000,000, a percentage of its workloads as "25%", `null`: none)
// is its disruption budget (`PoolRequest::maxDisrupted`); a pool's row answers it with `disruptionBudget`, how many of
// its workloads it lets move at once now, and `disrupted`, how many of its workloads it counts now.
// `POST /v1/pools`, `PUT /v1/pools/{name}` and the embedded console's pool dialog.
ApiResult<PoolRequest> parsePoolRequest(const nlohmann::json& body, std::optional<PoolRequest> base);
// A pool's settings as an audit entry keeps them: its row less what its work holds now.
nlohmann::json poolSettings(const ControlPlane& plane, PoolId id);
// What an update changed of `poolSettings`, as its audit entry keeps it: {field: {from, to}} for each field that
// differs.
nlohmann::json settingsChanged(const nlohmann::json& before, const nlohmann::json& after);

// The sequence of a cursor that a list of `what`s answered in this run of the core (RUN.SEQUENCE, `runId` the
// control plane's), given as query `name`: 400 when it is not one, 410 when it is from another run (the reader lists
// them all again). The workloads', the nodes' and the console feed's devices' cursors.
ApiResult<std::uint64_t> cursorSequence(
    std::string_view cursor, const std::string& runId, std::string_view name, std::string_view what);

struct HttpApiStats {
    std::uint64_t requests = 0;
    std::uint64_t unauthorised = 0;
    std::uint64_t forbidden = 0; // a known token whose role may not make the call
    std::uint64_t clientErrors = 0; // 4xx other than 401 and 403
    std::uint64_t refusedReadOnly = 0; // changes refused while the database could not be written
    std::uint64_t refusedBusy = 0; // large reads refused while `kMaxQueuedWrites` were waiting to be written
};

class HttpApi {
public:
    // `io` is the core's io_context, which runs `handle`; it must outlive the API.
    HttpApi(boost::asio::io_context& io, ControlPlane& plane, std::vector<OperatorToken> tokens,
        MetricsSource extraMetrics = {});
    ~HttpApi() { m_serialiser.join(); } // a list being written finishes; its answer finds `m_alive` gone

    // Answers through `respond`: a read at once; a change once it is durable in the store (or a 503 naming why it
    // could not be saved). `peer` is the client's address, for the audit log.
    void handle(const net::HttpRequest& request, const std::string& peer, net::HttpRespond respond);
    const HttpApiStats& stats() const { return m_stats; }
    // Replaces the tokens (the token file read again on SIGHUP): calls from now on are checked against these.
    void setTokens(std::vector<OperatorToken> tokens) { m_tokens = std::move(tokens); }
    // Serves /v1/proposals and /v1/evaluate; not owned, may be null (no database).
    void setRebalancer(Rebalancer* rebalancer) { m_rebalancer = rebalancer; }
    // Prices and carbon intensity for /v1/report.
    void setReportSettings(report::ReportSettings settings) { m_reportSettings = std::move(settings); }
    // A read-only resource another layer serves: `GET /v1/<resource>[/...]` is answered by `route` (on the core's
    // thread, with the path's parts and the query), with the viewer role like every GET; other methods get a 405. The
    // console's views for `--connect` (ui/bridge/console_feed.h) come this way, so that the core needs no console code.
    // A route answers a response, a writer that makes it on the API's serialiser thread from copies it owns (for
    // answers too large to write on the core's thread), or a call that takes the request's `respond` to answer later
    // on the core's thread (a read that waits for something to happen).
    using OffThreadWriter = std::function<net::HttpResponse()>;
    using LaterAnswer = std::function<void(net::HttpRespond)>;
    using ReadAnswer = std::variant<net::HttpResponse, OffThreadWriter, LaterAnswer>;
    using ReadRoute = std::function<ReadAnswer(const std::vector<std::string>& parts, std::string_view query)>;
    void addReadRoute(std::string resource, ReadRoute route) { m_readRoutes[std::move(resource)] = std::move(route); }

private:
    std::optional<std::size_t> authorise(const net::HttpRequest& request) const; // the matching token's index
    // A 405 with an `Allow` header when the path has routes (`allowedMethods`, the read routes) but none for the
    // request's method; nullopt otherwise.
    std::optional<net::HttpResponse> methodNotAllowed(
        const net::HttpRequest& request, const std::vector<std::string>& parts, std::string_view target) const;
    net::HttpResponse route(const net::HttpRequest& request, const std::vector<std::string>& parts);
    std::string renderMetrics() const;
    // Writes the "received" audit entry of a call and returns it, to be completed by `answerChange`.
    store::AuditEntry received(const OperatorToken& caller, const std::string& peer, const std::string& action,
        const std::string& path);
    // Once the change is durable (or could not be saved), writes its "completed" entry with `target` and the outcome
    // and answers.
    void answerChange(net::HttpResponse response, store::AuditEntry entry, const std::string& target,
        net::HttpRespond respond);
    // Runs `write` (which owns a copy of what it answers) on `m_serialiser`, and answers with its response back on
    // the core's thread. With `kMaxQueuedWrites` already waiting there, answers 503 with Retry-After instead: each
    // waits with its copy, and a crowd of large reads would hold memory and delay every other reader.
    void answerOffThread(OffThreadWriter write, net::HttpRespond respond);
    // Large reads waiting for (or being written on) the serialiser thread at most; a small page of workloads is
    // written on the core's thread, ahead of them.
    static constexpr std::size_t kMaxQueuedWrites = 16;
    static constexpr std::size_t kInlineRows = 64;
    // GET /v1/nodes and GET /v1/workloads: the largest regular reads (a remote console's polls) are copied here and
    // written as JSON off the core's thread.
    void listNodes(std::string_view query, net::HttpRespond respond);
    void listWorkloads(std::string_view query, net::HttpRespond respond);
    // GET /v1/workloads/{id}/logs: asked of the workload's agent (`ControlPlane::queryLogs`), answered when it answers.
    void workloadLogs(const std::string& id, std::string_view query, net::HttpRespond respond);

    boost::asio::io_context& m_io;
    ControlPlane& m_plane;
    std::vector<OperatorToken> m_tokens;
    std::string m_requestPrefix; // this run's start time, so that request ids stay unique across restarts
    std::uint64_t m_requestCount = 0;
    std::string m_auditTarget;
    nlohmann::json m_auditDetail; // more for the completed audit entry of the call being routed (a decision's comment)
    std::map<std::string, ReadRoute> m_readRoutes;
    Rebalancer* m_rebalancer = nullptr; // what the request being routed changed, for its audit entry
    MetricsSource m_extraMetrics;
    report::ReportSettings m_reportSettings;
    HttpApiStats m_stats;
    std::shared_ptr<int> m_alive = std::make_shared<int>(0); // answers posted back check it is still there
    // What each node's fingerprint was made from, so that a poll hashes only the rows that changed.
    std::shared_ptr<NodeFingerprints> m_fingerprints;
    std::size_t m_queuedWrites = 0; // on `m_serialiser`, written or not, their answers not yet sent
    boost::asio::thread_pool m_serialiser { 1 };
};


} // namespace tidepool::api
