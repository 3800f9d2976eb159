// `ControlPlane::move`: an operator's move of one workload onto a node, a tier or into another pool (the console's
// Tiers board and Pools tree, `POST /v1/workloads/{id}/move`). It sits beside `control_plane.cpp` rather than in it
// because it is one responsibility of its own (judging a target with the scheduler's filters and binding there) and
// that file is long already; it uses the control plane's private steps (release, bind, stop, launch) exactly as
// `migrate` does.
//
// Thread affinity: the core's thread, like the rest of `ControlPlane`.
#include "core/api/control_plane.h"

#include "core/sched/filters.h"

#include <algorithm>
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
    case MoveRefusal::PoolQuota: return "pool_quota";
    case MoveRefusal::NoFeasibleNode: return "no_feasible_node";
    case MoveRefusal::ReadOnly: return "read_only";
    }
    return "unknown";
}

MoveOutcome ControlPlane::move(WorkloadId id, const MoveTarget& target, const std::string& actor)
{
    MoveOutcome out;
    out.node = target.node;
    out.pool = target.pool;
    out.tier = target.tier;
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
    if (out.pool.empty())
        out.pool = w.poolName;
    if (w.phase != WorkloadPhase::Pending && w.phase != WorkloadPhase::Launching && w.phase != WorkloadPhase::Running)
        return refuse(MoveRefusal::NotMovable, label + " is " + std::string(toString(w.phase)));

    // The pool it will be in: its own, unless the target names another.
    const PoolId fromPool = w.workload.pool;
    PoolId toPool = fromPool;
    if (!target.pool.empty()) {
        const auto named = poolByName(target.pool);
        if (!named)
            return refuse(MoveRefusal::NoTarget, "no pool is named \"" + target.pool + "\"");
        toPool = *named;
    }
    const bool changesPool = toPool != fromPool;
    const Pool* pool = toPool == kNoPool ? nullptr : &m_cluster.pool(toPool);

    // The target's nodes, and the tier they are on.
    std::vector<NodeId> candidates;
    Tier tier = target.tier;
    std::string where;
    if (!target.node.empty()) {
        const auto node = m_nodeByName.find(target.node);
        if (node == m_nodeByName.end())
            return refuse(MoveRefusal::NoTarget, "no node is named \"" + target.node + "\"");
        const Tier nodeTier = m_cluster.node(node->second).tier;
        out.tier = nodeTier;
        if (tier != Tier::Invalid && nodeTier != tier)
            return refuse(MoveRefusal::NoTarget,
                "node " + target.node + " is on the " + std::string(toString(nodeTier)) + " tier, not the "
                    + std::string(toString(tier)) + " tier");
        if (w.node == node->second && !changesPool)
            return refuse(MoveRefusal::AlreadyThere, label + " is on node " + target.node + " already");
        candidates.push_back(node->second);
        tier = nodeTier;
        where = target.node;
    } else if (tier != Tier::Invalid) {
        if (!changesPool && w.node != kNoNode && m_cluster.node(w.node).tier == tier)
            return refuse(
                MoveRefusal::AlreadyThere, label + " is on the " + std::string(toString(tier)) + " tier already");
        // Every node of the tier: those outside the pool are counted by the filters as not in it.
        for (const Node& node : m_cluster.nodes())
            if (node.tier == tier)
                candidates.push_back(node.id);
        where = "the " + std::string(toString(tier)) + " tier" + (changesPool ? " of pool " + pool->name : "");
    } else if (changesPool) {
        // The pool's nodes, on its tier when it keeps its workloads on one.
        tier = pool->tier;
        for (const NodeId node : pool->nodes)
            if (tier == Tier::Invalid || m_cluster.node(node).tier == tier)
                candidates.push_back(node);
        where = "pool " + pool->name;
    } else if (!target.pool.empty()) {
        return refuse(MoveRefusal::AlreadyThere, label + " is in pool " + target.pool + " already");
    } else if (target.elsewhere) {
        for (const Node& node : m_cluster.nodes())
            if (node.id != w.node)
                candidates.push_back(node.id);
    } else {
        return refuse(MoveRefusal::NoTarget, "a move needs a node, a tier or a pool");
    }
    out.tier = tier;

    // A pool bound to a tier keeps its workloads there: the scheduler leaves that to the pool's agents and quotas,
    // an operator's move must not break it.
    if (pool && pool->tier != Tier::Invalid && tier != Tier::Invalid && pool->tier != tier) {
        out.poolTier = pool->tier;
        out.report.reject(RejectReason::TierNotAllowed, static_cast<std::int32_t>(candidates.size()));
        return refuse(MoveRefusal::PoolTier,
            "pool " + pool->name + " keeps its workloads on the " + std::string(toString(pool->tier)) + " tier");
    }
    if (pool && !target.node.empty()
        && std::find(pool->nodes.begin(), pool->nodes.end(), candidates.front()) == pool->nodes.end()) {
        out.report.reject(RejectReason::NotInPool);
        return refuse(
            MoveRefusal::NoFeasibleNode, "node " + target.node + " is not one of pool " + pool->name + "'s nodes");
    }
    // Into another pool: its quota must hold what the workload asks for. Checked before anything is released, since
    // what it holds is charged to the pool it leaves; a share of whole devices depends on the node's devices, so it is
    // judged per node below.
    const AcceleratorRequest& accelerators = w.workload.accelerators;
    if (changesPool && pool) {
        const bool fractional = accelerators.any() && !accelerators.wholeDevices();
        const std::string shortfall = quotaShortfall(*pool, w.workload.requests,
            fractional ? accelerators.kind : AcceleratorKind::None, fractional ? accelerators.sharePerDevice : 0);
        if (!shortfall.empty())
            return refuse(
                MoveRefusal::PoolQuota, "pool " + pool->name + " has no quota left for " + label + ": " + shortfall);
    }

    // Judged with its own resources released, as `migrate` does, so that what it holds counts for it, not against it
    // (its pool's quota, a node of the same tier), and as a workload of the pool it moves into; bound back where it
    // was when refused.
    Workload judged = record->workload;
    judged.pool = toPool;
    const std::optional<Placement> old = record->placement;
    if (old)
        (void)m_scheduler->release(id);
    NodeId best = kNoNode;
    NodeId overQuota = kNoNode; // the first node refused for the quota alone, to say by how much
    bool bestTranslated = false;
    auto rank = [this](NodeId node, bool translated) {
        const Node& n = m_cluster.node(node);
        return std::make_tuple(translated ? 1 : 0, -n.free.cpuMillis, n.id);
    };
    // A drain's move (anywhere else) lands where the scheduler would place it now, by the profile's policies (packing,
    // fragmentation of GPU shares, energy, ...), not on the node with the most free CPU; its node is cordoned, so the
    // filters keep it off there. Found by the scheduler's index rather than a look at every node, and so is "no node
    // takes it", which a paced drain asks again at every tick. Not by preempting anyone: then, and should it pick the
    // node it is on, every node is judged and ranked below.
    std::optional<Placement> planned;
    if (target.elsewhere) {
        Decision decision = m_scheduler->place(id, true);
        if (decision.placement && decision.victims.empty() && decision.placement->node != w.node) {
            planned = std::move(decision.placement);
            out.report = decision.report;
            candidates.clear();
        } else if (!decision.placement) {
            // Its report covers every node; the one it is on is not "another node".
            out.report = decision.report;
            bool translated = false;
            if (const RejectReason own = m_scheduler->check(m_cluster.node(w.node), judged, translated);
                own != RejectReason::None && out.report.rejected[static_cast<std::size_t>(own)] > 0)
                out.report.reject(own, -1);
            candidates.clear();
        }
    }
    for (const NodeId candidate : candidates) {
        bool translated = false;
        const RejectReason why = m_scheduler->check(m_cluster.node(candidate), judged, translated);
        if (why != RejectReason::None) {
            out.report.reject(why);
            if (why == RejectReason::PoolQuotaExhausted && overQuota == kNoNode)
                overQuota = candidate;
            continue;
        }
        out.report.accept();
        if (best == kNoNode || rank(candidate, translated) < rank(best, bestTranslated)) {
            best = candidate;
            bestTranslated = translated;
        }
    }
    auto restore = [&] {
        if (old)
            (void)m_scheduler->bindExternal(*old);
    };
    if (best == kNoNode && changesPool && overQuota != kNoNode) {
        restore();
        const std::string shortfall = quotaShortfall(
            *pool, judged.requests, accelerators.kind, filters::acceleratorShare(m_cluster.node(overQuota), judged));
        return refuse(MoveRefusal::PoolQuota,
            "pool " + pool->name + " has no quota left for " + label + ": "
                + (shortfall.empty() ? out.report.summary() : shortfall));
    }
    Placement placement;
    placement.workload = id;
    placement.node = best;
    placement.translated = bestTranslated;
    if (best != kNoNode && judged.accelerators.any())
        placement.shares = defaultDeviceChoice(m_cluster.node(best), judged);
    if (planned)
        placement = *planned;
    best = placement.node;
    // Into the new pool before the bind, so that the bind charges it (the old one was released above).
    if (changesPool && best != kNoNode)
        (void)m_cluster.setWorkloadPool(id, toPool);
    Expected<void> bound = best == kNoNode
        ? Expected<void>(makeError(ErrorCode::CapacityExceeded, out.report.summary()))
        : (judged.accelerators.any() && placement.shares.empty()
                ? Expected<void>(makeError(ErrorCode::CapacityExceeded, "no device share fits"))
                : m_scheduler->bindExternal(placement));
    if (!bound) {
        if (changesPool && best != kNoNode)
            (void)m_cluster.setWorkloadPool(id, fromPool);
        restore();
        return refuse(MoveRefusal::NoFeasibleNode,
            (target.elsewhere ? "no other node can take " + label : where + " cannot take " + label) + ": "
                + bound.error().message);
    }

    const std::string to = m_cluster.node(best).name;
    const std::string from = w.node != kNoNode ? m_cluster.node(w.node).name : std::string();
    const std::string previousPool = w.poolName;
    if (changesPool) {
        w.workload.pool = toPool;
        w.poolName = pool->name;
    }
    if (old) {
        stopOn(m_nodes[static_cast<std::size_t>(old->node)], id, w.incarnation);
        newIncarnation(w, old->node); // a new launch, wherever it lands
    } else {
        // Queued, held for a low-carbon window or waiting out a restart back-off: the operator places it now.
        unqueue(w);
    }
    w.node = best;
    w.devices = placement.shares;
    w.translated = placement.translated;
    w.pid = 0;
    w.placedMs = nowMs();
    w.lastReport = out.report;
    const std::string what = (from.empty() ? "placed on " + to : "moved from " + from + " to " + to)
        + (changesPool ? ", from pool " + previousPool + " into pool " + w.poolName : std::string()) + " by " + actor;
    w.detail = what + "; " + out.report.summary();
    // Launching again: the phase change is the event the timeline shows, with the detail saying where it went.
    setPhase(w, WorkloadPhase::Launching);
    launch(w);
    logLine("control: " + label + " " + what);
    // What it left may be what pending work waits for.
    if (old)
        schedulePendingRetry();
    out.node = to;
    out.pool = w.poolName;
    out.tier = m_cluster.node(best).tier;
    out.message = w.detail;
    return out;
}

