#include "ui/models/pools_model.h"

#include "ui/labels.h"
#include "ui/models/keyed_diff.h"
#include "ui/models/roles.h"

#include <map>

namespace tidepool::ui {

namespace {

// An index's internal id says where its row sits: level 0 a business line, 1 a pool of line `line`, 2 a node of
// pool `pool` of line `line`.
constexpr quintptr encode(quintptr level, quintptr line, quintptr pool)
{
    return level << 48 | line << 24 | pool;
}
constexpr quintptr levelOf(quintptr id)
{
    return id >> 48;
}
constexpr quintptr lineOf(quintptr id)
{
    return (id >> 24) & 0xffffff;
}
constexpr quintptr poolOf(quintptr id)
{
    return id & 0xffffff;
}

std::size_t at(int row)
{
    return static_cast<std::size_t>(row);
}

constexpr const char* kKeys[PoolsModel::ColumnCount] = { "name", "tier", "workloads", "cpu-used", "cpu-quota",
    "quota-used", "memory-used", "memory-quota", "accelerators" };

// Unlimited (-1) absorbs: a line with one unlimited pool has no total quota.
std::int64_t addQuota(std::int64_t total, std::int64_t quota)
{
    return total < 0 || quota < 0 ? -1 : total + quota;
}

} // namespace

PoolsModel::PoolsModel(QObject* parent)
    : QAbstractItemModel(parent)
{
}

std::vector<PoolsModel::Line> PoolsModel::group(const SnapshotPtr& snapshot)
{
    std::map<std::string, std::vector<PoolRow>> byLine;
    if (snapshot)
        for (const PoolRow& pool : snapshot->pools)
            byLine[pool.businessLine].push_back(pool);
    std::vector<Line> lines;
    for (auto& [name, pools] : byLine)
        lines.push_back(Line { name, std::move(pools) });
    return lines;
}

bool PoolsModel::samePools(const std::vector<Line>& a, const std::vector<Line>& b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t l = 0; l < a.size(); ++l) {
        if (a[l].name != b[l].name || a[l].pools.size() != b[l].pools.size())
            return false;
        for (std::size_t p = 0; p < a[l].pools.size(); ++p)
            if (a[l].pools[p].id != b[l].pools[p].id)
                return false;
    }
    return true;
}

void PoolsModel::setSnapshot(const SnapshotPtr& snapshot)
{
    std::vector<Line> lines = group(snapshot);
    if (!samePools(m_lines, lines)) {
        beginResetModel();
        m_lines = std::move(lines);
        endResetModel();
        return;
    }
    const int last = ColumnCount - 1;
    for (std::size_t l = 0; l < m_lines.size(); ++l) {
        bool lineChanged = false;
        for (std::size_t p = 0; p < m_lines[l].pools.size(); ++p)
            lineChanged = updatePool(l, p, std::move(lines[l].pools[p])) || lineChanged;
        if (lineChanged) // its totals
            Q_EMIT dataChanged(index(static_cast<int>(l), 0), index(static_cast<int>(l), last));
    }
}

bool PoolsModel::updatePool(std::size_t l, std::size_t p, PoolRow next)
{
    const int last = ColumnCount - 1;
    const QModelIndex line = index(static_cast<int>(l), 0);
    const QModelIndex pool = index(static_cast<int>(p), 0, line);
    PoolRow& shown = m_lines[l].pools[p];
    const bool nodesChanged = shown.nodes != next.nodes;
    if (nodesChanged) {
        const RowHooks hooks {
            [this, &pool](int first, int lastRow) { beginRemoveRows(pool, first, lastRow); },
            [this](int, int) { endRemoveRows(); },
            [this, &pool](int first, int lastRow) { beginInsertRows(pool, first, lastRow); },
            [this](int, int) { endInsertRows(); },
            [this, &pool, last](
                int first, int lastRow) { Q_EMIT dataChanged(index(first, 0, pool), index(lastRow, last, pool)); },
        };
        diffRows(
            shown.nodes, std::move(next.nodes), [](const PoolNodeRow& n) { return n.node; }, hooks);
    }
    // The pool's own values, its nodes aside (they are up to date now).
    std::vector<PoolNodeRow> nodes = std::exchange(shown.nodes, {});
    next.nodes.clear();
    const bool valuesChanged = !(shown == next);
    shown = std::move(next);
    shown.nodes = std::move(nodes);
    if (valuesChanged)
        Q_EMIT dataChanged(pool, index(static_cast<int>(p), last, line));
    return nodesChanged || valuesChanged;
}

QModelIndex PoolsModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount || row >= rowCount(parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, encode(0, 0, 0));
    const quintptr id = parent.internalId();
    if (levelOf(id) == 0)
        return createIndex(row, column, encode(1, static_cast<quintptr>(parent.row()), 0));
    return createIndex(row, column, encode(2, lineOf(id), static_cast<quintptr>(parent.row())));
}

