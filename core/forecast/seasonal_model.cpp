// The seasonal model. It never knows which series it is on: it builds a family of candidate forecasts from the
// history alone, scores them by rolling-origin validation on the most recent part of that history, averages the
// best, and takes its band from the errors that average made there (a split-conformal band).
//
// Candidates, for each cycle (the detected periods, plus the calendar day and week when the history holds two of
// them and the series correlates with itself at that lag):
//   - a seasonal profile: the median or the trimmed mean of the same phase over the last K cycles (K = 1, 3, 7, 14,
//     as far as the history goes); the median ignores a spike in one cycle, the trimmed mean is steadier on noise,
//     and a gap in one cycle is covered by the others;
//   - re-anchored to the recent level: plus the median difference between the recent past and what the profile said
//     for it, either over the last quarter cycle and kept for the whole horizon (a level shift, or a steady growth:
//     the profile of older cycles lags it by a constant), or over the last hour and fading with a 3-hour time
//     constant (a passing excursion);
//   - each of those as is and smoothed over half an hour either side;
// and flat ones for series without a cycle: the median of the last hour, and the median and the mean of the last
// quarter day, day and three days.
//
// The validation, the selection and the band see only the history passed in, so the model cannot peek at what it
// is asked to forecast.

#include "core/forecast/backtest.h"
#include "core/forecast/model.h"
#include "core/forecast/period.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace tidepool::forecast {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

enum class Aggregate : std::uint8_t { Invalid = 0, Median = 1, Mean = 2 };

// A profile: the forecast of one cycle read from K earlier cycles, before any anchoring.
struct ProfileSpec {
    std::size_t period = 0; // 0 = flat (then `cycles` is the window of recent steps whose median it repeats)
    std::size_t cycles = 0;
    Aggregate aggregate = Aggregate::Median;
};

struct Candidate {
    std::size_t profile = 0; // index into the profile list
    std::size_t levelWindow = 0; // steps of recent data the level is anchored on; 0 = none
    double levelFadeSteps = 0; // the offset fades as exp(-h / this); 0 = it persists over the whole horizon
    std::size_t smoothHalfWidth = 0; // steps
};

struct Range {
    double low = std::numeric_limits<double>::infinity();
    double high = -std::numeric_limits<double>::infinity();
};

double lastValue(const std::vector<double>& y, std::size_t end)
{
    for (std::size_t t = end; t-- > 0;)
        if (!isGap(y[t]))
            return y[t];
    return kNaN;
}

// The mean without the highest and lowest sixth of the samples: nearly as steady as the mean on noise, and a
// spike in one of six or more cycles does not move it.
double trimmedMean(std::vector<double>& samples)
{
    std::sort(samples.begin(), samples.end());
    const std::size_t cut = samples.size() / 6;
    double sum = 0;
    for (std::size_t i = cut; i < samples.size() - cut; ++i)
        sum += samples[i];
    return sum / static_cast<double>(samples.size() - 2 * cut);
}

// The profile's value at bucket t from the cycles before `end` (so that t >= end forecasts and t < end fits).
double profileAt(
    const std::vector<double>& y, std::size_t end, std::size_t t, const ProfileSpec& p, std::vector<double>& scratch)
{
    scratch.clear();
    std::size_t back = t >= end ? ((t - end) / p.period + 1) * p.period : p.period;
    for (std::size_t c = 0; c < p.cycles && back <= t; ++c, back += p.period)
        if (!isGap(y[t - back]))
            scratch.push_back(y[t - back]);
    if (scratch.empty())
        return kNaN;
    return p.aggregate == Aggregate::Mean ? trimmedMean(scratch) : median(scratch);
}

// What a profile says for the recent past and the future of an origin, and the recent residuals against it.
struct ProfileRun {
    std::vector<double> future; // horizon steps after the origin
    std::vector<double> residuals; // y - profile over the last `recentSteps` buckets (NaN where unknown)
};

ProfileRun runProfile(
    const std::vector<double>& y, std::size_t end, std::size_t horizon, std::size_t recentSteps, const ProfileSpec& p)
{
    ProfileRun run;
    std::vector<double> scratch;
    const double last = lastValue(y, end);
    if (p.period == 0) {
        const std::size_t from = end - std::min(end, p.cycles);
        const std::vector<double> recent(
            y.begin() + static_cast<std::ptrdiff_t>(from), y.begin() + static_cast<std::ptrdiff_t>(end));
        const double level = p.aggregate == Aggregate::Mean ? meanOf(recent) : median(recent);
        run.future.assign(horizon, isGap(level) ? last : level);
        run.residuals.assign(std::min(end, recentSteps), kNaN);
        return run;
    }
    run.future.resize(horizon);
    for (std::size_t h = 0; h < horizon; ++h) {
        const double v = profileAt(y, end, end + h, p, scratch);
        run.future[h] = isGap(v) ? last : v;
    }
    for (std::size_t t = end - std::min(end, recentSteps); t < end; ++t)
        run.residuals.push_back(isGap(y[t]) ? kNaN : y[t] - profileAt(y, t, t, p, scratch));
    return run;
}

