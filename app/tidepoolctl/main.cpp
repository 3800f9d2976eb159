// tidepoolctl: the operator's command line over tidepoold's HTTP/JSON API (core/api/http_api.h). It parses the
// command line, checks every option before anything is sent, makes one or two requests over one connection and
// prints aligned tables for people or, with `-o json`, the daemon's JSON unchanged for scripts.
//
// Exit status: 0 done; 1 the daemon refused the request (its `error` on stderr) or could not be reached (the address
// on stderr); 2 the command line is wrong (the message names the option). The operator token is read from a file
// and never printed.
#include "core/api/api_client.h"
#include "core/api/control_plane.h"
#include "core/api/daemon_config.h"
#include "core/api/http_api.h"
#include "core/net/http_server.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace {

using namespace tidepool;
using api::HttpMethod;
using nlohmann::json;

constexpr const char* kUsage
    = R"(usage: tidepoolctl [--server HOST:PORT] [--token-file FILE] [-o table|json] COMMAND ...

Global options (anywhere before `--`):
  --server HOST:PORT   tidepoold's API (default $TIDEPOOL_SERVER, else 127.0.0.1:7080)
  --token-file FILE    the operator token, first line of FILE (default $TIDEPOOL_TOKEN_FILE)
  -o, --output FORMAT  table (default) or json: the daemon's JSON unchanged, for scripts
  --timeout-ms N       time limit of each request (default 10000)

Commands:
  submit --name N --cpu MILLIS --memory MIB [options] [-- COMMAND ARGS...]
      --pool P  --priority N  --latency real-time|latency-sensitive|batch  --tier hot|warm|cold
      --isa ISA (repeatable, or comma-separated: x86_64, aarch64, riscv64)  --allow-translation
      --gpu COUNT | --gpu-share MILLI  --gpu-model M (repeatable)  --gpu-memory MIB
      --env K=V (repeatable)
      -f FILE.json   a submission object (options override its fields) or {"workloads": [...]}
  get ID                       one workload
  list [--phase P] [--node N] [--limit K]
  why ID                       why a workload is pending, or why it runs where it does
  cancel ID
  nodes [NAME]
  pools
  pools create NAME [--cpu MILLIS] [--memory MIB] [--tier T] [--business-line B] [--io-weight W]
  pools set NAME [--cpu MILLIS|unlimited] [--memory MIB|unlimited] [--tier T|any] [--business-line B]
                 [--io-weight W]   (fields not given keep their values)
  summary

Exit status: 0 done, 1 refused by the daemon or not reachable, 2 a wrong command line.
)";

// A failure to report on stderr. Exit 2 means the command line is wrong, 1 everything else.
struct Failure {
    int exitCode = 1;
    std::string message;
};
template <typename T> using Result = tl::expected<T, Failure>;

tl::unexpected<Failure> usageError(std::string message)
{
    return tl::unexpected(Failure { 2, std::move(message) });
}

enum class Output : std::uint8_t { Invalid = 0, Table, Json };

// ---- option parsing --------------------------------------------------------------------------------------------

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
    std::optional<std::string> last(std::string_view name) const
    {
        const auto it = values.find(name);
        return it == values.end() ? std::nullopt : std::optional<std::string>(it->second.back());
    }
    std::vector<std::string> all(std::string_view name) const
    {
        const auto it = values.find(name);
        return it == values.end() ? std::vector<std::string> {} : it->second;
    }
};

Result<ParsedOptions> parseOptions(const std::string& command, const std::vector<std::string>& words,
    std::initializer_list<OptionSpec> specs, bool allowCommand = false)
{
    ParsedOptions parsed;
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& word = words[i];
        if (word == "--") {
            if (!allowCommand)
                return usageError(command + ": nothing may follow `--`");
            parsed.hasCommand = true;
            parsed.command.assign(words.begin() + static_cast<std::ptrdiff_t>(i) + 1, words.end());
            break;
        }
        if (word.size() < 2 || word[0] != '-') {
            parsed.positionals.push_back(word);
            continue;
        }
        const auto eq = word.find('=');
        const std::string name = word.substr(0, eq);
        const auto spec = std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& s) { return s.name == name; });
        if (spec == specs.end())
            return usageError(command + ": unknown option " + name + " (see tidepoolctl --help)");
        if (!spec->takesValue) {
            if (eq != std::string::npos)
                return usageError(command + ": " + name + " takes no value");
            parsed.values[name].emplace_back();
            continue;
        }
        if (eq != std::string::npos)
            parsed.values[name].push_back(word.substr(eq + 1));
        else if (i + 1 < words.size())
            parsed.values[name].push_back(words[++i]);
        else
            return usageError(command + ": " + name + " needs a value");
    }
    return parsed;
}

Result<std::int64_t> integerValue(
    const std::string& command, std::string_view option, const std::string& text, std::int64_t min, std::int64_t max)
{
    std::int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value < min || value > max)
        return usageError(command + ": " + std::string(option) + ": \"" + text + "\" must be a whole number from "
            + std::to_string(min) + " to " + std::to_string(max));
    return value;
}

