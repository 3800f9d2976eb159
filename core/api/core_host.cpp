#include "core/api/core_host.h"

#include "protocol/transport/tls.h"

#include <nlohmann/json.hpp>

namespace tidepool::api {

namespace {

// Which node used which bootstrap token: one `meta` row a token, `agent_token:<id>` → {"node", "boundMs"}.
constexpr std::string_view kTokenBindingPrefix = "agent_token:";

Expected<std::map<std::string, std::string>> restoreTokenBindings(const std::map<std::string, std::string>& meta)
{
    std::map<std::string, std::string> bindings;
    for (auto it = meta.lower_bound(std::string(kTokenBindingPrefix));
         it != meta.end() && it->first.rfind(kTokenBindingPrefix, 0) == 0; ++it) {
        const nlohmann::json value = nlohmann::json::parse(it->second, nullptr, false);
        if (!value.is_object() || !value.contains("node") || !value["node"].is_string()
            || value["node"].get<std::string>().empty())
            return makeError(ErrorCode::ParseError,
                "stored setting " + it->first + " is damaged: it must be {\"node\": NAME, \"boundMs\": MS}");
        bindings.emplace(it->first.substr(kTokenBindingPrefix.size()), value["node"].get<std::string>());
    }
    return bindings;
}

} // namespace

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
        auto opened = store::openStore(h.m_config.db, h.m_config.postgres);
        if (!opened)
            return tl::unexpected(opened.error());
        h.m_store = std::move(*opened);
    }
    // The plane sends to agents through the server built just after it; both live as long as the host.
    AgentLink link {
        [&h](const std::string& session, const protocol::Message& m) { return h.m_agents->send(session, m); },
        [&h](const std::string& session, const std::string& why) { return h.m_agents->disconnect(session, why); },
    };
    h.m_config.plane.agentMaxFrameBytes = h.m_config.maxFrameBytes;
    auto plane = ControlPlane::create(io, h.m_config.plane, link, h.m_log, h.m_store.get());
    if (!plane)
        return tl::unexpected(plane.error());
    h.m_plane = std::move(*plane);
    ControlPlane& core = *h.m_plane;

    net::AgentServerConfig agentConfig;
    agentConfig.joinToken = h.m_config.joinToken;
    agentConfig.bootstrapTokens = h.m_config.bootstrapTokens;
    auto bindings = restoreTokenBindings(core.restoredMeta());
    if (!bindings)
        return tl::unexpected(bindings.error());
    agentConfig.tokenBindings = std::move(*bindings);
    // A binding is written with the next commit, and the agent is welcomed only once it is durable, so that a crash
    // cannot free a token a node already joined with.
    agentConfig.persistBinding = [&core](const std::string& tokenId, const std::string& node, net::BindingDone done) {
        store::Store* store = core.store();
        if (!store) {
            done(std::nullopt);
            return;
        }
        const auto nowMs = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::system_clock::now().time_since_epoch()).count();
        store->putMeta(std::string(kTokenBindingPrefix) + tokenId,
            nlohmann::json { { "node", node }, { "boundMs", nowMs } }.dump());
        core.whenSaved(std::move(done));
    };
    agentConfig.maxFrameBytes = h.m_config.maxFrameBytes;
    agentConfig.heartbeatIntervalMs = h.m_config.plane.heartbeatIntervalMs;
    agentConfig.tls = std::move(tls);
    net::AgentServerEvents events;
    events.joined = [&core](const net::JoinedAgent& a) { core.onJoined(a.sessionId, a.remote, a.hello); };
    events.inventory = [&core](const std::string& s, const protocol::Inventory& i) { core.onInventory(s, i); };
    events.heartbeat = [&core](const std::string& s, const protocol::Heartbeat& hb) { core.onHeartbeat(s, hb); };
    events.workloadUpdate
        = [&core](const std::string& s, const protocol::WorkloadStatus& w) { core.onWorkloadUpdate(s, w); };
    events.logReply = [&core](const std::string& s, const protocol::LogReply& r) { core.onLogReply(s, r); };
    events.resized = [&core](const std::string& s, const protocol::Resized& r) { core.onResized(s, r); };
    events.left = [&core](const std::string& s, const std::string& why) { core.onLeft(s, why); };
    h.m_agents = net::AgentServer::create(io, agentConfig, events, h.m_log);

    h.m_history = std::make_unique<HistoryRecorder>(io, core, h.m_config.history, h.m_log);
    // The evaluation loop needs history, so it runs only with a database.
    if (h.m_store) {
        auto created = Rebalancer::create(io, core, h.m_config.rebalance, h.m_log);
        if (!created)
            return tl::unexpected(created.error());
        h.m_rebalancer = std::move(*created);
        if (!h.m_config.report.directory.empty())
            h.m_dailyReport = std::make_unique<DailyReport>(io, core, h.m_rebalancer.get(), h.m_config.report, h.m_log);
    }
    if (!h.m_config.apiListen.empty()) {
        net::HttpServerConfig httpConfig = h.m_config.apiLimits;
        if (!h.m_config.apiTlsCertificate.empty()) {
            auto context = transport::makeServerContext(
                transport::TlsServerFiles { h.m_config.apiTlsCertificate, h.m_config.apiTlsPrivateKey, {} });
            if (!context)
                return makeError(ErrorCode::InvalidArgument, "API HTTPS: " + context.error());
            httpConfig.tls = std::move(*context);
        }
        h.m_api = std::make_unique<HttpApi>(
            io, core, std::move(h.m_config.tokens), [&h](std::string& out) { h.appendAgentMetrics(out); });
        h.m_api->setRebalancer(h.m_rebalancer.get());
        h.m_api->setReportSettings(h.m_config.report.settings);
        HttpApi& api = *h.m_api;
        h.m_http = net::HttpServer::create(
            io, httpConfig,
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
        { "tidepool_agent_joins_rejected_total", "Joins refused: a wrong or unknown token, or a reused bootstrap token.",
            s.joinsRejected },
        { "tidepool_agent_token_reuse_refused_total",
            "Joins refused because another node had already used the bootstrap token.", s.tokenReuseRefused },
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
    if (m_http) {
        const net::HttpServerStats& http = m_http->stats();
        out += "# HELP tidepool_api_tls_handshake_failures_total Failed TLS handshakes on the HTTPS API (plain HTTP "
               "included).\n# TYPE tidepool_api_tls_handshake_failures_total counter\n"
               "tidepool_api_tls_handshake_failures_total "
            + std::to_string(http.tlsHandshakeFailures) + "\n";
        out += "# HELP tidepool_api_connections_evicted_total API connections closed to make room for a new one at the "
               "connection cap (idle ones first, then the one sending a request body longest).\n"
               "# TYPE tidepool_api_connections_evicted_total counter\n"
               "tidepool_api_connections_evicted_total "
            + std::to_string(http.connectionsEvicted) + "\n";
        out += "# HELP tidepool_api_clients_gone_total API requests whose client closed its connection while their "
               "answer was deferred (a waiting read of events lets its place go then).\n"
               "# TYPE tidepool_api_clients_gone_total counter\n"
               "tidepool_api_clients_gone_total "
            + std::to_string(http.clientsGone) + "\n";
        out += "# HELP tidepool_api_timeouts_total API connections closed for a timeout, by phase: a request's headers "
               "(or the TLS handshake) late, its body stalled, an answer the client did not read.\n"
               "# TYPE tidepool_api_timeouts_total counter\n";
        for (const auto& [phase, count] : { std::pair { "header", http.headerTimeouts },
                 std::pair { "body", http.bodyTimeouts }, std::pair { "write", http.writeTimeouts } })
            out += std::string("tidepool_api_timeouts_total{phase=\"") + phase + "\"} " + std::to_string(count) + "\n";
    }
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
    if (m_dailyReport)
        m_dailyReport->start();
    m_started = true;
    return {};
}

void CoreHost::stop()
{
    if (m_stopped)
        return;
    m_stopped = true;
    // A host whose `create` failed half-way has only some of its parts.
    if (m_dailyReport)
        m_dailyReport->stop();
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
