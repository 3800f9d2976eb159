#include "core/api/node_api.h"

#include "core/api/http_reply.h"
#include "core/api/move_api.h"
#include "protocol/json_reader.h"

namespace tidepool::api {

namespace http = boost::beast::http;
using nlohmann::json;
using protocol::detail::Alphabet;
using protocol::detail::JsonReader;

namespace {

struct NodeOperationBody {
    std::string reason;
    DrainOptions drain;
};

// The optional reason of a cordon or a drain, and a drain's pace; an empty body is none.
ApiResult<NodeOperationBody> parseBody(std::string_view body, const std::string& operation)
{
    NodeOperationBody out;
    if (body.find_first_not_of(" \t\r\n") == std::string_view::npos)
        return out;
    const bool takesReason = operation != "uncordon";
    const bool drains = operation == "drain";
    const auto parsed = parseJsonBody(body, 2,
        drains            ? R"({"reason": TEXT, "maxParallel": N, "deadlineMs": MS})"
            : takesReason ? R"({"reason": TEXT})"
                          : "{}");
    if (!parsed)
        return tl::unexpected(ApiError { 400, parsed.error() });
    std::optional<protocol::Error> readError;
    JsonReader r(*parsed, "", readError);
    if (takesReason && r.has("reason"))
        out.reason = r.string("reason", Alphabet::Text, kMaxCordonReasonBytes);
    if (drains && r.has("maxParallel"))
        out.drain.maxParallel = static_cast<std::int32_t>(r.integer("maxParallel", 0, kMaxDrainParallel));
    if (drains && r.has("deadlineMs"))
        out.drain.deadlineMs = r.integer("deadlineMs", 1000, kMaxDrainDeadlineMs);
    r.rejectUnknownFields();
    return checkedRead(readError, std::move(out));
}

json nodeJson(const ControlPlane& plane, const std::string& name)
{
    const LiveNode* node = plane.nodeByName(name);
    return json { { "node", name }, { "state", node ? std::string(toString(node->state)) : std::string() },
        { "cordon", node ? node->cordon : std::string() } };
}

} // namespace

json drainJson(const NodeDrain& drain)
{
    return json { { "maxParallel", drain.maxParallel }, { "startedMs", drain.startedMs },
        { "deadlineMs", drain.deadlineAtMs }, { "actor", drain.actor }, { "moving", drain.moving.size() },
        { "moved", drain.moved }, { "evicted", drain.evicted }, { "blocked", drain.blocked },
        { "blockedReason", drain.blockedReason } };
}

net::HttpResponse nodeOperationRoute(ControlPlane& plane, const net::HttpRequest& request,
    const std::vector<std::string>& parts, const std::string& actor, std::string& auditTarget, json& auditDetail)
{
    const std::string& name = parts[2];
    const std::string& operation = parts[3];
    auditTarget = "node " + clipText(name, 253);
    const auto parsed = parseBody(request.body(), operation);
    if (!parsed)
        return errorReply(parsed.error().status, parsed.error().message);
    const std::string& reason = parsed->reason;
    if (operation == "cordon") {
        if (auto done = plane.operatorCordon(name, reason, actor); !done)
            return errorReply(done.error().status, done.error().message);
        json body = nodeJson(plane, name);
        auditDetail["cordon"] = body["cordon"];
        return reply(http::status::ok, body);
    }
    if (operation == "uncordon") {
        auto lifted = plane.operatorUncordon(name, actor);
        if (!lifted)
            return errorReply(lifted.error().status, lifted.error().message);
        json body = nodeJson(plane, name);
        body["lifted"] = *lifted;
        auditDetail["lifted"] = *lifted;
        return reply(http::status::ok, body);
    }
    auto drained = plane.drain(name, reason, actor, parsed->drain);
    if (!drained)
        return errorReply(drained.error().status, drained.error().message);
    json body = nodeJson(plane, name);
    json workloads = json::array();
    for (const auto& [id, outcome] : drained->moves)
        workloads.push_back(moveOutcomeJson(plane, id, outcome));
    body["moved"] = drained->moved();
    body["stayed"] = drained->moves.size() - drained->moved();
    body["workloads"] = std::move(workloads);
    auditDetail["cordon"] = body["cordon"];
    auditDetail["moved"] = body["moved"];
    auditDetail["stayed"] = body["stayed"];
    if (parsed->drain.maxParallel > 0 || drained->paced) {
        // Paced (or all at once and held by pools' disruption budgets): "workloads" are the moves of its start; the
        // rest follow.
        body["waiting"] = drained->waiting;
        if (parsed->drain.maxParallel > 0) {
            auditDetail["maxParallel"] = parsed->drain.maxParallel;
            auditDetail["deadlineMs"] = parsed->drain.deadlineMs;
        }
        if (drained->paced)
            body["drain"] = drainJson(*drained->paced);
    }
    return reply(http::status::ok, body);
}

} // namespace tidepool::api
