// fgd: Fragmentation Gradient Descent (Weng et al., USENIX ATC 2023). A placement scores
// int(100 × sigmoid((F_before − F_after) / device capacity)), where F is the node's fragmentation measured against
// the typical shapes of the workload mix (`FragmentationModel`). A fractional request tries every sufficient device
// and binds to the first one reaching the node's best score. The integer score and the scheduler's fixed tie order
// are part of the method: they make equal-fragmentation choices consolidate.
//
// The class below runs the whole fragmentation-gradient family (`GradientSettings`); `tidepool` is a member with
// its own settings (tidepool.cpp).
//
// Scoring a node costs O(typical shapes × devices), so scores are cached per node for its last few request shapes,
// keyed by `Node::version`: after one placement only the node that changed is recomputed.

#include "core/sched/policies/fragmentation_gradient.h"

#include "core/sched/fragmentation.h"
#include "core/sched/policies/openb_common.h"
#include "core/sched/policies/policies.h"

#include <algorithm>
#include <bit>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace tidepool {

namespace {

class GradientPolicy final : public Policy {
public:
    GradientPolicy(const PolicyOptions& options, const GradientSettings& settings)
        : m_settings(settings)
        , m_mix(options.typicalMix)
        , m_learnOnline(options.typicalMix.empty())
    {
    }

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
            m_model = FragmentationModel::fromMix(
                m_mix, ctx.cluster, m_settings.coverage, 1000, m_settings.memoryQuantile, m_settings.maxShapes);
            m_model.setHostLimitWeight(m_settings.hostLimitWeight);
            m_cache.assign(ctx.cluster.nodes().size(), {});
        }
        const AcceleratorRequest& a = w.accelerators;
        // The score depends on the request's memory only when the model counts memory.
        const std::int64_t memory = m_settings.memoryQuantile >= 0 ? w.requests.memoryMiB : 0;
        ShapeKey key { w.requests.cpuMillis, memory, a.any() ? a.kind : AcceleratorKind::None, a.count,
            a.sharePerDevice, a.memoryMiBPerDevice, a.allowedModels };
        auto [it, inserted] = m_shapeIds.try_emplace(std::move(key), static_cast<std::int32_t>(m_shapeIds.size()));
        m_shape = it->second;
        // Grow the per-node score table with the number of request shapes seen, within a bound on total entries.
        const std::size_t wanted = std::bit_ceil(m_shapeIds.size());
        const std::size_t bound = std::max<std::size_t>(
            kMinEntriesPerNode, std::bit_floor(kMaxEntries / std::max<std::size_t>(1, m_cache.size())));
        const std::size_t entries = std::clamp(wanted, kMinEntriesPerNode, bound);
        if (entries != m_slots) {
            m_slots = entries;
            for (NodeCache& cache : m_cache)
                cache.scores.clear();
        }
    }

    void scoreAll(const ScoreContext& ctx, const Workload& w, std::span<Candidate> candidates,
        std::span<std::int64_t> scores) override
    {
        // Each score starts with cache misses on the node's entry here and on its score table; ask for them all
        // first (the tables once the entries have arrived), so that they overlap instead of following one another.
        for (const Candidate& c : candidates) {
            const auto* entry = reinterpret_cast<const char*>(&m_cache[static_cast<std::size_t>(c.node)]);
            __builtin_prefetch(entry);
            __builtin_prefetch(entry + sizeof(NodeCache) - 1);
        }
        if (m_useTable)
            for (const Candidate& c : candidates)
                if (const NodeCache& cache = m_cache[static_cast<std::size_t>(c.node)]; !cache.scores.empty())
                    __builtin_prefetch(&cache.scores[static_cast<std::size_t>(m_shape) & (m_slots - 1)]);
        Policy::scoreAll(ctx, w, candidates, scores);
    }

    std::int64_t score(const ScoreContext&, const Node& node, const Workload& w, Candidate& candidate) override
    {
        NodeCache& cache = m_cache[static_cast<std::size_t>(node.id)];
        Entry* entry = &m_scratch;
        if (m_useTable) {
            if (cache.scores.empty())
                cache.scores.resize(m_slots); // only nodes that get scored pay for a table
            entry = &cache.scores[static_cast<std::size_t>(m_shape) & (m_slots - 1)];
            if (entry->shape != m_shape) {
                entry->shape = m_shape;
                entry->versionPlusOne = 0;
            }
            const bool hit = entry->versionPlusOne == node.version + 1;
            m_hits += hit;
            if (++m_lookups == kWindow) {
                // Reading a table entry is a cache miss of its own; where scores are rarely reused (many distinct
                // shapes, nodes that change between visits) it costs more than it saves, so stop using it for a while.
                m_useTable = m_hits * 8 >= m_lookups;
                m_lookups = m_hits = 0;
            }
            if (hit) {
                if (candidate.device < 0)
                    candidate.device = entry->device;
                return entry->score;
            }
        } else if (++m_lookups == kBypass) {
            m_useTable = true; // look again
            m_lookups = 0;
        }
        evaluate(node, w, cache, *entry);
        entry->versionPlusOne = node.version + 1;
        if (candidate.device < 0)
            candidate.device = entry->device;
        return entry->score;
    }

