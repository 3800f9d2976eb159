#pragma once
// Every accelerator device of the cluster, one row each: its node, kind and model, the share its holders requested
// against the utilisation its agent measured (achieved), memory allocated and used, and which workloads hold how much.
// Fed with snapshots, diffed by (node id, device index).
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"
#include "ui/models/keyed_table_model.h"

namespace tidepool::ui {

class DevicesModel : public KeyedTableModel<DeviceRow> {
    Q_OBJECT
public:
    enum Column : int {
        Device,
        Node,
        Kind,
        Model,
        Tier,
        Requested,
        Achieved,
        MemoryAllocated,
        MemoryUsed,
        Holders,
        ColumnCount
    };

    explicit DevicesModel(QObject* parent = nullptr);

    void setSnapshot(const SnapshotPtr& snapshot);
    // The row of the device with `key` (`DeviceRow::keyOf`), or -1.
    int rowOf(std::int64_t key) const;

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "hot-1 · GPU 0".
    static QString deviceName(const DeviceRow& row);
    // "inference-3 50 %, batch-12 25 %".
    static QString holdersText(const DeviceRow& row);
};

} // namespace tidepool::ui
