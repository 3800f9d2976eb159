#include "agents/runner/runner.h"

#include "agents/isolation/sysfs.h"
#include "agents/runner/async_safe.h"
#include "agents/runner/log_tail.h"
#include "agents/runner/shim.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>
#include <system_error>

namespace tidepool::agent {

namespace {

constexpr int kKillPasses = 3; // the agent's thread must not linger; `poll` repeats the kill while processes remain

bool containsNul(const std::string& text)
{
    return text.find('\0') != std::string::npos;
}

// A process is the recorded one only when it exists, is not a zombie and started when the recorded one did: a pid
// alone may have been reused since.
bool processMatches(int pid, std::uint64_t startTime)
{
    if (pid <= 0)
        return false;
    char state = 0;
    std::uint64_t started = 0;
    if (!asyncsafe::readProcStat(pid, &state, &started))
        return false;
    return started == startTime && state != 'Z' && state != 'X' && state != 'x';
}

tl::unexpected<IsolationError> badSpec(const std::string& field, const std::string& message)
{
    return makeIsolationError(IsolationErrorCode::BadSpec, field, field + " " + message);
}

} // namespace

const char* workloadStateName(WorkloadState state)
{
    switch (state) {
    case WorkloadState::Invalid: return "invalid";
    case WorkloadState::Starting: return "starting";
    case WorkloadState::Running: return "running";
    case WorkloadState::Exited: return "exited";
    case WorkloadState::Killed: return "killed";
    case WorkloadState::OomKilled: return "oom_killed";
    case WorkloadState::FailedToStart: return "failed_to_start";
    case WorkloadState::Lost: return "lost";
    }
    return "invalid";
}

std::string recordName(const std::string& id, std::uint32_t incarnation)
{
    return incarnation == 0 ? id : id + "@" + std::to_string(incarnation);
}

std::optional<std::pair<std::string, std::uint32_t>> parseRecordName(const std::string& name)
{
    const auto at = name.rfind('@');
    std::string id = name.substr(0, at);
    std::uint32_t incarnation = 0;
    if (at != std::string::npos) {
        const std::string digits = name.substr(at + 1);
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), incarnation);
        // Exactly the digits `recordName` writes: no sign, no leading zero, not 0 itself.
        if (ec != std::errc() || end != digits.data() + digits.size() || incarnation == 0 || digits[0] == '0')
            return std::nullopt;
    }
    if (!PoolCgroups::checkName("workload id", id))
        return std::nullopt;
    return std::pair { std::move(id), incarnation };
}

bool isFinal(WorkloadState state)
{
    return state == WorkloadState::Exited || state == WorkloadState::Killed || state == WorkloadState::OomKilled
        || state == WorkloadState::FailedToStart || state == WorkloadState::Lost;
}

Runner::Runner(RunnerConfig config, PoolCgroups& cgroups, std::filesystem::path workloadsDir)
    : m_config(std::move(config))
    , m_cgroups(&cgroups)
    , m_workloadsDir(std::move(workloadsDir))
{
}

IsolationExpected<Runner> Runner::create(RunnerConfig config, PoolCgroups& cgroups)
{
    if (config.stateDir.empty() || !config.stateDir.is_absolute())
        return badSpec("stateDir", "must be an absolute path (got \"" + config.stateDir.string() + "\")");
    auto workloadsDir = config.stateDir / "workloads";
    std::error_code ec;
    std::filesystem::create_directories(workloadsDir, ec);
    if (ec)
        return makeIsolationError(IsolationErrorCode::SystemCall, workloadsDir.string(),
            "creating " + workloadsDir.string() + ": " + ec.message());
    return Runner(std::move(config), cgroups, std::move(workloadsDir));
}