// Names of nodes, pools and workloads: letters, digits, '.', '_' and '-' (what the daemon accepts), which also
// keeps them safe in a URL path or query without escaping.
bool isName(std::string_view text, std::size_t maxBytes = 253)
{
    return !text.empty() && text.size() <= maxBytes && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
            || c == '-';
    });
}

Result<std::string> nameValue(const std::string& command, std::string_view what, const std::string& text)
{
    if (!isName(text))
        return usageError(
            command + ": " + std::string(what) + " \"" + text + "\" must be 1 to 253 letters, digits, '.', '_' or '-'");
    return text;
}

Result<std::string> workloadId(const std::string& command, const ParsedOptions& parsed)
{
    if (parsed.positionals.size() != 1)
        return usageError(command + ": give exactly one workload ID");
    auto id = integerValue(command, "ID", parsed.positionals[0], 1, protocol::kMaxWorkloadId);
    if (!id)
        return tl::unexpected(id.error());
    return std::to_string(*id);
}

// ---- formatting ------------------------------------------------------------------------------------------------

class Table {
public:
    explicit Table(std::vector<std::string> headers)
        : m_rows { std::move(headers) }
    {
    }
    void add(std::vector<std::string> row) { m_rows.push_back(std::move(row)); }

    // Columns two spaces apart; the last one is not padded, so that lines carry no trailing blanks.
    void print() const
    {
        std::vector<std::size_t> widths(m_rows.front().size(), 0);
        for (const auto& row : m_rows)
            for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c)
                widths[c] = std::max(widths[c], row[c].size());
        for (const auto& row : m_rows) {
            std::string line;
            for (std::size_t c = 0; c < row.size(); ++c) {
                line += row[c];
                if (c + 1 < row.size())
                    line.append(widths[c] - row[c].size() + 2, ' ');
            }
            std::puts(line.c_str());
        }
    }

private:
    std::vector<std::vector<std::string>> m_rows;
};

// "Key:   value" lines with the values aligned.
void printFields(const std::vector<std::pair<std::string, std::string>>& fields)
{
    std::size_t width = 0;
    for (const auto& [key, value] : fields)
        width = std::max(width, key.size());
    for (const auto& [key, value] : fields)
        std::printf("%s:%*s%s\n", key.c_str(), static_cast<int>(width - key.size() + 2), "", value.c_str());
}

std::string text(const json& j, std::string_view key, const std::string& fallback = "-")
{
    const auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return fallback;
    if (it->is_string()) {
        const auto& s = it->get_ref<const std::string&>();
        return s.empty() ? fallback : s;
    }
    return it->dump();
}

std::int64_t integer(const json& j, std::string_view key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<std::int64_t>() : 0;
}

double real(const json& j, std::string_view key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

bool present(const json& j, std::string_view key)
{
    const auto it = j.find(key);
    return it != j.end() && !it->is_null();
}

// A decimal with at most `digits` fractional digits and no trailing zeros: 64, 63.75, 0.5.
std::string decimal(double value, int digits)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    std::string s = buffer;
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0')
            s.pop_back();
        if (s.back() == '.')
            s.pop_back();
    }
    return s;
}

std::string cores(std::int64_t millis)
{
    return decimal(static_cast<double>(millis) / 1000.0, 3);
}

std::string mebibytes(std::int64_t mib)
{
    if (mib >= 1024 * 1024)
        return decimal(static_cast<double>(mib) / (1024.0 * 1024.0), 1) + "Ti";
    if (mib >= 1024)
        return decimal(static_cast<double>(mib) / 1024.0, 1) + "Gi";
    return std::to_string(mib) + "Mi";
}

std::int64_t nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string age(std::int64_t sinceMs)
{
    if (sinceMs <= 0)
        return "-";
    const std::int64_t s = std::max<std::int64_t>(0, (nowMs() - sinceMs) / 1000);
    if (s < 120)
        return std::to_string(s) + "s";
    if (s < 120 * 60)
        return std::to_string(s / 60) + "m";
    if (s < 48 * 3600)
        return std::to_string(s / 3600) + "h";
    return std::to_string(s / 86400) + "d";
}

std::string clip(std::string s, std::size_t max)
{
    if (s.size() > max)
        s = s.substr(0, max - 3) + "...";
    return s;
}

std::string joined(const json& list, const char* separator)
{
    std::string out;
    if (!list.is_array())
        return out;
    for (const json& item : list) {
        if (!out.empty())
            out += separator;
        out += item.is_string() ? item.get<std::string>() : item.dump();
    }
    return out;
}

// ---- renderers (table output) ----------------------------------------------------------------------------------

void printWorkloads(const json& list)
{
    Table table({ "ID", "NAME", "PHASE", "NODE", "POOL", "CPU", "MEM", "AGE", "DETAIL" });
    for (const json& w : list)
        table.add({ text(w, "id"), text(w, "name"), text(w, "phase"), text(w, "node"), text(w, "pool"),
            cores(integer(w, "cpuMillis")), mebibytes(integer(w, "memoryMiB")), age(integer(w, "submittedMs")),
            clip(text(w, "detail", ""), 80) });
    table.print();
}

std::string acceleratorText(const json& a)
{
    std::string s = text(a, "kind") + " x" + text(a, "count");
    if (integer(a, "share") > 0)
        s += ", share " + text(a, "share") + " per device";
    return s;
}

