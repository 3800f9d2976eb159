#include "ui/views/logs_dialog.h"

#include "ui/bridge/console_role.h"
#include "ui/bridge/core_bridge.h"
#include "ui/labels.h"
#include "ui/models/workload_mime.h"
#include "ui/views/resize_dialog.h"

#include <QAbstractItemView>
#include <QCheckBox>
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
#include <QTextCursor>
#include <QVBoxLayout>

#include <algorithm>
#include <memory>

namespace tidepool::ui {

namespace {

// A follower's read waits at the agent this long at most for output to come (`LogsCommand::waitMs`).
constexpr qint32 kFollowWaitMs = 10'000;
// While output flows, reads at most this often: each shows what came since the last.
constexpr qint64 kMinReadGapMs = 100;

} // namespace

LogsDialog::LogsDialog(CoreBridge& bridge, qint64 workloadId, const QString& name, QWidget* parent)
    : QDialog(parent)
    , m_bridge(bridge)
    , m_workloadId(workloadId)
    , m_text(new QPlainTextEdit(this))
    , m_stream(new QComboBox(this))
    , m_follow(new QCheckBox(tr("&Follow"), this))
    , m_previous(new QCheckBox(tr("&Previous launch"), this))
    , m_status(new QLabel(this))
    , m_refresh(new QPushButton(tr("&Refresh"), this))
{
    setWindowTitle(tr("Output of %1 (workload %2)").arg(name).arg(workloadId));
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setMaximumBlockCount(100'000); // a follower left open for days keeps the newest lines only
    m_stream->addItem(tr("Standard output"), false);
    m_stream->addItem(tr("Standard error"), true);
    m_status->setWordWrap(true);
    m_status->setObjectName(QStringLiteral("logsStatus"));
    auto* top = new QHBoxLayout;
    top->addWidget(m_stream);
    top->addWidget(m_refresh);
    top->addWidget(m_follow);
    top->addWidget(m_previous);
    top->addStretch(1);
    m_follow->setToolTip(tr("Show what it writes as it writes it, until it has ended"));
    m_previous->setToolTip(tr("The output of its launch before the current one (restarted, moved, preempted, or "
                              "placed again after its node was lost), from the node it ran on"));
    m_timer.setInterval(std::chrono::seconds(1));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_status);
    resize(820, 520);
    connect(m_refresh, &QPushButton::clicked, this, &LogsDialog::refresh);
    connect(m_stream, &QComboBox::currentIndexChanged, this, &LogsDialog::refresh);
    connect(m_follow, &QCheckBox::toggled, this, &LogsDialog::onFollowToggled);
    connect(m_previous, &QCheckBox::toggled, this, &LogsDialog::onPreviousToggled);
    connect(&m_timer, &QTimer::timeout, this, &LogsDialog::readOn);
    connect(&m_bridge, &CoreBridge::logsRead, this, &LogsDialog::onLogsRead);
    refresh();
}

quint64 LogsDialog::refresh()
{
    m_timer.stop();
    m_end = -1;
    m_read = 0;
    m_ended = false;
    m_requestFollows = false;
    m_request = m_bridge.readLogs(m_workloadId, m_stream->currentData().toBool(), -1, -1, m_previous->isChecked());
    m_answered = m_request == 0;
    m_status->setText(m_request == 0 ? tr("No core is connected.") : tr("Asking the agent of its node…"));
    return m_request;
}

void LogsDialog::onPreviousToggled(bool on)
{
    // An ended launch: nothing more to follow.
    if (on)
        m_follow->setChecked(false);
    m_follow->setEnabled(!on);
    refresh();
}

void LogsDialog::onFollowToggled(bool on)
{
    if (!on) {
        m_timer.stop();
        return;
    }
    if (m_end < 0) // nothing read yet to go on from: the end first, then on from there
        refresh();
    else
        readOn();
}

void LogsDialog::readOn()
{
    if (!m_answered || !m_follow->isChecked())
        return; // one read at a time; the timer asks again
    // On from where the text ends; with nothing read yet (none to show so far: not placed, its agent away), the end.
    m_requestFollows = m_end >= 0;
    m_request = m_requestFollows
        ? m_bridge.readLogs(m_workloadId, m_stream->currentData().toBool(), m_end, m_incarnation, false, kFollowWaitMs)
        : m_bridge.readLogs(m_workloadId, m_stream->currentData().toBool());
    m_answered = m_request == 0;
    m_asked.start();
    if (m_request != 0 && !m_timer.isActive())
        m_timer.start();
}

void LogsDialog::onLogsRead(const LogsResult& result)
{
    if (result.requestId != m_request)
        return;
    m_answered = true;
    if (m_requestFollows)
        showFollowed(result);
    else
        showTail(result);
}

void LogsDialog::showTail(const LogsResult& result)
{
    const QLocale locale;
    const QString stream = result.stderrStream ? tr("standard error") : tr("standard output");
    if (!result.ok) {
        m_text->clear();
        m_status->setText(tr("No output to show: %1").arg(QString::fromStdString(result.message)));
        if (m_follow->isChecked()) { // there may be some later: asked again while following
            m_status->setText(m_status->text() + QLatin1Char(' ')
                + tr("Following: asking again every %1 s.").arg(m_timer.interval() / 1000.0));
            m_timer.start();
        }
        return;
    }
    m_text->setPlainText(QString::fromStdString(result.data));
    m_text->verticalScrollBar()->setValue(m_text->verticalScrollBar()->maximum()); // the newest lines
    const QString node = QString::fromStdString(result.node);
    if (m_previous->isChecked()) {
        m_status->setText(
            (result.truncated ? tr("The end of what node %1 keeps of the %2 of its previous launch (launch %3; %4 "
                                   "of it in all).")
                              : tr("All of what node %1 keeps of the %2 of its previous launch (launch %3; %4)."))
                .arg(node, stream)
                .arg(result.incarnation)
                .arg(locale.formattedDataSize(result.sizeBytes)));
        return;
    }
    if (result.sizeBytes == 0)
        m_status->setText(tr("Node %1 holds no %2 of it yet.").arg(node, stream));
    else if (result.truncated)
        m_status->setText(tr("The end of what node %1 keeps of its %2 (%3 of it in all).")
                              .arg(node, stream, locale.formattedDataSize(result.sizeBytes)));
    else
        m_status->setText(tr("All of what node %1 keeps of its %2 (%3).")
                              .arg(node, stream, locale.formattedDataSize(result.sizeBytes)));
    m_end = result.end;
    m_incarnation = result.incarnation;
    m_ended = result.ended;
    if (!m_follow->isChecked())
        return;
    if (m_end < 0) {
        m_follow->setChecked(false);
        m_status->setText(m_status->text() + QLatin1Char(' ')
            + tr(
                "Its agent is from before following output, so it cannot be followed: Refresh to read the end again."));
        return;
    }
    if (m_ended)
        readOn(); // what this read left is all there is: see at once whether anything is left
    else
        m_timer.start();
}

void LogsDialog::showFollowed(const LogsResult& result)
{
    const QLocale locale;
    const QString stream = result.stderrStream ? tr("standard error") : tr("standard output");
    const QString node = QString::fromStdString(result.node);
    if (!result.ok) { // away for now (its agent, the daemon), or gone: said, and asked again while following
        m_status->setText(tr("Following: %1; asking again every %2 s.")
                              .arg(QString::fromStdString(result.message))
                              .arg(m_timer.interval() / 1000.0));
        m_ended = false;
        return;
    }
    if (result.end < 0) {
        m_follow->setChecked(false);
        m_status->setText(tr("Node %1's agent is from before following output, so it cannot be followed.").arg(node));
        return;
    }
    QString note;
    if (result.incarnation != m_incarnation) {
        m_text->clear(); // another launch's stream: shown from its beginning
        m_read = 0;
        note = tr("It was launched again (launch %1, on node %2): its output from the beginning.")
                   .arg(result.incarnation)
                   .arg(node);
    } else if (result.start > m_end) {
        note = tr("%1 were rotated out on node %2 before they could be read.")
                   .arg(locale.formattedDataSize(result.start - m_end), node);
    } else if (result.start < m_end) {
        note = tr("Node %1 keeps less of it than was read (its record began again): from the beginning of what it "
                  "keeps.")
                   .arg(node);
    }
    if (!result.data.empty()) {
        // Appended where the text ends; the view stays at the bottom when it was there, else where the operator put it.
        QScrollBar* bar = m_text->verticalScrollBar();
        const bool atBottom = bar->value() == bar->maximum();
        QTextCursor end(m_text->document());
        end.movePosition(QTextCursor::End);
        end.insertText(QString::fromStdString(result.data));
        if (atBottom)
            bar->setValue(bar->maximum());
    }
    m_read += result.end - result.start;
    const bool endedBefore = m_ended;
    m_end = result.end;
    m_incarnation = result.incarnation;
    m_ended = result.ended;
    if (endedBefore && m_ended && result.start == result.end) {
        m_timer.stop();
        m_follow->setChecked(false);
        m_status->setText(tr("It has ended (%1): that is all of its %2.").arg(phaseLabel(result.phase), stream)
            + (note.isEmpty() ? QString() : QLatin1Char(' ') + note));
        return;
    }
    m_status->setText(
        tr("Following its %1 on node %2: %3 read since.").arg(stream, node, locale.formattedDataSize(m_read))
        + (note.isEmpty() ? QString() : QLatin1Char(' ') + note));
    // Read on at once rather than at the next tick: after output (the next read waits at the agent for more), after a
    // read that waited there in vain, and once it has ended (to see whether anything is left).
    const bool waited = m_asked.elapsed() >= kFollowWaitMs / 2;
    const bool catchingUp = result.end - result.start >= 64 * 1024; // more than one answer carries
    if (m_ended || waited || catchingUp)
        QTimer::singleShot(0, this, &LogsDialog::readOn);
    else if (result.end > result.start)
        QTimer::singleShot(std::max<qint64>(0, kMinReadGapMs - m_asked.elapsed()), this, &LogsDialog::readOn);
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
        addResizeAction(menu, view->window(), bridge, id);
        menu.exec(view->viewport()->mapToGlobal(at));
    });
}

} // namespace tidepool::ui
