#include "agents/isolation/sysfs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <system_error>

namespace tidepool::agent::sysfs {

namespace {

tl::unexpected<IsolationError> systemError(const std::filesystem::path& path, std::string what, int err)
{
    const auto code = err == EBUSY || err == ENOTEMPTY ? IsolationErrorCode::Busy
        : err == ENOENT                                ? IsolationErrorCode::NotFound
                                                       : IsolationErrorCode::SystemCall;
    return makeIsolationError(code, path.string(), what + " " + path.string() + ": " + errnoText(err));
}

} // namespace

std::string errnoText(int err)
{
    return std::system_category().message(err);
}

IsolationExpected<std::string> readFile(const std::filesystem::path& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return systemError(path, "opening", errno);
    std::string text;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            return systemError(path, "reading", err);
        }
        if (n == 0)
            break;
        text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return text;
}

IsolationExpected<void> writeFile(const std::filesystem::path& path, std::string_view value)
{
    const std::string shown = "writing '" + quoted(value) + "' to";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return systemError(path, shown, errno);
    ssize_t n = 0;
    do
        n = ::write(fd, value.data(), value.size());
    while (n < 0 && errno == EINTR);
    const int err = errno;
    ::close(fd);
    if (n < 0)
        return systemError(path, shown, err);
    if (static_cast<std::size_t>(n) != value.size())
        return makeIsolationError(IsolationErrorCode::SystemCall, path.string(),
            shown + " " + path.string() + ": short write (" + std::to_string(n) + " of " + std::to_string(value.size())
                + " bytes)");
    return {};
}

IsolationExpected<bool> makeDirectory(const std::filesystem::path& path)
{
    if (::mkdir(path.c_str(), 0755) == 0)
        return true;
    const int err = errno;
    struct stat st { };
    if (err == EEXIST && ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        return false;
    if (err == EEXIST)
        return makeIsolationError(IsolationErrorCode::SystemCall, path.string(),
            "creating directory " + path.string() + ": something other than a directory is there");
    return systemError(path, "creating directory", err);
}

IsolationExpected<void> removeDirectory(const std::filesystem::path& path)
{
    if (::rmdir(path.c_str()) == 0 || errno == ENOENT)
        return {};
    return systemError(path, "removing directory", errno);
}

bool fileExists(const std::filesystem::path& path)
{
    struct stat st { };
    return ::stat(path.c_str(), &st) == 0;
}

IsolationExpected<std::uint64_t> readKeyedCounter(const std::filesystem::path& path, std::string_view key)
{
    auto text = readFile(path);
    if (!text)
        return tl::unexpected(text.error());
    std::string_view rest = *text;
    while (!rest.empty()) {
        const auto eol = rest.find('\n');
        const std::string_view line = rest.substr(0, eol);
        rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
        if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ' ') {
            std::uint64_t value = 0;
            const auto digits = line.substr(key.size() + 1);
            const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
            if (ec != std::errc())
                break;
            return value;
        }
    }
    return makeIsolationError(
        IsolationErrorCode::NotFound, path.string(), "no '" + std::string(key) + " <number>' line in " + path.string());
}

std::string quoted(std::string_view name)
{
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (const char c : name) {
        if (out.size() >= 80) {
            out += "...";
            break;
        }
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x20 && u < 0x7f && c != '\\') {
            out.push_back(c);
        } else {
            out += "\\x";
            out.push_back(kHex[u >> 4]);
            out.push_back(kHex[u & 0xf]);
        }
    }
    return out;
}

} // namespace tidepool::agent::sysfs
