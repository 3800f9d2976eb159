#include "core/net/http_server.h"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <optional>
#include <string_view>
#include <type_traits>

namespace tidepool::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;

// What the server keeps of a connection, whichever stream it runs on.
class HttpConnection {
public:
    using Clock = std::chrono::steady_clock;

    virtual ~HttpConnection() = default;
    virtual void start() = 0;
    virtual void close() = 0;
    virtual bool open() = 0;
    // Since when the connection has been waiting for a request (its headers not all read); empty while a request is
    // in progress. The server makes room at its cap by closing the connection that has waited longest.
    std::optional<Clock::time_point> waitingSince() const { return m_waitingSince; }
    // Since when the connection has been reading a request's body; empty otherwise. With no connection waiting for a
    // request, the server makes room by closing the one whose body has been arriving longest.
    std::optional<Clock::time_point> bodySince() const { return m_bodySince; }

protected:
    std::optional<Clock::time_point> m_waitingSince;
    std::optional<Clock::time_point> m_bodySince;
};

namespace {

using TlsStream = beast::ssl_stream<beast::tcp_stream>;

// What a client that spoke plain HTTP to the HTTPS listener reads (OpenSSL saw its request line, so it was one).
std::string plainHttpAnswer()
{
    const std::string body = "{\"error\":\"this is tidepoold's HTTPS API: use https:// with its CA\"}\n";
    return "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "
        + std::to_string(body.size()) + "\r\n\r\n" + body;
}

bool isPlainHttpOnTls(const beast::error_code& ec)
{
    return ec.category() == asio::error::get_ssl_category() && ERR_GET_REASON(ec.value()) == SSL_R_HTTP_REQUEST;
}

bool startsWithNoCase(std::string_view text, std::string_view prefix)
{
    return text.size() >= prefix.size()
        && beast::iequals(
            beast::string_view(text.data(), prefix.size()), beast::string_view(prefix.data(), prefix.size()));
}

// A request target in absolute form (`http://host:port/path?query`, RFC 9112 §3.2.2) becomes the origin form the
// handler routes (`/path?query`), and its authority the Host field, which the RFC says the server must use instead of
// the one received. False for an absolute form without a host; other targets are left as they are.
bool toOriginForm(HttpRequest& request)
{
    const std::string_view target(request.target().data(), request.target().size());
    std::size_t schemeEnd = 0;
    if (startsWithNoCase(target, "http://"))
        schemeEnd = 7;
    else if (startsWithNoCase(target, "https://"))
        schemeEnd = 8;
    else
        return true;
    const std::size_t authorityEnd = std::min(target.find_first_of("/?#", schemeEnd), target.size());
    const std::string authority(target.substr(schemeEnd, authorityEnd - schemeEnd));
    if (authority.empty() || authority.find('@') != std::string::npos)
        return false; // no host, or user information, which RFC 9110 §4.2.4 forbids in an http(s) URI
    std::string path(target.substr(authorityEnd));
    if (path.empty() || path.front() != '/')
        path.insert(0, "/");
    request.target(path);
    request.set(http::field::host, authority);
    return true;
}

} // namespace

template <class Stream>
class BasicHttpConnection : public HttpConnection, public std::enable_shared_from_this<BasicHttpConnection<Stream>> {
public:
    static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

    BasicHttpConnection(Stream stream, std::shared_ptr<HttpServer> server)
        : m_stream(std::move(stream))
        , m_server(std::move(server))
    {
        beast::error_code ec;
        const auto remote = lowest().socket().remote_endpoint(ec);
        if (!ec)
            m_peer = remote.address().to_string() + ":" + std::to_string(remote.port());
    }

