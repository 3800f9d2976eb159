#include "core/rebalance/carbon.h"

#include "core/forecast/series.h"

#include <cmath>

namespace tidepool::rebalance {

Expected<CarbonIntensity> loadCarbonIntensity(const std::string& path)
{
    // Placed on a 5-minute grid: hourly and half-hourly exports fit it, and a gap between rows is not a reading.
    forecast::SeriesCsvOptions options;
    options.column = "gco2_per_kwh";
    options.stepSeconds = 300;
    auto loaded = forecast::loadSeriesCsv(path, options);
    if (!loaded)
        return tl::unexpected(loaded.error());
    if (!loaded->timestamped)
        return makeError(ErrorCode::ParseError, path + ": line 1: the header has no `timestamp` column");
    CarbonIntensity points;
    const auto startMs = static_cast<std::int64_t>(std::llround(loaded->firstTimestampS * 1000.0));
    for (std::size_t i = 0; i < loaded->series.values.size(); ++i) {
        const double v = loaded->series.values[i];
        if (forecast::isGap(v))
            continue;
        if (v < 0)
            return makeError(ErrorCode::ParseError, path + ": field `gco2_per_kwh`: a negative intensity");
        points.emplace_back(startMs + static_cast<std::int64_t>(i) * 300'000, v);
    }
    if (points.empty())
        return makeError(ErrorCode::ParseError, path + ": no intensity in it");
    return points;
}

} // namespace tidepool::rebalance
