#pragma once
// Sorting and filtering for every console table and tree. The filter is a line of terms, all of which a row must
// match: `text` matches any column's shown or raw text, case-insensitively; `key=value` matches only the columns
// whose key (the `ColumnKeyRole` of the header, e.g. `tier`, or the shown header text) is `key`, so that `tier=hot`
// works in every language. Trees keep the parents of matching rows. Sorting compares `SortRole`, or asks a source that
// is `DirectSortKeys`.
//
// Thread affinity: GUI thread.

#include <QSortFilterProxyModel>
#include <QStringList>

#include <optional>
#include <vector>

namespace tidepool::ui {

// A source model that compares two of its cells' sort keys itself, without going through `QVariant`s: a proxy sorting
// tens of thousands of rows spends most of its time making and comparing those. nullopt: compare `SortRole`.
class DirectSortKeys {
public:
    virtual ~DirectSortKeys() = default;
    virtual std::optional<int> compareSortKeys(const QModelIndex& left, const QModelIndex& right) const = 0;
};

class FilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit FilterProxy(QObject* parent = nullptr);

    void setFilterText(const QString& text);
    QString filterText() const { return m_text; }
    // Keys of the current filter that name no column (the filter bar says so).
    QStringList unknownKeys() const;

    bool hasChildren(const QModelIndex& parent = {}) const override;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

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
