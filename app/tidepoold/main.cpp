// tidepoold: the scheduling core, headless. One io_context thread hosts the agent server, the control plane and
// the HTTP API with /metrics, so every event reaches core state on one thread (see ARCHITECTURE.md).
#include "app/tidepoold/certs_command.h"
#include "app/tidepoold/token_command.h"
#include "core/api/core_host.h"
#include "core/api/daemon_config.h"
#include "core/store/store.h"
#include "protocol/transport/tls.h"
#include "ui/bridge/console_feed.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <string_view>

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

// Descriptors the daemon holds besides API connections and agents' sessions: the database and its journal, listeners,
// logs, launched helpers. Past the limit, accepting fails ("too many open files") before the API's cap would close the
// longest-idle connection to make room: a newcomer (a liveness probe) waits in the backlog instead.
constexpr rlim_t kDescriptorReserve = 64;

std::optional<std::string> descriptorLimitWarning(const api::DaemonConfig& config)
{
    rlimit limit {};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_max == RLIM_INFINITY)
        return std::nullopt;
    const auto wanted = static_cast<rlim_t>(config.apiLimits.maxConnections) + kDescriptorReserve;
    if (wanted <= limit.rlim_max) // raiseDescriptorLimit lifts the soft limit to the hard one
        return std::nullopt;
    return "--api-max-connections " + std::to_string(config.apiLimits.maxConnections) + " exceeds what the open-file "
        + "limit of " + std::to_string(limit.rlim_max) + " leaves (" + std::to_string(kDescriptorReserve)
        + " kept for the database and listeners, and one per agent besides): beyond that, connections are not "
          "accepted rather than the longest-idle closed for them; raise the limit (LimitNOFILE=, ulimit -n) or lower "
          "the setting";
}

} // namespace

