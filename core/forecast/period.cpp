// FFT, autocorrelation and period detection. The FFT is a textbook iterative radix-2 transform: the series we see
// are at most a few tens of thousands of points, so a dependency for anything faster is not worth it.

#include "core/forecast/period.h"

#include "core/forecast/series.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace tidepool::forecast {

namespace {

std::size_t nextPowerOfTwo(std::size_t n)
{
    std::size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

// The mean-removed, gap-filled series, zero-padded to at least twice its length so that the circular correlation
// the FFT computes equals the linear one. Values further than 6 robust standard deviations (1.4826 MAD) from the
// median are clipped there first: a handful of spikes would otherwise carry most of the variance and hide the cycle.
std::vector<std::complex<double>> paddedSpectrum(const std::vector<double>& values, bool clipSpikes)
{
    std::vector<double> filled = fillGaps(values);
    const double middle = median(filled);
    std::vector<double> deviations;
    deviations.reserve(filled.size());
    for (const double v : filled)
        deviations.push_back(std::abs(v - middle));
    const double reach = 6 * 1.4826 * median(std::move(deviations));
    if (clipSpikes && reach > 0)
        for (double& v : filled)
            v = std::clamp(v, middle - reach, middle + reach);
    const double mean = meanOf(filled);
    std::vector<std::complex<double>> data(nextPowerOfTwo(2 * filled.size()));
    for (std::size_t i = 0; i < filled.size(); ++i)
        data[i] = filled[i] - mean;
    fft(data, false);
    return data;
}

bool near(std::size_t a, std::size_t b, double tolerance)
{
    return std::abs(static_cast<double>(a) - static_cast<double>(b)) <= tolerance * static_cast<double>(b);
}

} // namespace

void fft(std::vector<std::complex<double>>& data, bool inverse)
{
    const std::size_t n = data.size();
    for (std::size_t i = 1, j = 0; i < n; ++i) {
        std::size_t bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j)
            std::swap(data[i], data[j]);
    }
    for (std::size_t length = 2; length <= n; length <<= 1) {
        const double angle = 2 * std::numbers::pi / static_cast<double>(length) * (inverse ? 1 : -1);
        const std::complex<double> unit(std::cos(angle), std::sin(angle));
        for (std::size_t start = 0; start < n; start += length) {
            std::complex<double> w(1);
            for (std::size_t k = 0; k < length / 2; ++k) {
                const std::complex<double> even = data[start + k];
                const std::complex<double> odd = data[start + k + length / 2] * w;
                data[start + k] = even + odd;
                data[start + k + length / 2] = even - odd;
                w *= unit;
            }
        }
    }
}

std::vector<double> autocorrelation(const std::vector<double>& values, std::size_t maxLag, bool clipSpikes)
{
    const std::size_t n = values.size();
    maxLag = n == 0 ? 0 : std::min(maxLag, n - 1);
    std::vector<double> acf(maxLag + 1, 0.0);
    if (n < 2)
        return acf;
    std::vector<std::complex<double>> data = paddedSpectrum(values, clipSpikes);
    for (auto& c : data)
        c = std::norm(c); // Wiener–Khinchin: the power spectrum transforms back into the autocovariance
    fft(data, true);
    const double variance = data[0].real() / static_cast<double>(n);
    if (!(variance > 1e-300))
        return acf;
    for (std::size_t lag = 0; lag <= maxLag; ++lag)
        acf[lag] = data[lag].real() / static_cast<double>(n - lag) / variance;
    return acf;
}

std::vector<DetectedPeriod> detectPeriods(const std::vector<double>& values, const PeriodOptions& options)
{
    const std::size_t n = values.size();
    const std::size_t maxSteps = std::min(options.maxSteps ? options.maxSteps : n / 2, n / 2);
    if (maxSteps < std::max<std::size_t>(options.minSteps, 2))
        return {};
    const std::size_t maxLag = std::min(n - 1, maxSteps + maxSteps / 10 + 1);
    const std::vector<double> acf = autocorrelation(values, maxLag, options.clipSpikes);

    // Candidates: the strongest local maxima of the periodogram, then the calendar cycles.
    const std::vector<std::complex<double>> spectrum = paddedSpectrum(values, options.clipSpikes);
    const std::size_t bins = spectrum.size();
    std::vector<std::pair<double, std::size_t>> peaks; // (power, period in steps)
    for (std::size_t k = 1; k + 1 < bins / 2; ++k) {
        const double power = std::norm(spectrum[k]);
        if (power <= std::norm(spectrum[k - 1]) || power < std::norm(spectrum[k + 1]))
            continue;
        const auto period = static_cast<std::size_t>(std::lround(static_cast<double>(bins) / static_cast<double>(k)));
        if (period >= options.minSteps && period <= maxSteps)
            peaks.emplace_back(power, period);
    }
    std::sort(peaks.begin(), peaks.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < peaks.size() && i < 8; ++i)
        candidates.push_back(peaks[i].second);
    for (const std::size_t calendar : options.calendarSteps)
        if (calendar >= options.minSteps && calendar <= maxSteps)
            candidates.push_back(calendar);

    // Validation: the autocorrelation must peak near the candidate, strongly and above the trough before it.
    std::vector<DetectedPeriod> found;
    for (const std::size_t candidate : candidates) {
        const std::size_t lo = std::max<std::size_t>(options.minSteps, candidate - candidate / 10);
        const std::size_t hi = std::min(maxLag - 1, candidate + candidate / 10);
        if (lo > hi)
            continue;
        std::size_t best = lo;
        for (std::size_t lag = lo; lag <= hi; ++lag)
            if (acf[lag] > acf[best])
                best = lag;
        if (best == 0 || best + 1 >= acf.size() || acf[best] < acf[best - 1] || acf[best] < acf[best + 1])
            continue; // a monotone stretch (a trend, a random walk) has no peak here
        const double trough = *std::min_element(
            acf.begin() + static_cast<std::ptrdiff_t>(best / 2), acf.begin() + static_cast<std::ptrdiff_t>(best));
        if (acf[best] < options.minStrength || acf[best] - trough < options.minProminence)
            continue;
        std::size_t steps = best;
        for (const std::size_t calendar : options.calendarSteps)
            if (near(steps, calendar, 0.02))
                steps = calendar;
        found.push_back({ steps, acf[best] });
    }

    // A multiple of a kept period repeats what that period says unless it correlates clearly better (a weekly cycle
    // on top of a daily one does; the second harmonic of a plain daily cycle does not).
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.strength > b.strength; });
    std::vector<DetectedPeriod> kept;
    for (const DetectedPeriod& p : found) {
        const bool redundant = std::any_of(
            kept.begin(), kept.end(), [&](const DetectedPeriod& k) { return near(p.steps, k.steps, 0.03); });
        if (!redundant)
            kept.push_back(p);
    }
    std::vector<DetectedPeriod> result;
    for (const DetectedPeriod& p : kept) {
        const bool repeats = std::any_of(kept.begin(), kept.end(), [&](const DetectedPeriod& base) {
            if (base.steps >= p.steps)
                return false;
            const double ratio = static_cast<double>(p.steps) / static_cast<double>(base.steps);
            const bool multiple = std::abs(ratio - std::round(ratio)) < 0.03 * ratio;
            return multiple && p.strength < base.strength + 0.05;
        });
        if (!repeats)
            result.push_back(p);
    }
    return result;
}

} // namespace tidepool::forecast
