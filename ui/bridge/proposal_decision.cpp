#include "ui/bridge/proposal_decision.h"

#include "core/api/control_plane.h"
#include "core/api/rebalancer.h"

namespace tidepool::ui {

namespace {
constexpr std::size_t kMaxCommentBytes = 1000; // as the API allows for a rejection's reason
} // namespace

void decideProposal(api::ControlPlane& plane, api::Rebalancer* rebalancer, const ProposalCommand& command,
    const std::string& actor, std::function<void(CommandOutcome)> done)
{
    CommandOutcome outcome { command.requestId, command.proposalId, command.decision, false, {}, {} };
    if (!rebalancer) {
        outcome.message = "the core runs without the evaluation loop (no database); there is nothing to decide";
        return done(std::move(outcome));
    }
    if (command.decision == Decision::Invalid || command.comment.size() > kMaxCommentBytes) {
        outcome.message = command.decision == Decision::Invalid ? "no decision given" : "the comment is too long";
        return done(std::move(outcome));
    }
    const std::int64_t now = plane.nowMs();
    const bool approve = command.decision == Decision::Approve;
    auto decided = approve ? rebalancer->approve(command.proposalId, actor, now)
                           : rebalancer->reject(command.proposalId, actor, command.comment, now);
    if (decided) {
        outcome.ok = true;
        outcome.state = std::string(rebalance::toString((*decided)->state));
        outcome.message = (*decided)->detail;
    } else {
        outcome.message = decided.error().message;
        if (const rebalance::Proposal* p = rebalancer->proposal(command.proposalId))
            outcome.state = std::string(rebalance::toString(p->state));
    }
    // Audited like the API's decisions, refusals too.
    store::AuditEntry entry;
    entry.atMs = now;
    entry.actor = actor;
    entry.source = "console";
    entry.action = approve ? "proposal.approve" : "proposal.reject";
    entry.target = "proposal/" + std::to_string(command.proposalId);
    entry.outcome = outcome.ok ? "ok" : outcome.message;
    entry.detail
        = nlohmann::json { { "comment", command.comment }, { "status", decided ? 200 : decided.error().status } };
    plane.audit(std::move(entry));
    plane.whenSaved(
        [outcome = std::move(outcome), done = std::move(done)](const std::optional<std::string>& notSaved) mutable {
            if (notSaved && outcome.ok) {
                outcome.ok = false;
                outcome.message = "the decision was made but could not be saved (" + *notSaved + ")";
            }
            done(std::move(outcome));
        });
}

} // namespace tidepool::ui
