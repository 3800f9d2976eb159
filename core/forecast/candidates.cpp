// The seasonal model's candidates. For each cycle (the detected periods, plus the calendar day and week when the
// history holds two of them and its hourly means correlate with themselves at that lag):
//   - a seasonal profile: the median or the trimmed mean of the same phase over the last K cycles (K = 1, 3, 7, 14,
//     as far as the history goes); the median ignores a spike in one cycle, the trimmed mean is steadier on noise,
//     and a gap in one cycle is covered by the others;
//   - re-anchored to the recent level: plus the median difference between the recent past and what the profile said
//     for it, either over the last quarter cycle and kept for the whole horizon (a level shift, or a steady growth:
//     the profile of older cycles lags it by a constant), or over the last hour and fading with a 3-hour time
//     constant (a passing excursion);
//   - each of those as is and smoothed over half an hour either side;
// flat ones for series without a cycle: the median of the last hour, and the median and the mean of the last
// quarter day, day and three days; and the long-memory one, what the `periodic` baseline forecasts: the plain mean of
// up to 8 past cycles of the strongest cycle of the raw signal, or without such a cycle the flat mean of the last day.
// It wins where the level wanders around a stable cycle (or a stable mean) and the recent hours only add their noise.

#include "core/forecast/candidates.h"

#include "core/forecast/period.h"

#include <algorithm>
#include <cmath>

namespace tidepool::forecast {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kWeakCycle = 0.1;
constexpr std::size_t kLongMemoryCycles = 8;

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

double aggregate(std::vector<double>& samples, Aggregate how)
{
    switch (how) {
    case Aggregate::Mean: return meanOf(samples);
    case Aggregate::TrimmedMean: return trimmedMean(samples);
    case Aggregate::Median:
    case Aggregate::Invalid: break;
    }
    return median(samples);
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
    return scratch.empty() ? kNaN : aggregate(scratch, p.aggregate);
}

} // namespace

std::vector<double> blockMeans(const std::vector<double>& y, std::size_t block)
{
    std::vector<double> out;
    for (std::size_t b = 0; block > 0 && b + block <= y.size(); b += block) {
        double sum = 0;
        std::size_t count = 0;
        for (std::size_t t = b; t < b + block; ++t)
            if (!isGap(y[t])) {
                sum += y[t];
                ++count;
            }
        out.push_back(count ? sum / static_cast<double>(count) : kNaN);
    }
    return out;
}

