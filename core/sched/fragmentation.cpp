#include "core/sched/fragmentation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace tidepool {

namespace {

using ShapeKey = std::tuple<std::int64_t, std::int32_t, std::int32_t, std::string, AcceleratorKind>;

std::string joinModels(const std::vector<ModelId>& models, const ClusterState& cluster)
{
    std::string spec;
    for (ModelId m : models) {
        if (!spec.empty())
            spec += '|';
        spec += m >= 0 && static_cast<std::size_t>(m) < cluster.modelCount() ? cluster.modelName(m) : std::to_string(m);
    }
    return spec;
}

} // namespace

bool TypicalShape::allows(ModelId model) const
{
    return allowedModels.empty() || std::find(allowedModels.begin(), allowedModels.end(), model) != allowedModels.end();
}

FragmentationModel FragmentationModel::fromMix(const std::vector<Workload>& mix, const ClusterState& cluster,
    double coverage, std::int32_t wholeShare, double memoryQuantile, std::size_t maxShapes)
{
    // The key orders like FGD's (cpu, milli, count, spec) tuple, so that equal counts are broken the same way.
    std::map<ShapeKey, TypicalShape> groups;
    std::map<ShapeKey, std::vector<std::int64_t>> memory;
    for (const Workload& w : mix) {
        const AcceleratorRequest& a = w.accelerators;
        TypicalShape shape;
        shape.cpuMillis = w.requests.cpuMillis;
        if (a.any()) {
            shape.kind = a.kind;
            shape.count = a.count;
            shape.sharePerDevice = a.shareOn(wholeShare);
            shape.allowedModels = a.allowedModels;
            shape.modelSpec = joinModels(a.allowedModels, cluster);
        }
        ShapeKey key { shape.cpuMillis, shape.sharePerDevice, shape.count, shape.modelSpec, shape.kind };
        if (memoryQuantile >= 0)
            memory[key].push_back(w.requests.memoryMiB);
        auto [it, inserted] = groups.try_emplace(std::move(key), std::move(shape));
        ++it->second.occurrences;
    }
    for (auto& [key, requests] : memory) {
        std::sort(requests.begin(), requests.end());
        const auto at
            = static_cast<std::size_t>(std::min(1.0, memoryQuantile) * static_cast<double>(requests.size() - 1));
        groups[key].memoryMiB = requests[at];
    }
    std::vector<std::pair<ShapeKey, TypicalShape>> ordered(groups.begin(), groups.end());
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
        if (a.second.occurrences != b.second.occurrences)
            return a.second.occurrences > b.second.occurrences;
        return a.first > b.first;
    });
    const auto total = static_cast<std::int64_t>(mix.size());
    std::vector<TypicalShape> kept;
    std::int64_t covered = 0;
    for (auto& [key, shape] : ordered) {
        covered += shape.occurrences;
        kept.push_back(std::move(shape));
        if (static_cast<double>(covered) >= coverage * static_cast<double>(total) || kept.size() >= maxShapes)
            break;
    }
    for (TypicalShape& shape : kept)
        shape.frequency = static_cast<double>(shape.occurrences) / static_cast<double>(covered);
    return FragmentationModel(std::move(kept), wholeShare);
}

FragmentationModel::FragmentationModel(std::vector<TypicalShape> shapes, std::int32_t wholeShare)
    : m_shapes(std::move(shapes))
    , m_wholeShare(wholeShare)
{
    for (const TypicalShape& t : m_shapes) {
        ShapeParams p;
        p.cpuMillis = t.cpuMillis;
        p.memoryMiB = t.memoryMiB;
        p.frequency = t.frequency;
        p.modelMask = t.allowedModels.empty() ? ~std::uint64_t { 0 } : 0;
        for (ModelId m : t.allowedModels) {
            if (m >= 0 && m < 64)
                p.modelMask |= std::uint64_t { 1 } << m;
            else
                p.listed = true;
        }
        // With numerator and divisor below 2^16, floor(n * ceil(2^32 / d) / 2^32) = floor(n / d): the error term is
        // below n / 2^32 < 2^-16, less than the 1/d gap to the next integer.
        const auto d = static_cast<std::uint64_t>(t.sharePerDevice);
        p.shareReciprocal = d > 0 ? ((std::uint64_t { 1 } << 32) + d - 1) / d : 0;
        p.sharePerDevice = t.sharePerDevice;
        p.count = t.count;
        p.kind = t.kind;
        p.fractional = t.count == 1 && t.sharePerDevice < m_wholeShare;
        m_params.push_back(p);
    }
}