IsolationExpected<std::string> Runner::resolveExecutable(
    const LaunchSpec& spec, const std::vector<std::string>& argv) const
{
    const std::string& program = argv.front();
    if (program.empty())
        return badSpec("argv[0]", "is empty");
    if (program.find('/') != std::string::npos)
        return program;
    std::string path = m_config.defaultPath.empty() ? RunnerConfig().defaultPath : m_config.defaultPath;
    for (const auto& var : spec.env)
        if (var.starts_with("PATH="))
            path = var.substr(5);
    // Only absolute PATH entries: the lookup happens here, not in the workload's working directory.
    std::string_view rest = path;
    while (!rest.empty()) {
        const auto colon = rest.find(':');
        const std::string dir(rest.substr(0, colon));
        rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
        if (dir.empty() || dir[0] != '/')
            continue;
        const std::string candidate = dir + "/" + program;
        struct stat st { };
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return badSpec("argv[0]", "\"" + sysfs::quoted(program) + "\" is not an executable in PATH \"" + path + "\"");
}

IsolationExpected<WorkloadStatus> Runner::launch(const LaunchSpec& spec)
{
    if (auto ok = PoolCgroups::checkName("workload id", spec.id); !ok)
        return tl::unexpected(ok.error());
    if (auto ok = m_cgroups->poolPaths(spec.pool); !ok)
        return tl::unexpected(ok.error());
    if (spec.argv.empty())
        return badSpec("argv", "is empty");
    for (std::size_t i = 0; i < spec.argv.size(); ++i)
        if (containsNul(spec.argv[i]))
            return badSpec("argv[" + std::to_string(i) + "]", "contains a NUL byte");
    for (std::size_t i = 0; i < spec.wrapper.size(); ++i)
        if (containsNul(spec.wrapper[i]) || spec.wrapper[i].empty())
            return badSpec("wrapper[" + std::to_string(i) + "]", "is empty or contains a NUL byte");
    for (std::size_t i = 0; i < spec.env.size(); ++i)
        if (containsNul(spec.env[i]) || spec.env[i].find('=') == std::string::npos || spec.env[i][0] == '=')
            return badSpec("env[" + std::to_string(i) + "]", "is not NAME=value");
    if (spec.workingDir.empty() || spec.workingDir[0] != '/' || containsNul(spec.workingDir))
        return badSpec("workingDir", "must be an absolute path");
    const std::string name = recordName(spec.id, spec.incarnation);
    // A newer incarnation than the spec's held means this launch is stale; the same one, that it was sent twice.
    if (const auto latest = status(spec.id); latest && latest->incarnation > spec.incarnation)
        return makeIsolationError(IsolationErrorCode::AlreadyExists, name,
            "workload \"" + spec.id + "\" incarnation " + std::to_string(spec.incarnation) + " is older than incarnation "
                + std::to_string(latest->incarnation)
                + ", which this runner holds: an older launch never starts after a newer one");
    if (const auto known = m_entries.find(Key { spec.id, spec.incarnation }); known != m_entries.end())
        return makeIsolationError(IsolationErrorCode::AlreadyExists, name,
            "workload \"" + spec.id + "\" incarnation " + std::to_string(spec.incarnation) + " is already known ("
                + workloadStateName(known->second.status.state) + "): never started twice");
    std::vector<Entry*> older; // every incarnation held of the id is older now
    for (auto it = m_entries.lower_bound(Key { spec.id, 0 }); it != m_entries.end() && it->first.first == spec.id; ++it)
        older.push_back(&it->second);

    std::vector<std::string> argv = spec.wrapper;
    argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());
    auto executable = resolveExecutable(spec, argv);
    if (!executable)
        return tl::unexpected(executable.error());

    // The claim: only one mkdir of the launch's directory can succeed, whichever agent (or agent instance) tries.
    const auto dir = m_workloadsDir / name;
    if (::mkdir(dir.c_str(), 0755) != 0) {
        const int err = errno;
        if (err == EEXIST)
            return makeIsolationError(IsolationErrorCode::AlreadyExists, dir.string(),
                "workload \"" + spec.id + "\" incarnation " + std::to_string(spec.incarnation) + " already has records in "
                    + dir.string() + " (adopt or forget it): never started twice");
        return makeIsolationError(
            IsolationErrorCode::SystemCall, dir.string(), "creating " + dir.string() + ": " + sysfs::errnoText(err));
    }
    const auto abandon = [&] {
        (void)m_cgroups->removeWorkload(spec.pool, spec.id, spec.incarnation);
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    };
    // The new incarnation supersedes the older ones: one still running that nobody is stopping yet is stopped now.
    for (Entry* old : older) {
        refresh(*old);
        if (isFinal(old->status.state) || old->stopDeadlineMs)
            continue;
        if (auto stopped = stopEntry(*old, m_config.supersedeGrace); !stopped) {
            abandon();
            return makeIsolationError(stopped.error().code, stopped.error().path,
                "stopping incarnation " + std::to_string(old->status.incarnation) + " of workload \"" + spec.id
                    + "\" before starting incarnation " + std::to_string(spec.incarnation) + ": "
                    + stopped.error().message);
        }
    }
    auto cgroup = m_cgroups->createWorkload(spec.pool, spec.id, spec.incarnation,
        { .cpuMillis = spec.cpuMillis,
            .memoryLimitBytes = spec.memoryLimitBytes,
            .cpuLimitMillis = spec.cpuLimitMillis });
    if (!cgroup) {
        abandon();
        return tl::unexpected(cgroup.error());
    }

    LaunchRecord record;
    record.id = spec.id;
    record.incarnation = spec.incarnation;
    record.pool = spec.pool;
    record.argv = argv;
    record.wrapper = spec.wrapper;
    record.executable = *executable;
    record.workingDir = spec.workingDir;
    record.name = spec.name;
    record.launchDigest = spec.launchDigest;
    record.cpuMillis = spec.cpuMillis;
    record.cgroup = *cgroup;
    record.procsFile = (cgroup->memory / "cgroup.procs").string();
    record.killFile = m_cgroups->killFile(*cgroup).string();
    record.oomCounterFile = m_cgroups->oomCounterFile(*cgroup).string();
    record.createdAtMs = asyncsafe::nowUnixMs();

    shim::ShimPlan plan;
    plan.executable = *executable;
    plan.argv = argv;
    plan.env = spec.env;
    if (std::none_of(plan.env.begin(), plan.env.end(), [](const std::string& v) { return v.starts_with("PATH="); }))
        plan.env.push_back(
            "PATH=" + (m_config.defaultPath.empty() ? RunnerConfig().defaultPath : m_config.defaultPath));
    plan.workingDir = spec.workingDir;
    for (const auto& hierarchy : cgroup->distinct())
        plan.cgroupProcsFiles.push_back((hierarchy / "cgroup.procs").string());
    plan.procsFile = record.procsFile;
    plan.killFile = record.killFile;
    plan.oomCounterFile = record.oomCounterFile;
    plan.stdoutPath = (dir / "stdout.log").string();
    plan.stderrPath = (dir / "stderr.log").string();
    plan.recordDir = dir.string();
    plan.launchPath = (dir / "launch.json").string();
    plan.launchTmpPath = (dir / "launch.json.tmp").string();
    plan.launchPrefix = launchRecordPrefix(record);
    plan.exitPath = (dir / "exit.json").string();
    plan.exitTmpPath = (dir / "exit.json.tmp").string();
    plan.exitSlotPath = (dir / "exit.slot").string();
    if (const int err = shim::writeLaunchRecord(plan, 0, 0, 0, 0, false); err != 0) {
        abandon();
        return makeIsolationError(IsolationErrorCode::SystemCall, plan.launchPath,
            "writing " + plan.launchPath + ": " + sysfs::errnoText(err));
    }
    // Nothing starts that could not record its end.
    if (const int err = shim::reserveExitSlot(plan); err != 0) {
        abandon();
        return makeIsolationError(IsolationErrorCode::SystemCall, plan.exitSlotPath,
            "reserving the exit record " + plan.exitSlotPath + ": " + sysfs::errnoText(err));
    }

    const auto result = shim::spawn(plan, m_config.launchTimeout);
    if (result.reported && !result.started && result.shimPid == 0) {
        // The agent's or the intermediate's fork failed: there never was a shim, nothing ran.
        abandon();
        return makeIsolationError(IsolationErrorCode::SystemCall, spec.id,
            "starting the shim of workload \"" + spec.id + "\": " + sysfs::errnoText(result.error));
    }

    Entry entry;
    entry.status.id = spec.id;
    entry.status.incarnation = spec.incarnation;
    entry.status.pool = spec.pool;
    entry.status.cgroup = *cgroup;
    entry.status.stdoutPath = plan.stdoutPath;
    entry.status.stderrPath = plan.stderrPath;
    entry.status.recordDir = dir;
    entry.status.name = spec.name;
    entry.status.launchDigest = spec.launchDigest;
    entry.record = record;
    entry.recordRead = true;
    if (result.reported) {
        entry.record.pid = result.pid;
        entry.record.startTime = result.startTime;
        entry.record.shimPid = result.shimPid;
        entry.record.shimStartTime = result.shimStartTime;
        entry.status.pid = result.pid;
        entry.status.shimPid = result.shimPid;
    }
    if (result.started) {
        entry.status.state = WorkloadState::Running;
    } else if (result.reported) {
        // The shim recorded the failure in exit.json; should that have failed too, the report says enough.
        if (!applyExitRecord(entry)) {
            entry.status.state = WorkloadState::FailedToStart;
            entry.status.reason
                = std::string(shim::stageName(result.failedStage)) + " failed: " + sysfs::errnoText(result.error);
        }
    } else {
        // No report within the timeout: the shim (known from the intermediate) may still be getting there.
        entry.record.shimPid = result.shimPid;
        entry.record.shimStartTime = result.shimStartTime;
        entry.record.execed = false;
        entry.status.shimPid = result.shimPid;
        entry.status.state = WorkloadState::Starting;
        refresh(entry);
    }
    entry.reported = entry.status.state;
    const auto status = entry.status;
    m_entries.emplace(Key { spec.id, spec.incarnation }, std::move(entry));
    weighPools();
    return status;
}

