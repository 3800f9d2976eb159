#include "ui/bridge/forecast_collector.h"

#include "core/api/control_plane.h"
#include "core/forecast/backtest.h"

#include <chrono>
#include <cmath>
#include <limits>

namespace tidepool::ui {

namespace {

constexpr std::int64_t kStepMs = store::kAggregateBucketMs;

// The pools' and tiers' demand, which the rebalancer forecasts; not what their nodes hold (`<resource>_placed`, the
// reports' occupancy) nor what their cgroups used (`<resource>_used`, `core/api/history_recorder.h`).
bool shown(const store::SeriesKey& key)
{
    return (key.scope == "pool" || key.scope == "tier") && !key.resource.ends_with("_placed")
        && !key.resource.ends_with("_used");
}

std::string keyOf(const store::SeriesKey& key)
{
    return key.scope + '/' + key.name + '/' + key.resource;
}

BacktestError runBacktest(
    const std::string& modelName, std::vector<double> values, const ForecastCollectorConfig& config)
{
    BacktestError result;
    result.done = true;
    result.horizonSteps = static_cast<std::int64_t>(config.backtestHorizonSteps);
    const auto model = forecast::ModelRegistry::withBuiltins().make(modelName);
    if (!model) {
        result.failure = "the model \"" + modelName + "\" is not known here";
        return result;
    }
    forecast::Series series;
    series.stepSeconds = static_cast<double>(kStepMs) / 1000.0;
    series.values = std::move(values);
    const auto split = forecast::makeSplit(series.size(), config.backtestHorizonSteps, config.backtestOrigins);
    if (!split) {
        result.failure = split.error().message;
        return result;
    }
    const auto scores = forecast::backtest(*model, series, *split, forecast::maseScale(series, *split));
    if (!scores) {
        result.failure = scores.error().message;
        return result;
    }
    result.smapePct = scores->smapePct;
    result.mase = scores->mase;
    result.coveragePct = scores->coveragePct;
    result.scoredPoints = scores->scoredPoints;
    return result;
}

} // namespace

ForecastCollector::ForecastCollector(ForecastCollectorConfig config)
    : m_config(config)
{
}

ForecastCollector::~ForecastCollector()
{
    m_cancel->store(true);
    if (m_running.valid())
        m_running.wait();
}

void ForecastCollector::settle()
{
    if (m_running.valid())
        m_running.wait();
    takeResults();
}

void ForecastCollector::fill(const api::ControlPlane& plane, ConsoleSnapshot& snapshot, std::uint64_t evaluations)
{
    takeResults();
    const std::int64_t bucket = snapshot.nowMs / kStepMs;
    if (bucket != m_refreshedBucket || evaluations != m_refreshedEvaluations) {
        m_refreshedBucket = bucket;
        m_refreshedEvaluations = evaluations;
        refresh(plane, snapshot.nowMs);
        startBacktests(snapshot.nowMs);
    }
    snapshot.forecasts.clear();
    snapshot.forecasts.reserve(m_series.size());
    for (const auto& [key, series] : m_series)
        if (series)
            snapshot.forecasts.push_back(series);
}

void ForecastCollector::refresh(const api::ControlPlane& plane, std::int64_t nowMs)
{
    store::Store* store = plane.store();
    if (!store)
        return;
    auto list = store->seriesList();
    if (!list)
        return; // shown as it was; the store's trouble shows as the read-only reason
    const std::int64_t horizonStart = nowMs - m_config.historyMs;
    for (const store::SeriesKey& key : *list) {
        if (!shown(key))
            continue;
        const std::string id = keyOf(key);
        const ForecastSeriesPtr& old = m_series[id];
        // Only the buckets since the last one shown; that one again, since late samples may have changed it.
        const std::int64_t from
            = old && !old->history.empty() ? std::max(old->history.back().atMs, horizonStart) : horizonStart;
        auto points = store->history(key, from, nowMs + 1, store::Resolution::FiveMinutes);
        auto latest = store->latestForecast(key);
        if (!points || !latest)
            continue;
        const bool newForecast = *latest && (!old || (*latest)->madeMs != old->madeMs);
        std::vector<HistoryValue> history = old ? old->history : std::vector<HistoryValue> {};
        while (!history.empty() && history.back().atMs >= from)
            history.pop_back();
        for (const store::HistoryPoint& p : *points)
            history.push_back(HistoryValue { p.atMs, p.mean });
        std::size_t drop = 0;
        while (drop < history.size() && history[drop].atMs < horizonStart)
            ++drop;
        history.erase(history.begin(), history.begin() + static_cast<std::ptrdiff_t>(drop));
        if (old && !newForecast && history == old->history)
            continue;
        auto next = old ? std::make_shared<ForecastSeries>(*old) : std::make_shared<ForecastSeries>();
        next->scope = key.scope;
        next->name = key.name;
        next->resource = key.resource;
        next->history = std::move(history);
        if (newForecast) {
            const store::StoredForecast& f = **latest;
            next->model = f.model;
            next->madeMs = f.madeMs;
            next->forecast.clear();
            const std::int64_t step = f.stepMs > 0 ? f.stepMs : kStepMs;
            std::int64_t k = 0;
            for (const auto& point : f.points) {
                if (!point.is_array() || point.size() < 3 || !point[0].is_number() || !point[1].is_number()
                    || !point[2].is_number())
                    continue; // a point the store could not hold as numbers (a NaN written as null)
                next->forecast.push_back(ForecastPoint {
                    f.madeMs + k * step, point[0].get<double>(), point[1].get<double>(), point[2].get<double>() });
                ++k;
            }
        }
        m_series[id] = std::move(next);
    }
}

void ForecastCollector::takeResults()
{
    if (!m_running.valid() || m_running.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
        return;
    for (auto& [key, error] : m_running.get()) {
        const auto it = m_series.find(key);
        if (it == m_series.end() || !it->second)
            continue;
        auto next = std::make_shared<ForecastSeries>(*it->second);
        next->backtest = std::move(error);
        it->second = std::move(next);
    }
}

void ForecastCollector::startBacktests(std::int64_t nowMs)
{
    if (m_running.valid())
        return; // one batch at a time
    std::vector<Job> jobs;
    for (const auto& [key, series] : m_series) {
        if (!series || series->model.empty() || series->history.size() < 2 * m_config.backtestHorizonSteps)
            continue;
        const auto last = m_backtestedMs.find(key);
        if (last != m_backtestedMs.end() && nowMs - last->second < m_config.backtestEveryMs && nowMs >= last->second)
            continue;
        m_backtestedMs[key] = nowMs;
        // On the 5-minute grid from the first bucket shown to the last; missing buckets are gaps.
        const std::int64_t first = series->history.front().atMs;
        const auto size = static_cast<std::size_t>((series->history.back().atMs - first) / kStepMs + 1);
        Job job { key, series->model, std::vector<double>(size, std::numeric_limits<double>::quiet_NaN()) };
        for (const HistoryValue& v : series->history)
            job.values[static_cast<std::size_t>((v.atMs - first) / kStepMs)] = v.value;
        jobs.push_back(std::move(job));
    }
    if (jobs.empty())
        return;
    m_running
        = std::async(std::launch::async, [jobs = std::move(jobs), config = m_config, cancel = m_cancel]() mutable {
              Results results;
              for (Job& job : jobs) {
                  if (cancel->load())
                      break;
                  results.emplace_back(job.key, runBacktest(job.model, std::move(job.values), config));
              }
              return results;
          });
}

} // namespace tidepool::ui
