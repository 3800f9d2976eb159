#include "core/model/cluster.h"

#include <algorithm>
#include <string>

namespace tidepool {

namespace {

std::string nodeContext(const Node& node)
{
    return "node '" + node.name + "'";
}

} // namespace

ModelId ClusterState::internModel(std::string_view name)
{
    if (auto found = findModel(name))
        return *found;
    m_modelNames.emplace_back(name);
    return static_cast<ModelId>(m_modelNames.size() - 1);
}

std::optional<ModelId> ClusterState::findModel(std::string_view name) const
{
    for (std::size_t i = 0; i < m_modelNames.size(); ++i)
        if (m_modelNames[i] == name)
            return static_cast<ModelId>(i);
    return std::nullopt;
}

NodeId ClusterState::addNode(Node node)
{
    node.id = static_cast<NodeId>(m_nodes.size());
    node.free = node.capacity;
    for (Device& d : node.devices) {
        d.shareFree = d.shareCapacity;
        d.memoryFreeMiB = d.memoryMiB;
    }
    node.residents.clear();
    node.pools.clear();
    m_nodes.push_back(std::move(node));
    ++m_version;
    return m_nodes.back().id;
}

PoolId ClusterState::addPool(Pool pool)
{
    pool.id = static_cast<PoolId>(m_pools.size());
    pool.used = {};
    pool.acceleratorUsed = {};
    pool.placed = 0;
    pool.nodes.clear();
    m_pools.push_back(std::move(pool));
    ++m_version;
    return m_pools.back().id;
}

Expected<void> ClusterState::setNetworkCapacity(NodeId id, std::int64_t mbps)
{
    Node& node = mutableNode(id);
    const std::int64_t used = node.capacity.netBandwidthMbps - node.free.netBandwidthMbps;
    if (mbps < used)
        return makeError(ErrorCode::CapacityExceeded,
            "node " + node.name + ": its workloads hold " + std::to_string(used) + " Mbit/s of network, more than "
                + std::to_string(mbps));
    if (mbps == node.capacity.netBandwidthMbps)
        return {};
    node.capacity.netBandwidthMbps = mbps;
    node.free.netBandwidthMbps = mbps - used;
    ++node.version;
    ++m_version;
    return {};
}

Expected<void> ClusterState::attach(PoolId poolId, NodeId nodeId)
{
    if (poolId < 0 || static_cast<std::size_t>(poolId) >= m_pools.size())
        return makeError(ErrorCode::NotFound, "pool " + std::to_string(poolId) + " does not exist");
    if (nodeId < 0 || static_cast<std::size_t>(nodeId) >= m_nodes.size())
        return makeError(ErrorCode::NotFound, "node " + std::to_string(nodeId) + " does not exist");
    Pool& pool = m_pools[static_cast<std::size_t>(poolId)];
    Node& node = m_nodes[static_cast<std::size_t>(nodeId)];
    // The node's list of pools is the short one (a pool may span thousands of nodes); the two lists hold the same
    // pairs.
    if (std::find(node.pools.begin(), node.pools.end(), poolId) == node.pools.end()) {
        pool.nodes.push_back(nodeId);
        node.pools.push_back(poolId);
    }
    ++m_version;
    return {};
}

Expected<void> ClusterState::removePool(PoolId poolId)
{
    if (poolId < 0 || static_cast<std::size_t>(poolId) >= m_pools.size()
        || m_pools[static_cast<std::size_t>(poolId)].removed)
        return makeError(ErrorCode::NotFound, "pool " + std::to_string(poolId) + " does not exist");
    Pool& pool = m_pools[static_cast<std::size_t>(poolId)];
    if (pool.placed > 0)
        return makeError(ErrorCode::InvalidArgument, "pool " + pool.name + " still holds placed workloads");
    for (const NodeId nodeId : pool.nodes)
        std::erase(m_nodes[static_cast<std::size_t>(nodeId)].pools, poolId);
    pool.nodes.clear();
    pool.removed = true;
    ++m_version;
    return {};
}

Expected<void> ClusterState::addWorkload(Workload workload)
{
    const WorkloadId id = workload.id;
    auto [it, inserted] = m_workloads.try_emplace(id, WorkloadRecord { std::move(workload), std::nullopt });
    if (!inserted)
        return makeError(ErrorCode::AlreadyExists, "workload " + std::to_string(id) + " already exists");
    return {};
}

const WorkloadRecord* ClusterState::workload(WorkloadId id) const
{
    auto it = m_workloads.find(id);
    return it == m_workloads.end() ? nullptr : &it->second;
}

Expected<void> ClusterState::removeWorkload(WorkloadId id)
{
    auto it = m_workloads.find(id);
    if (it == m_workloads.end())
        return makeError(ErrorCode::NotFound, "workload " + std::to_string(id) + " does not exist");
    if (it->second.placement) {
        if (auto r = unbind(id); !r)
            return r;
    }
    m_workloads.erase(it);
    return {};
}

Expected<void> ClusterState::setWorkloadPool(WorkloadId id, PoolId pool)
{
    auto it = m_workloads.find(id);
    if (it == m_workloads.end())
        return makeError(ErrorCode::NotFound, "workload " + std::to_string(id) + " does not exist");
    if (pool != kNoPool && (pool < 0 || static_cast<std::size_t>(pool) >= m_pools.size()))
        return makeError(ErrorCode::NotFound, "pool " + std::to_string(pool) + " does not exist");
    if (it->second.placement)
        return makeError(ErrorCode::InvalidArgument,
            "workload '" + it->second.workload.name + "' is placed: release it before changing its pool");
    it->second.workload.pool = pool;
    ++m_version;
    return {};
}

Expected<void> ClusterState::setWorkloadRequests(WorkloadId id, const Resources& requests)
{
    auto it = m_workloads.find(id);
    if (it == m_workloads.end())
        return makeError(ErrorCode::NotFound, "workload " + std::to_string(id) + " does not exist");
    if (requests.cpuMillis < 0 || requests.memoryMiB < 0 || requests.memBandwidthMBps < 0
        || requests.netBandwidthMbps < 0)
        return makeError(ErrorCode::InvalidArgument, "workload '" + it->second.workload.name + "': a negative request");
    if (it->second.placement)
        return makeError(ErrorCode::InvalidArgument,
            "workload '" + it->second.workload.name + "' is placed: release it before changing what it asks for");
    it->second.workload.requests = requests;
    ++m_version;
    return {};
}

Expected<void> ClusterState::bind(const Placement& placement)
{
    auto it = m_workloads.find(placement.workload);
    if (it == m_workloads.end())
        return makeError(ErrorCode::NotFound, "workload " + std::to_string(placement.workload) + " does not exist");
    WorkloadRecord& record = it->second;
    const Workload& w = record.workload;
    if (record.placement)
        return makeError(ErrorCode::AlreadyExists, "workload '" + w.name + "' is already placed");
    if (placement.node < 0 || static_cast<std::size_t>(placement.node) >= m_nodes.size())
        return makeError(ErrorCode::NotFound, "node " + std::to_string(placement.node) + " does not exist");
    Node& node = m_nodes[static_cast<std::size_t>(placement.node)];

    // Validate everything first so that a refused bind changes nothing.
    if (!node.free.fits(w.requests))
        return makeError(
            ErrorCode::CapacityExceeded, nodeContext(node) + " lacks CPU, memory or bandwidth for '" + w.name + "'");
    std::int64_t acceleratorShare = 0;
    for (std::size_t i = 0; i < placement.shares.size(); ++i) {
        const DeviceShare& s = placement.shares[i];
        if (s.device < 0 || static_cast<std::size_t>(s.device) >= node.devices.size())
            return makeError(ErrorCode::NotFound, nodeContext(node) + " has no device " + std::to_string(s.device));
        for (std::size_t j = 0; j < i; ++j)
            if (placement.shares[j].device == s.device)
                return makeError(ErrorCode::InvalidArgument, "device " + std::to_string(s.device) + " named twice");
        const Device& d = node.devices[static_cast<std::size_t>(s.device)];
        if (s.share < 0 || s.memoryMiB < 0 || d.shareFree < s.share || d.memoryFreeMiB < s.memoryMiB)
            return makeError(ErrorCode::CapacityExceeded,
                nodeContext(node) + " device " + std::to_string(s.device) + " lacks share for '" + w.name + "'");
        acceleratorShare += s.share;
    }
    // The shares must be what the workload asks for (whole devices for a multi-device request, one device's
    // fraction otherwise, of the requested kind and an allowed model), or a placement chosen outside the scheduler
    // could run a GPU workload without its GPU or take half of a multi-device request.
    const AcceleratorRequest& a = w.accelerators;
    if (placement.shares.size() != static_cast<std::size_t>(a.any() ? a.count : 0))
        return makeError(ErrorCode::InvalidArgument,
            "placement of '" + w.name + "' names " + std::to_string(placement.shares.size()) + " devices; it asks for "
                + std::to_string(a.any() ? a.count : 0));
    for (const DeviceShare& s : placement.shares) {
        const Device& d = node.devices[static_cast<std::size_t>(s.device)];
        if (d.kind != a.kind || !a.allows(d.model) || s.share != a.shareOn(d.shareCapacity)
            || s.memoryMiB < a.memoryMiBPerDevice)
            return makeError(ErrorCode::InvalidArgument,
                nodeContext(node) + " device " + std::to_string(s.device) + " does not match the request of '" + w.name
                    + "'");
    }
    const AcceleratorKind kind = placement.shares.empty()
        ? AcceleratorKind::None
        : node.devices[static_cast<std::size_t>(placement.shares[0].device)].kind;
    if (w.pool != kNoPool) {
        if (w.pool < 0 || static_cast<std::size_t>(w.pool) >= m_pools.size())
            return makeError(ErrorCode::NotFound, "pool " + std::to_string(w.pool) + " does not exist");
        const Pool& pool = m_pools[static_cast<std::size_t>(w.pool)];
        if (std::find(node.pools.begin(), node.pools.end(), w.pool) == node.pools.end())
            return makeError(ErrorCode::InvalidArgument, nodeContext(node) + " is not in pool '" + pool.name + "'");
        if (!pool.fits(w.requests, kind, acceleratorShare))
            return makeError(
                ErrorCode::CapacityExceeded, "pool '" + pool.name + "' quota exhausted for '" + w.name + "'");
    }

    node.free -= w.requests;
    for (const DeviceShare& s : placement.shares) {
        Device& d = node.devices[static_cast<std::size_t>(s.device)];
        d.shareFree -= s.share;
        d.memoryFreeMiB -= s.memoryMiB;
    }
    node.residents.push_back(w.id);
    ++node.version;
    if (w.pool != kNoPool) {
        Pool& pool = m_pools[static_cast<std::size_t>(w.pool)];
        pool.used += w.requests;
        pool.acceleratorUsed[static_cast<std::size_t>(kind)] += acceleratorShare;
        ++pool.placed;
    }
    record.placement = placement;
    ++m_placed;
    ++m_version;
    return {};
}

Expected<void> ClusterState::unbind(WorkloadId id)
{
    auto it = m_workloads.find(id);
    if (it == m_workloads.end())
        return makeError(ErrorCode::NotFound, "workload " + std::to_string(id) + " does not exist");
    WorkloadRecord& record = it->second;
    if (!record.placement)
        return makeError(ErrorCode::InvalidArgument, "workload '" + record.workload.name + "' is not placed");
    const Placement& p = *record.placement;
    Node& node = m_nodes[static_cast<std::size_t>(p.node)];
    node.free += record.workload.requests;
    std::int64_t acceleratorShare = 0;
    AcceleratorKind kind = AcceleratorKind::None;
    for (const DeviceShare& s : p.shares) {
        Device& d = node.devices[static_cast<std::size_t>(s.device)];
        d.shareFree += s.share;
        d.memoryFreeMiB += s.memoryMiB;
        acceleratorShare += s.share;
        kind = d.kind;
    }
    auto r = std::find(node.residents.begin(), node.residents.end(), id);
    if (r != node.residents.end())
        node.residents.erase(r);
    ++node.version;
    if (record.workload.pool != kNoPool) {
        Pool& pool = m_pools[static_cast<std::size_t>(record.workload.pool)];
        pool.used -= record.workload.requests;
        pool.acceleratorUsed[static_cast<std::size_t>(kind)] -= acceleratorShare;
        --pool.placed;
    }
    record.placement.reset();
    --m_placed;
    ++m_version;
    return {};
}

Expected<void> ClusterState::checkInvariants() const
{
    std::vector<Resources> nodeUsed(m_nodes.size());
    std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> deviceUsed(m_nodes.size());
    for (std::size_t i = 0; i < m_nodes.size(); ++i)
        deviceUsed[i].assign(m_nodes[i].devices.size(), { 0, 0 });
    std::vector<Resources> poolUsed(m_pools.size());
    std::vector<std::int64_t> poolPlaced(m_pools.size());
    for (const auto& [id, record] : m_workloads) {
        if (!record.placement)
            continue;
        const Placement& p = *record.placement;
        const auto n = static_cast<std::size_t>(p.node);
        nodeUsed[n] += record.workload.requests;
        for (const DeviceShare& s : p.shares) {
            deviceUsed[n][static_cast<std::size_t>(s.device)].first += s.share;
            deviceUsed[n][static_cast<std::size_t>(s.device)].second += s.memoryMiB;
        }
        if (record.workload.pool != kNoPool) {
            poolUsed[static_cast<std::size_t>(record.workload.pool)] += record.workload.requests;
            ++poolPlaced[static_cast<std::size_t>(record.workload.pool)];
        }
    }
    for (std::size_t i = 0; i < m_nodes.size(); ++i) {
        const Node& node = m_nodes[i];
        if (node.free.anyNegative())
            return makeError(ErrorCode::CapacityExceeded, nodeContext(node) + " is over capacity");
        if (node.capacity - nodeUsed[i] != node.free)
            return makeError(
                ErrorCode::InvalidArgument, nodeContext(node) + " free capacity disagrees with its placements");
        for (std::size_t d = 0; d < node.devices.size(); ++d) {
            const Device& dev = node.devices[d];
            if (dev.shareFree < 0 || dev.memoryFreeMiB < 0)
                return makeError(ErrorCode::CapacityExceeded,
                    nodeContext(node) + " device " + std::to_string(d) + " is over capacity");
            if (dev.shareCapacity - deviceUsed[i][d].first != dev.shareFree
                || dev.memoryMiB - deviceUsed[i][d].second != dev.memoryFreeMiB)
                return makeError(ErrorCode::InvalidArgument,
                    nodeContext(node) + " device " + std::to_string(d) + " free share disagrees with its placements");
        }
    }
    for (std::size_t i = 0; i < m_pools.size(); ++i) {
        const Pool& pool = m_pools[i];
        if (pool.used != poolUsed[i] || pool.placed != poolPlaced[i])
            return makeError(ErrorCode::InvalidArgument, "pool '" + pool.name + "' usage disagrees with its workloads");
        if (!pool.quota.fits(pool.used))
            return makeError(ErrorCode::CapacityExceeded, "pool '" + pool.name + "' is over quota");
        for (int k = 0; k < kAcceleratorKindCount; ++k)
            if (pool.acceleratorUsed[static_cast<std::size_t>(k)] > pool.acceleratorQuota[static_cast<std::size_t>(k)])
                return makeError(ErrorCode::CapacityExceeded, "pool '" + pool.name + "' is over its accelerator quota");
    }
    return {};
}

} // namespace tidepool
