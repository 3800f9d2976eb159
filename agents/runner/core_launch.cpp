#include "agents/runner/core_launch.h"

#include "protocol/join.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace tidepool::agent {

namespace {

bool isAgentVariable(const std::string& entry)
{
    const std::string_view name = std::string_view(entry).substr(0, entry.find('='));
    return std::any_of(std::begin(kAgentEnvironment), std::end(kAgentEnvironment),
        [&](const char* agentName) { return name == agentName; });
}

} // namespace

std::vector<std::string> workloadEnvironment(const protocol::Launch& launch)
{
    std::vector<std::string> env;
    for (const std::string& entry : launch.env)
        if (!isAgentVariable(entry))
            env.push_back(entry);
    env.push_back("TIDEPOOL_WORKLOAD_ID=" + std::to_string(launch.workloadId));
    env.push_back("TIDEPOOL_INCARNATION=" + std::to_string(launch.incarnation));
    if (!launch.devices.empty()) {
        std::string visible = "CUDA_VISIBLE_DEVICES=";
        for (std::size_t i = 0; i < launch.devices.size(); ++i)
            visible += (i ? "," : "") + std::to_string(launch.devices[i]);
        env.push_back(visible);
    }
    return env;
}

LaunchSpec launchSpecFor(const protocol::Launch& launch)
{
    LaunchSpec spec;
    spec.id = std::to_string(launch.workloadId);
    spec.incarnation = static_cast<std::uint32_t>(std::max<std::int32_t>(0, launch.incarnation));
    spec.pool = launch.pool;
    spec.argv = launch.argv;
    spec.env = workloadEnvironment(launch);
    spec.name = launch.name;
    spec.launchDigest = launchDigest(launch);
    spec.cpuMillis = static_cast<std::uint64_t>(std::max<std::int64_t>(0, launch.cpuMillis));
    spec.memoryLimitBytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, launch.memoryLimitMiB)) << 20;
    spec.cpuLimitMillis
        = static_cast<std::uint32_t>(std::clamp<std::int64_t>(launch.cpuLimitMillis, 0, protocol::kMaxCpuMillis));
    return spec;
}

std::string launchDigest(const protocol::Launch& launch)
{
    auto devices = launch.devices;
    std::sort(devices.begin(), devices.end()); // which devices, not in which order the core listed them
    nlohmann::json what
        = { { "name", launch.name }, { "pool", launch.pool }, { "argv", launch.argv }, { "env", launch.env },
              { "cpuMillis", launch.cpuMillis }, { "memoryMiB", launch.memoryMiB }, { "devices", devices } };
    if (launch.memoryLimitMiB != 0) // only when set: digests of launches without one read as they did before it
        what["memoryLimitMiB"] = launch.memoryLimitMiB;
    if (launch.cpuLimitMillis != 0)
        what["cpuLimitMillis"] = launch.cpuLimitMillis;
    // HMAC with a fixed key is SHA-256 enough here: the digest only tells launches apart, it proves nothing.
    const auto mac = protocol::hmacSha256("tidepool-launch-digest-v1", what.dump());
    if (!mac)
        return {}; // OpenSSL failed: judged as a record from before digests
    std::string hex;
    for (const std::uint8_t byte : *mac) {
        char two[3];
        std::snprintf(two, sizeof two, "%02x", byte);
        hex += two;
    }
    return hex;
}

HeldLaunch judgeHeldLaunch(const WorkloadStatus& held, const std::string& digest)
{
    if (held.launchDigest.empty() || digest.empty() || held.launchDigest == digest)
        return HeldLaunch::Repeat;
    return isFinal(held.state) ? HeldLaunch::Replaces : HeldLaunch::Conflicts;
}

std::string conflictDetail(const WorkloadStatus& held)
{
    return "workload id " + held.id + " incarnation " + std::to_string(held.incarnation)
        + " is held here by a different workload still running (pid " + std::to_string(held.pid)
        + (held.name.empty() ? std::string() : ", name \"" + held.name + "\"")
        + "): not started; the core's database may have been replaced";
}

std::string statusLogLine(const WorkloadStatus& status)
{
    std::string line = "workload " + recordName(status.id, status.incarnation) + ": " + workloadStateName(status.state);
    if (status.exitCode)
        line += ", exit code " + std::to_string(*status.exitCode);
    if (status.signal)
        line += ", signal " + std::to_string(*status.signal);
    const bool success = status.state == WorkloadState::Exited && status.exitCode == 0;
    if (!success && !status.reason.empty())
        line += " (" + status.reason + ")";
    return line;
}

} // namespace tidepool::agent
