#include "agents/net/agent_client.h"

#include <boost/asio/ssl/host_name_verification.hpp>

#include "protocol/join.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/write.hpp>

namespace tidepool::agent {

namespace asio = boost::asio;
using asio::ip::tcp;

protocol::Expected<std::shared_ptr<AgentClient>> AgentClient::create(
    asio::io_context& io, AgentClientConfig config, AgentClientEvents events, protocol::LogSink log)
{
    if (auto token = protocol::checkJoinToken(config.joinToken); !token)
        return tl::unexpected(token.error());
    // A single-use bootstrap token is named in the hello; its secret only keys the MAC.
    if (const auto bootstrap = protocol::parseBootstrapToken(config.joinToken))
        config.hello.tokenId = bootstrap->id;
    // The hello is checked by the very decoder the core runs, so an agent learns of a bad node name at start-up
    // and not from a closed connection.
    if (auto echoed = protocol::decodeMessage(protocol::encodeMessage(config.hello)); !echoed)
        return tl::unexpected(echoed.error());
    return std::make_shared<AgentClient>(io, std::move(config), std::move(events), std::move(log));
}

AgentClient::AgentClient(
    asio::io_context& io, AgentClientConfig config, AgentClientEvents events, protocol::LogSink log)
    : m_config(std::move(config))
    , m_events(std::move(events))
    , m_log(std::move(log))
    , m_resolver(io)
    , m_stream(m_config.tls ? transport::Stream(tcp::socket(io), *m_config.tls) : transport::Stream(tcp::socket(io)))
    , m_joinTimer(io)
    , m_decoder(m_config.maxFrameBytes)
    , m_writer(m_config.maxQueuedFrames)
{
}

void AgentClient::logLine(const std::string& line) const
{
    if (m_log)
        m_log(line);
}

void AgentClient::start()
{
    if (m_state != State::Idle)
        return;
    m_state = State::Connecting;
    m_joinTimer.expires_after(m_config.joinTimeout);
    m_joinTimer.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
        if (!ec && self->m_state != State::Joined)
            self->close("no welcome within " + std::to_string(self->m_config.joinTimeout.count()) + " ms");
    });
    m_resolver.async_resolve(m_config.host, std::to_string(m_config.port),
        [self = shared_from_this()](const boost::system::error_code& ec, const tcp::resolver::results_type& results) {
            self->onResolve(ec, results);
        });
}

void AgentClient::onResolve(const boost::system::error_code& ec, const tcp::resolver::results_type& results)
{
    if (m_state == State::Closed)
        return;
    if (ec) {
        close("cannot resolve " + m_config.host + ": " + ec.message());
        return;
    }
    asio::async_connect(
        m_stream.socket(), results, [self = shared_from_this()](const boost::system::error_code& ec, const tcp::endpoint&) {
            self->onConnect(ec);
        });
}

void AgentClient::onConnect(const boost::system::error_code& ec)
{
    if (m_state == State::Closed)
        return;
    if (ec) {
        close("cannot connect to " + m_config.host + ":" + std::to_string(m_config.port) + ": " + ec.message());
        return;
    }
    if (transport::Stream::Tls* tls = m_stream.tlsStream()) {
        const std::string& name = m_config.tlsServerName.empty() ? m_config.host : m_config.tlsServerName;
        // SNI, and the certificate must name the core we meant to reach, not merely chain to the CA.
        SSL_set_tlsext_host_name(tls->native_handle(), name.c_str());
        tls->set_verify_callback(asio::ssl::host_name_verification(name));
    }
    m_stream.asyncHandshake(asio::ssl::stream_base::client,
        [self = shared_from_this()](const boost::system::error_code& ec) { self->onHandshake(ec); });
}

void AgentClient::onHandshake(const boost::system::error_code& ec)
{
    if (m_state == State::Closed)
        return;
    if (ec) {
        close("TLS handshake with " + m_config.host + ":" + std::to_string(m_config.port) + " failed: " + ec.message());
        return;
    }
    m_state = State::AwaitingChallenge;
    m_helloSent = send(m_config.hello);
    doRead();
}

void AgentClient::doRead()
{
    m_stream.asyncReadSome(asio::buffer(m_readBuffer),
        [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) { self->onRead(ec, n); });
}

