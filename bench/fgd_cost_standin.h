#pragma once
// A stand-in for the cost of Tidepool's fragmentation-aware `tidepool` policy, for the benchmark only, until the
// real policy exists. It computes an FGD-style fragmentation score (Weng et al., ATC 2023) over up to 35 typical
// pod shapes and every GPU of a candidate node, so the benchmark pays roughly what the real policy will. It is
// registered as "bench-fgd-cost" in the benchmark's own registry, never in the core's, and never as "tidepool".

#include "core/sched/policy.h"

#include <memory>

namespace tidepool::bench {

std::unique_ptr<Policy> makeFgdCostStandIn(const PolicyOptions& options);

} // namespace tidepool::bench
