// The API's HTTP server (core/net/http_server) over real loopback sockets, against clients that misbehave: idle
// sockets past the connection cap do not lock out a newcomer (the longest-idle one is closed, then one trickling its
// body, a request with the handler never), a request's headers have a deadline of their own, shorter than a
// kept-alive connection's idle wait, its body must make progress within the body timeout, a client that stops
// reading its answer is closed, each timeout is counted by phase, HEAD answers as GET without the body,
// `Expect: 100-continue` is answered before the body is sent, absolute-form targets are routed by their path, and a
// client that leaves while its answer waits is told to the handler.
//
// The server runs on this thread's io_context, driven by `runUntil` while the test's raw sockets (non-blocking, read
// by polling) wait for what they expect; so the server's stats are read without locks.

// Boost.Asio before QtTest, so that Qt's `signals`/`slots` macros cannot reach into Boost's headers.
#include "core/net/http_server.h"
#include "run_until.h"

#include <boost/asio/io_context.hpp>

#include <QtTest>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace tidepool;
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace http = boost::beast::http;

namespace {

using tidepool::testing::runUntil;

// Runs `io` for `duration`, whatever happens.
void runFor(asio::io_context& io, std::chrono::milliseconds duration)
{
    runUntil(
        io, [] { return false; }, duration);
}

struct Answer {
    int status = 0;
    std::string headers; // the status line and the fields, lower-cased
    std::string body;

    std::string field(const std::string& name) const
    {
        const std::string key = "\r\n" + name + ":";
        const auto at = headers.find(key);
        if (at == std::string::npos)
            return {};
        auto value = headers.substr(at + key.size(), headers.find("\r\n", at + key.size()) - at - key.size());
        value.erase(0, value.find_first_not_of(' '));
        return value;
    }
};

// A raw, non-blocking loopback client: it sends what a test says, bytes and all, and reads only when asked.
class Client {
public:
    explicit Client(std::uint16_t port, int receiveBufferBytes = 0)
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        if (receiveBufferBytes > 0)
            ::setsockopt(m_fd, SOL_SOCKET, SO_RCVBUF, &receiveBufferBytes, sizeof receiveBufferBytes);
        sockaddr_in address {};
        address.sin_family = AF_INET;
        address.sin_port = htons(port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        // Loopback connects complete in the kernel's backlog, before the server accepts.
        m_connected = ::connect(m_fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
        ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) | O_NONBLOCK);
    }
    ~Client() { ::close(m_fd); }
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    bool connected() const { return m_connected; }

