// Tier-aware placement: the scheduler's built-in tier filter already decides where a workload may go (a pinned
// workload only on its tier; real-time may spill from hot to warm; batch may spill to warm, and to hot unless a
// forecast reserves the node). This policy ranks what the filter allows: the workload's home tier first, then
// untiered nodes, then spill tiers, and batch on a hot node last, because hot capacity is the scarcest and is
// taken back at the next peak.

#include "core/sched/policies/policies.h"

namespace tidepool {

namespace {

constexpr std::int64_t kHomeTier = 100;
constexpr std::int64_t kUntiered = 60;
constexpr std::int64_t kSpill = 40;
constexpr std::int64_t kBatchOnHot = 0;

class TierPolicy final : public Policy {
public:
    std::string_view name() const override { return "tier"; }

    std::int64_t score(const ScoreContext&, const Node& node, const Workload& w, Candidate&) override
    {
        if (node.tier == Tier::Invalid)
            return kUntiered;
        if (node.tier == w.tier())
            return kHomeTier;
        if (node.tier == Tier::Hot && w.latency == LatencyClass::Batch)
            return kBatchOnHot;
        return kSpill;
    }
};

} // namespace

std::unique_ptr<Policy> makeTierPolicy(const PolicyOptions&)
{
    return std::make_unique<TierPolicy>();
}

} // namespace tidepool
