#pragma once
// Roles and what each may call. Every /v1 request is checked against `requiredRole` in the core (`HttpApi::handle`),
// whatever client sent it; the console and tidepoolctl only show what the core decides. A role includes the ones
// below it: admin ⊃ operator ⊃ viewer.
//
// | method | path                              | role     | why                                                  |
// | ------ | --------------------------------- | -------- | ---------------------------------------------------- |
// | GET    | /healthz, /metrics                | none     | probes and Prometheus scrape without a token         |
// | GET    | /v1/summary, /v1/workloads[/{id}[/why]], /v1/nodes[/{name}], /v1/pools, /v1/series, /v1/history,   |
// |        | /v1/proposals[/{id}], /v1/report  | viewer   | dashboards and business systems read the cluster     |
// | GET    | /v1/whoami                        | viewer   | a client learns its token's name and role            |
// | GET    | /v1/audit                         | operator | it names people and the addresses they came from     |
// | POST   | /v1/workloads                     | operator | submitting work is the daily job                      |
// | DELETE | /v1/workloads/{id}                | operator | cancelling it too                                     |
// | POST   | /v1/workloads/{id}/move           | operator | moving it to a node, tier or pool (the scheduler and  |
// |        |                                   |          | the target pool's quota still decide)                |
// | POST   | /v1/workloads/{id}/resize         | operator | right-sizing it (its node's room and its pool's      |
// |        |                                   |          | quota still decide)                                  |
// | POST   | /v1/proposals/{id}/approve|reject | operator | deciding what the rebalancer proposes                 |
// | POST   | /v1/evaluate                      | operator | an evaluation now, instead of at the next period      |
// | POST   | /v1/whatif                        | operator | changes nothing but re-simulates the whole cluster    |
// | POST   | /v1/pools, PUT /v1/pools/{name}   | admin    | quotas and tiers decide who gets the cluster          |
// | DELETE | /v1/pools/{name}                  | admin    | as does which pools there are                         |
// | other  | any path not above                | admin    | fail closed: a new change route is admin-only until   |
// |        |                                   |          | it is given a row here                               |
//
// Any other GET or HEAD under /v1 needs viewer (it answers 404). Cordoning nodes and token administration have no
// API routes yet (a route added without a row here is the admin's); tokens are managed on the daemon's host
// (`tidepoold token ...`, see operator_tokens.h).
//
// Thread affinity: none; pure functions.

#include <ostream> // boost/beast/http/verb.hpp streams a verb without including it

#include <boost/beast/http/verb.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::api {

// Ordered: a larger role may do everything a smaller one may.
enum class Role : std::uint8_t { Invalid = 0, Viewer, Operator, Admin };

std::string_view toString(Role role);
std::optional<Role> parseRole(std::string_view text);

// The least role that may call `verb` on `parts` (the path's segments, starting with "v1").
Role requiredRole(boost::beast::http::verb verb, const std::vector<std::string>& parts);

// The methods the routes above take on `parts` (the path's segments: "healthz", "metrics" or starting with "v1"), in
// the order an `Allow` header lists them; empty when no route has this path (a 404). A GET route takes HEAD too (the
// server answers it as GET). Read routes added with `HttpApi::addReadRoute` are not in it (the API knows them).
std::vector<boost::beast::http::verb> allowedMethods(const std::vector<std::string>& parts);
// "GET, HEAD, POST": what an `Allow` header says.
std::string allowHeader(const std::vector<boost::beast::http::verb>& methods);

} // namespace tidepool::api
