#pragma once
// The live core as `tidepoold` composes it, for every program that runs one: the SQLite store (with `db`), the
// control plane, the agent server wired to it (join token, TLS, frame limit), the history recorder, the rebalancer
// (only with a store: the evaluation needs history), the daily report (with a store and `report.directory`) and, when
// `apiListen` is set, the HTTP API with `/metrics` and `/v1/report`. The daemon runs it headless; the console's
// embedded mode (`tidepool` without `--connect`) runs the very same objects on its core thread, so both behave alike.
//
// Order: `create` builds everything (nothing listens yet), `start` binds the listeners and starts the timers,
// `stop` stops the daily report, the history recorder, the rebalancer, the plane, the HTTP server and the agent
// server, in that order; then the io_context may be stopped and the host destroyed.
//
// Thread affinity: the io_context's thread (one thread); `create` may also run before that thread does. Ownership:
// owns everything it builds; borrows the io_context, which must outlive it.

#include "core/api/daemon_config.h"
#include "core/api/http_api.h"
#include "core/net/agent_server.h"
#include "core/net/http_server.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>

#include <cstdint>
#include <memory>

namespace tidepool::api {

class CoreHost {
public:
    // Fails naming what was wrong: the database cannot be opened (`ErrorCode::IoError`), the profile or the
    // rebalancer's settings are invalid. `tls` may be null (plain TCP for agents). Takes the tokens out of `config`.
    static Expected<std::unique_ptr<CoreHost>> create(boost::asio::io_context& io, DaemonConfig config,
        std::shared_ptr<boost::asio::ssl::context> tls, protocol::LogSink log);
    ~CoreHost();
    CoreHost(const CoreHost&) = delete;
    CoreHost& operator=(const CoreHost&) = delete;

    // Binds the agent listener (and the API's, when configured) and starts the plane, the history recorder and the
    // rebalancer. Fails naming the address that could not be bound; nothing is started then.
    Expected<void> start();
    // Idempotent.
    void stop();

    // The bound ports (0 before `start`, and for the API when it has none).
    std::uint16_t agentPort() const { return m_agentPort; }
    std::uint16_t apiPort() const { return m_apiPort; }
    const DaemonConfig& config() const { return m_config; }

    ControlPlane& plane() { return *m_plane; }
    const ControlPlane& plane() const { return *m_plane; }
    Rebalancer* rebalancer() const { return m_rebalancer.get(); } // null without a store
    HttpApi* api() const { return m_api.get(); } // null without `apiListen`
    net::AgentServer& agents() { return *m_agents; }

private:
    CoreHost(DaemonConfig config, protocol::LogSink log);
    void appendAgentMetrics(std::string& out) const;

    DaemonConfig m_config;
    protocol::LogSink m_log;
    std::unique_ptr<store::Store> m_store;
    std::unique_ptr<ControlPlane> m_plane;
    std::shared_ptr<net::AgentServer> m_agents;
    std::unique_ptr<HttpApi> m_api;
    std::shared_ptr<net::HttpServer> m_http;
    std::unique_ptr<HistoryRecorder> m_history;
    std::unique_ptr<Rebalancer> m_rebalancer;
    std::unique_ptr<DailyReport> m_dailyReport; // with a store and a report directory
    std::uint16_t m_agentPort = 0;
    std::uint16_t m_apiPort = 0;
    bool m_started = false;
    bool m_stopped = false;
};

} // namespace tidepool::api
