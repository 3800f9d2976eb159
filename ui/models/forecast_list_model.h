#pragma once
// The Forecasts view's selector: every pool and tier series the snapshot carries, one row each (what it is, the
// forecasting model, when it forecast, its backtest error). Diffed by series key; an unchanged series keeps its
// shared pointer, so its row is not announced as changed.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"
#include "ui/models/keyed_table_model.h"

namespace tidepool::ui {

struct ForecastListRow {
    std::string key;
    ForecastSeriesPtr series;
    bool operator==(const ForecastListRow& other) const { return key == other.key && series == other.series; }
};

class ForecastListModel : public KeyedTableModel<ForecastListRow> {
    Q_OBJECT
public:
    enum Column : int { Series, Resource, Model, Made, Smape, Coverage, ColumnCount };

    explicit ForecastListModel(QObject* parent = nullptr);
    void setSnapshot(const SnapshotPtr& snapshot);
    int rowOf(const std::string& key) const;

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "pool batch · CPU".
    static QString seriesName(const ForecastSeries& series);
    // The backtest in one sentence, or why there is none.
    static QString backtestText(const ForecastSeries& series);
};

} // namespace tidepool::ui
