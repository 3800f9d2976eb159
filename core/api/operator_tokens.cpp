#include "core/api/operator_tokens.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <span>

namespace tidepool::api {

namespace {

constexpr char kHex[] = "0123456789abcdef";
constexpr std::string_view kScheme = "sha256";
constexpr std::size_t kMaxName = 64;
constexpr std::size_t kMinPlaintextBytes = 16;

std::string hex(std::span<const unsigned char> bytes)
{
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const unsigned char b : bytes) {
        out += kHex[b >> 4];
        out += kHex[b & 15];
    }
    return out;
}

int hexDigit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

// Lower-case hex of exactly `out.size()` bytes.
bool unhex(std::string_view text, std::span<unsigned char> out)
{
    if (text.size() != out.size() * 2)
        return false;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const int high = hexDigit(text[2 * i]);
        const int low = hexDigit(text[2 * i + 1]);
        if (high < 0 || low < 0)
            return false;
        out[i] = static_cast<unsigned char>(high * 16 + low);
    }
    return true;
}

bool validName(std::string_view name)
{
    if (name.empty() || name.size() > kMaxName)
        return false;
    for (const char c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
                || c == '-'))
            return false;
    return true;
}

std::array<unsigned char, 32> saltedHash(const std::array<unsigned char, 16>& salt, std::string_view token)
{
    std::string input(reinterpret_cast<const char*>(salt.data()), salt.size());
    input += token;
    std::array<unsigned char, 32> digest {};
    SHA256(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest.data());
    OPENSSL_cleanse(input.data(), input.size());
    return digest;
}

void randomBytes(std::span<unsigned char> out)
{
    // RAND_bytes fails only when the system's entropy source does; a token or a salt must never be guessable, so
    // that is not worth going on from.
    if (RAND_bytes(out.data(), static_cast<int>(out.size())) != 1)
        std::abort();
}

std::string trimmed(std::string line)
{
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
        line.pop_back();
    return line;
}

std::vector<std::string_view> splitFields(std::string_view line)
{
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    while (true) {
        const auto colon = line.find(':', start);
        fields.push_back(line.substr(start, colon == std::string_view::npos ? colon : colon - start));
        if (colon == std::string_view::npos)
            return fields;
        start = colon + 1;
    }
}

Error lineError(const std::string& path, std::size_t line, const std::string& what)
{
    return Error { ErrorCode::ParseError,
        "operator token file " + path + ", line " + std::to_string(line) + ": " + what };
}

// One hashed line; the error says which field is wrong without echoing the line (it might be a pasted token).
Expected<OperatorToken> parseLine(const std::string& path, std::size_t number, std::string_view line)
{
    const auto fields = splitFields(line);
    if (fields.size() != 5)
        return tl::unexpected(lineError(path, number,
            "has " + std::to_string(fields.size()) + " ':'-separated fields, expected 5 (NAME:ROLE:sha256:SALT:HASH)"));
    OperatorToken token;
    if (!validName(fields[0]))
        return tl::unexpected(lineError(path, number, "the name must be 1 to 64 letters, digits, '.', '_' or '-'"));
    token.name = std::string(fields[0]);
    const auto role = parseRole(fields[1]);
    if (!role)
        return tl::unexpected(lineError(path, number, "the role must be viewer, operator or admin"));
    token.role = *role;
    if (fields[2] != kScheme)
        return tl::unexpected(lineError(path, number, "the hash scheme must be sha256"));
    if (!unhex(fields[3], token.salt))
        return tl::unexpected(lineError(path, number, "the salt must be 32 lower-case hex digits"));
    if (!unhex(fields[4], token.hash))
        return tl::unexpected(lineError(path, number, "the hash must be 64 lower-case hex digits"));
    return token;
}

Expected<void> ioFailure(const std::string& path, const std::string& what)
{
    return makeError(ErrorCode::IoError, "operator token file " + path + ": " + what + ": " + std::strerror(errno));
}

