#pragma once
// Runs workloads as processes inside their pool's cgroup (`<pool>/wl-<id>`), each owned by a shim (see shim.h) so
// that it survives the agent being killed and a restarted agent adopts it instead of starting it again. All state is
// in the state directory (see workload_records.h); the in-memory table is a cache of it plus what was last reported.
//
// Never twice: `launch` refuses an (id, incarnation) that this runner knows or that has records in the state directory
// (the launch's directory is created with mkdir, which only one caller can win), until `forget` removes them. The core
// launches one id again (migrated, re-placed, preempted) with a higher incarnation: `launch` takes a higher incarnation
// of an id it holds at once, records it apart from the older ones (`<id>@<n>/`, cgroup `wl-<id>@<n>`), and stops an
// older incarnation that still runs unless a stop is already under way (`RunnerConfig::supersedeGrace`): the older copy
// gets its grace while the new one starts, as when a workload moves between nodes. A lower incarnation than one it
// holds is refused: an older launch never starts after a newer one.
//
// Stopping is asynchronous: `stop` sends SIGTERM to every process in the workload's cgroup and records a deadline;
// `poll` sends SIGKILL to the cgroup once the deadline has passed (cgroup.kill on cgroup v2 with Linux 5.14+).
//
// Thread affinity: not thread-safe; one owner thread (the agent's), which may block in `launch` until the shim
// reports that the workload exec'd (at most `RunnerConfig::launchTimeout`). Ownership: borrows the `PoolCgroups`,
// which must outlive it; destroying the runner leaves every workload and shim running.

