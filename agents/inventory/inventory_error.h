#pragma once
// The error of node discovery and telemetry: a file that cannot be read or parsed, an accelerator inventory entry
// that fails validation, a probe command that fails. `message` is complete and names the source (a file path or
// a probe command) and, where there is one, the field or line, so that the agent can log it as it is.
//
// Thread affinity: none; plain value types.

#include <cstdint>
#include <string>

#include <tl/expected.hpp>

namespace tidepool::agent {

enum class InventoryErrorCode : std::uint8_t {
    Invalid = 0,
    Unreadable, // a file that does not exist or cannot be read
    Malformed, // text that is not what the kernel writes (a /proc file), or JSON that does not parse
    MissingField, // a required key or JSON field is absent
    WrongType, // a JSON field of the wrong type
    OutOfRange, // a number outside its range, a string too long or empty, an unknown `kind`
    UnknownField, // a JSON field the format does not define
    ProbeFailed, // a probe command could not start, exited non-zero or was killed by a signal
    ProbeTimedOut, // a probe command ran past its timeout and was killed
};

struct InventoryError {
    InventoryErrorCode code = InventoryErrorCode::Invalid;
    std::string source; // "/proc/cpuinfo", "/etc/tidepool/accelerators.json", "probe `/usr/bin/npu-probe`"
    std::string field; // "MemTotal", "line 7", "[2].memoryMiB"; empty when the error concerns no single field
    std::string message; // the whole story, source and field included
};

template <typename T> using InventoryExpected = tl::expected<T, InventoryError>;

// An error whose message is "<source>: <detail>".
inline InventoryError inventoryError(InventoryErrorCode code, std::string source, std::string field, std::string detail)
{
    std::string message = source + ": " + detail;
    return InventoryError { code, std::move(source), std::move(field), std::move(message) };
}

inline tl::unexpected<InventoryError> makeInventoryError(
    InventoryErrorCode code, std::string source, std::string field, std::string detail)
{
    return tl::unexpected<InventoryError>(inventoryError(code, std::move(source), std::move(field), std::move(detail)));
}

} // namespace tidepool::agent
