// dotprod: the openb paper's DotProd baseline (Tetris-style alignment). The node's free [CPU, accelerator share]
// and the request, each normalised by the largest node of the cluster, are multiplied; a smaller dot product
// (less free capacity along the request's direction) scores higher: int(100 × (1 − dot / 2)). A fractional request
// takes the device with the smallest sufficient free share (the scheduler's default).

#include "core/sched/policies/openb_common.h"
#include "core/sched/policies/policies.h"

namespace tidepool {

namespace {

class DotProdPolicy final : public Policy {
public:
    std::string_view name() const override { return "dotprod"; }

    void prepare(const ScoreContext& ctx, const Workload&) override { m_max.refresh(ctx.cluster); }

    std::int64_t score(const ScoreContext&, const Node& node, const Workload& w, Candidate&) override
    {
        const double cpuFree = static_cast<double>(node.free.cpuMillis) / m_max.cpuMillis();
        const double shareFree = static_cast<double>(node.deviceShareFreeTotal()) / m_max.share();
        const double cpuReq = static_cast<double>(w.requests.cpuMillis) / m_max.cpuMillis();
        const double shareReq = static_cast<double>(openb::requestedShare(node, w)) / m_max.share();
        double dot = 0.0;
        dot += cpuFree * cpuReq;
        dot += shareFree * shareReq;
        dot /= 2.0;
        return static_cast<std::int64_t>(100.0 * (1.0 - dot));
    }

private:
    openb::ClusterMaxima m_max;
};

} // namespace

std::unique_ptr<Policy> makeDotProdPolicy(const PolicyOptions&)
{
    return std::make_unique<DotProdPolicy>();
}

} // namespace tidepool
