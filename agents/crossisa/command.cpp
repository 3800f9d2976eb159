#include "agents/crossisa/command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

extern char** environ;

namespace tidepool::agent::crossisa {

namespace {

class Pipe {
public:
    Pipe() = default;
    ~Pipe()
    {
        closeRead();
        closeWrite();
    }
    Pipe(const Pipe&) = delete;
    Pipe& operator=(const Pipe&) = delete;
    bool open() { return ::pipe2(m_fds.data(), O_CLOEXEC) == 0; }
    int readEnd() const { return m_fds[0]; }
    int writeEnd() const { return m_fds[1]; }
    void closeRead() { closeOne(m_fds[0]); }
    void closeWrite() { closeOne(m_fds[1]); }

private:
    static void closeOne(int& fd)
    {
        if (fd >= 0)
            ::close(fd);
        fd = -1;
    }
    std::array<int, 2> m_fds { -1, -1 };
};

class SpawnActions {
public:
    SpawnActions() { m_ok = ::posix_spawn_file_actions_init(&m_actions) == 0; }
    ~SpawnActions()
    {
        if (m_ok)
            ::posix_spawn_file_actions_destroy(&m_actions);
    }
    SpawnActions(const SpawnActions&) = delete;
    SpawnActions& operator=(const SpawnActions&) = delete;
    bool ok() const { return m_ok; }
    posix_spawn_file_actions_t* get() { return &m_actions; }

private:
    posix_spawn_file_actions_t m_actions {};
    bool m_ok = false;
};

// Reads what is available from `fd` into `sink` (up to the limit); false at end of file or on an error.
bool drain(int fd, std::string& sink)
{
    std::array<char, 4096> buffer {};
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0)
        return errno == EINTR || errno == EAGAIN;
    if (n == 0)
        return false;
    const std::size_t room = kMaxCommandOutputBytes - std::min(sink.size(), kMaxCommandOutputBytes);
    sink.append(buffer.data(), std::min(room, static_cast<std::size_t>(n)));
    return true;
}

} // namespace

std::string describeCommand(const std::vector<std::string>& argv)
{
    std::string text;
    for (const std::string& arg : argv) {
        if (!text.empty())
            text += ' ';
        text += arg;
    }
    return text;
}

Expected<CommandResult> runCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout)
{
    if (argv.empty())
        return makeError(ErrorCode::BadArgument, "no command to run");
    const std::string what = "`" + describeCommand(argv) + "`";
    Pipe out;
    Pipe err;
    SpawnActions actions;
    if (!out.open() || !err.open() || !actions.ok())
        return makeError(ErrorCode::BenchmarkFailed, "cannot run " + what + ": " + std::strerror(errno));
    // dup2 clears close-on-exec on the copies, so only these two descriptors (and /dev/null) reach the child.
    if (::posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0) != 0
        || ::posix_spawn_file_actions_adddup2(actions.get(), out.writeEnd(), STDOUT_FILENO) != 0
        || ::posix_spawn_file_actions_adddup2(actions.get(), err.writeEnd(), STDERR_FILENO) != 0)
        return makeError(ErrorCode::BenchmarkFailed, "cannot run " + what + ": posix_spawn file actions failed");

    std::vector<char*> args;
    for (const std::string& arg : argv)
        args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    if (const int rc = ::posix_spawn(&pid, argv.front().c_str(), actions.get(), nullptr, args.data(), environ); rc != 0)
        return makeError(ErrorCode::BenchmarkFailed, "cannot run " + what + ": " + std::strerror(rc));
    out.closeWrite();
    err.closeWrite();

    CommandResult result;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    bool outOpen = true;
    bool errOpen = true;
    bool timedOut = false;
    while (outOpen || errOpen) {
        const auto left
            = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timedOut = true;
            break;
        }
        std::array<pollfd, 2> fds { { { outOpen ? out.readEnd() : -1, POLLIN, 0 },
            { errOpen ? err.readEnd() : -1, POLLIN, 0 } } };
        const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::min<long long>(left.count(), 1000)));
        if (ready < 0 && errno != EINTR) {
            timedOut = true; // cannot watch the child any more: stop it rather than wait blind
            break;
        }
        if (ready <= 0)
            continue;
        if (outOpen && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0)
            outOpen = drain(out.readEnd(), result.out);
        if (errOpen && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0)
            errOpen = drain(err.readEnd(), result.err);
    }
    // A child may close its output and carry on: it gets the rest of the time, then is killed.
    int status = 0;
    while (!timedOut) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid || (done < 0 && errno != EINTR))
            break;
        if (std::chrono::steady_clock::now() >= deadline)
            timedOut = true;
        else
            ::usleep(5000);
    }
    if (timedOut) {
        ::kill(pid, SIGKILL);
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) { }
    }
    if (timedOut)
        return makeError(ErrorCode::BenchmarkFailed,
            what + " ran longer than " + std::to_string(timeout.count()) + " ms and was killed");
    if (WIFEXITED(status))
        result.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        result.signal = WTERMSIG(status);
    return result;
}

} // namespace tidepool::agent::crossisa
