// Text for people: aligned tables and fields, and the daemon's numbers in the units an operator reads (cores,
// binary units, percentages, ages, UTC times). The JSON readers never throw, so that one odd field shows as "-"
// instead of losing the whole answer.
#include "app/tidepoolctl/ctl.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace tidepool::ctl {

void Table::print() const
{
    // Cells are made terminal-safe first and padded by the columns a terminal gives them, not by their bytes.
    std::vector<std::vector<std::string>> rows;
    rows.reserve(m_rows.size());
    std::vector<std::size_t> widths(m_rows.front().size(), 0);
    for (const auto& row : m_rows) {
        auto& safe = rows.emplace_back();
        for (std::size_t c = 0; c < row.size(); ++c) {
            safe.push_back(terminalSafe(row[c]));
            if (c < widths.size())
                widths[c] = std::max(widths[c], displayWidth(safe.back()));
        }
    }
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t c = 0; c < row.size(); ++c) {
            line += row[c];
            if (c + 1 < row.size())
                line.append(widths[c] - displayWidth(row[c]) + 2, ' ');
        }
        std::puts(line.c_str());
    }
}

void printFields(const std::vector<std::pair<std::string, std::string>>& fields)
{
    std::size_t width = 0;
    for (const auto& [key, value] : fields)
        width = std::max(width, displayWidth(key));
    for (const auto& [key, value] : fields) {
        const std::string safeKey = terminalSafe(key);
        std::printf("%s:%*s%s\n", safeKey.c_str(), static_cast<int>(width - displayWidth(key) + 2), "",
            terminalSafe(value).c_str());
    }
}

std::string text(const json& j, std::string_view key, const std::string& fallback)
{
    const auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return fallback;
    if (it->is_string()) {
        const auto& s = it->get_ref<const std::string&>();
        return s.empty() ? fallback : s;
    }
    return it->dump();
}

std::int64_t integer(const json& j, std::string_view key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<std::int64_t>() : 0;
}

double real(const json& j, std::string_view key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

bool present(const json& j, std::string_view key)
{
    const auto it = j.find(key);
    return it != j.end() && !it->is_null();
}

std::string decimal(double value, int digits)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    std::string s = buffer;
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0')
            s.pop_back();
        if (s.back() == '.')
            s.pop_back();
    }
    return s;
}

std::string cores(std::int64_t millis)
{
    return decimal(static_cast<double>(millis) / 1000.0, 3);
}

std::string mebibytes(std::int64_t mib)
{
    if (mib >= 1024 * 1024)
        return decimal(static_cast<double>(mib) / (1024.0 * 1024.0), 1) + "Ti";
    if (mib >= 1024)
        return decimal(static_cast<double>(mib) / 1024.0, 1) + "Gi";
    return std::to_string(mib) + "Mi";
}

std::string percent(double fraction)
{
    return std::to_string(static_cast<int>(std::lround(fraction * 100.0))) + "%";
}

std::int64_t nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string span(std::int64_t ms)
{
    const std::int64_t s = std::max<std::int64_t>(0, ms / 1000);
    if (s < 120)
        return std::to_string(s) + "s";
    if (s < 120 * 60)
        return std::to_string(s / 60) + "m";
    if (s < 48 * 3600)
        return std::to_string(s / 3600) + "h";
    return std::to_string(s / 86400) + "d";
}

std::string percentEncoded(std::string_view text)
{
    static const char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (const unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

std::string age(std::int64_t sinceMs)
{
    if (sinceMs <= 0)
        return "-";
    return span(nowMs() - sinceMs);
}

std::string relative(std::int64_t atMs)
{
    if (atMs <= 0)
        return "-";
    const std::int64_t now = nowMs();
    return atMs > now ? "in " + span(atMs - now) : span(now - atMs) + " ago";
}

std::string utcTime(std::int64_t ms)
{
    if (ms <= 0)
        return "-";
    const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
    std::tm utc {};
    char buffer[32];
    if (!gmtime_r(&seconds, &utc) || std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc) == 0)
        return std::to_string(ms);
    return buffer;
}

std::string clip(const std::string& s, std::size_t max)
{
    return clipToWidth(s, max);
}

std::string joined(const json& list, const char* separator)
{
    std::string out;
    if (!list.is_array())
        return out;
    for (const json& item : list) {
        if (!out.empty())
            out += separator;
        out += item.is_string() ? item.get<std::string>() : item.dump();
    }
    return out;
}

} // namespace tidepool::ctl
