#include "protocol/messages.h"

#include "protocol/json_reader.h"

#include <nlohmann/json.hpp>

#include <limits>

namespace tidepool::protocol {

using detail::Alphabet;
using detail::JsonReader;
using nlohmann::json;

namespace {

// The deepest message (heartbeat → samples → sample → devices → device) nests five levels.
constexpr int kMaxJsonDepth = 8;

std::string toHex(const std::uint8_t* bytes, std::size_t size)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(2 * size);
    for (std::size_t i = 0; i < size; ++i) {
        hex.push_back(kDigits[bytes[i] >> 4]);
        hex.push_back(kDigits[bytes[i] & 0xf]);
    }
    return hex;
}

json toJson(const Hello& m)
{
    json j { { "nodeName", m.nodeName }, { "agentVersion", m.agentVersion } };
    if (m.inventory)
        j["inventory"] = json { { "isa", m.inventory->isa }, { "cpuMillis", m.inventory->cpuMillis },
            { "memoryMiB", m.inventory->memoryMiB }, { "accelerators", m.inventory->accelerators } };
    return j;
}
json toJson(const Challenge& m)
{
    return json { { "nonce", toHex(m.nonce.data(), m.nonce.size()) } };
}
json toJson(const Auth& m)
{
    return json { { "mac", toHex(m.mac.data(), m.mac.size()) } };
}
json toJson(const Welcome& m)
{
    return json { { "sessionId", m.sessionId }, { "heartbeatIntervalMs", m.heartbeatIntervalMs } };
}
json toJson(const Reject& m)
{
    return json { { "reason", m.reason } };
}
json toJson(const Heartbeat& m)
{
    json samples = json::array();
    for (const UtilisationSample& s : m.samples) {
        json devices = json::array();
        for (const DeviceSample& d : s.devices)
            devices.push_back(
                json { { "index", d.index }, { "utilisation", d.utilisation }, { "memoryUsedMiB", d.memoryUsedMiB } });
        samples.push_back(json { { "timestampMs", s.timestampMs }, { "cpuUtilisation", s.cpuUtilisation },
            { "memoryUsedMiB", s.memoryUsedMiB }, { "devices", std::move(devices) } });
    }
    return json { { "sequence", m.sequence }, { "samples", std::move(samples) } };
}

Hello readHello(JsonReader& r)
{
    Hello m;
    m.nodeName = r.string("nodeName", Alphabet::Name, kMaxNameBytes);
    m.agentVersion = r.string("agentVersion", Alphabet::Text, kMaxTextBytes);
    if (const json* inventory = r.optionalObject("inventory")) {
        JsonReader ir = r.child(*inventory, r.pathOf("inventory"));
        InventorySummary s;
        s.isa = ir.string("isa", Alphabet::Name, kMaxTokenBytes);
        s.cpuMillis = ir.integer("cpuMillis", 1, kMaxCpuMillis);
        s.memoryMiB = ir.integer("memoryMiB", 1, kMaxMemoryMiB);
        s.accelerators = static_cast<std::int32_t>(ir.integer("accelerators", 0, kMaxAccelerators));
        ir.rejectUnknownFields();
        m.inventory = std::move(s);
    }
    return m;
}

Challenge readChallenge(JsonReader& r)
{
    Challenge m;
    r.hexBytes("nonce", m.nonce.data(), m.nonce.size());
    return m;
}

Auth readAuth(JsonReader& r)
{
    Auth m;
    r.hexBytes("mac", m.mac.data(), m.mac.size());
    return m;
}

Welcome readWelcome(JsonReader& r)
{
    Welcome m;
    m.sessionId = r.string("sessionId", Alphabet::Name, kMaxTokenBytes);
    m.heartbeatIntervalMs
        = static_cast<std::int32_t>(r.integer("heartbeatIntervalMs", kMinHeartbeatIntervalMs, kMaxHeartbeatIntervalMs));
    return m;
}

Reject readReject(JsonReader& r)
{
    Reject m;
    m.reason = r.string("reason", Alphabet::Text, kMaxTextBytes);
    return m;
}

Heartbeat readHeartbeat(JsonReader& r)
{
    Heartbeat m;
    m.sequence = r.unsignedInteger("sequence");
    const json* samples = r.array("samples", kMaxSamplesPerHeartbeat);
    if (!samples)
        return m;
    for (std::size_t i = 0; i < samples->size() && r.ok(); ++i) {
        const json& item = (*samples)[i];
        const std::string path = r.pathOf("samples") + "[" + std::to_string(i) + "]";
        if (!item.is_object()) {
            r.fail(ErrorCode::WrongType, path, "field `" + path + "` must be an object");
            break;
        }
        JsonReader sr = r.child(item, path);
        UtilisationSample s;
        s.timestampMs = sr.integer("timestampMs", 0, std::numeric_limits<std::int64_t>::max());
        s.cpuUtilisation = sr.number("cpuUtilisation", 0.0, 1.0);
        s.memoryUsedMiB = sr.integer("memoryUsedMiB", 0, kMaxMemoryMiB);
        if (const json* devices = sr.array("devices", kMaxDevicesPerSample)) {
            for (std::size_t d = 0; d < devices->size() && sr.ok(); ++d) {
                const json& deviceItem = (*devices)[d];
                const std::string devicePath = sr.pathOf("devices") + "[" + std::to_string(d) + "]";
                if (!deviceItem.is_object()) {
                    sr.fail(ErrorCode::WrongType, devicePath, "field `" + devicePath + "` must be an object");
                    break;
                }
                JsonReader dr = sr.child(deviceItem, devicePath);
                DeviceSample device;
                device.index = static_cast<std::int32_t>(dr.integer("index", 0, kMaxAccelerators - 1));
                device.utilisation = dr.number("utilisation", 0.0, 1.0);
                device.memoryUsedMiB = dr.integer("memoryUsedMiB", 0, kMaxMemoryMiB);
                dr.rejectUnknownFields();
                s.devices.push_back(device);
            }
        }
        sr.rejectUnknownFields();
        m.samples.push_back(std::move(s));
    }
    return m;
}

Expected<Message> decodeObject(const json& root)
{
    std::optional<Error> error;
    JsonReader r(root, "", error);
    // The version comes first: a newer peer's message may have a type this side has never heard of.
    const auto version
        = r.integer("version", std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max());
    if (r.ok() && version != kProtocolVersion)
        r.fail(ErrorCode::UnsupportedVersion, "version",
            "field `version`: protocol version " + std::to_string(version)
                + " is not supported; this side speaks version " + std::to_string(kProtocolVersion));
    const std::string type = r.string("type", Alphabet::Name, kMaxTokenBytes);
    if (error)
        return tl::unexpected(std::move(*error));

    Message message;
    if (type == "hello")
        message = readHello(r);
    else if (type == "challenge")
        message = readChallenge(r);
    else if (type == "auth")
        message = readAuth(r);
    else if (type == "welcome")
        message = readWelcome(r);
    else if (type == "reject")
        message = readReject(r);
    else if (type == "heartbeat")
        message = readHeartbeat(r);
    else
        return makeError(
            ErrorCode::UnknownType, "type", "field `type` names no message of protocol version 1: \"" + type + "\"");
    r.rejectUnknownFields();
    if (error)
        return tl::unexpected(std::move(*error));
    return message;
}

} // namespace