    void start() override
    {
        // The header deadline runs from the accept: it covers the TLS handshake and the first request's headers, so a
        // peer that connects and says nothing (or too little) is closed in `headerTimeout`.
        m_waitingSince = Clock::now();
        lowest().expires_after(m_server->m_config.headerTimeout);
        if constexpr (kTls)
            m_stream.async_handshake(asio::ssl::stream_base::server,
                [self = this->shared_from_this()](beast::error_code ec) { self->onHandshake(ec); });
        else
            readHeader();
    }
    void close() override
    {
        beast::error_code ec;
        lowest().socket().shutdown(tcp::socket::shutdown_both, ec);
        lowest().close();
    }
    bool open() override { return lowest().socket().is_open(); }

private:
    beast::tcp_stream& lowest() { return beast::get_lowest_layer(m_stream); }

    void onHandshake(beast::error_code ec)
    {
        if (!ec) {
            readHeader();
            return;
        }
        ++m_server->m_stats.tlsHandshakeFailures;
        if (ec == beast::error::timeout)
            m_server->timedOut(HttpServer::TimeoutPhase::Header, m_peer);
        const bool plainHttp = isPlainHttpOnTls(ec);
        if (m_server->m_log)
            m_server->m_log("api: " + m_peer + ": TLS handshake failed: "
                + (plainHttp ? std::string("the client spoke plain HTTP to the HTTPS listener") : ec.message()));
        if (!plainHttp) {
            close();
            return;
        }
        // A plain answer tells curl and old clients what is wrong, instead of a reset they cannot read.
        m_plainAnswer = plainHttpAnswer();
        lowest().expires_after(std::chrono::seconds(5));
        asio::async_write(lowest(), asio::buffer(m_plainAnswer),
            [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                if (ec) {
                    self->close();
                    return;
                }
                // Closing with the client's bytes unread would reset the connection and could lose the answer: say
                // we are done, then wait (briefly) for the client to close.
                beast::error_code ignored;
                self->lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
                self->drain();
            });
    }

    void drain()
    {
        lowest().async_read_some(asio::buffer(m_drain), [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
            if (ec)
                self->close();
            else
                self->drain();
        });
    }

    // The end of a read that leaves nothing to answer: the client closed or went quiet, or the server closed it.
    static bool quietEnd(const beast::error_code& ec)
    {
        return ec == http::error::end_of_stream || ec == asio::error::eof || ec == beast::error::timeout
            || ec == asio::error::operation_aborted || ec == asio::error::connection_reset
            || ec == asio::ssl::error::stream_truncated;
    }

    // After an answer on a kept-alive connection: the next request may be a while coming (`idleTimeout`), but once
    // its first byte is here its headers have `headerTimeout`, as on a new connection.
    void awaitNextRequest()
    {
        m_waitingSince = Clock::now();
        if (m_buffer.size() > 0) { // pipelined
            lowest().expires_after(m_server->m_config.headerTimeout);
            readHeader();
            return;
        }
        lowest().expires_after(m_server->m_config.idleTimeout);
        m_stream.async_read_some(
            m_buffer.prepare(4096), [self = this->shared_from_this()](beast::error_code ec, std::size_t n) {
                if (ec) {
                    self->close();
                    return;
                }
                self->m_buffer.commit(n);
                self->lowest().expires_after(self->m_server->m_config.headerTimeout);
                self->readHeader();
            });
    }

    // Reads a request's headers under the deadline already set.
    void readHeader()
    {
        m_parser.emplace();
        m_parser->body_limit(m_server->m_config.maxBodyBytes);
        m_parser->header_limit(64 * 1024);
        m_head = false;
        http::async_read_header(m_stream, m_buffer, *m_parser,
            [self = this->shared_from_this()](beast::error_code ec, std::size_t) { self->onHeader(ec); });
    }

