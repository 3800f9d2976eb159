#pragma once
// Runs a short-lived command and collects what it prints, for the slowdown measurement (isabench runs,
// `qemu --version`). Not the workload runner: no cgroup, no detaching; the caller waits for the result.
//
// Thread affinity: none; each call owns its child and its pipes (close-on-exec, so concurrent calls on other threads
// do not leak descriptors into each other's children).

#include "agents/crossisa/error.h"

#include <chrono>
#include <string>
#include <vector>

namespace tidepool::agent::crossisa {

struct CommandResult {
    int exitCode = -1; // the exit status, or -1 when a signal ended the command
    int signal = 0; // the signal that ended it, or 0
    std::string out; // stdout, at most `kMaxCommandOutputBytes`
    std::string err; // stderr, likewise
};

inline constexpr std::size_t kMaxCommandOutputBytes = 64 * 1024;

// Runs `argv` (argv[0] a path; no shell, no PATH search) with the agent's environment and stdin from /dev/null.
// A `BenchmarkFailed` error names the command when it cannot be started or runs past `timeout` (it is then killed).
// Output beyond the limit is read and dropped, so a chatty command cannot block on a full pipe.
Expected<CommandResult> runCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

// `argv` joined by spaces, for messages.
std::string describeCommand(const std::vector<std::string>& argv);

} // namespace tidepool::agent::crossisa
