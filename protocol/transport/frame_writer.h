#pragma once
// The write side of a protocol connection: a bounded queue of encoded frames with one write in flight on a
// `Stream`. Shared by the core's sessions and the agent's client, which differ only in what a full queue means
// (the core closes a peer that does not read; an agent drops frames while its core is slow) and in what follows
// a drained queue.
//
// The owner keeps the writer as a member and passes itself (a shared pointer, which the pending write holds) to
// `push`; it provides `bool writesStopped() const` (closed meanwhile: do nothing more), `void onWriteFailed(ec)`
// and `void onWritesDrained()`, all called on the stream's executor.
//
// Thread affinity: the owner's io_context thread.

#include "protocol/transport/stream.h"

#include <boost/asio/buffer.hpp>

#include <deque>
#include <memory>
#include <string>

namespace tidepool::transport {

class FrameWriter {
public:
    explicit FrameWriter(std::size_t maxQueued)
        : m_maxQueued(maxQueued)
    {
    }

    // Frames queued, the one being written included.
    std::size_t size() const { return m_queue.size(); }
    bool full() const { return m_queue.size() >= m_maxQueued; }
    bool writing() const { return m_writing; }
    void clear() { m_queue.clear(); }

    // Queues `frame` (callers check `full()` first) and starts writing when no write is in flight.
    template <typename Owner> void push(Stream& stream, std::string frame, const std::shared_ptr<Owner>& owner)
    {
        m_queue.push_back(std::move(frame));
        if (!m_writing)
            writeNext(stream, owner);
    }

private:
    template <typename Owner> void writeNext(Stream& stream, const std::shared_ptr<Owner>& owner)
    {
        m_writing = true;
        stream.asyncWrite(boost::asio::buffer(m_queue.front()),
            [this, &stream, owner](const boost::system::error_code& ec, std::size_t) {
                m_writing = false;
                if (owner->writesStopped())
                    return;
                if (ec) {
                    owner->onWriteFailed(ec);
                    return;
                }
                m_queue.pop_front();
                if (!m_queue.empty())
                    writeNext(stream, owner);
                else
                    owner->onWritesDrained();
            });
    }

    std::size_t m_maxQueued;
    std::deque<std::string> m_queue;
    bool m_writing = false;
};

} // namespace tidepool::transport
