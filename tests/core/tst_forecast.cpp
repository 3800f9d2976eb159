// Load forecasting: period detection, the baselines' exact values, the seasonal model's candidates (a daily cycle
// found on hourly means where bucket noise hides it), its robustness to gaps, spikes and level shifts, its shrinkage
// towards the long memory (with a cycle and without), its band's coverage and how the band follows a change of
// volatility (also under sampling noise), the strict CSV loader, and a backtest on a slice of a real series.

#include "core/forecast/backtest.h"
#include "core/forecast/candidates.h"
#include "core/forecast/model.h"
#include "core/forecast/period.h"
#include "core/forecast/series.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <numbers>
#include <random>

using namespace tidepool;
using namespace tidepool::forecast;

namespace {

constexpr double kStepSeconds = 300;
constexpr std::size_t kDay = 288; // steps of 5 minutes
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A daily cycle (a sine of amplitude `amplitude` around `level`) with Gaussian noise, `days` long.
Series dailySeries(double days, double level, double amplitude, double noise, std::uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<double> gauss(0, noise);
    Series s;
    s.stepSeconds = kStepSeconds;
    const auto n = static_cast<std::size_t>(days * kDay);
    for (std::size_t t = 0; t < n; ++t)
        s.values.push_back(level + amplitude * std::sin(2 * std::numbers::pi * static_cast<double>(t) / kDay)
            + (noise > 0 ? gauss(rng) : 0));
    return s;
}

std::string writeFile(const QTemporaryDir& dir, const std::string& name, const std::string& text)
{
    const std::string path = dir.path().toStdString() + "/" + name;
    std::ofstream(path) << text;
    return path;
}

double smapeAgainst(const std::vector<double>& forecast, const std::vector<double>& truth)
{
    double sum = 0;
    for (std::size_t h = 0; h < forecast.size(); ++h)
        sum += smapeTerm(forecast[h], truth[h]);
    return sum / static_cast<double>(forecast.size());
}

} // namespace

class TestForecast : public QObject {
    Q_OBJECT

private slots:
    void fftMatchesTheDirectTransform();
    void detectsADailyPeriod();
    void detectsAWeeklyPeriodOnTopOfADailyOne();
    void detectsNoPeriodInNoiseOrARandomWalk();
    void seasonalNaiveRepeatsTheSameTimeOnePeriodAgo();
    void weeklyBaselineNeedsTwoWeeks();
    void periodicAveragesPastCycles();
    void modelSkipsGapsAndIgnoresSpikes();
    void modelReanchorsAfterALevelShift();
    void bandCoversAboutEightyPercentOfNoise();
    void maseIsUndefinedOnAFlatHistory();
    void bandNarrowsWhenTheNoiseCalmsDown();
    void bandFollowsTheNoiseUnderSamplingNoise();
    void candidatesIncludeTheLongMemoryMean();
    void candidatesFindADailyCycleHiddenInBucketNoise();
    void blockMeansSkipGapsAndDropAPartialRun();
    void modelMatchesTheLongMemoryOnAStableNoisyCycle();
    void modelLeansOnTheLongMemoryWhenRecentLevelsDoNotLast();
    void modelLeansOnTheDayMeanWhenAcyclicLevelsDoNotLast();
    void modelGivesAFiniteBandOnAShortHistory();
    void splitHoldsOutTheFinalPartAndCoversIt();
    void loaderErrorsNameFileLineAndField_data();
    void loaderErrorsNameFileLineAndField();
    void loaderPlacesTimestampsOnTheGridWithGaps();
    void loaderAveragesDuplicatesOnlyWhenAsked();
    void modelBeatsSeasonalNaiveOnARealSlice();
};

