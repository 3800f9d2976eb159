#pragma once
// The real core as a simulation runs it (`scenario`, `fpga-scenario`): a fresh SQLite store at `dbPath`, the control
// plane on the simulation's clock, the history recorder and, when an evaluation period is given, the rebalancer. Only
// the agents are the simulation's: what the core sends them is appended to `outbox`, in order, for the simulation to
// act on.
//
// Thread affinity: the thread that runs `io`.

#include "core/api/control_plane.h"
#include "core/api/history_recorder.h"
#include "core/api/rebalancer.h"
#include "core/store/store.h"

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tidepool::sim {

struct SimulatedCore {
    std::unique_ptr<store::Store> store;
    std::unique_ptr<api::ControlPlane> plane; // uses `store`
    std::unique_ptr<api::HistoryRecorder> recorder;
    std::unique_ptr<api::Rebalancer> rebalancer; // null without an evaluation period
};

using Outbox = std::vector<std::pair<std::string, protocol::Message>>;

// Removes any database left at `dbPath` (and its WAL files) first. `outbox` and `clock` must outlive the core. Without
// `rebalance` there is no rebalancer.
Expected<SimulatedCore> buildSimulatedCore(boost::asio::io_context& io, const std::string& dbPath,
    std::function<std::int64_t()> clock, Outbox& outbox, std::optional<api::RebalanceConfig> rebalance);

// Runs what is ready on `io` and hands each message the core sent to `deliver` (the simulated agents, which answer
// through the control plane), until the core has nothing more to say (at most 1000 rounds).
void pump(boost::asio::io_context& io, Outbox& outbox,
    const std::function<void(const std::string& session, const protocol::Message& message)>& deliver);

// The simulated operator who approves every open proposal at `nowMs`, then lets the core act (`settle`); one re-planned
// on approval is approved in the next round (at most three).
void approveEveryProposal(api::Rebalancer& rebalancer, std::int64_t nowMs, const std::function<void()>& settle);

// The nodes' simulated power supplies and agents. A node an approved power-down proposal cordoned is switched off once
// it holds nothing: its agent leaves, and the core marks it off. One powered up again (its cordon lifted; the core
// marks it booting) boots for `bootMs`, drawing power and taking no work, and then its agent joins again with the
// inventory it first joined with.
class PowerSwitch {
public:
    explicit PowerSwitch(std::int64_t bootMs)
        : m_bootMs(bootMs)
    {
    }

    // A node's agent joins (session = its name) with `inventory`.
    void join(api::ControlPlane& plane, const std::string& name, protocol::Inventory inventory);
    // Switches off the nodes emptied for power-down and lets those that have booted join; at every step and after
    // each round of approvals.
    void apply(api::ControlPlane& plane, std::int64_t nowMs);
    // Drawing power: on, or booting.
    static bool powered(const api::LiveNode& node) { return node.state != api::NodeState::Off; }

private:
    std::int64_t m_bootMs;
    std::map<std::string, protocol::Inventory> m_inventories;
    std::map<std::string, std::int64_t> m_bootedAt; // booting nodes: when their agents join again
};

// The simulated nodes' agents: what each runs, answering the core as a real agent would. A launch runs at once, or
// once the load time the simulation gives it has passed (`reportReady` then reports it running); a stop of what runs
// there, in this incarnation, reports it stopped and forgets it (its work so far is lost); a job that ends is
// reported exited (`finish`).
class SimulatedAgents {
public:
    struct Running {
        std::string node; // the agent's session (the node's name)
        std::int64_t startMs = 0; // launched
        std::int32_t incarnation = 0;
        std::int64_t readyMs = 0; // loading until then; 0 = reported running
    };
    // What the simulation does when the core launches a workload (returns its load time, 0 = it runs at once) and
    // when the core stops one (before it is forgotten).
    struct Hooks {
        std::function<std::int64_t(WorkloadId)> launched;
        std::function<void(WorkloadId, const Running&)> stopped;
    };

    explicit SimulatedAgents(Hooks hooks)
        : m_hooks(std::move(hooks))
    {
    }

    // A message the core sent to agent `session` at `nowMs`.
    void deliver(
        api::ControlPlane& plane, std::int64_t nowMs, const std::string& session, const protocol::Message& message);
    // Reports running what has finished loading by `nowMs`.
    void reportReady(api::ControlPlane& plane, std::int64_t nowMs);
    // The workloads for which `ended` holds exit: each is reported and forgotten. Returns them.
    std::vector<std::pair<WorkloadId, Running>> finish(
        api::ControlPlane& plane, const std::function<bool(WorkloadId, const Running&)>& ended);

    const std::map<WorkloadId, Running>& running() const { return m_running; } // loading ones included
    bool loading(WorkloadId id) const
    {
        const auto it = m_running.find(id);
        return it != m_running.end() && it->second.readyMs != 0;
    }

private:
    Hooks m_hooks;
    std::map<WorkloadId, Running> m_running;
};

} // namespace tidepool::sim
