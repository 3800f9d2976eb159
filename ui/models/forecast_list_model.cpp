#include "ui/models/forecast_list_model.h"

#include "ui/labels.h"
#include "ui/models/roles.h"
#include "ui/view_labels.h"

#include <algorithm>
#include <cmath>

namespace tidepool::ui {

namespace {

constexpr const char* kKeys[ForecastListModel::ColumnCount]
    = { "series", "resource", "model", "made", "smape", "coverage" };

} // namespace

ForecastListModel::ForecastListModel(QObject* parent)
    : KeyedTableModel<ForecastListRow>(parent)
{
}

void ForecastListModel::setSnapshot(const SnapshotPtr& snapshot)
{
    std::vector<ForecastListRow> rows;
    if (snapshot) {
        rows.reserve(snapshot->forecasts.size());
        for (const ForecastSeriesPtr& s : snapshot->forecasts)
            if (s)
                rows.push_back(ForecastListRow { s->key(), s });
        std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
    }
    update(std::move(rows), [](const ForecastListRow& row) { return row.key; });
}

int ForecastListModel::rowOf(const std::string& key) const
{
    const auto it = std::lower_bound(m_rows.begin(), m_rows.end(), key,
        [](const ForecastListRow& row, const std::string& k) { return row.key < k; });
    return it != m_rows.end() && it->key == key ? static_cast<int>(it - m_rows.begin()) : -1;
}

int ForecastListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ForecastListModel::seriesName(const ForecastSeries& series)
{
    return tr("%1 · %2").arg(seriesScopeLabel(series.scope, series.name), resourceLabel(series.resource));
}

QString ForecastListModel::backtestText(const ForecastSeries& series)
{
    if (series.model.empty())
        return tr("No forecast for this series: the rebalancer forecasts each pool's CPU and the hot tier's GPUs, once "
                  "they have a day of history.");
    const BacktestError& b = series.backtest;
    if (!b.done)
        return tr("Backtest of the %1 model: not run yet.").arg(QString::fromStdString(series.model));
    if (!b.failure.empty())
        return tr("Backtest of the %1 model failed: %2")
            .arg(QString::fromStdString(series.model), QString::fromStdString(b.failure));
    const QString mase = std::isfinite(b.mase) ? QString::number(b.mase, 'f', 2) : tr("—");
    return tr("Backtest of the %1 model on the history shown, %2 h ahead (%3 points): sMAPE %4 %, MASE %5, "
              "p10–p90 coverage %6 % (80 % nominal).")
        .arg(QString::fromStdString(series.model))
        .arg(static_cast<double>(b.horizonSteps) * 5.0 / 60.0, 0, 'g', 3)
        .arg(b.scoredPoints)
        .arg(b.smapePct, 0, 'f', 1)
        .arg(mase)
        .arg(b.coveragePct, 0, 'f', 0);
}

QVariant ForecastListModel::data(const QModelIndex& index, int role) const
{
    const ForecastListRow* row = rowAt(index.row());
    if (!row || !row->series || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    const ForecastSeries& s = *row->series;
    if (role == IdRole)
        return QString::fromStdString(row->key);
    const auto column = static_cast<Column>(index.column());
    const bool scored = s.backtest.done && s.backtest.failure.empty();
    if (role == RawTextRole) {
        switch (column) {
        case Series: return QString::fromStdString(s.scope + ' ' + s.name);
        case Resource: return QString::fromStdString(s.resource);
        case Model: return QString::fromStdString(s.model);
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole)
        return backtestText(s);
    if (role == SortRole) {
        switch (column) {
        case Series: return QString::fromStdString(row->key);
        case Resource: return QString::fromStdString(s.resource);
        case Model: return QString::fromStdString(s.model);
        case Made: return QVariant::fromValue<qint64>(s.madeMs);
        case Smape: return scored ? QVariant(s.backtest.smapePct) : QVariant(-1.0);
        case Coverage: return scored ? QVariant(s.backtest.coveragePct) : QVariant(-1.0);
        case ColumnCount: break;
        }
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case Series: return seriesName(s);
    case Resource: return resourceLabel(s.resource);
    case Model: return s.model.empty() ? tr("none") : QString::fromStdString(s.model);
    case Made: return s.madeMs > 0 ? timeText(s.madeMs) : QString();
    case Smape: return scored ? tr("%1 %").arg(s.backtest.smapePct, 0, 'f', 1) : QString();
    case Coverage: return scored ? tr("%1 %").arg(s.backtest.coveragePct, 0, 'f', 0) : QString();
    case ColumnCount: break;
    }
    return {};
}

QVariant ForecastListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == ColumnKeyRole)
        return QString::fromLatin1(kKeys[section]);
    if (role != Qt::DisplayRole)
        return {};
    switch (static_cast<Column>(section)) {
    case Series: return tr("Series");
    case Resource: return tr("Resource");
    case Model: return tr("Model");
    case Made: return tr("Forecast made");
    case Smape: return tr("Backtest sMAPE");
    case Coverage: return tr("Band coverage");
    case ColumnCount: break;
    }
    return {};
}

} // namespace tidepool::ui