void TestForecast::fftMatchesTheDirectTransform()
{
    std::vector<std::complex<double>> data { 1, 2, -1, 0.5, 3, 0, -2, 1 };
    const auto input = data;
    fft(data, false);
    for (std::size_t k = 0; k < input.size(); ++k) {
        std::complex<double> direct = 0;
        for (std::size_t t = 0; t < input.size(); ++t)
            direct += input[t] * std::polar(1.0, -2 * std::numbers::pi * double(k * t) / double(input.size()));
        QVERIFY(std::abs(direct - data[k]) < 1e-9);
    }
    fft(data, true);
    for (std::size_t t = 0; t < input.size(); ++t)
        QVERIFY(std::abs(data[t] / double(input.size()) - input[t]) < 1e-9);
}

void TestForecast::detectsADailyPeriod()
{
    const Series s = dailySeries(10, 50, 20, 5, 1);
    PeriodOptions options;
    options.calendarSteps = { kDay, 7 * kDay };
    const auto periods = detectPeriods(s.values, options);
    QVERIFY(!periods.empty());
    QCOMPARE(periods.front().steps, kDay);
    // Without the calendar's hint the autocorrelation peak alone finds it, within a step or two.
    const auto blind = detectPeriods(s.values, PeriodOptions {});
    QVERIFY(!blind.empty());
    QVERIFY(std::abs(double(blind.front().steps) - double(kDay)) <= 3);
}

void TestForecast::detectsAWeeklyPeriodOnTopOfADailyOne()
{
    // Five weeks of a daily cycle whose weekends run at a third of the weekday load.
    Series s = dailySeries(35, 0, 1, 0.1, 2);
    for (std::size_t t = 0; t < s.size(); ++t) {
        const bool weekend = (t / kDay) % 7 >= 5;
        s.values[t] = (weekend ? 10 : 30) + (weekend ? 3 : 10) * s.values[t];
    }
    PeriodOptions options;
    options.calendarSteps = { kDay, 7 * kDay };
    const auto periods = detectPeriods(s.values, options);
    QVERIFY(std::any_of(periods.begin(), periods.end(), [](const DetectedPeriod& p) { return p.steps == 7 * kDay; }));
}

void TestForecast::detectsNoPeriodInNoiseOrARandomWalk()
{
    std::mt19937 rng(3);
    std::normal_distribution<double> gauss(0, 1);
    std::vector<double> noise, walk;
    double position = 0;
    for (std::size_t t = 0; t < 10 * kDay; ++t) {
        noise.push_back(gauss(rng));
        walk.push_back(position += gauss(rng));
    }
    PeriodOptions options;
    options.calendarSteps = { kDay, 7 * kDay };
    QVERIFY(detectPeriods(noise, options).empty());
    QVERIFY(detectPeriods(walk, options).empty());
}

void TestForecast::seasonalNaiveRepeatsTheSameTimeOnePeriodAgo()
{
    // Steps of 6 hours: a day is 4 steps. The value at bucket t is t, and bucket 9 (yesterday's third step) is a gap.
    Series s;
    s.stepSeconds = 6 * 3600;
    for (int t = 0; t < 12; ++t)
        s.values.push_back(t);
    s.values[9] = kNaN;
    const auto daily = ModelRegistry::withBuiltins().make(kSeasonalNaiveDaily);
    auto f = daily->forecast(s, 6);
    QVERIFY(f);
    // Steps 12..17 repeat 8, 9 (a gap, so two days back: 5), 10, 11, then 8 and 9 -> 5 again.
    const std::vector<double> expected { 8, 5, 10, 11, 8, 5 };
    QCOMPARE(f->mean, expected);
    // The band comes from the day-over-day differences of the history (all +4 here), so it is mean + 4.
    for (std::size_t h = 0; h < expected.size(); ++h) {
        QCOMPARE(f->p10[h], expected[h] + 4);
        QCOMPARE(f->p90[h], expected[h] + 4);
    }
}

void TestForecast::weeklyBaselineNeedsTwoWeeks()
{
    Series s;
    s.stepSeconds = 6 * 3600; // a week is 28 steps
    for (int t = 0; t < 55; ++t)
        s.values.push_back(t % 28);
    const auto weekly = ModelRegistry::withBuiltins().make(kSeasonalNaiveWeekly);
    QVERIFY(!weekly->unavailableReason(s).empty());
    QVERIFY(!weekly->forecast(s, 4));
    s.values.push_back(55 % 28);
    QVERIFY(weekly->unavailableReason(s).empty());
    auto f = weekly->forecast(s, 4);
    QVERIFY(f);
    QCOMPARE(f->mean, (std::vector<double> { 0, 1, 2, 3 }));
}

