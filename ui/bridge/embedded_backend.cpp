#include "ui/bridge/embedded_backend.h"

#include "core/report/report_facts.h"

#include "ui/bridge/alerts.h"
#include "ui/bridge/core_thread.h"
#include "ui/bridge/move_executor.h"
#include "ui/bridge/node_executor.h"
#include "ui/bridge/pool_executor.h"
#include "ui/bridge/proposal_decision.h"
#include "ui/bridge/resize_executor.h"
#include "ui/bridge/snapshot_builder.h"

#include <boost/asio/post.hpp>

namespace tidepool::ui {

namespace {

// The control plane's answer to a read of a workload's output, as the console takes it.
LogsResult logsResult(LogsResult result, api::LogsAnswer answer)
{
    result.node = std::move(answer.node);
    result.ok = answer.status == 200;
    if (!result.ok) {
        result.message = std::move(answer.error);
        return result;
    }
    result.data = std::move(answer.reply.data);
    result.sizeBytes = answer.reply.sizeBytes;
    result.truncated = answer.reply.truncated;
    result.start = answer.reply.start;
    result.end = answer.reply.end;
    result.incarnation = answer.incarnation;
    result.phase = std::string(api::toString(answer.phase));
    result.ended = api::isFinal(answer.phase);
    return result;
}

} // namespace

EmbeddedBackend::EmbeddedBackend(EmbeddedConfig config, ConsoleEvents events)
    : m_config(std::move(config))
    , m_events(std::move(events))
{
    if (!m_config.log)
        m_config.log = protocol::stderrLogSink("tidepool");
    m_guard.emplace(m_io.get_executor());
    boost::asio::post(m_io, [this] { begin(); });
    m_thread = startCoreThread(m_io, m_events);
}

EmbeddedBackend::~EmbeddedBackend()
{
    stop();
}

void EmbeddedBackend::begin()
{
    auto host = api::CoreHost::create(m_io, std::move(m_config.core), nullptr, m_config.log);
    if (!host) {
        if (m_events.failure)
            m_events.failure("the embedded core could not start: " + host.error().message);
        return;
    }
    m_host = std::move(*host);
    if (auto started = m_host->start(); !started) {
        if (m_events.failure)
            m_events.failure("the embedded core could not start: " + started.error().message);
        m_host->stop();
        m_host.reset();
        return;
    }
    m_agentPort = m_host->agentPort();
    m_apiPort = m_host->apiPort();
    m_config.log("embedded core ready: agents on port " + std::to_string(m_host->agentPort())
        + (m_host->apiPort() ? ", API on port " + std::to_string(m_host->apiPort()) : std::string()));
    publish();
    m_timer.expires_after(m_config.publishInterval);
    arm();
}

void EmbeddedBackend::arm()
{
    m_timer.async_wait([this](const boost::system::error_code& ec) {
        if (ec || m_halted)
            return;
        publish();
        // A fixed cadence: a slow snapshot shortens the next wait.
        m_timer.expires_at(std::max(m_timer.expiry() + m_config.publishInterval, std::chrono::steady_clock::now()));
        arm();
    });
}

void EmbeddedBackend::submit(ProposalCommand command)
{
    if (!m_accepting) {
        if (m_events.outcome)
            m_events.outcome(CommandOutcome {
                command.requestId, command.proposalId, command.decision, false, {}, "the core has stopped" });
        return;
    }
    boost::asio::post(m_io, [this, command = std::move(command)] { execute(command); });
}

void EmbeddedBackend::submit(MoveCommand command)
{
    if (!m_accepting) {
        if (m_events.moved) {
            MoveResult result;
            result.requestId = command.requestId;
            result.workloadId = command.workloadId;
            result.refusal = "stopped";
            result.node = command.node;
            result.tier = command.tier;
            result.message = "the core has stopped";
            m_events.moved(std::move(result));
        }
        return;
    }
    boost::asio::post(m_io, [this, command = std::move(command)] { execute(command); });
}

void EmbeddedBackend::submit(ReportCommand command)
{
    if (!m_accepting) {
        if (m_events.reported)
            m_events.reported(ReportResult { command.requestId, nullptr, "the core has stopped" });
        return;
    }
    boost::asio::post(m_io, [this, command = std::move(command)] {
        if (!m_events.reported)
            return;
        if (!m_host || m_halted)
            return m_events.reported(ReportResult { command.requestId, nullptr,
                m_halted ? "the core has stopped" : "the core did not start" });
        auto data = report::buildLiveReport(
            command.request, m_host->plane(), m_host->rebalancer(), m_host->config().report.settings);
        m_events.reported(data ? ReportResult { command.requestId,
                                     std::make_shared<const report::ReportData>(std::move(*data)), {} }
                               : ReportResult { command.requestId, nullptr, data.error().message });
    });
}

void EmbeddedBackend::submit(PoolCommand command)
{
    if (!m_accepting) {
        if (m_events.poolChanged)
            m_events.poolChanged(
                PoolResult { command.requestId, command.action, command.name, false, "the core has stopped" });
        return;
    }
    boost::asio::post(m_io, [this, command = std::move(command)] { execute(command); });
}

void EmbeddedBackend::submit(NodeCommand command)
{
    if (!m_accepting) {
        if (m_events.nodeChanged)
            m_events.nodeChanged(stoppedResult(command, "the core has stopped"));
        return;
    }
    boost::asio::post(m_io, [this, command = std::move(command)] { execute(command); });
}

void EmbeddedBackend::submit(ResizeCommand command)
{
    if (!m_accepting) {
        if (m_events.resized)
            m_events.resized(stoppedResult(command, "the core has stopped"));
        return;
    }
    boost::asio::post(m_io, [this, command = std::move(command)] { execute(command); });
}

void EmbeddedBackend::submit(LogsCommand command)
{
    LogsResult result = logsResultFor(command);
    if (!m_accepting) {
        result.message = "the core has stopped";
        if (m_events.logsRead)
            m_events.logsRead(std::move(result));
        return;
    }
    boost::asio::post(m_io, [this, command, result = std::move(result)]() mutable {
        if (!m_events.logsRead)
            return;
        if (!m_host || m_halted) {
            result.message = m_halted ? "the core has stopped" : "the core did not start";
            return m_events.logsRead(std::move(result));
        }
        // Answered when the agent answers (or why not), on this thread.
        api::LogsQuery query { command.workloadId, command.stderrStream, command.maxBytes, command.from,
            command.incarnation };
        query.previous = command.previous;
        query.waitMs = command.from >= 0 ? command.waitMs : 0;
        m_host->plane().queryLogs(query, [this, result = std::move(result)](api::LogsAnswer answer) mutable {
            m_events.logsRead(logsResult(std::move(result), std::move(answer)));
        });
    });
}

void EmbeddedBackend::refresh()
{
    if (m_accepting)
        boost::asio::post(m_io, [this] {
            if (!m_halted)
                publish();
        });
}

void EmbeddedBackend::execute(const ProposalCommand& command)
{
    auto answer = [this](CommandOutcome outcome) {
        // The decision is durable now: the snapshot that shows its effect, then the outcome, so that the GUI never
        // has the outcome while `latest()` is older than the decision.
        if (!m_halted)
            publish();
        if (m_events.outcome)
            m_events.outcome(std::move(outcome));
    };
    if (!m_host || m_halted)
        return answer(CommandOutcome { command.requestId, command.proposalId, command.decision, false, {},
            m_halted ? "the core has stopped" : "the core did not start" });
    decideProposal(m_host->plane(), m_host->rebalancer(), command, kConsoleActor, answer);
}

void EmbeddedBackend::execute(const MoveCommand& command)
{
    auto answer = [this](MoveResult result) {
        if (!m_halted)
            publish(); // the snapshot first, as for a decision
        if (m_events.moved)
            m_events.moved(std::move(result));
    };
    if (!m_host || m_halted) {
        MoveResult result;
        result.requestId = command.requestId;
        result.workloadId = command.workloadId;
        result.refusal = m_halted ? "stopped" : "starting";
        result.node = command.node;
        result.tier = command.tier;
        result.message = m_halted ? "the core has stopped" : "the core did not start";
        return answer(std::move(result));
    }
    executeMove(m_host->plane(), command, kConsoleActor, answer);
}

void EmbeddedBackend::execute(const PoolCommand& command)
{
    auto answer = [this](PoolResult result) {
        if (!m_halted)
            publish(); // the snapshot first, as for a decision
        if (m_events.poolChanged)
            m_events.poolChanged(std::move(result));
    };
    if (!m_host || m_halted)
        return answer(PoolResult { command.requestId, command.action, command.name, false,
            m_halted ? "the core has stopped" : "the core did not start" });
    executePoolCommand(m_host->plane(), command, kConsoleActor, answer);
}

void EmbeddedBackend::execute(const NodeCommand& command)
{
    auto answer = [this](NodeResult result) {
        if (!m_halted)
            publish(); // the snapshot first, as for a decision
        if (m_events.nodeChanged)
            m_events.nodeChanged(std::move(result));
    };
    if (!m_host || m_halted)
        return answer(stoppedResult(command, m_halted ? "the core has stopped" : "the core did not start"));
    executeNodeCommand(m_host->plane(), command, kConsoleActor, answer);
}

void EmbeddedBackend::execute(const ResizeCommand& command)
{
    auto answer = [this](ResizeResult result) {
        if (!m_halted)
            publish(); // the snapshot first, as for a decision
        if (m_events.resized)
            m_events.resized(std::move(result));
    };
    if (!m_host || m_halted)
        return answer(stoppedResult(command, m_halted ? "the core has stopped" : "the core did not start"));
    executeResize(m_host->plane(), command, kConsoleActor, answer);
}

void EmbeddedBackend::publish()
{
    if (!m_events.snapshot || !m_host)
        return;
    auto snapshot = buildSnapshot(m_host->plane(), m_host->rebalancer(), ++m_sequence, "embedded");
    m_views.fill(m_host->plane(), m_host->rebalancer(), *snapshot);
    addHostAlerts(*snapshot, hostAlertSources(m_host->config()));
    m_events.snapshot(std::move(snapshot));
}

void EmbeddedBackend::stop()
{
    if (!m_thread.joinable())
        return;
    m_accepting = false;
    boost::asio::post(m_io, [this] {
        m_halted = true;
        m_timer.cancel();
        if (m_host)
            m_host->stop(); // listeners, agent sessions and timers; then nothing more runs on this thread
        m_io.stop();
    });
    m_guard.reset();
    m_thread.join();
    // The thread has ended: nothing else touches the host now.
    m_host.reset();
}

} // namespace tidepool::ui
