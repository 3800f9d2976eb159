#pragma once
// One agent connection on the core's side: the read loop with the incremental frame decoder, the join handshake
// and the heartbeats that follow it, and a bounded write queue with one write in flight. Internal to `AgentServer`.
//
// Thread affinity: the server's io_context thread. Handlers hold the session through `shared_from_this()`.

#include "core/net/agent_server.h"
#include "protocol/transport/frame_writer.h"
#include "protocol/transport/stream.h"

#include <boost/asio/steady_timer.hpp>

#include <array>
#include <optional>

namespace tidepool::net {

class AgentSession : public std::enable_shared_from_this<AgentSession> {
public:
    AgentSession(boost::asio::ip::tcp::socket socket, std::shared_ptr<AgentServerShared> shared);

    void start();
    // Closes the connection now, logging `reason`. Idempotent.
    void close(const std::string& reason);
    // Ends a joined session: it leaves at once (no longer joined, its `left` event fired), `reject` tells the agent
    // why, and the connection closes once that is written (or after `kDismissTimeout`, should the agent not read).
    // Not yet joined: as `close`.
    void dismiss(const protocol::Reject& reject, const std::string& reason);
    bool closed() const { return m_state == State::Closed; }
    // Queues one message; a full queue closes the connection (the peer does not read).
    void send(const protocol::Message& message);

    // The write queue's callbacks (transport::FrameWriter).
    bool writesStopped() const { return m_state == State::Closed; }
    void onWriteFailed(const boost::system::error_code& ec);
    void onWritesDrained();

private:
    enum class State : std::uint8_t { Invalid = 0, AwaitingHello, AwaitingAuth, Binding, Joined, Rejecting, Closed };

    void doRead();
    void onRead(const boost::system::error_code& ec, std::size_t bytes);
    void handleFrame(const std::string& payload);
    void onHello(const protocol::Hello& hello);
    void onAuth(const protocol::Auth& auth);
    // After a verified MAC: binds a fresh bootstrap token to this node (durably, then `admit`), admits a node its
    // token is bound to, refuses any other.
    void claimToken();
    void onBound(const std::optional<std::string>& error);
    void admit();
    void refuseJoin(const std::string& logReason, const std::string& agentReason);
    void onHeartbeat(const protocol::Heartbeat& heartbeat);
    void badFrame(const std::string& reason);
    void onJoinTimeout(const boost::system::error_code& ec);
    std::string handshakeFailure(const boost::system::error_code& ec);

    void closeAfterWrites(const std::string& reason);

    std::string describe() const; // "address:port" plus the node name once known

    transport::Stream m_stream; // plain TCP, or TLS when the server has a context
    boost::asio::steady_timer m_joinTimer;
    std::shared_ptr<AgentServerShared> m_shared;
    protocol::FrameDecoder m_decoder;
    std::array<char, 16 * 1024> m_readBuffer {};
    std::vector<std::string> m_frames; // decoded by the last read, reused
    transport::FrameWriter m_writer;
    std::string m_closeReason; // set while `Rejecting`: why the connection closes once the queue is written
    State m_state = State::AwaitingHello;
    std::string m_remote;
    std::optional<protocol::PendingJoin> m_pending;
    std::optional<protocol::Hello> m_hello;
    std::string m_sessionId;
    std::uint64_t m_lastSequence = 0;
    bool m_anyHeartbeat = false;
};

} // namespace tidepool::net
