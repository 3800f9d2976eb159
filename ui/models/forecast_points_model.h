#pragma once
// The Forecasts view's chart data: the selected series on its 5-minute grid, one row per bucket: the actual value where
// history has it, the forecast mean and its p10–p90 band where the forecast covers it, and the peaks marked (the
// highest actual value, the highest p90 the rebalancer plans for). Diffed by bucket time.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"
#include "ui/models/keyed_table_model.h"

#include <optional>

namespace tidepool::ui {

enum class PeakMark : std::uint8_t { None = 0, History, Forecast };

struct ForecastPointRow {
    std::int64_t atMs = 0;
    std::optional<double> actual;
    std::optional<double> mean;
    std::optional<double> p10;
    std::optional<double> p90;
    PeakMark peak = PeakMark::None;
    bool operator==(const ForecastPointRow&) const = default;
};

class ForecastPointsModel : public KeyedTableModel<ForecastPointRow> {
    Q_OBJECT
public:
    enum Column : int { Time, Actual, Mean, P10, P90, Peak, ColumnCount };

    explicit ForecastPointsModel(QObject* parent = nullptr);

    // The series shown; empty shows nothing. Takes effect at once when the snapshot has it.
    void setSeries(const std::string& key);
    const std::string& seriesKey() const { return m_key; }
    void setSnapshot(const SnapshotPtr& snapshot);
    // The series shown, or null.
    const ForecastSeries* series() const { return m_series.get(); }

    static std::vector<ForecastPointRow> rowsOf(const ForecastSeries& series);

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void show(ForecastSeriesPtr series);

    std::string m_key;
    SnapshotPtr m_snapshot;
    ForecastSeriesPtr m_series;
};

} // namespace tidepool::ui
