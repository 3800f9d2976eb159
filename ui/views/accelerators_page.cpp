#include "ui/views/accelerators_page.h"

#include "ui/labels.h"
#include "ui/models/device_history_model.h"
#include "ui/models/devices_model.h"
#include "ui/models/filter_proxy.h"
#include "ui/models/roles.h"
#include "ui/models/slot_timeline_model.h"
#include "ui/theme.h"
#include "ui/view_labels.h"
#include "ui/views/slot_timeline_view.h"
#include "ui/views/table_page.h"

#include <QtCharts/QAreaSeries>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChartView>
#include <QtCharts/QDateTimeAxis>
#include <QtCharts/QHorizontalBarSeries>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>

#include <QDateTime>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace tidepool::ui {

namespace {

// One colour per charted device, the same in both charts.
QColor deviceColour(std::size_t i)
{
    static const QColor colours[]
        = { QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x27, 0x28), QColor(0x2c, 0xa0, 0x2c), QColor(0x94, 0x67, 0xbd) };
    return colours[i % std::size(colours)];
}

QChart* newChart()
{
    auto* chart = new QChart;
    chart->setTheme(chartTheme());
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    return chart;
}

QString requestedName(const DeviceRow& row)
{
    if (row.kind == "fpga")
        return AcceleratorsPage::tr("%1 slots occupied").arg(DevicesModel::deviceName(row));
    if (row.kind == "npu")
        return AcceleratorsPage::tr("%1 cores allocated").arg(DevicesModel::deviceName(row));
    return AcceleratorsPage::tr("%1 share requested").arg(DevicesModel::deviceName(row));
}

} // namespace

AcceleratorsPage::AcceleratorsPage(DevicesModel* devices, QWidget* parent)
    : QWidget(parent)
    , m_devices(devices)
    , m_table(new TablePage(devices, false, this))
    , m_title(new QLabel(this))
    , m_history(new QChartView(newChart(), this))
    , m_shares(new QChartView(newChart(), this))
    , m_slotModel(new SlotTimelineModel(this))
    , m_slotTimeline(new SlotTimelineView(m_slotModel, this))
    , m_slotTitle(new QLabel(this))
    , m_slotPanel(new QWidget(this))
    , m_right(new QStackedWidget(this))
{
    for (const int column :
        { DevicesModel::Requested, DevicesModel::Achieved, DevicesModel::MemoryAllocated, DevicesModel::MemoryUsed })
        m_table->showSharesAsBars(column);
    m_table->view()->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->view()->setToolTip(tr("Select up to %1 devices to chart them together").arg(kMaxCharted));
    m_history->setObjectName(QStringLiteral("deviceHistoryChart"));
    m_shares->setObjectName(QStringLiteral("deviceSharesChart"));
    m_history->setRenderHint(QPainter::Antialiasing);
    m_history->chart()->setTitle(tr("Utilisation, requested share and memory over time"));
    m_shares->chart()->setTitle(tr("Who holds each device"));
    m_title->setObjectName(QStringLiteral("chartedDevices"));
    buildCharts();
    m_title->setWordWrap(true);

    // The slot timeline, titled like a chart, on the chart's background.
    m_slotTitle->setObjectName(QStringLiteral("slotTimelineTitle"));
    m_slotTitle->setAlignment(Qt::AlignCenter);
    m_slotTitle->setWordWrap(true);
    auto* slotLayout = new QVBoxLayout(m_slotPanel);
    slotLayout->setContentsMargins(8, 8, 8, 8);
    slotLayout->addWidget(m_slotTitle);
    slotLayout->addWidget(m_slotTimeline, 1);
    m_right->addWidget(m_shares);
    m_right->addWidget(m_slotPanel);
    auto* charts = new QSplitter(Qt::Horizontal, this);
    charts->addWidget(m_history);
    charts->addWidget(m_right);
    charts->setStretchFactor(0, 3);
    charts->setStretchFactor(1, 2);
    // 3:2 from the start, whatever the timeline's title and rows hint: the stack's size hint is its largest page's.
    charts->setSizes({ 3000, 2000 });
    auto* lower = new QWidget(this);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    lowerLayout->addWidget(m_title);
    lowerLayout->addWidget(charts, 1);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(lower);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    connect(m_table->view()->selectionModel(), &QItemSelectionModel::selectionChanged, this,
        &AcceleratorsPage::onSelectionChanged);
    // Filtering and sorting change which row is first: what is charted when nothing is selected.
    connect(m_table->proxy(), &QAbstractItemModel::layoutChanged, this, &AcceleratorsPage::onSelectionChanged);
}

std::vector<std::int64_t> AcceleratorsPage::selectedDevices() const
{
    std::vector<std::int64_t> keys;
    const QTreeView* view = m_table->view();
    QModelIndexList rows = view->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    for (const QModelIndex& row : rows) {
        if (static_cast<int>(keys.size()) == kMaxCharted)
            break;
        keys.push_back(row.data(IdRole).toLongLong());
    }
    if (keys.empty() && m_table->proxy()->rowCount() > 0)
        keys.push_back(m_table->proxy()->index(0, 0).data(IdRole).toLongLong());
    return keys;
}

