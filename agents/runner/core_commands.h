#pragma once
// What the agent does with the core's `launch` and `stop` messages, over its `Runner`: the decisions the agent's main
// used to make inline, here so that tests drive them with a real runner, real processes and real cgroups.
//
// Launch: an (id, incarnation) already held is judged by `judgeHeldLaunch` (a repeat, another workload under a
// finished record's ids, or one under a running one's). A launch of an incarnation older than one held of the id is
// judged by `judgeOlderLaunch`: the same workload's stale launch is refused, as ever; another workload (a core whose
// database was replaced numbers its workloads from 1 and incarnation 0 again) starts once every held incarnation of the
// id has finished, their records set aside, and is refused, naming what runs, while one still runs.
//
// Stop: reaches the incarnation it names, or without one (a core from before incarnations) only the newest incarnation
// held of the id, never every one. Every stop is answered (see `protocol::Stop`): a launch that runs answers with its
// end, later; one that has ended answers at once with how it ended; one not held answers at once as `lost`.
//
// Thread affinity: the runner's owner thread.

#include "agents/runner/core_launch.h"
#include "agents/runner/runner.h"
#include "protocol/messages.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tidepool::agent {

// The protocol's status of a runner's workload; nullopt for an id that is not one of the core's (not a positive
// integer).
std::optional<protocol::WorkloadStatus> toProtocolStatus(const WorkloadStatus& status);

// The cgroup limits a pool of the core's `pools` (or a launch's pool) asks for, before network shaping: the CPU quota
// (at least 10 millicores), the memory limit, and an IO weight only where the pool was given one other than the
// default (100): a pool without one keeps the kernel's own default weight, and a host whose IO scheduler has no
// weights (neither CFQ nor BFQ) has nothing to say about it.
PoolLimits cgroupLimitsOf(const protocol::PoolLimits& pool);

// What a launch or a stop did.
struct CommandOutcome {
    std::vector<protocol::WorkloadStatus> answers; // to send to the core now
    std::vector<std::string> log; // lines for the agent's log
    std::optional<WorkloadStatus> launched; // what the runner started
    std::vector<std::string> setAside; // record names (`recordName`) moved to replaced/: forget what was reported
};

// Sets the spec's wrapper (qemu-user for a foreign binary), or says why the launch cannot run here.
using PrepareLaunch = std::function<std::optional<std::string>(LaunchSpec& spec)>;

enum class OlderLaunch : std::uint8_t {
    Invalid = 0,
    Stale, // a launch of the workload held, older than one it has run: never started after the newer one
    Replaces, // another workload; every incarnation held of the id has finished: set them aside, start the new one
    Conflicts, // another workload, or a stale one, while a newer incarnation runs: refuse, leave it alone
};

// What a launch with `digest` of an incarnation older than `newest` (the newest incarnation held of its id) is. The
// same launch digest as `newest`'s, or a record from before digests, is the same workload: `Stale` (or `Conflicts`
// while it runs). Another digest, with `newest` finished: `Replaces` (a migrated workload's older launch names other
// devices too, but the core never sends an older launch than its current one, so that is a replaced database).
OlderLaunch judgeOlderLaunch(const WorkloadStatus& newest, const std::string& digest);

CommandOutcome applyLaunch(Runner& runner, const protocol::Launch& launch, const PrepareLaunch& prepare);
CommandOutcome applyStop(Runner& runner, const protocol::Stop& stop);

// A `resize` of a running launch (`Runner::resize`), answered with what came of it; `log` says it for the agent's log.
protocol::Resized applyResize(Runner& runner, const protocol::Resize& resize, std::vector<std::string>& log);

} // namespace tidepool::agent
