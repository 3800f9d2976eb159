#include "core/net/agent_session.h"

#include <boost/asio/write.hpp>

#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace tidepool::net {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

std::string endpointText(const tcp::socket& socket)
{
    boost::system::error_code ec;
    const tcp::endpoint remote = socket.remote_endpoint(ec);
    if (ec)
        return "unknown peer";
    return remote.address().to_string() + ":" + std::to_string(remote.port());
}

} // namespace

namespace {

transport::Stream makeStream(tcp::socket socket, const AgentServerShared& shared)
{
    if (shared.config.tls)
        return transport::Stream(std::move(socket), *shared.config.tls);
    return transport::Stream(std::move(socket));
}

} // namespace

AgentSession::AgentSession(tcp::socket socket, std::shared_ptr<AgentServerShared> shared)
    : m_stream(makeStream(std::move(socket), *shared))
    , m_joinTimer(m_stream.socket().get_executor())
    , m_shared(std::move(shared))
    , m_decoder(m_shared->config.maxFrameBytes)
    , m_writer(m_shared->config.maxQueuedFrames)
    , m_remote(endpointText(m_stream.socket()))
{
}

std::string AgentSession::describe() const
{
    return m_hello ? m_remote + " (node " + m_hello->nodeName + ")" : m_remote;
}

void AgentSession::start()
{
    m_joinTimer.expires_after(m_shared->config.joinTimeout);
    m_joinTimer.async_wait(
        [self = shared_from_this()](const boost::system::error_code& ec) { self->onJoinTimeout(ec); });
    // The join timer covers the TLS handshake too: a peer that never completes it is closed like a silent one.
    m_stream.asyncHandshake(boost::asio::ssl::stream_base::server, [self = shared_from_this()](const boost::system::error_code& ec) {
        if (self->m_state == State::Closed)
            return;
        if (ec) {
            ++self->m_shared->stats.tlsHandshakeFailures;
            self->close("TLS handshake failed: " + self->handshakeFailure(ec));
            return;
        }
        self->doRead();
    });
}

std::string AgentSession::handshakeFailure(const boost::system::error_code& ec)
{
    // OpenSSL's "certificate verify failed" does not say what was wrong with the agent's certificate; the verify
    // result does (expired, another CA, not yet valid).
    if (transport::Stream::Tls* tls = m_stream.tlsStream()) {
        const long verified = SSL_get_verify_result(tls->native_handle());
        if (verified != X509_V_OK)
            return ec.message() + ": the agent's certificate: " + X509_verify_cert_error_string(verified);
    }
    return ec.message();
}

void AgentSession::onJoinTimeout(const boost::system::error_code& ec)
{
    if (ec || m_state == State::Joined || m_state == State::Closed)
        return;
    ++m_shared->stats.joinTimeouts;
    close("did not complete the join within " + std::to_string(m_shared->config.joinTimeout.count()) + " ms");
}

void AgentSession::doRead()
{
    m_stream.asyncReadSome(asio::buffer(m_readBuffer),
        [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) { self->onRead(ec, n); });
}

void AgentSession::onRead(const boost::system::error_code& ec, std::size_t bytes)
{
    if (m_state == State::Closed || m_state == State::Rejecting)
        return;
    if (ec) {
        close(ec == asio::error::eof ? std::string("the agent closed the connection") : "read failed: " + ec.message());
        return;
    }
    m_frames.clear();
    const auto fed = m_decoder.feed(std::string_view(m_readBuffer.data(), bytes), m_frames);
    // Frames completed before a bad header are handled first: they arrived first.
    for (const std::string& frame : m_frames) {
        handleFrame(frame);
        if (m_state == State::Closed || m_state == State::Rejecting)
            return;
    }
    if (!fed) {
        badFrame(fed.error().message);
        return;
    }
    doRead();
}

