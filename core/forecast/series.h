#pragma once
// A load series on a fixed step grid, and the CSV loader that builds one. A gap (a bucket with no sample) is NaN,
// never zero: a missing reading says nothing about the load, while a zero says it was idle.
//
// Thread affinity: none; plain values and pure functions.

#include "core/model/types.h"

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace tidepool::forecast {

struct Series {
    double stepSeconds = 0;
    std::vector<double> values; // values[i] is bucket i; NaN = gap

    std::size_t size() const { return values.size(); }
    std::size_t stepsPerDay() const { return stepsPer(86400.0); }
    std::size_t stepsPerWeek() const { return stepsPer(7 * 86400.0); }
    std::size_t stepsPer(double seconds) const
    {
        return stepSeconds > 0 ? static_cast<std::size_t>(std::lround(seconds / stepSeconds)) : 0;
    }
    // The first `count` points, as the history a forecast made at bucket `count` would see.
    Series prefix(std::size_t count) const;
};

inline bool isGap(double value)
{
    return std::isnan(value);
}

// What the loader does with two rows that land in the same step of the grid (the same timestamp, or two
// timestamps that round to one bucket). Real exports have them: NAB's AWS series repeat "03:00:00" twelve times
// where a local clock jumped forward for daylight saving time.
enum class DuplicateTimestamps : std::uint8_t { Invalid = 0, Reject = 1, Average = 2 };

struct SeriesCsvOptions {
    std::string column; // the value column, by its header name
    double stepSeconds = 0; // the grid step; must be positive
    std::string timestampColumn = "timestamp"; // used when the header has it; otherwise row i is bucket i
    DuplicateTimestamps duplicates = DuplicateTimestamps::Reject;
};

struct LoadedSeries {
    Series series;
    bool timestamped = false;
    std::size_t rows = 0; // data rows read
    std::size_t mergedRows = 0; // rows averaged into a bucket another row already held (`Average` only)
    std::size_t gapBuckets = 0; // buckets of the grid no row fell into, or whose field was empty
    double firstTimestampS = 0; // of bucket 0, in seconds since the epoch (read as UTC), when timestamped
};

// Strict: a missing file or column, a row with the wrong field count, a field that is not a number, a timestamp
// that cannot be read or goes backwards, and (with `Reject`) a repeated one stop the load with an error naming the
// file, the line and the field (`ErrorCode::ParseError`, or `IoError` for an unreadable file). An empty value field
// is a gap. Timestamps are `YYYY-MM-DD HH:MM:SS` (or with `T`, optionally ending in `Z`) or epoch seconds; each row is
// placed in the bucket nearest to (timestamp - first timestamp) / step.
Expected<LoadedSeries> loadSeriesCsv(const std::string& path, const SeriesCsvOptions& options);

// Small robust statistics shared by the models. All of them skip gaps; on no data they return NaN.
double median(std::vector<double> values);
double quantile(std::vector<double> values, double q); // linear interpolation between order statistics
double meanOf(const std::vector<double>& values);

// A copy of `values` with every gap filled by linear interpolation between its neighbours (flat at the ends); all
// gaps gives all zeros. Used where an algorithm needs a complete signal (the FFT), never to score anything.
std::vector<double> fillGaps(const std::vector<double>& values);

} // namespace tidepool::forecast
