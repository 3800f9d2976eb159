#pragma once
// The cluster as a report needs it, taken from the live core: nodes with their capacity, class and power model, pools
// with their business line and nodes, the workloads the control plane still knows (pending time) and the rebalancer's
// proposals. Also the composition used by the API, the daemon's daily report and the console's embedded mode:
// `buildLiveReport` reads the control plane's store.
//
// Thread affinity: the core's io_context thread (it reads the control plane and the store).

#include "core/api/control_plane.h"
#include "core/api/rebalancer.h"
#include "core/report/report_builder.h"

namespace tidepool::report {

// A node's class for prices: its `class` label, else `<tier>-<isa>`, with `-<kind>` when it has accelerators.
std::string nodeClass(const Node& node);

ClusterFacts clusterFacts(const api::ControlPlane& plane, const api::Rebalancer* rebalancer);
ProposalFacts proposalFacts(const rebalance::Proposal& proposal);

// `buildReport` over the control plane's store; `NotFound` saying so when the core keeps no history (no --db).
Expected<ReportData> buildLiveReport(const ReportRequest& request, const api::ControlPlane& plane,
    const api::Rebalancer* rebalancer, const ReportSettings& settings);

} // namespace tidepool::report
