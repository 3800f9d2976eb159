#pragma once
// One proposal in full: kind, state, risk, subject, reason, predicted effect, expiry, its plan step by step, and who
// decided it and what came of it.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"

#include <QWidget>

class QLabel;

namespace tidepool::ui {

class ProposalDetail : public QWidget {
    Q_OBJECT
public:
    explicit ProposalDetail(QWidget* parent = nullptr);

    // Null: nothing selected.
    void showProposal(const ProposalRow* proposal);
    QString text() const;

private:
    QLabel* m_body;
};

} // namespace tidepool::ui
