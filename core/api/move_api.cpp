#include "core/api/move_api.h"

#include "core/api/http_reply.h"
#include "protocol/json_reader.h"

#include <algorithm>

namespace tidepool::api {

namespace http = boost::beast::http;
using nlohmann::json;
using protocol::detail::Alphabet;
using protocol::detail::JsonReader;

namespace {

constexpr std::size_t kMaxNodeNameBytes = 253; // what a node may be called (protocol::Hello)
constexpr std::size_t kMaxPoolNameBytes = 64; // what a pool may be called (POST /v1/pools)

std::string tierName(Tier tier)
{
    return tier == Tier::Invalid ? std::string() : std::string(toString(tier));
}

} // namespace

std::vector<RejectionCount> rejectionsByCount(const FilterReport& report)
{
    std::vector<RejectionCount> counts;
    for (std::size_t i = 1; i < kRejectReasonCount; ++i)
        if (const std::int32_t nodes = report.rejected[i]; nodes > 0)
            counts.push_back(RejectionCount { static_cast<RejectReason>(i), nodes });
    std::stable_sort(counts.begin(), counts.end(),
        [](const RejectionCount& a, const RejectionCount& b) { return a.nodes > b.nodes; });
    return counts;
}

ApiResult<MoveTarget> parseMoveTarget(const json& body)
{
    std::optional<protocol::Error> readError;
    JsonReader r(body, "", readError);
    MoveTarget target;
    if (r.has("node"))
        target.node = r.string("node", Alphabet::Name, kMaxNodeNameBytes);
    if (r.has("tier")) {
        const std::string tier = r.string("tier", Alphabet::Name, 16);
        if (r.ok()) {
            if (const auto parsed = parseTier(tier))
                target.tier = *parsed;
            else
                r.fail(protocol::ErrorCode::OutOfRange, "tier", "field `tier` must be hot, warm or cold");
        }
    }
    if (r.has("pool"))
        target.pool = r.string("pool", Alphabet::Name, kMaxPoolNameBytes);
    r.rejectUnknownFields();
    if (r.ok() && target.node.empty() && target.tier == Tier::Invalid && target.pool.empty())
        r.fail(protocol::ErrorCode::OutOfRange, "node",
            "the body must name where to move the workload: a `node`, a `tier` or a `pool`");
    return checkedRead(readError, std::move(target));
}

int moveStatus(MoveRefusal refusal)
{
    switch (refusal) {
    case MoveRefusal::None: return 200;
    case MoveRefusal::NoWorkload:
    case MoveRefusal::NoTarget: return 404;
    case MoveRefusal::ReadOnly: return 503;
    case MoveRefusal::NotMovable:
    case MoveRefusal::AlreadyThere:
    case MoveRefusal::PoolTier:
    case MoveRefusal::PoolQuota:
    case MoveRefusal::NoFeasibleNode: break;
    }
    return 409;
}

json moveOutcomeJson(const ControlPlane& plane, WorkloadId id, const MoveOutcome& outcome)
{
    const LiveWorkload* w = plane.workload(id);
    if (outcome.moved())
        return json { { "moved", true }, { "workload", id }, { "name", w ? w->workload.name : std::string() },
            { "node", outcome.node }, { "tier", tierName(outcome.tier) }, { "pool", outcome.pool },
            { "message", outcome.message } };
    json reasons = json::array();
    for (const RejectionCount& r : rejectionsByCount(outcome.report))
        reasons.push_back(json { { "reason", std::string(toString(r.reason)) }, { "nodes", r.nodes } });
    return json { { "error", outcome.message }, { "refusal", std::string(toString(outcome.refusal)) },
        { "workload", id }, { "name", w ? w->workload.name : std::string() }, { "node", outcome.node },
        { "tier", tierName(outcome.tier) }, { "pool", outcome.pool }, { "poolTier", tierName(outcome.poolTier) },
        { "nodesConsidered", outcome.report.nodesConsidered }, { "reasons", std::move(reasons) } };
}

net::HttpResponse moveRoute(ControlPlane& plane, const net::HttpRequest& request, const std::vector<std::string>& parts,
    const std::string& actor, std::string& auditTarget, json& auditDetail)
{
    const auto id = parseInteger(parts[2]);
    if (!id || *id <= 0)
        return errorReply(400, "workload id \"" + clipText(parts[2], 64) + "\" is not a positive integer");
    auditTarget = "workload " + std::to_string(*id);
    const auto body = parseJsonBody(request.body(), 4, R"({"node", "tier", "pool"})");
    if (!body)
        return errorReply(400, body.error());
    auto target = parseMoveTarget(*body);
    if (!target)
        return errorReply(target.error().status, target.error().message);

    const MoveOutcome outcome = plane.move(*id, *target, actor);
    auditDetail["node"] = outcome.node;
    auditDetail["tier"] = tierName(outcome.tier);
    auditDetail["pool"] = outcome.pool;
    if (!outcome.moved())
        auditDetail["refusal"] = std::string(toString(outcome.refusal));
    return reply(static_cast<http::status>(moveStatus(outcome.refusal)), moveOutcomeJson(plane, *id, outcome));
}

ApiResult<ResizeRequest> parseResizeRequest(const json& body)
{
    std::optional<protocol::Error> readError;
    JsonReader r(body, "", readError);
    ResizeRequest request;
    const auto read = [&](const char* key, std::int64_t max, bool nullable, std::optional<std::int64_t>& into) {
        const auto field = body.find(key);
        if (field == body.end())
            return;
        if (nullable && field->is_null()) {
            r.skip(key);
            into = 0;
            return;
        }
        into = r.integer(key, 0, max);
    };
    read("cpuMillis", protocol::kMaxCpuMillis, false, request.cpuMillis);
    read("memoryMiB", protocol::kMaxMemoryMiB, false, request.memoryMiB);
    read("cpuLimitMillis", protocol::kMaxCpuMillis, true, request.cpuLimitMillis);
    read("memoryLimitMiB", protocol::kMaxMemoryMiB, true, request.memoryLimitMiB);
    r.rejectUnknownFields();
    if (r.ok() && request.empty())
        r.fail(protocol::ErrorCode::OutOfRange, "cpuMillis",
            "the body must say what to change: `cpuMillis`, `memoryMiB`, `cpuLimitMillis` or `memoryLimitMiB`");
    return checkedRead(readError, std::move(request));
}

net::HttpResponse resizeRoute(ControlPlane& plane, const net::HttpRequest& request,
    const std::vector<std::string>& parts, const std::string& actor, std::string& auditTarget, json& auditDetail)
{
    const auto id = parseInteger(parts[2]);
    if (!id || *id <= 0)
        return errorReply(400, "workload id \"" + clipText(parts[2], 64) + "\" is not a positive integer");
    auditTarget = "workload " + std::to_string(*id);
    const auto body
        = parseJsonBody(request.body(), 4, R"({"cpuMillis", "memoryMiB", "cpuLimitMillis", "memoryLimitMiB"})");
    if (!body)
        return errorReply(400, body.error());
    auto asked = parseResizeRequest(*body);
    if (!asked)
        return errorReply(asked.error().status, asked.error().message);
    auditDetail = *body;
    auto outcome = plane.resize(*id, *asked, actor);
    if (!outcome)
        return errorReply(outcome.error().status, outcome.error().message);
    const LiveWorkload* w = plane.workload(*id);
    json j { { "resized", outcome->changed }, { "workload", *id }, { "node", outcome->node },
        { "sentToAgent", outcome->sentToAgent }, { "message", outcome->message } };
    if (w) {
        j["cpuMillis"] = w->workload.requests.cpuMillis;
        j["memoryMiB"] = w->workload.requests.memoryMiB;
        j["cpuLimitMillis"] = w->cpuLimitMillis;
        j["memoryLimitMiB"] = w->memoryLimitMiB;
    }
    return reply(http::status::ok, j);
}

} // namespace tidepool::api
