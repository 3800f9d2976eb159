#include "agents/runner/shim.h"

#include "agents/runner/async_safe.h"
#include "agents/runner/workload_records.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iterator>

namespace tidepool::agent::shim {

using namespace std::chrono_literals;

namespace {

// The shim's report to the agent; smaller than PIPE_BUF, so one write(2) delivers it whole.
struct Message {
    std::int32_t kind = 0; // kStarted or kFailed
    std::int32_t stage = 0;
    std::int32_t error = 0;
    std::int32_t pid = 0;
    std::int32_t shimPid = 0;
    std::int32_t reserved = 0;
    std::uint64_t startTime = 0;
    std::uint64_t shimStartTime = 0;
};
constexpr std::int32_t kForked = 1; // from the intermediate: the shim's pid, before the shim does anything
constexpr std::int32_t kStarted = 2;
constexpr std::int32_t kFailed = 3;

// The workload child's report to the shim when it fails before execve.
struct ChildError {
    std::int32_t stage = 0;
    std::int32_t error = 0;
};

// C views of the plan, built before the fork.
struct Prepared {
    std::vector<char*> argv;
    std::vector<char*> env;
    int maxFd = 1024;
};

Prepared prepare(const ShimPlan& plan)
{
    Prepared c;
    for (const auto& arg : plan.argv)
        c.argv.push_back(const_cast<char*>(arg.c_str()));
    c.argv.push_back(nullptr);
    for (const auto& var : plan.env)
        c.env.push_back(const_cast<char*>(var.c_str()));
    c.env.push_back(nullptr);
    rlimit limit {};
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        c.maxFd = static_cast<int>(limit.rlim_cur < (1U << 20) ? limit.rlim_cur : (1U << 20));
    else
        c.maxFd = 1 << 20;
    return c;
}

void send(int fd, const Message& message)
{
    asyncsafe::writeAll(fd, reinterpret_cast<const char*>(&message), sizeof message);
}

// Reads one whole message, waiting until `deadline` at most; false on timeout or end of file.
bool readMessage(int fd, Message& message, std::chrono::steady_clock::time_point deadline)
{
    std::size_t got = 0;
    while (got < sizeof message) {
        const auto left
            = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return false;
        pollfd p { fd, POLLIN, 0 };
        const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            return false;
        const ssize_t n = ::read(fd, reinterpret_cast<char*>(&message) + got, sizeof message - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        got += static_cast<std::size_t>(n);
    }
    return true;
}

void closeFrom(int first, int maxFd)
{
#ifdef SYS_close_range
    if (::syscall(SYS_close_range, static_cast<unsigned>(first), ~0U, 0U) == 0)
        return;
#endif
    for (int fd = first; fd < maxFd; ++fd)
        ::close(fd);
}

// Every handler the agent installed is reset (it would run agent code in the shim); the shim then ignores the
// signals that stop a process politely, so that only SIGKILL ends it before it has recorded the workload's end.
void resetSignals(bool ignoreTermination)
{
    struct sigaction action { };
    sigemptyset(&action.sa_mask);
    action.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; ++s)
        if (s != SIGKILL && s != SIGSTOP)
            ::sigaction(s, &action, nullptr); // the C library's own signals fail with EINVAL: harmless
    if (ignoreTermination) {
        action.sa_handler = SIG_IGN;
        for (const int s : { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGUSR1, SIGUSR2, SIGTSTP, SIGTTIN, SIGTTOU })
            ::sigaction(s, &action, nullptr);
    }
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

[[noreturn]] void childFail(int errFd, ShimStage stage, int error)
{
    ChildError report;
    report.stage = static_cast<std::int32_t>(stage);
    report.error = error;
    asyncsafe::writeAll(errFd, reinterpret_cast<const char*>(&report), sizeof report);
    ::_exit(127);
}

// The workload child: joins the cgroup, waits until the shim has recorded it, sets up stdio and execs.
[[noreturn]] void runChild(const ShimPlan& plan, const Prepared& c, int goRead, int errWrite)
{
    asyncsafe::TextBuffer pid;
    pid.appendUnsigned(static_cast<std::uint64_t>(::getpid()));
    for (const auto& file : plan.cgroupProcsFiles)
        if (const int err = asyncsafe::writeSmallFile(file.c_str(), pid.data, pid.size); err != 0)
            childFail(errWrite, ShimStage::CgroupJoin, err);

    char go = 0;
    ssize_t n = 0;
    do
        n = ::read(goRead, &go, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1 || go != 'g')
        ::_exit(127); // the shim could not record this process: it never runs unrecorded

    const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const int out = ::open(plan.stdoutPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    const int err = ::open(plan.stderrPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (in < 0 || out < 0 || err < 0)
        childFail(errWrite, ShimStage::Stdio, errno);
    if (::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0)
        childFail(errWrite, ShimStage::Stdio, errno);
    if (::chdir(plan.workingDir.c_str()) != 0)
        childFail(errWrite, ShimStage::WorkingDir, errno);
    resetSignals(false);
    ::execve(plan.executable.c_str(), c.argv.data(), c.env.data());
    childFail(errWrite, ShimStage::Exec, errno);
}

int waitChild(pid_t child)
{
    int status = 0;
    while (::waitpid(child, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

// exit.json: {"exitCode":N | "signal":N | "startError":"stage","errno":N, "oomKilled":..,"oomKills":..,"endedAtMs":..}
void writeExitRecord(const ShimPlan& plan, int waitStatus, ShimStage startError, int error, std::uint64_t oomKills)
{
    asyncsafe::TextBuffer record;
    record.append("{");
    if (startError != ShimStage::None) {
        record.append("\"startError\":\"");
        record.append(stageName(startError));
        record.append("\",\"errno\":");
        record.appendSigned(error);
        record.append(",");
    } else if (waitStatus == -1) {
        record.append("\"waitFailed\":true,");
    } else if (WIFSIGNALED(waitStatus)) {
        record.append("\"signal\":");
        record.appendSigned(WTERMSIG(waitStatus));
        record.append(",");
    } else {
        record.append("\"exitCode\":");
        record.appendSigned(WEXITSTATUS(waitStatus));
        record.append(",");
    }
    record.append("\"oomKilled\":");
    record.append(oomKills > 0 ? "true" : "false");
    record.append(",\"oomKills\":");
    record.appendUnsigned(oomKills);
    record.append(",\"endedAtMs\":");
    record.appendSigned(asyncsafe::nowUnixMs());
    record.append("}\n");
    const iovec part { record.data, record.size };
    // In the space reserved at launch first: no new space needed. Failing that, the classic way. Failing both, again
    // later: the shim stays alive meanwhile, so its workload never reads as lost (see shim.h).
    std::int64_t backoffMs = 100;
    for (;;) {
        int err = asyncsafe::writeFileInSlot(
            plan.exitSlotPath.c_str(), plan.exitPath.c_str(), plan.recordDir.c_str(), &part, 1);
        if (err != 0)
            err = asyncsafe::writeFileAtomic(
                plan.exitTmpPath.c_str(), plan.exitPath.c_str(), plan.recordDir.c_str(), &part, 1);
        if (err == 0)
            return;
        if (::access(plan.recordDir.c_str(), F_OK) != 0 && errno == ENOENT)
            return; // the records were removed: nobody is left to read this one
        asyncsafe::sleepMs(backoffMs);
        backoffMs = std::min<std::int64_t>(backoffMs * 2, 10'000);
    }
}

[[noreturn]] void runShim(const ShimPlan& plan, const Prepared& c, int statusFd)
{
    const pid_t self = ::getpid();
    ::prctl(PR_SET_NAME, "tidepool-shim", 0, 0, 0); // what `ps` shows instead of the agent's name
    resetSignals(true);

    // Keep nothing of the agent's but the status pipe (as fd 3): no sockets, no listening ports, no log files, and
    // no terminal or test-runner pipe held open by a process that may live for days.
    int status = ::fcntl(statusFd, F_DUPFD, 3);
    if (status < 0)
        status = statusFd;
    const int null = ::open("/dev/null", O_RDWR);
    if (null >= 0) {
        ::dup2(null, 0);
        ::dup2(null, 1);
        ::dup2(null, 2);
    }
    if (status != 3)
        ::dup2(status, 3);
    status = 3;
    closeFrom(4, c.maxFd);

    Message message;
    message.shimPid = self;
    char state = 0;
    asyncsafe::readProcStat(self, &state, &message.shimStartTime);
    const auto fail = [&](ShimStage stage, int error) {
        message.kind = kFailed;
        message.stage = static_cast<std::int32_t>(stage);
        message.error = error;
        send(status, message);
    };

    std::uint64_t oomBefore = 0;
    asyncsafe::readKeyedCounter(plan.oomCounterFile.c_str(), "oom_kill", &oomBefore);
    int go[2] = { -1, -1 };
    int err[2] = { -1, -1 };
    if (::pipe2(go, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
        const int e = errno;
        writeExitRecord(plan, 0, ShimStage::Fork, e, 0);
        fail(ShimStage::Fork, e);
        ::_exit(1);
    }
    const pid_t child = ::fork();
    if (child < 0) {
        const int e = errno;
        writeExitRecord(plan, 0, ShimStage::Fork, e, 0);
        fail(ShimStage::Fork, e);
        ::_exit(1);
    }
    if (child == 0) {
        ::close(status);
        ::close(go[1]);
        ::close(err[0]);
        runChild(plan, c, go[0], err[1]);
    }
    ::close(go[0]);
    ::close(err[1]);

    std::uint64_t startTime = 0;
    asyncsafe::readProcStat(child, &state, &startTime);
    if (const int e = writeLaunchRecord(plan, child, startTime, self, message.shimStartTime, false); e != 0) {
        ::close(go[1]); // end of file for the child: it exits without exec
        waitChild(child);
        writeExitRecord(plan, 0, ShimStage::Record, e, 0);
        fail(ShimStage::Record, e);
        ::_exit(1);
    }
    asyncsafe::writeAll(go[1], "g", 1);
    ::close(go[1]);

    ChildError childError;
    std::size_t got = 0;
    while (got < sizeof childError) {
        const ssize_t n = ::read(err[0], reinterpret_cast<char*>(&childError) + got, sizeof childError - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += static_cast<std::size_t>(n);
    }
    ::close(err[0]);
    message.pid = child;
    message.startTime = startTime;
    if (got == sizeof childError) {
        waitChild(child);
        writeExitRecord(plan, 0, static_cast<ShimStage>(childError.stage), childError.error, 0);
        fail(static_cast<ShimStage>(childError.stage), childError.error);
        ::_exit(0);
    }
    // Recorded before it is reported, so that a runner that stopped waiting for the report, or one adopting the
    // workload after a restart, never finds it less started than the report said. Should this write fail, the
    // workload still runs; such a runner reports it starting until it ends.
    writeLaunchRecord(plan, child, startTime, self, message.shimStartTime, true);
    message.kind = kStarted;
    send(status, message);
    ::close(status);

    const int waitStatus = waitChild(child);
    std::uint64_t oomAfter = oomBefore;
    asyncsafe::readKeyedCounter(plan.oomCounterFile.c_str(), "oom_kill", &oomAfter);
    // The workload is over when its main process is: what it left behind in its cgroup goes too.
    asyncsafe::killCgroup(plan.killFile.c_str(), plan.procsFile.c_str(), self, 50);
    writeExitRecord(plan, waitStatus, ShimStage::None, 0, oomAfter > oomBefore ? oomAfter - oomBefore : 0);
    ::_exit(0);
}

} // namespace

const char* stageName(ShimStage stage)
{
    switch (stage) {
    case ShimStage::None: return "none";
    case ShimStage::Fork: return "fork";
    case ShimStage::Record: return "record";
    case ShimStage::CgroupJoin: return "cgroup";
    case ShimStage::Stdio: return "stdio";
    case ShimStage::WorkingDir: return "chdir";
    case ShimStage::Exec: return "exec";
    }
    return "unknown";
}

int writeLaunchRecord(
    const ShimPlan& plan, int pid, std::uint64_t startTime, int shimPid, std::uint64_t shimStartTime, bool execed)
{
    asyncsafe::TextBuffer suffix;
    suffix.append("\"pid\":");
    suffix.appendSigned(pid);
    suffix.append(",\"startTime\":");
    suffix.appendUnsigned(startTime);
    suffix.append(",\"shimPid\":");
    suffix.appendSigned(shimPid);
    suffix.append(",\"shimStartTime\":");
    suffix.appendUnsigned(shimStartTime);
    suffix.append(execed ? ",\"execed\":true}\n" : ",\"execed\":false}\n");
    const iovec parts[2] = {
        { const_cast<char*>(plan.launchPrefix.data()), plan.launchPrefix.size() },
        { suffix.data, suffix.size },
    };
    return asyncsafe::writeFileAtomic(
        plan.launchTmpPath.c_str(), plan.launchPath.c_str(), plan.recordDir.c_str(), parts, 2);
}

int reserveExitSlot(const ShimPlan& plan)
{
    const int fd = ::open(plan.exitSlotPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return errno;
    // Written, not only sized: a sparse file would need its blocks at the shim's write, when there may be none.
    char spaces[kExitSlotBytes];
    std::fill(std::begin(spaces), std::end(spaces), ' ');
    int err = asyncsafe::writeAll(fd, spaces, sizeof spaces);
    if (err == 0 && ::fsync(fd) != 0)
        err = errno;
    if (::close(fd) != 0 && err == 0 && errno != EINTR)
        err = errno;
    if (err != 0)
        ::unlink(plan.exitSlotPath.c_str());
    return err;
}

SpawnResult spawn(const ShimPlan& plan, std::chrono::milliseconds timeout)
{
    SpawnResult result;
    const Prepared c = prepare(plan);
    int status[2] = { -1, -1 };
    if (::pipe2(status, O_CLOEXEC) != 0) {
        result.reported = true;
        result.failedStage = ShimStage::Fork;
        result.error = errno;
        return result;
    }
    const pid_t intermediate = ::fork();
    if (intermediate < 0) {
        result.reported = true;
        result.failedStage = ShimStage::Fork;
        result.error = errno;
        ::close(status[0]);
        ::close(status[1]);
        return result;
    }
    if (intermediate == 0) {
        ::close(status[0]);
        ::setsid();
        const pid_t shim = ::fork();
        if (shim < 0) {
            Message message;
            message.kind = kFailed;
            message.stage = static_cast<std::int32_t>(ShimStage::Fork);
            message.error = errno;
            send(status[1], message);
            ::_exit(1);
        }
        if (shim > 0) {
            Message message;
            message.kind = kForked;
            message.shimPid = shim;
            send(status[1], message);
            ::_exit(0);
        }
        runShim(plan, c, status[1]);
    }
    ::close(status[1]);
    const auto started = std::chrono::steady_clock::now();
    int ignored = 0;
    while (::waitpid(intermediate, &ignored, 0) < 0 && errno == EINTR) { }

    // The intermediate has exited, so its message is in the pipe already (unless something else reaped it first);
    // the launch timeout only bounds the wait for the shim's own report.
    Message message;
    if (!readMessage(status[0], message, started + std::max<std::chrono::milliseconds>(timeout, 5s))) {
        ::close(status[0]);
        return result;
    }
    if (message.kind == kForked) {
        result.shimPid = message.shimPid;
        char state = 0;
        asyncsafe::readProcStat(message.shimPid, &state, &result.shimStartTime);
        if (!readMessage(status[0], message, started + timeout)) {
            ::close(status[0]);
            return result;
        }
    }
    ::close(status[0]);
    result.reported = true;
    result.started = message.kind == kStarted;
    result.failedStage = result.started ? ShimStage::None : static_cast<ShimStage>(message.stage);
    result.error = message.error;
    if (message.kind != kFailed || message.shimPid != 0) { // from the shim, not from the intermediate
        result.pid = message.pid;
        result.shimPid = message.shimPid;
        result.startTime = message.startTime;
        result.shimStartTime = message.shimStartTime;
    }
    return result;
}

} // namespace tidepool::agent::shim
