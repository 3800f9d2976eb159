#include "core/api/daemon_config.h"

#include "core/net/http_server.h"
#include "protocol/join.h"
#include "protocol/json_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>

namespace tidepool::api {

using protocol::detail::Alphabet;
using protocol::detail::JsonReader;

namespace {

Expected<std::int64_t> parseNumber(std::string_view option, std::string_view text, std::int64_t min, std::int64_t max)
{
    std::int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || value < min || value > max)
        return makeError(ErrorCode::InvalidArgument,
            std::string(option) + ": \"" + std::string(text) + "\" must be a number " + std::to_string(min) + " to "
                + std::to_string(max));
    return value;
}

// The API server's limits, each a config file field and an option. Timeouts from 100 ms: shorter ones would cut off
// clients on a busy network; the body timeout is for progress, so a big upload on a slow link is not cut short.
struct ApiLimit {
    const char* field;
    const char* option;
    std::int64_t min, max;
    void (*set)(net::HttpServerConfig&, std::int64_t);
};

constexpr std::int64_t kMaxApiConnections = 100'000;
constexpr std::int64_t kMaxApiBodyBytes = std::int64_t { 1 } << 30;

constexpr ApiLimit kApiLimits[] = {
    { "apiMaxConnections", "--api-max-connections", 1, kMaxApiConnections,
        [](net::HttpServerConfig& c, std::int64_t n) { c.maxConnections = static_cast<std::size_t>(n); } },
    { "apiMaxBodyBytes", "--api-max-body-bytes", 4096, kMaxApiBodyBytes,
        [](net::HttpServerConfig& c, std::int64_t n) { c.maxBodyBytes = static_cast<std::uint64_t>(n); } },
    { "apiHeaderTimeoutMs", "--api-header-timeout-ms", 100, 600'000,
        [](net::HttpServerConfig& c, std::int64_t n) { c.headerTimeout = std::chrono::milliseconds(n); } },
    { "apiBodyTimeoutMs", "--api-body-timeout-ms", 100, 600'000,
        [](net::HttpServerConfig& c, std::int64_t n) { c.bodyTimeout = std::chrono::milliseconds(n); } },
    { "apiWriteTimeoutMs", "--api-write-timeout-ms", 100, 600'000,
        [](net::HttpServerConfig& c, std::int64_t n) { c.writeTimeout = std::chrono::milliseconds(n); } },
    { "apiIdleTimeoutMs", "--api-idle-timeout-ms", 100, 3'600'000,
        [](net::HttpServerConfig& c, std::int64_t n) { c.idleTimeout = std::chrono::milliseconds(n); } },
};

Expected<void> applyConfigFile(const std::string& path, DaemonConfig& config)
{
    std::ifstream in(path);
    if (!in)
        return makeError(ErrorCode::IoError, "config file " + path + ": cannot be read");
    std::stringstream text;
    text << in.rdbuf();
    // A key given twice (two "db" lines after an edit) is refused: nlohmann alone would keep the last, silently.
    auto parsed = protocol::detail::parseUniqueKeys(text.str());
    if (!parsed)
        return makeError(ErrorCode::ParseError, "config file " + path + ": " + parsed.error().message);
    const nlohmann::json root = std::move(*parsed);
    if (!root.is_object())
        return makeError(ErrorCode::ParseError, "config file " + path + ": must hold one JSON object");
    std::optional<protocol::Error> error;
    JsonReader r(root, "", error);
    if (r.has("agentListen"))
        config.agentListen = r.string("agentListen", Alphabet::Text, 300);
    if (r.has("apiListen"))
        config.apiListen = r.string("apiListen", Alphabet::Text, 300);
    if (r.has("db"))
        config.db = r.string("db", Alphabet::Text, 4096);
    if (r.has("postgresAnswerTimeoutMs"))
        config.postgres.answerTimeout
            = std::chrono::milliseconds(r.integer("postgresAnswerTimeoutMs", 1000, 3'600'000));
    if (r.has("joinTokenFile"))
        config.joinTokenFile = r.string("joinTokenFile", Alphabet::Text, 4096);
    if (r.has("operatorTokenFile"))
        config.operatorTokenFile = r.string("operatorTokenFile", Alphabet::Text, 4096);
    if (r.has("operatorTokens"))
        config.operatorTokens = r.strings("operatorTokens", Alphabet::Text, 64, 256);
    for (const auto& [key, target] : { std::pair { "tlsCertificate", &config.tlsCertificate },
             std::pair { "tlsPrivateKey", &config.tlsPrivateKey }, std::pair { "tlsClientCa", &config.tlsClientCa },
             std::pair { "apiTlsCertificate", &config.apiTlsCertificate },
             std::pair { "apiTlsPrivateKey", &config.apiTlsPrivateKey },
             std::pair { "agentTokenFile", &config.agentTokenFile },
             std::pair { "carbonIntensityFile", &config.carbonIntensityFile },
             std::pair { "powerCommand", &config.rebalance.powerCommand } })
        if (r.has(key))
            *target = r.string(key, Alphabet::Text, 4096);
    if (r.has("powerCommandTimeoutMs"))
        config.rebalance.powerCommandTimeout = std::chrono::milliseconds(r.integer("powerCommandTimeoutMs", 100, 3'600'000));
    if (r.has("profile"))
        config.plane.profile = r.string("profile", Alphabet::Name, 64);
    if (r.has("heartbeatIntervalMs"))
        config.plane.heartbeatIntervalMs = static_cast<std::int32_t>(r.integer(
            "heartbeatIntervalMs", protocol::kMinHeartbeatIntervalMs, protocol::kMaxHeartbeatIntervalMs));
    if (r.has("suspectAfterMs"))
        config.plane.suspectAfter = std::chrono::milliseconds(r.integer("suspectAfterMs", 100, 86'400'000));
    if (r.has("lostAfterMs"))
        config.plane.lostAfter = std::chrono::milliseconds(r.integer("lostAfterMs", 100, 86'400'000));
    if (r.has("restartGraceMs"))
        config.plane.restartGrace = std::chrono::milliseconds(r.integer("restartGraceMs", 0, 86'400'000));
    if (r.has("stopGraceMs"))
        config.plane.stopGraceMs = static_cast<std::int32_t>(r.integer("stopGraceMs", 0, kMaxStopGraceMs));
    if (r.has("restartBackoffMs"))
        config.plane.restartBackoff = std::chrono::milliseconds(r.integer("restartBackoffMs", 100, 3'600'000));
    if (r.has("restartBackoffMaxMs"))
        config.plane.restartBackoffMax = std::chrono::milliseconds(r.integer("restartBackoffMaxMs", 100, 86'400'000));
    if (r.has("historyIntervalMs"))
        config.history.interval = std::chrono::milliseconds(r.integer("historyIntervalMs", 1000, 3'600'000));
    if (r.has("rawHistoryHours"))
        config.history.retention.rawMs = r.integer("rawHistoryHours", 1, 24 * 366) * 3'600'000;
    if (r.has("aggregateHistoryDays"))
        config.history.retention.aggregateMs = r.integer("aggregateHistoryDays", 1, 3660) * 86'400'000;
    if (r.has("auditDays"))
        config.history.retention.auditMs = r.integer("auditDays", 0, 36600) * 86'400'000;
    if (r.has("proposalDays")) {
        config.history.retention.proposalMs = r.integer("proposalDays", 0, 36600) * 86'400'000;
        config.rebalance.keepClosedProposals = std::chrono::milliseconds(config.history.retention.proposalMs);
    }
    if (r.has("evaluationPeriodMs"))
        config.rebalance.period = std::chrono::milliseconds(r.integer("evaluationPeriodMs", 1000, 86'400'000));
    if (r.has("drainMinutes")) {
        const std::int64_t minutes = r.integer("drainMinutes", 0, 24 * 60);
        if (minutes % 5 != 0)
            error = protocol::Error { protocol::ErrorCode::OutOfRange, "drainMinutes",
                "field `drainMinutes` is " + std::to_string(minutes)
                    + ", not a multiple of 5 (the evaluation's step)" };
        config.rebalance.drainSteps = static_cast<std::size_t>(minutes / 5);
    }
    if (r.has("headroomPercent"))
        config.rebalance.evaluator.headroom = 1.0 + static_cast<double>(r.integer("headroomPercent", 0, 200)) / 100.0;
    if (r.has("maxPowerDownsPerNodePerDay"))
        config.rebalance.evaluator.maxPowerDownsPerNodePerDay
            = static_cast<std::size_t>(r.integer("maxPowerDownsPerNodePerDay", 0, 288));
    if (r.has("rightSizeAfterMinutes"))
        config.rebalance.rightSize.observeFor
            = std::chrono::minutes(r.integer("rightSizeAfterMinutes", 0, 90LL * 24 * 60));
    if (r.has("rightSizeMarginPercent"))
        config.rebalance.rightSize.margin
            = 1.0 + static_cast<double>(r.integer("rightSizeMarginPercent", 0, 200)) / 100.0;
    if (r.has("rightSizeCpuPercentile"))
        config.rebalance.rightSize.cpuPercentile
            = static_cast<double>(r.integer("rightSizeCpuPercentile", 50, 100)) / 100.0;
    if (r.has("rejectionHoldMinutes"))
        config.rebalance.rejectionHold = std::chrono::minutes(r.integer("rejectionHoldMinutes", 0, 7 * 24 * 60));
    if (r.has("forecastModel"))
        config.rebalance.model = r.string("forecastModel", Alphabet::Name, 64);
    if (r.has("autoApprove"))
        for (const std::string& kind : r.strings("autoApprove", Alphabet::Name, 8, 32)) {
            const auto parsed = rebalance::parseProposalKind(kind);
            if (!parsed) {
                error = protocol::Error { protocol::ErrorCode::OutOfRange, "autoApprove",
                    "field `autoApprove` names \"" + kind + "\", not a proposal kind (quota, power_down, power_up)" };
                break;
            }
            config.rebalance.autoApprove.push_back(*parsed);
        }
    if (r.has("maxFrameBytes"))
        config.maxFrameBytes = static_cast<std::uint32_t>(r.integer("maxFrameBytes", 1024, 64 << 20));
    for (const ApiLimit& limit : kApiLimits)
        if (r.has(limit.field))
            limit.set(config.apiLimits, r.integer(limit.field, limit.min, limit.max));
    for (const std::string& key : reportConfigFields())
        r.skip(key);
    r.rejectUnknownFields();
    if (error)
        return makeError(ErrorCode::InvalidArgument, "config file " + path + ": " + error->message);
    if (auto report = readReportConfig(root, config.report); !report)
        return makeError(ErrorCode::InvalidArgument, "config file " + path + ": " + report.error().message);
    return {};
}

} // namespace

