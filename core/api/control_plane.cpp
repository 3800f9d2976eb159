#include "core/api/control_plane.h"

#include "core/api/workload_spec.h"
#include "core/rebalance/tier_moves.h"
#include "core/sched/filters.h"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <tuple>

namespace tidepool::api {

namespace {

// "booting:<node>" in the store's `meta` table → {"sinceMs": Unix ms}: a node powered up whose agent has not come back.
constexpr std::string_view kBootingPrefix = "booting:";

constexpr std::string_view kNodeStateNames[] = { "invalid", "joining", "ready", "suspect", "lost", "off", "booting" };
constexpr std::string_view kPhaseNames[]
    = { "invalid", "pending", "launching", "running", "stopping", "succeeded", "failed", "killed", "oom_killed",
          "cancelled" };
static_assert(std::size(kNodeStateNames) == kNodeStateCount);
static_assert(std::size(kPhaseNames) == kWorkloadPhaseCount);
constexpr std::string_view kRestartPolicyNames[] = { "never", "on-failure", "always" };

// Hot = accelerators for real-time inference; cold = the other ISAs' (often idle ARM) servers for batch;
// warm = general x86 CPU servers for latency-sensitive services.
Tier defaultTier(const protocol::Inventory& inventory, Isa isa)
{
    if (!inventory.devices.empty())
        return Tier::Hot;
    return isa == Isa::X86_64 ? Tier::Warm : Tier::Cold;
}

} // namespace

std::string_view toString(NodeState state)
{
    return kNodeStateNames[static_cast<std::size_t>(state)];
}

std::string_view toString(WorkloadPhase phase)
{
    return kPhaseNames[static_cast<std::size_t>(phase)];
}

std::optional<WorkloadPhase> parseWorkloadPhase(std::string_view text)
{
    for (std::size_t i = 1; i < std::size(kPhaseNames); ++i)
        if (kPhaseNames[i] == text)
            return static_cast<WorkloadPhase>(i);
    return std::nullopt;
}

std::string_view toString(RestartPolicy policy)
{
    return kRestartPolicyNames[static_cast<std::size_t>(policy)];
}

std::optional<RestartPolicy> parseRestartPolicy(std::string_view text)
{
    for (std::size_t i = 0; i < std::size(kRestartPolicyNames); ++i)
        if (kRestartPolicyNames[i] == text)
            return static_cast<RestartPolicy>(i);
    return std::nullopt;
}

bool isFinal(WorkloadPhase phase)
{
    return phase >= WorkloadPhase::Succeeded;
}

std::int64_t unixMillis()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::system_clock::now().time_since_epoch())
        .count();
}

Expected<std::unique_ptr<ControlPlane>> ControlPlane::create(boost::asio::io_context& io, ControlPlaneConfig config,
    AgentLink link, protocol::LogSink log, store::Store* store)
{
    if (config.suspectAfter <= std::chrono::milliseconds::zero() || config.lostAfter <= config.suspectAfter)
        return makeError(ErrorCode::InvalidArgument,
            "liveness timeouts: suspectAfter must be positive and lostAfter longer than it");
    auto plane = std::make_unique<ControlPlane>(io, std::move(config), std::move(link), std::move(log));
    std::optional<Profile> profile = builtinProfile(plane->m_config.profile, plane->m_registry);
    if (!profile)
        return makeError(ErrorCode::InvalidArgument, "profile \"" + plane->m_config.profile + "\" is not known");
    auto scheduler = Scheduler::create(plane->m_cluster, std::move(*profile), plane->m_registry, PolicyOptions {});
    if (!scheduler)
        return tl::unexpected(scheduler.error());
    plane->m_scheduler = std::move(*scheduler);
    Pool pool;
    pool.name = std::string(kDefaultPool);
    pool.businessLine = "shared";
    const PoolId id = plane->m_cluster.addPool(std::move(pool));
    plane->m_poolByName.emplace(std::string(kDefaultPool), id);
    plane->m_poolIoWeight.push_back(100);
    plane->m_poolDisruptionBudget.emplace_back();
    if (store) {
        auto snapshot = store->load();
        if (!snapshot)
            return tl::unexpected(snapshot.error());
        if (auto restored = plane->restore(*snapshot); !restored)
            return tl::unexpected(restored.error());
        if (auto held = plane->restoreCarbonHold(snapshot->meta); !held)
            return tl::unexpected(held.error());
        if (auto booting = plane->restoreBooting(snapshot->meta); !booting)
            return tl::unexpected(booting.error());
        plane->m_restoredProposals = std::move(snapshot->proposals);
        plane->m_restoredMeta = std::move(snapshot->meta);
        plane->m_store = store;
        plane->markPool(id);
        // Booting keys of nodes that are not booting after the restore (gone, or cordoned again) are dropped.
        for (const auto& [key, value] : plane->m_restoredMeta)
            if (key.starts_with(kBootingPrefix)) {
                const auto found = plane->m_nodeByName.find(key.substr(kBootingPrefix.size()));
                if (found == plane->m_nodeByName.end()
                    || plane->m_nodes[static_cast<std::size_t>(found->second)].state != NodeState::Booting)
                    store->putMeta(key, "");
            }
    }
    return plane;
}

Expected<void> ControlPlane::restore(const store::Snapshot& snapshot)
{
    for (const store::StoredPool& p : snapshot.pools) {
        PoolRequest request { p.name, p.businessLine, parseTier(p.tier).value_or(Tier::Invalid), p.cpuMillis,
            p.memoryMiB, p.ioWeight, p.memBandwidthMBps, p.netBandwidthMbps,
            { kUnlimited, p.gpuShare, p.npuShare, p.fpgaShare },
            p.maxDisruptedPercent >= 0 ? DisruptionBudget::share(p.maxDisruptedPercent)
                                       : DisruptionBudget::workloads(p.maxDisrupted) };
        if (m_poolByName.count(p.name))
            (void)updatePool(p.name, request);
        else if (auto created = createPool(request); !created)
            return makeError(ErrorCode::ParseError, "stored pool " + p.name + ": " + created.error().message);
    }
    m_deletedPools = snapshot.deletedPools;
    const Clock::time_point now = Clock::now();
    for (const store::StoredNode& n : snapshot.nodes) {
        Node model;
        model.name = n.name;
        model.isa = parseIsa(n.isa).value_or(Isa::Invalid);
        model.tier = parseTier(n.tier).value_or(Tier::Invalid);
        if (model.isa == Isa::Invalid || m_nodeByName.count(n.name))
            return makeError(ErrorCode::ParseError, "stored node " + n.name + " has an unknown ISA or a duplicate name");
        model.capacity = { n.cpuMillis, n.memoryMiB, kUnlimited, kUnlimited };
        for (const auto& d : n.devices) {
            Device device;
            device.kind = parseAcceleratorKind(d.value("kind", "")).value_or(AcceleratorKind::None);
            device.model = m_cluster.internModel(d.value("model", "unknown"));
            device.memoryMiB = d.value("memoryMiB", std::int64_t { 0 });
            device.shareCapacity = d.value("shareCapacity", 0);
            model.devices.push_back(device);
        }
        model.schedulable = false; // until its agent returns
        const NodeId id = m_cluster.addNode(std::move(model));
        for (const auto& [poolName, poolId] : m_poolByName)
            (void)m_cluster.attach(poolId, id);
        m_nodes.resize(static_cast<std::size_t>(id) + 1);
        LiveNode& live = m_nodes[static_cast<std::size_t>(id)];
        live.id = id;
        live.state = NodeState::Suspect;
        live.cpuModel = n.cpuModel;
        live.cordon = n.cordon;
        if (n.drainMaxParallel > 0 && !n.cordon.empty()) {
            // The drain goes on; what it was moving is found among the workloads below.
            NodeDrain& drain = live.drain.emplace();
            drain.maxParallel
                = static_cast<std::int32_t>(std::min<std::int64_t>(n.drainMaxParallel, kMaxDrainParallel));
            drain.startedMs = n.drainStartedMs;
            drain.deadlineAtMs = n.drainDeadlineMs;
            drain.actor = n.drainActor;
            drain.moved = n.drainMoved;
            drain.evicted = n.drainEvicted;
        }
        m_cluster.mutableNode(id).peakReserved = n.peakReserved;
        live.lastSeen = now; // silent from now on: lost only once the restart grace and lostAfter have both passed
        m_nodeByName.emplace(n.name, id);
    }
    m_scheduler->nodesChanged();
    for (const store::StoredWorkload& stored : snapshot.workloads) {
        const std::string what = "stored workload " + std::to_string(stored.id);
        auto request = parseSubmitRequest(stored.spec);
        const auto phase = parseWorkloadPhase(stored.phase);
        if (!request || !phase)
            return makeError(ErrorCode::ParseError,
                what + ": " + (request ? "unknown phase \"" + stored.phase + "\"" : request.error().message));
        m_nextId = stored.id;
        auto id = submitRestored(std::move(*request), stored, *phase);
        if (!id)
            return makeError(ErrorCode::ParseError, what + ": " + id.error().message);
    }
    // What a paced drain was moving: launched off its node and not running yet.
    for (const auto& [id, w] : m_workloads)
        if (w.previousNode != kNoNode && w.node != w.previousNode && w.phase == WorkloadPhase::Launching)
            if (auto& drain = m_nodes[static_cast<std::size_t>(w.previousNode)].drain)
                drain->moving.insert(id);
    // What drains and migrations had on its way counts against its pool's budget again (a restart's relaunch on the
    // node it ran on is not told from a move: counted too, the safer side).
    for (const auto& [id, w] : m_workloads)
        if (w.previousNode != kNoNode && w.phase == WorkloadPhase::Launching)
            m_disrupted.insert(id);
    m_restored = !snapshot.nodes.empty();
    m_stats.restoredNodes = snapshot.nodes.size();
    m_stats.restoredWorkloads = snapshot.workloads.size();
    if (!snapshot.nodes.empty() || !snapshot.workloads.empty())
        logLine("control: restored " + std::to_string(snapshot.pools.size()) + " pools, "
            + std::to_string(snapshot.nodes.size()) + " nodes and " + std::to_string(snapshot.workloads.size())
            + " workloads; nodes have " + std::to_string(m_config.restartGrace.count()) + " ms to return");
    return {};
}

ApiResult<WorkloadId> ControlPlane::submitRestored(
    SubmitRequest request, const store::StoredWorkload& stored, WorkloadPhase phase)
{
    auto id = addWorkload(
        std::move(request), stored.id, isFinal(phase) ? std::optional<std::int64_t>(stored.finishedMs) : std::nullopt);
    if (!id)
        return id;
    LiveWorkload& w = m_workloads.at(*id);
    w.submittedMs = stored.submittedMs;
    w.placedMs = stored.placedMs;
    w.runningMs = stored.runningMs;
    w.finishedMs = stored.finishedMs;
    w.pid = stored.pid;
    w.exitCode = stored.exitCode;
    w.detail = stored.detail;
    w.translated = stored.translated;
    w.incarnation = stored.incarnation;
    w.highestIncarnation = std::max(stored.highestIncarnation, stored.incarnation);
    w.restarts = stored.restarts;
    w.crashLoop = stored.crashLoop;
    if (const auto previous = m_nodeByName.find(stored.previousNode); previous != m_nodeByName.end()) {
        w.previousNode = previous->second;
        w.previousIncarnation = stored.previousIncarnation;
    }
    const auto node = m_nodeByName.find(stored.node);
    std::vector<DeviceShare> shares;
    for (const auto& d : stored.devices)
        shares.push_back(DeviceShare { static_cast<std::int16_t>(d.value("device", -1)), d.value("share", 0),
            d.value("memoryMiB", std::int64_t { 0 }) });
    if (isFinal(phase)) {
        // Where it ran, as before the restart (it holds nothing there).
        if (node != m_nodeByName.end()) {
            w.node = node->second;
            w.devices = std::move(shares);
        }
        setPhase(w, phase);
        m_finishedOrder.push_back(*id);
        return id;
    }
    // Stopping for running past its limit when the daemon stopped: it still ends failed (derived, not stored).
    w.overran = phase == WorkloadPhase::Stopping && w.maxRuntimeMs > 0 && w.runningMs > 0
        && w.runningMs + w.maxRuntimeMs <= nowMs();
    if (phase != WorkloadPhase::Pending && node != m_nodeByName.end()) {
        Placement p;
        p.workload = *id;
        p.node = node->second;
        p.translated = stored.translated;
        p.shares = std::move(shares);
        if (m_scheduler->bindExternal(p)) {
            w.node = p.node;
            w.devices = p.shares;
            setPhase(w, phase);
            // Its launch's peaks so far: measured again from the next sample, but not from nothing.
            if (phase == WorkloadPhase::Running || phase == WorkloadPhase::Stopping) {
                w.measured.sinceMs = stored.measuredSinceMs;
                w.measured.peakCpuMillis = stored.peakCpuMillis;
                w.measured.peakMemoryMiB = stored.peakMemoryMiB;
                w.savedPeaks = w.measured;
                // What the store holds is as good as saved now: no wave of writes at the first samples after a restart.
                w.histogramSavedAtMs = nowMs();
                if (!stored.cpuHistogram.is_null()) {
                    // A damaged one is not worth refusing to start over: its CPU is measured again.
                    auto histogram
                        = UsageHistogram::fromJson(stored.cpuHistogram, "stored workload " + std::to_string(*id));
                    if (histogram) {
                        w.cpuHistogram = std::move(*histogram);
                        w.cpuP90Millis = w.cpuHistogram.empty() ? -1 : w.cpuHistogram.percentile(0.9);
                    } else
                        logLine("control: " + histogram.error().message + "; its CPU is measured again");
                }
            }
            return id;
        }
        w.detail = "could not be bound again on " + stored.node + " after a restart";
    }
    if (phase == WorkloadPhase::Pending && stored.restartAtMs > 0) {
        // Waiting out its restart back-off: from where it was, not from the beginning.
        w.restartAtMs = stored.restartAtMs;
        m_restarting.insert({ w.restartAtMs, *id });
        return id;
    }
    m_pending.insert({ -w.workload.priority, *id });
    return id;
}

