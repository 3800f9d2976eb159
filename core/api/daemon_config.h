#pragma once
// tidepoold's settings: defaults, then a JSON config file (`--config`), then the command line, each overriding the
// one before. Every value is checked, and an error names the option or the config file's field; secrets (the join
// token, the operator tokens) are read from files and never echoed; operator tokens are kept hashed.
//
// Thread affinity: none; plain values and functions, used before the daemon starts its threads.

#include "core/api/control_plane.h"
#include "core/api/daily_report.h"
#include "core/api/history_recorder.h"
#include "core/api/operator_tokens.h"
#include "core/api/rebalancer.h"
#include "core/net/http_server.h"
#include "protocol/join.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tidepool::api {

struct DaemonConfig {
    std::string agentListen = "0.0.0.0:7070";
    std::string apiListen = "127.0.0.1:7080";
    std::string db; // SQLite database path, or a PostgreSQL URI (postgresql://...; store::isPostgresLocation)
    store::PostgresOptions postgres; // with a PostgreSQL `db`
    std::string joinTokenFile;
    std::string operatorTokenFile; // hashed tokens with roles (operator_tokens.h), or one plaintext token
    std::vector<std::string> operatorTokens; // plaintext, from the config file (the format before roles); emptied
    std::vector<OperatorToken> tokens; // from the token file and `operatorTokens`, hashed
    std::vector<OperatorToken> configTokens; // those of `operatorTokens`, kept for `reloadOperatorTokens`
    std::vector<std::string> warnings; // for the log at start: plaintext tokens still in use
    std::string joinToken; // read from joinTokenFile
    // Single-use agent bootstrap tokens (`tidepoold certs init --agents N`), one `tpb1.<id>.<secret>` a line. With
    // them the shared join token is optional.
    std::string agentTokenFile;
    std::vector<protocol::BootstrapToken> bootstrapTokens; // read from agentTokenFile
    // TLS for agent connections when both are set; with tlsClientCa, agents must present certificates it signed.
    std::string tlsCertificate;
    std::string tlsPrivateKey;
    std::string tlsClientCa;
    // HTTPS for the API (and /metrics) when both are set: the listener then speaks TLS only.
    std::string apiTlsCertificate;
    std::string apiTlsPrivateKey;
    std::string carbonIntensityFile; // CSV timestamp,gco2_per_kwh; loaded into `rebalance.carbon`
    std::uint32_t maxFrameBytes = 1u << 20;
    // The API server's limits (`apiMaxConnections`, `apiMaxBodyBytes`, `api*TimeoutMs`); its `tls` is set from
    // `apiTlsCertificate` when the server is made.
    net::HttpServerConfig apiLimits;
    ControlPlaneConfig plane;
    HistoryConfig history;
    RebalanceConfig rebalance;
    ReportConfig report; // GET /v1/report's prices and the daily report (daily_report.h)
    bool checkOnly = false; // --check-config
    bool help = false;
};

// Parses `argv` (and the config file it names). `usage` is filled with the help text.
Expected<DaemonConfig> parseDaemonConfig(int argc, const char* const* argv);
std::string daemonUsage();
// The token file read again (SIGHUP) with the config file's tokens: what `HttpApi::setTokens` takes; the error names
// the file and the line, and the caller keeps the tokens it had.
Expected<std::vector<OperatorToken>> reloadOperatorTokens(const DaemonConfig& config);
// Reads an agent bootstrap token file: one `tpb1.<id>.<secret>` a line; blank lines and `#` comments are skipped. The
// error names the file and the line, never its content; an empty file is an error too.
Expected<std::vector<protocol::BootstrapToken>> readBootstrapTokenFile(const std::string& path);
// Reads a secret file: the first line, without trailing whitespace; the error names the file, never the content.
Expected<std::string> readSecretFile(const std::string& path, const std::string& what);

} // namespace tidepool::api