bool Runner::applyExitRecord(Entry& entry) const
{
    const auto exitRecord = readExitRecord(entry.status.recordDir / "exit.json");
    WorkloadStatus& status = entry.status;
    if (!exitRecord) {
        status.state = WorkloadState::Lost;
        status.reason = exitRecord.error().message;
        return true;
    }
    if (!*exitRecord)
        return false;
    const ExitRecord& e = **exitRecord;
    status.exitCode = e.exitCode;
    status.signal = e.signal;
    if (!e.startError.empty()) {
        status.state = WorkloadState::FailedToStart;
        status.reason = e.startError + " failed: " + sysfs::errnoText(e.error);
        if (e.startError == "exec")
            status.reason += " (" + entry.record.executable + ")";
        else if (e.startError == "chdir")
            status.reason += " (" + entry.record.workingDir + ")";
    } else if (e.oomKilled) {
        status.state = WorkloadState::OomKilled;
        status.reason = std::to_string(e.oomKills) + " process(es) of the workload killed by the OOM killer";
    } else if (e.signal) {
        status.state = WorkloadState::Killed;
    } else if (e.waitFailed || !e.exitCode) {
        status.state = WorkloadState::Lost;
        status.reason = "the shim could not wait for the workload";
    } else {
        status.state = WorkloadState::Exited;
    }
    return true;
}