    bool send(const std::string& bytes)
    {
        std::size_t sent = 0;
        while (sent < bytes.size()) {
            const auto n = ::send(m_fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
            if (n < 0 && errno == EAGAIN) {
                std::this_thread::sleep_for(1ms);
                continue;
            }
            if (n <= 0)
                return false;
            sent += static_cast<std::size_t>(n);
        }
        return true;
    }

    // Whether the server closed the connection (what it sent before is kept for `answer`).
    bool closed()
    {
        pump();
        return m_closed;
    }

    // The next whole answer, once it is here; a HEAD's answer has no body, whatever its Content-Length says.
    std::optional<Answer> answer(bool head = false)
    {
        pump();
        const auto end = m_in.find("\r\n\r\n");
        if (end == std::string::npos)
            return std::nullopt;
        Answer a;
        a.headers = m_in.substr(0, end + 2);
        std::transform(a.headers.begin(), a.headers.end(), a.headers.begin(),
            [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        a.status = std::atoi(m_in.substr(9, 3).c_str());
        const std::string length = a.field("content-length");
        const std::size_t bodyBytes = head || a.status < 200 || length.empty() ? 0 : std::stoul(length);
        if (m_in.size() < end + 4 + bodyBytes)
            return std::nullopt;
        a.body = m_in.substr(end + 4, bodyBytes);
        m_in.erase(0, end + 4 + bodyBytes);
        return a;
    }

    // Shuts the sending side: the server reads the end of the stream, and the client may still read.
    void shutdownSend() { ::shutdown(m_fd, SHUT_WR); }

    // Bytes received and not yet taken by `answer`.
    const std::string& pending()
    {
        pump();
        return m_in;
    }

private:
    void pump()
    {
        char chunk[16384];
        for (;;) {
            const auto n = ::recv(m_fd, chunk, sizeof chunk, 0);
            if (n > 0) {
                m_in.append(chunk, static_cast<std::size_t>(n));
                continue;
            }
            if (n == 0 || (errno != EAGAIN && errno != EINTR))
                m_closed = true;
            return;
        }
    }

    int m_fd = -1;
    bool m_connected = false;
    bool m_closed = false;
    std::string m_in;
};

std::string get(const std::string& target, const std::string& method = "GET")
{
    return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
}

// An HTTP server on 127.0.0.1 with an ephemeral port and a handler that answers like the API: GET /healthz and
// GET /big (`bigBytes` of 'x') at once, GET /slow only when the test says (`slow`), GET /watched likewise but giving
// up its answer when its client leaves (`gone` counts them, as a long poll does), POST /echo with its body, and 404
// to any other method or path, HEAD included (the API's routes compare the method with GET).
struct Server {
    asio::io_context io;
    std::shared_ptr<net::HttpServer> server;
    std::uint16_t port = 0;
    std::vector<net::HttpRespond> slow;
    std::size_t gone = 0;
    std::vector<std::string> methodsSeen;
    std::vector<std::string> targetsSeen;
    std::vector<std::string> hostsSeen;
    std::size_t bigBytes = 4u << 20;

    explicit Server(net::HttpServerConfig config)
    {
        server = net::HttpServer::create(io, std::move(config),
            [this](const net::HttpRequest& request, const std::string&, net::HttpRespond respond) {
                methodsSeen.push_back(std::string(request.method_string()));
                targetsSeen.push_back(std::string(request.target()));
                hostsSeen.push_back(std::string(request[http::field::host]));
                const std::string target = std::string(request.target());
                net::HttpResponse response { http::status::ok, 11 };
                response.set(http::field::content_type, "text/plain");
                if (request.method() == http::verb::get && target == "/slow") {
                    slow.push_back(std::move(respond));
                    return;
                }
                if (request.method() == http::verb::get && target == "/watched") {
                    const std::size_t at = slow.size();
                    respond.onClientGone([this, at] {
                        ++gone;
                        slow[at] = {};
                    });
                    slow.push_back(std::move(respond));
                    return;
                }
                if (request.method() == http::verb::get && target == "/healthz")
                    response.body() = "ok\n";
                else if (request.method() == http::verb::get && target == "/big")
                    response.body() = std::string(bigBytes, 'x');
                else if (request.method() == http::verb::post && target == "/echo")
                    response.body() = request.body();
                else
                    response.result(http::status::not_found);
                respond(std::move(response));
            },
            {});
        if (auto bound = server->listen("127.0.0.1", 0))
            port = *bound;
    }
    ~Server() { server->stop(); }

    // Answers the oldest GET /slow held back with `body`.
    void answerSlow(std::string body)
    {
        net::HttpResponse response { http::status::ok, 11 };
        response.body() = std::move(body);
        slow.front()(std::move(response));
    }

    // Runs the server until `client` has a whole answer.
    std::optional<Answer> answerFor(Client& client, bool head = false, std::chrono::milliseconds timeout = 5000ms)
    {
        std::optional<Answer> a;
        runUntil(
            io, [&] { return (a = client.answer(head)).has_value(); }, timeout);
        return a;
    }
};

} // namespace

class TestHttpServer : public QObject {
    Q_OBJECT

private slots:
    void idleConnectionsAtTheCapMakeRoomForANewcomer()
    {
        net::HttpServerConfig config;
        config.maxConnections = 8;
        Server s(config);
        QVERIFY(s.port != 0);

        // Eight idle sockets fill the server, one at a time so that their ages are known; four more each close the
        // oldest idle one instead of being refused.
        std::vector<std::unique_ptr<Client>> idle;
        for (std::size_t i = 0; i < 12; ++i) {
            idle.push_back(std::make_unique<Client>(s.port));
            QVERIFY(idle.back()->connected());
            QVERIFY(runUntil(s.io, [&] { return s.server->stats().connectionsAccepted == i + 1; }));
        }
        QCOMPARE(s.server->stats().connectionsEvicted, std::uint64_t { 4 });
        QCOMPARE(s.server->stats().connectionsRefused, std::uint64_t { 0 });
        QCOMPARE(s.server->connectionCount(), std::size_t { 8 });

        // A liveness probe still gets through, at the cost of the next oldest.
        Client probe(s.port);
        probe.send(get("/healthz"));
        const auto answer = s.answerFor(probe);
        QVERIFY(answer);
        QCOMPARE(answer->status, 200);
        QCOMPARE(answer->body, std::string("ok\n"));
        QCOMPARE(s.server->stats().connectionsEvicted, std::uint64_t { 5 });

        // The five oldest were closed, the seven youngest were not.
        QVERIFY(runUntil(s.io,
            [&] { return std::all_of(idle.begin(), idle.begin() + 5, [](const auto& c) { return c->closed(); }); }));
        runFor(s.io, 100ms);
        for (std::size_t i = 5; i < idle.size(); ++i)
            QVERIFY2(!idle[i]->closed(), qPrintable(QStringLiteral("idle socket %1 was closed").arg(i)));
    }

    void aRequestInProgressIsNeverClosedToMakeRoom()
    {
        net::HttpServerConfig config;
        config.maxConnections = 3;
        Server s(config);
        QVERIFY(s.port != 0);

        // The oldest connection has a request the handler has not answered yet; the other two are idle.
        Client busy(s.port);
        busy.send(get("/slow"));
        QVERIFY(runUntil(s.io, [&] { return s.slow.size() == 1; }));
        Client idle1(s.port);
        QVERIFY(runUntil(s.io, [&] { return s.server->stats().connectionsAccepted == 2; }));
        Client idle2(s.port);
        QVERIFY(runUntil(s.io, [&] { return s.server->stats().connectionsAccepted == 3; }));

        // A newcomer closes the oldest idle connection, not the busy one, which still gets its answer.
        Client newcomer(s.port);
        newcomer.send(get("/healthz"));
        const auto answer = s.answerFor(newcomer);
        QVERIFY(answer);
        QCOMPARE(answer->status, 200);
        QVERIFY(runUntil(s.io, [&] { return idle1.closed(); }));
        QVERIFY(!busy.closed());
        QVERIFY(!idle2.closed());
        s.answerSlow("late\n");
        const auto lateAnswer = s.answerFor(busy);
        QVERIFY(lateAnswer);
        QCOMPARE(lateAnswer->body, std::string("late\n"));

        // When every connection has a request in progress, the newcomer is the one refused.
        s.slow.clear();
        busy.send(get("/slow"));
        idle2.send(get("/slow"));
        newcomer.send(get("/slow"));
        QVERIFY(runUntil(s.io, [&] { return s.slow.size() == 3; }));
        Client refused(s.port);
        QVERIFY(runUntil(s.io, [&] { return refused.closed(); }));
        QCOMPARE(s.server->stats().connectionsRefused, std::uint64_t { 1 });
        QCOMPARE(s.server->stats().connectionsEvicted, std::uint64_t { 1 });
        QVERIFY(!busy.closed());
        QVERIFY(!idle2.closed());
        QVERIFY(!newcomer.closed());
    }

    void headersHaveADeadlineShorterThanTheIdleWait()
    {
        net::HttpServerConfig config;
        config.headerTimeout = 300ms;
        config.idleTimeout = 10s;
        Server s(config);
        QVERIFY(s.port != 0);

        // Half a request, then silence; and a socket that says nothing at all.
        Client slowloris(s.port);
        slowloris.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        Client silent(s.port);
        const auto started = std::chrono::steady_clock::now();
        QVERIFY(runUntil(
            s.io, [&] { return slowloris.closed() && silent.closed(); }, 3000ms));
        QVERIFY(std::chrono::steady_clock::now() - started >= 250ms);
        // The server closes the socket at the deadline, and its read ends (and is counted) just after.
        QVERIFY(runUntil(s.io, [&] { return s.server->stats().headerTimeouts == 2; }));

        // Between requests a kept-alive connection may wait longer than the header deadline.
        Client keptAlive(s.port);
        keptAlive.send(get("/healthz"));
        auto first = s.answerFor(keptAlive);
        QVERIFY(first);
        QCOMPARE(first->status, 200);
        runFor(s.io, 700ms);
        QVERIFY(!keptAlive.closed());
        keptAlive.send(get("/healthz"));
        auto second = s.answerFor(keptAlive);
        QVERIFY(second);
        QCOMPARE(second->status, 200);

        // Once the next request's first byte is here, its headers have the header deadline again.
        keptAlive.send("G");
        QVERIFY(runUntil(
            s.io, [&] { return keptAlive.closed(); }, 3000ms));
        QVERIFY(runUntil(s.io, [&] { return s.server->stats().headerTimeouts == 3; }));
        QCOMPARE(s.server->stats().bodyTimeouts, std::uint64_t { 0 });
        QCOMPARE(s.server->stats().writeTimeouts, std::uint64_t { 0 });
    }

    void aBodyMustMakeProgressWithinTheBodyTimeout()
    {
        net::HttpServerConfig config;
        config.bodyTimeout = 300ms;
        config.idleTimeout = 10s;
        config.headerTimeout = 10s;
        Server s(config);
        QVERIFY(s.port != 0);

        // A body that comes a little at a time, each part within the body timeout, is read whole, however long it
        // takes in all.
        const std::string body(12, 'b');
        Client slow(s.port);
        slow.send(
            "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n");
        const auto started = std::chrono::steady_clock::now();
        for (const char c : body) {
            runFor(s.io, 100ms);
            QVERIFY(slow.send(std::string(1, c)));
        }
        const auto answer = s.answerFor(slow);
        QVERIFY(answer);
        QVERIFY(std::chrono::steady_clock::now() - started >= 1000ms); // longer than the body timeout
        QCOMPARE(answer->status, 200);
        QCOMPARE(answer->body, body);

        // A body that stops is closed at the body timeout, long before the idle timeout, and counted.
        Client stalled(s.port);
        stalled.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nsome of it");
        const auto stalledAt = std::chrono::steady_clock::now();
        QVERIFY(runUntil(
            s.io, [&] { return stalled.closed(); }, 3000ms));
        QVERIFY(std::chrono::steady_clock::now() - stalledAt >= 250ms);
        QVERIFY(stalled.pending().empty()); // no answer: the handler never saw it
        QVERIFY(runUntil(s.io, [&] { return s.server->stats().bodyTimeouts == 1; }));
        QCOMPARE(s.server->stats().headerTimeouts, std::uint64_t { 0 });
        QCOMPARE(s.methodsSeen.size(), std::size_t { 1 });

        // After `100 Continue` too.
        Client continued(s.port);
        continued.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n");
        QVERIFY(runUntil(
            s.io, [&] { return continued.closed(); }, 3000ms));
        QVERIFY(runUntil(s.io, [&] { return s.server->stats().bodyTimeouts == 2; }));
    }

    void aBodyTrickledAtTheCapMakesRoomForANewcomer()
    {
        net::HttpServerConfig config;
        config.maxConnections = 3;
        config.bodyTimeout = 10s;
        Server s(config);
        QVERIFY(s.port != 0);

        // Two clients send a body a byte at a time, each within the body timeout; a third has a request with the
        // handler.
        Client oldest(s.port);
        oldest.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\na");
        QVERIFY(runUntil(s.io, [&] { return s.server->stats().connectionsAccepted == 1; }));
        runFor(s.io, 50ms);
        Client younger(s.port);
        younger.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\na");
        QVERIFY(runUntil(s.io, [&] { return s.server->stats().connectionsAccepted == 2; }));
        runFor(s.io, 50ms);
        Client busy(s.port);
        busy.send(get("/slow"));
        QVERIFY(runUntil(s.io, [&] { return s.slow.size() == 1; }));
        oldest.send("b");
        runFor(s.io, 50ms);

        // No connection is idle: the newcomer closes the one whose body has been arriving longest.
        Client newcomer(s.port);
        newcomer.send(get("/healthz"));
        const auto answer = s.answerFor(newcomer);
        QVERIFY(answer);
        QCOMPARE(answer->status, 200);
        QVERIFY(runUntil(s.io, [&] { return oldest.closed(); }));
        QCOMPARE(s.server->stats().connectionsEvicted, std::uint64_t { 1 });
        QCOMPARE(s.server->stats().connectionsRefused, std::uint64_t { 0 });
        runFor(s.io, 100ms);
        QVERIFY(!younger.closed());
        QVERIFY(!busy.closed());
        s.answerSlow("late\n");
        const auto lateAnswer = s.answerFor(busy);
        QVERIFY(lateAnswer);
        QCOMPARE(lateAnswer->body, std::string("late\n"));
    }

    void aClientThatDoesNotReadItsAnswerIsClosed()
    {
        net::HttpServerConfig config;
        config.writeTimeout = 500ms;
        Server s(config);
        s.bigBytes = 16u << 20; // more than the kernel's buffers on both sides hold
        QVERIFY(s.port != 0);

        // The repro: small receive buffers, pipelined requests for a big answer, nothing read.
        std::vector<std::unique_ptr<Client>> stalled;
        for (int i = 0; i < 4; ++i) {
            stalled.push_back(std::make_unique<Client>(s.port, 2048));
            std::string requests;
            for (int j = 0; j < 10; ++j)
                requests += get("/big");
            stalled.back()->send(requests);
        }
        QVERIFY(runUntil(s.io, [&] { return s.server->stats().requests >= 4; }));
        QVERIFY(runUntil(
            s.io, [&] { return s.server->connectionCount() == 0; }, 5000ms));
        QVERIFY(runUntil(s.io, [&] { return s.server->stats().writeTimeouts == 4; }));

        // A client that reads gets the whole answer.
        s.bigBytes = 1u << 20;
        Client reader(s.port);
        reader.send(get("/big"));
        const auto answer = s.answerFor(reader);
        QVERIFY(answer);
        QCOMPARE(answer->body.size(), std::size_t { 1u << 20 });
    }

    void headAnswersAsGetWithoutTheBody()
    {
        Server s({});
        QVERIFY(s.port != 0);

        // HEAD, then GET on the same connection: the GET's answer is not read from the HEAD's missing body.
        Client client(s.port);
        client.send(get("/healthz", "HEAD") + get("/healthz"));
        const auto head = s.answerFor(client, true);
        QVERIFY(head);
        QCOMPARE(head->status, 200);
        QCOMPARE(head->field("content-length"), std::string("3"));
        QCOMPARE(head->field("content-type"), std::string("text/plain"));
        const auto body = s.answerFor(client);
        QVERIFY(body);
        QCOMPARE(body->status, 200);
        QCOMPARE(body->body, std::string("ok\n"));
        QVERIFY(client.pending().empty());
        QCOMPARE(s.methodsSeen, (std::vector<std::string> { "GET", "GET" }));

        // A big answer's headers only, and the connection is kept.
        client.send(get("/big", "HEAD"));
        const auto bigHead = s.answerFor(client, true);
        QVERIFY(bigHead);
        QCOMPARE(bigHead->field("content-length"), std::to_string(s.bigBytes));
        runFor(s.io, 100ms);
        QVERIFY(client.pending().empty());
        QVERIFY(!client.closed());
        // What is not found for GET is not found for HEAD either.
        client.send(get("/nothing", "HEAD"));
        const auto missing = s.answerFor(client, true);
        QVERIFY(missing);
        QCOMPARE(missing->status, 404);
    }

    void expectContinueIsAnsweredBeforeTheBody()
    {
        net::HttpServerConfig config;
        config.maxBodyBytes = 1u << 20;
        Server s(config);
        QVERIFY(s.port != 0);

        const std::string body = "{\"hello\":\"world\"}";
        Client client(s.port);
        client.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
            + std::to_string(body.size()) + "\r\nExpect: 100-continue\r\n\r\n");
        const auto interim = s.answerFor(client, false, 2000ms);
        QVERIFY2(interim, "no 100 Continue before the body");
        QCOMPARE(interim->status, 100);
        client.send(body);
        const auto answer = s.answerFor(client);
        QVERIFY(answer);
        QCOMPARE(answer->status, 200);
        QCOMPARE(answer->body, body);

        // Without the header, no interim answer.
        client.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\nhi");
        const auto plain = s.answerFor(client);
        QVERIFY(plain);
        QCOMPARE(plain->status, 200);
        QCOMPARE(plain->body, std::string("hi"));

        // A body over the limit is refused with its headers, before the client sends it, and never continued.
        Client tooBig(s.port);
        tooBig.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + std::to_string(2u << 20)
            + "\r\nExpect: 100-continue\r\n\r\n");
        const auto refused = s.answerFor(tooBig);
        QVERIFY(refused);
        QCOMPARE(refused->status, 413);
        QVERIFY(runUntil(s.io, [&] { return tooBig.closed(); }));
        QCOMPARE(s.server->stats().badRequests, std::uint64_t { 1 });
    }

