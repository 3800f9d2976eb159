#pragma once
// The Pools tab: the business line → pool → node → workload tree (`PoolsModel`) with its filter bar and columns
// (`TablePage`), where the operator drags a workload onto another pool (the core picks the node) or onto a node of a
// pool. The drop goes through the model (`PoolsModel::dropMimeData`), the page sends the move to the core through the
// bridge, and the core's answer shows in the message strip above the tree: where it went, or why not (its pool's
// quota, the scheduler's reasons, translated). Nothing moves in the tree until a snapshot says so.
//
// Thread affinity: GUI thread. Borrows the bridge and the model.

#include "ui/bridge/workload_rows.h"
#include "ui/views/table_page.h"

#include <map>

class QLabel;

namespace tidepool::ui {

class CoreBridge;
class PoolsModel;

class PoolsPage : public TablePage {
    Q_OBJECT
public:
    PoolsPage(CoreBridge& bridge, PoolsModel* model, QWidget* parent = nullptr);

    QLabel* message() const { return m_message; }

private:
    void onMoveRequested(qint64 workloadId, const QString& pool, const QString& node);
    void onMoveFinished(const MoveResult& result);
    void showMessage(const QString& text, bool refused);

    CoreBridge& m_bridge;
    QLabel* m_message;
    std::map<quint64, qint64> m_inFlight; // request id → workload id
};

} // namespace tidepool::ui
