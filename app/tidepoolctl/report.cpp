// `report`: a report for a period and a scope (core/report), fetched from GET /v1/report and written as PDF (with the
// Qt Gui library in ui/pdf, offscreen when there is no display), HTML or CSV (rendered by the core), or the JSON as
// the daemon sent it.
#include "app/tidepoolctl/commands.h"

#include "core/api/daily_report.h"
#include "core/report/csv_report.h"
#include "core/report/html_report.h"
#include "core/report/report_json.h"
#include "ui/pdf/report_pdf.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace tidepool::ctl {

namespace {

constexpr std::int64_t kDayMs = 86'400'000;

// The directory `path` would be written in must exist and take files.
Result<void> checkWritable(const std::string& path)
{
    const auto slash = path.rfind('/');
    const std::string directory = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    struct stat info { };
    int error = 0;
    if (::stat(directory.c_str(), &info) != 0)
        error = errno;
    else if (!S_ISDIR(info.st_mode))
        error = ENOTDIR;
    else if (::access(directory.c_str(), W_OK | X_OK) != 0)
        error = errno;
    if (error != 0)
        return usageError("report: -o " + path + ": cannot write in " + directory + ": " + std::strerror(error));
    return {};
}

} // namespace

Result<void> report(Session& session, const Words& words)
{
    const std::string cmd = "report";
    auto o = parseOptions(cmd, words,
        { { "--from" }, { "--to" }, { "--day" }, { "--scope" }, { "--name" }, { "--language" }, { "--format" },
            { "-o" }, { "--output" } });
    if (!o)
        return tl::unexpected(o.error());
    if (auto none = noPositionals(cmd, *o); !none)
        return tl::unexpected(none.error());

    // The period: --day D (that UTC day), or --from/--to (default: the last 24 hours).
    std::string from, to;
    if (const auto day = o->last("--day")) {
        if (o->has("--from") || o->has("--to"))
            return usageError("report: --day is instead of --from and --to");
        const auto start = report::parseReportTime(*day, "--day");
        if (!start || day->size() != 10)
            return usageError("report: --day \"" + clip(*day, 40) + "\" must be a date YYYY-MM-DD (UTC)");
        from = std::to_string(*start);
        to = std::to_string(*start + kDayMs);
    } else { // as `history` and `audit` take times: RFC 3339 with an offset, a date, -1h, now, epoch milliseconds
        const std::int64_t now = nowMs();
        auto end = timeValue(cmd, "--to", o->last("--to").value_or("now"), now);
        if (!end)
            return tl::unexpected(end.error());
        auto start = o->has("--from") ? timeValue(cmd, "--from", *o->last("--from"), now) : *end - kDayMs;
        if (!start)
            return tl::unexpected(start.error());
        from = std::to_string(*start);
        to = std::to_string(*end);
    }
    const auto request = report::makeReportRequest(from, to, o->last("--scope").value_or("cluster"),
        o->last("--name").value_or(""), o->last("--language").value_or("en"));
    if (!request) {
        std::string message = request.error().message;
        for (const char* field : { "from", "to", "scope", "name", "language" }) // name the options as given
            for (auto at = message.find(std::string("`") + field + "`"); at != std::string::npos;
                 at = message.find(std::string("`") + field + "`"))
                message.replace(at, std::strlen(field) + 2, std::string("--") + field);
        return usageError("report: " + message);
    }

    const auto output = o->has("-o") ? o->last("-o") : o->last("--output");
    if (!output || output->empty())
        return usageError("report: -o FILE is required (where to write the report; - for standard output)");
    std::string format = o->last("--format").value_or("");
    if (format.empty()) { // from the file's extension
        const auto dot = output->rfind('.');
        format = dot == std::string::npos ? "" : output->substr(dot + 1);
        if (format != "pdf" && format != "html" && format != "csv" && format != "json")
            return usageError(
                "report: --format pdf|html|csv|json is required (the name " + *output + " does not say which)");
    }
    if (format != "pdf" && format != "html" && format != "csv" && format != "json")
        return usageError("report: --format \"" + clip(format, 20) + "\" must be pdf, html, csv or json");
    const bool toStdout = *output == "-";
    if (toStdout && format == "pdf")
        return usageError("report: a PDF is not written to standard output: give -o FILE.pdf");
    if (!toStdout)
        if (auto writable = checkWritable(*output); !writable)
            return writable;

    std::string target = "/v1/report?from=" + std::to_string(request->fromMs) + "&to=" + std::to_string(request->toMs)
        + "&scope=" + std::string(report::toString(request->scope))
        + "&language=" + std::string(report::toString(request->language));
    if (!request->name.empty())
        target += "&name=" + percentEncoded(request->name);
    auto body = session.call(api::HttpMethod::Get, target);
    if (!body)
        return tl::unexpected(body.error());
    const json parsed = json::parse(*body, nullptr, false);
    const auto data = report::reportFromJson(parsed);
    if (!data)
        return tl::unexpected(Failure { 1, "the daemon's report could not be read: " + data.error().message });

    std::string content;
    if (format == "pdf") {
        pdf::HeadlessGui gui;
        const QString error = pdf::writeReportPdf(*data, QString::fromStdString(*output));
        if (!error.isEmpty())
            return tl::unexpected(Failure { 1, error.toStdString() });
        std::fprintf(stderr, "tidepoolctl: wrote %s\n", output->c_str());
        return {};
    }
    content = format == "html" ? report::renderHtml(*data)
        : format == "csv"      ? report::renderCsv(*data)
                               : parsed.dump() + "\n";
    if (toStdout) {
        std::fwrite(content.data(), 1, content.size(), stdout);
        return {};
    }
    if (auto written = api::writeFileAtomically(*output, content); !written)
        return tl::unexpected(Failure { 1, written.error().message });
    std::fprintf(stderr, "tidepoolctl: wrote %s\n", output->c_str());
    return {};
}

} // namespace tidepool::ctl
