#include "core/api/api_client.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "core/net/http_server.h"
#include "protocol/transport/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <variant>

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
        || ec == asio::error::broken_pipe || ec == http::error::partial_message
        || ec == asio::ssl::error::stream_truncated;
}

// Runs the context until its handlers are done; every operation started on it carries its own deadline.
void runToCompletion(asio::io_context& io)
{
    io.restart();
    io.run();
}

bool isIpAddress(const std::string& host)
{
    beast::error_code ec;
    asio::ip::make_address(host, ec);
    return !ec;
}

using TlsStream = beast::ssl_stream<beast::tcp_stream>;

} // namespace

Expected<ApiUrl> parseApiUrl(const std::string& text, std::uint16_t defaultPort)
{
    ApiUrl url;
    std::string rest = text;
    if (rest.rfind("https://", 0) == 0) {
        url.tls = true;
        rest.erase(0, 8);
    } else if (rest.rfind("http://", 0) == 0) {
        rest.erase(0, 7);
    } else if (rest.find("://") != std::string::npos) {
        return makeError(ErrorCode::InvalidArgument, "\"" + text + "\": only http:// and https:// are supported");
    }
    if (!rest.empty() && rest.back() == '/')
        rest.pop_back();
    if (rest.find('/') != std::string::npos || rest.find('?') != std::string::npos)
        return makeError(ErrorCode::InvalidArgument, "\"" + text + "\": give the daemon's address only, no path");
    const bool bracketed = !rest.empty() && rest.front() == '[';
    const auto colon = rest.rfind(':');
    const bool hasPort = colon != std::string::npos && (!bracketed || colon > rest.find(']'));
    if (!hasPort) {
        if (defaultPort == 0)
            return makeError(ErrorCode::InvalidArgument, "\"" + text + "\" names no port (HOST:PORT)");
        rest += ":" + std::to_string(defaultPort);
    }
    const auto hostPort = net::parseHostPort(rest);
    if (!hostPort)
        return makeError(ErrorCode::InvalidArgument, "\"" + text + "\": " + hostPort.error().message);
    if (hostPort->first.empty() || hostPort->second == 0)
        return makeError(ErrorCode::InvalidArgument, "\"" + text + "\" needs a host and a port other than 0");
    url.host = hostPort->first;
    url.port = hostPort->second;
    return url;
}

struct ApiClient::Connection {
    std::variant<beast::tcp_stream, TlsStream> stream;
    beast::flat_buffer buffer;

    Connection(asio::io_context& io, asio::ssl::context* tls)
        : stream(tls ? std::variant<beast::tcp_stream, TlsStream>(std::in_place_type<TlsStream>, io, *tls)
                     : std::variant<beast::tcp_stream, TlsStream>(std::in_place_type<beast::tcp_stream>, io))
    {
    }
    beast::tcp_stream& lowest()
    {
        return std::visit([](auto& s) -> beast::tcp_stream& { return beast::get_lowest_layer(s); }, stream);
    }
};

ApiClient::ApiClient(std::string host, std::uint16_t port, std::string token, std::chrono::milliseconds timeout)
    : m_host(std::move(host))
    , m_port(port)
    , m_token(std::move(token))
    , m_timeout(timeout)
    , m_io(std::make_unique<asio::io_context>(1))
{
}

ApiClient::~ApiClient() = default;

void ApiClient::cancel()
{
    m_cancelled.store(true);
    // Run by the owner's thread inside its call's run of `m_io` (or its next call's): the read or the connecting
    // under way there fails at once, as does each later call, which sees `m_cancelled` first.
    asio::post(*m_io, [this] { closeStreams(); });
}

void ApiClient::closeStreams()
{
    for (Connection* c : { m_connection.get(), m_opening })
        if (c) {
            beast::error_code ignored;
            c->lowest().socket().close(ignored);
        }
}

Expected<void> ApiClient::useTls(const std::string& caFile)
{
    std::shared_ptr<asio::ssl::context> context;
    if (!caFile.empty()) {
        auto made = transport::makeClientContext(transport::TlsClientFiles { caFile, {}, {} });
        if (!made)
            return makeError(ErrorCode::InvalidArgument, made.error());
        context = std::move(*made);
    } else {
        context = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
        beast::error_code ec;
        context->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2
                | asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1,
            ec);
        if (!ec)
            context->set_default_verify_paths(ec);
        if (ec)
            return makeError(ErrorCode::InvalidArgument, "the system's trust store cannot be used: " + ec.message());
        context->set_verify_mode(asio::ssl::verify_peer);
    }
    m_tls = std::move(context);
    m_caFile = caFile;
    m_connection.reset();
    return {};
}

std::string ApiClient::address() const
{
    const bool v6 = m_host.find(':') != std::string::npos;
    return (v6 ? "[" + m_host + "]" : m_host) + ":" + std::to_string(m_port);
}

