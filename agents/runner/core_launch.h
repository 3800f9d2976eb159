#pragma once
// The core's `launch` message as the runner sees it: the workload's environment, the launch's digest, and what to do
// with a launch of an (id, incarnation) the runner already holds. Plain functions; the agent's main uses them.
//
// Thread affinity: none.

#include "agents/runner/runner.h"
#include "protocol/messages.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tidepool::agent {

// The variables the agent sets in every workload's environment; the core's `env` cannot set them.
inline constexpr const char* kAgentEnvironment[]
    = { "TIDEPOOL_WORKLOAD_ID", "TIDEPOOL_INCARNATION", "CUDA_VISIBLE_DEVICES" };

// The launch's `env` without entries of the agent's variables, then TIDEPOOL_WORKLOAD_ID, TIDEPOOL_INCARNATION and,
// when devices were granted, CUDA_VISIBLE_DEVICES (the device indexes, comma-separated). An entry of the core's with
// one of those names would otherwise come first, and getenv(3) returns the first: a workload could name GPUs it was not
// given. Without devices, CUDA_VISIBLE_DEVICES is not set at all (as before), and never by the workload's `env`.
std::vector<std::string> workloadEnvironment(const protocol::Launch& launch);

// The runner's spec of the launch: id, incarnation, pool, argv, `workloadEnvironment`, name, `launchDigest` and the
// CPU it asked for. The
// wrapper is the caller's (it knows the translator).
LaunchSpec launchSpecFor(const protocol::Launch& launch);

// A digest (hex SHA-256) of what the core asked for: name, pool, argv, env as the core sent it, CPU, memory and the
// set of devices. Two launches of one (id, incarnation) with different digests are two workloads. Only the digest is
// recorded (launch.json), not the env, which may hold secrets. Empty should OpenSSL fail.
std::string launchDigest(const protocol::Launch& launch);

enum class HeldLaunch : std::uint8_t {
    Invalid = 0,
    Repeat, // the launch held: sent again (after a reconnect); start nothing, answer with its state
    Replaces, // another workload under a finished one's (id, incarnation): set the held one aside, launch the new one
    Conflicts, // another workload under a running one's (id, incarnation): refuse it, leave the running one alone
};

// What a launch with `digest` is to `held`, the runner's workload of the same (id, incarnation). A record from before
// digests (empty), or an empty `digest`, counts as a repeat, as every held launch did before.
HeldLaunch judgeHeldLaunch(const WorkloadStatus& held, const std::string& digest);

// The `failed` detail of a launch that `Conflicts` with `held`.
std::string conflictDetail(const WorkloadStatus& held);

// The agent's log line of a workload's new state: "workload 12@1: lost (neither the workload ...)", with the exit code,
// signal and, for the states that are not a success, the reason.
std::string statusLogLine(const WorkloadStatus& status);

} // namespace tidepool::agent
