#pragma once
// Where the protocol endpoints (the core's agent server, the agent's client) write one line per significant event:
// a join, a rejected join, a connection closed and why. The composition root decides where lines go (stderr,
// journald, a test's vector). Called on the endpoint's io_context thread; an empty sink drops the lines.

#include <functional>
#include <string>
#include <string_view>

namespace tidepool::protocol {

using LogSink = std::function<void(std::string_view line)>;

// Writes each line to stderr as "<UTC time> <program>: <line>", the daemons' and agents' default.
LogSink stderrLogSink(std::string program);

} // namespace tidepool::protocol
