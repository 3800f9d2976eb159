// libFuzzer target for what a peer controls: the bytes of the agent ⇄ core stream. The input is fed to a
// `FrameDecoder` in pieces whose sizes derive from the input (as a socket would cut it) and, in one piece, to a second
// decoder; both must agree. Every completed frame, and the whole input taken as one payload, goes to
// `decodeMessage`. A message that decodes must survive a round trip: `encodeMessage` of it decodes to an equal
// message and encodes to the same text. Any disagreement aborts, which libFuzzer reports as a crash; ASan and UBSan
// (built in, see CMakeLists.txt) turn memory errors and undefined behaviour into crashes too.

#include "protocol/frame.h"
#include "protocol/messages.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

using namespace tidepool::protocol;

namespace {

[[noreturn]] void fail(const char* what, std::string_view detail = {})
{
    std::fprintf(stderr, "fuzz_decoder: %s\n", what);
    if (!detail.empty())
        std::fprintf(stderr, "  %.*s\n", static_cast<int>(detail.size()), detail.data());
    std::abort();
}

void require(bool condition, const char* what, std::string_view detail = {})
{
    if (!condition)
        fail(what, detail);
}

std::uint64_t fnv1a(std::string_view bytes)
{
    std::uint64_t h = 1469598103934665603ull;
    for (const char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h;
}

// xorshift64: chunk sizes that are a pure function of the input, so a crash reproduces from its file alone.
class ChunkSizes {
public:
    explicit ChunkSizes(std::uint64_t seed)
        : m_state(seed | 1)
    {
    }
    std::size_t next(std::size_t left)
    {
        m_state ^= m_state << 13;
        m_state ^= m_state >> 7;
        m_state ^= m_state << 17;
        // Mostly a few bytes (headers split across pieces), sometimes a large piece holding several frames.
        const std::size_t limit = (m_state & 3) == 0 ? left : std::min<std::size_t>(left, 8);
        return 1 + static_cast<std::size_t>((m_state >> 8) % limit);
    }

private:
    std::uint64_t m_state;
};

// Decodes `payload`; when it is a valid message, checks the round trip through `encodeMessage`.
void checkPayload(std::string_view payload)
{
    const auto message = decodeMessage(payload);
    if (!message) {
        require(message.error().code != ErrorCode::None, "a decode error without a code", message.error().message);
        require(!message.error().message.empty(), "a decode error without a message");
        return;
    }
    const std::string encoded = encodeMessage(*message);
    const auto again = decodeMessage(encoded);
    if (!again)
        fail("a decoded message does not decode after encodeMessage",
            encoded + "\n  error: " + again.error().field + ": " + again.error().message);
    require(*again == *message, "a decoded message changes through encodeMessage and decodeMessage", encoded);
    require(encodeMessage(*again) == encoded, "encodeMessage is not stable across a round trip", encoded);
    // What the decoder accepted, the framing carries.
    const auto frame = encodeFrame(encoded);
    require(frame.has_value(), "a valid message cannot be framed", encoded);
}

// The decoder's promises about what a peer can make it hold.
void checkHolding(const FrameDecoder& decoder)
{
    require(decoder.bufferedBytes() <= kFrameHeaderBytes + decoder.maxFrameBytes(), "buffered beyond the frame limit");
    // The payload grows with the bytes that arrive, never by the announced length.
    require(decoder.reservedBytes() <= 2 * decoder.bufferedBytes() + 64, "reserved far more than was received");
    if (decoder.failed())
        require(decoder.bufferedBytes() == 0, "a failed decoder still holds bytes");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    checkPayload(input);

    const std::uint64_t seed = fnv1a(input);
    // Mostly the default limit; sometimes a small one, so that oversized lengths are reached with short inputs.
    static constexpr std::uint32_t kLimits[] = { kDefaultMaxFrameBytes, kDefaultMaxFrameBytes, 64, 4096 };
    const std::uint32_t limit = kLimits[seed % std::size(kLimits)];

    FrameDecoder whole(limit);
    std::vector<std::string> wholeFrames;
    const auto wholeResult = whole.feed(input, wholeFrames);
    checkHolding(whole);

    FrameDecoder pieces(limit);
    std::vector<std::string> pieceFrames;
    ChunkSizes sizes(seed >> 2);
    bool piecesFailed = false;
    ErrorCode piecesError = ErrorCode::None;
    for (std::string_view rest = input; !rest.empty();) {
        const std::size_t n = sizes.next(rest.size());
        const auto result = pieces.feed(rest.substr(0, n), pieceFrames);
        rest.remove_prefix(n);
        checkHolding(pieces);
        if (!result) {
            piecesFailed = true;
            require(pieces.failed(), "feed failed but the decoder does not say so");
            // A failed decoder stays failed and takes nothing more.
            std::vector<std::string> more;
            require(!pieces.feed(rest, more) && more.empty(), "a failed decoder accepted more bytes");
            piecesError = result.error().code;
            break;
        }
    }
    require(piecesFailed == !wholeResult.has_value(), "piecewise and whole decoding disagree on failure");
    if (piecesFailed)
        require(piecesError == wholeResult.error().code, "piecewise and whole decoding fail differently");
    require(pieceFrames == wholeFrames, "piecewise and whole decoding give different frames");
    if (!piecesFailed)
        require(pieces.bufferedBytes() == whole.bufferedBytes(), "piecewise and whole decoding hold different bytes");

    for (const std::string& frame : wholeFrames) {
        require(!frame.empty() && frame.size() <= limit, "a frame outside the limits");
        // Re-framed, a frame comes out of a fresh decoder unchanged.
        const auto reframed = encodeFrame(frame, limit);
        require(reframed.has_value(), "a decoded frame cannot be encoded again");
        FrameDecoder echo(limit);
        std::vector<std::string> echoed;
        require(echo.feed(*reframed, echoed).has_value() && echoed.size() == 1 && echoed.front() == frame,
            "a frame does not survive encodeFrame and FrameDecoder");
        checkPayload(frame);
    }
    return 0;
}
