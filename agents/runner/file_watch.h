#pragma once
// Files watched for writes (Linux inotify behind Asio): the agent's held reads of a workload's output (`LogWaits`)
// are answered when a line is written, not at the next 200 ms poll. `watchOnly` sets which files are watched; each
// batch of writes the kernel queued is told at once, with the watched paths it touched. A watch follows its file's
// inode: the runner's rotation truncates in place (copytruncate), which it follows; a file replaced by another under
// its name, or one that does not exist yet, is not followed, and the poll still finds its output. Where inotify cannot
// be had (no instance or no watch left: `fs.inotify.max_user_instances`, `max_user_watches`), `problem` says why and
// the polls answer alone.
//
// Thread affinity: the io_context's one thread (the agent's).

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace tidepool::agent {

class FileWatch {
public:
    // The watched paths written since the last call (a path watched under two names is told under both).
    using Written = std::function<void(const std::set<std::string>& paths)>;

    FileWatch(boost::asio::io_context& io, Written written);
    ~FileWatch();
    FileWatch(const FileWatch&) = delete;
    FileWatch& operator=(const FileWatch&) = delete;

    // Watches exactly `paths` from now on: those newly named are added, those no longer named removed.
    void watchOnly(const std::set<std::string>& paths);
    std::size_t size() const { return m_watches.size(); }
    // Why a watch could not be had, the latest; empty when every one asked for was.
    const std::string& problem() const { return m_problem; }

private:
    void readEvents();

    boost::asio::posix::stream_descriptor m_events;
    Written m_written;
    std::map<std::string, int> m_watches; // path → inotify watch descriptor
    std::string m_problem;
    // Outlives this object while a read is pending: a closed descriptor's read completes after it.
    std::shared_ptr<std::array<char, 8192>> m_buffer = std::make_shared<std::array<char, 8192>>();
};

} // namespace tidepool::agent
