#pragma once
// The core's HTTP/JSON API, the standard interface for business systems, and its Prometheus `/metrics`:
//
//   GET    /healthz                      liveness of the daemon (no token)
//   GET    /metrics                      Prometheus text format 0.0.4 (no token)
//   GET    /v1/summary                   counts of nodes by state and workloads by phase, burst timings
//   POST   /v1/workloads                 submit one workload (an object) or many ({"workloads": [...]})
//   GET    /v1/workloads[?phase=P&node=N&limit=K]
//   GET    /v1/workloads/{id}
//   GET    /v1/workloads/{id}/why        "why pending" / "why here" with the per-reason node counts
//   DELETE /v1/workloads/{id}            cancel
//   GET    /v1/nodes                     nodes with devices, pools, tier, state and utilisation
//   GET    /v1/nodes/{name}
//   GET    /v1/pools    POST /v1/pools    PUT /v1/pools/{name}
//   GET    /v1/series                    the history series the store holds
//   GET    /v1/history?scope=S&name=N&resource=R[&from=MS&to=MS&resolution=raw|5m]
//   GET    /v1/audit[?from=MS&to=MS&after=ID&limit=K]
//   GET    /v1/proposals[?state=S]   GET /v1/proposals/{id}
//   POST   /v1/proposals/{id}/approve   POST /v1/proposals/{id}/reject   POST /v1/evaluate   POST /v1/whatif
//
// A change is answered only once it is durable: an acknowledged change survives a crash. While the database cannot
// be written (a full disk, a read-only file) every change is refused with a 503 naming the reason, and reads go on.
// Every change an operator asks for is written to the audit log: who (the token's fingerprint), from where, what,
// and the outcome.
//
// Every /v1 request needs `Authorization: Bearer <operator token>` (compared in constant time); a missing or wrong
// token is a 401 and is counted. Every body is validated before anything changes: a 4xx names the bad field by its
// JSON path (`workloads[3].cpuMillis`), and a batch with one bad item submits nothing.
//
// Thread affinity: the core's io_context thread (the HTTP server calls `handle` there).

#include "core/api/control_plane.h"
#include "core/api/rebalancer.h"
#include "core/api/workload_spec.h"
#include "core/net/http_server.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace tidepool::api {

// Extra metric lines from other parts of the daemon (the agent server's counters), appended to /metrics.
using MetricsSource = std::function<void(std::string& out)>;

struct HttpApiStats {
    std::uint64_t requests = 0;
    std::uint64_t unauthorised = 0;
    std::uint64_t clientErrors = 0; // 4xx other than 401
    std::uint64_t refusedReadOnly = 0; // changes refused while the database could not be written
};

// The audit log's name for an operator token: the first 12 hex digits of its SHA-256, never the token itself.
std::string tokenFingerprint(const std::string& token);

class HttpApi {
public:
    HttpApi(ControlPlane& plane, std::vector<std::string> operatorTokens, MetricsSource extraMetrics = {});

    // Answers through `respond`: a read at once; a change once it is durable in the store (or a 503 naming why it
    // could not be saved). `peer` is the client's address, for the audit log.
    void handle(const net::HttpRequest& request, const std::string& peer, net::HttpRespond respond);
    const HttpApiStats& stats() const { return m_stats; }
    // Serves /v1/proposals and /v1/evaluate; not owned, may be null (no database).
    void setRebalancer(Rebalancer* rebalancer) { m_rebalancer = rebalancer; }

private:
    std::optional<std::size_t> authorise(const net::HttpRequest& request) const; // the matching token's index
    net::HttpResponse route(const net::HttpRequest& request, const std::vector<std::string>& parts, std::string_view query);
    std::string renderMetrics() const;
    // Audits a change and answers it once durable.
    void answerChange(net::HttpResponse response, const std::string& actor, const std::string& peer,
        const std::string& action, const std::string& target, net::HttpRespond respond);

    ControlPlane& m_plane;
    std::vector<std::string> m_tokens;
    std::vector<std::string> m_fingerprints; // by token
    std::string m_auditTarget;
    Rebalancer* m_rebalancer = nullptr; // what the request being routed changed, for its audit entry
    MetricsSource m_extraMetrics;
    HttpApiStats m_stats;
};


} // namespace tidepool::api
