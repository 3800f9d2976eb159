// The parsing and checking of a command's options. Every message names the command and the option, so that an
// operator sees at once what to fix; nothing is sent until the whole command line is checked.
#include "app/tidepoolctl/ctl.h"
#include "core/model/civil_time.h"

#include "protocol/messages.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>

namespace tidepool::ctl {

tl::unexpected<Failure> usageError(std::string message)
{
    return tl::unexpected(Failure { 2, std::move(message) });
}

std::optional<std::string> ParsedOptions::last(std::string_view name) const
{
    const auto it = values.find(name);
    return it == values.end() ? std::nullopt : std::optional<std::string>(it->second.back());
}

std::vector<std::string> ParsedOptions::all(std::string_view name) const
{
    const auto it = values.find(name);
    return it == values.end() ? std::vector<std::string> {} : it->second;
}

Result<ParsedOptions> parseOptions(const std::string& command, const std::vector<std::string>& words,
    std::initializer_list<OptionSpec> specs, bool allowCommand)
{
    ParsedOptions parsed;
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& word = words[i];
        if (word == "--") {
            if (!allowCommand)
                return usageError(command + ": nothing may follow `--`");
            parsed.hasCommand = true;
            parsed.command.assign(words.begin() + static_cast<std::ptrdiff_t>(i) + 1, words.end());
            break;
        }
        if (word.size() < 2 || word[0] != '-') {
            parsed.positionals.push_back(word);
            continue;
        }
        const auto eq = word.find('=');
        const std::string name = word.substr(0, eq);
        const auto spec = std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& s) { return s.name == name; });
        if (spec == specs.end())
            return usageError(command + ": unknown option " + name + " (see tidepoolctl --help)");
        if (!spec->takesValue) {
            if (eq != std::string::npos)
                return usageError(command + ": " + name + " takes no value");
            parsed.values[name].emplace_back();
            continue;
        }
        if (eq != std::string::npos)
            parsed.values[name].push_back(word.substr(eq + 1));
        else if (i + 1 < words.size())
            parsed.values[name].push_back(words[++i]);
        else
            return usageError(command + ": " + name + " needs a value");
    }
    return parsed;
}

Result<std::int64_t> integerValue(
    const std::string& command, std::string_view option, const std::string& text, std::int64_t min, std::int64_t max)
{
    std::int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value < min || value > max)
        return usageError(command + ": " + std::string(option) + ": \"" + text + "\" must be a whole number from "
            + std::to_string(min) + " to " + std::to_string(max));
    return value;
}

Result<std::optional<std::int64_t>> quotaValue(
    const std::string& command, const std::string& label, QuotaKind kind, const std::string& text, bool unlimited)
{
    // The ranges of the daemon's PUT /v1/pools (core/api/http_api.cpp, parsePoolRequest): a CPU, memory or bandwidth
    // quota of nothing is refused there, while 0 share units keep a pool off an accelerator kind.
    constexpr std::int64_t kMaxBandwidth = std::int64_t { 1 } << 40;
    constexpr std::int64_t kMaxShare = 64'000'000; // a share of a device is at most 1,000,000, and at most 64 devices
    struct Rule {
        QuotaKind kind;
        const char* unit;
        std::int64_t min, max;
    };
    static constexpr Rule kRules[] = { { QuotaKind::Cpu, "millicores", 1, protocol::kMaxCpuMillis },
        { QuotaKind::Memory, "MiB", 1, protocol::kMaxMemoryMiB }, { QuotaKind::MemBandwidth, "MB/s", 1, kMaxBandwidth },
        { QuotaKind::NetBandwidth, "Mbit/s", 1, kMaxBandwidth }, { QuotaKind::Gpu, "share units", 0, kMaxShare },
        { QuotaKind::Npu, "share units", 0, kMaxShare }, { QuotaKind::Fpga, "share units", 0, kMaxShare } };
    const Rule* rule
        = std::find_if(std::begin(kRules), std::end(kRules), [&](const Rule& r) { return r.kind == kind; });
    if (rule == std::end(kRules))
        return usageError(command + ": " + label + ": not a quota");
    if (unlimited && text == "unlimited")
        return std::optional<std::int64_t>();
    std::int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value < rule->min || value > rule->max)
        return usageError(command + ": " + label + ": \"" + text + "\" must be a whole number of " + rule->unit
            + " from " + std::to_string(rule->min) + " to " + std::to_string(rule->max)
            + (unlimited ? ", or unlimited" : ""));
    return std::optional<std::int64_t>(value);
}

Result<void> addIntegerParameter(std::string& query, const std::string& command, const ParsedOptions& parsed,
    std::string_view option, std::int64_t min, std::int64_t max)
{
    const auto text = parsed.last(option);
    if (!text)
        return {};
    auto value = integerValue(command, option, *text, min, max);
    if (!value)
        return tl::unexpected(value.error());
    query += "&" + std::string(option.substr(2)) + "=" + std::to_string(*value);
    return {};
}

