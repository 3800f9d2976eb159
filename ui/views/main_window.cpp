#include "ui/views/main_window.h"

#include "ui/bridge/core_bridge.h"
#include "ui/labels.h"
#include "ui/models/nodes_model.h"
#include "ui/models/pools_model.h"
#include "ui/models/proposals_model.h"
#include "ui/views/overview_page.h"
#include "ui/views/proposals_page.h"
#include "ui/views/table_page.h"

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
    m_poolsPage->showSharesAsBars(PoolsModel::QuotaUsed);
    m_tabs->addTab(m_overview, tr("Overview"));
    m_tabs->addTab(m_nodesPage, tr("Nodes"));
    m_tabs->addTab(m_poolsPage, tr("Pools"));
    m_tabs->addTab(m_proposalsPage, tr("Proposals"));
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
    m_overview->setSnapshot(snapshot);
    const int waiting = snapshot ? snapshot->overview.proposalsWaiting : 0;
    m_tabs->setTabText(
        m_tabs->indexOf(m_proposalsPage), waiting > 0 ? tr("Proposals (%1)").arg(waiting) : tr("Proposals"));
    if (!snapshot)
        return;
    const QString source
        = snapshot->source == "demo" ? tr("demo (simulated fleet)") : QString::fromStdString(snapshot->source);
    m_coreStatus->setText(snapshot->finished ? tr("%1 — %2 — the run has ended").arg(source, timeText(snapshot->nowMs))
                                             : tr("%1 — %2").arg(source, timeText(snapshot->nowMs)));
}

void MainWindow::onCoreFailed(const QString& message)
{
    m_coreStatus->setText(tr("The core failed: %1").arg(message));
}

} // namespace tidepool::ui
