#include "ui/views/pool_dialog.h"

#include "ui/labels.h"

#include <QComboBox>
#include <QCompleter>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>

namespace tidepool::ui {

namespace {

constexpr const char* kAcceleratorKinds[] = { "gpu", "npu", "fpga" };

QSpinBox* quotaSpin(QWidget* parent, int minimum, int maximum, const QString& suffix)
{
    auto* box = new QSpinBox(parent);
    box->setRange(minimum, maximum);
    box->setSpecialValueText(PoolDialog::tr("unlimited"));
    box->setSuffix(suffix);
    box->setValue(minimum);
    return box;
}

} // namespace

PoolDialog::PoolDialog(const PoolRow* pool, QWidget* parent)
    : QDialog(parent)
    , m_editing(pool != nullptr)
    , m_name(new QLineEdit(this))
    , m_businessLine(new QLineEdit(this))
    , m_tier(new QComboBox(this))
    , m_cpu(new QDoubleSpinBox(this))
    , m_memory(new QDoubleSpinBox(this))
    , m_memBandwidth(quotaSpin(this, 0, 100'000'000, tr(" MB/s")))
    , m_network(quotaSpin(this, 0, 100'000'000, tr(" Mbit/s")))
    , m_ioWeight(new QSpinBox(this))
    , m_maxDisrupted(new QSpinBox(this))
    , m_disruptionUnit(new QComboBox(this))
{
    setWindowTitle(pool ? tr("Edit pool %1").arg(QString::fromStdString(pool->name)) : tr("New pool"));
    m_name->setPlaceholderText(tr("letters, digits, '.', '_' and '-'"));
    m_name->setMaxLength(64);
    m_businessLine->setPlaceholderText(tr("none: a cost row of its own in reports"));
    m_tier->addItem(tr("any tier"), QString());
    for (const char* tier : { "hot", "warm", "cold" })
        m_tier->addItem(tierLabel(std::string(tier)), QString::fromLatin1(tier));
    m_cpu->setRange(0, 100'000);
    m_cpu->setDecimals(2);
    m_cpu->setSingleStep(0.5);
    m_cpu->setSpecialValueText(tr("unlimited"));
    m_cpu->setSuffix(tr(" cores"));
    m_memory->setRange(0, 1'000'000);
    m_memory->setDecimals(1);
    m_memory->setSpecialValueText(tr("unlimited"));
    m_memory->setSuffix(tr(" GiB"));
    m_ioWeight->setRange(1, 10'000);
    m_ioWeight->setValue(100);
    m_maxDisrupted->setRange(-1, 1'000'000);
    m_maxDisrupted->setSpecialValueText(tr("no budget"));
    m_maxDisrupted->setValue(-1);
    m_maxDisrupted->setToolTip(tr("How many of the pool's workloads drains and approved migrations may have moved and "
                                  "not running again at once; 0: none moves until a drain's deadline."));
    m_disruptionUnit->addItem(tr("workloads"), false);
    m_disruptionUnit->addItem(tr("% of its workloads"), true);
    m_disruptionUnit->setToolTip(
        tr("A percentage follows the pool's size, rounded up: 10% of 4 workloads lets 1 move."));
    connect(m_disruptionUnit, &QComboBox::currentIndexChanged, this, [this] {
        const bool percent = m_disruptionUnit->currentData().toBool();
        m_maxDisrupted->setMaximum(percent ? 100 : 1'000'000);
        m_maxDisrupted->setSuffix(percent ? QStringLiteral("%") : QString());
    });
    const QString units[] = { tr(" milli-GPUs"), tr(" NPU cores"), tr(" FPGA slots") };
    for (std::size_t k = 0; k < m_accelerators.size(); ++k)
        m_accelerators[k] = quotaSpin(this, -1, 64'000'000, units[k]);

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    setMinimumWidth(fontMetrics().averageCharWidth() * 72);
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Business line"), m_businessLine);
    form->addRow(tr("Tier"), m_tier);
    form->addRow(tr("CPU quota"), m_cpu);
    form->addRow(tr("Memory quota"), m_memory);
    form->addRow(tr("Memory bandwidth quota"), m_memBandwidth);
    form->addRow(tr("Network quota"), m_network);
    form->addRow(tr("IO weight (100: the default)"), m_ioWeight);
    auto* budget = new QHBoxLayout;
    budget->addWidget(m_maxDisrupted, 1);
    budget->addWidget(m_disruptionUnit);
    form->addRow(tr("Disruption budget (moving at once)"), budget);
    form->addRow(tr("GPU quota (1000 a GPU; 0: none)"), m_accelerators[0]);
    form->addRow(tr("NPU quota (0: none)"), m_accelerators[1]);
    form->addRow(tr("FPGA quota (0: none)"), m_accelerators[2]);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);

    if (!pool)
        return;
    m_name->setText(QString::fromStdString(pool->name));
    m_name->setReadOnly(true);
    m_businessLine->setText(QString::fromStdString(pool->businessLine));
    m_tier->setCurrentIndex(std::max(0, m_tier->findData(QString::fromStdString(pool->tier))));
    if (pool->cpuQuotaMillis > 0)
        m_cpu->setValue(static_cast<double>(pool->cpuQuotaMillis) / 1000.0);
    if (pool->memoryQuotaMiB > 0)
        m_memory->setValue(static_cast<double>(pool->memoryQuotaMiB) / 1024.0);
    if (pool->memBandwidthQuotaMBps > 0)
        m_memBandwidth->setValue(static_cast<int>(std::min<std::int64_t>(pool->memBandwidthQuotaMBps, 100'000'000)));
    if (pool->netBandwidthQuotaMbps > 0)
        m_network->setValue(static_cast<int>(std::min<std::int64_t>(pool->netBandwidthQuotaMbps, 100'000'000)));
    m_ioWeight->setValue(pool->ioWeight);
    if (pool->maxDisruptedPercent >= 0) {
        m_disruptionUnit->setCurrentIndex(1);
        m_maxDisrupted->setValue(pool->maxDisruptedPercent);
    } else {
        m_maxDisrupted->setValue(static_cast<int>(std::min<std::int64_t>(pool->maxDisrupted, 1'000'000)));
    }
    for (std::size_t k = 0; k < m_accelerators.size(); ++k)
        if (pool->acceleratorQuotaShare[k] >= 0)
            m_accelerators[k]->setValue(
                static_cast<int>(std::min<std::int64_t>(pool->acceleratorQuotaShare[k], 64'000'000)));
}

QString PoolDialog::poolName() const
{
    return m_name->text().trimmed();
}

nlohmann::json PoolDialog::body() const
{
    nlohmann::json body = nlohmann::json::object();
    if (!m_editing)
        body["name"] = poolName().toStdString();
    const QString line = m_businessLine->text().trimmed();
    body["businessLine"] = line.isEmpty() ? nlohmann::json() : nlohmann::json(line.toStdString());
    const QString tier = m_tier->currentData().toString();
    body["tier"] = tier.isEmpty() ? nlohmann::json() : nlohmann::json(tier.toStdString());
    const auto quota = [](double value, double scale) {
        return value <= 0 ? nlohmann::json() : nlohmann::json(static_cast<std::int64_t>(std::llround(value * scale)));
    };
    body["cpuMillis"] = quota(m_cpu->value(), 1000.0);
    body["memoryMiB"] = quota(m_memory->value(), 1024.0);
    body["memBandwidthMBps"] = quota(m_memBandwidth->value(), 1.0);
    body["netBandwidthMbps"] = quota(m_network->value(), 1.0);
    body["ioWeight"] = m_ioWeight->value();
    if (m_maxDisrupted->value() < 0)
        body["maxDisrupted"] = nullptr;
    else if (m_disruptionUnit->currentData().toBool())
        body["maxDisrupted"] = std::to_string(m_maxDisrupted->value()) + "%";
    else
        body["maxDisrupted"] = m_maxDisrupted->value();
    nlohmann::json accelerators = nlohmann::json::object();
    for (std::size_t k = 0; k < m_accelerators.size(); ++k) {
        const int value = m_accelerators[k]->value();
        accelerators[kAcceleratorKinds[k]] = value < 0 ? nlohmann::json() : nlohmann::json(value);
    }
    body["acceleratorQuota"] = std::move(accelerators);
    return body;
}

void PoolDialog::startLike(const PoolRow& like)
{
    if (m_editing)
        return;
    m_businessLine->setText(QString::fromStdString(like.businessLine));
    m_tier->setCurrentIndex(std::max(0, m_tier->findData(QString::fromStdString(like.tier))));
}

void PoolDialog::suggestBusinessLines(const QStringList& lines)
{
    auto* completer = new QCompleter(lines, m_businessLine);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setCompletionMode(QCompleter::UnfilteredPopupCompletion);
    m_businessLine->setCompleter(completer);
}

} // namespace tidepool::ui
