#pragma once
// The grid's carbon intensity where the cluster runs, as an operator supplies it (a forecast from the grid operator
// or a service such as Electricity Maps or WattTime, exported as CSV): a header `timestamp,gco2_per_kwh`, then one
// row per time (`YYYY-MM-DD HH:MM:SS` UTC, with `T` and `Z` allowed, or epoch seconds), ascending. Errors name the
// file, the line and the field.
//
// Thread affinity: none.

#include "core/model/types.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tidepool::rebalance {

// (Unix ms, g CO2 per kWh), ascending.
using CarbonIntensity = std::vector<std::pair<std::int64_t, double>>;

Expected<CarbonIntensity> loadCarbonIntensity(const std::string& path);

} // namespace tidepool::rebalance
