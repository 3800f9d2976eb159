#include "app/tidepoold/certs_command.h"

#include "core/net/certificates.h"
#include "protocol/join.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace tidepool {

namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage
    = "usage: tidepoold certs init --dir DIR --names NAME[,NAME...] [--agents N] [--days D] [--force]\n"
      "       tidepoold certs tokens --dir DIR [--agents N]\n"
      "       tidepoold certs agent --dir DIR --name NODE [--days D] [--force]\n"
      "\n"
      "init    DIR/ca.pem, ca.key: a private CA (keep ca.key safe; clients and agents get ca.pem)\n"
      "        DIR/core.pem, core.key: the core's certificate for the DNS names and IP addresses in --names, and\n"
      "        localhost, 127.0.0.1, ::1 (tidepoold --tls-cert/--tls-key and --api-tls-cert/--api-tls-key)\n"
      "        DIR/agent-tokens: N single-use agent bootstrap tokens (default 10), mode 0600\n"
      "        (tidepoold --agent-token-file); give each agent one line as its --join-token-file.\n"
      "        Certificates last D days (default 825), the CA ten years. An existing CA is not overwritten\n"
      "        without --force (which replaces the CA, the certificate and the tokens)\n"
      "tokens  appends N more bootstrap tokens (default 1) to DIR/agent-tokens and prints them; a running tidepoold\n"
      "        reads the file again on SIGHUP\n"
      "agent   DIR/agents/NODE.pem, NODE.key: a client certificate for an agent, signed by DIR's CA, for a core that\n"
      "        requires them (tidepoold --tls-client-ca DIR/ca.pem; tidepool-agent --tls-cert --tls-key)\n";

constexpr int kCaDays = 3650;

struct CommandError {
    int exitCode;
    std::string message;
};

int report(const CommandError& error)
{
    std::fprintf(stderr, "tidepoold certs: %s\n", error.message.c_str());
    if (error.exitCode == 2)
        std::fputs(kUsage, stderr);
    return error.exitCode;
}

CommandError usageError(std::string message)
{
    return CommandError { 2, std::move(message) };
}

// Writes `content` to `path` with `mode`, atomically: a temporary file beside it, synced, then renamed over it.
std::optional<CommandError> writeFile(const fs::path& path, const std::string& content, mode_t mode)
{
    const fs::path temporary = path.parent_path() / ("." + path.filename().string() + ".tmp");
    ::unlink(temporary.c_str());
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0)
        return CommandError { 1, "cannot create " + temporary.string() + ": " + std::strerror(errno) };
    // The umask must not widen nor narrow what is asked: keys stay 0600, certificates 0644. A file replaced keeps
    // its owner (the package gives the token file to the daemon's user; root appending tokens must not take it back).
    bool ok = ::fchmod(fd, mode) == 0;
    struct stat existing {};
    if (ok && ::stat(path.c_str(), &existing) == 0 && (existing.st_uid != ::geteuid() || existing.st_gid != ::getegid()))
        ok = ::fchown(fd, existing.st_uid, existing.st_gid) == 0;
    std::size_t written = 0;
    while (ok && written < content.size()) {
        const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        if (ok)
            written += static_cast<std::size_t>(n);
    }
    ok = ok && ::fsync(fd) == 0;
    const int saved = errno;
    ::close(fd);
    if (!ok || ::rename(temporary.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(ok ? errno : saved);
        ::unlink(temporary.c_str());
        return CommandError { 1, "cannot write " + path.string() + ": " + why };
    }
    return std::nullopt;
}

tl::expected<std::string, CommandError> readFile(const fs::path& path, const std::string& what)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return tl::unexpected(CommandError { 1, what + " " + path.string() + " cannot be read: " + std::strerror(errno) });
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> splitNames(const std::string& text)
{
    std::vector<std::string> names;
    std::string current;
    for (const char c : text + ",") {
        if (c != ',') {
            current.push_back(c);
            continue;
        }
        if (!current.empty())
            names.push_back(current);
        current.clear();
    }
    return names;
}

tl::expected<int, CommandError> number(const std::string& option, const std::string& text, int min, int max)
{
    int value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value < min || value > max)
        return tl::unexpected(usageError(
            option + ": \"" + text + "\" must be a whole number from " + std::to_string(min) + " to " + std::to_string(max)));
    return value;
}

tl::expected<std::string, CommandError> makeTokenLines(int count)
{
    std::string lines;
    for (int i = 0; i < count; ++i) {
        auto token = protocol::makeBootstrapToken();
        if (!token)
            return tl::unexpected(CommandError { 1, "cannot make a bootstrap token: " + token.error().message });
        lines += protocol::bootstrapTokenText(*token) + "\n";
    }
    return lines;
}

constexpr const char* kTokenFileHeader
    = "# Tidepool agent bootstrap tokens (tidepoold --agent-token-file). Give each agent one line as its join token\n"
      "# file (tidepool-agent --join-token-file); the first node that joins with a token keeps it, and the core\n"
      "# refuses it to any other node.\n";

