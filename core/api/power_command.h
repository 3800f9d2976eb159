#pragma once
// The physical power hook behind power-down and power-up proposals: `tidepoold --power-command PROGRAM` runs
// `PROGRAM off <node>` once a power-down proposal has cordoned its (empty) node, and `PROGRAM on <node>` before a
// power-up proposal lifts the cordon; an IPMI wrapper (`ipmitool -H <bmc> chassis power off`), a Wake-on-LAN script,
// a cloud CLI. The program runs as a real child process: no shell, argv[0] looked up in PATH when it has no '/', the
// daemon's environment, /dev/null as standard input and output, standard error captured (its tail goes into the
// proposal's steps), in a process group of its own so that a timeout kills everything it started.
//
// Thread affinity: none; `runPowerCommand` blocks for up to its timeout, so the rebalancer calls it on a worker thread
// and finishes on the core's thread. Each call owns its child and its pipe (close-on-exec, so concurrent calls do not
// leak descriptors into each other's children).

#include "core/model/types.h"

#include <chrono>
#include <string>
#include <vector>

namespace tidepool::api {

struct PowerCommandResult {
    bool started = false;
    int exitCode = -1; // the exit status; -1 when it did not exit on its own
    int signal = 0; // the signal that ended it, or 0
    bool timedOut = false; // ran past the timeout and was killed, with its process group
    std::string stderrTail; // the last lines of its standard error (control characters replaced), at most ~500 bytes
    std::string startError; // why it could not be started
    std::chrono::milliseconds took { 0 };

    bool succeeded() const { return started && !timedOut && signal == 0 && exitCode == 0; }
    // "exit status 3: no BMC answers", "timed out after 300 ms (killed)", "could not start: ...".
    std::string describe(std::chrono::milliseconds timeout) const;
};

// Runs `argv` with a deadline of `timeout`; never throws.
PowerCommandResult runPowerCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

// The error naming `program` when it is no executable file (a path), or none is found in PATH (a bare name).
Expected<void> checkPowerCommand(const std::string& program);

} // namespace tidepool::api
