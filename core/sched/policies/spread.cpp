// Spread (load balancing): prefer the node that keeps the most headroom after the placement. Headroom is measured
// the dominant-resource way: the node's most-used dimension after the placement decides (CPU, memory, and the
// share of the requested accelerator kind), so a node with idle CPU but full memory does not look empty.

#include "core/sched/policies/policies.h"

#include <algorithm>
#include <cmath>

namespace tidepool {

namespace {

double usedFraction(std::int64_t capacity, std::int64_t freeAfter)
{
    if (capacity <= 0)
        return 0.0;
    return 1.0 - static_cast<double>(freeAfter) / static_cast<double>(capacity);
}

class SpreadPolicy final : public Policy {
public:
    std::string_view name() const override { return "spread"; }

    std::int64_t score(const ScoreContext&, const Node& node, const Workload& w, Candidate& candidate) override
    {
        double dominant = std::max(usedFraction(node.capacity.cpuMillis, node.free.cpuMillis - w.requests.cpuMillis),
            usedFraction(node.capacity.memoryMiB, node.free.memoryMiB - w.requests.memoryMiB));
        const AcceleratorRequest& a = w.accelerators;
        if (a.any()) {
            std::int64_t capacity = 0;
            std::int64_t freeShare = 0;
            std::int64_t taken = 0;
            std::int16_t loosest = -1;
            for (std::size_t i = 0; i < node.devices.size(); ++i) {
                const Device& d = node.devices[i];
                if (d.kind != a.kind)
                    continue;
                capacity += d.shareCapacity;
                freeShare += d.shareFree;
                if (taken == 0)
                    taken = std::int64_t { a.shareOn(d.shareCapacity) } * a.count;
                // Spreading inside the node too: a fractional request goes to the device with the most free share.
                const bool usable
                    = a.allows(d.model) && d.shareFree >= a.sharePerDevice && d.memoryFreeMiB >= a.memoryMiBPerDevice;
                if (!a.wholeDevices() && usable
                    && (loosest < 0 || d.shareFree > node.devices[static_cast<std::size_t>(loosest)].shareFree))
                    loosest = static_cast<std::int16_t>(i);
            }
            dominant = std::max(dominant, usedFraction(capacity, freeShare - taken));
            if (candidate.device < 0 && loosest >= 0)
                candidate.device = loosest;
        }
        return std::llround(100.0 * (1.0 - std::clamp(dominant, 0.0, 1.0)));
    }
};

} // namespace

std::unique_ptr<Policy> makeSpreadPolicy(const PolicyOptions&)
{
    return std::make_unique<SpreadPolicy>();
}

} // namespace tidepool
