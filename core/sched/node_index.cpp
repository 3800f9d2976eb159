#include "core/sched/node_index.h"

#include <algorithm>
#include <limits>

namespace tidepool {

namespace {

constexpr int kIdleShift = 20;

std::uint64_t modelMaskOf(const Node& node)
{
    std::uint64_t mask = 0;
    for (const Device& d : node.devices)
        mask |= std::uint64_t { 1 } << std::min<int>(d.model < 0 ? 63 : d.model, 63);
    return mask;
}

} // namespace

std::int64_t NodeIndex::keyOf(const Node& node)
{
    if (node.devices.empty())
        return node.free.cpuMillis;
    return (std::int64_t { node.idleDeviceCount() } << kIdleShift) | node.maxDeviceShareFree();
}

std::int64_t NodeIndex::requiredKey(AcceleratorKind classKind, const Workload& w)
{
    if (classKind == AcceleratorKind::None)
        return w.requests.cpuMillis;
    const AcceleratorRequest& a = w.accelerators;
    if (!a.any() || a.kind != classKind)
        return 0; // CPU-only work on an accelerator node: the key says nothing about CPU
    if (a.wholeDevices())
        return std::int64_t { a.count } << kIdleShift;
    return a.sharePerDevice;
}

void NodeIndex::rebuild(const ClusterState& cluster)
{
    m_classes.clear();
    ++m_generation;
    m_entries.assign(cluster.nodes().size(), {});
    m_exact = true;
    for (const Node& node : cluster.nodes()) {
        for (const Device& d : node.devices)
            m_exact = m_exact && d.kind == node.acceleratorKind() && d.model >= 0 && d.model < 63;
        std::vector<PoolId> pools = node.pools;
        std::sort(pools.begin(), pools.end());
        const std::uint64_t mask = modelMaskOf(node);
        const AcceleratorKind kind = node.acceleratorKind();
        auto it = std::find_if(m_classes.begin(), m_classes.end(), [&](const Class& c) {
            return c.isa == node.isa && c.tier == node.tier && c.kind == kind && c.modelMask == mask
                && c.pools == pools;
        });
        if (it == m_classes.end()) {
            m_classes.push_back(Class { node.isa, node.tier, kind, mask, std::move(pools), {} });
            it = m_classes.end() - 1;
        }
        Entry& e = m_entries[static_cast<std::size_t>(node.id)];
        e.cls = static_cast<std::int32_t>(it - m_classes.begin());
        e.key = keyOf(node);
        e.schedulable = node.schedulable;
        e.peakReserved = node.peakReserved;
        it->unschedulable += !node.schedulable;
        it->peakReserved += node.schedulable && node.peakReserved;
        it->maxKey = std::max(it->maxKey, e.key);
        it->byKey.emplace_back(e.key, node.id);
    }
    for (Class& c : m_classes)
        std::sort(c.byKey.begin(), c.byKey.end());
}

std::vector<std::pair<std::int64_t, NodeId>>::const_iterator NodeIndex::lowerBound(const Class& c, std::int64_t key)
{
    return std::lower_bound(c.byKey.begin(), c.byKey.end(), std::pair { key, std::numeric_limits<NodeId>::min() });
}

void NodeIndex::update(const Node& node)
{
    Entry& e = m_entries[static_cast<std::size_t>(node.id)];
    const std::int64_t key = keyOf(node);
    if (key == e.key)
        return;
    Class& c = m_classes[static_cast<std::size_t>(e.cls)];
    auto& v = c.byKey;
    const std::pair was { e.key, node.id };
    const std::pair now { key, node.id };
    const auto from = std::lower_bound(v.begin(), v.end(), was);
    if (from == v.end() || *from != was) {
        v.insert(std::lower_bound(v.begin(), v.end(), now), now); // not indexed yet; cannot happen after `rebuild`
        ++m_generation; // the class grew
    } else {
        const auto to = std::lower_bound(v.begin(), v.end(), now);
        if (to > from) {
            std::rotate(from, from + 1, to); // the entries in between move down one place
            *(to - 1) = now;
        } else {
            std::rotate(to, from, from + 1); // the entries in between move up one place
            *to = now;
        }
    }
    c.maxKey = v.back().first;
    e.key = key;
}

} // namespace tidepool
