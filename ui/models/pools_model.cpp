#include "ui/models/pools_model.h"

#include "ui/labels.h"
#include "ui/models/roles.h"

#include <QMimeData>

#include <algorithm>
#include <map>
#include <set>

namespace tidepool::ui {

namespace {

// An index's internal id says where its row sits: level 0 a business line, 1 a pool of line `line`, 2 a node of pool
// `pool` of line `line`, 3 a workload of node `node` of that pool — in its high 44 bits. Its low 20 bits scatter those:
// Qt keeps persistent indexes (every expanded row) in a hash table that takes `16 × row + column + internal id` as the
// hash and its low bits as the slot, so ids that differ only in small numbers pile a large tree's rows into one run of
// slots, and every lookup walks it.
static_assert(sizeof(quintptr) == 8, "internal ids hold 64 bits");
constexpr quintptr scatter(quintptr where)
{
    return (where * 0x9E3779B97F4A7C15ull) >> 44;
}
constexpr quintptr encode(quintptr level, quintptr line, quintptr pool, quintptr node)
{
    const quintptr where = level << 62 | line << 52 | pool << 40 | node << 20;
    return where | scatter(where);
}
constexpr quintptr levelOf(quintptr id)
{
    return id >> 62;
}
constexpr quintptr lineOf(quintptr id)
{
    return (id >> 52) & 0x3ff;
}
constexpr quintptr poolOf(quintptr id)
{
    return (id >> 40) & 0xfff;
}
constexpr quintptr nodeOf(quintptr id)
{
    return (id >> 20) & 0xfffff;
}

std::size_t at(int row)
{
    return static_cast<std::size_t>(row);
}

constexpr const char* kKeys[PoolsModel::ColumnCount] = { "name", "tier", "workloads", "cpu-requested", "cpu-used",
    "cpu-quota", "quota-used", "memory-requested", "memory-used", "memory-quota", "membw-requested", "net-requested",
    "net-used", "accelerators", "accelerators-used" };

// Unlimited (-1) absorbs: a line with one unlimited pool has no total quota.
std::int64_t addQuota(std::int64_t total, std::int64_t quota)
{
    return total < 0 || quota < 0 ? -1 : total + quota;
}

// `part` of `limit`, -1 when there is no limit or nothing measured.
double shareOf(double part, double limit)
{
    return part < 0 || limit <= 0 ? -1.0 : part / limit;
}

QString devicesText(double devices)
{
    if (devices < 0)
        return QStringLiteral("—");
    return PoolsModel::tr("%1 devices").arg(devices, 0, 'f', 2);
}

QString bandwidthText(std::int64_t mbps)
{
    return PoolsModel::tr("%1 Gb/s").arg(static_cast<double>(mbps) / 1000.0, 0, 'f', 1);
}

// A measured rate: whatever a pool sent, small ones included; "—" where nothing measured it.
QString measuredBandwidthText(double mbps)
{
    if (mbps < 0)
        return QStringLiteral("—");
    if (mbps < 1000.0)
        return PoolsModel::tr("%1 Mb/s").arg(mbps, 0, 'f', 1);
    return PoolsModel::tr("%1 Gb/s").arg(mbps / 1000.0, 0, 'f', 2);
}

QString memoryBandwidthText(std::int64_t mbps)
{
    return PoolsModel::tr("%1 GB/s").arg(static_cast<double>(mbps) / 1000.0, 0, 'f', 1);
}

// "12.0 of 40.0 cores": what is requested or used against the row's limit.
QString ofLimit(QString value, std::int64_t limit, QString (*text)(std::int64_t))
{
    return limit > 0 ? PoolsModel::tr("%1 of %2").arg(value, text(limit)) : value;
}

} // namespace

PoolsModel::PoolsModel(QObject* parent)
    : QAbstractItemModel(parent)
{
}

std::vector<PoolsModel::Line> PoolsModel::group(const SnapshotPtr& snapshot)
{
    std::map<std::string, std::vector<PoolEntry>> byLine;
    if (snapshot)
        for (const PoolRow& pool : snapshot->pools) {
            PoolEntry entry { { &pool }, {} };
            entry.nodes.reserve(pool.nodes.size());
            for (const PoolNodeRow& node : pool.nodes)
                entry.nodes.push_back(NodeGroup { { &node }, {} });
            byLine[pool.lineOrName()].push_back(std::move(entry));
        }
    std::vector<Line> lines;
    for (auto& [name, pools] : byLine)
        lines.push_back(Line { name, std::move(pools) });
    // Each node row of a pool lists its workloads (node "" its waiting ones), in id order.
    for (Line& line : lines)
        for (PoolEntry& pool : line.pools)
            for (NodeGroup& node : pool.nodes) {
                node.workloads.reserve(node.row.row->workloadRows.size());
                for (const std::int32_t w : node.row.row->workloadRows)
                    if (w >= 0 && static_cast<std::size_t>(w) < snapshot->workloads.size())
                        node.workloads.push_back(WorkloadRef { &snapshot->workloads[static_cast<std::size_t>(w)] });
            }
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
            if (a[l].pools[p].row.row->id != b[l].pools[p].row.row->id)
                return false;
    }
    return true;
}

