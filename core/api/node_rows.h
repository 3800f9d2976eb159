#pragma once
// A node's row in `GET /v1/nodes`, in two parts: what its heartbeats change every few seconds (its usage: CPU
// utilisation, memory used, each device's utilisation and memory used, the time and count of heartbeats) and the rest,
// summed up by a fingerprint. A reader that keeps the rows (the remote console) asks each poll for the fingerprints
// and for the usage that changed since its last read (`?usageSince=CURSOR`), fetches in full only the rows whose
// fingerprint changed (`?ids=`), and merges the usage into the rest with `applyNodeUsage`, the same function the
// daemon makes its full rows with, so that the merged row is the row the daemon would have sent.
//
// Thread affinity: none; plain functions.

#include <nlohmann/json.hpp>

#include <string>

namespace tidepool::api {

// The fields of a row that `applyNodeUsage` sets; they are not in the fingerprint.
inline constexpr const char* kNodeUsageFields[]
    = { "cpuUtilisation", "memoryUsedMiB", "lastHeartbeatMs", "heartbeats" };
inline constexpr const char* kDeviceUsageFields[] = { "utilisation", "memoryUsedMiB" };
inline constexpr const char* kPoolUsageField = "poolUsage"; // the pools' measured use on the node: usage too

// `usage` ({"cpuUtilisation", "memoryUsedMiB", "lastHeartbeatMs", "heartbeats", "devices": [{"index",
// "utilisation", "memoryUsedMiB"}], "poolUsage": [{"name", "cpuMillis", "memoryMiB", "netMbps" where measured}]})
// into `row`: the node's fields and its pools' measured use replaced (none when `poolUsage` is absent, as from a
// daemon from before it), each device's usage cleared and set from the sample of its index (a sample for an index
// the row has no device for is left out). False, and `row` as it was, when `usage` is not of that shape.
bool applyNodeUsage(nlohmann::json& row, const nlohmann::json& usage);

// 16 hex digits of a 64-bit FNV-1a hash of `rest`, a row without its usage fields (and without its fingerprint), as
// compact JSON (keys sorted): equal rows have equal fingerprints, and a change of any field changes it but for a
// chance of 2^-64.
std::string nodeFingerprint(const nlohmann::json& rest);

} // namespace tidepool::api