void printWorkload(const json& w)
{
    std::vector<std::pair<std::string, std::string>> f {
        { "ID", text(w, "id") },
        { "Name", text(w, "name") },
        { "Phase", text(w, "phase") },
        { "Node", text(w, "node") },
        { "Pool", text(w, "pool") },
        { "Priority", text(w, "priority") },
        { "Latency", text(w, "latency") },
        { "CPU", cores(integer(w, "cpuMillis")) + " (" + text(w, "cpuMillis") + " millicores)" },
        { "Memory", mebibytes(integer(w, "memoryMiB")) },
    };
    if (present(w, "accelerators"))
        f.emplace_back("Accelerators", acceleratorText(w["accelerators"]));
    if (present(w, "devices") && !w["devices"].empty()) {
        std::string devices;
        for (const json& d : w["devices"])
            devices += (devices.empty() ? "" : ", ") + text(d, "device") + " (share " + text(d, "share") + ")";
        f.emplace_back("Devices", devices);
    }
    if (present(w, "translated"))
        f.emplace_back("Translated", w["translated"].is_boolean() && w["translated"].get<bool>() ? "yes" : "no");
    if (present(w, "command"))
        f.emplace_back("Command", joined(w["command"], " "));
    if (present(w, "pid"))
        f.emplace_back("PID", text(w, "pid"));
    f.emplace_back("Submitted", age(integer(w, "submittedMs")) + " ago");
    if (present(w, "placedMs"))
        f.emplace_back("Placed", age(integer(w, "placedMs")) + " ago");
    if (present(w, "runningMs"))
        f.emplace_back("Running", age(integer(w, "runningMs")) + " ago");
    if (present(w, "finishedMs")) {
        f.emplace_back("Finished", age(integer(w, "finishedMs")) + " ago");
        f.emplace_back("Exit code", text(w, "exitCode"));
    }
    f.emplace_back("Attempts", text(w, "attempts"));
    f.emplace_back("Detail", text(w, "detail"));
    printFields(f);
}

void printWhy(const json& why)
{
    const json report = why.value("report", json::object());
    const std::string mainReason = text(report, "mainReason");
    printFields({
        { "Workload", text(why, "id") },
        { "Phase", text(why, "phase") },
        { "Node", text(why, "node") },
        { "Reason", text(why, "reason", "(none recorded)") },
        { "Last attempt",
            text(report, "nodesConsidered") + " nodes considered, " + text(report, "feasible") + " feasible"
                + (mainReason == "none" || mainReason == "-" ? "" : "; mostly " + mainReason) },
    });
    const json rejected = report.value("rejected", json::object());
    if (!rejected.is_object() || rejected.empty())
        return;
    std::vector<std::pair<std::int64_t, std::string>> rows;
    for (const auto& [reason, count] : rejected.items())
        rows.emplace_back(count.is_number() ? count.get<std::int64_t>() : 0, reason);
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    Table table({ "REASON", "NODES" });
    for (const auto& [count, reason] : rows)
        table.add({ reason, std::to_string(count) });
    std::puts("");
    table.print();
}

// Free and total units of each accelerator kind: GPUs as "1.5/4" (shares are milli-GPUs), others prefixed.
std::string acceleratorsOf(const json& node)
{
    std::map<std::string, std::pair<double, int>> byKind; // kind → (free devices, devices)
    for (const json& d : node.value("devices", json::array())) {
        const double capacity = real(d, "shareCapacity");
        auto& [free, total] = byKind[text(d, "kind")];
        free += capacity > 0 ? real(d, "shareFree") / capacity : 0.0;
        ++total;
    }
    std::string out;
    for (const auto& [kind, counts] : byKind) {
        if (!out.empty())
            out += ' ';
        out += (kind == "gpu" ? std::string() : kind + ":") + decimal(counts.first, 2) + "/"
            + std::to_string(counts.second);
    }
    return out.empty() ? "-" : out;
}

std::string percent(double fraction)
{
    return std::to_string(static_cast<int>(std::lround(fraction * 100.0))) + "%";
}

void printNodes(const json& list)
{
    Table table({ "NAME", "STATE", "ISA", "TIER", "CPU(free/total)", "MEM(free/total)", "GPUs", "UTIL", "WORKLOADS" });
    for (const json& n : list)
        table.add({ text(n, "name"), text(n, "state"), text(n, "isa"), text(n, "tier"),
            cores(integer(n, "cpuMillisFree")) + "/" + cores(integer(n, "cpuMillis")),
            mebibytes(integer(n, "memoryMiBFree")) + "/" + mebibytes(integer(n, "memoryMiB")), acceleratorsOf(n),
            percent(real(n, "cpuUtilisation")), text(n, "workloads") });
    table.print();
}