void Runner::refresh(Entry& entry) const
{
    WorkloadStatus& status = entry.status;
    if (isFinal(status.state) || !entry.recordRead)
        return;
    if (applyExitRecord(entry))
        return;
    if (entry.record.pid == 0 || !entry.record.execed) {
        // The launch timed out: the shim may have written the pids, and then that the exec went through, since.
        if (auto record = readLaunchRecord(status.recordDir / "launch.json"); record && record->pid != 0)
            entry.record = *record;
    }
    status.pid = entry.record.pid;
    status.shimPid = entry.record.shimPid;
    if (entry.record.pid == 0 || !entry.record.execed) {
        if (processMatches(entry.record.shimPid, entry.record.shimStartTime)) {
            status.state = WorkloadState::Starting;
            return;
        }
        if (applyExitRecord(entry))
            return;
        status.state = WorkloadState::Lost;
        status.reason = entry.record.pid == 0 ? "the launch was interrupted before the shim recorded a process"
                                              : "the launch was interrupted before the workload's exec";
        if (const auto left = m_cgroups->processes(status.cgroup); left && !left->empty())
            status.reason += " (" + std::to_string(left->size()) + " process(es) remain in its cgroup: stop it)";
        return;
    }
    // The workload, or (once it has ended) its shim writing the exit record.
    if (processMatches(entry.record.pid, entry.record.startTime)
        || processMatches(entry.record.shimPid, entry.record.shimStartTime)) {
        status.state = WorkloadState::Running;
        return;
    }
    if (applyExitRecord(entry)) // written between the first look and the shim's exit
        return;
    status.state = WorkloadState::Lost;
    status.reason = "neither the workload (pid " + std::to_string(entry.record.pid) + ") nor its shim (pid "
        + std::to_string(entry.record.shimPid) + ") runs, and it left no exit record";
}

void Runner::signalWorkload(const Entry& entry, int signal) const
{
    const auto& procs = entry.record.procsFile;
    int signalled = 0;
    if (!procs.empty()) {
        signalled = signal == SIGKILL
            ? asyncsafe::killCgroup(entry.record.killFile.c_str(), procs.c_str(), 0, kKillPasses)
            : asyncsafe::signalCgroupProcesses(procs.c_str(), signal, 0);
    }
    // Without a readable cgroup (removed by hand, say), at least the recorded process.
    if ((procs.empty() || signalled < 0 || !sysfs::fileExists(procs))
        && processMatches(entry.record.pid, entry.record.startTime))
        ::kill(entry.record.pid, signal);
}

IsolationExpected<void> Runner::stopEntry(Entry& entry, std::chrono::milliseconds grace)
{
    refresh(entry);
    if (isFinal(entry.status.state) && entry.status.state != WorkloadState::Lost)
        return {};
    std::int64_t deadline = asyncsafe::nowUnixMs() + std::max<std::int64_t>(0, grace.count());
    // A second stop (the core's, after the supersede's, say) never postpones the SIGKILL of the first.
    if (entry.stopDeadlineMs)
        deadline = std::min(deadline, *entry.stopDeadlineMs);
    if (auto written = writeStopRecord(entry.status.recordDir, StopRecord { deadline }); !written)
        return written;
    entry.stopDeadlineMs = deadline;
    signalWorkload(entry, grace.count() <= 0 ? SIGKILL : SIGTERM);
    return {};
}

