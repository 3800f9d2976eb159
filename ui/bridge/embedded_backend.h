#pragma once
// The console's single-box mode (`tidepool` without `--demo` or `--connect`): the real core in-process on a thread of
// its own, composed as `tidepoold` composes it (`api::CoreHost`: the SQLite store, the control plane, agents joining
// on the agent port with the join token, the history recorder, the rebalancer and, when asked for, the HTTP API). The
// cluster is empty until agents join. Snapshots are built with the embedded builder (`snapshot_builder.h`,
// `view_collector.h`) every `publishInterval` and after each command; decisions go through `decideProposal` and
// moves through `executeMove`, both as `operator:console`, audited and answered once durable, as in the demo.
//
// Shutdown (`stop`, also from the destructor): stop accepting, stop the host's parts on the core thread (listeners,
// sessions, timers), stop the io_context, join the thread, then destroy the host. No event is delivered after `stop`
// returns.
//
// Thread affinity: construct, `submit`, `refresh` and `stop` on any one thread (the GUI's); everything else runs on the
// core thread. Handlers capture `this`: the object outlives its thread, which `stop` joins.

#include "core/api/core_host.h"
#include "ui/bridge/console_backend.h"
#include "ui/bridge/view_collector.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>

namespace tidepool::ui {

struct EmbeddedConfig {
    api::DaemonConfig core; // as `parseDaemonConfig` makes it: db, agentListen, joinToken, apiListen ("" for none)
    std::chrono::milliseconds publishInterval { 1000 };
    protocol::LogSink log; // the core's log lines; empty: standard error, as tidepoold's
};

class EmbeddedBackend final : public ConsoleBackend {
public:
    // Starts the core thread at once; building the core and binding its ports happen there, and a failure arrives as
    // `ConsoleEvents::failure`.
    EmbeddedBackend(EmbeddedConfig config, ConsoleEvents events);
    ~EmbeddedBackend() override;
    EmbeddedBackend(const EmbeddedBackend&) = delete;
    EmbeddedBackend& operator=(const EmbeddedBackend&) = delete;

    void submit(ProposalCommand command) override;
    void submit(MoveCommand command) override;
    // Built on the core thread from the host's store (`report::buildLiveReport`) with its config's prices.
    void submit(ReportCommand command) override;
    void submit(PoolCommand command) override;
    void submit(NodeCommand command) override;
    void submit(ResizeCommand command) override;
    void submit(LogsCommand command) override;
    void refresh() override;
    void stop() override;

    // The bound ports once the core has started (0 before, and for the API when there is none). Any thread.
    std::uint16_t agentPort() const { return m_agentPort; }
    std::uint16_t apiPort() const { return m_apiPort; }

private:
    // All on the core thread.
    void begin();
    void arm();
    void execute(const ProposalCommand& command);
    void execute(const MoveCommand& command);
    void execute(const PoolCommand& command);
    void execute(const NodeCommand& command);
    void execute(const ResizeCommand& command);
    void publish();

    EmbeddedConfig m_config;
    ConsoleEvents m_events;
    boost::asio::io_context m_io;
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> m_guard;
    boost::asio::steady_timer m_timer { m_io };
    std::unique_ptr<api::CoreHost> m_host; // core thread only, until `stop` has joined it
    ViewCollector m_views; // core thread only
    std::uint64_t m_sequence = 0;
    bool m_halted = false; // core thread only
    std::atomic<bool> m_accepting { true };
    std::atomic<std::uint16_t> m_agentPort { 0 };
    std::atomic<std::uint16_t> m_apiPort { 0 };
    std::thread m_thread;
};

} // namespace tidepool::ui