void AgentClient::onRead(const boost::system::error_code& ec, std::size_t bytes)
{
    if (m_state == State::Closed)
        return;
    if (ec) {
        m_endedByCore = ec == asio::error::eof || ec == asio::ssl::error::stream_truncated;
        close(ec == asio::error::eof ? std::string("the core closed the connection") : "read failed: " + ec.message());
        return;
    }
    m_frames.clear();
    const auto fed = m_decoder.feed(std::string_view(m_readBuffer.data(), bytes), m_frames);
    for (const std::string& frame : m_frames) {
        handleFrame(frame);
        if (m_state == State::Closed)
            return;
    }
    if (!fed) {
        close(fed.error().message);
        return;
    }
    doRead();
}

void AgentClient::handleFrame(const std::string& payload)
{
    m_heardFromCore = true;
    auto message = protocol::decodeMessage(payload);
    if (!message) {
        close("invalid message from the core: " + message.error().message);
        return;
    }
    if (const auto* reject = std::get_if<protocol::Reject>(&*message)) {
        // Before the welcome a refused join; after it the core ending the session, saying why.
        const bool joined = m_state == State::Joined;
        logLine(joined ? "agent: the core ended the session (" + std::string(protocol::toString(reject->cause))
                    + "): " + reject->reason
                       : "agent: join rejected by the core: " + reject->reason);
        if (m_events.rejected)
            m_events.rejected(*reject);
        close((joined ? "ended by the core: " : "rejected: ") + reject->reason);
    } else if (const auto* challenge = std::get_if<protocol::Challenge>(&*message);
               challenge && m_state == State::AwaitingChallenge) {
        auto auth = protocol::answerChallenge(m_config.joinToken, m_config.hello, *challenge);
        if (!auth) {
            close("cannot answer the challenge: " + auth.error().message);
            return;
        }
        m_state = State::AwaitingWelcome;
        send(*auth);
    } else if (const auto* welcome = std::get_if<protocol::Welcome>(&*message);
               welcome && m_state == State::AwaitingWelcome) {
        m_state = State::Joined;
        m_joinTimer.cancel();
        m_welcome = *welcome;
        logLine("agent: joined the core, session " + welcome->sessionId);
        if (m_events.welcomed)
            m_events.welcomed(*welcome);
    } else if (m_state == State::Joined
        && (std::holds_alternative<protocol::PoolConfig>(*message) || std::holds_alternative<protocol::Launch>(*message)
            || std::holds_alternative<protocol::Stop>(*message)
            || std::holds_alternative<protocol::LogRequest>(*message)
            || std::holds_alternative<protocol::Resize>(*message))) {
        if (m_events.command)
            m_events.command(*message);
    } else {
        close("unexpected `" + std::string(protocol::typeName(*message))
            + "` from the core at this point of the session");
    }
}

bool AgentClient::sendHeartbeat(const protocol::Heartbeat& heartbeat)
{
    if (m_state != State::Joined)
        return false;
    return send(heartbeat);
}

bool AgentClient::sendJoined(const protocol::Message& message)
{
    if (m_state != State::Joined)
        return false;
    return send(message);
}

bool AgentClient::send(const protocol::Message& message)
{
    auto frame = protocol::encodeFrame(protocol::encodeMessage(message), m_config.maxFrameBytes);
    if (!frame) {
        logLine("agent: cannot send `" + std::string(protocol::typeName(message)) + "`: " + frame.error().message);
        ++m_dropped;
        return false;
    }
    if (m_writer.full()) {
        ++m_dropped;
        return false;
    }
    m_writer.push(m_stream, std::move(*frame), shared_from_this());
    return true;
}

void AgentClient::onWriteFailed(const boost::system::error_code& ec)
{
    close("write failed: " + ec.message());
}

void AgentClient::close(const std::string& reason)
{
    if (m_state == State::Closed)
        return;
    m_state = State::Closed;
    m_closeReason = reason;
    logLine("agent: connection closed: " + reason);
    m_joinTimer.cancel();
    m_resolver.cancel();
    m_stream.close();
    m_writer.clear();
    if (m_events.closed)
        m_events.closed(reason);
}

} // namespace tidepool::agent
