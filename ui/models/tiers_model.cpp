#include "ui/models/tiers_model.h"

#include "ui/labels.h"
#include "ui/models/roles.h"

#include <QMimeData>

#include <algorithm>

namespace tidepool::ui {

namespace {

// An index's internal id says where its row sits: level 0 a tier, 1 a group of tier `tier`, 2 a card of group
// `group` of tier `tier` — in its high 40 bits. Its low 24 bits scatter those: Qt keeps persistent indexes in a hash
// table that takes `16 × row + column + internal id` as the hash and its low bits as the slot, so ids that differ only
// in small numbers pile the expanded rows of a large tree into one run of slots, and every lookup walks it.
static_assert(sizeof(quintptr) == 8, "internal ids hold 64 bits");
constexpr quintptr scatter(quintptr where)
{
    return (where * 0x9E3779B97F4A7C15ull) >> 40;
}
constexpr quintptr encode(quintptr level, quintptr tier, quintptr group)
{
    const quintptr where = level << 62 | tier << 54 | group << 24;
    return where | scatter(where);
}
constexpr quintptr levelOf(quintptr id)
{
    return id >> 62;
}
constexpr quintptr tierOf(quintptr id)
{
    return (id >> 54) & 0xff;
}
constexpr quintptr groupOf(quintptr id)
{
    return (id >> 24) & 0x3fffffff;
}

const NodeRow kNoNode; // the waiting group's

std::size_t at(int row)
{
    return static_cast<std::size_t>(row);
}

constexpr const char* kTiers[] = { "hot", "warm", "cold" };

QString acceleratorsText(double devices, const std::string& kind)
{
    return TiersModel::tr("%1 %2").arg(devices, 0, 'f', devices < 1.0 ? 2 : 1).arg(acceleratorLabel(kind));
}

// "2.0 cores · 4.0 GiB · 0.50 GPU".
QString resourcesText(const WorkloadRow& w)
{
    QStringList parts { coresText(w.cpuMillis), memoryText(w.memoryMiB) };
    if (!w.acceleratorKind.empty())
        parts << acceleratorsText(w.accelerators > 0 ? w.accelerators : 0.0, w.acceleratorKind);
    return parts.join(QStringLiteral(" · "));
}

// "90 s", "30 min", "5 h", "3 d": a span in its largest sensible unit.
QString spanText(std::int64_t ms)
{
    const std::int64_t s = ms / 1000;
    if (s < 120)
        return TiersModel::tr("%1 s").arg(s);
    if (s < 120 * 60)
        return TiersModel::tr("%1 min").arg(s / 60);
    if (s < 48 * 3600)
        return TiersModel::tr("%1 h").arg(s / 3600);
    return TiersModel::tr("%1 d").arg(s / 86400);
}

// What it was submitted with beyond its requests: its own limits, its restart policy, its maximum runtime.
QStringList termsText(const WorkloadRow& w)
{
    QStringList lines;
    QStringList limits;
    if (w.cpuLimitMillis > 0)
        limits << TiersModel::tr("CPU %1").arg(coresText(w.cpuLimitMillis));
    if (w.memoryLimitMiB > 0)
        limits << TiersModel::tr("memory %1").arg(memoryText(w.memoryLimitMiB));
    if (!limits.isEmpty())
        lines << TiersModel::tr("Its own limits: %1").arg(limits.join(QStringLiteral(", ")));
    if (w.restart == "on-failure" || w.restart == "always") {
        const QString policy
            = w.restart == "always" ? TiersModel::tr("whenever it ends") : TiersModel::tr("when it fails");
        lines << (w.maxRestarts >= 0
                ? TiersModel::tr("Restarted %1, at most %n time(s)", nullptr, w.maxRestarts).arg(policy)
                : TiersModel::tr("Restarted %1").arg(policy));
    }
    if (w.maxRuntimeMs > 0)
        lines << TiersModel::tr("Stopped after running %1").arg(spanText(w.maxRuntimeMs));
    return lines;
}

} // namespace

TiersModel::TiersModel(QObject* parent)
    : QAbstractItemModel(parent)
{
}

std::vector<TiersModel::Column> TiersModel::group(const SnapshotPtr& snapshot) const
{
    std::vector<Column> columns;
    for (const char* tier : kTiers)
        columns.push_back(Column { tier, {} });
    if (!snapshot)
        return columns;
    auto columnOf = [&columns](const std::string& tier) -> Column* {
        for (Column& c : columns)
            if (c.tier == tier)
                return &c;
        return nullptr;
    };
    for (const NodeRow& node : snapshot->nodes)
        if (Column* c = columnOf(node.tier))
            c->groups.push_back(Group { node.name, { &node }, {} });
    // Node ids are dense: where each node's group sits, once the groups are sorted by name.
    std::vector<std::pair<Column*, std::size_t>> groupOfNode;
    for (Column& c : columns) {
        std::sort(c.groups.begin(), c.groups.end(), [](const Group& a, const Group& b) { return a.key < b.key; });
        for (std::size_t g = 0; g < c.groups.size(); ++g) {
            const auto id = static_cast<std::size_t>(std::max(0, c.groups[g].node.row->id));
            if (groupOfNode.size() <= id)
                groupOfNode.resize(id + 1, { nullptr, 0 });
            groupOfNode[id] = { &c, g };
        }
    }
    std::vector<std::vector<Card>> waiting(columns.size());
    for (const WorkloadRow& w : snapshot->workloads) {
        if (w.nodeId < 0) {
            if (Column* c = columnOf(w.tier))
                waiting[static_cast<std::size_t>(c - columns.data())].push_back(Card { &w });
            continue;
        }
        const auto id = static_cast<std::size_t>(w.nodeId);
        if (id < groupOfNode.size() && groupOfNode[id].first)
            groupOfNode[id].first->groups[groupOfNode[id].second].cards.push_back(Card { &w });
    }
    // The waiting group sorts first (its key is empty).
    for (std::size_t c = 0; c < columns.size(); ++c)
        if (!waiting[c].empty())
            columns[c].groups.insert(columns[c].groups.begin(), Group { {}, { &kNoNode }, std::move(waiting[c]) });
    return columns;
}

void TiersModel::setSnapshot(const SnapshotPtr& snapshot)
{
    std::vector<Column> next = group(snapshot);
    // The shown cards point into the previous snapshot until the diff has moved them to the next one.
    const SnapshotPtr previous = std::exchange(m_snapshot, snapshot);
    if (m_columns.empty()) {
        beginResetModel();
        m_columns = std::move(next);
        endResetModel();
        return;
    }
    const auto cardKey = [](const Card& c) { return c.row->id; };
    const auto groupKey = [](const Group& g) -> const std::string& { return g.key; };
    std::size_t runs = 0;
    for (std::size_t t = 0; t < m_columns.size() && runs <= kIncrementalRunsUpTo; ++t)
        runs += groupedRuns(
            m_columns[t].groups, next[t].groups, groupKey,
            [&cardKey](const Group& shown, const Group& nextGroup, std::size_t limit) {
                return insertRemoveRuns(shown.cards, nextGroup.cards, cardKey, limit);
            },
            kIncrementalRunsUpTo - runs);
    if (runs > kIncrementalRunsUpTo) {
        relayout(std::move(next));
        Q_EMIT dataChanged(index(0, 0), index(static_cast<int>(m_columns.size()) - 1, 0)); // the tiers' counts
        return;
    }
    for (std::size_t t = 0; t < m_columns.size(); ++t) {
        const QModelIndex tier = index(static_cast<int>(t), 0);
        const auto sync = [this, &tier, &cardKey](int row, Group& shown, const Group& nextGroup) {
            const QModelIndex parent = index(row, 0, tier);
            const RowHooks hooks {
                [this, &parent](int first, int last) { beginRemoveRows(parent, first, last); },
                [this](int, int) { endRemoveRows(); },
                [this, &parent](int first, int last) { beginInsertRows(parent, first, last); },
                [this](int, int) { endInsertRows(); },
                [this, &parent](
                    int first, int last) { Q_EMIT dataChanged(index(first, 0, parent), index(last, 0, parent)); },
            };
            diffRows(shown.cards, nextGroup.cards, cardKey, hooks);
            shown.cards = nextGroup.cards; // the same rows, now in the next snapshot
        };
        const RowHooks hooks {
            [this, &tier](int first, int last) { beginRemoveRows(tier, first, last); },
            [this](int, int) { endRemoveRows(); },
            [this, &tier](int first, int last) { beginInsertRows(tier, first, last); },
            [this](int, int) { endInsertRows(); },
            [this, &tier](int first, int last) { Q_EMIT dataChanged(index(first, 0, tier), index(last, 0, tier)); },
        };
        std::vector<SnapshotRef<NodeRow>> nodes; // the next rows, for the groups that stay equal
        nodes.reserve(next[t].groups.size());
        for (const Group& g : next[t].groups)
            nodes.push_back(g.node);
        diffGroups(m_columns[t].groups, std::move(next[t].groups), groupKey, sync, hooks);
        for (std::size_t g = 0; g < nodes.size(); ++g)
            m_columns[t].groups[g].node = nodes[g]; // the same keys, in the same order
    }
    // The tiers' counts.
    Q_EMIT dataChanged(index(0, 0), index(static_cast<int>(m_columns.size()) - 1, 0));
}

void TiersModel::relayout(std::vector<Column> next)
{
    Q_EMIT layoutAboutToBeChanged();
    const QModelIndexList from = persistentIndexList();
    // The tiers stay where they are; groups move by node name, cards by workload id.
    struct Where {
        std::string group;
        qint64 card = 0;
    };
    std::vector<Where> where(static_cast<std::size_t>(from.size()));
    for (qsizetype i = 0; i < from.size(); ++i) {
        const quintptr id = from[i].internalId();
        Where& w = where[static_cast<std::size_t>(i)];
        if (levelOf(id) == GroupLevel) {
            w.group = m_columns[tierOf(id)].groups[at(from[i].row())].key;
        } else if (levelOf(id) == CardLevel) {
            const Group& g = m_columns[tierOf(id)].groups[groupOf(id)];
            w.group = g.key;
            w.card = g.cards[at(from[i].row())].row->id;
        }
    }
    m_columns = std::move(next);
    const auto groupKey = [](const Group& g) -> const std::string& { return g.key; };
    const auto cardKey = [](const Card& c) -> qint64 { return c.row->id; };
    QModelIndexList to;
    to.reserve(from.size());
    for (qsizetype i = 0; i < from.size(); ++i) {
        const quintptr id = from[i].internalId();
        const Where& w = where[static_cast<std::size_t>(i)];
        if (levelOf(id) == TierLevel) {
            to.push_back(createIndex(from[i].row(), from[i].column(), id));
            continue;
        }
        const auto& groups = m_columns[tierOf(id)].groups;
        const int g = rowOfKey(groups, groupKey, w.group);
        if (g < 0) {
            to.push_back({});
        } else if (levelOf(id) == GroupLevel) {
            to.push_back(createIndex(g, from[i].column(), encode(1, tierOf(id), 0)));
        } else {
            const int card = rowOfKey(groups[at(g)].cards, cardKey, w.card);
            to.push_back(card < 0 ? QModelIndex()
                                  : createIndex(card, from[i].column(),
                                      encode(2, tierOf(id), static_cast<quintptr>(g))));
        }
    }
    changePersistentIndexList(from, to);
    Q_EMIT layoutChanged();
}

void TiersModel::setNote(qint64 workloadId, const QString& note, NoteState state)
{
    if (state == NoteState::None)
        m_notes.erase(workloadId);
    else
        m_notes[workloadId] = { note, state };
    constexpr std::size_t kMaxNotes = 1000;
    while (m_notes.size() > kMaxNotes)
        m_notes.erase(m_notes.begin());
    const QModelIndex card = cardIndex(workloadId);
    if (card.isValid())
        Q_EMIT dataChanged(card, card);
}

QModelIndex TiersModel::tierIndex(const QString& tier) const
{
    for (std::size_t t = 0; t < m_columns.size(); ++t)
        if (QString::fromStdString(m_columns[t].tier) == tier)
            return index(static_cast<int>(t), 0);
    return {};
}

QModelIndex TiersModel::nodeIndex(const QString& node) const
{
    const std::string key = node.toStdString();
    for (std::size_t t = 0; t < m_columns.size(); ++t) {
        const auto& groups = m_columns[t].groups;
        const auto it = std::lower_bound(
            groups.begin(), groups.end(), key, [](const Group& g, const std::string& k) { return g.key < k; });
        if (!key.empty() && it != groups.end() && it->key == key)
            return index(static_cast<int>(it - groups.begin()), 0, index(static_cast<int>(t), 0));
    }
    return {};
}

QModelIndex TiersModel::cardIndex(qint64 workloadId) const
{
    for (std::size_t t = 0; t < m_columns.size(); ++t)
        for (std::size_t g = 0; g < m_columns[t].groups.size(); ++g) {
            const auto& cards = m_columns[t].groups[g].cards;
            const auto it = std::lower_bound(
                cards.begin(), cards.end(), workloadId, [](const Card& c, qint64 id) { return c.row->id < id; });
            if (it != cards.end() && it->row->id == workloadId)
                return createIndex(static_cast<int>(it - cards.begin()), 0, encode(2, t, g));
        }
    return {};
}

int TiersModel::cardCount(const QModelIndex& tier) const
{
    if (!tier.isValid() || levelOf(tier.internalId()) != TierLevel)
        return 0;
    int n = 0;
    for (const Group& g : m_columns[at(tier.row())].groups)
        n += static_cast<int>(g.cards.size());
    return n;
}

QModelIndex TiersModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column != 0 || row >= rowCount(parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, encode(0, 0, 0));
    const quintptr id = parent.internalId();
    if (levelOf(id) == TierLevel)
        return createIndex(row, column, encode(1, static_cast<quintptr>(parent.row()), 0));
    return createIndex(row, column, encode(2, tierOf(id), static_cast<quintptr>(parent.row())));
}

