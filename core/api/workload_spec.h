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
// The same for a new submission, which must ask for something (CPU, memory or an accelerator: not `cpuMillis` and
// `memoryMiB` both 0 with no `accelerators`) and may also not set in `env` what the agent sets for each workload:
// names that begin with TIDEPOOL_ (its id, its incarnation) and CUDA_VISIBLE_DEVICES (the GPUs it was given). A stored
// workload is read with `parseSubmitRequest` alone, so that one stored before these rules still restores (the
// agent's values win over its own).
ApiResult<SubmitRequest> parseNewSubmission(const nlohmann::json& body, const std::string& path = {});
// The submission that would recreate `w` (model ids are written as names).
nlohmann::json submissionJson(const LiveWorkload& w, const ClusterState& cluster);

} // namespace tidepool::api
