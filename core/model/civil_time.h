#pragma once
// Calendar dates and ISO 8601 / RFC 3339 times as Unix epoch milliseconds, for every reader of times a person typed
// (tidepoolctl's options, the report API's `from`/`to`) and of timestamps in trace files.
//
// Thread affinity: none; pure functions.

#include <cstdint>
#include <optional>
#include <string_view>

namespace tidepool {

// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
std::int64_t daysFromCivil(std::int64_t year, unsigned month, unsigned day);

// "2026-12-06" (its midnight UTC), "2026-12-06T10:00", "2026-12-06T10:00:00.250Z", "2026-12-06 10:00:00+01:00": the
// time in its offset, UTC without one (as tidepoolctl prints times); 'T', 't' or a space between date and time,
// seconds and up to millisecond fractions optional. A date that does not exist (2026-02-29) or anything else: nullopt.
std::optional<std::int64_t> parseIsoTimeMs(std::string_view text);

} // namespace tidepool
