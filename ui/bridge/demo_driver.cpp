#include "ui/bridge/demo_driver.h"

#include "core/api/control_plane.h"
#include "core/api/rebalancer.h"
#include "ui/bridge/snapshot_builder.h"

namespace tidepool::ui {

namespace {
constexpr std::size_t kMaxCommentBytes = 1000; // as the API allows for a rejection's reason
} // namespace

Expected<std::unique_ptr<DemoDriver>> DemoDriver::start(DemoConfig config)
{
    if (config.evaluationPeriodMs < config.scenario.stepMs)
        return makeError(ErrorCode::InvalidArgument, "the evaluation period must be at least one step");
    if (config.scenario.mode != sim::ScenarioMode::Tidepool)
        return makeError(ErrorCode::InvalidArgument, "the demo runs the scenario in tidepool mode");
    // The scenario evaluates every period and leaves the proposals to the console's operator.
    config.scenario.evaluationPeriodMs = config.evaluationPeriodMs;
    config.scenario.operatorApproves = false;
    auto run = sim::ScenarioRun::start(config.scenario);
    if (!run)
        return tl::unexpected(run.error());
    std::unique_ptr<DemoDriver> driver(new DemoDriver);
    driver->m_config = std::move(config);
    driver->m_run = std::move(*run);
    return driver;
}

DemoDriver::~DemoDriver() = default;

bool DemoDriver::done() const
{
    return m_run->done();
}

void DemoDriver::advance()
{
    if (done())
        return;
    m_run->step();
}

void DemoDriver::decide(const ProposalCommand& command, std::function<void(CommandOutcome)> done)
{
    CommandOutcome outcome { command.requestId, command.proposalId, command.decision, false, {}, {} };
    api::Rebalancer* rebalancer = m_run->rebalancer();
    if (!rebalancer) {
        outcome.message = "the demo runs without the evaluation loop; there is nothing to decide";
        return done(std::move(outcome));
    }
    if (command.decision == Decision::Invalid || command.comment.size() > kMaxCommentBytes) {
        outcome.message = command.decision == Decision::Invalid ? "no decision given" : "the comment is too long";
        return done(std::move(outcome));
    }
    api::ControlPlane& plane = m_run->plane();
    const std::int64_t now = m_run->nowMs();
    const bool approve = command.decision == Decision::Approve;
    auto decided = approve ? rebalancer->approve(command.proposalId, kConsoleActor, now)
                           : rebalancer->reject(command.proposalId, kConsoleActor, command.comment, now);
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
    entry.actor = kConsoleActor;
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
    m_run->poll(); // committed now, not at the next step
}

SnapshotPtr DemoDriver::snapshot()
{
    auto snapshot = buildSnapshot(m_run->plane(), m_run->rebalancer(), ++m_sequence, "demo");
    snapshot->finished = done();
    return snapshot;
}

} // namespace tidepool::ui
