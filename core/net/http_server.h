#pragma once
// A small HTTP/1.1 server over Boost.Beast for the core's JSON API and its Prometheus `/metrics`: keep-alive
// connections, a bounded request body, and one handler that answers each request, possibly later.
// A request the parser refuses (too large, malformed) gets a 400 or 413 naming the problem, and the connection
// is closed; nothing reaches the handler.
//
// Slow and idle clients cannot hold the server: a request's headers must arrive within `headerTimeout` of the
// connection opening (or of their first byte on a kept-alive connection, which may wait `idleTimeout` for it), its
// body must make progress at least every `bodyTimeout` (a slow upload keeps its connection, a stalled one loses it),
// and an answer that makes no progress for `writeTimeout` (a client that does not read) closes the connection. Each
// of these closes is counted by phase (`headerTimeouts`, `bodyTimeouts`, `writeTimeouts`; a TLS handshake runs under
// the header deadline and counts as a header timeout too) and logged, the first and then every 1,000th.
// At `maxConnections`, a newcomer makes room by closing the connection that has waited longest for a request, else
// the one whose body has been arriving longest (a client trickling a byte just within `bodyTimeout`), both counted in
// `connectionsEvicted`; a request the handler has (or whose answer is being written) is never closed for it, and
// only when every connection has one is the newcomer refused.
//
// Request targets in absolute form (`GET http://host:7080/v1/nodes HTTP/1.1`, RFC 9112 §3.2.2, as proxies send them)
// reach the handler in origin form (`/v1/nodes`), with the target's authority as the Host field.
//
// HEAD is answered as GET: the handler sees a GET, and the client gets its answer's headers (with the Content-Length
// of its body) without the body. A request with `Expect: 100-continue` gets `100 Continue` once its headers are
// read and accepted (a body over `maxBodyBytes` gets the 413 instead, before the client sends it).
//
// With a TLS context (`HttpServerConfig::tls`) the listener speaks HTTPS only: a client that fails the handshake is
// counted (`tlsHandshakeFailures`), logged and closed, reaching no handler; one that spoke plain HTTP gets a plain
// 400 saying to use https:// first.
//
// Thread affinity: the server, its connections and the handler run on one io_context thread (the core's), so the
// handler may touch core state directly. Ownership: `create` returns a shared pointer; pending handlers keep the
// server and its connections alive until `stop()` has let them finish.

#include "core/model/types.h"
#include "protocol/log_sink.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace tidepool::net {

using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;
using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;
// Answers the request it was handed, exactly once: at once, or later on the same thread (the API answers a change
// only once it is durable). Calling it after the connection closed is harmless. Copies answer the same request.
//
// A handler that answers later may learn that its client went away meanwhile: while an answer is deferred the server
// reads the connection, and when the client closes it (or it breaks) the function given to `onClientGone` is called,
// once, on the server's thread; the server then closes the connection, and an answer given after that is dropped. So
// a read that waits for something to happen (a long poll) gives up its slot when its client leaves, not when its wait
// ends. A handler that gave none is not told: its answer is still written once it comes (a client that only shut its
// sending side still reads it), and the connection closed after it. As with Go's net/http and nginx, a client that
// shuts its sending side while it waits is taken to have gone. Bytes the client sends meanwhile (a pipelined request)
// end the watch: they wait for the answer, and the client is not watched any longer.
class HttpRespond {
public:
    HttpRespond() = default;
    template <class F>
    requires(!std::is_same_v<std::decay_t<F>, HttpRespond> && std::is_invocable_v<F&, HttpResponse>)
        HttpRespond(F&& answer) // NOLINT(google-explicit-constructor): a handler's lambda is a respond
        : m_state(std::make_shared<State>())
    {
        m_state->answer = std::forward<F>(answer);
    }

