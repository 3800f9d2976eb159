#pragma once
// Builds a `ReportData` from the store's history (pool, tier and node series, see `core/api/history_recorder.h`), the
// cluster as the control plane knows it (`ClusterFacts`) and the daemon's report settings (prices, carbon intensity).
//
// Per bucket of the period (the smallest of 5 min, 15 min, 30 min, 1 h, 3 h, 6 h, 12 h, 1 day that gives at most 48
// buckets) a series' value is the mean of its 5-minute aggregates there (and of its raw samples past the last
// aggregate, so that the last minutes count before they are aggregated). The scope's requested use is the sum of its
// pools' series (a tier's own series for a tier scope), its used the sum of its nodes', or, for a pool's or a business
// line's CPU and memory, of its pools' measured use where the agents measured it (`ResourceUse::usedBy`).
//
// Fails with `NotFound` naming the scope and the known names when the scope's business line, pool or tier is unknown,
// and with `IoError` when the store cannot be read.
//
// Thread affinity: the store's thread (the core's); reads only. A forecast backtest runs per pool in scope (at most
// 12), on the calling thread.

#include "core/report/report.h"
#include "core/store/store.h"

namespace tidepool::report {

Expected<ReportData> buildReport(
    const ReportRequest& request, const ClusterFacts& facts, store::Store& store, const ReportSettings& settings);

// The buckets' length for a period of `periodMs`.
std::int64_t bucketStepMs(std::int64_t periodMs);

} // namespace tidepool::report
