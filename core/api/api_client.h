#pragma once
// A small synchronous client of tidepoold's HTTP/JSON API (see core/api/http_api.h), for `tidepoolctl` and the tests:
// one keep-alive HTTP/1.1 connection, opened on the first request and reused, with one time limit per request
// (resolve, connect, write and read together). It returns the status and the body of any response, 2xx or not;
// only a failure to get a response is an error, and its message names host:port and what failed. The operator
// token travels in the `Authorization` header only and never appears in an error.
//
// Thread affinity: none of its own; one thread at a time. It runs a private io_context inside each call.

#include "core/model/types.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace tidepool::api {

enum class HttpMethod : std::uint8_t { Invalid = 0, Get, Post, Put, Delete };

struct ApiResponse {
    int status = 0;
    std::string body;
};

class ApiClient {
public:
    ApiClient(std::string host, std::uint16_t port, std::string token,
        std::chrono::milliseconds timeout = std::chrono::seconds(10));
    ~ApiClient();
    ApiClient(const ApiClient&) = delete;
    ApiClient& operator=(const ApiClient&) = delete;

    // Sends one request (a JSON `body` when not empty) and reads the whole response. When a reused keep-alive
    // connection turns out to be closed, an idempotent request (everything but POST) is sent once more on a new one.
    Expected<ApiResponse> request(HttpMethod method, std::string_view target, const std::string& body = {});

    // "host:port" (with brackets around an IPv6 address), as errors name the server.
    std::string address() const;

private:
    struct Connection;
    Expected<ApiResponse> exchange(HttpMethod method, std::string_view target, const std::string& body, bool& reused);

    std::string m_host;
    std::uint16_t m_port;
    std::string m_token;
    std::chrono::milliseconds m_timeout;
    std::unique_ptr<Connection> m_connection; // null until the first request and after a failure
};

} // namespace tidepool::api
