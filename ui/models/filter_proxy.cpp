#include "ui/models/filter_proxy.h"

#include "ui/models/roles.h"

namespace tidepool::ui {

FilterProxy::FilterProxy(QObject* parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(SortRole);
    setRecursiveFilteringEnabled(true);
    setSortCaseSensitivity(Qt::CaseInsensitive);
}

void FilterProxy::setFilterText(const QString& text)
{
    if (text == m_text)
        return;
    m_text = text;
    m_terms.clear();
    for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const qsizetype eq = word.indexOf(QLatin1Char('='));
        if (eq > 0)
            m_terms.push_back(Term { word.left(eq).toCaseFolded(), word.mid(eq + 1) });
        else
            m_terms.push_back(Term { {}, word });
    }
    invalidateFilter();
}

std::vector<int> FilterProxy::columnsOf(const QString& key) const
{
    std::vector<int> columns;
    const QAbstractItemModel* source = sourceModel();
    if (!source)
        return columns;
    for (int c = 0; c < source->columnCount(); ++c) {
        const QString columnKey = source->headerData(c, Qt::Horizontal, ColumnKeyRole).toString().toCaseFolded();
        const QString header = source->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString().toCaseFolded();
        if (columnKey == key || header == key)
            columns.push_back(c);
    }
    return columns;
}

QStringList FilterProxy::unknownKeys() const
{
    QStringList unknown;
    for (const Term& term : m_terms)
        if (!term.key.isEmpty() && columnsOf(term.key).empty())
            unknown << term.key;
    return unknown;
}

bool FilterProxy::matches(const QModelIndex& cell, const QString& value) const
{
    if (cell.data(Qt::DisplayRole).toString().contains(value, Qt::CaseInsensitive))
        return true;
    return cell.data(RawTextRole).toString().contains(value, Qt::CaseInsensitive);
}

bool FilterProxy::hasChildren(const QModelIndex& parent) const
{
    // Without a filter every child of the source shows: answer from the source, so that a tree view laying out
    // thousands of collapsed rows does not make the proxy map (and sort) the children of each one.
    if (m_terms.empty() && sourceModel()) {
        const QModelIndex source = mapToSource(parent);
        if (parent.isValid() && !source.isValid())
            return false;
        return sourceModel()->hasChildren(source);
    }
    return QSortFilterProxyModel::hasChildren(parent);
}

bool FilterProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const
{
    if (const auto* direct = dynamic_cast<const DirectSortKeys*>(sourceModel()))
        if (const std::optional<int> order = direct->compareSortKeys(left, right))
            return *order < 0;
    return QSortFilterProxyModel::lessThan(left, right);
}

bool FilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QAbstractItemModel* source = sourceModel();
    for (const Term& term : m_terms) {
        bool found = false;
        if (term.key.isEmpty()) {
            for (int c = 0; c < source->columnCount(sourceParent) && !found; ++c)
                found = matches(source->index(sourceRow, c, sourceParent), term.value);
        } else {
            for (const int c : columnsOf(term.key))
                found = found || matches(source->index(sourceRow, c, sourceParent), term.value);
        }
        if (!found)
            return false;
    }
    return true;
}

} // namespace tidepool::ui
