#include "ui/views/resize_dialog.h"

#include "ui/bridge/console_role.h"
#include "ui/bridge/core_bridge.h"
#include "ui/labels.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace tidepool::ui {

namespace {

constexpr double kMaxCores = 1'000'000.0; // as the protocol's most (2^30 millicores), in round figures
constexpr int kMaxMiB = 1 << 30;

QDoubleSpinBox* coresSpin(QWidget* parent, double cores, const QString& none)
{
    auto* box = new QDoubleSpinBox(parent);
    box->setDecimals(2);
    box->setRange(0.0, kMaxCores);
    box->setSingleStep(0.25);
    box->setSuffix(ResizeDialog::tr(" cores"));
    if (!none.isEmpty())
        box->setSpecialValueText(none);
    box->setValue(cores);
    return box;
}

QSpinBox* mebibytesSpin(QWidget* parent, std::int64_t mib, const QString& none)
{
    auto* box = new QSpinBox(parent);
    box->setRange(0, kMaxMiB);
    box->setSingleStep(64);
    box->setSuffix(ResizeDialog::tr(" MiB"));
    if (!none.isEmpty())
        box->setSpecialValueText(none);
    box->setValue(static_cast<int>(std::clamp<std::int64_t>(mib, 0, kMaxMiB)));
    return box;
}

qint64 millisOf(const QDoubleSpinBox* box)
{
    return static_cast<qint64>(std::llround(box->value() * 1000.0));
}

const WorkloadRow* findWorkload(const CoreBridge& bridge, qint64 id)
{
    const SnapshotPtr snapshot = bridge.latest();
    if (!snapshot)
        return nullptr;
    const auto& rows = snapshot->workloads;
    const auto it = std::lower_bound(
        rows.begin(), rows.end(), id, [](const WorkloadRow& row, qint64 wanted) { return row.id < wanted; });
    return it != rows.end() && it->id == id ? &*it : nullptr;
}

} // namespace

ResizeDialog::ResizeDialog(CoreBridge& bridge, const WorkloadRow& workload, QWidget* parent)
    : QDialog(parent)
    , m_bridge(bridge)
    , m_workloadId(workload.id)
    , m_cpu(coresSpin(this, static_cast<double>(workload.cpuMillis) / 1000.0, {}))
    , m_memory(mebibytesSpin(this, workload.memoryMiB, {}))
    , m_cpuLimit(coresSpin(this, static_cast<double>(workload.cpuLimitMillis) / 1000.0, tr("none")))
    , m_memoryLimit(mebibytesSpin(this, workload.memoryLimitMiB, tr("none")))
    , m_message(new QLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Resize %1").arg(QString::fromStdString(workload.name)));
    auto* form = new QFormLayout;
    form->addRow(tr("CPU request:"), m_cpu);
    form->addRow(tr("Memory request:"), m_memory);
    form->addRow(tr("CPU limit:"), m_cpuLimit);
    form->addRow(tr("Memory limit:"), m_memoryLimit);
    auto* layout = new QVBoxLayout(this);
    auto* where = new QLabel(this);
    where->setWordWrap(true);
    where->setText(workload.node.empty()
            ? tr("It waits for a place: it is placed at its new size.")
            : tr("It runs on %1: it is resized there, without a restart, if the node has room and its pool the "
                 "quota.")
                  .arg(QString::fromStdString(workload.node)));
    layout->addWidget(where);
    if (workload.usedMeasured && workload.cpuUsedMillis >= 0) {
        QString text = tr("It uses %1 and %2 now, as its node measures it.")
                           .arg(coresText(workload.cpuUsedMillis), memoryText(workload.memoryUsedMiB));
        // What right-sizing sizes from: its CPU's 90th percentile and its memory's peak, each with a margin.
        const SnapshotPtr latest = bridge.latest();
        if (const QString since = measuredUseText(workload, latest ? latest->nowMs : 0); !since.isEmpty())
            text += QLatin1Char('\n') + since + QLatin1Char('.');
        auto* used = new QLabel(text, this);
        used->setObjectName(QStringLiteral("measuredUse"));
        used->setWordWrap(true);
        layout->addWidget(used);
    }
    layout->addLayout(form);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->hide();
    layout->addWidget(m_message);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &ResizeDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(&m_bridge, &CoreBridge::workloadResized, this, &ResizeDialog::finished);
}

void ResizeDialog::accept()
{
    if (m_request != 0)
        return; // one on its way already
    m_request = m_bridge.resize(
        m_workloadId, millisOf(m_cpu), m_memory->value(), millisOf(m_cpuLimit), m_memoryLimit->value());
    if (m_request == 0) {
        m_message->setText(tr("No core is connected."));
        m_message->show();
        return;
    }
    m_message->setText(tr("Resizing…"));
    m_message->setStyleSheet({});
    m_message->show();
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
}

void ResizeDialog::finished(const ResizeResult& result)
{
    if (result.requestId != m_request)
        return;
    m_request = 0;
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(true);
    if (result.ok) {
        QDialog::accept();
        return;
    }
    m_message->setText(tr("Not resized: %1").arg(QString::fromStdString(result.message)));
    m_message->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_message->show();
}

void addResizeAction(QMenu& menu, QWidget* parent, CoreBridge& bridge, qint64 workloadId)
{
    QAction* resize = menu.addAction(ResizeDialog::tr("&Resize…"));
    const std::string path = "/v1/workloads/" + std::to_string(workloadId) + "/resize";
    if (!roleAllows(bridge.role(), boost::beast::http::verb::post, path)) {
        resize->setEnabled(false);
        resize->setToolTip(ResizeDialog::tr("Your token's role (%1) may not resize workloads: that needs the %2 role.")
                               .arg(QString::fromStdString(bridge.role()),
                                   QString::fromStdString(roleNeeded(boost::beast::http::verb::post, path))));
        menu.setToolTipsVisible(true);
    } else if (!findWorkload(bridge, workloadId)) {
        resize->setEnabled(false);
    }
    QObject::connect(resize, &QAction::triggered, parent, [parent, &bridge, workloadId] {
        const WorkloadRow* row = findWorkload(bridge, workloadId);
        if (!row)
            return;
        auto* dialog = new ResizeDialog(bridge, *row, parent);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
}

} // namespace tidepool::ui
