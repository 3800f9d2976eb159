#pragma once
// What the node is: host name, ISA, CPU model and features, logical CPUs, memory, NUMA nodes, kernel release and
// accelerators. `discover` reads the real files (/proc, /sys, uname, NVML, the accelerator inventory file, probe
// commands); the parsers take file content, so that tests feed them fixtures of x86_64, aarch64 and riscv64 nodes.
// A `rootPrefix` moves /proc and /sys under a fixture tree.
//
// Thread affinity: none; pure functions over values, and `discover`, which only reads files and runs the probe
// commands (it blocks for up to each probe's timeout: call it from the agent's start-up or a worker thread).

#include "agents/inventory/accelerator.h"
#include "agents/inventory/cpuinfo.h"
#include "agents/inventory/inventory_error.h"
#include "protocol/messages.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::agent {

class Nvml;

inline constexpr std::string_view kDefaultAcceleratorFile = "/etc/tidepool/accelerators.json";
inline constexpr std::chrono::milliseconds kDefaultProbeTimeout { 5000 };

struct NodeInventory {
    std::string hostname;
    std::string isa; // "x86_64", "aarch64", "riscv64" (see `normaliseIsa`)
    std::string cpuModel; // "AMD EPYC 9654 96-Core Processor", "ARM Neoverse-N1", "sifive,u74-mc"
    std::vector<std::string> cpuFeatures; // sorted, without duplicates: those every logical CPU lists
    std::int32_t logicalCpus = 0; // online logical CPUs of the host
    std::int64_t cpuMillis = 0; // logicalCpus * 1000: the host's capacity
    // The CPU limit of the agent's own cgroup (v2 `cpu.max`, v1 CFS quota, the tightest of its ancestors), when
    // there is one: an agent in a container may use less than the host has.
    std::optional<std::int64_t> cgroupCpuLimitMillis;
    std::int64_t memoryMiB = 0; // MemTotal
    std::int32_t numaNodes = 1; // at least 1
    std::string kernelRelease; // `uname -r`
    std::vector<AcceleratorDevice> devices; // `index` is the position in this vector
    bool operator==(const NodeInventory&) const = default;
};

// The CPU capacity the agent can use: the host's, or its cgroup's limit when that is lower.
std::int64_t effectiveCpuMillis(const NodeInventory& inventory);

// What the agent's hello tells the core (the CPU capacity is `effectiveCpuMillis`).
protocol::InventorySummary summarise(const NodeInventory& inventory);

// The node as the `inventory` message carries it; the caller adds the translation factors and the workloads. The
// CPU capacity is `effectiveCpuMillis`. Device models become protocol names: each run of characters other than
// letters, digits, '.', '_' and '-' turns into one '-', and the result is cut to `protocol::kMaxTokenBytes`
// ("NVIDIA H100 80GB HBM3" → "NVIDIA-H100-80GB-HBM3"); CPU features that are not names, and those beyond
// `protocol::kMaxCpuFeatures`, are left out.
protocol::Inventory toProtocolInventory(const NodeInventory& inventory);

struct MemInfo {
    std::int64_t totalKiB = 0;
    std::int64_t availableKiB = 0; // MemAvailable, or MemFree + Buffers + Cached on kernels before 3.14
};

// Parses /proc/meminfo; fails naming the field when MemTotal (or every estimate of available memory) is missing.
InventoryExpected<MemInfo> parseMemInfo(std::string_view content, std::string_view source = "/proc/meminfo");

// Counts the CPUs of a kernel CPU list such as /sys/devices/system/cpu/online ("0-3,8,10-11" → 7).
InventoryExpected<std::int32_t> parseCpuList(std::string_view content, std::string_view source);

// A cgroup v2 `cpu.max` ("200000 100000" → 2000 milli-CPUs; "max 100000" → none). Cgroup v1 quotas read the same
// way from "<cfs_quota_us> <cfs_period_us>", a negative quota meaning none.
InventoryExpected<std::optional<std::int64_t>> parseCgroupCpuMax(std::string_view content, std::string_view source);

// A whole small text file (/proc files report no size, so it is read to its end); fails beyond `maxBytes`.
InventoryExpected<std::string> readTextFile(const std::filesystem::path& path, std::size_t maxBytes = 16u << 20);

struct DiscoveryOptions {
    std::filesystem::path rootPrefix = "/"; // /proc and /sys are read under it
    std::optional<std::string> machine; // replaces `uname -m` (for fixture trees)
    const Nvml* nvml = nullptr; // NVIDIA GPUs; none when null. Not owned; it must outlive the call
    std::filesystem::path acceleratorFile { kDefaultAcceleratorFile }; // a missing file declares nothing; "" skips
    std::vector<std::vector<std::string>> probeCommands; // each an argv, run without a shell
    std::chrono::milliseconds probeTimeout = kDefaultProbeTimeout;
};

struct Discovery {
    NodeInventory inventory;
    std::vector<std::string> notes; // for the log: why there are no NVIDIA GPUs, which files were absent
};

// Discovers the node. Fails when /proc/cpuinfo or /proc/meminfo cannot be read or parsed, when the accelerator file
// is present but invalid, or when a probe command fails: an operator's declaration that does not hold is an error,
// not a node without those devices. NVML being absent or failing to start is a note, not an error.
InventoryExpected<Discovery> discover(const DiscoveryOptions& options);

} // namespace tidepool::agent
