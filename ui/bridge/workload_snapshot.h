#pragma once
// The workloads of a `ConsoleSnapshot` and each pool's footprint per node, requested and measured. Plain C++, no Qt.
//
// Thread affinity: the core's thread (it reads the control plane, which is not synchronised).

#include "ui/bridge/console_snapshot.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tidepool::api {
class ControlPlane;
} // namespace tidepool::api

namespace tidepool::ui {

// Fills `snapshot.workloads` (every workload that waits, launches, runs or stops) and, for each pool of
// `snapshot.pools` (built first, by id), its footprint per node (`PoolRow::nodes`, the waiting ones in a row of their
// own) and its totals of requested and measured use. Measured use is each node's as its agent reports it, split among
// the node's workloads in proportion to their requests (`workload_rows.h`); where the agent measures the pools'
// cgroups, each pool's own use on the node, split among its workloads there (`applyPoolMeasurements`).
void addWorkloads(const api::ControlPlane& plane, ConsoleSnapshot& snapshot);

// One pool's use of one node as its agent measured the pool's cgroup (`protocol::PoolUsage`), by (node, pool) name.
struct MeasuredOnNode {
    std::int64_t cpuMillis = 0;
    std::int64_t memoryMiB = 0;
    double netMbps = -1.0; // what its HTB class sent; -1 where the node's agent does not shape its link
};
using PoolMeasurements = std::map<std::pair<std::string, std::string>, MeasuredOnNode>;

// The measured use of the placed rows of each measured (node, pool): the pool's measurement there, split among them in
// proportion to their requests (evenly where they request nothing), in place of the share of the node's use the rows
// were given. The node's use counts the host's own processes and every pool alike; the pool's cgroup only its own.
// On a node whose agent measured some pool, the rows of a pool it did not name used nothing (agents leave idle pools
// out); on a node where it named none, the rows keep the node's share. Network the same way, split by the rows'
// network requests, where the node's agent shapes its link (a pool's figure has a rate); elsewhere it stays
// unmeasured (-1): an unshaped link's traffic is not told apart by pool. Rows measured on their own (`usedMeasured`)
// keep their CPU and memory, and the pool's other rows there share what is left of its measurement.
void applyPoolMeasurements(std::vector<WorkloadRow>& rows, const PoolMeasurements& measured);

// Counts workload `w` (row `row` of the snapshot's workloads) into its pool's footprint on its node.
void addToFootprint(PoolNodeRow& footprint, const WorkloadRow& w, std::size_t row);
// Adds a placed footprint's requests and measured use to its pool's totals.
void addToPoolTotals(PoolRow& pool, const PoolNodeRow& footprint);

} // namespace tidepool::ui
