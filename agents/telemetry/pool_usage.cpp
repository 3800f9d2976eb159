#include "agents/telemetry/pool_usage.h"

#include "agents/isolation/cgroups.h"
#include "agents/isolation/net_shaper.h"
#include "agents/runner/runner.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace tidepool::agent {

std::vector<protocol::PoolUsage> PoolUsageMeter::next(
    const std::map<std::string, PoolReading>& readings, std::int64_t atUsec)
{
    std::vector<protocol::PoolUsage> out;
    std::map<std::string, Previous> previous;
    for (const auto& [pool, reading] : readings) {
        previous.emplace(pool, Previous { reading, atUsec });
        const auto it = m_previous.find(pool);
        if (it == m_previous.end() || atUsec <= it->second.atUsec
            || reading.cpuUsageUsec < it->second.reading.cpuUsageUsec)
            continue;
        const double elapsedUsec = static_cast<double>(atUsec - it->second.atUsec);
        protocol::PoolUsage usage;
        usage.name = pool;
        usage.cpuMillis = std::min<std::int64_t>(protocol::kMaxCpuMillis,
            std::llround(
                1000.0 * static_cast<double>(reading.cpuUsageUsec - it->second.reading.cpuUsageUsec) / elapsedUsec));
        usage.memoryMiB = std::min<std::int64_t>(
            protocol::kMaxMemoryMiB, static_cast<std::int64_t>((reading.memoryBytes + (1u << 19)) >> 20));
        const std::optional<std::uint64_t>& sent = reading.sentBytes;
        const std::optional<std::uint64_t>& sentBefore = it->second.reading.sentBytes;
        if (sent && sentBefore && *sent >= *sentBefore)
            usage.netMbps = std::min(static_cast<double>(protocol::kMaxNetMbps),
                8.0 * static_cast<double>(*sent - *sentBefore) / elapsedUsec); // bits per microsecond = Mbit/s
        // A pool that used nothing is left out (absent reads as none): a node carries a cgroup for every pool of
        // the cluster, and most of them idle there.
        if (usage.cpuMillis > 0 || usage.memoryMiB > 0 || usage.netMbps > 0.0)
            out.push_back(std::move(usage));
    }
    m_previous = std::move(previous);
    return out;
}

std::map<std::string, PoolReading> readPools(
    const PoolCgroups& cgroups, const NetShaper* shaper, std::vector<std::string>& problems)
{
    std::map<std::string, PoolReading> out;
    for (const std::string& pool : cgroups.pools()) {
        auto paths = cgroups.poolPaths(pool);
        if (!paths)
            continue; // not a pool name: pools() has left those out already
        auto usage = cgroups.usage(*paths);
        if (!usage) {
            problems.push_back("pool " + pool + ": " + usage.error().message);
            continue;
        }
        out.emplace(pool, PoolReading { usage->cpuUsageUsec, usage->memoryBytes, std::nullopt });
    }
    if (shaper && !out.empty()) {
        auto sent = shaper->sentBytes();
        if (!sent)
            problems.push_back("network use by pool: " + sent.error().message);
        else
            for (const auto& [pool, bytes] : *sent)
                if (const auto it = out.find(pool); it != out.end())
                    it->second.sentBytes = bytes;
    }
    return out;
}

std::map<std::string, PoolReading> readWorkloads(
    const PoolCgroups& cgroups, const std::vector<WorkloadStatus>& workloads, std::vector<std::string>& problems)
{
    std::map<std::string, PoolReading> out;
    for (const WorkloadStatus& w : workloads) {
        if (w.state != WorkloadState::Running)
            continue;
        const std::string name = recordName(w.id, w.incarnation);
        if (auto usage = cgroups.usage(w.cgroup))
            out.emplace(name, PoolReading { usage->cpuUsageUsec, usage->memoryBytes, {} });
        else if (usage.error().code != IsolationErrorCode::NotFound)
            problems.push_back("workload " + name + ": " + usage.error().message);
    }
    return out;
}

std::vector<protocol::WorkloadUsage> workloadUsageOf(const std::vector<protocol::PoolUsage>& measured)
{
    std::vector<protocol::WorkloadUsage> out;
    for (const protocol::PoolUsage& m : measured) {
        const auto record = parseRecordName(m.name);
        std::int64_t id = 0;
        if (!record
            || std::from_chars(record->first.data(), record->first.data() + record->first.size(), id).ptr
                != record->first.data() + record->first.size()
            || id < 1 || id > protocol::kMaxWorkloadId)
            continue;
        out.push_back(
            protocol::WorkloadUsage { id, static_cast<std::int32_t>(record->second), m.cpuMillis, m.memoryMiB });
    }
    return out;
}

} // namespace tidepool::agent
