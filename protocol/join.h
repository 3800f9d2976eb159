#pragma once
// The cryptography of the join handshake: agent hello → core challenge (a 32-byte random nonce) → agent auth
// (HMAC-SHA256 keyed with the shared join token) → core welcome or reject.
//
// The MAC covers more than the nonce: `"tidepool-join-v1" NUL nonce nodeName`. The label keeps a join MAC from
// being valid for any other use of the token; the node name binds the answer to the identity the agent claimed in
// its hello, so a relay that forwards a core's challenge to a genuine agent cannot use the answer to join under
// another name. (Without TLS a relay can still carry the genuine agent's own session; TLS closes that.)
//
// Thread affinity: none; all functions are pure or use OpenSSL's thread-safe RNG.

#include "protocol/error.h"
#include "protocol/messages.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::protocol {

inline constexpr std::size_t kMinJoinTokenBytes = 16;
inline constexpr std::string_view kJoinLabel = "tidepool-join-v1";

// HMAC-SHA256 of `data` keyed with `key` (RFC 2104), through OpenSSL.
Expected<Mac> hmacSha256(std::string_view key, std::string_view data);
// 32 bytes from OpenSSL's CSPRNG (`RAND_bytes`).
Expected<Nonce> randomNonce();
// `bytes` random bytes as lower-case hex (session ids).
Expected<std::string> randomHex(std::size_t bytes);
// Constant-time equality (`CRYPTO_memcmp`).
bool macEqual(const Mac& a, const Mac& b);

// The bytes a join MAC covers (see above).
std::string joinTranscript(const Nonce& nonce, std::string_view nodeName);
// A join token must be at least `kMinJoinTokenBytes` long; the error says so without echoing the token.
Expected<void> checkJoinToken(std::string_view joinToken);

inline constexpr std::string_view kBootstrapTokenPrefix = "tpb1.";

struct BootstrapToken {
    std::string id; // 16 hex digits: public, named in hellos, logs and the store
    std::string secret; // 64 hex digits: the MAC key
    bool operator==(const BootstrapToken&) const = default;
};

// The bootstrap token `text` holds, or nullopt when it has another shape (a shared join token).
std::optional<BootstrapToken> parseBootstrapToken(std::string_view text);
// A fresh bootstrap token from OpenSSL's CSPRNG.
Expected<BootstrapToken> makeBootstrapToken();
// `tpb1.<id>.<secret>`: what an agent's join token file holds.
std::string bootstrapTokenText(const BootstrapToken& token);

// Agent side: the answer to `challenge` for the agent that sent `hello`. A bootstrap token (`tpb1.…`) keys the MAC
// with its secret; `hello.tokenId` must then name its id (`AgentClient` sets it).
Expected<Auth> answerChallenge(std::string_view joinToken, const Hello& hello, const Challenge& challenge);

// A challenge sent and not yet answered, kept by the connection that sent it.
struct PendingJoin {
    Challenge challenge;
    std::string nodeName;
    std::string tokenId; // the bootstrap token claimed; empty for the shared join token
};

// Core side. Holds the shared join token (may be empty: then only bootstrap tokens are accepted) and the bootstrap
// tokens; one per server, shared by its connections.
class JoinVerifier {
public:
    explicit JoinVerifier(std::string joinToken, std::vector<BootstrapToken> bootstrapTokens = {});

    // Whether the core holds the bootstrap token `id`.
    bool knowsBootstrapToken(std::string_view id) const;
    // Whether agents may join with the shared join token.
    bool acceptsSharedToken() const { return !m_joinToken.empty(); }
    void setBootstrapTokens(std::vector<BootstrapToken> tokens) { m_bootstrap = std::move(tokens); }
    std::size_t bootstrapTokenCount() const { return m_bootstrap.size(); }

    // A fresh challenge for the agent that said `hello`.
    Expected<PendingJoin> challenge(const Hello& hello) const;
    // Whether `auth` is the right answer to `pending`, compared in constant time: keyed with the bootstrap token the
    // hello named, or with the shared join token. Never true for an unknown token id, nor for the shared token when
    // there is none.
    bool verify(const PendingJoin& pending, const Auth& auth) const;

private:
    std::string m_joinToken;
    std::vector<BootstrapToken> m_bootstrap;
};

} // namespace tidepool::protocol
