#include "core/model/civil_time.h"

namespace tidepool {

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// Reads exactly `digits` decimal digits at `at`.
bool readDigits(std::string_view text, std::size_t at, std::size_t digits, int& value)
{
    if (text.size() < at + digits)
        return false;
    value = 0;
    for (std::size_t i = at; i < at + digits; ++i) {
        if (!isDigit(text[i]))
            return false;
        value = value * 10 + (text[i] - '0');
    }
    return true;
}

} // namespace

std::int64_t daysFromCivil(std::int64_t year, unsigned month, unsigned day)
{
    year -= month <= 2 ? 1 : 0;
    const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
    const auto yearOfEra = static_cast<unsigned>(year - era * 400);
    const unsigned dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    const unsigned dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    return era * 146'097 + static_cast<std::int64_t>(dayOfEra) - 719'468;
}

std::optional<std::int64_t> parseIsoTimeMs(std::string_view text)
{
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, millis = 0, offsetMinutes = 0;
    if (!readDigits(text, 0, 4, year) || text.size() < 10 || text[4] != '-' || !readDigits(text, 5, 2, month)
        || text[7] != '-' || !readDigits(text, 8, 2, day))
        return std::nullopt;
    std::size_t at = 10;
    if (at < text.size()) {
        if ((text[at] != 'T' && text[at] != 't' && text[at] != ' ') || !readDigits(text, at + 1, 2, hour)
            || text.size() < at + 6 || text[at + 3] != ':' || !readDigits(text, at + 4, 2, minute))
            return std::nullopt;
        at += 6;
        if (at < text.size() && text[at] == ':') {
            if (!readDigits(text, at + 1, 2, second))
                return std::nullopt;
            at += 3;
            if (at < text.size() && (text[at] == '.' || text[at] == ',')) {
                std::size_t digits = 0;
                for (++at; at < text.size() && isDigit(text[at]); ++at, ++digits)
                    if (digits < 3)
                        millis = millis * 10 + (text[at] - '0');
                if (digits == 0)
                    return std::nullopt;
                for (; digits < 3; ++digits)
                    millis *= 10;
            }
        }
        if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
            ++at;
        } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
            int offsetHours = 0, offsetMins = 0;
            if (!readDigits(text, at + 1, 2, offsetHours) || text.size() < at + 6 || text[at + 3] != ':'
                || !readDigits(text, at + 4, 2, offsetMins) || offsetHours > 23 || offsetMins > 59)
                return std::nullopt;
            offsetMinutes = (text[at] == '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
            at += 6;
        }
        if (at != text.size())
            return std::nullopt;
    }
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    static constexpr int kDays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (month < 1 || month > 12 || day < 1 || day > kDays[month - 1] + (month == 2 && leap ? 1 : 0) || hour > 23
        || minute > 59 || second > 59)
        return std::nullopt;
    const std::int64_t days = daysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
    return (((days * 24 + hour) * 60 + minute - offsetMinutes) * 60 + second) * 1000 + millis;
}

} // namespace tidepool
