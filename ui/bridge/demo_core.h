#pragma once
// The demo's core on a thread of its own: a `boost::asio::io_context` thread that builds a `DemoDriver`, steps it on a
// timer at an accelerated clock (one simulated minute every `tick`), publishes a snapshot after every step and
// executes the operator's commands between steps. The console's GUI thread only posts to it and hears back through
// `ConsoleEvents` (see `core_bridge.h`).
//
// Shutdown (`stop`, also from the destructor): stop accepting commands, cancel the timer, destroy the run on its own
// thread, release the work guard, join the thread. No event is delivered after `stop` returns.
//
// Thread affinity: construct, `submit` and `stop` on any one thread (the GUI's); everything else runs on the core
// thread. Handlers capture `this`: the object outlives its thread, which `stop` joins.

#include "ui/bridge/console_backend.h"
#include "ui/bridge/demo_driver.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

namespace tidepool::ui {

// Made-up prices for the demo's reports: CNY per core-hour, GiB-hour and device-hour, for every node class.
report::ReportSettings demoReportSettings();

struct DemoCoreConfig {
    DemoConfig demo;
    std::chrono::milliseconds tick { 100 }; // wall time per simulated step; 0 = as fast as the core can
    // Simulated time run at full speed first, so that the forecasts have their day of history (and proposals come)
    // at once; a snapshot is published every `fastForwardPublishSteps` steps meanwhile.
    std::int64_t fastForwardMs = 0;
    int fastForwardPublishSteps = 30;
    // Its last stretch is published at every step, so that the device history (a frame per simulated minute at most,
    // `kDeviceHistoryFrames` of them) is whole when the live pace begins: spans on an FPGA's slot timeline then start
    // and end within a minute of when they did, not within `fastForwardPublishSteps`.
    std::int64_t fastForwardDenseMs = static_cast<std::int64_t>(kDeviceHistoryFrames) * 60'000;
    // Prices for the demo's reports (File → Export report): one price for every node class, marked as the demo's.
    report::ReportSettings report = demoReportSettings();
};

class DemoCore final : public ConsoleBackend {
public:
    // Starts the core thread at once; loading the traces happens there, and a failure arrives as
    // `ConsoleEvents::failure`.
    DemoCore(DemoCoreConfig config, ConsoleEvents events);
    ~DemoCore() override;
    DemoCore(const DemoCore&) = delete;
    DemoCore& operator=(const DemoCore&) = delete;

    void submit(ProposalCommand command) override;
    void submit(MoveCommand command) override;
    void submit(ReportCommand command) override;
    void submit(PoolCommand command) override;
    void submit(NodeCommand command) override;
    void submit(ResizeCommand command) override;
    void submit(LogsCommand command) override;
    void refresh() override;
    void stop() override;

private:
    // All on the core thread.
    void begin();
    void arm();
    void onTick();
    void execute(const ProposalCommand& command);
    void execute(const MoveCommand& command);
    void execute(const PoolCommand& command);
    void execute(const NodeCommand& command);
    void execute(const ResizeCommand& command);
    void publish();

    DemoCoreConfig m_config;
    ConsoleEvents m_events;
    boost::asio::io_context m_io;
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> m_guard;
    boost::asio::steady_timer m_timer { m_io };
    std::unique_ptr<DemoDriver> m_driver; // core thread only
    bool m_halted = false; // core thread only: stopping, no more steps
    std::int64_t m_fastUntilMs = 0; // core thread only
    int m_fastSteps = 0;
    std::atomic<bool> m_accepting { true };
    std::thread m_thread;
};

} // namespace tidepool::ui
