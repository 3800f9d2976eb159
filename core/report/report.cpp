#include "core/report/report.h"

#include "core/model/civil_time.h"

#include <charconv>
#include <cstdio>
#include <ctime>

namespace tidepool::report {

namespace {

constexpr std::int64_t kDayMs = 86'400'000;
constexpr std::int64_t kMaxPeriodMs = 92 * kDayMs;

std::string quoted(std::string_view text)
{
    return "\"" + clipText(text, 64) + "\"";
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
    if (text.empty())
        return makeError(ErrorCode::InvalidArgument, "`" + std::string(field) + "` is required");
    if (text.find('-', 1) == std::string_view::npos) { // epoch milliseconds
        std::int64_t ms = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
        if (ec == std::errc() && end == text.data() + text.size())
            return ms;
    } else if (const auto ms = parseIsoTimeMs(text)) {
        return *ms;
    }
    return makeError(ErrorCode::InvalidArgument,
        "`" + std::string(field) + "` " + quoted(text)
            + " is not a time: give Unix epoch milliseconds, a date (2026-12-06, UTC) or an ISO 8601 / RFC 3339 time "
              "(2026-12-06T10:00:00Z, 2026-12-06T11:00:00+01:00; UTC without an offset)");
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
