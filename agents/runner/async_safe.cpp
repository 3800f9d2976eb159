#include "agents/runner/async_safe.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace tidepool::agent::asyncsafe {

namespace {

std::size_t length(const char* text)
{
    std::size_t n = 0;
    while (text[n] != '\0')
        ++n;
    return n;
}

bool startsWith(const char* text, std::size_t size, const char* prefix)
{
    for (std::size_t i = 0; prefix[i] != '\0'; ++i)
        if (i >= size || text[i] != prefix[i])
            return false;
    return true;
}

} // namespace

void TextBuffer::append(const char* text)
{
    append(text, length(text));
}

void TextBuffer::append(const char* text, std::size_t count)
{
    for (std::size_t i = 0; i < count; ++i) {
        if (size + 1 >= kCapacity) { // keep room for a terminating NUL
            overflow = true;
            return;
        }
        data[size++] = text[i];
    }
    data[size] = '\0';
}

void TextBuffer::appendUnsigned(std::uint64_t value)
{
    char digits[24];
    std::size_t n = 0;
    do {
        digits[n++] = static_cast<char>('0' + value % 10);
        value /= 10;
    } while (value != 0);
    char ordered[24];
    for (std::size_t i = 0; i < n; ++i)
        ordered[i] = digits[n - 1 - i];
    append(ordered, n);
}

void TextBuffer::appendSigned(std::int64_t value)
{
    if (value < 0) {
        append("-", 1);
        appendUnsigned(static_cast<std::uint64_t>(-(value + 1)) + 1);
    } else {
        appendUnsigned(static_cast<std::uint64_t>(value));
    }
}

int writeAll(int fd, const char* data, std::size_t size)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return EIO;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return 0;
}

