// The series CSV loader and the small statistics the models share. The loader is strict for the same reason as the
// openb loaders (core/sim/openb.cpp): a forecast scored on a half-read series would publish wrong numbers, so any
// doubt about a row stops the load with file:line:field, in the same `Error` type.

#include "core/forecast/series.h"

#include "core/model/civil_time.h"
#include "core/model/csv.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

namespace tidepool::forecast {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string_view trim(std::string_view text)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '"'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '"'))
        text.remove_suffix(1);
    return text;
}

std::optional<double> parseNumber(std::string_view text)
{
    double value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value))
        return std::nullopt;
    return value;
}

// `YYYY-MM-DD HH:MM:SS` (or `T` between, optional trailing `Z`) as seconds since the epoch, or plain epoch seconds.
// The time zone is ignored on purpose: only differences between rows matter.
std::optional<double> parseTimestamp(std::string_view text)
{
    if (auto seconds = parseNumber(text))
        return seconds;
    if (!text.empty() && text.back() == 'Z')
        text.remove_suffix(1);
    if (text.size() != 19 || text[4] != '-' || text[7] != '-' || (text[10] != ' ' && text[10] != 'T') || text[13] != ':'
        || text[16] != ':')
        return std::nullopt;
    auto part = [&](std::size_t at, std::size_t length) -> std::optional<int> {
        int value = 0;
        const auto [ptr, ec] = std::from_chars(text.data() + at, text.data() + at + length, value);
        if (ec != std::errc() || ptr != text.data() + at + length)
            return std::nullopt;
        return value;
    };
    const auto year = part(0, 4), month = part(5, 2), day = part(8, 2);
    const auto hour = part(11, 2), minute = part(14, 2), second = part(17, 2);
    if (!year || !month || !day || !hour || !minute || !second || *month < 1 || *month > 12 || *day < 1 || *day > 31
        || *hour > 23 || *minute > 59 || *second > 60)
        return std::nullopt;
    const std::int64_t days = daysFromCivil(*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day));
    return static_cast<double>(days * 86400 + *hour * 3600 + *minute * 60 + *second);
}

} // namespace

Series Series::prefix(std::size_t count) const
{
    Series head;
    head.stepSeconds = stepSeconds;
    head.values.assign(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(std::min(count, values.size())));
    return head;
}

