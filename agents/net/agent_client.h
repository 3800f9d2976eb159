#pragma once
// The agent's side of the protocol: connects out to the core (NAT-friendly), joins (hello → challenge → auth →
// welcome), then sends its inventory, heartbeats and workload updates and receives the core's commands. A `reject`
// (a refused join, or the core ending a joined session: another agent joined under this node's name, say), a bad frame
// or an invalid message from the core closes the connection with a logged reason. Reconnecting with back-off is the
// owner's job (`AgentConnection`).
//
// Thread affinity: one io_context thread; `start`, `sendHeartbeat`, `close`, the accessors and the events are used
// and called there. Ownership: `create` returns a shared pointer; pending handlers keep the client alive.

#include "protocol/frame.h"
#include "protocol/log_sink.h"
#include "protocol/messages.h"
#include "protocol/transport/frame_writer.h"
#include "protocol/transport/stream.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tidepool::agent {

struct AgentClientConfig {
    std::string host; // the core's agent address
    std::uint16_t port = 0;
    std::string joinToken; // the shared join token, or a bootstrap token (`tpb1.<id>.<secret>`, protocol/join.h)
    protocol::Hello hello;
    std::uint32_t maxFrameBytes = protocol::kDefaultMaxFrameBytes;
    std::chrono::milliseconds joinTimeout { 10'000 }; // from start to welcome
    std::size_t maxQueuedFrames = 256; // heartbeats beyond this are dropped (and counted) while the core is slow
    // TLS when set (`transport::makeClientContext`): the core's certificate must verify against the context's CA and
    // name `tlsServerName` (default: `host`).
    std::shared_ptr<boost::asio::ssl::context> tls;
    std::string tlsServerName;
};

struct AgentClientEvents {
    std::function<void(const protocol::Welcome&)> welcomed;
    std::function<void(const protocol::Reject& reject)> rejected; // before the join, or ending a joined session
    std::function<void(const std::string& reason)> closed; // after any close, rejections included
    // A command from the core once joined: `PoolConfig`, `Launch` or `Stop`.
    std::function<void(const protocol::Message&)> command;
};

class AgentClient : public std::enable_shared_from_this<AgentClient> {
public:
    enum class State : std::uint8_t {
        Invalid = 0,
        Idle,
        Connecting,
        AwaitingChallenge,
        AwaitingWelcome,
        Joined,
        Closed
    };

    // Fails when the hello would not pass the core's validation or the join token is too short.
    static protocol::Expected<std::shared_ptr<AgentClient>> create(
        boost::asio::io_context& io, AgentClientConfig config, AgentClientEvents events, protocol::LogSink log);

    void start();
    // Queues a heartbeat; false (and nothing sent) unless joined, or when the write queue is full.
    bool sendHeartbeat(const protocol::Heartbeat& heartbeat);
    // Queues any agent → core message once joined (inventory, workload updates); false as for heartbeats.
    bool sendJoined(const protocol::Message& message);
    void close(const std::string& reason);

    State state() const { return m_state; }
    const std::optional<protocol::Welcome>& welcome() const { return m_welcome; }
    const std::string& closeReason() const { return m_closeReason; }
    // Whether the hello went out, and whether any frame came back: a core that closes on the hello without a word
    // refused it (one from before features does so with a hello that names them).
    bool helloSent() const { return m_helloSent; }
    bool heardFromCore() const { return m_heardFromCore; }
    // Whether the connection ended because the core ended the stream (end of file, or a TLS stream cut without its
    // close_notify), as a core that refuses a frame does; not a reset, a failed read or write, or a timeout.
    bool endedByCore() const { return m_endedByCore; }
    std::uint64_t droppedFrames() const { return m_dropped; }

    AgentClient(boost::asio::io_context& io, AgentClientConfig config, AgentClientEvents events,
        protocol::LogSink log); // use `create`

    // The write queue's callbacks (transport::FrameWriter).
    bool writesStopped() const { return m_state == State::Closed; }
    void onWriteFailed(const boost::system::error_code& ec);
    void onWritesDrained() { }

private:
    void onResolve(const boost::system::error_code& ec, const boost::asio::ip::tcp::resolver::results_type& results);
    void onConnect(const boost::system::error_code& ec);
    void onHandshake(const boost::system::error_code& ec);
    void doRead();
    void onRead(const boost::system::error_code& ec, std::size_t bytes);
    void handleFrame(const std::string& payload);
    bool send(const protocol::Message& message);
    void logLine(const std::string& line) const;

    AgentClientConfig m_config;
    AgentClientEvents m_events;
    protocol::LogSink m_log;
    boost::asio::ip::tcp::resolver m_resolver;
    transport::Stream m_stream;
    boost::asio::steady_timer m_joinTimer;
    protocol::FrameDecoder m_decoder;
    std::array<char, 16 * 1024> m_readBuffer {};
    std::vector<std::string> m_frames;
    transport::FrameWriter m_writer;
    State m_state = State::Idle;
    std::optional<protocol::Welcome> m_welcome;
    std::string m_closeReason;
    std::uint64_t m_dropped = 0;
    bool m_helloSent = false;
    bool m_heardFromCore = false;
    bool m_endedByCore = false;
};

} // namespace tidepool::agent
