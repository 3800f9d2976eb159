#include "agents/inventory/accelerator_file.h"

#include "agents/inventory/inventory.h"
#include "protocol/json_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>

namespace tidepool::agent {

namespace {

using protocol::detail::Alphabet;
using protocol::detail::JsonReader;

constexpr int kMaxNesting = 8; // an entry is one flat object inside the array
constexpr std::array<std::string_view, 6> kEntryFields
    = { "kind", "vendor", "model", "memoryMiB", "shareCapacity", "count" };
constexpr std::size_t kMaxKindBytes = 16;

InventoryErrorCode codeOf(protocol::ErrorCode code)
{
    switch (code) {
    case protocol::ErrorCode::MissingField: return InventoryErrorCode::MissingField;
    case protocol::ErrorCode::WrongType: return InventoryErrorCode::WrongType;
    case protocol::ErrorCode::OutOfRange:
    case protocol::ErrorCode::BadName: return InventoryErrorCode::OutOfRange;
    case protocol::ErrorCode::UnknownField: return InventoryErrorCode::UnknownField;
    default: return InventoryErrorCode::Malformed;
    }
}

std::string typeOf(const nlohmann::json& value)
{
    return std::string("a JSON ") + value.type_name();
}

} // namespace

InventoryExpected<std::vector<AcceleratorDevice>> parseAcceleratorList(
    std::string_view json, std::string_view sourceLabel, DeviceSource source)
{
    const std::string label(sourceLabel);
    if (json.size() > kMaxAcceleratorListBytes)
        return makeInventoryError(InventoryErrorCode::OutOfRange, label, {},
            "the accelerator list is " + std::to_string(json.size()) + " bytes long; at most "
                + std::to_string(kMaxAcceleratorListBytes) + " are allowed");
    if (!protocol::detail::nestingWithin(json, kMaxNesting))
        return makeInventoryError(InventoryErrorCode::Malformed, label, {},
            "the accelerator list nests deeper than " + std::to_string(kMaxNesting) + " levels");
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(json);
    } catch (const nlohmann::json::parse_error& error) {
        // nlohmann's text names the line and column ("parse error at line 3, column 5: …").
        return makeInventoryError(
            InventoryErrorCode::Malformed, label, {}, std::string("not valid JSON: ") + error.what());
    }
    if (!document.is_array())
        return makeInventoryError(InventoryErrorCode::WrongType, label, {},
            "the accelerator list must be a JSON array of entries, not " + typeOf(document));

    std::vector<AcceleratorDevice> devices;
    for (std::size_t i = 0; i < document.size(); ++i) {
        const nlohmann::json& entry = document[i];
        const std::string path = "[" + std::to_string(i) + "]";
        if (!entry.is_object())
            return makeInventoryError(InventoryErrorCode::WrongType, label, path,
                "entry `" + path + "` must be an object, not " + typeOf(entry));

        std::optional<protocol::Error> error;
        JsonReader reader(entry, path, error);
        const std::string kindText = reader.string("kind", Alphabet::Name, kMaxKindBytes);
        std::string vendor = reader.string("vendor", Alphabet::Text, kMaxAcceleratorTextBytes);
        std::string model = reader.string("model", Alphabet::Text, kMaxAcceleratorTextBytes);
        const std::int64_t memoryMiB = reader.integer("memoryMiB", 0, protocol::kMaxMemoryMiB);
        const std::int64_t shareCapacity = reader.integer("shareCapacity", 1, kMaxShareCapacity);
        const std::int64_t count = reader.has("count") ? reader.integer("count", 1, protocol::kMaxAccelerators) : 1;
        if (error)
            return makeInventoryError(codeOf(error->code), label, error->field, error->message);

        const AcceleratorKind kind = kindFromName(kindText);
        if (kind == AcceleratorKind::Invalid)
            return makeInventoryError(InventoryErrorCode::OutOfRange, label, path + ".kind",
                "field `" + path + ".kind` is \"" + kindText + "\"; it must be \"gpu\", \"npu\" or \"fpga\"");
        for (const auto& [key, value] : entry.items()) {
            if (std::find(kEntryFields.begin(), kEntryFields.end(), key) == kEntryFields.end()) {
                // The key is the operator's text: quote it only when it is short and printable.
                const bool printable = key.size() <= 64
                    && std::all_of(key.begin(), key.end(), [](char c) { return c > 0x20 && c < 0x7f; });
                const std::string field
                    = path + "." + (printable ? key : "<" + std::to_string(key.size()) + "-byte key>");
                return makeInventoryError(InventoryErrorCode::UnknownField, label, field,
                    "field `" + field
                        + "` is not part of the accelerator inventory format (kind, vendor, model, "
                          "memoryMiB, shareCapacity, count)");
            }
        }
        if (devices.size() + static_cast<std::size_t>(count) > static_cast<std::size_t>(protocol::kMaxAccelerators))
            return makeInventoryError(InventoryErrorCode::OutOfRange, label, path + ".count",
                "field `" + path + ".count` brings the list above " + std::to_string(protocol::kMaxAccelerators)
                    + " devices");

        for (std::int64_t n = 0; n < count; ++n) {
            AcceleratorDevice device;
            device.index = static_cast<std::int32_t>(devices.size());
            device.kind = kind;
            device.vendor = vendor;
            device.model = model;
            device.memoryMiB = memoryMiB;
            device.shareCapacity = shareCapacity;
            device.source = source;
            devices.push_back(std::move(device));
        }
    }
    return devices;
}

InventoryExpected<std::vector<AcceleratorDevice>> loadAcceleratorFile(const std::filesystem::path& path)
{
    auto text = readTextFile(path, kMaxAcceleratorListBytes);
    if (!text)
        return tl::unexpected(text.error());
    return parseAcceleratorList(*text, path.string(), DeviceSource::InventoryFile);
}

} // namespace tidepool::agent
