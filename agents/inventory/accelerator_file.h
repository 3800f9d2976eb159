#pragma once
// The accelerator inventory: a JSON array by which an operator declares the GPUs, NPUs and FPGAs that NVML cannot
// see, in a file (/etc/tidepool/accelerators.json by default) or on a probe command's standard output (see
// probe_command.h). The format is documented in agents/README.md:
//   [{"kind": "npu", "vendor": "Huawei", "model": "Ascend 910B", "memoryMiB": 65536, "shareCapacity": 32,
//     "count": 8}]
// Validation is strict: a missing, unknown or wrongly typed field, an out-of-range number or an unknown kind is an
// error naming the source, the entry index and the field (`[2].memoryMiB`), and nothing of the list is used.
//
// Thread affinity: none; pure functions (`loadAcceleratorFile` reads one file).

#include "agents/inventory/accelerator.h"
#include "agents/inventory/inventory_error.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace tidepool::agent {

inline constexpr std::size_t kMaxAcceleratorListBytes = 1u << 20;
inline constexpr std::size_t kMaxAcceleratorTextBytes = 128; // vendor and model
inline constexpr std::int64_t kMaxShareCapacity = 1'000'000;

// Parses an accelerator list. Each entry becomes `count` devices numbered 0.. in order, marked with `source`;
// `sourceLabel` (a path, a probe command) names the list in errors.
InventoryExpected<std::vector<AcceleratorDevice>> parseAcceleratorList(
    std::string_view json, std::string_view sourceLabel, DeviceSource source);

// Reads and parses an accelerator inventory file; a missing file is an `Unreadable` error (`discover` checks
// for it first, as a missing file declares nothing).
InventoryExpected<std::vector<AcceleratorDevice>> loadAcceleratorFile(const std::filesystem::path& path);

} // namespace tidepool::agent
