#include "protocol/log_sink.h"

#include <cstdio>
#include <ctime>

namespace tidepool::protocol {

LogSink stderrLogSink(std::string program)
{
    return [program = std::move(program)](std::string_view line) {
        // One line per event, with a UTC timestamp: journald adds its own, a terminal or a log file needs it.
        char stamp[32];
        const std::time_t now = std::time(nullptr);
        std::tm tm {};
        gmtime_r(&now, &tm);
        std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
        std::fprintf(stderr, "%s %s: %.*s\n", stamp, program.c_str(), static_cast<int>(line.size()), line.data());
    };
}

} // namespace tidepool::protocol
