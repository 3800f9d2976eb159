#pragma once
// Probe commands: a vendor tool or a site script that prints the node's accelerators as an accelerator list (the
// JSON of accelerator_file.h) on its standard output. The command runs without a shell (argv[0] is searched in
// PATH when it holds no '/'), with /dev/null as standard input, in its own process group, which is killed when the
// command runs past its timeout. A command that cannot start, exits non-zero, is killed, times out or prints
// anything but a valid list is an error naming the command and, where there is one, its last line of stderr.
//
// Thread affinity: none; `runProbeCommand` blocks the calling thread until the command ends or its timeout.

#include "agents/inventory/accelerator.h"
#include "agents/inventory/inventory_error.h"

#include <chrono>
#include <string>
#include <vector>

namespace tidepool::agent {

// Runs `argv` and parses its standard output; the devices are numbered 0.. and marked `DeviceSource::Probe`.
InventoryExpected<std::vector<AcceleratorDevice>> runProbeCommand(
    const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

// "probe `/usr/bin/npu-probe --json`": how errors and notes name a probe command.
std::string probeLabel(const std::vector<std::string>& argv);

} // namespace tidepool::agent
