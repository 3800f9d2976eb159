#pragma once
// Indexes over free capacity, so that one placement costs far less than a scan of every node.
//
// Nodes fall into classes that share their static attributes (ISA, tier, accelerator kind and models, pools).
// Static filters reject a whole class at once. Inside a class, nodes are ordered by a free-capacity key: for
// accelerator classes `idleDevices << 20 | maxDeviceShareFree`, so that every node able to take a request of
// share `s` (or of `n` whole devices) lies at or after `lower_bound(s)` (or `lower_bound(n << 20)`); for CPU-only
// classes the free CPU in millicores. Nodes before the bound are rejected in bulk, counted by reason.
//
// Thread affinity: owned by the `Scheduler`, on its thread.

#include "core/model/cluster.h"

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace tidepool {

class NodeIndex {
public:
    struct Class {
        Isa isa = Isa::Invalid;
        Tier tier = Tier::Invalid;
        AcceleratorKind kind = AcceleratorKind::None;
        std::uint64_t modelMask = 0; // bit per `ModelId` (models beyond 63 share bit 63 and are re-checked)
        std::vector<PoolId> pools; // sorted
        // (key, node), sorted: a flat array, so that a walk's binary search and scan touch contiguous memory; an
        // update moves one entry by rotating the ones between its old and new place.
        std::vector<std::pair<std::int64_t, NodeId>> byKey;
        // The largest key in `byKey` (lowest possible when empty), so that a walk skips a class none of whose nodes
        // reaches a request's key without searching it.
        std::int64_t maxKey = std::numeric_limits<std::int64_t>::min();
        std::int32_t unschedulable = 0; // nodes cordoned, lost or powered down
        std::int32_t peakReserved = 0; // schedulable nodes a forecast peak reserves
    };

    // A class that passed the static checks for one workload, with what those checks decided for all its nodes.
    struct Match {
        std::int32_t cls = -1;
        bool translated = false; // the workload runs translated on this class's ISA
        bool peakSensitive = false; // the workload may not use nodes of this class that a forecast peak reserves
    };

    void rebuild(const ClusterState& cluster);
    // The nodes it was built over.
    std::size_t nodeCount() const { return m_entries.size(); }
    // Re-keys one node after its free capacity changed; never allocates.
    void update(const Node& node);

    // Changes whenever classes or their node counts may have changed (every `rebuild`), so that what was derived
    // from them can tell that it is stale.
    std::uint64_t generation() const { return m_generation; }
    // False when some node has devices of more than one kind, or a model id beyond the class mask's 63 bits: then
    // the static class checks may reject a node that `Scheduler::check` accepts, and a failed walk proves nothing.
    bool exact() const { return m_exact; }
    // Per-node flags cached at `rebuild`, so that nodes below a key bound are counted without touching them.
    bool schedulable(NodeId id) const { return m_entries[static_cast<std::size_t>(id)].schedulable; }
    bool peakReserved(NodeId id) const { return m_entries[static_cast<std::size_t>(id)].peakReserved; }

    std::vector<Class>& classes() { return m_classes; }
    const std::vector<Class>& classes() const { return m_classes; }
    // The key a request must reach in a class of accelerator kind `classKind`.
    static std::int64_t requiredKey(AcceleratorKind classKind, const Workload& w);
    // The first entry of `c` whose key is at least `key`.
    static std::vector<std::pair<std::int64_t, NodeId>>::const_iterator lowerBound(const Class& c, std::int64_t key);
    static std::int64_t keyOf(const Node& node);

private:
    struct Entry {
        std::int32_t cls = -1;
        std::int64_t key = 0;
        bool schedulable = true;
        bool peakReserved = false;
    };
    std::vector<Class> m_classes;
    std::uint64_t m_generation = 0;
    bool m_exact = true;
    std::vector<Entry> m_entries; // by node id
};

} // namespace tidepool
