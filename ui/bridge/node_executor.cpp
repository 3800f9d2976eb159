#include "ui/bridge/node_executor.h"

#include "core/api/control_plane.h"
#include "ui/bridge/durable_answer.h"

namespace tidepool::ui {

namespace {

std::string actionName(NodeAction action)
{
    switch (action) {
    case NodeAction::Cordon: return "node.cordon";
    case NodeAction::Uncordon: return "node.uncordon";
    case NodeAction::Drain: return "node.drain";
    case NodeAction::Invalid: break;
    }
    return "node.invalid";
}

// Applies the command into `result`; an error's message is the API's.
api::ApiResult<void> apply(
    api::ControlPlane& plane, const NodeCommand& command, const std::string& actor, NodeResult& result)
{
    switch (command.action) {
    case NodeAction::Cordon: return plane.operatorCordon(command.node, command.reason, actor);
    case NodeAction::Uncordon: {
        auto lifted = plane.operatorUncordon(command.node, actor);
        if (!lifted)
            return tl::unexpected(lifted.error());
        result.lifted = std::move(*lifted);
        return {};
    }
    case NodeAction::Drain: {
        auto drained = plane.drain(command.node, command.reason, actor, api::DrainOptions { command.maxParallel, 0 });
        if (!drained)
            return tl::unexpected(drained.error());
        result.moved = drained->moved();
        result.paced = command.maxParallel > 0 || drained->paced; // or held by pools' disruption budgets
        result.waiting = drained->waiting;
        for (const auto& [id, outcome] : drained->moves)
            if (!outcome.moved()) {
                const api::LiveWorkload* w = plane.workload(id);
                result.stayed.push_back(stayedText(w ? w->workload.name : std::string(), id, outcome.message));
            }
        return {};
    }
    case NodeAction::Invalid: break;
    }
    return tl::unexpected(api::ApiError { 400, "no node action given" });
}

} // namespace

std::string stayedText(const std::string& name, std::int64_t id, const std::string& why)
{
    return name + " (workload " + std::to_string(id) + "): " + why;
}

void executeNodeCommand(api::ControlPlane& plane, const NodeCommand& command, const std::string& actor,
    std::function<void(NodeResult)> done)
{
    NodeResult result;
    result.requestId = command.requestId;
    result.action = command.action;
    result.node = command.node;
    if (const std::string readOnly = plane.readOnlyReason(); !readOnly.empty()) {
        result.message = "the core is read-only: its store cannot be written (" + readOnly + ")";
        return done(std::move(result));
    }
    const auto applied = apply(plane, command, actor, result);
    result.ok = applied.has_value();
    if (!result.ok)
        result.message = applied.error().message;
    if (const api::LiveNode* node = plane.nodeByName(command.node))
        result.cordon = node->cordon;

    store::AuditEntry entry;
    entry.atMs = plane.nowMs();
    entry.actor = actor;
    entry.source = "console";
    entry.action = actionName(command.action);
    entry.target = "node " + command.node;
    entry.outcome = result.ok ? "ok" : result.message;
    entry.detail = nlohmann::json { { "cordon", result.cordon } };
    if (command.action == NodeAction::Drain && result.ok) {
        entry.detail["moved"] = result.moved;
        entry.detail["stayed"] = result.stayed.size();
        if (result.paced)
            entry.detail["maxParallel"] = command.maxParallel;
    }
    auditAndAnswerWhenSaved(plane, std::move(entry), std::move(result), std::move(done));
}

} // namespace tidepool::ui
