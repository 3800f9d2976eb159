#include "ui/views/forecasts_page.h"

#include "ui/models/forecast_list_model.h"
#include "ui/models/forecast_points_model.h"
#include "ui/models/roles.h"
#include "ui/theme.h"
#include "ui/view_labels.h"

#include <QtCharts/QAreaSeries>
#include <QtCharts/QChartView>
#include <QtCharts/QDateTimeAxis>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>

#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace tidepool::ui {

namespace {

// What a series' values are divided by on the chart's axis, and its unit: CPU millicores as cores, accelerator
// milli-devices as devices, memory MiB as GiB.
std::pair<double, QString> axisUnit(const std::string& resource)
{
    if (resource == "cpu")
        return { 1000.0, ForecastsPage::tr("cores") };
    if (resource == "memory")
        return { 1024.0, ForecastsPage::tr("GiB") };
    if (resource == "gpu" || resource == "npu" || resource == "fpga")
        return { 1000.0, ForecastsPage::tr("devices") };
    return { 1.0, QString() };
}

} // namespace

ForecastsPage::ForecastsPage(QWidget* parent)
    : QWidget(parent)
    , m_list(new ForecastListModel(this))
    , m_points(new ForecastPointsModel(this))
    , m_selector(new QComboBox(this))
    , m_chart(new QChartView(this))
    , m_backtest(new QLabel(this))
    // The chart takes the series it shows; the band's two edges stay the page's.
    , m_actual(new QLineSeries)
    , m_mean(new QLineSeries)
    , m_p10(new QLineSeries(this))
    , m_p90(new QLineSeries(this))
    , m_band(new QAreaSeries(m_p90, m_p10))
    , m_peaks(new QScatterSeries)
{
    m_selector->setObjectName(QStringLiteral("seriesSelector"));
    m_selector->setModel(m_list);
    m_selector->setModelColumn(ForecastListModel::Series);
    m_selector->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_selector->setToolTip(tr("The pool or tier and the resource to show"));
    m_backtest->setObjectName(QStringLiteral("backtest"));
    m_backtest->setWordWrap(true);
    m_chart->setObjectName(QStringLiteral("forecastChart"));
    m_chart->setRenderHint(QPainter::Antialiasing);

    auto* chart = new QChart;
    chart->setTheme(chartTheme());
    chart->legend()->setAlignment(Qt::AlignBottom);
    m_actual->setName(tr("Actual"));
    m_mean->setName(tr("Forecast"));
    m_band->setName(tr("p10–p90 band"));
    m_peaks->setName(tr("Peaks"));
    m_peaks->setMarkerSize(11);
    for (QAbstractSeries* s : std::initializer_list<QAbstractSeries*> { m_band, m_actual, m_mean, m_peaks })
        chart->addSeries(s);
    auto* time = new QDateTimeAxis(chart);
    time->setFormat(QStringLiteral("dd HH:mm"));
    time->setTitleText(tr("Time"));
    auto* values = new QValueAxis(chart);
    chart->addAxis(time, Qt::AlignBottom);
    chart->addAxis(values, Qt::AlignLeft);
    for (QAbstractSeries* s : chart->series()) {
        s->attachAxis(time);
        s->attachAxis(values);
    }
    m_chart->setChart(chart);

    auto* top = new QHBoxLayout;
    auto* label = new QLabel(tr("&Series:"), this);
    label->setBuddy(m_selector);
    top->addWidget(label);
    top->addWidget(m_selector);
    top->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_chart, 1);
    layout->addWidget(m_backtest);

    connect(m_selector, &QComboBox::activated, this, [this](int row) {
        m_userChose = true;
        onSelectorChanged(row);
    });
    connect(m_selector, &QComboBox::currentIndexChanged, this, &ForecastsPage::onSelectorChanged);
}

bool ForecastsPage::selectSeries(const std::string& key)
{
    const int row = m_list->rowOf(key);
    if (row < 0)
        return false;
    m_userChose = true;
    m_selector->setCurrentIndex(row);
    onSelectorChanged(row);
    return true;
}

void ForecastsPage::setSnapshot(const SnapshotPtr& snapshot)
{
    const std::string chosen = m_points->seriesKey();
    m_list->setSnapshot(snapshot);
    // Keep the series shown; until the operator picks one, show the first that has a forecast.
    int row = chosen.empty() ? -1 : m_list->rowOf(chosen);
    if (!m_userChose || row < 0) {
        int best = -1;
        for (int r = 0; r < m_list->rowCount(); ++r) {
            const ForecastListRow* candidate = m_list->rowAt(r);
            if (candidate->series && !candidate->series->model.empty()) {
                // A pool's CPU first: what the rebalancer's quota proposals are about.
                if (best < 0
                    || (candidate->series->scope == "pool" && candidate->series->resource == "cpu"
                        && m_list->rowAt(best)->series->scope != "pool"))
                    best = r;
            }
        }
        if (row < 0 || (!m_userChose && best >= 0 && m_list->rowAt(row)->series->model.empty()))
            row = best >= 0 ? best : (m_list->rowCount() > 0 ? 0 : -1);
    }
    if (m_selector->currentIndex() != row) {
        const QSignalBlocker blocker(m_selector);
        m_selector->setCurrentIndex(row);
    }
    const ForecastListRow* shown = m_list->rowAt(row);
    m_points->setSeries(shown ? shown->key : std::string());
    m_points->setSnapshot(snapshot);
    refreshChart();
}

