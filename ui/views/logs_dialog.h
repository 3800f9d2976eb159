#pragma once
// Show output…: the end of one workload's output, its stdout or its stderr, as the agent of its node keeps it
// (`CoreBridge::readLogs`: the embedded core or tidepoold asks the agent; the demo's simulated nodes have none). The
// text is the agent's, already safe to show (no control characters but newlines and tabs); Refresh asks again, and the
// line under it says how much of the stream it is and from which node, or why there is none. Not modal: an operator
// keeps one open beside the board.
//
// `offerWorkloadOutput` gives a view whose rows are workloads (the Tiers board's columns, the Pools tree) a context
// menu with Show output…, off where the console's role may not read output (`roleAllows`).
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_backend.h"

#include <QDialog>

class QAbstractItemView;
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

    // Asks for the selected stream again; 0 without a core.
    quint64 refresh();

    QPlainTextEdit* text() const { return m_text; }
    QComboBox* streamBox() const { return m_stream; }
    QLabel* status() const { return m_status; }
    QPushButton* refreshButton() const { return m_refresh; }

private:
    void onLogsRead(const LogsResult& result);

    CoreBridge& m_bridge;
    qint64 m_workloadId;
    QPlainTextEdit* m_text;
    QComboBox* m_stream;
    QLabel* m_status;
    QPushButton* m_refresh;
    quint64 m_request = 0; // the latest asked: an older answer is not shown
};

// Gives `view` (a model whose workload rows drag as `workload_mime.h` payloads) a context menu with Show output…
// for the workload under the pointer.
void offerWorkloadOutput(QAbstractItemView* view, CoreBridge& bridge);

} // namespace tidepool::ui
