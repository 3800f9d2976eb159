// The one place where built-in policies are registered by name, and the built-in profiles.

#include "core/sched/policies/policies.h"
#include "core/sched/policy.h"

namespace tidepool {

PolicyRegistry PolicyRegistry::withBuiltins()
{
    PolicyRegistry r;
    // The openb paper's baselines (Weng et al., USENIX ATC 2023) and Tidepool's fragmentation-aware default.
    // (openb policies: one line each below)
    r.add("random", makeRandomPolicy);
    r.add("dotprod", makeDotProdPolicy);
    r.add("gpu-clustering", makeGpuClusteringPolicy);
    r.add("gpu-packing", makeGpuPackingPolicy);
    r.add("best-fit", makeBestFitPolicy);
    r.add("fgd", makeFgdPolicy);
    r.add("tidepool", makeTidepoolPolicy);
    // Live-system policies.
    // (live policies: one line each below)
    r.add("spread", makeSpreadPolicy);
    r.add("energy", makeEnergyPolicy);
    r.add("tier", makeTierPolicy);
    r.add("cross-isa", makeCrossIsaPolicy);
    r.add("priority", makePriorityPolicy);
    return r;
}

void PolicyRegistry::add(std::string name, PolicyFactory factory)
{
    m_factories[std::move(name)] = std::move(factory);
}

std::unique_ptr<Policy> PolicyRegistry::make(std::string_view name, const PolicyOptions& options) const
{
    auto it = m_factories.find(name);
    return it == m_factories.end() ? nullptr : it->second(options);
}

std::vector<std::string> PolicyRegistry::names() const
{
    std::vector<std::string> out;
    for (const auto& [name, factory] : m_factories)
        out.push_back(name);
    return out;
}

std::optional<Profile> builtinProfile(std::string_view name, const PolicyRegistry& registry)
{
    if (name == "default") {
        // The live system: fragmentation-aware packing first, then tiers, translation cost and energy; with
        // preemption of strictly lower priorities.
        return Profile { "default",
            { { "tidepool", 1.0 }, { "tier", 0.5 }, { "cross-isa", 0.5 }, { "energy", 0.2 }, { "priority", 0.1 } },
            true };
    }
    for (const std::string& policy : registry.names())
        if (policy == name)
            return Profile { std::string(name), { { policy, 1.0 } }, policy == "priority" };
    return std::nullopt;
}

} // namespace tidepool
