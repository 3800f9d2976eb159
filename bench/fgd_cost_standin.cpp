#include "bench/fgd_cost_standin.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

namespace tidepool::bench {

namespace {

constexpr std::size_t kMaxShapes = 35;
constexpr std::size_t kMaxGpus = 16;

struct Shape {
    std::int64_t cpuMillis = 0;
    std::int32_t share = 0; // milli-GPU per device; 0 = CPU-only
    std::int32_t count = 0;
    std::uint64_t modelMask = ~std::uint64_t { 0 };
    double weight = 0;
};

struct GpuState {
    std::array<std::int32_t, kMaxGpus> free {};
    std::int32_t gpus = 0;
    std::int32_t capacity = 1000;
    std::uint64_t modelMask = 0;
    std::int64_t cpuFree = 0;
};

class FgdCostStandIn final : public Policy {
public:
    explicit FgdCostStandIn(const PolicyOptions& options)
    {
        // Typical shapes as FGD derives them: group by request, most frequent first, until 95% are covered.
        std::map<std::tuple<std::int64_t, std::int32_t, std::int32_t, std::uint64_t>, int> counts;
        for (const Workload& w : options.typicalMix) {
            const AcceleratorRequest& a = w.accelerators;
            const bool gpu = a.any() && a.kind == AcceleratorKind::Gpu;
            std::uint64_t mask = ~std::uint64_t { 0 };
            if (gpu && !a.allowedModels.empty()) {
                mask = 0;
                for (ModelId m : a.allowedModels)
                    mask |= std::uint64_t { 1 } << std::min<int>(m, 63);
            }
            ++counts[{ w.requests.cpuMillis, gpu ? a.shareOn(1000) : 0, gpu ? a.count : 0, mask }];
        }
        std::vector<std::pair<int, Shape>> sorted;
        for (const auto& [key, n] : counts)
            sorted.push_back({ n, Shape { std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key), 0 } });
        std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        const auto total = static_cast<double>(options.typicalMix.size());
        double covered = 0;
        for (const auto& [n, shape] : sorted) {
            if (m_shapes.size() == kMaxShapes || covered >= 0.95 * total)
                break;
            m_shapes.push_back(shape);
            covered += n;
        }
        for (std::size_t i = 0; i < m_shapes.size(); ++i)
            m_shapes[i].weight = sorted[i].first / covered; // renormalised over the kept shapes
    }

    std::string_view name() const override { return "bench-fgd-cost"; }

    std::int64_t score(const ScoreContext&, const Node& node, const Workload& w, Candidate& candidate) override
    {
        if (node.acceleratorKind() != AcceleratorKind::Gpu)
            return 0;
        GpuState state = stateOf(node);
        const double before = fragmentation(state);
        state.cpuFree -= w.requests.cpuMillis;
        const AcceleratorRequest& a = w.accelerators;
        if (!a.any() || a.kind != AcceleratorKind::Gpu)
            return scoreOf(before, fragmentation(state));
        if (a.wholeDevices()) {
            for (std::int32_t i = 0, taken = 0; i < state.gpus && taken < a.count; ++i)
                if (state.free[static_cast<std::size_t>(i)] == state.capacity) {
                    state.free[static_cast<std::size_t>(i)] = 0;
                    ++taken;
                }
            return scoreOf(before, fragmentation(state));
        }
        // Try every sufficient GPU; GPUs with equal free share give equal results, so each value is tried once.
        std::int64_t best = -1;
        std::int16_t bestDevice = -1;
        for (std::int32_t i = 0; i < state.gpus; ++i) {
            const std::int32_t f = state.free[static_cast<std::size_t>(i)];
            if (f < a.sharePerDevice)
                continue;
            bool seen = false;
            for (std::int32_t j = 0; j < i && !seen; ++j)
                seen = state.free[static_cast<std::size_t>(j)] == f;
            if (seen)
                continue;
            state.free[static_cast<std::size_t>(i)] = f - a.sharePerDevice;
            const std::int64_t s = scoreOf(before, fragmentation(state));
            state.free[static_cast<std::size_t>(i)] = f;
            if (s > best) {
                best = s;
                bestDevice = static_cast<std::int16_t>(i);
            }
        }
        if (candidate.device < 0)
            candidate.device = bestDevice;
        return std::max<std::int64_t>(best, 0);
    }

private:
    static GpuState stateOf(const Node& node)
    {
        GpuState s;
        s.cpuFree = node.free.cpuMillis;
        for (const Device& d : node.devices) {
            if (d.kind != AcceleratorKind::Gpu || s.gpus == static_cast<std::int32_t>(kMaxGpus))
                continue;
            s.free[static_cast<std::size_t>(s.gpus++)] = d.shareFree;
            s.capacity = d.shareCapacity;
            s.modelMask |= std::uint64_t { 1 } << std::min<int>(d.model, 63);
        }
        return s;
    }

    // F = Σ over typical shapes of weight × GPU share that shape could not use on this node.
    double fragmentation(const GpuState& s) const
    {
        std::int64_t freeTotal = 0;
        for (std::int32_t i = 0; i < s.gpus; ++i)
            freeTotal += s.free[static_cast<std::size_t>(i)];
        double f = 0;
        for (const Shape& t : m_shapes) {
            if (t.count == 0 || (t.modelMask & s.modelMask) == 0 || t.cpuMillis > s.cpuFree) {
                f += t.weight * static_cast<double>(freeTotal);
                continue;
            }
            const std::int32_t need = t.count > 1 ? s.capacity : t.share;
            std::int64_t unusable = 0;
            std::int32_t usable = 0;
            for (std::int32_t i = 0; i < s.gpus; ++i) {
                const std::int32_t g = s.free[static_cast<std::size_t>(i)];
                if (g >= need)
                    ++usable;
                else
                    unusable += g;
            }
            f += t.weight * static_cast<double>(usable >= t.count ? unusable : freeTotal);
        }
        return f;
    }

    static std::int64_t scoreOf(double before, double after)
    {
        return static_cast<std::int64_t>(100.0 / (1.0 + std::exp(-(before - after) / 1000.0)));
    }

    std::vector<Shape> m_shapes;
};

} // namespace

std::unique_ptr<Policy> makeFgdCostStandIn(const PolicyOptions& options) { return std::make_unique<FgdCostStandIn>(options); }

} // namespace tidepool::bench
