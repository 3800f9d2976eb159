#pragma once
// The Nodes page's context menu: Cordon…, Uncordon and Drain… of the node under the pointer, as `tidepoolctl nodes
// cordon|uncordon|drain` and tidepoold's POST /v1/nodes/{name}/… do (`CoreBridge::changeNode` → `NodeCommand`). Each
// asks for a reason where it takes one (a drain also for a confirmation: it stops and relaunches what runs there), is
// off where the console's role may not (`roleAllows`, its tooltip naming the role needed) or where it would do nothing
// (Uncordon of a node without a cordon), and says under the table what it did or why not; a drain that left workloads
// lists each with why no other node took it.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_backend.h"

#include <QObject>
#include <QString>

#include <set>

class QAbstractItemView;
class QLabel;

namespace tidepool::ui {

class CoreBridge;

class NodeActions : public QObject {
    Q_OBJECT
public:
    // Gives `view` (rows of `NodesModel`, through any proxy) the context menu; results are shown in `status`.
    NodeActions(CoreBridge& bridge, QAbstractItemView* view, QLabel* status);

    // What the menu's actions ask, once their dialogs are answered: the request id, 0 without a core.
    quint64 cordon(const QString& node, const QString& reason);
    quint64 uncordon(const QString& node);
    // With `maxParallel` a paced drain (`api::DrainOptions`): at most that many moving at once until the node is empty.
    quint64 drain(const QString& node, const QString& reason, int maxParallel = 0);

    // Whether the console's role may take `action` on a node, and if not, the text saying which role it needs.
    bool allowed(NodeAction action, const QString& node, QString* why = nullptr) const;

private:
    quint64 ask(NodeAction action, const QString& node, const QString& reason, int maxParallel = 0);
    void onNodeChanged(const NodeResult& result);
    void showMenu(const QPoint& at);

    CoreBridge& m_bridge;
    QAbstractItemView* m_view;
    QLabel* m_status;
    std::set<quint64> m_asked; // the requests of this page, answered here
};

} // namespace tidepool::ui
