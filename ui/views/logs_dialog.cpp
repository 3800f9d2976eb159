#include "ui/views/logs_dialog.h"

#include "ui/bridge/console_role.h"
#include "ui/bridge/core_bridge.h"
#include "ui/models/workload_mime.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QVBoxLayout>

#include <memory>

namespace tidepool::ui {

LogsDialog::LogsDialog(CoreBridge& bridge, qint64 workloadId, const QString& name, QWidget* parent)
    : QDialog(parent)
    , m_bridge(bridge)
    , m_workloadId(workloadId)
    , m_text(new QPlainTextEdit(this))
    , m_stream(new QComboBox(this))
    , m_status(new QLabel(this))
    , m_refresh(new QPushButton(tr("&Refresh"), this))
{
    setWindowTitle(tr("Output of %1 (workload %2)").arg(name).arg(workloadId));
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_stream->addItem(tr("Standard output"), false);
    m_stream->addItem(tr("Standard error"), true);
    m_status->setWordWrap(true);
    m_status->setObjectName(QStringLiteral("logsStatus"));
    auto* top = new QHBoxLayout;
    top->addWidget(m_stream);
    top->addWidget(m_refresh);
    top->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_status);
    resize(820, 520);
    connect(m_refresh, &QPushButton::clicked, this, &LogsDialog::refresh);
    connect(m_stream, &QComboBox::currentIndexChanged, this, &LogsDialog::refresh);
    connect(&m_bridge, &CoreBridge::logsRead, this, &LogsDialog::onLogsRead);
    refresh();
}

quint64 LogsDialog::refresh()
{
    m_request = m_bridge.readLogs(m_workloadId, m_stream->currentData().toBool());
    m_status->setText(m_request == 0 ? tr("No core is connected.") : tr("Asking the agent of its node…"));
    return m_request;
}

void LogsDialog::onLogsRead(const LogsResult& result)
{
    if (result.requestId != m_request)
        return;
    const QLocale locale;
    const QString stream = result.stderrStream ? tr("standard error") : tr("standard output");
    if (!result.ok) {
        m_text->clear();
        m_status->setText(tr("No output to show: %1").arg(QString::fromStdString(result.message)));
        return;
    }
    m_text->setPlainText(QString::fromStdString(result.data));
    m_text->verticalScrollBar()->setValue(m_text->verticalScrollBar()->maximum()); // the newest lines
    const QString node = QString::fromStdString(result.node);
    if (result.sizeBytes == 0)
        m_status->setText(tr("Node %1 holds no %2 of it yet.").arg(node, stream));
    else if (result.truncated)
        m_status->setText(tr("The end of what node %1 keeps of its %2 (%3 of it in all).")
                              .arg(node, stream, locale.formattedDataSize(result.sizeBytes)));
    else
        m_status->setText(tr("All of what node %1 keeps of its %2 (%3).")
                              .arg(node, stream, locale.formattedDataSize(result.sizeBytes)));
}

void offerWorkloadOutput(QAbstractItemView* view, CoreBridge& bridge)
{
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(view, &QWidget::customContextMenuRequested, view, [view, &bridge](const QPoint& at) {
        const QModelIndex index = view->indexAt(at);
        if (!index.isValid() || !view->model())
            return;
        const std::unique_ptr<QMimeData> payload(view->model()->mimeData({ index }));
        const auto workloads = decodeWorkloads(payload.get());
        if (workloads.size() != 1)
            return;
        const qint64 id = workloads.front().id;
        const QString name = index.siblingAtColumn(0).data().toString();
        QMenu menu(view);
        QAction* show = menu.addAction(LogsDialog::tr("Show &output…"));
        const std::string path = "/v1/workloads/" + std::to_string(id) + "/logs";
        if (!roleAllows(bridge.role(), boost::beast::http::verb::get, path)) {
            show->setEnabled(false);
            show->setToolTip(
                LogsDialog::tr("Your token's role (%1) may not read workloads' output: that needs the %2 role.")
                    .arg(QString::fromStdString(bridge.role()),
                        QString::fromStdString(roleNeeded(boost::beast::http::verb::get, path))));
            menu.setToolTipsVisible(true);
        }
        QObject::connect(show, &QAction::triggered, view, [view, &bridge, id, name] {
            auto* dialog = new LogsDialog(bridge, id, name, view->window());
            dialog->setAttribute(Qt::WA_DeleteOnClose);
            dialog->show();
        });
        menu.exec(view->viewport()->mapToGlobal(at));
    });
}

} // namespace tidepool::ui
