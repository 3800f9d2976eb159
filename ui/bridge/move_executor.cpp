#include "ui/bridge/move_executor.h"

#include "core/api/control_plane.h"
#include "core/api/move_api.h"

namespace tidepool::ui {

namespace {

std::string tierName(Tier tier)
{
    return tier == Tier::Invalid ? std::string() : std::string(toString(tier));
}

MoveResult resultOf(const api::ControlPlane& plane, const MoveCommand& command, const api::MoveOutcome& outcome)
{
    MoveResult result;
    result.requestId = command.requestId;
    result.workloadId = command.workloadId;
    if (const api::LiveWorkload* w = plane.workload(command.workloadId))
        result.workload = w->workload.name;
    result.ok = outcome.moved();
    if (!result.ok)
        result.refusal = std::string(api::toString(outcome.refusal));
    result.node = outcome.node;
    result.tier = tierName(outcome.tier);
    if (result.tier.empty())
        result.tier = command.tier;
    result.pool = command.pool; // the pool asked for: once moved, it is in it (`outcome.pool`)
    result.poolTier = tierName(outcome.poolTier);
    // The scheduler's reasons as the API answers them (`api::rejectionsByCount`), so that both consoles say the same.
    for (const api::RejectionCount& r : api::rejectionsByCount(outcome.report))
        result.reasons.push_back(ReasonCount { std::string(toString(r.reason)), r.nodes });
    result.nodesConsidered = outcome.report.nodesConsidered;
    result.message = outcome.message;
    return result;
}

} // namespace

void executeMove(api::ControlPlane& plane, const MoveCommand& command, const std::string& actor,
    std::function<void(MoveResult)> done)
{
    api::MoveTarget target;
    target.node = command.node;
    if (command.node.empty())
        target.tier = parseTier(command.tier).value_or(Tier::Invalid);
    target.pool = command.pool;
    const api::MoveOutcome outcome = plane.move(command.workloadId, target, actor);
    MoveResult result = resultOf(plane, command, outcome);

    // Audited like the proposal decisions, refusals too.
    store::AuditEntry entry;
    entry.atMs = plane.nowMs();
    entry.actor = actor;
    entry.source = "console";
    entry.action = "workload.move";
    entry.target = "workload/" + std::to_string(command.workloadId);
    entry.outcome = result.ok ? "ok" : result.refusal;
    nlohmann::json reasons = nlohmann::json::object();
    for (const ReasonCount& r : result.reasons)
        reasons[r.reason] = r.nodes;
    entry.detail = nlohmann::json { { "node", command.node }, { "tier", command.tier }, { "pool", command.pool },
        { "to", result.node }, { "toPool", result.ok ? outcome.pool : std::string() }, { "message", result.message },
        { "reasons", reasons } };
    plane.audit(std::move(entry));
    plane.whenSaved(
        [result = std::move(result), done = std::move(done)](const std::optional<std::string>& notSaved) mutable {
            if (notSaved && result.ok) {
                result.ok = false;
                result.refusal = "not_saved";
                result.message = "the move was made but could not be saved (" + *notSaved + ")";
            }
            done(std::move(result));
        });
}

} // namespace tidepool::ui
