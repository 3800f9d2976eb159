// Energy-aware placement: the fewest watts added. With the linear power model of `PowerModel`, placing a workload on
// a node adds the node's idle watts when the node was empty (it has to be powered and kept up), the share of
// (peak - idle) that its CPU fraction takes, and `acceleratorPeakWatts` per device share taken.
//
// Among nodes that add the same watts, busy nodes are preferred: a lightly used node that stays lightly used keeps
// paying its idle watts for little work, while consolidating lets it drain and power down later. That preference
// is a small penalty of `kDrainWeight` times the idle watts that the node's remaining free CPU fraction "holds up".

#include "core/sched/policies/policies.h"

#include <algorithm>
#include <cmath>

namespace tidepool {

namespace {

constexpr double kDrainWeight = 0.1;

double cpuFraction(std::int64_t millis, std::int64_t capacity)
{
    return capacity <= 0 ? 0.0 : static_cast<double>(millis) / static_cast<double>(capacity);
}

class EnergyPolicy final : public Policy {
public:
    std::string_view name() const override { return "energy"; }

    std::int64_t score(const ScoreContext&, const Node& node, const Workload& w, Candidate&) override
    {
        return -std::llround(wattsAdded(node, w) * 1000.0); // negative milliwatts: fewer watts scores higher
    }

    // Scores are proportional to the watts saved against the worst candidate (0 = the most watts added,
    // 100 = none added), so they compare across nodes and a few watts' difference stays a small difference
    // when other policies are weighed in.
    void normalize(std::span<std::int64_t> scores) override
    {
        if (scores.empty())
            return;
        const std::int64_t worst = -*std::min_element(scores.begin(), scores.end());
        for (std::int64_t& s : scores) {
            const std::int64_t cost = -s;
            s = worst <= 0 ? 100 : std::llround(100.0 * static_cast<double>(worst - cost) / static_cast<double>(worst));
        }
    }

    static double wattsAdded(const Node& node, const Workload& w)
    {
        const PowerModel& p = node.power;
        const bool powered = !node.residents.empty();
        const double dynamicWatts = std::max(0.0, p.peakWatts - p.idleWatts);
        double watts = dynamicWatts * cpuFraction(w.requests.cpuMillis, node.capacity.cpuMillis);
        const AcceleratorRequest& a = w.accelerators;
        if (a.any()) {
            for (const Device& d : node.devices)
                if (d.kind == a.kind && d.shareCapacity > 0) {
                    const double devices
                        = a.wholeDevices() ? a.count : static_cast<double>(a.sharePerDevice) / d.shareCapacity;
                    watts += p.acceleratorPeakWatts * devices;
                    break;
                }
        }
        if (!powered)
            return watts + p.idleWatts;
        const double freeAfter = cpuFraction(node.free.cpuMillis - w.requests.cpuMillis, node.capacity.cpuMillis);
        return watts + kDrainWeight * p.idleWatts * std::clamp(freeAfter, 0.0, 1.0);
    }
};

} // namespace

std::unique_ptr<Policy> makeEnergyPolicy(const PolicyOptions&)
{
    return std::make_unique<EnergyPolicy>();
}

} // namespace tidepool