ApiResult<NodeId> ControlPlane::nodeToChange(const std::string& name) const
{
    const auto it = m_nodeByName.find(name);
    if (it == m_nodeByName.end())
        return tl::unexpected(ApiError { 404, "no node is named \"" + name + "\"" });
    if (!m_readOnlyReason.empty())
        return tl::unexpected(ApiError { 503, "the store cannot be written: " + m_readOnlyReason });
    return it->second;
}

ApiResult<void> ControlPlane::operatorCordon(
    const std::string& name, const std::string& reason, const std::string& actor)
{
    const auto id = nodeToChange(name);
    if (!id)
        return tl::unexpected(id.error());
    const LiveNode& node = m_nodes[static_cast<std::size_t>(*id)];
    if (node.cordon.rfind(kPowerDownCordon, 0) == 0)
        return tl::unexpected(ApiError { 409,
            "node " + name + " is cordoned for a power-down (" + node.cordon
                + "); uncordon it to power it up, then cordon it" });
    return setCordon(name, "by " + actor + (reason.empty() ? std::string() : ": " + reason));
}

ApiResult<std::string> ControlPlane::operatorUncordon(const std::string& name, const std::string& actor)
{
    const auto id = nodeToChange(name);
    if (!id)
        return tl::unexpected(id.error());
    std::string lifted = m_nodes[static_cast<std::size_t>(*id)].cordon;
    if (lifted.empty())
        return lifted;
    auto done = setCordon(name, {});
    if (!done)
        return tl::unexpected(done.error());
    logLine("control: node " + name + "'s cordon (" + lifted + ") lifted by " + actor);
    return lifted;
}

