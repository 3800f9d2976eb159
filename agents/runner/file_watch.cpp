#include "agents/runner/file_watch.h"

#include <boost/asio/buffer.hpp>

#include <sys/inotify.h>

#include <cerrno>
#include <cstring>

namespace tidepool::agent {

FileWatch::FileWatch(boost::asio::io_context& io, Written written)
    : m_events(io)
    , m_written(std::move(written))
{
    const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) {
        m_problem = std::string("inotify_init1: ") + std::strerror(errno);
        return;
    }
    m_events.assign(fd);
    readEvents();
}

FileWatch::~FileWatch()
{
    boost::system::error_code ignored;
    m_events.close(ignored); // its watches go with it
}

void FileWatch::watchOnly(const std::set<std::string>& paths)
{
    if (!m_events.is_open())
        return;
    const int fd = m_events.native_handle();
    for (auto it = m_watches.begin(); it != m_watches.end();) {
        if (paths.count(it->first) > 0) {
            ++it;
            continue;
        }
        const int wd = it->second;
        it = m_watches.erase(it);
        // One file under two names is one watch: removed once neither name is watched.
        bool shared = false;
        for (const auto& [path, other] : m_watches)
            shared = shared || other == wd;
        if (!shared)
            ::inotify_rm_watch(fd, wd);
    }
    std::string problem;
    for (const std::string& path : paths) {
        if (m_watches.count(path) > 0)
            continue;
        // Not through a link: the workload may write in its record directory (as `log_tail.h` reads).
        const int wd = ::inotify_add_watch(fd, path.c_str(), IN_MODIFY | IN_DONT_FOLLOW);
        if (wd >= 0)
            m_watches.emplace(path, wd);
        else if (errno != ENOENT) // not written yet: watched once it is, at a later call
            problem = "inotify_add_watch " + path + ": " + std::strerror(errno);
    }
    m_problem = std::move(problem);
}

void FileWatch::readEvents()
{
    m_events.async_read_some(boost::asio::buffer(*m_buffer),
        [this, buffer = m_buffer](const boost::system::error_code& e, std::size_t bytes) {
            if (e)
                return; // closed (this object may be gone): nothing of it is touched
            std::set<int> written, gone;
            for (std::size_t at = 0; at + sizeof(inotify_event) <= bytes;) {
                inotify_event event {};
                std::memcpy(&event, buffer->data() + at, sizeof event);
                (event.mask & IN_IGNORED ? gone : written).insert(event.wd);
                at += sizeof(inotify_event) + event.len;
            }
            std::set<std::string> paths;
            for (auto it = m_watches.begin(); it != m_watches.end();) {
                if (written.count(it->second) > 0)
                    paths.insert(it->first);
                // The kernel dropped the watch (its file was deleted): watched again if named and written again.
                it = gone.count(it->second) > 0 ? m_watches.erase(it) : std::next(it);
            }
            readEvents();
            if (!paths.empty())
                m_written(paths);
        });
}

} // namespace tidepool::agent
