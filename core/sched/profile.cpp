// Profile validation and the checked way to build a `Scheduler`. The constructor skips policy names the registry
// does not know (so a profile can name a policy before it exists); configuration and command lines go through
// `Scheduler::create`, which reports them instead, so that a typo does not silently change placements.

#include "core/sched/scheduler.h"

#include <algorithm>
#include <cmath>

namespace tidepool {

Expected<void> validateProfile(const Profile& profile, const PolicyRegistry& registry)
{
    if (profile.entries.empty())
        return makeError(ErrorCode::InvalidArgument, "profile '" + profile.name + "' names no policy");
    const std::vector<std::string> known = registry.names();
    for (const ProfileEntry& e : profile.entries) {
        if (std::find(known.begin(), known.end(), e.policy) == known.end())
            return makeError(ErrorCode::NotFound, "profile '" + profile.name + "': unknown policy '" + e.policy + "'");
        if (!std::isfinite(e.weight) || e.weight < 0)
            return makeError(ErrorCode::InvalidArgument,
                "profile '" + profile.name + "': policy '" + e.policy + "' has weight " + std::to_string(e.weight));
    }
    return {};
}

Expected<std::unique_ptr<Scheduler>> Scheduler::create(ClusterState& cluster, Profile profile,
    const PolicyRegistry& registry, PolicyOptions options, SchedulerConfig config)
{
    if (auto valid = validateProfile(profile, registry); !valid)
        return tl::unexpected(valid.error());
    if (!config.tieRank.empty() && config.tieRank.size() != cluster.nodes().size())
        return makeError(ErrorCode::InvalidArgument,
            "tie rank has " + std::to_string(config.tieRank.size()) + " entries for "
                + std::to_string(cluster.nodes().size()) + " nodes");
    return std::make_unique<Scheduler>(cluster, std::move(profile), registry, std::move(options), std::move(config));
}

} // namespace tidepool