bool FragmentationModel::usableBy(std::size_t shape, const Device& d) const
{
    const ShapeParams& t = m_params[shape];
    if (t.kind == AcceleratorKind::None || d.kind != t.kind)
        return false;
    if (t.listed)
        return m_shapes[shape].allows(d.model);
    return d.model >= 0 && d.model < 64 && (t.modelMask >> d.model & 1) != 0;
}

FragmentationModel::ShapeSummary FragmentationModel::summarize(std::size_t shape, const NodeFreeState& state) const
{
    const ShapeParams& t = m_params[shape];
    ShapeSummary s;
    for (std::size_t i = 0; i < state.devices.size(); ++i) {
        if (state.share[i] >= t.sharePerDevice && usableBy(shape, state.devices[i])) {
            ++s.big;
            if (t.sharePerDevice > 0)
                s.tasks += tasksIn(t, state.share[i]);
        } else {
            s.small += state.share[i];
        }
    }
    return s;
}

double FragmentationModel::unusableOnDevices(const ShapeParams& t, const ShapeSummary& s, std::int64_t total,
    std::int64_t cpuFreeMillis, std::int64_t memoryFreeMiB) const
{
    if (s.big < t.count)
        return static_cast<double>(total);
    double stranded = static_cast<double>(s.small);
    if (m_hostLimitWeight > 0 && t.fractional && s.tasks > 0) {
        // min(tasks, free / per-task) for CPU and memory; the division only when the node is the tighter limit.
        std::int64_t hosts = s.tasks;
        if (t.cpuMillis > 0 && hosts * t.cpuMillis > cpuFreeMillis)
            hosts = cpuFreeMillis / t.cpuMillis;
        if (t.memoryMiB > 0 && hosts * t.memoryMiB > memoryFreeMiB)
            hosts = memoryFreeMiB / t.memoryMiB;
        const double unserved = 1.0 - static_cast<double>(hosts) / static_cast<double>(s.tasks);
        stranded += std::floor(m_hostLimitWeight * unserved * static_cast<double>(total - s.small));
    }
    return stranded;
}

void FragmentationModel::summarize(const NodeFreeState& state, std::vector<ShapeSummary>& out) const
{
    // Devices of one model with the same free share count alike for every shape: most nodes have two or three
    // such groups among eight devices, so group first and visit groups per shape.
    struct Group {
        const Device* device;
        std::int32_t share;
        std::int32_t count;
    };
    constexpr std::size_t kMaxGroups = 16;
    Group groups[kMaxGroups];
    std::size_t n = 0;
    for (std::size_t i = 0; i < state.devices.size(); ++i) {
        const Device& d = state.devices[i];
        std::size_t g = 0;
        while (g < n
            && !(groups[g].share == state.share[i] && groups[g].device->model == d.model
                && groups[g].device->kind == d.kind))
            ++g;
        if (g == n) {
            if (n == kMaxGroups) { // an unusually varied node: no grouping
                out.resize(m_shapes.size());
                for (std::size_t k = 0; k < m_shapes.size(); ++k)
                    out[k] = summarize(k, state);
                return;
            }
            groups[n++] = { &d, state.share[i], 0 };
        }
        ++groups[g].count;
    }
    out.resize(m_shapes.size());
    for (std::size_t k = 0; k < m_shapes.size(); ++k) {
        const ShapeParams& t = m_params[k];
        ShapeSummary s;
        for (std::size_t g = 0; g < n; ++g) {
            const Group& group = groups[g];
            if (group.share >= t.sharePerDevice && usableBy(k, *group.device)) {
                s.big += group.count;
                if (t.sharePerDevice > 0)
                    s.tasks += group.count * tasksIn(t, group.share);
            } else {
                s.small += group.count * group.share;
            }
        }
        out[k] = s;
    }
}

