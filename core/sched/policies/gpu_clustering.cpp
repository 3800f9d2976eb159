// gpu-clustering: the openb paper's GpuClustering baseline. Requests of one kind (a fractional share, or k whole
// devices) cluster on nodes that already run only that kind (75–100), then on mixed nodes that run it (50–75),
// then on nodes without accelerator work (25–50), last elsewhere (0–25); within a band, fuller nodes win.
// CPU-only requests score 0 everywhere, so the tie order decides.

#include "core/sched/policies/openb_common.h"
#include "core/sched/policies/policies.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace tidepool {

namespace {

// The affinity tag of a request: 0 for a fractional share, k for k whole devices, -1 for no accelerator.
std::int32_t affinityTag(const Workload& w, std::int32_t capacity)
{
    const AcceleratorRequest& a = w.accelerators;
    if (!a.any())
        return -1;
    if (!a.wholeDevices() && a.sharePerDevice < capacity)
        return 0;
    return a.count;
}

class GpuClusteringPolicy final : public Policy {
public:
    std::string_view name() const override { return "gpu-clustering"; }

    void prepare(const ScoreContext& ctx, const Workload&) override
    {
        m_max.refresh(ctx.cluster);
        if (&ctx.cluster != m_cluster || ctx.cluster.nodes().size() != m_tags.size())
            rebuild(ctx.cluster);
    }

    std::int64_t score(const ScoreContext&, const Node& node, const Workload& w, Candidate&) override
    {
        const std::int32_t tag = affinityTag(w, openb::deviceCapacity(node, w.accelerators.kind));
        if (tag < 0)
            return 0;
        const auto& tags = m_tags[static_cast<std::size_t>(node.id)];
        const auto maxShare = static_cast<std::int64_t>(m_max.share());
        const std::int64_t base = 100 / 4 * (maxShare - node.deviceShareFreeTotal()) / maxShare;
        const bool present = std::any_of(tags.begin(), tags.end(), [&](const auto& t) { return t.first == tag; });
        if (present)
            return base + (tags.size() == 1 ? 100 * 3 / 4 : 100 * 2 / 4);
        return base + (tags.empty() ? 100 / 4 : 0);
    }

    void onBind(const ScoreContext& ctx, const Workload& w, const Placement& p) override { count(ctx, w, p, +1); }
    void onUnbind(const ScoreContext& ctx, const Workload& w, const Placement& p) override { count(ctx, w, p, -1); }

private:
    using Tags = std::vector<std::pair<std::int32_t, std::int32_t>>; // (tag, workloads with it)

    void count(const ScoreContext& ctx, const Workload& w, const Placement& p, std::int32_t delta)
    {
        if (&ctx.cluster != m_cluster || ctx.cluster.nodes().size() != m_tags.size()) {
            rebuild(ctx.cluster); // already reflects this change
            return;
        }
        add(m_tags[static_cast<std::size_t>(p.node)],
            affinityTag(w, openb::deviceCapacity(ctx.cluster.node(p.node), w.accelerators.kind)), delta);
    }

    static void add(Tags& tags, std::int32_t tag, std::int32_t delta)
    {
        if (tag < 0)
            return;
        auto it = std::find_if(tags.begin(), tags.end(), [&](const auto& t) { return t.first == tag; });
        if (it == tags.end())
            it = tags.insert(tags.end(), { tag, 0 });
        it->second += delta;
        if (it->second <= 0)
            tags.erase(it);
    }

    // Counts the tags of what already runs on every node, for a cluster placed before this policy existed.
    void rebuild(const ClusterState& cluster)
    {
        m_cluster = &cluster;
        m_tags.assign(cluster.nodes().size(), {});
        for (const Node& node : cluster.nodes())
            for (WorkloadId id : node.residents)
                if (const WorkloadRecord* r = cluster.workload(id))
                    add(m_tags[static_cast<std::size_t>(node.id)],
                        affinityTag(r->workload, openb::deviceCapacity(node, r->workload.accelerators.kind)), 1);
    }

    const ClusterState* m_cluster = nullptr;
    std::vector<Tags> m_tags; // by node id
    openb::ClusterMaxima m_max;
};

} // namespace

std::unique_ptr<Policy> makeGpuClusteringPolicy(const PolicyOptions&)
{
    return std::make_unique<GpuClusteringPolicy>();
}

} // namespace tidepool