std::vector<double> applyCandidate(const ProfileRun& run, const Candidate& c, const Range& range)
{
    std::vector<double> out = run.future;
    if (c.levelWindow > 0) {
        const std::size_t n = run.residuals.size();
        const double offset = median(std::vector<double>(
            run.residuals.begin() + static_cast<std::ptrdiff_t>(n - std::min(n, c.levelWindow)), run.residuals.end()));
        for (std::size_t h = 0; h < out.size() && !isGap(offset); ++h)
            out[h] += offset * (c.levelFadeSteps > 0 ? std::exp(-static_cast<double>(h + 1) / c.levelFadeSteps) : 1.0);
    }
    if (c.smoothHalfWidth > 0) {
        std::vector<double> prefix(out.size() + 1, 0);
        for (std::size_t h = 0; h < out.size(); ++h)
            prefix[h + 1] = prefix[h] + out[h];
        for (std::size_t h = 0; h < out.size(); ++h) {
            const std::size_t lo = h - std::min(h, c.smoothHalfWidth);
            const std::size_t hi = std::min(out.size(), h + c.smoothHalfWidth + 1);
            out[h] = (prefix[hi] - prefix[lo]) / static_cast<double>(hi - lo);
        }
    }
    for (double& v : out)
        v = std::clamp(v, range.low, range.high);
    return out;
}

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
    static constexpr double kWeakCycle = 0.1;
};

