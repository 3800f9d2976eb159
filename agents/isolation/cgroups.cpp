#include "agents/isolation/cgroups.h"

#include "agents/isolation/sysfs.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <system_error>

namespace tidepool::agent {

namespace {

constexpr std::uint64_t kMinMemoryLimitBytes = 4096; // a page

// The directories directly under `dir` (not symlinks to one), in no particular order; none when it cannot be read.
std::vector<std::filesystem::path> subdirectories(const std::filesystem::path& dir)
{
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_directory(ec) && !it->is_symlink(ec))
            out.push_back(it->path());
    return out;
}

bool nameCharOk(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
        || c == '-';
}

// `wl-<id>` for a workload's first launch, `wl-<id>@<n>` for its incarnation n: '@' is never part of a checked id, so
// the names of two (id, incarnation) pairs never meet.
std::string workloadDirName(std::string_view workloadId, std::uint32_t incarnation)
{
    return "wl-" + std::string(workloadId) + (incarnation == 0 ? std::string() : "@" + std::to_string(incarnation));
}

// cgroup v2 only lets a cgroup's children use a controller that its cgroup.subtree_control enables; a non-root cgroup
// that has processes of its own cannot enable any (the "no internal processes" rule, EBUSY).
IsolationExpected<void> enableControllers(const std::filesystem::path& dir, const std::vector<std::string>& wanted)
{
    const auto file = dir / "cgroup.subtree_control";
    auto current = sysfs::readFile(file);
    if (!current)
        return tl::unexpected(current.error());
    for (const auto& controller : wanted) {
        // subtree_control lists names separated by spaces; look for a whole word.
        const std::string text = " " + *current + " ";
        if (text.find(" " + controller + " ") != std::string::npos
            || text.find(" " + controller + "\n") != std::string::npos)
            continue;
        if (auto written = sysfs::writeFile(file, "+" + controller); !written)
            return written;
    }
    return {};
}

std::optional<std::uint64_t> parseNumber(std::string_view text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.remove_suffix(1);
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

IsolationExpected<std::uint64_t> readNumber(const std::filesystem::path& file)
{
    auto text = sysfs::readFile(file);
    if (!text)
        return tl::unexpected(text.error());
    if (const auto value = parseNumber(*text))
        return *value;
    return makeIsolationError(IsolationErrorCode::BadRecord, file.string(), "no number in " + file.string());
}

} // namespace

IsolationExpected<protocol::OwnerLock> PoolCgroups::claimBase() const
{
    const std::string dir = m_base.memory.string();
    auto lock = protocol::OwnerLock::acquire(dir, protocol::OwnerLock::Target::Directory);
    if (lock)
        return std::move(*lock);
    if (!lock.error().heldByAnother())
        return makeIsolationError(
            IsolationErrorCode::SystemCall, dir, "locking the base cgroup " + dir + ": " + lock.error().reason());
    return makeIsolationError(IsolationErrorCode::Busy, dir,
        "the base cgroup " + dir + " is held by another agent (" + lock.error().holder()
            + "): each agent of a host needs a base of its own, or each would remove the other's pools");
}

PoolCgroups::PoolCgroups(CgroupLayout layout, CgroupPaths base, std::vector<std::string> notes)
    : m_layout(std::move(layout))
    , m_base(std::move(base))
    , m_notes(std::move(notes))
{
}

IsolationExpected<void> PoolCgroups::checkName(std::string_view field, std::string_view name)
{
    const auto bad = [&](const std::string& why) {
        return makeIsolationError(IsolationErrorCode::BadName, std::string(field),
            std::string(field) + " \"" + sysfs::quoted(name) + "\" " + why);
    };
    if (name.empty())
        return bad("is empty");
    if (name.size() > kMaxNameLength)
        return bad("is longer than " + std::to_string(kMaxNameLength) + " characters");
    if (name == "." || name == "..")
        return bad("may not be \".\" or \"..\"");
    for (const char c : name)
        if (!nameCharOk(c))
            return bad("may contain only A-Z a-z 0-9 . _ - (found '" + sysfs::quoted(std::string_view(&c, 1)) + "')");
    return {};
}

IsolationExpected<PoolCgroups> PoolCgroups::create(CgroupLayout layout, std::string baseName)
{
    if (auto ok = checkName("cgroup base name", baseName); !ok)
        return tl::unexpected(ok.error());
    if (layout.version == CgroupVersion::Invalid || layout.parents.cpu.empty() || layout.parents.memory.empty())
        return makeIsolationError(IsolationErrorCode::NoCgroups, "", "no cgroup layout with cpu and memory");
    std::vector<std::string> notes = layout.notes;

    if (layout.version == CgroupVersion::V1) {
        const CgroupPaths base = layout.parents.child(baseName);
        for (const auto& dir : base.distinct())
            if (auto made = sysfs::makeDirectory(dir); !made)
                return tl::unexpected(made.error());
        // Old kernels default memory.use_hierarchy to 0, which would leave the workloads' memory outside their pool's
        // limit; since 5.x it is always 1.
        const auto useHierarchy = base.memory / "memory.use_hierarchy";
        if (const auto value = readNumber(useHierarchy); value && *value == 0)
            if (auto written = sysfs::writeFile(useHierarchy, "1"); !written)
                return tl::unexpected(written.error());
        return PoolCgroups(std::move(layout), base, std::move(notes));
    }

    // cgroup v2: the base needs cpu and memory (and io when offered) enabled in its parent and for its own children.
    const auto prepare = [&baseName](const CgroupPaths& parents) -> IsolationExpected<void> {
        std::vector<std::string> wanted { "cpu", "memory" };
        if (!parents.io.empty())
            wanted.emplace_back("io");
        if (auto ok = enableControllers(parents.memory, wanted); !ok)
            return ok;
        const auto dir = parents.memory / baseName;
        auto made = sysfs::makeDirectory(dir);
        if (!made)
            return tl::unexpected(made.error());
        auto ok = enableControllers(dir, wanted);
        if (!ok && *made)
            (void)sysfs::removeDirectory(dir);
        return ok;
    };
    auto prepared = prepare(layout.parents);
    if (!prepared && layout.parents.memory != layout.roots.memory) {
        notes.push_back("cgroup v2: the agent's own cgroup cannot delegate controllers (" + prepared.error().message
            + "); using the root " + layout.roots.memory.string());
        layout.parents = layout.roots;
        prepared = prepare(layout.parents);
    }
    if (!prepared) {
        auto error = prepared.error();
        error.message += " (cgroup v2 lets only a cgroup without processes of its own, or the root, delegate "
                         "controllers: run the agent in a leaf cgroup of a delegated subtree, e.g. systemd "
                         "Delegate=yes)";
        return tl::unexpected(error);
    }
    const CgroupPaths base = layout.parents.child(baseName);
    return PoolCgroups(std::move(layout), base, std::move(notes));
}

IsolationExpected<CgroupPaths> PoolCgroups::poolPaths(std::string_view pool) const
{
    if (auto ok = checkName("pool name", pool); !ok)
        return tl::unexpected(ok.error());
    return m_base.child(pool);
}

IsolationExpected<CgroupPaths> PoolCgroups::workloadPaths(
    std::string_view pool, std::string_view workloadId, std::uint32_t incarnation) const
{
    auto poolDir = poolPaths(pool);
    if (!poolDir)
        return poolDir;
    if (auto ok = checkName("workload id", workloadId); !ok)
        return tl::unexpected(ok.error());
    return poolDir->child(workloadDirName(workloadId, incarnation));
}

IsolationExpected<CgroupPaths> PoolCgroups::createPool(std::string_view pool)
{
    auto paths = poolPaths(pool);
    if (!paths)
        return paths;
    for (const auto& dir : paths->distinct())
        if (auto made = sysfs::makeDirectory(dir); !made)
            return tl::unexpected(made.error());
    // Workload cgroups need the memory controller of their own for memory.events (OOM attribution) and
    // memory.oom.group, and the CPU controller for their weights; the pool itself never holds processes, so v2 lets it
    // delegate.
    if (m_layout.version == CgroupVersion::V2)
        if (auto ok = enableControllers(paths->memory, { "cpu", "memory" }); !ok)
            return tl::unexpected(ok.error());
    return paths;
}

std::uint64_t cpuSharesFor(std::uint64_t cpuMillis)
{
    return std::clamp<std::uint64_t>(std::min<std::uint64_t>(cpuMillis, 1ULL << 40) * 1024 / 1000, 2, 262'144);
}

std::uint64_t cpuWeightFor(std::uint64_t cpuMillis)
{
    return 1 + (cpuSharesFor(cpuMillis) - 2) * 9999 / 262'142;
}

IsolationExpected<void> PoolCgroups::checkWorkloadResources(const WorkloadResources& own)
{
    if (own.memoryLimitBytes != 0 && own.memoryLimitBytes < kMinMemoryLimitBytes)
        return makeIsolationError(IsolationErrorCode::BadLimit, "memoryLimitBytes",
            "memoryLimitBytes must be at least 4096 (got " + std::to_string(own.memoryLimitBytes) + ")");
    if (own.cpuLimitMillis != 0 && own.cpuLimitMillis < 10)
        return makeIsolationError(IsolationErrorCode::BadLimit, "cpuLimitMillis",
            "cpuLimitMillis must be at least 10 (got " + std::to_string(own.cpuLimitMillis) + ")");
    return {};
}

std::uint32_t PoolCgroups::cpuLimitUnder(const CgroupPaths& pool, std::uint32_t millis) const
{
    if (m_layout.version != CgroupVersion::V1)
        return millis;
    // The pool's quota, in microseconds a 100 ms period; -1: none.
    if (const auto quota = sysfs::readFile(pool.cpu / "cpu.cfs_quota_us"); quota) {
        long long usec = 0;
        std::from_chars(quota->data(), quota->data() + quota->size(), usec);
        if (usec > 0)
            return std::min<std::uint32_t>(millis, static_cast<std::uint32_t>(usec / 100));
    }
    return millis;
}

IsolationExpected<CgroupPaths> PoolCgroups::createWorkload(
    std::string_view pool, std::string_view workloadId, std::uint32_t incarnation, WorkloadResources own)
{
    const std::uint64_t cpuMillis = own.cpuMillis;
    if (auto valid = checkWorkloadResources(own); !valid)
        return tl::unexpected(valid.error());
    auto poolDir = poolPaths(pool);
    if (!poolDir)
        return poolDir;
    auto paths = workloadPaths(pool, workloadId, incarnation);
    if (!paths)
        return paths;
    if (!sysfs::fileExists(poolDir->memory))
        return makeIsolationError(IsolationErrorCode::NotFound, poolDir->memory.string(),
            "pool \"" + std::string(pool) + "\" has no cgroup at " + poolDir->memory.string());
    if (m_layout.version == CgroupVersion::V2 && cpuMillis > 0) // a pool an agent from before weights made
        if (auto ok = enableControllers(poolDir->memory, { "cpu" }); !ok)
            return tl::unexpected(ok.error());
    for (const auto& dir : paths->distinct())
        if (auto made = sysfs::makeDirectory(dir); !made)
            return tl::unexpected(made.error());
    if (m_layout.version == CgroupVersion::V2) {
        const auto oomGroup = paths->memory / "memory.oom.group";
        if (sysfs::fileExists(oomGroup))
            if (auto written = sysfs::writeFile(oomGroup, "1"); !written)
                return tl::unexpected(written.error());
    }
    if (cpuMillis > 0) {
        const bool v2 = m_layout.version == CgroupVersion::V2;
        const auto file = paths->cpu / (v2 ? "cpu.weight" : "cpu.shares");
        if (auto written
            = sysfs::writeFile(file, std::to_string(v2 ? cpuWeightFor(cpuMillis) : cpuSharesFor(cpuMillis)));
            !written)
            return tl::unexpected(written.error());
    }
    if (own.memoryLimitBytes != 0)
        if (auto limited = limitMemory(*paths, own.memoryLimitBytes); !limited)
            return tl::unexpected(limited.error());
    if (own.cpuLimitMillis != 0)
        if (auto limited = limitCpu(*paths, cpuLimitUnder(*poolDir, own.cpuLimitMillis)); !limited)
            return tl::unexpected(limited.error());
    return paths;
}

IsolationExpected<void> PoolCgroups::resizeWorkload(
    std::string_view pool, std::string_view workloadId, std::uint32_t incarnation, WorkloadResources own)
{
    if (auto valid = checkWorkloadResources(own); !valid)
        return valid;
    auto poolDir = poolPaths(pool);
    if (!poolDir)
        return tl::unexpected(poolDir.error());
    auto paths = workloadPaths(pool, workloadId, incarnation);
    if (!paths)
        return tl::unexpected(paths.error());
    if (!sysfs::fileExists(paths->memory))
        return makeIsolationError(IsolationErrorCode::NotFound, paths->memory.string(),
            "workload \"" + std::string(workloadId) + "\" has no cgroup at " + paths->memory.string());
    const bool v2 = m_layout.version == CgroupVersion::V2;
    if (own.memoryLimitBytes != 0) {
        auto held = readNumber(paths->memory / (v2 ? "memory.current" : "memory.usage_in_bytes"));
        if (!held)
            return tl::unexpected(held.error());
        if (*held > own.memoryLimitBytes)
            return makeIsolationError(IsolationErrorCode::BadLimit, "memoryLimitBytes",
                "the workload holds " + std::to_string(*held >> 20) + " MiB now, more than the new memory limit of "
                    + std::to_string(own.memoryLimitBytes >> 20)
                    + " MiB: left as it was (the kernel would reclaim, and failing that kill, to enforce it)");
    }
    if (auto limited = limitMemory(*paths, own.memoryLimitBytes ? std::optional(own.memoryLimitBytes) : std::nullopt);
        !limited)
        return limited;
    const std::optional<std::uint32_t> cpuLimit
        = own.cpuLimitMillis == 0 ? std::nullopt : std::optional(cpuLimitUnder(*poolDir, own.cpuLimitMillis));
    if (auto limited = limitCpu(*paths, cpuLimit); !limited)
        return limited;
    const auto weightFile = paths->cpu / (v2 ? "cpu.weight" : "cpu.shares");
    if (!sysfs::fileExists(weightFile)) {
        if (own.cpuMillis == 0)
            return {};
        return makeIsolationError(IsolationErrorCode::NotFound, weightFile.string(),
            "no " + weightFile.filename().string() + " for the workload's CPU weight");
    }
    // The kernel's defaults when no request is given: 1024 shares, weight 100.
    return sysfs::writeFile(weightFile,
        own.cpuMillis == 0 ? std::string(v2 ? "100" : "1024")
                           : std::to_string(v2 ? cpuWeightFor(own.cpuMillis) : cpuSharesFor(own.cpuMillis)));
}

IsolationExpected<void> PoolCgroups::setPoolCpuWeight(std::string_view pool, std::uint64_t cpuMillis)
{
    auto paths = poolPaths(pool);
    if (!paths)
        return tl::unexpected(paths.error());
    const bool v2 = m_layout.version == CgroupVersion::V2;
    return sysfs::writeFile(paths->cpu / (v2 ? "cpu.weight" : "cpu.shares"),
        std::to_string(v2 ? cpuWeightFor(cpuMillis) : cpuSharesFor(cpuMillis)));
}

std::map<std::string, std::uint32_t> PoolCgroups::netPriorities(std::string_view device) const
{
    std::map<std::string, std::uint32_t> out;
    if (m_base.netPrio.empty())
        return out;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(m_base.netPrio, ec)) {
        const std::string pool = entry.path().filename().string();
        if (!entry.is_directory(ec) || !checkName("pool", pool))
            continue;
        // One "<device> <priority>" line per device, as a keyed counter file.
        const auto priority = sysfs::readKeyedCounter(entry.path() / "net_prio.ifpriomap", device);
        if (priority && *priority != 0 && *priority <= 0xffff'ffff)
            out.emplace(pool, static_cast<std::uint32_t>(*priority));
    }
    return out;
}

std::vector<std::string> PoolCgroups::pools() const
{
    std::vector<std::string> out;
    for (const std::filesystem::path& dir : subdirectories(m_base.memory))
        if (std::string pool = dir.filename().string(); checkName("pool", pool))
            out.push_back(std::move(pool));
    std::sort(out.begin(), out.end());
    return out;
}

IsolationExpected<CgroupUsage> PoolCgroups::usage(const CgroupPaths& group) const
{
    CgroupUsage usage;
    const bool v2 = m_layout.version == CgroupVersion::V2;
    if (group.cpuacct.empty())
        return makeIsolationError(
            IsolationErrorCode::NotFound, "cpuacct", "no cpuacct hierarchy: CPU usage cannot be read back");
    if (v2) {
        auto cpu = sysfs::readKeyedCounter(group.cpuacct / "cpu.stat", "usage_usec");
        if (!cpu)
            return tl::unexpected(cpu.error());
        usage.cpuUsageUsec = *cpu;
    } else {
        auto cpuNs = readNumber(group.cpuacct / "cpuacct.usage");
        if (!cpuNs)
            return tl::unexpected(cpuNs.error());
        usage.cpuUsageUsec = *cpuNs / 1000;
    }
    auto memory = readNumber(group.memory / (v2 ? "memory.current" : "memory.usage_in_bytes"));
    if (!memory)
        return tl::unexpected(memory.error());
    usage.memoryBytes = *memory;
    auto ooms = sysfs::readKeyedCounter(oomCounterFile(group), "oom_kill");
    if (!ooms)
        return tl::unexpected(ooms.error());
    usage.oomKills = *ooms;
    return usage;
}

IsolationExpected<std::vector<int>> PoolCgroups::processes(const CgroupPaths& group) const
{
    auto text = sysfs::readFile(group.memory / "cgroup.procs");
    if (!text)
        return tl::unexpected(text.error());
    std::vector<int> pids;
    std::string_view rest = *text;
    while (!rest.empty()) {
        const auto eol = rest.find('\n');
        if (const auto pid = parseNumber(rest.substr(0, eol)); pid && *pid > 0)
            pids.push_back(static_cast<int>(*pid));
        rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
    }
    return pids;
}

std::filesystem::path PoolCgroups::oomCounterFile(const CgroupPaths& group) const
{
    return group.memory / (m_layout.version == CgroupVersion::V2 ? "memory.events" : "memory.oom_control");
}

std::filesystem::path PoolCgroups::killFile(const CgroupPaths& group) const
{
    if (m_layout.version != CgroupVersion::V2)
        return {};
    auto file = group.memory / "cgroup.kill";
    return sysfs::fileExists(file) ? file : std::filesystem::path();
}

namespace {

IsolationExpected<void> removeAll(const std::vector<std::filesystem::path>& dirs)
{
    IsolationExpected<void> result;
    for (const auto& dir : dirs)
        if (auto removed = sysfs::removeDirectory(dir); !removed && result)
            result = removed;
    return result;
}

} // namespace

IsolationExpected<void> PoolCgroups::removeWorkload(
    std::string_view pool, std::string_view workloadId, std::uint32_t incarnation)
{
    auto paths = workloadPaths(pool, workloadId, incarnation);
    if (!paths)
        return tl::unexpected(paths.error());
    return removeAll(paths->distinct());
}

IsolationExpected<void> PoolCgroups::removePool(std::string_view pool)
{
    auto paths = poolPaths(pool);
    if (!paths)
        return tl::unexpected(paths.error());
    return removeAll(paths->distinct());
}

std::vector<std::string> PoolCgroups::removePoolsOtherThan(
    const std::vector<std::string>& keep, std::vector<std::string>& problems)
{
    std::vector<std::string> removed;
    for (const std::string& pool : pools()) {
        if (std::find(keep.begin(), keep.end(), pool) != keep.end())
            continue;
        auto paths = poolPaths(pool);
        if (!paths)
            continue;
        // The kernel refuses to remove a cgroup with processes: those of running workloads stay, in every hierarchy.
        for (const std::filesystem::path& workload : subdirectories(paths->memory)) {
            const std::string name = workload.filename().string();
            if (name.rfind("wl-", 0) != 0)
                continue; // not a workload's: left as it is, and the pool with it
            std::vector<std::filesystem::path> dirs;
            for (const std::filesystem::path& hierarchy : paths->distinct())
                dirs.push_back(hierarchy / name);
            (void)removeAll(dirs);
        }
        // Checked in the memory hierarchy first, so that a pool that runs something loses no hierarchy's directory.
        const auto procs = processes(*paths);
        if (!subdirectories(paths->memory).empty() || !procs || !procs->empty())
            continue;
        if (auto gone = removePool(pool); gone)
            removed.push_back(pool);
        else if (gone.error().code != IsolationErrorCode::Busy)
            problems.push_back("pool " + pool + ": " + gone.error().message);
    }
    return removed;
}

std::size_t PoolCgroups::pruneEmpty()
{
    std::size_t removed = 0;
    for (const auto& base : m_base.distinct()) {
        for (const auto& pool : subdirectories(base)) {
            for (const auto& workload : subdirectories(pool))
                removed += ::rmdir(workload.c_str()) == 0 ? 1 : 0;
            removed += ::rmdir(pool.c_str()) == 0 ? 1 : 0;
        }
        removed += ::rmdir(base.c_str()) == 0 ? 1 : 0;
    }
    return removed;
}

} // namespace tidepool::agent