#include "agents/isolation/cgroups.h"
#include "agents/runner/workload_records.h"

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tidepool::agent {

enum class WorkloadState : std::uint8_t {
    Invalid = 0,
    Starting, // the shim runs but had not reported the workload's exec within the launch timeout
    Running,
    Exited, // `exitCode`
    Killed, // by `signal`
    OomKilled, // the workload cgroup's oom_kill counter rose while it ran; `exitCode` or `signal` too
    FailedToStart, // `reason` (cgroup join, stdio, chdir or exec failed; nothing of the workload ran)
    Lost, // `reason`: no live process and no exit record (shim killed, host rebooted, records damaged)
};

const char* workloadStateName(WorkloadState state);
// Exited, Killed, OomKilled, FailedToStart and Lost: nothing of the workload runs any more (for Lost, as far as the
// runner can tell; `stop` still signals the cgroup).
bool isFinal(WorkloadState state);

struct LaunchSpec {
    std::string id; // 1..64 of [A-Za-z0-9._-], not "." or ".."
    std::uint32_t incarnation = 0; // which launch of `id`: 0 first, then higher for each relaunch
    std::string pool; // an existing pool (PoolCgroups::createPool)
    std::vector<std::string> argv; // no shell: argv[0] is the program, looked up in PATH when it has no '/'
    std::vector<std::string> wrapper; // an argv prefix, e.g. {"/usr/bin/qemu-aarch64-static"}
    // "NAME=value": the complete environment, nothing of the agent's is inherited (its join token, say); PATH is
    // added (RunnerConfig::defaultPath) when missing, as container runtimes do.
    std::vector<std::string> env;
    std::string workingDir = "/"; // absolute
    std::string name; // the core's name of the workload, recorded for logs
    std::string launchDigest; // what the core asked for (core_launch.h), recorded to tell its launches apart
    // The CPU it asked for: its weight among its pool's workloads (`PoolCgroups::createWorkload`); 0 = the default.
    std::uint64_t cpuMillis = 0;
    // The most memory it may use, its own cgroup's limit inside its pool's (`PoolCgroups::createWorkload`); 0 = only
    // the pool's.
    std::uint64_t memoryLimitBytes = 0;
    // The most CPU it may use, its own cgroup's quota inside its pool's (`PoolCgroups::createWorkload`); 0 = only the
    // pool's.
    std::uint32_t cpuLimitMillis = 0;
};

struct WorkloadStatus {
    std::string id;
    std::uint32_t incarnation = 0;
    std::string pool;
    WorkloadState state = WorkloadState::Invalid;
    int pid = 0;
    int shimPid = 0;
    std::optional<int> exitCode;
    std::optional<int> signal;
    std::string reason; // why, for FailedToStart and Lost
    std::string name; // LaunchSpec::name, from the launch record
    std::string launchDigest; // LaunchSpec::launchDigest, from the launch record; empty in records from before it
    CgroupPaths cgroup;
    std::filesystem::path stdoutPath;
    std::filesystem::path stderrPath;
    std::filesystem::path recordDir; // <state-dir>/workloads/<id> (or <id>@<incarnation>)
};

// The name of an (id, incarnation)'s record directory below `workloads/`: `<id>` for incarnation 0, `<id>@<n>` after.
std::string recordName(const std::string& id, std::uint32_t incarnation);
// The (id, incarnation) of a record directory's name; nullopt for a name `recordName` never makes.
std::optional<std::pair<std::string, std::uint32_t>> parseRecordName(const std::string& name);

struct RunnerConfig {
    std::filesystem::path stateDir; // workloads/<id>/ below it; created if missing
    // How long `launch` waits for the shim to report the workload's exec; past it, `launch` returns Starting and
    // `poll` reports the outcome. Zero: never wait.
    std::chrono::milliseconds launchTimeout { 10'000 };
    // PATH for finding argv[0] when the spec's env has none; empty means this default.
    std::string defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    // The SIGTERM → SIGKILL grace of an older incarnation that a launch of a newer one stops.
    std::chrono::milliseconds supersedeGrace { 10'000 };
    // The most bytes each of a running workload's stdout.log and stderr.log may hold; 0: no limit. `poll` checks them:
    // a file past the cap has its newest `logCapBytes / 2` bytes copied to `<file>.1` and all its whole blocks but the
    // last taken out of its beginning (or, where the file system cannot, is truncated), so a workload's output takes at
    // most 1.5 × the cap per file, plus a block and what it writes between two polls.
    std::uint64_t logCapBytes = std::uint64_t { 64 } << 20;
    // `<state-dir>/replaced/` (`setAside`) keeps at most `keepReplaced` records, the newest, and none set aside more
    // than `keepReplacedFor` ago: `setAside` and `sweepReplaced` remove the rest. 0 records: none is kept.
    std::size_t keepReplaced = 64;
    std::chrono::seconds keepReplacedFor { 30 * 86'400 };
};

class Runner {
public:
    static IsolationExpected<Runner> create(RunnerConfig config, PoolCgroups& cgroups);

    // One owner of the table: movable, not copyable.
    Runner(const Runner&) = delete;
    Runner& operator=(const Runner&) = delete;
    Runner(Runner&&) = default;
    Runner& operator=(Runner&&) = default;
    ~Runner() = default; // leaves every workload and shim running

    // Starts a workload. Errors (nothing started, nothing recorded): a bad spec, a known (id, incarnation) or an
    // incarnation older than one known (`AlreadyExists`), a missing pool, a failed fork. A workload whose exec fails
    // is recorded and returned as FailedToStart. Older incarnations of the id still running are stopped (see above).
    IsolationExpected<WorkloadStatus> launch(const LaunchSpec& spec);

    // SIGTERM to the workload's processes now, SIGKILL from `poll` after `grace` (at once when `grace` is zero):
    // every incarnation of `id` that is not finished, or only `incarnation`. Stopping a finished one does nothing.
    IsolationExpected<void> stop(const std::string& id, std::chrono::milliseconds grace);
    IsolationExpected<void> stop(const std::string& id, std::uint32_t incarnation, std::chrono::milliseconds grace);

    // Re-examines every unfinished workload (exit records, processes), escalates due stops, and returns the workloads
    // whose state differs from the one last returned by `launch`, `adopt` or `poll`.
    std::vector<WorkloadStatus> poll();

    // At startup: reads the state directory and takes every workload found under management — running (the recorded
    // pid is alive with the recorded start time), finished (exit record) or lost — and returns them all.
    IsolationExpected<std::vector<WorkloadStatus>> adopt();

    // Removes a finished launch's records and cgroup, so that its (id, incarnation) may be used again. `Busy` while it
    // runs or while processes remain in its cgroup.
    IsolationExpected<void> forget(const std::string& id, std::uint32_t incarnation = 0);
    // As `forget`, but the records are moved aside, to `<state-dir>/replaced/<id>[@<n>].<unix ms>/` (which nothing
    // reads: the operator's to look at), not deleted; returns where they went. For a finished launch whose
    // (id, incarnation) another workload is given (a core whose database was replaced). Then sweeps `replaced/`.
    IsolationExpected<std::filesystem::path> setAside(const std::string& id, std::uint32_t incarnation = 0);
    // Bounds `<state-dir>/replaced/` (`RunnerConfig::keepReplaced`, `keepReplacedFor`; the age is the time in the
    // directory's name, the time it was set aside): removes the rest and returns what it removed. Entries whose names
    // `setAside` never makes are left alone.
    IsolationExpected<std::vector<std::filesystem::path>> sweepReplaced();

    // Changes what a running launch was given, in place (`PoolCgroups::resizeWorkload`: 0 restores the default weight
    // or removes a limit), records it (resize.json, which an agent restarted later reads over the launch record) and
    // weighs its pool again. `NotFound` for a launch it does not hold, `BadLimit` for one that has ended or a memory
    // limit below what it holds now; nothing changes then. A failure after the memory limit was written leaves the
    // record unwritten: the error says which file failed.
    IsolationExpected<void> resize(const std::string& id, std::uint32_t incarnation, WorkloadResources own);

    // The latest incarnation of `id` this runner knows, or the given one.
    std::optional<WorkloadStatus> status(const std::string& id) const;
    std::optional<WorkloadStatus> status(const std::string& id, std::uint32_t incarnation) const;
    std::vector<WorkloadStatus> workloads() const;
    const std::filesystem::path& workloadsDir() const { return m_workloadsDir; }
    // Whether the file system of `workloadsDir()` takes a range out of a file's beginning (FALLOC_FL_COLLAPSE_RANGE:
    // ext4, xfs), so that capping a log loses nothing the workload writes meanwhile; elsewhere a rotation copies and
    // truncates (`RunnerConfig::logCapBytes`). Tries it on a file of its own there.
    bool capsLogsWithoutLoss() const;
    // What went wrong since the last call that the caller should log: each pool whose CPU weight could not be written
    // (`PoolCgroups::setPoolCpuWeight`), once per reason; retried at each `poll`.
    std::vector<std::string> takeProblems();

private:
    struct Entry {
        WorkloadStatus status;
        LaunchRecord record;
        bool recordRead = false;
        WorkloadState reported = WorkloadState::Invalid;
        std::optional<std::int64_t> stopDeadlineMs;
    };

    Runner(RunnerConfig config, PoolCgroups& cgroups, std::filesystem::path workloadsDir);

    IsolationExpected<std::string> resolveExecutable(
        const LaunchSpec& spec, const std::vector<std::string>& argv) const;
    using Key = std::pair<std::string, std::uint32_t>; // (id, incarnation)

    Entry load(const std::string& id, std::uint32_t incarnation) const;
    void refresh(Entry& entry) const;
    bool applyExitRecord(Entry& entry) const;
    void signalWorkload(const Entry& entry, int signal) const;
    void capLogs(const Entry& entry) const;
    // The checks and the cgroup removal of `forget` and `setAside`; the entry, or an error.
    IsolationExpected<std::map<std::pair<std::string, std::uint32_t>, Entry>::iterator> releasable(
        const std::string& id, std::uint32_t incarnation);
    IsolationExpected<void> stopEntry(Entry& entry, std::chrono::milliseconds grace);
    // Gives each pool with running workloads the weight of their requests together, where that changed.
    void weighPools();

    RunnerConfig m_config;
    PoolCgroups* m_cgroups;
    std::filesystem::path m_workloadsDir;
    std::map<Key, Entry> m_entries; // by id, then incarnation
    std::map<std::string, std::uint64_t> m_poolWeights; // the CPU each pool's weight was last set for
    std::map<std::string, std::string> m_weightErrors; // by pool: the last reason its weight could not be written
    std::vector<std::string> m_problems; // for `takeProblems`
};

} // namespace tidepool::agent
