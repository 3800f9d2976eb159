#pragma once
// Strict reading of one JSON object's fields, for the message decoders and the core's HTTP API. The first problem is kept (a sticky
// error) and later reads return defaults, so a decoder reads all its fields in a row and checks once at the end.
// Every error names the field by its path from the message root.
//
// Thread affinity: none; a reader lives for one decode call.

#include "protocol/error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::protocol::detail {

// What characters a string field may hold.
enum class Alphabet : std::uint8_t {
    Invalid = 0,
    Name, // letters, digits, '.', '_' and '-'
    Text, // any UTF-8 except control characters
    Lines, // Text with newlines and tabs: a workload's output (`LogReply::data`)
};

class JsonReader {
public:
    // `path` is the object's own path ("" for the message root, "samples[0]" for a nested object).
    JsonReader(const nlohmann::json& object, std::string path, std::optional<Error>& error);

    // A reader of a nested object that shares this reader's error.
    JsonReader child(const nlohmann::json& object, std::string path) const
    {
        return JsonReader(object, std::move(path), m_error);
    }

    std::string string(std::string_view key, Alphabet alphabet, std::size_t maxBytes);
    std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max);
    // An optional integer of [min, max] that may not be below `floor`, the value of the field `floorKey` (a
    // workload's own limit and what it asked for): 0 when absent. `why` ends the message of one below it.
    std::int64_t optionalAtLeast(std::string_view key, std::int64_t min, std::int64_t max, std::string_view floorKey,
        std::int64_t floor, std::string_view why = {});
    std::uint64_t unsignedInteger(std::string_view key);
    bool boolean(std::string_view key);
    double number(std::string_view key, double min, double max);
    // The bytes of a field of exactly 2 * `out.size()` hex digits.
    void hexBytes(std::string_view key, std::uint8_t* out, std::size_t size);
    // A nested object, or nullptr when the field is absent (optional fields) or on error.
    const nlohmann::json* optionalObject(std::string_view key);
    // A present array of at most `maxItems` items, or nullptr on error.
    const nlohmann::json* array(std::string_view key, std::size_t maxItems);
    // Whether an optional field is present (and not null); marks it as known either way.
    bool has(std::string_view key);
    // A present array of at most `maxItems` strings, each checked like `string`.
    std::vector<std::string> strings(std::string_view key, Alphabet alphabet, std::size_t maxItems, std::size_t maxBytes);
    // Calls `read(itemReader)` for each item of a present array of at most `maxItems` objects; the item readers
    // share this reader's error and reject unknown fields after `read` returns.
    template <typename Read> void objects(std::string_view key, std::size_t maxItems, Read&& read)
    {
        const nlohmann::json* items = array(key, maxItems);
        if (!items)
            return;
        for (std::size_t i = 0; i < items->size() && ok(); ++i) {
            const std::string path = pathOf(key) + "[" + std::to_string(i) + "]";
            if (!(*items)[i].is_object()) {
                fail(ErrorCode::WrongType, path, "field `" + path + "` must be an object");
                return;
            }
            JsonReader item = child((*items)[i], path);
            read(item);
            item.rejectUnknownFields();
        }
    }
    // Marks a field as known without reading it (`type` and `version`, read before dispatch).
    void skip(std::string_view key) { m_known.emplace_back(key); }
    // Rejects every field that no read asked for.
    void rejectUnknownFields();

    std::string pathOf(std::string_view key) const;
    bool ok() const { return !m_error.has_value(); }
    void fail(ErrorCode code, std::string field, std::string message);

private:
    const nlohmann::json* field(std::string_view key); // nullptr when missing (and records the error)
    // The field if it is an integer; nullptr when missing or of another type (and records the error).
    const nlohmann::json* integerField(std::string_view key, const std::string& path);

    const nlohmann::json& m_object;
    std::string m_path;
    std::optional<Error>& m_error;
    std::vector<std::string> m_known;
};

// Rejects JSON text nested deeper than `maxDepth` before it is parsed (a cheap scan that skips strings).
bool nestingWithin(std::string_view text, int maxDepth);

// Parses JSON text, refusing what nlohmann takes silently, the last one winning: a key given twice in one object. The
// error (`MalformedJson`) says "not valid JSON (error at byte N)", or names the repeated key by its path in `field`
// and the message ("field `workloads[2].name` appears twice"); a key that is not a short name is named by its length.
// Cheap where no key repeats: a count of keys per open object, compared with the object built; only text with a
// repeated key is read again to find it.
Expected<nlohmann::json> parseUniqueKeys(std::string_view text);

} // namespace tidepool::protocol::detail
