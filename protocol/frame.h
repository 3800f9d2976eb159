#pragma once
// Framing of the agent ⇄ core stream: each frame is a 4-byte big-endian payload length followed by the payload.
// The length is checked against a configured maximum as soon as its four bytes have arrived, before anything of
// that size is allocated, so a hostile peer cannot make the reader reserve memory by announcing a huge frame.
//
// Thread affinity: none. A `FrameDecoder` belongs to one connection and is used from that connection's thread.

#include "protocol/error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::protocol {

inline constexpr std::size_t kFrameHeaderBytes = 4;
inline constexpr std::uint32_t kDefaultMaxFrameBytes = 1u << 20; // 1 MiB of payload

// Header plus payload. Fails, naming both sizes, when the payload is empty or longer than `maxFrameBytes`.
Expected<std::string> encodeFrame(std::string_view payload, std::uint32_t maxFrameBytes = kDefaultMaxFrameBytes);

// Reassembles frames from bytes delivered in arbitrary pieces (as a socket delivers them).
class FrameDecoder {
public:
    explicit FrameDecoder(std::uint32_t maxFrameBytes = kDefaultMaxFrameBytes);

    // Consumes all of `bytes`, appending each frame it completes to `frames` in order. At the first bad length
    // (zero, or above the maximum) it stops with an error naming the length and the limit; the decoder then stays
    // failed and buffers nothing more. Frames completed before the bad header are still appended.
    Expected<void> feed(std::string_view bytes, std::vector<std::string>& frames);

    bool failed() const { return m_failed; }
    std::uint32_t maxFrameBytes() const { return m_maxFrameBytes; }
    // Bytes of the current, incomplete frame held so far (header bytes included) and the memory reserved for
    // them: what a peer has made this decoder hold. Both stay at zero after a rejected header.
    std::size_t bufferedBytes() const { return m_headerFilled + m_payload.size(); }
    std::size_t reservedBytes() const { return m_payload.capacity(); }

private:
    std::uint32_t m_maxFrameBytes;
    std::array<unsigned char, kFrameHeaderBytes> m_header {};
    std::size_t m_headerFilled = 0;
    std::uint32_t m_expected = 0; // payload length of the current frame once its header is complete
    std::string m_payload;
    bool m_failed = false;
    Error m_error; // the reason, once failed
};

} // namespace tidepool::protocol
