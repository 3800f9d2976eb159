#pragma once
// Shared by the net suites: drives an io_context on the test's own thread with a deadline, so that a broken behaviour
// fails its test quickly instead of hanging it.

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <functional>
#include <thread>

namespace tidepool::testing {

// Runs `io` on this thread until `done` holds or `timeout` passes; false on timeout.
inline bool runUntil(boost::asio::io_context& io, const std::function<bool()>& done,
    std::chrono::milliseconds timeout = std::chrono::milliseconds(5000))
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
        if (std::chrono::steady_clock::now() >= deadline)
            return false;
        if (io.stopped())
            io.restart();
        if (io.run_one_for(std::chrono::milliseconds(10)) == 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

} // namespace tidepool::testing
