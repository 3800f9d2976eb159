#pragma once
// The fragmentation-gradient family of policies: score a placement by how little it raises the node's
// fragmentation (`FragmentationModel`), through FGD's integer sigmoid score. `fgd` is the paper's method as
// published; `tidepool` is the same machinery with the refinements its settings name.

#include "core/sched/policy.h"

#include <limits>
#include <string_view>

namespace tidepool {

struct GradientSettings {
    std::string_view name;
    // Typical shapes cover this share of the mix (FGD: 0.95).
    double coverage = 0.95;
    // ... but no more than this many shapes (FGD: no limit).
    std::size_t maxShapes = std::numeric_limits<std::size_t>::max();
    // < 0: memory is not part of a shape (FGD); otherwise the quantile of each shape's memory requests it needs.
    double memoryQuantile = -1;
    // `FragmentationModel::setHostLimitWeight` (FGD: 0).
    double hostLimitWeight = 0;
    // The fragmentation change that moves the sigmoid by one unit, in devices (FGD: 1). Larger values make the
    // integer score coarser, so that more near-equal choices tie and fall to the scheduler's fixed node order,
    // which consolidates.
    double scoreUnitDevices = 1.0;
};

std::unique_ptr<Policy> makeFragmentationGradientPolicy(const PolicyOptions& options, const GradientSettings& settings);

} // namespace tidepool