// Writes `text` to `fd` whole and makes it durable.
Expected<void> writeAll(int fd, const std::string& path, const std::string& text)
{
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return ioFailure(path, "cannot be written");
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0)
        return ioFailure(path, "cannot be synced");
    return {};
}

// Replaces `path` with `text` atomically (a 0600 temporary file renamed over it), so that a crash leaves the old file
// or the new one and never half of one.
Expected<void> replaceFile(const std::string& path, const std::string& text)
{
    const std::string temporary = path + ".new";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return ioFailure(temporary, "cannot be created");
    auto written
        = ::fchmod(fd, 0600) == 0 ? writeAll(fd, temporary, text) : ioFailure(temporary, "cannot be chmod 0600");
    ::close(fd);
    if (!written) {
        ::unlink(temporary.c_str());
        return written;
    }
    if (::rename(temporary.c_str(), path.c_str()) != 0) {
        auto failed = ioFailure(path, "cannot be replaced");
        ::unlink(temporary.c_str());
        return failed;
    }
    return {};
}

} // namespace

std::string OperatorToken::actor() const
{
    return plaintext ? "operator:" + name : "token:" + name;
}

std::string tokenFingerprint(std::string_view token)
{
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest);
    return hex(std::span<const unsigned char>(digest, 6));
}

std::string generateToken()
{
    std::array<unsigned char, 32> secret {};
    randomBytes(secret);
    return "tp_" + hex(secret);
}

OperatorToken hashToken(std::string name, Role role, std::string_view token)
{
    OperatorToken t;
    t.name = std::move(name);
    t.role = role;
    randomBytes(t.salt);
    t.hash = saltedHash(t.salt, token);
    return t;
}

Expected<OperatorToken> plaintextToken(std::string_view token)
{
    if (token.size() < kMinPlaintextBytes)
        return makeError(ErrorCode::InvalidArgument, "an operator token is shorter than 16 bytes");
    OperatorToken t = hashToken(tokenFingerprint(token), Role::Admin, token);
    t.plaintext = true;
    return t;
}

std::string tokenLine(const OperatorToken& token)
{
    return token.name + ":" + std::string(toString(token.role)) + ":" + std::string(kScheme) + ":" + hex(token.salt)
        + ":" + hex(token.hash);
}

std::optional<std::size_t> matchToken(const std::vector<OperatorToken>& tokens, std::string_view presented)
{
    // Every token is hashed and compared whatever matched before, so the time depends on the number of tokens only.
    std::optional<std::size_t> match;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const auto digest = saltedHash(tokens[i].salt, presented);
        if (CRYPTO_memcmp(digest.data(), tokens[i].hash.data(), digest.size()) == 0)
            match = i;
    }
    return match;
}

Expected<TokenFile> readTokenFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        return makeError(ErrorCode::IoError, "operator token file " + path + " cannot be read");
    TokenFile file;
    std::string raw;
    std::size_t number = 0;
    std::size_t contentLines = 0;
    while (std::getline(in, raw)) {
        ++number;
        const std::string line = trimmed(std::move(raw));
        if (line.empty() || line.front() == '#')
            continue;
        ++contentLines;
        if (contentLines == 1 && line.find(':') == std::string::npos) {
            // The format before roles: the token itself.
            auto token = plaintextToken(line);
            if (!token)
                return tl::unexpected(lineError(path, number, "a plaintext token is shorter than 16 bytes"));
            file.plaintext = true;
            file.tokens.push_back(std::move(*token));
            continue;
        }
        if (file.plaintext)
            return tl::unexpected(lineError(path, number,
                "a plaintext token file (the format before roles) holds one token; migrate it with `tidepoold token "
                "migrate --token-file "
                    + path + "` before adding more"));
        auto token = parseLine(path, number, line);
        if (!token && contentLines == 1 && splitFields(line).size() != 5)
            return tl::unexpected(Error { token.error().code,
                token.error().message
                    + "; a plaintext token (the format before roles) cannot hold ':': make a new one with `tidepoold "
                      "token add`" });
        if (!token)
            return tl::unexpected(token.error());
        for (const OperatorToken& other : file.tokens)
            if (other.name == token->name)
                return tl::unexpected(
                    lineError(path, number, "the name \"" + token->name + "\" is already used above"));
        file.tokens.push_back(std::move(*token));
    }
    if (file.tokens.empty())
        return makeError(ErrorCode::InvalidArgument, "operator token file " + path + " holds no token");
    return file;
}

