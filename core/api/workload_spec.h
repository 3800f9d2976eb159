#pragma once
// A workload's submission in the API's JSON form, both ways: `parseSubmitRequest` validates a body (every error
// names the field by its path), `submissionJson` writes a known workload back in the same form. The store keeps
// that form, so a restored workload goes through the very checks a new one does.
//
// Thread affinity: none; pure functions.

#include "core/api/control_plane.h"

#include <nlohmann/json.hpp>

#include <string>

namespace tidepool::api {

// Parses one submission object; `path` prefixes field names (`workloads[3]`).
ApiResult<SubmitRequest> parseSubmitRequest(const nlohmann::json& body, const std::string& path = {});
// The submission that would recreate `w` (model ids are written as names).
nlohmann::json submissionJson(const LiveWorkload& w, const ClusterState& cluster);

} // namespace tidepool::api
