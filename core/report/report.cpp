#include "core/report/report.h"

#include <charconv>
#include <cstdio>
#include <ctime>

namespace tidepool::report {

namespace {

constexpr std::int64_t kDayMs = 86'400'000;
constexpr std::int64_t kMaxPeriodMs = 92 * kDayMs;

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
std::int64_t daysFromCivil(std::int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool readNumber(std::string_view text, std::size_t at, std::size_t digits, int& out)
{
    if (at + digits > text.size())
        return false;
    const char* begin = text.data() + at;
    const auto [end, ec] = std::from_chars(begin, begin + digits, out);
    return ec == std::errc() && end == begin + digits;
}

std::string quoted(std::string_view text)
{
    return "\"" + std::string(text.substr(0, 64)) + (text.size() > 64 ? "…\"" : "\"");
}

} // namespace

std::string_view toString(ScopeKind scope)
{
    switch (scope) {
    case ScopeKind::Cluster: return "cluster";
    case ScopeKind::BusinessLine: return "business-line";
    case ScopeKind::Pool: return "pool";
    case ScopeKind::Tier: return "tier";
    case ScopeKind::Invalid: break;
    }
    return "invalid";
}

std::string_view toString(Language language)
{
    switch (language) {
    case Language::En: return "en";
    case Language::ZhCN: return "zh_CN";
    case Language::Invalid: break;
    }
    return "invalid";
}

std::optional<ScopeKind> parseScopeKind(std::string_view text)
{
    for (const ScopeKind s : { ScopeKind::Cluster, ScopeKind::BusinessLine, ScopeKind::Pool, ScopeKind::Tier })
        if (text == toString(s))
            return s;
    if (text == "business_line" || text == "businessLine")
        return ScopeKind::BusinessLine;
    return std::nullopt;
}

std::optional<Language> parseLanguage(std::string_view text)
{
    if (text == "en" || text == "en_US" || text == "en-US")
        return Language::En;
    if (text == "zh_CN" || text == "zh-CN" || text == "zh")
        return Language::ZhCN;
    return std::nullopt;
}

Expected<std::int64_t> parseReportTime(std::string_view text, std::string_view field)
{
    const auto bad = [&] {
        return makeError(ErrorCode::InvalidArgument,
            "`" + std::string(field) + "` " + quoted(text)
                + " is not a time: give Unix epoch milliseconds, YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][Z] (UTC)");
    };
    if (text.empty())
        return makeError(ErrorCode::InvalidArgument, "`" + std::string(field) + "` is required");
    if (text.find('-', 1) == std::string_view::npos) { // epoch milliseconds
        std::int64_t ms = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
        if (ec != std::errc() || end != text.data() + text.size())
            return bad();
        return ms;
    }
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (text.size() < 10 || !readNumber(text, 0, 4, year) || text[4] != '-' || !readNumber(text, 5, 2, month)
        || text[7] != '-' || !readNumber(text, 8, 2, day))
        return bad();
    std::size_t at = 10;
    if (text.size() > at) {
        if ((text[at] != 'T' && text[at] != ' ') || !readNumber(text, at + 1, 2, hour) || text.size() < at + 6
            || text[at + 3] != ':' || !readNumber(text, at + 4, 2, minute))
            return bad();
        at += 6;
        if (text.size() > at && text[at] == ':') {
            if (!readNumber(text, at + 1, 2, second))
                return bad();
            at += 3;
        }
        if (text.size() > at && text[at] == 'Z')
            ++at;
        if (text.size() != at)
            return bad();
    }
    static constexpr int kDays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (month < 1 || month > 12 || day < 1 || day > kDays[month - 1] || hour > 23 || minute > 59 || second > 59)
        return bad();
    const std::int64_t days = daysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
    return ((days * 24 + hour) * 60 + minute) * 60'000LL + second * 1000LL;
}

Expected<ReportRequest> makeReportRequest(std::string_view from, std::string_view to, std::string_view scope,
    std::string_view name, std::string_view language)
{
    ReportRequest request;
    const auto fromMs = parseReportTime(from, "from");
    if (!fromMs)
        return tl::unexpected(fromMs.error());
    const auto toMs = parseReportTime(to, "to");
    if (!toMs)
        return tl::unexpected(toMs.error());
    if (*fromMs >= *toMs)
        return makeError(ErrorCode::InvalidArgument,
            "the period is empty: `from` (" + formatTime(*fromMs) + ") must be before `to` (" + formatTime(*toMs)
                + ")");
    if (*toMs - *fromMs > kMaxPeriodMs)
        return makeError(
            ErrorCode::InvalidArgument, "the period is longer than 92 days (the 5-minute history's reach)");
    request.fromMs = *fromMs;
    request.toMs = *toMs;
    const auto kind = parseScopeKind(scope.empty() ? std::string_view("cluster") : scope);
    if (!kind)
        return makeError(ErrorCode::InvalidArgument,
            "`scope` " + quoted(scope) + " is not one of cluster, business-line, pool, tier");
    request.scope = *kind;
    if (*kind == ScopeKind::Cluster && !name.empty())
        return makeError(ErrorCode::InvalidArgument, "`name` is not taken with the cluster scope");
    if (*kind != ScopeKind::Cluster && name.empty())
        return makeError(
            ErrorCode::InvalidArgument, "`name` is required with the " + std::string(toString(*kind)) + " scope");
    request.name = std::string(name);
    const auto lang = parseLanguage(language.empty() ? std::string_view("en") : language);
    if (!lang)
        return makeError(ErrorCode::InvalidArgument, "`language` " + quoted(language) + " is not en or zh_CN");
    request.language = *lang;
    return request;
}

std::string formatTime(std::int64_t ms)
{
    const std::time_t seconds = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
    std::tm tm {};
    gmtime_r(&seconds, &tm);
    char text[96];
    std::snprintf(text, sizeof text, "%04d-%02d-%02d %02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
        tm.tm_hour, tm.tm_min);
    return text;
}

} // namespace tidepool::report
