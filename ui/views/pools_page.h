#pragma once
// The Pools tab: the business line → pool → node → workload tree (`PoolsModel`) with its filter bar and columns
// (`TablePage`), where the operator drags a workload onto another pool (the core picks the node) or onto a node of a
// pool. The drop goes through the model (`PoolsModel::dropMimeData`), the page sends the move to the core through the
// bridge, and the core's answer shows in the message strip above the tree: where it went, or why not (its pool's
// quota, the scheduler's reasons, translated). Nothing moves in the tree until a snapshot says so.
//
// New pool…, Edit pool… (the selected row's pool) and Delete pool… change pools through the bridge (`PoolCommand`):
// the core checks the settings as tidepoold's API does, and its answer shows in the same strip ("pool web still holds
// 2 workloads that have not ended…"). Against a remote tidepoold these need a token with the admin role, and moves an
// operator's: the buttons and the drag are off for a token without it (`roleAllows`), saying why. A new pool starts
// with the selected row's business line and tier, and the dialog suggests the cluster's business lines.
//
// Thread affinity: GUI thread. Borrows the bridge and the model.

#include "ui/bridge/console_backend.h"
#include "ui/bridge/workload_rows.h"
#include "ui/views/table_page.h"

#include <map>

class QLabel;
class QPushButton;

namespace tidepool::ui {

class CoreBridge;
class PoolDialog;
class PoolsModel;

class PoolsPage : public TablePage {
    Q_OBJECT
public:
    PoolsPage(CoreBridge& bridge, PoolsModel* model, QWidget* parent = nullptr);

    QLabel* message() const { return m_message; }
    QPushButton* newButton() const { return m_new; }
    QPushButton* editButton() const { return m_edit; }
    QPushButton* deleteButton() const { return m_delete; }
    // The pool of the selected row (`PoolsModel::poolAt`); null when none.
    const PoolRow* selectedPool() const;
    // What a pool dialog starts from here: the cluster's business lines to suggest, and for a new pool the selected
    // row's line and tier (`PoolDialog::startLike`).
    void prepareDialog(PoolDialog& dialog) const;
    // Sends a pool's creation, change or deletion (what the buttons do once their dialog is accepted) and says so in
    // the strip; the core's answer replaces it. 0 without a core.
    quint64 changePool(PoolAction action, const QString& name, const nlohmann::json& body = nlohmann::json::object());

private:
    void onPoolChanged(const PoolResult& result);
    // What the selection and the console's role allow: pools change with the admin role, workloads move with an
    // operator's; a button that may not says why in its tooltip.
    void updateButtons();
    void onMoveRequested(qint64 workloadId, const QString& pool, const QString& node);
    void onMoveFinished(const MoveResult& result);
    void showMessage(const QString& text, bool refused);

    CoreBridge& m_bridge;
    PoolsModel* m_model;
    QLabel* m_message;
    QLabel* m_hint;
    QPushButton* m_new;
    QPushButton* m_edit;
    QPushButton* m_delete;
    std::map<quint64, PoolAction> m_poolChanges; // request id → what it asked
    std::map<quint64, qint64> m_inFlight; // request id → workload id
};

} // namespace tidepool::ui
