// The parsing and checking of a command's options. Every message names the command and the option, so that an
// operator sees at once what to fix; nothing is sent until the whole command line is checked.
#include "app/tidepoolctl/ctl.h"

#include <algorithm>
#include <charconv>

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

} // namespace tidepool::ctl
