#pragma once
// Builds the snapshot's event timeline: what the control plane's bounded `ClusterEventLog` recorded since the last
// snapshot (placements, migrations, requeues, ends, node state and cordon changes, audited actions such as approvals),
// the rebalancer's proposals as they appear and change state, and at the first snapshot the store's audit log of the
// day before the control plane started (a restart keeps its history). Each event becomes an immutable `EventRow`
// shared by every snapshot that shows it; the latest `capacity` are kept.
//
// Thread affinity: the core's thread (it reads the control plane, the rebalancer and the store).

#include "ui/bridge/console_snapshot.h"

#include <deque>
#include <map>

namespace tidepool::api {
class ControlPlane;
class Rebalancer;
} // namespace tidepool::api

namespace tidepool::ui {

inline constexpr std::size_t kMaxEventRows = 5000;

class EventCollector {
public:
    explicit EventCollector(std::size_t capacity = kMaxEventRows);

    // Sets `snapshot.events`. `rebalancer` may be null.
    void fill(const api::ControlPlane& plane, const api::Rebalancer* rebalancer, ConsoleSnapshot& snapshot);

private:
    void add(EventRow row);
    void seedFromStore(const api::ControlPlane& plane);

    std::size_t m_capacity;
    std::deque<EventRowPtr> m_rows;
    std::uint64_t m_nextSequence = 1;
    std::uint64_t m_coreSequence = 0; // the newest event of the control plane's log taken
    std::map<std::int64_t, std::string> m_proposalStates; // id → state last seen
    bool m_seeded = false;
};

} // namespace tidepool::ui
