#pragma once
// The messages agents and the core exchange, one JSON object per frame:
//   {"type": "<name>", "version": 1, ...fields}
// Decoding is strict: an unknown `type`, a `version` other than `kProtocolVersion`, a missing, unknown or wrongly
// typed field, an out-of-range number, an over-long string or a name with characters outside its alphabet is an
// error naming the field (a JSON path such as `samples[0].devices[1].utilisation`). Unknown fields are errors too:
// `version` is the compatibility handle, so a peer that speaks more must say so there. Nothing here throws.
//
// Thread affinity: none; plain value types and pure functions.

#include "protocol/error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tidepool::protocol {

inline constexpr std::int32_t kProtocolVersion = 1;

// Bounds of the fields; a decoded message never exceeds them.
inline constexpr std::size_t kMaxNameBytes = 253; // node names, as long as a DNS name
inline constexpr std::size_t kMaxTokenBytes = 64; // ISA names, session ids
inline constexpr std::size_t kMaxTextBytes = 1024; // agent versions, reject reasons
inline constexpr std::size_t kMaxSamplesPerHeartbeat = 1024;
inline constexpr std::size_t kMaxDevicesPerSample = 64;
inline constexpr std::int64_t kMaxMemoryMiB = std::int64_t { 1 } << 40;
inline constexpr std::int64_t kMaxCpuMillis = std::int64_t { 1 } << 30;
inline constexpr std::int32_t kMaxAccelerators = 1024;
inline constexpr std::int32_t kMinHeartbeatIntervalMs = 10;
inline constexpr std::int32_t kMaxHeartbeatIntervalMs = 3'600'000;
inline constexpr std::size_t kNonceBytes = 32;
inline constexpr std::size_t kMacBytes = 32; // HMAC-SHA256

using Nonce = std::array<std::uint8_t, kNonceBytes>; // hex on the wire
using Mac = std::array<std::uint8_t, kMacBytes>; // hex on the wire

// What an agent tells about its node when it joins; the full inventory follows in later messages.
struct InventorySummary {
    std::string isa; // "x86_64", "aarch64", "riscv64": a token; the core maps it
    std::int64_t cpuMillis = 0;
    std::int64_t memoryMiB = 0;
    std::int32_t accelerators = 0;
    bool operator==(const InventorySummary&) const = default;
};

// Agent → core, first message. `nodeName` is the agent's identity: letters, digits, '.', '_' and '-'.
struct Hello {
    std::string nodeName;
    std::string agentVersion; // printable text, no control characters
    std::optional<InventorySummary> inventory;
    bool operator==(const Hello&) const = default;
};

// Core → agent: 32 random bytes to be authenticated with the join token (see join.h).
struct Challenge {
    Nonce nonce {};
    bool operator==(const Challenge&) const = default;
};

// Agent → core: the HMAC-SHA256 answer to the challenge (see join.h for what it covers).
struct Auth {
    Mac mac {};
    bool operator==(const Auth&) const = default;
};

// Core → agent: joined.
struct Welcome {
    std::string sessionId; // a token
    std::int32_t heartbeatIntervalMs = 0;
    bool operator==(const Welcome&) const = default;
};

// Core → agent, before the core closes the connection.
struct Reject {
    std::string reason; // printable text
    bool operator==(const Reject&) const = default;
};

struct DeviceSample {
    std::int32_t index = 0; // the device's index on its node
    double utilisation = 0.0; // 0..1
    std::int64_t memoryUsedMiB = 0;
    bool operator==(const DeviceSample&) const = default;
};

struct UtilisationSample {
    std::int64_t timestampMs = 0; // Unix epoch, milliseconds
    double cpuUtilisation = 0.0; // 0..1 of the node's CPU capacity
    std::int64_t memoryUsedMiB = 0;
    std::vector<DeviceSample> devices;
    bool operator==(const UtilisationSample&) const = default;
};

// Agent → core, every heartbeat interval. Several samples when the agent buffered them while disconnected.
struct Heartbeat {
    std::uint64_t sequence = 0;
    std::vector<UtilisationSample> samples;
    bool operator==(const Heartbeat&) const = default;
};

using Message = std::variant<Hello, Challenge, Auth, Welcome, Reject, Heartbeat>;

// The `type` value of each message.
std::string_view typeName(const Message& message);

// The JSON text of `message`, with `type` and `version`. Does not validate: decode what peers send.
std::string encodeMessage(const Message& message);
// Parses and validates one frame's payload.
Expected<Message> decodeMessage(std::string_view payload);

} // namespace tidepool::protocol
