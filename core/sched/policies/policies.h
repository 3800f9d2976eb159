#pragma once
// Factories of the built-in policies, one per file in this folder; registered in `core/sched/registry.cpp`.

#include "core/sched/policy.h"

namespace tidepool {

// (one factory declaration per policy file)

} // namespace tidepool