    void onHeader(beast::error_code ec)
    {
        if (ec == beast::error::timeout)
            m_server->timedOut(HttpServer::TimeoutPhase::Header, m_peer);
        if (quietEnd(ec)) {
            close();
            return;
        }
        if (ec) {
            refuse(ec);
            return;
        }
        m_waitingSince.reset(); // a request in progress: closed to make room only while its body is arriving
        if (m_parser->is_done()) {
            dispatch();
            return;
        }
        m_bodySince = Clock::now();
        const HttpRequest& request = m_parser->get();
        if (request.version() >= 11 && beast::iequals(request[http::field::expect], "100-continue")) {
            // The client waits for this before it sends the body (curl: a second, for bodies over 1 MB). A body over
            // the limit never gets here: the parser refused its Content-Length with the headers.
            lowest().expires_after(m_server->m_config.writeTimeout);
            http::async_write(
                m_stream, m_continue, [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                    if (ec) {
                        if (ec == beast::error::timeout)
                            self->m_server->timedOut(HttpServer::TimeoutPhase::Write, self->m_peer);
                        self->close();
                        return;
                    }
                    self->readBody();
                });
            return;
        }
        readBody();
    }

    // The body is read in steps, each with `bodyTimeout`: a client that sends slowly keeps its connection, one that
    // stops sending loses it, whatever the size of the body.
    void readBody()
    {
        lowest().expires_after(m_server->m_config.bodyTimeout);
        http::async_read_some(m_stream, m_buffer, *m_parser,
            [self = this->shared_from_this()](beast::error_code ec, std::size_t) { self->onBodyRead(ec); });
    }

    void onBodyRead(beast::error_code ec)
    {
        if (ec == beast::error::timeout)
            m_server->timedOut(HttpServer::TimeoutPhase::Body, m_peer);
        if (quietEnd(ec))
            close();
        else if (ec)
            refuse(ec);
        else if (m_parser->is_done())
            dispatch();
        else
            readBody();
    }

    // A request the parser refused, answered with what was wrong, and the connection closed.
    void refuse(beast::error_code ec)
    {
        const bool tooLarge = ec == http::error::body_limit || ec == http::error::header_limit;
        refuse(tooLarge ? http::status::payload_too_large : http::status::bad_request,
            (tooLarge ? "request too large: " : "malformed request: ") + ec.message());
    }

    void refuse(http::status status, const std::string& message)
    {
        m_waitingSince.reset();
        m_bodySince.reset();
        ++m_server->m_stats.badRequests;
        HttpResponse response { status, 11 };
        response.set(http::field::content_type, "application/json");
        response.body() = "{\"error\":\"" + message + "\"}";
        response.keep_alive(false);
        send(std::move(response));
    }

    void dispatch()
    {
        m_bodySince.reset();
        HttpRequest& request = m_parser->get();
        if (!toOriginForm(request)) {
            refuse(http::status::bad_request, "malformed request: an absolute-form target needs a host and no user");
            return;
        }
        ++m_server->m_stats.requests;
        // HEAD is GET without the body: the handler answers a GET, and `send` writes only the headers.
        if (request.method() == http::verb::head) {
            m_head = true;
            request.method(http::verb::get);
        }
        // No request is read before the answer is written, so the request stays valid while the handler defers it;
        // no timer may cut a deferred answer short (the write has its own).
        lowest().expires_never();
        const unsigned version = request.version();
        const bool keepAlive = request.keep_alive();
        m_awaitingAnswer = true;
        m_clientLeft = false;
        HttpRespond respond([self = this->shared_from_this(), version, keepAlive](
                                HttpResponse response) { self->answer(std::move(response), version, keepAlive); });
        m_respondState = respond.m_state;
        m_server->m_handler(request, m_peer, std::move(respond));
        // Deferred: watch for the client leaving meanwhile, unless it already sent more (a pipelined request).
        if (m_awaitingAnswer && open() && m_buffer.size() == 0)
            watchClient();
    }

