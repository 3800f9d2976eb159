#pragma once
// The core's side of the agent protocol: a TCP listener that runs the join handshake with each agent
// (hello → challenge → auth → welcome or reject), then receives its inventory, heartbeats and workload updates and
// sends it commands (pools, launch, stop) by session id.
//
// Every frame is decoded and validated before use. An oversized or empty frame, malformed JSON, an invalid message,
// or a message out of order closes that connection with a logged reason and reaches no event: nothing of the
// core's state is touched. A wrong join token gets a `reject` message, the connection is closed and the join is
// counted as rejected.
//
// Bootstrap tokens (protocol/join.h) are single-use: the first node that proves it holds one (its MAC verified) is
// bound to it, the binding is made durable through `persistBinding` before the welcome, and from then on only that
// node joins with it (its reconnects do). Another node presenting it is refused with a reason naming the token and
// the node it is bound to, logged and counted (`tokenReuseRefused`).
//
// Thread affinity: the server and its connections run on one `io_context` thread, the core's; every handler runs
// there (the implicit strand), and `listen`, `stop`, `stats` and the events are used and called on that thread.
// Ownership: `create` returns a shared pointer; pending handlers hold the server alive until `stop()` (or the
// io_context's end) has let them finish.

#include "core/model/types.h"
#include "protocol/frame.h"
#include "protocol/join.h"
#include "protocol/log_sink.h"
#include "protocol/messages.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <string>
#include <vector>

namespace tidepool::net {

class AgentSession;

// Makes a new token binding durable, then calls `done` with nullopt, or with the reason it could not.
using BindingDone = std::function<void(const std::optional<std::string>& error)>;
using PersistBinding = std::function<void(const std::string& tokenId, const std::string& node, BindingDone done)>;

struct AgentServerConfig {
    // The shared join token, at least `protocol::kMinJoinTokenBytes` bytes; may be empty when `bootstrapTokens` are
    // given (then only they are accepted).
    std::string joinToken;
    std::vector<protocol::BootstrapToken> bootstrapTokens; // single-use, one per agent
    std::map<std::string, std::string> tokenBindings; // bootstrap token id → the node bound to it (restored)
    PersistBinding persistBinding; // unset: bindings last as long as the server
    std::uint32_t maxFrameBytes = protocol::kDefaultMaxFrameBytes;
    std::int32_t heartbeatIntervalMs = 5000; // told to agents in `welcome`
    // What this core reads (protocol::kFeature*), told in `welcome` to agents whose hello named features of their own.
    // Tests take one away to play a core from before it.
    std::vector<std::string> features = protocol::knownFeatures();
    std::chrono::milliseconds joinTimeout { 10'000 }; // from accept to welcome; then the connection is closed
    std::size_t maxQueuedFrames = 4096; // per connection; a peer that does not read is disconnected past this
    // TLS for every connection when set (`transport::makeServerContext`); plain TCP otherwise.
    std::shared_ptr<boost::asio::ssl::context> tls;
};

// Counters for operators and tests. Read on the server's thread.
struct AgentServerStats {
    std::uint64_t connectionsAccepted = 0;
    std::uint64_t agentsJoined = 0;
    std::uint64_t joinsRejected = 0; // every refused join: a wrong or unknown token, a reused bootstrap token
    std::uint64_t tokenReuseRefused = 0; // a bootstrap token presented by another node than the one bound to it
    std::uint64_t badFrames = 0; // bad length, malformed JSON, invalid or out-of-order message
    std::uint64_t joinTimeouts = 0;
    std::uint64_t tlsHandshakeFailures = 0;
    std::uint64_t heartbeats = 0;
    std::uint64_t framesSent = 0;
    std::uint64_t framesReceived = 0;
};

struct JoinedAgent {
    std::string sessionId;
    std::string remote; // address:port
    protocol::Hello hello;
};

// What the server tells its owner, on the server's thread. Only validated messages of joined agents get here.
struct AgentServerEvents {
    std::function<void(const JoinedAgent&)> joined;
    std::function<void(const std::string& sessionId, const protocol::Heartbeat&)> heartbeat;
    std::function<void(const std::string& sessionId, const protocol::Inventory&)> inventory;
    std::function<void(const std::string& sessionId, const protocol::WorkloadStatus&)> workloadUpdate;
    std::function<void(const std::string& sessionId, const protocol::LogReply&)> logReply;
    std::function<void(const std::string& sessionId, const protocol::Resized&)> resized;
    std::function<void(const std::string& sessionId, const std::string& reason)> left;
};

// State the server shares with its connections.
struct AgentServerShared {
    AgentServerConfig config;
    protocol::JoinVerifier verifier;
    AgentServerEvents events;
    protocol::LogSink log;
    AgentServerStats stats;
    std::unordered_map<std::string, std::weak_ptr<AgentSession>> joined; // by session id
    std::map<std::string, std::string> bindings; // bootstrap token id → node

    void logLine(const std::string& line) const
    {
        if (log)
            log(line);
    }
};

class AgentServer : public std::enable_shared_from_this<AgentServer> {
public:
    static std::shared_ptr<AgentServer> create(
        boost::asio::io_context& io, AgentServerConfig config, AgentServerEvents events, protocol::LogSink log);

    // Binds and starts accepting. Port 0 picks an ephemeral port; the bound port is returned.
    Expected<std::uint16_t> listen(const std::string& address, std::uint16_t port);
    // The first half of a graceful stop: stops accepting and tells every joined agent why its session ends (a
    // `reject` with cause `closed`, "the core is stopping", so that its log says why rather than showing a reset);
    // each connection closes once that is written, within 5 s, and one not joined closes at once. `connectionCount`
    // says when all are gone; `stop` then closes what is left.
    void dismissAll(const std::string& reason);
    // Stops accepting and closes every connection now (nothing of a session is left pending on the io_context).
    void stop();

    const AgentServerStats& stats() const { return m_shared->stats; }
    // Connections currently open (joined or still joining).
    std::size_t connectionCount() const;
    // Queues `message` to the joined agent of `sessionId`; false when that session is gone. A `Reject` ends the
    // session (`disconnect`, with its reason and cause).
    bool send(const std::string& sessionId, const protocol::Message& message);
    // Ends the session with a logged reason: its `left` event follows at once, and the agent is told why (a `reject`
    // with `cause`, written before the connection closes); false when it is gone.
    bool disconnect(const std::string& sessionId, const std::string& reason,
        protocol::RejectCause cause = protocol::RejectCause::Closed);
    // Replaces the bootstrap tokens (a reload); bindings stay. Sessions already joined are not touched.
    void setBootstrapTokens(std::vector<protocol::BootstrapToken> tokens);
    // Bootstrap token id → the node bound to it.
    const std::map<std::string, std::string>& tokenBindings() const { return m_shared->bindings; }

    AgentServer(boost::asio::io_context& io, std::shared_ptr<AgentServerShared> shared); // use `create`

private:
    void doAccept();
    void onAccept(const boost::system::error_code& ec, boost::asio::ip::tcp::socket socket);

    boost::asio::io_context& m_io;
    boost::asio::ip::tcp::acceptor m_acceptor;
    boost::asio::steady_timer m_acceptRetry; // back-off after a failed accept
    std::shared_ptr<AgentServerShared> m_shared;
    std::vector<std::weak_ptr<AgentSession>> m_sessions;
};

} // namespace tidepool::net
