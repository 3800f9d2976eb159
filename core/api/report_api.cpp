#include "core/api/report_api.h"

#include "core/api/http_reply.h"
#include "core/report/report_facts.h"
#include "core/report/report_json.h"

namespace tidepool::api {

net::HttpResponse reportRoute(const ControlPlane& plane, const Rebalancer* rebalancer,
    const report::ReportSettings& settings, std::string_view query)
{
    const std::int64_t now = plane.nowMs();
    const std::string from = queryValue(query, "from").value_or(std::to_string(now - 86'400'000LL));
    const std::string to = queryValue(query, "to").value_or(std::to_string(now));
    const auto request = report::makeReportRequest(from, to, queryValue(query, "scope").value_or("cluster"),
        queryValue(query, "name").value_or(""), queryValue(query, "language").value_or("en"));
    if (!request)
        return errorReply(400, request.error().message);
    const auto data = report::buildLiveReport(*request, plane, rebalancer, settings);
    if (!data) {
        const ErrorCode code = data.error().code;
        return errorReply(code == ErrorCode::NotFound ? 404
                : code == ErrorCode::IoError          ? 503
                                                      : 400,
            data.error().message);
    }
    return reply(boost::beast::http::status::ok, report::toJson(*data));
}

} // namespace tidepool::api
