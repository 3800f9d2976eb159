// The rolling-origin backtest; see backtest.h for how the split and the origins are chosen and why.

#include "core/forecast/backtest.h"

#include <cmath>
#include <limits>

namespace tidepool::forecast {

Expected<BacktestSplit> makeSplit(std::size_t points, std::size_t horizon, std::size_t maxOrigins)
{
    if (horizon == 0)
        return makeError(ErrorCode::InvalidArgument, "the horizon must be at least one step");
    if (points < 2 * horizon)
        return makeError(ErrorCode::InvalidArgument,
            "the series has " + std::to_string(points) + " points, fewer than two horizons ("
                + std::to_string(2 * horizon) + ")");
    BacktestSplit split;
    split.points = points;
    split.horizon = horizon;
    split.heldOut = std::max(horizon, (points + 4) / 5);
    split.trainEnd = points - split.heldOut;
    const std::size_t span = split.heldOut - horizon; // from the first origin to the last
    const std::size_t spacing = (horizon + 3) / 4;
    const std::size_t count = std::min(std::max<std::size_t>(1, maxOrigins), 1 + (span + spacing - 1) / spacing);
    for (std::size_t k = 0; k < count; ++k) {
        const double offset
            = count == 1 ? 0.0 : static_cast<double>(span) * static_cast<double>(k) / static_cast<double>(count - 1);
        split.origins.push_back(split.trainEnd + static_cast<std::size_t>(std::llround(offset)));
    }
    return split;
}

MaseScale maseScale(const Series& series, const BacktestSplit& split)
{
    const std::size_t day = series.stepsPerDay();
    MaseScale scale;
    std::size_t lag = 1;
    scale.name = "naive";
    if (day > 0 && split.trainEnd >= 2 * day) {
        lag = day;
        scale.name = std::string(kSeasonalNaiveDaily);
    }
    double sum = 0, level = 0;
    std::size_t count = 0;
    for (std::size_t t = lag; t < split.trainEnd; ++t)
        if (!isGap(series.values[t]) && !isGap(series.values[t - lag])) {
            sum += std::abs(series.values[t] - series.values[t - lag]);
            level += std::abs(series.values[t]);
            ++count;
        }
    scale.mae = count ? sum / static_cast<double>(count) : 0;
    // A flat history's naive error is rounding, not error: dividing by it would make any forecast look unboundedly
    // bad. Below a millionth of the series' level it counts as none (MASE undefined).
    if (count && scale.mae <= kFlatNaiveError * level / static_cast<double>(count))
        scale.mae = 0;
    return scale;
}

double smapeTerm(double forecast, double actual)
{
    const double denominator = std::abs(forecast) + std::abs(actual);
    return denominator == 0 ? 0 : 200 * std::abs(forecast - actual) / denominator;
}

Expected<Scores> backtest(const Model& model, const Series& series, const BacktestSplit& split, const MaseScale& scale)
{
    double smapeSum = 0, absSum = 0;
    std::size_t covered = 0, count = 0;
    for (const std::size_t origin : split.origins) {
        const Series history = series.prefix(origin);
        auto f = model.forecast(history, split.horizon);
        if (!f)
            return makeError(f.error().code, "origin " + std::to_string(origin) + ": " + f.error().message);
        for (std::size_t h = 0; h < split.horizon && origin + h < series.size(); ++h) {
            const double actual = series.values[origin + h];
            if (isGap(actual))
                continue; // a gap in the held-out part says nothing about the forecast
            smapeSum += smapeTerm(f->mean[h], actual);
            absSum += std::abs(f->mean[h] - actual);
            covered += f->p10[h] <= actual && actual <= f->p90[h];
            ++count;
        }
    }
    Scores s;
    s.scoredPoints = count;
    if (count == 0)
        return makeError(ErrorCode::InvalidArgument, "the held-out part has no values to score");
    const double n = static_cast<double>(count);
    s.smapePct = smapeSum / n;
    s.mase = scale.mae > 0 ? absSum / n / scale.mae : std::numeric_limits<double>::quiet_NaN();
    s.coveragePct = 100.0 * static_cast<double>(covered) / n;
    return s;
}

} // namespace tidepool::forecast
