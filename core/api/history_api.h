#pragma once
// The API's read-only history routes, answered from the store:
//   GET /v1/series                        every series the store holds
//   GET /v1/history?scope=S&name=N&resource=R[&from=MS&to=MS&resolution=raw|5m]
//                                         points of one series (default: the last 24 hours, raw)
//   GET /v1/audit[?from=MS&to=MS&after=ID&limit=K]
//                                         the audit log, oldest first, at most K (default 1000, at most 10,000);
//                                         each entry with its `role`, `stage` and `request` (needs the operator role)
// Without a store (no --db) they answer 404 saying so.
//
// Thread affinity: the core's io_context thread (the store is not synchronised).

#include "core/net/http_server.h"
#include "core/store/store.h"

#include <string>
#include <string_view>
#include <vector>

namespace tidepool::api {

net::HttpResponse historyRoute(store::Store* store, const std::vector<std::string>& parts, std::string_view query);

} // namespace tidepool::api
