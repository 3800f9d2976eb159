#pragma once
// A table model over a vector of snapshot rows sorted by a key. `update` diffs the new rows against the shown ones
// (`diffRows`): rows whose key left are removed, new keys inserted, changed rows announced with `dataChanged`. An update
// with more runs of inserted and removed rows than `kIncrementalRunsUpTo` is one layout change instead, its persistent
// indexes moved by key. Only a load into an empty model (or an empty update) resets. Views keep their selection and
// scroll position.
//
// Thread affinity: GUI thread.

#include "ui/models/keyed_diff.h"

#include <QAbstractTableModel>

#include <type_traits>
#include <vector>

namespace tidepool::ui {

template <typename Row> class KeyedTableModel : public QAbstractTableModel {
public:
    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override
    {
        return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
    }
    const std::vector<Row>& rows() const { return m_rows; }
    const Row* rowAt(int row) const
    {
        return row >= 0 && row < static_cast<int>(m_rows.size()) ? &m_rows[static_cast<std::size_t>(row)] : nullptr;
    }

protected:
    // `rows` sorted by `key(row)`, ascending and unique.
    template <typename KeyFn> void update(std::vector<Row> rows, KeyFn key)
    {
        if (m_rows.empty() || rows.empty()) {
            if (m_rows.empty() && rows.empty())
                return;
            beginResetModel();
            m_rows = std::move(rows);
            endResetModel();
            return;
        }
        if (insertRemoveRuns(m_rows, rows, key) > kIncrementalRunsUpTo) {
            relayout(std::move(rows), key);
            return;
        }
        const RowHooks hooks {
            [this](int first, int last) { beginRemoveRows({}, first, last); },
            [this](int, int) { endRemoveRows(); },
            [this](int first, int last) { beginInsertRows({}, first, last); },
            [this](int, int) { endInsertRows(); },
            [this](int first, int last) { Q_EMIT dataChanged(index(first, 0), index(last, columnCount() - 1)); },
        };
        diffRows(m_rows, std::move(rows), key, hooks);
    }

    std::vector<Row> m_rows;

private:
    template <typename KeyFn> void relayout(std::vector<Row> rows, KeyFn key)
    {
        using Key = std::decay_t<std::invoke_result_t<KeyFn, const Row&>>;
        Q_EMIT layoutAboutToBeChanged();
        const QModelIndexList from = persistentIndexList();
        std::vector<Key> keys;
        keys.reserve(static_cast<std::size_t>(from.size()));
        for (const QModelIndex& i : from)
            keys.push_back(key(m_rows[static_cast<std::size_t>(i.row())]));
        m_rows = std::move(rows);
        QModelIndexList to;
        to.reserve(from.size());
        for (qsizetype i = 0; i < from.size(); ++i) {
            const int row = rowOfKey(m_rows, key, keys[static_cast<std::size_t>(i)]);
            to.push_back(row < 0 ? QModelIndex() : index(row, from[i].column()));
        }
        changePersistentIndexList(from, to);
        Q_EMIT layoutChanged();
    }
};

} // namespace tidepool::ui