    void answer(HttpResponse response, unsigned version, bool keepAlive)
    {
        if (!m_awaitingAnswer || !open())
            return; // answered already, or the connection closed (its client gone)
        m_awaitingAnswer = false;
        response.version(version);
        response.keep_alive(keepAlive && !m_clientLeft);
        if (!m_watching) {
            send(std::move(response));
            return;
        }
        // The watch's read ends first (one read at a time on a TLS stream, and the write below must not race it).
        m_held.emplace(std::move(response));
        beast::error_code ignored;
        lowest().socket().cancel(ignored);
    }

    // A read while the answer is deferred: it ends when the client closes (or breaks) the connection, sends more
    // bytes, or the answer is ready (cancelled).
    void watchClient()
    {
        m_watching = true;
        m_stream.async_read_some(m_buffer.prepare(4096),
            [self = this->shared_from_this()](beast::error_code ec, std::size_t n) { self->onWatched(ec, n); });
    }

    void onWatched(beast::error_code ec, std::size_t n)
    {
        m_watching = false;
        if (!ec)
            m_buffer.commit(n); // a pipelined request: read once this one is answered
        const bool left = ec && ec != asio::error::operation_aborted;
        if (left)
            m_clientLeft = true;
        if (m_held) { // the answer came meanwhile
            HttpResponse response = std::move(*m_held);
            m_held.reset();
            if (left)
                response.keep_alive(false);
            if (open())
                send(std::move(response));
            return;
        }
        if (!left || !m_awaitingAnswer)
            return; // more bytes (the watch ends), or the server closed the connection
        ++m_server->m_stats.clientsGone;
        if (HttpRespond::tellGone(m_respondState)) {
            m_awaitingAnswer = false; // the handler has given up its answer
            close();
        }
    }

    void send(HttpResponse response)
    {
        response.prepare_payload(); // for HEAD too: Content-Length is that of the body not sent
        m_serializer.reset();
        m_response.emplace(std::move(response));
        m_serializer.emplace(*m_response);
        if (m_head)
            m_serializer->split(true); // so that the headers end a write of their own
        writeSome();
    }

    // The answer goes out in steps, each with `writeTimeout`: a client that reads slowly keeps its connection, one
    // that stops reading loses it (with the answer it did not read).
    void writeSome()
    {
        lowest().expires_after(m_server->m_config.writeTimeout);
        http::async_write_some(m_stream, *m_serializer,
            [self = this->shared_from_this()](beast::error_code ec, std::size_t) { self->onWriteSome(ec); });
    }

    void onWriteSome(beast::error_code ec)
    {
        if (ec) {
            if (ec == beast::error::timeout)
                m_server->timedOut(HttpServer::TimeoutPhase::Write, m_peer);
            close();
            return;
        }
        if (!(m_head ? m_serializer->is_header_done() : m_serializer->is_done())) {
            writeSome();
            return;
        }
        const bool keepAlive = m_response->keep_alive() && !m_clientLeft;
        m_serializer.reset();
        m_response.reset();
        if (!keepAlive) {
            close();
            return;
        }
        awaitNextRequest();
    }

    Stream m_stream;
    std::shared_ptr<HttpServer> m_server;
    beast::flat_buffer m_buffer;
    std::optional<http::request_parser<http::string_body>> m_parser;
    bool m_head = false; // the request in progress is a HEAD
    std::optional<HttpResponse> m_response;
    bool m_awaitingAnswer = false; // the handler has the request and has not answered it yet
    bool m_watching = false; // a read watching for the client leaving is in progress (`watchClient`)
    bool m_clientLeft = false; // it saw the client close its side: the connection closes after the answer
    std::weak_ptr<HttpRespond::State> m_respondState; // of the request the handler has
    std::optional<HttpResponse> m_held; // an answer waiting for the watch's read to end
    std::optional<http::response_serializer<http::string_body>> m_serializer; // of `m_response`: declared after it
    http::response<http::empty_body> m_continue { http::status::continue_, 11 };
    std::string m_peer;
    std::string m_plainAnswer; // kept while it is written
    std::array<char, 1024> m_drain {};
};

