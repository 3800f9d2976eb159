#pragma once
// Carries out an operator's `MoveCommand` on a live core: `ControlPlane::move` judges and performs it, an audit entry
// records it (refusals too: action `workload.move`, target `workload/<id>`, the target and the reasons in its detail),
// and the result is answered once the control plane says the move and its entry are durable. Shared by every backend
// that embeds a core (the demo today). Plain C++, no Qt.
//
// Thread affinity: the core's thread.

#include "ui/bridge/workload_rows.h"

#include <functional>
#include <string>

namespace tidepool::api {
class ControlPlane;
} // namespace tidepool::api

namespace tidepool::ui {

// `done` is called once, from a later turn of the core's event loop (`ControlPlane::whenSaved`), or at once when the
// plane persists nothing.
void executeMove(api::ControlPlane& plane, const MoveCommand& command, const std::string& actor,
    std::function<void(MoveResult)> done);

} // namespace tidepool::ui
