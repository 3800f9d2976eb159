#include "ui/models/nodes_model.h"

#include "core/api/drain_options.h"
#include "ui/labels.h"
#include "ui/models/roles.h"

namespace tidepool::ui {

namespace {

double share(std::int64_t part, std::int64_t whole)
{
    return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : -1.0;
}

constexpr const char* kKeys[NodesModel::ColumnCount]
    = { "name", "isa", "tier", "state", "cordon", "cpu", "cpu-allocated", "cpu-used", "memory-allocated",
          "accelerators", "accelerators-allocated", "accelerators-used", "workloads" };

} // namespace

NodesModel::NodesModel(QObject* parent)
    : KeyedTableModel<NodeRow>(parent)
{
}

void NodesModel::setSnapshot(const SnapshotPtr& snapshot)
{
    update(snapshot ? snapshot->nodes : std::vector<NodeRow> {}, [](const NodeRow& row) { return row.id; });
}

int NodesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant NodesModel::data(const QModelIndex& index, int role) const
{
    const NodeRow* row = rowAt(index.row());
    if (!row || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    if (role == IdRole)
        return row->id;
    const auto column = static_cast<Column>(index.column());
    if (role == RawTextRole || role == SortRole) {
        switch (column) {
        case Name: return QString::fromStdString(row->name);
        case Isa: return QString::fromStdString(row->isa);
        case Tier: return QString::fromStdString(row->tier);
        case State: return QString::fromStdString(row->state);
        case Cordon: return QString::fromStdString(row->cordon);
        case Accelerators:
            return role == SortRole ? QVariant::fromValue<qint64>(row->acceleratorShare)
                                    : QVariant(QString::fromStdString(row->acceleratorKind));
        default: break;
        }
        if (role == RawTextRole)
            return {};
    }
    const bool sort = role == SortRole;
    if (role != Qt::DisplayRole && !sort) {
        if (role == Qt::TextAlignmentRole && column >= Cpu)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    switch (column) {
    case Name: return QString::fromStdString(row->name);
    case Isa: return isaLabel(row->isa);
    case Tier: return tierLabel(row->tier);
    case State: return nodeStateLabel(row->state);
    case Cordon:
        // An all-at-once drain that pools' disruption budgets held goes on without a pace of its own.
        if (row->drainMaxParallel >= api::kMaxDrainParallel && !sort)
            return tr("%1 — draining: %2 moving (as pools' disruption budgets allow), %n moved", nullptr,
                int(row->drainMoved))
                .arg(QString::fromStdString(row->cordon))
                .arg(row->drainMoving);
        if (row->drainMaxParallel > 0 && !sort)
            return tr("%1 — draining: %2 moving (at most %3), %n moved", nullptr, int(row->drainMoved))
                .arg(QString::fromStdString(row->cordon))
                .arg(row->drainMoving)
                .arg(row->drainMaxParallel);
        return QString::fromStdString(row->cordon);
    case Cpu: return sort ? QVariant::fromValue<qint64>(row->cpuMillis) : QVariant(coresText(row->cpuMillis));
    case CpuAllocated: {
        const double s = share(row->cpuAllocatedMillis, row->cpuMillis);
        return sort ? QVariant(s) : QVariant(percentText(s));
    }
    case CpuUsed: return sort ? QVariant(row->cpuUtilisation) : QVariant(percentText(row->cpuUtilisation));
    case MemoryAllocated: {
        const double s = share(row->memoryAllocatedMiB, row->memoryMiB);
        return sort ? QVariant(s) : QVariant(percentText(s));
    }
    case Accelerators:
        if (row->accelerators == 0)
            return QString();
        return tr("%1 × %2").arg(row->accelerators).arg(acceleratorLabel(row->acceleratorKind));
    case AcceleratorsAllocated: {
        const double s = share(row->acceleratorShareAllocated, row->acceleratorShare);
        return sort ? QVariant(s) : (row->accelerators ? QVariant(percentText(s)) : QVariant(QString()));
    }
    case AcceleratorsUsed:
        return sort ? QVariant(row->acceleratorUtilisation)
                    : (row->accelerators ? QVariant(percentText(row->acceleratorUtilisation)) : QVariant(QString()));
    case Workloads: return row->workloads;
    case ColumnCount: break;
    }
    return {};
}

QVariant NodesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == ColumnKeyRole)
        return QString::fromLatin1(kKeys[section]);
    if (role != Qt::DisplayRole)
        return {};
    switch (static_cast<Column>(section)) {
    case Name: return tr("Node");
    case Isa: return tr("ISA");
    case Tier: return tr("Tier");
    case State: return tr("State");
    case Cordon: return tr("Cordon");
    case Cpu: return tr("CPU");
    case CpuAllocated: return tr("CPU allocated");
    case CpuUsed: return tr("CPU used");
    case MemoryAllocated: return tr("Memory allocated");
    case Accelerators: return tr("Accelerators");
    case AcceleratorsAllocated: return tr("Accelerators allocated");
    case AcceleratorsUsed: return tr("Accelerators used");
    case Workloads: return tr("Workloads");
    case ColumnCount: break;
    }
    return {};
}

} // namespace tidepool::ui