Expected<std::string> addToken(const std::string& path, const std::string& name, Role role)
{
    if (!validName(name))
        return makeError(ErrorCode::InvalidArgument,
            "--name: \"" + name.substr(0, 80) + "\" must be 1 to 64 letters, digits, '.', '_' or '-'");
    if (role == Role::Invalid)
        return makeError(ErrorCode::InvalidArgument, "--role must be viewer, operator or admin");
    if (::access(path.c_str(), F_OK) == 0) {
        auto existing = readTokenFile(path);
        if (!existing && existing.error().message.find("holds no token") == std::string::npos)
            return tl::unexpected(existing.error());
        if (existing && existing->plaintext)
            return makeError(ErrorCode::InvalidArgument,
                "operator token file " + path
                    + " holds a plaintext token (the format before roles); run `tidepoold "
                      "token migrate --token-file "
                    + path + " --name NAME` first");
        if (existing)
            for (const OperatorToken& t : existing->tokens)
                if (t.name == name)
                    return makeError(ErrorCode::AlreadyExists,
                        "operator token file " + path + " already has a token named \"" + name
                            + "\"; remove it first (`tidepoold token remove`) to replace it");
    }
    const std::string token = generateToken();
    const std::string line = tokenLine(hashToken(name, role, token)) + "\n";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) {
        auto failed = ioFailure(path, "cannot be opened for appending");
        return tl::unexpected(failed.error());
    }
    // A file made by hand may be readable by others; the hashes are not secrets, but which names hold which roles is
    // the administrator's business, so the file is kept 0600 (see the packaging for its owner).
    auto written = ::fchmod(fd, 0600) == 0 ? writeAll(fd, path, line) : ioFailure(path, "cannot be chmod 0600");
    ::close(fd);
    if (!written)
        return tl::unexpected(written.error());
    return token;
}

Expected<void> migrateTokenFile(const std::string& path, const std::string& name, Role role)
{
    if (!validName(name))
        return makeError(ErrorCode::InvalidArgument,
            "--name: \"" + name.substr(0, 80) + "\" must be 1 to 64 letters, digits, '.', '_' or '-'");
    if (role == Role::Invalid)
        return makeError(ErrorCode::InvalidArgument, "--role must be viewer, operator or admin");
    auto file = readTokenFile(path);
    if (!file)
        return tl::unexpected(file.error());
    if (!file->plaintext)
        return makeError(
            ErrorCode::InvalidArgument, "operator token file " + path + " is hashed already; nothing to migrate");
    // The plaintext is read again (the list holds only its hash), so that the hashed line is for the very same token.
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        line = trimmed(std::move(line));
        if (!line.empty() && line.front() != '#')
            break;
    }
    in.close();
    return replaceFile(path,
        "# tidepool operator tokens: NAME:ROLE:sha256:SALT:HASH (tidepoold token add|remove)\n"
            + tokenLine(hashToken(name, role, line)) + "\n");
}

Expected<void> removeToken(const std::string& path, const std::string& name)
{
    auto file = readTokenFile(path);
    if (!file)
        return tl::unexpected(file.error());
    if (file->plaintext)
        return makeError(ErrorCode::InvalidArgument,
            "operator token file " + path + " holds a plaintext token (the format before roles); migrate it first");
    std::ifstream in(path);
    std::string kept;
    std::string line;
    bool found = false;
    while (std::getline(in, line)) {
        const std::string prefix = name + ":";
        if (trimmed(line).rfind(prefix, 0) == 0) {
            found = true;
            continue;
        }
        kept += line + "\n";
    }
    in.close();
    if (!found)
        return makeError(ErrorCode::NotFound, "operator token file " + path + " has no token named \"" + name + "\"");
    return replaceFile(path, kept);
}

} // namespace tidepool::api
