#pragma once
// The scheduler's built-in hard constraints, one function per rule. The per-node check and the index walk's
// per-class check both call these, so that a rule changed in one place cannot make the two disagree.
//
// Thread affinity: pure functions of their arguments.

#include "core/model/workload.h"
#include "core/sched/policy.h"
#include "core/sched/reasons.h"

namespace tidepool::filters {

// Tier and spill rules on a node of tier `nodeTier`: untiered nodes take anything; a pinned workload takes only
// its tier; real-time work may spill from hot to warm; batch may spill to warm, and to hot only where no
// forecast peak reserves the node. `poolTier` is the tier of the workload's pool (`Tier::Invalid` where it has
// none): a pool bound to a tier keeps its workloads there, as a workload's own pin does, whatever their latency
// class; a workload pinned to another tier than its pool's fits no tiered node.
RejectReason tier(Tier nodeTier, bool peakReserved, const Workload& w, Tier poolTier);
// The tier `w`'s pool keeps it on: `Tier::Invalid` where it has no pool or its pool no tier.
inline Tier poolTier(const ClusterState& cluster, const Workload& w)
{
    return w.pool == kNoPool ? Tier::Invalid : cluster.pool(w.pool).tier;
}
// The tiers whose nodes `tier` lets the workload onto (a peak reservation aside), for capacity planning by tier.
// Untiered nodes take anything and are in no mask.
TierMask allowedTiers(const Workload& w, Tier poolTier);
// Native ISA, or translation where the workload allows it and a finite slowdown is known.
RejectReason isa(Isa nodeIsa, const Workload& w, const SlowdownTable& slowdowns, bool& translated);
// Accelerator kind, model and share on the node's current free state.
RejectReason accelerator(const Node& node, const Workload& w);
// CPU, memory and the bandwidths, in that order. Inline: the index walk asks it of every node it examines.
inline RejectReason scalar(const Resources& free, const Resources& r)
{
    if (free.cpuMillis < r.cpuMillis)
        return RejectReason::InsufficientCpu;
    if (free.memoryMiB < r.memoryMiB)
        return RejectReason::InsufficientMemory;
    if (free.memBandwidthMBps < r.memBandwidthMBps)
        return RejectReason::InsufficientMemBandwidth;
    if (free.netBandwidthMbps < r.netBandwidthMbps)
        return RejectReason::InsufficientNetBandwidth;
    return RejectReason::None;
}
// Accelerator share units the workload would take on `node`, for the pool's accelerator quota.
std::int64_t acceleratorShare(const Node& node, const Workload& w);

} // namespace tidepool::filters