void TestForecast::periodicAveragesPastCycles()
{
    // Twelve cycles of 4 steps (1, 5, 3, 2); in the tenth the second value is 13. The periodic baseline averages the
    // last eight cycles, so it forecasts (7 x 5 + 13) / 8 = 6 there, where a median would say 5.
    Series s;
    s.stepSeconds = 6 * 3600; // a day is 4 steps
    for (int c = 0; c < 12; ++c)
        for (const double v : { 1.0, c == 9 ? 13.0 : 5.0, 3.0, 2.0 })
            s.values.push_back(v);
    auto f = ModelRegistry::withBuiltins().make(kPeriodic)->forecast(s, 8);
    QVERIFY(f);
    QCOMPARE(f->mean, (std::vector<double> { 1, 6, 3, 2, 1, 6, 3, 2 }));
}

void TestForecast::modelSkipsGapsAndIgnoresSpikes()
{
    const Series clean = dailySeries(8, 50, 20, 0, 4);
    Series s = clean.prefix(7 * kDay);
    std::mt19937 rng(5);
    for (std::size_t t = 0; t < s.size(); ++t) {
        if (rng() % 20 == 0)
            s.values[t] = kNaN; // 5% of the buckets missing
        else if (rng() % 100 == 0)
            s.values[t] = 1000; // a spike every few hours
    }
    auto f = ModelRegistry::withBuiltins().make(kSeasonalModel)->forecast(s, kDay);
    QVERIFY(f);
    for (std::size_t h = 0; h < kDay; ++h)
        QVERIFY(std::isfinite(f->mean[h]) && std::isfinite(f->p10[h]) && std::isfinite(f->p90[h]));
    const std::vector<double> truth(clean.values.begin() + 7 * kDay, clean.values.end());
    const double smape = smapeAgainst(f->mean, truth);
    QVERIFY2(smape < 3, std::to_string(smape).c_str());
}

void TestForecast::modelReanchorsAfterALevelShift()
{
    // Seven days of a daily cycle, then the load steps up by 40 half a day before a 24-hour forecast is made.
    Series s = dailySeries(7, 30, 10, 1, 6);
    const std::size_t shiftAt = s.size() - kDay / 2;
    for (std::size_t t = shiftAt; t < s.size(); ++t)
        s.values[t] += 40;
    auto f = ModelRegistry::withBuiltins().make(kSeasonalModel)->forecast(s, kDay);
    auto naive = ModelRegistry::withBuiltins().make(kSeasonalNaiveDaily)->forecast(s, kDay);
    QVERIFY(f && naive);
    // Over the next half day, yesterday's values are all from before the shift: the model must follow the new level
    // where seasonal naive cannot.
    double modelError = 0, naiveError = 0;
    for (std::size_t h = 0; h < kDay / 2; ++h) {
        const double truth = 70 + 10 * std::sin(2 * std::numbers::pi * double(s.size() + h) / kDay);
        modelError += std::abs(f->mean[h] - truth) / (kDay / 2);
        naiveError += std::abs(naive->mean[h] - truth) / (kDay / 2);
    }
    QVERIFY2(modelError < 3, std::to_string(modelError).c_str());
    QVERIFY(naiveError > 30);
}

void TestForecast::bandCoversAboutEightyPercentOfNoise()
{
    const Series s = dailySeries(12, 100, 30, 8, 7);
    const auto split = makeSplit(s.size(), kDay);
    QVERIFY(split);
    const auto model = ModelRegistry::withBuiltins().make(kSeasonalModel);
    const auto scores = backtest(*model, s, *split, maseScale(s, *split));
    QVERIFY(scores);
    QVERIFY2(scores->coveragePct >= 70 && scores->coveragePct <= 92, std::to_string(scores->coveragePct).c_str());
}

