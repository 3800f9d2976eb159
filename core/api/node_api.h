#pragma once
// An operator takes a node out of service and back (`ControlPlane::operatorCordon`, `operatorUncordon`, `drain`):
//
//   POST /v1/nodes/{name}/cordon     body {"reason": TEXT} (optional): no new work lands there; what runs stays
//   POST /v1/nodes/{name}/uncordon   no body: lifts its cordon, whoever set it (a powered-down node's: it powers up)
//   POST /v1/nodes/{name}/drain      body {"reason": TEXT, "maxParallel": N, "deadlineMs": MS} (each optional):
//                                    cordons it, then moves each workload placed there onto the best other node that
//                                    takes it (stopped there, launched again): all at once, or with maxParallel at
//                                    most N moving at a time, the rest following as moved ones run, and with
//                                    deadlineMs what is left then moved at once or queued again (DrainOptions)
//
// Answers 200 {"node", "state", "cordon", ...}: `uncordon` adds "lifted" (the cordon it lifted, "" when there was
// none); `drain` adds "moved" and "stayed" (counts) and "workloads" (each as a move answers it, move_api.h: where it
// went, or why it stayed). A drain that left some is still a 200: the node is cordoned, and the answer says which stay
// and why. A paced drain answers with the moves of its first step, "waiting" (the node's workloads not moved yet) and
// "drain" (`drainJson`) while it goes on; the node's row (GET /v1/nodes) carries "drain" until it is over. 404 for no
// such node, 409 for a cordon of a node cordoned for a power-down (uncordon it first: that powers it up), 503 while the
// store cannot be written, 400 naming the field for a bad body. Operator role (access.h); the audit's target is "node
// NAME", its detail the cordon and, for a drain, the counts.
//
// Thread affinity: the core's io_context thread.

#include "core/api/control_plane.h"
#include "core/net/http_server.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tidepool::api {

inline constexpr std::size_t kMaxCordonReasonBytes = 256;

// A paced drain under way: {"maxParallel", "startedMs", "deadlineMs" (Unix epoch; 0: none), "actor", "moving" (moved,
// not running on their new node yet), "moved", "evicted" (queued again at the deadline), "blocked" (no other node
// took them at the latest try) and "blockedReason" (why the first of them stayed)}.
nlohmann::json drainJson(const NodeDrain& drain);

// `POST /v1/nodes/{name}/{cordon|uncordon|drain}` (`parts` = {"v1", "nodes", name, operation}) by `actor`.
net::HttpResponse nodeOperationRoute(ControlPlane& plane, const net::HttpRequest& request,
    const std::vector<std::string>& parts, const std::string& actor, std::string& auditTarget,
    nlohmann::json& auditDetail);

} // namespace tidepool::api
