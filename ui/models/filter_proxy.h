#pragma once
// Sorting and filtering for every console table and tree. The filter is a line of terms, all of which a row must
// match: `text` matches any column's shown or raw text, case-insensitively; `key=value` matches only the columns
// whose key (the `ColumnKeyRole` of the header, e.g. `tier`, or the shown header text) is `key`, so that `tier=hot`
// works in every language. Trees keep the parents of matching rows. Sorting compares `SortRole`.
//
// Thread affinity: GUI thread.

#include <QSortFilterProxyModel>
#include <QStringList>

#include <vector>

namespace tidepool::ui {

class FilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit FilterProxy(QObject* parent = nullptr);

    void setFilterText(const QString& text);
    QString filterText() const { return m_text; }
    // Keys of the current filter that name no column (the filter bar says so).
    QStringList unknownKeys() const;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    struct Term {
        QString key; // empty: any column
        QString value;
    };
    bool matches(const QModelIndex& cell, const QString& value) const;
    std::vector<int> columnsOf(const QString& key) const;

    QString m_text;
    std::vector<Term> m_terms;
};

} // namespace tidepool::ui