namespace {

std::int64_t totalShare(const NodeFreeState& state)
{
    if (state.shareTotal >= 0)
        return state.shareTotal;
    std::int64_t total = 0;
    for (std::int32_t s : state.share)
        total += s;
    return total;
}

} // namespace

double FragmentationModel::fragmentation(const NodeFreeState& state) const
{
    const std::int64_t total = totalShare(state);
    if (total == 0)
        return 0.0;
    double f = 0.0;
    for (std::size_t k = 0; k < m_params.size(); ++k)
        f += m_params[k].frequency
            * unusable(m_params[k], summarize(k, state), total, state.cpuFreeMillis, state.memoryFreeMiB);
    return f;
}

double FragmentationModel::fragmentation(const NodeFreeState& state, std::span<const ShapeSummary> summary) const
{
    const std::int64_t total = totalShare(state);
    if (total == 0)
        return 0.0;
    double f = 0.0;
    for (std::size_t k = 0; k < m_params.size(); ++k)
        f += m_params[k].frequency * unusable(m_params[k], summary[k], total, state.cpuFreeMillis, state.memoryFreeMiB);
    return f;
}

double FragmentationModel::fragmentationAfter(const NodeFreeState& state, std::span<const ShapeSummary> summary,
    std::span<const DeviceChange> changes, std::int64_t cpuFreeMillis, std::int64_t memoryFreeMiB) const
{
    std::int64_t total = totalShare(state);
    for (const DeviceChange& c : changes)
        total += c.share - state.share[c.device];
    if (total == 0)
        return 0.0;
    const auto all = static_cast<double>(total);
    // The terms are added in shape order, as `fragmentation` adds them, so that the sum is the same to the bit.
    double f = 0.0;
    for (std::size_t k = 0; k < m_params.size(); ++k) {
        const ShapeParams& t = m_params[k];
        if (!hostFits(t, cpuFreeMillis, memoryFreeMiB)) {
            f += t.frequency * all; // g_t is all the free share, whatever the devices hold: skip the summary
            continue;
        }
        ShapeSummary s = summary[k];
        for (const DeviceChange& c : changes) {
            // Take the device out as it was, put it back as it will be.
            const bool usable = usableBy(k, state.devices[c.device]);
            const std::int32_t old = state.share[c.device];
            if (usable && old >= t.sharePerDevice) {
                --s.big;
                if (t.sharePerDevice > 0)
                    s.tasks -= tasksIn(t, old);
            } else {
                s.small -= old;
            }
            if (usable && c.share >= t.sharePerDevice) {
                ++s.big;
                if (t.sharePerDevice > 0)
                    s.tasks += tasksIn(t, c.share);
            } else {
                s.small += c.share;
            }
        }
        f += t.frequency * unusableOnDevices(t, s, total, cpuFreeMillis, memoryFreeMiB);
    }
    return f;
}

double FragmentationModel::fragmentation(const Node& node) const
{
    // Nodes rarely hold more than a handful of devices; only unusually large ones pay for a heap copy.
    constexpr std::size_t kInline = 16;
    std::int32_t inlineShare[kInline];
    std::vector<std::int32_t> heapShare;
    std::int32_t* share = inlineShare;
    if (node.devices.size() > kInline) {
        heapShare.resize(node.devices.size());
        share = heapShare.data();
    }
    for (std::size_t i = 0; i < node.devices.size(); ++i)
        share[i] = node.devices[i].shareFree;
    return fragmentation(NodeFreeState {
        node.free.cpuMillis, node.free.memoryMiB, node.devices, std::span(share, node.devices.size()) });
}

std::int64_t fragmentationScore(double before, double after, double unit)
{
    const double x = (before - after) / unit;
    return static_cast<std::int64_t>(1.0 / (1.0 + std::exp(-x)) * 100.0);
}

} // namespace tidepool