void printNode(const json& n)
{
    std::string translation;
    // A named copy: `items()` of a temporary would refer to an object destroyed before the loop runs.
    const json factors = n.value("translation", json::object());
    for (const auto& [from, factor] : factors.items())
        translation += (translation.empty() ? "" : ", ") + from + " x" + decimal(factor.get<double>(), 2);
    printFields({
        { "Name", text(n, "name") },
        { "State", text(n, "state") + (n.value("connected", false) ? ", connected from " + text(n, "remote") : "") },
        { "ISA", text(n, "isa") + ", " + text(n, "cpuModel") + ", " + text(n, "numaNodes") + " NUMA node(s)" },
        { "Tier", text(n, "tier") },
        { "CPU",
            cores(integer(n, "cpuMillisFree")) + " of " + cores(integer(n, "cpuMillis")) + " cores free, "
                + percent(real(n, "cpuUtilisation")) + " used" },
        { "Memory",
            mebibytes(integer(n, "memoryMiBFree")) + " of " + mebibytes(integer(n, "memoryMiB")) + " free, "
                + mebibytes(integer(n, "memoryUsedMiB")) + " in use" },
        { "Workloads", text(n, "workloads") },
        { "Pools", joined(n.value("pools", json::array()), ", ") },
        { "Translation", translation.empty() ? "-" : translation },
        { "Agent", text(n, "agentVersion") },
        { "Heartbeats", text(n, "heartbeats") + ", last " + age(integer(n, "lastHeartbeatMs")) + " ago" },
    });
    const json devices = n.value("devices", json::array());
    if (devices.empty())
        return;
    Table table({ "DEVICE", "KIND", "MODEL", "SHARE(free/total)", "MEMORY", "UTIL" });
    for (const json& d : devices)
        table.add({ text(d, "index"), text(d, "kind"), text(d, "model"),
            text(d, "shareFree") + "/" + text(d, "shareCapacity"), mebibytes(integer(d, "memoryMiB")),
            present(d, "utilisation") ? percent(real(d, "utilisation")) : "-" });
    std::puts("");
    table.print();
}

void printPools(const json& list)
{
    Table table({ "NAME", "BUSINESS-LINE", "TIER", "CPU(used/quota)", "MEM(used/quota)", "NODES" });
    for (const json& p : list)
        table.add({ text(p, "name"), text(p, "businessLine"), text(p, "tier", "any"),
            cores(integer(p, "cpuMillisUsed")) + "/"
                + (present(p, "cpuMillis") ? cores(integer(p, "cpuMillis")) : std::string("unlimited")),
            mebibytes(integer(p, "memoryMiBUsed")) + "/"
                + (present(p, "memoryMiB") ? mebibytes(integer(p, "memoryMiB")) : std::string("unlimited")),
            text(p, "nodes") });
    table.print();
}

// "5 ready, 1 lost": the counts of an object in the given order of its keys (then any others), without zeros
// unless `keepZero`.
std::string counts(const json& object, std::initializer_list<std::string_view> order, bool keepZero)
{
    std::vector<std::string> keys(order.begin(), order.end());
    if (object.is_object())
        for (const auto& [key, value] : object.items())
            if (std::find(keys.begin(), keys.end(), key) == keys.end())
                keys.push_back(key);
    std::string out;
    for (const std::string& key : keys) {
        const std::int64_t n = integer(object, key);
        if (!object.contains(key) || (n == 0 && !keepZero))
            continue;
        out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + key;
    }
    return out.empty() ? "none" : out;
}

void printSummary(const json& s)
{
    printFields({
        { "Nodes", counts(s.value("nodes", json::object()), { "ready", "suspect", "lost", "joining" }, true) },
        { "Workloads",
            counts(s.value("workloads", json::object()),
                { "pending", "launching", "running", "stopping", "succeeded", "failed", "killed", "oom_killed",
                    "cancelled" },
                false) },
        { "Submitted", text(s, "submitted") + " since start, " + text(s, "acknowledged") + " launches acknowledged" },
    });
}

// ---- the session: options, token and connection ----------------------------------------------------------------

struct GlobalOptions {
    std::string server;
    std::string serverSource; // where `server` came from, for messages: "--server", "TIDEPOOL_SERVER" or the default
    std::string tokenFile;
    Output output = Output::Table;
    std::chrono::milliseconds timeout { 10'000 };
};

class Session {
public:
    Session(GlobalOptions options, std::string host, std::uint16_t port)
        : m_options(std::move(options))
        , m_host(std::move(host))
        , m_port(port)
    {
    }

    // Sends one request and returns the body of a 2xx response; anything else is a failure naming the daemon's
    // `error`. The token is read on the first request, so that a wrong command line is reported without it.
    Result<std::string> call(HttpMethod method, const std::string& target, const std::string& body = {})
    {
        if (!m_client) {
            if (m_options.tokenFile.empty())
                return usageError("no operator token: give --token-file FILE or set TIDEPOOL_TOKEN_FILE");
            auto token = api::readSecretFile(m_options.tokenFile, "operator token");
            if (!token)
                return usageError(token.error().message);
            m_client = std::make_unique<api::ApiClient>(m_host, m_port, std::move(*token), m_options.timeout);
        }
        auto response = m_client->request(method, target, body);
        if (!response)
            return tl::unexpected(Failure { 1, response.error().message });
        if (response->status >= 200 && response->status < 300)
            return std::move(response->body);
        std::string message;
        const json j = json::parse(response->body, nullptr, false); // discarded when it is not JSON
        if (j.is_object() && j.contains("error") && j["error"].is_string())
            message = j["error"].get<std::string>();
        if (message.empty())
            message = "tidepoold at " + m_client->address() + " answered HTTP " + std::to_string(response->status);
        else
            message += " (HTTP " + std::to_string(response->status) + ")";
        if (response->status == 401)
            message += "\ntidepoolctl: the token in " + m_options.tokenFile
                + " was refused; check --token-file or TIDEPOOL_TOKEN_FILE";
        return tl::unexpected(Failure { 1, message });
    }