void AcceleratorsPage::setSnapshot(const SnapshotPtr& snapshot)
{
    m_snapshot = snapshot;
    chartDevices(selectedDevices());
    for (DeviceHistoryModel* model : m_historyModels)
        model->setSnapshot(snapshot);
    refreshHistoryChart();
    refreshSharesChart();
    refreshSlotTimeline();
}

void AcceleratorsPage::onSelectionChanged()
{
    const std::vector<std::int64_t> keys = selectedDevices();
    if (keys == m_charted)
        return;
    chartDevices(keys);
    refreshHistoryChart();
    refreshSharesChart();
    refreshSlotTimeline();
}

void AcceleratorsPage::buildCharts()
{
    // Built once: series are only refilled and shown or hidden, never removed (a chart whose series come and go
    // leaves stale legend markers behind).
    QChart* chart = m_history->chart();
    auto* time = new QDateTimeAxis;
    time->setFormat(QStringLiteral("dd HH:mm"));
    time->setTitleText(tr("Time"));
    auto* share = new QValueAxis;
    share->setRange(0, 100);
    share->setLabelFormat(QStringLiteral("%d %"));
    share->setTitleText(tr("% of the device"));
    chart->addAxis(time, Qt::AlignBottom);
    chart->addAxis(share, Qt::AlignLeft);
    for (int i = 0; i < kMaxCharted; ++i) {
        // Memory as an area under its line, utilisation and the requested share as lines over it.
        auto* memory = new QAreaSeries(new QLineSeries(this));
        auto* utilisation = new QLineSeries;
        auto* requested = new QLineSeries;
        for (QAbstractSeries* series : std::initializer_list<QAbstractSeries*> { memory, utilisation, requested }) {
            chart->addSeries(series);
            series->attachAxis(time);
            series->attachAxis(share);
            series->setVisible(false);
        }
    }

    QChart* bars = m_shares->chart();
    m_shareSet = new QBarSet(tr("Share"));
    m_memorySet = new QBarSet(tr("Memory"));
    auto* series = new QHorizontalBarSeries;
    series->append(m_shareSet);
    series->append(m_memorySet);
    bars->addSeries(series);
    m_holderAxis = new QBarCategoryAxis;
    m_holderAxis->setReverse(true); // top to bottom in the order of the table and the holders (largest first)
    auto* percent = new QValueAxis;
    percent->setRange(0, 100);
    percent->setLabelFormat(QStringLiteral("%d %"));
    percent->setTitleText(tr("% of the device"));
    bars->addAxis(m_holderAxis, Qt::AlignLeft);
    bars->addAxis(percent, Qt::AlignBottom);
    series->attachAxis(m_holderAxis);
    series->attachAxis(percent);
}

void AcceleratorsPage::chartDevices(std::vector<std::int64_t> keys)
{
    if (keys == m_charted && m_historyModels.size() == keys.size())
        return;
    m_charted = std::move(keys);
    for (DeviceHistoryModel* model : m_historyModels)
        model->deleteLater();
    m_historyModels.clear();
    for (const std::int64_t key : m_charted) {
        auto* model = new DeviceHistoryModel(this);
        model->setDevice(static_cast<std::int32_t>(key / 65536), static_cast<std::int32_t>(key % 65536));
        model->setSnapshot(m_snapshot);
        m_historyModels.push_back(model);
    }
}

