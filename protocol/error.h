#pragma once
// Errors of the wire protocol. The protocol library is shared by the core and the agents and depends on neither,
// so it has its own error type rather than the core's `tidepool::Error`; `field` names the offending field
// (a JSON path such as `samples[2].cpuUtilisation`) so that a peer's mistake can be reported precisely.
//
// Thread affinity: none; plain value types.

#include <cstdint>
#include <string>

#include <tl/expected.hpp>

namespace tidepool::protocol {

enum class ErrorCode : std::uint8_t {
    None = 0,
    FrameTooLarge, // a length prefix above the configured maximum
    EmptyFrame, // a length prefix of zero
    MalformedJson, // the payload is not JSON, or nests too deeply
    UnknownType, // `type` names no message this version knows
    UnsupportedVersion, // `version` is not the one this side speaks
    MissingField,
    WrongType, // a field of the wrong JSON type
    OutOfRange, // a number outside its range, a string too long or too short, too many items
    BadName, // a name with characters outside its alphabet (control characters, spaces, ...)
    UnknownField, // a field this version does not define
    CryptoFailure, // OpenSSL failed (no randomness, HMAC failure)
};

struct Error {
    ErrorCode code = ErrorCode::None;
    std::string field; // empty for errors that concern no single field (framing, JSON syntax)
    std::string message;
};

template <typename T> using Expected = tl::expected<T, Error>;

inline tl::unexpected<Error> makeError(ErrorCode code, std::string field, std::string message)
{
    return tl::unexpected<Error>(Error { code, std::move(field), std::move(message) });
}

} // namespace tidepool::protocol