struct Options {
    std::map<std::string, std::string, std::less<>> values;
    bool force = false;
};

tl::expected<Options, CommandError> parse(int argc, const char* const* argv, std::initializer_list<std::string_view> known)
{
    Options options;
    for (int i = 3; i < argc; ++i) {
        const std::string_view option = argv[i];
        if (option == "--force") {
            options.force = true;
            continue;
        }
        if (std::find(known.begin(), known.end(), option) == known.end())
            return tl::unexpected(usageError("unknown option " + std::string(option)));
        if (i + 1 >= argc)
            return tl::unexpected(usageError(std::string(option) + " needs a value"));
        options.values[std::string(option)] = argv[++i];
    }
    return options;
}

std::optional<CommandError> init(const Options& options)
{
    if (!options.values.count("--dir") || !options.values.count("--names"))
        return usageError("init needs --dir and --names");
    const fs::path dir = options.values.at("--dir");
    const std::vector<std::string> names = splitNames(options.values.at("--names"));
    if (names.empty())
        return usageError("--names: give at least one DNS name or IP address the core is reached by");
    for (const std::string& name : names)
        if (!net::isIpAddressLiteral(name) && !net::isDnsName(name))
            return usageError("--names: \"" + name + "\" is neither a DNS name nor an IP address");
    int agents = 10;
    int days = 825;
    if (const auto it = options.values.find("--agents"); it != options.values.end()) {
        auto n = number("--agents", it->second, 0, 100'000);
        if (!n)
            return n.error();
        agents = *n;
    }
    if (const auto it = options.values.find("--days"); it != options.values.end()) {
        auto n = number("--days", it->second, 1, kCaDays);
        if (!n)
            return n.error();
        days = *n;
    }
    const fs::path caKey = dir / "ca.key", caPem = dir / "ca.pem", coreKey = dir / "core.key", corePem = dir / "core.pem",
                   tokens = dir / "agent-tokens";
    std::error_code ec;
    if (!options.force)
        for (const fs::path& existing : { caPem, caKey, corePem, coreKey, tokens })
            if (fs::exists(existing, ec))
                return CommandError { 1,
                    existing.string() + " exists: refusing to overwrite it (agents and clients trust this CA and hold "
                                        "these tokens); give --force to replace the CA, the certificate and the tokens" };
    fs::create_directories(dir, ec);
    if (ec)
        return CommandError { 1, "cannot create the directory " + dir.string() + ": " + ec.message() };

    auto ca = net::makeCertificateAuthority("Tidepool private CA", kCaDays);
    if (!ca)
        return CommandError { 1, "cannot make the CA: " + ca.error().message };
    std::vector<std::string> altNames = names;
    for (const char* local : { "localhost", "127.0.0.1", "::1" })
        if (std::find(altNames.begin(), altNames.end(), local) == altNames.end())
            altNames.emplace_back(local);
    auto core = net::issueCertificate(*ca, net::CertificateRequest { names.front(), altNames, net::CertificateUsage::Server, days, 0 });
    if (!core)
        return CommandError { 1, "cannot make the core's certificate: " + core.error().message };
    auto tokenLines = makeTokenLines(agents);
    if (!tokenLines)
        return tokenLines.error();
    // Keys first and the CA's certificate last: an interrupted run leaves no ca.pem, so it may simply run again.
    for (const auto& [path, content, mode] : { std::tuple { caKey, ca->keyPem, mode_t { 0600 } },
             std::tuple { coreKey, core->keyPem, mode_t { 0600 } }, std::tuple { corePem, core->certificatePem, mode_t { 0644 } },
             std::tuple { caPem, ca->certificatePem, mode_t { 0644 } } })
        if (auto failed = writeFile(path, content, mode))
            return failed;
    if (agents > 0) {
        if (auto failed = writeFile(tokens, kTokenFileHeader + *tokenLines, 0600))
            return failed;
    } else if (fs::exists(tokens, ec)) {
        fs::remove(tokens, ec); // --force without agents: the old tokens belonged to the old CA's deployment
    }
    std::string altText;
    for (const std::string& name : altNames)
        altText += (altText.empty() ? "" : ", ") + name;
    std::printf("tidepoold certs: in %s:\n"
                "  ca.pem, ca.key        a private CA (keep ca.key safe; agents and API clients get ca.pem)\n"
                "  core.pem, core.key    the core's certificate for %s, valid %d days\n",
        dir.c_str(), altText.c_str(), days);
    if (agents > 0)
        std::printf("  agent-tokens          %d single-use agent bootstrap tokens (mode 0600): give each agent one line\n",
            agents);
    std::printf("Then: tidepoold --tls-cert %s --tls-key %s --api-tls-cert %s --api-tls-key %s%s%s\n",
        corePem.c_str(), coreKey.c_str(), corePem.c_str(), coreKey.c_str(), agents > 0 ? " --agent-token-file " : "",
        agents > 0 ? tokens.c_str() : "");
    return std::nullopt;
}

std::optional<CommandError> moreTokens(const Options& options)
{
    if (!options.values.count("--dir"))
        return usageError("tokens needs --dir");
    int agents = 1;
    if (const auto it = options.values.find("--agents"); it != options.values.end()) {
        auto n = number("--agents", it->second, 1, 100'000);
        if (!n)
            return n.error();
        agents = *n;
    }
    const fs::path tokens = fs::path(options.values.at("--dir")) / "agent-tokens";
    std::string content = kTokenFileHeader;
    std::error_code ec;
    if (fs::exists(tokens, ec)) {
        auto existing = readFile(tokens, "the agent token file");
        if (!existing)
            return existing.error();
        content = std::move(*existing);
        if (!content.empty() && content.back() != '\n')
            content.push_back('\n');
    }
    auto lines = makeTokenLines(agents);
    if (!lines)
        return lines.error();
    if (auto failed = writeFile(tokens, content + *lines, 0600))
        return failed;
    std::fputs(lines->c_str(), stdout);
    std::fprintf(stderr, "tidepoold certs: %d bootstrap token%s appended to %s; `systemctl reload tidepoold` (SIGHUP) "
                         "makes a running tidepoold take them\n",
        agents, agents == 1 ? "" : "s", tokens.c_str());
    return std::nullopt;
}

std::optional<CommandError> agentCertificate(const Options& options)
{
    if (!options.values.count("--dir") || !options.values.count("--name"))
        return usageError("agent needs --dir and --name");
    const fs::path dir = options.values.at("--dir");
    const std::string node = options.values.at("--name");
    if (node.empty() || node.size() > 253 || node.find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != std::string::npos)
        return usageError("--name: \"" + node + "\" must be a node name: letters, digits, '.', '_' and '-'");
    int days = 825;
    if (const auto it = options.values.find("--days"); it != options.values.end()) {
        auto n = number("--days", it->second, 1, kCaDays);
        if (!n)
            return n.error();
        days = *n;
    }
    auto caPem = readFile(dir / "ca.pem", "the CA certificate");
    if (!caPem)
        return caPem.error();
    auto caKey = readFile(dir / "ca.key", "the CA key");
    if (!caKey)
        return caKey.error();
    const fs::path agents = dir / "agents";
    const fs::path pem = agents / (node + ".pem"), key = agents / (node + ".key");
    std::error_code ec;
    if (!options.force)
        for (const fs::path& existing : { pem, key })
            if (fs::exists(existing, ec))
                return CommandError { 1, existing.string() + " exists: refusing to overwrite it; give --force" };
    fs::create_directories(agents, ec);
    if (ec)
        return CommandError { 1, "cannot create the directory " + agents.string() + ": " + ec.message() };
    std::vector<std::string> altNames;
    if (net::isDnsName(node))
        altNames.push_back(node);
    auto issued = net::issueCertificate(net::KeyAndCertificate { *caKey, *caPem },
        net::CertificateRequest { node, altNames, net::CertificateUsage::Client, days, 0 });
    if (!issued)
        return CommandError { 1, "cannot make the certificate with the CA in " + dir.string() + ": " + issued.error().message };
    if (auto failed = writeFile(key, issued->keyPem, 0600))
        return failed;
    if (auto failed = writeFile(pem, issued->certificatePem, 0644))
        return failed;
    std::printf("tidepoold certs: %s and %s for node %s, valid %d days (tidepool-agent --tls-cert --tls-key)\n",
        pem.c_str(), key.c_str(), node.c_str(), days);
    return std::nullopt;
}

} // namespace

int runCertsCommand(int argc, const char* const* argv)
{
    if (argc < 3)
        return report(usageError("give a subcommand: init, tokens or agent"));
    const std::string_view command = argv[2];
    if (command == "--help" || command == "-h") {
        std::fputs(kUsage, stdout);
        return 0;
    }
    std::optional<CommandError> failed;
    if (command == "init") {
        auto options = parse(argc, argv, { "--dir", "--names", "--agents", "--days" });
        failed = options ? init(*options) : options.error();
    } else if (command == "tokens") {
        auto options = parse(argc, argv, { "--dir", "--agents" });
        failed = options ? (options->force ? usageError("tokens takes no --force: it only appends") : moreTokens(*options))
                         : options.error();
    } else if (command == "agent") {
        auto options = parse(argc, argv, { "--dir", "--name", "--days" });
        failed = options ? agentCertificate(*options) : options.error();
    } else {
        failed = usageError("unknown subcommand \"" + std::string(command) + "\"");
    }
    std::fflush(stdout);
    return failed ? report(*failed) : 0;
}

} // namespace tidepool
