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

// The optional reason of a cordon or a drain; an empty body is none.
ApiResult<std::string> parseReason(std::string_view body, bool takesReason)
{
    if (body.find_first_not_of(" \t\r\n") == std::string_view::npos)
        return std::string();
    const auto parsed = parseJsonBody(body, 2, takesReason ? R"({"reason": TEXT})" : "{}");
    if (!parsed)
        return tl::unexpected(ApiError { 400, parsed.error() });
    std::optional<protocol::Error> readError;
    JsonReader r(*parsed, "", readError);
    std::string reason;
    if (takesReason && r.has("reason"))
        reason = r.string("reason", Alphabet::Text, kMaxCordonReasonBytes);
    r.rejectUnknownFields();
    return checkedRead(readError, std::move(reason));
}

json nodeJson(const ControlPlane& plane, const std::string& name)
{
    const LiveNode* node = plane.nodeByName(name);
    return json { { "node", name }, { "state", node ? std::string(toString(node->state)) : std::string() },
        { "cordon", node ? node->cordon : std::string() } };
}

} // namespace

net::HttpResponse nodeOperationRoute(ControlPlane& plane, const net::HttpRequest& request,
    const std::vector<std::string>& parts, const std::string& actor, std::string& auditTarget, json& auditDetail)
{
    const std::string& name = parts[2];
    const std::string& operation = parts[3];
    auditTarget = "node " + clipText(name, 253);
    const auto reason = parseReason(request.body(), operation != "uncordon");
    if (!reason)
        return errorReply(reason.error().status, reason.error().message);
    if (operation == "cordon") {
        if (auto done = plane.operatorCordon(name, *reason, actor); !done)
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
    auto drained = plane.drain(name, *reason, actor);
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
    return reply(http::status::ok, body);
}

} // namespace tidepool::api
