#pragma once
// One accelerator of the node, as discovery reports it to the core: an NVIDIA GPU found through NVML, or a GPU, NPU
// or FPGA declared in the accelerator inventory file or printed by a probe command (see agents/README.md).
//
// Thread affinity: none; plain value types.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tidepool::agent {

enum class AcceleratorKind : std::uint8_t {
    Invalid = 0,
    Gpu,
    Npu,
    Fpga,
};

// Where a device was found.
enum class DeviceSource : std::uint8_t {
    Invalid = 0,
    Nvml,
    InventoryFile,
    Probe,
};

// The share capacity of one GPU: GPUs are shared in milli-GPUs, as CPUs are in milli-CPUs.
inline constexpr std::int64_t kGpuShareCapacity = 1000;

struct AcceleratorDevice {
    std::int32_t index = 0; // the device's index on its node, 0.., in discovery order (NVML first)
    AcceleratorKind kind = AcceleratorKind::Invalid;
    std::string vendor; // "NVIDIA", "Huawei", "Xilinx"
    std::string model; // "NVIDIA H100 80GB HBM3", "Ascend 910B"
    std::int64_t memoryMiB = 0;
    // What the device is shared in: 1000 milli-units for a GPU, cores for an NPU, time-slice slots for an FPGA.
    std::int64_t shareCapacity = 0;
    std::optional<std::string> uuid; // NVML's "GPU-…" identifier
    std::optional<std::string> busId; // PCI "0000:17:00.0"
    DeviceSource source = DeviceSource::Invalid;
    bool operator==(const AcceleratorDevice&) const = default;
};

// "gpu", "npu", "fpga"; "" for `Invalid`.
constexpr std::string_view kindName(AcceleratorKind kind)
{
    switch (kind) {
    case AcceleratorKind::Gpu: return "gpu";
    case AcceleratorKind::Npu: return "npu";
    case AcceleratorKind::Fpga: return "fpga";
    case AcceleratorKind::Invalid: break;
    }
    return "";
}

// The kind a name stands for; `Invalid` for any other text (names are lower case).
constexpr AcceleratorKind kindFromName(std::string_view name)
{
    if (name == "gpu")
        return AcceleratorKind::Gpu;
    if (name == "npu")
        return AcceleratorKind::Npu;
    if (name == "fpga")
        return AcceleratorKind::Fpga;
    return AcceleratorKind::Invalid;
}

// "nvml", "inventory-file", "probe"; "" for `Invalid`.
constexpr std::string_view sourceName(DeviceSource source)
{
    switch (source) {
    case DeviceSource::Nvml: return "nvml";
    case DeviceSource::InventoryFile: return "inventory-file";
    case DeviceSource::Probe: return "probe";
    case DeviceSource::Invalid: break;
    }
    return "";
}

} // namespace tidepool::agent
