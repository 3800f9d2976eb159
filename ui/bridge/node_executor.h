#pragma once
// Carries out an operator's `NodeCommand` on a live core, as tidepoold's API does (core/api/node_api.h):
// `ControlPlane::operatorCordon`, `operatorUncordon` or `drain`; an audit entry records it (refusals too: action
// `node.cordon`, `node.uncordon` or `node.drain`, target `node <name>`, the cordon and a drain's counts in its detail),
// and the result is answered once the control plane says the change and its entry are durable. Shared by the embedded
// core and the demo. Plain C++.
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
void executeNodeCommand(api::ControlPlane& plane, const NodeCommand& command, const std::string& actor,
    std::function<void(NodeResult)> done);

// "NAME (workload ID): why", for a workload a drain left where it was.
std::string stayedText(const std::string& name, std::int64_t id, const std::string& why);

} // namespace tidepool::ui
