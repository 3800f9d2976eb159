#pragma once
// Defragmenting placement: when a workload fits nowhere, move a few placed workloads out of its way. The
// `Defragmenter` plans, for every node, which movable residents block the arrival there (on the devices it needs,
// or in the CPU and memory it needs), tries the cheapest plans first (every moved workload has somewhere to go,
// then fewest moves, then least share moved), places the arrival with the scheduler's own policy, and moves the
// residents to the tightest places that take them (filling existing slivers rather than opening idle devices).
// A moved workload that fits nowhere may in turn move others (`chainDepth`), all within `maxMoves` per arrival.
// Only fractional-device and CPU-only workloads are ever moved; whole-device and multi-device workloads stay where
// they are. The openb replay's `--defrag` uses it for pods that fit nowhere; the live system's rebalance proposals
// are to reuse the same search.
//
// Every move goes through the `Scheduler` (`release`, then `bindExternal` or `place`), so the policies' caches and
// the free-capacity index stay consistent, and every bind is checked by `ClusterState::bind`, so no node or
// device is ever over capacity. An attempt that does not end with the arrival placed is rolled back: every moved
// workload gets back exactly the placement it had.
//
// Thread affinity: a `Defragmenter` is used on the thread that owns the scheduler and the cluster it is handed.
// Ownership: it borrows both for the length of one call. Between calls it keeps a cache of each node's residents
// (keyed by `Node::version`) and the shapes that found no room (dropped as soon as anything is released).

#include "core/sched/scheduler.h"

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

namespace tidepool::rebalance {

// Where a moved workload goes.
enum class DestinationRule : std::uint8_t {
    Invalid = 0,
    Tightest = 1, // the fullest device (and node) that still takes it: fills existing slivers, opens no new ones
    Policy = 2, // wherever the scheduler's profile would place it now
};

struct DefragOptions {
    std::int32_t maxMoves = 6; // moves per arrival, chained moves included
    std::int32_t candidateNodes = 16; // nodes tried per arrival, cheapest first
    std::int32_t chainDepth = 1; // a moved workload that fits nowhere may itself move this many levels of others
    DestinationRule destination = DestinationRule::Tightest;
};

struct DefragOutcome {
    bool placed = false;
    std::int64_t moves = 0; // workloads whose placement changed (0 when not placed: everything was rolled back)
};

// True for the workloads a defragmenter may move: CPU-only ones and those holding part of one device.
bool isMovable(const Workload& w);

class Defragmenter {
public:
    explicit Defragmenter(DefragOptions options = {});

    // Places `id`, which the scheduler could not place as things are, by moving at most `maxMoves` movable
    // workloads. On failure the cluster holds exactly the placements it held before.
    DefragOutcome makeRoom(Scheduler& scheduler, ClusterState& cluster, WorkloadId id);

    const DefragOptions& options() const { return m_options; }

    // Everything about a request that decides where it may go; equal shapes are interchangeable for the search.
    using ShapeKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int32_t, std::int32_t,
        std::int32_t, std::int64_t, std::vector<ModelId>, PoolId, std::int32_t, IsaMask, bool, std::int32_t>;
    static ShapeKey shapeOf(const Workload& w);

private:
    // The residents to move off one node so that the arrival fits there.
    struct Plan {
        NodeId node = kNoNode;
        std::vector<WorkloadId> evict;
        std::vector<const Workload*> evictWorkloads; // parallel to `evict`
        std::int64_t movedShare = 0;
        std::int64_t movedCpuMillis = 0;
        std::int32_t homeless = 0; // evicted workloads that nothing outside `node` takes as things are
    };
    // Every step of one attempt, in order, so that a failed attempt is undone exactly (in reverse).
    struct Journal {
        struct Step {
            WorkloadId workload = 0;
            Placement placement; // the placement bound, or the one released
            bool bound = false;
        };
        std::vector<Step> steps;
        // Workloads other than `arrival` whose placement now differs from the one they had before their first step.
        std::int64_t moves(const ClusterState& cluster, WorkloadId arrival) const;
    };

    // Places `id` (known, unplaced) by moving residents of one node outside `excluded`, at most `budget` moves
    // (lowered by what it used). On failure everything it did is rolled back.
    bool placeWithMoves(Scheduler& scheduler, ClusterState& cluster, WorkloadId id, std::int32_t& budget, int depth,
        std::vector<NodeId>& excluded, Journal& journal);
    // The movable residents that would have to leave `node` for `w` to fit; none when more than `budget` would.
    std::optional<Plan> planNode(
        Scheduler& scheduler, const ClusterState& cluster, const Node& node, const Workload& w, std::int32_t budget);
    static bool release(Scheduler& scheduler, ClusterState& cluster, WorkloadId id, Journal& journal);
    // Binds `id` (released) where the destination rule says, making room for it one level down (on a node outside
    // `excluded`) when nothing takes it.
    bool rebind(Scheduler& scheduler, ClusterState& cluster, WorkloadId id, std::int32_t& budget, int depth,
        std::vector<NodeId>& excluded, Journal& journal);
    // The fullest device (for a fractional request) or the node with the least device share left (for a CPU-only
    // one) that takes `w` and passes the scheduler's checks; ties go to the node with fewer idle devices.
    static std::optional<Placement> tightestPlacement(Scheduler& scheduler, const Workload& w);
    // Undoes the journal's steps after `mark`, newest first.
    static void rollback(Scheduler& scheduler, Journal& journal, std::size_t mark);

    // What planning needs to know about a node's residents, cached until the node changes (`Node::version`).
    struct MovableResident {
        WorkloadId id = 0;
        const Workload* workload = nullptr; // owned by the cluster; valid while the node's version holds
        Resources requests;
        std::int16_t device = -1; // the device a fractional resident shares; -1 for CPU-only ones
        std::int32_t share = 0;
        std::int64_t deviceMemoryMiB = 0;
    };
    struct NodeResidents {
        std::uint64_t versionPlusOne = 0; // 0 = not computed
        std::vector<MovableResident> movable;
        std::vector<std::uint8_t> pinned; // by device: held by a workload that may not move
    };
    const NodeResidents& residentsOf(const ClusterState& cluster, const Node& node);

    DefragOptions m_options;
    const ClusterState* m_residentsCluster = nullptr;
    std::vector<NodeResidents> m_residents; // by node id
    // Shapes that found no room, valid while the cluster has only gained placements since (see `makeRoom`).
    const ClusterState* m_hopelessCluster = nullptr;
    std::vector<Workload> m_hopeless;
    std::uint64_t m_hopelessVersion = 0;
    std::size_t m_hopelessPlaced = 0;
    // Scratch space reused by `planNode`.
    std::vector<std::uint8_t> m_evicted;
    std::vector<std::tuple<std::int32_t, std::int32_t, std::int16_t>> m_deviceChoice; // (residents, share used, device)
};

} // namespace tidepool::rebalance
