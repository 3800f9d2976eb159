#pragma once
// The forecasting seam: a `Model` turns the history of one pool's resource (CPU, memory, each accelerator kind) into a
// forecast with a p10–p90 band, and models are registered by name so that the 5-minute evaluation loop, the backtest
// and the command line pick one by configuration.
//
// Thread affinity: none. Models are immutable after construction, so one instance may serve every pool from any
// thread; `forecast` fits and forecasts in one call because fitting costs milliseconds and a fit kept between calls
// would be state the loop has to own.

#include "core/forecast/series.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::forecast {

// One value per future step: step h (0-based) is bucket history.size() + h.
struct Forecast {
    std::vector<double> mean;
    std::vector<double> p10; // 10% of outcomes are expected below it
    std::vector<double> p90; // and 10% above this

    std::size_t size() const { return mean.size(); }
};

class Model {
public:
    virtual ~Model() = default;
    virtual std::string name() const = 0;
    // Why this model cannot forecast from `history`, or an empty string when it can (a weekly baseline needs two
    // weeks of history).
    virtual std::string unavailableReason(const Series& history) const = 0;
    // Fits to `history` and forecasts the `horizon` steps after its last bucket. Gaps in the history are skipped, never
    // read as zeros. Fails with `InvalidArgument` when `unavailableReason` is not empty.
    virtual Expected<Forecast> forecast(const Series& history, std::size_t horizon) const = 0;
};

inline constexpr std::string_view kSeasonalModel = "seasonal";
inline constexpr std::string_view kSeasonalNaiveDaily = "seasonal-naive-daily";
inline constexpr std::string_view kSeasonalNaiveWeekly = "seasonal-naive-weekly";
inline constexpr std::string_view kPeriodic = "periodic";

// The baselines a model must beat, in the order reports list them.
inline const std::vector<std::string>& baselineNames()
{
    static const std::vector<std::string> names { std::string(kSeasonalNaiveDaily), std::string(kSeasonalNaiveWeekly),
        std::string(kPeriodic) };
    return names;
}

using ModelFactory = std::function<std::unique_ptr<Model>()>;

class ModelRegistry {
public:
    // The seasonal model and the three baselines.
    static ModelRegistry withBuiltins();

    void add(std::string name, ModelFactory factory);
    std::unique_ptr<Model> make(std::string_view name) const; // null for an unknown name
    std::vector<std::string> names() const;

private:
    std::map<std::string, ModelFactory, std::less<>> m_factories;
};

std::unique_ptr<Model> makeSeasonalNaive(std::size_t periodSeconds, std::string name);
std::unique_ptr<Model> makePeriodic();
std::unique_ptr<Model> makeSeasonalModel();

// Helpers the models share.
// The value the history had `lag * k` steps before future step h, for the smallest k that reaches into the history,
// skipping back whole lags over gaps; NaN when every such bucket is a gap.
double seasonalNaiveValue(const std::vector<double>& history, std::size_t lag, std::size_t step);
// A band around `mean` from in-sample residuals (actual - forecast): p10/p90 = mean + their 10%/90% quantiles.
void bandFromResiduals(Forecast& forecast, const std::vector<double>& residuals);
// Clamps every value of the forecast into [low, high].
void clampForecast(Forecast& forecast, double low, double high);

} // namespace tidepool::forecast
