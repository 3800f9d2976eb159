#include "ui/bridge/core_bridge.h"

#include "protocol/messages.h"

#include <QMetaObject>

namespace tidepool::ui {

CoreBridge::CoreBridge(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<SnapshotPtr>();
    qRegisterMetaType<CommandOutcome>();
    qRegisterMetaType<MoveResult>();
    qRegisterMetaType<ReportResult>();
    qRegisterMetaType<PoolResult>();
    qRegisterMetaType<NodeResult>();
    qRegisterMetaType<ResizeResult>();
    qRegisterMetaType<LogsResult>();
}

CoreBridge::~CoreBridge() = default;

template <typename Store> void CoreBridge::receive(Store store)
{
    bool queue = false;
    {
        const std::lock_guard lock(m_mutex);
        store();
        queue = !std::exchange(m_drainQueued, true);
    }
    if (queue)
        QMetaObject::invokeMethod(this, &CoreBridge::drain, Qt::QueuedConnection);
}

ConsoleEvents CoreBridge::events()
{
    ConsoleEvents events;
    events.snapshot = [this](SnapshotPtr snapshot) { receive([&] { m_incoming = std::move(snapshot); }); };
    events.outcome = [this](CommandOutcome outcome) { receive([&] { m_outcomes.push_back(std::move(outcome)); }); };
    events.moved = [this](MoveResult result) { receive([&] { m_moves.push_back(std::move(result)); }); };
    events.failure = [this](std::string message) { receive([&] { m_failures.push_back(std::move(message)); }); };
    events.reported = [this](ReportResult result) { receive([&] { m_reports.push_back(std::move(result)); }); };
    events.poolChanged = [this](PoolResult result) { receive([&] { m_pools.push_back(std::move(result)); }); };
    events.logsRead = [this](LogsResult result) { receive([&] { m_logs.push_back(std::move(result)); }); };
    events.nodeChanged = [this](NodeResult result) { receive([&] { m_nodes.push_back(std::move(result)); }); };
    events.resized = [this](ResizeResult result) { receive([&] { m_resizes.push_back(std::move(result)); }); };
    return events;
}

void CoreBridge::drain()
{
    SnapshotPtr snapshot;
    std::vector<CommandOutcome> outcomes;
    std::vector<MoveResult> moves;
    std::vector<ReportResult> reports;
    std::vector<LogsResult> logs;
    std::vector<PoolResult> pools;
    std::vector<NodeResult> nodes;
    std::vector<ResizeResult> resizes;
    std::vector<std::string> failures;
    {
        const std::lock_guard lock(m_mutex);
        snapshot = std::move(m_incoming);
        outcomes = std::exchange(m_outcomes, {});
        moves = std::exchange(m_moves, {});
        reports = std::exchange(m_reports, {});
        pools = std::exchange(m_pools, {});
        nodes = std::exchange(m_nodes, {});
        resizes = std::exchange(m_resizes, {});
        logs = std::exchange(m_logs, {});
        failures = std::exchange(m_failures, {});
        m_drainQueued = false;
    }
    // The snapshot first: an outcome's view of the proposal is then already on screen.
    if (snapshot) {
        m_latest = snapshot;
        const bool roleChanged = snapshot->role != m_role;
        m_role = snapshot->role;
        Q_EMIT snapshotChanged(m_latest);
        if (roleChanged)
            Q_EMIT this->roleChanged();
    }
    for (const CommandOutcome& outcome : outcomes)
        Q_EMIT commandFinished(outcome);
    for (const MoveResult& result : moves)
        Q_EMIT moveFinished(result);
    for (const ReportResult& result : reports)
        Q_EMIT reportFinished(result);
    for (const PoolResult& result : pools)
        Q_EMIT poolChanged(result);
    for (const LogsResult& result : logs)
        Q_EMIT logsRead(result);
    for (const NodeResult& result : nodes)
        Q_EMIT nodeChanged(result);
    for (const ResizeResult& result : resizes)
        Q_EMIT workloadResized(result);
    for (const std::string& failure : failures)
        Q_EMIT coreFailed(QString::fromStdString(failure));
}

quint64 CoreBridge::approve(qint64 proposalId, const QString& comment)
{
    return send(proposalId, Decision::Approve, comment);
}

quint64 CoreBridge::reject(qint64 proposalId, const QString& comment)
{
    return send(proposalId, Decision::Reject, comment);
}

quint64 CoreBridge::requestReport(const report::ReportRequest& request)
{
    if (!m_backend)
        return 0;
    const quint64 id = m_nextRequest++;
    m_backend->submit(ReportCommand { id, request });
    return id;
}

quint64 CoreBridge::changeNode(NodeAction action, const QString& name, const QString& reason, int maxParallel)
{
    if (!m_backend)
        return 0;
    const quint64 id = m_nextRequest++;
    m_backend->submit(NodeCommand { id, action, name.toStdString(), reason.toStdString(), maxParallel });
    return id;
}

quint64 CoreBridge::resize(
    qint64 workloadId, qint64 cpuMillis, qint64 memoryMiB, qint64 cpuLimitMillis, qint64 memoryLimitMiB)
{
    if (!m_backend)
        return 0;
    const quint64 id = m_nextRequest++;
    m_backend->submit(ResizeCommand { id, workloadId, cpuMillis, memoryMiB, cpuLimitMillis, memoryLimitMiB });
    return id;
}

quint64 CoreBridge::changePool(PoolAction action, const QString& name, const nlohmann::json& body)
{
    if (!m_backend)
        return 0;
    const quint64 id = m_nextRequest++;
    m_backend->submit(PoolCommand { id, action, name.toStdString(), body });
    return id;
}

quint64 CoreBridge::readLogs(
    qint64 workloadId, bool stderrStream, qint64 from, qint32 incarnation, bool previous, qint32 waitMs)
{
    if (!m_backend)
        return 0;
    const quint64 id = m_nextRequest++;
    LogsCommand command { id, workloadId, stderrStream };
    command.previous = previous;
    if (from >= 0) {
        command.from = from;
        command.incarnation = incarnation;
        command.maxBytes = protocol::kMaxLogBytes; // catching up: as much as one answer carries
        command.waitMs = waitMs;
    }
    m_backend->submit(command);
    return id;
}

bool CoreBridge::refresh()
{
    if (!m_backend)
        return false;
    m_backend->refresh();
    return true;
}

quint64 CoreBridge::move(qint64 workloadId, const QString& node, const QString& tier, const QString& pool)
{
    if (!m_backend)
        return 0;
    const quint64 id = m_nextRequest++;
    m_backend->submit(MoveCommand { id, workloadId, node.toStdString(), tier.toStdString(), pool.toStdString() });
    return id;
}

quint64 CoreBridge::send(qint64 proposalId, Decision decision, const QString& comment)
{
    if (!m_backend)
        return 0;
    const quint64 id = m_nextRequest++;
    m_backend->submit(ProposalCommand { id, proposalId, decision, comment.toStdString() });
    return id;
}

} // namespace tidepool::ui
