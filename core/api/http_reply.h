#pragma once
// JSON replies and request-target parsing shared by the API's route files.
//
// Thread affinity: none; pure functions.

#include "core/net/http_server.h"

#include <nlohmann/json.hpp>
#include <tl/expected.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::api {

net::HttpResponse reply(boost::beast::http::status status, const nlohmann::json& body);
// {"error": message} with `status`.
net::HttpResponse errorReply(int status, const std::string& message);
// "/v1/workloads/12/why?x=y" → path segments {"v1","workloads","12","why"}; `query` is set to "x=y".
std::vector<std::string> splitPath(std::string_view target, std::string_view& query);
// The value of `key` in a query string, percent-decoded ('+' is a space); nullopt when absent.
std::optional<std::string> queryValue(std::string_view query, std::string_view key);
// A whole decimal integer, or nullopt.
std::optional<std::int64_t> parseInteger(std::string_view text);
// A request's JSON body: nested at most `maxDepth` deep, valid JSON, an object, and no key twice in one object
// (nlohmann would keep the last, silently); otherwise the message of a 400 naming what was wrong. `shape` ends the
// message for a body that is not an object ("{\"node\", \"tier\", \"pool\"}").
tl::expected<nlohmann::json, std::string> parseJsonBody(
    std::string_view body, int maxDepth, std::string_view shape = {});

} // namespace tidepool::api