void HttpRespond::onClientGone(std::function<void()> gone) const
{
    if (!m_state)
        return;
    if (m_state->gone) {
        if (gone)
            gone();
        return;
    }
    m_state->onGone = std::move(gone);
}

bool HttpRespond::tellGone(const std::weak_ptr<State>& weak)
{
    const auto state = weak.lock();
    if (!state)
        return false;
    state->gone = true;
    auto gone = std::move(state->onGone);
    state->onGone = {};
    if (!gone)
        return false;
    gone();
    return true;
}

std::shared_ptr<HttpServer> HttpServer::create(
    asio::io_context& io, HttpServerConfig config, HttpHandler handler, protocol::LogSink log)
{
    return std::make_shared<HttpServer>(io, config, std::move(handler), std::move(log));
}

HttpServer::HttpServer(asio::io_context& io, HttpServerConfig config, HttpHandler handler, protocol::LogSink log)
    : m_io(io)
    , m_config(config)
    , m_handler(std::move(handler))
    , m_log(std::move(log))
    , m_acceptor(io)
    , m_acceptRetry(io)
{
}

Expected<std::uint16_t> HttpServer::listen(const std::string& address, std::uint16_t port)
{
    boost::system::error_code ec;
    const auto ip = asio::ip::make_address(address, ec);
    if (ec)
        return makeError(ErrorCode::InvalidArgument, "API listen address \"" + address + "\": " + ec.message());
    const tcp::endpoint endpoint(ip, port);
    const std::string where = address + ":" + std::to_string(port);
    if (m_acceptor.open(endpoint.protocol(), ec); ec)
        return makeError(ErrorCode::IoError, "cannot open the API listener on " + where + ": " + ec.message());
    if (m_acceptor.set_option(tcp::acceptor::reuse_address(true), ec); ec)
        return makeError(ErrorCode::IoError, "cannot set SO_REUSEADDR on " + where + ": " + ec.message());
    if (m_acceptor.bind(endpoint, ec); ec) {
        m_acceptor.close(ec);
        return makeError(ErrorCode::IoError, "cannot bind the API listener to " + where + ": " + ec.message());
    }
    if (m_acceptor.listen(asio::socket_base::max_listen_connections, ec); ec) {
        m_acceptor.close(ec);
        return makeError(ErrorCode::IoError, "cannot listen on " + where + ": " + ec.message());
    }
    const std::uint16_t bound = m_acceptor.local_endpoint(ec).port();
    if (m_log)
        m_log("api: listening on " + address + ":" + std::to_string(bound));
    doAccept();
    return bound;
}

void HttpServer::stop()
{
    boost::system::error_code ec;
    m_acceptor.close(ec);
    m_acceptRetry.cancel();
    for (const auto& weak : m_connections)
        if (const auto connection = weak.lock())
            connection->close();
    m_connections.clear();
}

std::size_t HttpServer::connectionCount() const
{
    return static_cast<std::size_t>(std::count_if(m_connections.begin(), m_connections.end(),
        [](const auto& weak) { return !weak.expired(); }));
}

void HttpServer::doAccept()
{
    m_acceptor.async_accept(m_io, [self = shared_from_this()](const boost::system::error_code& ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted || !self->m_acceptor.is_open())
            return;
        if (ec) {
            if (self->m_log)
                self->m_log("api: accept failed: " + ec.message() + "; retrying in 100 ms");
            self->m_acceptRetry.expires_after(std::chrono::milliseconds(100));
            self->m_acceptRetry.async_wait([self](const boost::system::error_code& waited) {
                if (!waited && self->m_acceptor.is_open())
                    self->doAccept();
            });
            return;
        }
        if (!self->makeRoom()) {
            ++self->m_stats.connectionsRefused;
            boost::system::error_code ignored;
            socket.close(ignored);
        } else {
            ++self->m_stats.connectionsAccepted;
            std::shared_ptr<HttpConnection> connection;
            if (self->m_config.tls)
                connection = std::make_shared<BasicHttpConnection<TlsStream>>(
                    TlsStream(beast::tcp_stream(std::move(socket)), *self->m_config.tls), self);
            else
                connection = std::make_shared<BasicHttpConnection<beast::tcp_stream>>(
                    beast::tcp_stream(std::move(socket)), self);
            self->m_connections.push_back(connection);
            connection->start();
        }
        self->doAccept();
    });
}