void PoolsModel::setSnapshot(const SnapshotPtr& snapshot)
{
    std::vector<Line> lines = group(snapshot);
    // The shown workload rows point into the previous snapshot until the diff has moved them to the next one.
    const SnapshotPtr previous = std::exchange(m_snapshot, snapshot);
    if (!samePools(m_lines, lines)) {
        beginResetModel();
        m_lines = std::move(lines);
        endResetModel();
        return;
    }
    if (insertRemoveRunsTo(lines) > kIncrementalRunsUpTo) {
        relayout(std::move(lines));
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

namespace {

const std::string& nodeKey(const auto& group)
{
    return group.row.row->node;
}

std::int64_t workloadKey(const auto& ref)
{
    return ref.row->id;
}

} // namespace

std::size_t PoolsModel::insertRemoveRunsTo(const std::vector<Line>& next) const
{
    std::size_t runs = 0;
    const auto workloadRuns = [](const NodeGroup& shown, const NodeGroup& nextNode, std::size_t limit) {
        return insertRemoveRuns(shown.workloads, nextNode.workloads, workloadKey<WorkloadRef>, limit);
    };
    for (std::size_t l = 0; l < m_lines.size() && runs <= kIncrementalRunsUpTo; ++l)
        for (std::size_t p = 0; p < m_lines[l].pools.size() && runs <= kIncrementalRunsUpTo; ++p)
            runs += groupedRuns(m_lines[l].pools[p].nodes, next[l].pools[p].nodes, nodeKey<NodeGroup>, workloadRuns,
                kIncrementalRunsUpTo - runs);
    return runs;
}

void PoolsModel::relayout(std::vector<Line> next)
{
    Q_EMIT layoutAboutToBeChanged();
    const QModelIndexList from = persistentIndexList();
    // Where each persistent index sits by key: the lines and pools stay where they are, nodes move by name and
    // workloads by id.
    struct Where {
        std::string node;
        std::int64_t workload = 0;
    };
    std::vector<Where> where(static_cast<std::size_t>(from.size()));
    for (qsizetype i = 0; i < from.size(); ++i) {
        const quintptr id = from[i].internalId();
        const auto row = at(from[i].row());
        Where& w = where[static_cast<std::size_t>(i)];
        if (levelOf(id) == 2)
            w.node = m_lines[lineOf(id)].pools[poolOf(id)].nodes[row].row.row->node;
        else if (levelOf(id) == 3) {
            const NodeGroup& node = m_lines[lineOf(id)].pools[poolOf(id)].nodes[nodeOf(id)];
            w.node = node.row.row->node;
            w.workload = node.workloads[row].row->id;
        }
    }
    m_lines = std::move(next);
    QModelIndexList to;
    to.reserve(from.size());
    for (qsizetype i = 0; i < from.size(); ++i) {
        const QModelIndex& old = from[i];
        const quintptr id = old.internalId();
        const Where& w = where[static_cast<std::size_t>(i)];
        const auto level = levelOf(id);
        if (level < 2) {
            to.push_back(createIndex(old.row(), old.column(), id));
            continue;
        }
        const auto& nodes = m_lines[lineOf(id)].pools[poolOf(id)].nodes;
        const int node = rowOfKey(nodes, nodeKey<NodeGroup>, w.node);
        if (node < 0) {
            to.push_back({});
        } else if (level == 2) {
            to.push_back(createIndex(node, old.column(), encode(2, lineOf(id), poolOf(id), 0)));
        } else {
            const int workload
                = rowOfKey(nodes[at(node)].workloads, workloadKey<WorkloadRef>, w.workload);
            to.push_back(workload < 0 ? QModelIndex()
                                      : createIndex(workload, old.column(),
                                          encode(3, lineOf(id), poolOf(id), static_cast<quintptr>(node))));
        }
    }
    changePersistentIndexList(from, to);
    Q_EMIT layoutChanged();
}

bool PoolsModel::updatePool(std::size_t l, std::size_t p, PoolEntry next)
{
    const int last = ColumnCount - 1;
    const QModelIndex line = index(static_cast<int>(l), 0);
    const QModelIndex pool = index(static_cast<int>(p), 0, line);
    PoolEntry& shown = m_lines[l].pools[p];
    bool changed = false;
    auto hooksUnder = [this, &changed, last](const QModelIndex& parent) {
        return RowHooks {
            [this, &changed, parent](int first, int lastRow) {
                changed = true;
                beginRemoveRows(parent, first, lastRow);
            },
            [this](int, int) { endRemoveRows(); },
            [this, &changed, parent](int first, int lastRow) {
                changed = true;
                beginInsertRows(parent, first, lastRow);
            },
            [this](int, int) { endInsertRows(); },
            [this, &changed, parent, last](int first, int lastRow) {
                changed = true;
                Q_EMIT dataChanged(index(first, 0, parent), index(lastRow, last, parent));
            },
        };
    };
    const auto sync = [this, &pool, &hooksUnder](int row, NodeGroup& shownNode, const NodeGroup& nextNode) {
        diffRows(
            shownNode.workloads, nextNode.workloads, [](const WorkloadRef& w) { return w.row->id; },
            hooksUnder(index(row, 0, pool)));
        shownNode.workloads = nextNode.workloads; // the same rows, now in the next snapshot
    };
    std::vector<SnapshotRef<PoolNodeRow>> nodes; // the next rows, for the nodes that stay equal
    nodes.reserve(next.nodes.size());
    for (const NodeGroup& g : next.nodes)
        nodes.push_back(g.row);
    diffGroups(shown.nodes, std::move(next.nodes), nodeKey<NodeGroup>, sync, hooksUnder(pool));
    for (std::size_t n = 0; n < nodes.size(); ++n)
        shown.nodes[n].row = nodes[n]; // the same keys, in the same order
    const bool poolChanged = !(shown.row == next.row);
    shown.row = next.row;
    if (poolChanged) {
        changed = true;
        Q_EMIT dataChanged(pool, index(static_cast<int>(p), last, line));
    }
    return changed;
}

QModelIndex PoolsModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount || row >= rowCount(parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, encode(0, 0, 0, 0));
    const quintptr id = parent.internalId();
    const auto parentRow = static_cast<quintptr>(parent.row());
    switch (levelOf(id)) {
    case 0: return createIndex(row, column, encode(1, parentRow, 0, 0));
    case 1: return createIndex(row, column, encode(2, lineOf(id), parentRow, 0));
    default: return createIndex(row, column, encode(3, lineOf(id), poolOf(id), parentRow));
    }
}

QModelIndex PoolsModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    const quintptr id = child.internalId();
    switch (levelOf(id)) {
    case 1: return createIndex(static_cast<int>(lineOf(id)), 0, encode(0, 0, 0, 0));
    case 2: return createIndex(static_cast<int>(poolOf(id)), 0, encode(1, lineOf(id), 0, 0));
    case 3: return createIndex(static_cast<int>(nodeOf(id)), 0, encode(2, lineOf(id), poolOf(id), 0));
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
    switch (levelOf(id)) {
    case 0: return static_cast<int>(m_lines[at(parent.row())].pools.size());
    case 1: return static_cast<int>(m_lines[lineOf(id)].pools[at(parent.row())].nodes.size());
    case 2: return static_cast<int>(m_lines[lineOf(id)].pools[poolOf(id)].nodes[at(parent.row())].workloads.size());
    default: return 0;
    }
}

int PoolsModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

const std::string& PoolsModel::rawName(const QModelIndex& index) const
{
    const quintptr id = index.internalId();
    switch (levelOf(id)) {
    case 0: return m_lines[at(index.row())].name;
    case 1: return m_lines[lineOf(id)].pools[at(index.row())].row.row->name;
    case 2: return m_lines[lineOf(id)].pools[poolOf(id)].nodes[at(index.row())].row.row->node;
    default: return m_lines[lineOf(id)].pools[poolOf(id)].nodes[nodeOf(id)].workloads[at(index.row())].row->name;
    }
}

QString PoolsModel::name(const QModelIndex& index, bool shown) const
{
    const std::string& raw = rawName(index);
    return raw.empty() && shown && levelOf(index.internalId()) == 2 ? tr("Waiting for a place")
                                                                     : QString::fromStdString(raw);
}

std::optional<int> PoolsModel::compareSortKeys(const QModelIndex& left, const QModelIndex& right) const
{
    if (left.column() != Name || right.column() != Name || left.model() != this || right.model() != this)
        return std::nullopt;
    const std::string& a = rawName(left);
    const std::string& b = rawName(right);
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
        // ASCII letters compare case aside, like the proxy's case-insensitive sort; other bytes as they are.
        const auto fold = [](char c) {
            const auto u = static_cast<unsigned char>(c);
            return u >= 'A' && u <= 'Z' ? static_cast<unsigned char>(u + ('a' - 'A')) : u;
        };
        if (fold(a[i]) != fold(b[i]))
            return fold(a[i]) < fold(b[i]) ? -1 : 1;
    }
    return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

PoolsModel::Cells PoolsModel::cells(const QModelIndex& index) const
{
    Cells c;
    const quintptr id = index.internalId();
    switch (levelOf(id)) {
    case 0: {
        const Line& line = m_lines[at(index.row())];
        c.name = line.name;
        c.cpuUsed = c.memoryUsed = c.cpuQuota = c.memoryQuota = c.memBandwidthLimit = c.networkLimit = 0;
        c.acceleratorsUsed = 0.0;
        for (const PoolEntry& entry : line.pools) {
            const PoolRow& pool = *entry.row.row;
            c.workloads += pool.workloads;
            c.cpuRequested += pool.cpuUsedMillis;
            c.cpuUsed += pool.cpuMeasuredMillis;
            c.cpuQuota = addQuota(c.cpuQuota, pool.cpuQuotaMillis);
            c.memoryRequested += pool.memoryUsedMiB;
            c.memoryUsed += pool.memoryMeasuredMiB;
            c.memoryQuota = addQuota(c.memoryQuota, pool.memoryQuotaMiB);
            c.memBandwidth += pool.memBandwidthUsedMBps;
            c.memBandwidthLimit = addQuota(c.memBandwidthLimit, pool.memBandwidthQuotaMBps);
            c.network += pool.netBandwidthUsedMbps;
            c.networkLimit = addQuota(c.networkLimit, pool.netBandwidthQuotaMbps);
            if (pool.netMeasuredMbps >= 0.0)
                c.networkUsed = std::max(c.networkUsed, 0.0) + pool.netMeasuredMbps;
            c.accelerators += pool.accelerators;
            c.acceleratorsUsed += pool.acceleratorsMeasured;
        }
        c.cpuLimit = c.cpuQuota;
        c.memoryLimit = c.memoryQuota;
        break;
    }
    case 1: {
        const PoolRow& pool = *m_lines[lineOf(id)].pools[at(index.row())].row.row;
        c.name = pool.name;
        c.tier = pool.tier;
        c.showTier = true;
        c.workloads = pool.workloads;
        c.cpuRequested = pool.cpuUsedMillis;
        c.cpuUsed = pool.cpuMeasuredMillis;
        c.cpuLimit = c.cpuQuota = pool.cpuQuotaMillis;
        c.memoryRequested = pool.memoryUsedMiB;
        c.memoryUsed = pool.memoryMeasuredMiB;
        c.memoryLimit = c.memoryQuota = pool.memoryQuotaMiB;
        c.memBandwidth = pool.memBandwidthUsedMBps;
        c.memBandwidthLimit = pool.memBandwidthQuotaMBps;
        c.network = pool.netBandwidthUsedMbps;
        c.networkLimit = pool.netBandwidthQuotaMbps;
        c.networkUsed = pool.netMeasuredMbps;
        c.accelerators = pool.accelerators;
        c.acceleratorsUsed = pool.acceleratorsMeasured;
        break;
    }
    case 2: {
        const PoolNodeRow& node = *m_lines[lineOf(id)].pools[poolOf(id)].nodes[at(index.row())].row.row;
        const bool waiting = node.node.empty();
        c.name = node.node;
        c.workloads = node.workloads;
        c.cpuRequested = node.cpuMillis;
        c.memoryRequested = node.memoryMiB;
        c.memBandwidth = node.memBandwidthMBps;
        c.network = node.netBandwidthMbps;
        c.accelerators = node.accelerators;
        if (!waiting) {
            c.cpuUsed = node.cpuUsedMillis;
            c.cpuLimit = node.nodeCpuMillis;
            c.memoryUsed = node.memoryUsedMiB;
            c.memoryLimit = node.nodeMemoryMiB;
            c.acceleratorsUsed = node.acceleratorsUsed;
            c.networkUsed = node.netUsedMbps;
        }
        break;
    }
    default: {
        const WorkloadRow& w = *m_lines[lineOf(id)].pools[poolOf(id)].nodes[nodeOf(id)].workloads[at(index.row())].row;
        c.name = w.name;
        c.tier = w.homeTier;
        c.showTier = true;
        c.workloads = 1;
        c.phase = w.phase;
        c.cpuRequested = w.cpuMillis;
        c.cpuUsed = w.cpuUsedMillis;
        c.memoryRequested = w.memoryMiB;
        c.memoryUsed = w.memoryUsedMiB;
        c.memBandwidth = w.memBandwidthMBps;
        c.network = w.netBandwidthMbps;
        c.accelerators = w.accelerators;
        c.acceleratorsUsed = w.acceleratorsUsed;
        c.networkUsed = w.netUsedMbps;
        // What it uses is measured against what it asked for.
        c.cpuLimit = w.cpuMillis;
        c.memoryLimit = w.memoryMiB;
        break;
    }
    }
    return c;
}

QVariant PoolsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const quintptr level = levelOf(index.internalId());
    const auto column = static_cast<Column>(index.column());
    if (role == Qt::TextAlignmentRole)
        return column >= Workloads ? QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    // Views ask for many roles per cell; only these need the row's figures.
    if (role != Qt::DisplayRole && role != SortRole && role != RawTextRole && role != ShareRole
        && role != Qt::ToolTipRole)
        return {};
    if (role == Qt::ToolTipRole && level == 1 && column == Accelerators)
        return acceleratorQuotaTip(*m_lines[lineOf(index.internalId())].pools[at(index.row())].row.row);
    if (role == Qt::ToolTipRole && level == 1 && column == Workloads)
        return disruptionTip(*m_lines[lineOf(index.internalId())].pools[at(index.row())].row.row);
    if (role == Qt::ToolTipRole && level != 2)
        return {};
    if (column == Name && role != Qt::ToolTipRole && role != ShareRole) // what sorting asks for most: the name alone
        return name(index, role == Qt::DisplayRole);
    const Cells c = cells(index);
    if (role == RawTextRole) {
        if (column == Name)
            return QString::fromStdString(c.name);
        if (column == Tier && c.showTier)
            return QString::fromStdString(c.tier);
        if (column == Workloads && !c.phase.empty())
            return QString::fromStdString(c.phase);
        return {};
    }
    const bool workloadRow = level == 3;
    const bool quotaApplies = level <= 1;
    if (role == ShareRole) {
        switch (column) {
        case CpuUsed: return shareOf(static_cast<double>(c.cpuUsed), static_cast<double>(c.cpuLimit));
        case QuotaUsed:
            return workloadRow ? -1.0 : shareOf(static_cast<double>(c.cpuRequested), static_cast<double>(c.cpuLimit));
        case MemoryRequested:
            return workloadRow ? -1.0
                               : shareOf(static_cast<double>(c.memoryRequested), static_cast<double>(c.memoryLimit));
        case MemoryUsed: return shareOf(static_cast<double>(c.memoryUsed), static_cast<double>(c.memoryLimit));
        case MemBandwidth:
            return shareOf(static_cast<double>(c.memBandwidth), static_cast<double>(c.memBandwidthLimit));
        case Network: return shareOf(static_cast<double>(c.network), static_cast<double>(c.networkLimit));
        case NetworkUsed:
            // A pool's or a line's against its quota; on a node against the pool's guarantee there (what its
            // workloads there asked for, as the agent's class is set), a workload's against its request.
            return shareOf(c.networkUsed, static_cast<double>(level <= 1 ? c.networkLimit : c.network));
        case AcceleratorsUsed: return c.accelerators > 0 ? shareOf(c.acceleratorsUsed, c.accelerators) : -1.0;
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole && level == 2 && c.name.empty())
        return tr("Workloads of this pool waiting for a place");
    const bool sort = role == SortRole;
    if (role != Qt::DisplayRole && !sort)
        return {};
    auto number = [sort](std::int64_t value, QString text) -> QVariant {
        return sort ? QVariant::fromValue<qint64>(value) : QVariant(text);
    };
    // -1 where nothing is measured.
    auto measured = [sort](std::int64_t value, QString (*text)(std::int64_t)) -> QVariant {
        if (sort)
            return QVariant::fromValue<qint64>(value);
        return value < 0 ? QVariant(QStringLiteral("—")) : QVariant(text(value));
    };
    auto quota = [sort, quotaApplies](std::int64_t value, QString (*text)(std::int64_t)) -> QVariant {
        if (!quotaApplies)
            return sort ? QVariant(-2) : QVariant(QString());
        return sort ? QVariant::fromValue<qint64>(value) : QVariant(text(value));
    };
    switch (column) {
    case Name: return c.name.empty() && level == 2 ? tr("Waiting for a place") : QString::fromStdString(c.name);
    case Tier: return c.showTier ? tierLabel(c.tier) : QString();
    case Workloads:
        if (workloadRow)
            return sort ? QVariant(QString::fromStdString(c.phase)) : QVariant(phaseLabel(c.phase));
        return c.workloads;
    case CpuRequested: return number(c.cpuRequested, coresText(c.cpuRequested));
    case CpuUsed: return measured(c.cpuUsed, &coresText);
    case CpuQuota: return quota(c.cpuQuota, &coresText);
    case QuotaUsed: {
        const double s = shareOf(static_cast<double>(c.cpuRequested), static_cast<double>(c.cpuLimit));
        if (sort)
            return s;
        return workloadRow || c.cpuLimit <= 0 ? QString() : percentText(s);
    }
    case MemoryRequested:
        return sort ? QVariant::fromValue<qint64>(c.memoryRequested)
                    : QVariant(workloadRow ? memoryText(c.memoryRequested)
                                           : ofLimit(memoryText(c.memoryRequested), c.memoryLimit, &memoryText));
    case MemoryUsed: return measured(c.memoryUsed, &memoryText);
    case MemoryQuota: return quota(c.memoryQuota, &memoryText);
    case MemBandwidth:
        return number(
            c.memBandwidth, ofLimit(memoryBandwidthText(c.memBandwidth), c.memBandwidthLimit, &memoryBandwidthText));
    case Network: return number(c.network, ofLimit(bandwidthText(c.network), c.networkLimit, &bandwidthText));
    case NetworkUsed: return sort ? QVariant(c.networkUsed) : QVariant(measuredBandwidthText(c.networkUsed));
    case Accelerators: return sort ? QVariant(c.accelerators) : QVariant(devicesText(c.accelerators));
    case AcceleratorsUsed:
        return sort
            ? QVariant(c.acceleratorsUsed)
            : QVariant(c.accelerators > 0 || c.acceleratorsUsed > 0 ? devicesText(c.acceleratorsUsed) : QString());
    case ColumnCount: break;
    }
    return {};
}

// "Disruption budget: at most 2 of its workloads moved...": the pool's budget and what it lets move now.
QString PoolsModel::disruptionTip(const PoolRow& pool)
{
    if (pool.maxDisrupted < 0)
        return tr("No disruption budget: drains and approved migrations move any number of its workloads at once.");
    if (pool.maxDisrupted == 0 && pool.maxDisruptedPercent <= 0)
        return tr("Disruption budget 0: drains and approved migrations move none of its workloads (a drain's deadline "
                  "still does).");
    if (pool.maxDisruptedPercent >= 0)
        return tr("Disruption budget: %1% of its workloads, rounded up; at most %n of them moved by drains and "
                  "approved migrations at once now, until each runs again (%2 moving now).",
            nullptr, static_cast<int>(std::min<std::int64_t>(pool.maxDisrupted, 1'000'000)))
            .arg(pool.maxDisruptedPercent)
            .arg(pool.disrupted);
    return tr("Disruption budget: at most %n of its workloads moved by drains and approved migrations at once, "
              "until each runs again (%1 moving now).",
        nullptr, static_cast<int>(std::min<std::int64_t>(pool.maxDisrupted, 1'000'000)))
        .arg(pool.disrupted);
}

QString PoolsModel::acceleratorQuotaTip(const PoolRow& pool)
{
    static const char* const kinds[] = { "gpu", "npu", "fpga" };
    QStringList parts;
    for (std::size_t k = 0; k < pool.acceleratorQuotaShare.size(); ++k)
        if (pool.acceleratorQuotaShare[k] >= 0)
            parts << tr("%1 %2 of %3 share units")
                         .arg(QString::fromLatin1(kinds[k]))
                         .arg(pool.acceleratorUsedShare[k])
                         .arg(pool.acceleratorQuotaShare[k]);
    return parts.isEmpty() ? QString() : tr("Accelerator quota: %1").arg(parts.join(QStringLiteral(", ")));
}

QVariant PoolsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == ColumnKeyRole)
        return QString::fromLatin1(kKeys[section]);
    const auto column = static_cast<Column>(section);
    if (role == Qt::ToolTipRole) {
        switch (column) {
        case CpuUsed:
        case MemoryUsed:
        case AcceleratorsUsed:
            return tr("As measured by the nodes' agents: a workload's own use where its agent measures it, else its "
                      "pool's use on its node (or the node's) split among the workloads there by their requests. The "
                      "bar: against the quota (a pool), the node's capacity (a node) or the request (a workload).");
        case QuotaUsed: return tr("CPU requested against the pool's quota; on a node row, against the node's CPU.");
        case MemBandwidth: return tr("Requested against the pool's quota; agents do not measure memory bandwidth.");
        case Network: return tr("Requested against the pool's quota.");
        case NetworkUsed:
            return tr("As measured: what each pool's traffic class sent, on the nodes whose agent shapes its link, "
                      "split among its workloads there by their requests; — where none does. The bar: against the "
                      "quota (a pool), the pool's guarantee on the node (a node) or the request (a workload).");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case Name: return tr("Business line / pool / node / workload");
    case Tier: return tr("Tier");
    case Workloads: return tr("Workloads");
    case CpuRequested: return tr("CPU requested");
    case CpuUsed: return tr("CPU used");
    case CpuQuota: return tr("CPU quota");
    case QuotaUsed: return tr("Quota used");
    case MemoryRequested: return tr("Memory requested");
    case MemoryUsed: return tr("Memory used");
    case MemoryQuota: return tr("Memory quota");
    case MemBandwidth: return tr("Memory bandwidth requested");
    case Network: return tr("Network requested");
    case NetworkUsed: return tr("Network used");
    case Accelerators: return tr("Accelerators requested");
    case AcceleratorsUsed: return tr("Accelerators used");
    case ColumnCount: break;
    }
    return {};
}

