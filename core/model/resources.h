#pragma once
// The scalar part of a capacity vector: CPU, memory, memory bandwidth and network bandwidth.

#include <cstdint>

namespace tidepool {

struct Resources {
    std::int64_t cpuMillis = 0;
    std::int64_t memoryMiB = 0;
    std::int64_t memBandwidthMBps = 0;
    std::int64_t netBandwidthMbps = 0;

    constexpr Resources& operator+=(const Resources& o)
    {
        cpuMillis += o.cpuMillis;
        memoryMiB += o.memoryMiB;
        memBandwidthMBps += o.memBandwidthMBps;
        netBandwidthMbps += o.netBandwidthMbps;
        return *this;
    }
    constexpr Resources& operator-=(const Resources& o)
    {
        cpuMillis -= o.cpuMillis;
        memoryMiB -= o.memoryMiB;
        memBandwidthMBps -= o.memBandwidthMBps;
        netBandwidthMbps -= o.netBandwidthMbps;
        return *this;
    }
    friend constexpr Resources operator+(Resources a, const Resources& b) { return a += b; }
    friend constexpr Resources operator-(Resources a, const Resources& b) { return a -= b; }
    friend constexpr bool operator==(const Resources&, const Resources&) = default;

    // True when every dimension of `request` fits in this (free) vector.
    constexpr bool fits(const Resources& request) const
    {
        return request.cpuMillis <= cpuMillis && request.memoryMiB <= memoryMiB
            && request.memBandwidthMBps <= memBandwidthMBps && request.netBandwidthMbps <= netBandwidthMbps;
    }
    constexpr bool anyNegative() const
    {
        return cpuMillis < 0 || memoryMiB < 0 || memBandwidthMBps < 0 || netBandwidthMbps < 0;
    }
};

} // namespace tidepool
