#pragma once
// What a workload asks for: scalar requests, accelerators, priority, latency class, ISAs and a pool.

#include "core/model/node.h"

#include <string>
#include <vector>

namespace tidepool {

// `count` devices of one kind. With `count == 1` and `sharePerDevice` below the device's capacity the request is
// fractional and shares one device with others; `sharePerDevice == 0` or `count > 1` asks for whole devices,
// all on one node.
struct AcceleratorRequest {
    AcceleratorKind kind = AcceleratorKind::None;
    std::int32_t count = 0;
    std::int32_t sharePerDevice = 0;
    std::int64_t memoryMiBPerDevice = 0;
    std::vector<ModelId> allowedModels; // empty = any model of `kind`

    bool any() const { return kind != AcceleratorKind::None && count > 0; }
    bool wholeDevices() const { return count > 1 || sharePerDevice == 0; }
    bool allows(ModelId model) const;
    // Share units taken from one device of capacity `capacity`.
    std::int32_t shareOn(std::int32_t capacity) const { return wholeDevices() ? capacity : sharePerDevice; }
};

struct Workload {
    WorkloadId id = 0;
    std::string name;
    Resources requests;
    AcceleratorRequest accelerators;
    std::int32_t priority = 0; // higher wins; preemption only evicts strictly lower priorities
    LatencyClass latency = LatencyClass::Batch;
    Tier pinnedTier = Tier::Invalid; // Invalid = follow the latency class
    IsaMask nativeIsas = 0; // 0 = any ISA (e.g. interpreted or multi-arch images)
    bool allowTranslation = false; // may run on another ISA through qemu-user
    PoolId pool = kNoPool; // kNoPool = no pool constraint
    bool deferrable = false; // batch that may wait for a low-carbon window

    Tier tier() const { return pinnedTier != Tier::Invalid ? pinnedTier : homeTier(latency); }
    bool runsNatively(Isa isa) const { return nativeIsas == 0 || (nativeIsas & isaBit(isa)) != 0; }
};

// Where one workload landed: the node, the device shares it holds, and whether it runs translated.
struct DeviceShare {
    std::int16_t device = -1;
    std::int32_t share = 0;
    std::int64_t memoryMiB = 0;
};

struct Placement {
    WorkloadId workload = 0;
    NodeId node = kNoNode;
    std::vector<DeviceShare> shares;
    bool translated = false;
};

} // namespace tidepool
