// best-fit: the openb paper's BestFit baseline. A node scores higher the less CPU and accelerator share it has
// left after the placement, both normalised by the largest node of the cluster and weighted equally; the raw
// scores are min-max scaled over the feasible nodes with integer arithmetic, as the authors' simulator does.
// A fractional request takes the device with the smallest sufficient free share (the scheduler's default).

#include "core/sched/policies/openb_common.h"
#include "core/sched/policies/policies.h"

#include <algorithm>

namespace tidepool {

namespace {

class BestFitPolicy final : public Policy {
public:
    std::string_view name() const override { return "best-fit"; }

    void prepare(const ScoreContext& ctx, const Workload&) override { m_max.refresh(ctx.cluster); }

    std::int64_t score(const ScoreContext&, const Node& node, const Workload& w, Candidate&) override
    {
        const auto cpuLeft = static_cast<double>(node.free.cpuMillis - w.requests.cpuMillis);
        const auto shareLeft = static_cast<double>(node.deviceShareFreeTotal() - openb::requestedShare(node, w));
        // The same float operations in the same order as the reference, so that truncation ties break alike.
        double slack = 0.0;
        slack += cpuLeft / m_max.cpuMillis() * 0.5;
        slack += shareLeft / m_max.share() * 0.5;
        return static_cast<std::int64_t>((1.0 - slack) * 100.0);
    }

    void normalize(std::span<std::int64_t> scores) override
    {
        if (scores.empty())
            return;
        const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
        const std::int64_t lowest = *lo;
        const std::int64_t range = *hi - lowest;
        for (std::int64_t& s : scores)
            s = range == 0 ? 0 : (s - lowest) * 100 / range;
    }

private:
    openb::ClusterMaxima m_max;
};

} // namespace

std::unique_ptr<Policy> makeBestFitPolicy(const PolicyOptions&)
{
    return std::make_unique<BestFitPolicy>();
}

} // namespace tidepool