void TestForecast::maseIsUndefinedOnAFlatHistory()
{
    // A pool's steady demand: seasonal naive is right but for rounding, so any forecast's error over it would be a
    // MASE in the millions.
    Series s = dailySeries(4, 4000, 0, 0, 1);
    for (std::size_t t = 0; t < s.size(); ++t)
        s.values[t] += 1e-9 * static_cast<double>(t % 7); // a day is not a multiple of 7 steps: naive is off by ~1e-9
    s.values.back() = 4010; // the held-out part moves a little
    const auto split = makeSplit(s.size(), kDay);
    QVERIFY(split);
    const MaseScale flat = maseScale(s, *split);
    QCOMPARE(flat.mae, 0.0);
    const auto scores = backtest(*ModelRegistry::withBuiltins().make(kSeasonalModel), s, *split, flat);
    QVERIFY(scores);
    QVERIFY2(std::isnan(scores->mase), std::to_string(scores->mase).c_str());
    // A history that moves keeps its scale, however small against its level.
    Series moving = dailySeries(4, 4000, 0, 0.5, 1);
    QVERIFY(maseScale(moving, *split).mae > 0);
}

void TestForecast::bandNarrowsWhenTheNoiseCalmsDown()
{
    // A daily cycle under heavy noise (8) for nine days, then light noise (2): the held-out part (from day 9.6) is
    // calm, while the days the band is measured on were mostly noisy. Rescaling each validation error by the
    // volatility now against the volatility before its origin narrows the band to the calm days (97% coverage
    // without it).
    Series s = dailySeries(12, 100, 20, 2, 21);
    std::mt19937 rng(121);
    std::normal_distribution<double> gauss(0, 1);
    for (std::size_t t = 0; t < 9 * kDay; ++t)
        s.values[t] += 8 * gauss(rng);
    const auto split = makeSplit(s.size(), kDay);
    QVERIFY(split);
    QVERIFY(split->origins.front() > 9 * kDay + kDay / 2); // a half day of calm before the first forecast
    const auto scores = backtest(*ModelRegistry::withBuiltins().make(kSeasonalModel), s, *split, maseScale(s, *split));
    QVERIFY(scores);
    QVERIFY2(scores->coveragePct >= 70 && scores->coveragePct <= 92, std::to_string(scores->coveragePct).c_str());
}

void TestForecast::bandFollowsTheNoiseUnderSamplingNoise()
{
    // The same calming series sampled every 30 s, each 5-minute value held for ten samples with light sampling noise
    // (3) on every one. Step to step the series now changes mostly by that sampling noise, which never calms; the
    // volatility is measured on 5-minute means, so that the band still narrows to the calm days. Measured step to
    // step it barely narrows: 94% coverage here, against 83% on 5-minute means.
    const Series coarse = [] {
        Series s = dailySeries(12, 100, 20, 2, 21);
        std::mt19937 rng(121);
        std::normal_distribution<double> gauss(0, 1);
        for (std::size_t t = 0; t < 9 * kDay; ++t)
            s.values[t] += 8 * gauss(rng);
        return s;
    }();
    Series s;
    s.stepSeconds = kStepSeconds / 10;
    std::mt19937 rng(131);
    std::normal_distribution<double> sampling(0, 3);
    for (const double v : coarse.values)
        for (int i = 0; i < 10; ++i)
            s.values.push_back(v + sampling(rng));
    const auto split = makeSplit(s.size(), 10 * kDay, 4);
    QVERIFY(split);
    QVERIFY(split->origins.front() > 10 * (9 * kDay + kDay / 2));
    const auto scores = backtest(*ModelRegistry::withBuiltins().make(kSeasonalModel), s, *split, maseScale(s, *split));
    QVERIFY(scores);
    QVERIFY2(scores->coveragePct >= 70 && scores->coveragePct <= 92, std::to_string(scores->coveragePct).c_str());
}

