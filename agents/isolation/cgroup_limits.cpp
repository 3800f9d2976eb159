// PoolCgroups::applyLimits: the translation of a pool's limits into cgroup v2 or v1 control files.

#include "agents/isolation/cgroups.h"

#include "agents/isolation/sysfs.h"

#include <algorithm>
#include <set>

namespace tidepool::agent {

namespace {

constexpr std::uint32_t kMinCpuMillis = 10; // 1 ms of quota per 100 ms period, the kernel's minimum
constexpr std::uint32_t kMaxCpuMillis = 10'000'000;
constexpr std::uint64_t kMinMemoryBytes = 4096;
constexpr std::uint32_t kDefaultIoWeight = 100;

IsolationExpected<void> checkLimits(const PoolLimits& limits)
{
    const auto bad = [](std::string field, std::string why) {
        return makeIsolationError(IsolationErrorCode::BadLimit, field, field + " " + why);
    };
    if (limits.cpuMillis && (*limits.cpuMillis < kMinCpuMillis || *limits.cpuMillis > kMaxCpuMillis))
        return bad("cpuMillis", "must be between 10 and 10000000 (got " + std::to_string(*limits.cpuMillis) + ")");
    if (limits.memoryBytes && *limits.memoryBytes < kMinMemoryBytes)
        return bad("memoryBytes", "must be at least 4096 (got " + std::to_string(*limits.memoryBytes) + ")");
    if (limits.ioWeight && (*limits.ioWeight < 1 || *limits.ioWeight > 10'000))
        return bad("ioWeight", "must be between 1 and 10000 (got " + std::to_string(*limits.ioWeight) + ")");
    if (limits.netPriority
        && (limits.netPriority->device.empty() || limits.netPriority->device.size() > 15
            || limits.netPriority->device.find_first_of(" \n/") != std::string::npos))
        return bad("netPriority.device", "must be a network device name (got \"" + limits.netPriority->device + "\")");
    for (std::size_t i = 0; i < limits.ioDevices.size(); ++i)
        if (limits.ioDevices[i].major == 0 && limits.ioDevices[i].minor == 0)
            return bad("ioDevices[" + std::to_string(i) + "]", "names no block device (0:0)");
    return {};
}

std::string deviceKey(std::uint32_t major, std::uint32_t minor)
{
    return std::to_string(major) + ":" + std::to_string(minor);
}

// The "MAJ:MIN" first words of a throttle file's lines (io.max, blkio.throttle.*).
std::set<std::string> throttledDevices(const std::filesystem::path& file)
{
    std::set<std::string> devices;
    const auto text = sysfs::readFile(file);
    if (!text)
        return devices;
    std::string_view rest = *text;
    while (!rest.empty()) {
        const auto eol = rest.find('\n');
        const auto line = rest.substr(0, eol);
        rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
        const auto word = line.substr(0, line.find(' '));
        if (word.find(':') != std::string_view::npos && word != "Total")
            devices.emplace(word);
    }
    return devices;
}

std::string orMax(std::uint64_t value)
{
    return value == 0 ? std::string("max") : std::to_string(value);
}

// cgroup v1 limits need lowering in one order and raising in the other (memory.limit_in_bytes may never exceed
// memory.memsw.limit_in_bytes): try the limit first, and on failure the swap limit first.
IsolationExpected<void> writeMemoryV1(const CgroupPaths& pool, const std::string& value)
{
    const auto limit = pool.memory / "memory.limit_in_bytes";
    const auto memsw = pool.memory / "memory.memsw.limit_in_bytes";
    const bool swapAccounted = sysfs::fileExists(memsw);
    auto first = sysfs::writeFile(limit, value);
    if (!swapAccounted)
        return first;
    if (first)
        return sysfs::writeFile(memsw, value);
    if (auto swap = sysfs::writeFile(memsw, value); !swap)
        return first;
    return sysfs::writeFile(limit, value);
}

// A memory limit with no swap beyond it (where the kernel accounts swap), or none.
IsolationExpected<void> writeMemoryLimit(
    const CgroupPaths& group, CgroupVersion version, std::optional<std::uint64_t> bytes)
{
    if (version == CgroupVersion::V1)
        return writeMemoryV1(group, bytes ? std::to_string(*bytes) : "-1");
    if (auto ok = sysfs::writeFile(group.memory / "memory.max", bytes ? std::to_string(*bytes) : "max"); !ok)
        return ok;
    if (const auto swap = group.memory / "memory.swap.max"; sysfs::fileExists(swap))
        return sysfs::writeFile(swap, bytes ? "0" : "max");
    return {};
}

// A CPU bandwidth quota of `millis` millicores a `kCpuPeriodUsec` period, or none.
IsolationExpected<void> writeCpuLimit(
    const CgroupPaths& group, CgroupVersion version, std::optional<std::uint32_t> millis)
{
    const auto period = std::to_string(PoolCgroups::kCpuPeriodUsec);
    if (version == CgroupVersion::V2)
        return sysfs::writeFile(
            group.cpu / "cpu.max", (millis ? std::to_string(std::uint64_t { *millis } * 100) : "max") + " " + period);
    if (auto ok = sysfs::writeFile(group.cpu / "cpu.cfs_period_us", period); !ok)
        return ok;
    return sysfs::writeFile(
        group.cpu / "cpu.cfs_quota_us", millis ? std::to_string(std::uint64_t { *millis } * 100) : "-1");
}

IsolationExpected<void> applyV2(const CgroupPaths& pool, const PoolLimits& limits, LimitReport& report)
{
    if (auto ok = writeCpuLimit(pool, CgroupVersion::V2, limits.cpuMillis); !ok)
        return ok;

    if (auto ok = writeMemoryLimit(pool, CgroupVersion::V2, limits.memoryBytes); !ok)
        return ok;

    if (pool.io.empty()) {
        if (limits.ioWeight || !limits.ioDevices.empty())
            report.notEnforced.emplace_back("io: no io controller on this host");
    } else {
        const auto weight = limits.ioWeight.value_or(kDefaultIoWeight);
        if (const auto file = pool.io / "io.weight"; sysfs::fileExists(file)) {
            if (auto ok = sysfs::writeFile(file, "default " + std::to_string(weight)); !ok)
                return ok;
        } else if (const auto bfq = pool.io / "io.bfq.weight"; sysfs::fileExists(bfq)) {
            if (auto ok = sysfs::writeFile(bfq, "default " + std::to_string(std::max(1U, weight / 10))); !ok)
                return ok;
        } else if (limits.ioWeight) {
            report.notEnforced.emplace_back("io weight: neither io.weight nor io.bfq.weight in " + pool.io.string());
        }
        const auto ioMax = pool.io / "io.max";
        if (!sysfs::fileExists(ioMax)) {
            if (!limits.ioDevices.empty())
                report.notEnforced.emplace_back("io throttles: no io.max in " + pool.io.string());
        } else {
            std::set<std::string> wanted;
            for (const auto& d : limits.ioDevices) {
                wanted.insert(deviceKey(d.major, d.minor));
                const auto line = deviceKey(d.major, d.minor) + " rbps=" + orMax(d.readBytesPerSec) + " wbps="
                    + orMax(d.writeBytesPerSec) + " riops=" + orMax(d.readIops) + " wiops=" + orMax(d.writeIops);
                if (auto ok = sysfs::writeFile(ioMax, line); !ok)
                    return ok;
            }
            for (const auto& device : throttledDevices(ioMax))
                if (!wanted.contains(device))
                    if (auto ok = sysfs::writeFile(ioMax, device + " rbps=max wbps=max riops=max wiops=max"); !ok)
                        return ok;
        }
    }
    if (limits.netClassId || limits.netPriority)
        report.notEnforced.emplace_back(
            "network: cgroup v2 has neither net_cls nor net_prio; the pool's traffic is accounted only");
    return {};
}

IsolationExpected<void> applyV1(const CgroupPaths& pool, const PoolLimits& limits, LimitReport& report)
{
    if (auto ok = writeCpuLimit(pool, CgroupVersion::V1, limits.cpuMillis); !ok)
        return ok;

    if (auto ok = writeMemoryLimit(pool, CgroupVersion::V1, limits.memoryBytes); !ok)
        return ok;

    if (pool.io.empty()) {
        if (limits.ioWeight || !limits.ioDevices.empty())
            report.notEnforced.emplace_back("io: no blkio hierarchy on this host");
    } else {
        // v2's 1..10000 onto v1's 10..1000, linearly (the inverse of runc's v1-to-v2 conversion); the file's own
        // default when unset (500 for CFQ's blkio.weight, 100 for BFQ).
        const auto scaled = [](std::uint32_t w) { return 10 + (w - 1) * 990 / 9999; };
        if (const auto file = pool.io / "blkio.weight"; sysfs::fileExists(file)) {
            if (auto ok = sysfs::writeFile(file, std::to_string(limits.ioWeight ? scaled(*limits.ioWeight) : 500)); !ok)
                return ok;
        } else if (const auto bfq = pool.io / "blkio.bfq.weight"; sysfs::fileExists(bfq)) {
            if (auto ok = sysfs::writeFile(bfq, std::to_string(limits.ioWeight ? scaled(*limits.ioWeight) : 100)); !ok)
                return ok;
        } else if (limits.ioWeight) {
            report.notEnforced.emplace_back(
                "io weight: neither blkio.weight nor blkio.bfq.weight in " + pool.io.string() + " (no CFQ or BFQ)");
        }
        const std::pair<const char*, std::uint64_t IoDeviceLimit::*> files[] = {
            { "blkio.throttle.read_bps_device", &IoDeviceLimit::readBytesPerSec },
            { "blkio.throttle.write_bps_device", &IoDeviceLimit::writeBytesPerSec },
            { "blkio.throttle.read_iops_device", &IoDeviceLimit::readIops },
            { "blkio.throttle.write_iops_device", &IoDeviceLimit::writeIops },
        };
        for (const auto& [name, member] : files) {
            const auto file = pool.io / name;
            if (!sysfs::fileExists(file)) {
                if (!limits.ioDevices.empty())
                    report.notEnforced.push_back(std::string("io throttles: no ") + name + " in " + pool.io.string());
                continue;
            }
            std::set<std::string> wanted;
            for (const auto& d : limits.ioDevices) {
                wanted.insert(deviceKey(d.major, d.minor));
                // "MAJ:MIN 0" removes a rule, so unthrottled needs no special case.
                if (auto ok = sysfs::writeFile(file, deviceKey(d.major, d.minor) + " " + std::to_string(d.*member));
                    !ok)
                    return ok;
            }
            for (const auto& device : throttledDevices(file))
                if (!wanted.contains(device))
                    if (auto ok = sysfs::writeFile(file, device + " 0"); !ok)
                        return ok;
        }
    }

    if (!pool.netCls.empty()) {
        if (auto ok = sysfs::writeFile(pool.netCls / "net_cls.classid", std::to_string(limits.netClassId.value_or(0)));
            !ok)
            return ok;
    } else if (limits.netClassId) {
        report.notEnforced.emplace_back("network: no net_cls hierarchy; the pool's traffic is accounted only");
    }

    if (limits.netPriority && pool.netPrio.empty()) {
        report.notEnforced.emplace_back("network shaping: no net_prio hierarchy; the pool's traffic is not shaped");
    } else if (limits.netPriority) {
        // The pool, and each workload in it: a cgroup copies its parent's map when it is created, never after.
        const std::string line = limits.netPriority->device + " " + std::to_string(limits.netPriority->priority);
        if (auto ok = sysfs::writeFile(pool.netPrio / "net_prio.ifpriomap", line); !ok)
            return ok;
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(pool.netPrio, ec)) {
            if (!entry.is_directory(ec) || !entry.path().filename().string().starts_with("wl-"))
                continue;
            if (auto ok = sysfs::writeFile(entry.path() / "net_prio.ifpriomap", line); !ok)
                return ok;
        }
    }
    return {};
}

} // namespace

IsolationExpected<void> PoolCgroups::limitMemory(const CgroupPaths& group, std::optional<std::uint64_t> bytes) const
{
    return writeMemoryLimit(group, m_layout.version, bytes);
}

IsolationExpected<void> PoolCgroups::limitCpu(const CgroupPaths& group, std::optional<std::uint32_t> millis) const
{
    return writeCpuLimit(group, m_layout.version, millis);
}

IsolationExpected<LimitReport> PoolCgroups::applyLimits(std::string_view pool, const PoolLimits& limits)
{
    auto paths = poolPaths(pool);
    if (!paths)
        return tl::unexpected(paths.error());
    if (auto ok = checkLimits(limits); !ok)
        return tl::unexpected(ok.error());
    if (!sysfs::fileExists(paths->memory))
        return makeIsolationError(IsolationErrorCode::NotFound, paths->memory.string(),
            "pool \"" + std::string(pool) + "\" has no cgroup at " + paths->memory.string());
    LimitReport report;
    auto applied
        = m_layout.version == CgroupVersion::V2 ? applyV2(*paths, limits, report) : applyV1(*paths, limits, report);
    if (!applied)
        return tl::unexpected(applied.error());
    return report;
}

} // namespace tidepool::agent
