#pragma once
// The workload shim, in the manner of containerd-shim: a small process between the agent and a workload that owns the
// workload (waits for it, records how it ended) so that the workload survives the agent being killed and a restarted
// agent can adopt it.
//
// The shim is a double fork of the agent, not a re-exec: the agent forks an intermediate that calls setsid() and
// forks the shim and exits at once, so the shim is never the agent's child (init or the nearest subreaper reaps it),
// has no controlling terminal and no parent-death signal, and behaves the same before and after an agent restart.
// Not re-executing keeps the runner a library: tidepool-agent, tidepool-fleet and the tests need no hidden
// command-line mode in their main(), and nothing depends on /proc/self/exe still being the same binary. The price is
// that the shim is a fork of a multi-threaded process and never execs: everything it does goes through
// `asyncsafe` (plain system calls on buffers prepared before the fork). It closes every inherited descriptor, points
// stdin/stdout/stderr at /dev/null, resets signal handlers and ignores SIGTERM, SIGINT and SIGHUP, and stays in the
// agent's cgroup so that stopping or OOM-killing a workload never takes its shim.
//
// Sequence, each record written atomically (temp file, fsync, rename):
//   agent:    launch.json (pids 0) → fork intermediate (setsid, fork shim, send its pid, exit) → wait for the
//             shim's report on a pipe
//   shim:     fork the workload child, which joins the workload cgroup (its pid into every hierarchy's
//             cgroup.procs) and waits for a go byte;
//             launch.json again with the pids and start times, then the go byte: no workload execs unrecorded;
//             the child's exec outcome (a close-on-exec error pipe) → reported to the agent;
//             waitpid → SIGKILL whatever is left in the cgroup → exit.json {exit code or signal, oom_killed}.
//
// The exit record must not be lost to a full state filesystem (the workload's own output may have filled it): the
// agent reserves its space at launch (exit.slot, `reserveExitSlot`); the shim overwrites that in place and renames it
// to exit.json, which needs no new data blocks. Should that fail all the same (the slot removed, an I/O error), the
// shim falls back to the temp-file-and-rename write and keeps trying, with a back-off up to 10 s, for as long as the
// record directory exists: a live shim keeps the workload running in the runner's eyes instead of lost, and the true
// exit status arrives once the record can be written.
//
// Thread affinity: `spawn` is called on the agent's thread; it blocks until the shim reports (at most `timeout`).

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace tidepool::agent::shim {

// Everything the shim and the workload child need, prepared before the fork so that nothing after it allocates.
struct ShimPlan {
    std::string executable; // argv[0] resolved to a path (no PATH search after the fork)
    std::vector<std::string> argv; // wrapper prefix included
    std::vector<std::string> env; // "NAME=value", the complete environment
    std::string workingDir;
    std::vector<std::string> cgroupProcsFiles; // the workload cgroup's cgroup.procs in every hierarchy
    std::string procsFile; // one of them, for listing (the memory hierarchy's)
    std::string killFile; // cgroup v2 cgroup.kill, or empty
    std::string oomCounterFile; // its "oom_kill" line counts OOM kills in the workload cgroup
    std::string stdoutPath;
    std::string stderrPath;
    std::string recordDir; // <state-dir>/workloads/<id>
    std::string launchPath; // launch.json
    std::string launchTmpPath; // launch.json.tmp, renamed over launchPath
    std::string launchPrefix; // the launch record's JSON up to the pid fields: `{"id":...,` ; see writeLaunchRecord
    std::string exitPath; // exit.json
    std::string exitTmpPath; // exit.json.tmp
    std::string exitSlotPath; // exit.slot: the exit record's space, reserved by `reserveExitSlot`
};

// Where a start failed; the names appear in exit.json's "startError".
enum class ShimStage : std::int32_t {
    None = 0,
    Fork, // forking the shim or the workload
    Record, // writing launch.json with the pids
    CgroupJoin, // writing the pid to a cgroup.procs file
    Stdio, // opening stdout.log / stderr.log or /dev/null
    WorkingDir, // chdir
    Exec, // execve
};
const char* stageName(ShimStage stage);

struct SpawnResult {
    bool reported = false; // false: no report within the timeout (or the shim died); `shimPid` may still be known
    bool started = false; // the workload's execve succeeded
    ShimStage failedStage = ShimStage::None;
    int error = 0; // errno of the failure
    int pid = 0;
    int shimPid = 0;
    std::uint64_t startTime = 0; // /proc/<pid>/stat field 22
    std::uint64_t shimStartTime = 0;
};

// Writes `<prefix>"pid":..,"startTime":..,"shimPid":..,"shimStartTime":..}` atomically to the launch record; returns
// 0 or an errno value. Async-signal-safe (the shim uses it after the fork).
int writeLaunchRecord(
    const ShimPlan& plan, int pid, std::uint64_t startTime, int shimPid, std::uint64_t shimStartTime, bool execed);

// Creates exit.slot: `kExitSlotBytes` spaces, fsynced. 0 or an errno value (ENOSPC on a full file system: the launch is
// refused rather than started with nowhere to record its end). Called by the agent before `spawn`.
int reserveExitSlot(const ShimPlan& plan);

SpawnResult spawn(const ShimPlan& plan, std::chrono::milliseconds timeout);

} // namespace tidepool::agent::shim
