#include "ui/models/event_kind_filter.h"

#include "ui/models/events_model.h"
#include "ui/models/roles.h"

namespace tidepool::ui {

EventKindFilter::EventKindFilter(QObject* parent)
    : QSortFilterProxyModel(parent)
{
}

void EventKindFilter::setKinds(std::set<std::string> kinds)
{
    if (kinds == m_kinds)
        return;
    m_kinds = std::move(kinds);
    invalidateFilter();
}

bool EventKindFilter::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    if (m_kinds.empty())
        return true;
    const QModelIndex cell = sourceModel()->index(sourceRow, EventsModel::Kind, sourceParent);
    return m_kinds.count(cell.data(RawTextRole).toString().toStdString()) > 0;
}

} // namespace tidepool::ui
