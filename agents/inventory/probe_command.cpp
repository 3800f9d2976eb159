#include "agents/inventory/probe_command.h"

#include "agents/inventory/accelerator_file.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

namespace tidepool::agent {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxStderrBytes = 4096; // the tail kept for the error message
constexpr std::size_t kMaxStderrLineBytes = 200;

// A file descriptor closed when it goes out of scope.
class Fd {
public:
    Fd() = default;
    ~Fd() { reset(); }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    void adopt(int fd)
    {
        reset();
        m_fd = fd;
    }
    int get() const { return m_fd; }
    void reset()
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
    }

private:
    int m_fd = -1;
};

struct Pipe {
    Fd readEnd;
    Fd writeEnd;
};

bool makePipe(Pipe& pipe)
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return false;
    pipe.readEnd.adopt(fds[0]);
    pipe.writeEnd.adopt(fds[1]);
    return true;
}

// Owns the spawn attributes and file actions, which must be destroyed however the spawn ends.
struct SpawnSetup {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    SpawnSetup()
    {
        posix_spawn_file_actions_init(&actions);
        posix_spawnattr_init(&attributes);
    }
    ~SpawnSetup()
    {
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attributes);
    }
    SpawnSetup(const SpawnSetup&) = delete;
    SpawnSetup& operator=(const SpawnSetup&) = delete;
};

// The last non-empty line of `text`, without control characters, cut to a readable length.
std::string lastLine(std::string_view text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
        text.remove_suffix(1);
    if (const auto newline = text.rfind('\n'); newline != std::string_view::npos)
        text.remove_prefix(newline + 1);
    std::string line;
    for (const char c : text.substr(0, kMaxStderrLineBytes))
        line.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c);
    return line;
}

struct Finished {
    int status = 0; // as waitpid reports it
    bool timedOut = false;
    bool outputTooLong = false;
    bool reaped = false; // false when waitpid could not report the status (SIGCHLD ignored, or reaped elsewhere)
    std::string out;
    std::string err;
};