ControlPlane::ControlPlane(
    boost::asio::io_context& io, ControlPlaneConfig config, AgentLink link, protocol::LogSink log)
    : m_io(io)
    , m_config(std::move(config))
    , m_link(std::move(link))
    , m_log(std::move(log))
    , m_registry(PolicyRegistry::withBuiltins())
    , m_timer(io)
    , m_flushTimer(io)
    , m_saveTimer(io)
    , m_startedAt(Clock::now())
    , m_events(m_config.keepEvents)
{
    // Told apart from other runs without any clock: 64 random bits.
    std::random_device random;
    char id[17];
    std::snprintf(id, sizeof id, "%08x%08x", random(), random());
    m_runId = id;
}

ControlPlane::~ControlPlane() = default;

void ControlPlane::logLine(const std::string& line) const
{
    if (m_log)
        m_log(line);
}

void ControlPlane::start()
{
    m_stopped = false;
    onTick();
}

void ControlPlane::stop()
{
    m_stopped = true;
    m_timer.cancel();
    m_flushTimer.cancel();
    m_saveTimer.cancel();
    m_flushArmed = false;
    m_saveArmed = false;
    flush(); // what changed since the last write
}

void ControlPlane::onTick()
{
    if (m_stopped)
        return;
    checkLiveness(Clock::now());
    releaseHeld(nowMs());
    releaseRestarts(nowMs());
    enforceRuntimeLimits(nowMs());
    advanceDrains(nowMs());
    m_timer.expires_after(m_config.tick);
    m_timer.async_wait(whileAlive([this](const boost::system::error_code& ec) {
        if (!ec)
            onTick();
    }));
}

// ---- nodes ----------------------------------------------------------------------------------------------------

LiveNode* ControlPlane::nodeOfSession(const std::string& sessionId)
{
    const auto it = m_nodeBySession.find(sessionId);
    return it == m_nodeBySession.end() ? nullptr : &m_nodes[static_cast<std::size_t>(it->second)];
}

const LiveNode* ControlPlane::nodeByName(std::string_view name) const
{
    const auto it = m_nodeByName.find(std::string(name));
    return it == m_nodeByName.end() ? nullptr : &m_nodes[static_cast<std::size_t>(it->second)];
}

std::optional<PoolId> ControlPlane::poolByName(std::string_view name) const
{
    const auto it = m_poolByName.find(std::string(name));
    if (it == m_poolByName.end())
        return std::nullopt;
    return it->second;
}

std::array<std::size_t, kNodeStateCount> ControlPlane::nodeCounts() const
{
    std::array<std::size_t, kNodeStateCount> counts {};
    for (const LiveNode& n : m_nodes)
        ++counts[static_cast<std::size_t>(n.state)];
    return counts;
}

void ControlPlane::setNodeState(LiveNode& node, NodeState state)
{
    if (node.state == state)
        return;
    logLine("control: node " + m_cluster.node(node.id).name + ": " + std::string(toString(node.state)) + " -> "
        + std::string(toString(state)));
    m_events.push(ClusterEvent { 0, nowMs(), ClusterEventKind::NodeState, 0, m_cluster.node(node.id).name,
        std::string(toString(node.state)), std::string(toString(state)), m_cluster.node(node.id).name, {}, {} });
    const bool bootingChanged = (node.state == NodeState::Booting) != (state == NodeState::Booting);
    node.state = state;
    ++m_stateVersion;
    refreshSchedulable(node);
    if (bootingChanged)
        persistBooting(node);
}

void ControlPlane::refreshSchedulable(const LiveNode& node)
{
    // New work lands only on a ready node nobody cordoned.
    Node& model = m_cluster.mutableNode(node.id);
    const bool schedulable = node.state == NodeState::Ready && node.cordon.empty();
    if (model.schedulable == schedulable)
        return;
    model.schedulable = schedulable;
    ++model.version;
    m_scheduler->nodesChanged();
    if (schedulable)
        schedulePendingRetry();
}

ApiResult<void> ControlPlane::setCordon(const std::string& name, std::string reason)
{
    const auto it = m_nodeByName.find(name);
    if (it == m_nodeByName.end())
        return tl::unexpected(ApiError { 404, "no node is named \"" + name + "\"" });
    LiveNode& node = m_nodes[static_cast<std::size_t>(it->second)];
    if (node.cordon == reason)
        return {};
    node.cordon = std::move(reason);
    logLine("control: node " + name + (node.cordon.empty() ? " uncordoned" : " cordoned: " + node.cordon));
    if (node.cordon.empty() && node.drain) {
        // Lifting the cordon ends its drain: what was moved stays where it went, the rest stays here.
        logLine("control: node " + name + "'s drain ended with its cordon: " + std::to_string(node.drain->moved)
            + " moved");
        node.drain.reset();
    }
    // Lifting an off node's power-down cordon is its power-up: it boots until its agent comes back. A power-up rolled
    // back (cordoned for power-down again) leaves it off.
    if (node.state == NodeState::Off && node.cordon.empty()) {
        node.bootingSince = Clock::now();
        setNodeState(node, NodeState::Booting);
    } else if (node.state == NodeState::Booting && poweredDownAndEmpty(node)) {
        setNodeState(node, NodeState::Off);
    }
    m_events.push(ClusterEvent { 0, nowMs(), ClusterEventKind::NodeCordon, 0, name, {}, node.cordon, name, {}, {} });
    refreshSchedulable(node);
    markNode(node.id);
    return {};
}

ApiResult<std::size_t> ControlPlane::setPeakReserved(
    const std::string& name, bool reserved, const std::string& why, bool stopBatch)
{
    const auto it = m_nodeByName.find(name);
    if (it == m_nodeByName.end())
        return tl::unexpected(ApiError { 404, "no node is named \"" + name + "\"" });
    const NodeId id = it->second;
    Node& model = m_cluster.mutableNode(id);
    if (model.tier != Tier::Hot)
        return tl::unexpected(ApiError { 409, "node " + name + " is not a hot-tier node" });
    const bool changed = model.peakReserved != reserved;
    if (!changed && !(reserved && stopBatch))
        return std::size_t { 0 };
    if (changed) {
        model.peakReserved = reserved;
        ++model.version;
        m_scheduler->nodesChanged();
    }
    std::size_t displaced = 0;
    if (reserved && stopBatch) {
        // Batch running there makes room before the peak: stopped, and queued again for the cold tier.
        const std::vector<WorkloadId> residents = model.residents;
        for (const WorkloadId resident : residents) {
            auto w = m_workloads.find(resident);
            if (w == m_workloads.end() || w->second.workload.tier() != Tier::Cold)
                continue;
            stopOn(m_nodes[static_cast<std::size_t>(id)], resident, w->second.incarnation);
            requeue(w->second, "moved off hot node " + name + ", reserved for the next peak: " + why);
            ++displaced;
        }
    } else if (!reserved) {
        schedulePendingRetry();
    }
    if (!changed && displaced == 0)
        return displaced;
    logLine("control: node " + name
        + (!reserved ? " lent to batch: " + why
                : stopBatch
                ? " reserved for the next peak (" + std::to_string(displaced) + " batch workloads moved): " + why
                : " draining for the next peak (its batch runs on to its end, none starts there): " + why));
    markNode(id);
    return displaced;
}

ApiResult<void> ControlPlane::migrate(
    WorkloadId id, const std::string& from, std::int32_t fromDevice, const std::string& to, std::int32_t device)
{
    const auto it = m_workloads.find(id);
    if (it == m_workloads.end())
        return tl::unexpected(ApiError { 404, "no workload has id " + std::to_string(id) });
    LiveWorkload& w = it->second;
    const auto source = m_nodeByName.find(from);
    const auto target = m_nodeByName.find(to);
    if (source == m_nodeByName.end() || target == m_nodeByName.end())
        return tl::unexpected(ApiError { 404, "node " + (source == m_nodeByName.end() ? from : to) + " does not exist" });
    // A share of one device moves to `device`; a CPU-only workload (`fromDevice` -1) moves with no device.
    const bool holdsIt = fromDevice < 0 ? w.devices.empty() : w.devices.size() == 1 && w.devices[0].device == fromDevice;
    if ((w.phase != WorkloadPhase::Running && w.phase != WorkloadPhase::Launching) || w.node != source->second || !holdsIt)
        return tl::unexpected(ApiError { 409,
            "workload " + std::to_string(id) + " no longer holds device " + std::to_string(fromDevice) + " of node " + from });
    const WorkloadRecord* record = m_cluster.workload(id);
    if (!record || !record->placement)
        return tl::unexpected(ApiError { 409, "workload " + std::to_string(id) + " is not placed" });
    const Placement old = *record->placement;
    Placement moved = old;
    moved.node = target->second;
    bool translated = false;
    const Node& targetNode = m_cluster.node(target->second);
    if (fromDevice >= 0) {
        if (device < 0 || static_cast<std::size_t>(device) >= targetNode.devices.size())
            return tl::unexpected(ApiError { 409, "node " + to + " has no device " + std::to_string(device) });
        moved.shares[0].device = static_cast<std::int16_t>(device);
    }
    (void)m_scheduler->release(id);
    const RejectReason why = m_scheduler->check(targetNode, record->workload, translated);
    moved.translated = translated;
    auto bound = why == RejectReason::None ? m_scheduler->bindExternal(moved)
                                           : Expected<void>(makeError(ErrorCode::CapacityExceeded, std::string(toString(why))));
    if (!bound) {
        (void)m_scheduler->bindExternal(old);
        return tl::unexpected(ApiError { 409, "node " + to + " cannot take workload " + std::to_string(id) + ": " + bound.error().message });
    }
    stopOn(m_nodes[static_cast<std::size_t>(source->second)], id, w.incarnation);
    w.node = target->second;
    w.devices = moved.shares;
    w.translated = moved.translated;
    w.pid = 0;
    w.placedMs = nowMs();
    w.detail = "migrated from " + from + " to " + to + " by a rebalance proposal";
    m_disrupted.insert(id);
    newIncarnation(w, source->second); // the agent of a move within one node tells the new launch from the stopped one
    setPhase(w, WorkloadPhase::Launching);
    launch(w);
    logLine("control: workload " + std::to_string(id) + " migrated from " + from + " to " + to);
    // What it left (a whole GPU, when a consolidation emptied one) may be what pending work waits for; the stopped
    // copy's end is stale and frees nothing more, so this is the moment to look.
    schedulePendingRetry();
    return {};
}

void ControlPlane::setCarbonHold(std::int64_t untilMs, std::string reason)
{
    m_carbonHoldUntilMs = untilMs;
    m_carbonHoldReason = std::move(reason);
    ++m_stateVersion;
    persistCarbonHold();
    logLine(untilMs > 0 ? "control: deferrable batch held until " + std::to_string(untilMs) + " (Unix ms): " + m_carbonHoldReason
                        : "control: carbon hold lifted");
    if (untilMs == 0)
        releaseHeld(nowMs());
}

namespace {

constexpr const char* kCarbonHoldKey = "carbon_hold"; // {"untilMs": Unix ms, "reason": text}; absent = no hold

} // namespace

void ControlPlane::persistBooting(const LiveNode& node)
{
    if (!m_store)
        return;
    const auto since = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - node.bootingSince).count();
    m_store->putMeta(std::string(kBootingPrefix) + m_cluster.node(node.id).name,
        node.state == NodeState::Booting ? nlohmann::json { { "sinceMs", nowMs() - since } }.dump() : std::string());
    scheduleFlush();
}

Expected<void> ControlPlane::restoreBooting(const std::map<std::string, std::string>& meta)
{
    const auto nowUnix = nowMs();
    for (auto it = meta.lower_bound(std::string(kBootingPrefix));
         it != meta.end() && it->first.starts_with(kBootingPrefix); ++it) {
        const std::string name = it->first.substr(kBootingPrefix.size());
        const nlohmann::json booting = nlohmann::json::parse(it->second, nullptr, false);
        if (booting.is_discarded() || !booting.is_object() || !booting.contains("sinceMs")
            || !booting["sinceMs"].is_number_integer())
            return makeError(ErrorCode::ParseError,
                "stored setting " + it->first + ": field `sinceMs` must be a Unix time in milliseconds");
        const auto found = m_nodeByName.find(name);
        if (found == m_nodeByName.end())
            continue; // the node is gone; the stale key is dropped below, once the store is attached
        LiveNode& node = m_nodes[static_cast<std::size_t>(found->second)];
        if (!node.cordon.empty())
            continue; // cordoned again since (a rolled-back power-up): it is off, not booting
        // Booting since then on this clock: the boot timeout counts the time the daemon was down as well.
        const auto elapsed
            = std::chrono::milliseconds(std::max<std::int64_t>(0, nowUnix - booting["sinceMs"].get<std::int64_t>()));
        node.bootingSince = Clock::now() - elapsed;
        setNodeState(node, NodeState::Booting);
        logLine("control: restored node " + name + " as booting (powered up "
            + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(elapsed).count()) + " s ago)");
    }
    return {};
}

