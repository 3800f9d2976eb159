#pragma once
// The Forecasts tab: a selector of every pool and tier series (CPU, memory, accelerators), and for the chosen one a
// chart of its last two days, the latest forecast with its p10–p90 band, and its peaks marked (the highest actual
// value, the highest p90 ahead, which a quota proposal is raised for), with the forecasting model's backtest error
// below. The page owns its models.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"

#include <QWidget>

class QAreaSeries;
class QChartView;
class QComboBox;
class QLabel;
class QLineSeries;
class QScatterSeries;

namespace tidepool::ui {

class ForecastListModel;
class ForecastPointsModel;

class ForecastsPage : public QWidget {
    Q_OBJECT
public:
    explicit ForecastsPage(QWidget* parent = nullptr);

    void setSnapshot(const SnapshotPtr& snapshot);
    // Shows the series `key` ("pool/batch/cpu"); false when the snapshot has no such series.
    bool selectSeries(const std::string& key);

    ForecastListModel* listModel() const { return m_list; }
    ForecastPointsModel* pointsModel() const { return m_points; }
    QComboBox* selector() const { return m_selector; }
    QChartView* chart() const { return m_chart; }
    QLabel* backtestLabel() const { return m_backtest; }
    QLineSeries* actualSeries() const { return m_actual; }
    QLineSeries* meanSeries() const { return m_mean; }
    QAreaSeries* bandSeries() const { return m_band; }
    QScatterSeries* peakSeries() const { return m_peaks; }

private:
    void onSelectorChanged(int row);
    void refreshChart();

    ForecastListModel* m_list;
    ForecastPointsModel* m_points;
    QComboBox* m_selector;
    QChartView* m_chart;
    QLabel* m_backtest;
    QLineSeries* m_actual;
    QLineSeries* m_mean;
    QLineSeries* m_p10;
    QLineSeries* m_p90;
    QAreaSeries* m_band;
    QScatterSeries* m_peaks;
    bool m_userChose = false; // the operator picked a series: keep it
};

} // namespace tidepool::ui
