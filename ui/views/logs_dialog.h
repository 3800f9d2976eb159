#pragma once
// Show output…: the end of one workload's output, its stdout or its stderr, as the agent of its node keeps it
// (`CoreBridge::readLogs`: the embedded core or tidepoold asks the agent; the demo's simulated nodes have none). The
// text is the agent's, already safe to show (no control characters but newlines and tabs); Refresh asks again, and the
// line under it says how much of the stream it is and from which node, or why there is none. Follow then reads what
// the workload writes as it writes it (from where the last read ended, `LogsCommand::from`, each read held at the
// agent until the next output comes, `waitMs`, and the next asked at once; every second where the agent or the daemon
// is from before waiting reads, or the read failed), appends
// it, stays at the bottom unless the operator scrolled up, says where bytes were rotated out before they could be
// read, starts over with a launch that replaced the one shown, and stops by itself once the workload has ended and
// all it wrote is shown. Previous launch shows instead the launch before the current one (restarted by its restart
// policy, moved, preempted, or placed again after its node was lost: `LogsCommand::previous`), which has ended and is
// not followed. Not modal: an operator keeps one open beside the board.
//
// `offerWorkloadOutput` gives a view whose rows are workloads (the Tiers board's columns, the Pools tree) a context
// menu with Show output…, off where the console's role may not read output (`roleAllows`), and Resize…
// (`resize_dialog.h`).
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_backend.h"

#include <QDialog>
#include <QElapsedTimer>
#include <QTimer>

#include <chrono>

class QAbstractItemView;
class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace tidepool::ui {

class CoreBridge;

class LogsDialog : public QDialog {
    Q_OBJECT
public:
    LogsDialog(CoreBridge& bridge, qint64 workloadId, const QString& name, QWidget* parent = nullptr);

    // Asks for the end of the selected stream again; 0 without a core.
    quint64 refresh();
    // How often a follower asks where its reads are not held (default a second).
    void setFollowInterval(std::chrono::milliseconds interval) { m_timer.setInterval(interval); }

    QPlainTextEdit* text() const { return m_text; }
    QComboBox* streamBox() const { return m_stream; }
    QCheckBox* followBox() const { return m_follow; }
    QCheckBox* previousBox() const { return m_previous; }
    QLabel* status() const { return m_status; }
    QPushButton* refreshButton() const { return m_refresh; }

private:
    void onLogsRead(const LogsResult& result);
    void showTail(const LogsResult& result);
    void showFollowed(const LogsResult& result);
    void onFollowToggled(bool on);
    void onPreviousToggled(bool on);
    void readOn(); // a follower's next read, from `m_end`

    CoreBridge& m_bridge;
    qint64 m_workloadId;
    QPlainTextEdit* m_text;
    QComboBox* m_stream;
    QCheckBox* m_follow;
    QCheckBox* m_previous;
    QLabel* m_status;
    QPushButton* m_refresh;
    QTimer m_timer;
    QElapsedTimer m_asked; // since the latest read was asked
    quint64 m_request = 0; // the latest asked: an older answer is not shown
    bool m_requestFollows = false; // it is a follower's read (from `m_end`), not one of the end
    bool m_answered = true; // the latest asked has been answered
    qint64 m_end = -1; // where the text shown ends in the stream; -1: unknown (nothing read, or an older agent)
    qint32 m_incarnation = 0; // the launch whose stream is shown
    qint64 m_read = 0; // bytes of the stream read while following
    bool m_ended = false; // the workload had ended at the last read: the next one finding nothing is the end
};

// Gives `view` (a model whose workload rows drag as `workload_mime.h` payloads) a context menu with Show output…
// for the workload under the pointer.
void offerWorkloadOutput(QAbstractItemView* view, CoreBridge& bridge);

} // namespace tidepool::ui