void ControlPlane::persistCarbonHold()
{
    if (!m_store)
        return;
    m_store->putMeta(kCarbonHoldKey,
        m_carbonHoldUntilMs == 0
            ? std::string()
            : nlohmann::json { { "untilMs", m_carbonHoldUntilMs }, { "reason", m_carbonHoldReason } }.dump());
    scheduleFlush();
}

Expected<void> ControlPlane::restoreCarbonHold(const std::map<std::string, std::string>& meta)
{
    const auto it = meta.find(kCarbonHoldKey);
    if (it == meta.end())
        return {};
    const auto bad = [&](const std::string& why) {
        return makeError(ErrorCode::ParseError, std::string("stored setting ") + kCarbonHoldKey + ": " + why);
    };
    const nlohmann::json hold = nlohmann::json::parse(it->second, nullptr, false);
    if (hold.is_discarded() || !hold.is_object())
        return bad("not a JSON object");
    if (!hold.contains("untilMs") || !hold["untilMs"].is_number_integer() || hold["untilMs"].get<std::int64_t>() < 0)
        return bad("field `untilMs` must be a Unix time in milliseconds");
    if (hold.contains("reason") && !hold["reason"].is_string())
        return bad("field `reason` must be text");
    m_carbonHoldUntilMs = hold["untilMs"].get<std::int64_t>();
    m_carbonHoldReason = hold.value("reason", std::string());
    // Restored pending work is in the queue; the next pass over it (or the liveness tick) holds the deferrable part
    // again, or releases it when the window came while the daemon was down.
    logLine("control: restored the carbon hold: deferrable batch held until " + std::to_string(m_carbonHoldUntilMs)
        + " (Unix ms): " + m_carbonHoldReason);
    return {};
}

bool ControlPlane::holdForCarbon(LiveWorkload& w, std::int64_t nowMs)
{
    if (!w.workload.deferrable || m_carbonHoldUntilMs == 0)
        return false;
    const std::int64_t until = std::min(m_carbonHoldUntilMs, w.deadlineMs);
    if (nowMs >= until)
        return false;
    w.detail = "held for a low-carbon window until " + std::to_string(until) + " (Unix ms): " + m_carbonHoldReason;
    return true;
}

void ControlPlane::releaseRestarts(std::int64_t nowMs)
{
    bool released = false;
    while (!m_restarting.empty() && m_restarting.begin()->first <= nowMs) {
        const WorkloadId id = m_restarting.begin()->second;
        m_restarting.erase(m_restarting.begin());
        const auto it = m_workloads.find(id);
        if (it == m_workloads.end() || it->second.phase != WorkloadPhase::Pending)
            continue;
        LiveWorkload& w = it->second;
        w.restartAtMs = 0;
        markWorkload(id);
        // Where its last launch ran, when that node still takes it (as Nomad's restart and a Kubernetes pod's restart
        // do: its data, caches and images are there); anywhere else through the queue otherwise.
        const bool neverRan = std::exchange(w.neverRan, false);
        if (w.previousNode != kNoNode && !neverRan) {
            const LiveNode& last = m_nodes[static_cast<std::size_t>(w.previousNode)];
            const std::string lastName = m_cluster.node(w.previousNode).name;
            if (last.state == NodeState::Ready && last.cordon.empty()) {
                MoveTarget there;
                there.node = lastName;
                // How the last launch ended: what its pending detail said before the back-off.
                const std::string ended = w.detail.substr(0, w.detail.rfind("; restart "));
                if (MoveOutcome placed = move(id, there, std::string(kRestartPolicyActor)); placed.moved()) {
                    w.detail = "restarted on node " + lastName + ", where its last launch ran (restart "
                        + std::to_string(w.restarts) + "; that launch: " + ended + ")";
                    continue;
                }
            }
        }
        m_pending.insert({ -w.workload.priority, id });
        released = true;
    }
    if (released)
        schedulePendingRetry();
}

void ControlPlane::enforceRuntimeLimits(std::int64_t nowMs)
{
    while (!m_runtimeLimits.empty() && m_runtimeLimits.begin()->first <= nowMs) {
        const WorkloadId id = m_runtimeLimits.begin()->second;
        m_runtimeLimits.erase(m_runtimeLimits.begin());
        const auto it = m_workloads.find(id);
        if (it == m_workloads.end())
            continue;
        LiveWorkload& w = it->second;
        // A launch that ended, or a later launch whose own limit is not due yet, is left alone.
        if (w.phase != WorkloadPhase::Running || w.maxRuntimeMs <= 0 || w.runningMs + w.maxRuntimeMs > nowMs)
            continue;
        ++m_stats.overran;
        w.overran = true;
        const std::string limit = "ran past its maximum runtime of " + std::to_string(w.maxRuntimeMs) + " ms";
        logLine("control: workload " + std::to_string(id) + " " + limit + "; stopping it");
        LiveNode& node = m_nodes[static_cast<std::size_t>(w.node)];
        if (node.sessionId.empty()) {
            // Its node is unreachable: the stop goes out when it returns.
            m_cancelledAway.insert(id);
            finish(w, WorkloadPhase::Failed, 0, limit + "; its node was unreachable, it is stopped on return");
            continue;
        }
        w.detail = "stopping: " + limit;
        setPhase(w, WorkloadPhase::Stopping);
        stopOn(node, id, w.incarnation);
    }
}

void ControlPlane::releaseHeld(std::int64_t nowMs)
{
    if (m_held.empty() && m_carbonHoldUntilMs == 0)
        return;
    if (m_carbonHoldUntilMs != 0 && nowMs >= m_carbonHoldUntilMs) {
        logLine("control: the low-carbon window has come; placing the held deferrable batch");
        m_carbonHoldUntilMs = 0;
        persistCarbonHold();
    }
    // Held work whose window or own deadline has come goes back to the queue, in its priority order.
    bool released = false;
    for (auto it = m_held.begin(); it != m_held.end();) {
        const LiveWorkload& w = m_workloads.at(it->second);
        if (m_carbonHoldUntilMs == 0 || w.deadlineMs <= nowMs) {
            m_pending.insert(*it);
            it = m_held.erase(it);
            released = true;
        } else {
            ++it;
        }
    }
    if (released)
        schedulePendingRetry();
}

void ControlPlane::onJoined(const std::string& sessionId, const std::string& remote, const protocol::Hello& hello)
{
    // The node is registered once its inventory arrives; until then only the session is known.
    const auto known = m_nodeByName.find(hello.nodeName);
    if (known != m_nodeByName.end()) {
        LiveNode& node = m_nodes[static_cast<std::size_t>(known->second)];
        if (!node.sessionId.empty() && node.sessionId != sessionId) {
            // The same node joined again before its old connection was seen to end (an agent restart after a
            // crash, a network change): the newer session wins.
            ++m_stats.sessionsReplaced;
            const std::string old = node.sessionId;
            m_nodeBySession.erase(old);
            node.sessionId.clear();
            node.poolsSent.clear();
            logLine("control: node " + hello.nodeName + ": joined again from " + remote
                + "; closing its previous session (from " + node.remote + "), telling its agent why");
            // Its agent is told why: were it alive (two agents under one name), it backs off rather than push the
            // newer one off at once in turn.
            const std::string why = "another agent joined as node " + hello.nodeName + " from " + remote
                + "; the core keeps the newer session (two agents must not share a node name)";
            if (m_link.send)
                m_link.send(old, protocol::Reject { why, protocol::RejectCause::Replaced });
            if (m_link.disconnect)
                m_link.disconnect(old, "replaced by a newer session of the same node");
        }
        node.sessionId = sessionId;
        node.remote = remote;
        node.agentVersion = hello.agentVersion;
        node.agentFeatures = hello.features;
        node.lastSeen = Clock::now();
        m_nodeBySession[sessionId] = node.id;
        return;
    }
    m_pendingJoins[sessionId] = PendingJoinInfo { hello, remote };
}

void ControlPlane::onInventory(const std::string& sessionId, const protocol::Inventory& inventory)
{
    LiveNode* node = nodeOfSession(sessionId);
    if (!node) {
        const auto pending = m_pendingJoins.find(sessionId);
        if (pending == m_pendingJoins.end())
            return; // a session that has already left
        const PendingJoinInfo join = std::move(pending->second);
        m_pendingJoins.erase(pending);
        const auto isa = parseIsa(inventory.isa);
        if (!isa) {
            logLine("control: node " + join.hello.nodeName + ": ISA \"" + inventory.isa
                + "\" is not one the scheduler knows; disconnecting");
            if (m_link.disconnect)
                m_link.disconnect(sessionId, "ISA " + inventory.isa + " is not supported");
            return;
        }
        Node model;
        model.name = join.hello.nodeName;
        model.isa = *isa;
        model.tier = defaultTier(inventory, *isa);
        model.capacity.cpuMillis = inventory.cpuMillis;
        model.capacity.memoryMiB = inventory.memoryMiB;
        model.capacity.memBandwidthMBps = kUnlimited;
        model.capacity.netBandwidthMbps = kUnlimited;
        for (const protocol::DeviceInfo& d : inventory.devices) {
            Device device;
            device.kind = parseAcceleratorKind(d.kind).value_or(AcceleratorKind::None);
            device.model = m_cluster.internModel(d.model);
            device.shareCapacity = d.shareCapacity;
            device.memoryMiB = d.memoryMiB;
            model.devices.push_back(device);
        }
        model.schedulable = false; // until it is marked ready below
        const NodeId id = m_cluster.addNode(std::move(model));
        // The scheduler's index learns of it now: the reconciliation below may bind a workload the node reports to it.
        m_scheduler->nodesChanged();
        for (const auto& [name, poolId] : m_poolByName)
            (void)m_cluster.attach(poolId, id);
        m_nodes.resize(static_cast<std::size_t>(id) + 1);
        LiveNode& live = m_nodes[static_cast<std::size_t>(id)];
        live.id = id;
        live.remote = join.remote;
        live.agentVersion = join.hello.agentVersion;
        live.agentFeatures = join.hello.features;
        live.joinedMs = nowMs();
        m_nodeByName.emplace(join.hello.nodeName, id);
        live.sessionId = sessionId;
        m_nodeBySession[sessionId] = id;
        node = &live;
        logLine("control: node " + join.hello.nodeName + " registered: " + inventory.isa + ", "
            + std::to_string(inventory.cpuMillis) + " mCPU, " + std::to_string(inventory.memoryMiB) + " MiB, "
            + std::to_string(inventory.devices.size()) + " accelerators");
    }
    node->cpuModel = inventory.cpuModel;
    node->numaNodes = inventory.numaNodes;
    // A shaped link is the node's network capacity: the scheduler guarantees no more than it holds.
    node->netLinkMbps = inventory.netMbps > 0 ? inventory.netMbps : kUnlimited;
    applyNetworkCapacity(*node);
    node->translation = inventory.translation;
    node->lastSeen = Clock::now();
    const Node& model = m_cluster.node(node->id);
    for (const protocol::TranslationFactor& t : inventory.translation)
        if (const auto from = parseIsa(t.fromIsa))
            m_scheduler->slowdowns().set(*from, model.isa, t.factor);

    markNode(node->id);
    sendPools(*node);
    forgetLaunches(*node); // a (re)join: the inventory says which launches arrived, the reconciliation sends the rest
    reconcile(*node, inventory.workloads);
    // A resize its agent had not answered when the session ended: its agent may never have had it.
    for (const WorkloadId id : m_cluster.node(node->id).residents)
        if (const auto w = m_workloads.find(id); w != m_workloads.end() && w->second.resizeUnconfirmed()
            && w->second.phase == WorkloadPhase::Running && w->second.node == node->id) {
            w->second.resizesSent.clear(); // those of the old session will not be answered: the latest goes again
            w->second.resizeActors.clear();
            sendResize(*node, w->second);
        }
    setNodeState(*node, NodeState::Ready);
}

void ControlPlane::reconcile(LiveNode& node, const std::vector<protocol::WorkloadStatus>& reported)
{
    std::set<WorkloadId> seen;
    for (const protocol::WorkloadStatus& status : reported) {
        applyStatus(node, status, true);
        // Only the current incarnation counts as held: an older one beside it is no launch of the current one.
        const auto it = m_workloads.find(status.workloadId);
        if (it == m_workloads.end() || status.incarnation >= it->second.incarnation)
            seen.insert(status.workloadId);
    }
    // Placements here the agent did not report: a launch it never received goes again; a workload it was running
    // and no longer knows (its state was wiped) is placed anew.
    const std::vector<WorkloadId> residents = m_cluster.node(node.id).residents;
    for (const WorkloadId id : residents) {
        if (seen.count(id))
            continue;
        auto it = m_workloads.find(id);
        if (it == m_workloads.end())
            continue;
        LiveWorkload& w = it->second;
        if (w.phase == WorkloadPhase::Launching)
            launch(w);
        else if (w.phase == WorkloadPhase::Running || w.phase == WorkloadPhase::Stopping) {
            const bool wasStopping = w.phase == WorkloadPhase::Stopping;
            if (wasStopping)
                finish(w, WorkloadPhase::Cancelled, 0, "the agent no longer holds it");
            else
                requeue(w, "node " + m_cluster.node(node.id).name + " no longer holds it");
        }
    }
}

