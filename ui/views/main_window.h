#pragma once
// The console's window: Overview, Nodes, Pools, Proposals, Accelerators, Forecasts and Events tabs (and the Tiers
// board) over one core's snapshots. It owns the item models and feeds them every snapshot the bridge delivers: the
// visible page's at once, the hidden pages' one page per turn of the event loop after it (so that no single turn
// carries every model's diff), and a page that becomes visible catches up before it is painted. It borrows the bridge,
// which must outlive it.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"

#include <QMainWindow>

#include <functional>
#include <vector>

class QLabel;
class QTabWidget;
class QTimer;

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
class NodeActions;
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
    NodeActions* nodeActions() const { return m_nodeActions; }
    TablePage* poolsPage() const { return m_poolsPage; }
    ProposalsPage* proposalsPage() const { return m_proposalsPage; }
    TiersModel* tiersModel() const { return m_tiers; }
    TiersPage* tiersPage() const { return m_tiersPage; }
    DevicesModel* devicesModel() const { return m_devices; }
    EventsModel* eventsModel() const { return m_events; }
    AcceleratorsPage* acceleratorsPage() const { return m_acceleratorsPage; }
    ForecastsPage* forecastsPage() const { return m_forecastsPage; }
    EventsPage* eventsPage() const { return m_eventsPage; }
    // Pages whose models have not taken the latest snapshot yet; `catchUp` brings them all up to date now.
    int pagesBehind() const;
    void catchUp();

private:
    // A page and how it takes a snapshot (into its models, or itself).
    struct Feed {
        QWidget* page;
        std::function<void(const SnapshotPtr&)> apply;
        bool behind = false;
    };
    void onSnapshot(const SnapshotPtr& snapshot);
    void feed(Feed& f);
    void catchUpOne(); // the next hidden page behind, then again on the next turn while any is
    void onCoreFailed(const QString& message);

    NodesModel* m_nodes;
    PoolsModel* m_pools;
    ProposalsModel* m_proposals;
    QTabWidget* m_tabs;
    OverviewPage* m_overview;
    TablePage* m_nodesPage;
    NodeActions* m_nodeActions = nullptr;
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
    std::vector<Feed> m_feeds; // in tab order
    SnapshotPtr m_latest;
    QTimer* m_catchUpTimer = nullptr;
};

} // namespace tidepool::ui
