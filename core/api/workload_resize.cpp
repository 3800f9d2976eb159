// `ControlPlane::resize`: an operator's change of what a workload asks for and may use (`POST
// /v1/workloads/{id}/resize`, `tidepoolctl resize`). A waiting workload is simply placed at its new size; a running one
// is resized where it runs, without a restart: its node and its pool are charged the new request, and its agent is
// sent the new CPU weight and limits (a `resize`), which it applies to the workload's cgroup and answers. It sits
// beside `control_plane.cpp` because it is one operation of its own, with its own checks and its own agent message.
//
// Thread affinity: the core's thread, like the rest of `ControlPlane`.
#include "core/api/control_plane.h"

namespace tidepool::api {

namespace {

std::string cpuText(std::int64_t millis)
{
    return std::to_string(millis) + "m";
}

std::string limitText(std::int64_t value, const char* unit)
{
    return value == 0 ? std::string("none") : std::to_string(value) + unit;
}

// "CPU 500m → 250m, memory limit none → 1024 MiB": what changes, in the order of the request's fields.
std::string changeText(const Resources& from, const Resources& to, std::int64_t fromCpuLimit, std::int64_t toCpuLimit,
    std::int64_t fromMemoryLimit, std::int64_t toMemoryLimit)
{
    std::string out;
    const auto add = [&](const std::string& what, const std::string& a, const std::string& b) {
        if (a != b)
            out += (out.empty() ? "" : ", ") + what + " " + a + " → " + b;
    };
    add("CPU", cpuText(from.cpuMillis), cpuText(to.cpuMillis));
    add("memory", std::to_string(from.memoryMiB) + " MiB", std::to_string(to.memoryMiB) + " MiB");
    add("CPU limit", limitText(fromCpuLimit, "m"), limitText(toCpuLimit, "m"));
    add("memory limit", limitText(fromMemoryLimit, " MiB"), limitText(toMemoryLimit, " MiB"));
    return out;
}

} // namespace

ApiResult<ResizeOutcome> ControlPlane::resize(WorkloadId id, const ResizeRequest& request, const std::string& actor)
{
    const auto it = m_workloads.find(id);
    if (it == m_workloads.end())
        return tl::unexpected(ApiError { 404, "no workload has id " + std::to_string(id) });
    LiveWorkload& w = it->second;
    const std::string name = "workload " + std::to_string(id);
    if (isFinal(w.phase))
        return tl::unexpected(
            ApiError { 409, name + " has ended (" + std::string(toString(w.phase)) + "): there is nothing to resize" });
    if (w.phase == WorkloadPhase::Stopping)
        return tl::unexpected(ApiError { 409, name + " is being stopped: there is nothing to resize" });

    const Resources before = w.workload.requests;
    Resources after = before;
    after.cpuMillis = request.cpuMillis.value_or(before.cpuMillis);
    after.memoryMiB = request.memoryMiB.value_or(before.memoryMiB);
    const std::int64_t cpuLimit = request.cpuLimitMillis.value_or(w.cpuLimitMillis);
    const std::int64_t memoryLimit = request.memoryLimitMiB.value_or(w.memoryLimitMiB);
    if (after.cpuMillis < 0 || after.cpuMillis > protocol::kMaxCpuMillis)
        return tl::unexpected(
            ApiError { 400, "field `cpuMillis` must be between 0 and " + std::to_string(protocol::kMaxCpuMillis) });
    if (after.memoryMiB < 0 || after.memoryMiB > protocol::kMaxMemoryMiB)
        return tl::unexpected(
            ApiError { 400, "field `memoryMiB` must be between 0 and " + std::to_string(protocol::kMaxMemoryMiB) });
    if (after.cpuMillis == 0 && after.memoryMiB == 0 && !w.workload.accelerators.any())
        return tl::unexpected(ApiError { 400,
            "field `cpuMillis`: " + name
                + " would ask for nothing (no CPU, no memory, no accelerator); ask for some" });
    // As at submission: a limit is at least the request it limits (and a CPU quota at least the kernel's 10m).
    if (memoryLimit != 0 && memoryLimit < std::max<std::int64_t>(1, after.memoryMiB))
        return tl::unexpected(ApiError { 400,
            "field `memoryLimitMiB`: " + std::to_string(memoryLimit) + " MiB is below the memory it asks for ("
                + std::to_string(after.memoryMiB) + " MiB); raise the limit, lower the request, or give 0 for none" });
    if (cpuLimit != 0 && cpuLimit < std::max<std::int64_t>(10, after.cpuMillis))
        return tl::unexpected(ApiError { 400,
            "field `cpuLimitMillis`: " + cpuText(cpuLimit) + " is below "
                + (after.cpuMillis > 10 ? "the CPU it asks for (" + cpuText(after.cpuMillis) + ")"
                                        : std::string("10m, the least the kernel enforces"))
                + "; raise the limit, lower the request, or give 0 for none" });
    const std::string change = changeText(before, after, w.cpuLimitMillis, cpuLimit, w.memoryLimitMiB, memoryLimit);
    ResizeOutcome outcome;
    if (change.empty()) {
        outcome.node = w.node == kNoNode ? std::string() : m_cluster.node(w.node).name;
        outcome.message = name + " asks for this already: nothing changed";
        return outcome;
    }

    if (w.phase == WorkloadPhase::Launching)
        return tl::unexpected(ApiError { 409,
            name + " is launching on node " + m_cluster.node(w.node).name
                + ": its agent has not answered the launch yet; resize it once it runs" });
    const WorkloadRecord* record = m_cluster.workload(id);
    if (!record)
        return tl::unexpected(ApiError { 404, "no workload has id " + std::to_string(id) });

    if (w.phase == WorkloadPhase::Running && record->placement) {
        LiveNode& node = m_nodes[static_cast<std::size_t>(w.node)];
        const std::string& nodeName = m_cluster.node(w.node).name;
        // The agent holds the CPU request (its cgroup's weight) and the limits; the memory request is the core's alone.
        const bool agentChange
            = after.cpuMillis != before.cpuMillis || cpuLimit != w.cpuLimitMillis || memoryLimit != w.memoryLimitMiB;
        if (agentChange && (node.sessionId.empty() || !m_link.send))
            return tl::unexpected(ApiError { 503,
                "node " + nodeName + ", where " + name + " runs, is not connected now ("
                    + std::string(toString(node.state)) + "): its agent cannot be told; retry when it is back" });
        if (agentChange && !protocol::hasFeature(node.agentFeatures, protocol::kFeatureResize))
            return tl::unexpected(ApiError { 409,
                "the agent of node " + nodeName + " is from before resizing a running workload: upgrade it, or move "
                    + name + " (it restarts) and resize it while it waits" });
        if (memoryLimit != 0 && w.measured.atMs != 0 && w.measured.memoryMiB > memoryLimit)
            return tl::unexpected(ApiError { 409,
                name + " used " + std::to_string(w.measured.memoryMiB)
                    + " MiB at its latest sample, more than the new memory limit of " + std::to_string(memoryLimit)
                    + " MiB: the kernel would reclaim, and failing that kill, to enforce it; give it more" });
        const WorkloadSize was = w.size();
        if (std::string refusal = rebindAtSize(w, WorkloadSize { after, cpuLimit, memoryLimit }); !refusal.empty())
            return tl::unexpected(ApiError { 409, "cannot resize " + name + " in place: " + refusal });
        // The first resize of the launch: until its agent confirms another, this is what the agent holds.
        if (agentChange && w.resizesSent.empty() && w.resizeRefused.empty())
            w.agentSize = was;
        outcome.node = nodeName;
        if (agentChange) {
            w.resizeActor = actor;
            sendResize(node, w);
            outcome.sentToAgent = true;
        }
        if (!agentChange) // the memory request is the core's alone: what its agent holds does not go back on it
            w.agentSize.requests.memoryMiB = after.memoryMiB;
    } else {
        if (auto set = m_cluster.setWorkloadRequests(id, after); !set)
            return tl::unexpected(ApiError { 409, "cannot resize " + name + ": " + set.error().message });
        w.workload.requests = after;
        w.cpuLimitMillis = cpuLimit;
        w.memoryLimitMiB = memoryLimit;
    }
    outcome.changed = true;
    ++m_stats.resizes;
    outcome.message = name + " resized by " + actor + ": " + change
        + (outcome.node.empty() ? std::string(" (placed at its new size)") : " in place on node " + outcome.node);
    logLine("control: " + outcome.message);
    markWorkload(id);
    // Less asked may let waiting work in; a waiting workload that asks less may fit now.
    schedulePendingRetry();
    return outcome;
}

void ControlPlane::sendResize(LiveNode& node, LiveWorkload& w)
{
    protocol::Resize message;
    message.workloadId = w.workload.id;
    message.incarnation = w.incarnation;
    message.cpuMillis = w.workload.requests.cpuMillis;
    message.memoryMiB = w.workload.requests.memoryMiB;
    message.cpuLimitMillis = w.cpuLimitMillis;
    message.memoryLimitMiB = w.memoryLimitMiB;
    w.resizesSent.push_back(w.size());
    w.resizeActors.push_back(w.resizeActor);
    w.resizeRefused.clear();
    if (!node.sessionId.empty() && m_link.send)
        (void)m_link.send(node.sessionId, message); // not sent: the next session's inventory sends it again
}

void ControlPlane::onResized(const std::string& sessionId, const protocol::Resized& answer)
{
    const LiveNode* node = nodeOfSession(sessionId);
    const auto it = m_workloads.find(answer.workloadId);
    if (!node || it == m_workloads.end())
        return;
    LiveWorkload& w = it->second;
    // An answer about another launch, or from a node it has left, is stale.
    if (w.node != node->id || w.incarnation != answer.incarnation || w.resizesSent.empty())
        return;
    // Answers come in the order the resizes went.
    const WorkloadSize answered = w.resizesSent.front();
    w.resizesSent.pop_front();
    std::string actor;
    if (!w.resizeActors.empty()) {
        actor = std::move(w.resizeActors.front());
        w.resizeActors.pop_front();
    }
    const std::string name = "workload " + std::to_string(answer.workloadId);
    const std::string& nodeName = m_cluster.node(node->id).name;
    if (answer.error.empty()) {
        w.agentSize = answered;
        ++m_stats.resizesConfirmed;
        logLine("control: " + name + " resized on node " + nodeName);
        markWorkload(answer.workloadId);
        return;
    }
    // Refused: its agent holds what it last confirmed. With nothing else on its way, the core goes back to that too,
    // where its node and pool still have room for it (work placed since may have taken the room it gave up).
    ++m_stats.resizesRefused;
    std::string outcome = "refused by the agent of node " + nodeName + ": " + answer.error;
    if (w.resizesSent.empty() && w.size() != w.agentSize && w.phase == WorkloadPhase::Running) {
        if (const std::string kept = rebindAtSize(w, w.agentSize); kept.empty())
            outcome += "; its requests and limits are back to what its launch holds";
        else
            outcome += "; the core still charges it the new size (" + kept + ")";
    }
    w.resizeRefused = outcome;
    logLine("control: " + name + ": resize " + outcome);
    store::AuditEntry entry;
    entry.atMs = nowMs();
    entry.actor = "agent:" + nodeName;
    entry.action = "workload.resize";
    entry.target = name;
    entry.outcome = outcome;
    audit(std::move(entry));
    markWorkload(answer.workloadId);
    schedulePendingRetry();
    if (m_resizeRefused)
        m_resizeRefused(answer.workloadId, actor, outcome);
}

std::string ControlPlane::rebindAtSize(LiveWorkload& w, const WorkloadSize& size)
{
    const WorkloadId id = w.workload.id;
    const WorkloadRecord* record = m_cluster.workload(id);
    if (!record || !record->placement)
        return "it is not placed";
    const std::string& nodeName = m_cluster.node(w.node).name;
    const Resources before = w.workload.requests;
    const Resources& after = size.requests;
    // Charged again on the same node and device shares: the node's room and the pool's quota are judged with its own
    // request released.
    const Placement placement = *record->placement;
    (void)m_scheduler->release(id);
    std::string refusal;
    const Node& model = m_cluster.node(w.node);
    if (!model.free.fits(after)) {
        const auto short_ = [](std::int64_t want, std::int64_t free, const char* what, const char* unit) {
            return want <= free ? std::string()
                                : std::string(what) + ": it would ask for " + std::to_string(want) + unit + " and "
                    + std::to_string(std::max<std::int64_t>(free, 0)) + unit + " are free beside what else runs there";
        };
        std::string words = short_(after.cpuMillis, model.free.cpuMillis, "CPU", "m");
        const std::string memory = short_(after.memoryMiB, model.free.memoryMiB, "memory", " MiB");
        words += (words.empty() || memory.empty() ? "" : "; ") + memory;
        refusal = "node " + nodeName + " has no room for it (" + (words.empty() ? "bandwidth" : words)
            + "): move it to a node with room, or ask for less";
    } else if (w.workload.pool != kNoPool && !m_cluster.pool(w.workload.pool).fits(after, AcceleratorKind::None, 0)) {
        const Pool& pool = m_cluster.pool(w.workload.pool);
        refusal = "pool " + pool.name + " quota: " + quotaShortfall(pool, after, AcceleratorKind::None, 0);
    }
    if (refusal.empty()) {
        if (auto set = m_cluster.setWorkloadRequests(id, after); !set)
            refusal = set.error().message;
        else if (auto bound = m_scheduler->bindExternal(placement); !bound) {
            refusal = bound.error().message;
            (void)m_cluster.setWorkloadRequests(id, before);
        }
    }
    if (!refusal.empty()) {
        if (auto rebound = m_scheduler->bindExternal(placement); !rebound)
            logLine("ALERT control: workload " + std::to_string(id) + " could not be bound again at its size on "
                + nodeName + ": " + rebound.error().message);
        return refusal;
    }
    w.workload.requests = after;
    w.cpuLimitMillis = size.cpuLimitMillis;
    w.memoryLimitMiB = size.memoryLimitMiB;
    markWorkload(id);
    return {};
}

} // namespace tidepool::api
