#include "agents/telemetry/sampler.h"

#include "agents/inventory/inventory.h"
#include "agents/inventory/nvml.h"
#include "agents/inventory/proc_text.h"

#include <algorithm>
#include <chrono>

namespace tidepool::agent {

namespace {

constexpr std::int64_t kKiBPerMiB = 1024;

std::int64_t systemNowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

InventoryExpected<CpuTimes> parseProcStat(std::string_view content, std::string_view source)
{
    const std::string label(source);
    // The aggregate line comes first and starts with "cpu " (the per-CPU lines are "cpu0", "cpu1", …).
    std::optional<std::string_view> line;
    proctext::forEachLine(content, [&](std::size_t, std::string_view candidate) {
        if (candidate.starts_with("cpu "))
            line = candidate;
        return !line;
    });
    if (!line)
        return makeInventoryError(InventoryErrorCode::MissingField, label, "cpu", "there is no aggregate `cpu` line");

    // user nice system idle iowait irq softirq steal guest guest_nice: only the first four exist on every kernel.
    std::vector<std::uint64_t> fields;
    for (const std::string_view word : proctext::splitWords(line->substr(4))) {
        std::uint64_t value = 0;
        if (!proctext::parseInteger(word, value))
            return makeInventoryError(InventoryErrorCode::Malformed, label, "cpu",
                "field " + std::to_string(fields.size() + 1) + " of the `cpu` line is not a number");
        fields.push_back(value);
    }
    if (fields.size() < 4)
        return makeInventoryError(InventoryErrorCode::Malformed, label, "cpu",
            "the `cpu` line has " + std::to_string(fields.size()) + " fields; at least 4 are needed");
    const auto field = [&](std::size_t i) { return i < fields.size() ? fields[i] : std::uint64_t { 0 }; };
    CpuTimes times;
    const std::uint64_t idle = field(3) + field(4); // idle + iowait
    times.total = field(0) + field(1) + field(2) + field(3) + field(4) + field(5) + field(6) + field(7);
    times.busy = times.total - idle;
    return times;
}

std::optional<double> cpuUtilisationBetween(const CpuTimes& earlier, const CpuTimes& later)
{
    // iowait may go backwards on some kernels, which can make busy time appear to go back too: such an
    // interval says nothing.
    if (later.total <= earlier.total || later.busy < earlier.busy)
        return std::nullopt;
    const auto busy = static_cast<double>(later.busy - earlier.busy);
    const auto total = static_cast<double>(later.total - earlier.total);
    return std::clamp(busy / total, 0.0, 1.0);
}

std::optional<protocol::UtilisationSample> toUtilisationSample(const NodeSample& sample)
{
    if (!sample.cpuUtilisation)
        return std::nullopt;
    protocol::UtilisationSample out;
    out.timestampMs = sample.timestampMs;
    out.cpuUtilisation = *sample.cpuUtilisation;
    out.memoryUsedMiB = sample.memoryUsedMiB;
    out.devices = sample.devices;
    return out;
}

Sampler::Sampler(SamplerOptions options)
    : m_options(std::move(options))
{
    if (!m_options.nowMs)
        m_options.nowMs = systemNowMs;
}

InventoryExpected<NodeSample> Sampler::sample()
{
    const auto stat = readTextFile(m_options.rootPrefix / "proc/stat");
    if (!stat)
        return tl::unexpected(stat.error());
    const auto meminfo = readTextFile(m_options.rootPrefix / "proc/meminfo");
    if (!meminfo)
        return tl::unexpected(meminfo.error());
    return sampleFrom(*stat, *meminfo);
}

InventoryExpected<NodeSample> Sampler::sampleFrom(std::string_view procStat, std::string_view meminfo)
{
    const std::string statLabel = (m_options.rootPrefix / "proc/stat").string();
    const std::string meminfoLabel = (m_options.rootPrefix / "proc/meminfo").string();
    const auto times = parseProcStat(procStat, statLabel);
    if (!times)
        return tl::unexpected(times.error());
    const auto memory = parseMemInfo(meminfo, meminfoLabel);
    if (!memory)
        return tl::unexpected(memory.error());

    NodeSample sample;
    sample.timestampMs = m_options.nowMs();
    if (m_previous)
        sample.cpuUtilisation = cpuUtilisationBetween(*m_previous, *times);
    m_previous = *times;
    sample.memoryUsedMiB = (memory->totalKiB - memory->availableKiB) / kKiBPerMiB;
    if (m_options.nvml) {
        NvmlSamples gpus = m_options.nvml->sample();
        sample.devices = std::move(gpus.devices);
        sample.problems = std::move(gpus.problems);
    }
    return sample;
}

} // namespace tidepool::agent
