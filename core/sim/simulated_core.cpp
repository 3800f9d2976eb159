#include "core/sim/simulated_core.h"

#include <filesystem>

namespace tidepool::sim {

Expected<SimulatedCore> buildSimulatedCore(boost::asio::io_context& io, const std::string& dbPath,
    std::function<std::int64_t()> clock, Outbox& outbox, std::optional<api::RebalanceConfig> rebalance)
{
    SimulatedCore core;
    auto opened = store::openSqliteStore(dbPath, true); // from nothing, once no other process holds it
    if (!opened)
        return tl::unexpected(opened.error());
    core.store = std::move(*opened);
    api::ControlPlaneConfig config;
    config.clock = std::move(clock);
    api::AgentLink link { [&outbox](const std::string& session, const protocol::Message& message) {
                             outbox.emplace_back(session, message);
                             return true;
                         },
        [](const std::string&, const std::string&) { return true; } };
    auto plane = api::ControlPlane::create(io, std::move(config), std::move(link), {}, core.store.get());
    if (!plane)
        return tl::unexpected(plane.error());
    core.plane = std::move(*plane);
    core.recorder
        = std::make_unique<api::HistoryRecorder>(io, *core.plane, api::HistoryConfig {}, protocol::LogSink {});
    if (rebalance) {
        auto rebalancer = api::Rebalancer::create(io, *core.plane, std::move(*rebalance), {});
        if (!rebalancer)
            return tl::unexpected(makeError(ErrorCode::InvalidArgument, rebalancer.error().message));
        core.rebalancer = std::move(*rebalancer);
    }
    return core;
}

void pump(boost::asio::io_context& io, Outbox& outbox,
    const std::function<void(const std::string& session, const protocol::Message& message)>& deliver)
{
    for (int round = 0; round < 1000; ++round) {
        io.restart();
        io.poll();
        if (outbox.empty())
            return;
        auto messages = std::exchange(outbox, {});
        for (const auto& [session, message] : messages)
            deliver(session, message);
    }
}

void approveEveryProposal(api::Rebalancer& rebalancer, std::int64_t nowMs, const std::function<void()>& settle)
{
    for (int round = 0; round < 3; ++round) {
        std::vector<std::int64_t> open;
        for (const auto& [id, proposal] : rebalancer.proposals())
            if (proposal.open())
                open.push_back(id);
        if (open.empty())
            break;
        for (const std::int64_t id : open)
            (void)rebalancer.approve(id, "operator:sim", nowMs);
        settle();
    }
}

void PowerSwitch::join(api::ControlPlane& plane, const std::string& name, protocol::Inventory inventory)
{
    plane.onJoined(name, "sim", protocol::Hello { name, "sim", std::nullopt });
    plane.onInventory(name, inventory);
    m_inventories[name] = std::move(inventory);
}

void PowerSwitch::apply(api::ControlPlane& plane, std::int64_t nowMs)
{
    std::vector<std::string> booted;
    for (const api::LiveNode& live : plane.nodes()) {
        const Node& node = plane.cluster().node(live.id);
        if (!live.sessionId.empty() && live.cordon.rfind(kPowerDownCordon, 0) == 0 && node.residents.empty()) {
            plane.onLeft(live.sessionId, "switched off");
            continue;
        }
        if (live.state != api::NodeState::Booting) {
            m_bootedAt.erase(node.name);
            continue;
        }
        if (nowMs >= m_bootedAt.try_emplace(node.name, nowMs + m_bootMs).first->second)
            booted.push_back(node.name);
    }
    for (const std::string& name : booted) { // joining changes the nodes iterated above
        m_bootedAt.erase(name);
        join(plane, name, m_inventories.at(name));
    }
}

void SimulatedAgents::deliver(
    api::ControlPlane& plane, std::int64_t nowMs, const std::string& session, const protocol::Message& message)
{
    if (const auto* launch = std::get_if<protocol::Launch>(&message)) {
        const std::int64_t loadMs = m_hooks.launched ? m_hooks.launched(launch->workloadId) : 0;
        m_running[launch->workloadId]
            = Running { session, nowMs, launch->incarnation, loadMs > 0 ? nowMs + loadMs : 0 };
        if (loadMs <= 0)
            plane.onWorkloadUpdate(
                session, protocol::WorkloadStatus { launch->workloadId, "running", 4242, 0, "", launch->incarnation });
    } else if (const auto* stop = std::get_if<protocol::Stop>(&message)) {
        const auto it = m_running.find(stop->workloadId);
        if (it == m_running.end() || it->second.node != session
            || (stop->incarnation && *stop->incarnation != it->second.incarnation)) {
            // Nothing of it runs there: answered all the same, as an agent does, so that the stop leaves the window.
            plane.onWorkloadUpdate(session,
                protocol::WorkloadStatus {
                    stop->workloadId, "lost", 0, 0, "not held here: nothing to stop", stop->incarnation.value_or(0) });
            return;
        }
        if (m_hooks.stopped)
            m_hooks.stopped(it->first, it->second);
        const std::int32_t incarnation = it->second.incarnation;
        m_running.erase(it);
        plane.onWorkloadUpdate(
            session, protocol::WorkloadStatus { stop->workloadId, "stopped", 0, 15, "", incarnation });
    }
}

void SimulatedAgents::reportReady(api::ControlPlane& plane, std::int64_t nowMs)
{
    for (auto& [id, running] : m_running)
        if (running.readyMs != 0 && running.readyMs <= nowMs) {
            running.readyMs = 0;
            plane.onWorkloadUpdate(
                running.node, protocol::WorkloadStatus { id, "running", 4242, 0, "", running.incarnation });
        }
}

std::vector<std::pair<WorkloadId, SimulatedAgents::Running>> SimulatedAgents::finish(
    api::ControlPlane& plane, const std::function<bool(WorkloadId, const Running&)>& ended)
{
    std::vector<std::pair<WorkloadId, Running>> done;
    for (const auto& [id, running] : m_running)
        if (ended(id, running))
            done.emplace_back(id, running);
    for (const auto& [id, running] : done) {
        m_running.erase(id);
        plane.onWorkloadUpdate(
            running.node, protocol::WorkloadStatus { id, "exited", 4242, 0, "", running.incarnation });
    }
    return done;
}

} // namespace tidepool::sim