IsolationExpected<void> Runner::stop(const std::string& id, std::chrono::milliseconds grace)
{
    bool found = false;
    IsolationExpected<void> result;
    for (auto it = m_entries.lower_bound(Key { id, 0 }); it != m_entries.end() && it->first.first == id; ++it) {
        found = true;
        if (auto stopped = stopEntry(it->second, grace); !stopped && result)
            result = stopped;
    }
    if (!found)
        return makeIsolationError(IsolationErrorCode::NotFound, id, "no workload \"" + sysfs::quoted(id) + "\"");
    return result;
}

IsolationExpected<void> Runner::stop(const std::string& id, std::uint32_t incarnation, std::chrono::milliseconds grace)
{
    const auto it = m_entries.find(Key { id, incarnation });
    if (it == m_entries.end())
        return makeIsolationError(IsolationErrorCode::NotFound, id,
            "no workload \"" + sysfs::quoted(id) + "\" incarnation " + std::to_string(incarnation));
    return stopEntry(it->second, grace);
}

std::vector<WorkloadStatus> Runner::poll()
{
    std::vector<WorkloadStatus> changed;
    const std::int64_t now = asyncsafe::nowUnixMs();
    for (auto& [key, entry] : m_entries) {
        refresh(entry);
        if (!isFinal(entry.status.state) && entry.stopDeadlineMs && now >= *entry.stopDeadlineMs)
            signalWorkload(entry, SIGKILL);
        if (!isFinal(entry.status.state))
            capLogs(entry);
        if (entry.status.state != entry.reported) {
            entry.reported = entry.status.state;
            changed.push_back(entry.status);
        }
    }
    weighPools();
    return changed;
}

void Runner::weighPools()
{
    std::map<std::string, std::uint64_t> asked;
    for (const auto& [key, entry] : m_entries)
        if (entry.recordRead && !isFinal(entry.status.state) && entry.record.cpuMillis > 0)
            asked[entry.record.pool] += entry.record.cpuMillis;
    for (const auto& [pool, millis] : asked) {
        if (const auto set = m_poolWeights.find(pool); set != m_poolWeights.end() && set->second == millis)
            continue;
        if (auto written = m_cgroups->setPoolCpuWeight(pool, millis); !written) {
            std::string& last = m_weightErrors[pool];
            if (last != written.error().message) {
                last = written.error().message;
                m_problems.push_back("pool " + pool + ": its CPU weight (for the " + std::to_string(millis)
                    + " millicores its workloads here asked for) cannot be set: " + last);
            }
            continue;
        }
        m_poolWeights[pool] = millis;
        m_weightErrors.erase(pool);
    }
    // A pool with nothing running here holds no process: its weight is set again with its next workload.
    std::erase_if(m_poolWeights, [&](const auto& p) { return !asked.count(p.first); });
}

IsolationExpected<void> Runner::resize(const std::string& id, std::uint32_t incarnation, WorkloadResources own)
{
    const auto it = m_entries.find({ id, incarnation });
    if (it == m_entries.end())
        return makeIsolationError(IsolationErrorCode::NotFound, recordName(id, incarnation),
            "workload " + id + " (incarnation " + std::to_string(incarnation) + ") is not held here");
    Entry& entry = it->second;
    refresh(entry);
    if (isFinal(entry.status.state) || entry.stopDeadlineMs)
        return makeIsolationError(IsolationErrorCode::BadLimit, recordName(id, incarnation),
            "workload " + id + " (incarnation " + std::to_string(incarnation) + ") is "
                + (entry.stopDeadlineMs && !isFinal(entry.status.state) ? std::string("stopping")
                                                                        : workloadStateName(entry.status.state))
                + ": nothing to resize");
    if (auto changed = m_cgroups->resizeWorkload(entry.status.pool, id, incarnation, own); !changed)
        return changed;
    if (auto recorded = writeResizeRecord(entry.status.recordDir,
            { .cpuMillis = own.cpuMillis,
                .memoryLimitBytes = own.memoryLimitBytes,
                .cpuLimitMillis = own.cpuLimitMillis });
        !recorded)
        return recorded;
    entry.record.cpuMillis = own.cpuMillis;
    weighPools();
    return {};
}

std::vector<std::string> Runner::takeProblems()
{
    return std::exchange(m_problems, {});
}

