#pragma once
// The end of a workload's output for an operator (`protocol::LogRequest`): the last bytes of one stream as the runner
// keeps it, its rotated-out half (`<file>.1`, `RunnerConfig::logCapBytes`) before its current file, read without
// following links (the workload may write in its record directory), and made into text that the protocol carries
// (`protocol::LogReply::data`).
//
// Thread affinity: none; reads files, keeps nothing.

#include "protocol/messages.h"

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace tidepool::agent {

struct LogTail {
    std::string bytes; // the last `maxBytes` of the stream at most, as written
    std::uint64_t sizeBytes = 0; // what the runner keeps of it: `<file>.1` and `<file>` together
    bool truncated = false; // `bytes` begins after the start of what is kept
    std::string error; // why there is nothing to read: a file that exists but cannot be read; a missing file is empty
};

// The last `maxBytes` bytes of `file` (after those of `file.1`, where it exists).
LogTail readLogTail(const std::filesystem::path& file, std::size_t maxBytes);

// `bytes` as UTF-8 text of lines: each byte that is not part of valid UTF-8, and each control character other than a
// newline or a tab, becomes U+FFFD; "\r\n" and a lone "\r" become "\n". With `cutAtStart`, a multi-byte character cut
// at the beginning (its continuation bytes) is dropped rather than shown as U+FFFD.
std::string logText(std::string_view bytes, bool cutAtStart);

// The answer to `request` from the files of the launch it names; `stdoutPath`/`stderrPath` empty: not held here.
protocol::LogReply answerLogRequest(const protocol::LogRequest& request, const std::filesystem::path& stdoutPath,
    const std::filesystem::path& stderrPath);

} // namespace tidepool::agent