    // Prints a response: the JSON unchanged, or the table `render` makes of it.
    Result<void> show(const std::string& body, const std::function<void(const json&)>& render) const
    {
        if (m_options.output == Output::Json) {
            std::fputs(body.c_str(), stdout);
            if (body.empty() || body.back() != '\n')
                std::fputc('\n', stdout);
            return {};
        }
        try {
            render(json::parse(body));
        } catch (const json::exception& e) {
            return tl::unexpected(Failure { 1, "unexpected response from tidepoold: " + std::string(e.what()) });
        }
        return {};
    }

private:
    GlobalOptions m_options;
    std::string m_host;
    std::uint16_t m_port;
    std::unique_ptr<api::ApiClient> m_client;
};

// ---- commands --------------------------------------------------------------------------------------------------

Result<json> readJsonFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        return usageError("submit: -f: " + path + " cannot be read");
    std::stringstream content;
    content << in.rdbuf();
    try {
        json j = json::parse(content.str());
        if (!j.is_object())
            return usageError("submit: -f: " + path + " must hold one JSON object");
        return j;
    } catch (const json::exception& e) {
        return usageError("submit: -f: " + path + " is not valid JSON: " + e.what());
    }
}

// The `accelerators` object of `--gpu`, `--gpu-share`, `--gpu-model` and `--gpu-memory`.
Result<json> gpuRequest(const std::string& cmd, const ParsedOptions& o)
{
    if (o.has("--gpu") && o.has("--gpu-share"))
        return usageError(cmd + ": --gpu (whole GPUs) and --gpu-share (a share of one) exclude each other");
    json accelerators { { "kind", "gpu" }, { "count", 1 } };
    const std::tuple<const char*, const char*, std::int64_t, std::int64_t> numbers[] = {
        { "--gpu", "count", 1, 64 },
        { "--gpu-share", "share", 1, 1'000'000 },
        { "--gpu-memory", "memoryMiB", 0, protocol::kMaxMemoryMiB },
    };
    for (const auto& [option, field, min, max] : numbers)
        if (const auto value = o.last(option)) {
            auto n = integerValue(cmd, option, *value, min, max);
            if (!n)
                return tl::unexpected(n.error());
            accelerators[field] = *n;
        }
    if (o.has("--gpu-model")) {
        json models = json::array();
        for (const std::string& model : o.all("--gpu-model")) {
            if (auto valid = nameValue(cmd, "--gpu-model", model); !valid)
                return tl::unexpected(valid.error());
            models.push_back(model);
        }
        accelerators["models"] = std::move(models);
    }
    return accelerators;
}

// Writes the options of `submit` into `body` (empty, or the object of `-f`), checking each and naming it.
Result<void> applySubmitOptions(const std::string& cmd, const ParsedOptions& o, json& body)
{
    if (const auto name = o.last("--name")) {
        if (auto valid = nameValue(cmd, "--name", *name); !valid)
            return tl::unexpected(valid.error());
        body["name"] = *name;
    }
    const std::tuple<const char*, const char*, std::int64_t, std::int64_t> numbers[] = {
        { "--cpu", "cpuMillis", 0, protocol::kMaxCpuMillis },
        { "--memory", "memoryMiB", 0, protocol::kMaxMemoryMiB },
        { "--priority", "priority", -1'000'000, 1'000'000 },
    };
    for (const auto& [option, field, min, max] : numbers)
        if (const auto value = o.last(option)) {
            auto n = integerValue(cmd, option, *value, min, max);
            if (!n)
                return tl::unexpected(n.error());
            body[field] = *n;
        }
    if (const auto pool = o.last("--pool")) {
        if (auto valid = nameValue(cmd, "--pool", *pool); !valid)
            return tl::unexpected(valid.error());
        body["pool"] = *pool;
    }
    if (const auto latency = o.last("--latency")) {
        if (!parseLatencyClass(*latency))
            return usageError(cmd + ": --latency: \"" + *latency + "\" must be real-time, latency-sensitive or batch");
        body["latency"] = *latency;
    }
    if (const auto tier = o.last("--tier")) {
        if (!parseTier(*tier))
            return usageError(cmd + ": --tier: \"" + *tier + "\" must be hot, warm or cold");
        body["tier"] = *tier;
    }
    if (o.has("--isa")) {
        json isas = json::array();
        for (const std::string& value : o.all("--isa")) {
            std::stringstream items(value);
            for (std::string isa; std::getline(items, isa, ',');) {
                if (!parseIsa(isa))
                    return usageError(cmd + ": --isa: \"" + isa + "\" must be x86_64, aarch64 or riscv64");
                isas.push_back(isa);
            }
        }
        body["isas"] = std::move(isas);
    }
    if (o.has("--allow-translation"))
        body["allowTranslation"] = true;
    if (o.has("--gpu") || o.has("--gpu-share") || o.has("--gpu-model") || o.has("--gpu-memory")) {
        auto accelerators = gpuRequest(cmd, o);
        if (!accelerators)
            return tl::unexpected(accelerators.error());
        body["accelerators"] = std::move(*accelerators);
    }
    if (o.has("--env")) {
        json env = json::array();
        for (const std::string& pair : o.all("--env")) {
            const auto eq = pair.find('=');
            if (eq == 0 || eq == std::string::npos)
                return usageError(cmd + ": --env: \"" + pair + "\" must read NAME=value");
            env.push_back(pair);
        }
        body["env"] = std::move(env);
    }
    if (o.hasCommand) {
        if (o.command.empty())
            return usageError(cmd + ": `--` must be followed by the command to run");
        body["command"] = o.command;
    }
    return {};
}

