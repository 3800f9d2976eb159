#pragma once
// The Prometheus text format (0.0.4) of `/metrics`: the helpers every family goes through, and the families an
// operator graphs and alerts on beyond the daemon's own counters — what each pool, tier and accelerator kind holds,
// and how the evaluation loop is doing:
//
//   tidepool_pool_cpu_millis{pool,kind="allocated"|"quota"}            quota only where the pool has one
//   tidepool_pool_memory_mib{pool,kind="allocated"|"quota"}
//   tidepool_pool_accelerator_share{pool,accelerator,kind}             the kinds a pool holds or has a quota of (0:
//   kept
//                                                                      off the kind); share units as workloads ask
//   tidepool_pool_workloads{pool,phase="pending"|"launching"|"running"|"stopping"}
//   tidepool_tier_nodes{tier,state}                                    every node, "none" for a node without a tier
//   tidepool_tier_cpu_millis{tier,kind="capacity"|"allocated"}         ready and suspect nodes, as the cluster's
//   tidepool_tier_memory_mib{tier,kind}
//   tidepool_tier_accelerator_share{tier,accelerator,kind}
//   tidepool_accelerator_devices{accelerator}                          on ready and suspect nodes
//   tidepool_accelerator_share{accelerator,kind="capacity"|"allocated"}
//   tidepool_accelerator_busy_ratio{accelerator}                       mean measured utilisation (0-1) of the devices
//                                                                      whose agents report one
//   tidepool_accelerator_memory_mib{accelerator,kind="capacity"|"used"}   used: measured, by the same devices
//   tidepool_evaluations_total                                         evaluations finished (the 5-minute loop,
//   "evaluate
//                                                                      now", re-plans)
//   tidepool_evaluation_last_timestamp_seconds                         when the last one finished (the loop's start
//                                                                      before the first): alert when it grows old
//   tidepool_evaluation_duration_seconds                               the last one's wall time, forecasting included
//   tidepool_proposals_pending{kind}                                   proposals waiting for a decision
//   tidepool_proposal_state_changes_total{state}                       proposals that entered each state since the
//                                                                      daemon started ("pending": created)
//
// Label values are escaped as the format asks (backslash, double quote, line feed). Thread affinity: the core's thread
// (they read the control plane and the rebalancer).

#include <string>
#include <string_view>

namespace tidepool::api {

class ControlPlane;
class Rebalancer;

// `# HELP` and `# TYPE` of one family; `help` is written as given (no line feeds).
void appendMetric(std::string& out, std::string_view name, std::string_view type, std::string_view help);
// One sample; `labels` is empty or a `{...}` made with `labelPair`s.
void appendSample(std::string& out, std::string_view name, std::string_view labels, double value);
// `name="value"`, the value escaped.
std::string labelPair(std::string_view name, std::string_view value);

void appendPoolTierAcceleratorMetrics(std::string& out, const ControlPlane& plane);
void appendRebalancerMetrics(std::string& out, const Rebalancer& rebalancer);

} // namespace tidepool::api
