#pragma once
// The API's report route, answered from the store and the live cluster (core/report):
//   GET /v1/report[?from=T&to=T&scope=cluster|business-line|pool|tier&name=N&language=en|zh_CN]
// `from` and `to` are Unix epoch milliseconds, `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM[:SS]Z` (UTC); without them, the last
// 24 hours. Answers the `ReportData` JSON (core/report/report_json.h). A bad period, scope or language is a 400 naming
// the field; an unknown business line, pool or tier a 404 naming the known ones; no store (no --db) a 404 saying so.
// Viewer role (access.h: every GET but /v1/audit).
//
// Thread affinity: the core's io_context thread. The report is built there, forecast backtests included (at most 12
// pools, 14 days of 5-minute history each): a large report holds the core for as long as that takes.

#include "core/api/control_plane.h"
#include "core/api/rebalancer.h"
#include "core/net/http_server.h"
#include "core/report/report.h"

#include <string_view>

namespace tidepool::api {

net::HttpResponse reportRoute(const ControlPlane& plane, const Rebalancer* rebalancer,
    const report::ReportSettings& settings, std::string_view query);

} // namespace tidepool::api
