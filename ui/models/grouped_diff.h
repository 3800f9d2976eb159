#pragma once
// Diffs one level of a tree whose rows have children: groups (a node and its workloads, say) sorted by a unique key.
// The children of every group that stays are brought up to date first, under the group's current row (`sync`, which
// usually runs `diffRows` on them); then the groups themselves are diffed by key with `diffRows`, comparing only what
// the group row shows (`Group::operator==` leaves the children out). An inserted group arrives with its children; a
// changed one takes the next children, which `sync` has made equal to the shown ones already.
//
// Children that are views into a snapshot (`SnapshotRef`) are compared by value, and after `sync` they point into the
// next snapshot, so that the model may drop the previous one.
//
// Thread affinity: GUI thread (it changes what a model shows).

#include "ui/models/keyed_diff.h"

namespace tidepool::ui {

// A row of an immutable snapshot that a model shows without copying it; equal when the rows are.
template <typename Row> struct SnapshotRef {
    const Row* row = nullptr;
    bool operator==(const SnapshotRef& other) const { return row == other.row || *row == *other.row; }
};

// `sync(int shownRow, Group& shown, const Group& next)` must leave `shown`'s children equal to `next`'s.
template <typename Group, typename KeyFn, typename SyncFn>
void diffGroups(std::vector<Group>& shown, std::vector<Group> next, KeyFn key, SyncFn sync, const RowHooks& hooks)
{
    for (std::size_t i = 0, j = 0; i < shown.size(); ++i) {
        while (j < next.size() && key(next[j]) < key(shown[i]))
            ++j;
        if (j < next.size() && key(next[j]) == key(shown[i]))
            sync(static_cast<int>(i), shown[i], next[j]);
    }
    diffRows(shown, std::move(next), key, hooks);
}

// The runs of inserted and removed rows that `diffGroups` would signal, at the groups' level and (through
// `childRuns(shownGroup, nextGroup, limit)`) below every group that stays, counted up to `limit + 1`.
template <typename Group, typename KeyFn, typename ChildRunsFn>
std::size_t groupedRuns(const std::vector<Group>& shown, const std::vector<Group>& next, KeyFn key, ChildRunsFn childRuns,
    std::size_t limit = kIncrementalRunsUpTo)
{
    std::size_t runs = insertRemoveRuns(shown, next, key, limit);
    for (std::size_t i = 0, j = 0; i < shown.size() && runs <= limit; ++i) {
        while (j < next.size() && key(next[j]) < key(shown[i]))
            ++j;
        if (j < next.size() && key(next[j]) == key(shown[i]))
            runs += childRuns(shown[i], next[j], limit - runs);
    }
    return runs;
}

} // namespace tidepool::ui