void TestForecast::candidatesIncludeTheLongMemoryMean()
{
    // With a daily cycle, the long-memory candidate is the plain mean of the same phase over up to 8 past days (the
    // `periodic` baseline's forecast), so that the selection can pick what that baseline does.
    const CandidateSet cyclic = buildCandidates(dailySeries(12, 50, 20, 2, 8));
    QVERIFY(cyclic.longMemory != kNoCandidate);
    const ProfileSpec& profile = cyclic.profiles[cyclic.candidates[cyclic.longMemory].profile];
    QCOMPARE(profile.period, kDay);
    QCOMPARE(profile.cycles, std::size_t { 8 });
    QCOMPARE(profile.aggregate, Aggregate::Mean);
    const CandidateSet shortCyclic = buildCandidates(dailySeries(3, 50, 20, 2, 8));
    QVERIFY(shortCyclic.longMemory != kNoCandidate);
    QCOMPARE(shortCyclic.profiles[shortCyclic.candidates[shortCyclic.longMemory].profile].cycles, std::size_t { 3 });
    // Without a cycle it is the flat mean of the last day, unanchored: what `periodic` forecasts then.
    const CandidateSet flat = buildCandidates(dailySeries(6, 50, 0, 2, 9));
    QVERIFY(flat.longMemory != kNoCandidate);
    const Candidate& dayMean = flat.candidates[flat.longMemory];
    QCOMPARE(flat.profiles[dayMean.profile].period, std::size_t { 0 });
    QCOMPARE(flat.profiles[dayMean.profile].cycles, kDay);
    QCOMPARE(flat.profiles[dayMean.profile].aggregate, Aggregate::Mean);
    QCOMPARE(dayMean.levelWindow, std::size_t { 0 });
    QCOMPARE(dayMean.smoothHalfWidth, std::size_t { 0 });
}

void TestForecast::candidatesFindADailyCycleHiddenInBucketNoise()
{
    // A busy counter: afternoons well above mornings, but every 5-minute bucket carries noise twice the cycle's
    // amplitude, so that bucket by bucket the series barely correlates with itself a day later. Its hourly means do;
    // the daily cycle must be among the candidates, and with it the model must beat `periodic`, which finds no cycle
    // on the raw signal and forecasts the flat mean of the last day. Without the hourly check the model has no daily
    // candidate here and does no better than that mean: over seeds 31-40 it scores 1.004-1.012 times `periodic`'s
    // sMAPE, with the check 0.96-0.99 (0.959 for this seed).
    Series s = dailySeries(14, 150, 25, 60, 35);
    for (double& v : s.values)
        v = std::max(0.0, v);
    QVERIFY(autocorrelation(s.values, kDay)[kDay] < 0.1); // too faint bucket by bucket
    QVERIFY(autocorrelation(blockMeans(s.values, 12), 24)[24] >= 0.1);
    const Series history = s.prefix(12 * kDay);
    const CandidateSet set = buildCandidates(history);
    QVERIFY(std::find(set.periods.begin(), set.periods.end(), kDay) != set.periods.end());

    const auto split = makeSplit(s.size(), kDay);
    QVERIFY(split);
    const ModelRegistry registry = ModelRegistry::withBuiltins();
    const MaseScale scale = maseScale(s, *split);
    const auto ours = backtest(*registry.make(kSeasonalModel), s, *split, scale);
    const auto periodic = backtest(*registry.make(kPeriodic), s, *split, scale);
    QVERIFY(ours && periodic);
    QVERIFY2(ours->smapePct < 0.98 * periodic->smapePct,
        (std::to_string(ours->smapePct) + " vs " + std::to_string(periodic->smapePct)).c_str());
}

void TestForecast::blockMeansSkipGapsAndDropAPartialRun()
{
    const std::vector<double> y { 1, 3, kNaN, 5, kNaN, kNaN, 7 };
    const std::vector<double> means = blockMeans(y, 2);
    QCOMPARE(means.size(), std::size_t { 3 });
    QCOMPARE(means[0], 2.0);
    QCOMPARE(means[1], 5.0);
    QVERIFY(std::isnan(means[2]));
}

