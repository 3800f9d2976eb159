#pragma once
// Factories of the built-in policies, one per file in this folder; registered in `core/sched/registry.cpp`.

#include "core/sched/policy.h"

namespace tidepool {

// (one factory declaration per policy file)
// The openb paper's baselines (Weng et al., USENIX ATC 2023).
std::unique_ptr<Policy> makeRandomPolicy(const PolicyOptions& options);
std::unique_ptr<Policy> makeDotProdPolicy(const PolicyOptions& options);
std::unique_ptr<Policy> makeGpuClusteringPolicy(const PolicyOptions& options);
std::unique_ptr<Policy> makeGpuPackingPolicy(const PolicyOptions& options);
std::unique_ptr<Policy> makeBestFitPolicy(const PolicyOptions& options);
std::unique_ptr<Policy> makeFgdPolicy(const PolicyOptions& options);
// Tidepool's own fragmentation-aware default.
std::unique_ptr<Policy> makeTidepoolPolicy(const PolicyOptions& options);
// Live-system policies.
std::unique_ptr<Policy> makeSpreadPolicy(const PolicyOptions& options);
std::unique_ptr<Policy> makeEnergyPolicy(const PolicyOptions& options);
std::unique_ptr<Policy> makeTierPolicy(const PolicyOptions& options);
std::unique_ptr<Policy> makeCrossIsaPolicy(const PolicyOptions& options);
std::unique_ptr<Policy> makePriorityPolicy(const PolicyOptions& options);

} // namespace tidepool
