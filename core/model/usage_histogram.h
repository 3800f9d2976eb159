#pragma once
// A workload's CPU use as a decaying histogram, as the Vertical Pod Autoscaler's recommender keeps one: each sample
// (millicores over one heartbeat interval) adds weight to the bucket it falls in, and newer samples weigh more, a
// sample `halfLife` older than another weighing half as much, so that the percentiles follow what the workload does
// lately rather than what it did at its start. Right-sizing asks for its 90th percentile: CPU is compressible, so a
// request need not cover a rare spike (a start-up's warm-up would otherwise pin it high), while memory, which is not,
// is sized from its peak (`api::MeasuredWorkloadUse`).
//
// Buckets grow by `kGrowth` (5%) from `kFirstBucketMillis` (10m) up to 1,000 cores; a percentile is the upper edge
// of its bucket, so it errs high by at most 5%. Weights are kept relative to a reference time that moves forward
// (every weight scaled down with it) before they could overflow. At most `kBuckets` floats; none until the first
// sample, and only up to the highest bucket reached.
//
// Kept across restarts of the core as JSON (`toJson` / `fromJson`: {"refMs", "buckets": [[index, weight], ...]}).
//
// Thread affinity: none (a value type).

#include "core/model/types.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace tidepool {

class UsageHistogram {
public:
    static constexpr double kFirstBucketMillis = 10.0;
    static constexpr double kGrowth = 1.05;
    static constexpr std::size_t kBuckets = 240; // 10m × 1.05^239 ≈ 1,170 cores
    static constexpr std::int64_t kHalfLifeMs = 24LL * 3600 * 1000;

    // Adds a sample of `millis` taken at `atMs` (Unix ms). Samples may come out of order (an agent's backlog).
    void add(std::int64_t millis, std::int64_t atMs);
    // The value below which `fraction` (0..1) of the weight lies: the upper edge of that bucket; 0 when empty.
    std::int64_t percentile(double fraction) const;
    bool empty() const { return m_total <= 0.0; }
    void clear() { *this = UsageHistogram {}; }

    nlohmann::json toJson() const;
    // The error names what is wrong (`what` says where it came from).
    static Expected<UsageHistogram> fromJson(const nlohmann::json& j, const std::string& what);

    // The same reference time and weights (the total follows from them).
    bool operator==(const UsageHistogram& o) const { return m_refMs == o.m_refMs && m_weights == o.m_weights; }

private:
    // The bucket `millis` falls in; its upper edge.
    static std::size_t bucketOf(double millis);
    static double upperEdge(std::size_t bucket);
    // Moves the reference time so that a sample at `atMs` weighs at most 2^kMaxExponent.
    void rebase(std::int64_t atMs);

    std::int64_t m_refMs = 0; // a sample at this time weighs 1
    std::vector<float> m_weights; // by bucket, up to the highest one reached
    double m_total = 0.0;
};

} // namespace tidepool
