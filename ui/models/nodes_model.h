#pragma once
// Every node of the cluster, one row each: ISA, tier, state, cordon, CPU allocated and measured, memory, accelerators.
// Fed with snapshots (`setSnapshot`), diffed by node id.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"
#include "ui/models/keyed_table_model.h"

namespace tidepool::ui {

class NodesModel : public KeyedTableModel<NodeRow> {
    Q_OBJECT
public:
    enum Column : int {
        Name,
        Isa,
        Tier,
        State,
        Cordon,
        Cpu,
        CpuAllocated,
        CpuUsed,
        MemoryAllocated,
        Accelerators,
        AcceleratorsAllocated,
        AcceleratorsUsed,
        Workloads,
        ColumnCount
    };

    explicit NodesModel(QObject* parent = nullptr);

    void setSnapshot(const SnapshotPtr& snapshot);

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

} // namespace tidepool::ui
