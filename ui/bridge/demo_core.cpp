#include "ui/bridge/demo_core.h"

#include "core/report/report_facts.h"

#include "ui/bridge/core_thread.h"

#include <boost/asio/post.hpp>

namespace tidepool::ui {

namespace {

MoveResult stoppedResult(const MoveCommand& command)
{
    MoveResult result;
    result.requestId = command.requestId;
    result.workloadId = command.workloadId;
    result.refusal = "stopped";
    result.node = command.node;
    result.tier = command.tier;
    result.message = "the core has stopped";
    return result;
}

} // namespace

DemoCore::DemoCore(DemoCoreConfig config, ConsoleEvents events)
    : m_config(std::move(config))
    , m_events(std::move(events))
{
    m_guard.emplace(m_io.get_executor());
    boost::asio::post(m_io, [this] { begin(); });
    m_thread = startCoreThread(m_io, m_events);
}

DemoCore::~DemoCore()
{
    stop();
}

void DemoCore::begin()
{
    auto driver = DemoDriver::start(m_config.demo);
    if (!driver) {
        if (m_events.failure)
            m_events.failure("the demo could not start: " + driver.error().message);
        return;
    }
    m_driver = std::move(*driver);
    m_fastUntilMs = m_driver->run().nowMs() + m_config.fastForwardMs;
    publish();
    m_timer.expires_after(m_config.tick);
    arm();
}

void DemoCore::arm()
{
    m_timer.async_wait([this](const boost::system::error_code& ec) {
        if (ec || m_halted)
            return;
        onTick();
    });
}

void DemoCore::onTick()
{
    if (!m_driver || m_driver->done())
        return;
    m_driver->advance();
    if (m_driver->done()) {
        publish(); // the last snapshot says `finished`
        return;
    }
    if (m_driver->run().nowMs() < m_fastUntilMs) {
        // Fast-forwarding: back to the event loop between steps, so that commands and `stop` are served.
        if (++m_fastSteps % std::max(1, m_config.fastForwardPublishSteps) == 0
            || m_driver->run().nowMs() >= m_fastUntilMs - m_config.fastForwardDenseMs)
            publish();
        m_timer.expires_after(std::chrono::milliseconds(0));
        arm();
        return;
    }
    publish();
    // A fixed cadence: a slow step shortens the next wait rather than slowing the clock further.
    m_timer.expires_at(std::max(m_timer.expiry() + m_config.tick, std::chrono::steady_clock::now()));
    arm();
}

void DemoCore::submit(ProposalCommand command)
{
    if (!m_accepting) {
        if (m_events.outcome)
            m_events.outcome(CommandOutcome {
                command.requestId, command.proposalId, command.decision, false, {}, "the core has stopped" });
        return;
    }
    boost::asio::post(m_io, [this, command = std::move(command)] { execute(command); });
}

report::ReportSettings demoReportSettings()
{
    report::ReportSettings settings;
    settings.prices["*"] = report::NodeClassPrice { 0.12, 0.015, { { "gpu", 9.0 }, { "npu", 6.0 }, { "fpga", 4.0 } } };
    return settings;
}

void DemoCore::submit(ReportCommand command)
{
    if (!m_accepting) {
        if (m_events.reported)
            m_events.reported(ReportResult { command.requestId, nullptr, "the core has stopped" });
        return;
    }
    boost::asio::post(m_io, [this, command = std::move(command)] {
        if (!m_events.reported)
            return;
        if (!m_driver || m_halted)
            return m_events.reported(ReportResult { command.requestId, nullptr,
                m_halted ? "the core has stopped" : "the core is still starting" });
        sim::ScenarioRun& run = m_driver->run();
        auto data = report::buildLiveReport(command.request, run.plane(), run.rebalancer(), m_config.report);
        m_events.reported(data ? ReportResult { command.requestId,
                                     std::make_shared<const report::ReportData>(std::move(*data)), {} }
                               : ReportResult { command.requestId, nullptr, data.error().message });
    });
}

void DemoCore::refresh()
{
    if (m_accepting)
        boost::asio::post(m_io, [this] {
            if (!m_halted)
                publish();
        });
}

void DemoCore::submit(MoveCommand command)
{
    if (!m_accepting) {
        if (m_events.moved)
            m_events.moved(stoppedResult(command));
        return;
    }
    boost::asio::post(m_io, [this, command = std::move(command)] { execute(command); });
}

void DemoCore::execute(const MoveCommand& command)
{
    // The snapshot that shows where it went, then the answer: `move` commits and answers before it returns, and the
    // GUI must never get the answer while `latest()` is a snapshot from before the move.
    auto answer = [this](MoveResult result) {
        publish();
        if (m_events.moved)
            m_events.moved(std::move(result));
    };
    if (!m_driver || m_halted) {
        MoveResult result = stoppedResult(command);
        if (!m_halted) {
            result.refusal = "starting";
            result.message = "the core is still starting";
        }
        return answer(std::move(result));
    }
    m_driver->move(command, answer); // answered once durable (the driver commits at once)
}

void DemoCore::submit(PoolCommand command)
{
    if (!m_accepting) {
        if (m_events.poolChanged)
            m_events.poolChanged(
                PoolResult { command.requestId, command.action, command.name, false, "the core has stopped" });
        return;
    }
    boost::asio::post(m_io, [this, command = std::move(command)] { execute(command); });
}

void DemoCore::submit(NodeCommand command)
{
    if (!m_accepting) {
        if (m_events.nodeChanged)
            m_events.nodeChanged(stoppedResult(command, "the core has stopped"));
        return;
    }
    boost::asio::post(m_io, [this, command = std::move(command)] { execute(command); });
}

void DemoCore::submit(ResizeCommand command)
{
    if (!m_accepting) {
        if (m_events.resized)
            m_events.resized(stoppedResult(command, "the core has stopped"));
        return;
    }
    boost::asio::post(m_io, [this, command = std::move(command)] { execute(command); });
}

void DemoCore::execute(const ResizeCommand& command)
{
    auto answer = [this](ResizeResult result) {
        publish();
        if (m_events.resized)
            m_events.resized(std::move(result));
    };
    if (!m_driver || m_halted)
        return answer(stoppedResult(command, m_halted ? "the core has stopped" : "the core is still starting"));
    m_driver->resize(command, answer);
}

void DemoCore::execute(const NodeCommand& command)
{
    // As for a move: the snapshot that shows the change, then the answer.
    auto answer = [this](NodeResult result) {
        publish();
        if (m_events.nodeChanged)
            m_events.nodeChanged(std::move(result));
    };
    if (!m_driver || m_halted)
        return answer(stoppedResult(command, m_halted ? "the core has stopped" : "the core is still starting"));
    m_driver->changeNode(command, answer); // answered once durable (the driver commits at once)
}

void DemoCore::submit(LogsCommand command)
{
    // The demo's nodes are simulated: nothing runs, so nothing is written. Said as tidepool-fleet's agents say it.
    if (!m_events.logsRead)
        return;
    LogsResult result = logsResultFor(command);
    result.message = "the demo's nodes are simulated: its workloads run nothing and write no output";
    m_events.logsRead(std::move(result));
}

void DemoCore::execute(const PoolCommand& command)
{
    // As for a move: the snapshot that shows the change, then the answer.
    auto answer = [this](PoolResult result) {
        publish();
        if (m_events.poolChanged)
            m_events.poolChanged(std::move(result));
    };
    if (!m_driver || m_halted)
        return answer(PoolResult { command.requestId, command.action, command.name, false,
            m_halted ? "the core has stopped" : "the core is still starting" });
    m_driver->changePool(command, answer); // answered once durable (the driver commits at once)
}

void DemoCore::execute(const ProposalCommand& command)
{
    // As for a move: the snapshot that shows the decision, then the outcome.
    auto answer = [this](CommandOutcome outcome) {
        publish();
        if (m_events.outcome)
            m_events.outcome(std::move(outcome));
    };
    if (!m_driver || m_halted)
        return answer(CommandOutcome { command.requestId, command.proposalId, command.decision, false, {},
            m_halted ? "the core has stopped" : "the core is still starting" });
    m_driver->decide(command, answer); // the outcome comes once the decision is durable, during the next step
}

void DemoCore::publish()
{
    if (m_events.snapshot && m_driver)
        m_events.snapshot(m_driver->snapshot());
}

void DemoCore::stop()
{
    if (!m_thread.joinable())
        return;
    m_accepting = false;
    boost::asio::post(m_io, [this] {
        m_halted = true;
        m_timer.cancel();
        m_driver.reset(); // the run, its store and its timers go on the thread that owns them
    });
    m_guard.reset();
    m_thread.join();
}

} // namespace tidepool::ui
