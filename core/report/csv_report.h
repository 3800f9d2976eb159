#pragma once
// A report as CSV (RFC 4180: fields with a comma, a quote, a line break or a leading or trailing space are quoted,
// quotes doubled, lines end with CRLF), one table in long form:
//
//   section,subject,measure,time,value,unit
//   utilisation,cpu,requested,2026-12-02 10:00,12.5,cores
//
// `section` and `measure` are stable English keys for scripts; `subject` is a resource, tier, pool, business line or
// proposal; `time` is set on per-bucket rows (UTC). The header row is the same in every language (scripts read it);
// a zh_CN report starts with a UTF-8 byte order mark, so that spreadsheets read its Chinese as UTF-8.
//
// Formula injection: a text field that begins with `=`, `+`, `-`, `@`, a tab or a carriage return (a pool name, a
// reason, who decided) is prefixed with a single quote, so that a spreadsheet shows it as text instead of running it.
// Numbers the report formats itself are written as they are (a negative number stays a number).
//
// Thread affinity: none; pure functions.

#include "core/report/report.h"

#include <string>
#include <string_view>

namespace tidepool::report {

std::string renderCsv(const ReportData& data);

// One text field, neutralised and quoted as above.
std::string csvTextField(std::string_view text);

} // namespace tidepool::report
