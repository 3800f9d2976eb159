#pragma once
// Brings a shown vector of rows, sorted by a unique key, to the next one with the fewest model signals: rows whose key
// left are removed (in contiguous runs, last first), new keys inserted (in runs), rows that differ replaced in place
// and announced. The caller's hooks emit the model's begin/end signals, so any level of a tree can use it.
//
// Thread affinity: GUI thread (it changes what a model shows).

#include <algorithm>
#include <functional>
#include <iterator>
#include <vector>

namespace tidepool::ui {

// Past this many runs of inserted and removed rows an update is one layout change, and past this many runs of changed
// rows one `changed` range. Applied run by run through a sorting proxy, each run costs about as much as a layout change
// of the whole model (the proxy maps the run's parent and its rows again), so the bound is low; measured with
// `tidepool-bench-console` (BENCHMARKS.md §8).
inline constexpr std::size_t kIncrementalRunsUpTo = 16;

// The runs of removed and of inserted keys that `diffRows` would signal between two sorted vectors, counted up to
// `limit + 1` (past that the caller has decided).
template <typename Row, typename NextRow, typename KeyFn, typename NextKeyFn>
std::size_t insertRemoveRuns(const std::vector<Row>& shown, const std::vector<NextRow>& next, KeyFn key,
    NextKeyFn nextKey, std::size_t limit = kIncrementalRunsUpTo)
{
    std::size_t runs = 0;
    enum class Run { None, Remove, Insert } run = Run::None;
    const auto step = [&](Run kind) {
        if (run != kind)
            ++runs;
        run = kind;
    };
    std::size_t i = 0, j = 0;
    while ((i < shown.size() || j < next.size()) && runs <= limit) {
        if (j == next.size() || (i < shown.size() && key(shown[i]) < nextKey(next[j]))) {
            step(Run::Remove);
            ++i;
        } else if (i == shown.size() || nextKey(next[j]) < key(shown[i])) {
            step(Run::Insert);
            ++j;
        } else {
            run = Run::None;
            ++i;
            ++j;
        }
    }
    return runs;
}

template <typename Row, typename KeyFn>
std::size_t insertRemoveRuns(
    const std::vector<Row>& shown, const std::vector<Row>& next, KeyFn key, std::size_t limit = kIncrementalRunsUpTo)
{
    return insertRemoveRuns(shown, next, key, key, limit);
}

// Where the row with `k` sits in `rows` (sorted by `key`), or -1.
template <typename Row, typename KeyFn, typename Key>
int rowOfKey(const std::vector<Row>& rows, KeyFn key, const Key& k)
{
    const auto it = std::lower_bound(
        rows.begin(), rows.end(), k, [&key](const Row& row, const Key& value) { return key(row) < value; });
    return it != rows.end() && !(k < key(*it)) ? static_cast<int>(it - rows.begin()) : -1;
}

struct RowHooks {
    std::function<void(int first, int last)> beginRemove, endRemove, beginInsert, endInsert;
    std::function<void(int first, int last)> changed; // after the rows were replaced
};

template <typename Row, typename KeyFn>
void diffRows(std::vector<Row>& shown, std::vector<Row> next, KeyFn key, const RowHooks& hooks)
{
    // Both sorted: walk them together and collect the shown rows whose key is gone.
    std::vector<int> gone;
    for (std::size_t i = 0, j = 0; i < shown.size(); ++i) {
        while (j < next.size() && key(next[j]) < key(shown[i]))
            ++j;
        if (j == next.size() || !(key(next[j]) == key(shown[i])))
            gone.push_back(static_cast<int>(i));
    }
    for (std::size_t end = gone.size(); end > 0;) {
        std::size_t begin = end - 1;
        while (begin > 0 && gone[begin - 1] == gone[begin] - 1)
            --begin;
        hooks.beginRemove(gone[begin], gone[end - 1]);
        shown.erase(shown.begin() + gone[begin], shown.begin() + gone[end - 1] + 1);
        hooks.endRemove(gone[begin], gone[end - 1]);
        end = begin;
    }
    // Now every shown key is in `next`: insert the runs of new keys and replace the rows that differ.
    std::vector<int> changed;
    std::size_t i = 0;
    for (std::size_t j = 0; j < next.size();) {
        if (i < shown.size() && key(shown[i]) == key(next[j])) {
            if (!(shown[i] == next[j])) {
                shown[i] = std::move(next[j]);
                changed.push_back(static_cast<int>(i));
            }
            ++i;
            ++j;
            continue;
        }
        std::size_t end = j;
        while (end < next.size() && (i == shown.size() || key(next[end]) < key(shown[i])))
            ++end;
        const int first = static_cast<int>(i);
        const int last = first + static_cast<int>(end - j) - 1;
        hooks.beginInsert(first, last);
        shown.insert(shown.begin() + static_cast<std::ptrdiff_t>(i),
            std::make_move_iterator(next.begin() + static_cast<std::ptrdiff_t>(j)),
            std::make_move_iterator(next.begin() + static_cast<std::ptrdiff_t>(end)));
        hooks.endInsert(first, last);
        i += end - j;
        j = end;
    }
    if (changed.empty())
        return;
    std::size_t changedRuns = 1;
    for (std::size_t c = 1; c < changed.size(); ++c)
        changedRuns += changed[c] != changed[c - 1] + 1 ? 1 : 0;
    if (changedRuns > kIncrementalRunsUpTo) {
        hooks.changed(changed.front(), changed.back());
        return;
    }
    for (std::size_t begin = 0; begin < changed.size();) {
        std::size_t end = begin + 1;
        while (end < changed.size() && changed[end] == changed[end - 1] + 1)
            ++end;
        hooks.changed(changed[begin], changed[end - 1]);
        begin = end;
    }
}

} // namespace tidepool::ui
