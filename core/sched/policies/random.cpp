// random: the openb paper's Random baseline. Every feasible node gets an independent random score, so the winner
// is uniform over the feasible nodes; a fractional request takes a uniformly random device with enough free
// share. The stream is seeded from `PolicyOptions::seed`, so a run is reproducible.

#include "core/sched/policies/openb_common.h"
#include "core/sched/policies/policies.h"

#include <random>

namespace tidepool {

namespace {

class RandomPolicy final : public Policy {
public:
    explicit RandomPolicy(std::uint64_t seed)
        : m_rng(seed ^ 0x52414e444f4d5eedULL)
    {
    }

    std::string_view name() const override { return "random"; }

    std::int64_t score(const ScoreContext&, const Node& node, const Workload& w, Candidate& candidate) override
    {
        if (candidate.device < 0 && openb::isFractional(node, w)) {
            // Reservoir sampling: the k-th sufficient device replaces the choice with probability 1/k.
            std::int64_t seen = 0;
            for (std::size_t i = 0; i < node.devices.size(); ++i) {
                const Device& d = node.devices[i];
                if (!openb::usableDevice(d, w.accelerators) || d.shareFree < w.accelerators.sharePerDevice)
                    continue;
                if (std::uniform_int_distribution<std::int64_t>(0, seen++)(m_rng) == 0)
                    candidate.device = static_cast<std::int16_t>(i);
            }
        }
        // 53 bits, so that the scheduler's double-valued totals keep every score distinct.
        return static_cast<std::int64_t>(m_rng() >> 11);
    }

private:
    std::mt19937_64 m_rng;
};

} // namespace

std::unique_ptr<Policy> makeRandomPolicy(const PolicyOptions& options)
{
    return std::make_unique<RandomPolicy>(options.seed);
}

} // namespace tidepool
