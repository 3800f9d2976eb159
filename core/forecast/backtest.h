#pragma once
// Rolling-origin backtest: how well a model would have forecast the final part of a series it never saw.
//
// The split, for a series of `points` buckets and a horizon of H steps:
//   - held out: the final max(H, ceil(points / 5)) buckets; the training part is everything before them. A series
//     shorter than 2 H buckets is refused, since the model would have less history than it has to forecast.
//   - origins: m forecasts, the first made at the start of the held-out part and the last at points - H, the rest
//     evenly spaced between them (rounded to whole steps), so that every forecast window lies wholly inside the
//     held-out part and together they cover all of it. m = 1 + ceil((held out - H) / ceil(H / 4)), at most
//     `maxOrigins`: neighbouring windows overlap by about three quarters.
//   - at each origin the model gets every bucket before it (the training part and the held-out buckets already
//     passed, as the live loop would) and nothing after it.
// Scoring pools every (origin, step) whose actual value is not a gap:
//   - sMAPE, in percent (0-200): mean of 200 |F - A| / (|F| + |A|), a term counting 0 when both are 0;
//   - MASE: mean |F - A| divided by the in-sample MAE of seasonal naive on the training part, with a lag of one day
//     when the training part holds two days, else one step (`maseScaleName` says which); NaN when that MAE is 0
//     or at most `kFlatNaiveError` of the series' mean level (a flat history: its naive error is rounding);
//   - coverage: the percentage of actual values inside [p10, p90] (80 is nominal).
//
// Thread affinity: none; a backtest runs on the calling thread.

#include "core/forecast/model.h"

#include <string>
#include <vector>

namespace tidepool::forecast {

struct BacktestSplit {
    std::size_t points = 0;
    std::size_t horizon = 0;
    std::size_t trainEnd = 0; // the first held-out bucket
    std::size_t heldOut = 0;
    std::vector<std::size_t> origins; // buckets at which a forecast is made
};

inline constexpr std::size_t kMaxBacktestOrigins = 24;

// The split described above; `InvalidArgument` for a zero horizon or a series shorter than two horizons.
Expected<BacktestSplit> makeSplit(
    std::size_t points, std::size_t horizon, std::size_t maxOrigins = kMaxBacktestOrigins);

inline constexpr double kFlatNaiveError = 1e-6;

struct MaseScale {
    double mae = 0;
    std::string name; // "seasonal-naive-daily" or "naive"
};
MaseScale maseScale(const Series& series, const BacktestSplit& split);

struct Scores {
    double smapePct = 0;
    double mase = 0;
    double coveragePct = 0;
    std::size_t scoredPoints = 0; // (origin, step) pairs with an actual value
};

// Forecasts from every origin of `split` with `model` and scores the forecasts. Fails when the model fails at an
// origin (its error is returned, prefixed with the origin).
Expected<Scores> backtest(const Model& model, const Series& series, const BacktestSplit& split, const MaseScale& scale);

// One term of sMAPE, in percent.
double smapeTerm(double forecast, double actual);

} // namespace tidepool::forecast