void ControlPlane::applyStatus(LiveNode& node, const protocol::WorkloadStatus& status, bool fromInventory)
{
    const std::string& nodeName = m_cluster.node(node.id).name;
    launchAnswered(node, status.workloadId, status.incarnation);
    stopAnswered(node, status.workloadId, status.incarnation, status.state);
    auto it = m_workloads.find(status.workloadId);
    const bool running = status.state == "running";
    if (it == m_workloads.end()) {
        // An id the core does not hold: one it forgot, or one its database never had (a database replaced, or restored
        // from an older copy, numbers workloads from where it was). The agent keeps a record of it, so giving the id to
        // a new workload would make that launch look like this record's: the next id is past it.
        // Only within a margin of the ids it has given out itself: ids go up to 2^53, and one far-off report (a
        // damaged record, a hostile agent) would otherwise spend the id space.
        if (status.workloadId > m_highestOwnId + m_config.adoptedIdMargin) {
            ++m_stats.foreignIdsIgnored;
            logLine("control: warning: node " + nodeName + " reports workload " + std::to_string(status.workloadId)
                + ", far beyond the ids this core has given out (the highest is " + std::to_string(m_highestOwnId)
                + "; ids up to " + std::to_string(m_highestOwnId + m_config.adoptedIdMargin)
                + " are taken into its numbering): ignored, not adopted");
        } else if (status.workloadId >= m_nextId) {
            logLine("control: node " + nodeName + " holds workload " + std::to_string(status.workloadId)
                + ", an id this core has not given out; new workloads are numbered from "
                + std::to_string(status.workloadId + 1));
            m_nextId = status.workloadId + 1;
        }
        if (running && m_cancelledAway.erase(status.workloadId)) {
            stopOn(node, status.workloadId, status.incarnation);
        } else if (running && fromInventory) {
            logLine("control: node " + nodeName + " runs workload " + std::to_string(status.workloadId)
                + ", which the core does not know; leaving it alone");
        }
        return;
    }
    LiveWorkload& w = it->second;
    if (isFinal(w.phase)) {
        // Ended as far as the core knows (cancelled while the node was away): a copy still running goes.
        if (running) {
            m_cancelledAway.erase(w.workload.id);
            stopOn(node, w.workload.id, status.incarnation);
        }
        return;
    }
    if (w.node != node.id) {
        // A copy where the core no longer places it (re-placed while this node was away), or a finished record.
        if (!running) {
            // Where another workload ran under its id, that one has ended: the node may take this one now.
            if (m_scheduler->keepsOff(w.workload.id, node.id)) {
                m_scheduler->allowOn(w.workload.id, node.id);
                schedulePendingRetry(false);
            }
            return;
        }
        if (m_scheduler->keepsOff(w.workload.id, node.id))
            return; // the other workload under its id, seen before: still left alone
        if (w.phase == WorkloadPhase::Pending && w.placedMs == 0) {
            // Never placed, so never launched by this core: what runs under its id is another workload (launched by
            // a core whose database this one does not have, numbering from where it was) and is not this core's to
            // adopt or to stop. The agent would refuse to launch the pending one beside it, so it is placed elsewhere
            // until that one ends; and once it is placed, that one is still no copy of it to stop.
            ++m_stats.foreignWorkloadsLeftAlone;
            m_scheduler->keepOff(w.workload.id, node.id);
            logLine("control: warning: node " + nodeName + " runs workload " + std::to_string(w.workload.id)
                + ", an id this core gave to a workload (" + w.workload.name
                + ") it has not launched yet: another workload under the same id, left alone and not adopted; "
                + "the pending one is placed elsewhere until that one ends");
            return;
        }
        if (w.phase == WorkloadPhase::Pending) {
            // Still waiting for a place, after a launch of its own: take it back where it already runs.
            Placement p;
            p.workload = w.workload.id;
            p.node = node.id;
            p.shares = {};
            if (!w.workload.accelerators.any() && m_scheduler->bindExternal(p)) {
                unqueue(w);
                w.node = node.id;
                w.pid = status.pid;
                // The copy that runs is current again; a later relaunch still takes a new incarnation.
                w.incarnation = status.incarnation;
                w.highestIncarnation = std::max(w.highestIncarnation, status.incarnation);
                setPhase(w, WorkloadPhase::Running);
                w.detail = "re-adopted on " + nodeName;
                return;
            }
        }
        ++m_stats.duplicateStops;
        logLine("control: node " + nodeName + " runs workload " + std::to_string(w.workload.id)
            + ", placed elsewhere now; stopping this copy");
        stopOn(node, w.workload.id, status.incarnation);
        return;
    }
    if (status.incarnation < w.incarnation) {
        // An older launch of it on this node (moved to another of its devices, relaunched after a loss): how that
        // one ends is no news of the current one; a copy of it still running goes.
        if (running) {
            ++m_stats.duplicateStops;
            logLine("control: node " + nodeName + " runs incarnation " + std::to_string(status.incarnation)
                + " of workload " + std::to_string(w.workload.id) + " beside the current "
                + std::to_string(w.incarnation) + "; stopping that copy");
            stopOn(node, w.workload.id, status.incarnation);
        }
        return;
    }
    if (status.incarnation > w.incarnation) {
        // A later launch than the core remembers (restored from an older database): it is the current one.
        w.incarnation = status.incarnation;
        w.highestIncarnation = std::max(w.highestIncarnation, status.incarnation);
        markWorkload(w.workload.id);
    }
    if (running) {
        if (w.pid != status.pid) {
            w.pid = status.pid;
            markWorkload(w.workload.id);
        }
        if (w.phase == WorkloadPhase::Launching) {
            w.runningMs = nowMs();
            ++m_stats.acknowledged;
            m_stats.lastAckMs = w.runningMs;
            setPhase(w, WorkloadPhase::Running);
        }
        return;
    }
    const bool cancelling = w.phase == WorkloadPhase::Stopping;
    std::string detail = status.detail.empty() ? std::string(status.state) : status.detail;
    // Being stopped, however it ends (a workload that handles SIGTERM exits by itself): a cancel, never restarted.
    const bool stopped = status.state == "stopped" || status.state == "killed" || status.state == "exited";
    const std::string exited
        = status.state == "exited" ? "; it exited with code " + std::to_string(status.exitCode) : std::string();
    if (cancelling && w.overran && (stopped || status.state == "lost"))
        finish(w, WorkloadPhase::Failed, status.exitCode,
            "stopped: ran past its maximum runtime of " + std::to_string(w.maxRuntimeMs) + " ms" + exited);
    else if (cancelling && stopped)
        finish(w, WorkloadPhase::Cancelled, status.exitCode, "stopped on request" + exited);
    else if (status.state == "exited")
        launchEnded(w, status.exitCode == 0 ? WorkloadPhase::Succeeded : WorkloadPhase::Failed, status.exitCode,
            "exited with code " + std::to_string(status.exitCode));
    else if (status.state == "killed")
        launchEnded(w, WorkloadPhase::Killed, status.exitCode, "killed by signal " + std::to_string(status.exitCode));
    else if (status.state == "oom_killed")
        launchEnded(w, WorkloadPhase::OomKilled, status.exitCode, "killed: its pool ran out of memory");
    else if (status.state == "stopped")
        finish(w, WorkloadPhase::Cancelled, status.exitCode, "stopped");
    else if (status.state == "lost" && cancelling)
        finish(w, WorkloadPhase::Cancelled, status.exitCode, "stopped on request; its agent lost track of it");
    else if (status.state == "lost")
        requeue(w, "node " + nodeName + " lost track of it");
    else
        launchEnded(w, WorkloadPhase::Failed, status.exitCode, "could not start: " + detail);
}

void ControlPlane::stopOn(LiveNode& node, WorkloadId id, std::int32_t incarnation)
{
    if (!m_link.send || node.sessionId.empty())
        return; // a copy still running is stopped when its node returns and reports it
    const std::pair key { id, incarnation };
    if (node.stopsInFlight.count(key) || node.stopsWaiting.count(key))
        return; // on its way already: the agent keeps a stop's deadline, one is enough
    if (node.stopsInFlight.size() >= m_config.stopWindow) {
        node.stopsWaiting.insert(key);
        node.stopQueue.push_back(key);
        return;
    }
    sendStop(node, key);
}

void ControlPlane::sendStop(LiveNode& node, std::pair<WorkloadId, std::int32_t> key)
{
    node.stopsInFlight.emplace(key, Clock::now());
    // The workload's own grace where it was submitted with one (a workload forgotten since gets the core's).
    const auto w = m_workloads.find(key.first);
    const std::int32_t grace
        = w != m_workloads.end() && w->second.stopGraceMs >= 0 ? w->second.stopGraceMs : m_config.stopGraceMs;
    if (m_link.send(node.sessionId, protocol::Stop { key.first, grace, key.second }))
        ++m_stats.stopsSent;
    else
        node.stopsInFlight.erase(key);
}

void ControlPlane::stopAnswered(LiveNode& node, WorkloadId id, std::int32_t incarnation, const std::string& state)
{
    // A stopped launch answers with its end (or at once, when it had ended or is not held); a `running` status is
    // older news, sent before the stop arrived.
    if (state == "running" || !node.stopsInFlight.erase({ id, incarnation }))
        return;
    while (node.stopsInFlight.size() < m_config.stopWindow && !node.stopQueue.empty() && !node.sessionId.empty()) {
        const auto waiting = node.stopQueue.front();
        node.stopQueue.pop_front();
        node.stopsWaiting.erase(waiting);
        sendStop(node, waiting);
    }
}

void ControlPlane::expireStops(LiveNode& node, Clock::time_point now)
{
    std::vector<std::pair<WorkloadId, std::int32_t>> expired;
    for (const auto& [key, sent] : node.stopsInFlight)
        if (now - sent >= m_config.stopAnswerTimeout)
            expired.push_back(key);
    for (const auto& [id, incarnation] : expired) {
        ++m_stats.stopsUnanswered;
        logLine("control: node " + m_cluster.node(node.id).name + " has not answered the stop of workload "
            + std::to_string(id) + " incarnation " + std::to_string(incarnation) + " within "
            + std::to_string(m_config.stopAnswerTimeout.count()) + " ms; it leaves the stop window");
        stopAnswered(node, id, incarnation, "lost");
    }
}

void ControlPlane::newIncarnation(LiveWorkload& w, NodeId launchedOn)
{
    if (launchedOn != kNoNode) {
        w.previousNode = launchedOn;
        w.previousIncarnation = w.incarnation;
    }
    // Saturates rather than wraps: 2^31 relaunches of one workload do not happen, and wrapping would reuse one.
    if (w.highestIncarnation < protocol::kMaxIncarnation)
        ++w.highestIncarnation;
    w.incarnation = w.highestIncarnation;
    w.measured = {};
    w.cpuHistogram.clear();
    w.cpuP90Millis = -1;
    w.resizesSent.clear(); // a new launch starts at the size it asks for
    w.resizeActors.clear();
    w.resizeRefused.clear();
    markWorkload(w.workload.id);
}

void ControlPlane::onHeartbeat(const std::string& sessionId, const protocol::Heartbeat& heartbeat)
{
    LiveNode* node = nodeOfSession(sessionId);
    if (!node)
        return;
    node->lastSeen = Clock::now();
    ++node->heartbeats;
    node->usageSequence = ++m_usageSequence;
    if (!heartbeat.samples.empty()) {
        const protocol::UtilisationSample& s = heartbeat.samples.back();
        node->lastHeartbeatMs = s.timestampMs;
        node->cpuUtilisation = s.cpuUtilisation;
        node->memoryUsedMiB = s.memoryUsedMiB;
        node->devices = s.devices;
        node->poolUsage = s.pools;
        // Kept for the history recorder (which keeps nodes', pools' and tiers' series, not workloads'); bounded, in
        // case none takes them.
        constexpr std::size_t kMaxUnrecorded = 2048;
        if (m_store) {
            const std::size_t from = node->unrecorded.size();
            node->unrecorded.insert(node->unrecorded.end(), heartbeat.samples.begin(), heartbeat.samples.end());
            for (std::size_t i = from; i < node->unrecorded.size(); ++i)
                node->unrecorded[i].workloads.clear();
            if (node->unrecorded.size() > kMaxUnrecorded)
                node->unrecorded.erase(node->unrecorded.begin(),
                    node->unrecorded.begin() + static_cast<std::ptrdiff_t>(node->unrecorded.size() - kMaxUnrecorded));
        }
    }
    // Each workload's use, sample by sample (a backlog holds several), for its current launch on this node only.
    for (const protocol::UtilisationSample& sample : heartbeat.samples)
        for (const protocol::WorkloadUsage& u : sample.workloads) {
            const auto it = m_workloads.find(u.workloadId);
            if (it == m_workloads.end())
                continue;
            LiveWorkload& w = it->second;
            if (w.node != node->id || w.incarnation != u.incarnation
                || (w.phase != WorkloadPhase::Running && w.phase != WorkloadPhase::Stopping)
                || sample.timestampMs < w.measured.atMs)
                continue;
            MeasuredWorkloadUse& m = w.measured;
            if (m.sinceMs == 0)
                m.sinceMs = sample.timestampMs;
            m.atMs = sample.timestampMs;
            m.cpuMillis = u.cpuMillis;
            m.memoryMiB = u.memoryMiB;
            m.peakCpuMillis = std::max(m.peakCpuMillis, u.cpuMillis);
            m.peakMemoryMiB = std::max(m.peakMemoryMiB, u.memoryMiB);
            w.cpuHistogram.add(u.cpuMillis, sample.timestampMs);
            w.cpuP90Millis = w.cpuHistogram.percentile(0.9);
            saveMeasuredUseWhenDue(w);
        }
    // A node's pools follow its workloads: a pool whose last workload there ended goes (its agent removes its cgroup,
    // and its class), and on a shaped node each guarantee follows what the workloads asked for; and its capacity comes
    // down to a slower link as they end.
    if (poolsSentChanged(*node))
        sendPools(*node);
    applyNetworkCapacity(*node);
    // Heard from: ready again, also when it had been taken for off (its agent was not switched off after all).
    if (node->state == NodeState::Suspect || node->state == NodeState::Off || node->state == NodeState::Booting)
        setNodeState(*node, NodeState::Ready);
}

