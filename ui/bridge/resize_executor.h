#pragma once
// Carries out an operator's `ResizeCommand` on a live core, as tidepoold's API does (core/api/move_api.h):
// `ControlPlane::resize`; an audit entry records it (refusals too: action `workload.resize`, target `workload <id>`,
// the values asked for in its detail), and the result is answered once the change and its entry are durable. Shared by
// the embedded core and the demo. Plain C++.
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
// plane persists nothing or the core is read-only.
void executeResize(api::ControlPlane& plane, const ResizeCommand& command, const std::string& actor,
    std::function<void(ResizeResult)> done);

} // namespace tidepool::ui
