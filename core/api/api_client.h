#pragma once
// A small synchronous client of tidepoold's HTTP/JSON API (see core/api/http_api.h), for `tidepoolctl` and the tests:
// one keep-alive HTTP/1.1 connection, opened on the first request and reused, with one time limit per request
// (resolve, connect, write and read together). It returns the status and the body of any response, 2xx or not;
// only a failure to get a response is an error, and its message names host:port and what failed. The operator
// token travels in the `Authorization` header only and never appears in an error.
//
// HTTPS (`useTls`): the daemon's certificate must chain to the CA file given (or, without one, to the system's trust
// store) and name the host dialled (a DNS name or an IP address); a failed handshake is an error naming the URL and
// OpenSSL's reason ("certificate verify failed: hostname mismatch").
//
// Thread affinity: none of its own; one thread at a time, except `cancel`, which any other thread may call meanwhile.
// It runs a private io_context inside each call.

#include "core/model/types.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace boost::asio {
class io_context;
namespace ssl {
class context;
} // namespace ssl
} // namespace boost::asio

namespace tidepool::api {

enum class HttpMethod : std::uint8_t { Invalid = 0, Get, Post, Put, Delete };

struct ApiResponse {
    int status = 0;
    std::string body;
};

// Where the API is: "HOST:PORT", "http://HOST:PORT" or "https://HOST:PORT" (a trailing "/" allowed; "[v6]" hosts).
struct ApiUrl {
    std::string host;
    std::uint16_t port = 0;
    bool tls = false;
};
// Fails naming the text and what is wrong with it. Without a port, `defaultPort` (0: a port is required).
Expected<ApiUrl> parseApiUrl(const std::string& text, std::uint16_t defaultPort = 0);

class ApiClient {
public:
    ApiClient(std::string host, std::uint16_t port, std::string token,
        std::chrono::milliseconds timeout = std::chrono::seconds(10));
    ~ApiClient();
    ApiClient(const ApiClient&) = delete;
    ApiClient& operator=(const ApiClient&) = delete;

    // Speaks HTTPS from the next connection on, verifying the daemon against the PEM `caFile` (empty: the system's
    // trust store). Fails naming the file when it cannot be used.
    Expected<void> useTls(const std::string& caFile);
    bool tls() const { return m_tls != nullptr; }

    // Sends one request (a JSON `body` when not empty) and reads the whole response. When a reused keep-alive
    // connection turns out to be closed, an idempotent request (everything but POST) is sent once more on a new one.
    Expected<ApiResponse> request(HttpMethod method, std::string_view target, const std::string& body = {});

    // From any thread: the request in flight, if any, ends at once (a long poll its owner no longer waits for), and so
    // does every later one, each an error saying it was cancelled. For an owner that is stopping.
    void cancel();

    // "host:port" (with brackets around an IPv6 address), as errors name the server.
    std::string address() const;
    // "http://host:port" or "https://host:port".
    std::string url() const;

private:
    struct Connection;
    Expected<ApiResponse> exchange(HttpMethod method, std::string_view target, const std::string& body, bool& reused);
    // On the calling thread, inside a call's run of `m_io`: closes the connections open or being opened.
    void closeStreams();

    std::string m_host;
    std::uint16_t m_port;
    std::string m_token;
    std::chrono::milliseconds m_timeout;
    std::shared_ptr<boost::asio::ssl::context> m_tls; // HTTPS when set
    std::string m_caFile;
    std::unique_ptr<boost::asio::io_context> m_io; // every connection's, run inside each call
    std::unique_ptr<Connection> m_connection; // null until the first request and after a failure
    Connection* m_opening = nullptr; // the connection being opened, while it is
    std::atomic<bool> m_cancelled { false };
};

} // namespace tidepool::api
