#pragma once
// tidepoolctl's commands, one function each, as main.cpp dispatches them. Each takes the words after the command's
// name, checks them all, and only then sends its requests through the session.
//
// Thread affinity: none; tidepoolctl runs on one thread.

#include "app/tidepoolctl/ctl.h"

namespace tidepool::ctl {

using Words = std::vector<std::string>;

// Workloads (submit.cpp, workloads.cpp).
Result<void> submit(Session& session, const Words& words);
Result<void> list(Session& session, const Words& words);
// `get`, `why` and `cancel`, which differ only in the request and the printer; `command` says which.
Result<void> workloadCommand(Session& session, const std::string& command, const Words& words);
// The workload table of `list`, also printed by `submit` for what it submitted.
void printWorkloads(const json& list);
// The end of a workload's output, from the agent that holds it (`logs ID [--stderr] [--bytes N]`).
Result<void> logs(Session& session, const Words& words);
// An operator's move onto a node, a tier or into a pool (move.cpp); a refusal is exit 1 with the scheduler's reasons.
Result<void> move(Session& session, const Words& words);
// An operator's resize of a workload's requests and limits, in place where it runs (move.cpp).
Result<void> resize(Session& session, const Words& words);

// The cluster (cluster.cpp).
Result<void> nodes(Session& session, const Words& words);
Result<void> pools(Session& session, const Words& words);
Result<void> summary(Session& session, const Words& words);

// Rebalance proposals (proposals.cpp).
Result<void> proposals(Session& session, const Words& words);
// `proposal show|approve|reject ID`.
Result<void> proposal(Session& session, const Words& words);
Result<void> evaluate(Session& session, const Words& words);
// Re-simulates the cluster with a changed profile, quotas or nodes and prints the difference; changes nothing.
Result<void> whatIf(Session& session, const Words& words);

// History and the audit log (history.cpp).
Result<void> series(Session& session, const Words& words);
Result<void> history(Session& session, const Words& words);
Result<void> audit(Session& session, const Words& words);

// The cluster's timeline, once or followed, and the daemon machine's alerts (events.cpp).
Result<void> events(Session& session, const Words& words);
Result<void> alerts(Session& session, const Words& words);

// A report for a period and a scope, written as PDF, HTML, CSV or JSON (report.cpp).
Result<void> report(Session& session, const Words& words);

} // namespace tidepool::ctl