CandidateSet buildCandidates(const Series& history)
{
    const std::vector<double>& y = history.values;
    const std::size_t n = y.size();
    const std::size_t day = history.stepsPerDay();
    const std::size_t hour = std::max<std::size_t>(3, history.stepsPer(3600));
    CandidateSet set;

    // The cycles to try: the detected ones, then the calendar's day and week where two of them fit and the series
    // correlates with itself at that lag at least weakly (a cycle too faint for the detector can still help; one
    // with no correlation at all would only give the validation noise to fit).
    PeriodOptions periodOptions;
    periodOptions.calendarSteps = { day, history.stepsPerWeek() };
    for (const DetectedPeriod& p : detectPeriods(y, periodOptions))
        if (set.periods.size() < 2)
            set.periods.push_back(p.steps);
    // The correlation is measured on hourly means: a daily or weekly cycle is a feature of hours, and at a step of
    // minutes the noise of single buckets dilutes it (a busy request counter whose afternoons are twice its mornings
    // correlates at about 0.08 bucket by bucket and 0.34 hour by hour). The price is fewer pairs: on white noise of
    // ten days the hourly correlation at a day reaches the bar about one time in twenty (bucket by bucket never),
    // and then the validation has one more cycle to reject.
    const std::size_t block = std::max<std::size_t>(1, history.stepsPer(3600));
    const std::vector<double> hourly = blockMeans(y, block);
    const std::vector<double> acf
        = autocorrelation(hourly, std::min(hourly.size() / 2, periodOptions.calendarSteps.back() / block + 1));
    for (const std::size_t calendar : periodOptions.calendarSteps) {
        const std::size_t lag = (calendar + block / 2) / block;
        if (calendar > 0 && n >= 2 * calendar && lag < acf.size() && acf[lag] >= kWeakCycle
            && std::find(set.periods.begin(), set.periods.end(), calendar) == set.periods.end())
            set.periods.push_back(calendar);
    }

    // Flat levels: a longer window is steadier, a shorter one follows a shift sooner.
    set.profiles.push_back({ 0, hour, Aggregate::Median });
    std::size_t dayMean = kNoCandidate;
    for (const std::size_t window : { std::max(hour, day / 4), std::max(hour, day), std::max(hour, 3 * day) })
        for (const Aggregate how : { Aggregate::Median, Aggregate::Mean }) {
            set.profiles.push_back({ 0, window, how });
            if (window == std::max(hour, day) && how == Aggregate::Mean)
                dayMean = set.profiles.size() - 1;
        }
    for (std::size_t i = 0; i < set.profiles.size(); ++i)
        set.candidates.push_back({ i, 0, 0, 0 });

    const std::size_t smooth = std::max<std::size_t>(1, history.stepsPer(1800));
    const double fade = static_cast<double>(std::max<std::size_t>(1, history.stepsPer(3 * 3600)));
    set.recentSteps = hour;
    for (const std::size_t period : set.periods) {
        const std::size_t quarter = std::max(hour, period / 4);
        set.recentSteps = std::max(set.recentSteps, quarter);
        std::size_t previousCycles = 0;
        for (const std::size_t wanted : { 1, 3, 7, 14 }) {
            // More cycles than the history holds would repeat the previous profile under another name.
            const std::size_t cycles = std::min(wanted, std::max<std::size_t>(1, n / period));
            if (cycles == previousCycles)
                continue;
            previousCycles = cycles;
            for (const Aggregate how : { Aggregate::Median, Aggregate::TrimmedMean }) {
                if (cycles == 1 && how == Aggregate::TrimmedMean)
                    continue; // the same as the median of one
                set.profiles.push_back({ period, cycles, how });
                const std::size_t profile = set.profiles.size() - 1;
                for (const std::size_t width : { std::size_t { 0 }, smooth }) {
                    set.candidates.push_back({ profile, 0, 0, width });
                    set.candidates.push_back({ profile, hour, fade, width });
                    set.candidates.push_back({ profile, quarter, 0, width });
                }
            }
        }
    }

    // The long-memory candidate detects its cycle on the raw signal, as the `periodic` baseline does: clipping the
    // spikes can change which cycle is the strongest.
    PeriodOptions raw = periodOptions;
    raw.clipSpikes = false;
    if (const auto rawPeriods = detectPeriods(y, raw); !rawPeriods.empty()) {
        const std::size_t period = rawPeriods.front().steps;
        set.profiles.push_back({ period, std::clamp<std::size_t>(n / period, 1, kLongMemoryCycles), Aggregate::Mean });
        set.candidates.push_back({ set.profiles.size() - 1, 0, 0, 0 });
        set.longMemory = set.candidates.size() - 1;
    } else {
        // Without a raw cycle `periodic` forecasts the mean of the last day, flat (the flat profiles come first, one
        // candidate each, so the profile's index is the candidate's).
        set.longMemory = dayMean;
    }
    return set;
}

Range forecastRange(const std::vector<double>& y)
{
    Range range { std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity() };
    for (const double v : y)
        if (!isGap(v)) {
            range.low = std::min(range.low, v);
            range.high = std::max(range.high, v);
        }
    // Extrapolating further than a quarter of the range is a guess the validation cannot check.
    const double margin = (range.high - range.low) / 4;
    range.low = range.low >= 0 ? std::max(0.0, range.low - margin) : range.low - margin;
    range.high += margin;
    return range;
}

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
        const double level = p.aggregate == Aggregate::Median ? median(recent) : meanOf(recent);
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

} // namespace tidepool::forecast
