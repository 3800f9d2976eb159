#pragma once
// What the parts of tidepoolctl share: how a failure is reported, how a command's options are parsed and checked,
// the session that talks to tidepoold, and the helpers that turn the daemon's JSON into aligned text.
//
// Every command checks its whole command line before it sends anything, so that a wrong one is exit 2 naming the
// option and changes nothing. Exit 1 is the daemon's refusal (its `error` on stderr) or an unreachable daemon.
//
// Thread affinity: none; tidepoolctl runs on one thread.

#include "app/tidepoolctl/terminal_text.h"
#include "core/api/api_client.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tidepool::ctl {

using json = nlohmann::json;

// ---- failures ----------------------------------------------------------------------------------------------------

// A failure to report on stderr. Exit 2 means the command line is wrong, 1 everything else.
struct Failure {
    int exitCode = 1;
    std::string message;
};
template <typename T> using Result = tl::expected<T, Failure>;

tl::unexpected<Failure> usageError(std::string message);

enum class Output : std::uint8_t { Invalid = 0, Table, Json };

// ---- option parsing (options.cpp) --------------------------------------------------------------------------------

struct OptionSpec {
    std::string_view name;
    bool takesValue = true;
};

struct ParsedOptions {
    std::map<std::string, std::vector<std::string>, std::less<>> values; // every occurrence, in order
    std::vector<std::string> positionals;
    std::vector<std::string> command; // after `--`
    bool hasCommand = false;

    bool has(std::string_view name) const { return values.find(name) != values.end(); }
    // The last occurrence wins, as in most command-line tools.
    std::optional<std::string> last(std::string_view name) const;
    std::vector<std::string> all(std::string_view name) const;
};

// Splits a command's words into options (only those of `specs`), positionals and, when `allowCommand`, the words
// after `--`. `command` names the command in messages.
Result<ParsedOptions> parseOptions(const std::string& command, const std::vector<std::string>& words,
    std::initializer_list<OptionSpec> specs, bool allowCommand = false);

Result<std::int64_t> integerValue(
    const std::string& command, std::string_view option, const std::string& text, std::int64_t min, std::int64_t max);
// When `option` ("--limit") was given, checks it as `integerValue` does and appends "&limit=N" to `query`.
Result<void> addIntegerParameter(std::string& query, const std::string& command, const ParsedOptions& parsed,
    std::string_view option, std::int64_t min, std::int64_t max);

// A pool's quota, as `pools create`, `pools set` and `whatif` take them.
enum class QuotaKind : std::uint8_t { Invalid = 0, Cpu, Memory, MemBandwidth, NetBandwidth, Gpu, Npu, Fpga };

// Checks one quota as the daemon's PUT /v1/pools takes it, for every command that takes one, so that they accept
// and refuse the same values with the same message: CPU, memory and bandwidths 1 to their most (a quota of nothing is
// refused), accelerators 0 (keeps the pool off the kind) to 64,000,000 share units; "unlimited" (an empty optional)
// where `unlimited`. `label` names the value in the message ("--cpu", "--pool web").
Result<std::optional<std::int64_t>> quotaValue(
    const std::string& command, const std::string& label, QuotaKind kind, const std::string& text, bool unlimited);

// A time as `history` and `audit` take it, in Unix epoch milliseconds: epoch milliseconds; an ISO 8601 / RFC 3339
// time, "2026-12-06T10:00:00Z" (seconds, fractions of a second and the offset may be left out: without one it is
// UTC, as tidepoolctl prints times), or with an offset, "2026-12-06T11:00:00+01:00"; a date, "2026-12-06" (its
// midnight UTC); a time before `now`, "-90s", "-30m", "-1h", "-7d", "-2w"; or "now". Anything else fails naming
// `option` and the text.
Result<std::int64_t> timeValue(
    const std::string& command, std::string_view option, const std::string& text, std::int64_t now);

// Names of nodes, pools and workloads: letters, digits, '.', '_' and '-' (what the daemon accepts), which also
// keeps them safe in a URL path or query without escaping.
bool isName(std::string_view text, std::size_t maxBytes = 253);
Result<std::string> nameValue(const std::string& command, std::string_view what, const std::string& text);

// The one positional of a command that acts on one object: a whole number from 1 to `max`; `what` names it in the
// message ("workload ID").
Result<std::string> idValue(
    const std::string& command, const ParsedOptions& parsed, std::string_view what, std::int64_t max);

// Fails naming the first positional when a command takes none.
Result<void> noPositionals(const std::string& command, const ParsedOptions& parsed);
// A duration in milliseconds: a whole number with a unit, ms, s, m, h or d ("90s", "30m", "2h"; a bare number is
// seconds), from `minMs` to `maxMs`; anything else fails naming `option` and the text.
Result<std::int64_t> durationValue(const std::string& command, std::string_view option, const std::string& text,
    std::int64_t minMs, std::int64_t maxMs);