private:
    using ShapeKey = std::tuple<std::int64_t, std::int64_t, AcceleratorKind, std::int32_t, std::int32_t, std::int64_t,
        std::vector<ModelId>>;
    // Ids are looked up once per placement among thousands of shapes: a hash costs one probe where a tree costs a
    // dozen scattered ones.
    struct ShapeKeyHash {
        std::size_t operator()(const ShapeKey& k) const
        {
            std::uint64_t h = 0;
            auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 0x9e3779b97f4a7c15ull + (h >> 29); };
            mix(static_cast<std::uint64_t>(std::get<0>(k)));
            mix(static_cast<std::uint64_t>(std::get<1>(k)));
            mix(static_cast<std::uint64_t>(std::get<2>(k)));
            mix(static_cast<std::uint64_t>(std::get<3>(k)));
            mix(static_cast<std::uint64_t>(std::get<4>(k)));
            mix(static_cast<std::uint64_t>(std::get<5>(k)));
            for (ModelId m : std::get<6>(k))
                mix(static_cast<std::uint64_t>(m));
            return static_cast<std::size_t>(h);
        }
    };
    // Scores are kept per node in a direct-mapped table indexed by request shape id. The table grows with the number
    // of shapes seen (every shape of an openb trace gets its own entry) but the whole cache stays within
    // `kMaxEntries` entries, so many distinct shapes on a large cluster share entries instead of using gigabytes.
    static constexpr std::size_t kMinEntriesPerNode = 8;
    static constexpr std::size_t kMaxEntries = std::size_t { 1 } << 20;
    static constexpr std::size_t kMaxSummaryEntries = std::size_t { 4 } << 20; // 12 bytes each
    static constexpr std::int64_t kWindow = 4096; // table lookups per decision to keep using it
    static constexpr std::int64_t kBypass = 65536; // scores without the table before looking again
    struct Entry {
        std::int32_t shape = -1;
        std::uint64_t versionPlusOne = 0; // 0 = empty
        std::int64_t score = 0;
        std::int16_t device = -1;
    };
    struct NodeCache {
        std::uint64_t fragmentationVersionPlusOne = 0; // `fragmentation` and `summary` hold at this version
        double fragmentation = 0;
        std::vector<FragmentationModel::ShapeSummary> summary; // empty when the cache bound leaves no room
        std::vector<Entry> scores; // m_slots entries once the node is first scored
    };

    void evaluate(const Node& node, const Workload& w, NodeCache& cache, Entry& entry)
    {
        const AcceleratorRequest& a = w.accelerators;
        const double unit = (node.devices.empty() ? 1000.0 : static_cast<double>(node.devices.front().shareCapacity))
            * m_settings.scoreUnitDevices;
        m_share.resize(node.devices.size());
        std::int64_t shareTotal = 0;
        for (std::size_t i = 0; i < node.devices.size(); ++i) {
            m_share[i] = node.devices[i].shareFree;
            shareTotal += m_share[i];
        }
        const NodeFreeState now { node.free.cpuMillis, node.free.memoryMiB, node.devices, m_share, shareTotal };
        // The per-shape summary of the node's free state is kept with F while the node's version holds (when
        // the whole cache fits `kMaxSummaryEntries`): most scores are of nodes unchanged since their last one.
        const bool keep = m_model.shapes().size() * m_cache.size() <= kMaxSummaryEntries;
        std::vector<FragmentationModel::ShapeSummary>& summary = keep ? cache.summary : m_summary;
        if (cache.fragmentationVersionPlusOne != node.version + 1 || !keep) {
            m_model.summarize(now, summary);
            cache.fragmentation = m_model.fragmentation(now, summary);
            cache.fragmentationVersionPlusOne = node.version + 1;
        }
        const double before = cache.fragmentation;
        const std::int64_t cpuAfter = node.free.cpuMillis - w.requests.cpuMillis;
        const std::int64_t memoryAfter = node.free.memoryMiB - w.requests.memoryMiB;
        m_changes.clear();
        entry.device = -1;
        if (openb::isFractional(node, w)) {
            // Every sufficient device; the first reaching the best integer score wins. A device of the same model
            // and free share as one already tried scores the same, so it cannot win.
            entry.score = 0;
            m_tried.clear();
            for (std::size_t i = 0; i < node.devices.size(); ++i) {
                if (!openb::usableDevice(node.devices[i], a) || m_share[i] < a.sharePerDevice)
                    continue;
                const std::pair<ModelId, std::int32_t> kind { node.devices[i].model, m_share[i] };
                if (std::find(m_tried.begin(), m_tried.end(), kind) != m_tried.end())
                    continue;
                m_tried.push_back(kind);
                const FragmentationModel::DeviceChange change { i, m_share[i] - a.sharePerDevice };
                const double after = m_model.fragmentationAfter(now, summary, { &change, 1 }, cpuAfter, memoryAfter);
                const std::int64_t s = fragmentationScore(before, after, unit);
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
                m_changes.push_back({ i, m_share[i] - take });
                --wanted;
            }
        }
        entry.score = fragmentationScore(
            before, m_model.fragmentationAfter(now, summary, m_changes, cpuAfter, memoryAfter), unit);
    }

    GradientSettings m_settings;
    std::vector<Workload> m_mix;
    bool m_learnOnline = false;
    const ClusterState* m_cluster = nullptr;
    FragmentationModel m_model;
    std::unordered_map<ShapeKey, std::int32_t, ShapeKeyHash> m_shapeIds;
    std::int32_t m_shape = 0;
    std::size_t m_slots = kMinEntriesPerNode;
    bool m_useTable = true;
    std::int64_t m_lookups = 0;
    std::int64_t m_hits = 0;
    Entry m_scratch;
    std::vector<NodeCache> m_cache; // by node id
    std::vector<std::int32_t> m_share;
    std::vector<FragmentationModel::ShapeSummary> m_summary;
    std::vector<std::pair<ModelId, std::int32_t>> m_tried;
    std::vector<FragmentationModel::DeviceChange> m_changes;
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
