#include "protocol/join.h"

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <climits>
#include <vector>

namespace tidepool::protocol {

namespace {

std::string opensslError(std::string_view what)
{
    char text[256] = {};
    ERR_error_string_n(ERR_get_error(), text, sizeof text);
    return std::string(what) + " failed: " + text;
}

} // namespace

Expected<Mac> hmacSha256(std::string_view key, std::string_view data)
{
    if (key.size() > static_cast<std::size_t>(INT_MAX))
        return makeError(ErrorCode::CryptoFailure, {}, "HMAC key too long");
    Mac mac {};
    unsigned int length = 0;
    // `HMAC()` is the one-shot form; an empty key is allowed by RFC 2104 but OpenSSL wants a non-null pointer.
    static constexpr unsigned char kEmpty = 0;
    const auto* keyBytes = key.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(key.data());
    const auto* dataBytes = data.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(data.data());
    if (!HMAC(EVP_sha256(), keyBytes, static_cast<int>(key.size()), dataBytes, data.size(), mac.data(), &length)
        || length != mac.size())
        return makeError(ErrorCode::CryptoFailure, {}, opensslError("HMAC-SHA256"));
    return mac;
}

Expected<Nonce> randomNonce()
{
    Nonce nonce {};
    if (RAND_bytes(nonce.data(), static_cast<int>(nonce.size())) != 1)
        return makeError(ErrorCode::CryptoFailure, {}, opensslError("RAND_bytes"));
    return nonce;
}

Expected<std::string> randomHex(std::size_t bytes)
{
    std::vector<unsigned char> raw(bytes);
    if (bytes > static_cast<std::size_t>(INT_MAX) || RAND_bytes(raw.data(), static_cast<int>(bytes)) != 1)
        return makeError(ErrorCode::CryptoFailure, {}, opensslError("RAND_bytes"));
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    for (const unsigned char c : raw) {
        hex.push_back(kDigits[c >> 4]);
        hex.push_back(kDigits[c & 0xf]);
    }
    return hex;
}

bool macEqual(const Mac& a, const Mac& b)
{
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string joinTranscript(const Nonce& nonce, std::string_view nodeName)
{
    // Unambiguous without separators after the nonce: the label ends at the NUL and the nonce has a fixed size.
    std::string transcript(kJoinLabel);
    transcript.push_back('\0');
    transcript.append(reinterpret_cast<const char*>(nonce.data()), nonce.size());
    transcript.append(nodeName);
    return transcript;
}

Expected<void> checkJoinToken(std::string_view joinToken)
{
    if (joinToken.size() < kMinJoinTokenBytes)
        return makeError(ErrorCode::OutOfRange, "joinToken",
            "the join token is " + std::to_string(joinToken.size()) + " bytes long; it must be at least "
                + std::to_string(kMinJoinTokenBytes));
    return {};
}

namespace {

bool isLowerHex(std::string_view text)
{
    return std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

} // namespace

std::optional<BootstrapToken> parseBootstrapToken(std::string_view text)
{
    constexpr std::size_t kIdDigits = 16;
    constexpr std::size_t kSecretDigits = 64;
    if (text.size() != kBootstrapTokenPrefix.size() + kIdDigits + 1 + kSecretDigits
        || text.substr(0, kBootstrapTokenPrefix.size()) != kBootstrapTokenPrefix)
        return std::nullopt;
    text.remove_prefix(kBootstrapTokenPrefix.size());
    const std::string_view id = text.substr(0, kIdDigits);
    const std::string_view secret = text.substr(kIdDigits + 1);
    if (text[kIdDigits] != '.' || !isLowerHex(id) || !isLowerHex(secret))
        return std::nullopt;
    return BootstrapToken { std::string(id), std::string(secret) };
}

Expected<BootstrapToken> makeBootstrapToken()
{
    auto id = randomHex(8);
    if (!id)
        return tl::unexpected(id.error());
    auto secret = randomHex(32);
    if (!secret)
        return tl::unexpected(secret.error());
    return BootstrapToken { std::move(*id), std::move(*secret) };
}

std::string bootstrapTokenText(const BootstrapToken& token)
{
    return std::string(kBootstrapTokenPrefix) + token.id + "." + token.secret;
}

Expected<Auth> answerChallenge(std::string_view joinToken, const Hello& hello, const Challenge& challenge)
{
    const auto bootstrap = parseBootstrapToken(joinToken);
    if (bootstrap && bootstrap->id != hello.tokenId)
        return makeError(ErrorCode::OutOfRange, "tokenId", "the hello names another bootstrap token than the one held");
    auto mac = hmacSha256(bootstrap ? std::string_view(bootstrap->secret) : joinToken,
        joinTranscript(challenge.nonce, hello.nodeName));
    if (!mac)
        return tl::unexpected(mac.error());
    return Auth { *mac };
}

JoinVerifier::JoinVerifier(std::string joinToken, std::vector<BootstrapToken> bootstrapTokens)
    : m_joinToken(std::move(joinToken))
    , m_bootstrap(std::move(bootstrapTokens))
{
}

bool JoinVerifier::knowsBootstrapToken(std::string_view id) const
{
    return std::any_of(m_bootstrap.begin(), m_bootstrap.end(), [&](const BootstrapToken& t) { return t.id == id; });
}

Expected<PendingJoin> JoinVerifier::challenge(const Hello& hello) const
{
    auto nonce = randomNonce();
    if (!nonce)
        return tl::unexpected(nonce.error());
    return PendingJoin { Challenge { *nonce }, hello.nodeName, hello.tokenId };
}

bool JoinVerifier::verify(const PendingJoin& pending, const Auth& auth) const
{
    std::string_view key = m_joinToken;
    if (!pending.tokenId.empty()) {
        const auto it = std::find_if(m_bootstrap.begin(), m_bootstrap.end(),
            [&](const BootstrapToken& t) { return t.id == pending.tokenId; });
        if (it == m_bootstrap.end())
            return false;
        key = it->secret;
    }
    // An empty key would make a MAC anyone can compute.
    if (key.empty())
        return false;
    const auto expected = hmacSha256(key, joinTranscript(pending.challenge.nonce, pending.nodeName));
    return expected && macEqual(*expected, auth.mac);
}

} // namespace tidepool::protocol
