#pragma once
// Timing helpers the benchmark programs share.

#include <algorithm>
#include <chrono>
#include <vector>

namespace tidepool::bench {

using Clock = std::chrono::steady_clock;

inline double millisSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The middle value (the upper one of an even count); 0 for none.
inline double median(std::vector<double> values)
{
    if (values.empty())
        return 0.0;
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

} // namespace tidepool::bench