bool HttpServer::makeRoom()
{
    // A closed connection still waiting for its handler holds no socket: it does not count.
    std::erase_if(m_connections, [](const auto& weak) {
        const auto connection = weak.lock();
        return !connection || !connection->open();
    });
    if (m_connections.size() < m_config.maxConnections)
        return true;
    // Like nginx and Envoy, close the connection that has waited longest for a request: idle sockets, however many a
    // client opens and reopens, then cannot lock out a newcomer (a liveness probe of /healthz).
    // Failing that, the one whose body has been arriving longest: a client that trickles its body, a byte just within
    // `bodyTimeout` each time, must not hold its connection against a newcomer either.
    using Since = std::optional<HttpConnection::Clock::time_point> (HttpConnection::*)() const;
    const auto longest = [this](Since since) {
        auto oldest = m_connections.end();
        std::optional<HttpConnection::Clock::time_point> oldestSince;
        for (auto it = m_connections.begin(); it != m_connections.end(); ++it) {
            const auto at = ((*it->lock()).*since)();
            if (at && (!oldestSince || *at < *oldestSince)) {
                oldest = it;
                oldestSince = at;
            }
        }
        return oldest;
    };
    const char* which = "idle longest";
    auto oldest = longest(&HttpConnection::waitingSince);
    if (oldest == m_connections.end()) {
        which = "sending its request body longest";
        oldest = longest(&HttpConnection::bodySince);
    }
    if (oldest == m_connections.end())
        return false;
    oldest->lock()->close();
    m_connections.erase(oldest);
    // Logged the first time and then every 1,000th, so that a flood does not flood the log too.
    if (++m_stats.connectionsEvicted % 1000 == 1 && m_log)
        m_log("api: " + std::to_string(m_config.maxConnections) + " connections open: closed the one " + which
            + " to accept another (" + std::to_string(m_stats.connectionsEvicted) + " so far)");
    return true;
}

void HttpServer::timedOut(TimeoutPhase phase, const std::string& peer)
{
    std::uint64_t* count = &m_stats.headerTimeouts;
    std::string what
        = "its request's headers did not arrive within " + std::to_string(m_config.headerTimeout.count()) + " ms";
    if (phase == TimeoutPhase::Body) {
        count = &m_stats.bodyTimeouts;
        what = "its request's body made no progress for " + std::to_string(m_config.bodyTimeout.count()) + " ms";
    } else if (phase == TimeoutPhase::Write) {
        count = &m_stats.writeTimeouts;
        what = "it read nothing of its answer for " + std::to_string(m_config.writeTimeout.count()) + " ms";
    }
    // Logged the first time and then every 1,000th of each phase, so that a flood does not flood the log too.
    if (++*count % 1000 == 1 && m_log)
        m_log("api: " + peer + ": closed: " + what + " (" + std::to_string(*count) + " so far)");
}

Expected<std::pair<std::string, std::uint16_t>> parseHostPort(const std::string& text)
{
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
        return makeError(ErrorCode::InvalidArgument, "\"" + text + "\" is not HOST:PORT");
    std::string host = text.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    unsigned port = 0;
    const char* first = text.data() + colon + 1;
    const char* last = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(first, last, port);
    if (ec != std::errc() || ptr != last || port > 65535)
        return makeError(ErrorCode::InvalidArgument, "\"" + text + "\": the port must be a number 0 to 65535");
    return std::make_pair(std::move(host), static_cast<std::uint16_t>(port));
}

} // namespace tidepool::net
