#include "core/rebalance/planning.h"

namespace tidepool::rebalance {

Expected<std::unique_ptr<Scheduler>> planningScheduler(
    ClusterState& copy, const PolicyRegistry& registry, const std::string& profileName)
{
    auto profile = builtinProfile(profileName, registry);
    if (!profile)
        return makeError(ErrorCode::InvalidArgument, "profile \"" + profileName + "\" is not known");
    return Scheduler::create(copy, std::move(*profile), registry, PolicyOptions {});
}

} // namespace tidepool::rebalance