int writeFileAtomic(const char* tmpPath, const char* finalPath, const char* dirPath, const iovec* parts, int count)
{
    const int fd = ::open(tmpPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno;
    int err = 0;
    for (int i = 0; i < count && err == 0; ++i)
        err = writeAll(fd, static_cast<const char*>(parts[i].iov_base), parts[i].iov_len);
    if (err == 0 && ::fsync(fd) != 0)
        err = errno;
    if (::close(fd) != 0 && err == 0 && errno != EINTR)
        err = errno;
    if (err == 0 && ::rename(tmpPath, finalPath) != 0)
        err = errno;
    if (err != 0) {
        ::unlink(tmpPath);
        return err;
    }
    const int dir = ::open(dirPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
    return 0;
}

int writeFileInSlot(const char* slotPath, const char* finalPath, const char* dirPath, const iovec* parts, int count)
{
    const int fd = ::open(slotPath, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return errno;
    struct stat st { };
    std::size_t total = 0;
    for (int i = 0; i < count; ++i)
        total += parts[i].iov_len;
    int err = 0;
    if (::fstat(fd, &st) != 0)
        err = errno;
    else if (!S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) < total)
        err = EFBIG; // writing past the reserved bytes could need space the file system no longer has
    // Over the reserved bytes, from the start: no new blocks. Then cut the spaces left after the record.
    off_t offset = 0;
    for (int i = 0; i < count && err == 0; ++i) {
        const char* data = static_cast<const char*>(parts[i].iov_base);
        std::size_t left = parts[i].iov_len;
        while (left > 0 && err == 0) {
            const ssize_t n = ::pwrite(fd, data, left, offset);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                err = n < 0 ? errno : EIO;
                break;
            }
            data += n;
            left -= static_cast<std::size_t>(n);
            offset += n;
        }
    }
    if (err == 0 && ::ftruncate(fd, offset) != 0)
        err = errno;
    if (err == 0 && ::fsync(fd) != 0)
        err = errno;
    if (::close(fd) != 0 && err == 0 && errno != EINTR)
        err = errno;
    if (err == 0 && ::rename(slotPath, finalPath) != 0)
        err = errno;
    if (err != 0)
        return err; // the slot stays, for another try
    const int dir = ::open(dirPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
    return 0;
}

void sleepMs(std::int64_t ms)
{
    timespec left { static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1'000'000L };
    while (::nanosleep(&left, &left) != 0 && errno == EINTR) { }
}

int writeSmallFile(const char* path, const char* text, std::size_t size)
{
    const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    ssize_t n = 0;
    do
        n = ::write(fd, text, size);
    while (n < 0 && errno == EINTR);
    const int err = n < 0 ? errno : (static_cast<std::size_t>(n) == size ? 0 : EIO);
    ::close(fd);
    return err;
}

bool readProcStat(pid_t pid, char* state, std::uint64_t* startTime)
{
    TextBuffer path;
    path.append("/proc/");
    path.appendUnsigned(static_cast<std::uint64_t>(pid));
    path.append("/stat");
    const int fd = ::open(path.data, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char buffer[1024];
    std::size_t size = 0;
    while (size < sizeof buffer) {
        const ssize_t n = ::read(fd, buffer + size, sizeof buffer - size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        size += static_cast<std::size_t>(n);
    }
    ::close(fd);
    // The command name (field 2) is in parentheses and may contain anything, ')' and spaces included: the fields
    // after it start after the last ')'.
    std::size_t close = size;
    for (std::size_t i = 0; i < size; ++i)
        if (buffer[i] == ')')
            close = i;
    if (close == size || close + 2 >= size)
        return false;
    std::size_t at = close + 2; // field 3
    *state = buffer[at];
    for (int field = 3; field < 22; ++field) {
        while (at < size && buffer[at] != ' ')
            ++at;
        if (at >= size)
            return false;
        ++at;
    }
    std::uint64_t value = 0;
    bool any = false;
    while (at < size && buffer[at] >= '0' && buffer[at] <= '9') {
        value = value * 10 + static_cast<std::uint64_t>(buffer[at++] - '0');
        any = true;
    }
    *startTime = value;
    return any;
}

bool readKeyedCounter(const char* path, const char* key, std::uint64_t* value)
{
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char buffer[4096];
    std::size_t size = 0;
    while (size < sizeof buffer - 1) {
        const ssize_t n = ::read(fd, buffer + size, sizeof buffer - 1 - size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        size += static_cast<std::size_t>(n);
    }
    ::close(fd);
    const std::size_t keyLength = length(key);
    for (std::size_t line = 0; line < size;) {
        if (startsWith(buffer + line, size - line, key) && line + keyLength < size && buffer[line + keyLength] == ' ') {
            std::size_t at = line + keyLength + 1;
            std::uint64_t v = 0;
            bool any = false;
            while (at < size && buffer[at] >= '0' && buffer[at] <= '9') {
                v = v * 10 + static_cast<std::uint64_t>(buffer[at++] - '0');
                any = true;
            }
            if (any)
                *value = v;
            return any;
        }
        while (line < size && buffer[line] != '\n')
            ++line;
        ++line;
    }
    return false;
}

int signalCgroupProcesses(const char* procsFile, int signal, pid_t exclude)
{
    const int fd = ::open(procsFile, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int signalled = 0;
    std::int64_t pid = 0;
    bool inNumber = false;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            return -err;
        }
        for (ssize_t i = 0; i < n; ++i) {
            const char c = buffer[i];
            if (c >= '0' && c <= '9') {
                pid = pid * 10 + (c - '0');
                inNumber = true;
                continue;
            }
            if (inNumber && pid > 0 && pid != exclude && ::kill(static_cast<pid_t>(pid), signal) == 0)
                ++signalled;
            pid = 0;
            inNumber = false;
        }
        // A last number without a newline after it.
        if (n == 0 && inNumber && pid > 0 && pid != exclude && ::kill(static_cast<pid_t>(pid), signal) == 0)
            ++signalled;
        if (n == 0)
            break;
    }
    ::close(fd);
    return signalled;
}

int killCgroup(const char* killFile, const char* procsFile, pid_t exclude, int passes)
{
    if (killFile != nullptr && killFile[0] != '\0')
        writeSmallFile(killFile, "1", 1);
    int left = 0;
    for (int pass = 0; pass < passes; ++pass) {
        left = signalCgroupProcesses(procsFile, SIGKILL, exclude);
        if (left <= 0)
            return 0;
        const timespec pause { 0, 5'000'000 };
        ::nanosleep(&pause, nullptr);
    }
    return left;
}

std::int64_t nowUnixMs()
{
    timespec now {};
    ::clock_gettime(CLOCK_REALTIME, &now);
    return static_cast<std::int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1'000'000;
}

} // namespace tidepool::agent::asyncsafe