QModelIndex PoolsModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    const quintptr id = child.internalId();
    switch (levelOf(id)) {
    case 1: return createIndex(static_cast<int>(lineOf(id)), 0, encode(0, 0, 0));
    case 2: return createIndex(static_cast<int>(poolOf(id)), 0, encode(1, lineOf(id), 0));
    default: return {};
    }
}

int PoolsModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_lines.size());
    if (parent.column() != 0)
        return 0;
    const quintptr id = parent.internalId();
    if (levelOf(id) == 0)
        return static_cast<int>(m_lines[at(parent.row())].pools.size());
    if (levelOf(id) == 1)
        return static_cast<int>(m_lines[lineOf(id)].pools[at(parent.row())].nodes.size());
    return 0;
}

int PoolsModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

PoolsModel::Cells PoolsModel::cells(const QModelIndex& index) const
{
    Cells c;
    const quintptr id = index.internalId();
    if (levelOf(id) == 0) {
        const Line& line = m_lines[at(index.row())];
        c.name = line.name;
        c.cpuQuota = c.memoryQuota = 0;
        for (const PoolRow& pool : line.pools) {
            c.workloads += pool.workloads;
            c.cpuUsed += pool.cpuUsedMillis;
            c.cpuQuota = addQuota(c.cpuQuota, pool.cpuQuotaMillis);
            c.memoryUsed += pool.memoryUsedMiB;
            c.memoryQuota = addQuota(c.memoryQuota, pool.memoryQuotaMiB);
            c.accelerators += pool.acceleratorShareUsed;
        }
    } else if (levelOf(id) == 1) {
        const PoolRow& pool = m_lines[lineOf(id)].pools[at(index.row())];
        c = Cells { pool.name, pool.tier, true, pool.workloads, pool.cpuUsedMillis, pool.cpuQuotaMillis,
            pool.memoryUsedMiB, pool.memoryQuotaMiB, pool.acceleratorShareUsed };
    } else {
        const PoolNodeRow& node = m_lines[lineOf(id)].pools[poolOf(id)].nodes[at(index.row())];
        c = Cells { node.node, {}, false, node.workloads, node.cpuMillis, -2, node.memoryMiB, -2,
            node.acceleratorShare };
    }
    return c;
}

QVariant PoolsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Cells c = cells(index);
    const auto column = static_cast<Column>(index.column());
    const double quotaUsed = c.cpuQuota > 0 ? static_cast<double>(c.cpuUsed) / static_cast<double>(c.cpuQuota) : -1.0;
    if (role == RawTextRole) {
        if (column == Name)
            return QString::fromStdString(c.name);
        if (column == Tier && c.showTier)
            return QString::fromStdString(c.tier);
        return {};
    }
    if (role == Qt::TextAlignmentRole && column >= Workloads)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    const bool sort = role == SortRole;
    if (role != Qt::DisplayRole && !sort)
        return {};
    // -2: a quota that does not apply (a node row shows the pool's use there, not a quota of its own).
    auto quota = [sort](std::int64_t value, QString (*text)(std::int64_t)) -> QVariant {
        if (value == -2)
            return sort ? QVariant(-2) : QVariant(QString());
        return sort ? QVariant::fromValue<qint64>(value) : QVariant(text(value));
    };
    switch (column) {
    case Name: return QString::fromStdString(c.name);
    case Tier: return c.showTier ? tierLabel(c.tier) : QString();
    case Workloads: return c.workloads;
    case CpuUsed: return sort ? QVariant::fromValue<qint64>(c.cpuUsed) : QVariant(coresText(c.cpuUsed));
    case CpuQuota: return quota(c.cpuQuota, &coresText);
    case QuotaUsed: return sort ? QVariant(quotaUsed) : QVariant(c.cpuQuota == -2 ? QString() : percentText(quotaUsed));
    case MemoryUsed: return sort ? QVariant::fromValue<qint64>(c.memoryUsed) : QVariant(memoryText(c.memoryUsed));
    case MemoryQuota: return quota(c.memoryQuota, &memoryText);
    case Accelerators:
        return sort ? QVariant::fromValue<qint64>(c.accelerators)
                    : QVariant(tr("%1").arg(static_cast<double>(c.accelerators) / 1000.0, 0, 'f', 2));
    case ColumnCount: break;
    }
    return {};
}

QVariant PoolsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == ColumnKeyRole)
        return QString::fromLatin1(kKeys[section]);
    if (role != Qt::DisplayRole)
        return {};
    switch (static_cast<Column>(section)) {
    case Name: return tr("Business line / pool / node");
    case Tier: return tr("Tier");
    case Workloads: return tr("Workloads");
    case CpuUsed: return tr("CPU used");
    case CpuQuota: return tr("CPU quota");
    case QuotaUsed: return tr("Quota used");
    case MemoryUsed: return tr("Memory used");
    case MemoryQuota: return tr("Memory quota");
    case Accelerators: return tr("Accelerators used (devices)");
    case ColumnCount: break;
    }
    return {};
}

} // namespace tidepool::ui
