#pragma once
// The Events view's kind filter: keeps the events whose kind (the `RawTextRole` of `EventsModel::Kind`: placement,
// migration, ...) is one of a set, or every event when the set is empty. The filter bar's proxy sits on top of it.
//
// Thread affinity: GUI thread.

#include <QSortFilterProxyModel>

#include <set>
#include <string>

namespace tidepool::ui {

class EventKindFilter : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit EventKindFilter(QObject* parent = nullptr);
    void setKinds(std::set<std::string> kinds);
    const std::set<std::string>& kinds() const { return m_kinds; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    std::set<std::string> m_kinds;
};

} // namespace tidepool::ui