// How often a command given `-f`/`--follow` reads again: `--interval-ms` (100 to 60000; only with a follow) or a
// second; none without a follow.
Result<std::optional<std::chrono::milliseconds>> followInterval(
    const std::string& command, const ParsedOptions& parsed);

// ---- the session: options, token and connection (session.cpp) ----------------------------------------------------

struct GlobalOptions {
    std::string server;
    std::string serverSource; // where `server` came from, for messages: "--server", "TIDEPOOL_SERVER" or the default
    std::string tokenFile;
    std::string caFile; // with https://: the CA the daemon's certificate must chain to; empty: the system's store
    std::string caSource; // "--ca" or "TIDEPOOL_CA", for messages
    bool tls = false; // the server was given as https://
    Output output = Output::Table;
    std::chrono::milliseconds timeout { 10'000 };
};

class Session {
public:
    Session(GlobalOptions options, std::string host, std::uint16_t port);

    // Sends one request and returns the body of a 2xx response; anything else is a failure naming the daemon's
    // `error`. The token is read on the first request, so that a wrong command line is reported without it.
    Result<std::string> call(api::HttpMethod method, const std::string& target, const std::string& body = {});
    // Sends one request and returns the daemon's answer whatever its status: only a failure to get one (no token, an
    // unreachable daemon) is a failure. For a command that prints a refusal's body itself (`move`).
    Result<api::ApiResponse> exchange(api::HttpMethod method, const std::string& target, const std::string& body = {});
    // What a non-2xx answer is reported as: the daemon's `error` and the status, and what to do about a 401 or a 403.
    Failure failureOf(const api::ApiResponse& response) const;
    Output output() const { return m_options.output; }
    // Each request's time limit (--timeout-ms): a read the daemon holds must end well within it.
    std::chrono::milliseconds timeout() const { return m_options.timeout; }

    // Prints a response: the JSON unchanged, or the table `render` makes of it.
    Result<void> show(const std::string& body, const std::function<void(const json&)>& render) const;

    // `call` then `show`: what most commands do once their options are checked.
    Result<void> callAndShow(api::HttpMethod method, const std::string& target,
        const std::function<void(const json&)>& render, const std::string& body = {});

private:
    GlobalOptions m_options;
    std::string m_host;
    std::uint16_t m_port;
    std::unique_ptr<api::ApiClient> m_client;
};

// ---- formatting (format.cpp) -------------------------------------------------------------------------------------

class Table {
public:
    explicit Table(std::vector<std::string> headers)
        : m_rows { std::move(headers) }
    {
    }
    void add(std::vector<std::string> row) { m_rows.push_back(std::move(row)); }

    // Columns two spaces apart, padded by display width; the last one is not padded, so that lines carry no trailing
    // blanks. Every cell is printed terminal-safe (`terminalSafe`): a daemon-supplied string cannot move the cursor,
    // end the line or reverse what follows it.
    void print() const;

private:
    std::vector<std::vector<std::string>> m_rows;
};

// "Key:   value" lines with the values aligned, printed terminal-safe as `Table` prints its cells.
void printFields(const std::vector<std::pair<std::string, std::string>>& fields);

// Readers of the daemon's JSON that never throw: a missing field reads as `fallback`, 0 or false.
std::string text(const json& j, std::string_view key, const std::string& fallback = "-");
std::int64_t integer(const json& j, std::string_view key);
double real(const json& j, std::string_view key);
bool present(const json& j, std::string_view key);

// A decimal with at most `digits` fractional digits and no trailing zeros: 64, 63.75, 0.5.
std::string decimal(double value, int digits);
std::string cores(std::int64_t millis);
std::string mebibytes(std::int64_t mib);
std::string percent(double fraction);

std::int64_t nowMs();
// A span of time in its largest sensible unit: "45s", "12m", "5h", "3d".
std::string span(std::int64_t ms);
// How long ago a Unix-epoch time in milliseconds was ("-" for none); `relative` also says "in 5m" for one to come.
// `text` for a URL's query: letters, digits and -_.~ as they are, every other byte as %XX.
std::string percentEncoded(std::string_view text);
std::string age(std::int64_t sinceMs);
std::string relative(std::int64_t atMs);
// A Unix-epoch time in milliseconds as UTC, "2026-12-03T09:31:05Z"; "-" for none.
std::string utcTime(std::int64_t ms);

// `s` made terminal-safe and cut to at most `max` display columns, ending in "..." when cut (terminal_text.h).
std::string clip(const std::string& s, std::size_t max);
std::string joined(const json& list, const char* separator);

} // namespace tidepool::ctl
