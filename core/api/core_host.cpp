#include "core/api/core_host.h"

namespace tidepool::api {

CoreHost::CoreHost(DaemonConfig config, protocol::LogSink log)
    : m_config(std::move(config))
    , m_log(std::move(log))
{
}

CoreHost::~CoreHost()
{
    stop();
}

Expected<std::unique_ptr<CoreHost>> CoreHost::create(boost::asio::io_context& io, DaemonConfig config,
    std::shared_ptr<boost::asio::ssl::context> tls, protocol::LogSink log)
{
    if (auto agents = net::parseHostPort(config.agentListen); !agents)
        return makeError(ErrorCode::InvalidArgument, "agent listen address: " + agents.error().message);
    if (auto api = net::parseHostPort(config.apiListen); !api && !config.apiListen.empty())
        return makeError(ErrorCode::InvalidArgument, "API listen address: " + api.error().message);
    std::unique_ptr<CoreHost> host(new CoreHost(std::move(config), std::move(log)));
    CoreHost& h = *host;
    if (!h.m_config.db.empty()) {
        auto opened = store::openSqliteStore(h.m_config.db);
        if (!opened)
            return tl::unexpected(opened.error());
        h.m_store = std::move(*opened);
    }
    // The plane sends to agents through the server built just after it; both live as long as the host.
    AgentLink link {
        [&h](const std::string& session, const protocol::Message& m) { return h.m_agents->send(session, m); },
        [&h](const std::string& session, const std::string& why) { return h.m_agents->disconnect(session, why); },
    };
    auto plane = ControlPlane::create(io, h.m_config.plane, link, h.m_log, h.m_store.get());
    if (!plane)
        return tl::unexpected(plane.error());
    h.m_plane = std::move(*plane);
    ControlPlane& core = *h.m_plane;

    net::AgentServerConfig agentConfig;
    agentConfig.joinToken = h.m_config.joinToken;
    agentConfig.maxFrameBytes = h.m_config.maxFrameBytes;
    agentConfig.heartbeatIntervalMs = h.m_config.plane.heartbeatIntervalMs;
    agentConfig.tls = std::move(tls);
    net::AgentServerEvents events;
    events.joined = [&core](const net::JoinedAgent& a) { core.onJoined(a.sessionId, a.remote, a.hello); };
    events.inventory = [&core](const std::string& s, const protocol::Inventory& i) { core.onInventory(s, i); };
    events.heartbeat = [&core](const std::string& s, const protocol::Heartbeat& hb) { core.onHeartbeat(s, hb); };
    events.workloadUpdate
        = [&core](const std::string& s, const protocol::WorkloadStatus& w) { core.onWorkloadUpdate(s, w); };
    events.left = [&core](const std::string& s, const std::string& why) { core.onLeft(s, why); };
    h.m_agents = net::AgentServer::create(io, agentConfig, events, h.m_log);

    h.m_history = std::make_unique<HistoryRecorder>(io, core, h.m_config.history, h.m_log);
    // The evaluation loop needs history, so it runs only with a database.
    if (h.m_store) {
        auto created = Rebalancer::create(io, core, h.m_config.rebalance, h.m_log);
        if (!created)
            return tl::unexpected(created.error());
        h.m_rebalancer = std::move(*created);
    }
    if (!h.m_config.apiListen.empty()) {
        h.m_api = std::make_unique<HttpApi>(
            core, std::move(h.m_config.tokens), [&h](std::string& out) { h.appendAgentMetrics(out); });
        h.m_api->setRebalancer(h.m_rebalancer.get());
        HttpApi& api = *h.m_api;
        h.m_http = net::HttpServer::create(
            io, net::HttpServerConfig {},
            [&api](const net::HttpRequest& r, const std::string& peer, net::HttpRespond respond) {
                api.handle(r, peer, std::move(respond));
            },
            h.m_log);
    }
    return host;
}

void CoreHost::appendAgentMetrics(std::string& out) const
{
    const net::AgentServerStats& s = m_agents->stats();
    struct Counter {
        const char* name;
        const char* help;
        std::uint64_t value;
    };
    const Counter counters[] = {
        { "tidepool_agent_connections_accepted_total", "Connections accepted on the agent port.", s.connectionsAccepted },
        { "tidepool_agent_joins_total", "Agents that completed the join handshake.", s.agentsJoined },
        { "tidepool_agent_joins_rejected_total", "Joins refused: a wrong join token or a bad hello.", s.joinsRejected },
        { "tidepool_agent_bad_frames_total", "Malformed frames received (the connection is closed).", s.badFrames },
        { "tidepool_agent_join_timeouts_total", "Connections closed for not joining in time.", s.joinTimeouts },
        { "tidepool_agent_tls_handshake_failures_total", "Failed TLS handshakes on the agent port.",
            s.tlsHandshakeFailures },
        { "tidepool_agent_heartbeats_total", "Heartbeats received from agents.", s.heartbeats },
        { "tidepool_agent_frames_received_total", "Frames received from agents.", s.framesReceived },
        { "tidepool_agent_frames_sent_total", "Frames sent to agents.", s.framesSent },
    };
    // Each with its HELP and TYPE, as `promtool check metrics` asks.
    for (const Counter& c : counters)
        out += std::string("# HELP ") + c.name + " " + c.help + "\n# TYPE " + c.name + " counter\n" + c.name + " "
            + std::to_string(c.value) + "\n";
    out += "# HELP tidepool_agent_connections Agent connections open now.\n"
           "# TYPE tidepool_agent_connections gauge\ntidepool_agent_connections "
        + std::to_string(m_agents->connectionCount()) + "\n";
}

Expected<void> CoreHost::start()
{
    if (m_started)
        return {};
    const auto agentAddress = *net::parseHostPort(m_config.agentListen);
    auto agentPort = m_agents->listen(agentAddress.first, agentAddress.second);
    if (!agentPort)
        return tl::unexpected(agentPort.error());
    if (m_http) {
        const auto apiAddress = *net::parseHostPort(m_config.apiListen);
        auto apiPort = m_http->listen(apiAddress.first, apiAddress.second);
        if (!apiPort) {
            m_agents->stop();
            return tl::unexpected(apiPort.error());
        }
        m_apiPort = *apiPort;
    }
    m_agentPort = *agentPort;
    m_plane->start();
    m_history->start();
    if (m_rebalancer)
        m_rebalancer->start();
    m_started = true;
    return {};
}

void CoreHost::stop()
{
    if (m_stopped)
        return;
    m_stopped = true;
    // A host whose `create` failed half-way has only some of its parts.
    if (m_history)
        m_history->stop();
    if (m_rebalancer)
        m_rebalancer->stop();
    if (m_plane)
        m_plane->stop();
    if (m_http)
        m_http->stop();
    if (m_agents)
        m_agents->stop();
}

} // namespace tidepool::api