Qt::ItemFlags PoolsModel::flags(const QModelIndex& index) const
{
    const Qt::ItemFlags base = QAbstractItemModel::flags(index);
    if (!index.isValid())
        return base;
    switch (levelOf(index.internalId())) {
    case 1: // a pool
    case 2: return base | Qt::ItemIsDropEnabled; // a node of a pool
    case 3: return base | Qt::ItemIsDragEnabled | Qt::ItemIsDropEnabled; // a workload: its node
    default: return base; // a business line: no one place to move to
    }
}

QStringList PoolsModel::mimeTypes() const
{
    return { kWorkloadMimeType };
}

const WorkloadRow* PoolsModel::workloadAt(const QModelIndex& index) const
{
    if (!index.isValid() || index.model() != this || levelOf(index.internalId()) != 3)
        return nullptr;
    const quintptr id = index.internalId();
    return m_lines[lineOf(id)].pools[poolOf(id)].nodes[nodeOf(id)].workloads[at(index.row())].row;
}

QMimeData* PoolsModel::mimeData(const QModelIndexList& indexes) const
{
    // A selected row comes once per column: each workload once.
    std::vector<const WorkloadRow*> rows;
    std::set<std::int64_t> seen;
    for (const QModelIndex& index : indexes)
        if (const WorkloadRow* w = workloadAt(index); w && seen.insert(w->id).second)
            rows.push_back(w);
    return encodeWorkloads(rows);
}