std::string_view typeName(const Message& message)
{
    static constexpr std::string_view kNames[] = { "hello", "challenge", "auth", "welcome", "reject", "heartbeat" };
    static_assert(std::size(kNames) == std::variant_size_v<Message>);
    return kNames[message.index()];
}

std::string encodeMessage(const Message& message)
{
    json j = std::visit([](const auto& m) { return toJson(m); }, message);
    j["type"] = typeName(message);
    j["version"] = kProtocolVersion;
    // Invalid UTF-8 in a string is replaced rather than thrown about: encoding never fails.
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Expected<Message> decodeMessage(std::string_view payload)
{
    if (!detail::nestingWithin(payload, kMaxJsonDepth))
        return makeError(
            ErrorCode::MalformedJson, {}, "the payload nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    try {
        const json root = json::parse(payload);
        if (!root.is_object())
            return makeError(ErrorCode::MalformedJson, {}, "the payload is not a JSON object");
        return decodeObject(root);
    } catch (const json::exception& e) {
        // nlohmann's messages name the byte offset of a syntax error and never echo the input.
        return makeError(ErrorCode::MalformedJson, {}, std::string("malformed JSON: ") + e.what());
    } catch (const std::exception& e) {
        return makeError(ErrorCode::MalformedJson, {}, std::string("cannot decode the payload: ") + e.what());
    }
}

} // namespace tidepool::protocol
