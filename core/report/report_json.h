#pragma once
// `ReportData` as JSON, the body of `GET /v1/report` and what tidepoolctl and the console's --connect mode read back.
// A value that was not measured (NaN) is `null`. `reportFromJson` checks every field it reads and names the first
// one that is missing or of the wrong type (`utilisation[2].capacity`).
//
// Thread affinity: none; pure functions.

#include "core/report/report.h"

#include <nlohmann/json.hpp>

namespace tidepool::report {

nlohmann::json toJson(const ReportData& data);
Expected<ReportData> reportFromJson(const nlohmann::json& json);

} // namespace tidepool::report
