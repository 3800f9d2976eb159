#pragma once
// The daemon's scheduled report: every day at `dailyAtMinutes` past midnight UTC it writes the previous UTC day's
// cluster report as HTML and CSV into `directory` (`tidepool-report-YYYY-MM-DD.html` and `.csv`), each written to a
// temporary file in that directory and renamed into place, so that a reader never sees half a report. At start it
// writes the previous day's report when that is missing (a daemon that was down at the hour still leaves it).
// The daemon has no Qt, so it writes no PDF: `tidepoolctl report --format pdf` makes one from the same data.
//
// A failure (a full disk, a read-only or missing directory) is logged with the path and the reason and changes
// nothing else: the next day is tried again.
//
// Thread affinity: the core's io_context thread. Ownership: borrows the control plane and the rebalancer (may be
// null), which must outlive it.

#include "core/api/control_plane.h"
#include "core/api/rebalancer.h"
#include "core/report/report.h"

#include <boost/asio/steady_timer.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tidepool::api {

struct ReportConfig {
    report::ReportSettings settings; // prices, currency, carbon (also for GET /v1/report)
    std::string directory; // "" = no daily report
    int dailyAtMinutes = 15; // past midnight UTC
    report::Language language = report::Language::En;
};

// Reads the config file's report fields (`reportDirectory`, `reportDailyAt` "HH:MM" UTC, `reportLanguage`,
// `reportCurrency`, `reportPrices` {class: {cpuCoreHour, memoryGiBHour, gpuHour, npuHour, fpgaHour}}); the first bad
// field is named in the returned error.
Expected<void> readReportConfig(const nlohmann::json& root, ReportConfig& config);
// The config file's fields `readReportConfig` takes, so that the daemon's reader does not call them unknown.
const std::vector<std::string>& reportConfigFields();

// Writes `content` to `path` atomically: a temporary file beside it, flushed, then renamed over it. The error names
// the path and the system's reason.
Expected<void> writeFileAtomically(const std::string& path, const std::string& content);

class DailyReport {
public:
    DailyReport(boost::asio::io_context& io, ControlPlane& plane, const Rebalancer* rebalancer, ReportConfig config,
        protocol::LogSink log);
    ~DailyReport() { stop(); }

    void start();
    void stop();

    // Writes the report of the UTC day starting at `dayStartMs`; returns the files written, or the error it logged.
    Expected<std::vector<std::string>> writeDay(std::int64_t dayStartMs);

private:
    void arm();

    ControlPlane& m_plane;
    const Rebalancer* m_rebalancer;
    ReportConfig m_config;
    protocol::LogSink m_log;
    boost::asio::steady_timer m_timer;
    bool m_running = false;
};

} // namespace tidepool::api
