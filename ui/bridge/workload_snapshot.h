#pragma once
// The workloads of a `ConsoleSnapshot` and each pool's footprint per node, requested and measured. Plain C++, no Qt.
//
// Thread affinity: the core's thread (it reads the control plane, which is not synchronised).

#include "ui/bridge/console_snapshot.h"

namespace tidepool::api {
class ControlPlane;
} // namespace tidepool::api

namespace tidepool::ui {

// Fills `snapshot.workloads` (every workload that waits, launches, runs or stops) and, for each pool of
// `snapshot.pools` (built first, by id), its footprint per node (`PoolRow::nodes`, the waiting ones in a row of their
// own) and its totals of requested and measured use. Measured use is each node's as its agent reports it, split among
// the node's workloads in proportion to their requests (`workload_rows.h`).
void addWorkloads(const api::ControlPlane& plane, ConsoleSnapshot& snapshot);

// Counts workload `w` (row `row` of the snapshot's workloads) into its pool's footprint on its node.
void addToFootprint(PoolNodeRow& footprint, const WorkloadRow& w, std::size_t row);
// Adds a placed footprint's requests and measured use to its pool's totals.
void addToPoolTotals(PoolRow& pool, const PoolNodeRow& footprint);

} // namespace tidepool::ui
