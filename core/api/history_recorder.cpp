#include "core/api/history_recorder.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

namespace tidepool::api {

namespace {

bool demanding(WorkloadPhase phase)
{
    return phase == WorkloadPhase::Pending || phase == WorkloadPhase::Launching || phase == WorkloadPhase::Running;
}

struct PoolDemand {
    double cpuMillis = 0.0;
    double memoryMiB = 0.0;
    std::map<std::string, double> milliDevices; // by accelerator kind
};

// Accelerator demand in milli-devices: what a placed workload holds (its shares over each device's capacity), or
// what a pending one asks for (whole devices count 1000 each; a fractional share over the capacity of a device of its
// kind: a GPU's is 1000, an NPU's cores or an FPGA's slots as `shareOfDevice`, by kind, gives them).
double milliDevices(const LiveWorkload& w, const ClusterState& cluster,
    const std::array<double, kAcceleratorKindCount>& shareOfDevice)
{
    const AcceleratorRequest& a = w.workload.accelerators;
    if (!w.devices.empty() && w.node != kNoNode) {
        const Node& node = cluster.node(w.node);
        double total = 0.0;
        for (const DeviceShare& d : w.devices) {
            const auto index = static_cast<std::size_t>(d.device);
            if (index < node.devices.size() && node.devices[index].shareCapacity > 0)
                total += 1000.0 * d.share / node.devices[index].shareCapacity;
        }
        return total;
    }
    if (a.wholeDevices())
        return 1000.0 * a.count;
    const double capacity = a.kind == AcceleratorKind::Gpu ? 1000.0 : shareOfDevice[static_cast<std::size_t>(a.kind)];
    return capacity > 0 ? 1000.0 * a.sharePerDevice / capacity : static_cast<double>(a.sharePerDevice);
}

} // namespace

HistoryRecorder::HistoryRecorder(
    boost::asio::io_context& io, ControlPlane& plane, HistoryConfig config, protocol::LogSink log)
    : m_plane(plane)
    , m_config(config)
    , m_log(std::move(log))
    , m_timer(io)
{
}

void HistoryRecorder::start()
{
    if (!m_plane.persistent() || m_running)
        return;
    m_running = true;
    m_nextMaintenance = Clock::now() + m_config.maintenanceInterval;
    maintain(m_plane.nowMs()); // catch up with what was recorded before a restart
    arm();
}

void HistoryRecorder::stop()
{
    m_running = false;
    m_timer.cancel();
}

void HistoryRecorder::arm()
{
    m_timer.expires_after(m_config.interval);
    m_timer.async_wait([this](const boost::system::error_code& ec) {
        if (ec || !m_running)
            return;
        record(m_plane.nowMs());
        if (Clock::now() >= m_nextMaintenance) {
            maintain(m_plane.nowMs());
            m_nextMaintenance = Clock::now() + m_config.maintenanceInterval;
        }
        arm();
    });
}

void HistoryRecorder::record(std::int64_t nowMs)
{
    const ClusterState& cluster = m_plane.cluster();
    std::vector<store::Sample> samples;

    // Pools: what their workloads ask for now. Every pool gets a sample, idle ones a zero, so that troughs are
    // history too.
    // Tiers likewise, by the tier each workload belongs to: the hot tier's accelerator demand is what lending idle
    // hot accelerators to batch and reclaiming them before a peak are planned on.
    // Placed, beside each demand: what the scope's nodes hold now. A pool's placed workloads (they run on its nodes);
    // a tier's nodes' allocations, whatever tier the work is of (hot accelerators lent to cold batch count as hot).
    // Occupancy is placed over capacity; demand can pass capacity, as it counts work still waiting.
    std::map<std::string, PoolDemand> pools, tiers, poolsPlaced, tiersPlaced;
    for (PoolId id = 0; static_cast<std::size_t>(id) < cluster.pools().size(); ++id) {
        if (cluster.pool(id).removed)
            continue; // a pool created since under its name has the name's series
        pools[cluster.pool(id).name];
        poolsPlaced[cluster.pool(id).name];
    }
    for (const Tier tier : { Tier::Hot, Tier::Warm, Tier::Cold }) {
        tiers[std::string(toString(tier))].milliDevices["gpu"];
        tiersPlaced[std::string(toString(tier))];
    }
    std::array<double, kAcceleratorKindCount> shareOfDevice {}; // the largest device of each kind
    for (const LiveNode& live : m_plane.nodes()) {
        const Node& node = cluster.node(live.id);
        for (const Device& d : node.devices)
            shareOfDevice[static_cast<std::size_t>(d.kind)]
                = std::max(shareOfDevice[static_cast<std::size_t>(d.kind)], static_cast<double>(d.shareCapacity));
        if (node.tier == Tier::Invalid)
            continue;
        PoolDemand& held = tiersPlaced[std::string(toString(node.tier))];
        held.cpuMillis += static_cast<double>(node.capacity.cpuMillis - node.free.cpuMillis);
        held.memoryMiB += static_cast<double>(node.capacity.memoryMiB - node.free.memoryMiB);
        for (const Device& d : node.devices)
            if (d.shareCapacity > 0)
                held.milliDevices[std::string(toString(d.kind))]
                    += 1000.0 * static_cast<double>(d.shareCapacity - d.shareFree) / d.shareCapacity;
    }
    for (const auto& [id, w] : m_plane.workloads()) {
        if (!demanding(w.phase))
            continue;
        const std::string& pool = w.poolName.empty() ? std::string(kDefaultPool) : w.poolName;
        const bool placed = w.node != kNoNode;
        for (PoolDemand* demand :
            { &pools[pool], placed ? &poolsPlaced[pool] : nullptr, &tiers[std::string(toString(w.workload.tier()))] }) {
            if (!demand)
                continue;
            demand->cpuMillis += static_cast<double>(w.workload.requests.cpuMillis);
            demand->memoryMiB += static_cast<double>(w.workload.requests.memoryMiB);
            if (w.workload.accelerators.any())
                demand->milliDevices[std::string(toString(w.workload.accelerators.kind))]
                    += milliDevices(w, cluster, shareOfDevice);
        }
    }
    for (const auto& [scope, suffix, demands] : { std::tuple { "pool", "", &pools }, std::tuple { "tier", "", &tiers },
             std::tuple { "pool", "_placed", &poolsPlaced }, std::tuple { "tier", "_placed", &tiersPlaced } })
        for (const auto& [name, demand] : *demands) {
            const std::string s(suffix);
            samples.push_back(store::Sample { { scope, name, "cpu" + s }, nowMs, demand.cpuMillis });
            samples.push_back(store::Sample { { scope, name, "memory" + s }, nowMs, demand.memoryMiB });
            for (const auto& [kind, milli] : demand.milliDevices)
                samples.push_back(store::Sample { { scope, name, kind + s }, nowMs, milli });
        }

    // Nodes: the mean of the agent's samples per interval bucket, at the bucket's start; pools' measured use likewise,
    // over the nodes that measured it.
    const std::int64_t intervalMs = std::max<std::int64_t>(1, m_config.interval.count());
    struct PoolUse {
        double cpu = 0.0, memory = 0.0, net = 0.0;
        bool netMeasured = false;
    };
    std::map<std::pair<std::string, std::int64_t>, PoolUse> poolUse; // (pool, bucket) → summed over nodes
    for (const auto& [nodeId, received] : m_plane.takeUtilisation()) {
        const Node& node = cluster.node(nodeId);
        const std::string& nodeName = node.name;
        struct PoolBin {
            double cpu = 0.0, memory = 0.0, net = 0.0;
            std::size_t netCount = 0; // samples that measured its egress
        };
        struct Bin {
            double cpu = 0.0, memory = 0.0;
            std::size_t count = 0;
            std::map<std::string, std::pair<double, std::size_t>> devices; // kind → (sum, count)
            std::map<std::string, PoolBin> pools;
        };
        std::map<std::int64_t, Bin> bins;
        for (const protocol::UtilisationSample& s : received) {
            Bin& bin = bins[s.timestampMs / intervalMs * intervalMs];
            bin.cpu += s.cpuUtilisation * static_cast<double>(node.capacity.cpuMillis);
            bin.memory += static_cast<double>(s.memoryUsedMiB);
            ++bin.count;
            for (const protocol::DeviceSample& d : s.devices) {
                const auto index = static_cast<std::size_t>(d.index);
                if (index >= node.devices.size())
                    continue;
                auto& [sum, n] = bin.devices[std::string(toString(node.devices[index].kind)) + "_util"];
                sum += d.utilisation;
                ++n;
            }
            for (const protocol::PoolUsage& u : s.pools) {
                PoolBin& pool = bin.pools[u.name];
                pool.cpu += static_cast<double>(u.cpuMillis);
                pool.memory += static_cast<double>(u.memoryMiB);
                if (u.netMbps >= 0.0) {
                    pool.net += u.netMbps;
                    ++pool.netCount;
                }
            }
        }
        for (const auto& [atMs, bin] : bins) {
            const double n = static_cast<double>(bin.count);
            samples.push_back(store::Sample { { "node", nodeName, "cpu" }, atMs, bin.cpu / n });
            samples.push_back(store::Sample { { "node", nodeName, "memory" }, atMs, bin.memory / n });
            for (const auto& [resource, sumCount] : bin.devices)
                samples.push_back(store::Sample { { "node", nodeName, resource }, atMs,
                    sumCount.first / static_cast<double>(sumCount.second) });
            // A pool's use of this node in the bucket: the mean over the node's samples in it (a sample without the
            // pool, before its workloads came or after they went, counts as none), added up over the nodes below.
            for (const auto& [pool, use] : bin.pools) {
                PoolUse& total = poolUse[{ pool, atMs }];
                total.cpu += use.cpu / n;
                total.memory += use.memory / n;
                if (use.netCount > 0) {
                    total.net += use.net / static_cast<double>(use.netCount);
                    total.netMeasured = true;
                }
            }
        }
    }
    for (const auto& [poolAt, use] : poolUse) {
        const auto& [pool, atMs] = poolAt;
        if (!m_plane.poolByName(pool))
            continue; // removed since; its cgroups on the nodes go once empty
        samples.push_back(store::Sample { { "pool", pool, "cpu_used" }, atMs, use.cpu });
        samples.push_back(store::Sample { { "pool", pool, "memory_used" }, atMs, use.memory });
        if (use.netMeasured)
            samples.push_back(store::Sample { { "pool", pool, "net_used" }, atMs, use.net });
    }
    m_plane.persistSamples(samples);
}

void HistoryRecorder::maintain(std::int64_t nowMs)
{
    store::Store* store = m_plane.store();
    if (!store)
        return;
    if (auto done = store->maintain(nowMs, m_config.retention); !done && m_log)
        m_log("history: housekeeping failed, retrying at the next round: " + done.error().message);
}

} // namespace tidepool::api