void TestForecast::modelMatchesTheLongMemoryOnAStableNoisyCycle()
{
    // A stable daily cycle under heavy noise: the mean of many past days is the best forecast, and the recent days
    // that the validation sees only add their noise. The replayed selection must notice and lean on the long memory.
    const Series s = dailySeries(12, 100, 20, 15, 10);
    const auto split = makeSplit(s.size(), kDay);
    QVERIFY(split);
    const ModelRegistry registry = ModelRegistry::withBuiltins();
    const MaseScale scale = maseScale(s, *split);
    const auto ours = backtest(*registry.make(kSeasonalModel), s, *split, scale);
    const auto periodic = backtest(*registry.make(kPeriodic), s, *split, scale);
    QVERIFY(ours && periodic);
    QVERIFY2(ours->smapePct <= 1.01 * periodic->smapePct,
        (std::to_string(ours->smapePct) + " vs " + std::to_string(periodic->smapePct)).c_str());
    QVERIFY2(ours->coveragePct >= 70 && ours->coveragePct <= 92, std::to_string(ours->coveragePct).c_str());
}

void TestForecast::modelLeansOnTheLongMemoryWhenRecentLevelsDoNotLast()
{
    // A daily cycle whose level jumps to a new random offset every half day: what the last hours say about the level
    // is gone by the next half day, so the mean of past cycles forecasts better than the recent ones, although the
    // recent ones win the validation windows that start inside a plateau. The replayed selection must see that and
    // shrink towards the long memory (without that shrinkage the model is 27% worse than `periodic` here).
    Series s = dailySeries(12, 100, 20, 5, 11);
    std::mt19937 rng(111);
    std::normal_distribution<double> jump(0, 15);
    double offset = 0;
    for (std::size_t t = 0; t < s.size(); ++t) {
        if (t % (kDay / 2) == kDay / 4)
            offset = jump(rng);
        s.values[t] += offset;
    }
    const auto split = makeSplit(s.size(), kDay);
    QVERIFY(split);
    const ModelRegistry registry = ModelRegistry::withBuiltins();
    const MaseScale scale = maseScale(s, *split);
    const auto ours = backtest(*registry.make(kSeasonalModel), s, *split, scale);
    const auto periodic = backtest(*registry.make(kPeriodic), s, *split, scale);
    QVERIFY(ours && periodic);
    QVERIFY2(ours->smapePct <= 1.2 * periodic->smapePct,
        (std::to_string(ours->smapePct) + " vs " + std::to_string(periodic->smapePct)).c_str());
}

void TestForecast::modelLeansOnTheDayMeanWhenAcyclicLevelsDoNotLast()
{
    // The same without a cycle: a level that jumps to a new random offset every half day. `periodic` forecasts the
    // mean of the last day, flat, and the model's long memory is that mean: the replayed selection must shrink towards
    // it (without that candidate the model is 24% worse than `periodic` and worse than seasonal naive here).
    Series s = dailySeries(12, 100, 0, 5, 22);
    std::mt19937 rng(29);
    std::normal_distribution<double> jump(0, 15);
    double offset = 0;
    for (std::size_t t = 0; t < s.size(); ++t) {
        if (t % (kDay / 2) == kDay / 4)
            offset = jump(rng);
        s.values[t] += offset;
    }
    const auto split = makeSplit(s.size(), kDay);
    QVERIFY(split);
    const ModelRegistry registry = ModelRegistry::withBuiltins();
    const MaseScale scale = maseScale(s, *split);
    const auto ours = backtest(*registry.make(kSeasonalModel), s, *split, scale);
    const auto periodic = backtest(*registry.make(kPeriodic), s, *split, scale);
    const auto naive = backtest(*registry.make(kSeasonalNaiveDaily), s, *split, scale);
    QVERIFY(ours && periodic && naive);
    QVERIFY2(ours->smapePct <= 1.1 * periodic->smapePct && ours->smapePct < naive->smapePct,
        (std::to_string(ours->smapePct) + " vs " + std::to_string(periodic->smapePct) + " and "
            + std::to_string(naive->smapePct))
            .c_str());
}

