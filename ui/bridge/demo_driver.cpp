#include "ui/bridge/demo_driver.h"

#include "core/api/control_plane.h"
#include "core/api/rebalancer.h"
#include "ui/bridge/move_executor.h"
#include "ui/bridge/node_executor.h"
#include "ui/bridge/pool_executor.h"
#include "ui/bridge/resize_executor.h"
#include "ui/bridge/snapshot_builder.h"

namespace tidepool::ui {

Expected<std::unique_ptr<DemoDriver>> DemoDriver::start(DemoConfig config)
{
    if (config.evaluationPeriodMs < config.scenario.stepMs)
        return makeError(ErrorCode::InvalidArgument, "the evaluation period must be at least one step");
    if (config.scenario.mode != sim::ScenarioMode::Tidepool)
        return makeError(ErrorCode::InvalidArgument, "the demo runs the scenario in tidepool mode");
    // The scenario evaluates every period and leaves the proposals to the console's operator.
    config.scenario.evaluationPeriodMs = config.evaluationPeriodMs;
    config.scenario.operatorApproves = false;
    auto run = sim::ScenarioRun::start(config.scenario);
    if (!run)
        return tl::unexpected(run.error());
    std::unique_ptr<DemoDriver> driver(new DemoDriver);
    driver->m_config = std::move(config);
    driver->m_run = std::move(*run);
    return driver;
}

DemoDriver::~DemoDriver() = default;

bool DemoDriver::done() const
{
    return m_run->done();
}

void DemoDriver::advance()
{
    if (done())
        return;
    m_run->step();
}

void DemoDriver::decide(const ProposalCommand& command, std::function<void(CommandOutcome)> done)
{
    decideProposal(m_run->plane(), m_run->rebalancer(), command, kConsoleActor, std::move(done));
    m_run->poll(); // committed now, not at the next step
}

void DemoDriver::move(const MoveCommand& command, std::function<void(MoveResult)> done)
{
    executeMove(m_run->plane(), command, kConsoleActor, std::move(done));
    m_run->poll(); // committed now, not at the next step
}

void DemoDriver::changePool(const PoolCommand& command, std::function<void(PoolResult)> done)
{
    executePoolCommand(m_run->plane(), command, kConsoleActor, std::move(done));
    m_run->poll(); // committed now, not at the next step
}

void DemoDriver::changeNode(const NodeCommand& command, std::function<void(NodeResult)> done)
{
    executeNodeCommand(m_run->plane(), command, kConsoleActor, std::move(done));
    m_run->poll(); // committed now, not at the next step
}

void DemoDriver::resize(const ResizeCommand& command, std::function<void(ResizeResult)> done)
{
    executeResize(m_run->plane(), command, kConsoleActor, std::move(done));
    m_run->poll(); // committed now, not at the next step
}

SnapshotPtr DemoDriver::snapshot()
{
    auto snapshot = buildSnapshot(m_run->plane(), m_run->rebalancer(), ++m_sequence, "demo");
    m_views.fill(m_run->plane(), m_run->rebalancer(), *snapshot);
    snapshot->finished = done();
    return snapshot;
}

} // namespace tidepool::ui
