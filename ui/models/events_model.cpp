#include "ui/models/events_model.h"

#include "ui/labels.h"
#include "ui/models/roles.h"
#include "ui/view_labels.h"

namespace tidepool::ui {

namespace {

constexpr const char* kKeys[EventsModel::ColumnCount]
    = { "time", "kind", "subject", "change", "node", "actor", "detail" };

// The core's names in an event's from/to, translated by what kind of event it is.
QString stateText(const EventRow& row, const std::string& name)
{
    if (name.empty())
        return QString();
    if (row.category == "node")
        return nodeStateLabel(name);
    if (row.category == "proposal")
        return proposalStateLabel(name);
    if (row.category == "approval" || row.category == "audit" || row.category == "cordon" || row.category == "drain")
        return QString::fromStdString(name);
    return phaseLabel(name);
}

} // namespace

EventsModel::EventsModel(QObject* parent)
    : KeyedTableModel<EventModelRow>(parent)
{
}

void EventsModel::setSnapshot(const SnapshotPtr& snapshot)
{
    std::vector<EventModelRow> rows;
    if (snapshot) {
        rows.reserve(snapshot->events.size());
        for (const EventRowPtr& e : snapshot->events)
            if (e)
                rows.push_back(EventModelRow { e });
    }
    update(std::move(rows), [](const EventModelRow& row) { return row.event->sequence; });
}

int EventsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString EventsModel::changeText(const EventRow& row)
{
    if (row.category == "approval" || row.category == "audit") {
        // from: the action ("proposal.approve"), to: its outcome ("ok" or the refusal).
        const QString action = row.from == "proposal.approve" ? tr("approved")
            : row.from == "proposal.reject"                   ? tr("rejected")
                                                              : QString::fromStdString(row.from);
        return row.to == "ok" || row.to.empty() ? action
                                                : tr("%1: refused (%2)").arg(action, QString::fromStdString(row.to));
    }
    if (row.category == "cordon")
        return row.to.empty() ? tr("cordon lifted") : tr("cordoned: %1").arg(QString::fromStdString(row.to));
    if (row.category == "drain") // its detail says what of the drain
        return tr("draining (cordoned: %1)").arg(QString::fromStdString(row.to));
    if (row.from.empty())
        return stateText(row, row.to);
    return tr("%1 → %2").arg(stateText(row, row.from), stateText(row, row.to));
}

QVariant EventsModel::data(const QModelIndex& index, int role) const
{
    const EventModelRow* wrapped = rowAt(index.row());
    if (!wrapped || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    const EventRow& row = *wrapped->event;
    if (role == IdRole)
        return QVariant::fromValue<qulonglong>(row.sequence);
    const auto column = static_cast<Column>(index.column());
    if (role == RawTextRole) {
        switch (column) {
        case Kind: return QString::fromStdString(row.category);
        case Change: return QString::fromStdString(row.from + ' ' + row.to);
        case Subject: return QString::fromStdString(row.subject);
        case Node: return QString::fromStdString(row.node);
        case Actor: return QString::fromStdString(row.actor);
        default: return {};
        }
    }
    if (role == SortRole) {
        switch (column) {
        // Equal times keep the order they happened in.
        case Time: return QVariant::fromValue<qint64>(row.atMs * 4096 + static_cast<qint64>(row.sequence % 4096));
        case Kind: return QString::fromStdString(row.category);
        default: break;
        }
    }
    if (role == Qt::ToolTipRole && column == Detail && !row.detail.empty())
        return reasonText(row.detailWhy, row.detail);
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    switch (column) {
    case Time: return timeText(row.atMs);
    case Kind: return eventCategoryLabel(row.category);
    case Subject: return QString::fromStdString(row.subject);
    case Change: return changeText(row);
    case Node: return QString::fromStdString(row.node);
    case Actor: return QString::fromStdString(row.actor);
    case Detail: return reasonText(row.detailWhy, row.detail);
    case ColumnCount: break;
    }
    return {};
}

QVariant EventsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == ColumnKeyRole)
        return QString::fromLatin1(kKeys[section]);
    if (role != Qt::DisplayRole)
        return {};
    switch (static_cast<Column>(section)) {
    case Time: return tr("Time");
    case Kind: return tr("Kind");
    case Subject: return tr("Subject");
    case Change: return tr("Change");
    case Node: return tr("Node");
    case Actor: return tr("By");
    case Detail: return tr("Detail");
    case ColumnCount: break;
    }
    return {};
}

} // namespace tidepool::ui