QModelIndex TiersModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    const quintptr id = child.internalId();
    switch (levelOf(id)) {
    case GroupLevel: return createIndex(static_cast<int>(tierOf(id)), 0, encode(0, 0, 0));
    case CardLevel: return createIndex(static_cast<int>(groupOf(id)), 0, encode(1, tierOf(id), 0));
    default: return {};
    }
}

int TiersModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_columns.size());
    if (parent.column() != 0)
        return 0;
    const quintptr id = parent.internalId();
    if (levelOf(id) == TierLevel)
        return static_cast<int>(m_columns[at(parent.row())].groups.size());
    if (levelOf(id) == GroupLevel)
        return static_cast<int>(m_columns[tierOf(id)].groups[at(parent.row())].cards.size());
    return 0;
}

int TiersModel::columnCount(const QModelIndex&) const
{
    return 1;
}

const TiersModel::Group* TiersModel::groupAt(const QModelIndex& index) const
{
    if (!index.isValid())
        return nullptr;
    const quintptr id = index.internalId();
    if (levelOf(id) == GroupLevel)
        return &m_columns[tierOf(id)].groups[at(index.row())];
    if (levelOf(id) == CardLevel)
        return &m_columns[tierOf(id)].groups[groupOf(id)];
    return nullptr;
}

