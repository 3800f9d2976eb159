#pragma once
// Which of a pool's "not enforced" notes (`AppliedLimits::notEnforced`) the agent logs: every `pools` message and every
// reconnect applies every pool's limits again, and the same notes would be logged each time. Each distinct note is
// logged once per pool; a pool's notes are looked at again only when they change, and then the new ones are logged.
//
// Thread affinity: none; one owner.

#include <map>
#include <string>
#include <vector>

namespace tidepool::agent {

class PoolNotes {
public:
    // The notes of `notes` to log now for `pool`, in their order.
    std::vector<std::string> toLog(const std::string& pool, const std::vector<std::string>& notes);

private:
    std::map<std::string, std::vector<std::string>> m_last; // by pool: its notes of the last call
};

} // namespace tidepool::agent
