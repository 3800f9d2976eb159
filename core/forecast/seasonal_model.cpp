// The seasonal model. It never knows which series it is on: it builds a family of candidate forecasts from the
// history alone (candidates.cpp), scores them by rolling-origin validation on the most recent part of that history,
// averages the best, and takes its band from the errors that average made there (a split-conformal band).
//
// Two steps keep the validation honest about itself. The candidates that score best on the last few days are not
// always the best for the next one: a short memory fits the recent level and its noise alike. So the model also
// replays its own selection: at each validation origin it chooses the ensemble again from the origins whose windows
// ended before it, as it would have then, and records how that ensemble did. Those out-of-selection forecasts
//   - decide how far to shrink the ensemble towards the long-memory candidate (what `periodic` forecasts: the mean of
//     past cycles, or of the last day): by the weight, in quarters, whose blend did best there, and only where each
//     step towards it gains at least 2%;
//   - give the errors the band is made of, so that the band includes the cost of choosing, and widens where the
//     choice itself has been unstable. Each error is rescaled by how volatile the series is now against how
//     volatile it was before that origin (the square root of the ratio, see `kBandVolatilityWindowDays`), so that a
//     band measured on calm days widens when the series turns noisy and narrows when it calms down.
//
// The validation, the selection and the band see only the history passed in, so the model cannot peek at what it
// is asked to forecast.

#include "core/forecast/backtest.h"
#include "core/forecast/candidates.h"
#include "core/forecast/model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace tidepool::forecast {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The q-quantile of (value, weight) pairs: the smallest value whose cumulative weight reaches q of the total.
double weightedQuantile(std::vector<std::pair<double, double>>& samples, double q)
{
    if (samples.empty())
        return kNaN;
    std::sort(samples.begin(), samples.end());
    double total = 0;
    for (const auto& [value, weight] : samples)
        total += weight;
    double cumulative = 0;
    for (const auto& [value, weight] : samples) {
        cumulative += weight;
        if (cumulative >= q * total)
            return value;
    }
    return samples.back().first;
}

// The mean sMAPE of `forecast` against y[origin...]; a step the forecast has nothing for scores the worst possible
// term. NaN when every actual is a gap.
double windowSmape(const std::vector<double>& y, std::size_t origin, const std::vector<double>& forecast)
{
    double sum = 0;
    std::size_t count = 0;
    for (std::size_t h = 0; h < forecast.size(); ++h)
        if (!isGap(y[origin + h])) {
            const double term = smapeTerm(forecast[h], y[origin + h]);
            sum += isGap(term) ? 200 : term;
            ++count;
        }
    return count ? sum / static_cast<double>(count) : kNaN;
}

std::vector<double> blend(std::vector<double> a, const std::vector<double>& b, double weightOfB)
{
    for (std::size_t h = 0; h < a.size(); ++h)
        a[h] = (1 - weightOfB) * a[h] + weightOfB * b[h];
    return a;
}

// The mean absolute change between neighbouring means of `block` buckets over the `window` buckets before `end`
// (the blocks counted back from `end`, gaps skipped); NaN without a pair.
double volatilityBefore(const std::vector<double>& y, std::size_t end, std::size_t window, std::size_t block)
{
    double sum = 0, previous = kNaN;
    std::size_t count = 0;
    for (std::size_t stop = end; stop >= block && end - stop + block <= window; stop -= block) {
        double blockSum = 0;
        std::size_t values = 0;
        for (std::size_t t = stop - block; t < stop; ++t)
            if (!isGap(y[t])) {
                blockSum += y[t];
                ++values;
            }
        const double mean = values ? blockSum / static_cast<double>(values) : kNaN;
        if (!isGap(mean) && !isGap(previous)) {
            sum += std::abs(previous - mean);
            ++count;
        }
        previous = mean;
    }
    return count ? sum / static_cast<double>(count) : kNaN;
}

class SeasonalModel final : public Model {
public:
    std::string name() const override { return std::string(kSeasonalModel); }

    std::string unavailableReason(const Series& history) const override
    {
        const bool any = std::any_of(history.values.begin(), history.values.end(), [](double v) { return !isGap(v); });
        return any ? "" : "the history has no values";
    }

