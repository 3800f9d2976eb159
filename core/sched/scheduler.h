#pragma once
// Filter → score → bind. The scheduler applies the built-in hard constraints (schedulable, pool, tier and spill
// rules, ISA and translation, accelerator kind/model/share, CPU, memory, bandwidths, pool quota), asks the
// profile's policies for scores, picks the best node (ties broken by a fixed node order), and binds.
//
// Thread affinity: one thread (the core's strand) owns a `Scheduler` and the `ClusterState` it mutates.
// Ownership: the scheduler owns its policies; it borrows the cluster, which must outlive it.

#include "core/sched/class_matcher.h"
#include "core/sched/node_index.h"
#include "core/sched/policy.h"

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace tidepool {

struct SchedulerConfig {
    // Score every feasible node (the openb replay does, like the paper's simulator). Otherwise the scheduler
    // walks the free-capacity index and scores at most `scoreBudget` feasible nodes.
    bool exhaustive = false;
    std::int32_t scoreBudget = 64;
    // Tie order: among equal best scores the node with the lowest rank wins. Empty = node id order.
    std::vector<std::uint32_t> tieRank;
};

// The outcome of one placement attempt. On success `placement` is set (and bound unless `dryRun`); on
// failure `report` says why pending. Either way `report` counts every node considered, per reason.
struct Decision {
    std::optional<Placement> placement;
    std::vector<WorkloadId> victims; // preempted to make room (already unbound when not a dry run)
    FilterReport report;
    std::int64_t score = 0; // winning combined score
    std::string reason() const; // "why pending" / "why here" in one line
};

class Scheduler {
public:
    // Builds a scheduler after `validateProfile`: an unknown policy name or a bad weight is an error. Prefer this
    // to the constructor for profiles that come from configuration or the command line.
    static Expected<std::unique_ptr<Scheduler>> create(ClusterState& cluster, Profile profile,
        const PolicyRegistry& registry, PolicyOptions options, SchedulerConfig config = {});
    // Policies the registry does not know are skipped silently; use `create` to have them reported.
    Scheduler(ClusterState& cluster, Profile profile, const PolicyRegistry& registry, PolicyOptions options,
        SchedulerConfig config = {});
    ~Scheduler();

    // Places a workload already added to the cluster. With `dryRun` nothing is bound or evicted.
    Decision place(WorkloadId id, bool dryRun = false);
    // Unbinds a placed workload and tells the policies.
    Expected<void> release(WorkloadId id);
    // Binds a placement chosen elsewhere (an operator's drag, a migration), telling the policies.
    Expected<void> bindExternal(const Placement& placement);
    // Must be called after nodes change outside the scheduler (cordoned, capacity changed; an added node is noticed
    // without it, but say so all the same). The index is rebuilt when next needed, once however many changes came
    // before: ten thousand agents joining at once cost one rebuild, not one each.
    void nodesChanged();

    // Keeps one workload off one node (another workload holds its id there: the agent would refuse the launch) until
    // `allowOn`, or `forgetKeptOff` when the workload is gone. Placements, preemption and `check` all see it, as the
    // reason `IdHeldThere`.
    void keepOff(WorkloadId workload, NodeId node);
    void allowOn(WorkloadId workload, NodeId node);
    void forgetKeptOff(WorkloadId workload);
    bool keepsOff(WorkloadId workload, NodeId node) const;
    bool keepsOffAnywhere(WorkloadId workload) const { return !m_keptOff.empty() && m_keptOff.count(workload); }

    // Evaluates one node for a workload with the built-in filters and the policies' filters.
    RejectReason check(const Node& node, const Workload& w, bool& translated);

    const Profile& profile() const { return m_profile; }
    SlowdownTable& slowdowns() { return m_slowdowns; }
    const SlowdownTable& slowdowns() const { return m_slowdowns; }
    const ClusterState& cluster() const { return m_cluster; }

private:
    struct Weighted {
        std::unique_ptr<Policy> policy;
        double weight;
    };
    // The dynamic half of `check` (accelerators, CPU, memory, bandwidths, pool quota, policy filters), for nodes
    // whose static attributes already passed.
    RejectReason checkCapacity(const Node& node, const Workload& w);
    // Every node checked; fills `m_candidates` with all feasible ones and an exact report.
    void fullScan(const Workload& w, Decision& decision);
    // The bounded walk over the index (core/sched/index_walk.cpp). With `capped` it examines a bounded number of
    // nodes per class; returns false when that cap cut a class short, so that finding nothing proves nothing.
    // A complete walk that finds nothing leaves a report over every node, as exact as `fullScan`'s.
    bool walkIndex(const Workload& w, Decision& decision, bool capped);
    // After a complete walk found nothing: counts the nodes below each class's key bound, making the report exact.
    void countBelowBounds(const Workload& w, Decision& decision);
    void scoreCandidates(const Workload& w, std::vector<Candidate>& candidates, Decision& decision);
    bool tryPreempt(const Workload& w, Decision& decision, bool dryRun);
    // False when no resident of `node` has a priority below `priority`, so preemption can pass the node by
    // without looking up its residents; the answer is cached per node until the node's version changes.
    bool mayHoldVictims(const Node& node, std::int32_t priority);
    Placement makePlacement(const Workload& w, const Candidate& c) const;
    void notifyBind(const Workload& w, const Placement& p);
    // Rebuilds the index if nodes changed since it was built; every use of `m_index` comes after one.
    void refreshIndex();

    ClusterState& m_cluster;
    Profile m_profile;
    std::vector<Weighted> m_policies;
    SchedulerConfig m_config;
    SlowdownTable m_slowdowns;
    NodeIndex m_index;
    bool m_indexStale = true;
    ClassMatcher m_classMatcher; // the static half of `walkIndex`
    // Scratch space reused across placements to keep the hot path free of allocations.
    std::vector<Candidate> m_candidates;
    struct PriorityFloor {
        std::int32_t priority = 0; // lowest priority among the node's residents
        std::uint64_t version = ~std::uint64_t { 0 }; // `Node::version` it was computed at
        std::size_t residents = 0;
    };
    std::vector<PriorityFloor> m_priorityFloor; // by node id, for `mayHoldVictims`
    std::vector<std::pair<std::int32_t, NodeId>> m_preemptable; // scratch of `tryPreempt`: (lowest priority, node)
    std::vector<NodeIndex::Match> m_matching; // index classes that pass the static checks, per placement
    std::vector<std::vector<std::int64_t>> m_raw;
    std::unordered_map<WorkloadId, std::vector<NodeId>> m_keptOff; // rare: checked only when not empty
    std::vector<double> m_total;
};

// The device a fractional request takes on a node by default: the smallest sufficient free share, lowest index
// on ties. For whole-device requests, the lowest-index idle devices. Returns an empty vector when it does not fit.
std::vector<DeviceShare> defaultDeviceChoice(const Node& node, const Workload& w, std::int16_t preferred = -1);

} // namespace tidepool
