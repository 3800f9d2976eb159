#pragma once
// What the tidepool-sim sub-commands share in reading their arguments: the exit codes and a whole-text number parse.

#include <charconv>
#include <string>
#include <system_error>

namespace tidepool::simapp {

inline constexpr int kExitFailed = 1;
inline constexpr int kExitBadArguments = 2;

// `text` is a number of type T and nothing else.
template <typename T> bool parseNumber(const std::string& text, T& out)
{
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return !text.empty() && ec == std::errc() && ptr == text.data() + text.size();
}

} // namespace tidepool::simapp