const WorkloadRow* TiersModel::cardAt(const QModelIndex& index) const
{
    if (!index.isValid() || levelOf(index.internalId()) != CardLevel)
        return nullptr;
    return groupAt(index)->cards[at(index.row())].row;
}

QVariant TiersModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const quintptr id = index.internalId();
    const auto level = static_cast<Level>(levelOf(id));
    if (role == LevelRole)
        return static_cast<int>(level);
    const std::string& tier = m_columns[level == TierLevel ? at(index.row()) : tierOf(id)].tier;
    if (role == TierRole)
        return QString::fromStdString(tier);
    if (level == TierLevel) {
        const Column& column = m_columns[at(index.row())];
        switch (role) {
        case Qt::DisplayRole: return tierLabel(tier);
        case RawTextRole: return QString::fromStdString(tier);
        case SubtitleRole: {
            int nodes = 0;
            for (const Group& g : column.groups)
                nodes += g.key.empty() ? 0 : 1;
            return tr("%1 nodes, %2 workloads").arg(nodes).arg(cardCount(index));
        }
        default: return {};
        }
    }
    if (level == GroupLevel) {
        const Group& g = *groupAt(index);
        const bool waiting = g.key.empty();
        switch (role) {
        case Qt::DisplayRole: return waiting ? tr("Waiting for a place") : QString::fromStdString(g.key);
        case NodeRole: return QString::fromStdString(g.key);
        case RawTextRole: return QString::fromStdString(g.key);
        case SubtitleRole: {
            if (waiting)
                return tr("%1 workloads; drop one on a node to place it there").arg(g.cards.size());
            const NodeRow& n = *g.node.row;
            const double allocated
                = n.cpuMillis > 0 ? static_cast<double>(n.cpuAllocatedMillis) / static_cast<double>(n.cpuMillis) : -1.0;
            QString text = tr("%1 · %2, %3 allocated · %4 workloads")
                               .arg(isaLabel(n.isa), coresText(n.cpuMillis), percentText(allocated))
                               .arg(g.cards.size());
            if (n.accelerators > 0)
                text += QStringLiteral(" · ")
                    + tr("%1 × %2").arg(n.accelerators).arg(acceleratorLabel(n.acceleratorKind));
            return text;
        }
        case Qt::ToolTipRole: {
            if (waiting)
                return tr("Workloads whose latency class belongs on this tier and that wait for a place");
            QString tip = tr("Node %1: %2").arg(QString::fromStdString(g.key), nodeStateLabel(g.node.row->state));
            if (!g.node.row->cordon.empty())
                tip += QLatin1Char('\n') + tr("Cordoned: %1").arg(QString::fromStdString(g.node.row->cordon));
            return tip;
        }
        default: return {};
        }
    }
    const WorkloadRow& w = *cardAt(index);
    const auto note = m_notes.find(w.id);
    switch (role) {
    case Qt::DisplayRole: return QString::fromStdString(w.name);
    case RawTextRole: return QString::fromStdString(w.name);
    case IdRole:
    case WorkloadIdRole: return QVariant::fromValue<qint64>(w.id);
    case PhaseRole: return QString::fromStdString(w.phase);
    case NodeRole: return QString::fromStdString(w.node);
    case SubtitleRole: {
        const QString subtitle
            = tr("%1 · %2 · %3").arg(QString::fromStdString(w.pool), resourcesText(w), phaseLabel(w.phase));
        return w.restarts > 0 ? subtitle + QStringLiteral(" · ") + tr("restarted %n time(s)", nullptr, w.restarts)
                              : subtitle;
    }
    case NoteRole: return note == m_notes.end() ? QString() : note->second.first;
    case NoteStateRole: return static_cast<int>(note == m_notes.end() ? NoteState::None : note->second.second);
    case Qt::ToolTipRole: {
        QString tip = tr("%1 (workload %2), pool %3, %4")
                          .arg(QString::fromStdString(w.name))
                          .arg(w.id)
                          .arg(QString::fromStdString(w.pool), phaseLabel(w.phase));
        tip += QLatin1Char('\n')
            + (w.node.empty() ? tr("Waiting for a place on the %1 tier").arg(tierLabel(w.tier))
                              : tr("On node %1 (%2 tier)").arg(QString::fromStdString(w.node), tierLabel(w.tier)));
        tip += QLatin1Char('\n') + tr("Requests: %1").arg(resourcesText(w));
        if (const QString used = measuredUseText(w, m_snapshot ? m_snapshot->nowMs : 0); !used.isEmpty())
            tip += QLatin1Char('\n') + used;
        for (const QString& line : termsText(w))
            tip += QLatin1Char('\n') + line;
        if (w.restarts > 0)
            tip += QLatin1Char('\n') + tr("Restarted %n time(s) by its restart policy", nullptr, w.restarts);
        if (!w.detail.empty())
            tip += QLatin1Char('\n') + tr("Core: %1").arg(QString::fromStdString(w.detail));
        if (note != m_notes.end())
            tip += QLatin1Char('\n') + note->second.first;
        return tip;
    }
    default: return {};
    }
}