int main(int argc, char** argv)
{
    if (argc >= 2 && std::string_view(argv[1]) == "token")
        return runTokenCommand(argc, argv);
    if (argc >= 2 && std::string_view(argv[1]) == "certs")
        return runCertsCommand(argc, argv);
    auto config = api::parseDaemonConfig(argc, argv);
    if (!config) {
        std::fprintf(stderr, "tidepoold: %s\n", config.error().message.c_str());
        return 2;
    }
    if (config->help) {
        std::cout << api::daemonUsage();
        return 0;
    }
    if (!config->db.empty() && !store::isPostgresLocation(config->db)) {
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
    // The API's certificate is loaded by the host; checked here too, so that --check-config finds a bad one.
    if (!config->apiTlsCertificate.empty())
        if (auto api = transport::makeServerContext(
                transport::TlsServerFiles { config->apiTlsCertificate, config->apiTlsPrivateKey, {} });
            !api) {
            std::fprintf(stderr, "tidepoold: API HTTPS: %s\n", api.error().c_str());
            return 2;
        }
    if (auto warning = descriptorLimitWarning(*config))
        config->warnings.push_back(std::move(*warning));
    for (const std::string& warning : config->warnings)
        logLine("warning: " + warning);
    if (config->checkOnly) {
        std::printf("tidepoold: configuration is valid\n");
        return 0;
    }
    raiseDescriptorLimit();

    boost::asio::io_context io(1);
    // The core as every program that runs one composes it (the console's embedded mode too): store, control plane,
    // agent server, history, rebalancer and the HTTP API with /metrics, all on this io_context's thread.
    auto created = api::CoreHost::create(io, *config, tls, logLine);
    if (!created) {
        std::fprintf(stderr, "tidepoold: %s\n", created.error().message.c_str());
        return created.error().code == ErrorCode::IoError ? 1 : 2;
    }
    api::CoreHost& host = **created;
    if (!config->rebalance.powerCommand.empty())
        logLine(host.rebalancer()
                ? "power proposals switch nodes with " + config->rebalance.powerCommand + " off|on NODE"
                : "--power-command is unused: power proposals need --db");
    if (auto started = host.start(); !started) {
        std::fprintf(stderr, "tidepoold: %s\n", started.error().message.c_str());
        return 1;
    }
    logLine(tls ? (config->tlsClientCa.empty() ? "agent connections use TLS"
                                               : "agent connections use TLS with client certificates")
                : "agent connections are plain TCP (no --tls-cert given)");
    if (host.api())
        logLine(config->apiTlsCertificate.empty() ? "the API speaks plain HTTP (no --api-tls-cert given)"
                                                  : "the API speaks HTTPS only");
    if (!config->bootstrapTokens.empty())
        logLine(std::to_string(config->bootstrapTokens.size()) + " agent bootstrap tokens, "
            + std::to_string(host.agents().tokenBindings().size()) + " of them used"
            + (config->joinToken.empty() ? "; the shared join token is off" : "; the shared join token is accepted too"));

    // What a console attached with --connect shows beyond the core's resources (devices and their history, events,
    // forecasts, this machine's disk and certificate alerts), sampled every 15 s so that the history grows while no
    // console watches.
    std::optional<ui::ConsoleFeed> feed;
    boost::asio::steady_timer feedTimer(io);
    std::function<void(const boost::system::error_code&)> onFeedTick;
    if (host.api()) {
        feed.emplace(io, host.plane(), host.rebalancer(), ui::hostAlertSources(host.config()));
        feed->install(*host.api());
        onFeedTick = [&](const boost::system::error_code& ec) {
            if (ec)
                return;
            feed->sample();
            feedTimer.expires_after(std::chrono::seconds(15));
            feedTimer.async_wait(onFeedTick);
        };
        onFeedTick({});
    }

    // SIGHUP reads the operator token file again, so that `tidepoold token add|remove` takes effect without a
    // restart; a damaged file is logged and the tokens in use stay.
    boost::asio::signal_set reloadSignal(io, SIGHUP);
    std::function<void(const boost::system::error_code&, int)> onReload
        = [&](const boost::system::error_code& ec, int) {
              if (ec)
                  return;
              if (!config->agentTokenFile.empty()) {
                  auto agentTokens = api::readBootstrapTokenFile(config->agentTokenFile);
                  if (agentTokens) {
                      logLine("SIGHUP: " + std::to_string(agentTokens->size()) + " agent bootstrap tokens read from "
                          + config->agentTokenFile);
                      host.agents().setBootstrapTokens(std::move(*agentTokens));
                  } else
                      logLine("SIGHUP: the agent bootstrap tokens are unchanged: " + agentTokens.error().message);
              }
              auto tokens = api::reloadOperatorTokens(*config);
              if (tokens) {
                  logLine("SIGHUP: " + std::to_string(tokens->size()) + " operator tokens read from "
                      + config->operatorTokenFile);
                  if (host.api())
                      host.api()->setTokens(std::move(*tokens));
              } else
                  logLine("SIGHUP: the operator tokens are unchanged: " + tokens.error().message);
              reloadSignal.async_wait(onReload);
          };
    reloadSignal.async_wait(onReload);

    boost::asio::steady_timer shutdownTimer(io);
    std::function<void(const boost::system::error_code&)> shutdownPoll;
    boost::asio::signal_set stopSignals(io, SIGTERM, SIGINT);
    stopSignals.async_wait([&](const boost::system::error_code& ec, int signal) {
        if (ec)
            return;
        logLine(std::string("received ") + (signal == SIGTERM ? "SIGTERM" : "SIGINT") + "; shutting down");
        notifySystemd("STOPPING=1");
        reloadSignal.cancel();
        feedTimer.cancel();
        // The agents are told the core is stopping (a reject each): the loop runs on until those are written, for
        // at most a second; then everything stops, what is left of the agents' connections closed.
        host.agents().dismissAll("the core is stopping");
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
        shutdownPoll = [&, deadline](const boost::system::error_code&) {
            if (host.agents().connectionCount() == 0 || std::chrono::steady_clock::now() >= deadline) {
                host.stop();
                io.stop();
                return;
            }
            shutdownTimer.expires_after(std::chrono::milliseconds(10));
            shutdownTimer.async_wait(shutdownPoll);
        };
        shutdownPoll({});
    });
    // Ready only now that both listeners are bound (Type=notify units wait for this).
    const auto agentAddress = *net::parseHostPort(config->agentListen);
    std::string ready = "ready: agents on " + agentAddress.first + ":" + std::to_string(host.agentPort());
    if (host.api())
        ready += ", API on " + net::parseHostPort(config->apiListen)->first + ":" + std::to_string(host.apiPort());
    logLine(ready);
    notifySystemd("READY=1");
    io.run();
    logLine("stopped");
    return 0;
}