    void operator()(HttpResponse response) const
    {
        if (m_state && m_state->answer)
            m_state->answer(std::move(response));
    }
    explicit operator bool() const { return m_state && m_state->answer; }
    // Calls `gone` when the client leaves before the answer (at once when it has already left); replaces any earlier.
    void onClientGone(std::function<void()> gone) const;
    // Whether the client has been seen to leave before the answer.
    bool clientGone() const { return m_state && m_state->gone; }

private:
    template <class Stream> friend class BasicHttpConnection;
    struct State {
        std::function<void(HttpResponse)> answer;
        std::function<void()> onGone;
        bool gone = false;
    };
    // Marks the request's client gone and calls its `onClientGone`; whether there was one to call.
    static bool tellGone(const std::weak_ptr<State>& weak);

    std::shared_ptr<State> m_state;
};
// `peer` is the client's address ("127.0.0.1:52344"), for the audit log.
using HttpHandler = std::function<void(const HttpRequest&, const std::string& peer, HttpRespond respond)>;

struct HttpServerConfig {
    std::uint64_t maxBodyBytes = 8u << 20; // a batch of 10,000 submissions fits
    std::chrono::milliseconds headerTimeout { 10'000 }; // for a request's headers, from the connection or first byte
    std::chrono::milliseconds idleTimeout { 60'000 }; // between kept-alive requests
    std::chrono::milliseconds bodyTimeout { 10'000 }; // a request's body making no progress for this long
    std::chrono::milliseconds writeTimeout { 30'000 }; // an answer (or 100 Continue) making no progress for this long
    std::size_t maxConnections = 1024;
    std::shared_ptr<boost::asio::ssl::context> tls; // HTTPS when set (`transport::makeServerContext`)
};

struct HttpServerStats {
    std::uint64_t connectionsAccepted = 0;
    std::uint64_t requests = 0;
    std::uint64_t badRequests = 0; // refused by the parser
    std::uint64_t connectionsRefused = 0; // over `maxConnections`, every connection busy with a request
    std::uint64_t connectionsEvicted = 0; // idle or sending a body, closed for a newcomer at `maxConnections`
    std::uint64_t headerTimeouts = 0; // headers (or the TLS handshake) not in within `headerTimeout`
    std::uint64_t bodyTimeouts = 0; // a body that made no progress for `bodyTimeout`
    std::uint64_t writeTimeouts = 0; // an answer (or 100 Continue) that made no progress for `writeTimeout`
    std::uint64_t tlsHandshakeFailures = 0; // HTTPS only: plain HTTP, an untrusted or failed handshake
    std::uint64_t clientsGone = 0; // requests whose client closed the connection while their answer was deferred
};

class HttpConnection;

class HttpServer : public std::enable_shared_from_this<HttpServer> {
public:
    static std::shared_ptr<HttpServer> create(
        boost::asio::io_context& io, HttpServerConfig config, HttpHandler handler, protocol::LogSink log);

    // Binds and starts accepting; port 0 picks one. Returns the bound port.
    Expected<std::uint16_t> listen(const std::string& address, std::uint16_t port);
    void stop();

    const HttpServerStats& stats() const { return m_stats; }
    std::size_t connectionCount() const;

    HttpServer(boost::asio::io_context& io, HttpServerConfig config, HttpHandler handler,
        protocol::LogSink log); // use `create`

private:
    template <class Stream> friend class BasicHttpConnection;
    void doAccept();
    // Whether a newcomer may be accepted, once the longest-idle connection is closed if the cap needs it.
    bool makeRoom();
    enum class TimeoutPhase : std::uint8_t { Invalid = 0, Header, Body, Write };
    // Counts (and now and then logs) a connection closed for a timeout in `phase`.
    void timedOut(TimeoutPhase phase, const std::string& peer);

    boost::asio::io_context& m_io;
    HttpServerConfig m_config;
    HttpHandler m_handler;
    protocol::LogSink m_log;
    boost::asio::ip::tcp::acceptor m_acceptor;
    boost::asio::steady_timer m_acceptRetry;
    HttpServerStats m_stats;
    std::vector<std::weak_ptr<HttpConnection>> m_connections;
};

// Splits "host:port" (or "[v6]:port"); the error names the text.
Expected<std::pair<std::string, std::uint16_t>> parseHostPort(const std::string& text);

} // namespace tidepool::net
