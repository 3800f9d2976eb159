#pragma once
// Builds a `ConsoleSnapshot` from what a `tidepoold` answers on its API (core/api/http_api.h): `GET /v1/summary`,
// `/v1/nodes`, `/v1/pools`, `/v1/proposals` and the workloads that wait, launch, run or stop (`/v1/workloads?phase=`).
// The rows carry the same values the embedded builder (`snapshot_builder.h`, `workload_snapshot.h`) takes from a live
// control plane, so a view cannot tell a remote core from an embedded one. Plain C++, no Qt.
//
// Thread affinity: none (a pure function of its input).

#include "core/model/types.h"
#include "ui/bridge/console_snapshot.h"

#include <nlohmann/json.hpp>

namespace tidepool::ui {

struct ApiState {
    nlohmann::json summary; // the object of /v1/summary
    nlohmann::json nodes; // the array under "nodes"
    nlohmann::json pools; // the array under "pools"
    nlohmann::json proposals; // the array under "proposals" (newest first, as the API sends it); null: no rebalancer
    nlohmann::json workloads; // the workloads of the four live phases, in any order
};

// Fails naming the first field that is missing or of the wrong type (a daemon of another version).
Expected<std::shared_ptr<ConsoleSnapshot>> snapshotFromApi(
    const ApiState& state, std::uint64_t sequence, std::string source);

} // namespace tidepool::ui
