#include "core/model/pool.h"

#include <algorithm>
#include <string_view>

namespace tidepool {

std::string quotaShortfall(const Pool& pool, const Resources& request, AcceleratorKind kind, std::int64_t share)
{
    struct Dimension {
        const char* name;
        std::int64_t requested, quota, used;
        const char* unit;
    };
    const auto k = static_cast<std::size_t>(kind);
    const Dimension dimensions[] = {
        { "CPU", request.cpuMillis, pool.quota.cpuMillis, pool.used.cpuMillis, "millicores" },
        { "memory", request.memoryMiB, pool.quota.memoryMiB, pool.used.memoryMiB, "MiB" },
        { "memory bandwidth", request.memBandwidthMBps, pool.quota.memBandwidthMBps, pool.used.memBandwidthMBps,
            "MB/s" },
        { "network bandwidth", request.netBandwidthMbps, pool.quota.netBandwidthMbps, pool.used.netBandwidthMbps,
            "Mb/s" },
        { kind == AcceleratorKind::None ? "" : "accelerator share", kind == AcceleratorKind::None ? 0 : share,
            kind == AcceleratorKind::None ? 0 : pool.acceleratorQuota[k],
            kind == AcceleratorKind::None ? 0 : pool.acceleratorUsed[k], "share units" },
    };
    std::string out;
    for (const Dimension& d : dimensions) {
        const std::int64_t left = d.quota - d.used;
        if (d.requested <= left)
            continue;
        const std::string what = d.name == std::string_view("accelerator share")
            ? std::string(toString(kind)) + " share"
            : std::string(d.name);
        out += (out.empty() ? "" : "; ") + what + ": it asks for " + std::to_string(d.requested) + " " + d.unit
            + " and " + std::to_string(std::max<std::int64_t>(left, 0)) + " of the pool's " + std::to_string(d.quota)
            + " are left (" + std::to_string(d.requested - std::max<std::int64_t>(left, 0)) + " short)";
    }
    return out;
}

} // namespace tidepool
