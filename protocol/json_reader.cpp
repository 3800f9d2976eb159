#include "protocol/json_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

namespace tidepool::protocol::detail {

namespace {

bool isNameChar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
        || c == '-';
}

bool isControl(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

std::string hexByte(unsigned char c)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    return std::string("0x") + kDigits[c >> 4] + kDigits[c & 0xf];
}

std::string jsonTypeName(const nlohmann::json& value)
{
    if (value.is_number_integer())
        return "an integer";
    if (value.is_number()) {
        // A whole number JSON parsers keep as a double: written with an exponent (5e2) or beyond 64 bits
        // (18446744073709551616). "Fractional" would mislead.
        const double d = value.get<double>();
        if (std::isfinite(d) && std::trunc(d) == d) {
            char shown[32];
            std::snprintf(shown, sizeof shown, "%.17g", d);
            return std::fabs(d) >= 9.2e18 ? "a number beyond the integers it may hold (" + std::string(shown) + ")"
                                          : "a number written with an exponent or a fraction (" + std::string(shown)
                    + "): write whole numbers as plain digits";
        }
        return "a fractional number";
    }
    switch (value.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    default: return "a value of another type";
    }
}

} // namespace

JsonReader::JsonReader(const nlohmann::json& object, std::string path, std::optional<Error>& error)
    : m_object(object)
    , m_path(std::move(path))
    , m_error(error)
{
}

std::string JsonReader::pathOf(std::string_view key) const
{
    return m_path.empty() ? std::string(key) : m_path + "." + std::string(key);
}

void JsonReader::fail(ErrorCode code, std::string field, std::string message)
{
    if (!m_error)
        m_error = Error { code, std::move(field), std::move(message) };
}

const nlohmann::json* JsonReader::field(std::string_view key)
{
    m_known.emplace_back(key);
    if (!ok())
        return nullptr;
    const auto it = m_object.find(key);
    if (it == m_object.end()) {
        fail(ErrorCode::MissingField, pathOf(key), "field `" + pathOf(key) + "` is missing");
        return nullptr;
    }
    return &*it;
}

std::string JsonReader::string(std::string_view key, Alphabet alphabet, std::size_t maxBytes)
{
    const nlohmann::json* value = field(key);
    if (!value)
        return {};
    const std::string path = pathOf(key);
    if (!value->is_string()) {
        fail(ErrorCode::WrongType, path,
            "field `" + path + "` must be a string, not " + std::string(jsonTypeName(*value)));
        return {};
    }
    const auto& text = value->get_ref<const std::string&>();
    // The length is checked first, and the value is never echoed: a hostile name must not flood the log.
    if (text.empty() || text.size() > maxBytes) {
        fail(ErrorCode::OutOfRange, path,
            "field `" + path + "` is " + std::to_string(text.size()) + " bytes long; it must be 1 to "
                + std::to_string(maxBytes));
        return {};
    }
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (isControl(c) && !(alphabet == Alphabet::Lines && (c == '\n' || c == '\t'))) {
            fail(ErrorCode::BadName, path,
                "field `" + path + "` contains the control character " + hexByte(c) + " at byte " + std::to_string(i));
            return {};
        }
        if (alphabet == Alphabet::Name && !isNameChar(c)) {
            fail(ErrorCode::BadName, path,
                "field `" + path + "` contains the byte " + hexByte(c) + " at byte " + std::to_string(i)
                    + "; names use letters, digits, '.', '_' and '-'");
            return {};
        }
    }
    return text;
}

const nlohmann::json* JsonReader::integerField(std::string_view key, const std::string& path)
{
    const nlohmann::json* value = field(key);
    if (value && !value->is_number_integer()) {
        fail(ErrorCode::WrongType, path,
            "field `" + path + "` must be an integer, not " + std::string(jsonTypeName(*value)));
        return nullptr;
    }
    return value;
}

std::int64_t JsonReader::optionalAtLeast(std::string_view key, std::int64_t min, std::int64_t max,
    std::string_view floorKey, std::int64_t floor, std::string_view why)
{
    if (!has(key))
        return 0;
    const std::int64_t value = integer(key, min, max);
    if (ok() && value < floor)
        fail(ErrorCode::OutOfRange, pathOf(key),
            "field `" + pathOf(key) + "` (" + std::to_string(value) + ") must be at least `" + pathOf(floorKey) + "` ("
                + std::to_string(floor) + ")" + (why.empty() ? std::string() : ": " + std::string(why)));
    return value;
}

