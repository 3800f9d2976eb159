#pragma once
// Errors of the agent's cross-ISA support: reading a binary's ELF header, finding qemu-user, measuring the
// translation slowdown. Every message names the file or the ISA it concerns, so that it can be logged as is.
//
// Thread affinity: none; plain value types.

#include <cstdint>
#include <string>

#include <tl/expected.hpp>

namespace tidepool::agent::crossisa {

enum class ErrorCode : std::uint8_t {
    None = 0,
    Unreadable, // the file cannot be opened or read, or is not a regular file
    NotElf, // too short for an ELF identification, or no ELF magic
    MalformedElf, // ELF magic, but a header or program header table that does not hold together
    UnknownIsa, // an ELF file for a machine (or class, or byte order) this agent does not know
    NoTranslator, // a foreign ISA and no qemu-user for it
    BenchmarkFailed, // isabench missing, failed, timed out or printed something unexpected
    BadArgument, // a caller's mistake (a run count out of range, an ISA name with odd characters)
};

struct Error {
    ErrorCode code = ErrorCode::None;
    std::string message;
};

template <typename T> using Expected = tl::expected<T, Error>;

inline tl::unexpected<Error> makeError(ErrorCode code, std::string message)
{
    return tl::unexpected<Error>(Error { code, std::move(message) });
}

} // namespace tidepool::agent::crossisa
