#include "core/api/daily_report.h"

#include "core/report/csv_report.h"
#include "core/report/html_report.h"
#include "core/report/report_facts.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace tidepool::api {

namespace {

constexpr std::int64_t kDayMs = 86'400'000;

std::string dateOf(std::int64_t ms)
{
    return report::formatTime(ms).substr(0, 10);
}

Expected<double> price(const nlohmann::json& object, const std::string& path, const char* key)
{
    const auto it = object.find(key);
    if (it == object.end())
        return 0.0;
    if (!it->is_number() || it->get<double>() < 0)
        return makeError(ErrorCode::InvalidArgument, "field `" + path + "." + key + "` must be a number, 0 or more");
    return it->get<double>();
}

} // namespace

const std::vector<std::string>& reportConfigFields()
{
    static const std::vector<std::string> fields { "reportDirectory", "reportDailyAt", "reportLanguage",
        "reportCurrency", "reportPrices" };
    return fields;
}

Expected<void> readReportConfig(const nlohmann::json& root, ReportConfig& config)
{
    const auto text = [&](const char* key, std::string& out) -> Expected<void> {
        const auto it = root.find(key);
        if (it == root.end() || it->is_null())
            return {};
        if (!it->is_string() || it->get<std::string>().size() > 4096)
            return makeError(ErrorCode::InvalidArgument, std::string("field `") + key + "` must be a string");
        out = it->get<std::string>();
        return {};
    };
    if (auto read = text("reportDirectory", config.directory); !read)
        return read;
    if (auto read = text("reportCurrency", config.settings.currency); !read)
        return read;
    std::string at;
    if (auto read = text("reportDailyAt", at); !read)
        return read;
    if (!at.empty()) {
        int hours = -1, minutes = -1;
        char end = 0;
        if (at.size() != 5 || std::sscanf(at.c_str(), "%2d:%2d%c", &hours, &minutes, &end) != 2 || hours < 0
            || hours > 23 || minutes < 0 || minutes > 59)
            return makeError(ErrorCode::InvalidArgument,
                "field `reportDailyAt` \"" + at.substr(0, 32) + "\" must be a time of day HH:MM (UTC)");
        config.dailyAtMinutes = hours * 60 + minutes;
    }
    std::string language;
    if (auto read = text("reportLanguage", language); !read)
        return read;
    if (!language.empty()) {
        const auto parsed = report::parseLanguage(language);
        if (!parsed)
            return makeError(ErrorCode::InvalidArgument, "field `reportLanguage` must be en or zh_CN");
        config.language = *parsed;
    }
    if (const auto it = root.find("reportPrices"); it != root.end() && !it->is_null()) {
        if (!it->is_object())
            return makeError(ErrorCode::InvalidArgument,
                "field `reportPrices` must be an object of node classes: {\"hot-x86_64-gpu\": {\"cpuCoreHour\": …}}");
        for (const auto& [nodeClass, prices] : it->items()) {
            const std::string path = "reportPrices." + nodeClass;
            if (!prices.is_object())
                return makeError(ErrorCode::InvalidArgument, "field `" + path + "` must be an object");
            for (const auto& [key, value] : prices.items())
                if (key != "cpuCoreHour" && key != "memoryGiBHour" && key != "gpuHour" && key != "npuHour"
                    && key != "fpgaHour")
                    return makeError(ErrorCode::InvalidArgument,
                        "field `" + path + "." + key
                            + "` is not known (cpuCoreHour, memoryGiBHour, gpuHour, npuHour, fpgaHour)");
            report::NodeClassPrice p;
            for (const auto& [key, out] :
                { std::pair { "cpuCoreHour", &p.cpuCoreHour }, std::pair { "memoryGiBHour", &p.memoryGiBHour } }) {
                const auto value = price(prices, path, key);
                if (!value)
                    return tl::unexpected(value.error());
                *out = *value;
            }
            for (const char* kind : { "gpu", "npu", "fpga" }) {
                const auto value = price(prices, path, (std::string(kind) + "Hour").c_str());
                if (!value)
                    return tl::unexpected(value.error());
                if (*value > 0)
                    p.acceleratorHour[kind] = *value;
            }
            config.settings.prices[nodeClass] = std::move(p);
        }
    }
    return {};
}

