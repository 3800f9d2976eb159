#pragma once
// Carries out an operator's `PoolCommand` on a live core, as tidepoold's API does: the body read by
// `api::parsePoolRequest` (the same checks and messages), then `ControlPlane::createPool`, `updatePool` or
// `deletePool`; an audit entry records it (refusals too: action `pool.create`, `pool.update` or `pool.delete`, target
// `pool <name>`, its settings, what changed, or the settings it had, in its detail), and the result is answered once
// the control plane says the change and its entry are durable. Shared by the embedded core and the demo. Plain C++.
//
// Thread affinity: the core's thread.

#include "ui/bridge/console_backend.h"

#include <functional>
#include <string>

namespace tidepool::api {
class ControlPlane;
} // namespace tidepool::api

namespace tidepool::ui {

// `done` is called once, from a later turn of the core's event loop (`ControlPlane::whenSaved`), or at once when the
// plane persists nothing or the command is refused.
void executePoolCommand(api::ControlPlane& plane, const PoolCommand& command, const std::string& actor,
    std::function<void(PoolResult)> done);

} // namespace tidepool::ui
