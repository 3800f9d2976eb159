#pragma once
// Builds a `ConsoleSnapshot` from the live core. Plain C++, no Qt.
//
// Thread affinity: the core's thread (it reads the control plane and the rebalancer, which are not synchronised).

#include "ui/bridge/console_snapshot.h"

namespace tidepool::api {
class ControlPlane;
class Rebalancer;
} // namespace tidepool::api

namespace tidepool::ui {

// `rebalancer` may be null (no proposals). `sequence` and `source` are copied into the snapshot.
std::shared_ptr<ConsoleSnapshot> buildSnapshot(
    const api::ControlPlane& plane, const api::Rebalancer* rebalancer, std::uint64_t sequence, std::string source);

} // namespace tidepool::ui