    Expected<Forecast> forecast(const Series& history, std::size_t horizon) const override;

private:
    static constexpr std::size_t kValidationOrigins = 16;
    static constexpr std::size_t kEnsembleSize = 10;
    static constexpr double kEnsembleSlack = 1.1;
    static constexpr std::size_t kBandSlices = 6;
    static constexpr double kOriginDecay = 0.9;
    static constexpr double kBandLow = 0.075;
    static constexpr std::size_t kMinReplayOrigins = 2; // older origins a replayed selection needs
    static constexpr double kShrinkGain = 0.98; // each step towards the long memory must cut the error by 2%
    // The volatility that rescales the band's errors: the mean absolute change from one 5-minute mean to the next
    // over the half day before an origin. Errors are scaled by the square root of (now / then), a partial adjustment,
    // since only part of the forecast error is the noise this measures; the factor stays within [1/2, 2]. The means
    // are over 5 minutes, the daemon's bucket and the scale the window and the power were chosen at: step to step,
    // a series sampled every 30 s changes mostly by sampling noise, whose level says little about the forecast's
    // errors, and its band would barely follow a change of the noise that matters (Alibaba `net_in` at 30 s: 55.6%
    // coverage against 75.3% for the same series at 5 minutes).
    static constexpr double kBandVolatilityWindowDays = 0.5;
    static constexpr double kBandVolatilityBlockSeconds = 300;
    static constexpr double kBandVolatilityPower = 0.5;
    static constexpr double kBandVolatilityMaxFactor = 2;
};

