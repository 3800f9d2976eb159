#pragma once
// The Proposals tab: the filterable list, the selected proposal's detail, and the decision: Approve, or Reject with a
// comment (required, and audited). Decisions go to the core through the bridge; the buttons wait for the outcome,
// which the page shows, and say in their tooltips why they are disabled.
//
// Thread affinity: GUI thread. Borrows the bridge and the model.

#include "ui/bridge/console_backend.h"

#include <QWidget>

#include <optional>

class QLabel;
class QLineEdit;
class QPushButton;

namespace tidepool::ui {

class CoreBridge;
class ProposalDetail;
class ProposalsModel;
class TablePage;

class ProposalsPage : public QWidget {
    Q_OBJECT
public:
    ProposalsPage(CoreBridge& bridge, ProposalsModel* model, QWidget* parent = nullptr);

    TablePage* list() const { return m_list; }
    // Selects proposal `id` in the list; false when it is not shown.
    bool select(std::int64_t id);
    std::optional<std::int64_t> selectedId() const { return m_selected; }

private:
    void onSelectionChanged();
    void refresh(); // detail and buttons for the selected proposal
    void decide(Decision decision);
    void onCommandFinished(const CommandOutcome& outcome);

    CoreBridge& m_bridge;
    ProposalsModel* m_model;
    TablePage* m_list;
    ProposalDetail* m_detail;
    QLineEdit* m_comment;
    QPushButton* m_approve;
    QPushButton* m_reject;
    QLabel* m_status;
    QLabel* m_scope; // what the list holds: every open proposal, the newest closed ones
    std::optional<std::int64_t> m_selected;
    quint64 m_inFlight = 0; // the request waiting for its outcome; 0 = none
};

} // namespace tidepool::ui
