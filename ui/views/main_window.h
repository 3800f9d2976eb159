#pragma once
// The console's window: Overview, Nodes, Pools, Proposals, Accelerators, Forecasts and Events tabs (and the Tiers
// board) over one core's snapshots. It owns the item models
// and feeds them every snapshot the bridge delivers; it borrows the bridge, which must outlive it.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"

#include <QMainWindow>

class QLabel;
class QTabWidget;

namespace tidepool::ui {

class AcceleratorsPage;
class CoreBridge;
class DevicesModel;
class EventsModel;
class EventsPage;
class ForecastsPage;
class NodesModel;
class OverviewPage;
class PoolsModel;
class ProposalsModel;
class ProposalsPage;
class TablePage;
class TiersModel;
class TiersPage;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(CoreBridge& bridge, QWidget* parent = nullptr);

    NodesModel* nodesModel() const { return m_nodes; }
    PoolsModel* poolsModel() const { return m_pools; }
    ProposalsModel* proposalsModel() const { return m_proposals; }
    QTabWidget* tabs() const { return m_tabs; }
    TablePage* nodesPage() const { return m_nodesPage; }
    TablePage* poolsPage() const { return m_poolsPage; }
    ProposalsPage* proposalsPage() const { return m_proposalsPage; }
    TiersModel* tiersModel() const { return m_tiers; }
    TiersPage* tiersPage() const { return m_tiersPage; }
    DevicesModel* devicesModel() const { return m_devices; }
    EventsModel* eventsModel() const { return m_events; }
    AcceleratorsPage* acceleratorsPage() const { return m_acceleratorsPage; }
    ForecastsPage* forecastsPage() const { return m_forecastsPage; }
    EventsPage* eventsPage() const { return m_eventsPage; }

private:
    void onSnapshot(const SnapshotPtr& snapshot);
    void onCoreFailed(const QString& message);

    NodesModel* m_nodes;
    PoolsModel* m_pools;
    ProposalsModel* m_proposals;
    QTabWidget* m_tabs;
    OverviewPage* m_overview;
    TablePage* m_nodesPage;
    TablePage* m_poolsPage;
    ProposalsPage* m_proposalsPage;
    QLabel* m_coreStatus;
    // The Tiers board.
    TiersModel* m_tiers = nullptr;
    TiersPage* m_tiersPage = nullptr;
    // The Accelerators, Forecasts and Events tabs.
    DevicesModel* m_devices = nullptr;
    EventsModel* m_events = nullptr;
    AcceleratorsPage* m_acceleratorsPage = nullptr;
    ForecastsPage* m_forecastsPage = nullptr;
    EventsPage* m_eventsPage = nullptr;
};

} // namespace tidepool::ui
