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
#include "ui/views/node_actions.h"
#include "ui/views/overview_page.h"
#include "ui/views/pools_page.h"
#include "ui/views/proposals_page.h"
#include "ui/views/table_page.h"
#include "ui/views/tiers_page.h"

#include <QLabel>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QTreeView>

#include <algorithm>

namespace tidepool::ui {

MainWindow::MainWindow(CoreBridge& bridge, QWidget* parent)
    : QMainWindow(parent)
    , m_nodes(new NodesModel(this))
    , m_pools(new PoolsModel(this))
    , m_proposals(new ProposalsModel(this))
    , m_tabs(new QTabWidget(this))
    , m_overview(new OverviewPage(this))
    , m_nodesPage(new TablePage(m_nodes, false, this))
    , m_poolsPage(new PoolsPage(bridge, m_pools, this))
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
    // Cordon, uncordon and drain a node from its row; what they did is said under the table.
    auto* nodeStatus = new QLabel(m_nodesPage);
    m_nodesPage->addFooter(nodeStatus);
    m_nodeActions = new NodeActions(bridge, m_nodesPage->view(), nodeStatus);
    m_poolsPage->rememberColumnsAs(QStringLiteral("pools"));
    // A workload card dragged from the Tiers board over the Pools tab opens the Pools tree, where it may be dropped on
    // another pool (or a pool's node).
    m_tabs->tabBar()->setChangeCurrentOnDrag(true);
    m_tabs->tabBar()->setAcceptDrops(true);
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
    // Its text changes with every snapshot; a size of its own would lay the whole window out again each time.
    m_coreStatus->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    statusBar()->addWidget(m_coreStatus, 1);
    resize(1200, 760);

    const auto into = [](auto* model) { return [model](const SnapshotPtr& s) { model->setSnapshot(s); }; };
    m_feeds = {
        { m_overview, into(m_overview) },
        { m_nodesPage, into(m_nodes) },
        { m_poolsPage, into(m_pools) },
        { m_proposalsPage, into(m_proposals) },
        { m_tiersPage, into(m_tiers) },
        { m_acceleratorsPage,
            [this](const SnapshotPtr& s) {
                m_devices->setSnapshot(s);
                m_acceleratorsPage->setSnapshot(s);
            } },
        { m_forecastsPage, into(m_forecastsPage) },
        { m_eventsPage, into(m_events) },
    };
    m_catchUpTimer = new QTimer(this);
    m_catchUpTimer->setSingleShot(true);
    m_catchUpTimer->setInterval(0);
    connect(m_catchUpTimer, &QTimer::timeout, this, &MainWindow::catchUpOne);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int index) {
        for (Feed& f : m_feeds)
            if (f.page == m_tabs->widget(index) && f.behind)
                feed(f);
    });
    connect(&bridge, &CoreBridge::snapshotChanged, this, &MainWindow::onSnapshot);
    connect(&bridge, &CoreBridge::coreFailed, this, &MainWindow::onCoreFailed);
    if (bridge.latest()) {
        onSnapshot(bridge.latest());
        catchUp(); // a window opened onto a running core shows it whole at once
    }
}

void MainWindow::onSnapshot(const SnapshotPtr& snapshot)
{
    m_latest = snapshot;
    for (Feed& f : m_feeds) {
        f.behind = true;
        if (f.page == m_tabs->currentWidget())
            feed(f);
    }
    m_catchUpTimer->start();
    const int waiting = snapshot ? snapshot->overview.proposalsWaiting : 0;
    const QString proposals = waiting > 0 ? tr("Proposals (%1)").arg(waiting) : tr("Proposals");
    if (m_tabs->tabText(m_tabs->indexOf(m_proposalsPage)) != proposals) // a new text lays the tab bar out again
        m_tabs->setTabText(m_tabs->indexOf(m_proposalsPage), proposals);
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

void MainWindow::feed(Feed& f)
{
    f.behind = false;
    f.apply(m_latest);
}

void MainWindow::catchUpOne()
{
    const auto next = std::find_if(m_feeds.begin(), m_feeds.end(), [](const Feed& f) { return f.behind; });
    if (next == m_feeds.end())
        return;
    feed(*next);
    if (pagesBehind() > 0)
        m_catchUpTimer->start();
}

int MainWindow::pagesBehind() const
{
    return static_cast<int>(std::count_if(m_feeds.begin(), m_feeds.end(), [](const Feed& f) { return f.behind; }));
}

void MainWindow::catchUp()
{
    for (Feed& f : m_feeds)
        if (f.behind)
            feed(f);
}

void MainWindow::onCoreFailed(const QString& message)
{
    m_coreStatus->setText(tr("The core failed: %1").arg(message));
}

} // namespace tidepool::ui
