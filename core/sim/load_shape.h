#pragma once
// A load shape for simulations: a cluster's load on a 5-minute grid, normalised to a peak of 1, read at any time
// (linear between points, wrapping past its end). Built from the real traces of ../shared/data.
//
// Thread affinity: none; immutable once built (except `scaleDays`, while it is set up).

#include "core/model/types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tidepool::sim {

class LoadShape {
public:
    // A column of a load-series CSV on a 300 s grid (gaps filled between neighbours); at least a day of it. Errors
    // name the file, line and field (`forecast::loadSeriesCsv`).
    static Expected<LoadShape> load(const std::string& path, const std::string& column);
    // The GenAI serving fleet's requests (`services/qps.csv`: timestamp_anon, value, container_ip, request_type),
    // summed over its pods into 5-minute means; the trace's 22.3 hours are stretched onto one day.
    static Expected<LoadShape> loadQps(const std::string& path);
    // The mean of each whole day of the series relative to the mean of all of them: a real cluster's day-to-day
    // swing in level.
    std::vector<double> dailyLevels() const;
    // Replaces the shape by its first day repeated once per level, each at that level, normalised to a peak of 1.
    void scaleDays(const std::vector<double>& levels);
    // The load at `ms` from the shape's start.
    double at(std::int64_t ms) const;
    // The peak over [from, to), sampled at the grid.
    double peak(std::int64_t fromMs, std::int64_t toMs) const;

private:
    std::vector<double> m_values;
};

// The real shapes the scenarios draw their load from (all under `dataDir`): the Google 2019 cluster's CPU
// (`avg_cpu`), the Alibaba 2018 cluster's CPU (`cpu_util_percent`), and the GenAI fleet's requests, whose one day is
// repeated at the level of the Google cluster's same day, so that days differ as a real fleet's do and a forecast has
// something to get wrong.
struct TraceShapes {
    LoadShape google;
    LoadShape alibaba;
    LoadShape genai;
};
Expected<TraceShapes> loadTraceShapes(const std::string& dataDir);

} // namespace tidepool::sim
