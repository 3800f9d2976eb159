#pragma once
// Following reads of a workload's output held until there is something to answer (`protocol::LogRequest::waitMs`,
// kFeatureLogWait): the agent answers a read that finds output at once, and holds one that finds none while its launch
// runs, looking again when its files are written (`FileWatch`) and at each of its polls (every 200 ms), and answering
// as soon as output comes, the launch ends, or the read's wait is over (an answer without data then). At most
// `kMaxHeldLogReads` are held; a read beyond them is answered at once, as by an agent without waiting, and its follower
// asks again later.
//
// Thread affinity: the agent's one thread. Keeps requests only: what to answer is asked of `answer` each time.

#include "protocol/messages.h"

#include <chrono>
#include <functional>
#include <optional>
#include <vector>

namespace tidepool::agent {

inline constexpr std::size_t kMaxHeldLogReads = 256;

class LogWaits {
public:
    using Clock = std::chrono::steady_clock;
    // The answer to a held read now, or nullopt while there is nothing to answer (no output from its position on,
    // and its launch runs).
    using Answer = std::function<std::optional<protocol::LogReply>(const protocol::LogRequest&)>;

    explicit LogWaits(std::size_t most = kMaxHeldLogReads)
        : m_most(most)
    {
    }

    // Holds `request` (one with `waitMs`) from `now`; false when `kMaxHeldLogReads` are held already (answer it now).
    bool hold(const protocol::LogRequest& request, Clock::time_point now);
    // The answers due at `now`, oldest request first: those `answer` has something for, and those whose wait is over
    // (with what `fallback` answers then, without data); they are held no more.
    // With `only`, just the held reads it names are looked at (those of the files just written).
    std::vector<protocol::LogReply> answerDue(Clock::time_point now, const Answer& answer,
        const std::function<protocol::LogReply(const protocol::LogRequest&)>& fallback,
        const std::function<bool(const protocol::LogRequest&)>& only = {});
    // Each held read, oldest first.
    template <typename F> void forEach(F&& f) const
    {
        for (const Held& held : m_held)
            f(held.request);
    }
    // Forgets every held read (the session that asked them ended: nobody waits for their answers).
    void clear() { m_held.clear(); }
    std::size_t size() const { return m_held.size(); }

private:
    struct Held {
        protocol::LogRequest request;
        Clock::time_point until;
    };
    std::size_t m_most;
    std::vector<Held> m_held; // in the order they came
};

} // namespace tidepool::agent
