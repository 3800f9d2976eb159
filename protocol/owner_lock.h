#pragma once
// One process's hold on something that takes one owner — a database file, an agent's state directory, an agent's
// base cgroup: an exclusive flock(2), which the kernel lets go when the process dies, however it dies, so that no
// stale lock outlives its owner. A second process (or a second open of it in the same process) is refused and told
// who holds it: the pid /proc/locks gives the lock's owner, and that process's name from /proc/<pid>/comm.
// Shared by the core (the SQLite store) and the agents, like the log sink; it is no part of the wire format.
//
// Thread affinity: none. Ownership: owns one close-on-exec descriptor; move-only.

#include <string>

#include <tl/expected.hpp>

namespace tidepool::protocol {

struct OwnerLockError {
    int error = 0; // errno; EWOULDBLOCK when another open file holds the lock
    long holderPid = 0; // the holder, where /proc/locks names it
    std::string holderProgram; // its name, where /proc/<pid>/comm tells it

    bool heldByAnother() const;
    // "tidepoold, pid 42", "pid 42" or "another process".
    std::string holder() const;
    // errno's text.
    std::string reason() const;
};

class OwnerLock {
public:
    enum class Target {
        File, // a lock file, created (0644) when missing; on a read-only file system an existing one is locked
        Directory, // an existing directory, locked itself
    };

    OwnerLock() = default;
    OwnerLock(OwnerLock&& other) noexcept;
    OwnerLock& operator=(OwnerLock&& other) noexcept;
    OwnerLock(const OwnerLock&) = delete;
    OwnerLock& operator=(const OwnerLock&) = delete;
    ~OwnerLock();

    // Takes the lock without waiting.
    static tl::expected<OwnerLock, OwnerLockError> acquire(const std::string& path, Target target);

    bool held() const { return m_fd >= 0; }

private:
    explicit OwnerLock(int fd)
        : m_fd(fd)
    {
    }
    int m_fd = -1;
};

} // namespace tidepool::protocol