Expected<LoadedSeries> loadSeriesCsv(const std::string& path, const SeriesCsvOptions& options)
{
    if (!(options.stepSeconds > 0))
        return makeError(ErrorCode::InvalidArgument, path + ": the step must be a positive number of seconds");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError(ErrorCode::IoError, path + ": cannot open file");
    std::ostringstream text;
    text << in.rdbuf();
    const std::string all = text.str();

    auto fail = [&](int line, std::string_view field, const std::string& problem) {
        std::string message = path + ":" + std::to_string(line) + ":";
        if (!field.empty())
            message += " field '" + std::string(field) + "':";
        return makeError(ErrorCode::ParseError, message + " " + problem);
    };

    std::vector<std::string_view> header;
    int valueColumn = -1;
    int timeColumn = -1;
    LoadedSeries out;
    out.series.stepSeconds = options.stepSeconds;
    std::vector<int> countInBucket; // rows averaged into each bucket, for `Average`
    std::map<std::int64_t, int> lineOfBucket; // only consulted on a collision, to name the earlier line
    std::optional<double> firstTime;
    double previousTime = 0;
    int previousLine = 0;

    std::size_t start = 0;
    int lineNo = 0;
    while (start < all.size()) {
        std::size_t end = all.find('\n', start);
        if (end == std::string::npos)
            end = all.size();
        std::string_view line(all.data() + start, end - start);
        start = end + 1;
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (lineNo == 1) {
            header = splitCsvFields(line);
            for (auto& name : header)
                name = trim(name);
            for (std::size_t i = 0; i < header.size(); ++i) {
                if (header[i] == options.column)
                    valueColumn = static_cast<int>(i);
                if (header[i] == options.timestampColumn)
                    timeColumn = static_cast<int>(i);
            }
            if (valueColumn < 0)
                return fail(1, options.column, "missing column");
            out.timestamped = timeColumn >= 0 && timeColumn != valueColumn;
            continue;
        }
        if (line.empty())
            continue;
        const auto fields = splitCsvFields(line);
        if (fields.size() != header.size())
            return fail(lineNo, {},
                "expected " + std::to_string(header.size()) + " fields, found " + std::to_string(fields.size()));
        ++out.rows;
        const std::string_view raw = trim(fields[static_cast<std::size_t>(valueColumn)]);
        double value = kNaN;
        if (!raw.empty() && raw != "NaN" && raw != "nan") {
            const auto number = parseNumber(raw);
            if (!number)
                return fail(lineNo, options.column, "not a number: '" + std::string(raw) + "'");
            value = *number;
        }

        std::size_t bucket = out.series.values.size();
        if (out.timestamped) {
            const std::string_view rawTime = trim(fields[static_cast<std::size_t>(timeColumn)]);
            const auto time = parseTimestamp(rawTime);
            if (!time)
                return fail(lineNo, options.timestampColumn, "not a timestamp: '" + std::string(rawTime) + "'");
            if (firstTime && *time < previousTime)
                return fail(lineNo, options.timestampColumn,
                    "timestamp '" + std::string(rawTime) + "' is earlier than line " + std::to_string(previousLine));
            if (!firstTime)
                firstTime = *time;
            previousTime = *time;
            previousLine = lineNo;
            bucket = static_cast<std::size_t>(std::llround((*time - *firstTime) / options.stepSeconds));
        }
        if (bucket >= out.series.values.size()) {
            out.series.values.resize(bucket + 1, kNaN);
            countInBucket.resize(bucket + 1, 0);
        } else if (options.duplicates != DuplicateTimestamps::Average) {
            const auto earlier = lineOfBucket.find(static_cast<std::int64_t>(bucket));
            return fail(lineNo, options.timestampColumn,
                "duplicated timestamp: falls in the same " + std::to_string(std::lround(options.stepSeconds))
                    + " s step as line " + std::to_string(earlier == lineOfBucket.end() ? 0 : earlier->second));
        } else {
            ++out.mergedRows;
        }
        lineOfBucket[static_cast<std::int64_t>(bucket)] = lineNo;
        if (!isGap(value)) {
            double& slot = out.series.values[bucket];
            int& count = countInBucket[bucket];
            slot = count == 0 ? value : (slot * count + value) / (count + 1);
            ++count;
        }
    }
    if (header.empty())
        return fail(1, {}, "empty file, expected a header");
    out.gapBuckets = static_cast<std::size_t>(std::count_if(out.series.values.begin(), out.series.values.end(), isGap));
    out.firstTimestampS = firstTime.value_or(0.0);
    return out;
}

double median(std::vector<double> values)
{
    return quantile(std::move(values), 0.5);
}

double quantile(std::vector<double> values, double q)
{
    std::erase_if(values, isGap);
    if (values.empty())
        return kNaN;
    std::sort(values.begin(), values.end());
    const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
    const auto below = static_cast<std::size_t>(position);
    const std::size_t above = std::min(below + 1, values.size() - 1);
    const double fraction = position - static_cast<double>(below);
    return values[below] + fraction * (values[above] - values[below]);
}

double meanOf(const std::vector<double>& values)
{
    double sum = 0;
    std::size_t count = 0;
    for (const double v : values)
        if (!isGap(v)) {
            sum += v;
            ++count;
        }
    return count ? sum / static_cast<double>(count) : kNaN;
}

std::vector<double> fillGaps(const std::vector<double>& values)
{
    std::vector<double> filled(values);
    std::optional<std::size_t> last;
    for (std::size_t i = 0; i < filled.size(); ++i) {
        if (isGap(filled[i]))
            continue;
        if (!last) {
            std::fill(filled.begin(), filled.begin() + static_cast<std::ptrdiff_t>(i), filled[i]);
        } else if (i > *last + 1) {
            const double from = filled[*last], to = filled[i];
            for (std::size_t j = *last + 1; j < i; ++j)
                filled[j] = from + (to - from) * static_cast<double>(j - *last) / static_cast<double>(i - *last);
        }
        last = i;
    }
    if (!last)
        std::fill(filled.begin(), filled.end(), 0.0);
    else
        std::fill(filled.begin() + static_cast<std::ptrdiff_t>(*last) + 1, filled.end(), filled[*last]);
    return filled;
}

} // namespace tidepool::forecast
