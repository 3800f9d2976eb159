#pragma once
// A resource pool carves capacity out of one or more nodes for one business line, with quotas and a tier.

#include "core/model/resources.h"
#include "core/model/types.h"

#include <array>
#include <limits>
#include <string>
#include <vector>

namespace tidepool {

inline constexpr std::int64_t kUnlimited = std::numeric_limits<std::int64_t>::max() / 4;
inline constexpr int kAcceleratorKindCount = 4; // indexed by `AcceleratorKind`

struct Pool {
    PoolId id = kNoPool;
    std::string name;
    std::string businessLine;
    Tier tier = Tier::Invalid;
    // CPU quota, memory limit, memory bandwidth and network QoS; `kUnlimited` where not set.
    Resources quota { kUnlimited, kUnlimited, kUnlimited, kUnlimited };
    Resources used;
    // Accelerator quota in share units (milli-GPUs, NPU cores, FPGA slots) per kind.
    std::array<std::int64_t, kAcceleratorKindCount> acceleratorQuota { kUnlimited, kUnlimited, kUnlimited, kUnlimited };
    std::array<std::int64_t, kAcceleratorKindCount> acceleratorUsed {};
    std::int64_t placed = 0; // how many workloads are placed in it (kept by `bind`/`unbind`)
    std::vector<NodeId> nodes;
    // Deleted by an operator (`ClusterState::removePool`): kept, on no node and holding nothing, so that the records of
    // workloads that ended in it still name it; a pool created later under its name is another pool.
    bool removed = false;

    bool fits(const Resources& request, AcceleratorKind kind, std::int64_t acceleratorShare) const
    {
        const Resources left = quota - used;
        if (!left.fits(request))
            return false;
        const auto k = static_cast<std::size_t>(kind);
        return kind == AcceleratorKind::None || acceleratorQuota[k] - acceleratorUsed[k] >= acceleratorShare;
    }
};

// Which of `pool`'s quotas cannot hold `request` (and `share` units of accelerator `kind`), in words: "CPU: it asks
// for 2000 millicores and 500 of the pool's 4000 are left (1500 short)"; empty when everything fits. Same test as
// `Pool::fits`, dimension by dimension, so that the operator learns which one and by how much.
std::string quotaShortfall(const Pool& pool, const Resources& request, AcceleratorKind kind, std::int64_t share);

} // namespace tidepool
