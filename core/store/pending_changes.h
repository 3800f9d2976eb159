#pragma once
// The changes a store collects between commits, shared by the SQLite and PostgreSQL stores: the latest value of each
// pool, node, workload, proposal and setting (so that a change made twice is written once), and every sample,
// forecast and audit entry in order. A commit writes them all in one transaction and clears them only once it is
// durable; a failed one leaves them for the next.
//
// Thread affinity: the store's.

#include "core/store/store.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tidepool::store {

struct PendingChanges {
    std::map<std::string, std::optional<StoredPool>> pools; // nullopt = delete
    std::vector<DeletedPool> deletedPools; // written before `pools`, whose deletions they are
    std::map<std::string, StoredNode> nodes;
    std::map<std::int64_t, std::optional<StoredWorkload>> workloads; // nullopt = delete
    std::map<std::int64_t, StoredProposal> proposals;
    std::vector<Sample> samples;
    std::vector<StoredForecast> forecasts;
    std::vector<AuditEntry> audit;
    std::map<std::string, std::string> meta; // "" = delete

    std::size_t size() const
    {
        return pools.size() + deletedPools.size() + nodes.size() + workloads.size() + proposals.size() + samples.size()
            + forecasts.size() + audit.size() + meta.size();
    }
    void clear() { *this = PendingChanges {}; }
};

// A deleted pool's `nodes` as both stores keep them: a JSON array of names; anything else reads as none.
inline std::string nodeNamesText(const std::vector<std::string>& nodes)
{
    return nlohmann::json(nodes).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

inline std::vector<std::string> nodeNamesFrom(const std::string& text)
{
    std::vector<std::string> nodes;
    const auto parsed = nlohmann::json::parse(text, nullptr, false);
    if (parsed.is_array())
        for (const auto& name : parsed)
            if (name.is_string())
                nodes.push_back(name.get<std::string>());
    return nodes;
}

// A store whose writes only collect changes until `commit`: what both stores' put and add calls are.
class BufferedStore : public Store {
public:
    void putPool(const StoredPool& pool) override { m_pending.pools[pool.name] = pool; }
    void removePool(const DeletedPool& pool) override
    {
        m_pending.pools[pool.name] = std::nullopt;
        m_pending.deletedPools.push_back(pool);
    }
    void putNode(const StoredNode& node) override { m_pending.nodes[node.name] = node; }
    void putWorkload(const StoredWorkload& workload) override { m_pending.workloads[workload.id] = workload; }
    void removeWorkload(std::int64_t id) override { m_pending.workloads[id] = std::nullopt; }
    void putProposal(const StoredProposal& proposal) override { m_pending.proposals[proposal.id] = proposal; }
    void addSamples(const std::vector<Sample>& samples) override
    {
        m_pending.samples.insert(m_pending.samples.end(), samples.begin(), samples.end());
    }
    void putForecast(const StoredForecast& forecast) override { m_pending.forecasts.push_back(forecast); }
    void addAudit(const AuditEntry& entry) override { m_pending.audit.push_back(entry); }
    void putMeta(const std::string& key, const std::string& value) override { m_pending.meta[key] = value; }
    std::size_t pending() const override { return m_pending.size(); }

protected:
    PendingChanges m_pending;
};

} // namespace tidepool::store
