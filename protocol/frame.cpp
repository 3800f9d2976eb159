#include "protocol/frame.h"

#include <algorithm>

namespace tidepool::protocol {

namespace {

Error lengthError(std::uint64_t length, std::uint32_t maxFrameBytes)
{
    if (length == 0)
        return Error { ErrorCode::EmptyFrame, {}, "frame length 0: empty frames are not allowed" };
    return Error { ErrorCode::FrameTooLarge, {},
        "frame length " + std::to_string(length) + " exceeds the maximum of " + std::to_string(maxFrameBytes)
            + " bytes" };
}

} // namespace

Expected<std::string> encodeFrame(std::string_view payload, std::uint32_t maxFrameBytes)
{
    if (payload.empty() || payload.size() > maxFrameBytes)
        return tl::unexpected(lengthError(payload.size(), maxFrameBytes));
    const auto length = static_cast<std::uint32_t>(payload.size());
    std::string frame;
    frame.reserve(kFrameHeaderBytes + payload.size());
    frame.push_back(static_cast<char>((length >> 24) & 0xffu));
    frame.push_back(static_cast<char>((length >> 16) & 0xffu));
    frame.push_back(static_cast<char>((length >> 8) & 0xffu));
    frame.push_back(static_cast<char>(length & 0xffu));
    frame.append(payload);
    return frame;
}

FrameDecoder::FrameDecoder(std::uint32_t maxFrameBytes)
    : m_maxFrameBytes(maxFrameBytes)
{
}

Expected<void> FrameDecoder::feed(std::string_view bytes, std::vector<std::string>& frames)
{
    if (m_failed)
        return tl::unexpected(m_error); // a stream that carried a bad header cannot be resynchronised
    while (!bytes.empty()) {
        if (m_headerFilled < kFrameHeaderBytes) {
            const std::size_t take = std::min(kFrameHeaderBytes - m_headerFilled, bytes.size());
            std::copy_n(reinterpret_cast<const unsigned char*>(bytes.data()), take, m_header.begin() + m_headerFilled);
            m_headerFilled += take;
            bytes.remove_prefix(take);
            if (m_headerFilled < kFrameHeaderBytes)
                break;
            m_expected = (std::uint32_t { m_header[0] } << 24) | (std::uint32_t { m_header[1] } << 16)
                | (std::uint32_t { m_header[2] } << 8) | std::uint32_t { m_header[3] };
            if (m_expected == 0 || m_expected > m_maxFrameBytes) {
                // Checked before a single payload byte is stored; the header is dropped so nothing stays held.
                m_failed = true;
                m_headerFilled = 0;
                m_error = lengthError(m_expected, m_maxFrameBytes);
                return tl::unexpected(m_error);
            }
        }
        // The payload grows with the bytes that actually arrive, never by the announced length up front, so a peer
        // that announces 1 MiB and sends 10 bytes costs 10 bytes.
        const std::size_t take = std::min<std::size_t>(m_expected - m_payload.size(), bytes.size());
        m_payload.append(bytes.data(), take);
        bytes.remove_prefix(take);
        if (m_payload.size() == m_expected) {
            frames.push_back(std::move(m_payload));
            m_payload = std::string();
            m_headerFilled = 0;
            m_expected = 0;
        }
    }
    return {};
}

} // namespace tidepool::protocol
