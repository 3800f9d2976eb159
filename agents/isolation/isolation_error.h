#pragma once
// Errors of the node agent's isolation (cgroups) and workload runner. Like the protocol library, the agent has no
// tidepool_core and so its own error type; `path` names the file, directory or record concerned (a cgroup control
// file, a state-dir record) or, for bad input, the offending field, and `message` says what went wrong, with the
// errno text where a system call failed.
//
// Thread affinity: none; plain value types.

#include <cstdint>
#include <string>

#include <tl/expected.hpp>

namespace tidepool::agent {

enum class IsolationErrorCode : std::uint8_t {
    None = 0,
    NoCgroups, // no usable cgroup hierarchy (neither v2 with cpu+memory nor v1 cpu and memory)
    BadName, // a pool or workload name outside [A-Za-z0-9._-], empty, too long, "." or ".."
    BadLimit, // a limit outside its range (cpuMillis below 10, ioWeight outside 1..10000, ...)
    BadSpec, // a launch spec that cannot be started (empty argv, program not found in PATH, ...)
    NotFound, // a pool, workload or record that does not exist
    AlreadyExists, // a workload id that is already known: never start twice
    Busy, // a cgroup that still has processes or children, a workload that still runs
    SystemCall, // a system call failed; the message has the errno text
    BadRecord, // a state-dir record that cannot be parsed
};

struct IsolationError {
    IsolationErrorCode code = IsolationErrorCode::None;
    std::string path;
    std::string message;
};

template <typename T> using IsolationExpected = tl::expected<T, IsolationError>;

inline tl::unexpected<IsolationError> makeIsolationError(IsolationErrorCode code, std::string path, std::string message)
{
    return tl::unexpected<IsolationError>(IsolationError { code, std::move(path), std::move(message) });
}

} // namespace tidepool::agent
