#include "ui/bridge/pool_executor.h"

#include "core/api/control_plane.h"
#include "core/api/http_api.h"
#include "ui/bridge/durable_answer.h"

namespace tidepool::ui {

namespace {

std::string actionName(PoolAction action)
{
    switch (action) {
    case PoolAction::Create: return "pool.create";
    case PoolAction::Update: return "pool.update";
    case PoolAction::Delete: return "pool.delete";
    case PoolAction::Invalid: break;
    }
    return "pool.invalid";
}

// Applies the command; the audit entry's detail is filled in on the way. An error's message is the API's.
api::ApiResult<void> apply(api::ControlPlane& plane, const PoolCommand& command, nlohmann::json& detail)
{
    switch (command.action) {
    case PoolAction::Create: {
        auto request = api::parsePoolRequest(command.body, std::nullopt);
        if (!request)
            return tl::unexpected(request.error());
        if (request->name != command.name)
            return tl::unexpected(api::ApiError { 400,
                "field `name` is \"" + request->name + "\", but the command creates pool \"" + command.name + "\"" });
        auto created = plane.createPool(*request);
        if (!created)
            return tl::unexpected(created.error());
        detail["settings"] = api::poolSettings(plane, *created);
        return {};
    }
    case PoolAction::Update: {
        const auto existing = plane.poolByName(command.name);
        if (!existing)
            return tl::unexpected(api::ApiError { 404, "no pool is named \"" + command.name + "\"" });
        auto request = api::parsePoolRequest(command.body, plane.poolRequestOf(*existing));
        if (!request)
            return tl::unexpected(request.error());
        const nlohmann::json before = api::poolSettings(plane, *existing);
        if (auto updated = plane.updatePool(command.name, *request); !updated)
            return updated;
        detail["changed"] = api::settingsChanged(before, api::poolSettings(plane, *existing));
        return {};
    }
    case PoolAction::Delete: {
        const auto existing = plane.poolByName(command.name);
        if (!existing)
            return tl::unexpected(api::ApiError { 404, "no pool is named \"" + command.name + "\"" });
        // The settings it had, so that it can be made again as it was.
        const nlohmann::json settings = api::poolSettings(plane, *existing);
        if (auto deleted = plane.deletePool(command.name); !deleted)
            return deleted;
        detail["settings"] = settings;
        return {};
    }
    case PoolAction::Invalid: break;
    }
    return tl::unexpected(api::ApiError { 400, "no pool action given" });
}

} // namespace

void executePoolCommand(api::ControlPlane& plane, const PoolCommand& command, const std::string& actor,
    std::function<void(PoolResult)> done)
{
    PoolResult result { command.requestId, command.action, command.name, false, {} };
    nlohmann::json detail = nlohmann::json::object();
    if (const std::string readOnly = plane.readOnlyReason(); !readOnly.empty()) {
        result.message = "the core is read-only: its store cannot be written (" + readOnly + ")";
        return done(std::move(result));
    }
    const auto applied = apply(plane, command, detail);
    result.ok = applied.has_value();
    if (!result.ok)
        result.message = applied.error().message;

    store::AuditEntry entry;
    entry.atMs = plane.nowMs();
    entry.actor = actor;
    entry.source = "console";
    entry.action = actionName(command.action);
    entry.target = "pool " + command.name;
    entry.outcome = result.ok ? "ok" : result.message;
    entry.detail = std::move(detail);
    auditAndAnswerWhenSaved(plane, std::move(entry), std::move(result), std::move(done));
}

} // namespace tidepool::ui