    // While the handler holds a request (a long poll), the server watches its connection: a client that closes it is
    // told to the handler, whose answer is then dropped, and the connection goes; one that only shuts its sending side
    // still reads the answer of a handler that did not ask; an answer that comes while the server watches is written
    // and the connection kept alive; bytes sent meanwhile (a pipelined request) are answered after it, in order.
    void aClientThatLeavesWhileItsAnswerWaitsIsLetGo()
    {
        Server s({});
        QVERIFY(s.port != 0);

        // It closes its socket: the handler hears of it at once, and the connection is gone.
        {
            Client leaving(s.port);
            leaving.send(get("/watched"));
            QVERIFY(runUntil(s.io, [&] { return s.slow.size() == 1; }));
            runFor(s.io, 20ms); // the watch's read is in progress
            QCOMPARE(s.gone, std::size_t { 0 });
        }
        QVERIFY(runUntil(s.io, [&] { return s.gone == 1; }));
        QCOMPARE(s.server->stats().clientsGone, std::uint64_t { 1 });
        QVERIFY(!s.slow[0]); // the handler let go of it
        QVERIFY(runUntil(s.io, [&] { return s.server->connectionCount() == 0; }));

        // It shuts its sending side only, from a handler that did not ask: the answer still reaches it, and then the
        // connection closes. A handler that asks after the client left is told at once.
        Client halfClosed(s.port);
        halfClosed.send(get("/slow"));
        QVERIFY(runUntil(s.io, [&] { return s.slow.size() == 2; }));
        halfClosed.shutdownSend();
        QVERIFY(runUntil(s.io, [&] { return s.server->stats().clientsGone == 2; }));
        QVERIFY(s.slow[1].clientGone());
        bool toldLate = false;
        s.slow[1].onClientGone([&] { toldLate = true; });
        QVERIFY(toldLate);
        QCOMPARE(s.gone, std::size_t { 1 });
        net::HttpResponse late { http::status::ok, 11 };
        late.body() = "late";
        s.slow[1](std::move(late));
        const auto lateAnswer = s.answerFor(halfClosed);
        QVERIFY(lateAnswer);
        QCOMPARE(lateAnswer->body, std::string("late"));
        QCOMPARE(lateAnswer->field("connection"), std::string("close"));
        QVERIFY(runUntil(s.io, [&] { return halfClosed.closed(); }));

        // It stays: the answer that comes while the server watches is written, and the connection serves the next.
        Client staying(s.port);
        staying.send(get("/watched"));
        QVERIFY(runUntil(s.io, [&] { return s.slow.size() == 3; }));
        runFor(s.io, 20ms);
        net::HttpResponse held { http::status::ok, 11 };
        held.body() = "waited";
        s.slow[2](std::move(held));
        const auto waited = s.answerFor(staying);
        QVERIFY(waited);
        QCOMPARE(waited->body, std::string("waited"));
        staying.send(get("/healthz"));
        const auto next = s.answerFor(staying);
        QVERIFY(next);
        QCOMPARE(next->body, std::string("ok\n"));
        // A second answer to the same request is dropped.
        net::HttpResponse twice { http::status::ok, 11 };
        twice.body() = "twice";
        s.slow[2](std::move(twice));
        runFor(s.io, 20ms);
        QVERIFY(staying.pending().empty());

        // It sends its next request before the first is answered: the two answers come in order.
        Client pipelining(s.port);
        pipelining.send(get("/slow"));
        QVERIFY(runUntil(s.io, [&] { return s.slow.size() == 4; }));
        runFor(s.io, 20ms);
        pipelining.send(get("/healthz"));
        runFor(s.io, 20ms);
        QVERIFY(pipelining.pending().empty());
        net::HttpResponse first { http::status::ok, 11 };
        first.body() = "first";
        s.slow[3](std::move(first));
        const auto one = s.answerFor(pipelining);
        const auto two = s.answerFor(pipelining);
        QVERIFY(one && two);
        QCOMPARE(one->body, std::string("first"));
        QCOMPARE(two->body, std::string("ok\n"));
        QCOMPARE(s.gone, std::size_t { 1 });
        QCOMPARE(s.server->stats().clientsGone, std::uint64_t { 2 });
    }