void TestForecast::modelGivesAFiniteBandOnAShortHistory()
{
    // Two days: too few validation origins to replay the selection, so the band falls back to the chosen ensemble's
    // own validation errors; it must still hold the mean and be finite.
    const Series s = dailySeries(2, 40, 10, 1, 11);
    auto f = ModelRegistry::withBuiltins().make(kSeasonalModel)->forecast(s, kDay / 2);
    QVERIFY(f);
    for (std::size_t h = 0; h < f->size(); ++h) {
        QVERIFY(std::isfinite(f->mean[h]) && std::isfinite(f->p10[h]) && std::isfinite(f->p90[h]));
        QVERIFY(f->p10[h] <= f->mean[h] && f->mean[h] <= f->p90[h]);
    }
    QVERIFY(f->p90.front() > f->p10.front()); // the noise gives the band a width
}

void TestForecast::splitHoldsOutTheFinalPartAndCoversIt()
{
    const auto split = makeSplit(1000, 100);
    QVERIFY(split);
    QCOMPARE(split->heldOut, std::size_t { 200 }); // a fifth, more than one horizon
    QCOMPARE(split->trainEnd, std::size_t { 800 });
    QCOMPARE(split->origins, (std::vector<std::size_t> { 800, 825, 850, 875, 900 }));
    const auto short_ = makeSplit(300, 100);
    QVERIFY(short_);
    QCOMPARE(short_->heldOut, std::size_t { 100 }); // one horizon: a fifth would be less
    QCOMPARE(short_->origins, (std::vector<std::size_t> { 200 }));
    QVERIFY(!makeSplit(199, 100));
    QVERIFY(!makeSplit(1000, 0));
}

void TestForecast::loaderErrorsNameFileLineAndField_data()
{
    QTest::addColumn<QString>("csv");
    QTest::addColumn<QString>("where");
    QTest::newRow("missing column") << QStringLiteral("timestamp,other\n2014-02-14 14:30:00,1\n")
                                    << QStringLiteral(":1: field 'value': missing column");
    QTest::newRow("non-numeric") << QStringLiteral("timestamp,value\n2014-02-14 14:30:00,1\n2014-02-14 14:35:00,1.5x\n")
                                 << QStringLiteral(":3: field 'value': not a number: '1.5x'");
    QTest::newRow("wrong field count") << QStringLiteral("timestamp,value\n2014-02-14 14:30:00,1,2\n")
                                       << QStringLiteral(":2: expected 2 fields, found 3");
    QTest::newRow("bad timestamp") << QStringLiteral("timestamp,value\n2014-02-31 25:00:00,1\n")
                                   << QStringLiteral(":2: field 'timestamp': not a timestamp");
    QTest::newRow("out of order") << QStringLiteral("timestamp,value\n2014-02-14 14:30:00,1\n2014-02-14 14:40:00,1\n"
                                                    "2014-02-14 14:35:00,1\n")
                                  << QStringLiteral(":4: field 'timestamp': timestamp '2014-02-14 14:35:00' is earlier "
                                                    "than line 3");
    QTest::newRow("duplicated") << QStringLiteral("timestamp,value\n2014-02-14 14:30:00,1\n2014-02-14 14:30:00,2\n")
                                << QStringLiteral(
                                       ":3: field 'timestamp': duplicated timestamp: falls in the same 300 s "
                                       "step as line 2");
}

void TestForecast::loaderErrorsNameFileLineAndField()
{
    QFETCH(QString, csv);
    QFETCH(QString, where);
    QTemporaryDir dir;
    const std::string path = writeFile(dir, "bad.csv", csv.toStdString());
    SeriesCsvOptions options;
    options.column = "value";
    options.stepSeconds = kStepSeconds;
    const auto loaded = loadSeriesCsv(path, options);
    QVERIFY(!loaded);
    QCOMPARE(loaded.error().code, ErrorCode::ParseError);
    const std::string message = loaded.error().message;
    QVERIFY2(message.find(path + where.toStdString()) == 0, message.c_str());
}

