#pragma once
// The sample history of one accelerator device, one row per frame of the snapshot's bounded `deviceHistory`, oldest
// first: utilisation measured, share requested, memory used (measured) and allocated, each 0..1 (`SortRole`), or no
// value where the agent measured nothing. Rows are diffed by time, so each snapshot appends the new frame and drops
// the oldest. The Accelerators page charts it.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"
#include "ui/models/keyed_table_model.h"

#include <optional>

namespace tidepool::ui {

struct DeviceHistoryRow {
    std::int64_t atMs = 0;
    std::optional<double> utilisation; // measured
    double allocated = 0.0;
    std::optional<double> memoryUsed; // measured
    double memoryAllocated = 0.0;
    bool operator==(const DeviceHistoryRow&) const = default;
};

class DeviceHistoryModel : public KeyedTableModel<DeviceHistoryRow> {
    Q_OBJECT
public:
    enum Column : int { Time, Utilisation, Allocated, MemoryUsed, MemoryAllocated, ColumnCount };

    explicit DeviceHistoryModel(QObject* parent = nullptr);

    // The device shown, by `DeviceRow::keyOf`; takes effect with the next `setSnapshot`.
    void setDevice(std::int32_t nodeId, std::int32_t index);
    std::int32_t nodeId() const { return m_nodeId; }
    std::int32_t deviceIndex() const { return m_index; }
    void setSnapshot(const SnapshotPtr& snapshot);

    // The rows `setSnapshot` would show for the device, from `frames`.
    static std::vector<DeviceHistoryRow> rowsOf(
        const std::vector<DeviceFramePtr>& frames, std::int32_t nodeId, std::int32_t index);

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::int32_t m_nodeId = -1;
    std::int32_t m_index = -1;
};

} // namespace tidepool::ui
