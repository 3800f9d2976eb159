#pragma once
// Operator tokens: who may call the API, with which role, kept on the daemon's host as salted hashes only.
//
// The token file (`--operator-token-file`, config `operatorTokenFile`) holds one token a line,
//
//   NAME:ROLE:sha256:SALT:HASH        alice:operator:sha256:<32 hex digits>:<64 hex digits>
//
// NAME is 1 to 64 letters, digits, '.', '_' or '-' (unique in the file), ROLE viewer, operator or admin, SALT 16
// random bytes and HASH SHA-256(SALT || token), both in lower-case hex; blank lines and lines starting with '#' are
// skipped. `tidepoold token add` makes the token (`tp_` and 64 hex digits, 256 random bits), prints it once and
// appends its line; the file is created, and kept, with mode 0600.
//
// Why a fast salted hash and not PBKDF2 or scrypt: the tokens `token add` makes carry 256 random bits, so a stolen
// file cannot be searched by brute force or a dictionary however fast the hash is; key stretching would buy nothing
// and would cost its work factor on every API request (each request verifies its token), an easy way to burn the
// core's CPU. The salt makes equal tokens hash differently and rules out precomputed tables.
//
// The format before roles, a file whose first line is the token itself in plaintext (no ':'), is still read: that
// token gets the admin role (it could do everything before) and is named by its fingerprint, and the daemon warns at
// start. `tidepoold token migrate` rewrites such a file into a hashed line for the same token, so that clients keep
// their token files. Plaintext tokens in the config file's `operatorTokens` are read the same way, with a warning.
//
// Thread affinity: none; plain values and functions. The daemon reads the file at start and on SIGHUP (its core
// thread then hands the new list to `HttpApi::setTokens`); the file functions are for `tidepoold token`.

#include "core/api/access.h"
#include "core/model/types.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::api {

struct OperatorToken {
    std::string name; // from the file; for a plaintext token, its fingerprint
    Role role = Role::Invalid;
    std::array<unsigned char, 16> salt {};
    std::array<unsigned char, 32> hash {}; // SHA-256(salt || token)
    bool plaintext = false; // read from the format before roles (a plaintext token)

    // The audit log's and the proposals' name for the caller: "token:<name>", or "operator:<fingerprint>" for a
    // plaintext token (as audit entries named them before roles).
    std::string actor() const;
};

// The audit log's name for a plaintext token: the first 12 hex digits of its SHA-256, never the token itself.
std::string tokenFingerprint(std::string_view token);

// A new token: "tp_" and 64 hex digits from the system's CSPRNG.
std::string generateToken();
// `token` salted with fresh random bytes and hashed.
OperatorToken hashToken(std::string name, Role role, std::string_view token);
// A plaintext token (the format before roles, or `operatorTokens`): admin, named by its fingerprint. At least 16 bytes.
Expected<OperatorToken> plaintextToken(std::string_view token);
// The file line of `token` (without the newline).
std::string tokenLine(const OperatorToken& token);

// The index of the token that `presented` is, comparing with every token in constant time so that the time taken
// says nothing about which one matched or how much of it did.
std::optional<std::size_t> matchToken(const std::vector<OperatorToken>& tokens, std::string_view presented);

struct TokenFile {
    std::vector<OperatorToken> tokens;
    bool plaintext = false; // the format before roles: one plaintext token
};
// Reads a token file in either format; an error names the file and the line, never a line's content.
Expected<TokenFile> readTokenFile(const std::string& path);

// `tidepoold token add`: makes a token for `name` with `role`, appends its line to `path` (created with mode 0600
// when missing, set to 0600 when it was wider) and returns the token. Refuses a plaintext file (migrate it first),
// a damaged one and a name already there.
Expected<std::string> addToken(const std::string& path, const std::string& name, Role role);
// `tidepoold token migrate`: replaces a plaintext file with the hashed line of the same token as `name` with `role`.
Expected<void> migrateTokenFile(const std::string& path, const std::string& name, Role role);
// `tidepoold token remove`: drops `name`'s line (its token is refused once the daemon reads the file again: SIGHUP).
Expected<void> removeToken(const std::string& path, const std::string& name);

} // namespace tidepool::api
