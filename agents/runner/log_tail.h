#pragma once
// The end of a workload's output for an operator (`protocol::LogRequest`): the last bytes of one stream as the runner
// keeps it, its rotated-out half (`<file>.1`, `RunnerConfig::logCapBytes`) before its current file, read without
// following links (the workload may write in its record directory), and made into text that the protocol carries
// (`protocol::LogReply::data`); or, for a reader that follows the output, what was written from a stream position on.
//
// A position counts every byte written to the stream since the launch, also those the runner no longer keeps: the
// position at which `<file>` begins (the bytes rotations took out of it, together) is kept in `<file>.base` as decimal
// text, written by the rotation (`writeStreamBase`); without it, `<file>` begins at 0. `<file>.1` ends where `<file>`
// begins.
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
    std::uint64_t start = 0; // the stream positions of the first byte of `bytes` and of the one after its last
    std::uint64_t end = 0;
    std::string error; // why there is nothing to read: a file that exists but cannot be read; a missing file is empty
};

// The last `maxBytes` bytes of `file` (after those of `file.1`, where it exists).
LogTail readLogTail(const std::filesystem::path& file, std::size_t maxBytes);

// The first `maxBytes` bytes of `file` from the stream position `from` on; from where it keeps bytes when it keeps
// none from `from` (rotated out: `start` is past `from`), and from there also when `from` is past the stream's end
// (a stream that began again: `start` is before `from`).
LogTail readLogFrom(const std::filesystem::path& file, std::uint64_t from, std::size_t maxBytes);

// The position at which `file` begins (its `.base`), 0 when there is none or it does not hold one.
std::uint64_t readStreamBase(const std::filesystem::path& file);
// Keeps `base` as the position at which `file` begins (written aside, then renamed over `.base`); false when it could
// not be written.
bool writeStreamBase(const std::filesystem::path& file, std::uint64_t base);

// A rotation takes bytes out of `file`'s beginning and then keeps where it begins (`.base`); an agent stopped between
// the two (killed, crashed) would leave every later position off by what it took. So it first writes its intent,
// `<file>.base.next`: the base it will keep and a fingerprint of the file's first bytes (up to 4 KiB) as they are
// before, which the taking changes and the workload's appending does not. `writeRotationIntent` writes it from the
// file open as `fd`, before the taking; `clearRotationIntent` removes it once the base is kept; `settleRotation`
// finishes or forgets one left behind (the runner's adoption after a restart, and each rotation's start): when the
// file's first bytes are no longer the fingerprinted ones, the taking happened, and the rotated-out half written aside
// (`.1.tmp`) becomes `.1` and the base is kept; otherwise nothing was taken and what was written aside goes. Output
// that repeats itself exactly (the same first 4 KiB again where the cut was) reads as not taken: its positions stay off
// by the cut, as without an intent. `aside`: the newest half is written aside in full (`<file>.1.tmp`), to become `.1`.
bool writeRotationIntent(const std::filesystem::path& file, int fd, std::uint64_t base, bool aside);
void clearRotationIntent(const std::filesystem::path& file);
enum class Settled : std::uint8_t { Nothing, Completed, Undone };
Settled settleRotation(const std::filesystem::path& file);

// How many bytes at the end of `bytes` to leave for a later read, so that none splits a character or a "\r\n": an
// incomplete UTF-8 sequence that ends it, and a carriage return that ends it or comes before that (at most 4).
std::size_t unfinishedTail(std::string_view bytes);

// `bytes` as UTF-8 text of lines: each byte that is not part of valid UTF-8, and each control character other than a
// newline or a tab, becomes U+FFFD; "\r\n" and a lone "\r" become "\n". With `cutAtStart`, a multi-byte character cut
// at the beginning (its continuation bytes) is dropped rather than shown as U+FFFD.
std::string logText(std::string_view bytes, bool cutAtStart);

// The answer to `request` from the files of the launch it names; `stdoutPath`/`stderrPath` empty: not held here.
// `ended`: the launch writes no more, so nothing is left for a later read (`unfinishedTail`). The answer carries its
// positions (`start`, `end`); a core that does not read them is sent it without (`AgentConnection::sendLogs`).
protocol::LogReply answerLogRequest(const protocol::LogRequest& request, const std::filesystem::path& stdoutPath,
    const std::filesystem::path& stderrPath, bool ended);

} // namespace tidepool::agent
