#pragma once
// The runner's state directory: `<state-dir>/workloads/<id>/` per workload (`<id>@<n>/` for its incarnation n, a
// relaunch of the same id), holding
//   launch.json   what was started and where: written by the agent before the shim exists (pids 0), then rewritten by
//                 the shim with the workload's and its own pid and start times before the workload may exec;
//   stop.json     a stop in progress (the SIGKILL deadline), so that an agent restarted mid-stop still escalates;
//   resize.json   what the core's latest resize gave the running launch (`Runner::resize`), read over launch.json's;
//   exit.json     how the workload ended, written once by the shim;
//   exit.slot     the exit record's space, reserved by the agent at launch (`kExitSlotBytes` of spaces): the shim
//                 overwrites it in place and renames it to exit.json, so that recording how a workload ended needs no
//                 free space on a full state filesystem;
//   stdout.log, stderr.log   the workload's output.
// Every record is written to a temporary file (or the exit slot), fsynced and renamed over the record, so readers (and
// adoption after a crash at any point) see a whole record or none; `*.tmp` and `exit.slot` are never read.
//
// Thread affinity: none; plain functions over files.

#include "agents/isolation/cgroup_layout.h"
#include "agents/isolation/isolation_error.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tidepool::agent {

struct LaunchRecord {
    std::string id;
    std::uint32_t incarnation = 0; // which launch of `id`
    std::string pool;
    std::vector<std::string> argv; // as executed, wrapper prefix included
    std::vector<std::string> wrapper;
    std::string executable; // argv[0] resolved
    std::string workingDir;
    std::string name; // the core's name of the workload, for logs; empty in records from before it
    // What the core asked for (see core_launch.h), to tell a launch sent again from another workload given the same
    // (id, incarnation); empty in records from before it.
    std::string launchDigest;
    std::uint64_t cpuMillis = 0; // the CPU it asked for (its cgroup's weight); 0 in records from before it
    CgroupPaths cgroup; // the workload's cgroup in each hierarchy
    std::string procsFile; // cgroup.procs to list and signal the workload's processes
    std::string killFile; // cgroup v2 cgroup.kill, or empty
    std::string oomCounterFile;
    std::int64_t createdAtMs = 0;
    // Filled in by the shim; 0 until then.
    int pid = 0;
    std::uint64_t startTime = 0; // /proc/<pid>/stat field 22: with the pid, the process's identity
    int shimPid = 0;
    std::uint64_t shimStartTime = 0;
    // The workload's execve succeeded. The shim records the pid before it lets the child exec (so that a workload is
    // never unrecorded), and says so again once the exec went through; true in records from before this flag.
    bool execed = true;
};

struct ExitRecord {
    std::optional<int> exitCode;
    std::optional<int> signal;
    bool oomKilled = false;
    std::uint64_t oomKills = 0;
    std::string startError; // a `shim::stageName` when the workload never ran
    int error = 0; // errno of the start error
    bool waitFailed = false;
    std::int64_t endedAtMs = 0;
};

// The size of exit.slot: every exit record the shim writes fits (asyncsafe::TextBuffer::kCapacity).
inline constexpr std::size_t kExitSlotBytes = 512;

struct StopRecord {
    std::int64_t deadlineMs = 0; // Unix time after which the workload's cgroup gets SIGKILL
};

// A resize of a running launch: its CPU request (its weight) and its own limits now, 0 for none.
struct ResizeRecord {
    std::uint64_t cpuMillis = 0;
    std::uint64_t memoryLimitBytes = 0;
    std::uint32_t cpuLimitMillis = 0;
    bool operator==(const ResizeRecord&) const = default;
};

// The JSON of `record` without the shim's fields and the closing brace, ending in a comma: the shim appends
// `"pid":...}` (see shim::writeLaunchRecord).
std::string launchRecordPrefix(const LaunchRecord& record);

IsolationExpected<LaunchRecord> readLaunchRecord(const std::filesystem::path& file);
// nullopt when the record does not exist (yet).
IsolationExpected<std::optional<ExitRecord>> readExitRecord(const std::filesystem::path& file);
IsolationExpected<std::optional<StopRecord>> readStopRecord(const std::filesystem::path& file);
IsolationExpected<void> writeStopRecord(const std::filesystem::path& dir, const StopRecord& record);
IsolationExpected<std::optional<ResizeRecord>> readResizeRecord(const std::filesystem::path& file);
IsolationExpected<void> writeResizeRecord(const std::filesystem::path& dir, const ResizeRecord& record);

} // namespace tidepool::agent
