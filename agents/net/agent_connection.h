#pragma once
// An agent's lasting link to the core, over successive `AgentClient` connections: reconnects with jittered
// exponential back-off (full jitter, 0.5 s doubling to 30 s, reset after a join), sends the full inventory after
// every join (the core reconciles its placements with it), samples telemetry every heartbeat interval into a
// bounded buffer whether connected or not, and flushes the buffer in the next heartbeat. Commands from the core are
// handed to the owner; workload updates are sent when joined and otherwise carried by the next inventory.
//
// Displaced: when the core ends the session because another agent joined under this node's name (a `reject` with
// cause `replaced`), two agents share one name, and each join would push the other off. The agent says so in its log,
// naming what the core said, and waits before it joins again: `displacedBackoff`, doubling with each displacement in a
// row up to `maxDisplacedBackoff` (a wait in [w/2, w]), so that two such agents settle to taking turns minutes apart
// instead of flapping. The streak ends when a session outlasts `maxDisplacedBackoff` or ends for another reason.
//
// Features: the hello names what the agent speaks (`client.hello.features`) and the welcome what the core reads; a
// sample's pool usage goes only to a core that names `pool-usage`. A core from before features closes the connection
// on such a hello without a word; when the core closes on the hello like that (it ends the stream: a network failure,
// a reset or a join that timed out is no such answer), the next join goes without features (a core that welcomes it
// is taken to read none of them), and the join after a session ended tries them again, since the core may have been
// upgraded meanwhile.
//
// Thread affinity: one io_context thread; everything, the providers and the handlers included, runs there.
// Ownership: `create` returns a shared pointer; timers hold it alive until `stop()`.

#include "agents/net/agent_client.h"

#include <deque>
#include <random>

namespace tidepool::agent {

struct AgentConnectionConfig {
    AgentClientConfig client; // host, port, join token, hello
    std::chrono::milliseconds initialBackoff { 500 };
    std::chrono::milliseconds maxBackoff { 30'000 };
    std::chrono::milliseconds sampleInterval { 5000 }; // until the core's welcome says otherwise
    std::size_t telemetryBuffer = 720; // samples kept while disconnected (an hour at 5 s); the oldest go first
    std::uint64_t seed = 0; // of the back-off jitter; 0 = from the random device
    std::chrono::milliseconds displacedBackoff { 5'000 }; // after the first displacement (see above)
    std::chrono::milliseconds maxDisplacedBackoff { 600'000 };
};

struct AgentConnectionHandlers {
    std::function<protocol::Inventory()> inventory; // the node and every workload held, at each join
    std::function<protocol::UtilisationSample()> sample; // one telemetry sample, every interval
    std::function<void(const protocol::Message&)> command; // PoolConfig, Launch or Stop
    std::function<void(bool joined)> linkChanged; // optional
};

struct AgentConnectionStats {
    std::uint64_t connects = 0; // attempts
    std::uint64_t joins = 0;
    std::uint64_t rejections = 0;
    std::uint64_t displacements = 0; // sessions the core ended because another agent joined under this name
    std::uint32_t displacedInARow = 0;
    std::chrono::milliseconds lastDisplacedWait { 0 }; // the wait before the rejoin after the latest displacement
    std::uint64_t samplesDropped = 0; // the buffer was full
    std::uint64_t heartbeatsSent = 0;
    std::uint64_t plainHellos = 0; // joins tried without features after a core closed on a hello naming them
};

class AgentConnection : public std::enable_shared_from_this<AgentConnection> {
public:
    static std::shared_ptr<AgentConnection> create(boost::asio::io_context& io, AgentConnectionConfig config,
        AgentConnectionHandlers handlers, protocol::LogSink log);

    void start();
    void stop();
    // Sends a workload's new state now when joined; false otherwise (the next inventory carries it).
    bool sendUpdate(const protocol::WorkloadStatus& status);
    // Answers a `log_request` now when joined; false otherwise (the core has given up on it: a new session asks again).
    // Without its positions to a core that does not read them (kFeatureLogFollow).
    bool sendLogs(protocol::LogReply reply);
    // Answers a `resize` now when joined; false otherwise (the core sends it again to the next session).
    bool sendResized(const protocol::Resized& answer);

    bool joined() const { return m_client && m_client->state() == AgentClient::State::Joined; }
    const AgentConnectionStats& stats() const { return m_stats; }
    std::size_t bufferedSamples() const { return m_buffer.size(); }

    AgentConnection(boost::asio::io_context& io, AgentConnectionConfig config, AgentConnectionHandlers handlers,
        protocol::LogSink log); // use `create`

private:
    void connect();
    void scheduleReconnect();
    void onWelcome(const protocol::Welcome& welcome);
    void onClosed(const std::string& reason);
    void onRejected(const protocol::Reject& reject);
    void scheduleSample();
    void onSample();
    void logLine(const std::string& line) const;

    boost::asio::io_context& m_io;
    AgentConnectionConfig m_config;
    AgentConnectionHandlers m_handlers;
    protocol::LogSink m_log;
    std::shared_ptr<AgentClient> m_client;
    boost::asio::steady_timer m_reconnectTimer;
    boost::asio::steady_timer m_sampleTimer;
    std::chrono::milliseconds m_backoff;
    std::chrono::milliseconds m_interval;
    std::deque<protocol::UtilisationSample> m_buffer;
    std::uint64_t m_sequence = 0;
    std::mt19937_64 m_random;
    bool m_stopped = true;
    std::optional<protocol::Reject> m_displaced; // the current connection was ended by a `replaced` reject
    std::chrono::steady_clock::time_point m_joinedAt {};
    bool m_plainHello = false; // the next hello names no features (see the header comment)
    bool m_corePoolUsage = false; // the core of the current session reads samples' pool usage
    bool m_coreWorkloadUsage = false; // and their workloads' usage
    bool m_coreLogFollow = false; // ... and the positions of a `logs` answer
    AgentConnectionStats m_stats;
};

} // namespace tidepool::agent
