#pragma once
// Small helpers shared by the openb baseline policies (Weng et al., USENIX ATC 2023). They read the generic
// resource model: a node's accelerator share is the sum over its devices, a whole device counts as its capacity.

#include "core/model/cluster.h"

#include <algorithm>
#include <cstdint>

namespace tidepool::openb {

// The capacity of a device of `kind` on `node` (1000 milli-GPUs on openb); 0 when the node has none.
inline std::int32_t deviceCapacity(const Node& node, AcceleratorKind kind)
{
    for (const Device& d : node.devices)
        if (d.kind == kind)
            return d.shareCapacity;
    return 0;
}

// Share the workload takes on `node` in total (count × share per device).
inline std::int64_t requestedShare(const Node& node, const Workload& w)
{
    const AcceleratorRequest& a = w.accelerators;
    if (!a.any())
        return 0;
    return std::int64_t { a.count } * a.shareOn(deviceCapacity(node, a.kind));
}

// A request for part of one device, which the policy places on a device of its choice.
inline bool isFractional(const Node& node, const Workload& w)
{
    const AcceleratorRequest& a = w.accelerators;
    return a.any() && !a.wholeDevices() && a.sharePerDevice < deviceCapacity(node, a.kind);
}

// A device the workload may take share from (kind, model and device memory), ignoring its free share.
inline bool usableDevice(const Device& d, const AcceleratorRequest& a)
{
    return d.kind == a.kind && a.allows(d.model) && d.memoryFreeMiB >= a.memoryMiBPerDevice;
}

// The largest node CPU and accelerator share in the cluster: the normalisers of best-fit and dot-product scores
// (128,000 millicores and 8,000 milli-GPUs on openb). Recomputed only when the node count changes.
class ClusterMaxima {
public:
    void refresh(const ClusterState& cluster)
    {
        if (&cluster == m_cluster && cluster.nodes().size() == m_nodeCount)
            return;
        m_cluster = &cluster;
        m_nodeCount = cluster.nodes().size();
        m_cpuMillis = 1;
        m_share = 1;
        for (const Node& node : cluster.nodes()) {
            m_cpuMillis = std::max(m_cpuMillis, node.capacity.cpuMillis);
            m_share = std::max(m_share, node.deviceShareCapacityTotal());
        }
    }
    double cpuMillis() const { return static_cast<double>(m_cpuMillis); }
    double share() const { return static_cast<double>(m_share); }

private:
    const ClusterState* m_cluster = nullptr;
    std::size_t m_nodeCount = 0;
    std::int64_t m_cpuMillis = 1;
    std::int64_t m_share = 1;
};

} // namespace tidepool::openb
