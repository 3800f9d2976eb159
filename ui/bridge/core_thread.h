#pragma once
// The thread an embedded core runs on (the demo's, the single-box mode's): it runs `io` until it has no more work.
// Nothing may escape it: an exception from a handler would terminate the console, so it is reported through
// `events.failure` instead, and the thread ends.
//
// Thread affinity: call from the thread that owns the backend; `events` must outlive the returned thread (the backend
// holds both and joins the thread in `stop`).

#include "ui/bridge/console_backend.h"

#include <boost/asio/io_context.hpp>

#include <exception>
#include <string>
#include <thread>

namespace tidepool::ui {

inline std::thread startCoreThread(boost::asio::io_context& io, const ConsoleEvents& events)
{
    return std::thread([&io, &events] {
        try {
            io.run();
        } catch (const std::exception& e) {
            if (events.failure)
                events.failure(std::string("the core stopped: ") + e.what());
        }
    });
}

} // namespace tidepool::ui
