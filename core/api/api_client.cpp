#include "core/api/api_client.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>

namespace tidepool::api {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;
using SteadyClock = std::chrono::steady_clock;

namespace {

// A list of every workload the daemon keeps is large, but not this large.
constexpr std::uint64_t kMaxResponseBytes = std::uint64_t { 1 } << 30;

http::verb verbOf(HttpMethod method)
{
    switch (method) {
    case HttpMethod::Get: return http::verb::get;
    case HttpMethod::Post: return http::verb::post;
    case HttpMethod::Put: return http::verb::put;
    case HttpMethod::Delete: return http::verb::delete_;
    case HttpMethod::Invalid: break;
    }
    return http::verb::unknown;
}

// What a peer's closing of an idle keep-alive connection looks like to the next request on it.
bool closedByPeer(const beast::error_code& ec)
{
    return ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset
        || ec == asio::error::broken_pipe || ec == http::error::partial_message;
}

// Runs the context until its handlers are done; every operation started on it carries its own deadline.
void runToCompletion(asio::io_context& io)
{
    io.restart();
    io.run();
}

} // namespace

struct ApiClient::Connection {
    asio::io_context io { 1 };
    beast::tcp_stream stream { io };
    beast::flat_buffer buffer;
};

ApiClient::ApiClient(std::string host, std::uint16_t port, std::string token, std::chrono::milliseconds timeout)
    : m_host(std::move(host))
    , m_port(port)
    , m_token(std::move(token))
    , m_timeout(timeout)
{
}

ApiClient::~ApiClient() = default;

std::string ApiClient::address() const
{
    const bool v6 = m_host.find(':') != std::string::npos;
    return (v6 ? "[" + m_host + "]" : m_host) + ":" + std::to_string(m_port);
}

Expected<ApiResponse> ApiClient::request(HttpMethod method, std::string_view target, const std::string& body)
{
    if (verbOf(method) == http::verb::unknown)
        return makeError(ErrorCode::InvalidArgument, "no HTTP method given for " + std::string(target));
    // A control character would end the header early and let the rest be read as another header.
    if (std::any_of(m_token.begin(), m_token.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
        return makeError(ErrorCode::InvalidArgument, "the operator token holds control characters");
    bool reused = false;
    auto response = exchange(method, target, body, reused);
    if (!response && reused && method != HttpMethod::Post)
        response = exchange(method, target, body, reused);
    return response;
}

Expected<ApiResponse> ApiClient::exchange(
    HttpMethod method, std::string_view target, const std::string& body, bool& reused)
{
    const SteadyClock::time_point deadline = SteadyClock::now() + m_timeout;
    const std::string where = "tidepoold at " + address();
    auto failure = [&](const std::string& step, const beast::error_code& ec) {
        m_connection.reset();
        const std::string why = ec == beast::error::timeout
            ? "timed out after " + std::to_string(m_timeout.count()) + " ms"
            : ec.message();
        return makeError(ErrorCode::IoError, where + ": " + step + ": " + why);
    };

    reused = m_connection != nullptr;
    if (!m_connection) {
        auto connection = std::make_unique<Connection>();
        tcp::resolver resolver(connection->io);
        beast::error_code ec = asio::error::would_block;
        tcp::resolver::results_type endpoints;
        resolver.async_resolve(m_host, std::to_string(m_port),
            [&ec, &endpoints](const beast::error_code& e, tcp::resolver::results_type results) {
                ec = e;
                endpoints = std::move(results);
            });
        connection->io.restart();
        connection->io.run_until(deadline);
        if (ec == asio::error::would_block) {
            // The resolver has no deadline of its own: cancel it and let its handler run. A lookup already inside
            // getaddrinfo() finishes first (Asio cannot interrupt it); an address literal never waits here.
            resolver.cancel();
            runToCompletion(connection->io);
            ec = beast::error::timeout;
        }
        if (ec)
            return failure("cannot resolve " + m_host, ec);
        connection->stream.expires_at(deadline);
        connection->stream.async_connect(
            endpoints, [&ec](const beast::error_code& e, const tcp::endpoint&) { ec = e; });
        runToCompletion(connection->io);
        if (ec)
            return failure("cannot connect", ec);
        m_connection = std::move(connection);
    }

    Connection& c = *m_connection;
    http::request<http::string_body> req { verbOf(method), beast::string_view(target.data(), target.size()), 11 };
    req.set(http::field::host, address());
    req.set(http::field::user_agent, "tidepoolctl");
    req.set(http::field::accept, "application/json");
    req.set(http::field::authorization, "Bearer " + m_token);
    if (!body.empty()) {
        req.set(http::field::content_type, "application/json");
        req.body() = body;
    }
    req.keep_alive(true);
    req.prepare_payload();

    beast::error_code ec;
    c.stream.expires_at(deadline);
    http::async_write(c.stream, req, [&ec](const beast::error_code& e, std::size_t) { ec = e; });
    runToCompletion(c.io);
    // Only a stale keep-alive connection, closed by the daemon while idle, is worth a second try.
    if (ec && !closedByPeer(ec))
        reused = false;
    if (ec)
        return failure("sending " + std::string(req.method_string()) + " " + std::string(target), ec);

    http::response_parser<http::string_body> parser;
    parser.body_limit(kMaxResponseBytes);
    http::async_read(c.stream, c.buffer, parser, [&ec](const beast::error_code& e, std::size_t) { ec = e; });
    runToCompletion(c.io);
    if (ec) {
        if (!closedByPeer(ec))
            reused = false;
        return failure("reading the response to " + std::string(req.method_string()) + " " + std::string(target), ec);
    }
    http::response<http::string_body> res = parser.release();
    ApiResponse out { static_cast<int>(res.result_int()), std::move(res.body()) };
    if (!res.keep_alive())
        m_connection.reset();
    return out;
}

} // namespace tidepool::api