void ControlPlane::onWorkloadUpdate(const std::string& sessionId, const protocol::WorkloadStatus& status)
{
    LiveNode* node = nodeOfSession(sessionId);
    if (!node)
        return;
    node->lastSeen = Clock::now();
    applyStatus(*node, status, false);
}

void ControlPlane::onLeft(const std::string& sessionId, const std::string& reason)
{
    m_pendingJoins.erase(sessionId);
    LiveNode* node = nodeOfSession(sessionId);
    if (!node)
        return;
    m_nodeBySession.erase(sessionId);
    // Reads of output this agent was asked for end now: it will not answer them.
    std::vector<std::int64_t> unanswered;
    for (const auto& [requestId, wait] : m_logsWaits)
        if (wait.sessionId == sessionId)
            unanswered.push_back(requestId);
    for (const std::int64_t requestId : unanswered) {
        LogsAnswer answer;
        answer.status = 503;
        answer.error = "the agent of node " + m_cluster.node(node->id).name + " left before answering (" + reason + ")";
        endLogsWait(requestId, std::move(answer));
    }
    node->sessionId.clear();
    node->poolsSent.clear();
    forgetLaunches(*node);
    logLine("control: node " + m_cluster.node(node->id).name + " disconnected: " + reason);
    // Disconnected is not lost: the agent keeps its workloads running and reconnects; liveness decides. A node
    // powered down by a proposal and holding nothing is off: its agent leaving is what powering it down does.
    if (poweredDownAndEmpty(*node) && node->state != NodeState::Joining)
        setNodeState(*node, NodeState::Off);
    else if (node->state == NodeState::Ready)
        setNodeState(*node, NodeState::Suspect); // no new work onto a node that cannot be told to run it
}

bool ControlPlane::poweredDownAndEmpty(const LiveNode& node) const
{
    return node.cordon.rfind(kPowerDownCordon, 0) == 0 && m_cluster.node(node.id).residents.empty();
}

void ControlPlane::checkLiveness(Clock::time_point now)
{
    const bool inGrace = now - m_startedAt < m_config.restartGrace && m_restored;
    for (LiveNode& node : m_nodes) {
        if (!node.stopsInFlight.empty())
            expireStops(node, now);
        if (node.state == NodeState::Joining || node.state == NodeState::Off)
            continue;
        if (node.state == NodeState::Booting) {
            if (now - node.bootingSince >= m_config.bootTimeout) {
                logLine("control: node " + m_cluster.node(node.id).name + " was powered up "
                    + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now - node.bootingSince).count())
                    + " s ago and its agent has not come back; declaring it lost");
                nodeBecameLost(node);
            }
            continue;
        }
        const auto silent = now - node.lastSeen;
        // Powered down by a proposal and holding nothing: its silence is expected (the power command switched it off,
        // or the daemon restarted since), so it is off, not suspect or lost, and raises no alert.
        if (poweredDownAndEmpty(node) && (node.state == NodeState::Lost || silent >= m_config.suspectAfter)) {
            setNodeState(node, NodeState::Off);
            continue;
        }
        if (node.state == NodeState::Lost)
            continue;
        if (silent >= m_config.lostAfter && !inGrace)
            nodeBecameLost(node);
        else if (silent >= m_config.suspectAfter && node.state == NodeState::Ready)
            setNodeState(node, NodeState::Suspect);
    }
}

void ControlPlane::nodeBecameLost(LiveNode& node)
{
    ++m_stats.nodesLost;
    setNodeState(node, NodeState::Lost);
    if (!node.sessionId.empty() && m_link.disconnect)
        m_link.disconnect(node.sessionId, "declared lost: silent too long");
    const std::string name = m_cluster.node(node.id).name;
    const std::vector<WorkloadId> residents = m_cluster.node(node.id).residents;
    for (const WorkloadId id : residents) {
        auto it = m_workloads.find(id);
        if (it == m_workloads.end())
            continue;
        LiveWorkload& w = it->second;
        if (w.phase == WorkloadPhase::Stopping) {
            m_cancelledAway.insert(id);
            finish(w, WorkloadPhase::Cancelled, 0, "cancelled; node " + name + " was lost before it stopped");
        } else {
            ++m_stats.replacedAfterLoss;
            requeue(w, "node " + name + " was lost");
        }
    }
}

void ControlPlane::applyNetworkCapacity(LiveNode& node)
{
    const Node& model = m_cluster.node(node.id);
    if (model.capacity.netBandwidthMbps == node.netLinkMbps)
        return;
    // A link slower than what its workloads were guaranteed (the agent restarted with a lower rate): capacity is
    // what they hold until enough of them end, so that nothing more is placed there, and it comes down to the link
    // then.
    const std::int64_t held = model.capacity.netBandwidthMbps - model.free.netBandwidthMbps;
    const std::int64_t capacity = std::max(node.netLinkMbps, held);
    if (capacity > node.netLinkMbps && !node.netOverLinkLogged) {
        node.netOverLinkLogged = true;
        logLine("control: warning: node " + model.name + " shapes its link at " + std::to_string(node.netLinkMbps)
            + " Mbit/s, less than the " + std::to_string(held)
            + " Mbit/s its workloads are guaranteed: nothing more is placed there until they are within it");
    }
    if (capacity == node.netLinkMbps)
        node.netOverLinkLogged = false;
    if (capacity != model.capacity.netBandwidthMbps && m_cluster.setNetworkCapacity(node.id, capacity))
        m_scheduler->nodesChanged();
}

ControlPlane::PoolsToSend ControlPlane::poolsToSend(const LiveNode& live, PoolId also) const
{
    const Node& node = m_cluster.node(live.id);
    // An agent from before launch-pool keeps every pool's cgroup (it removes none): it is sent every pool, as before.
    const bool everyPool = !protocol::hasFeature(live.agentFeatures, protocol::kFeatureLaunchPool);
    std::vector<std::int64_t> rates(node.pools.size(), everyPool ? 0 : -1); // -1: not in use
    const auto use = [&](PoolId pool, std::int64_t netMbps) {
        const auto at = std::find(node.pools.begin(), node.pools.end(), pool);
        if (at != node.pools.end()) {
            std::int64_t& rate = rates[static_cast<std::size_t>(at - node.pools.begin())];
            rate = std::max<std::int64_t>(rate, 0) + std::max<std::int64_t>(netMbps, 0);
        }
    };
    if (also != kNoPool)
        use(also, 0);
    for (const WorkloadId id : node.residents)
        if (const WorkloadRecord* r = m_cluster.workload(id))
            use(r->workload.pool, r->workload.requests.netBandwidthMbps);
    PoolsToSend toSend;
    for (std::size_t i = 0; i < rates.size(); ++i)
        if (rates[i] >= 0) {
            toSend.pools.push_back(node.pools[i]);
            toSend.netMbps.push_back(rates[i]);
        }
    return toSend;
}

bool ControlPlane::poolsSentChanged(const LiveNode& node) const
{
    if (node.poolsSent.empty())
        return false;
    const PoolsToSend inUse = poolsToSend(node);
    const auto sentRate = [&](PoolId pool) -> std::int64_t { // -1: not sent
        const auto at = std::find(node.poolsSent.begin(), node.poolsSent.end(), pool);
        const auto i = static_cast<std::size_t>(at - node.poolsSent.begin());
        return at == node.poolsSent.end() ? -1 : i < node.poolNetSent.size() ? node.poolNetSent[i] : 0;
    };
    // A pool in use but not sent yet counts as sent with no guarantee: it reaches the agent with its first launch.
    if (node.netShaped())
        for (std::size_t i = 0; i < inUse.pools.size(); ++i)
            if (std::max<std::int64_t>(sentRate(inUse.pools[i]), 0) != inUse.netMbps[i])
                return true;
    for (const PoolId sent : node.poolsSent)
        if (std::find(inUse.pools.begin(), inUse.pools.end(), sent) == inUse.pools.end())
            return true;
    return false;
}

void ControlPlane::sendPools(LiveNode& node, PoolId also)
{
    if (!m_link.send || node.sessionId.empty())
        return;
    PoolsToSend inUse = poolsToSend(node, also);
    protocol::PoolConfig config;
    for (std::size_t i = 0; i < inUse.pools.size(); ++i)
        config.pools.push_back(poolLimits(node, inUse.pools[i], inUse.netMbps[i]));
    if (!m_link.send(node.sessionId, config))
        return;
    node.poolsSent = std::move(inUse.pools);
    node.poolNetSent = node.netShaped() ? std::move(inUse.netMbps) : std::vector<std::int64_t> {};
}

protocol::PoolLimits ControlPlane::poolLimits(const LiveNode& node, PoolId id, std::int64_t netMbps) const
{
    const Node& model = m_cluster.node(node.id);
    const Pool& pool = m_cluster.pool(id);
    // A pool's quota is cluster-wide; on one node its cgroup can take at most what the node has.
    return protocol::PoolLimits { pool.name, std::min(pool.quota.cpuMillis, model.capacity.cpuMillis),
        std::min(pool.quota.memoryMiB, model.capacity.memoryMiB), m_poolIoWeight[static_cast<std::size_t>(id)],
        node.netShaped() ? std::min(netMbps, protocol::kMaxNetMbps) : 0 };
}

bool ControlPlane::poolSent(const LiveNode& node, PoolId pool)
{
    return std::find(node.poolsSent.begin(), node.poolsSent.end(), pool) != node.poolsSent.end();
}

// ---- workloads -------------------------------------------------------------------------------------------------

const LiveWorkload* ControlPlane::workload(WorkloadId id) const
{
    const auto it = m_workloads.find(id);
    return it == m_workloads.end() ? nullptr : &it->second;
}

void ControlPlane::setPhase(LiveWorkload& w, WorkloadPhase phase, std::string actor)
{
    if (phase != w.phase || phase == WorkloadPhase::Launching) // launching again: migrated
        m_events.push(ClusterEvent { 0, nowMs(), ClusterEventKind::WorkloadPhase, w.workload.id, w.workload.name,
            std::string(toString(w.phase)), std::string(toString(phase)),
            w.node == kNoNode ? std::string() : m_cluster.node(w.node).name, std::move(actor), w.detail });
    --m_phaseCounts[static_cast<std::size_t>(w.phase)];
    ++m_phaseCounts[static_cast<std::size_t>(phase)];
    if (phase == WorkloadPhase::Running && w.phase != WorkloadPhase::Running && w.maxRuntimeMs > 0)
        m_runtimeLimits.insert({ (w.runningMs > 0 ? w.runningMs : nowMs()) + w.maxRuntimeMs, w.workload.id });
    w.phase = phase;
    markWorkload(w.workload.id);
}

// ---- persistence -----------------------------------------------------------------------------------------------

void ControlPlane::noteWorkloadChange(LiveWorkload& w)
{
    if (w.changeSequence != 0)
        m_workloadChanges.erase(w.changeSequence);
    w.changeSequence = ++m_workloadSequence;
    m_workloadChanges.emplace(w.changeSequence, w.workload.id);
}

void ControlPlane::markWorkload(WorkloadId id)
{
    ++m_stateVersion;
    if (const auto it = m_workloads.find(id); it != m_workloads.end())
        noteWorkloadChange(it->second);
    if (!m_store)
        return;
    m_dirtyWorkloads.insert(id);
    scheduleFlush();
}

void ControlPlane::saveMeasuredUseWhenDue(LiveWorkload& w)
{
    const MeasuredWorkloadUse& m = w.measured;
    const MeasuredWorkloadUse& saved = w.savedPeaks;
    const auto risen = [](std::int64_t now, std::int64_t was, std::int64_t quantum) {
        return now > was + std::max(was / 10, quantum);
    };
    constexpr std::int64_t kHistogramEveryMs = 3'600'000;
    if (m.sinceMs == saved.sinceMs && !risen(m.peakCpuMillis, saved.peakCpuMillis, 10)
        && !risen(m.peakMemoryMiB, saved.peakMemoryMiB, 16) && m.atMs - w.histogramSavedAtMs < kHistogramEveryMs)
        return;
    // Moved enough to show: lists that follow changes (a console attached over the API) read it again.
    noteWorkloadChange(w);
    if (!m_store) {
        // Nothing to save: these are what was last shown.
        w.savedPeaks = m;
        w.histogramSavedAtMs = m.atMs;
        return;
    }
    m_dirtyWorkloads.insert(w.workload.id);
    scheduleFlush();
}

void ControlPlane::markNode(NodeId id)
{
    ++m_stateVersion;
    if (!m_store)
        return;
    m_dirtyNodes.insert(id);
    scheduleFlush();
}

void ControlPlane::markPool(PoolId id)
{
    ++m_stateVersion;
    if (!m_store)
        return;
    m_dirtyPools.insert(id);
    scheduleFlush();
}