void TestForecast::loaderPlacesTimestampsOnTheGridWithGaps()
{
    QTemporaryDir dir;
    // 14:35 is missing, 14:41 is a minute late (it rounds to 14:40), and 14:45's value is empty.
    const std::string path = writeFile(dir, "s.csv",
        "timestamp,value\n2014-02-14 14:30:00,1\n2014-02-14 14:41:00,3\n2014-02-14 14:45:00,\n"
        "2014-02-14 14:50:00,0\n");
    SeriesCsvOptions options;
    options.column = "value";
    options.stepSeconds = kStepSeconds;
    const auto loaded = loadSeriesCsv(path, options);
    QVERIFY(loaded);
    QVERIFY(loaded->timestamped);
    const auto& v = loaded->series.values;
    QCOMPARE(v.size(), std::size_t { 5 });
    QCOMPARE(v[0], 1.0);
    QVERIFY(std::isnan(v[1])); // a gap, not a zero
    QCOMPARE(v[2], 3.0);
    QVERIFY(std::isnan(v[3]));
    QCOMPARE(v[4], 0.0); // a real zero stays a zero
    QCOMPARE(loaded->gapBuckets, std::size_t { 2 });

    // Without a timestamp column, row i is bucket i.
    const std::string plain = writeFile(dir, "p.csv", "cpu,mem\n1,2\n3,4\n");
    options.column = "mem";
    const auto rows = loadSeriesCsv(plain, options);
    QVERIFY(rows && !rows->timestamped);
    QCOMPARE(rows->series.values, (std::vector<double> { 2, 4 }));
}

void TestForecast::loaderAveragesDuplicatesOnlyWhenAsked()
{
    QTemporaryDir dir;
    const std::string path = writeFile(
        dir, "d.csv", "timestamp,value\n2014-03-09 01:55:00,1\n2014-03-09 03:00:00,2\n2014-03-09 03:00:00,4\n");
    SeriesCsvOptions options;
    options.column = "value";
    options.stepSeconds = kStepSeconds;
    QVERIFY(!loadSeriesCsv(path, options));
    options.duplicates = DuplicateTimestamps::Average;
    const auto loaded = loadSeriesCsv(path, options);
    QVERIFY(loaded);
    QCOMPARE(loaded->mergedRows, std::size_t { 1 });
    QCOMPARE(loaded->series.values.size(), std::size_t { 14 }); // 01:55 .. 03:00, the missing hour as gaps
    QCOMPARE(loaded->series.values.back(), 3.0);
}

void TestForecast::modelBeatsSeasonalNaiveOnARealSlice()
{
    // The first 14 days of the Google 2019 cluster's mean CPU usage, at 5-minute steps.
    SeriesCsvOptions options;
    options.column = "avg_cpu";
    options.stepSeconds = kStepSeconds;
    const auto loaded = loadSeriesCsv(
        std::string(TIDEPOOL_SHARED_DATA) + "/load-series/google2019_instance_usage_28days_300s.csv", options);
    if (!loaded)
        QSKIP(loaded.error().message.c_str());
    const Series slice = loaded->series.prefix(14 * kDay);
    const auto split = makeSplit(slice.size(), kDay);
    QVERIFY(split);
    const MaseScale scale = maseScale(slice, *split);
    QCOMPARE(scale.name, std::string(kSeasonalNaiveDaily));
    const ModelRegistry registry = ModelRegistry::withBuiltins();
    const auto ours = backtest(*registry.make(kSeasonalModel), slice, *split, scale);
    const auto naive = backtest(*registry.make(kSeasonalNaiveDaily), slice, *split, scale);
    QVERIFY(ours && naive);
    QVERIFY2(ours->smapePct < naive->smapePct,
        (std::to_string(ours->smapePct) + " vs " + std::to_string(naive->smapePct)).c_str());
}

QTEST_APPLESS_MAIN(TestForecast)
#include "tst_forecast.moc"
