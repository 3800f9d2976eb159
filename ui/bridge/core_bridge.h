#pragma once
// The thin QObject between a core (`ConsoleBackend`) and the GUI. The core calls the sinks of `events()` on its own
// thread; each sink stores what it got under a mutex and, once per batch, queues `drain` on the GUI thread
// (`QMetaObject::invokeMethod(..., Qt::QueuedConnection)`), which emits typed signals there. Snapshots are coalesced:
// the GUI sees the latest one, never a backlog. Commands go the other way through `approve`/`reject`, which only post
// to the core.
//
// Thread affinity: a GUI-thread object; only the `events()` sinks are called from the core thread. Ownership: it
// borrows the backend (`setBackend`); it must outlive the core whose events it receives (stop the core first).

#include "ui/bridge/console_backend.h"

#include <QObject>
#include <QString>

#include <mutex>
#include <vector>

namespace tidepool::ui {

class CoreBridge : public QObject {
    Q_OBJECT
public:
    explicit CoreBridge(QObject* parent = nullptr);
    ~CoreBridge() override;

    // The sinks to give the core. Safe to call from any thread, at any rate.
    ConsoleEvents events();
    void setBackend(ConsoleBackend* backend) { m_backend = backend; }

    // The latest snapshot delivered on the GUI thread (null before the first).
    SnapshotPtr latest() const { return m_latest; }
    // The console's role at its core, of the latest snapshot (`ConsoleSnapshot::role`; empty: not known): what the
    // pages allow (`roleAllows`). `roleChanged` says when another one arrives (another token after a reconnect).
    const std::string& role() const { return m_role; }
    // Post a decision to the core; the returned request id comes back in `commandFinished`. 0 without a core.
    quint64 approve(qint64 proposalId, const QString& comment);
    quint64 reject(qint64 proposalId, const QString& comment);
    // Post an operator's move of a workload onto node `node`, or (with an empty `node`) onto tier `tier` (the core's
    // name: "hot"); with a `pool`, into that pool (onto `node` when given, else the core picks one of its nodes). The
    // returned request id comes back in `moveFinished`. 0 without a core.
    quint64 move(qint64 workloadId, const QString& node, const QString& tier, const QString& pool = {});
    // Asks the core for a fresh snapshot (F5); it arrives through `snapshotChanged`. False without a core.
    bool refresh();
    // Asks the core for a report; the returned request id comes back in `reportFinished`. 0 without a core.
    quint64 requestReport(const report::ReportRequest& request);
    // Asks the core to create, change or delete pool `name` (`body` as `PoolCommand` has it); the returned request id
    // comes back in `poolChanged`. 0 without a core.
    quint64 changePool(PoolAction action, const QString& name, const nlohmann::json& body = nlohmann::json::object());
    // Asks the core to cordon, uncordon or drain node `name` (`NodeCommand`); the returned request id comes back in
    // `nodeChanged`. 0 without a core.
    quint64 changeNode(NodeAction action, const QString& name, const QString& reason = {}, int maxParallel = 0);
    // Asks the core to resize a workload (`ResizeCommand`: its new requests and own limits, 0 for none); the returned
    // request id comes back in `workloadResized`. 0 without a core.
    quint64 resize(qint64 workloadId, qint64 cpuMillis, qint64 memoryMiB, qint64 cpuLimitMillis, qint64 memoryLimitMiB);
    // Asks for the end of a workload's output (its last 64 KiB of stdout, or of stderr), or, following it, for what
    // came from a stream position on (`from`, `incarnation`: `LogsCommand`), held until there is some for at most
    // `waitMs`; the returned request id comes back in `logsRead`. 0 without a core.
    quint64 readLogs(qint64 workloadId, bool stderrStream, qint64 from = -1, qint32 incarnation = -1,
        bool previous = false, qint32 waitMs = 0);

Q_SIGNALS:
    void snapshotChanged(const tidepool::ui::SnapshotPtr& snapshot);
    void roleChanged();
    void commandFinished(const tidepool::ui::CommandOutcome& outcome);
    void moveFinished(const tidepool::ui::MoveResult& result);
    void reportFinished(const tidepool::ui::ReportResult& result);
    void poolChanged(const tidepool::ui::PoolResult& result);
    void nodeChanged(const tidepool::ui::NodeResult& result);
    void workloadResized(const tidepool::ui::ResizeResult& result);
    void logsRead(const tidepool::ui::LogsResult& result);
    void coreFailed(const QString& message);

private:
    quint64 send(qint64 proposalId, Decision decision, const QString& comment);
    // Core thread: keeps the item and queues one drain per batch.
    template <typename Store> void receive(Store store);
    void drain(); // GUI thread

    ConsoleBackend* m_backend = nullptr;
    SnapshotPtr m_latest;
    std::string m_role;
    quint64 m_nextRequest = 1;

    std::mutex m_mutex; // guards everything below
    SnapshotPtr m_incoming;
    std::vector<CommandOutcome> m_outcomes;
    std::vector<MoveResult> m_moves;
    std::vector<ReportResult> m_reports;
    std::vector<PoolResult> m_pools;
    std::vector<NodeResult> m_nodes;
    std::vector<ResizeResult> m_resizes;
    std::vector<LogsResult> m_logs;
    std::vector<std::string> m_failures;
    bool m_drainQueued = false;
};

} // namespace tidepool::ui

Q_DECLARE_METATYPE(tidepool::ui::SnapshotPtr)
Q_DECLARE_METATYPE(tidepool::ui::CommandOutcome)
Q_DECLARE_METATYPE(tidepool::ui::MoveResult)
Q_DECLARE_METATYPE(tidepool::ui::ReportResult)
Q_DECLARE_METATYPE(tidepool::ui::PoolResult)
Q_DECLARE_METATYPE(tidepool::ui::NodeResult)
Q_DECLARE_METATYPE(tidepool::ui::ResizeResult)
Q_DECLARE_METATYPE(tidepool::ui::LogsResult)
