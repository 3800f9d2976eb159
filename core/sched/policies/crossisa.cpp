// Cross-ISA placement: a node of one of the workload's native ISAs scores 100; a node that runs it through binary
// translation (the scheduler's ISA filter admits it only where the workload allows translation) scores 100
// divided by the slowdown factor for the best (source, target) pair, so a factor measured by the agents changes
// the ranking: with the default 1.15 a translated node scores 87, with a measured 2.0 it scores 50.

#include "core/sched/policies/policies.h"

#include <cmath>

namespace tidepool {

namespace {

constexpr std::int64_t kNative = 100;

class CrossIsaPolicy final : public Policy {
public:
    std::string_view name() const override { return "cross-isa"; }

    std::int64_t score(const ScoreContext& ctx, const Node& node, const Workload& w, Candidate&) override
    {
        if (w.runsNatively(node.isa))
            return kNative;
        const double factor = ctx.slowdowns.bestFactor(w.nativeIsas, node.isa);
        if (!std::isfinite(factor) || factor <= 0.0)
            return 0;
        // A factor below 1 would mean translation beats native; cap it so that native is never outranked.
        return std::llround(static_cast<double>(kNative) / std::max(factor, 1.0));
    }
};

} // namespace

std::unique_ptr<Policy> makeCrossIsaPolicy(const PolicyOptions&)
{
    return std::make_unique<CrossIsaPolicy>();
}

} // namespace tidepool