void ControlPlane::scheduleFlush()
{
    if (m_flushArmed)
        return;
    m_flushArmed = true;
    // Changes are written together, at most every 50 ms: one transaction for a burst of submissions.
    m_flushTimer.expires_after(std::chrono::milliseconds(50));
    m_flushTimer.async_wait(whileAlive([this](const boost::system::error_code& ec) {
        if (ec)
            return; // cancelled: whoever cancelled it re-arms or stops
        m_flushArmed = false;
        flush();
    }));
}

void ControlPlane::whenSaved(SavedCallback done)
{
    if (!m_store) {
        done(std::nullopt);
        return;
    }
    m_saveWaiters.push_back(std::move(done));
    if (m_saveArmed)
        return;
    // Not at once: whatever else is ready on this thread (more requests of a burst) joins the same commit.
    m_saveArmed = true;
    m_saveTimer.expires_after(std::chrono::milliseconds(0));
    m_saveTimer.async_wait(whileAlive([this](const boost::system::error_code& ec) {
        if (ec)
            return;
        m_saveArmed = false;
        flush();
    }));
}

void ControlPlane::audit(store::AuditEntry entry)
{
    // The timeline shows what was done: an API request's "received" entry is followed by its "completed" one.
    if (entry.stage != "received") {
        const auto comment = entry.detail.is_object() ? entry.detail.find("comment") : entry.detail.end();
        m_events.push(ClusterEvent { 0, entry.atMs, ClusterEventKind::Audit, 0, entry.target, entry.action,
            entry.outcome, {}, entry.actor,
            comment != entry.detail.end() && comment->is_string() ? comment->get<std::string>() : std::string() });
    }
    if (!m_store)
        return;
    m_store->addAudit(entry);
    scheduleFlush();
}

void ControlPlane::persistSamples(const std::vector<store::Sample>& samples)
{
    if (!m_store || samples.empty())
        return;
    m_store->addSamples(samples);
    scheduleFlush();
}

void ControlPlane::persistForecast(const store::StoredForecast& forecast)
{
    if (!m_store)
        return;
    m_store->putForecast(forecast);
    scheduleFlush();
}

void ControlPlane::persistProposal(const store::StoredProposal& proposal)
{
    if (!m_store)
        return;
    m_store->putProposal(proposal);
    scheduleFlush();
}

std::vector<std::pair<NodeId, std::vector<protocol::UtilisationSample>>> ControlPlane::takeUtilisation()
{
    std::vector<std::pair<NodeId, std::vector<protocol::UtilisationSample>>> taken;
    for (LiveNode& node : m_nodes)
        if (!node.unrecorded.empty())
            taken.emplace_back(node.id, std::exchange(node.unrecorded, {}));
    return taken;
}

void ControlPlane::flush()
{
    if (!m_store)
        return;
    std::vector<SavedCallback> waiters = std::exchange(m_saveWaiters, {});
    for (const PoolId id : m_dirtyPools) {
        const Pool& p = m_cluster.pool(id);
        if (p.removed) {
            // Before a pool created since under its name: ids grow, and the set holds them in order.
            if (const auto deletion = m_deletionOf.find(id); deletion != m_deletionOf.end())
                m_store->removePool(m_deletedPools[deletion->second]);
            continue;
        }
        auto share = [&p](AcceleratorKind kind) { return p.acceleratorQuota[static_cast<std::size_t>(kind)]; };
        m_store->putPool(store::StoredPool { p.name, p.businessLine,
            p.tier == Tier::Invalid ? std::string() : std::string(toString(p.tier)), p.quota.cpuMillis,
            p.quota.memoryMiB, poolIoWeight(id), p.quota.memBandwidthMBps, p.quota.netBandwidthMbps,
            share(AcceleratorKind::Gpu), share(AcceleratorKind::Npu), share(AcceleratorKind::Fpga),
            poolDisruptionBudget(id).count, poolDisruptionBudget(id).percent });
    }
    for (const NodeId id : m_dirtyNodes) {
        const Node& n = m_cluster.node(id);
        nlohmann::json devices = nlohmann::json::array();
        for (const Device& d : n.devices)
            devices.push_back({ { "kind", std::string(toString(d.kind)) }, { "model", m_cluster.modelName(d.model) },
                { "memoryMiB", d.memoryMiB }, { "shareCapacity", d.shareCapacity } });
        const LiveNode& live = m_nodes[static_cast<std::size_t>(id)];
        store::StoredNode stored { n.name, std::string(toString(n.isa)), std::string(toString(n.tier)),
            n.capacity.cpuMillis, n.capacity.memoryMiB, std::move(devices), live.cpuModel, nowMs(), live.cordon,
            n.peakReserved };
        if (live.drain) {
            stored.drainMaxParallel = live.drain->maxParallel;
            stored.drainStartedMs = live.drain->startedMs;
            stored.drainDeadlineMs = live.drain->deadlineAtMs;
            stored.drainActor = live.drain->actor;
            stored.drainMoved = live.drain->moved;
            stored.drainEvicted = live.drain->evicted;
        }
        m_store->putNode(stored);
    }
    for (const WorkloadId id : m_dirtyWorkloads) {
        const auto it = m_workloads.find(id);
        if (it == m_workloads.end())
            continue;
        LiveWorkload& w = it->second;
        w.savedPeaks = MeasuredWorkloadUse {};
        w.savedPeaks.sinceMs = w.measured.sinceMs;
        w.savedPeaks.peakCpuMillis = w.measured.peakCpuMillis;
        w.savedPeaks.peakMemoryMiB = w.measured.peakMemoryMiB;
        w.histogramSavedAtMs = w.measured.atMs;
        nlohmann::json devices = nlohmann::json::array();
        for (const DeviceShare& d : w.devices)
            devices.push_back({ { "device", d.device }, { "share", d.share }, { "memoryMiB", d.memoryMiB } });
        m_store->putWorkload(store::StoredWorkload { id, submissionJson(w, m_cluster), std::string(toString(w.phase)),
            w.node == kNoNode ? std::string() : m_cluster.node(w.node).name, std::move(devices), w.translated, w.pid,
            w.exitCode, w.detail, w.submittedMs, w.placedMs, w.runningMs, w.finishedMs, w.incarnation,
            w.highestIncarnation, w.restarts, w.crashLoop, w.restartAtMs,
            w.previousNode == kNoNode ? std::string() : m_cluster.node(w.previousNode).name, w.previousIncarnation,
            w.savedPeaks.sinceMs, w.savedPeaks.peakCpuMillis, w.savedPeaks.peakMemoryMiB,
            w.cpuHistogram.empty() ? nlohmann::json(nullptr) : w.cpuHistogram.toJson() });
    }
    for (const WorkloadId id : m_forgotten)
        m_store->removeWorkload(id);
    m_dirtyPools.clear();
    m_dirtyNodes.clear();
    m_dirtyWorkloads.clear();
    m_forgotten.clear();
    const auto started = Clock::now();
    auto committed = m_store->commit();
    m_stats.storeCommitMicrosTotal += static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started).count());
    if (!committed) {
        // The store keeps what it could not write; the next flush retries it. Until one succeeds the daemon is
        // read-only: the API refuses changes instead of acknowledging what it cannot keep. Each new reason is
        // logged once, as an alert.
        ++m_stats.storeErrors;
        if (committed.error().message != m_lastStoreError) {
            m_lastStoreError = committed.error().message;
            logLine("ALERT store: cannot save " + std::to_string(m_store->pending())
                + " changes; read-only until it can (retrying every second): " + m_lastStoreError);
        }
        m_readOnlyReason = m_lastStoreError;
        for (SavedCallback& waiter : waiters)
            waiter(m_lastStoreError);
        m_flushArmed = true;
        m_flushTimer.expires_after(std::chrono::seconds(1));
        m_flushTimer.async_wait(whileAlive([this](const boost::system::error_code& ec) {
            if (ec)
                return;
            m_flushArmed = false;
            flush();
        }));
        return;
    }
    if (!m_lastStoreError.empty()) {
        logLine("store: saving again; read-only mode ended");
        m_lastStoreError.clear();
        m_readOnlyReason.clear();
    }
    ++m_stats.storeCommits;
    for (SavedCallback& waiter : waiters)
        waiter(std::nullopt);
}

PoolId ControlPlane::deletedPool(const std::string& name)
{
    for (const Pool& p : m_cluster.pools())
        if (p.removed && p.name == name)
            return p.id;
    Pool pool;
    pool.name = name;
    const PoolId id = m_cluster.addPool(std::move(pool));
    m_poolIoWeight.push_back(PoolRequest {}.ioWeight);
    m_poolDisruptionBudget.emplace_back();
    (void)m_cluster.removePool(id);
    return id;
}

ApiResult<WorkloadId> ControlPlane::addWorkload(
    SubmitRequest request, WorkloadId id, std::optional<std::int64_t> endedMs)
{
    if (m_workloads.size() >= m_config.maxWorkloads)
        return tl::unexpected(ApiError { 429,
            "the core already holds " + std::to_string(m_workloads.size()) + " workloads, its configured maximum" });
    const std::string poolName = request.pool.empty() ? std::string(kDefaultPool) : request.pool;
    auto pool = poolByName(poolName);
    const bool endedBeforeADeletion = endedMs && *endedMs > 0
        && std::any_of(m_deletedPools.begin(), m_deletedPools.end(),
            [&](const store::DeletedPool& d) { return d.name == poolName && d.deletedMs >= *endedMs; });
    if (endedMs && (!pool || endedBeforeADeletion))
        pool = deletedPool(poolName);
    if (!pool)
        return tl::unexpected(ApiError { 400, "field `pool`: no pool is named \"" + poolName + "\"" });
    Workload w;
    w.id = id;
    w.name = request.name;
    w.requests = request.requests;
    w.accelerators = request.accelerators;
    for (const std::string& model : request.acceleratorModels) {
        const auto modelId = m_cluster.findModel(model);
        if (!modelId)
            return tl::unexpected(ApiError { 400,
                "field `accelerators.models`: no node has a device of model \"" + model + "\"" });
        w.accelerators.allowedModels.push_back(*modelId);
    }
    w.priority = request.priority;
    w.latency = request.latency;
    w.pinnedTier = request.pinnedTier;
    w.nativeIsas = request.nativeIsas;
    w.allowTranslation = request.allowTranslation;
    w.deferrable = request.deferrable;
    w.pool = *pool;
    if (auto added = m_cluster.addWorkload(w); !added)
        return tl::unexpected(ApiError { 400, added.error().message });
    m_nextId = std::max(m_nextId, id + 1);
    m_highestOwnId = std::max(m_highestOwnId, id);
    LiveWorkload live;
    live.workload = std::move(w);
    live.poolName = poolName;
    live.argv = std::move(request.argv);
    live.env = std::move(request.env);
    live.memoryLimitMiB = request.memoryLimitMiB;
    live.cpuLimitMillis = request.cpuLimitMillis;
    live.restart = request.restart;
    live.maxRestarts = request.maxRestarts;
    live.maxRuntimeMs = request.maxRuntimeMs;
    live.stopGraceMs = request.stopGraceMs;
    live.rightSize = request.rightSize;
    live.submittedMs = nowMs();
    if (live.workload.deferrable)
        live.deadlineMs = request.deadlineMs > 0 ? request.deadlineMs : live.submittedMs + kDefaultDeferralMs;
    m_workloads.emplace(id, std::move(live));
    ++m_phaseCounts[static_cast<std::size_t>(WorkloadPhase::Pending)];
    markWorkload(id);
    return id;
}

ApiResult<WorkloadId> ControlPlane::submit(SubmitRequest request)
{
    // A pool bound to a tier keeps its workloads there: one pinned to another could never be placed.
    if (const auto pool = poolByName(request.pool.empty() ? std::string(kDefaultPool) : request.pool);
        pool && request.pinnedTier != Tier::Invalid) {
        const Tier poolTier = m_cluster.pool(*pool).tier;
        if (poolTier != Tier::Invalid && poolTier != request.pinnedTier)
            return tl::unexpected(ApiError { 400,
                "field `tier`: pool " + m_cluster.pool(*pool).name + " keeps its workloads on the "
                    + std::string(toString(poolTier)) + " tier; a workload pinned to the "
                    + std::string(toString(request.pinnedTier)) + " tier could never be placed in it" });
    }
    auto id = addWorkload(std::move(request), m_nextId);
    if (!id)
        return id;
    LiveWorkload& w = m_workloads.at(*id);
    if (m_stats.firstSubmitMs == 0)
        m_stats.firstSubmitMs = w.submittedMs;
    ++m_stats.submitted;
    if (holdForCarbon(w, nowMs())) {
        m_held.insert({ -w.workload.priority, *id });
        return id;
    }
    // Older pending work of the same or a higher priority goes first: the new one is queued behind it and tried in the
    // pass this posts, after it. That older work has found no place at the capacity there is (a pass follows every
    // change that frees some), so the new one takes only what the older could not use, and a workload that waits for
    // its pool's quota or another ISA does not hold up the rest.
    const bool queueAhead = !m_pending.empty() && m_pending.begin()->first <= -w.workload.priority;
    if (queueAhead) {
        w.detail = "queued behind older pending work of the same or a higher priority; tried after it";
        m_pending.insert({ -w.workload.priority, *id });
        schedulePendingRetry(false);
    } else if (!tryPlace(w)) {
        m_pending.insert({ -w.workload.priority, *id });
    }
    return id;
}

