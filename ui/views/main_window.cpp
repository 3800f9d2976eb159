#include "ui/views/main_window.h"

#include "ui/bridge/core_bridge.h"
#include "ui/labels.h"
#include "ui/models/devices_model.h"
#include "ui/models/events_model.h"
#include "ui/models/nodes_model.h"
#include "ui/models/pools_model.h"
#include "ui/models/proposals_model.h"
#include "ui/models/tiers_model.h"
#include "ui/views/accelerators_page.h"
#include "ui/views/events_page.h"
#include "ui/views/forecasts_page.h"
#include "ui/views/overview_page.h"
#include "ui/views/proposals_page.h"
#include "ui/views/table_page.h"
#include "ui/views/tiers_page.h"

#include <QLabel>
#include <QStatusBar>
#include <QTabWidget>

namespace tidepool::ui {

MainWindow::MainWindow(CoreBridge& bridge, QWidget* parent)
    : QMainWindow(parent)
    , m_nodes(new NodesModel(this))
    , m_pools(new PoolsModel(this))
    , m_proposals(new ProposalsModel(this))
    , m_tabs(new QTabWidget(this))
    , m_overview(new OverviewPage(this))
    , m_nodesPage(new TablePage(m_nodes, false, this))
    , m_poolsPage(new TablePage(m_pools, true, this))
    , m_proposalsPage(new ProposalsPage(bridge, m_proposals, this))
    , m_coreStatus(new QLabel(tr("Starting the core…"), this))
{
    setWindowTitle(tr("Tidepool"));
    for (const int column : { NodesModel::CpuAllocated, NodesModel::CpuUsed, NodesModel::MemoryAllocated,
             NodesModel::AcceleratorsAllocated, NodesModel::AcceleratorsUsed })
        m_nodesPage->showSharesAsBars(column);
    for (const PoolsModel::Column column : PoolsModel::kBarColumns)
        m_poolsPage->showSharesAsBars(column);
    m_poolsPage->setExpandDepth(1); // business lines, pools and their nodes; a node opens onto its workloads
    // Object names: the settings' and the tests' names of the pages, whatever the language.
    m_overview->setObjectName(QStringLiteral("overviewPage"));
    m_nodesPage->setObjectName(QStringLiteral("nodesPage"));
    m_poolsPage->setObjectName(QStringLiteral("poolsPage"));
    m_proposalsPage->setObjectName(QStringLiteral("proposalsPage"));
    m_nodesPage->rememberColumnsAs(QStringLiteral("nodes"));
    m_poolsPage->rememberColumnsAs(QStringLiteral("pools"));
    m_tabs->addTab(m_overview, tr("Overview"));
    m_tabs->addTab(m_nodesPage, tr("Nodes"));
    m_tabs->addTab(m_poolsPage, tr("Pools"));
    m_tabs->addTab(m_proposalsPage, tr("Proposals"));
    m_tiers = new TiersModel(this);
    m_tiersPage = new TiersPage(bridge, m_tiers, this);
    m_tiersPage->setObjectName(QStringLiteral("tiersPage"));
    m_tabs->addTab(m_tiersPage, tr("Tiers"));
    m_devices = new DevicesModel(this);
    m_events = new EventsModel(this);
    m_acceleratorsPage = new AcceleratorsPage(m_devices, this);
    m_forecastsPage = new ForecastsPage(this);
    m_eventsPage = new EventsPage(m_events, this);
    m_acceleratorsPage->setObjectName(QStringLiteral("acceleratorsPage"));
    m_forecastsPage->setObjectName(QStringLiteral("forecastsPage"));
    m_eventsPage->setObjectName(QStringLiteral("eventsPage"));
    m_tabs->addTab(m_acceleratorsPage, tr("Accelerators"));
    m_tabs->addTab(m_forecastsPage, tr("Forecasts"));
    m_tabs->addTab(m_eventsPage, tr("Events"));
    setCentralWidget(m_tabs);
    m_coreStatus->setObjectName(QStringLiteral("coreStatus"));
    statusBar()->addWidget(m_coreStatus, 1);
    resize(1200, 760);

    connect(&bridge, &CoreBridge::snapshotChanged, this, &MainWindow::onSnapshot);
    connect(&bridge, &CoreBridge::coreFailed, this, &MainWindow::onCoreFailed);
    if (bridge.latest())
        onSnapshot(bridge.latest());
}

void MainWindow::onSnapshot(const SnapshotPtr& snapshot)
{
    m_nodes->setSnapshot(snapshot);
    m_pools->setSnapshot(snapshot);
    m_proposals->setSnapshot(snapshot);
    m_tiers->setSnapshot(snapshot);
    m_overview->setSnapshot(snapshot);
    m_devices->setSnapshot(snapshot);
    m_acceleratorsPage->setSnapshot(snapshot);
    m_forecastsPage->setSnapshot(snapshot);
    m_events->setSnapshot(snapshot);
    const int waiting = snapshot ? snapshot->overview.proposalsWaiting : 0;
    m_tabs->setTabText(
        m_tabs->indexOf(m_proposalsPage), waiting > 0 ? tr("Proposals (%1)").arg(waiting) : tr("Proposals"));
    if (!snapshot)
        return;
    // The demo, the embedded core, or the URL of the tidepoold the console is attached to.
    QString source = tr("tidepoold at %1").arg(QString::fromStdString(snapshot->source));
    if (snapshot->source == "demo")
        source = tr("demo (simulated fleet)");
    else if (snapshot->source == "embedded")
        source = tr("embedded core");
    m_coreStatus->setText(snapshot->finished ? tr("%1 — %2 — the run has ended").arg(source, timeText(snapshot->nowMs))
                                             : tr("%1 — %2").arg(source, timeText(snapshot->nowMs)));
}

void MainWindow::onCoreFailed(const QString& message)
{
    m_coreStatus->setText(tr("The core failed: %1").arg(message));
}

} // namespace tidepool::ui