void AgentSession::handleFrame(const std::string& payload)
{
    ++m_shared->stats.framesReceived;
    auto message = protocol::decodeMessage(payload);
    if (!message) {
        badFrame("invalid message: " + message.error().message);
        return;
    }
    if (const auto* hello = std::get_if<protocol::Hello>(&*message); hello && m_state == State::AwaitingHello)
        onHello(*hello);
    else if (const auto* auth = std::get_if<protocol::Auth>(&*message); auth && m_state == State::AwaitingAuth)
        onAuth(*auth);
    else if (const auto* heartbeat = std::get_if<protocol::Heartbeat>(&*message); heartbeat && m_state == State::Joined)
        onHeartbeat(*heartbeat);
    else if (const auto* inventory = std::get_if<protocol::Inventory>(&*message);
             inventory && m_state == State::Joined) {
        if (m_shared->events.inventory)
            m_shared->events.inventory(m_sessionId, *inventory);
    } else if (const auto* update = std::get_if<protocol::WorkloadUpdate>(&*message);
               update && m_state == State::Joined) {
        if (m_shared->events.workloadUpdate)
            m_shared->events.workloadUpdate(m_sessionId, update->status);
    } else if (const auto* logs = std::get_if<protocol::LogReply>(&*message); logs && m_state == State::Joined) {
        if (m_shared->events.logReply)
            m_shared->events.logReply(m_sessionId, *logs);
    } else if (const auto* resized = std::get_if<protocol::Resized>(&*message); resized && m_state == State::Joined) {
        if (m_shared->events.resized)
            m_shared->events.resized(m_sessionId, *resized);
    } else
        badFrame("unexpected `" + std::string(protocol::typeName(*message)) + "` message at this point of the session");
}

void AgentSession::onHello(const protocol::Hello& hello)
{
    if (!hello.tokenId.empty() && !m_shared->verifier.knowsBootstrapToken(hello.tokenId)) {
        m_hello = hello;
        refuseJoin("unknown bootstrap token " + hello.tokenId,
            "unknown bootstrap token " + hello.tokenId + ": this core does not hold it");
        return;
    }
    if (hello.tokenId.empty() && !m_shared->verifier.acceptsSharedToken()) {
        m_hello = hello;
        refuseJoin("no bootstrap token named, and this core takes no shared join token",
            "this core takes bootstrap tokens only (tpb1.<id>.<secret>); the shared join token is not accepted");
        return;
    }
    auto pending = m_shared->verifier.challenge(hello);
    if (!pending) {
        close("cannot issue a challenge: " + pending.error().message);
        return;
    }
    m_hello = hello;
    m_pending = std::move(*pending);
    m_state = State::AwaitingAuth;
    send(m_pending->challenge);
}

void AgentSession::onAuth(const protocol::Auth& auth)
{
    const bool valid = m_shared->verifier.verify(*m_pending, auth);
    m_pending.reset(); // one answer per challenge
    if (!valid) {
        refuseJoin("wrong join token", "authentication failed: wrong join token");
        return;
    }
    claimToken();
}

void AgentSession::refuseJoin(const std::string& logReason, const std::string& agentReason)
{
    ++m_shared->stats.joinsRejected;
    m_shared->logLine("agent-server: " + describe() + ": join rejected: " + logReason);
    send(protocol::Reject { agentReason });
    closeAfterWrites("join rejected");
}

void AgentSession::claimToken()
{
    const std::string& tokenId = m_hello->tokenId;
    if (tokenId.empty()) {
        admit();
        return;
    }
    const std::string& node = m_hello->nodeName;
    const auto bound = m_shared->bindings.find(tokenId);
    if (bound != m_shared->bindings.end()) {
        if (bound->second == node) {
            admit(); // the node the token was first used by, joining again
            return;
        }
        ++m_shared->stats.tokenReuseRefused;
        refuseJoin("bootstrap token " + tokenId + " is already bound to node " + bound->second
                + " (bootstrap tokens are single-use)",
            "bootstrap token " + tokenId + " was already used by node " + bound->second
                + "; each agent needs a bootstrap token of its own");
        return;
    }
    // Bound at once, so that a second node racing with the same token is refused while this binding is written.
    m_shared->bindings.emplace(tokenId, node);
    m_shared->logLine("agent-server: " + describe() + ": bootstrap token " + tokenId + " is now bound to node " + node);
    if (!m_shared->config.persistBinding) {
        admit();
        return;
    }
    m_state = State::Binding;
    m_shared->config.persistBinding(tokenId, node,
        [self = shared_from_this()](const std::optional<std::string>& error) { self->onBound(error); });
}

void AgentSession::onBound(const std::optional<std::string>& error)
{
    if (error) {
        // Not durable: forget it, so that the token is not lost to a node the core never admitted.
        const auto bound = m_shared->bindings.find(m_hello->tokenId);
        if (bound != m_shared->bindings.end() && bound->second == m_hello->nodeName)
            m_shared->bindings.erase(bound);
        if (m_state == State::Binding)
            refuseJoin("cannot record the use of bootstrap token " + m_hello->tokenId + ": " + *error,
                "the core cannot record the use of the bootstrap token; try again later");
        return;
    }
    if (m_state == State::Binding)
        admit();
}

