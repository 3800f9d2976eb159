#pragma once
// Small file helpers for /proc and the cgroup file systems. Cgroup control files report a size of zero and take a
// value in one write(2), so these read to end of file and write in a single call; every failure names the file and
// carries the errno text.
//
// Thread affinity: none; each call is independent.

#include "agents/isolation/isolation_error.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace tidepool::agent::sysfs {

// The text of an errno value, thread-safe (unlike `strerror`).
std::string errnoText(int err);

IsolationExpected<std::string> readFile(const std::filesystem::path& path);

// Writes `value` to an existing file in one write(2); never creates the file (a missing cgroup control file means a
// missing controller, which the caller decides about).
IsolationExpected<void> writeFile(const std::filesystem::path& path, std::string_view value);

// Creates a directory; true when it was created, false when a directory was already there (anything else there is
// an error).
IsolationExpected<bool> makeDirectory(const std::filesystem::path& path);

// rmdir(2); a directory that is already gone is success. A cgroup with processes or children fails with `Busy`.
IsolationExpected<void> removeDirectory(const std::filesystem::path& path);

bool fileExists(const std::filesystem::path& path);

// The value of `key` in a "key value" per line file (cpu.stat, memory.events, memory.oom_control).
IsolationExpected<std::uint64_t> readKeyedCounter(const std::filesystem::path& path, std::string_view key);

// A name rendered for an error message: printable ASCII as is, anything else as \xNN, at most 80 characters.
std::string quoted(std::string_view name);

} // namespace tidepool::agent::sysfs
