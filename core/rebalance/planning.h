#pragma once
// What the planners share: a scheduler of their own over a copy of the cluster, so that every move they plan is
// checked by the same filters that place work for real (tier, pool, ISA, CPU, memory, accelerator model), without
// touching the live scheduler's state.
//
// Thread affinity: none; the scheduler belongs to the caller, as does the copy it borrows.

#include "core/sched/scheduler.h"

#include <memory>
#include <string>

namespace tidepool::rebalance {

// The error names an unknown profile.
Expected<std::unique_ptr<Scheduler>> planningScheduler(
    ClusterState& copy, const PolicyRegistry& registry, const std::string& profile = "default");

} // namespace tidepool::rebalance
