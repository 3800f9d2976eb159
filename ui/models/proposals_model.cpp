#include "ui/models/proposals_model.h"

#include "ui/labels.h"
#include "ui/models/roles.h"

#include <QStringList>

#include <algorithm>

namespace tidepool::ui {

namespace {
constexpr const char* kKeys[ProposalsModel::ColumnCount]
    = { "id", "kind", "state", "risk", "subject", "reason", "effect", "expires", "decided-by" };
} // namespace

ProposalsModel::ProposalsModel(QObject* parent)
    : KeyedTableModel<ProposalRow>(parent)
{
}

void ProposalsModel::setSnapshot(const SnapshotPtr& snapshot)
{
    update(snapshot ? snapshot->proposals : std::vector<ProposalRow> {}, [](const ProposalRow& row) { return row.id; });
}

int ProposalsModel::rowOf(std::int64_t id) const
{
    const auto it = std::lower_bound(
        m_rows.begin(), m_rows.end(), id, [](const ProposalRow& row, std::int64_t key) { return row.id < key; });
    return it != m_rows.end() && it->id == id ? static_cast<int>(it - m_rows.begin()) : -1;
}

int ProposalsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ProposalsModel::effectText(const ProposalRow& row)
{
    QStringList parts;
    if (row.utilisationBefore != 0.0 || row.utilisationAfter != 0.0)
        parts << tr("utilisation %1 → %2").arg(percentText(row.utilisationBefore), percentText(row.utilisationAfter));
    if (row.gpusFreed != 0.0)
        parts << tr("%1 GPUs freed").arg(row.gpusFreed, 0, 'f', 1);
    if (row.wattsSaved > 0.0)
        parts << tr("%1 W saved").arg(row.wattsSaved, 0, 'f', 0);
    else if (row.wattsSaved < 0.0)
        parts << tr("%1 W added").arg(-row.wattsSaved, 0, 'f', 0);
    if (row.co2GramsPerHour != 0.0)
        parts << tr("%1 g CO₂/h").arg(row.co2GramsPerHour, 0, 'f', 0);
    return parts.join(tr(", "));
}

QVariant ProposalsModel::data(const QModelIndex& index, int role) const
{
    const ProposalRow* row = rowAt(index.row());
    if (!row || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    if (role == IdRole)
        return QVariant::fromValue<qint64>(row->id);
    const auto column = static_cast<Column>(index.column());
    if (role == RawTextRole || role == SortRole) {
        switch (column) {
        case Id: return QVariant::fromValue<qint64>(row->id);
        case Kind: return QString::fromStdString(row->kind);
        case State: return QString::fromStdString(row->state);
        case Risk: return QString::fromStdString(row->risk);
        case Expires: return QVariant::fromValue<qint64>(row->expiresMs);
        default: break;
        }
        if (role == RawTextRole)
            return {};
    }
    if (role == Qt::ToolTipRole && (column == Reason || column == Effect))
        return reasonText(row->why, row->reason);
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    switch (column) {
    case Id: return QVariant::fromValue<qint64>(row->id);
    case Kind: return proposalKindLabel(row->kind);
    case State: return proposalStateLabel(row->state);
    case Risk: return riskLabel(row->risk);
    case Subject: return QString::fromStdString(row->subject);
    case Reason: return reasonText(row->why, row->reason);
    case Effect: return effectText(*row);
    case Expires: return timeText(row->expiresMs);
    case DecidedBy: return QString::fromStdString(row->decidedBy);
    case ColumnCount: break;
    }
    return {};
}

QVariant ProposalsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == ColumnKeyRole)
        return QString::fromLatin1(kKeys[section]);
    if (role != Qt::DisplayRole)
        return {};
    switch (static_cast<Column>(section)) {
    case Id: return tr("#");
    case Kind: return tr("Kind");
    case State: return tr("State");
    case Risk: return tr("Risk");
    case Subject: return tr("Subject");
    case Reason: return tr("Reason");
    case Effect: return tr("Predicted effect");
    case Expires: return tr("Expires");
    case DecidedBy: return tr("Decided by");
    case ColumnCount: break;
    }
    return {};
}

} // namespace tidepool::ui
