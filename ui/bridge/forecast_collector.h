#pragma once
// Builds the snapshot's forecast series: for every pool and tier series the store holds (CPU, memory, each accelerator
// kind), its last two days on the 5-minute grid and the latest forecast the rebalancer stored for it (mean and p10–p90
// band), and a rolling-origin backtest (`core/forecast/backtest.h`) of that forecast's model on that history at the
// rebalancer's one-hour lookahead.
//
// Cost: the store is read at most once per 5-minute bucket of the core's clock, and then only the buckets that are
// new; a series that did not change keeps its `ForecastSeriesPtr`, so a snapshot copies pointers. Backtests fit the
// model many times (tens of milliseconds each), so they run on a thread of their own, a batch at a time, at most every
// `backtestEveryMs` per series, and their scores join the next snapshot after they finish.
//
// Thread affinity: `fill` and the destructor on the core's thread (the store is read there); only the pure backtest
// runs on the worker, on copies. The destructor waits for the series being backtested, if any.

#include "ui/bridge/console_snapshot.h"

#include <atomic>
#include <future>
#include <map>

namespace tidepool::api {
class ControlPlane;
} // namespace tidepool::api

namespace tidepool::ui {

struct ForecastCollectorConfig {
    std::int64_t historyMs = 2LL * 24 * 3600 * 1000;
    std::size_t backtestHorizonSteps = 12; // the rebalancer's lookahead: one hour of 5-minute steps
    std::size_t backtestOrigins = 6;
    std::int64_t backtestEveryMs = 6LL * 3600 * 1000;
};

class ForecastCollector {
public:
    explicit ForecastCollector(ForecastCollectorConfig config = {});
    ~ForecastCollector();
    ForecastCollector(const ForecastCollector&) = delete;
    ForecastCollector& operator=(const ForecastCollector&) = delete;

    // Sets `snapshot.forecasts`. `evaluations` is the rebalancer's count (`Rebalancer::evaluations`): the store is read
    // again when it grows, so that new forecasts show at once rather than at the next 5-minute bucket.
    void fill(const api::ControlPlane& plane, ConsoleSnapshot& snapshot, std::uint64_t evaluations = 0);

    // Waits for a backtest in flight and takes its scores (tests).
    void settle();

private:
    struct Job {
        std::string key;
        std::string model;
        std::vector<double> values; // 5-minute grid, NaN = gap
    };
    using Results = std::vector<std::pair<std::string, BacktestError>>;

    void refresh(const api::ControlPlane& plane, std::int64_t nowMs);
    void takeResults();
    void startBacktests(std::int64_t nowMs);

    ForecastCollectorConfig m_config;
    std::map<std::string, ForecastSeriesPtr> m_series; // by key
    std::map<std::string, std::int64_t> m_backtestedMs; // key → when its last backtest started
    std::int64_t m_refreshedBucket = -1;
    std::uint64_t m_refreshedEvaluations = 0;
    std::future<Results> m_running;
    std::shared_ptr<std::atomic<bool>> m_cancel = std::make_shared<std::atomic<bool>>(false);
};

} // namespace tidepool::ui