Result<void> submit(Session& session, const std::vector<std::string>& words)
{
    const std::string cmd = "submit";
    auto parsed = parseOptions(cmd, words,
        { { "--name" }, { "--cpu" }, { "--memory" }, { "--pool" }, { "--priority" }, { "--latency" }, { "--tier" },
            { "--isa" }, { "--allow-translation", false }, { "--gpu" }, { "--gpu-share" }, { "--gpu-model" },
            { "--gpu-memory" }, { "--env" }, { "-f" }, { "--file" } },
        true);
    if (!parsed)
        return tl::unexpected(parsed.error());
    const ParsedOptions& o = *parsed;
    if (!o.positionals.empty())
        return usageError(cmd + ": unexpected \"" + o.positionals.front() + "\" (a command goes after `--`)");

    json body = json::object();
    const auto file = o.has("-f") ? o.last("-f") : o.last("--file");
    const std::string inFile = file ? *file + ": " : std::string();
    if (file) {
        auto loaded = readJsonFile(*file);
        if (!loaded)
            return tl::unexpected(loaded.error());
        body = std::move(*loaded);
    }
    const bool batch = body.contains("workloads");
    const std::size_t optionCount = o.values.size() - (o.has("-f") ? 1 : 0) - (o.has("--file") ? 1 : 0);
    if (batch && (optionCount > 0 || o.hasCommand))
        return usageError(cmd + ": " + inFile + "holds a batch (\"workloads\"); give no other options with it");

    // The items to check: the one submission, or each of the batch.
    std::vector<std::pair<std::string, const json*>> items;
    if (batch) {
        const json& list = body["workloads"];
        if (!list.is_array() || list.empty())
            return usageError(cmd + ": " + inFile + "field `workloads` must be a non-empty array");
        for (std::size_t i = 0; i < list.size(); ++i)
            items.emplace_back("workloads[" + std::to_string(i) + "]", &list[i]);
    } else {
        if (auto applied = applySubmitOptions(cmd, o, body); !applied)
            return tl::unexpected(applied.error());
        const std::pair<const char*, const char*> required[]
            = { { "name", "--name" }, { "cpuMillis", "--cpu" }, { "memoryMiB", "--memory" } };
        for (const auto& [field, option] : required)
            if (!body.contains(field))
                return usageError(cmd + ": " + option + " is required"
                    + (file ? " (or the field `" + std::string(field) + "` in " + *file + ")" : ""));
        items.emplace_back(std::string(), &body);
    }
    // The daemon's own validation, here, so that a bad file or value is a usage error that names it.
    for (const auto& [path, item] : items) {
        if (!item->is_object())
            return usageError(cmd + ": " + inFile + "field `" + path + "` must be an object");
        if (auto valid = api::parseSubmitRequest(*item, path); !valid)
            return usageError(cmd + ": " + inFile + valid.error().message);
    }

    auto response = session.call(HttpMethod::Post, "/v1/workloads", body.dump());
    if (!response)
        return tl::unexpected(response.error());
    return session.show(*response,
        [](const json& j) { printWorkloads(j.contains("workloads") ? j["workloads"] : json::array({ j })); });
}

