// `ControlPlane::queryLogs`: an operator's read of the end of a workload's output (`GET /v1/workloads/{id}/logs`,
// `tidepoolctl logs`), asked of the agent that holds it and answered when the agent does. It sits beside
// `control_plane.cpp` because it is one responsibility of its own (a request and its answer over the agent link, with
// a timeout) and that file is long already.
//
// Thread affinity: the core's thread, like the rest of `ControlPlane`.
#include "core/api/control_plane.h"

namespace tidepool::api {

namespace {

// Where the launch before the current one can be read, for a read that finds no current one; empty without one.
std::string previousLaunch(const LiveWorkload& w, const ClusterState& cluster)
{
    if (w.previousNode == kNoNode)
        return {};
    return "; its previous launch (incarnation " + std::to_string(w.previousIncarnation) + ", on node "
        + cluster.node(w.previousNode).name + ") is read with previous=1 (tidepoolctl logs --previous)";
}

} // namespace

std::int64_t ControlPlane::queryLogs(const LogsQuery& query, LogsDone done)
{
    const auto refuse = [&](int status, std::string why) {
        LogsAnswer answer;
        answer.status = status;
        answer.error = std::move(why);
        done(std::move(answer));
        return std::int64_t { 0 };
    };
    const auto it = m_workloads.find(query.workload);
    if (it == m_workloads.end())
        return refuse(404, "no workload has id " + std::to_string(query.workload));
    const LiveWorkload& w = it->second;
    const std::string workload = "workload " + std::to_string(query.workload);
    if (query.previous && query.from >= 0)
        return refuse(400, "the previous launch of " + workload + " has ended: it is read whole, not followed");
    if (query.previous && w.previousNode == kNoNode)
        return refuse(404,
            workload + " has had no launch before its current one (incarnation " + std::to_string(w.incarnation) + ")");
    // An ended workload keeps the node it ran on; one that waits (again) has left it, and its new launch has none yet.
    if (!query.previous && w.node == kNoNode)
        return refuse(409,
            workload + " is " + std::string(toString(w.phase))
                + " and on no node: its current launch has written no output yet" + previousLaunch(w, m_cluster));
    const NodeId held = query.previous ? w.previousNode : w.node;
    const std::int32_t incarnation = query.previous ? w.previousIncarnation : w.incarnation;
    LiveNode& node = m_nodes[static_cast<std::size_t>(held)];
    const std::string& nodeName = m_cluster.node(held).name;
    if (node.sessionId.empty() || !m_link.send)
        return refuse(503,
            "node " + nodeName + ", which holds the output of workload " + std::to_string(query.workload)
                + ", is not connected now (" + std::string(toString(node.state)) + "); retry when its agent is back");
    if (!protocol::hasFeature(node.agentFeatures, protocol::kFeatureLogs))
        return refuse(503, "the agent of node " + nodeName + " is from before workload logs: upgrade it to read them");
    if (query.from >= 0 && !protocol::hasFeature(node.agentFeatures, protocol::kFeatureLogFollow))
        return refuse(503,
            "the agent of node " + nodeName + " is from before following output: upgrade it, or read the end only");
    // A follower's read held for output at an agent that holds it, while there is room for one more; else at once.
    const bool hold = query.waitMs > 0 && query.from >= 0 && !query.previous && m_logsHeld < kMaxLogFollows
        && protocol::hasFeature(node.agentFeatures, protocol::kFeatureLogWait);
    if (!hold && m_logsWaits.size() - m_logsHeld >= kMaxLogQueries)
        return refuse(503,
            std::to_string(m_logsWaits.size() - m_logsHeld)
                + " reads of workload output are waiting for their agents already (the most at once); retry in a few "
                  "seconds");

    const std::int64_t requestId = m_nextLogsRequest++;
    protocol::LogRequest request;
    request.requestId = requestId;
    request.workloadId = query.workload;
    request.incarnation = incarnation;
    request.stderrStream = query.stderrStream;
    // A position in another launch's stream means nothing in this one: its stream is read from its beginning.
    if (query.from >= 0)
        request.from = query.incarnation < 0 || query.incarnation == w.incarnation
            ? std::min(query.from, protocol::kMaxLogPosition)
            : 0;
    // U+FFFD takes three bytes where it stands for one, and the rest of the answer fits in a kibibyte.
    const std::int64_t fits = std::max<std::int64_t>(1, (std::int64_t { m_config.agentMaxFrameBytes } - 1024) / 3);
    request.maxBytes = std::clamp<std::int64_t>(query.maxBytes, 1, std::min(protocol::kMaxLogBytes, fits));
    if (hold)
        request.waitMs = std::min(query.waitMs, protocol::kMaxLogWaitMs);
    LogsWait wait;
    wait.held = hold;
    wait.sessionId = node.sessionId;
    wait.answer.node = nodeName;
    wait.answer.incarnation = incarnation;
    wait.answer.phase = w.phase;
    wait.done = std::move(done);
    wait.timeout = std::make_unique<boost::asio::steady_timer>(
        m_io, m_config.logsTimeout + std::chrono::milliseconds(request.waitMs));
    wait.timeout->async_wait(whileAlive([this, requestId](const boost::system::error_code& e) {
        if (e)
            return; // answered first
        const auto waiting = m_logsWaits.find(requestId);
        if (waiting == m_logsWaits.end())
            return; // answered while this expiry was on its way
        LogsAnswer answer;
        answer.status = 504;
        answer.error = "the agent of node " + waiting->second.answer.node + " did not answer within "
            + std::to_string(m_config.logsTimeout.count()) + " ms"
            + (waiting->second.held ? " after the read's wait" : std::string());
        endLogsWait(requestId, std::move(answer));
    }));
    const std::string session = wait.sessionId;
    m_logsWaits.emplace(requestId, std::move(wait));
    m_logsHeld += hold ? 1 : 0;
    if (!m_link.send(session, request)) {
        LogsAnswer answer;
        answer.status = 503;
        answer.error = "the request could not be sent to the agent of node " + nodeName;
        endLogsWait(requestId, std::move(answer));
        return 0;
    }
    return requestId;
}

void ControlPlane::abandonLogs(std::int64_t requestId)
{
    const auto waiting = m_logsWaits.find(requestId);
    if (waiting == m_logsWaits.end())
        return;
    waiting->second.timeout->cancel();
    m_logsHeld -= waiting->second.held ? 1 : 0;
    m_logsWaits.erase(waiting);
    ++m_stats.logReadsAbandoned;
}

void ControlPlane::onLogReply(const std::string& sessionId, const protocol::LogReply& reply)
{
    const auto waiting = m_logsWaits.find(reply.requestId);
    // Late (timed out already) or not this session's to answer: nobody waits for it.
    if (waiting == m_logsWaits.end() || waiting->second.sessionId != sessionId)
        return;
    LogsAnswer answer;
    answer.reply = reply;
    if (!reply.error.empty()) {
        answer.status = 404;
        answer.error = "the agent of node " + waiting->second.answer.node + " has no output to show: " + reply.error;
    }
    endLogsWait(reply.requestId, std::move(answer));
}

void ControlPlane::endLogsWait(std::int64_t requestId, LogsAnswer answer)
{
    const auto waiting = m_logsWaits.find(requestId);
    if (waiting == m_logsWaits.end())
        return;
    LogsWait wait = std::move(waiting->second);
    m_logsWaits.erase(waiting);
    m_logsHeld -= wait.held ? 1 : 0;
    wait.timeout->cancel();
    answer.node = wait.answer.node;
    answer.incarnation = wait.answer.incarnation;
    answer.phase = wait.answer.phase;
    wait.done(std::move(answer));
}

} // namespace tidepool::api
