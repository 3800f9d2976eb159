#include "ui/views/pools_page.h"

#include "ui/bridge/core_bridge.h"
#include "ui/models/pools_model.h"
#include "ui/move_text.h"

#include <QBoxLayout>
#include <QLabel>
#include <QTreeView>

namespace tidepool::ui {

PoolsPage::PoolsPage(CoreBridge& bridge, PoolsModel* model, QWidget* parent)
    : TablePage(model, true, parent)
    , m_bridge(bridge)
    , m_message(new QLabel(this))
{
    auto* hint = new QLabel(tr("Drag a workload onto another pool (the core picks the node) or onto a node of a pool. "
                               "The core checks the target pool quota and the scheduling rules, then moves it or says "
                               "why not."),
        this);
    hint->setWordWrap(true);
    m_message->setObjectName(QStringLiteral("poolsMoveMessage"));
    m_message->setWordWrap(true);
    m_message->setMargin(6);
    m_message->setVisible(false);
    // Between the filter bar and the tree.
    if (auto* box = qobject_cast<QBoxLayout*>(layout())) {
        box->insertWidget(1, hint);
        box->insertWidget(2, m_message);
    }
    QTreeView* tree = view();
    tree->setDragDropMode(QAbstractItemView::DragDrop);
    tree->setDefaultDropAction(Qt::MoveAction);
    tree->setDragEnabled(true);
    tree->setAcceptDrops(true);
    tree->setDropIndicatorShown(true);
    connect(model, &PoolsModel::moveRequested, this, &PoolsPage::onMoveRequested);
    connect(&m_bridge, &CoreBridge::moveFinished, this, &PoolsPage::onMoveFinished);
}

void PoolsPage::onMoveRequested(qint64 workloadId, const QString& pool, const QString& node)
{
    const quint64 request = m_bridge.move(workloadId, node, {}, pool);
    if (request == 0) {
        showMessage(tr("Not moved: no core is attached."), true);
        return;
    }
    m_inFlight[request] = workloadId;
    showMessage(node.isEmpty() ? tr("Moving workload %1 into pool %2…").arg(workloadId).arg(pool)
                               : tr("Moving workload %1 into pool %2, onto node %3…").arg(workloadId).arg(pool, node),
        false);
}

void PoolsPage::onMoveFinished(const MoveResult& result)
{
    // The Tiers board's moves come back through the same bridge: only this page's are answered here.
    const auto it = m_inFlight.find(result.requestId);
    if (it == m_inFlight.end())
        return;
    m_inFlight.erase(it);
    showMessage(moveResultText(result), !result.ok);
}

void PoolsPage::showMessage(const QString& text, bool refused)
{
    m_message->setText(text);
    m_message->setProperty("refused", refused);
    m_message->setStyleSheet(refused ? QStringLiteral("QLabel { background: #ffebee; color: #b71c1c; }")
                                     : QStringLiteral("QLabel { background: #e8f5e9; color: #1b5e20; }"));
    m_message->setVisible(true);
}

} // namespace tidepool::ui
