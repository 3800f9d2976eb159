#pragma once
// Builds a `ConsoleSnapshot` from the live core. Plain C++, no Qt.
//
// Thread affinity: the core's thread (it reads the control plane and the rebalancer, which are not synchronised).

#include "ui/bridge/console_snapshot.h"

#include <nlohmann/json.hpp>

namespace tidepool::api {
class ControlPlane;
class Rebalancer;
} // namespace tidepool::api

namespace tidepool::ui {

// One action of a proposal's plan (its JSON, `rebalance::toJson(Action)`, as the API sends it too) as the console's
// plan line: the JSON without the fields left at their defaults.
std::string describeAction(nlohmann::json action);

// The overview counts that follow from the snapshot's own rows: nodes by ISA and state, accelerators by kind, the
// tiers' load, proposals waiting. (Workloads by phase and by tier come from the core.)
void countOverviewRows(ConsoleSnapshot& snapshot);

// `rebalancer` may be null (no proposals). `sequence` and `source` are copied into the snapshot.
std::shared_ptr<ConsoleSnapshot> buildSnapshot(
    const api::ControlPlane& plane, const api::Rebalancer* rebalancer, std::uint64_t sequence, std::string source);

} // namespace tidepool::ui