// Which quota of its pool keeps `w` out, and by how much. A share of whole devices depends on a node's devices: it is
// judged on the first of the pool's nodes that has one of the kind.
std::string ControlPlane::poolShortfall(const Workload& w) const
{
    if (w.pool == kNoPool)
        return "it has no pool";
    const Pool& pool = m_cluster.pool(w.pool);
    std::int64_t share = 0;
    if (w.accelerators.any())
        for (const NodeId id : pool.nodes) {
            const Node& node = m_cluster.node(id);
            if (std::any_of(node.devices.begin(), node.devices.end(),
                    [&](const Device& d) { return d.kind == w.accelerators.kind; })) {
                share = filters::acceleratorShare(node, w);
                break;
            }
        }
    const std::string words = quotaShortfall(pool, w.requests, w.accelerators.kind, share);
    return "pool " + pool.name + (words.empty() ? " has no quota left for it" : " quota: " + words);
}

bool ControlPlane::tryPlace(LiveWorkload& w)
{
    const auto started = Clock::now();
    Decision decision = m_scheduler->place(w.workload.id);
    const auto micros = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started).count());
    m_stats.placementMicrosTotal += micros;
    std::size_t bucket = 0;
    while (bucket < kPlacementBucketsMicros.size() && static_cast<double>(micros) > kPlacementBucketsMicros[bucket])
        ++bucket;
    ++m_stats.placementMicrosBuckets[bucket];
    ++w.attempts;
    w.lastReport = decision.report;
    noteWorkloadChange(w); // its attempts, and its detail below (not stored: only a placement is)
    if (!decision.placement) {
        ++m_stats.placementFailures;
        w.detail = decision.reason();
        // The pool's quota is judged at every node that could take the workload otherwise: where it refused any,
        // say which quota and by how much, whatever refused the other nodes.
        if (decision.report.rejected[static_cast<std::size_t>(RejectReason::PoolQuotaExhausted)] > 0)
            w.detail += "; " + poolShortfall(w.workload);
        if (const Tier poolTier = filters::poolTier(m_cluster, w.workload); poolTier != Tier::Invalid
            && decision.report.rejected[static_cast<std::size_t>(RejectReason::TierNotAllowed)] > 0)
            w.detail += "; pool " + m_cluster.pool(w.workload.pool).name + " keeps its workloads on the "
                + std::string(toString(poolTier)) + " tier"
                + (w.workload.pinnedTier != Tier::Invalid && w.workload.pinnedTier != poolTier
                        ? ", and this one is pinned to the " + std::string(toString(w.workload.pinnedTier)) + " tier"
                        : std::string());
        return false;
    }
    ++m_stats.placements;
    for (const WorkloadId victim : decision.victims) {
        auto it = m_workloads.find(victim);
        if (it == m_workloads.end())
            continue;
        ++m_stats.preemptions;
        LiveWorkload& v = it->second;
        // The scheduler has already unbound the victim; stop it where it ran and put it back in the queue.
        if (v.node != kNoNode)
            stopOn(m_nodes[static_cast<std::size_t>(v.node)], victim, v.incarnation);
        newIncarnation(v, v.node);
        v.node = kNoNode;
        v.devices.clear();
        v.detail = "preempted by workload " + std::to_string(w.workload.id) + " (priority "
            + std::to_string(w.workload.priority) + ")";
        setPhase(v, WorkloadPhase::Pending);
        m_pending.insert({ -v.workload.priority, victim });
    }
    if (!decision.victims.empty())
        schedulePendingRetry(false); // the victims may fit elsewhere now
    w.node = decision.placement->node;
    w.devices = decision.placement->shares;
    w.translated = decision.placement->translated;
    w.placedMs = nowMs();
    // Where preemption made the room, say whose it was: the report counts the nodes feasible without it.
    std::string preempted;
    for (const WorkloadId victim : decision.victims)
        if (const auto it = m_workloads.find(victim); it != m_workloads.end())
            preempted += std::string(preempted.empty() ? " by preempting " : ", ") + "workload "
                + std::to_string(victim) + " (priority " + std::to_string(it->second.workload.priority) + ")";
    w.detail = "placed on " + m_cluster.node(w.node).name + (w.translated ? " (translated)" : "") + preempted
        + (preempted.empty() ? "; " : "; without preempting, ") + decision.report.summary();
    setPhase(w, WorkloadPhase::Launching);
    launch(w);
    return true;
}

void ControlPlane::launch(LiveWorkload& w)
{
    LiveNode& node = m_nodes[static_cast<std::size_t>(w.node)];
    if (!m_link.send || node.sessionId.empty())
        return; // sent again by the reconciliation when the node returns
    const std::pair key { w.workload.id, w.incarnation };
    if (node.launchesInFlight.count(key) || node.launchesWaiting.count(key))
        return; // on its way already
    if (node.launchesInFlight.size() >= m_config.launchWindow) {
        node.launchesWaiting.insert(key);
        node.launchQueue.push_back(key);
        return;
    }
    sendLaunch(node, w);
}

void ControlPlane::sendLaunch(LiveNode& node, const LiveWorkload& w)
{
    // The agent launches only into a pool it was sent: one it was not goes with the launch where the agent takes that
    // (which spares a node taking many pools' first launches at once a `pools` message each, one pool longer every
    // time), else in a `pools` message first.
    const PoolId pool = w.workload.pool;
    const bool sent = poolSent(node, pool);
    const bool poolGoesAlong = !sent && protocol::hasFeature(node.agentFeatures, protocol::kFeatureLaunchPool);
    if (!sent && !poolGoesAlong)
        sendPools(node, pool);
    protocol::Launch launch;
    launch.workloadId = w.workload.id;
    launch.name = w.workload.name;
    launch.pool = w.poolName;
    launch.argv = w.argv;
    launch.env = w.env;
    launch.cpuMillis = w.workload.requests.cpuMillis;
    launch.memoryMiB = w.workload.requests.memoryMiB;
    launch.memoryLimitMiB = w.memoryLimitMiB;
    launch.cpuLimitMillis = w.cpuLimitMillis;
    for (const DeviceShare& share : w.devices)
        launch.devices.push_back(share.device);
    launch.incarnation = w.incarnation;
    std::int64_t poolNetMbps = 0;
    if (poolGoesAlong) {
        if (node.netShaped()) { // the pool's guarantee on the link: what its workloads here hold
            const PoolsToSend inUse = poolsToSend(node, pool);
            const auto at = std::find(inUse.pools.begin(), inUse.pools.end(), pool);
            if (at != inUse.pools.end())
                poolNetMbps = inUse.netMbps[static_cast<std::size_t>(at - inUse.pools.begin())];
        }
        launch.poolLimits = poolLimits(node, pool, poolNetMbps);
    }
    // In flight before it is sent: a link that answers at once (a simulation's) finds it there.
    node.launchesInFlight.emplace(w.workload.id, w.incarnation);
    if (m_link.send(node.sessionId, launch)) {
        ++m_stats.launchesSent;
        if (poolGoesAlong) {
            node.poolsSent.push_back(pool);
            if (node.netShaped()) { // one guarantee a pool sent, in the same order
                node.poolNetSent.resize(node.poolsSent.size() - 1, 0);
                node.poolNetSent.push_back(poolNetMbps);
            }
        }
    } else {
        node.launchesInFlight.erase({ w.workload.id, w.incarnation });
    }
}

void ControlPlane::launchAnswered(LiveNode& node, WorkloadId id, std::int32_t incarnation)
{
    if (!node.launchesInFlight.erase({ id, incarnation }))
        return;
    while (node.launchesInFlight.size() < m_config.launchWindow && !node.launchQueue.empty()) {
        const auto [waiting, waitingIncarnation] = node.launchQueue.front();
        node.launchQueue.pop_front();
        node.launchesWaiting.erase({ waiting, waitingIncarnation });
        // Still to launch here, as it was when it was queued: not cancelled, moved or relaunched meanwhile.
        const auto it = m_workloads.find(waiting);
        if (it != m_workloads.end() && it->second.phase == WorkloadPhase::Launching && it->second.node == node.id
            && it->second.incarnation == waitingIncarnation)
            sendLaunch(node, it->second);
    }
}

void ControlPlane::forgetLaunches(LiveNode& node)
{
    node.launchesInFlight.clear();
    node.launchesWaiting.clear();
    node.launchQueue.clear();
    // Stops too: a copy still running is reported by the next inventory and stopped again then.
    node.stopsInFlight.clear();
    node.stopsWaiting.clear();
    node.stopQueue.clear();
}

void ControlPlane::finish(LiveWorkload& w, WorkloadPhase phase, std::int32_t exitCode, std::string detail)
{
    m_scheduler->forgetKeptOff(w.workload.id);
    if (w.node != kNoNode) {
        (void)m_scheduler->release(w.workload.id);
        schedulePendingRetry();
    } else {
        unqueue(w);
    }
    w.exitCode = exitCode;
    w.detail = std::move(detail);
    w.finishedMs = nowMs();
    setPhase(w, phase);
    m_finishedOrder.push_back(w.workload.id);
    forgetOldFinished();
}

void ControlPlane::unqueue(LiveWorkload& w)
{
    m_pending.erase({ -w.workload.priority, w.workload.id });
    m_held.erase({ -w.workload.priority, w.workload.id });
    m_restarting.erase({ w.restartAtMs, w.workload.id });
    w.restartAtMs = 0;
}

void ControlPlane::launchEnded(LiveWorkload& w, WorkloadPhase phase, std::int32_t exitCode, std::string detail)
{
    const bool restarts = w.restart == RestartPolicy::Always
        || (w.restart == RestartPolicy::OnFailure && phase != WorkloadPhase::Succeeded);
    if (!restarts)
        return finish(w, phase, exitCode, std::move(detail));
    if (w.maxRestarts >= 0 && w.restarts >= w.maxRestarts)
        return finish(w, phase, exitCode,
            detail + "; not restarted again: it has had all the restarts it may have (maxRestarts "
                + std::to_string(w.maxRestarts) + ")");
    const std::int64_t now = nowMs();
    // A launch that ran a while is no crash loop: the back-off starts over. (`runningMs` is when the current launch
    // was seen running; one that ends still launching never ran.)
    w.neverRan = w.phase != WorkloadPhase::Running;
    const bool ranAWhile = w.phase == WorkloadPhase::Running && w.runningMs > 0
        && now - w.runningMs >= m_config.restartResetAfter.count();
    w.crashLoop = ranAWhile ? 1 : std::min(w.crashLoop + 1, 62);
    ++w.restarts;
    ++m_stats.restarts;
    const std::int64_t first = std::max<std::int64_t>(0, m_config.restartBackoff.count());
    const std::int64_t most = std::max(first, static_cast<std::int64_t>(m_config.restartBackoffMax.count()));
    std::int64_t backoff = first;
    for (int i = 1; i < w.crashLoop && backoff < most; ++i)
        backoff *= 2;
    backoff = std::min(backoff, most);
    w.exitCode = exitCode;
    w.restartAtMs = now + backoff;
    w.detail = detail + "; restart " + std::to_string(w.restarts)
        + (w.maxRestarts >= 0 ? " of at most " + std::to_string(w.maxRestarts) : std::string()) + " (restart "
        + std::string(toString(w.restart)) + ") after " + std::to_string(backoff) + " ms, at "
        + std::to_string(w.restartAtMs) + " (Unix ms)";
    // The event names the node it ended on; then it leaves it.
    setPhase(w, WorkloadPhase::Pending, std::string(kRestartPolicyActor));
    if (w.node != kNoNode) {
        (void)m_scheduler->release(w.workload.id);
        schedulePendingRetry();
    }
    newIncarnation(w, w.node);
    w.node = kNoNode;
    w.devices.clear();
    w.pid = 0;
    m_restarting.insert({ w.restartAtMs, w.workload.id });
    logLine("control: workload " + std::to_string(w.workload.id) + " " + w.detail);
}

void ControlPlane::requeue(LiveWorkload& w, std::string why)
{
    const bool released = w.node != kNoNode;
    if (released)
        (void)m_scheduler->release(w.workload.id);
    newIncarnation(w, w.node); // wherever it lands next, even on the node it left, it is a new launch
    w.node = kNoNode;
    w.devices.clear();
    w.pid = 0;
    w.detail = std::move(why);
    setPhase(w, WorkloadPhase::Pending);
    m_pending.insert({ -w.workload.priority, w.workload.id });
    // Only now that it is queued: a retry posted before would find the queue empty and place nothing (a workload its
    // agent lost would wait for the next change of capacity).
    if (released)
        schedulePendingRetry();
}

void ControlPlane::forgetOldFinished()
{
    while (m_finishedOrder.size() > m_config.keepFinished) {
        const WorkloadId id = m_finishedOrder.front();
        m_finishedOrder.pop_front();
        auto it = m_workloads.find(id);
        if (it == m_workloads.end() || !isFinal(it->second.phase))
            continue;
        --m_phaseCounts[static_cast<std::size_t>(it->second.phase)];
        (void)m_cluster.removeWorkload(id);
        m_workloadChanges.erase(it->second.changeSequence);
        m_workloads.erase(it);
        m_dirtyWorkloads.erase(id);
        if (m_store)
            m_forgotten.push_back(id);
    }
}

