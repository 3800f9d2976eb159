#pragma once
// An operator's move of a workload (`ControlPlane::move`) over the API, and the terms its outcome is told in, shared
// with the console (`ui/bridge/move_executor.cpp`) so that both say it alike:
//
//   POST /v1/workloads/{id}/move   body {"node": N, "tier": "hot|warm|cold", "pool": P}, at least one of them
//
// Moved: 200 {"moved": true, "workload": id, "name", "node", "tier", "pool", "message"}, where it went. Refused: 409
// (404 for no_workload and no_target, 503 for read_only) {"error": message, "refusal": code, "node", "tier",
// "poolTier", "nodesConsidered": N, "reasons": [{"reason": "insufficient CPU", "nodes": K}, ...]}: the code is
// `toString(MoveRefusal)`, the reasons the scheduler's names (`toString(RejectReason)`), most nodes first. Unknown
// fields and wrong types are a 400 naming the field, and change nothing. Operator role (access.h); the audit's target
// is "workload {id}", its completed entry's detail says where it went (or the refusal's code).
//
// And an operator's resize of a workload (`ControlPlane::resize`), in place where it runs:
//
//   POST /v1/workloads/{id}/resize   body {"cpuMillis", "memoryMiB", "cpuLimitMillis", "memoryLimitMiB"}, at least one;
//                                    a limit of 0 or null removes the workload's own limit
//
// 200 {"resized": true|false (it asked for this already), "workload": id, "node" (where it runs, resized in place; ""
// when waiting), "sentToAgent", "message", and the workload's values now: "cpuMillis", "memoryMiB", "cpuLimitMillis",
// "memoryLimitMiB"}; refused: the status `ControlPlane::resize` names, {"error": message}. Operator role; the audit's
// target is "workload {id}", its detail the values asked for.
//
// Thread affinity: `moveRoute` and `resizeRoute` on the core's io_context thread; the rest are pure functions.

#include "core/api/control_plane.h"
#include "core/net/http_server.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tidepool::api {

struct RejectionCount {
    RejectReason reason = RejectReason::None;
    std::int32_t nodes = 0;
};

// The reasons `report` counts, each with the nodes it refused, most first (equal counts in `RejectReason` order).
std::vector<RejectionCount> rejectionsByCount(const FilterReport& report);

// The body of a move; every error names the field.
ApiResult<MoveTarget> parseMoveTarget(const nlohmann::json& body);

// The HTTP status a refusal is answered with (200 when moved).
int moveStatus(MoveRefusal refusal);

// The answer's body for `outcome` of workload `id` (see above).
nlohmann::json moveOutcomeJson(const ControlPlane& plane, WorkloadId id, const MoveOutcome& outcome);

// `POST /v1/workloads/{id}/move` (`parts` = {"v1", "workloads", id, "move"}) by `actor`. `auditTarget` is set to the
// workload, `auditDetail` (an object) to where it went or the refusal's code.
net::HttpResponse moveRoute(ControlPlane& plane, const net::HttpRequest& request, const std::vector<std::string>& parts,
    const std::string& actor, std::string& auditTarget, nlohmann::json& auditDetail);

// The body of a resize; every error names the field.
ApiResult<ResizeRequest> parseResizeRequest(const nlohmann::json& body);

// `POST /v1/workloads/{id}/resize` (`parts` = {"v1", "workloads", id, "resize"}) by `actor`, as `moveRoute`.
net::HttpResponse resizeRoute(ControlPlane& plane, const net::HttpRequest& request,
    const std::vector<std::string>& parts, const std::string& actor, std::string& auditTarget,
    nlohmann::json& auditDetail);

} // namespace tidepool::api