void AcceleratorsPage::refreshHistoryChart()
{
    QChart* chart = m_history->chart();
    const QList<QAbstractSeries*> series = chart->series();
    std::int64_t first = std::numeric_limits<std::int64_t>::max();
    std::int64_t last = std::numeric_limits<std::int64_t>::min();
    QStringList names;
    for (int i = 0; i < kMaxCharted && 3 * i + 2 < series.size(); ++i) {
        auto* memory = static_cast<QAreaSeries*>(series[3 * i]);
        auto* utilisation = static_cast<QLineSeries*>(series[3 * i + 1]);
        auto* requested = static_cast<QLineSeries*>(series[3 * i + 2]);
        const bool shown = i < static_cast<int>(m_historyModels.size());
        QList<QPointF> memoryPoints, utilisationPoints, requestedPoints;
        bool memoryMeasured = false;
        if (shown)
            for (const DeviceHistoryRow& row : m_historyModels[static_cast<std::size_t>(i)]->rows()) {
                const auto x = static_cast<qreal>(row.atMs);
                first = std::min(first, row.atMs);
                last = std::max(last, row.atMs);
                if (row.utilisation)
                    utilisationPoints.append(QPointF(x, *row.utilisation * 100.0));
                requestedPoints.append(QPointF(x, row.allocated * 100.0));
                memoryMeasured = memoryMeasured || row.memoryUsed.has_value();
                memoryPoints.append(QPointF(x, row.memoryUsed.value_or(row.memoryAllocated) * 100.0));
            }
        memory->upperSeries()->replace(memoryPoints);
        utilisation->replace(utilisationPoints);
        requested->replace(requestedPoints);
        for (QAbstractSeries* s : std::initializer_list<QAbstractSeries*> { memory, utilisation, requested })
            s->setVisible(shown);
        if (!shown)
            continue;
        // The theme may have reset the colours: set them every time.
        const QColor colour = deviceColour(static_cast<std::size_t>(i));
        QColor fill = colour;
        fill.setAlpha(50);
        memory->setBrush(fill);
        memory->setPen(QPen(fill.darker(120), 1));
        utilisation->setPen(QPen(colour, 2));
        requested->setPen(QPen(colour.lighter(140), 2, Qt::DashLine));
        const std::int64_t key = m_charted[static_cast<std::size_t>(i)];
        const DeviceRow* device = m_devices->rowAt(m_devices->rowOf(key));
        const QString name = device ? DevicesModel::deviceName(*device) : QString::number(key);
        utilisation->setName(tr("%1 utilisation").arg(name));
        requested->setName(device ? requestedName(*device) : name);
        memory->setName(memoryMeasured ? tr("%1 memory used").arg(name) : tr("%1 memory allocated").arg(name));
        names << name;
    }
    if (first <= last) {
        const auto axes = chart->axes(Qt::Horizontal);
        if (!axes.isEmpty())
            axes.first()->setRange(
                QDateTime::fromMSecsSinceEpoch(first), QDateTime::fromMSecsSinceEpoch(std::max(last, first + 60'000)));
    }
    m_title->setText(names.isEmpty() ? tr("No accelerator to chart.")
                                     : tr("Charted: %1 (the last %2 samples)")
                                           .arg(names.join(tr(", ")))
                                           .arg(m_historyModels.empty() ? 0 : m_historyModels.front()->rowCount()));
}

bool AcceleratorsPage::showsSlotTimeline() const
{
    return m_right->currentWidget() == m_slotPanel;
}

void AcceleratorsPage::refreshSlotTimeline()
{
    const DeviceRow* device = m_charted.empty() ? nullptr : m_devices->rowAt(m_devices->rowOf(m_charted.front()));
    if (!device || device->kind != "fpga") {
        m_slotModel->setDevice(-1, -1);
        m_slotModel->setSnapshot(nullptr);
        m_right->setCurrentWidget(m_shares);
        return;
    }
    m_slotModel->setDevice(device->nodeId, device->index);
    m_slotModel->setSnapshot(m_snapshot);
    QString title = tr("Who held which slot of %1").arg(DevicesModel::deviceName(*device));
    // The collector numbers no more slots than the device has; should the books disagree, say what is missing.
    if (device->slotsUnnumbered > 0)
        title += QLatin1Char('\n')
            + tr("Its holders hold %1 slots more than it has; those are not drawn.").arg(device->slotsUnnumbered);
    m_slotTitle->setText(title);
    m_right->setCurrentWidget(m_slotPanel);
}

void AcceleratorsPage::refreshSharesChart()
{
    // Bars: every holder of each charted device, its share and its memory as a percentage of the device, and the
    // device's free share last.
    QList<qreal> shares, memories;
    QStringList categories;
    for (const std::int64_t key : m_charted) {
        const DeviceRow* device = m_devices->rowAt(m_devices->rowOf(key));
        if (!device)
            continue;
        const double capacity = std::max<double>(1.0, device->shareCapacity);
        const double memory = std::max<double>(1.0, static_cast<double>(device->memoryMiB));
        const QString prefix
            = m_charted.size() > 1 ? DevicesModel::deviceName(*device) + QStringLiteral(": ") : QString();
        for (const DeviceHolder& h : device->holders) {
            // Category names must be unique (the axis drops a repeated one): each charted device's are prefixed by it.
            QString category = prefix + QString::fromStdString(h.name);
            while (categories.contains(category))
                category += QLatin1Char('\'');
            categories << category;
            shares << 100.0 * h.share / capacity;
            memories << 100.0 * static_cast<double>(h.memoryMiB) / memory;
        }
        categories << prefix + tr("free");
        shares << 100.0 * (device->shareCapacity - device->shareAllocated) / capacity;
        memories << 100.0 * static_cast<double>(device->memoryMiB - device->memoryAllocatedMiB) / memory;
    }
    m_shareSet->remove(0, m_shareSet->count());
    m_memorySet->remove(0, m_memorySet->count());
    m_holderAxis->clear();
    m_holderAxis->append(categories);
    m_shareSet->append(shares);
    m_memorySet->append(memories);
    m_shareSet->setColor(deviceColour(0));
    m_memorySet->setColor(deviceColour(0).lighter(160));
}

} // namespace tidepool::ui
