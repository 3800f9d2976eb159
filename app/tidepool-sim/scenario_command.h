#pragma once
// The `scenario` command of tidepool-sim.

#include <string>

namespace tidepool::simapp {

// argv[1] is "scenario"; returns the exit status.
int runScenarioCommand(int argc, char** argv, const std::string& defaultDataDir);

} // namespace tidepool::simapp
