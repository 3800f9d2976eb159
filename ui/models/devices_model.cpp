#include "ui/models/devices_model.h"

#include "ui/labels.h"
#include "ui/models/roles.h"
#include "ui/view_labels.h"

#include <algorithm>

namespace tidepool::ui {

namespace {

double share(std::int64_t part, std::int64_t whole)
{
    return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : -1.0;
}

constexpr const char* kKeys[DevicesModel::ColumnCount] = { "device", "node", "kind", "model", "tier", "requested",
    "achieved", "memory-allocated", "memory-used", "holders" };

} // namespace

DevicesModel::DevicesModel(QObject* parent)
    : KeyedTableModel<DeviceRow>(parent)
{
}

void DevicesModel::setSnapshot(const SnapshotPtr& snapshot)
{
    std::vector<DeviceRow> rows = snapshot ? snapshot->devices : std::vector<DeviceRow> {};
    const auto key = [](const DeviceRow& row) { return row.key; };
    if (m_rows.empty() || rows.empty()) {
        update(std::move(rows), key);
        return;
    }
    // What a device is (its node, kind, model, tier) stays with its key; what changes from one snapshot to the next
    // is what it holds and measures. Announcing only those columns spares the sorting proxy from checking the order
    // of every changed row while the table is sorted by what a device is (the default), when every GPU of a large
    // fleet reports at each snapshot.
    const RowHooks hooks {
        [this](int first, int last) { beginRemoveRows({}, first, last); },
        [this](int, int) { endRemoveRows(); },
        [this](int first, int last) { beginInsertRows({}, first, last); },
        [this](int, int) { endInsertRows(); },
        [this](int first, int last) { Q_EMIT dataChanged(index(first, Requested), index(last, ColumnCount - 1)); },
    };
    diffRows(m_rows, std::move(rows), key, hooks);
}

int DevicesModel::rowOf(std::int64_t key) const
{
    const auto it = std::lower_bound(
        m_rows.begin(), m_rows.end(), key, [](const DeviceRow& row, std::int64_t k) { return row.key < k; });
    return it != m_rows.end() && it->key == key ? static_cast<int>(it - m_rows.begin()) : -1;
}

int DevicesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString DevicesModel::deviceName(const DeviceRow& row)
{
    return tr("%1 · %2 %3").arg(QString::fromStdString(row.node), acceleratorLabel(row.kind)).arg(row.index);
}

QString DevicesModel::holdersText(const DeviceRow& row)
{
    QStringList parts;
    for (const DeviceHolder& h : row.holders)
        parts << tr("%1 %2").arg(QString::fromStdString(h.name), deviceShareText(row.kind, h.share, row.shareCapacity));
    return parts.join(tr(", "));
}

QVariant DevicesModel::data(const QModelIndex& index, int role) const
{
    const DeviceRow* row = rowAt(index.row());
    if (!row || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    if (role == IdRole)
        return QVariant::fromValue<qint64>(row->key);
    const auto column = static_cast<Column>(index.column());
    const double requested = share(row->shareAllocated, row->shareCapacity);
    const double memoryAllocated = share(row->memoryAllocatedMiB, row->memoryMiB);
    const double memoryUsed = row->memoryUsedMiB < 0 ? -1.0 : share(row->memoryUsedMiB, row->memoryMiB);
    if (role == RawTextRole) {
        switch (column) {
        case Device: return deviceName(*row);
        case Node: return QString::fromStdString(row->node);
        case Kind: return QString::fromStdString(row->kind);
        case Model: return QString::fromStdString(row->model);
        case Tier: return QString::fromStdString(row->tier);
        case Holders: {
            QStringList names;
            for (const DeviceHolder& h : row->holders)
                names << QString::fromStdString(h.name) << QString::fromStdString(h.pool);
            return names.join(QLatin1Char(' '));
        }
        default: return {};
        }
    }
    if (role == SortRole) {
        switch (column) {
        case Device: return QVariant::fromValue<qint64>(row->key);
        case Node: return QString::fromStdString(row->node);
        case Kind: return QString::fromStdString(row->kind);
        case Model: return QString::fromStdString(row->model);
        case Tier: return QString::fromStdString(row->tier);
        case Requested: return requested;
        case Achieved: return row->utilisation;
        case MemoryAllocated: return memoryAllocated;
        case MemoryUsed: return memoryUsed;
        case Holders: return static_cast<int>(row->holders.size());
        case ColumnCount: break;
        }
        return {};
    }
    if (role == Qt::ToolTipRole && column == Holders && !row->holders.empty()) {
        QStringList lines;
        for (const DeviceHolder& h : row->holders) {
            QString line = tr("%1 (pool %2): %3, %4")
                               .arg(QString::fromStdString(h.name), QString::fromStdString(h.pool),
                                   deviceShareText(row->kind, h.share, row->shareCapacity), memoryText(h.memoryMiB));
            // An FPGA's slots as the console numbers them, as on the slot timeline.
            QStringList numbers;
            for (std::size_t slot = 0; slot < row->slotHolders.size(); ++slot)
                if (row->slotHolders[slot] == h.workload)
                    numbers << QString::number(slot);
            if (!numbers.isEmpty())
                line += tr(", in slots %1").arg(numbers.join(tr(", ")));
            lines << line;
        }
        return lines.join(QLatin1Char('\n'));
    }
    if (role == Qt::ToolTipRole && column == Achieved && row->utilisation < 0.0)
        return tr("The device's agent sends no utilisation.");
    if (role == Qt::TextAlignmentRole && column >= Requested && column <= MemoryUsed)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case Device: return deviceName(*row);
    case Node: return QString::fromStdString(row->node);
    case Kind: return acceleratorLabel(row->kind);
    case Model: return QString::fromStdString(row->model);
    case Tier: return tierLabel(row->tier);
    case Requested: return deviceShareText(row->kind, row->shareAllocated, row->shareCapacity);
    case Achieved: return percentText(row->utilisation);
    case MemoryAllocated: return percentText(memoryAllocated);
    case MemoryUsed: return percentText(memoryUsed);
    case Holders: return holdersText(*row);
    case ColumnCount: break;
    }
    return {};
}

QVariant DevicesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == ColumnKeyRole)
        return QString::fromLatin1(kKeys[section]);
    if (role == Qt::ToolTipRole && section == Requested)
        return tr("The share the workloads on it requested (GPU share, NPU cores, FPGA slots)");
    if (role == Qt::ToolTipRole && section == Achieved)
        return tr("The utilisation its agent measured: what the requested share achieved");
    if (role != Qt::DisplayRole)
        return {};
    switch (static_cast<Column>(section)) {
    case Device: return tr("Device");
    case Node: return tr("Node");
    case Kind: return tr("Kind");
    case Model: return tr("Model");
    case Tier: return tr("Tier");
    case Requested: return tr("Requested");
    case Achieved: return tr("Achieved");
    case MemoryAllocated: return tr("Memory allocated");
    case MemoryUsed: return tr("Memory used");
    case Holders: return tr("Held by");
    case ColumnCount: break;
    }
    return {};
}

} // namespace tidepool::ui