Expected<Forecast> SeasonalModel::forecast(const Series& history, std::size_t horizon) const
{
    if (std::string why = unavailableReason(history); !why.empty())
        return makeError(ErrorCode::InvalidArgument, name() + ": " + why);
    const std::vector<double>& y = history.values;
    const std::size_t n = y.size();
    const std::size_t day = history.stepsPerDay();
    const std::size_t hour = std::max<std::size_t>(3, history.stepsPer(3600));

    // The cycles to try: the detected ones, then the calendar's day and week where two of them fit and the series
    // correlates with itself at that lag at least weakly (a cycle too faint for the detector can still help; one
    // with no correlation at all would only give the validation noise to fit).
    PeriodOptions periodOptions;
    periodOptions.calendarSteps = { day, history.stepsPerWeek() };
    std::vector<std::size_t> periods;
    for (const DetectedPeriod& p : detectPeriods(y, periodOptions))
        if (periods.size() < 2)
            periods.push_back(p.steps);
    const std::vector<double> acf = autocorrelation(y, std::min(n / 2, periodOptions.calendarSteps.back()));
    for (const std::size_t calendar : periodOptions.calendarSteps)
        if (calendar > 0 && n >= 2 * calendar && acf[calendar] >= kWeakCycle
            && std::find(periods.begin(), periods.end(), calendar) == periods.end())
            periods.push_back(calendar);

    // Flat levels: the median of the last hour, and the median and the mean of the last quarter day, day and three
    // days (a longer window is steadier, a shorter one follows a shift sooner).
    std::vector<ProfileSpec> profiles { { 0, hour, Aggregate::Median } };
    for (const std::size_t window : { std::max(hour, day / 4), std::max(hour, day), std::max(hour, 3 * day) })
        for (const Aggregate aggregate : { Aggregate::Median, Aggregate::Mean })
            profiles.push_back({ 0, window, aggregate });
    std::vector<Candidate> candidates;
    for (std::size_t i = 0; i < profiles.size(); ++i)
        candidates.push_back({ i, 0, 0, 0 });
    const std::size_t smooth = std::max<std::size_t>(1, history.stepsPer(1800));
    const double fade = static_cast<double>(std::max<std::size_t>(1, history.stepsPer(3 * 3600)));
    std::size_t recentSteps = hour;
    for (const std::size_t period : periods) {
        const std::size_t quarter = std::max(hour, period / 4);
        recentSteps = std::max(recentSteps, quarter);
        std::size_t previousCycles = 0;
        for (const std::size_t wanted : { 1, 3, 7, 14 }) {
            // More cycles than the history holds would repeat the previous profile under another name.
            const std::size_t cycles = std::min(wanted, std::max<std::size_t>(1, n / period));
            if (cycles == previousCycles)
                continue;
            previousCycles = cycles;
            for (const Aggregate aggregate : { Aggregate::Median, Aggregate::Mean }) {
                if (cycles == 1 && aggregate == Aggregate::Mean)
                    continue; // the same as the median of one
                profiles.push_back({ period, cycles, aggregate });
                const std::size_t profile = profiles.size() - 1;
                for (const std::size_t width : { std::size_t { 0 }, smooth }) {
                    candidates.push_back({ profile, 0, 0, width });
                    candidates.push_back({ profile, hour, fade, width });
                    candidates.push_back({ profile, quarter, 0, width });
                }
            }
        }
    }

    // Forecasts are kept inside the observed range widened by a quarter of it, and never below zero for a series
    // that never was: extrapolating further is a guess the validation cannot check.
    Range range;
    for (const double v : y)
        if (!isGap(v)) {
            range.low = std::min(range.low, v);
            range.high = std::max(range.high, v);
        }
    const double margin = (range.high - range.low) / 4;
    range.low = range.low >= 0 ? std::max(0.0, range.low - margin) : range.low - margin;
    range.high += margin;

    // Validation origins: every quarter of the (validation) horizon back from the end of the history, each with a
    // cycle of the longest period before it; a window ends at the horizon or at the end of the history, whichever
    // comes first. The most recent origins weigh most, and their windows are the short ones, so that a level shift of
    // the last hours already favours the candidates that follow it.
    const std::size_t validationHorizon = std::min(horizon, n / 3);
    const std::size_t stride = std::max<std::size_t>(1, validationHorizon / 4);
    std::size_t minOrigin = 1;
    for (const std::size_t period : periods)
        minOrigin = std::max(minOrigin, std::min(period, n / 3));
    std::vector<std::size_t> origins;
    for (std::size_t back = stride;
         validationHorizon > 0 && back <= n && n - back >= minOrigin && origins.size() < kValidationOrigins;
         back += stride)
        origins.push_back(n - back);

    // Every candidate's validation forecasts and its recency-weighted mean sMAPE.
    std::vector<std::vector<std::vector<double>>> predictions(candidates.size());
    std::vector<double> smapeSum(candidates.size(), 0);
    double weight = 1;
    for (const std::size_t o : origins) {
        const std::size_t length = std::min(validationHorizon, n - o);
        std::vector<ProfileRun> runs;
        for (const ProfileSpec& p : profiles)
            runs.push_back(runProfile(y, o, length, recentSteps, p));
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            predictions[i].push_back(applyCandidate(runs[candidates[i].profile], candidates[i], range));
            double sum = 0;
            std::size_t count = 0;
            for (std::size_t h = 0; h < length; ++h)
                if (!isGap(y[o + h])) {
                    // A candidate with nothing to say (no value before the origin) scores the worst possible term.
                    const double term = smapeTerm(predictions[i].back()[h], y[o + h]);
                    sum += isGap(term) ? 200 : term;
                    ++count;
                }
            if (count)
                smapeSum[i] += weight * sum / static_cast<double>(count);
        }
        weight *= kOriginDecay;
    }
    std::vector<std::size_t> order(candidates.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(
        order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return smapeSum[a] < smapeSum[b]; });
    std::size_t members = 1;
    while (members < std::min(kEnsembleSize, order.size())
        && smapeSum[order[members]] <= kEnsembleSlack * smapeSum[order[0]])
        ++members;
    auto average = [&](auto&& forecastOf) {
        std::vector<double> out;
        for (std::size_t m = 0; m < members; ++m) {
            const std::vector<double> f = forecastOf(order[m]);
            out.resize(f.size(), 0.0);
            for (std::size_t h = 0; h < f.size(); ++h)
                out[h] += f[h] / static_cast<double>(members);
        }
        return out;
    };

    Forecast result;
    std::vector<ProfileRun> runs;
    for (const ProfileSpec& p : profiles)
        runs.push_back(runProfile(y, n, horizon, recentSteps, p));
    result.mean
        = average([&](std::size_t i) { return applyCandidate(runs[candidates[i].profile], candidates[i], range); });

    // The band: weighted quantiles of the average's validation errors (recent origins weigh most, as in the
    // selection), per sixth of the horizon, so that it widens as the errors of later steps do. The quantiles are
    // 7.5% and 92.5% rather than 10% and 90% because errors measured where the candidates were chosen are
    // optimistic: the chosen ones did well there by construction.
    const std::size_t slices = std::min<std::size_t>(kBandSlices, validationHorizon);
    std::vector<std::vector<std::pair<double, double>>> errors(std::max<std::size_t>(1, slices));
    double originWeight = 1;
    for (std::size_t k = 0; k < origins.size(); ++k, originWeight *= kOriginDecay) {
        const std::vector<double> f = average([&](std::size_t i) { return predictions[i][k]; });
        for (std::size_t h = 0; h < f.size(); ++h)
            if (!isGap(y[origins[k] + h]) && !isGap(f[h]))
                errors[h * slices / validationHorizon].emplace_back(y[origins[k] + h] - f[h], originWeight);
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
