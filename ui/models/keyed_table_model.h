#pragma once
// A table model over a vector of snapshot rows sorted by a key. `update` diffs the new rows against the shown ones
// (`diffRows`): rows whose key left are removed, new keys inserted, changed rows announced with `dataChanged`. Only a
// load into an empty model (or an empty update) resets. Views keep their selection and scroll position.
//
// Thread affinity: GUI thread.

#include "ui/models/keyed_diff.h"

#include <QAbstractTableModel>

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
};

} // namespace tidepool::ui
