#pragma once
// Item roles shared by the console's models and its filter proxy.

#include <Qt>

namespace tidepool::ui {

enum Role : int {
    SortRole = Qt::UserRole + 1, // the raw value (a number or the untranslated text) that sorting compares
    RawTextRole, // the core's own name of a value ("hot", "pending"): `key=value` filters match it too
    ColumnKeyRole, // headerData: the column's stable, untranslated key ("tier"), for `key=value` filters
    IdRole, // the row's identity (node id, proposal id)
    ShareRole, // a share (0..1, negative = none) that `ShareBarDelegate` draws, where `SortRole` is an absolute value
};

} // namespace tidepool::ui
