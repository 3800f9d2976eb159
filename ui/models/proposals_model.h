#pragma once
// The rebalancer's proposals, newest last: kind, state, risk, subject, reason, predicted effect, expiry and who
// decided. Fed with snapshots, diffed by proposal id.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"
#include "ui/models/keyed_table_model.h"

namespace tidepool::ui {

class ProposalsModel : public KeyedTableModel<ProposalRow> {
    Q_OBJECT
public:
    enum Column : int { Id, Kind, State, Risk, Subject, Reason, Effect, Expires, DecidedBy, ColumnCount };

    explicit ProposalsModel(QObject* parent = nullptr);

    void setSnapshot(const SnapshotPtr& snapshot);
    // The row of proposal `id`, or -1.
    int rowOf(std::int64_t id) const;

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The predicted effect in one line ("CPU 92 % → 71 %, 2 GPUs freed, 450 W saved").
    static QString effectText(const ProposalRow& row);
};

} // namespace tidepool::ui
