// tidepoold: the scheduling core, headless. One io_context thread hosts the agent server, the control plane and
// the HTTP API with /metrics, so every event reaches core state on one thread (see ARCHITECTURE.md).
#include "core/api/daemon_config.h"
#include "core/api/http_api.h"
#include "core/net/agent_server.h"
#include "core/net/http_server.h"
#include "protocol/transport/tls.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace {

using namespace tidepool;

const protocol::LogSink logLine = protocol::stderrLogSink("tidepoold");

// systemd's readiness protocol (sd_notify(3)) without linking libsystemd: one datagram to $NOTIFY_SOCKET.
void notifySystemd(const char* state)
{
    const char* path = std::getenv("NOTIFY_SOCKET");
    if (!path || !*path)
        return;
    sockaddr_un address {};
    address.sun_family = AF_UNIX;
    const std::size_t length = std::strlen(path);
    if (length >= sizeof address.sun_path)
        return;
    std::memcpy(address.sun_path, path, length);
    if (address.sun_path[0] == '@')
        address.sun_path[0] = '\0'; // abstract namespace
    const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    const auto size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + length);
    if (sendto(fd, state, std::strlen(state), MSG_NOSIGNAL, reinterpret_cast<const sockaddr*>(&address), size) < 0)
        logLine(std::string("sd_notify failed: ") + std::strerror(errno));
    close(fd);
}

// Thousands of agents mean thousands of sockets: lift the soft descriptor limit to the hard one.
void raiseDescriptorLimit()
{
    rlimit limit {};
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
    }
}

} // namespace

