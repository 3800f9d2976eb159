// fgd: Fragmentation Gradient Descent (Weng et al., USENIX ATC 2023). A placement scores
// int(100 × sigmoid((F_before − F_after) / device capacity)), where F is the node's fragmentation measured against
// the typical shapes of the workload mix (`FragmentationModel`). A fractional request tries every sufficient device
// and binds to the first one reaching the node's best score. The integer score and the scheduler's fixed tie order
// are part of the method: they make equal-fragmentation choices consolidate.
//
// The class below runs the whole fragmentation-gradient family (`GradientSettings`); `tidepool` is a member with
// its own settings (tidepool.cpp).
//
// Scoring every feasible node costs O(shapes × devices²) per node, so scores are cached per node and request shape,
// keyed by `Node::version`: after one placement only the node that changed is recomputed.

#include "core/sched/policies/fragmentation_gradient.h"

#include "core/sched/fragmentation.h"
#include "core/sched/policies/openb_common.h"
#include "core/sched/policies/policies.h"

#include <map>
#include <tuple>
#include <vector>

namespace tidepool {

namespace {

class GradientPolicy final : public Policy {
public:
    GradientPolicy(const PolicyOptions& options, const GradientSettings& settings)
        : m_settings(settings), m_mix(options.typicalMix), m_learnOnline(options.typicalMix.empty()) { }

    std::string_view name() const override { return m_settings.name; }

    void prepare(const ScoreContext& ctx, const Workload& w) override
    {
        if (m_learnOnline) {
            // Without a declared mix, learn it from the arrivals; refit at powers of two to bound the cost.
            m_mix.push_back(w);
            if ((m_mix.size() & (m_mix.size() - 1)) == 0)
                m_cluster = nullptr;
        }
        if (&ctx.cluster != m_cluster || ctx.cluster.nodes().size() != m_cache.size()) {
            m_cluster = &ctx.cluster;
            m_model = FragmentationModel::fromMix(m_mix, ctx.cluster, m_settings.coverage, 1000, m_settings.memoryQuantile);
            m_model.setHostLimitWeight(m_settings.hostLimitWeight);
            m_cache.assign(ctx.cluster.nodes().size(), {});
        }
        const AcceleratorRequest& a = w.accelerators;
        ShapeKey key { w.requests.cpuMillis, a.any() ? a.kind : AcceleratorKind::None, a.count, a.sharePerDevice,
            a.memoryMiBPerDevice, a.allowedModels };
        auto [it, inserted] = m_shapeIds.try_emplace(std::move(key), static_cast<std::int32_t>(m_shapeIds.size()));
        m_shape = static_cast<std::size_t>(it->second);
    }

    std::int64_t score(const ScoreContext&, const Node& node, const Workload& w, Candidate& candidate) override
    {
        NodeCache& cache = m_cache[static_cast<std::size_t>(node.id)];
        if (cache.scores.size() <= m_shape)
            cache.scores.resize(m_shape + 1);
        Entry& entry = cache.scores[m_shape];
        if (entry.versionPlusOne != node.version + 1) {
            if (cache.fragmentationVersionPlusOne != node.version + 1) {
                cache.fragmentation = m_model.fragmentation(node);
                cache.fragmentationVersionPlusOne = node.version + 1;
            }
            evaluate(node, w, cache.fragmentation, entry);
            entry.versionPlusOne = node.version + 1;
        }
        if (candidate.device < 0)
            candidate.device = entry.device;
        return entry.score;
    }

private:
    using ShapeKey = std::tuple<std::int64_t, AcceleratorKind, std::int32_t, std::int32_t, std::int64_t, std::vector<ModelId>>;
    struct Entry {
        std::uint64_t versionPlusOne = 0; // 0 = empty
        std::int64_t score = 0;
        std::int16_t device = -1;
    };
    struct NodeCache {
        std::uint64_t fragmentationVersionPlusOne = 0;
        double fragmentation = 0;
        std::vector<Entry> scores; // by request shape id
    };

    void evaluate(const Node& node, const Workload& w, double before, Entry& entry)
    {
        const AcceleratorRequest& a = w.accelerators;
        const double unit = (node.devices.empty() ? 1000.0 : static_cast<double>(node.devices.front().shareCapacity))
            * m_settings.scoreUnitDevices;
        m_share.resize(node.devices.size());
        for (std::size_t i = 0; i < node.devices.size(); ++i)
            m_share[i] = node.devices[i].shareFree;
        const NodeFreeState after { node.free.cpuMillis - w.requests.cpuMillis,
            node.free.memoryMiB - w.requests.memoryMiB, node.devices, m_share };
        entry.device = -1;
        if (openb::isFractional(node, w)) {
            // Every sufficient device; the first reaching the best integer score wins.
            entry.score = 0;
            for (std::size_t i = 0; i < node.devices.size(); ++i) {
                if (!openb::usableDevice(node.devices[i], a) || m_share[i] < a.sharePerDevice)
                    continue;
                m_share[i] -= a.sharePerDevice;
                const std::int64_t s = fragmentationScore(before, m_model.fragmentation(after), unit);
                m_share[i] += a.sharePerDevice;
                if (entry.device < 0 || s > entry.score) {
                    entry.score = s;
                    entry.device = static_cast<std::int16_t>(i);
                }
            }
            return;
        }
        // CPU-only and whole-device requests: the lowest-index devices that can take them, as the bind will.
        std::int32_t wanted = a.any() ? a.count : 0;
        for (std::size_t i = 0; i < node.devices.size() && wanted > 0; ++i) {
            const Device& d = node.devices[i];
            const std::int32_t take = a.shareOn(d.shareCapacity);
            if (openb::usableDevice(d, a) && m_share[i] >= take && d.idle()) {
                m_share[i] -= take;
                --wanted;
            }
        }
        entry.score = fragmentationScore(before, m_model.fragmentation(after), unit);
    }

    GradientSettings m_settings;
    std::vector<Workload> m_mix;
    bool m_learnOnline = false;
    const ClusterState* m_cluster = nullptr;
    FragmentationModel m_model;
    std::map<ShapeKey, std::int32_t> m_shapeIds;
    std::size_t m_shape = 0;
    std::vector<NodeCache> m_cache; // by node id
    std::vector<std::int32_t> m_share;
};

} // namespace

std::unique_ptr<Policy> makeFragmentationGradientPolicy(const PolicyOptions& options, const GradientSettings& settings)
{
    return std::make_unique<GradientPolicy>(options, settings);
}

std::unique_ptr<Policy> makeFgdPolicy(const PolicyOptions& options)
{
    return makeFragmentationGradientPolicy(options, GradientSettings { .name = "fgd" });
}

} // namespace tidepool
