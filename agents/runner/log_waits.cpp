#include "agents/runner/log_waits.h"

namespace tidepool::agent {

bool LogWaits::hold(const protocol::LogRequest& request, Clock::time_point now)
{
    if (m_held.size() >= m_most)
        return false;
    m_held.push_back(Held { request, now + std::chrono::milliseconds(request.waitMs) });
    return true;
}

std::vector<protocol::LogReply> LogWaits::answerDue(Clock::time_point now, const Answer& answer,
    const std::function<protocol::LogReply(const protocol::LogRequest&)>& fallback,
    const std::function<bool(const protocol::LogRequest&)>& only)
{
    std::vector<protocol::LogReply> due;
    std::erase_if(m_held, [&](const Held& held) {
        if (only && !only(held.request))
            return false;
        if (auto reply = answer(held.request)) {
            due.push_back(std::move(*reply));
            return true;
        }
        if (now < held.until)
            return false;
        due.push_back(fallback(held.request));
        return true;
    });
    return due;
}

} // namespace tidepool::agent
