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
    double coverage, std::int32_t wholeShare, double memoryQuantile)
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
        const auto at = static_cast<std::size_t>(std::min(1.0, memoryQuantile) * static_cast<double>(requests.size() - 1));
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
        if (static_cast<double>(covered) >= coverage * static_cast<double>(total))
            break;
    }
    for (TypicalShape& shape : kept)
        shape.frequency = static_cast<double>(shape.occurrences) / static_cast<double>(covered);
    return FragmentationModel(std::move(kept), wholeShare);
}

double FragmentationModel::fragmentation(const NodeFreeState& state) const
{
    std::int64_t total = 0;
    for (std::int32_t s : state.share)
        total += s;
    if (total == 0)
        return 0.0;
    double f = 0.0;
    for (const TypicalShape& t : m_shapes) {
        std::int64_t unusable = total;
        if (t.kind != AcceleratorKind::None && state.cpuFreeMillis >= t.cpuMillis && state.memoryFreeMiB >= t.memoryMiB) {
            std::int32_t big = 0;
            std::int64_t small = 0;
            std::int64_t slots = 0; // tasks of shape t the devices alone could still take (fractional shapes)
            for (std::size_t i = 0; i < state.devices.size(); ++i) {
                const Device& d = state.devices[i];
                if (d.kind == t.kind && state.share[i] >= t.sharePerDevice && t.allows(d.model)) {
                    ++big;
                    if (t.sharePerDevice > 0)
                        slots += state.share[i] / t.sharePerDevice;
                } else {
                    small += state.share[i];
                }
            }
            if (big >= t.count) {
                unusable = small;
                const bool fractional = t.count == 1 && t.sharePerDevice < m_wholeShare;
                if (m_hostLimitWeight > 0 && fractional && t.sharePerDevice > 0) {
                    std::int64_t hosts = slots;
                    if (t.cpuMillis > 0)
                        hosts = std::min(hosts, state.cpuFreeMillis / t.cpuMillis);
                    if (t.memoryMiB > 0)
                        hosts = std::min(hosts, state.memoryFreeMiB / t.memoryMiB);
                    const double stranded = 1.0 - static_cast<double>(hosts) / static_cast<double>(slots);
                    unusable += static_cast<std::int64_t>(m_hostLimitWeight * stranded * static_cast<double>(total - small));
                }
            }
        }
        f += t.frequency * static_cast<double>(unusable);
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
    return fragmentation(NodeFreeState { node.free.cpuMillis, node.free.memoryMiB, node.devices, std::span(share, node.devices.size()) });
}

std::int64_t fragmentationScore(double before, double after, double unit)
{
    const double x = (before - after) / unit;
    return static_cast<std::int64_t>(1.0 / (1.0 + std::exp(-x)) * 100.0);
}

} // namespace tidepool
