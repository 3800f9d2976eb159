#pragma once
// Nodes and their accelerator devices: the uniform compute unit of Tidepool. A physical server, a VM or a
// container host all become a `Node` with a capacity vector, a capability set and devices.

#include "core/model/resources.h"
#include "core/model/types.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tidepool {

// The reason prefix of a cordon that an approved power-down proposal set: the node is to be powered off once it holds
// nothing, and its agent's silence then is expected (the control plane marks it off, not lost). Power-up proposals
// lift only such cordons.
inline constexpr std::string_view kPowerDownCordon = "powered down";

using ModelId = std::int16_t; // index into `ClusterState::modelNames()`
inline constexpr ModelId kNoModel = -1;

// One accelerator. Its divisible share is counted in `shareCapacity` units: GPU compute in milli-GPUs
// (1000 = one whole GPU), NPU cores, or FPGA time-slice slots. Fractional requests take part of the share
// (and part of the memory) of one device.
struct Device {
    AcceleratorKind kind = AcceleratorKind::None;
    ModelId model = kNoModel;
    std::int32_t shareCapacity = 0;
    std::int32_t shareFree = 0;
    std::int64_t memoryMiB = 0;
    std::int64_t memoryFreeMiB = 0;

    bool idle() const { return shareFree == shareCapacity && memoryFreeMiB == memoryMiB; }
    bool operator==(const Device&) const = default;
};

// Power draw is linear in CPU and accelerator busy share between idle and peak, a common model for energy-aware
// placement (SPECpower curves are close to linear above 10% load).
struct PowerModel {
    double idleWatts = 0;
    double peakWatts = 0;
    double acceleratorPeakWatts = 0; // extra watts per device at full share
};

struct Node {
    NodeId id = kNoNode;
    std::string name;
    Isa isa = Isa::Invalid;
    Tier tier = Tier::Invalid;
    Resources capacity;
    Resources free;
    std::vector<Device> devices;
    std::vector<std::pair<std::string, std::string>> labels;
    PowerModel power;
    std::string carbonRegion;
    std::vector<PoolId> pools; // pools that carve capacity out of this node
    std::vector<WorkloadId> residents; // workloads placed here, in bind order
    bool schedulable = true; // false while cordoned, lost or powered down
    bool peakReserved = false; // hot capacity a forecast says the next peak needs: no batch here
    std::uint64_t version = 0; // bumped on every change of free capacity; keys score caches

    // Accelerator aggregates for fast filtering, kept by `ClusterState::bind`/`unbind`.
    AcceleratorKind acceleratorKind() const { return devices.empty() ? AcceleratorKind::None : devices.front().kind; }
    std::int32_t maxDeviceShareFree() const;
    std::int32_t idleDeviceCount() const;
    std::int64_t deviceShareFreeTotal() const;
    std::int64_t deviceShareCapacityTotal() const;
    const std::string* label(std::string_view key) const;
};

} // namespace tidepool
