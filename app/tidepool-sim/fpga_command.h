#pragma once
// The `fpga-scenario` command of tidepool-sim.

#include <string>

namespace tidepool::simapp {

// argv[1] is "fpga-scenario"; returns the exit status.
int runFpgaScenarioCommand(int argc, char** argv, const std::string& defaultDataDir);

} // namespace tidepool::simapp
