#pragma once
// The static half of the index walk: which classes of the free-capacity index pass a workload's static checks
// (pool, tier, ISA and translation, accelerator kind and models), and what the classes that fail add to the
// report. With a hundred or more classes this costs more per placement than the rest of the walk, yet it depends
// only on a few fields of the workload that recur from one placement to the next, so results are kept per
// signature of those fields.
//
// Thread affinity: owned by the `Scheduler`, on its thread.

#include "core/sched/node_index.h"
#include "core/sched/policy.h"

#include <compare>
#include <map>
#include <vector>

namespace tidepool {

class ClassMatcher {
public:
    struct Result {
        std::vector<NodeIndex::Match> matching; // in class order
        FilterReport rejected; // what the other classes add to a report, as `Scheduler::check` counts them
    };

    // The classes of `index` that `w` may use. A kept result is valid while the index has the same generation
    // (its classes, their node counts and cached flags are those of one `rebuild`) and the slowdown table is equal
    // to the one it was computed with; otherwise everything kept is dropped. The reference lives until the next call.
    // `poolTier`: the tier `w`'s pool keeps it on (`filters::poolTier`).
    const Result& match(const NodeIndex& index, const Workload& w, Tier poolTier, const SlowdownTable& slowdowns);

private:
    // Every field of the workload that the static checks read.
    struct Signature {
        PoolId pool = kNoPool;
        Tier poolTier = Tier::Invalid;
        Tier pinnedTier = Tier::Invalid;
        LatencyClass latency = LatencyClass::Invalid;
        IsaMask nativeIsas = 0;
        bool allowTranslation = false;
        AcceleratorKind kind = AcceleratorKind::None; // None when the workload asks for no accelerator
        std::vector<ModelId> allowedModels; // empty when it asks for none

        auto operator<=>(const Signature&) const = default;
    };
    static constexpr std::size_t kMaxKept = 4096; // signatures; beyond, start over

    Result compute(const NodeIndex& index, const Workload& w, Tier poolTier, const SlowdownTable& slowdowns) const;

    std::map<Signature, Result> m_kept;
    std::uint64_t m_generation = 0; // of the index the kept results describe
    SlowdownTable m_slowdowns; // the table they were computed with
};

} // namespace tidepool