const PoolRow* PoolsModel::poolAt(const QModelIndex& index) const
{
    if (!index.isValid() || index.model() != this)
        return nullptr;
    const quintptr id = index.internalId();
    switch (levelOf(id)) {
    case 0: {
        const Line& line = m_lines[at(index.row())];
        return line.pools.size() == 1 ? line.pools.front().row.row : nullptr;
    }
    case 1: return m_lines[lineOf(id)].pools[at(index.row())].row.row;
    default: return m_lines[lineOf(id)].pools[poolOf(id)].row.row;
    }
}

PoolsModel::Target PoolsModel::targetOf(const QModelIndex& parent) const
{
    if (!parent.isValid() || parent.model() != this)
        return {};
    const quintptr id = parent.internalId();
    switch (levelOf(id)) {
    case 1: return Target { m_lines[lineOf(id)].pools[at(parent.row())].row.row->name, {}, true };
    case 2: {
        const PoolEntry& pool = m_lines[lineOf(id)].pools[poolOf(id)];
        // The waiting row's node is "": the pool itself.
        return Target { pool.row.row->name, pool.nodes[at(parent.row())].row.row->node, true };
    }
    case 3: {
        const PoolEntry& pool = m_lines[lineOf(id)].pools[poolOf(id)];
        return Target { pool.row.row->name, pool.nodes[nodeOf(id)].row.row->node, true };
    }
    default: return {};
    }
}