Runner::Entry Runner::load(const std::string& id, std::uint32_t incarnation) const
{
    Entry entry;
    const auto dir = m_workloadsDir / recordName(id, incarnation);
    entry.status.id = id;
    entry.status.incarnation = incarnation;
    entry.status.stdoutPath = dir / "stdout.log";
    entry.status.stderrPath = dir / "stderr.log";
    entry.status.recordDir = dir;
    auto record = readLaunchRecord(dir / "launch.json");
    if (!record) {
        entry.status.state = WorkloadState::Lost;
        entry.status.reason = record.error().code == IsolationErrorCode::NotFound
            ? "no launch record (the agent stopped while launching it)"
            : "launch record unreadable: " + record.error().message;
        return entry;
    }
    entry.record = *record;
    entry.recordRead = true;
    entry.status.pool = record->pool;
    entry.status.name = record->name;
    entry.status.launchDigest = record->launchDigest;
    entry.status.cgroup = record->cgroup;
    entry.status.pid = record->pid;
    entry.status.shimPid = record->shimPid;
    entry.status.state = WorkloadState::Running; // until `refresh` finds otherwise
    if (const auto stop = readStopRecord(dir / "stop.json"); stop && *stop)
        entry.stopDeadlineMs = (*stop)->deadlineMs;
    if (const auto resized = readResizeRecord(dir / "resize.json"); resized && *resized)
        entry.record.cpuMillis = (*resized)->cpuMillis;
    return entry;
}

IsolationExpected<std::vector<WorkloadStatus>> Runner::adopt()
{
    std::vector<Key> keys;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(m_workloadsDir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_directory(ec))
            if (auto key = parseRecordName(it->path().filename().string()))
                keys.push_back(std::move(*key));
    if (ec)
        return makeIsolationError(IsolationErrorCode::SystemCall, m_workloadsDir.string(),
            "reading " + m_workloadsDir.string() + ": " + ec.message());
    std::sort(keys.begin(), keys.end());
    std::vector<WorkloadStatus> found;
    for (const auto& key : keys) {
        auto known = m_entries.find(key);
        if (known == m_entries.end()) {
            Entry entry = load(key.first, key.second);
            // A log rotation the agent before was stopped in the middle of: where each stream begins is set right.
            for (const auto& file : { entry.status.stdoutPath, entry.status.stderrPath })
                if (!file.empty())
                    (void)settleRotation(file);
            refresh(entry);
            entry.reported = entry.status.state;
            known = m_entries.emplace(key, std::move(entry)).first;
        }
        found.push_back(known->second.status);
    }
    weighPools();
    return found;
}

IsolationExpected<std::map<std::pair<std::string, std::uint32_t>, Runner::Entry>::iterator> Runner::releasable(
    const std::string& id, std::uint32_t incarnation)
{
    const auto it = m_entries.find(Key { id, incarnation });
    const std::string name = recordName(id, incarnation);
    if (it == m_entries.end())
        return makeIsolationError(IsolationErrorCode::NotFound, id,
            "no workload \"" + sysfs::quoted(id) + "\" incarnation " + std::to_string(incarnation));
    Entry& entry = it->second;
    refresh(entry);
    if (!isFinal(entry.status.state))
        return makeIsolationError(IsolationErrorCode::Busy, id,
            "workload \"" + id + "\" incarnation " + std::to_string(incarnation) + " is "
                + workloadStateName(entry.status.state) + ": stop it first");
    // Only directories named after the launch: a damaged record must not make the agent remove anything else.
    for (const auto& dir : entry.record.cgroup.distinct())
        if (dir.filename() == "wl-" + name)
            if (auto removed = sysfs::removeDirectory(dir); !removed)
                return tl::unexpected(removed.error());
    return it;
}

IsolationExpected<void> Runner::forget(const std::string& id, std::uint32_t incarnation)
{
    auto it = releasable(id, incarnation);
    if (!it)
        return tl::unexpected(it.error());
    // A lost workload's shim may still be renaming a record into the directory: try again when the tree changed
    // under the removal.
    const auto dir = m_workloadsDir / recordName(id, incarnation);
    std::error_code ec;
    for (int attempt = 0; attempt < 3; ++attempt) {
        ec.clear();
        std::filesystem::remove_all(dir, ec);
        if (!ec || !std::filesystem::exists(dir))
            break;
    }
    if (ec && std::filesystem::exists(dir))
        return makeIsolationError(
            IsolationErrorCode::SystemCall, dir.string(), "removing " + dir.string() + ": " + ec.message());
    m_entries.erase(*it);
    return {};
}

IsolationExpected<std::filesystem::path> Runner::setAside(const std::string& id, std::uint32_t incarnation)
{
    auto it = releasable(id, incarnation);
    if (!it)
        return tl::unexpected(it.error());
    const auto dir = m_workloadsDir / recordName(id, incarnation);
    const auto asideDir = m_config.stateDir / "replaced";
    const auto aside = asideDir / (recordName(id, incarnation) + "." + std::to_string(asyncsafe::nowUnixMs()));
    std::error_code ec;
    std::filesystem::create_directories(asideDir, ec);
    if (!ec)
        std::filesystem::rename(dir, aside, ec);
    if (ec)
        return makeIsolationError(IsolationErrorCode::SystemCall, dir.string(),
            "moving " + dir.string() + " to " + aside.string() + ": " + ec.message());
    m_entries.erase(*it);
    (void)sweepReplaced(); // the move is done; a failed sweep is tried again by the next
    return aside;
}

