#pragma once
// File → Export report…: the period (UTC), the scope (the cluster, a business line, a pool or a tier, with the names
// the latest snapshot knows), the format (PDF, HTML, CSV), the report's language and the file. Export asks the core
// through the bridge (`CoreBridge::requestReport`: built on the core thread, or fetched from tidepoold with
// --connect) and writes the file when the answer comes; the GUI thread never waits for it. Failures (a bad period, an
// unknown name, a file that cannot be written) are shown in the dialog, naming what was wrong.
//
// Thread affinity: the GUI thread. Ownership: borrows the bridge, which outlives the window.

#include "ui/bridge/core_bridge.h"

#include <QDialog>

class QComboBox;
class QDateTimeEdit;
class QLabel;
class QLineEdit;
class QPushButton;

namespace tidepool::ui {

class ReportDialog : public QDialog {
    Q_OBJECT
public:
    ReportDialog(CoreBridge& bridge, QWidget* parent = nullptr);

    // For tests and the screenshots: the controls as a user fills them.
    QComboBox* scopeBox() const { return m_scope; }
    QComboBox* nameBox() const { return m_name; }
    QComboBox* formatBox() const { return m_format; }
    QComboBox* languageBox() const { return m_language; }
    QDateTimeEdit* fromEdit() const { return m_from; }
    QDateTimeEdit* toEdit() const { return m_to; }
    QLineEdit* pathEdit() const { return m_path; }
    QPushButton* exportButton() const { return m_export; }
    QLabel* statusLabel() const { return m_status; }

    // Starts an export with what the controls hold; false (and a message in the status line) when they are wrong.
    bool startExport();

Q_SIGNALS:
    // The file was written (`path`), or the export failed (`error`, translated where it is the dialog's own).
    void exported(const QString& path);
    void failed(const QString& error);

private:
    void fillNames();
    void browse();
    void onReport(const ReportResult& result);
    void setBusy(bool busy);

    CoreBridge& m_bridge;
    QComboBox* m_scope = nullptr;
    QComboBox* m_name = nullptr;
    QComboBox* m_format = nullptr;
    QComboBox* m_language = nullptr;
    QDateTimeEdit* m_from = nullptr;
    QDateTimeEdit* m_to = nullptr;
    QLineEdit* m_path = nullptr;
    QPushButton* m_export = nullptr;
    QLabel* m_status = nullptr;
    quint64 m_pending = 0; // the request id awaited; 0 when none
    QString m_pendingPath;
    QString m_pendingFormat;
};

} // namespace tidepool::ui
