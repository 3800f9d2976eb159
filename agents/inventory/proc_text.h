#pragma once
// Small helpers for reading the text files of /proc and /sys: lines, words, trimmed values and integers. Internal to
// the agent's inventory and telemetry parsers.
//
// Thread affinity: none; pure functions.

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace tidepool::agent::proctext {

inline std::string_view trim(std::string_view text)
{
    const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!text.empty() && isSpace(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && isSpace(text.back()))
        text.remove_suffix(1);
    return text;
}

inline std::vector<std::string_view> splitWords(std::string_view text)
{
    std::vector<std::string_view> words;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t start = text.find_first_not_of(" \t\r\n", at);
        if (start == std::string_view::npos)
            break;
        const std::size_t end = std::min(text.find_first_of(" \t\r\n", start), text.size());
        words.push_back(text.substr(start, end - start));
        at = end;
    }
    return words;
}

// Calls `visit(lineNumber, line)` for each line, numbered from 1; stops when it returns false.
template <typename Visit> void forEachLine(std::string_view content, Visit&& visit)
{
    std::size_t lineNumber = 0;
    while (!content.empty()) {
        const std::size_t newline = content.find('\n');
        const std::string_view line = content.substr(0, newline);
        if (!visit(++lineNumber, line))
            return;
        if (newline == std::string_view::npos)
            break;
        content.remove_prefix(newline + 1);
    }
}

template <typename Integer> bool parseInteger(std::string_view text, Integer& value, int base = 10)
{
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value, base);
    return ec == std::errc() && ptr == end && !text.empty();
}

// "0x41" → 0x41.
inline bool parseHex(std::string_view text, std::uint32_t& value)
{
    if (text.starts_with("0x") || text.starts_with("0X"))
        text.remove_prefix(2);
    return parseInteger(text, value, 16);
}

inline std::string lineField(std::size_t lineNumber)
{
    return "line " + std::to_string(lineNumber);
}

inline std::string lowerCase(std::string_view text)
{
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    return lower;
}

} // namespace tidepool::agent::proctext