Qt::ItemFlags TiersModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    const Qt::ItemFlags base = Qt::ItemIsEnabled | Qt::ItemIsDropEnabled;
    if (levelOf(index.internalId()) == CardLevel)
        return base | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled;
    return base;
}

QStringList TiersModel::mimeTypes() const
{
    return { kMimeType };
}

QMimeData* TiersModel::mimeData(const QModelIndexList& indexes) const
{
    std::vector<const WorkloadRow*> cards;
    cards.reserve(static_cast<std::size_t>(indexes.size()));
    for (const QModelIndex& index : indexes)
        cards.push_back(cardAt(index));
    return encodeWorkloads(cards);
}

TiersModel::Target TiersModel::targetOf(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return {};
    const quintptr id = parent.internalId();
    if (levelOf(id) == TierLevel)
        return Target { {}, m_columns[at(parent.row())].tier, true };
    const Group* g = groupAt(parent);
    return Target { g->key, m_columns[tierOf(id)].tier, true };
}

std::vector<DraggedWorkload> TiersModel::movable(const std::vector<DraggedWorkload>& dragged, const Target& target)
{
    std::vector<DraggedWorkload> out;
    if (!target.valid)
        return out;
    for (const DraggedWorkload& d : dragged) {
        const bool there = target.node.empty() ? (!d.node.empty() && d.tier == target.tier) : d.node == target.node;
        if (!there)
            out.push_back(d);
    }
    return out;
}

bool TiersModel::canDropMimeData(
    const QMimeData* data, Qt::DropAction action, int, int, const QModelIndex& parent) const
{
    return action == Qt::MoveAction && !movable(decodeWorkloads(data), targetOf(parent)).empty();
}

bool TiersModel::dropMimeData(
    const QMimeData* data, Qt::DropAction action, int row, int column, const QModelIndex& parent)
{
    if (!canDropMimeData(data, action, row, column, parent))
        return false;
    const Target target = targetOf(parent);
    for (const DraggedWorkload& d : movable(decodeWorkloads(data), target)) {
        setNote(d.id, tr("Moving…"), NoteState::Moving);
        Q_EMIT moveRequested(d.id, QString::fromStdString(target.node), QString::fromStdString(target.tier));
    }
    // Nothing moves here: the core decides, and the next snapshot shows where the workload went.
    return true;
}

Qt::DropActions TiersModel::supportedDragActions() const
{
    return Qt::MoveAction;
}

Qt::DropActions TiersModel::supportedDropActions() const
{
    return Qt::MoveAction;
}

} // namespace tidepool::ui