Result<void> list(Session& session, const std::vector<std::string>& words)
{
    const std::string cmd = "list";
    auto parsed = parseOptions(cmd, words, { { "--phase" }, { "--node" }, { "--limit" } });
    if (!parsed)
        return tl::unexpected(parsed.error());
    if (!parsed->positionals.empty())
        return usageError(cmd + ": unexpected \"" + parsed->positionals.front() + "\"");
    std::string query;
    if (const auto phase = parsed->last("--phase")) {
        if (!api::parseWorkloadPhase(*phase))
            return usageError(cmd + ": --phase: \"" + *phase
                + "\" is not a phase (pending, launching, running, stopping, succeeded, failed, killed, oom_killed, "
                  "cancelled)");
        query += "&phase=" + *phase;
    }
    if (const auto node = parsed->last("--node")) {
        auto valid = nameValue(cmd, "--node", *node);
        if (!valid)
            return tl::unexpected(valid.error());
        query += "&node=" + *node;
    }
    if (const auto limit = parsed->last("--limit")) {
        auto n = integerValue(cmd, "--limit", *limit, 1, 1'000'000'000);
        if (!n)
            return tl::unexpected(n.error());
        query += "&limit=" + std::to_string(*n);
    }
    if (!query.empty())
        query[0] = '?';
    auto response = session.call(HttpMethod::Get, "/v1/workloads" + query);
    if (!response)
        return tl::unexpected(response.error());
    return session.show(*response, [](const json& j) { printWorkloads(j.value("workloads", json::array())); });
}

Result<void> workloadCommand(Session& session, const std::string& cmd, const std::vector<std::string>& words)
{
    auto parsed = parseOptions(cmd, words, {});
    if (!parsed)
        return tl::unexpected(parsed.error());
    auto id = workloadId(cmd, *parsed);
    if (!id)
        return tl::unexpected(id.error());
    if (cmd == "get") {
        auto response = session.call(HttpMethod::Get, "/v1/workloads/" + *id);
        if (!response)
            return tl::unexpected(response.error());
        return session.show(*response, printWorkload);
    }
    if (cmd == "why") {
        auto response = session.call(HttpMethod::Get, "/v1/workloads/" + *id + "/why");
        if (!response)
            return tl::unexpected(response.error());
        return session.show(*response, printWhy);
    }
    auto response = session.call(HttpMethod::Delete, "/v1/workloads/" + *id);
    if (!response)
        return tl::unexpected(response.error());
    return session.show(*response, [](const json& w) {
        const std::string phase = text(w, "phase");
        const std::string node = present(w, "node") ? " on " + text(w, "node") : std::string();
        std::printf("workload %s: %s%s\n", text(w, "id").c_str(), phase.c_str(),
            phase == "stopping" ? (node + ", the stop is sent").c_str() : "");
    });
}

Result<void> nodes(Session& session, const std::vector<std::string>& words)
{
    const std::string cmd = "nodes";
    auto parsed = parseOptions(cmd, words, {});
    if (!parsed)
        return tl::unexpected(parsed.error());
    if (parsed->positionals.size() > 1)
        return usageError(cmd + ": give at most one node name");
    if (parsed->positionals.empty()) {
        auto response = session.call(HttpMethod::Get, "/v1/nodes");
        if (!response)
            return tl::unexpected(response.error());
        return session.show(*response, [](const json& j) { printNodes(j.value("nodes", json::array())); });
    }
    auto name = nameValue(cmd, "node name", parsed->positionals[0]);
    if (!name)
        return tl::unexpected(name.error());
    auto response = session.call(HttpMethod::Get, "/v1/nodes/" + *name);
    if (!response)
        return tl::unexpected(response.error());
    return session.show(*response, printNode);
}

// The body of `pools create` and `pools set`. The daemon's PUT changes only the fields it is given, and `null`
// sets a quota back to unlimited and the tier back to any, so `set` sends just what the operator asked for.
Result<json> poolBody(const std::string& cmd, const ParsedOptions& o, bool setting)
{
    json body = json::object();
    const std::pair<const char*, const char*> quotas[] = { { "--cpu", "cpuMillis" }, { "--memory", "memoryMiB" } };
    for (const auto& [option, field] : quotas) {
        const auto value = o.last(option);
        if (!value)
            continue;
        if (setting && *value == "unlimited") {
            body[field] = nullptr;
            continue;
        }
        auto n = integerValue(cmd, option, *value, 1,
            std::string_view(field) == "cpuMillis" ? protocol::kMaxCpuMillis : protocol::kMaxMemoryMiB);
        if (!n)
            return tl::unexpected(n.error());
        body[field] = *n;
    }
    if (const auto tier = o.last("--tier")) {
        if (setting && *tier == "any")
            body["tier"] = nullptr;
        else if (!parseTier(*tier))
            return usageError(
                cmd + ": --tier: \"" + *tier + "\" must be hot, warm or cold" + (setting ? " (or any)" : ""));
        else
            body["tier"] = *tier;
    }
    if (const auto line = o.last("--business-line")) {
        if (line->empty() || line->size() > 256
            || std::any_of(line->begin(), line->end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
            return usageError(cmd + ": --business-line must be 1 to 256 printable bytes");
        body["businessLine"] = *line;
    }
    if (const auto weight = o.last("--io-weight")) {
        auto n = integerValue(cmd, "--io-weight", *weight, 1, 10'000);
        if (!n)
            return tl::unexpected(n.error());
        body["ioWeight"] = *n;
    }
    return body;
}

Result<void> pools(Session& session, const std::vector<std::string>& words)
{
    const std::string sub = words.empty() ? std::string() : words.front();
    if (sub.empty() || sub[0] == '-') {
        auto parsed = parseOptions("pools", words, {});
        if (!parsed)
            return tl::unexpected(parsed.error());
        auto response = session.call(HttpMethod::Get, "/v1/pools");
        if (!response)
            return tl::unexpected(response.error());
        return session.show(*response, [](const json& j) { printPools(j.value("pools", json::array())); });
    }
    if (sub != "create" && sub != "set")
        return usageError("pools: unknown subcommand \"" + sub + "\" (create or set)");
    const std::string cmd = "pools " + sub;
    auto parsed = parseOptions(cmd, { words.begin() + 1, words.end() },
        { { "--cpu" }, { "--memory" }, { "--tier" }, { "--business-line" }, { "--io-weight" } });
    if (!parsed)
        return tl::unexpected(parsed.error());
    if (parsed->positionals.size() != 1)
        return usageError(cmd + ": give exactly one pool name");
    const std::string& name = parsed->positionals[0];
    if (!isName(name, 64))
        return usageError(cmd + ": pool name \"" + name + "\" must be 1 to 64 letters, digits, '.', '_' or '-'");

    Result<std::string> response;
    if (sub == "create") {
        auto body = poolBody(cmd, *parsed, false);
        if (!body)
            return tl::unexpected(body.error());
        (*body)["name"] = name;
        response = session.call(HttpMethod::Post, "/v1/pools", body->dump());
    } else {
        if (parsed->values.empty())
            return usageError(cmd + ": give at least one of --cpu, --memory, --tier, --business-line, --io-weight");
        auto body = poolBody(cmd, *parsed, true);
        if (!body)
            return tl::unexpected(body.error());
        response = session.call(HttpMethod::Put, "/v1/pools/" + name, body->dump());
    }
    if (!response)
        return tl::unexpected(response.error());
    return session.show(*response, [](const json& p) { printPools(json::array({ p })); });
}

Result<void> summary(Session& session, const std::vector<std::string>& words)
{
    auto parsed = parseOptions("summary", words, {});
    if (!parsed)
        return tl::unexpected(parsed.error());
    if (!parsed->positionals.empty())
        return usageError("summary: unexpected \"" + parsed->positionals.front() + "\"");
    auto response = session.call(HttpMethod::Get, "/v1/summary");
    if (!response)
        return tl::unexpected(response.error());
    return session.show(*response, printSummary);
}

// ---- the command line ------------------------------------------------------------------------------------------

struct CommandLine {
    GlobalOptions global;
    std::vector<std::string> words; // the command and its arguments
    bool help = false;
};

// Takes the global options out wherever they stand before `--`; the rest is the command's.
Result<CommandLine> parseCommandLine(int argc, char** argv)
{
    CommandLine line;
    const char* server = std::getenv("TIDEPOOL_SERVER");
    line.global.server = server && *server ? server : "127.0.0.1:7080";
    line.global.serverSource = server && *server ? "TIDEPOOL_SERVER" : "the default server";
    if (const char* tokenFile = std::getenv("TIDEPOOL_TOKEN_FILE"))
        line.global.tokenFile = tokenFile;
    bool afterDashes = false;
    for (int i = 1; i < argc; ++i) {
        std::string word = argv[i];
        if (afterDashes || word == "--") {
            afterDashes = true;
            line.words.push_back(std::move(word));
            continue;
        }
        if (word == "--help" || word == "-h" || (word == "help" && line.words.empty())) {
            line.help = true;
            continue;
        }
        std::string name = word;
        std::optional<std::string> value;
        if (const auto eq = word.find('='); word.rfind("--", 0) == 0 && eq != std::string::npos) {
            name = word.substr(0, eq);
            value = word.substr(eq + 1);
        }
        const bool global = name == "--server" || name == "--token-file" || name == "-o" || name == "--output"
            || name == "--timeout-ms";
        if (!global) {
            line.words.push_back(std::move(word));
            continue;
        }
        if (!value) {
            if (i + 1 >= argc)
                return usageError(name + " needs a value");
            value = argv[++i];
        }
        if (name == "--server") {
            line.global.server = *value;
            line.global.serverSource = "--server";
        } else if (name == "--token-file") {
            line.global.tokenFile = *value;
        } else if (name == "-o" || name == "--output") {
            if (*value == "table")
                line.global.output = Output::Table;
            else if (*value == "json")
                line.global.output = Output::Json;
            else
                return usageError(name + ": \"" + *value + "\" must be table or json");
        } else {
            auto ms = integerValue("tidepoolctl", name, *value, 1, 3'600'000);
            if (!ms)
                return tl::unexpected(ms.error());
            line.global.timeout = std::chrono::milliseconds(*ms);
        }
    }
    return line;
}

Result<void> run(int argc, char** argv)
{
    auto line = parseCommandLine(argc, argv);
    if (!line)
        return tl::unexpected(line.error());
    if (line->help) {
        std::fputs(kUsage, stdout);
        return {};
    }
    if (line->words.empty())
        return usageError("no command given (see tidepoolctl --help)");
    auto address = net::parseHostPort(line->global.server);
    if (!address || address->first.empty() || address->second == 0)
        return usageError(line->global.serverSource + ": "
            + (address ? "\"" + line->global.server + "\" needs a host and a port other than 0"
                       : address.error().message));
    Session session(line->global, address->first, address->second);
    const std::string command = line->words.front();
    const std::vector<std::string> rest(line->words.begin() + 1, line->words.end());
    if (command == "submit")
        return submit(session, rest);
    if (command == "list")
        return list(session, rest);
    if (command == "get" || command == "why" || command == "cancel")
        return workloadCommand(session, command, rest);
    if (command == "nodes")
        return nodes(session, rest);
    if (command == "pools")
        return pools(session, rest);
    if (command == "summary")
        return summary(session, rest);
    return usageError("unknown command \"" + command + "\" (see tidepoolctl --help)");
}

} // namespace

int main(int argc, char** argv)
{
    const auto done = run(argc, argv);
    std::fflush(stdout);
    if (done)
        return 0;
    std::fprintf(stderr, "tidepoolctl: %s\n", done.error().message.c_str());
    return done.error().exitCode;
}
