#pragma once
// The Events tab: the cluster's recent events, newest first, with a kind filter (placements, migrations, requeues,
// stops, ends, node state, cordons, decisions, proposals, operator actions) in front of the filter bar's text and
// `key=value` terms. The events model is borrowed; the page owns the kind filter.
//
// Thread affinity: GUI thread.

#include <QWidget>

class QComboBox;
class QLabel;

namespace tidepool::ui {

class EventKindFilter;
class EventsModel;
class TablePage;

class EventsPage : public QWidget {
    Q_OBJECT
public:
    explicit EventsPage(EventsModel* events, QWidget* parent = nullptr);

    // Shows only events of `kind` ("placement", ...); empty shows every kind.
    void setKind(const QString& kind);

    TablePage* table() const { return m_table; }
    EventKindFilter* kindFilter() const { return m_kinds; }
    QComboBox* kindBox() const { return m_kindBox; }

private:
    void updateCount();

    EventsModel* m_events;
    EventKindFilter* m_kinds;
    QComboBox* m_kindBox;
    QLabel* m_count;
    TablePage* m_table;
};

} // namespace tidepool::ui
