#pragma once
// A report as one self-contained HTML page (UTF-8, `<html lang="en">` or `lang="zh-CN"`, inline CSS, the charts as
// inline SVG, nothing fetched): the same sections as the PDF. Every text that comes from the cluster (pool, node and
// business line names, reasons, who decided) is escaped (`&`, `<`, `>`, `"`, `'`).
//
// Thread affinity: none; pure functions.

#include "core/report/report.h"

#include <string>
#include <string_view>

namespace tidepool::report {

std::string renderHtml(const ReportData& data);
std::string htmlEscape(std::string_view text);

// The label of one of the core's values (a proposal's kind, state or risk, a tier, a resource) in `language`.
std::string valueLabel(Language language, std::string_view value);

} // namespace tidepool::report