std::int64_t JsonReader::integer(std::string_view key, std::int64_t min, std::int64_t max)
{
    const std::string path = pathOf(key);
    const nlohmann::json* value = integerField(key, path);
    if (!value)
        return 0;
    const std::string range = "; it must be " + std::to_string(min) + " to " + std::to_string(max);
    if (value->is_number_unsigned()) {
        const auto v = value->get<std::uint64_t>();
        if (max < 0 || v > static_cast<std::uint64_t>(max)) {
            fail(ErrorCode::OutOfRange, path, "field `" + path + "` is " + std::to_string(v) + range);
            return 0;
        }
        const auto s = static_cast<std::int64_t>(v);
        if (s < min) {
            fail(ErrorCode::OutOfRange, path, "field `" + path + "` is " + std::to_string(v) + range);
            return 0;
        }
        return s;
    }
    const auto v = value->get<std::int64_t>();
    if (v < min || v > max) {
        fail(ErrorCode::OutOfRange, path, "field `" + path + "` is " + std::to_string(v) + range);
        return 0;
    }
    return v;
}

std::uint64_t JsonReader::unsignedInteger(std::string_view key)
{
    const std::string path = pathOf(key);
    const nlohmann::json* value = integerField(key, path);
    if (!value)
        return 0;
    if (!value->is_number_unsigned()) {
        fail(ErrorCode::OutOfRange, path,
            "field `" + path + "` is " + std::to_string(value->get<std::int64_t>()) + "; it must not be negative");
        return 0;
    }
    return value->get<std::uint64_t>();
}

bool JsonReader::boolean(std::string_view key)
{
    const nlohmann::json* value = field(key);
    if (!value)
        return false;
    if (!value->is_boolean()) {
        const std::string path = pathOf(key);
        fail(ErrorCode::WrongType, path,
            "field `" + path + "` must be true or false, not " + std::string(jsonTypeName(*value)));
        return false;
    }
    return value->get<bool>();
}

bool JsonReader::has(std::string_view key)
{
    m_known.emplace_back(key);
    const auto it = m_object.find(key);
    return it != m_object.end() && !it->is_null();
}

std::vector<std::string> JsonReader::strings(
    std::string_view key, Alphabet alphabet, std::size_t maxItems, std::size_t maxBytes)
{
    std::vector<std::string> out;
    const nlohmann::json* items = array(key, maxItems);
    if (!items)
        return out;
    // Each item is read through a one-field object so that its checks and messages are `string`'s own.
    const std::string base = pathOf(key);
    for (std::size_t i = 0; i < items->size() && ok(); ++i) {
        const nlohmann::json wrapper = nlohmann::json::object({ { "item", (*items)[i] } });
        std::optional<Error> itemError;
        JsonReader itemReader(wrapper, "", itemError);
        std::string text = itemReader.string("item", alphabet, maxBytes);
        if (itemError) {
            const std::string path = base + "[" + std::to_string(i) + "]";
            std::string message = itemError->message;
            if (const auto at = message.find("`item`"); at != std::string::npos)
                message.replace(at, 6, "`" + path + "`");
            fail(itemError->code, path, std::move(message));
            break;
        }
        out.push_back(std::move(text));
    }
    return out;
}

double JsonReader::number(std::string_view key, double min, double max)
{
    const nlohmann::json* value = field(key);
    if (!value)
        return 0.0;
    const std::string path = pathOf(key);
    if (!value->is_number()) {
        fail(ErrorCode::WrongType, path,
            "field `" + path + "` must be a number, not " + std::string(jsonTypeName(*value)));
        return 0.0;
    }
    const auto v = value->get<double>();
    if (!std::isfinite(v) || v < min || v > max) {
        fail(ErrorCode::OutOfRange, path,
            "field `" + path + "` is " + std::to_string(v) + "; it must be " + std::to_string(min) + " to "
                + std::to_string(max));
        return 0.0;
    }
    return v;
}