IsolationExpected<std::vector<std::filesystem::path>> Runner::sweepReplaced()
{
    namespace fs = std::filesystem;
    const fs::path asideDir = m_config.stateDir / "replaced";
    std::vector<std::pair<std::int64_t, fs::path>> aside; // (set aside at, unix ms; the directory)
    std::error_code ec;
    for (fs::directory_iterator it(asideDir, ec), end; !ec && it != end; it.increment(ec)) {
        // `<record name>.<unix ms>`, as `setAside` names them; anything else is not the runner's to remove.
        const std::string name = it->path().filename().string();
        const auto dot = name.rfind('.');
        std::int64_t ms = 0;
        if (dot == std::string::npos || dot == 0 || !parseRecordName(name.substr(0, dot)))
            continue;
        const auto [ptr, parsed] = std::from_chars(name.data() + dot + 1, name.data() + name.size(), ms);
        if (parsed != std::errc() || ptr != name.data() + name.size() || ms <= 0)
            continue;
        aside.emplace_back(ms, it->path());
    }
    if (ec && ec != std::errc::no_such_file_or_directory)
        return makeIsolationError(
            IsolationErrorCode::SystemCall, asideDir.string(), "reading " + asideDir.string() + ": " + ec.message());
    std::sort(aside.begin(), aside.end(), std::greater<>()); // newest first
    const std::int64_t oldest = asyncsafe::nowUnixMs()
        - std::chrono::duration_cast<std::chrono::milliseconds>(m_config.keepReplacedFor).count();
    std::vector<fs::path> removed;
    IsolationExpected<std::vector<fs::path>> result;
    for (std::size_t i = 0; i < aside.size(); ++i) {
        if (i < m_config.keepReplaced && aside[i].first >= oldest)
            continue;
        std::error_code removing;
        fs::remove_all(aside[i].second, removing);
        if (removing) {
            if (result)
                result = makeIsolationError(IsolationErrorCode::SystemCall, aside[i].second.string(),
                    "removing " + aside[i].second.string() + ": " + removing.message());
            continue;
        }
        removed.push_back(aside[i].second);
    }
    if (!result)
        return result;
    return removed;
}