std::string daemonUsage()
{
    return R"(usage: tidepoold [options]
  --config FILE               JSON settings (fields named as the options in camelCase: agentListen, apiListen, db,
                              joinTokenFile, agentTokenFile, operatorTokenFile, operatorTokens, tlsCertificate,
                              tlsPrivateKey, tlsClientCa, apiTlsCertificate, apiTlsPrivateKey,
                              profile, heartbeatIntervalMs, suspectAfterMs, lostAfterMs, restartGraceMs,
                              historyIntervalMs, evaluationPeriodMs, carbonIntensityFile, powerCommand,
                              powerCommandTimeoutMs, maxFrameBytes, apiMaxConnections, apiMaxBodyBytes,
                              apiHeaderTimeoutMs, apiBodyTimeoutMs, apiWriteTimeoutMs, apiIdleTimeoutMs; and, in the
                              file only,
                              rawHistoryHours (default 48), aggregateHistoryDays (90), auditDays (0 = keep forever),
                              proposalDays (closed proposals, default 90; 0 = keep forever),
                              forecastModel (default "seasonal"), autoApprove (proposal kinds applied without an
                              operator when their risk is low: quota, power_down, power_up, resize, ...),
                              rightSizeAfterMinutes (a running workload measured this long gets a resize proposal
                              when its use is far from its requests; default 360, 0 = none),
                              rightSizeCpuPercentile (its CPU request from this percentile of its CPU samples,
                              50-100, default 90; 100: its peak) and rightSizeMarginPercent (on top of that and of its
                              memory's peak, default 15), and for reports
                              reportDirectory, reportDailyAt ("HH:MM" UTC, default "00:15"), reportLanguage (en,
                              zh_CN), reportCurrency (default "CNY") and reportPrices ({"NODE-CLASS": {"cpuCoreHour",
                              "memoryGiBHour", "gpuHour", "npuHour", "fpgaHour"}}, "*" for every other class));
                              options override it
  --agent-listen HOST:PORT    where agents connect (default 0.0.0.0:7070)
  --api-listen HOST:PORT      HTTP API and /metrics (default 127.0.0.1:7080; "" for none)
  --db PATH|URI               where the daemon keeps its state: an SQLite file, or a PostgreSQL database
                              named by a libpq URI (postgresql://USER@HOST:PORT/DATABASE?sslmode=verify-full, or
                              postgres://...) for a shared deployment; the tables are created on first use and one
                              tidepoold writes a database. Put the password in ~/.pgpass or the file PGPASSFILE
                              names, never in the URI (it would show in the process list)
  --pg-answer-timeout-ms N    with a PostgreSQL --db: how long a commit or read waits for the server to answer before
                              it fails, naming the server, and the connection is taken again (default 30000)
  --join-token-file FILE      the shared join token agents authenticate with (at least 16 bytes)
  --agent-token-file FILE     single-use agent bootstrap tokens, one a line (made by `tidepoold certs init`): each
                              is bound to the first node that joins with it (kept in --db); another node presenting
                              it is refused. One of --join-token-file and --agent-token-file is required
  --operator-token-file FILE  the API's operator tokens, hashed, with their roles (viewer, operator, admin), made
                              with `tidepoold token add`; a file holding one plaintext token (the format before
                              roles) is still read, as an admin token
  --tls-cert FILE --tls-key FILE
                              TLS for agent connections (PEM); agents then connect with --tls-ca
  --tls-client-ca FILE        also require agents to present a certificate signed by this CA
  --api-tls-cert FILE --api-tls-key FILE
                              HTTPS for the API and /metrics (PEM): the listener then speaks TLS only; clients
                              verify it with the CA (tidepoolctl --server https://HOST:PORT --ca FILE)
  --api-max-connections N     API connections open at once (1-100000, default 1024); at the cap a newcomer closes
                              the one idle longest, else the one sending a request body longest
  --api-max-body-bytes N      the largest request body, larger ones get 413 (4096-1073741824, default 8388608: a
                              batch of 10,000 submissions fits)
  --api-header-timeout-ms N   a request's headers (and the TLS handshake) must arrive within this, from the
                              connection or the request's first byte (100-600000, default 10000)
  --api-body-timeout-ms N     a request's body must make progress at least this often (100-600000, default 10000)
  --api-write-timeout-ms N    an answer the client reads nothing of for this long is dropped with the connection
                              (100-600000, default 30000)
  --api-idle-timeout-ms N     how long a kept-alive connection may wait for its next request (100-3600000, default
                              60000); /metrics counts the timeouts (tidepool_api_timeouts_total{phase})
  --profile NAME              scheduling profile (default "default")
  --heartbeat-interval-ms N   told to agents (default 5000)
  --suspect-after-ms N        silence before a node takes no new work (default 15000)
  --lost-after-ms N           silence before its workloads are placed elsewhere (default 45000)
  --stop-grace-ms N           how long a workload stopped (cancelled, moved, drained) has from SIGTERM to SIGKILL
                              when its submission names no grace of its own (0-3600000, default 10000)
  --restart-backoff-ms N --restart-backoff-max-ms N
                              a workload its restart policy starts again waits N ms after its first end, doubled
                              after each launch that ended within 10 minutes of running, up to the most (defaults
                              1000 and 300000; 100-3600000 and 100-86400000)
  --history-interval-ms N     how often utilisation history is recorded, with --db (default 60000)
  --evaluation-period-ms N    how often the cluster is evaluated for proposals, with --db (default 300000)
  --drain-minutes N           with --db: how long before a hot GPU node is reserved for a forecast peak it drains:
                              no new batch starts there and the batch running there may end on its own; what is
                              left is stopped once the peak is within the hour (a multiple of 5; default 0:
                              reserve and stop the batch only within the hour)
  --headroom-percent N        with --db: forecast (p90) peaks are planned with N% to spare: the quota raised for a
                              pool's peak, the hot nodes reserved for the inference peak and the capacity kept on
                              when nodes are powered down (0-200, default 20); less spare is cheaper and leaves
                              less room for a peak above the forecast
  --max-power-downs-per-day N with --db: a node powered down N times in the last 24 hours is not proposed for
                              power-down again until a day has passed since the first (default 0: no limit)
  --rejection-hold-minutes N  with --db: advice an operator rejected is not proposed again for N minutes while the
                              evaluation's plan stays the same (0-10080, default 360); a changed plan is proposed
  --carbon-intensity FILE     the grid's carbon intensity forecast (CSV: timestamp,gco2_per_kwh) for deferring
                              deferrable batch to low-carbon windows (and the reports' carbon)
  --report-dir DIR            with --db: writes the previous UTC day's cluster report there every day at
                              reportDailyAt, as HTML and CSV (tidepool-report-YYYY-MM-DD.html/.csv; no PDF: the daemon
                              has no Qt, `tidepoolctl report --format pdf` makes one)
  --power-command PROGRAM     switches nodes off and on for power proposals, with --db: run (no shell) as
                              `PROGRAM off NODE` once an approved power-down has cordoned the empty node, and
                              `PROGRAM on NODE` before an approved power-up lifts its cordon (an ipmitool wrapper, a
                              Wake-on-LAN script); a non-zero exit or a timeout fails the step and rolls the proposal
                              back. Without it, power proposals only cordon and uncordon
  --power-command-timeout-ms N
                              how long the power command may run before it is killed (default 60000)
  --check-config              validate the settings and the token files, then exit
  --help

Certificates and agent bootstrap tokens (made with OpenSSL, no shell needed):
tidepoold certs init --dir DIR --names NAME[,NAME...] [--agents N] [--days D] [--force]
                              DIR/ca.pem, ca.key (a private CA), core.pem, core.key (the core's certificate for the
                              DNS names and IP addresses given, and localhost, 127.0.0.1), agent-tokens (N single-use
                              bootstrap tokens, mode 0600; default 10). An existing CA is kept unless --force
tidepoold certs tokens --dir DIR [--agents N]
                              appends N more bootstrap tokens to DIR/agent-tokens and prints them
tidepoold certs agent --dir DIR --name NODE [--days D]
                              a client certificate for NODE (DIR/agents/NODE.pem, .key), signed by DIR's CA, for
                              cores that require them (--tls-client-ca DIR/ca.pem)

Operator tokens (on the daemon's host; a running tidepoold reads the file again on SIGHUP, or when restarted):
tidepoold token add --token-file FILE --name NAME --role viewer|operator|admin
                              makes a token, prints it once on standard output and appends its salted hash to FILE
                              (created with mode 0600)
tidepoold token remove --token-file FILE --name NAME
tidepoold token migrate --token-file FILE --name NAME [--role ROLE]
                              replaces a plaintext token file with the hashed line of the same token (default role
                              admin, as it had), so that clients keep their token files
tidepoold token list --token-file FILE
                              the names (as the audit log shows them) and roles in FILE
)";
}

Expected<std::string> readSecretFile(const std::string& path, const std::string& what)
{
    std::ifstream in(path);
    if (!in)
        return makeError(ErrorCode::IoError, what + " file " + path + " cannot be read");
    std::string line;
    std::getline(in, line);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
        line.pop_back();
    if (line.empty())
        return makeError(ErrorCode::InvalidArgument, what + " file " + path + " is empty");
    return line;
}

Expected<std::vector<protocol::BootstrapToken>> readBootstrapTokenFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        return makeError(ErrorCode::IoError, "agent token file " + path + " cannot be read");
    std::vector<protocol::BootstrapToken> tokens;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.pop_back();
        const auto start = line.find_first_not_of(" \t");
        if (start == std::string::npos || line[start] == '#')
            continue;
        auto token = protocol::parseBootstrapToken(std::string_view(line).substr(start));
        if (!token)
            return makeError(ErrorCode::InvalidArgument,
                "agent token file " + path + ", line " + std::to_string(number)
                    + ": not a bootstrap token (tpb1.<16 hex digits>.<64 hex digits>, as `tidepoold certs` writes)");
        for (const auto& known : tokens)
            if (known.id == token->id)
                return makeError(ErrorCode::InvalidArgument,
                    "agent token file " + path + ", line " + std::to_string(number) + ": token id " + token->id
                        + " appears twice");
        tokens.push_back(std::move(*token));
    }
    if (tokens.empty())
        return makeError(ErrorCode::InvalidArgument, "agent token file " + path + " holds no bootstrap token");
    return tokens;
}

Expected<std::vector<OperatorToken>> reloadOperatorTokens(const DaemonConfig& config)
{
    std::vector<OperatorToken> tokens;
    if (!config.operatorTokenFile.empty()) {
        auto file = readTokenFile(config.operatorTokenFile);
        if (!file)
            return tl::unexpected(file.error());
        tokens = std::move(file->tokens);
    }
    tokens.insert(tokens.end(), config.configTokens.begin(), config.configTokens.end());
    if (tokens.empty())
        return makeError(ErrorCode::InvalidArgument, "no operator token left; the API would refuse everyone");
    return tokens;
}

Expected<DaemonConfig> parseDaemonConfig(int argc, const char* const* argv)
{
    DaemonConfig config;
    // The config file first, wherever --config stands, so that the other options override it.
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string_view(argv[i]) == "--config")
            if (auto applied = applyConfigFile(argv[i + 1], config); !applied)
                return tl::unexpected(applied.error());
    for (int i = 1; i < argc; ++i) {
        const std::string_view option = argv[i];
        if (option == "--help" || option == "-h") {
            config.help = true;
            return config;
        }
        if (option == "--check-config") {
            config.checkOnly = true;
            continue;
        }
        if (i + 1 >= argc)
            return makeError(ErrorCode::InvalidArgument, std::string(option) + " needs a value (see --help)");
        const std::string value = argv[++i];
        if (option == "--config")
            continue;
        if (option == "--agent-listen")
            config.agentListen = value;
        else if (option == "--api-listen")
            config.apiListen = value;
        else if (option == "--db")
            config.db = value;
        else if (option == "--pg-answer-timeout-ms") {
            auto n = parseNumber(option, value, 1000, 3'600'000);
            if (!n)
                return tl::unexpected(n.error());
            config.postgres.answerTimeout = std::chrono::milliseconds(*n);
        } else if (option == "--join-token-file")
            config.joinTokenFile = value;
        else if (option == "--operator-token-file")
            config.operatorTokenFile = value;
        else if (option == "--profile")
            config.plane.profile = value;
        else if (option == "--tls-cert")
            config.tlsCertificate = value;
        else if (option == "--tls-key")
            config.tlsPrivateKey = value;
        else if (option == "--tls-client-ca")
            config.tlsClientCa = value;
        else if (option == "--api-tls-cert")
            config.apiTlsCertificate = value;
        else if (option == "--api-tls-key")
            config.apiTlsPrivateKey = value;
        else if (option == "--agent-token-file")
            config.agentTokenFile = value;
        else if (option == "--carbon-intensity")
            config.carbonIntensityFile = value;
        else if (option == "--report-dir")
            config.report.directory = value;
        else if (option == "--power-command")
            config.rebalance.powerCommand = value;
        else if (option == "--power-command-timeout-ms") {
            auto n = parseNumber(option, value, 100, 3'600'000);
            if (!n)
                return tl::unexpected(n.error());
            config.rebalance.powerCommandTimeout = std::chrono::milliseconds(*n);
        } else if (option == "--drain-minutes") {
            auto n = parseNumber(option, value, 0, 24 * 60);
            if (!n)
                return tl::unexpected(n.error());
            if (*n % 5 != 0)
                return makeError(ErrorCode::InvalidArgument,
                    "--drain-minutes " + std::string(value) + " is not a multiple of 5 (the evaluation's step)");
            config.rebalance.drainSteps = static_cast<std::size_t>(*n / 5);
        } else if (option == "--headroom-percent") {
            auto n = parseNumber(option, value, 0, 200);
            if (!n)
                return tl::unexpected(n.error());
            config.rebalance.evaluator.headroom = 1.0 + static_cast<double>(*n) / 100.0;
        } else if (option == "--max-power-downs-per-day") {
            auto n = parseNumber(option, value, 0, 288);
            if (!n)
                return tl::unexpected(n.error());
            config.rebalance.evaluator.maxPowerDownsPerNodePerDay = static_cast<std::size_t>(*n);
        } else if (option == "--rejection-hold-minutes") {
            auto n = parseNumber(option, value, 0, 7 * 24 * 60);
            if (!n)
                return tl::unexpected(n.error());
            config.rebalance.rejectionHold = std::chrono::minutes(*n);
        } else if (const auto* limit = std::find_if(std::begin(kApiLimits), std::end(kApiLimits),
                       [&](const ApiLimit& l) { return option == l.option; });
                   limit != std::end(kApiLimits)) {
            auto n = parseNumber(option, value, limit->min, limit->max);
            if (!n)
                return tl::unexpected(n.error());
            limit->set(config.apiLimits, *n);
        } else if (option == "--history-interval-ms" || option == "--evaluation-period-ms") {
            auto n = parseNumber(option, value, 1000, option == "--history-interval-ms" ? 3'600'000 : 86'400'000);
            if (!n)
                return tl::unexpected(n.error());
            if (option == "--history-interval-ms")
                config.history.interval = std::chrono::milliseconds(*n);
            else
                config.rebalance.period = std::chrono::milliseconds(*n);
        } else if (option == "--stop-grace-ms") {
            auto n = parseNumber(option, value, 0, kMaxStopGraceMs);
            if (!n)
                return tl::unexpected(n.error());
            config.plane.stopGraceMs = static_cast<std::int32_t>(*n);
        } else if (option == "--restart-backoff-ms" || option == "--restart-backoff-max-ms") {
            auto n = parseNumber(option, value, 100, option == "--restart-backoff-ms" ? 3'600'000 : 86'400'000);
            if (!n)
                return tl::unexpected(n.error());
            (option == "--restart-backoff-ms" ? config.plane.restartBackoff : config.plane.restartBackoffMax)
                = std::chrono::milliseconds(*n);
        } else if (option == "--heartbeat-interval-ms" || option == "--suspect-after-ms"
            || option == "--lost-after-ms") {
            auto n = parseNumber(option, value, option == "--heartbeat-interval-ms" ? protocol::kMinHeartbeatIntervalMs : 100,
                86'400'000);
            if (!n)
                return tl::unexpected(n.error());
            if (option == "--heartbeat-interval-ms")
                config.plane.heartbeatIntervalMs = static_cast<std::int32_t>(*n);
            else if (option == "--suspect-after-ms")
                config.plane.suspectAfter = std::chrono::milliseconds(*n);
            else
                config.plane.lostAfter = std::chrono::milliseconds(*n);
        } else
            return makeError(ErrorCode::InvalidArgument, "unknown option " + std::string(option) + " (see --help)");
    }

    if (config.plane.restartBackoffMax < config.plane.restartBackoff)
        return makeError(ErrorCode::InvalidArgument,
            "--restart-backoff-max-ms (" + std::to_string(config.plane.restartBackoffMax.count())
                + ") is below --restart-backoff-ms (" + std::to_string(config.plane.restartBackoff.count())
                + "): the back-off doubles up to its most");
    // An empty --api-listen runs no HTTP API (the console's embedded mode), and then needs no operator token.
    for (const auto& [name, text] : { std::pair { "--agent-listen", config.agentListen },
             std::pair { "--api-listen", config.apiListen } }) {
        if (text.empty() && std::string_view(name) == "--api-listen")
            continue;
        if (auto hp = net::parseHostPort(text); !hp)
            return makeError(ErrorCode::InvalidArgument, std::string(name) + ": " + hp.error().message);
    }
    if (config.joinTokenFile.empty() && config.agentTokenFile.empty())
        return makeError(ErrorCode::InvalidArgument,
            "--join-token-file or --agent-token-file is required: agents authenticate with them");
    if (!config.joinTokenFile.empty()) {
        auto joinToken = readSecretFile(config.joinTokenFile, "join token");
        if (!joinToken)
            return tl::unexpected(joinToken.error());
        if (auto valid = protocol::checkJoinToken(*joinToken); !valid)
            return makeError(
                ErrorCode::InvalidArgument, "join token file " + config.joinTokenFile + ": " + valid.error().message);
        config.joinToken = std::move(*joinToken);
    }
    if (!config.agentTokenFile.empty()) {
        auto tokens = readBootstrapTokenFile(config.agentTokenFile);
        if (!tokens)
            return tl::unexpected(tokens.error());
        config.bootstrapTokens = std::move(*tokens);
        if (config.db.empty())
            config.warnings.push_back("agent bootstrap tokens without --db: which node used which token is forgotten "
                                      "at a restart, so a used token could join as another node then");
    }
    if (!config.operatorTokenFile.empty()) {
        auto file = readTokenFile(config.operatorTokenFile);
        if (!file)
            return tl::unexpected(file.error());
        if (file->plaintext)
            config.warnings.push_back("operator token file " + config.operatorTokenFile
                + " holds a plaintext token (the format before roles); it is accepted with the admin role. Hash it "
                  "with `tidepoold token migrate --token-file "
                + config.operatorTokenFile + " --name NAME` (clients keep their token)");
        config.tokens = std::move(file->tokens);
    }
    for (const std::string& text : config.operatorTokens) {
        auto token = plaintextToken(text);
        if (!token)
            return makeError(ErrorCode::InvalidArgument, "config file: `operatorTokens`: " + token.error().message);
        config.configTokens.push_back(std::move(*token));
    }
    config.tokens.insert(config.tokens.end(), config.configTokens.begin(), config.configTokens.end());
    if (!config.operatorTokens.empty())
        config.warnings.push_back("the config file's `operatorTokens` are plaintext (the format before roles); they "
                                  "are accepted with the admin role. Move them to a hashed token file "
                                  "(`tidepoold token add`, `operatorTokenFile`)");
    config.operatorTokens.clear();
    if (config.tokens.empty() && !config.apiListen.empty())
        return makeError(ErrorCode::InvalidArgument,
            "no operator token: give --operator-token-file (made with `tidepoold token add`); the API needs one");
    if (config.tlsCertificate.empty() != config.tlsPrivateKey.empty())
        return makeError(ErrorCode::InvalidArgument, "TLS needs both --tls-cert and --tls-key");
    if (!config.tlsClientCa.empty() && config.tlsCertificate.empty())
        return makeError(ErrorCode::InvalidArgument, "--tls-client-ca needs --tls-cert and --tls-key");
    if (config.apiTlsCertificate.empty() != config.apiTlsPrivateKey.empty())
        return makeError(ErrorCode::InvalidArgument, "HTTPS for the API needs both --api-tls-cert and --api-tls-key");
    if (config.plane.lostAfter <= config.plane.suspectAfter)
        return makeError(ErrorCode::InvalidArgument, "lost-after must be longer than suspect-after");
    if (config.plane.suspectAfter.count() < 2 * config.plane.heartbeatIntervalMs)
        return makeError(ErrorCode::InvalidArgument,
            "suspect-after (" + std::to_string(config.plane.suspectAfter.count())
                + " ms) must cover at least two heartbeat intervals ("
                + std::to_string(config.plane.heartbeatIntervalMs) + " ms each)");
    if (!config.rebalance.powerCommand.empty())
        if (auto usable = checkPowerCommand(config.rebalance.powerCommand); !usable)
            return tl::unexpected(usable.error());
    if (!config.carbonIntensityFile.empty()) {
        auto carbon = rebalance::loadCarbonIntensity(config.carbonIntensityFile);
        if (!carbon)
            return makeError(ErrorCode::InvalidArgument, "--carbon-intensity: " + carbon.error().message);
        config.rebalance.carbon = std::move(*carbon);
    }
    config.report.settings.carbon = config.rebalance.carbon;
    config.report.settings.carbonGramsPerKWh = config.rebalance.evaluator.carbonGramsPerKWh;
    config.report.settings.idleWattsPerNode = config.rebalance.evaluator.idleWattsPerNode;
    config.report.settings.idleWattsPerAccelerator = config.rebalance.evaluator.idleWattsPerAccelerator;
    config.report.settings.wattsPerBusyCore = config.rebalance.evaluator.wattsPerBusyCore;
    config.report.settings.forecastModel = config.rebalance.model;
    if (!config.report.directory.empty() && config.db.empty())
        return makeError(ErrorCode::InvalidArgument, "--report-dir needs --db: a report is made from the history");
    return config;
}

} // namespace tidepool::api
