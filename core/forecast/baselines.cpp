// The baselines a forecasting model must beat, and the helpers every model shares. They are deliberately plain:
// seasonal naive repeats the same time one period ago, and the periodic estimator is the one Crane (gocrane/crane,
// its DSP predictor) uses for cyclic load: find the period with an FFT, then predict the next cycle from past cycles.

#include "core/forecast/model.h"
#include "core/forecast/period.h"

#include <algorithm>
#include <limits>

namespace tidepool::forecast {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double lastValue(const std::vector<double>& values)
{
    for (auto it = values.rbegin(); it != values.rend(); ++it)
        if (!isGap(*it))
            return *it;
    return kNaN;
}

std::size_t validCount(const std::vector<double>& values)
{
    return static_cast<std::size_t>(std::count_if(values.begin(), values.end(), [](double v) { return !isGap(v); }));
}

// "Same time one period ago": yesterday for the daily baseline, last week for the weekly one.
class SeasonalNaive final : public Model {
public:
    SeasonalNaive(std::size_t periodSeconds, std::string name)
        : m_periodSeconds(periodSeconds)
        , m_name(std::move(name))
    {
    }

    std::string name() const override { return m_name; }

    std::string unavailableReason(const Series& history) const override
    {
        const std::size_t lag = history.stepsPer(static_cast<double>(m_periodSeconds));
        if (lag == 0)
            return "the step is longer than the period";
        // Two periods: one to repeat and one before it to measure how wrong repeating is (the band).
        if (history.size() < 2 * lag)
            return "needs two periods of history (" + std::to_string(2 * lag) + " steps), has "
                + std::to_string(history.size());
        return {};
    }

    Expected<Forecast> forecast(const Series& history, std::size_t horizon) const override
    {
        if (std::string why = unavailableReason(history); !why.empty())
            return makeError(ErrorCode::InvalidArgument, m_name + ": " + why);
        const std::size_t lag = history.stepsPer(static_cast<double>(m_periodSeconds));
        const std::vector<double>& y = history.values;
        Forecast f;
        const double fallback = lastValue(y);
        for (std::size_t h = 0; h < horizon; ++h) {
            const double v = seasonalNaiveValue(y, lag, h);
            f.mean.push_back(isGap(v) ? fallback : v);
        }
        std::vector<double> residuals;
        for (std::size_t t = lag; t < y.size(); ++t)
            if (!isGap(y[t]) && !isGap(y[t - lag]))
                residuals.push_back(y[t] - y[t - lag]);
        bandFromResiduals(f, residuals);
        return f;
    }

private:
    std::size_t m_periodSeconds;
    std::string m_name;
};

// Crane-style periodic estimator: the dominant period from the FFT (checked by autocorrelation), then each phase of
// the next cycle is the mean of that phase over the past complete cycles (at most eight). Averaging K whole cycles
// is exactly what keeping only the harmonics of the period in their spectrum does, which is Crane's FFT estimator.
// Without a cycle it forecasts the mean of the last day, flat.
class Periodic final : public Model {
public:
    std::string name() const override { return std::string(kPeriodic); }

    std::string unavailableReason(const Series& history) const override
    {
        return validCount(history.values) == 0 ? "the history has no values" : "";
    }