std::vector<DraggedWorkload> PoolsModel::movable(const std::vector<DraggedWorkload>& dragged, const Target& target)
{
    std::vector<DraggedWorkload> out;
    if (!target.valid)
        return out;
    for (const DraggedWorkload& d : dragged) {
        // In that pool already, and (a node named) on that node: nowhere to go.
        const bool there = d.pool == target.pool && (target.node.empty() || d.node == target.node);
        if (!there)
            out.push_back(d);
    }
    return out;
}

bool PoolsModel::canDropMimeData(
    const QMimeData* data, Qt::DropAction action, int, int, const QModelIndex& parent) const
{
    return action == Qt::MoveAction && !movable(decodeWorkloads(data), targetOf(parent)).empty();
}

bool PoolsModel::dropMimeData(
    const QMimeData* data, Qt::DropAction action, int row, int column, const QModelIndex& parent)
{
    if (!canDropMimeData(data, action, row, column, parent))
        return false;
    const Target target = targetOf(parent);
    for (const DraggedWorkload& d : movable(decodeWorkloads(data), target))
        Q_EMIT moveRequested(d.id, QString::fromStdString(target.pool), QString::fromStdString(target.node));
    // Nothing moves here: the core decides, and the next snapshot shows where the workload went.
    return true;
}

Qt::DropActions PoolsModel::supportedDragActions() const
{
    return Qt::MoveAction;
}

Qt::DropActions PoolsModel::supportedDropActions() const
{
    return Qt::MoveAction;
}

} // namespace tidepool::ui
