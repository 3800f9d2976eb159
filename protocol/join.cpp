#include "protocol/join.h"

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

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

Expected<Auth> answerChallenge(std::string_view joinToken, const Hello& hello, const Challenge& challenge)
{
    auto mac = hmacSha256(joinToken, joinTranscript(challenge.nonce, hello.nodeName));
    if (!mac)
        return tl::unexpected(mac.error());
    return Auth { *mac };
}

JoinVerifier::JoinVerifier(std::string joinToken)
    : m_joinToken(std::move(joinToken))
{
}

Expected<PendingJoin> JoinVerifier::challenge(const Hello& hello) const
{
    auto nonce = randomNonce();
    if (!nonce)
        return tl::unexpected(nonce.error());
    return PendingJoin { Challenge { *nonce }, hello.nodeName };
}

bool JoinVerifier::verify(const PendingJoin& pending, const Auth& auth) const
{
    const auto expected = hmacSha256(m_joinToken, joinTranscript(pending.challenge.nonce, pending.nodeName));
    return expected && macEqual(*expected, auth.mac);
}

} // namespace tidepool::protocol
