#include "ui/views/report_dialog.h"

#include "ui/pdf/report_pdf.h"

#include <QComboBox>
#include <QDateTimeEdit>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

#include <set>

namespace tidepool::ui {

namespace {

constexpr qint64 kDayMs = 86'400'000;

QDateTimeEdit* utcEdit(qint64 ms, QWidget* parent)
{
    auto* edit = new QDateTimeEdit(parent);
    edit->setTimeSpec(Qt::UTC);
    edit->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm"));
    edit->setCalendarPopup(true);
    edit->setDateTime(QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC));
    return edit;
}

} // namespace

ReportDialog::ReportDialog(CoreBridge& bridge, QWidget* parent)
    : QDialog(parent)
    , m_bridge(bridge)
{
    setWindowTitle(tr("Export report"));
    // The previous whole UTC day of the core's clock (simulated in the demo).
    const SnapshotPtr latest = m_bridge.latest();
    const qint64 now = latest && latest->nowMs > 0 ? latest->nowMs : QDateTime::currentMSecsSinceEpoch();
    const qint64 today = now / kDayMs * kDayMs;

    m_from = utcEdit(today - kDayMs, this);
    m_to = utcEdit(today, this);
    m_scope = new QComboBox(this);
    m_scope->addItem(tr("Cluster"), QStringLiteral("cluster"));
    m_scope->addItem(tr("Business line"), QStringLiteral("business-line"));
    m_scope->addItem(tr("Pool"), QStringLiteral("pool"));
    m_scope->addItem(tr("Tier"), QStringLiteral("tier"));
    m_name = new QComboBox(this);
    m_name->setEditable(true);
    m_format = new QComboBox(this);
    m_format->addItem(tr("PDF"), QStringLiteral("pdf"));
    m_format->addItem(tr("HTML"), QStringLiteral("html"));
    m_format->addItem(tr("CSV (spreadsheets)"), QStringLiteral("csv"));
    m_language = new QComboBox(this);
    m_language->addItem(tr("English"), QStringLiteral("en"));
    m_language->addItem(tr("Simplified Chinese"), QStringLiteral("zh_CN"));
    m_language->setCurrentIndex(QLocale().language() == QLocale::Chinese ? 1 : 0);
    m_path = new QLineEdit(this);
    m_path->setText(QDir::home().filePath(
        QStringLiteral("tidepool-report-%1.pdf")
            .arg(QDateTime::fromMSecsSinceEpoch(today - kDayMs, Qt::UTC).toString(QStringLiteral("yyyy-MM-dd")))));
    auto* browseButton = new QPushButton(tr("Browse…"), this);
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browseButton);

    auto* form = new QFormLayout;
    form->addRow(tr("From (UTC):"), m_from);
    form->addRow(tr("To (UTC):"), m_to);
    form->addRow(tr("Scope:"), m_scope);
    form->addRow(tr("Name:"), m_name);
    form->addRow(tr("Format:"), m_format);
    form->addRow(tr("Language:"), m_language);
    form->addRow(tr("File:"), pathRow);

    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_export = buttons->addButton(tr("&Export"), QDialogButtonBox::AcceptRole);
    m_export->setDefault(true);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_status);
    layout->addWidget(buttons);

    connect(m_scope, &QComboBox::currentIndexChanged, this, [this] { fillNames(); });
    connect(m_format, &QComboBox::currentIndexChanged, this, [this] {
        // The file's extension follows the format.
        QString path = m_path->text();
        const QString extension = QLatin1Char('.') + m_format->currentData().toString();
        const qsizetype dot = path.lastIndexOf(QLatin1Char('.'));
        const qsizetype slash = path.lastIndexOf(QLatin1Char('/'));
        if (dot > slash)
            path.truncate(dot);
        m_path->setText(path + extension);
    });
    connect(browseButton, &QPushButton::clicked, this, [this] { browse(); });
    connect(m_export, &QPushButton::clicked, this, [this] { startExport(); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(&m_bridge, &CoreBridge::reportFinished, this, [this](const ReportResult& r) { onReport(r); });
    fillNames();
}

void ReportDialog::fillNames()
{
    const QString kind = m_scope->currentData().toString();
    m_name->clear();
    m_name->setEnabled(kind != QLatin1String("cluster"));
    if (kind == QLatin1String("tier")) {
        m_name->addItem(tr("Hot"), QStringLiteral("hot"));
        m_name->addItem(tr("Warm"), QStringLiteral("warm"));
        m_name->addItem(tr("Cold"), QStringLiteral("cold"));
        return;
    }
    const SnapshotPtr latest = m_bridge.latest();
    if (!latest || kind == QLatin1String("cluster"))
        return;
    std::set<std::string> names;
    for (const PoolRow& pool : latest->pools)
        names.insert(kind == QLatin1String("pool") ? pool.name : pool.businessLine);
    for (const std::string& name : names)
        if (!name.empty())
            m_name->addItem(QString::fromStdString(name), QString::fromStdString(name));
}

void ReportDialog::browse()
{
    const QString format = m_format->currentData().toString();
    const QString filter = format == QLatin1String("pdf") ? tr("PDF documents (*.pdf)")
        : format == QLatin1String("html")                 ? tr("Web pages (*.html)")
                                                          : tr("CSV files (*.csv)");
    const QString chosen = QFileDialog::getSaveFileName(this, tr("Export report"), m_path->text(), filter);
    if (!chosen.isEmpty())
        m_path->setText(chosen);
}

bool ReportDialog::startExport()
{
    if (m_pending != 0)
        return false;
    const QString path = m_path->text().trimmed();
    if (path.isEmpty()) {
        m_status->setText(tr("Choose the file to write the report to."));
        return false;
    }
    const QString kind = m_scope->currentData().toString();
    // A tier's name is the core's key (the box shows it translated); other names are as typed or chosen.
    const QString name = kind == QLatin1String("cluster") ? QString()
        : kind == QLatin1String("tier") && m_name->currentIndex() >= 0
            && m_name->itemText(m_name->currentIndex()) == m_name->currentText()
        ? m_name->currentData().toString()
        : m_name->currentText().trimmed();
    if (kind != QLatin1String("cluster") && name.isEmpty()) {
        m_status->setText(tr("Choose the %1 to report on.").arg(m_scope->currentText().toLower()));
        return false;
    }
    const qint64 from = m_from->dateTime().toMSecsSinceEpoch();
    const qint64 to = m_to->dateTime().toMSecsSinceEpoch();
    if (from >= to) {
        m_status->setText(
            tr("The period is empty: “From” (%1) must be before “To” (%2).").arg(m_from->text(), m_to->text()));
        return false;
    }
    const auto request = report::makeReportRequest(std::to_string(from), std::to_string(to), kind.toStdString(),
        name.toStdString(), m_language->currentData().toString().toStdString());
    if (!request) {
        m_status->setText(tr("The report cannot be made: %1").arg(QString::fromStdString(request.error().message)));
        return false;
    }
    m_pending = m_bridge.requestReport(*request);
    if (m_pending == 0) {
        m_status->setText(tr("No core is running: the report cannot be made."));
        return false;
    }
    m_pendingPath = path;
    m_pendingFormat = m_format->currentData().toString();
    setBusy(true);
    m_status->setText(tr("Preparing the report…"));
    return true;
}

void ReportDialog::onReport(const ReportResult& result)
{
    if (result.requestId != m_pending || m_pending == 0)
        return;
    m_pending = 0;
    setBusy(false);
    if (!result.data) {
        const QString error = tr("The report could not be made: %1").arg(QString::fromStdString(result.message));
        m_status->setText(error);
        Q_EMIT failed(error);
        return;
    }
    const QString error = pdf::writeReport(*result.data, m_pendingFormat, m_pendingPath);
    if (!error.isEmpty()) {
        const QString message = tr("The report could not be saved: %1").arg(error);
        m_status->setText(message);
        Q_EMIT failed(message);
        return;
    }
    m_status->setText(tr("Saved to %1").arg(m_pendingPath));
    Q_EMIT exported(m_pendingPath);
}

void ReportDialog::setBusy(bool busy)
{
    m_export->setEnabled(!busy);
    if (busy)
        setCursor(Qt::BusyCursor);
    else
        unsetCursor();
}

} // namespace tidepool::ui