void JsonReader::hexBytes(std::string_view key, std::uint8_t* out, std::size_t size)
{
    const nlohmann::json* value = field(key);
    if (!value)
        return;
    const std::string path = pathOf(key);
    if (!value->is_string()) {
        fail(ErrorCode::WrongType, path,
            "field `" + path + "` must be a string, not " + std::string(jsonTypeName(*value)));
        return;
    }
    const auto& text = value->get_ref<const std::string&>();
    if (text.size() != 2 * size) {
        fail(ErrorCode::OutOfRange, path,
            "field `" + path + "` is " + std::to_string(text.size()) + " characters long; it must be "
                + std::to_string(2 * size) + " hex digits");
        return;
    }
    for (std::size_t i = 0; i < size; ++i) {
        const int hi = hexValue(text[2 * i]);
        const int lo = hexValue(text[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            fail(ErrorCode::WrongType, path,
                "field `" + path + "` holds a character that is not a hex digit near position "
                    + std::to_string(2 * i));
            return;
        }
        out[i] = static_cast<std::uint8_t>((hi << 4) | lo);
    }
}

const nlohmann::json* JsonReader::optionalObject(std::string_view key)
{
    m_known.emplace_back(key);
    if (!ok())
        return nullptr;
    const auto it = m_object.find(key);
    if (it == m_object.end())
        return nullptr;
    if (!it->is_object()) {
        const std::string path = pathOf(key);
        fail(ErrorCode::WrongType, path,
            "field `" + path + "` must be an object, not " + std::string(jsonTypeName(*it)));
        return nullptr;
    }
    return &*it;
}

const nlohmann::json* JsonReader::array(std::string_view key, std::size_t maxItems)
{
    const nlohmann::json* value = field(key);
    if (!value)
        return nullptr;
    const std::string path = pathOf(key);
    if (!value->is_array()) {
        fail(ErrorCode::WrongType, path,
            "field `" + path + "` must be an array, not " + std::string(jsonTypeName(*value)));
        return nullptr;
    }
    if (value->size() > maxItems) {
        fail(ErrorCode::OutOfRange, path,
            "field `" + path + "` has " + std::to_string(value->size()) + " items; at most " + std::to_string(maxItems)
                + " are allowed");
        return nullptr;
    }
    return value;
}

void JsonReader::rejectUnknownFields()
{
    if (!ok())
        return;
    for (const auto& [key, value] : m_object.items()) {
        if (std::find(m_known.begin(), m_known.end(), key) == m_known.end()) {
            // Unknown keys are peer-chosen text: report their length rather than echo them when they are long.
            const bool printable = key.size() <= 64 && std::all_of(key.begin(), key.end(), [](char c) {
                return isNameChar(static_cast<unsigned char>(c));
            });
            const std::string path = printable ? pathOf(key) : pathOf("<" + std::to_string(key.size()) + "-byte key>");
            fail(ErrorCode::UnknownField, path, "field `" + path + "` is not part of protocol version 1");
            return;
        }
    }
}

bool nestingWithin(std::string_view text, int maxDepth)
{
    int depth = 0;
    bool inString = false;
    bool escaped = false;
    for (const char c : text) {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"')
            inString = true;
        else if (c == '{' || c == '[') {
            if (++depth > maxDepth)
                return false;
        } else if (c == '}' || c == ']')
            --depth;
    }
    return true;
}

namespace {

using ParseEvent = nlohmann::json::parse_event_t;

// The path of the first key repeated in `text` (valid JSON with one), each key that is not a short name written as
// its length.
std::string firstRepeatedKey(std::string_view text)
{
    struct Open {
        bool object = false;
        std::set<std::string> keys;
        std::string key; // of an object: the member being read
        std::size_t index = 0; // of an array: the item being read
    };
    std::vector<Open> open;
    std::string found;
    const auto path = [&open] {
        std::string out;
        for (const Open& o : open) {
            if (!o.object) {
                out += "[" + std::to_string(o.index) + "]";
                continue;
            }
            const bool printable = o.key.size() <= 64 && std::all_of(o.key.begin(), o.key.end(), [](char c) {
                return isNameChar(static_cast<unsigned char>(c));
            });
            out += (out.empty() ? "" : ".") + (printable ? o.key : "<" + std::to_string(o.key.size()) + "-byte key>");
        }
        return out;
    };
    const auto itemDone = [&open] {
        if (!open.empty() && !open.back().object)
            ++open.back().index;
    };
    [[maybe_unused]] const nlohmann::json whole = nlohmann::json::parse(
        text,
        [&](int, ParseEvent event, nlohmann::json& parsed) {
            if (!found.empty())
                return true;
            switch (event) {
            case ParseEvent::object_start: open.push_back(Open { true, {}, {}, 0 }); break;
            case ParseEvent::array_start: open.push_back(Open {}); break;
            case ParseEvent::key:
                open.back().key = parsed.get<std::string>();
                if (!open.back().keys.insert(open.back().key).second)
                    found = path();
                break;
            case ParseEvent::value: itemDone(); break;
            case ParseEvent::object_end:
            case ParseEvent::array_end:
                open.pop_back();
                itemDone();
                break;
            }
            return true;
        },
        false);
    return found;
}

} // namespace

Expected<nlohmann::json> parseUniqueKeys(std::string_view text)
{
    // Keys read in each open object; an object built with fewer members than that had a key twice.
    std::vector<std::size_t> keys;
    bool repeated = false;
    nlohmann::json value;
    try {
        value = nlohmann::json::parse(text, [&](int, ParseEvent event, nlohmann::json& parsed) {
            if (event == ParseEvent::object_start)
                keys.push_back(0);
            else if (event == ParseEvent::key)
                ++keys.back();
            else if (event == ParseEvent::object_end) {
                repeated = repeated || keys.back() != parsed.size();
                keys.pop_back();
            }
            return true;
        });
    } catch (const nlohmann::json::parse_error& e) {
        // The position only: the parser's own message would echo the text.
        return makeError(ErrorCode::MalformedJson, "", "not valid JSON (error at byte " + std::to_string(e.byte) + ")");
    } catch (const nlohmann::json::exception& e) { // a number beyond a double (out_of_range)
        return makeError(ErrorCode::MalformedJson, "", std::string("not valid JSON: ") + e.what());
    }
    if (repeated) {
        std::string key = firstRepeatedKey(text);
        return makeError(ErrorCode::MalformedJson, key, "field `" + key + "` appears twice");
    }
    return value;
}

} // namespace tidepool::protocol::detail