ApiResult<DrainOutcome> ControlPlane::drain(
    const std::string& name, const std::string& reason, const std::string& actor, const DrainOptions& options)
{
    const auto found = nodeToChange(name);
    if (!found)
        return tl::unexpected(found.error());
    if (options.maxParallel < 0 || options.maxParallel > kMaxDrainParallel)
        return tl::unexpected(ApiError { 400,
            "maxParallel must be between 1 and " + std::to_string(kMaxDrainParallel) + " (0: all at once), not "
                + std::to_string(options.maxParallel) });
    if (options.deadlineMs < 0 || options.deadlineMs > kMaxDrainDeadlineMs)
        return tl::unexpected(
            ApiError { 400, "deadlineMs must be between 0 and 366 days, not " + std::to_string(options.deadlineMs) });
    if (options.deadlineMs > 0 && options.maxParallel == 0)
        return tl::unexpected(
            ApiError { 400, "a deadline paces a drain: give maxParallel with deadlineMs (all at once needs none)" });
    const NodeId id = *found;
    LiveNode& node = m_nodes[static_cast<std::size_t>(id)];
    // Cordoned first, so that nothing lands there meanwhile and no move picks it; a cordon it has stays (a power-down
    // waits for it to be empty as well).
    if (node.cordon.empty())
        if (auto cordoned = operatorCordon(name, reason.empty() ? "drained" : reason, actor); !cordoned)
            return tl::unexpected(cordoned.error());
    const std::int64_t now = nowMs();
    if (options.maxParallel > 0) {
        // A drain under way takes the new budget and deadline, and keeps what it has moved.
        NodeDrain& drain = node.drain ? *node.drain : node.drain.emplace();
        const bool started = drain.startedMs == 0;
        if (started)
            drain.startedMs = now;
        drain.maxParallel = options.maxParallel;
        drain.deadlineAtMs = options.deadlineMs > 0 ? now + options.deadlineMs : 0;
        drain.actor = actor;
        markNode(id);
        logLine("control: node " + name + (started ? " drained by " : "'s drain changed by ") + actor + ": at most "
            + std::to_string(drain.maxParallel) + " moving at once"
            + (drain.deadlineAtMs > 0 ? ", all gone within " + std::to_string(options.deadlineMs) + " ms" : ""));
        m_events.push(
            ClusterEvent { 0, now, ClusterEventKind::NodeCordon, 0, name, node.cordon, node.cordon, name, actor,
                (started ? "drain started: at most " : "drain changed: at most ") + std::to_string(drain.maxParallel)
                    + " moving at once"
                    + (drain.deadlineAtMs > 0 ? ", deadline in " + std::to_string(options.deadlineMs / 1000) + " s"
                                              : std::string()) });
        return advanceDrain(id, now);
    }
    DrainOutcome out;
    out.cordon = node.cordon;
    // The residents as they are now: each move takes one off the list.
    const std::vector<WorkloadId> residents = m_cluster.node(id).residents;
    std::set<WorkloadId> moved;
    std::int64_t held = 0;
    std::string heldReason;
    for (const WorkloadId workload : residents) {
        const auto w = m_workloads.find(workload);
        if (w == m_workloads.end() || w->second.node != id
            || (w->second.phase != WorkloadPhase::Launching && w->second.phase != WorkloadPhase::Running))
            continue;
        if (std::string budget = disruptionBudgetRefusal(w->second.workload.pool); !budget.empty()) {
            if (held++ == 0)
                heldReason = std::move(budget);
            continue;
        }
        MoveTarget target;
        target.elsewhere = true;
        MoveOutcome outcome = move(workload, target, actor);
        if (outcome.moved()) {
            moved.insert(workload);
            m_disrupted.insert(workload);
            ++m_stats.drainMoves;
        }
        out.moves.emplace_back(workload, std::move(outcome));
    }
    logLine("control: node " + name + " drained by " + actor + ": " + std::to_string(out.moved()) + " of "
        + std::to_string(out.moves.size()) + " workloads moved"
        + (held > 0 ? "; " + std::to_string(held) + " wait for their pools' disruption budgets" : ""));
    if (held == 0)
        return out;
    // What pools' budgets held goes as their moves come back: the drain goes on, paced by the budgets alone, and
    // tries what no node took again with them. Its answer is a paced drain's: the moves made, and what waits.
    const std::size_t stayed = out.moves.size() - moved.size() + static_cast<std::size_t>(held);
    std::erase_if(out.moves, [](const auto& m) { return !m.second.moved(); });
    NodeDrain& drain = node.drain.emplace();
    drain.startedMs = now;
    drain.maxParallel = kMaxDrainParallel;
    drain.actor = actor;
    drain.moving = std::move(moved);
    drain.moved = static_cast<std::int64_t>(drain.moving.size());
    drain.blocked = static_cast<std::int64_t>(stayed);
    drain.blockedReason = std::move(heldReason);
    markNode(id);
    m_events.push(ClusterEvent { 0, now, ClusterEventKind::NodeCordon, 0, name, node.cordon, node.cordon, name, actor,
        "drain started: " + std::to_string(drain.moved) + " moved at once, " + std::to_string(stayed) + " waiting ("
            + drain.blockedReason + ")" });
    out.paced = drain;
    out.waiting = static_cast<std::int64_t>(stayed);
    return out;
}

