#include "protocol/owner_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

namespace tidepool::protocol {

namespace {

// The pid that holds a flock on the file `fd` is open on, from /proc/locks ("1: FLOCK  ADVISORY  WRITE 4242
// 00:2a:17 0 EOF": the device's major and minor in hex, then the inode); 0 when it does not say.
long flockHolder(int fd)
{
    struct stat st { };
    if (::fstat(fd, &st) != 0)
        return 0;
    char id[64];
    std::snprintf(
        id, sizeof id, "%02x:%02x:%lu", ::major(st.st_dev), ::minor(st.st_dev), static_cast<unsigned long>(st.st_ino));
    std::ifstream locks("/proc/locks");
    for (std::string line; std::getline(locks, line);) {
        std::istringstream fields(line);
        std::string number, kind, mode, access, file;
        long pid = 0;
        if (line.find("->") == std::string::npos && fields >> number >> kind >> mode >> access >> pid >> file
            && kind == "FLOCK" && file == id)
            return pid;
    }
    return 0;
}

} // namespace

bool OwnerLockError::heldByAnother() const
{
    return error == EWOULDBLOCK;
}

std::string OwnerLockError::holder() const
{
    if (holderPid <= 0)
        return "another process";
    return (holderProgram.empty() ? "pid " : holderProgram + ", pid ") + std::to_string(holderPid);
}

std::string OwnerLockError::reason() const
{
    return std::error_code(error, std::generic_category()).message();
}

OwnerLock::OwnerLock(OwnerLock&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1))
{
}

OwnerLock& OwnerLock::operator=(OwnerLock&& other) noexcept
{
    if (this != &other) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = std::exchange(other.m_fd, -1);
    }
    return *this;
}

OwnerLock::~OwnerLock()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

tl::expected<OwnerLock, OwnerLockError> OwnerLock::acquire(const std::string& path, Target target)
{
    int fd = target == Target::Directory ? ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                                         : ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0 && errno == EROFS && target == Target::File) {
        const int readOnly = errno;
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW); // one made before the file system went read-only
        if (fd < 0)
            errno = readOnly;
    }
    OwnerLockError refused;
    if (fd < 0) {
        refused.error = errno;
        return tl::unexpected(refused);
    }
    OwnerLock lock(fd);
    int locked = -1;
    do
        locked = ::flock(fd, LOCK_EX | LOCK_NB);
    while (locked != 0 && errno == EINTR);
    if (locked == 0)
        return lock;
    refused.error = errno;
    if (refused.heldByAnother()) {
        refused.holderPid = flockHolder(fd);
        if (refused.holderPid > 0) {
            std::ifstream comm("/proc/" + std::to_string(refused.holderPid) + "/comm");
            std::getline(comm, refused.holderProgram);
        }
    }
    return tl::unexpected(refused);
}

} // namespace tidepool::protocol
