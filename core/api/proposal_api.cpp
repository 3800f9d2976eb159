#include "core/api/proposal_api.h"

#include "core/api/http_reply.h"
#include "core/model/pool.h"
#include "core/rebalance/whatif.h"
#include "protocol/json_reader.h"

#include <iterator>
#include <limits>
#include <tuple>

namespace tidepool::api {

namespace http = boost::beast::http;
using nlohmann::json;

namespace {

constexpr std::int64_t kDefaultProposalPage = 1000;
constexpr std::int64_t kMaxProposalPage = 10'000;

net::HttpResponse failed(const ApiError& e)
{
    return errorReply(e.status, e.message);
}

} // namespace

net::HttpResponse proposalRoute(Rebalancer* rebalancer, const net::HttpRequest& request,
    const std::vector<std::string>& parts, std::string_view query, const std::string& actor, std::string& auditTarget,
    json& auditDetail)
{
    if (!rebalancer)
        return errorReply(404, "tidepoold evaluates nothing: it was started without a database (--db)");
    const http::verb verb = request.method();
    const std::int64_t now = unixMillis();

    // POST /v1/evaluate itself is answered by the API, asynchronously, and a method a path does not take is a 405
    // before any route (HttpApi::methodNotAllowed): what reaches here under /v1/evaluate is a path below it.
    if (parts[1] == "evaluate")
        return errorReply(404, "no resource at /v1/evaluate" + (parts.size() > 2 ? "/" + clipText(parts[2], 64) : ""));

    if (parts.size() == 2) {
        std::optional<rebalance::ProposalState> state;
        if (const auto text = queryValue(query, "state")) {
            state = rebalance::parseProposalState(*text);
            if (!state)
                return errorReply(400, "query `state` must be pending, approved, rejected, expired, applied or failed");
        }
        std::int64_t limit = kDefaultProposalPage;
        if (const auto text = queryValue(query, "limit")) {
            const auto value = parseInteger(*text);
            if (!value || *value < 1 || *value > kMaxProposalPage)
                return errorReply(400, "query `limit` must be 1 to " + std::to_string(kMaxProposalPage));
            limit = *value;
        }
        std::int64_t before = std::numeric_limits<std::int64_t>::max();
        if (const auto text = queryValue(query, "before")) {
            const auto value = parseInteger(*text);
            if (!value || *value < 1)
                return errorReply(400, "query `before` must be a positive proposal id");
            before = *value;
        }
        json list = json::array();
        const auto& all = rebalancer->proposals();
        bool more = false;
        for (auto it = std::make_reverse_iterator(all.lower_bound(before)); it != all.rend(); ++it) {
            if (state && it->second.state != *state)
                continue;
            if (static_cast<std::int64_t>(list.size()) == limit) {
                more = true;
                break;
            }
            list.push_back(rebalance::toJson(it->second));
        }
        json body { { "proposals", std::move(list) }, { "more", more } };
        if (more)
            body["nextBefore"] = body["proposals"].back()["id"];
        return reply(http::status::ok, body);
    }

    const auto id = parseInteger(parts[2]);
    if (!id || *id <= 0)
        return errorReply(400, "proposal id \"" + clipText(parts[2], 64) + "\" is not a positive integer");
    auditTarget = "proposal " + std::to_string(*id);
    if (parts.size() == 3 && verb == http::verb::get) {
        const rebalance::Proposal* p = rebalancer->proposal(*id);
        if (!p)
            return errorReply(404, rebalancer->whyNoProposal(*id));
        return reply(http::status::ok, rebalance::toJson(*p));
    }
    const bool approve = parts.size() == 4 && verb == http::verb::post && parts[3] == "approve";
    const bool reject = parts.size() == 4 && verb == http::verb::post && parts[3] == "reject";
    if (approve || reject) {
        // The comment: {"comment"} for either, {"reason"} for a rejection (what the API took first).
        std::string comment;
        if (!request.body().empty()) {
            const auto parsed = parseJsonBody(request.body(), 4);
            if (!parsed)
                return errorReply(400, parsed.error());
            for (const auto& [key, value] : parsed->items()) {
                if (key != "comment" && (approve || key != "reason"))
                    return errorReply(400,
                        "field `" + clipText(key, 64) + "` is not known (" + (approve ? "comment" : "comment, reason")
                            + ")");
                if (!value.is_string())
                    return errorReply(400, "field `" + key + "` must be a string");
                if (value.get<std::string>().size() > 1000)
                    return errorReply(400, "field `" + key + "` is longer than 1000 bytes");
                if (!comment.empty() && !value.get<std::string>().empty())
                    return errorReply(400, "give `comment` or `reason`, not both");
                if (comment.empty())
                    comment = value.get<std::string>();
            }
        }
        auditDetail["comment"] = comment;
        auto decided = approve ? rebalancer->approve(*id, actor, now) : rebalancer->reject(*id, actor, comment, now);
        if (!decided)
            return failed(decided.error());
        return reply(http::status::ok, rebalance::toJson(**decided));
    }
    return errorReply(404, "no resource for " + std::string(request.method_string()) + " /v1/proposals/" + parts[2]
            + (parts.size() > 3 ? "/" + parts[3] : std::string()));
}

net::HttpResponse whatIfRoute(const ControlPlane& plane, const net::HttpRequest& request)
{
    rebalance::WhatIfChange change;
    if (!request.body().empty()) {
        auto parsed = parseJsonBody(request.body(), 8);
        if (!parsed)
            return errorReply(400, parsed.error());
        const json body = std::move(*parsed);
        for (const auto& [key, value] : body.items())
            if (key != "profile" && key != "pools" && key != "poolMemory" && key != "poolAccelerators"
                && key != "removeNodes")
                return errorReply(400,
                    "field `" + clipText(key, 64)
                        + "` is not known (profile, pools, poolMemory, poolAccelerators, removeNodes)");
        if (body.contains("profile")) {
            if (!body["profile"].is_string() || body["profile"].get<std::string>().size() > 64)
                return errorReply(400, "field `profile` must be a profile name");
            change.profile = body["profile"].get<std::string>();
        }
        // Each pool's CPU quota (millicores) or memory quota (MiB) to try, at least 1 as a pool's quota is; null for
        // none.
        for (const auto& [field, quotas, unit] : { std::tuple { "pools", &change.poolCpuMillis, "millicores" },
                 std::tuple { "poolMemory", &change.poolMemoryMiB, "MiB" } }) {
            if (!body.contains(field))
                continue;
            if (!body[field].is_object())
                return errorReply(
                    400, "field `" + std::string(field) + "` must map pool names to quotas in " + unit + " (or null)");
            for (const auto& [name, quota] : body[field].items()) {
                if (quota.is_null())
                    (*quotas)[name] = kUnlimited;
                else if (quota.is_number_integer() && quota.get<std::int64_t>() >= 1
                    && quota.get<std::int64_t>() < kUnlimited)
                    (*quotas)[name] = quota.get<std::int64_t>();
                else
                    return errorReply(400,
                        "field `" + std::string(field) + "." + clipText(name, 64) + "` must be a whole number of "
                            + unit + ", at least 1, or null");
            }
        }
        // Each pool's accelerator quotas to try, by kind in share units: {"ml": {"gpu": 2000, "fpga": null}}.
        if (body.contains("poolAccelerators")) {
            if (!body["poolAccelerators"].is_object())
                return errorReply(400,
                    "field `poolAccelerators` must map pool names to objects of quotas by kind (gpu, npu, fpga) in "
                    "share units");
            for (const auto& [name, quotas] : body["poolAccelerators"].items()) {
                const std::string path = "poolAccelerators." + clipText(name, 64);
                if (!quotas.is_object())
                    return errorReply(400, "field `" + path + "` must map kinds (gpu, npu, fpga) to share units");
                for (const auto& [kindName, quota] : quotas.items()) {
                    const auto kind = parseAcceleratorKind(kindName);
                    if (!kind || *kind == AcceleratorKind::None)
                        return errorReply(400,
                            "field `" + path + "." + clipText(kindName, 16)
                                + "` is not an accelerator kind (gpu, npu, "
                                  "fpga)");
                    if (quota.is_null())
                        change.poolAcceleratorShare[{ name, *kind }] = kUnlimited;
                    else if (quota.is_number_integer() && quota.get<std::int64_t>() >= 0
                        && quota.get<std::int64_t>() < kUnlimited)
                        change.poolAcceleratorShare[{ name, *kind }] = quota.get<std::int64_t>();
                    else
                        return errorReply(
                            400, "field `" + path + "." + kindName + "` must be a whole number of share units or null");
                }
            }
        }
        if (body.contains("removeNodes")) {
            if (!body["removeNodes"].is_array())
                return errorReply(400, "field `removeNodes` must be an array of node names");
            for (std::size_t i = 0; i < body["removeNodes"].size(); ++i) {
                if (!body["removeNodes"][i].is_string())
                    return errorReply(400, "field `removeNodes[" + std::to_string(i) + "]` must be a node name");
                change.removeNodes.push_back(body["removeNodes"][i].get<std::string>());
            }
        }
    }
    std::vector<WorkloadId> workloads;
    for (const auto& [id, w] : plane.workloads())
        if (w.phase == WorkloadPhase::Pending || w.phase == WorkloadPhase::Launching || w.phase == WorkloadPhase::Running)
            workloads.push_back(id);
    auto result = rebalance::whatIf(plane.cluster(), plane.registry(), plane.config().profile, workloads, change);
    if (!result)
        return errorReply(result.error().code == ErrorCode::NotFound || result.error().code == ErrorCode::InvalidArgument ? 400 : 500,
            result.error().message);
    return reply(http::status::ok, rebalance::toJson(*result));
}

} // namespace tidepool::api
