#include "core/api/power_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace tidepool::api {

namespace {

constexpr std::size_t kKeepBytes = 4096; // of standard error, while it runs
constexpr std::size_t kTailBytes = 500; // of that, in the result

using SteadyClock = std::chrono::steady_clock;

std::string errnoText(int err)
{
    return std::strerror(err);
}

// The last lines of `text` within `kTailBytes`, one line, control characters replaced.
std::string tailOf(std::string text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
        text.pop_back();
    if (text.size() > kTailBytes) {
        text.erase(0, text.size() - kTailBytes);
        if (const auto eol = text.find('\n'); eol != std::string::npos && eol + 1 < text.size())
            text.erase(0, eol + 1);
    }
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            c = c == '\n' ? '|' : ' ';
    return text;
}

bool isExecutableFile(const std::string& path)
{
    struct stat st { };
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

} // namespace

std::string PowerCommandResult::describe(std::chrono::milliseconds timeout) const
{
    std::string text;
    if (!started)
        return "could not start: " + startError;
    if (timedOut)
        text = "timed out after " + std::to_string(timeout.count()) + " ms (killed)";
    else if (signal != 0)
        text = "killed by signal " + std::to_string(signal);
    else
        text = "exit status " + std::to_string(exitCode);
    if (!stderrTail.empty())
        text += ": " + stderrTail;
    return text;
}

Expected<void> checkPowerCommand(const std::string& program)
{
    if (program.empty())
        return makeError(ErrorCode::InvalidArgument, "--power-command: the program is empty");
    if (program.find('/') != std::string::npos) {
        if (!isExecutableFile(program))
            return makeError(ErrorCode::InvalidArgument, "--power-command: " + program + " is not an executable file");
        return {};
    }
    const char* path = std::getenv("PATH");
    std::string_view rest = path ? path : "/usr/local/bin:/usr/bin:/bin";
    while (!rest.empty()) {
        const auto colon = rest.find(':');
        const std::string dir(rest.substr(0, colon));
        rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
        if (!dir.empty() && isExecutableFile(dir + "/" + program))
            return {};
    }
    return makeError(
        ErrorCode::InvalidArgument, "--power-command: no executable named " + program + " in PATH (give its path)");
}

PowerCommandResult runPowerCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout)
{
    PowerCommandResult result;
    const auto started = SteadyClock::now();
    if (argv.empty() || argv.front().empty()) {
        result.startError = "no program";
        return result;
    }
    int pipeFds[2] = { -1, -1 };
    if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
        result.startError = "pipe: " + errnoText(errno);
        return result;
    }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 2); // dup2 clears close-on-exec on the copy
    // Its own process group (killed whole on a timeout), no signal blocked, and the dispositions the daemon ignores
    // (SIGPIPE, say) back to their defaults: an ignored signal would be inherited across exec.
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (const int sig : { SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2 })
        sigaddset(&defaults, sig);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    std::vector<char*> args;
    for (const std::string& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    // posix_spawnp searches PATH only for a name without '/'.
    const int spawned = ::posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    ::close(pipeFds[1]);
    if (spawned != 0) {
        ::close(pipeFds[0]);
        result.startError = argv.front() + ": " + errnoText(spawned);
        result.took = std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - started);
        return result;
    }
    result.started = true;

    const auto deadline = started + timeout;
    std::string err;
    bool eof = false;
    bool exited = false;
    int status = 0;
    for (;;) {
        if (!exited && ::waitpid(pid, &status, WNOHANG) == pid)
            exited = true;
        // Done once it has exited and its standard error is drained (or left open by something it started in the
        // background: what is there now is all that is read).
        if (exited && eof)
            break;
        const auto now = SteadyClock::now();
        if (now >= deadline) {
            if (!exited) {
                result.timedOut = true;
                ::kill(-pid, SIGKILL);
                while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) { }
                exited = true;
            }
            break;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
        pollfd fd { pipeFds[0], POLLIN, 0 };
        const int waitMs = exited ? 0 : static_cast<int>(std::min<long long>(left, 20));
        const int ready = eof ? 0 : ::poll(&fd, 1, waitMs);
        if (ready > 0) {
            char buffer[1024];
            const ssize_t n = ::read(pipeFds[0], buffer, sizeof buffer);
            if (n > 0) {
                err.append(buffer, static_cast<std::size_t>(n));
                if (err.size() > kKeepBytes)
                    err.erase(0, err.size() - kKeepBytes);
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                eof = true;
            }
        } else if (exited) {
            break; // exited, nothing more to read now
        } else if (eof) {
            ::usleep(10'000); // standard error closed early: wait for the exit
        }
    }
    ::close(pipeFds[0]);
    if (WIFEXITED(status) && !result.timedOut)
        result.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status) && !result.timedOut)
        result.signal = WTERMSIG(status);
    result.stderrTail = tailOf(std::move(err));
    result.took = std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - started);
    return result;
}

} // namespace tidepool::api
