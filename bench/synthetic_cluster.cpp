#include "bench/synthetic_cluster.h"

#include <algorithm>
#include <array>
#include <string>

namespace tidepool::bench {

namespace {

constexpr std::int64_t kGiB = 1024;

// One kind of server, with its share of the fleet. GPU shapes are the common openb ones (8×G2, 2×T4, 8×G3,
// 8×V100M32, 4×V100M16, 2×P100); CPU shapes follow the PAI and spot fleet specs.
struct NodeShape {
    double weight;
    Isa isa;
    Tier tier;
    AcceleratorKind kind;
    const char* model;
    std::int32_t devices;
    std::int32_t shareCapacity;
    std::int64_t deviceMemoryMiB;
    std::int64_t cpuMillis;
    std::int64_t memoryMiB;
    double idleWatts;
    double peakWatts;
    double acceleratorWatts;
};

constexpr std::array kShapes {
    NodeShape {
        26, Isa::X86_64, Tier::Hot, AcceleratorKind::Gpu, "G2", 8, 1000, 32 * kGiB, 96000, 393216, 350, 900, 300 },
    NodeShape {
        16, Isa::X86_64, Tier::Hot, AcceleratorKind::Gpu, "T4", 2, 1000, 16 * kGiB, 104000, 524288, 300, 800, 70 },
    NodeShape {
        3, Isa::X86_64, Tier::Hot, AcceleratorKind::Gpu, "G3", 8, 1000, 80 * kGiB, 128000, 786432, 450, 1200, 400 },
    NodeShape { 2, Isa::X86_64, Tier::Warm, AcceleratorKind::Gpu, "V100M32", 8, 1000, 32 * kGiB, 96000, 786432, 400,
        1000, 300 },
    NodeShape {
        2, Isa::X86_64, Tier::Warm, AcceleratorKind::Gpu, "V100M16", 4, 1000, 16 * kGiB, 32000, 131072, 200, 500, 250 },
    NodeShape {
        2, Isa::X86_64, Tier::Warm, AcceleratorKind::Gpu, "T4", 4, 1000, 16 * kGiB, 96000, 393216, 300, 800, 70 },
    NodeShape {
        5, Isa::X86_64, Tier::Cold, AcceleratorKind::Gpu, "P100", 2, 1000, 16 * kGiB, 16000, 122880, 150, 400, 250 },
    NodeShape {
        2, Isa::Aarch64, Tier::Hot, AcceleratorKind::Gpu, "A10", 4, 1000, 24 * kGiB, 72000, 491520, 200, 600, 150 },
    NodeShape { 4, Isa::Aarch64, Tier::Hot, AcceleratorKind::Npu, "Ascend910", 8, 32, 64 * kGiB, 192000, 1572864, 400,
        1100, 310 },
    NodeShape {
        2, Isa::X86_64, Tier::Warm, AcceleratorKind::Fpga, "VU9P", 2, 8, 64 * kGiB, 64000, 262144, 200, 500, 75 },
    NodeShape { 14, Isa::X86_64, Tier::Warm, AcceleratorKind::None, "", 0, 0, 0, 96000, 393216, 180, 450, 0 },
    NodeShape { 6, Isa::X86_64, Tier::Warm, AcceleratorKind::None, "", 0, 0, 0, 64000, 262144, 150, 380, 0 },
    NodeShape { 4, Isa::X86_64, Tier::Cold, AcceleratorKind::None, "", 0, 0, 0, 32000, 131072, 90, 250, 0 },
    NodeShape { 7, Isa::Aarch64, Tier::Cold, AcceleratorKind::None, "", 0, 0, 0, 128000, 524288, 100, 300, 0 },
    NodeShape { 3, Isa::Aarch64, Tier::Warm, AcceleratorKind::None, "", 0, 0, 0, 80000, 262144, 80, 250, 0 },
    NodeShape { 2, Isa::Riscv64, Tier::Cold, AcceleratorKind::None, "", 0, 0, 0, 64000, 131072, 40, 120, 0 },
};

struct PoolShape {
    const char* name;
    const char* businessLine;
    Tier tier;
    double weight;
};

constexpr std::array kPools {
    PoolShape { "search-online", "search", Tier::Hot, 0.20 },
    PoolShape { "ads-ranking", "ads", Tier::Hot, 0.15 },
    PoolShape { "recommendation", "recommendation", Tier::Warm, 0.20 },
    PoolShape { "video-transcode", "video", Tier::Warm, 0.10 },
    PoolShape { "ml-training", "ml-platform", Tier::Cold, 0.25 },
    PoolShape { "platform-shared", "platform", Tier::Warm, 0.10 },
};
constexpr std::size_t kSharedPool = kPools.size() - 1;

template <typename T, std::size_t N> const T& pickWeighted(std::mt19937_64& rng, const std::array<T, N>& items)
{
    double total = 0;
    for (const T& item : items)
        total += item.weight;
    double x = std::uniform_real_distribution<double>(0, total)(rng);
    for (const T& item : items) {
        if (x < item.weight)
            return item;
        x -= item.weight;
    }
    return items.back();
}

bool chance(std::mt19937_64& rng, double p)
{
    return std::uniform_real_distribution<double>(0, 1)(rng) < p;
}

std::int64_t uniformStep(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi, std::int64_t step)
{
    return lo + step * std::uniform_int_distribution<std::int64_t>(0, (hi - lo) / step)(rng);
}

} // namespace

SyntheticCluster buildSyntheticCluster(ClusterState& cluster, std::int32_t nodeCount, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    SyntheticCluster out;
    std::vector<std::vector<NodeId>> members(kPools.size());
    std::vector<std::int64_t> poolCpu(kPools.size(), 0);

    for (std::int32_t i = 0; i < nodeCount; ++i) {
        const NodeShape& s = pickWeighted(rng, kShapes);
        Node node;
        node.name = std::string("node-").append(std::to_string(i));
        node.isa = s.isa;
        node.tier = s.tier;
        node.capacity = { s.cpuMillis, s.memoryMiB, s.cpuMillis * 2, 25000 };
        node.power = { s.idleWatts, s.peakWatts, s.acceleratorWatts };
        node.carbonRegion = i % 3 == 0 ? "cn-north" : i % 3 == 1 ? "cn-east" : "eu-west";
        node.labels = { { "zone", std::string("z").append(std::to_string(i % 4)) } };
        if (s.kind != AcceleratorKind::None) {
            const ModelId model = cluster.internModel(s.model);
            if (s.kind == AcceleratorKind::Gpu
                && std::find(out.gpuModels.begin(), out.gpuModels.end(), model) == out.gpuModels.end())
                out.gpuModels.push_back(model);
            for (std::int32_t d = 0; d < s.devices; ++d)
                node.devices.push_back(
                    Device { s.kind, model, s.shareCapacity, s.shareCapacity, s.deviceMemoryMiB, s.deviceMemoryMiB });
            if (s.kind == AcceleratorKind::Gpu)
                out.gpuShareTotal += std::int64_t { s.devices } * s.shareCapacity;
        }
        // A few hot servers are held back for a forecast peak and a few are cordoned, as in a live fleet.
        node.peakReserved = s.tier == Tier::Hot && chance(rng, 0.05);
        node.schedulable = !chance(rng, 0.005);
        out.cpuMillisTotal += s.cpuMillis;
        const NodeId id = cluster.addNode(std::move(node));

        const auto pool = static_cast<std::size_t>(&pickWeighted(rng, kPools) - kPools.data());
        members[pool].push_back(id);
        poolCpu[pool] += s.cpuMillis;
        // Some servers are lent to the shared platform pool as well as their own business line.
        if (pool != kSharedPool && chance(rng, 0.08)) {
            members[kSharedPool].push_back(id);
            poolCpu[kSharedPool] += s.cpuMillis;
        }
    }

    for (std::size_t p = 0; p < kPools.size(); ++p) {
        Pool pool;
        pool.name = kPools[p].name;
        pool.businessLine = kPools[p].businessLine;
        pool.tier = kPools[p].tier;
        // Quotas are set near the pool's share of the hardware, so they bind only when a pool runs hot.
        pool.quota.cpuMillis = poolCpu[p] * 95 / 100;
        const PoolId id = cluster.addPool(std::move(pool));
        out.pools.push_back(id);
        out.poolWeights.push_back(static_cast<double>(poolCpu[p]));
        for (NodeId n : members[p])
            (void)cluster.attach(id, n);
    }
    return out;
}

WorkloadGenerator::WorkloadGenerator(const ClusterState& cluster, const SyntheticCluster& synthetic, std::uint64_t seed)
    : m_rng(seed)
    , m_synthetic(synthetic)
{
    m_npuModel = cluster.findModel("Ascend910").value_or(kNoModel);
    m_fpgaModel = cluster.findModel("VU9P").value_or(kNoModel);
    for (const char* name : { "G3", "V100M32", "G2" })
        if (auto m = cluster.findModel(name))
            m_bigGpuModels.push_back(*m);
    for (const char* name : { "T4", "A10", "P100" })
        if (auto m = cluster.findModel(name))
            m_smallGpuModels.push_back(*m);
}

Workload WorkloadGenerator::next(WorkloadId id)
{
    struct Kind {
        double weight;
        int kind;
    };
    enum { FracGpu, WholeGpu, MultiGpu, Npu, Fpga, CpuService, CpuBatchArm, CpuBatchAny, CpuBatchRiscv };
    static constexpr std::array kMix { Kind { 30, FracGpu }, Kind { 28, WholeGpu }, Kind { 4, MultiGpu },
        Kind { 4, Npu }, Kind { 2, Fpga }, Kind { 70, CpuService }, Kind { 35, CpuBatchArm }, Kind { 30, CpuBatchAny },
        Kind { 6, CpuBatchRiscv } };
    // Fractional GPU shares in milli-GPUs, weighted like the openb default trace's histogram.
    static constexpr std::array<std::int32_t, 9> kShares { 100, 200, 250, 300, 400, 500, 600, 750, 800 };
    static constexpr std::array<double, 9> kShareWeights { 3, 7, 5, 10, 25, 8, 8, 4, 30 };

    Workload w;
    w.id = id;
    w.name = std::string("w").append(std::to_string(id));
    auto& rng = m_rng;
    const bool pooled = chance(rng, 0.75);
    const auto& weights = m_synthetic.poolWeights;
    w.pool = pooled ? m_synthetic.pools[std::discrete_distribution<std::size_t>(weights.begin(), weights.end())(rng)]
                    : kNoPool;
    w.requests.memBandwidthMBps = uniformStep(rng, 500, 4000, 500);
    w.requests.netBandwidthMbps = uniformStep(rng, 100, 1000, 100);
    auto batchOrRealTime = [&](double realTime) {
        if (chance(rng, realTime)) {
            w.latency = LatencyClass::RealTime;
            w.priority = static_cast<std::int32_t>(uniformStep(rng, 700, 900, 100));
        } else {
            w.latency = LatencyClass::Batch;
            w.priority = static_cast<std::int32_t>(uniformStep(rng, 0, 200, 100));
        }
    };

    switch (pickWeighted(rng, kMix).kind) {
    case FracGpu: {
        const std::size_t s = std::discrete_distribution<std::size_t>(kShareWeights.begin(), kShareWeights.end())(rng);
        w.accelerators = { AcceleratorKind::Gpu, 1, kShares[s], 0, {} };
        if (chance(rng, 0.10))
            w.accelerators.allowedModels = m_smallGpuModels;
        w.requests.cpuMillis = uniformStep(rng, 2000, 12000, 1000);
        w.requests.memoryMiB = uniformStep(rng, 4, 32, 4) * kGiB;
        w.nativeIsas = isaBit(Isa::X86_64) | isaBit(Isa::Aarch64);
        batchOrRealTime(0.6);
        break;
    }
    case WholeGpu:
        w.accelerators = { AcceleratorKind::Gpu, 1, 0, 0, {} };
        if (chance(rng, 0.15))
            w.accelerators.allowedModels = m_bigGpuModels;
        w.requests.cpuMillis = uniformStep(rng, 4000, 16000, 2000);
        w.requests.memoryMiB = uniformStep(rng, 16, 64, 8) * kGiB;
        w.nativeIsas = isaBit(Isa::X86_64);
        batchOrRealTime(0.3);
        break;
    case MultiGpu: {
        const std::int32_t count = chance(rng, 0.5) ? 2 : chance(rng, 0.6) ? 4 : 8;
        w.accelerators = { AcceleratorKind::Gpu, count, 0, 0, {} };
        if (chance(rng, 0.3))
            w.accelerators.allowedModels = m_bigGpuModels;
        w.requests.cpuMillis = 8000 * count;
        w.requests.memoryMiB = 32 * kGiB * count;
        w.nativeIsas = isaBit(Isa::X86_64);
        batchOrRealTime(0.0);
        break;
    }
    case Npu:
        if (chance(rng, 0.8))
            w.accelerators
                = { AcceleratorKind::Npu, 1, static_cast<std::int32_t>(uniformStep(rng, 4, 32, 4)), 0, { m_npuModel } };
        else
            w.accelerators = { AcceleratorKind::Npu, 2, 0, 0, { m_npuModel } };
        w.requests.cpuMillis = uniformStep(rng, 4000, 16000, 2000);
        w.requests.memoryMiB = uniformStep(rng, 16, 128, 16) * kGiB;
        w.nativeIsas = isaBit(Isa::Aarch64);
        batchOrRealTime(0.5);
        break;
    case Fpga:
        w.accelerators
            = { AcceleratorKind::Fpga, 1, static_cast<std::int32_t>(uniformStep(rng, 1, 4, 1)), 0, { m_fpgaModel } };
        w.requests.cpuMillis = uniformStep(rng, 2000, 8000, 1000);
        w.requests.memoryMiB = uniformStep(rng, 8, 32, 8) * kGiB;
        w.nativeIsas = isaBit(Isa::X86_64);
        w.latency = LatencyClass::LatencySensitive;
        w.priority = 500;
        break;
    case CpuService:
        w.requests.cpuMillis = uniformStep(rng, 1000, 8000, 500);
        w.requests.memoryMiB = uniformStep(rng, 2, 16, 2) * kGiB;
        w.nativeIsas = isaBit(Isa::X86_64);
        w.latency = LatencyClass::LatencySensitive;
        w.priority = 500;
        break;
    case CpuBatchArm:
        w.requests.cpuMillis = uniformStep(rng, 2000, 16000, 2000);
        w.requests.memoryMiB = uniformStep(rng, 4, 32, 4) * kGiB;
        w.nativeIsas = isaBit(Isa::Aarch64);
        w.allowTranslation = true;
        batchOrRealTime(0.0);
        break;
    case CpuBatchAny:
        w.requests.cpuMillis = uniformStep(rng, 1000, 16000, 1000);
        w.requests.memoryMiB = uniformStep(rng, 2, 32, 2) * kGiB;
        batchOrRealTime(0.0);
        break;
    case CpuBatchRiscv:
        w.requests.cpuMillis = uniformStep(rng, 1000, 8000, 1000);
        w.requests.memoryMiB = uniformStep(rng, 2, 16, 2) * kGiB;
        w.nativeIsas = isaBit(Isa::Riscv64);
        w.allowTranslation = true;
        batchOrRealTime(0.0);
        break;
    }
    return w;
}

std::vector<Workload> WorkloadGenerator::sample(std::size_t count)
{
    std::vector<Workload> out;
    out.reserve(count);
    for (std::size_t i = 0; i < count; ++i)
        out.push_back(next(-static_cast<WorkloadId>(i) - 1));
    return out;
}

} // namespace tidepool::bench
