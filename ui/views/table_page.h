#pragma once
// A filter bar over a sortable view of one model: the Nodes and Pools tabs, and the list of the Proposals tab. The
// page owns its `FilterProxy`; the source model is borrowed. The header's context menu is a column chooser; with a
// settings name, the columns hidden there are remembered between runs (by their stable keys, whatever the language).
//
// Thread affinity: GUI thread.

#include <QString>
#include <QWidget>

class QAbstractItemModel;
class QMenu;
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
    // A tree opens to `depth` levels below the top when the model resets (-1, the default: every level). The Pools
    // tree stops at its nodes: tens of thousands of workload rows are there to open, not to scroll past.
    void setExpandDepth(int depth) { m_expandDepth = depth; }
    // Restores the columns hidden under `name` in the settings, and keeps the operator's later choices there.
    void rememberColumnsAs(const QString& name);
    // Shows or hides a column, as the column chooser does (and remembers it, once named).
    void setColumnShown(int column, bool shown);
    // The column chooser's menu, as the header's context menu shows it: a checkable action per column.
    QMenu* columnMenu();
    // Adds `widget` under the view (a line saying what an action on a row did).
    void addFooter(QWidget* widget);

    FilterProxy* proxy() const { return m_proxy; }
    FilterBar* filterBar() const { return m_filterBar; }
    QTreeView* view() const { return m_view; }

private:
    FilterProxy* m_proxy;
    FilterBar* m_filterBar;
    QTreeView* m_view;
    bool m_sized = false; // columns fitted to the first rows
    int m_expandDepth = -1;
    QString m_settingsName; // where the hidden columns are remembered; empty: nowhere
    QMenu* m_columnMenu = nullptr;
};

} // namespace tidepool::ui
