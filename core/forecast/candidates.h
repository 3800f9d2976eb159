#pragma once
// The seasonal model's family of candidate forecasts, built from the history alone. Internal to core/forecast: the
// seasonal model scores, chooses and averages them (seasonal_model.cpp), and tst_forecast checks them directly.
//
// Thread affinity: none; plain values and pure functions.

#include "core/forecast/series.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace tidepool::forecast {

enum class Aggregate : std::uint8_t { Invalid = 0, Median = 1, TrimmedMean = 2, Mean = 3 };

// A profile: the forecast of one cycle read from K earlier cycles, before any anchoring.
struct ProfileSpec {
    std::size_t period = 0; // 0 = flat (then `cycles` is the window of recent steps whose level it repeats)
    std::size_t cycles = 0;
    Aggregate aggregate = Aggregate::Median;
};

// A profile, optionally re-anchored to the recent level and smoothed.
struct Candidate {
    std::size_t profile = 0; // index into `CandidateSet::profiles`
    std::size_t levelWindow = 0; // steps of recent data the level is anchored on; 0 = none
    double levelFadeSteps = 0; // the offset fades as exp(-h / this); 0 = it persists over the whole horizon
    std::size_t smoothHalfWidth = 0; // steps
};

inline constexpr std::size_t kNoCandidate = std::numeric_limits<std::size_t>::max();

struct CandidateSet {
    std::vector<ProfileSpec> profiles;
    std::vector<Candidate> candidates;
    std::vector<std::size_t> periods; // the cycles the seasonal candidates use, in steps
    std::size_t recentSteps = 0; // how much recent past `runProfile` must explain for the anchors
    // The long-memory candidate, what the `periodic` baseline forecasts: the plain mean of the same phase over up to 8
    // past cycles of the strongest cycle found on the raw signal, or without such a cycle the flat mean of the last
    // day.
    std::size_t longMemory = kNoCandidate;
};

// The means of consecutive runs of `block` buckets (gaps skipped; NaN for a run of gaps only); a partial run at the end
// is dropped. `buildCandidates` checks the calendar cycles on the hourly means.
std::vector<double> blockMeans(const std::vector<double>& y, std::size_t block);

// The candidates for `history` (candidates.cpp lists them and says why each is there).
CandidateSet buildCandidates(const Series& history);

// Where forecasts are kept: the observed range widened by a quarter of it, and never below zero for a series that
// never was.
struct Range {
    double low = 0;
    double high = 0;
};
Range forecastRange(const std::vector<double>& y);

// What a profile says for the future of an origin, and the recent residuals against it.
struct ProfileRun {
    std::vector<double> future; // horizon steps after the origin
    std::vector<double> residuals; // y - profile over the last `recentSteps` buckets (NaN where unknown)
};

// Runs profile `p` on the buckets of `y` before `end` and forecasts `horizon` steps after it.
ProfileRun runProfile(
    const std::vector<double>& y, std::size_t end, std::size_t horizon, std::size_t recentSteps, const ProfileSpec& p);

// The candidate's forecast from its profile's run: anchored, smoothed and clamped into `range`.
std::vector<double> applyCandidate(const ProfileRun& run, const Candidate& c, const Range& range);

} // namespace tidepool::forecast
