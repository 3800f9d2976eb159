#pragma once
// Basic vocabulary of the resource model: identifiers, architectures, accelerator kinds, tiers and errors.
// Plain value types; no threading concerns.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

namespace tidepool {

using NodeId = std::int32_t;
using PoolId = std::int32_t;
using WorkloadId = std::int64_t;
inline constexpr NodeId kNoNode = -1;
inline constexpr PoolId kNoPool = -1;

// Scoped enums whose zero value means "invalid / unset".
enum class Isa : std::uint8_t { Invalid = 0, X86_64 = 1, Aarch64 = 2, Riscv64 = 3 };
inline constexpr int kIsaCount = 4; // including Invalid, so `Isa` values index arrays directly

enum class AcceleratorKind : std::uint8_t { None = 0, Gpu = 1, Npu = 2, Fpga = 3 };
enum class Tier : std::uint8_t { Invalid = 0, Hot = 1, Warm = 2, Cold = 3 };
enum class LatencyClass : std::uint8_t { Invalid = 0, RealTime = 1, LatencySensitive = 2, Batch = 3 };

// A set of ISAs as a bit mask indexed by `Isa`.
using IsaMask = std::uint8_t;
constexpr IsaMask isaBit(Isa isa)
{
    return static_cast<IsaMask>(1u << static_cast<unsigned>(isa));
}

// A set of tiers as a bit mask: bit (tier − 1) for Hot, Warm and Cold; Invalid (untiered) has no bit.
using TierMask = std::uint8_t;
inline constexpr std::size_t kTierMaskCount = 8;
inline constexpr TierMask kAllTiers = 7;
constexpr TierMask tierBit(Tier tier)
{
    return tier == Tier::Invalid ? TierMask { 0 } : static_cast<TierMask>(1u << (static_cast<unsigned>(tier) - 1));
}

std::string_view toString(Isa isa);
std::string_view toString(AcceleratorKind kind);
std::string_view toString(Tier tier);
std::string_view toString(LatencyClass latency);
std::optional<Isa> parseIsa(std::string_view text); // accepts x86_64/amd64, aarch64/arm64, riscv64
std::optional<AcceleratorKind> parseAcceleratorKind(std::string_view text);
std::optional<Tier> parseTier(std::string_view text);
std::optional<LatencyClass> parseLatencyClass(std::string_view text);
// At most `maxBytes` of `text` for an error message, cut where a UTF-8 character begins (never inside one), with "…"
// where something was cut.
std::string clipText(std::string_view text, std::size_t maxBytes);

// Real-time work belongs on the hot tier, latency-sensitive services on warm, batch on cold.
constexpr Tier homeTier(LatencyClass latency)
{
    switch (latency) {
    case LatencyClass::RealTime: return Tier::Hot;
    case LatencyClass::LatencySensitive: return Tier::Warm;
    case LatencyClass::Batch: return Tier::Cold;
    case LatencyClass::Invalid: break;
    }
    return Tier::Invalid;
}

enum class ErrorCode : std::uint8_t {
    None = 0,
    InvalidArgument,
    ParseError,
    NotFound,
    AlreadyExists,
    CapacityExceeded,
    IoError,
};

// An error that names what was wrong: `context` carries file:line:field or the offending identifier.
struct Error {
    ErrorCode code = ErrorCode::None;
    std::string message;
};

template <typename T> using Expected = tl::expected<T, Error>;

inline tl::unexpected<Error> makeError(ErrorCode code, std::string message)
{
    return tl::unexpected<Error>(Error { code, std::move(message) });
}

} // namespace tidepool
