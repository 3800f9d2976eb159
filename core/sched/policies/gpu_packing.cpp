// gpu-packing: the openb paper's GpuPacking baseline. Prefer sharing a partly used device (score 50–100, higher
// the less share it leaves free), then taking whole free devices on a partly used node (33–49), then an idle
// node (at most 33, less the more devices it has). CPU-only requests score 0 everywhere, so the tie order decides.

#include "core/sched/policies/openb_common.h"
#include "core/sched/policies/policies.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace tidepool {

namespace {

class GpuPackingPolicy final : public Policy {
public:
    std::string_view name() const override { return "gpu-packing"; }

    std::int64_t score(const ScoreContext&, const Node& node, const Workload& w, Candidate&) override
    {
        const AcceleratorRequest& a = w.accelerators;
        if (!a.any())
            return 0;
        const auto deviceCount = static_cast<std::int64_t>(node.devices.size());
        std::int64_t fullyFree = 0;
        for (const Device& d : node.devices)
            fullyFree += d.shareFree == d.shareCapacity;
        if (fullyFree == deviceCount)
            return std::max<std::int64_t>(100 / 3 - fullyFree, fullyFree);

        // Walk the devices from the least free share up (stable by index), taking those the request fits on.
        m_order.resize(node.devices.size());
        std::iota(m_order.begin(), m_order.end(), std::size_t { 0 });
        std::stable_sort(m_order.begin(), m_order.end(),
            [&](std::size_t x, std::size_t y) { return node.devices[x].shareFree < node.devices[y].shareFree; });
        std::int32_t wanted = a.count;
        std::int64_t fullyFreeUsed = 0;
        std::int64_t freeRatio = 0;
        for (std::size_t i : m_order) {
            if (wanted == 0)
                break;
            const Device& d = node.devices[i];
            if (!openb::usableDevice(d, a) || a.shareOn(d.shareCapacity) > d.shareFree)
                continue;
            --wanted;
            freeRatio += std::int64_t { d.shareFree } * 100 / d.shareCapacity;
            fullyFreeUsed += d.shareFree == d.shareCapacity;
        }
        if (fullyFreeUsed > 0)
            return std::max<std::int64_t>(100 / 2 - fullyFreeUsed, 100 / 3);
        return std::max<std::int64_t>(100 - freeRatio / 10, 100 / 2);
    }

private:
    std::vector<std::size_t> m_order;
};

} // namespace

std::unique_ptr<Policy> makeGpuPackingPolicy(const PolicyOptions&)
{
    return std::make_unique<GpuPackingPolicy>();
}

} // namespace tidepool