int main(int argc, char** argv)
{
    auto config = api::parseDaemonConfig(argc, argv);
    if (!config) {
        std::fprintf(stderr, "tidepoold: %s\n", config.error().message.c_str());
        return 2;
    }
    if (config->help) {
        std::cout << api::daemonUsage();
        return 0;
    }
    if (!config->db.empty()) {
        const auto dir = std::filesystem::absolute(config->db).parent_path();
        if (!std::filesystem::is_directory(dir)) {
            std::fprintf(stderr, "tidepoold: --db: the directory %s does not exist\n", dir.c_str());
            return 2;
        }
    }
    std::shared_ptr<boost::asio::ssl::context> tls;
    if (!config->tlsCertificate.empty()) {
        auto context = transport::makeServerContext(
            transport::TlsServerFiles { config->tlsCertificate, config->tlsPrivateKey, config->tlsClientCa });
        if (!context) {
            std::fprintf(stderr, "tidepoold: %s\n", context.error().c_str());
            return 2;
        }
        tls = std::move(*context);
    }
    if (config->checkOnly) {
        std::printf("tidepoold: configuration is valid\n");
        return 0;
    }
    raiseDescriptorLimit();

    boost::asio::io_context io(1);
    const auto agentAddress = *net::parseHostPort(config->agentListen);
    const auto apiAddress = *net::parseHostPort(config->apiListen);

    std::shared_ptr<net::AgentServer> agents;
    api::AgentLink link {
        [&agents](const std::string& session, const protocol::Message& m) { return agents->send(session, m); },
        [&agents](const std::string& session, const std::string& why) { return agents->disconnect(session, why); },
    };
    std::unique_ptr<store::Store> database;
    if (!config->db.empty()) {
        auto opened = store::openSqliteStore(config->db);
        if (!opened) {
            std::fprintf(stderr, "tidepoold: %s\n", opened.error().message.c_str());
            return 1;
        }
        database = std::move(*opened);
    }
    auto plane = api::ControlPlane::create(io, config->plane, link, logLine, database.get());
    if (!plane) {
        std::fprintf(stderr, "tidepoold: %s\n", plane.error().message.c_str());
        return 2;
    }
    api::ControlPlane& core = **plane;

    net::AgentServerConfig agentConfig;
    agentConfig.joinToken = config->joinToken;
    agentConfig.maxFrameBytes = config->maxFrameBytes;
    agentConfig.heartbeatIntervalMs = config->plane.heartbeatIntervalMs;
    agentConfig.tls = tls;
    net::AgentServerEvents events;
    events.joined = [&core](const net::JoinedAgent& a) { core.onJoined(a.sessionId, a.remote, a.hello); };
    events.inventory = [&core](const std::string& s, const protocol::Inventory& i) { core.onInventory(s, i); };
    events.heartbeat = [&core](const std::string& s, const protocol::Heartbeat& h) { core.onHeartbeat(s, h); };
    events.workloadUpdate
        = [&core](const std::string& s, const protocol::WorkloadStatus& w) { core.onWorkloadUpdate(s, w); };
    events.left = [&core](const std::string& s, const std::string& why) { core.onLeft(s, why); };
    agents = net::AgentServer::create(io, agentConfig, events, logLine);

    api::HttpApi httpApi(core, config->operatorTokens, [&agents](std::string& out) {
        const net::AgentServerStats& s = agents->stats();
        const std::pair<const char*, std::uint64_t> counters[] = {
            { "tidepool_agent_connections_accepted_total", s.connectionsAccepted },
            { "tidepool_agent_joins_total", s.agentsJoined },
            { "tidepool_agent_joins_rejected_total", s.joinsRejected },
            { "tidepool_agent_bad_frames_total", s.badFrames },
            { "tidepool_agent_join_timeouts_total", s.joinTimeouts },
            { "tidepool_agent_tls_handshake_failures_total", s.tlsHandshakeFailures },
            { "tidepool_agent_heartbeats_total", s.heartbeats },
            { "tidepool_agent_frames_received_total", s.framesReceived },
            { "tidepool_agent_frames_sent_total", s.framesSent },
        };
        for (const auto& [name, value] : counters)
            out += std::string("# TYPE ") + name + " counter\n" + name + " " + std::to_string(value) + "\n";
        out += "# TYPE tidepool_agent_connections gauge\ntidepool_agent_connections "
            + std::to_string(agents->connectionCount()) + "\n";
    });
    auto http = net::HttpServer::create(io, net::HttpServerConfig {},
        [&httpApi](const net::HttpRequest& r, const std::string& peer, net::HttpRespond respond) {
            httpApi.handle(r, peer, std::move(respond));
        },
        logLine);
    api::HistoryRecorder history(io, core, config->history, logLine);
    // The evaluation loop needs history, so it runs only with a database.
    std::unique_ptr<api::Rebalancer> rebalancer;
    if (database) {
        auto created = api::Rebalancer::create(io, core, config->rebalance, logLine);
        if (!created) {
            std::fprintf(stderr, "tidepoold: %s\n", created.error().message.c_str());
            return 2;
        }
        rebalancer = std::move(*created);
        httpApi.setRebalancer(rebalancer.get());
    }
    if (!config->rebalance.powerCommand.empty())
        logLine(rebalancer ? "power proposals switch nodes with " + config->rebalance.powerCommand + " off|on NODE"
                           : "--power-command is unused: power proposals need --db");

    auto agentPort = agents->listen(agentAddress.first, agentAddress.second);
    if (!agentPort) {
        std::fprintf(stderr, "tidepoold: %s\n", agentPort.error().message.c_str());
        return 1;
    }
    auto apiPort = http->listen(apiAddress.first, apiAddress.second);
    if (!apiPort) {
        std::fprintf(stderr, "tidepoold: %s\n", apiPort.error().message.c_str());
        return 1;
    }
    core.start();
    history.start();
    if (rebalancer)
        rebalancer->start();
    logLine(tls ? (config->tlsClientCa.empty() ? "agent connections use TLS" : "agent connections use TLS with client certificates")
                : "agent connections are plain TCP (no --tls-cert given)");

    boost::asio::signal_set stopSignals(io, SIGTERM, SIGINT);
    stopSignals.async_wait([&](const boost::system::error_code& ec, int signal) {
        if (ec)
            return;
        logLine(std::string("received ") + (signal == SIGTERM ? "SIGTERM" : "SIGINT") + "; shutting down");
        notifySystemd("STOPPING=1");
        history.stop();
        if (rebalancer)
            rebalancer->stop();
        core.stop();
        http->stop();
        agents->stop();
        io.stop();
    });
    // Ready only now that both listeners are bound (Type=notify units wait for this).
    logLine("ready: agents on " + agentAddress.first + ":" + std::to_string(*agentPort) + ", API on "
        + apiAddress.first + ":" + std::to_string(*apiPort));
    notifySystemd("READY=1");
    io.run();
    logLine("stopped");
    return 0;
}
