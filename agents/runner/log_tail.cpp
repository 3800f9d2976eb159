#include "agents/runner/log_tail.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

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

    // Appends `count` bytes from `offset` on (within the size it had when opened) to `out`; false on a read error.
    bool appendRange(std::uint64_t offset, std::uint64_t count, std::string& out) const
    {
        off_t from = static_cast<off_t>(offset);
        const off_t end = static_cast<off_t>(offset + count);
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

namespace {

} // namespace

std::uint64_t readStreamBase(const std::filesystem::path& file)
{
    const std::string path = file.string() + ".base";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return 0;
    char text[32] = {};
    const ssize_t n = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    // The workload may write in its record directory: anything but a decimal position is taken for none.
    std::uint64_t base = 0;
    if (n <= 0 || n > 17)
        return 0;
    for (ssize_t i = 0; i < n; ++i) {
        if (text[i] == '\n' && i == n - 1)
            break;
        if (text[i] < '0' || text[i] > '9')
            return 0;
        base = base * 10 + static_cast<std::uint64_t>(text[i] - '0');
    }
    return base <= static_cast<std::uint64_t>(protocol::kMaxLogPosition) ? base : 0;
}

namespace {

constexpr std::size_t kFingerprintBytes = 4096;

// FNV-1a over the first `n` bytes of the file open as `fd`; nullopt when fewer can be read.
std::optional<std::uint64_t> headHash(int fd, std::size_t n)
{
    char head[kFingerprintBytes];
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = ::pread(fd, head + got, n - got, static_cast<off_t>(got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return std::nullopt;
        got += static_cast<std::size_t>(r);
    }
    std::uint64_t hash = 14695981039346656037ULL;
    for (std::size_t i = 0; i < n; ++i)
        hash = (hash ^ static_cast<unsigned char>(head[i])) * 1099511628211ULL;
    return hash;
}

std::string intentPath(const std::filesystem::path& file)
{
    return file.string() + ".base.next";
}

// Writes `text` to `path` aside and renames it over; false when it could not.
bool replaceWith(const std::string& path, const std::string& text)
{
    const std::string tmp = path + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return false;
    bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    written = ::close(fd) == 0 && written;
    if (!written || ::rename(tmp.c_str(), path.c_str()) != 0) {
        ::unlink(tmp.c_str());
        return false;
    }
    return true;
}

} // namespace

bool writeRotationIntent(const std::filesystem::path& file, int fd, std::uint64_t base, bool aside)
{
    struct stat st { };
    if (::fstat(fd, &st) != 0)
        return false;
    const std::size_t n = std::min<std::size_t>(kFingerprintBytes, static_cast<std::size_t>(st.st_size));
    const auto hash = headHash(fd, n);
    if (!hash)
        return false;
    return replaceWith(intentPath(file),
        std::to_string(base) + " " + std::to_string(n) + " " + std::to_string(*hash) + " " + (aside ? "1" : "0")
            + "\n");
}

void clearRotationIntent(const std::filesystem::path& file)
{
    ::unlink(intentPath(file).c_str());
}

Settled settleRotation(const std::filesystem::path& file)
{
    const std::string path = intentPath(file);
    const int intent = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (intent < 0)
        return Settled::Nothing;
    char text[80] = {};
    const ssize_t n = ::read(intent, text, sizeof text - 1);
    ::close(intent);
    const std::string rotatedAside = file.string() + ".1.tmp";
    // The workload may write in its record directory: what does not read as an intent is dropped, changing nothing.
    unsigned long long base = 0, bytes = 0, hash = 0;
    unsigned aside = 0;
    char end = 0;
    const bool parsed = n > 0 && std::sscanf(text, "%llu %llu %llu %u%c", &base, &bytes, &hash, &aside, &end) == 5
        && end == '\n' && bytes <= kFingerprintBytes && aside <= 1
        && base <= static_cast<std::uint64_t>(protocol::kMaxLogPosition);
    Settled settled = Settled::Nothing;
    if (parsed) {
        const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd >= 0) {
            const auto now = headHash(fd, static_cast<std::size_t>(bytes));
            ::close(fd);
            if (now && *now == hash) {
                settled = Settled::Undone; // nothing was taken: the old `.1` and base still hold
                ::unlink(rotatedAside.c_str());
            } else {
                settled = Settled::Completed;
                // The half written aside before the taking ends where the file now begins (renamed already when it is
                // not there); without one, an older `.1` does not, and goes.
                const std::string rotated = file.string() + ".1";
                if (aside == 0) {
                    ::unlink(rotatedAside.c_str());
                    ::unlink(rotated.c_str());
                } else {
                    (void)::rename(rotatedAside.c_str(), rotated.c_str());
                }
                if (!writeStreamBase(file, base))
                    return settled; // kept for the next try
            }
        }
    }
    ::unlink(path.c_str());
    return settled;
}

bool writeStreamBase(const std::filesystem::path& file, std::uint64_t base)
{
    return replaceWith(file.string() + ".base", std::to_string(base) + "\n");
}

namespace {

// One stream as a reader takes it: `.1` ends where the current file begins (`begins`).
struct Stream {
    const std::filesystem::path& file;
    Part rotated;
    Part current;
    std::uint64_t begins;
    std::string error; // a part that exists but cannot be read

    explicit Stream(const std::filesystem::path& f)
        : file(f)
        , rotated(f.string() + ".1")
        , current(f)
        // A `.1` longer than its base says is one whose base was lost: it is taken to begin at 0.
        , begins(std::max(readStreamBase(f), rotated.size))
        , error(!current.error.empty() ? current.error : rotated.error)
    {
    }
    std::uint64_t kept() const { return begins - rotated.size; } // the position of the first byte kept
    std::uint64_t end() const { return begins + current.size; }

    // The bytes of positions [from, from + count), all kept.
    LogTail read(std::uint64_t from, std::uint64_t count) const
    {
        LogTail tail;
        tail.sizeBytes = rotated.size + current.size;
        tail.truncated = from > kept();
        tail.start = from;
        tail.end = from + count;
        tail.bytes.reserve(static_cast<std::size_t>(count));
        bool read = true;
        if (from < begins) {
            const std::uint64_t n = std::min(count, begins - from);
            read = rotated.appendRange(from - kept(), n, tail.bytes);
            from += n;
            count -= n;
        }
        if (read && count > 0)
            read = current.appendRange(from - begins, count, tail.bytes);
        if (!read) {
            tail.bytes.clear();
            tail.error = "cannot read " + file.string() + ": " + std::strerror(errno);
        }
        return tail;
    }
};

} // namespace

LogTail readLogTail(const std::filesystem::path& file, std::size_t maxBytes)
{
    const Stream stream(file);
    if (!stream.error.empty()) {
        LogTail failed;
        failed.error = stream.error;
        return failed;
    }
    const std::uint64_t want = std::min<std::uint64_t>(maxBytes, stream.end() - stream.kept());
    return stream.read(stream.end() - want, want);
}

LogTail readLogFrom(const std::filesystem::path& file, std::uint64_t from, std::size_t maxBytes)
{
    const Stream stream(file);
    if (!stream.error.empty()) {
        LogTail failed;
        failed.error = stream.error;
        return failed;
    }
    const std::uint64_t first = from > stream.end() ? stream.kept() : std::max(from, stream.kept());
    return stream.read(first, std::min<std::uint64_t>(maxBytes, stream.end() - first));
}

std::size_t unfinishedTail(std::string_view bytes)
{
    // An incomplete sequence: the last lead byte within the last three begins one longer than what follows it.
    std::size_t unfinished = 0;
    for (std::size_t back = 1; back <= std::min<std::size_t>(3, bytes.size()); ++back) {
        const auto c = static_cast<unsigned char>(bytes[bytes.size() - back]);
        if ((c & 0xC0) == 0x80)
            continue; // a continuation byte: its lead is further back
        const std::size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        unfinished = length > back ? back : 0;
        break;
    }
    // And a carriage return before it, which a newline may follow.
    if (unfinished < bytes.size() && bytes[bytes.size() - unfinished - 1] == '\r')
        ++unfinished;
    return unfinished;
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
    const std::filesystem::path& stderrPath, bool ended)
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
    const auto maxBytes = static_cast<std::size_t>(request.maxBytes);
    LogTail tail = request.from >= 0 ? readLogFrom(file, static_cast<std::uint64_t>(request.from), maxBytes)
                                     : readLogTail(file, maxBytes);
    if (!tail.error.empty()) {
        reply.error = tail.error.substr(0, protocol::kMaxTextBytes);
        return reply;
    }
    // A follower reads on from `end`: what it would split waits for that read, unless nothing more will come.
    if (request.from >= 0 && !ended) {
        const std::size_t unfinished = unfinishedTail(tail.bytes);
        tail.bytes.resize(tail.bytes.size() - unfinished);
        tail.end -= unfinished;
    }
    // A follower's read begins at a character (its last ended before any it would split), unless a position it made
    // up or bytes skipped put it inside one: its rest is dropped then. A tail begins inside one only when truncated.
    reply.data = logText(tail.bytes, request.from >= 0 ? tail.start > 0 : tail.truncated);
    reply.sizeBytes = static_cast<std::int64_t>(tail.sizeBytes);
    reply.truncated = tail.truncated;
    reply.start = static_cast<std::int64_t>(std::min<std::uint64_t>(tail.start, protocol::kMaxLogPosition));
    reply.end = static_cast<std::int64_t>(std::min<std::uint64_t>(tail.end, protocol::kMaxLogPosition));
    return reply;
}

} // namespace tidepool::agent