std::string ApiClient::url() const
{
    return (m_tls ? "https://" : "http://") + address();
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
    // Plain HTTP keeps the form errors always had ("tidepoold at host:port"); HTTPS names the scheme.
    const std::string where = "tidepoold at " + (m_tls ? url() : address());
    auto failure = [&](const std::string& step, const beast::error_code& ec, const std::string& why = {}) {
        m_connection.reset();
        const std::string reason = !why.empty() ? why
            : ec == beast::error::timeout ? "timed out after " + std::to_string(m_timeout.count()) + " ms"
                                          : ec.message();
        return makeError(ErrorCode::IoError, where + ": " + step + ": " + reason);
    };

    const auto cancelled = [&](const std::string& step) {
        m_connection.reset();
        return makeError(ErrorCode::IoError, where + ": " + step + ": cancelled");
    };
    if (m_cancelled.load())
        return cancelled("sending " + std::string(http::to_string(verbOf(method))) + " " + std::string(target));

    reused = m_connection != nullptr;
    if (!m_connection) {
        auto connection = std::make_unique<Connection>(*m_io, m_tls.get());
        // Closed by `cancel` too while it is opened.
        m_opening = connection.get();
        struct Opened {
            Connection*& opening;
            ~Opened() { opening = nullptr; }
        } opened { m_opening };
        tcp::resolver resolver(*m_io);
        beast::error_code ec = asio::error::would_block;
        tcp::resolver::results_type endpoints;
        resolver.async_resolve(m_host, std::to_string(m_port),
            [&ec, &endpoints](const beast::error_code& e, tcp::resolver::results_type results) {
                ec = e;
                endpoints = std::move(results);
            });
        m_io->restart();
        m_io->run_until(deadline);
        if (ec == asio::error::would_block) {
            // The resolver has no deadline of its own: cancel it and let its handler run. A lookup already inside
            // getaddrinfo() finishes first (Asio cannot interrupt it); an address literal never waits here.
            resolver.cancel();
            runToCompletion(*m_io);
            ec = beast::error::timeout;
        }
        if (m_cancelled.load())
            return cancelled("cannot resolve " + m_host);
        if (ec)
            return failure("cannot resolve " + m_host, ec);
        connection->lowest().expires_at(deadline);
        connection->lowest().async_connect(
            endpoints, [&ec](const beast::error_code& e, const tcp::endpoint&) { ec = e; });
        runToCompletion(*m_io);
        if (m_cancelled.load())
            return cancelled("cannot connect");
        if (ec)
            return failure("cannot connect", ec);
        if (auto* tls = std::get_if<TlsStream>(&connection->stream)) {
            // The certificate must name the host dialled, not merely chain to the CA: OpenSSL checks the name (or
            // the IP address) during the handshake and says which failed.
            SSL* ssl = tls->native_handle();
            X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
            if (isIpAddress(m_host))
                X509_VERIFY_PARAM_set1_ip_asc(param, m_host.c_str());
            else {
                SSL_set_tlsext_host_name(ssl, m_host.c_str());
                X509_VERIFY_PARAM_set1_host(param, m_host.c_str(), 0);
            }
            tls->async_handshake(asio::ssl::stream_base::client, [&ec](const beast::error_code& e) { ec = e; });
            runToCompletion(*m_io);
            if (m_cancelled.load())
                return cancelled("TLS handshake");
            if (ec) {
                std::string why = ec.message();
                const long verified = SSL_get_verify_result(ssl);
                if (verified != X509_V_OK) {
                    why = std::string("the daemon's certificate was not accepted: ")
                        + X509_verify_cert_error_string(verified);
                    why += m_caFile.empty() ? " (checked against the system's trust store; give the CA file)"
                                            : " (checked against the CA in " + m_caFile + ")";
                } else if (ec.category() == asio::error::get_ssl_category()
                    && ERR_GET_REASON(ec.value()) == SSL_R_WRONG_VERSION_NUMBER) {
                    why += " (does the daemon speak HTTPS on this port? try http://)";
                }
                return failure("TLS handshake", ec, why);
            }
        }
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
    c.lowest().expires_at(deadline);
    std::visit([&](auto& stream) {
        http::async_write(stream, req, [&ec](const beast::error_code& e, std::size_t) { ec = e; });
    }, c.stream);
    runToCompletion(*m_io);
    if (m_cancelled.load())
        return cancelled("sending " + std::string(req.method_string()) + " " + std::string(target));
    // Only a stale keep-alive connection, closed by the daemon while idle, is worth a second try.
    if (ec && !closedByPeer(ec))
        reused = false;
    if (ec)
        return failure("sending " + std::string(req.method_string()) + " " + std::string(target), ec);

    http::response_parser<http::string_body> parser;
    parser.body_limit(kMaxResponseBytes);
    std::visit([&](auto& stream) {
        http::async_read(stream, c.buffer, parser, [&ec](const beast::error_code& e, std::size_t) { ec = e; });
    }, c.stream);
    runToCompletion(*m_io);
    if (m_cancelled.load())
        return cancelled("reading the response to " + std::string(req.method_string()) + " " + std::string(target));
    if (ec) {
        if (!closedByPeer(ec))
            reused = false;
        // The request went out: a change may have been made without its answer arriving. Retrying blindly could make
        // it twice (a second workload, say); the reader is told to look first.
        const std::string maybeApplied = method == HttpMethod::Get
            ? std::string()
            : " (the request was sent: tidepoold may have made the change; check before retrying)";
        return failure("reading the response to " + std::string(req.method_string()) + " " + std::string(target), ec,
            (ec == beast::error::timeout ? "timed out after " + std::to_string(m_timeout.count()) + " ms"
                                         : ec.message())
                + maybeApplied);
    }
    http::response<http::string_body> res = parser.release();
    ApiResponse out { static_cast<int>(res.result_int()), std::move(res.body()) };
    if (!res.keep_alive())
        m_connection.reset();
    return out;
}

} // namespace tidepool::api