namespace {

// Takes the oldest output out of `file` (open as `fd`) past the cap; the stream position at which the file then begins,
// -1 when it was left as it was.
std::int64_t rotateLog(int fd, const std::filesystem::path& file, std::uint64_t cap)
{
    // The newest half of the cap goes to `<file>.1` (best effort: on a full file system it may not fit), so that `.1`
    // ends exactly where what stays in the file begins in the stream (log_tail.h) and a follower reads on without a
    // seam. What goes: where the file system can (ext4, xfs), the file's whole blocks but the last, taken out of its
    // beginning (FALLOC_FL_COLLAPSE_RANGE) while the workload writes at its end, which loses nothing (the workload's
    // descriptor has O_APPEND, shim.cpp, and both hold the inode's lock); elsewhere (tmpfs, ...) all of it
    // (copytruncate): what the workload writes while the half is copied is copied after it (a few rounds at most), and
    // what it writes between the last look and the truncation is lost, as with logrotate's copytruncate.
    struct stat st { };
    if (::fstat(fd, &st) != 0)
        return -1;
    // One an agent stopped in the middle of is finished (or forgotten) first: it says where the file begins.
    (void)settleRotation(file);
    const auto rotated = file.string() + ".1";
    const auto tmp = rotated + ".tmp";
    // Where the file begins in the stream, as a reader takes it: after the old `.1` at least.
    std::uint64_t begins = readStreamBase(file);
    if (struct stat old {}; ::lstat(rotated.c_str(), &old) == 0 && S_ISREG(old.st_mode))
        begins = std::max(begins, static_cast<std::uint64_t>(old.st_size));
    const off_t block = st.st_blksize > 0 ? st.st_blksize : 4096;
    // A collapse ends on a block boundary before the end of the file (it may not reach it).
    const off_t cut = st.st_size > block ? (st.st_size - 1) / block * block : 0;
    const off_t until = cut > 0 ? cut : st.st_size;
    const int out = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    bool copied = out >= 0;
    const auto copy = [&](off_t from, off_t end) {
        char buffer[64 * 1024];
        while (copied && from < end) {
            const ssize_t n
                = ::pread(fd, buffer, static_cast<std::size_t>(std::min<off_t>(sizeof buffer, end - from)), from);
            if (n < 0 && errno == EINTR)
                continue;
            copied = n > 0 && asyncsafe::writeAll(out, buffer, static_cast<std::size_t>(n)) == 0;
            from += n > 0 ? n : 0;
        }
    };
    copy(until - static_cast<off_t>(std::min<std::uint64_t>(cap / 2, static_cast<std::uint64_t>(until))), until);
    off_t taken = 0;
    // Before bytes go, what the file will begin at once they have (log_tail.h): an agent stopped before it keeps that
    // is set right by the next.
    if (cut > 0)
        (void)writeRotationIntent(file, fd, begins + static_cast<std::uint64_t>(cut), copied);
    if (cut > 0 && ::fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 0, cut) == 0) {
        taken = cut;
    } else {
        off_t copiedEnd = until;
        for (int round = 0; copied && round < 8 && ::fstat(fd, &st) == 0 && st.st_size > copiedEnd; ++round) {
            copy(copiedEnd, st.st_size);
            copiedEnd = st.st_size;
        }
        // Without a copy, the emptied file begins where the bytes it held at the truncation end.
        if (!copied && ::fstat(fd, &st) == 0)
            copiedEnd = st.st_size;
        (void)writeRotationIntent(file, fd, begins + static_cast<std::uint64_t>(copiedEnd), copied);
        if (::ftruncate(fd, 0) != 0) { // left as it was: the next poll tries again
            if (out >= 0)
                ::close(out);
            ::unlink(tmp.c_str());
            clearRotationIntent(file);
            return -1;
        }
        taken = copiedEnd;
    }
    if (out >= 0 && ::close(out) != 0)
        copied = false;
    if (!copied || ::rename(tmp.c_str(), rotated.c_str()) != 0) {
        ::unlink(tmp.c_str());
        // An older `.1` would read as if it went on into what stays: without its successor it goes too.
        ::unlink(rotated.c_str());
    }
    return static_cast<std::int64_t>(begins + static_cast<std::uint64_t>(taken));
}

} // namespace

void Runner::capLogs(const Entry& entry) const
{
    const std::uint64_t cap = m_config.logCapBytes;
    if (cap == 0)
        return;
    for (const auto& file : { entry.status.stdoutPath, entry.status.stderrPath }) {
        struct stat st { };
        if (file.empty() || ::lstat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)
            || static_cast<std::uint64_t>(st.st_size) <= cap)
            continue;
        // O_NOFOLLOW: the workload may write in its record directory; what it put there is not followed elsewhere.
        const int fd = ::open(file.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0)
            continue;
        if (const auto taken = rotateLog(fd, file, cap); taken >= 0) {
            // Failing this (a full file system), a follower finds the stream shorter than it read and reads it again;
            // the intent stays, for the next rotation or the next agent to keep the base.
            if (writeStreamBase(file, static_cast<std::uint64_t>(taken)))
                clearRotationIntent(file);
        }
        ::close(fd);
    }
}

bool Runner::capsLogsWithoutLoss() const
{
    const std::filesystem::path probe = m_workloadsDir / (".collapse-probe." + std::to_string(::getpid()));
    const int fd = ::open(probe.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return false;
    struct stat st { };
    bool collapses = false;
    if (::fstat(fd, &st) == 0) {
        const off_t block = st.st_blksize > 0 ? st.st_blksize : 4096;
        const std::string bytes(static_cast<std::size_t>(block) * 2 + 1, 'x');
        collapses = asyncsafe::writeAll(fd, bytes.data(), bytes.size()) == 0
            && ::fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 0, block) == 0 && ::fstat(fd, &st) == 0
            && st.st_size == block + 1;
    }
    ::close(fd);
    ::unlink(probe.c_str());
    return collapses;
}

std::optional<WorkloadStatus> Runner::status(const std::string& id) const
{
    // The last entry of the id: its highest incarnation.
    auto it = m_entries.upper_bound(Key { id, std::numeric_limits<std::uint32_t>::max() });
    if (it == m_entries.begin() || (--it)->first.first != id)
        return std::nullopt;
    return it->second.status;
}

std::optional<WorkloadStatus> Runner::status(const std::string& id, std::uint32_t incarnation) const
{
    const auto it = m_entries.find(Key { id, incarnation });
    if (it == m_entries.end())
        return std::nullopt;
    return it->second.status;
}

std::vector<WorkloadStatus> Runner::workloads() const
{
    std::vector<WorkloadStatus> all;
    for (const auto& [key, entry] : m_entries)
        all.push_back(entry.status);
    return all;
}

} // namespace tidepool::agent
