#include "ui/bridge/workload_snapshot.h"

#include "core/api/control_plane.h"

#include <algorithm>
#include <map>
#include <set>

namespace tidepool::ui {

namespace {

// What one unit of request on a node stands for in measured use there: the node's measured use over what its
// workloads request. Negative: not measured (its agent has not reported yet).
struct NodeUse {
    double cpuPerMilli = -1.0;
    double memoryPerMiB = -1.0;
    std::vector<double> busyPerShare; // by device: devices busy per share unit allocated on it
};

NodeUse measure(const Node& node, const api::LiveNode& live)
{
    NodeUse use;
    if (live.heartbeats == 0)
        return use;
    const std::int64_t cpuAllocated = node.capacity.cpuMillis - node.free.cpuMillis;
    const std::int64_t memoryAllocated = node.capacity.memoryMiB - node.free.memoryMiB;
    use.cpuPerMilli = cpuAllocated > 0
        ? live.cpuUtilisation * static_cast<double>(node.capacity.cpuMillis) / static_cast<double>(cpuAllocated)
        : 0.0;
    use.memoryPerMiB
        = memoryAllocated > 0 ? static_cast<double>(live.memoryUsedMiB) / static_cast<double>(memoryAllocated) : 0.0;
    use.busyPerShare.assign(node.devices.size(), 0.0);
    for (const protocol::DeviceSample& sample : live.devices) {
        if (sample.index < 0 || static_cast<std::size_t>(sample.index) >= node.devices.size())
            continue;
        const Device& device = node.devices[static_cast<std::size_t>(sample.index)];
        const std::int32_t allocated = device.shareCapacity - device.shareFree;
        use.busyPerShare[static_cast<std::size_t>(sample.index)]
            = allocated > 0 ? sample.utilisation / static_cast<double>(allocated) : 0.0;
    }
    return use;
}

bool placed(api::WorkloadPhase phase)
{
    return phase == api::WorkloadPhase::Launching || phase == api::WorkloadPhase::Running
        || phase == api::WorkloadPhase::Stopping;
}

std::int64_t limitOrUnlimited(std::int64_t limit)
{
    return limit >= kUnlimited ? -1 : limit;
}

WorkloadRow workloadRow(const api::ControlPlane& plane, const api::LiveWorkload& w, const std::vector<NodeUse>& uses)
{
    const Workload& spec = w.workload;
    WorkloadRow row;
    row.id = spec.id;
    row.name = spec.name;
    row.poolId = spec.pool;
    row.pool = w.poolName;
    row.phase = std::string(api::toString(w.phase));
    row.latency = std::string(toString(spec.latency));
    row.homeTier = std::string(toString(spec.tier()));
    row.priority = spec.priority;
    row.translated = w.translated;
    row.cpuMillis = spec.requests.cpuMillis;
    row.memoryMiB = spec.requests.memoryMiB;
    row.memBandwidthMBps = spec.requests.memBandwidthMBps;
    row.netBandwidthMbps = spec.requests.netBandwidthMbps;
    if (spec.accelerators.any())
        row.acceleratorKind = std::string(toString(spec.accelerators.kind));
    row.detail = w.detail;
    row.restarts = w.restarts;
    row.restart = std::string(api::toString(w.restart));
    row.maxRestarts = w.maxRestarts;
    row.maxRuntimeMs = w.maxRuntimeMs;
    row.cpuLimitMillis = w.cpuLimitMillis;
    row.memoryLimitMiB = w.memoryLimitMiB;
    row.tier = row.homeTier;
    if (!placed(w.phase) || w.node == kNoNode)
        return row;
    const Node& node = plane.cluster().node(w.node);
    row.nodeId = w.node;
    row.node = node.name;
    row.tier = std::string(toString(node.tier));
    const NodeUse& use = uses[static_cast<std::size_t>(w.node)];
    double busy = 0.0;
    for (const DeviceShare& share : w.devices) {
        if (share.device < 0 || static_cast<std::size_t>(share.device) >= node.devices.size())
            continue;
        const Device& device = node.devices[static_cast<std::size_t>(share.device)];
        if (device.shareCapacity > 0)
            row.accelerators += static_cast<double>(share.share) / static_cast<double>(device.shareCapacity);
        if (static_cast<std::size_t>(share.device) < use.busyPerShare.size())
            busy += static_cast<double>(share.share) * use.busyPerShare[static_cast<std::size_t>(share.device)];
    }
    if (use.cpuPerMilli >= 0) {
        row.cpuUsedMillis = static_cast<std::int64_t>(use.cpuPerMilli * static_cast<double>(row.cpuMillis) + 0.5);
        row.memoryUsedMiB = static_cast<std::int64_t>(use.memoryPerMiB * static_cast<double>(row.memoryMiB) + 0.5);
        row.acceleratorsUsed = busy;
    }
    // Its own cgroup's figures where its agent measures them (its node is connected: a lost node's workloads move).
    if (w.measured.atMs > 0 && (w.phase == api::WorkloadPhase::Running || w.phase == api::WorkloadPhase::Stopping)
        && !plane.nodes()[static_cast<std::size_t>(w.node)].sessionId.empty()) {
        row.cpuUsedMillis = w.measured.cpuMillis;
        row.memoryUsedMiB = w.measured.memoryMiB;
        row.usedMeasured = true;
        row.measuredSinceMs = w.measured.sinceMs;
        row.cpuP90Millis = w.cpuP90Millis;
        row.peakCpuMillis = w.measured.peakCpuMillis;
        row.peakMemoryMiB = w.measured.peakMemoryMiB;
    }
    return row;
}

} // namespace

void applyPoolMeasurements(std::vector<WorkloadRow>& rows, const PoolMeasurements& measured)
{
    if (measured.empty())
        return;
    struct Requests {
        std::int64_t cpuMillis = 0, memoryMiB = 0, netMbps = 0;
        std::size_t rows = 0; // those the pool's measurement is split among
        std::int64_t ownCpuMillis = 0, ownMemoryMiB = 0; // what the rows measured on their own used of it
    };
    std::map<std::pair<std::string, std::string>, Requests> requested;
    std::set<std::string> measuringNodes; // nodes whose agent measured some pool: a pool missing there used nothing
    std::set<std::string> shapingNodes; // and of those, the ones whose agent measured a pool's traffic
    for (const auto& [nodePool, use] : measured) {
        measuringNodes.insert(nodePool.first);
        if (use.netMbps >= 0.0)
            shapingNodes.insert(nodePool.first);
    }
    const auto measuredRow = [&](const WorkloadRow& w) {
        return w.nodeId >= 0 && w.phase != "pending" ? measured.find({ w.node, w.pool }) : measured.end();
    };
    for (const WorkloadRow& w : rows)
        if (const auto it = measuredRow(w); it != measured.end()) {
            Requests& r = requested[it->first];
            r.netMbps += w.netBandwidthMbps;
            if (w.usedMeasured) {
                r.ownCpuMillis += w.cpuUsedMillis;
                r.ownMemoryMiB += w.memoryUsedMiB;
                continue;
            }
            r.cpuMillis += w.cpuMillis;
            r.memoryMiB += w.memoryMiB;
            ++r.rows;
        }
    const auto fractionOf = [](std::int64_t mine, std::int64_t sum, std::size_t count) {
        return sum > 0 ? static_cast<double>(mine) / static_cast<double>(sum) : 1.0 / static_cast<double>(count);
    };
    const auto shareOf = [&](std::int64_t total, std::int64_t mine, std::int64_t sum, std::size_t count) {
        return static_cast<std::int64_t>(static_cast<double>(total) * fractionOf(mine, sum, count) + 0.5);
    };
    for (WorkloadRow& w : rows)
        if (const auto it = measuredRow(w); it != measured.end()) {
            const Requests& r = requested[it->first];
            // A row measured on its own keeps its figures; the others share what is left of the pool's.
            if (!w.usedMeasured) {
                w.cpuUsedMillis = shareOf(
                    std::max<std::int64_t>(0, it->second.cpuMillis - r.ownCpuMillis), w.cpuMillis, r.cpuMillis, r.rows);
                w.memoryUsedMiB = shareOf(
                    std::max<std::int64_t>(0, it->second.memoryMiB - r.ownMemoryMiB), w.memoryMiB, r.memoryMiB, r.rows);
            }
            if (it->second.netMbps >= 0.0)
                w.netUsedMbps = it->second.netMbps * fractionOf(w.netBandwidthMbps, r.netMbps, r.rows);
            else if (shapingNodes.count(w.node))
                w.netUsedMbps = 0.0; // its class was made since the previous sample: nothing sent yet
        } else if (w.nodeId >= 0 && w.phase != "pending" && measuringNodes.count(w.node) && !w.usedMeasured) {
            w.cpuUsedMillis = 0; // its agent leaves out the pools that used nothing
            w.memoryUsedMiB = 0;
            if (shapingNodes.count(w.node))
                w.netUsedMbps = 0.0;
        }
}

void addToFootprint(PoolNodeRow& to, const WorkloadRow& w, std::size_t row)
{
    to.workloadRows.push_back(static_cast<std::int32_t>(row));
    ++to.workloads;
    to.cpuMillis += w.cpuMillis;
    to.memoryMiB += w.memoryMiB;
    to.memBandwidthMBps += w.memBandwidthMBps;
    to.netBandwidthMbps += w.netBandwidthMbps;
    to.accelerators += w.accelerators;
    to.cpuUsedMillis += std::max<std::int64_t>(w.cpuUsedMillis, 0);
    to.memoryUsedMiB += std::max<std::int64_t>(w.memoryUsedMiB, 0);
    to.acceleratorsUsed += std::max(w.acceleratorsUsed, 0.0);
    if (w.netUsedMbps >= 0.0)
        to.netUsedMbps = std::max(to.netUsedMbps, 0.0) + w.netUsedMbps;
}

void addToPoolTotals(PoolRow& pool, const PoolNodeRow& onNode)
{
    pool.workloads += onNode.workloads;
    pool.memBandwidthUsedMBps += onNode.memBandwidthMBps;
    pool.netBandwidthUsedMbps += onNode.netBandwidthMbps;
    pool.accelerators += onNode.accelerators;
    pool.cpuMeasuredMillis += onNode.cpuUsedMillis;
    pool.memoryMeasuredMiB += onNode.memoryUsedMiB;
    pool.acceleratorsMeasured += onNode.acceleratorsUsed;
    if (onNode.netUsedMbps >= 0.0)
        pool.netMeasuredMbps = std::max(pool.netMeasuredMbps, 0.0) + onNode.netUsedMbps;
}

void addWorkloads(const api::ControlPlane& plane, ConsoleSnapshot& snapshot)
{
    const ClusterState& cluster = plane.cluster();
    std::vector<NodeUse> uses(cluster.nodes().size());
    for (const api::LiveNode& live : plane.nodes())
        if (live.id != kNoNode && static_cast<std::size_t>(live.id) < uses.size())
            uses[static_cast<std::size_t>(live.id)] = measure(cluster.node(live.id), live);

    // Each pool's footprint by node (kNoNode: its waiting workloads).
    std::vector<std::map<NodeId, PoolNodeRow>> footprint(snapshot.pools.size());
    auto poolIndex = [&snapshot](PoolId id) -> std::ptrdiff_t {
        if (id >= 0 && static_cast<std::size_t>(id) < snapshot.pools.size()
            && snapshot.pools[static_cast<std::size_t>(id)].id == id)
            return id;
        const auto it
            = std::find_if(snapshot.pools.begin(), snapshot.pools.end(), [id](const PoolRow& p) { return p.id == id; });
        return it == snapshot.pools.end() ? -1 : it - snapshot.pools.begin();
    };
    for (const auto& [id, w] : plane.workloads())
        if (w.phase == api::WorkloadPhase::Pending || placed(w.phase))
            snapshot.workloads.push_back(workloadRow(plane, w, uses));
    PoolMeasurements measured;
    for (const api::LiveNode& live : plane.nodes())
        if (live.id != kNoNode && !live.sessionId.empty())
            for (const protocol::PoolUsage& u : live.poolUsage)
                measured[{ cluster.node(live.id).name, u.name }]
                    = MeasuredOnNode { u.cpuMillis, u.memoryMiB, u.netMbps };
    applyPoolMeasurements(snapshot.workloads, measured);
    for (std::size_t r = 0; r < snapshot.workloads.size(); ++r) {
        const WorkloadRow& row = snapshot.workloads[r];
        const std::ptrdiff_t p = poolIndex(row.poolId);
        if (p < 0)
            continue;
        PoolNodeRow& onNode = footprint[static_cast<std::size_t>(p)][row.nodeId < 0 ? kNoNode : row.nodeId];
        addToFootprint(onNode, row, r);
    }

    for (std::size_t p = 0; p < snapshot.pools.size(); ++p) {
        PoolRow& pool = snapshot.pools[p];
        const Pool& spec = cluster.pool(pool.id);
        pool.memBandwidthQuotaMBps = limitOrUnlimited(spec.quota.memBandwidthMBps);
        pool.netBandwidthQuotaMbps = limitOrUnlimited(spec.quota.netBandwidthMbps);
        pool.nodes.clear();
        pool.workloads = 0;
        for (auto& [node, onNode] : footprint[p]) {
            if (node == kNoNode) {
                pool.waiting = onNode.workloads;
            } else {
                const Node& n = cluster.node(node);
                onNode.node = n.name;
                onNode.nodeCpuMillis = n.capacity.cpuMillis;
                onNode.nodeMemoryMiB = n.capacity.memoryMiB;
                addToPoolTotals(pool, onNode);
            }
            pool.nodes.push_back(onNode);
        }
        std::sort(pool.nodes.begin(), pool.nodes.end(),
            [](const PoolNodeRow& a, const PoolNodeRow& b) { return a.node < b.node; });
    }
}

} // namespace tidepool::ui
