#pragma once
// The API's proposal routes:
//   GET  /v1/proposals[?state=S&limit=K&before=ID]
//                                          newest first; S = pending, approved, rejected, expired, applied, failed;
//                                          at most K (1–10000, default 1000), with ids below ID; {"proposals": [...],
//                                          "more": bool, "nextBefore": ID to pass as `before` for the next page when
//                                          there is more}. Closed proposals are kept for `keepClosedProposals`.
//   GET  /v1/proposals/{id}
//   POST /v1/proposals/{id}/approve        body {"comment": "..."} (optional): applies it if the state it was planned
//                                          on holds; else 409 naming the re-planned proposal
//   POST /v1/proposals/{id}/reject         body {"reason": "..."} or {"comment": "..."} (optional): the proposal's
//                                          `detail` says it
// A decision's comment (at most 1000 bytes) goes into the completed audit entry's `detail.comment`, as the embedded
// console's decisions do.
//   POST /v1/evaluate                      runs the evaluation now; answers the proposals it created (handled by
//                                          `HttpApi` itself, since the answer comes once the worker has forecast)
//   POST /v1/whatif                        body {"profile": P, "pools": {"name": cpuMillis|null}, "removeNodes": [N]}
//                                          (every field optional): re-simulates the whole cluster with the change
//                                          and answers the difference; changes nothing (rebalance/whatif.h)
// Without a rebalancer (no --db) the proposal routes answer 404 saying so; what-if needs none.
//
// Thread affinity: the core's io_context thread.

#include "core/api/rebalancer.h"
#include "core/net/http_server.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace tidepool::api {

// `actor` decides approvals and rejections; `auditTarget` is set to what the request acted on, and `auditDetail`
// (an object) gets what its completed audit entry should say besides (a decision's comment).
net::HttpResponse proposalRoute(Rebalancer* rebalancer, const net::HttpRequest& request,
    const std::vector<std::string>& parts, std::string_view query, const std::string& actor, std::string& auditTarget,
    nlohmann::json& auditDetail);

net::HttpResponse whatIfRoute(const ControlPlane& plane, const net::HttpRequest& request);

} // namespace tidepool::api