Expected<void> writeFileAtomically(const std::string& path, const std::string& content)
{
    const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
    const auto failed = [&](const char* step) {
        const int error = errno;
        ::unlink(temporary.c_str());
        return makeError(ErrorCode::IoError, "cannot write " + path + ": " + step + ": " + std::strerror(error));
    };
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        const int error = errno;
        return makeError(ErrorCode::IoError, "cannot write " + path + ": " + std::strerror(error));
    }
    std::size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int error = n < 0 ? errno : ENOSPC;
            ::close(fd);
            errno = error;
            return failed("write");
        }
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) {
        const int error = errno;
        ::close(fd);
        errno = error;
        return failed("fsync");
    }
    if (::close(fd) != 0)
        return failed("close");
    if (::rename(temporary.c_str(), path.c_str()) != 0)
        return failed("rename");
    return {};
}

DailyReport::DailyReport(boost::asio::io_context& io, ControlPlane& plane, const Rebalancer* rebalancer,
    ReportConfig config, protocol::LogSink log)
    : m_plane(plane)
    , m_rebalancer(rebalancer)
    , m_config(std::move(config))
    , m_log(std::move(log))
    , m_timer(io)
{
}

void DailyReport::start()
{
    if (m_config.directory.empty() || m_running)
        return;
    m_running = true;
    // Catch up: yesterday's report, unless it is there already (or today's hour has not come yet).
    const std::int64_t now = m_plane.nowMs();
    const std::int64_t today = now / kDayMs * kDayMs;
    const std::int64_t yesterday = today - kDayMs;
    const std::string html = m_config.directory + "/tidepool-report-" + dateOf(yesterday) + ".html";
    if (now - today >= m_config.dailyAtMinutes * 60'000LL && ::access(html.c_str(), F_OK) != 0)
        (void)writeDay(yesterday);
    arm();
}

void DailyReport::stop()
{
    m_running = false;
    m_timer.cancel();
}

void DailyReport::arm()
{
    if (!m_running)
        return;
    const std::int64_t now = m_plane.nowMs();
    std::int64_t next = now / kDayMs * kDayMs + m_config.dailyAtMinutes * 60'000LL;
    if (next <= now)
        next += kDayMs;
    m_timer.expires_after(std::chrono::milliseconds(next - now));
    m_timer.async_wait([this, next](const boost::system::error_code& ec) {
        if (ec || !m_running)
            return;
        (void)writeDay(next / kDayMs * kDayMs - kDayMs);
        arm();
    });
}

Expected<std::vector<std::string>> DailyReport::writeDay(std::int64_t dayStartMs)
{
    report::ReportRequest request;
    request.fromMs = dayStartMs;
    request.toMs = dayStartMs + kDayMs;
    request.language = m_config.language;
    const std::string base = m_config.directory + "/tidepool-report-" + dateOf(dayStartMs);
    const auto data = report::buildLiveReport(request, m_plane, m_rebalancer, m_config.settings);
    if (!data) {
        if (m_log)
            m_log("ALERT report: cannot make the daily report " + base + ".html: " + data.error().message);
        return tl::unexpected(data.error());
    }
    std::vector<std::string> written;
    for (const auto& [path, content] : { std::pair { base + ".html", report::renderHtml(*data) },
             std::pair { base + ".csv", report::renderCsv(*data) } }) {
        if (auto done = writeFileAtomically(path, content); !done) {
            if (m_log)
                m_log(
                    "ALERT report: " + done.error().message + "; the daemon goes on, the next report is due tomorrow");
            return tl::unexpected(done.error());
        }
        written.push_back(path);
    }
    if (m_log)
        m_log("report: wrote " + written[0] + " and " + written[1]);
    return written;
}

} // namespace tidepool::api
