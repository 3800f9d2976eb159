#include "ui/models/forecast_points_model.h"

#include "ui/labels.h"
#include "ui/models/roles.h"
#include "ui/view_labels.h"

#include <cmath>
#include <map>

namespace tidepool::ui {

namespace {

constexpr const char* kKeys[ForecastPointsModel::ColumnCount] = { "time", "actual", "mean", "p10", "p90", "peak" };

} // namespace

ForecastPointsModel::ForecastPointsModel(QObject* parent)
    : KeyedTableModel<ForecastPointRow>(parent)
{
}

std::vector<ForecastPointRow> ForecastPointsModel::rowsOf(const ForecastSeries& series)
{
    std::map<std::int64_t, ForecastPointRow> byTime;
    for (const HistoryValue& v : series.history) {
        ForecastPointRow& row = byTime[v.atMs];
        row.atMs = v.atMs;
        row.actual = v.value;
    }
    for (const ForecastPoint& p : series.forecast) {
        ForecastPointRow& row = byTime[p.atMs];
        row.atMs = p.atMs;
        if (std::isfinite(p.mean))
            row.mean = p.mean;
        if (std::isfinite(p.p10) && std::isfinite(p.p90)) {
            row.p10 = p.p10;
            row.p90 = p.p90;
        }
    }
    std::vector<ForecastPointRow> rows;
    rows.reserve(byTime.size());
    for (auto& [at, row] : byTime)
        rows.push_back(row);
    // The peaks: the highest actual value shown, and the highest p90 of the forecast still ahead (what a quota is
    // raised for).
    const auto highest = [&rows](auto value, std::int64_t fromMs) {
        std::size_t best = rows.size();
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const std::optional<double> v = value(rows[i]);
            if (rows[i].atMs >= fromMs && v && (best == rows.size() || *v > *value(rows[best])))
                best = i;
        }
        return best;
    };
    const std::size_t historyPeak = highest([](const ForecastPointRow& r) { return r.actual; }, 0);
    const std::size_t forecastPeak = highest([](const ForecastPointRow& r) { return r.p90; }, series.madeMs);
    if (historyPeak < rows.size())
        rows[historyPeak].peak = PeakMark::History;
    if (forecastPeak < rows.size())
        rows[forecastPeak].peak = PeakMark::Forecast;
    return rows;
}

void ForecastPointsModel::setSeries(const std::string& key)
{
    if (key == m_key)
        return;
    m_key = key;
    beginResetModel(); // another series shares no rows with this one
    m_rows.clear();
    m_series.reset();
    endResetModel();
    setSnapshot(m_snapshot);
}

void ForecastPointsModel::show(ForecastSeriesPtr series)
{
    if (series == m_series && series)
        return; // the same immutable series: nothing changed
    m_series = std::move(series);
    update(m_series ? rowsOf(*m_series) : std::vector<ForecastPointRow> {},
        [](const ForecastPointRow& row) { return row.atMs; });
}

void ForecastPointsModel::setSnapshot(const SnapshotPtr& snapshot)
{
    m_snapshot = snapshot;
    ForecastSeriesPtr found;
    if (snapshot && !m_key.empty())
        for (const ForecastSeriesPtr& s : snapshot->forecasts)
            if (s && s->key() == m_key) {
                found = s;
                break;
            }
    show(std::move(found));
}

int ForecastPointsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ForecastPointsModel::data(const QModelIndex& index, int role) const
{
    const ForecastPointRow* row = rowAt(index.row());
    if (!row || index.column() < 0 || index.column() >= ColumnCount || (role != Qt::DisplayRole && role != SortRole))
        return {};
    const bool sort = role == SortRole;
    const std::string resource = m_series ? m_series->resource : std::string();
    const auto value = [&](const std::optional<double>& v) -> QVariant {
        if (!v)
            return sort ? QVariant() : QVariant(QString());
        return sort ? QVariant(*v) : QVariant(seriesValueText(resource, *v));
    };
    switch (static_cast<Column>(index.column())) {
    case Time: return sort ? QVariant::fromValue<qint64>(row->atMs) : QVariant(timeText(row->atMs));
    case Actual: return value(row->actual);
    case Mean: return value(row->mean);
    case P10: return value(row->p10);
    case P90: return value(row->p90);
    case Peak:
        if (sort)
            return static_cast<int>(row->peak);
        return row->peak == PeakMark::History ? tr("highest so far")
            : row->peak == PeakMark::Forecast ? tr("forecast peak (p90)")
                                              : QString();
    case ColumnCount: break;
    }
    return {};
}

QVariant ForecastPointsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == ColumnKeyRole)
        return QString::fromLatin1(kKeys[section]);
    if (role != Qt::DisplayRole)
        return {};
    switch (static_cast<Column>(section)) {
    case Time: return tr("Time");
    case Actual: return tr("Actual");
    case Mean: return tr("Forecast");
    case P10: return tr("p10");
    case P90: return tr("p90");
    case Peak: return tr("Peak");
    case ColumnCount: break;
    }
    return {};
}

} // namespace tidepool::ui
