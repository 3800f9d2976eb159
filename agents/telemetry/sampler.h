#pragma once
// Utilisation samples of the node for the heartbeats: CPU utilisation from successive /proc/stat readings (busy
// time over total time of all CPUs between two readings, iowait counting as idle), memory used from /proc/meminfo
// (MemTotal - MemAvailable) and, when NVML is present, each NVIDIA GPU's utilisation and memory used. The first
// sample only primes the CPU counters, so its `cpuUtilisation` is empty. The parsers take file content for tests.
//
// Thread affinity: one thread, the agent's telemetry timer's; a `Sampler` keeps the previous CPU reading, so it is
// not shared. Ownership: the `Nvml` it is given is lent and must outlive it.

#include "agents/inventory/inventory_error.h"
#include "protocol/messages.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::agent {

class Nvml;

// The aggregate "cpu" line of /proc/stat, in clock ticks. `total` leaves out guest time, which the kernel already
// counts in user time; `busy` is `total` less idle and iowait.
struct CpuTimes {
    std::uint64_t busy = 0;
    std::uint64_t total = 0;
    bool operator==(const CpuTimes&) const = default;
};

// Fails, naming the file, when there is no "cpu" line or it holds fewer than the four fields every kernel writes.
InventoryExpected<CpuTimes> parseProcStat(std::string_view content, std::string_view source = "/proc/stat");

// Busy share (0..1) of the time between two readings; empty when no tick passed or a counter went backwards.
std::optional<double> cpuUtilisationBetween(const CpuTimes& earlier, const CpuTimes& later);

struct NodeSample {
    std::int64_t timestampMs = 0; // Unix epoch
    std::optional<double> cpuUtilisation; // 0..1 of all CPUs; empty on the first sample
    std::int64_t memoryUsedMiB = 0; // MemTotal - MemAvailable
    std::vector<protocol::DeviceSample> devices; // NVML's GPUs
    std::vector<std::string> problems; // device queries that failed this time (for the log; the sample stands)
};

// The sample as a heartbeat carries it; empty for a sample without CPU utilisation (the priming one).
std::optional<protocol::UtilisationSample> toUtilisationSample(const NodeSample& sample);

struct SamplerOptions {
    std::filesystem::path rootPrefix = "/"; // /proc is read under it
    const Nvml* nvml = nullptr; // NVIDIA GPUs, when present; not owned
    std::function<std::int64_t()> nowMs; // the Unix-epoch clock; the system clock when empty
};

class Sampler {
public:
    explicit Sampler(SamplerOptions options);

    // Reads /proc/stat, /proc/meminfo and NVML. A file that cannot be read or parsed fails the sample and leaves
    // the previous CPU reading in place.
    InventoryExpected<NodeSample> sample();

    // `sample` over given /proc/stat and /proc/meminfo content (tests, and agents that read the files elsewhere).
    InventoryExpected<NodeSample> sampleFrom(std::string_view procStat, std::string_view meminfo);

private:
    SamplerOptions m_options;
    std::optional<CpuTimes> m_previous;
};

} // namespace tidepool::agent
