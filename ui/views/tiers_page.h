#pragma once
// The Tiers tab: a hot / warm / cold board, one column per tier, of the workloads as cards grouped by node (those that
// wait for a place first). The operator drags a card onto another tier (the core picks the node) or onto a node; the
// drop goes through the model (`TiersModel::dropMimeData`), the page sends the move to the core through the bridge,
// and the core's answer comes back on the card and in the message strip above the board: where it went, or why not
// (the scheduler's reasons, translated). Nothing moves on the board until a snapshot says so.
//
// Every column is a model/view (`QTreeView` rooted at its tier, `CardDelegate`): 50,000 cards are 50,000 model rows,
// not widgets.
//
// Thread affinity: GUI thread. Borrows the bridge and the model.

#include "ui/bridge/console_snapshot.h"

#include <QWidget>

#include <map>
#include <set>

class QLabel;
class QTreeView;

namespace tidepool::ui {

class CoreBridge;
class TiersModel;

class TiersPage : public QWidget {
    Q_OBJECT
public:
    TiersPage(CoreBridge& bridge, TiersModel* model, QWidget* parent = nullptr);

    QTreeView* column(const QString& tier) const; // the view of tier "hot", "warm" or "cold"
    QLabel* message() const { return m_message; }

private:
    void onMoveRequested(qint64 workloadId, const QString& node, const QString& tier);
    void onMoveFinished(const MoveResult& result);
    void refreshHeaders();
    // Cards are dragged only where the console's role may move workloads; the hint says which it is.
    void updateRole();
    void expandGroups(const QModelIndex& parent, int first, int last);
    // Around a layout change of the model: the groups each small tier had, and then opening those it gained.
    void rememberGroups();
    void expandNewGroups();

    CoreBridge& m_bridge;
    TiersModel* m_model;
    QLabel* m_message;
    QLabel* m_hint;
    std::vector<std::pair<QLabel*, QTreeView*>> m_columns; // hot, warm, cold
    std::map<QString, std::set<QString>> m_groupsBefore; // by tier, while the model changes its layout
    std::map<quint64, qint64> m_inFlight; // request id → workload id
};

} // namespace tidepool::ui
