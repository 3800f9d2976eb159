#include "ui/models/device_history_model.h"

#include "ui/labels.h"
#include "ui/models/roles.h"

namespace tidepool::ui {

namespace {

std::optional<double> measured(std::uint16_t perMille)
{
    if (perMille == DeviceSampleValue::kNotMeasured)
        return std::nullopt;
    return perMille / 1000.0;
}

constexpr const char* kKeys[DeviceHistoryModel::ColumnCount]
    = { "time", "utilisation", "allocated", "memory-used", "memory-allocated" };

} // namespace

DeviceHistoryModel::DeviceHistoryModel(QObject* parent)
    : KeyedTableModel<DeviceHistoryRow>(parent)
{
}

void DeviceHistoryModel::setDevice(std::int32_t nodeId, std::int32_t index)
{
    if (nodeId == m_nodeId && index == m_index)
        return;
    m_nodeId = nodeId;
    m_index = index;
    // Another device's history shares no rows with this one's.
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

std::vector<DeviceHistoryRow> DeviceHistoryModel::rowsOf(
    const std::vector<DeviceFramePtr>& frames, std::int32_t nodeId, std::int32_t index)
{
    std::vector<DeviceHistoryRow> rows;
    rows.reserve(frames.size());
    std::int64_t last = 0;
    for (const DeviceFramePtr& frame : frames) {
        if (!frame || !frame->layout || (!rows.empty() && frame->atMs <= last))
            continue;
        const std::int64_t at = frame->layout->position(nodeId, index);
        if (at < 0 || static_cast<std::size_t>(at) >= frame->values.size())
            continue;
        const DeviceSampleValue& v = frame->values[static_cast<std::size_t>(at)];
        rows.push_back(DeviceHistoryRow { frame->atMs, measured(v.utilisation), v.allocated / 1000.0,
            measured(v.memoryUsed), v.memoryAllocated / 1000.0 });
        last = frame->atMs;
    }
    return rows;
}

void DeviceHistoryModel::setSnapshot(const SnapshotPtr& snapshot)
{
    update(snapshot && m_nodeId >= 0 ? rowsOf(snapshot->deviceHistory, m_nodeId, m_index)
                                     : std::vector<DeviceHistoryRow> {},
        [](const DeviceHistoryRow& row) { return row.atMs; });
}

int DeviceHistoryModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DeviceHistoryModel::data(const QModelIndex& index, int role) const
{
    const DeviceHistoryRow* row = rowAt(index.row());
    if (!row || index.column() < 0 || index.column() >= ColumnCount || (role != Qt::DisplayRole && role != SortRole))
        return {};
    const bool sort = role == SortRole;
    const auto value = [sort](const std::optional<double>& v) -> QVariant {
        if (!v)
            return sort ? QVariant() : QVariant(percentText(-1.0));
        return sort ? QVariant(*v) : QVariant(percentText(*v));
    };
    switch (static_cast<Column>(index.column())) {
    case Time: return sort ? QVariant::fromValue<qint64>(row->atMs) : QVariant(timeText(row->atMs));
    case Utilisation: return value(row->utilisation);
    case Allocated: return value(row->allocated);
    case MemoryUsed: return value(row->memoryUsed);
    case MemoryAllocated: return value(row->memoryAllocated);
    case ColumnCount: break;
    }
    return {};
}

QVariant DeviceHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == ColumnKeyRole)
        return QString::fromLatin1(kKeys[section]);
    if (role != Qt::DisplayRole)
        return {};
    switch (static_cast<Column>(section)) {
    case Time: return tr("Time");
    case Utilisation: return tr("Utilisation");
    case Allocated: return tr("Requested share");
    case MemoryUsed: return tr("Memory used");
    case MemoryAllocated: return tr("Memory allocated");
    case ColumnCount: break;
    }
    return {};
}

} // namespace tidepool::ui
