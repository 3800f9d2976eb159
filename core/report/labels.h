#pragma once
// The report's words in English and Simplified Chinese, by key: the renderers of the core (CSV, HTML) and the PDF
// library (ui/pdf) take their headings, column names and the names of the core's values from here, since the core has
// no Qt `tr()`. An unknown key is returned as it is, so that a value the table does not know yet still shows.
//
// Thread affinity: none; a constant table.

#include "core/rebalance/reason.h"
#include "core/report/report.h"

#include <string>
#include <string_view>

namespace tidepool::report {

std::string_view label(Language language, std::string_view key);

// A proposal's reason in the report's language: its clauses worded with the console's catalogue of them
// (`translations/tidepool_zh_CN.ts`, context "Reason", compiled into a table at build time), amounts in the units the
// daemon's English uses and times in UTC; `english` (the proposal's `reason`) for English, for a proposal stored
// before clauses, or where a clause is one this build cannot word.
std::string reasonText(Language language, const rebalance::Why& why, const std::string& english);

// The scope as a heading: "Cluster", "Pool web-0", "业务线 shop".
std::string scopeTitle(const ReportRequest& request);

// A cost row's subject: its business line, or "Pool web (no business line)" for a pool without one.
std::string costSubject(Language language, const BusinessLineCost& cost);

// A number for a table: `digits` decimals, "—" when not measured.
std::string formatNumber(double value, int digits = 1);
// The top of a chart's value axis for values up to `peak`: four ticks of a round step (1, 1.5, 2, 2.5, 3, 4, 5, 6 or
// 8 times a power of ten) that reach at least 5 % above it; 1 for nothing to show.
double niceAxisTop(double peak);

// A duration in milliseconds as "42 s", "3.5 min", "1.2 h"; "—" when not measured.
std::string formatDuration(double ms);

} // namespace tidepool::report
