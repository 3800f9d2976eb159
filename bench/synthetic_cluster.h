#pragma once
// A synthetic heterogeneous cluster and workload stream for the placement benchmark. Shapes follow the openb
// node and pod lists (GPU servers with 2/4/8 GPUs of several models, fractional and whole-GPU pods, CPU-only
// pods) and the fleet specs in ../shared/data/fleets, extended with NPU and FPGA nodes, aarch64 and riscv64
// servers, business-line pools and hot/warm/cold tiers. Nothing is read from disk: the benchmark must run
// anywhere, and the same seed always builds the same cluster and stream.

#include "core/model/cluster.h"

#include <cstdint>
#include <random>
#include <vector>

namespace tidepool::bench {

struct SyntheticCluster {
    std::vector<ModelId> gpuModels; // every GPU model in the cluster
    std::vector<PoolId> pools; // business-line pools
    std::vector<double> poolWeights; // CPU of each pool's nodes, so that demand follows capacity
    std::int64_t cpuMillisTotal = 0;
    std::int64_t gpuShareTotal = 0; // milli-GPUs over every GPU
};

// Adds `nodeCount` nodes and the pools to an empty `cluster`.
SyntheticCluster buildSyntheticCluster(ClusterState& cluster, std::int32_t nodeCount, std::uint64_t seed);

// Draws workloads from a fixed mix: fractional, whole and multi-GPU pods, NPU and FPGA work, CPU-only services
// and batch, some of it aarch64- or riscv64-native with translation allowed.
class WorkloadGenerator {
public:
    WorkloadGenerator(const ClusterState& cluster, const SyntheticCluster& synthetic, std::uint64_t seed);
    Workload next(WorkloadId id);
    // A sample of the mix, for policies that learn typical pod shapes from it.
    std::vector<Workload> sample(std::size_t count);

private:
    std::mt19937_64 m_rng;
    const SyntheticCluster& m_synthetic;
    ModelId m_npuModel = kNoModel;
    ModelId m_fpgaModel = kNoModel;
    std::vector<ModelId> m_bigGpuModels; // models that large training jobs may ask for
    std::vector<ModelId> m_smallGpuModels; // inference-class models
};

} // namespace tidepool::bench
