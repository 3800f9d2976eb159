#pragma once
// A filter bar over a sortable view of one model: the Nodes and Pools tabs, and the list of the Proposals tab. The
// page owns its `FilterProxy`; the source model is borrowed.
//
// Thread affinity: GUI thread.

#include <QWidget>

class QAbstractItemModel;
class QTreeView;

namespace tidepool::ui {

class FilterBar;
class FilterProxy;

class TablePage : public QWidget {
    Q_OBJECT
public:
    // A tree shows parents with expanders; a table (`tree` false) shows flat rows.
    TablePage(QAbstractItemModel* source, bool tree, QWidget* parent = nullptr);

    // Draws the shares of `column` as bars (`ShareBarDelegate`).
    void showSharesAsBars(int column);

    FilterProxy* proxy() const { return m_proxy; }
    FilterBar* filterBar() const { return m_filterBar; }
    QTreeView* view() const { return m_view; }

private:
    FilterProxy* m_proxy;
    FilterBar* m_filterBar;
    QTreeView* m_view;
    bool m_sized = false; // columns fitted to the first rows
};

} // namespace tidepool::ui
