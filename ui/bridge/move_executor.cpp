#include "ui/bridge/move_executor.h"

#include "core/api/control_plane.h"

#include <algorithm>

namespace tidepool::ui {

namespace {

MoveResult resultOf(const api::ControlPlane& plane, const MoveCommand& command, const api::MoveOutcome& outcome)
{
    MoveResult result;
    result.requestId = command.requestId;
    result.workloadId = command.workloadId;
    if (const api::LiveWorkload* w = plane.workload(command.workloadId)) {
        result.workload = w->workload.name;
        if (outcome.refusal == api::MoveRefusal::PoolTier && w->workload.pool != kNoPool)
            result.poolTier = std::string(toString(plane.cluster().pool(w->workload.pool).tier));
    }
    result.ok = outcome.moved();
    if (!result.ok)
        result.refusal = std::string(api::toString(outcome.refusal));
    result.node = outcome.node;
    result.tier = command.tier;
    if (!command.node.empty())
        if (const api::LiveNode* node = plane.nodeByName(command.node))
            result.tier = std::string(toString(plane.cluster().node(node->id).tier));
    for (std::size_t i = 1; i < kRejectReasonCount; ++i)
        if (const std::int32_t nodes = outcome.report.rejected[i]; nodes > 0)
            result.reasons.push_back(ReasonCount { std::string(toString(static_cast<RejectReason>(i))), nodes });
    std::stable_sort(result.reasons.begin(), result.reasons.end(),
        [](const ReasonCount& a, const ReasonCount& b) { return a.nodes > b.nodes; });
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
    entry.detail = nlohmann::json { { "node", command.node }, { "tier", command.tier }, { "to", result.node },
        { "message", result.message }, { "reasons", reasons } };
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
