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
// plan line: the whole JSON text, which the views turn into a sentence (`planStepText`). (Fields at their defaults
// were once left out, which made a move from device 0 read as a move off no device.)
std::string describeAction(const nlohmann::json& action);

// The overview counts that follow from the snapshot's own rows: nodes by ISA and state, accelerators by kind, the
// tiers' load, proposals waiting. (Workloads by phase and by tier come from the core.)
void countOverviewRows(ConsoleSnapshot& snapshot);

// `rebalancer` may be null (no proposals). `sequence` and `source` are copied into the snapshot.
std::shared_ptr<ConsoleSnapshot> buildSnapshot(
    const api::ControlPlane& plane, const api::Rebalancer* rebalancer, std::uint64_t sequence, std::string source);

} // namespace tidepool::ui