Expected<Forecast> SeasonalModel::forecast(const Series& history, std::size_t horizon) const
{
    if (std::string why = unavailableReason(history); !why.empty())
        return makeError(ErrorCode::InvalidArgument, name() + ": " + why);
    const std::vector<double>& y = history.values;
    const std::size_t n = y.size();
    const CandidateSet set = buildCandidates(history);
    const std::vector<Candidate>& candidates = set.candidates;
    const Range range = forecastRange(y);

    // Validation origins: every quarter of the (validation) horizon back from the end of the history, each with a
    // cycle of the longest period before it; a window ends at the horizon or at the end of the history, whichever
    // comes first. The most recent origins weigh most, and their windows are the short ones, so that a level shift of
    // the last hours already favours the candidates that follow it.
    const std::size_t validationHorizon = std::min(horizon, n / 3);
    const std::size_t stride = std::max<std::size_t>(1, validationHorizon / 4);
    std::size_t minOrigin = 1;
    for (const std::size_t period : set.periods)
        minOrigin = std::max(minOrigin, std::min(period, n / 3));
    std::vector<std::size_t> origins; // newest first
    for (std::size_t back = stride;
         validationHorizon > 0 && back <= n && n - back >= minOrigin && origins.size() < kValidationOrigins;
         back += stride)
        origins.push_back(n - back);

    // Every candidate's validation forecast and sMAPE at each origin.
    std::vector<std::vector<std::vector<double>>> predictions(candidates.size());
    std::vector<std::vector<double>> originSmape(candidates.size());
    for (const std::size_t o : origins) {
        const std::size_t length = std::min(validationHorizon, n - o);
        std::vector<ProfileRun> runs;
        for (const ProfileSpec& p : set.profiles)
            runs.push_back(runProfile(y, o, length, set.recentSteps, p));
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            predictions[i].push_back(applyCandidate(runs[candidates[i].profile], candidates[i], range));
            originSmape[i].push_back(windowSmape(y, o, predictions[i].back()));
        }
    }

    // The ensemble chosen from the origins `first` and older: the candidates by recency-weighted sMAPE, best first,
    // as many as score within the slack of the best.
    auto choose = [&](std::size_t first) {
        std::vector<double> score(candidates.size(), 0);
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            double weight = 1;
            for (std::size_t k = first; k < std::min(origins.size(), first + kValidationOrigins); ++k) {
                if (!isGap(originSmape[i][k]))
                    score[i] += weight * originSmape[i][k];
                weight *= kOriginDecay;
            }
        }
        std::vector<std::size_t> order(candidates.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return score[a] < score[b]; });
        std::size_t members = 1;
        while (members < std::min(kEnsembleSize, order.size())
            && score[order[members]] <= kEnsembleSlack * score[order[0]])
            ++members;
        order.resize(members);
        return order;
    };
    auto average = [](const std::vector<std::size_t>& members, auto&& forecastOf) {
        std::vector<double> out;
        for (const std::size_t i : members) {
            const std::vector<double> f = forecastOf(i);
            out.resize(f.size(), 0.0);
            for (std::size_t h = 0; h < f.size(); ++h)
                out[h] += f[h] / static_cast<double>(members.size());
        }
        return out;
    };
    const std::vector<std::size_t> chosen = choose(0);

    // The replayed selection: at origin k, the ensemble chosen from the origins whose windows had ended by then.
    // Origins too old to have enough such origins before them are not replayed.
    std::vector<std::vector<double>> replayed;
    for (std::size_t k = 0; k < origins.size(); ++k) {
        std::size_t first = k + 1;
        while (first < origins.size() && origins[first] + validationHorizon > origins[k])
            ++first;
        if (first + kMinReplayOrigins > origins.size())
            break;
        replayed.push_back(average(choose(first), [&](std::size_t i) { return predictions[i][k]; }));
    }

    // How far to shrink towards the long memory, judged on the replayed forecasts with every origin weighing the
    // same: the recent origins already drove the choice of the ensemble.
    double shrink = 0;
    if (set.longMemory != kNoCandidate && !replayed.empty()) {
        double best = std::numeric_limits<double>::infinity();
        for (const double w : { 0.0, 0.25, 0.5, 0.75, 1.0 }) {
            double score = 0;
            for (std::size_t k = 0; k < replayed.size(); ++k)
                if (const double s = windowSmape(y, origins[k], blend(replayed[k], predictions[set.longMemory][k], w));
                    !isGap(s))
                    score += s;
            if (score < best * (w == 0 ? 1.0 : kShrinkGain)) {
                best = score;
                shrink = w;
            }
        }
    }

    Forecast result;
    std::vector<ProfileRun> runs;
    for (const ProfileSpec& p : set.profiles)
        runs.push_back(runProfile(y, n, horizon, set.recentSteps, p));
    auto forecastOf = [&](std::size_t i) { return applyCandidate(runs[candidates[i].profile], candidates[i], range); };
    result.mean = average(chosen, forecastOf);
    if (shrink > 0)
        result.mean = blend(result.mean, forecastOf(set.longMemory), shrink);

    // The band: weighted quantiles of the replayed forecasts' errors (recent origins weigh most, as in the
    // selection), per sixth of the horizon, so that it widens as the errors of later steps do. Where nothing could
    // be replayed, the errors of the chosen ensemble itself at every origin stand in. Each origin's errors are
    // rescaled to today's volatility (see `kBandVolatilityWindowDays`). The quantiles are 7.5% and 92.5% rather than
    // 10% and 90% because the held-out future can still differ more from the recent past than the recent days
    // differed from the days before them.
    const std::size_t slices = std::min<std::size_t>(kBandSlices, validationHorizon);
    std::vector<std::vector<std::pair<double, double>>> errors(std::max<std::size_t>(1, slices));
    const std::size_t scored = replayed.empty() ? origins.size() : replayed.size();
    const std::size_t volatilityWindow = std::max<std::size_t>(3,
        static_cast<std::size_t>(std::lround(kBandVolatilityWindowDays * static_cast<double>(history.stepsPerDay()))));
    const std::size_t volatilityBlock = std::max<std::size_t>(1, history.stepsPer(kBandVolatilityBlockSeconds));
    const double volatilityNow = volatilityBefore(y, n, volatilityWindow, volatilityBlock);
    double originWeight = 1;
    for (std::size_t k = 0; k < scored; ++k, originWeight *= kOriginDecay) {
        const double volatilityThen = volatilityBefore(y, origins[k], volatilityWindow, volatilityBlock);
        const double factor = volatilityNow > 0 && volatilityThen > 0
            ? std::clamp(std::pow(volatilityNow / volatilityThen, kBandVolatilityPower), 1 / kBandVolatilityMaxFactor,
                kBandVolatilityMaxFactor)
            : 1.0; // NaN (no pairs) compares false as well
        std::vector<double> f
            = replayed.empty() ? average(chosen, [&](std::size_t i) { return predictions[i][k]; }) : replayed[k];
        if (shrink > 0)
            f = blend(f, predictions[set.longMemory][k], shrink);
        for (std::size_t h = 0; h < f.size(); ++h)
            if (!isGap(y[origins[k] + h]) && !isGap(f[h]))
                errors[h * slices / validationHorizon].emplace_back((y[origins[k] + h] - f[h]) * factor, originWeight);
    }
    // Without validation (a history too short for it) the band is the spread of the history around its median.
    std::vector<std::pair<double, double>> spread;
    const double middle = median(y);
    for (const double v : y)
        if (!isGap(v))
            spread.emplace_back(v - middle, 1.0);
    std::vector<std::pair<double, double>> sliceBand;
    for (auto& e : errors) {
        auto& samples = e.empty() ? spread : e;
        const double q10 = weightedQuantile(samples, kBandLow), q90 = weightedQuantile(samples, 1 - kBandLow);
        sliceBand.emplace_back(isGap(q10) ? 0.0 : std::min(0.0, q10), isGap(q90) ? 0.0 : std::max(0.0, q90));
    }
    result.p10.resize(horizon);
    result.p90.resize(horizon);
    for (std::size_t h = 0; h < horizon; ++h) {
        const auto [below, above]
            = sliceBand[std::min(sliceBand.size() - 1, h * slices / std::max<std::size_t>(1, validationHorizon))];
        result.p10[h] = std::max(range.low, result.mean[h] + below);
        result.p90[h] = result.mean[h] + above;
    }
    return result;
}

} // namespace

std::unique_ptr<Model> makeSeasonalModel()
{
    return std::make_unique<SeasonalModel>();
}

} // namespace tidepool::forecast