void ForecastsPage::onSelectorChanged(int row)
{
    const ForecastListRow* shown = m_list->rowAt(row);
    m_points->setSeries(shown ? shown->key : std::string());
    refreshChart();
}

void ForecastsPage::refreshChart()
{
    const ForecastSeries* series = m_points->series();
    const auto [divisor, unit] = axisUnit(series ? series->resource : std::string());
    QList<QPointF> actual, mean, p10, p90, peaks;
    double high = 0.0;
    std::int64_t first = 0, last = 0;
    for (const ForecastPointRow& row : m_points->rows()) {
        const auto x = static_cast<qreal>(row.atMs);
        first = first == 0 ? row.atMs : std::min(first, row.atMs);
        last = std::max(last, row.atMs);
        if (row.actual) {
            actual.append(QPointF(x, *row.actual / divisor));
            high = std::max(high, *row.actual / divisor);
        }
        if (row.mean)
            mean.append(QPointF(x, *row.mean / divisor));
        if (row.p10 && row.p90) {
            p10.append(QPointF(x, *row.p10 / divisor));
            p90.append(QPointF(x, *row.p90 / divisor));
            high = std::max(high, *row.p90 / divisor);
        }
        if (row.peak == PeakMark::History && row.actual)
            peaks.append(QPointF(x, *row.actual / divisor));
        if (row.peak == PeakMark::Forecast && row.p90)
            peaks.append(QPointF(x, *row.p90 / divisor));
    }
    m_actual->replace(actual);
    m_mean->replace(mean);
    m_p10->replace(p10);
    m_p90->replace(p90);
    m_peaks->replace(peaks);
    // The theme may have reset the colours: set them every time.
    const QColor actualColour(0x1f, 0x77, 0xb4);
    const QColor forecastColour(0xff, 0x7f, 0x0e);
    m_actual->setPen(QPen(actualColour, 2));
    m_mean->setPen(QPen(forecastColour, 2, Qt::DashLine));
    QColor band = forecastColour;
    band.setAlpha(60);
    m_band->setBrush(band);
    m_band->setPen(QPen(band, 1));
    m_peaks->setColor(QColor(0xd6, 0x27, 0x28));
    m_peaks->setBorderColor(QColor(0xd6, 0x27, 0x28).darker(130));

    QChart* chart = m_chart->chart();
    const auto horizontal = chart->axes(Qt::Horizontal);
    const auto vertical = chart->axes(Qt::Vertical);
    if (!horizontal.isEmpty() && first < last) {
        // Whole hours at both ends and between the ticks, so that a tick reads as the time it marks.
        constexpr std::int64_t kHourMs = 3600 * 1000;
        const std::int64_t from = first / kHourMs * kHourMs;
        const std::int64_t hours = (last - from + kHourMs - 1) / kHourMs;
        std::int64_t step = 1;
        for (const std::int64_t candidate : { 1, 2, 3, 4, 6, 8, 12, 24 }) {
            step = candidate;
            if (hours / candidate <= 8)
                break;
        }
        const std::int64_t ticks = (hours + step - 1) / step;
        auto* axis = static_cast<QDateTimeAxis*>(horizontal.first());
        axis->setTickCount(static_cast<int>(ticks) + 1);
        axis->setRange(
            QDateTime::fromMSecsSinceEpoch(from), QDateTime::fromMSecsSinceEpoch(from + ticks * step * kHourMs));
    }
    if (!vertical.isEmpty()) {
        auto* axis = static_cast<QValueAxis*>(vertical.first());
        axis->setRange(0.0, high > 0.0 ? high * 1.1 : 1.0);
        axis->applyNiceNumbers();
        axis->setLabelFormat(axis->max() >= 10.0 ? QStringLiteral("%.0f") : QStringLiteral("%.1f"));
        axis->setTitleText(unit);
    }
    chart->setTitle(series ? tr("%1: history and forecast").arg(ForecastListModel::seriesName(*series))
                           : tr("No history yet: series appear once the core has recorded some."));
    m_backtest->setText(series ? ForecastListModel::backtestText(*series) : QString());
}

} // namespace tidepool::ui
