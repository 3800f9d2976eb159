#include "core/net/agent_server.h"

#include "core/net/agent_session.h"

#include <boost/asio/ip/address.hpp>

#include <algorithm>

namespace tidepool::net {

namespace asio = boost::asio;
using asio::ip::tcp;

std::shared_ptr<AgentServer> AgentServer::create(
    asio::io_context& io, AgentServerConfig config, AgentServerEvents events, protocol::LogSink log)
{
    protocol::JoinVerifier verifier(config.joinToken, config.bootstrapTokens);
    std::map<std::string, std::string> bindings = config.tokenBindings;
    auto shared = std::make_shared<AgentServerShared>(AgentServerShared {
        std::move(config), std::move(verifier), std::move(events), std::move(log), {}, {}, std::move(bindings) });
    return std::make_shared<AgentServer>(io, std::move(shared));
}

AgentServer::AgentServer(asio::io_context& io, std::shared_ptr<AgentServerShared> shared)
    : m_io(io)
    , m_acceptor(io)
    , m_acceptRetry(io)
    , m_shared(std::move(shared))
{
}

Expected<std::uint16_t> AgentServer::listen(const std::string& address, std::uint16_t port)
{
    if (m_shared->config.joinToken.empty() && m_shared->config.bootstrapTokens.empty())
        return makeError(ErrorCode::InvalidArgument, "no join token and no bootstrap tokens: no agent could join");
    if (!m_shared->config.joinToken.empty())
        if (auto token = protocol::checkJoinToken(m_shared->config.joinToken); !token)
            return makeError(ErrorCode::InvalidArgument, token.error().message);
    if (m_shared->config.maxFrameBytes < 1024)
        return makeError(ErrorCode::InvalidArgument,
            "maxFrameBytes " + std::to_string(m_shared->config.maxFrameBytes) + " is below 1024");
    if (m_shared->config.heartbeatIntervalMs < protocol::kMinHeartbeatIntervalMs
        || m_shared->config.heartbeatIntervalMs > protocol::kMaxHeartbeatIntervalMs)
        return makeError(ErrorCode::InvalidArgument,
            "heartbeatIntervalMs " + std::to_string(m_shared->config.heartbeatIntervalMs) + " is out of range");

    boost::system::error_code ec;
    const auto ip = asio::ip::make_address(address, ec);
    if (ec)
        return makeError(ErrorCode::InvalidArgument, "agent listen address \"" + address + "\": " + ec.message());
    const tcp::endpoint endpoint(ip, port);
    const std::string where = address + ":" + std::to_string(port);
    if (m_acceptor.open(endpoint.protocol(), ec); ec)
        return makeError(ErrorCode::IoError, "cannot open the agent listener on " + where + ": " + ec.message());
    if (m_acceptor.set_option(tcp::acceptor::reuse_address(true), ec); ec)
        return makeError(ErrorCode::IoError, "cannot set SO_REUSEADDR on " + where + ": " + ec.message());
    if (m_acceptor.bind(endpoint, ec); ec) {
        m_acceptor.close(ec);
        return makeError(ErrorCode::IoError, "cannot bind the agent listener to " + where + ": " + ec.message());
    }
    if (m_acceptor.listen(asio::socket_base::max_listen_connections, ec); ec) {
        m_acceptor.close(ec);
        return makeError(ErrorCode::IoError, "cannot listen on " + where + ": " + ec.message());
    }
    const std::uint16_t bound = m_acceptor.local_endpoint(ec).port();
    m_shared->logLine("agent-server: listening on " + address + ":" + std::to_string(bound));
    doAccept();
    return bound;
}

void AgentServer::stop()
{
    boost::system::error_code ec;
    m_acceptor.close(ec);
    m_acceptRetry.cancel();
    for (const auto& weak : m_sessions)
        if (const auto session = weak.lock())
            session->close("the server is stopping");
    m_sessions.clear();
}

void AgentServer::dismissAll(const std::string& reason)
{
    boost::system::error_code ec;
    m_acceptor.close(ec);
    m_acceptRetry.cancel();
    for (const auto& weak : m_sessions)
        if (const auto session = weak.lock())
            session->dismiss(
                protocol::Reject { reason.substr(0, protocol::kMaxTextBytes), protocol::RejectCause::Closed }, reason);
}

std::size_t AgentServer::connectionCount() const
{
    return static_cast<std::size_t>(std::count_if(m_sessions.begin(), m_sessions.end(), [](const auto& weak) {
        const auto session = weak.lock();
        return session && !session->closed();
    }));
}

bool AgentServer::send(const std::string& sessionId, const protocol::Message& message)
{
    const auto it = m_shared->joined.find(sessionId);
    if (it == m_shared->joined.end())
        return false;
    const auto session = it->second.lock();
    if (!session || session->closed())
        return false;
    if (const auto* reject = std::get_if<protocol::Reject>(&message)) {
        // A reject is the last word of a session.
        session->dismiss(*reject, reject->reason);
        return true;
    }
    session->send(message);
    return !session->closed();
}

bool AgentServer::disconnect(const std::string& sessionId, const std::string& reason, protocol::RejectCause cause)
{
    const auto it = m_shared->joined.find(sessionId);
    if (it == m_shared->joined.end())
        return false;
    const auto session = it->second.lock();
    if (!session)
        return false;
    session->dismiss(protocol::Reject { reason.substr(0, protocol::kMaxTextBytes), cause }, reason);
    return true;
}

void AgentServer::setBootstrapTokens(std::vector<protocol::BootstrapToken> tokens)
{
    m_shared->config.bootstrapTokens = tokens;
    m_shared->verifier.setBootstrapTokens(std::move(tokens));
}

void AgentServer::doAccept()
{
    m_acceptor.async_accept(m_io, [self = shared_from_this()](const boost::system::error_code& ec, tcp::socket socket) {
        self->onAccept(ec, std::move(socket));
    });
}

void AgentServer::onAccept(const boost::system::error_code& ec, tcp::socket socket)
{
    if (ec == asio::error::operation_aborted || !m_acceptor.is_open())
        return; // stopped
    if (!ec) {
        ++m_shared->stats.connectionsAccepted;
        std::erase_if(m_sessions, [](const auto& weak) { return weak.expired(); });
        auto session = std::make_shared<AgentSession>(std::move(socket), m_shared);
        m_sessions.push_back(session);
        session->start();
    } else {
        // Transient failures (EMFILE, ECONNABORTED) must not stop the listener, nor spin it: out of descriptors, an
        // immediate retry fails at once again, so wait a little before accepting anew.
        m_shared->logLine("agent-server: accept failed: " + ec.message() + "; retrying in 100 ms");
        m_acceptRetry.expires_after(std::chrono::milliseconds(100));
        m_acceptRetry.async_wait([self = shared_from_this()](const boost::system::error_code& waited) {
            if (!waited && self->m_acceptor.is_open())
                self->doAccept();
        });
        return;
    }
    doAccept();
}

} // namespace tidepool::net