namespace {

// "-90s", "-30m", "-1h", "-7d", "-2w": that long before `now`.
std::optional<std::int64_t> timeAgo(std::string_view text, std::int64_t now)
{
    if (text.size() < 3 || text[0] != '-')
        return std::nullopt;
    std::int64_t count = 0;
    const auto [end, ec] = std::from_chars(text.data() + 1, text.data() + text.size(), count);
    const std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
    static constexpr std::pair<std::string_view, std::int64_t> kUnits[]
        = { { "s", 1'000 }, { "m", 60'000 }, { "h", 3'600'000 }, { "d", 86'400'000 }, { "w", 604'800'000 } };
    if (ec != std::errc() || end == text.data() + 1 || count < 0 || count > 1'000'000'000)
        return std::nullopt;
    for (const auto& [name, ms] : kUnits)
        if (unit == name)
            return now - count * ms;
    return std::nullopt;
}

} // namespace

Result<std::int64_t> timeValue(
    const std::string& command, std::string_view option, const std::string& text, std::int64_t now)
{
    std::optional<std::int64_t> ms;
    if (text == "now") {
        ms = now;
    } else if (!text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        std::int64_t value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && end == text.data() + text.size())
            ms = value;
    } else if (text.starts_with('-')) {
        ms = timeAgo(text, now);
    } else {
        ms = parseIsoTimeMs(text);
    }
    if (!ms)
        return usageError(command + ": " + std::string(option) + ": \"" + text
            + "\" is not a time: give Unix epoch milliseconds, an ISO 8601 / RFC 3339 time (2026-12-06T10:00:00Z, "
              "2026-12-06T11:00:00+01:00), a date (2026-12-06, UTC), a time before now (-90s, -30m, -1h, -7d, -2w) "
              "or now");
    return *ms;
}

bool isName(std::string_view text, std::size_t maxBytes)
{
    return !text.empty() && text.size() <= maxBytes && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
            || c == '-';
    });
}

Result<std::string> nameValue(const std::string& command, std::string_view what, const std::string& text)
{
    if (!isName(text))
        return usageError(
            command + ": " + std::string(what) + " \"" + text + "\" must be 1 to 253 letters, digits, '.', '_' or '-'");
    return text;
}

Result<std::string> idValue(
    const std::string& command, const ParsedOptions& parsed, std::string_view what, std::int64_t max)
{
    if (parsed.positionals.size() != 1)
        return usageError(command + ": give exactly one " + std::string(what));
    auto id = integerValue(command, "ID", parsed.positionals[0], 1, max);
    if (!id)
        return tl::unexpected(id.error());
    return std::to_string(*id);
}

Result<void> noPositionals(const std::string& command, const ParsedOptions& parsed)
{
    if (!parsed.positionals.empty())
        return usageError(command + ": unexpected \"" + parsed.positionals.front() + "\"");
    return {};
}

Result<std::int64_t> durationValue(const std::string& command, std::string_view option, const std::string& text,
    std::int64_t minMs, std::int64_t maxMs)
{
    const auto bad = [&](const std::string& why) {
        return usageError(command + ": " + std::string(option) + ": \"" + text + "\" " + why);
    };
    std::size_t digits = 0;
    while (digits < text.size() && digits < 15 && text[digits] >= '0' && text[digits] <= '9')
        ++digits;
    if (digits == 0 || (digits < text.size() && text[digits] >= '0' && text[digits] <= '9'))
        return bad("must be a whole number of ms, s, m, h or d (90s, 30m, 2h; a bare number is seconds)");
    const std::string_view unit = std::string_view(text).substr(digits);
    std::int64_t scale = 0;
    for (const auto& [name, ms] : { std::pair { "ms", 1LL }, std::pair { "s", 1000LL }, std::pair { "", 1000LL },
             std::pair { "m", 60'000LL }, std::pair { "h", 3'600'000LL }, std::pair { "d", 86'400'000LL } })
        if (unit == name)
            scale = ms;
    if (scale == 0)
        return bad("has an unknown unit (ms, s, m, h or d)");
    const std::int64_t value = std::stoll(text.substr(0, digits));
    // A limit in the largest unit it is a whole number of: "366 days", "1 h", "0 s".
    const auto limit = [](std::int64_t ms) {
        for (const auto& [name, unitMs] : { std::pair { " days", 86'400'000LL }, std::pair { " h", 3'600'000LL },
                 std::pair { " min", 60'000LL }, std::pair { " s", 1000LL } })
            if (ms >= unitMs && ms % unitMs == 0)
                return std::to_string(ms / unitMs) + name;
        return std::to_string(ms) + " ms";
    };
    if (value > maxMs / scale || value * scale < minMs || value * scale > maxMs)
        return bad("must be from " + limit(minMs) + " to " + limit(maxMs));
    return value * scale;
}

Result<std::optional<std::chrono::milliseconds>> followInterval(const std::string& command, const ParsedOptions& parsed)
{
    const bool following = parsed.has("-f") || parsed.has("--follow");
    const auto value = parsed.last("--interval-ms");
    if (!value)
        return following ? std::optional(std::chrono::milliseconds(1000)) : std::nullopt;
    if (!following)
        return usageError(command + ": --interval-ms goes with --follow");
    auto n = integerValue(command, "--interval-ms", *value, 100, 60'000);
    if (!n)
        return tl::unexpected(n.error());
    return std::optional(std::chrono::milliseconds(*n));
}

} // namespace tidepool::ctl