void ControlPlane::advanceDrains(std::int64_t now)
{
    // Those that run again, or ended, no longer count against their pools' disruption budgets.
    std::erase_if(m_disrupted, [&](WorkloadId id) {
        const auto w = m_workloads.find(id);
        return w == m_workloads.end()
            || (w->second.phase != WorkloadPhase::Pending && w->second.phase != WorkloadPhase::Launching);
    });
    for (LiveNode& node : m_nodes)
        if (node.drain)
            (void)advanceDrain(node.id, now);
}

DrainOutcome ControlPlane::advanceDrain(NodeId id, std::int64_t now)
{
    LiveNode& node = m_nodes[static_cast<std::size_t>(id)];
    const std::string& name = m_cluster.node(id).name;
    NodeDrain& drain = *node.drain;
    DrainOutcome out;
    out.cordon = node.cordon;
    // A moved one stops counting once it runs on its new node, ends, or is anywhere but launching elsewhere.
    std::erase_if(drain.moving, [&](WorkloadId moved) {
        const auto w = m_workloads.find(moved);
        return w == m_workloads.end() || w->second.phase != WorkloadPhase::Launching || w->second.node == id;
    });
    const bool pastDeadline = drain.deadlineAtMs > 0 && now >= drain.deadlineAtMs;
    std::vector<WorkloadId> waiting;
    for (const WorkloadId resident : m_cluster.node(id).residents) {
        const auto w = m_workloads.find(resident);
        if (w != m_workloads.end() && w->second.node == id
            && (w->second.phase == WorkloadPhase::Launching || w->second.phase == WorkloadPhase::Running))
            waiting.push_back(resident);
    }
    // Moves only while its agent is there to stop them (a node away either returns or is lost, and its workloads are
    // queued again then); the deadline moves them regardless.
    const bool reachable = node.state == NodeState::Ready;
    std::int64_t blocked = 0;
    std::string blockedReason;
    std::size_t left = waiting.size();
    const std::int64_t evictedBefore = drain.evicted;
    for (const WorkloadId workload : waiting) {
        if (!pastDeadline && (!reachable || drain.moving.size() >= static_cast<std::size_t>(drain.maxParallel)))
            break;
        const Workload& spec = m_workloads.at(workload).workload;
        // Its pool's budget holds it (the deadline does not ask): another pool's workload may go in its place.
        if (std::string budget = pastDeadline ? std::string() : disruptionBudgetRefusal(spec.pool); !budget.empty()) {
            if (blocked++ == 0)
                blockedReason = std::move(budget);
            continue;
        }
        // No node took one of its shape since capacity last grew (the queue's pass or this drain's try): it is not
        // tried again until then, as the queue's are not, so that a tick costs nothing for what waits on.
        PlacementShape shape = placementShape(spec);
        if (!pastDeadline && (m_failedShapes.count(shape) || m_drainFailedShapes.count(shape))) {
            if (blocked++ == 0)
                blockedReason = drain.blockedReason.empty()
                    ? "no node has taken a workload of its shape since capacity last grew"
                    : drain.blockedReason;
            continue;
        }
        MoveTarget target;
        target.elsewhere = true;
        MoveOutcome moved = move(workload, target, drain.actor);
        if (moved.moved()) {
            ++drain.moved;
            ++m_stats.drainMoves;
            drain.moving.insert(workload);
            m_disrupted.insert(workload);
            --left;
            out.moves.emplace_back(workload, std::move(moved));
            continue;
        }
        LiveWorkload& w = m_workloads.at(workload);
        if (pastDeadline && moved.refusal != MoveRefusal::ReadOnly) {
            // The node must be empty by now: it waits in the queue instead, for a place anywhere.
            stopOn(node, workload, w.incarnation);
            requeue(w, "evicted from node " + name + " at its drain's deadline: " + moved.message);
            m_disrupted.insert(workload);
            ++drain.evicted;
            ++m_stats.drainEvictions;
            --left;
            logLine("control: workload " + std::to_string(workload) + " evicted from node " + name
                + " at its drain's deadline: " + moved.message);
            continue;
        }
        if (moved.refusal == MoveRefusal::NoFeasibleNode && !m_scheduler->keepsOffAnywhere(workload))
            m_drainFailedShapes.insert(std::move(shape));
        if (blocked++ == 0)
            blockedReason = moved.message;
    }
    drain.blocked = blocked;
    drain.blockedReason = std::move(blockedReason);
    out.waiting = static_cast<std::int64_t>(left);
    if (left == 0) {
        logLine("control: node " + name + " drained: " + std::to_string(drain.moved) + " moved"
            + (drain.evicted > 0 ? ", " + std::to_string(drain.evicted) + " queued again at the deadline" : ""));
        m_events.push(
            ClusterEvent { 0, now, ClusterEventKind::NodeCordon, 0, name, node.cordon, node.cordon, name, drain.actor,
                "drain finished: " + std::to_string(drain.moved) + " moved"
                    + (drain.evicted > 0 ? ", " + std::to_string(drain.evicted) + " queued again at the deadline"
                                         : std::string()) });
        node.drain.reset();
        markNode(id);
        return out;
    }
    if (!out.moves.empty() || evictedBefore != drain.evicted)
        markNode(id); // its counts are kept
    out.paced = drain;
    return out;
}

} // namespace tidepool::api
