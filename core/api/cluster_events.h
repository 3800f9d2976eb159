#pragma once
// A bounded record of what happened in the live cluster, newest last: workload phase changes (a placement is pending →
// launching on a node, a migration launching → launching elsewhere, a requeue back to pending, an end), node state and
// cordon changes, and every audited operator action (approvals and rejections included). The console's Events view
// reads it; nothing in the core decides on it. Older events fall off the front, so its memory stays bounded however
// busy the cluster is.
//
// Thread affinity: the core's thread (the control plane owns it); read it there too.

#include <cstdint>
#include <deque>
#include <functional>
#include <string>

namespace tidepool::api {

enum class ClusterEventKind : std::uint8_t {
    Invalid = 0,
    WorkloadPhase, // `from`/`to` are phases, `node` where it is placed (empty when it is not)
    NodeState, // `from`/`to` are node states
    NodeCordon, // `to` is the cordon's reason, empty when lifted
    Audit, // `from` is the action ("proposal.approve"), `to` the outcome ("ok" or the refusal), `actor` who
};

struct ClusterEvent {
    std::uint64_t sequence = 0; // one more than the event before it
    std::int64_t atMs = 0; // Unix epoch ms on the control plane's clock
    ClusterEventKind kind = ClusterEventKind::Invalid;
    std::int64_t workload = 0; // WorkloadPhase: its id
    std::string subject; // the workload's or node's name, the audit entry's target
    std::string from;
    std::string to;
    std::string node;
    std::string actor;
    std::string detail;
};

class ClusterEventLog {
public:
    explicit ClusterEventLog(std::size_t capacity = 10'000)
        : m_capacity(capacity)
    {
    }

    void push(ClusterEvent event)
    {
        if (m_capacity == 0)
            return;
        event.sequence = ++m_last;
        if (m_events.size() == m_capacity)
            m_events.pop_front();
        m_events.push_back(std::move(event));
        if (m_listener)
            m_listener();
    }
    // Called after each event is recorded, in the middle of whatever recorded it: a listener that reads the cluster
    // posts that for later. One listener; empty: none.
    void setListener(std::function<void()> listener) { m_listener = std::move(listener); }
    // Oldest first; sequences are contiguous.
    const std::deque<ClusterEvent>& events() const { return m_events; }
    // The sequence of the newest event ever pushed (0: none), so a reader can take only what is new.
    std::uint64_t lastSequence() const { return m_last; }

private:
    std::size_t m_capacity;
    std::deque<ClusterEvent> m_events;
    std::uint64_t m_last = 0;
    std::function<void()> m_listener;
};

} // namespace tidepool::api
