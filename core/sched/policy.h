#pragma once
// Scheduling policies are plugins: a small class with `filter`/`score` hooks, registered by name in a
// `PolicyRegistry` and combined with weights in named profiles. Adding one touches one new file under
// `core/sched/policies/` and one registration line in `core/sched/registry.cpp`.
//
// Thread affinity: a policy instance belongs to one `Scheduler` and is called only from the thread that owns it.

#include "core/model/cluster.h"
#include "core/sched/reasons.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool {

inline constexpr double kDefaultTranslationSlowdown = 1.15;

// Slowdown of running code built for `from` on a node of ISA `to` through binary translation (qemu-user).
// Agents measure the factors; until then every pair uses the default.
class SlowdownTable {
public:
    SlowdownTable();
    double factor(Isa from, Isa to) const
    {
        return m_factor[static_cast<std::size_t>(from)][static_cast<std::size_t>(to)];
    }
    void set(Isa from, Isa to, double factor)
    {
        m_factor[static_cast<std::size_t>(from)][static_cast<std::size_t>(to)] = factor;
    }
    // The best (smallest) slowdown for a workload with native ISAs `native` on a node of ISA `to`.
    double bestFactor(IsaMask native, Isa to) const;
    bool operator==(const SlowdownTable&) const = default;

private:
    std::array<std::array<double, kIsaCount>, kIsaCount> m_factor {};
};

// Read-only context handed to every hook of one placement.
struct ScoreContext {
    const ClusterState& cluster;
    const SlowdownTable& slowdowns;
};

// One feasible node as the policies see it during scoring.
struct Candidate {
    NodeId node = kNoNode;
    bool translated = false; // the workload would run through binary translation here
    std::int16_t device = -1; // device for a fractional request, as chosen by a policy (-1 = scheduler default)
};

class Policy {
public:
    virtual ~Policy() = default;
    virtual std::string_view name() const = 0;

    // Called once per placement before any node is filtered or scored.
    virtual void prepare(const ScoreContext&, const Workload&) { }
    // A hard constraint of this policy beyond the scheduler's built-in filters; `None` = feasible.
    virtual RejectReason filter(const ScoreContext&, const Node&, const Workload&) { return RejectReason::None; }
    // Raw score of one feasible node; higher is better. A policy that chooses the device for a fractional
    // request sets `candidate.device` (only when it is still -1, so the profile's first such policy decides).
    virtual std::int64_t score(const ScoreContext& ctx, const Node& node, const Workload& w, Candidate& candidate) = 0;
    // Raw scores of all feasible candidates of one placement, in order (`scores` has one entry per candidate). The
    // default asks `score` of each in turn; a policy with per-node state may override it to fetch that state for the
    // whole batch first, so that its cache misses overlap instead of following one another.
    virtual void scoreAll(
        const ScoreContext& ctx, const Workload& w, std::span<Candidate> candidates, std::span<std::int64_t> scores)
    {
        for (std::size_t i = 0; i < candidates.size(); ++i)
            scores[i] = score(ctx, ctx.cluster.node(candidates[i].node), w, candidates[i]);
    }
    // Rescales the raw scores of all feasible candidates into 0..100 in place. Default: identity.
    virtual void normalize(std::span<std::int64_t> scores) { (void)scores; }
    // Told about every bind the scheduler makes (and every unbind through `Scheduler::release`).
    virtual void onBind(const ScoreContext&, const Workload&, const Placement&) { }
    virtual void onUnbind(const ScoreContext&, const Workload&, const Placement&) { }
};

// Options shared by every policy that a registry makes (the seed for random policies, the workload mix that
// fragmentation-aware policies learn their "typical pods" from).
struct PolicyOptions {
    std::uint64_t seed = 42;
    // Workloads representative of the expected mix; fragmentation-aware policies derive their typical shapes
    // from it. Empty = learn online from the workloads seen.
    std::vector<Workload> typicalMix;
};

using PolicyFactory = std::function<std::unique_ptr<Policy>(const PolicyOptions&)>;

class PolicyRegistry {
public:
    // A registry with every built-in policy registered.
    static PolicyRegistry withBuiltins();

    void add(std::string name, PolicyFactory factory);
    std::unique_ptr<Policy> make(std::string_view name, const PolicyOptions& options) const;
    std::vector<std::string> names() const;

private:
    std::map<std::string, PolicyFactory, std::less<>> m_factories;
};

// A named, weighted combination of policies.
struct ProfileEntry {
    std::string policy;
    double weight = 1.0;
};
struct Profile {
    std::string name;
    std::vector<ProfileEntry> entries;
    bool preemption = false; // on failure, may evict strictly lower-priority workloads
};

// Built-in profiles: every single policy as a profile of its own name, plus "default" (the live system's mix).
std::optional<Profile> builtinProfile(std::string_view name, const PolicyRegistry& registry);

// A profile is usable when it names at least one policy, every name is registered and every weight is finite and
// non-negative; the error names the first offending entry. `Scheduler::create` refuses profiles that fail this.
Expected<void> validateProfile(const Profile& profile, const PolicyRegistry& registry);

} // namespace tidepool