// Reads the child's output until both pipes close, then reaps it; kills its process group at the deadline.
Finished collect(pid_t pid, Fd& out, Fd& err, Clock::time_point deadline)
{
    Finished finished;
    const auto killGroup = [&] {
        // The child leads its own process group, so this also reaches what it started (a script's `sleep`).
        ::kill(-pid, SIGKILL);
    };
    char buffer[4096];
    while (out.get() >= 0 || err.get() >= 0) {
        const auto now = Clock::now();
        if (now >= deadline) {
            finished.timedOut = true;
            killGroup();
            break;
        }
        // Rounded up, so that the wait never ends a little before the deadline.
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
        pollfd fds[2] = { { out.get(), POLLIN, 0 }, { err.get(), POLLIN, 0 } }; // poll ignores negative fds
        const int ready = ::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
        if (ready < 0 && errno != EINTR) {
            finished.timedOut = true; // cannot happen with valid fds; treat as a hung command rather than spin
            killGroup();
            break;
        }
        for (int i = 0; i < 2 && ready > 0; ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0)
                continue;
            Fd& fd = i == 0 ? out : err;
            const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
            if (n < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (n <= 0) {
                fd.reset();
                continue;
            }
            if (i == 0) {
                finished.out.append(buffer, static_cast<std::size_t>(n));
                if (finished.out.size() > kMaxAcceleratorListBytes) {
                    finished.outputTooLong = true;
                    killGroup();
                    out.reset();
                    err.reset();
                }
            } else {
                finished.err.append(buffer, static_cast<std::size_t>(n));
                if (finished.err.size() > 2 * kMaxStderrBytes)
                    finished.err.erase(0, finished.err.size() - kMaxStderrBytes);
            }
        }
    }
    // Both pipes are closed (or the group was killed): reap the child, still bounded by the deadline, since a
    // command may close its output and go on running.
    for (;;) {
        const pid_t reaped = ::waitpid(pid, &finished.status, finished.timedOut ? 0 : WNOHANG);
        if (reaped == pid) {
            finished.reaped = true;
            break;
        }
        if (reaped < 0 && errno != EINTR)
            break;
        if (reaped == 0 && Clock::now() >= deadline) {
            finished.timedOut = true;
            killGroup();
            continue; // the blocking wait now reaps it
        }
        if (reaped == 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return finished;
}

} // namespace

std::string probeLabel(const std::vector<std::string>& argv)
{
    std::string command;
    for (const auto& argument : argv)
        command += (command.empty() ? "" : " ") + argument;
    return "probe `" + command + "`";
}

InventoryExpected<std::vector<AcceleratorDevice>> runProbeCommand(
    const std::vector<std::string>& argv, std::chrono::milliseconds timeout)
{
    const std::string label = probeLabel(argv);
    if (argv.empty() || argv.front().empty())
        return makeInventoryError(InventoryErrorCode::ProbeFailed, label, {}, "the probe command is empty");

    Pipe out;
    Pipe err;
    if (!makePipe(out) || !makePipe(err))
        return makeInventoryError(
            InventoryErrorCode::ProbeFailed, label, {}, std::string("cannot make a pipe: ") + std::strerror(errno));

    SpawnSetup setup;
    posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&setup.actions, out.writeEnd.get(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&setup.actions, err.writeEnd.get(), STDERR_FILENO);
    // Its own process group, so that a timeout kills everything it started; no blocked signals, and SIGPIPE back
    // to its default in case the agent ignores it (an ignored signal survives exec).
    sigset_t noSignals;
    sigemptyset(&noSignals);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setflags(
        &setup.attributes, static_cast<short>(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF));
    posix_spawnattr_setpgroup(&setup.attributes, 0);
    posix_spawnattr_setsigmask(&setup.attributes, &noSignals);
    posix_spawnattr_setsigdefault(&setup.attributes, &defaults);

    std::vector<char*> arguments;
    arguments.reserve(argv.size() + 1);
    for (const auto& argument : argv)
        arguments.push_back(const_cast<char*>(argument.c_str())); // posix_spawn does not write through them
    arguments.push_back(nullptr);

    const auto deadline = Clock::now() + timeout;
    pid_t pid = 0;
    if (const int failed
        = posix_spawnp(&pid, argv.front().c_str(), &setup.actions, &setup.attributes, arguments.data(), environ);
        failed != 0)
        return makeInventoryError(
            InventoryErrorCode::ProbeFailed, label, {}, std::string("cannot start: ") + std::strerror(failed));
    out.writeEnd.reset();
    err.writeEnd.reset();

    const Finished finished = collect(pid, out.readEnd, err.readEnd, deadline);
    const std::string stderrLine = lastLine(finished.err);
    const std::string stderrSuffix = stderrLine.empty() ? std::string() : " (stderr: " + stderrLine + ")";
    if (finished.timedOut)
        return makeInventoryError(InventoryErrorCode::ProbeTimedOut, label, {},
            "did not finish within " + std::to_string(timeout.count()) + " ms and was killed" + stderrSuffix);
    if (finished.outputTooLong)
        return makeInventoryError(InventoryErrorCode::ProbeFailed, label, {},
            "printed more than " + std::to_string(kMaxAcceleratorListBytes) + " bytes and was killed");
    if (!finished.reaped)
        return makeInventoryError(InventoryErrorCode::ProbeFailed, label, {},
            "its exit status is unknown: the agent's SIGCHLD is ignored, or another part of the agent reaped it");
    if (WIFSIGNALED(finished.status)) {
        const int signal = WTERMSIG(finished.status);
        const char* name = ::strsignal(signal);
        return makeInventoryError(InventoryErrorCode::ProbeFailed, label, {},
            "was killed by signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : "")
                + stderrSuffix);
    }
    if (!WIFEXITED(finished.status) || WEXITSTATUS(finished.status) != 0)
        return makeInventoryError(InventoryErrorCode::ProbeFailed, label, {},
            "exited with status " + std::to_string(WEXITSTATUS(finished.status)) + stderrSuffix);
    return parseAcceleratorList(finished.out, label, DeviceSource::Probe);
}

} // namespace tidepool::agent