ApiResult<void> ControlPlane::cancel(WorkloadId id)
{
    auto it = m_workloads.find(id);
    if (it == m_workloads.end())
        return tl::unexpected(ApiError { 404, "no workload has id " + std::to_string(id) });
    LiveWorkload& w = it->second;
    if (isFinal(w.phase))
        return tl::unexpected(ApiError { 409,
            "workload " + std::to_string(id) + " has already ended (" + std::string(toString(w.phase)) + ")" });
    if (w.phase == WorkloadPhase::Pending) {
        finish(w, WorkloadPhase::Cancelled, 0, "cancelled before it was placed");
        return {};
    }
    if (w.phase == WorkloadPhase::Stopping)
        return {};
    LiveNode& node = m_nodes[static_cast<std::size_t>(w.node)];
    if (node.launchesWaiting.erase({ id, w.incarnation })) {
        // Its launch has not gone out (`launchWindow`): nothing runs to stop.
        finish(w, WorkloadPhase::Cancelled, 0, "cancelled before its launch was sent");
        return {};
    }
    if (node.sessionId.empty()) {
        // The node is unreachable: the stop goes out when it returns.
        m_cancelledAway.insert(id);
        finish(w, WorkloadPhase::Cancelled, 0, "cancelled; its node was unreachable, it is stopped on return");
        return {};
    }
    setPhase(w, WorkloadPhase::Stopping);
    stopOn(node, id, w.incarnation);
    return {};
}

void ControlPlane::schedulePendingRetry(bool capacityFreed)
{
    if (capacityFreed) {
        m_failedShapes.clear();
        m_drainFailedShapes.clear();
    }
    if (m_retryPosted || m_pending.empty())
        return;
    m_retryPosted = true;
    boost::asio::post(m_io, whileAlive([this] {
        m_retryPosted = false;
        retryPass();
    }));
}

PlacementShape placementShape(const Workload& w)
{
    const AcceleratorRequest& a = w.accelerators;
    return { w.requests.cpuMillis, w.requests.memoryMiB, w.requests.memBandwidthMBps, w.requests.netBandwidthMbps,
        a.kind, a.count, a.sharePerDevice, a.memoryMiBPerDevice, a.allowedModels, w.pool, w.pinnedTier, w.latency,
        w.nativeIsas, w.allowTranslation, w.priority, w.deferrable };
}

void ControlPlane::retryPending()
{
    m_failedShapes.clear();
    m_drainFailedShapes.clear();
    retryPass();
}

void ControlPlane::retryPass()
{
    // One pass in priority order; what still does not fit waits for the next change of capacity. Capacity only
    // shrinks between two changes that free some, so once a shape has failed every later workload of that shape fails
    // too until then: it is not tried again, and a pass costs one placement per distinct shape not known to fail
    // rather than one per pending workload. A pass after work arrived therefore tries the new work alone.
    std::vector<std::pair<std::int32_t, WorkloadId>> queue(m_pending.begin(), m_pending.end());
    m_pending.clear();
    std::set<PlacementShape>& failed = m_failedShapes;
    const std::int64_t now = nowMs();
    for (const auto& key : queue) {
        auto it = m_workloads.find(key.second);
        if (it == m_workloads.end() || it->second.phase != WorkloadPhase::Pending)
            continue;
        if (holdForCarbon(it->second, now)) {
            m_held.insert(key);
            continue;
        }
        PlacementShape shape = placementShape(it->second.workload);
        if (failed.count(shape)) {
            if (it->second.detail.empty()) { // never tried: say why it waits
                it->second.detail = "waiting: a workload of the same shape and priority found no place in this pass";
                noteWorkloadChange(it->second);
            }
            m_pending.insert(key);
        } else if (!tryPlace(it->second)) {
            // One kept off a node (another workload holds its id there) fails where others of its shape may not.
            if (!m_scheduler->keepsOffAnywhere(it->second.workload.id))
                failed.insert(std::move(shape));
            m_pending.insert(key);
        }
    }
}

std::string ControlPlane::why(const LiveWorkload& w) const
{
    return w.detail;
}

// ---- pools -----------------------------------------------------------------------------------------------------

std::int64_t ControlPlane::disruptedIn(PoolId id) const
{
    std::int64_t n = 0;
    for (const WorkloadId moved : m_disrupted) {
        const auto it = m_workloads.find(moved);
        if (it != m_workloads.end() && it->second.workload.pool == id
            && (it->second.phase == WorkloadPhase::Pending || it->second.phase == WorkloadPhase::Launching))
            ++n;
    }
    return n;
}

std::int64_t ControlPlane::poolMaxDisrupted(PoolId id) const
{
    const DisruptionBudget& budget = poolDisruptionBudget(id);
    if (budget.percent < 0)
        return budget.count;
    // A percentage of the pool's workloads: those placed, and those moved that wait for a node again.
    std::int64_t workloads = m_cluster.pool(id).placed;
    for (const WorkloadId moved : m_disrupted)
        if (const auto it = m_workloads.find(moved);
            it != m_workloads.end() && it->second.workload.pool == id && it->second.phase == WorkloadPhase::Pending)
            ++workloads;
    return budget.allowed(workloads);
}

std::string ControlPlane::disruptionBudgetRefusal(PoolId id, std::int64_t moves) const
{
    const std::int64_t budget = poolMaxDisrupted(id);
    if (budget >= kUnlimited)
        return {};
    const std::int64_t disrupted = disruptedIn(id);
    if (disrupted + moves <= budget)
        return {};
    const std::string& name = m_cluster.pool(id).name;
    const std::int32_t percent = poolDisruptionBudget(id).percent;
    // "at most 1 at once (25% of its workloads)": a percentage's number changes with the pool.
    const std::string most = "at most " + std::to_string(budget) + " at once"
        + (percent >= 0 ? " (" + std::to_string(percent) + "% of its workloads)" : std::string());
    if (budget == 0)
        return "pool " + name + "'s disruption budget lets none of its workloads be moved";
    if (moves > 1)
        return "pool " + name + "'s disruption budget has room for "
            + std::to_string(std::max<std::int64_t>(0, budget - disrupted)) + " of the " + std::to_string(moves)
            + " moves of its workloads asked (" + std::to_string(disrupted) + " moving, " + most + ")";
    return "pool " + name + "'s disruption budget is taken: " + std::to_string(disrupted) + " of its workloads "
        + (disrupted == 1 ? "is" : "are") + " moving, " + most;
}

namespace {

void setQuotas(Pool& pool, const PoolRequest& request)
{
    pool.quota.cpuMillis = request.cpuMillis;
    pool.quota.memoryMiB = request.memoryMiB;
    pool.quota.memBandwidthMBps = request.memBandwidthMBps;
    pool.quota.netBandwidthMbps = request.netBandwidthMbps;
    pool.acceleratorQuota = request.acceleratorQuota;
    pool.acceleratorQuota[static_cast<std::size_t>(AcceleratorKind::None)] = kUnlimited;
}

} // namespace

ApiResult<PoolId> ControlPlane::createPool(const PoolRequest& request)
{
    if (m_poolByName.count(request.name))
        return tl::unexpected(ApiError { 409, "a pool named \"" + request.name + "\" already exists" });
    Pool pool;
    pool.name = request.name;
    pool.businessLine = request.businessLine;
    pool.tier = request.tier;
    setQuotas(pool, request);
    const PoolId id = m_cluster.addPool(std::move(pool));
    m_poolByName.emplace(request.name, id);
    m_poolIoWeight.push_back(request.ioWeight);
    m_poolDisruptionBudget.push_back(request.maxDisrupted);
    markPool(id);
    // Every node carves it out, but it reaches each agent with its first launch there (`sendLaunch`): a pools message
    // to every node at each creation would send nodes × pools² entries while pools are made one after another (100
    // pools on 2,000 nodes: 10 million, 700 MB of JSON for the core to write and the agents to read).
    for (LiveNode& node : m_nodes)
        (void)m_cluster.attach(id, node.id);
    m_scheduler->nodesChanged();
    logLine("control: pool " + request.name + " created");
    return id;
}

std::vector<MeasuredPoolUse> ControlPlane::measuredPoolUse() const
{
    std::vector<MeasuredPoolUse> out(m_cluster.pools().size());
    for (const LiveNode& node : m_nodes) {
        if (node.sessionId.empty())
            continue; // what a node said before it went away is not its use now
        for (const protocol::PoolUsage& u : node.poolUsage) {
            const auto id = poolByName(u.name);
            if (!id)
                continue; // a pool removed since, whose cgroup the agent still holds
            MeasuredPoolUse& use = out[static_cast<std::size_t>(*id)];
            ++use.nodes;
            use.cpuMillis += u.cpuMillis;
            use.memoryMiB += u.memoryMiB;
            if (u.netMbps >= 0.0) {
                ++use.netNodes;
                use.netMbps += u.netMbps;
            }
        }
    }
    return out;
}

std::size_t ControlPlane::workloadsOffTier(PoolId id) const
{
    return rebalance::offTierWorkloads(m_cluster, id).size();
}

PoolRequest ControlPlane::poolRequestOf(PoolId id) const
{
    const Pool& pool = m_cluster.pool(id);
    PoolRequest r;
    r.name = pool.name;
    r.businessLine = pool.businessLine;
    r.tier = pool.tier;
    r.cpuMillis = pool.quota.cpuMillis;
    r.memoryMiB = pool.quota.memoryMiB;
    r.ioWeight = poolIoWeight(id);
    r.maxDisrupted = poolDisruptionBudget(id);
    r.memBandwidthMBps = pool.quota.memBandwidthMBps;
    r.netBandwidthMbps = pool.quota.netBandwidthMbps;
    r.acceleratorQuota = pool.acceleratorQuota;
    return r;
}

ApiResult<void> ControlPlane::updatePool(const std::string& name, const PoolRequest& request)
{
    const auto id = poolByName(name);
    if (!id)
        return tl::unexpected(ApiError { 404, "no pool is named \"" + name + "\"" });
    // A new tier the pool's pinned workloads are not on would leave them unplaceable: refused, naming them.
    if (request.tier != Tier::Invalid && request.tier != m_cluster.pool(*id).tier) {
        std::size_t pinned = 0;
        std::string first;
        for (const auto& [workloadId, w] : m_workloads) {
            const bool live = w.phase == WorkloadPhase::Pending || w.phase == WorkloadPhase::Launching
                || w.phase == WorkloadPhase::Running;
            const Tier pin = w.workload.pinnedTier;
            if (!live || w.workload.pool != *id || pin == Tier::Invalid || pin == request.tier)
                continue;
            if (pinned++ == 0)
                first = "workload " + std::to_string(workloadId) + " (" + w.workload.name + ") is pinned to the "
                    + std::string(toString(pin)) + " tier";
        }
        if (pinned > 0)
            return tl::unexpected(ApiError { 409,
                "pool " + name + " cannot keep its workloads on the " + std::string(toString(request.tier)) + " tier: "
                    + first + (pinned > 1 ? " (and " + std::to_string(pinned - 1) + " more)" : std::string()) });
    }
    Pool& pool = m_cluster.mutablePool(*id);
    setQuotas(pool, request);
    pool.businessLine = request.businessLine; // the request is whole: what it does not change, it carries
    pool.tier = request.tier;
    m_poolIoWeight[static_cast<std::size_t>(*id)] = request.ioWeight;
    m_poolDisruptionBudget[static_cast<std::size_t>(*id)] = request.maxDisrupted;
    markPool(*id);
    for (const NodeId nodeId : pool.nodes)
        if (LiveNode& node = m_nodes[static_cast<std::size_t>(nodeId)]; poolSent(node, *id))
            sendPools(node); // those without it get it, changed, with their first launch in it
    m_scheduler->nodesChanged();
    schedulePendingRetry();
    logLine("control: pool " + name + " changed");
    return {};
}

ApiResult<void> ControlPlane::deletePool(const std::string& name)
{
    const auto id = poolByName(name);
    if (!id)
        return tl::unexpected(ApiError { 404, "no pool is named \"" + name + "\"" });
    if (name == kDefaultPool)
        return tl::unexpected(ApiError {
            409, "the default pool cannot be deleted: it holds the workloads that name no pool, and always exists" });
    std::size_t live = 0;
    WorkloadId first = 0;
    for (const auto& [workloadId, w] : m_workloads)
        if (w.workload.pool == *id && !isFinal(w.phase) && (live++ == 0 || workloadId < first))
            first = workloadId;
    if (live > 0) {
        const LiveWorkload& w = m_workloads.at(first);
        return tl::unexpected(ApiError { 409,
            "pool " + name + " still holds " + std::to_string(live) + (live == 1 ? " workload" : " workloads")
                + " that " + (live == 1 ? "has" : "have") + " not ended (the first: workload " + std::to_string(first)
                + ", " + w.workload.name + ", " + std::string(toString(w.phase)) + "): cancel or move "
                + (live == 1 ? "it" : "them") + " to another pool first" });
    }
    store::DeletedPool deleted;
    {
        const Pool& pool = m_cluster.pool(*id);
        deleted = { name, pool.businessLine,
            pool.tier == Tier::Invalid ? std::string() : std::string(toString(pool.tier)), {}, nowMs() };
        if (pool.nodes.size() != m_nodeByName.size())
            for (const NodeId node : pool.nodes)
                deleted.nodes.push_back(m_cluster.node(node).name);
    }
    if (auto removed = m_cluster.removePool(*id); !removed)
        return tl::unexpected(ApiError { 409, removed.error().message });
    m_deletionOf[*id] = m_deletedPools.size();
    m_deletedPools.push_back(std::move(deleted));
    m_poolByName.erase(name);
    markPool(*id);
    // Agents that carve it out drop its cgroups when their pools are sent again: at once for connected ones.
    for (LiveNode& node : m_nodes)
        if (poolSent(node, *id))
            sendPools(node);
    m_scheduler->nodesChanged();
    logLine("control: pool " + name + " deleted");
    return {};
}

} // namespace tidepool::api
