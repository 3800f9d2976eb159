#pragma once
// The simulated fleet the core-thread benchmarks join (`tidepool-bench-join`, `tidepool-bench-drain`): agent `n`'s
// inventory, 85% x86 servers of 64 or 96 cores (10% of all with 8 GPUs), 10% aarch64 servers, 5% FPGA or NPU hosts.

#include "protocol/messages.h"

namespace tidepool::bench {

inline protocol::Inventory fleetInventory(int n)
{
    protocol::Inventory inventory;
    const int kind = n % 20;
    inventory.isa = kind == 17 || kind == 18 ? "aarch64" : "x86_64";
    inventory.cpuMillis = kind < 15 ? 64'000 : 96'000;
    inventory.memoryMiB = 512 * 1024;
    if (kind == 15 || kind == 16)
        for (int d = 0; d < 8; ++d)
            inventory.devices.push_back(protocol::DeviceInfo { d, "gpu", "A10", 24'576, 1000 });
    if (kind == 19)
        for (int d = 0; d < 2; ++d)
            inventory.devices.push_back(protocol::DeviceInfo {
                d, n % 40 == 19 ? "fpga" : "npu", n % 40 == 19 ? "U250" : "910B", 16'384, n % 40 == 19 ? 8 : 32 });
    return inventory;
}

} // namespace tidepool::bench
