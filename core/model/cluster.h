#pragma once
// The whole cluster as the scheduler sees it: nodes, pools, model names, workloads and their placements.
//
// Thread affinity: a `ClusterState` is owned by one thread (the core's strand); it is not synchronised.
// Ownership: it owns every node, pool and workload record it holds.

#include "core/model/node.h"
#include "core/model/pool.h"
#include "core/model/workload.h"

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tidepool {

struct WorkloadRecord {
    Workload workload;
    std::optional<Placement> placement;
};

class ClusterState {
public:
    // Returns the id of a device model name, adding it when new.
    ModelId internModel(std::string_view name);
    std::optional<ModelId> findModel(std::string_view name) const;
    const std::string& modelName(ModelId id) const { return m_modelNames.at(static_cast<std::size_t>(id)); }
    std::size_t modelCount() const { return m_modelNames.size(); }

    // Adds a node; `node.id` is assigned, `free` starts equal to `capacity` and devices start idle.
    NodeId addNode(Node node);
    PoolId addPool(Pool pool);
    // Makes `node` part of `pool` (both must exist).
    Expected<void> attach(PoolId pool, NodeId node);
    // Deletes a pool that holds nothing: it leaves every node (no workload can be placed in it any more) and is marked
    // `removed`. Fails, changing nothing, for an unknown or removed pool and while any placement is charged to it.
    Expected<void> removePool(PoolId pool);

    const std::vector<Node>& nodes() const { return m_nodes; }
    const Node& node(NodeId id) const { return m_nodes[static_cast<std::size_t>(id)]; }
    Node& mutableNode(NodeId id) { return m_nodes[static_cast<std::size_t>(id)]; }
    const std::vector<Pool>& pools() const { return m_pools; }
    const Pool& pool(PoolId id) const { return m_pools[static_cast<std::size_t>(id)]; }
    // For changing a pool's quotas, tier or business line; its usage is kept by `bind`/`unbind`.
    Pool& mutablePool(PoolId id) { return m_pools[static_cast<std::size_t>(id)]; }

    // Sets a node's network capacity (Mbit/s; `kUnlimited` where it is not shaped), its free share following. Fails,
    // changing nothing, when the node's placements hold more than `mbps`.
    Expected<void> setNetworkCapacity(NodeId id, std::int64_t mbps);

    // Workloads known to the cluster, placed or not.
    Expected<void> addWorkload(Workload workload);
    const WorkloadRecord* workload(WorkloadId id) const;
    const std::unordered_map<WorkloadId, WorkloadRecord>& workloads() const { return m_workloads; }
    Expected<void> removeWorkload(WorkloadId id); // unbinds first when placed
    // Puts an unplaced workload into `pool` (an operator's move to another pool): refused while it is placed, since
    // what it holds is charged to the pool it is in, and for an unknown pool.
    Expected<void> setWorkloadPool(WorkloadId id, PoolId pool);
    // Changes what an unplaced workload asks for (a resize: release it first when placed, then bind it again).
    Expected<void> setWorkloadRequests(WorkloadId id, const Resources& requests);

    // Takes the workload's resources on `placement.node` (and the device shares it names) and from its pool.
    // Fails, changing nothing, when anything would go over capacity or quota.
    Expected<void> bind(const Placement& placement);
    // Releases what the workload holds; it stays known, unplaced.
    Expected<void> unbind(WorkloadId id);

    // Every node, device and pool within capacity and consistent with the placements; the error names the first
    // violation. Used by tests and by the replay's invariant check; O(nodes + workloads).
    Expected<void> checkInvariants() const;

    std::uint64_t version() const { return m_version; }
    std::size_t placedCount() const { return m_placed; }

private:
    std::vector<std::string> m_modelNames;
    std::vector<Node> m_nodes;
    std::vector<Pool> m_pools;
    std::unordered_map<WorkloadId, WorkloadRecord> m_workloads;
    std::uint64_t m_version = 0;
    std::size_t m_placed = 0;
};

} // namespace tidepool
