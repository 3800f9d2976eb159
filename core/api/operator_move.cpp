// `ControlPlane::move`: an operator's move of one workload onto a node or a tier (the console's Tiers board). It sits
// beside `control_plane.cpp` rather than in it because it is one responsibility of its own (judging a target with the
// scheduler's filters and binding there) and that file is long already; it uses the control plane's private steps
// (release, bind, stop, launch) exactly as `migrate` does.
//
// Thread affinity: the core's thread, like the rest of `ControlPlane`.
#include "core/api/control_plane.h"

#include <tuple>

namespace tidepool::api {

std::string_view toString(MoveRefusal refusal)
{
    switch (refusal) {
    case MoveRefusal::None: return "none";
    case MoveRefusal::NoWorkload: return "no_workload";
    case MoveRefusal::NoTarget: return "no_target";
    case MoveRefusal::NotMovable: return "not_movable";
    case MoveRefusal::AlreadyThere: return "already_there";
    case MoveRefusal::PoolTier: return "pool_tier";
    case MoveRefusal::NoFeasibleNode: return "no_feasible_node";
    case MoveRefusal::ReadOnly: return "read_only";
    }
    return "unknown";
}

MoveOutcome ControlPlane::move(WorkloadId id, const MoveTarget& target, const std::string& actor)
{
    MoveOutcome out;
    out.node = target.node;
    auto refuse = [&out](MoveRefusal refusal, std::string message) {
        out.refusal = refusal;
        out.message = std::move(message);
        return out;
    };
    const std::string label = "workload " + std::to_string(id);
    if (!m_readOnlyReason.empty())
        return refuse(MoveRefusal::ReadOnly, "the store cannot be written: " + m_readOnlyReason);
    const auto it = m_workloads.find(id);
    const WorkloadRecord* record = m_cluster.workload(id);
    if (it == m_workloads.end() || !record)
        return refuse(MoveRefusal::NoWorkload, "no workload has id " + std::to_string(id));
    LiveWorkload& w = it->second;
    if (w.phase != WorkloadPhase::Pending && w.phase != WorkloadPhase::Launching && w.phase != WorkloadPhase::Running)
        return refuse(MoveRefusal::NotMovable, label + " is " + std::string(toString(w.phase)));

    // The target's nodes, and the tier they are on.
    std::vector<NodeId> candidates;
    Tier tier = target.tier;
    if (!target.node.empty()) {
        const auto node = m_nodeByName.find(target.node);
        if (node == m_nodeByName.end())
            return refuse(MoveRefusal::NoTarget, "no node is named \"" + target.node + "\"");
        if (w.node == node->second)
            return refuse(MoveRefusal::AlreadyThere, label + " is on node " + target.node + " already");
        candidates.push_back(node->second);
        tier = m_cluster.node(node->second).tier;
    } else {
        if (tier == Tier::Invalid)
            return refuse(MoveRefusal::NoTarget, "a move needs a node or a tier");
        if (w.node != kNoNode && m_cluster.node(w.node).tier == tier)
            return refuse(
                MoveRefusal::AlreadyThere, label + " is on the " + std::string(toString(tier)) + " tier already");
        for (const Node& node : m_cluster.nodes())
            if (node.tier == tier)
                candidates.push_back(node.id);
    }
    const std::string where = target.node.empty() ? "the " + std::string(toString(tier)) + " tier" : target.node;

    // A pool bound to a tier keeps its workloads there: the scheduler leaves that to the pool's agents and quotas,
    // an operator's move must not break it.
    if (w.workload.pool != kNoPool) {
        const Pool& pool = m_cluster.pool(w.workload.pool);
        if (pool.tier != Tier::Invalid && tier != Tier::Invalid && pool.tier != tier) {
            out.report.reject(RejectReason::TierNotAllowed, static_cast<std::int32_t>(candidates.size()));
            return refuse(MoveRefusal::PoolTier,
                "pool " + pool.name + " keeps its workloads on the " + std::string(toString(pool.tier)) + " tier");
        }
    }

    // Judged with its own resources released, as `migrate` does, so that what it holds counts for it, not against it
    // (its pool's quota, a node of the same tier); bound back where it was when refused.
    const std::optional<Placement> old = record->placement;
    if (old)
        (void)m_scheduler->release(id);
    NodeId best = kNoNode;
    bool bestTranslated = false;
    auto rank = [this](NodeId node, bool translated) {
        const Node& n = m_cluster.node(node);
        return std::make_tuple(translated ? 1 : 0, -n.free.cpuMillis, n.id);
    };
    for (const NodeId candidate : candidates) {
        bool translated = false;
        const RejectReason why = m_scheduler->check(m_cluster.node(candidate), record->workload, translated);
        if (why != RejectReason::None) {
            out.report.reject(why);
            continue;
        }
        out.report.accept();
        if (best == kNoNode || rank(candidate, translated) < rank(best, bestTranslated)) {
            best = candidate;
            bestTranslated = translated;
        }
    }
    Placement placement;
    placement.workload = id;
    placement.node = best;
    placement.translated = bestTranslated;
    if (best != kNoNode && record->workload.accelerators.any())
        placement.shares = defaultDeviceChoice(m_cluster.node(best), record->workload);
    Expected<void> bound = best == kNoNode
        ? Expected<void>(makeError(ErrorCode::CapacityExceeded, out.report.summary()))
        : (record->workload.accelerators.any() && placement.shares.empty()
                ? Expected<void>(makeError(ErrorCode::CapacityExceeded, "no device share fits"))
                : m_scheduler->bindExternal(placement));
    if (!bound) {
        if (old)
            (void)m_scheduler->bindExternal(*old);
        return refuse(MoveRefusal::NoFeasibleNode, where + " cannot take " + label + ": " + bound.error().message);
    }

    const std::string to = m_cluster.node(best).name;
    const std::string from = w.node != kNoNode ? m_cluster.node(w.node).name : std::string();
    if (old) {
        stopOn(m_nodes[static_cast<std::size_t>(old->node)], id);
        newIncarnation(w); // a new launch, wherever it lands
    } else {
        // Queued or held for a low-carbon window: the operator places it now.
        m_pending.erase({ -w.workload.priority, id });
        m_held.erase({ -w.workload.priority, id });
    }
    w.node = best;
    w.devices = placement.shares;
    w.translated = placement.translated;
    w.pid = 0;
    w.placedMs = nowMs();
    w.lastReport = out.report;
    w.detail = (from.empty() ? "placed on " + to : "moved from " + from + " to " + to) + " by " + actor + "; "
        + out.report.summary();
    setPhase(w, WorkloadPhase::Launching);
    launch(w);
    logLine("control: " + label + (from.empty() ? " placed on " + to : " moved from " + from + " to " + to) + " by "
        + actor);
    // What it left may be what pending work waits for.
    if (old)
        schedulePendingRetry();
    out.node = to;
    out.message = w.detail;
    return out;
}

} // namespace tidepool::api
