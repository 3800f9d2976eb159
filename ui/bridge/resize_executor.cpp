#include "ui/bridge/resize_executor.h"

#include "core/api/control_plane.h"
#include "ui/bridge/durable_answer.h"

namespace tidepool::ui {

void executeResize(api::ControlPlane& plane, const ResizeCommand& command, const std::string& actor,
    std::function<void(ResizeResult)> done)
{
    ResizeResult result = stoppedResult(command, {});
    if (const std::string readOnly = plane.readOnlyReason(); !readOnly.empty()) {
        result.message = "the core is read-only: its store cannot be written (" + readOnly + ")";
        return done(std::move(result));
    }
    api::ResizeRequest request;
    request.cpuMillis = command.cpuMillis;
    request.memoryMiB = command.memoryMiB;
    request.cpuLimitMillis = command.cpuLimitMillis;
    request.memoryLimitMiB = command.memoryLimitMiB;
    const auto resized = plane.resize(command.workloadId, request, actor);
    result.ok = resized.has_value();
    if (resized) {
        result.message = resized->message;
        result.node = resized->node;
        result.sentToAgent = resized->sentToAgent;
    } else {
        result.message = resized.error().message;
    }
    store::AuditEntry entry;
    entry.atMs = plane.nowMs();
    entry.actor = actor;
    entry.source = "console";
    entry.action = "workload.resize";
    entry.target = "workload " + std::to_string(command.workloadId);
    entry.outcome = result.ok ? "ok" : result.message;
    entry.detail = nlohmann::json { { "cpuMillis", command.cpuMillis }, { "memoryMiB", command.memoryMiB },
        { "cpuLimitMillis", command.cpuLimitMillis }, { "memoryLimitMiB", command.memoryLimitMiB } };
    auditAndAnswerWhenSaved(plane, std::move(entry), std::move(result), std::move(done));
}

} // namespace tidepool::ui
