#include "agents/runner/log_tail.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tidepool::agent {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD"; // U+FFFD

// One file of the stream: open without following a link, its size; `fd` -1 when it does not exist.
struct Part {
    int fd = -1;
    std::uint64_t size = 0;
    std::string error;
    Part(const std::filesystem::path& file)
    {
        fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0) {
            if (errno != ENOENT)
                error = "cannot open " + file.string() + ": " + std::strerror(errno);
            return;
        }
        struct stat st { };
        if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            error = file.string() + " is not a regular file";
            ::close(fd);
            fd = -1;
            return;
        }
        size = static_cast<std::uint64_t>(st.st_size);
    }
    ~Part()
    {
        if (fd >= 0)
            ::close(fd);
    }
    Part(const Part&) = delete;
    Part& operator=(const Part&) = delete;

    // Appends its last `count` bytes (of the size it had when opened) to `out`; false on a read error.
    bool appendTail(std::uint64_t count, std::string& out) const
    {
        off_t from = static_cast<off_t>(size - count);
        const off_t end = static_cast<off_t>(size);
        char buffer[64 * 1024];
        while (from < end) {
            const ssize_t n
                = ::pread(fd, buffer, static_cast<std::size_t>(std::min<off_t>(sizeof buffer, end - from)), from);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return false;
            if (n == 0)
                break; // truncated meanwhile (the runner capped it): what was read stands
            out.append(buffer, static_cast<std::size_t>(n));
            from += n;
        }
        return true;
    }
};

// The length of the valid UTF-8 sequence at `bytes[i]` (a lead byte of 0x80 or above), or 0 (RFC 3629, table 3-7 of
// the Unicode standard: no overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t utf8Length(std::string_view bytes, std::size_t i)
{
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(bytes[k]); };
    const unsigned char c = at(i);
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF; // the second byte's range
    if (c >= 0xC2 && c <= 0xDF)
        length = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        length = 3;
        low = c == 0xE0 ? 0xA0 : 0x80;
        high = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        length = 4;
        low = c == 0xF0 ? 0x90 : 0x80;
        high = c == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 0;
    }
    if (i + length > bytes.size() || at(i + 1) < low || at(i + 1) > high)
        return 0;
    for (std::size_t k = 2; k < length; ++k)
        if (at(i + k) < 0x80 || at(i + k) > 0xBF)
            return 0;
    return length;
}

} // namespace

LogTail readLogTail(const std::filesystem::path& file, std::size_t maxBytes)
{
    LogTail tail;
    const Part rotated(file.string() + ".1");
    const Part current(file);
    if (!rotated.error.empty() || !current.error.empty()) {
        tail.error = !current.error.empty() ? current.error : rotated.error;
        return tail;
    }
    tail.sizeBytes = rotated.size + current.size;
    const std::uint64_t want = std::min<std::uint64_t>(maxBytes, tail.sizeBytes);
    const std::uint64_t fromCurrent = std::min(want, current.size);
    tail.truncated = want < tail.sizeBytes;
    tail.bytes.reserve(static_cast<std::size_t>(want));
    if ((want > fromCurrent && !rotated.appendTail(want - fromCurrent, tail.bytes))
        || (fromCurrent > 0 && !current.appendTail(fromCurrent, tail.bytes))) {
        tail.bytes.clear();
        tail.error = "cannot read " + file.string() + ": " + std::strerror(errno);
    }
    return tail;
}

std::string logText(std::string_view bytes, bool cutAtStart)
{
    std::size_t i = 0;
    if (cutAtStart)
        while (i < bytes.size() && i < 3 && (static_cast<unsigned char>(bytes[i]) & 0xC0) == 0x80)
            ++i;
    std::string out;
    out.reserve(bytes.size() - i);
    while (i < bytes.size()) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c == '\r') {
            out += '\n';
            i += i + 1 < bytes.size() && bytes[i + 1] == '\n' ? 2 : 1;
        } else if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7F)) {
            out += static_cast<char>(c);
            ++i;
        } else if (c < 0x80) { // other control characters, DEL
            out += kReplacement;
            ++i;
        } else if (const std::size_t length = utf8Length(bytes, i); length > 0) {
            out.append(bytes.substr(i, length));
            i += length;
        } else {
            out += kReplacement;
            ++i;
        }
    }
    return out;
}

protocol::LogReply answerLogRequest(const protocol::LogRequest& request, const std::filesystem::path& stdoutPath,
    const std::filesystem::path& stderrPath)
{
    protocol::LogReply reply;
    reply.requestId = request.requestId;
    const std::filesystem::path& file = request.stderrStream ? stderrPath : stdoutPath;
    if (file.empty()) {
        reply.error = "workload " + std::to_string(request.workloadId) + " (incarnation "
            + std::to_string(request.incarnation)
            + ") is not held here: it ended long enough ago that its record and "
              "output were removed, or it never ran on this node";
        return reply;
    }
    const LogTail tail = readLogTail(file, static_cast<std::size_t>(request.maxBytes));
    if (!tail.error.empty()) {
        reply.error = tail.error.substr(0, protocol::kMaxTextBytes);
        return reply;
    }
    reply.data = logText(tail.bytes, tail.truncated);
    reply.sizeBytes = static_cast<std::int64_t>(tail.sizeBytes);
    reply.truncated = tail.truncated;
    return reply;
}

} // namespace tidepool::agent
