#include "ui/views/node_actions.h"

#include "core/api/drain_options.h"

#include "ui/bridge/console_role.h"
#include "ui/bridge/core_bridge.h"
#include "ui/models/nodes_model.h"

#include <QAbstractItemView>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>

namespace tidepool::ui {

namespace {

const char* operationOf(NodeAction action)
{
    return action == NodeAction::Cordon ? "cordon" : action == NodeAction::Uncordon ? "uncordon" : "drain";
}

} // namespace

NodeActions::NodeActions(CoreBridge& bridge, QAbstractItemView* view, QLabel* status)
    : QObject(view)
    , m_bridge(bridge)
    , m_view(view)
    , m_status(status)
{
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setObjectName(QStringLiteral("nodeActionStatus"));
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view, &QWidget::customContextMenuRequested, this, &NodeActions::showMenu);
    connect(&m_bridge, &CoreBridge::nodeChanged, this, &NodeActions::onNodeChanged);
}

bool NodeActions::allowed(NodeAction action, const QString& node, QString* why) const
{
    const std::string path = "/v1/nodes/" + node.toStdString() + "/" + operationOf(action);
    if (roleAllows(m_bridge.role(), boost::beast::http::verb::post, path))
        return true;
    if (why)
        *why = tr("Your token's role (%1) may not take nodes out of service or back: that needs the %2 role.")
                   .arg(QString::fromStdString(m_bridge.role()),
                       QString::fromStdString(roleNeeded(boost::beast::http::verb::post, path)));
    return false;
}

quint64 NodeActions::ask(NodeAction action, const QString& node, const QString& reason, int maxParallel)
{
    const quint64 id = m_bridge.changeNode(action, node, reason, maxParallel);
    if (id == 0) {
        m_status->setText(tr("No core is connected."));
        return 0;
    }
    m_asked.insert(id);
    m_status->setText(action == NodeAction::Drain ? tr("Draining node %1…").arg(node)
                                                  : tr("Asking the core about node %1…").arg(node));
    return id;
}

quint64 NodeActions::cordon(const QString& node, const QString& reason)
{
    return ask(NodeAction::Cordon, node, reason);
}

quint64 NodeActions::uncordon(const QString& node)
{
    return ask(NodeAction::Uncordon, node, {});
}

quint64 NodeActions::drain(const QString& node, const QString& reason, int maxParallel)
{
    return ask(NodeAction::Drain, node, reason, maxParallel);
}

void NodeActions::onNodeChanged(const NodeResult& result)
{
    if (m_asked.erase(result.requestId) == 0)
        return;
    const QString node = QString::fromStdString(result.node);
    if (!result.ok) {
        m_status->setText(tr("Node %1 was not changed: %2").arg(node, QString::fromStdString(result.message)));
        return;
    }
    const QString cordon = QString::fromStdString(result.cordon);
    switch (result.action) {
    case NodeAction::Cordon:
        m_status->setText(
            tr("Node %1 is cordoned (%2): no new work lands there; what runs there stays.").arg(node, cordon));
        return;
    case NodeAction::Uncordon:
        m_status->setText(result.lifted.empty()
                ? tr("Node %1 was not cordoned.").arg(node)
                : tr("Node %1 is uncordoned (it was: %2): new work may land there again.")
                      .arg(node, QString::fromStdString(result.lifted)));
        return;
    case NodeAction::Drain: {
        QString text = result.paced
            ? tr("Node %1 is cordoned (%2); %n workload(s) moved off it now.", nullptr, int(result.moved))
                    .arg(node, cordon)
                + QLatin1Char(' ')
                + (result.waiting > 0 ? tr(
                       "%n more follow, each as one moved before runs on its new node.", nullptr, int(result.waiting))
                                      : tr("Nothing runs there now."))
            : tr("Node %1 is cordoned (%2); %n workload(s) moved off it.", nullptr, int(result.moved))
                  .arg(node, cordon);
        if (!result.stayed.empty()) {
            text += QLatin1Char(' ') + tr("%n stay, for no other node takes them:", nullptr, int(result.stayed.size()));
            for (const std::string& stay : result.stayed)
                text += QLatin1Char('\n') + QString::fromStdString(stay);
        }
        m_status->setText(text);
        return;
    }
    case NodeAction::Invalid: break;
    }
}

void NodeActions::showMenu(const QPoint& at)
{
    const QModelIndex index = m_view->indexAt(at);
    if (!index.isValid())
        return;
    const QString node = index.siblingAtColumn(NodesModel::Name).data().toString();
    const bool cordoned = !index.siblingAtColumn(NodesModel::Cordon).data().toString().isEmpty();
    if (node.isEmpty())
        return;
    QMenu menu(m_view);
    menu.setToolTipsVisible(true);
    QAction* cordonAction = menu.addAction(tr("&Cordon…"));
    QAction* uncordonAction = menu.addAction(tr("&Uncordon"));
    QAction* drainAction = menu.addAction(tr("&Drain…"));
    cordonAction->setToolTip(tr("No new work lands on it; what runs there stays."));
    uncordonAction->setToolTip(cordoned ? tr("New work may land on it again.") : tr("It is not cordoned."));
    uncordonAction->setEnabled(cordoned);
    drainAction->setToolTip(tr("Cordons it and moves what runs there to other nodes: each is stopped and launched "
                               "again there."));
    for (const auto& [action, kind] : { std::pair { cordonAction, NodeAction::Cordon },
             std::pair { uncordonAction, NodeAction::Uncordon }, std::pair { drainAction, NodeAction::Drain } }) {
        QString why;
        if (!allowed(kind, node, &why)) {
            action->setEnabled(false);
            action->setToolTip(why);
        }
    }
    QAction* chosen = menu.exec(m_view->viewport()->mapToGlobal(at));
    if (chosen == uncordonAction) {
        uncordon(node);
    } else if (chosen == cordonAction || chosen == drainAction) {
        const bool draining = chosen == drainAction;
        bool ok = false;
        const QString reason = QInputDialog::getText(m_view->window(),
            draining ? tr("Drain node %1").arg(node) : tr("Cordon node %1").arg(node),
            draining ? tr("Each workload on node %1 is stopped and launched again on another node that takes it. "
                          "Why (optional, kept with the cordon and in the audit log)?")
                           .arg(node)
                     : tr("Why (optional, kept with the cordon and in the audit log)?"),
            QLineEdit::Normal, {}, &ok);
        if (!ok)
            return;
        if (draining) {
            // All at once, or a few at a time so that not everything there is down together.
            const int maxParallel = QInputDialog::getInt(m_view->window(), tr("Drain node %1").arg(node),
                tr("At most how many of its workloads may be moving at once? The others run where they are until "
                   "their turn. 0 moves them all at once."),
                0, 0, int(api::kMaxDrainParallel), 1, &ok);
            if (!ok)
                return;
            drain(node, reason, maxParallel);
        } else
            cordon(node, reason);
    }
}

} // namespace tidepool::ui