    Expected<Forecast> forecast(const Series& history, std::size_t horizon) const override
    {
        if (std::string why = unavailableReason(history); !why.empty())
            return makeError(ErrorCode::InvalidArgument, name() + ": " + why);
        const std::vector<double>& y = history.values;
        const std::size_t n = y.size();
        PeriodOptions options;
        options.calendarSteps = { history.stepsPerDay(), history.stepsPerWeek() };
        options.clipSpikes = false; // Crane's detector works on the raw signal
        const auto periods = detectPeriods(y, options);
        Forecast f;
        std::vector<double> residuals;
        if (periods.empty()) {
            const std::size_t day = std::max<std::size_t>(1, history.stepsPerDay());
            const std::vector<double> recent(y.end() - static_cast<std::ptrdiff_t>(std::min(day, n)), y.end());
            const double level = meanOf(recent);
            f.mean.assign(horizon, level);
            for (const double v : recent)
                if (!isGap(v))
                    residuals.push_back(v - level);
        } else {
            const std::size_t period = periods.front().steps;
            const std::size_t cycles = std::min<std::size_t>(8, n / period);
            const std::size_t start = n - cycles * period;
            std::vector<double> phaseMean(period);
            for (std::size_t j = 0; j < period; ++j) {
                std::vector<double> samples;
                for (std::size_t c = 0; c < cycles; ++c)
                    samples.push_back(y[start + c * period + j]);
                phaseMean[j] = meanOf(samples);
            }
            const std::vector<double> filled = fillGaps(phaseMean); // a phase that was a gap in every cycle
            for (std::size_t h = 0; h < horizon; ++h)
                f.mean.push_back(filled[h % period]);
            for (std::size_t t = start; t < n; ++t)
                if (!isGap(y[t]))
                    residuals.push_back(y[t] - filled[(t - start) % period]);
        }
        bandFromResiduals(f, residuals);
        return f;
    }
};

} // namespace

double seasonalNaiveValue(const std::vector<double>& history, std::size_t lag, std::size_t step)
{
    if (lag == 0)
        return kNaN;
    const std::size_t t = history.size() + step;
    std::size_t back = (step / lag + 1) * lag;
    while (back <= t) {
        const double v = history[t - back];
        if (!isGap(v))
            return v;
        back += lag;
    }
    return kNaN;
}

void bandFromResiduals(Forecast& forecast, const std::vector<double>& residuals)
{
    double low = quantile(residuals, 0.1);
    double high = quantile(residuals, 0.9);
    if (isGap(low) || isGap(high))
        low = high = 0;
    forecast.p10.resize(forecast.mean.size());
    forecast.p90.resize(forecast.mean.size());
    for (std::size_t h = 0; h < forecast.mean.size(); ++h) {
        forecast.p10[h] = forecast.mean[h] + low;
        forecast.p90[h] = forecast.mean[h] + high;
    }
}

void clampForecast(Forecast& forecast, double low, double high)
{
    for (auto* values : { &forecast.mean, &forecast.p10, &forecast.p90 })
        for (double& v : *values)
            v = std::clamp(v, low, high);
}

std::unique_ptr<Model> makeSeasonalNaive(std::size_t periodSeconds, std::string name)
{
    return std::make_unique<SeasonalNaive>(periodSeconds, std::move(name));
}

std::unique_ptr<Model> makePeriodic()
{
    return std::make_unique<Periodic>();
}

ModelRegistry ModelRegistry::withBuiltins()
{
    ModelRegistry registry;
    registry.add(std::string(kSeasonalModel), makeSeasonalModel);
    registry.add(
        std::string(kSeasonalNaiveDaily), [] { return makeSeasonalNaive(86400, std::string(kSeasonalNaiveDaily)); });
    registry.add(std::string(kSeasonalNaiveWeekly),
        [] { return makeSeasonalNaive(7 * 86400, std::string(kSeasonalNaiveWeekly)); });
    registry.add(std::string(kPeriodic), makePeriodic);
    return registry;
}

void ModelRegistry::add(std::string name, ModelFactory factory)
{
    m_factories[std::move(name)] = std::move(factory);
}

std::unique_ptr<Model> ModelRegistry::make(std::string_view name) const
{
    const auto it = m_factories.find(name);
    return it == m_factories.end() ? nullptr : it->second();
}

std::vector<std::string> ModelRegistry::names() const
{
    std::vector<std::string> names;
    for (const auto& [name, factory] : m_factories)
        names.push_back(name);
    return names;
}

} // namespace tidepool::forecast
