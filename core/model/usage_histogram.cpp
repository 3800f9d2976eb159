#include "core/model/usage_histogram.h"

#include <algorithm>
#include <cmath>

namespace tidepool {

namespace {

// A sample weighs at most 2^kMaxExponent relative to the reference time before the reference moves on.
constexpr double kMaxExponent = 20.0;

} // namespace

std::size_t UsageHistogram::bucketOf(double millis)
{
    if (!(millis >= kFirstBucketMillis))
        return 0;
    const auto bucket
        = static_cast<std::size_t>(std::floor(std::log(millis / kFirstBucketMillis) / std::log(kGrowth))) + 1;
    return std::min(bucket, kBuckets - 1);
}

double UsageHistogram::upperEdge(std::size_t bucket)
{
    return kFirstBucketMillis * std::pow(kGrowth, static_cast<double>(bucket));
}

void UsageHistogram::rebase(std::int64_t atMs)
{
    const double exponent = static_cast<double>(atMs - m_refMs) / static_cast<double>(kHalfLifeMs);
    if (exponent <= kMaxExponent)
        return;
    const double halfLives = std::floor(exponent);
    const auto scale = static_cast<float>(std::exp2(-halfLives));
    m_total = 0.0;
    for (float& w : m_weights) {
        w *= scale; // what is far older than the reference may vanish: it weighs nothing beside the new samples
        m_total += w;
    }
    m_refMs += static_cast<std::int64_t>(halfLives) * kHalfLifeMs;
}

void UsageHistogram::add(std::int64_t millis, std::int64_t atMs)
{
    if (m_weights.empty())
        m_refMs = atMs;
    rebase(atMs);
    const std::size_t bucket = bucketOf(static_cast<double>(std::max<std::int64_t>(millis, 0)));
    if (m_weights.size() <= bucket)
        m_weights.resize(bucket + 1, 0.0f);
    const double weight = std::exp2(static_cast<double>(atMs - m_refMs) / static_cast<double>(kHalfLifeMs));
    m_weights[bucket] += static_cast<float>(weight);
    m_total += weight;
}

std::int64_t UsageHistogram::percentile(double fraction) const
{
    if (empty())
        return 0;
    const double wanted = std::clamp(fraction, 0.0, 1.0) * m_total;
    double sum = 0.0;
    for (std::size_t b = 0; b < m_weights.size(); ++b) {
        sum += m_weights[b];
        if (sum >= wanted && m_weights[b] > 0.0f)
            return static_cast<std::int64_t>(std::ceil(upperEdge(b)));
    }
    // Rounding left the sum a hair short: the highest bucket with weight.
    for (std::size_t b = m_weights.size(); b-- > 0;)
        if (m_weights[b] > 0.0f)
            return static_cast<std::int64_t>(std::ceil(upperEdge(b)));
    return 0;
}

nlohmann::json UsageHistogram::toJson() const
{
    nlohmann::json buckets = nlohmann::json::array();
    for (std::size_t b = 0; b < m_weights.size(); ++b)
        if (m_weights[b] > 0.0f)
            buckets.push_back({ b, m_weights[b] });
    return { { "refMs", m_refMs }, { "buckets", std::move(buckets) } };
}

Expected<UsageHistogram> UsageHistogram::fromJson(const nlohmann::json& j, const std::string& what)
{
    const auto bad
        = [&](const std::string& why) { return makeError(ErrorCode::ParseError, what + ": CPU histogram: " + why); };
    if (!j.is_object() || !j.contains("refMs") || !j["refMs"].is_number_integer() || !j.contains("buckets")
        || !j["buckets"].is_array())
        return bad("not an object with an integer \"refMs\" and an array \"buckets\"");
    UsageHistogram h;
    h.m_refMs = j["refMs"].get<std::int64_t>();
    for (std::size_t i = 0; i < j["buckets"].size(); ++i) {
        const nlohmann::json& entry = j["buckets"][i];
        const std::string where = "buckets[" + std::to_string(i) + "]";
        if (!entry.is_array() || entry.size() != 2 || !entry[0].is_number_unsigned() || !entry[1].is_number())
            return bad(where + " is not [bucket, weight]");
        const auto bucket = entry[0].get<std::uint64_t>();
        const double weight = entry[1].get<double>();
        if (bucket >= kBuckets)
            return bad(
                where + ": bucket " + std::to_string(bucket) + " is past the last, " + std::to_string(kBuckets - 1));
        if (!std::isfinite(weight) || weight < 0.0 || weight > 1e30)
            return bad(where + ": weight " + entry[1].dump() + " is not a finite number from 0");
        if (h.m_weights.size() <= bucket)
            h.m_weights.resize(bucket + 1, 0.0f);
        h.m_weights[bucket] += static_cast<float>(weight);
        h.m_total += static_cast<double>(static_cast<float>(weight));
    }
    return h;
}

} // namespace tidepool
