#pragma once
// The demo's core, one simulated minute at a time: a `sim::ScenarioRun` (the real control plane, rebalancer and
// SQLite store over a simulated fleet) whose proposals wait for the operator: the scenario evaluates every
// `evaluationPeriodMs` of simulated time with `operatorApproves` off, so they stay pending. Operator decisions go
// through `Rebalancer::approve` and `reject`, are audited through the control plane, and are answered once durable.
//
// Thread affinity: everything on the thread that called `start` (the console's core thread, or a test's).

#include "core/sim/scenario.h"
#include "ui/bridge/console_backend.h"
#include "ui/bridge/proposal_decision.h"
#include "ui/bridge/view_collector.h"

#include <functional>
#include <memory>

namespace tidepool::ui {

struct DemoConfig {
    sim::ScenarioConfig scenario; // its `evaluationPeriodMs` and `operatorApproves` are set from below
    std::int64_t evaluationPeriodMs = 5 * 60'000; // simulated
};

class DemoDriver {
public:
    static Expected<std::unique_ptr<DemoDriver>> start(DemoConfig config);
    ~DemoDriver();

    bool done() const;
    // One step of simulated time (one minute by default), and an evaluation when one is due.
    void advance();
    // Decides a proposal now; `done` is called with the outcome once the decision and its audit entry are durable
    // (committed before `decide` returns).
    void decide(const ProposalCommand& command, std::function<void(CommandOutcome)> done);
    // Moves a workload (an operator's drop on the Tiers board) through `executeMove`; `done` is called with the
    // result once the move and its audit entry are durable (committed before `move` returns).
    void move(const MoveCommand& command, std::function<void(MoveResult)> done);
    // Creates, changes or deletes a pool through `executePoolCommand`; `done` is called with the result once the change
    // and its audit entry are durable (committed before `changePool` returns).
    void changePool(const PoolCommand& command, std::function<void(PoolResult)> done);
    // Cordons, uncordons or drains a node through `executeNodeCommand`; `done` is called with the result once the
    // change and its audit entry are durable (committed before `changeNode` returns).
    void changeNode(const NodeCommand& command, std::function<void(NodeResult)> done);
    // Resizes a workload through `executeResize`, likewise.
    void resize(const ResizeCommand& command, std::function<void(ResizeResult)> done);
    SnapshotPtr snapshot();

    sim::ScenarioRun& run() { return *m_run; }
    // What the Accelerators, Forecasts and Events views get besides (device history, forecasts, events).
    ViewCollector& views() { return m_views; }

private:
    DemoDriver() = default;

    DemoConfig m_config;
    std::unique_ptr<sim::ScenarioRun> m_run;
    std::uint64_t m_sequence = 0;
    ViewCollector m_views;
};

} // namespace tidepool::ui
