#pragma once
// The cluster's recent events, oldest first: time, kind (placement, migration, requeue, stop, finish, node state,
// cordon, decision, proposal, operator action), subject, the change (from → to), node, who, detail. Events are
// immutable, so a snapshot only appends the new ones and drops those that fell off the bounded timeline; rows are
// diffed by sequence. The kind's raw name (`RawTextRole`) is what `EventKindFilter` and `kind=placement` filters match.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"
#include "ui/models/keyed_table_model.h"

namespace tidepool::ui {

struct EventModelRow {
    EventRowPtr event;
    bool operator==(const EventModelRow& other) const { return event == other.event; }
};

class EventsModel : public KeyedTableModel<EventModelRow> {
    Q_OBJECT
public:
    enum Column : int { Time, Kind, Subject, Change, Node, Actor, Detail, ColumnCount };

    explicit EventsModel(QObject* parent = nullptr);
    void setSnapshot(const SnapshotPtr& snapshot);

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "pending → launching", translated where the names are the core's.
    static QString changeText(const EventRow& row);
};

} // namespace tidepool::ui