void AgentSession::admit()
{
    auto sessionId = protocol::randomHex(16);
    if (!sessionId) {
        close("cannot create a session id: " + sessionId.error().message);
        return;
    }
    m_sessionId = std::move(*sessionId);
    m_state = State::Joined;
    m_joinTimer.cancel();
    ++m_shared->stats.agentsJoined;
    m_shared->logLine("agent-server: " + describe() + ": joined, session " + m_sessionId);
    m_shared->joined[m_sessionId] = weak_from_this();
    protocol::Welcome welcome { m_sessionId, m_shared->config.heartbeatIntervalMs };
    // Only to an agent that named features: one from before them would refuse the field.
    if (!m_hello->features.empty())
        welcome.features = m_shared->config.features;
    send(welcome);
    if (m_shared->events.joined)
        m_shared->events.joined(JoinedAgent { m_sessionId, m_remote, *m_hello });
}

void AgentSession::onHeartbeat(const protocol::Heartbeat& heartbeat)
{
    // Sequences only grow within a session: a replayed or reordered heartbeat is a protocol error.
    if (m_anyHeartbeat && heartbeat.sequence <= m_lastSequence) {
        badFrame("heartbeat sequence " + std::to_string(heartbeat.sequence) + " does not follow "
            + std::to_string(m_lastSequence));
        return;
    }
    m_anyHeartbeat = true;
    m_lastSequence = heartbeat.sequence;
    ++m_shared->stats.heartbeats;
    if (m_shared->events.heartbeat)
        m_shared->events.heartbeat(m_sessionId, heartbeat);
}

void AgentSession::badFrame(const std::string& reason)
{
    ++m_shared->stats.badFrames;
    close(reason);
}

void AgentSession::send(const protocol::Message& message)
{
    if (m_state == State::Closed)
        return;
    auto frame = protocol::encodeFrame(protocol::encodeMessage(message), m_shared->config.maxFrameBytes);
    if (!frame) {
        close("cannot send `" + std::string(protocol::typeName(message)) + "`: " + frame.error().message);
        return;
    }
    if (m_writer.full()) {
        close("the agent does not read: " + std::to_string(m_writer.size()) + " frames queued");
        return;
    }
    ++m_shared->stats.framesSent;
    m_writer.push(m_stream, std::move(*frame), shared_from_this());
}

void AgentSession::dismiss(const protocol::Reject& reject, const std::string& reason)
{
    if (m_state != State::Joined) {
        close(reason);
        return;
    }
    send(reject);
    if (m_state == State::Closed)
        return; // its queue was full: closed at once
    // The session leaves now, not once the reject is written: the core is done with it, and a command sent meanwhile
    // must find it gone rather than be written after the reject.
    m_state = State::Rejecting;
    m_closeReason = reason;
    m_shared->logLine("agent-server: " + describe() + ": ending session " + m_sessionId + ": " + reason);
    m_shared->joined.erase(m_sessionId);
    if (m_shared->events.left)
        m_shared->events.left(m_sessionId, reason);
    // An agent that does not read would keep the reject, and the connection, waiting for ever.
    constexpr std::chrono::seconds kDismissTimeout { 5 };
    m_joinTimer.expires_after(kDismissTimeout);
    m_joinTimer.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
        if (!ec)
            self->close(self->m_closeReason + " (the reject was not taken within 5 s)");
    });
    if (!m_writer.writing())
        close(reason);
}

void AgentSession::closeAfterWrites(const std::string& reason)
{
    if (m_state == State::Closed)
        return;
    m_state = State::Rejecting; // no more frames are read
    m_closeReason = reason;
    if (!m_writer.writing())
        close(reason);
}

void AgentSession::onWriteFailed(const boost::system::error_code& ec)
{
    close("write failed: " + ec.message());
}

void AgentSession::onWritesDrained()
{
    if (m_state == State::Rejecting)
        close(m_closeReason);
}

void AgentSession::close(const std::string& reason)
{
    if (m_state == State::Closed)
        return;
    const bool wasJoined = m_state == State::Joined;
    m_state = State::Closed;
    m_shared->logLine("agent-server: " + describe() + ": connection closed: " + reason);
    m_joinTimer.cancel();
    m_stream.close();
    m_writer.clear();
    m_pending.reset();
    if (wasJoined) {
        m_shared->joined.erase(m_sessionId);
        if (m_shared->events.left)
            m_shared->events.left(m_sessionId, reason);
    }
}

} // namespace tidepool::net
