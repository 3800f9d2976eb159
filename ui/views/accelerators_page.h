#pragma once
// The Accelerators tab: every device in a filterable table (requested share against achieved utilisation, memory,
// who holds it), and for the selected devices (the first one when none is) a chart of their utilisation, requested
// share (a GPU's share, an FPGA's slots occupied, an NPU's cores) and memory over the snapshot's bounded history, and
// a bar chart of which workloads hold how much of each. Both charts keep their series (`kMaxCharted` devices' worth)
// and are refilled from the models at each snapshot. When the first device charted is an FPGA, its slot timeline (which
// workload held which time-slice slot when, `SlotTimelineView`) takes the bar chart's place: its right edge says who
// holds the slots now, and the rest how they came to. The page owns the history and timeline models; the devices model
// is borrowed.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"

#include <QWidget>

#include <vector>

class QBarCategoryAxis;
class QBarSet;
class QChartView;
class QLabel;
class QStackedWidget;

namespace tidepool::ui {

class DeviceHistoryModel;
class DevicesModel;
class SlotTimelineModel;
class SlotTimelineView;
class TablePage;

class AcceleratorsPage : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxCharted = 4;

    AcceleratorsPage(DevicesModel* devices, QWidget* parent = nullptr);

    void setSnapshot(const SnapshotPtr& snapshot);

    TablePage* table() const { return m_table; }
    QChartView* historyChart() const { return m_history; }
    QChartView* sharesChart() const { return m_shares; }
    // The devices charted now (`DeviceRow::keyOf`), in table order.
    std::vector<std::int64_t> chartedDevices() const { return m_charted; }
    const std::vector<DeviceHistoryModel*>& historyModels() const { return m_historyModels; }
    SlotTimelineModel* slotTimelineModel() const { return m_slotModel; }
    SlotTimelineView* slotTimeline() const { return m_slotTimeline; }
    // True while the slot timeline is shown (the first device charted is an FPGA), in the bar chart's place.
    bool showsSlotTimeline() const;

private:
    std::vector<std::int64_t> selectedDevices() const;
    void onSelectionChanged();
    void buildCharts();
    void chartDevices(std::vector<std::int64_t> keys);
    void refreshHistoryChart();
    void refreshSharesChart();
    void refreshSlotTimeline();

    DevicesModel* m_devices;
    TablePage* m_table;
    QLabel* m_title;
    QChartView* m_history;
    QChartView* m_shares;
    SnapshotPtr m_snapshot;
    std::vector<std::int64_t> m_charted;
    std::vector<DeviceHistoryModel*> m_historyModels; // one per charted device, owned by the page
    QBarSet* m_shareSet = nullptr;
    QBarSet* m_memorySet = nullptr;
    QBarCategoryAxis* m_holderAxis = nullptr;
    SlotTimelineModel* m_slotModel;
    SlotTimelineView* m_slotTimeline;
    QLabel* m_slotTitle;
    QWidget* m_slotPanel;
    QStackedWidget* m_right; // the bar chart, or the slot timeline
};

} // namespace tidepool::ui
