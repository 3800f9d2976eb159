#pragma once
// Primitives that are async-signal-safe: plain system calls on caller-provided buffers, no allocation, no locks, no
// errno-to-text. The workload shim runs in a child forked from the (multi-threaded) agent and never execs, so all it
// does after fork goes through these; the agent uses them too where the same job is needed (atomic records, signalling
// a cgroup's processes), so that there is one implementation.
//
// Thread affinity: none. Functions return 0 or an errno value unless they say otherwise.

#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>

namespace tidepool::agent::asyncsafe {

// A fixed-size text buffer; appending past the end sets `overflow` and drops the rest.
struct TextBuffer {
    static constexpr std::size_t kCapacity = 512;
    char data[kCapacity];
    std::size_t size = 0;
    bool overflow = false;

    void append(const char* text);
    void append(const char* text, std::size_t length);
    void appendUnsigned(std::uint64_t value);
    void appendSigned(std::int64_t value);
};

// Writes all of `data`, retrying short writes and EINTR.
int writeAll(int fd, const char* data, std::size_t size);

// Writes the concatenation of `parts` to `tmpPath`, fsyncs it, renames it over `finalPath` and fsyncs `dirPath`, so
// that a reader finds either the old record or the complete new one, never a part.
int writeFileAtomic(const char* tmpPath, const char* finalPath, const char* dirPath, const iovec* parts, int count);

// Writes the concatenation of `parts` over the start of the existing file `slotPath` (space reserved beforehand),
// truncates it to that length, fsyncs it, renames it to `finalPath` and fsyncs `dirPath`: the same whole-or-nothing
// record as `writeFileAtomic` for a reader of `finalPath`, without allocating new space for data on the way (so it
// works on a full file system). ENOENT when there is no slot; EFBIG when the parts do not fit in it.
int writeFileInSlot(const char* slotPath, const char* finalPath, const char* dirPath, const iovec* parts, int count);

// Sleeps `ms` milliseconds (nanosleep, resumed after signals).
void sleepMs(std::int64_t ms);

// Writes `text` to an existing file in one write(2) (cgroup control files).
int writeSmallFile(const char* path, const char* text, std::size_t length);

// From /proc/<pid>/stat: the state letter (field 3) and the start time in clock ticks since boot (field 22), which
// together with the pid identify a process across PID reuse. False when there is no such process.
bool readProcStat(pid_t pid, char* state, std::uint64_t* startTime);

// The number after `key ` in a "key value" per line file (memory.events, memory.oom_control). False when absent.
bool readKeyedCounter(const char* path, const char* key, std::uint64_t* value);

// Sends `signal` to every process listed in a cgroup.procs file (except `exclude`); returns how many were signalled,
// or -errno when the file cannot be read.
int signalCgroupProcesses(const char* procsFile, int signal, pid_t exclude);

// Kills everything in a cgroup: writes "1" to `killFile` (cgroup v2's cgroup.kill) when given and possible, else
// repeats SIGKILL over `procsFile` until it lists nobody or `passes` run out (a process forking as fast as it is
// killed can outrun this; cgroup.kill or the v1 freezer cannot be outrun). Returns the processes still listed.
int killCgroup(const char* killFile, const char* procsFile, pid_t exclude, int passes);

// Milliseconds since the Unix epoch (CLOCK_REALTIME).
std::int64_t nowUnixMs();

} // namespace tidepool::agent::asyncsafe
