#include "agents/isolation/pool_notes.h"

#include <algorithm>

namespace tidepool::agent {

std::vector<std::string> PoolNotes::toLog(const std::string& pool, const std::vector<std::string>& notes)
{
    std::vector<std::string>& last = m_last[pool];
    std::vector<std::string> fresh;
    for (const std::string& note : notes)
        if (std::find(last.begin(), last.end(), note) == last.end()
            && std::find(fresh.begin(), fresh.end(), note) == fresh.end())
            fresh.push_back(note);
    last = notes;
    return fresh;
}

} // namespace tidepool::agent
