#pragma once
// Carries out an operator's `ProposalCommand` on a live core: `Rebalancer::approve` or `reject` as `actor`, an audit
// entry (`proposal.approve|reject`, target `proposal/<id>`, the comment and the status in its detail, refusals too),
// and the outcome answered once `ControlPlane::whenSaved` says the decision and its entry are durable. Shared by every
// backend that embeds a core (the demo and the embedded single-box mode). Plain C++, no Qt.
//
// Thread affinity: the core's thread.

#include "ui/bridge/console_backend.h"

#include <functional>
#include <string>

namespace tidepool::api {
class ControlPlane;
class Rebalancer;
} // namespace tidepool::api

namespace tidepool::ui {

inline constexpr const char* kConsoleActor = "operator:console";

// `rebalancer` may be null (no evaluation loop: every command is refused, saying so). `done` is called once, from a
// later turn of the core's event loop, or at once when the command is refused before anything is decided.
void decideProposal(api::ControlPlane& plane, api::Rebalancer* rebalancer, const ProposalCommand& command,
    const std::string& actor, std::function<void(CommandOutcome)> done);

} // namespace tidepool::ui
