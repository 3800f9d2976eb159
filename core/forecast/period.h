#pragma once
// Period detection: which cycles a load series repeats, found from the data rather than assumed. A small radix-2
// FFT gives the periodogram (where to look) and the autocorrelation (whether the cycle is real).
//
// Thread affinity: none; pure functions.

#include <complex>
#include <cstddef>
#include <vector>

namespace tidepool::forecast {

// In-place radix-2 FFT; `data.size()` must be a power of two. `inverse` computes the unscaled inverse transform.
void fft(std::vector<std::complex<double>>& data, bool inverse);

// The autocorrelation of `values` at lags 0..maxLag (gaps filled by interpolation, the mean removed, and with
// `clipSpikes` values beyond 6 robust standard deviations of the median clipped there, so that a few spikes do not
// carry most of the variance), each lag normalised by its own number of pairs so that long lags are not shrunk
// towards zero. acf[0] = 1; a constant series gives all zeros after lag 0.
std::vector<double> autocorrelation(const std::vector<double>& values, std::size_t maxLag, bool clipSpikes = true);

struct DetectedPeriod {
    std::size_t steps = 0;
    double strength = 0; // the autocorrelation at that lag, in (0, 1]
};

struct PeriodOptions {
    std::size_t minSteps = 4; // shorter cycles are noise at the horizons we forecast
    std::size_t maxSteps = 0; // 0 = half the series (a cycle must be seen at least twice)
    double minStrength = 0.3; // autocorrelation at the period
    double minProminence = 0.1; // above the lowest autocorrelation between half the period and the period
    // Calendar cycles, in steps, checked even when the periodogram does not rank them (weekly cycles are often a
    // small modulation of a strong daily one); a period within 2% of one of them is snapped to it.
    std::vector<std::size_t> calendarSteps;
    bool clipSpikes = true; // see `autocorrelation`; the Crane-style baseline turns it off, as Crane does not clip
};

// Candidate periods come from the periodogram's strongest peaks and from `calendarSteps`; each is kept only if the
// autocorrelation has a local maximum within 10% of it that is strong and prominent enough, and the lag of that
// maximum is the period. The result is sorted by strength, strongest first, without near-duplicates (within 3%);
// white noise, a trend or a random walk give an empty list.
std::vector<DetectedPeriod> detectPeriods(const std::vector<double>& values, const PeriodOptions& options);

} // namespace tidepool::forecast
