#include "ui/bridge/event_collector.h"

#include "core/api/control_plane.h"
#include "core/api/rebalancer.h"

#include <algorithm>

namespace tidepool::ui {

namespace {

constexpr std::int64_t kSeedWindowMs = 24LL * 3600 * 1000;
constexpr std::size_t kSeedLimit = 1000;

bool isActivePhase(const std::string& phase)
{
    return phase == "launching" || phase == "running" || phase == "stopping";
}

// The timeline's category of a workload's phase change; empty for changes not worth a row (a launch acknowledged).
// Back to pending from a launch: its restart policy's restart, or put back in the queue (its node lost, preempted).
std::string workloadCategory(const std::string& from, const std::string& to, const std::string& actor)
{
    if (to == "launching")
        return isActivePhase(from) ? "migration" : "placement";
    if (to == "pending")
        return !isActivePhase(from) ? std::string() : actor == api::kRestartPolicyActor ? "restart" : "requeue";
    if (to == "running")
        return {};
    if (to == "stopping")
        return "stop";
    return "finish";
}

std::string auditCategory(const std::string& action)
{
    return action.rfind("proposal.", 0) == 0 ? "approval" : "audit";
}

} // namespace

EventCollector::EventCollector(std::size_t capacity)
    : m_capacity(capacity)
{
}

void EventCollector::add(EventRow row)
{
    if (m_capacity == 0)
        return;
    row.sequence = m_nextSequence++;
    if (m_rows.size() == m_capacity)
        m_rows.pop_front();
    m_rows.push_back(std::make_shared<const EventRow>(std::move(row)));
}

void EventCollector::seedFromStore(const api::ControlPlane& plane)
{
    store::Store* store = plane.store();
    if (!store)
        return;
    // Only what happened before this control plane's own log begins: the rest it records itself.
    const auto& events = plane.events().events();
    const std::int64_t before = events.empty() ? plane.nowMs() : events.front().atMs;
    store::AuditQuery query;
    query.fromMs = before - kSeedWindowMs;
    query.toMs = before;
    query.limit = kSeedLimit;
    auto entries = store->audit(query);
    if (!entries)
        return; // the timeline starts now; the store's trouble shows elsewhere (read-only reason)
    for (const store::AuditEntry& e : *entries) {
        if (e.stage == "received")
            continue;
        EventRow row;
        row.atMs = e.atMs;
        row.category = auditCategory(e.action);
        row.subject = e.target;
        row.from = e.action;
        row.to = e.outcome;
        row.actor = e.actor;
        if (e.detail.is_object())
            if (const auto comment = e.detail.find("comment"); comment != e.detail.end() && comment->is_string())
                row.detail = comment->get<std::string>();
        add(std::move(row));
    }
}

void EventCollector::fill(const api::ControlPlane& plane, const api::Rebalancer* rebalancer, ConsoleSnapshot& snapshot)
{
    if (!m_seeded) {
        m_seeded = true;
        seedFromStore(plane);
    }
    const api::ClusterEventLog& log = plane.events();
    if (log.lastSequence() > m_coreSequence) {
        const auto& events = log.events();
        // The log's sequences are contiguous: skip straight to the first one not taken.
        const std::uint64_t first = events.empty() ? 0 : events.front().sequence;
        std::size_t start = m_coreSequence >= first ? static_cast<std::size_t>(m_coreSequence - first + 1) : 0;
        // More new events than the timeline keeps: only the latest matter.
        if (events.size() - std::min(start, events.size()) > m_capacity * 2)
            start = events.size() - m_capacity * 2;
        for (std::size_t i = start; i < events.size(); ++i) {
            const api::ClusterEvent& e = events[i];
            EventRow row;
            row.atMs = e.atMs;
            row.subject = e.subject;
            row.from = e.from;
            row.to = e.to;
            row.node = e.node;
            row.actor = e.actor;
            row.detail = e.detail;
            switch (e.kind) {
            case api::ClusterEventKind::WorkloadPhase: row.category = workloadCategory(e.from, e.to, e.actor); break;
            case api::ClusterEventKind::NodeState: row.category = "node"; break;
            case api::ClusterEventKind::NodeCordon:
                // A drain's start, change and end keep the node's cordon as it is, and say so in their detail.
                row.category = e.detail.rfind("drain ", 0) == 0 ? "drain" : "cordon";
                break;
            case api::ClusterEventKind::Audit: row.category = auditCategory(e.from); break;
            case api::ClusterEventKind::Invalid: break;
            }
            // A stop's detail is still the one of the phase it leaves ("placed on ..."); its end says why.
            if (row.category == "stop")
                row.detail.clear();
            if (!row.category.empty())
                add(std::move(row));
        }
        m_coreSequence = log.lastSequence();
    }
    if (rebalancer) {
        // Proposals as they come and change state; a decision itself is the audit entry (with who and why), so the
        // pending → approved | rejected step is left to it.
        for (const auto& [id, p] : rebalancer->proposals()) {
            const std::string state(rebalance::toString(p.state));
            auto [seen, isNew] = m_proposalStates.try_emplace(id, state);
            if (!isNew && seen->second == state)
                continue;
            const std::string from = isNew ? std::string() : seen->second;
            seen->second = state;
            if (from == "pending" && (state == "approved" || state == "rejected"))
                continue;
            EventRow row;
            row.atMs = isNew ? p.createdMs : snapshot.nowMs;
            row.category = "proposal";
            row.subject = "proposal/" + std::to_string(id);
            row.from = from;
            row.to = state;
            row.actor = p.decidedBy;
            row.detail = isNew ? p.reason : p.detail;
            if (isNew)
                row.detailWhy = rebalance::toJson(p.why).dump();
            add(std::move(row));
        }
        // Proposals the rebalancer forgot (closed longer ago than it keeps them) are forgotten here too; every id it
        // holds is in the map, so the map is larger only when some were forgotten (not every snapshot walks it).
        if (m_proposalStates.size() > rebalancer->proposals().size())
            std::erase_if(m_proposalStates, [&](const auto& entry) { return !rebalancer->proposal(entry.first); });
    }
    snapshot.events.assign(m_rows.begin(), m_rows.end());
}

} // namespace tidepool::ui