    void absoluteFormTargetsAreRoutedByTheirPath()
    {
        Server s({});
        QVERIFY(s.port != 0);

        // RFC 9112 §3.2.2: the server takes the path (and query) of an absolute-form target, and its authority as the
        // host, whatever Host says.
        const std::string authority = "127.0.0.1:" + std::to_string(s.port);
        Client client(s.port);
        client.send("GET http://" + authority + "/healthz HTTP/1.1\r\nHost: elsewhere\r\n\r\n");
        const auto answer = s.answerFor(client);
        QVERIFY(answer);
        QCOMPARE(answer->status, 200);
        QCOMPARE(answer->body, std::string("ok\n"));
        client.send("GET HTTPS://Core.example:7080/v1/nodes?ids=1 HTTP/1.1\r\nHost: core.example:7080\r\n\r\n");
        QVERIFY(s.answerFor(client));
        client.send("GET http://core.example:7080?x=1 HTTP/1.1\r\nHost: core.example:7080\r\n\r\n");
        QVERIFY(s.answerFor(client));
        QCOMPARE(s.targetsSeen, (std::vector<std::string> { "/healthz", "/v1/nodes?ids=1", "/?x=1" }));
        QCOMPARE(s.hostsSeen, (std::vector<std::string> { authority, "Core.example:7080", "core.example:7080" }));

        // Without a host, or with user information (RFC 9110 §4.2.4), it is malformed and reaches no handler.
        for (const char* bad : { "http:///healthz", "http://user:secret@127.0.0.1/healthz" }) {
            Client refused(s.port);
            refused.send(get(bad));
            const auto a = s.answerFor(refused);
            QVERIFY(a);
            QCOMPARE(a->status, 400);
            QVERIFY2(a->body.find("absolute-form") != std::string::npos, a->body.c_str());
            QVERIFY(runUntil(s.io, [&] { return refused.closed(); }));
        }
        QCOMPARE(s.targetsSeen.size(), std::size_t { 3 });
    }
};

QTEST_APPLESS_MAIN(TestHttpServer)
#include "tst_http_server.moc"
