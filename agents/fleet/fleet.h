#pragma once
// tidepool-fleet's parts: inventories of simulated nodes (from the real fleets in ../shared/data/fleets or
// generated), a load series that drives their utilisation, and the simulated agent itself, which speaks the real
// protocol over a real socket through `AgentConnection`. A simulated agent runs nothing: a launch is acknowledged as
// running at once and a stop as stopped, and it remembers what it holds so that a reconnect reconciles like a real
// agent's.
//
// Thread affinity: a `SimulatedAgent` lives on one io_context thread. The loaders are plain functions.

#include "agents/net/agent_connection.h"
#include "protocol/error.h"

#include <map>
#include <string>
#include <vector>

namespace tidepool::agent {

struct FleetNodeSpec {
    std::string name;
    std::string isa = "x86_64";
    std::int64_t cpuMillis = 0;
    std::int64_t memoryMiB = 0;
    std::vector<protocol::DeviceInfo> devices;
    std::int64_t netMbps = 0; // the shaped link's rate its inventory reports (0: not shaped)
    // Whether its samples carry each pool's measured use: what its held workloads of the pool requested times the
    // node's load of the moment (CPU by the CPU load, memory by the memory load); egress 0 where shaped (it sends
    // nothing).
    bool poolUsage = true;
    // And each running workload's: what it requested times the node's load (with `poolUsage` only).
    bool workloadUsage = true;
};

// `machine, gpu_type, cap_cpu, cap_mem, cap_gpu` rows (Alibaba PAI 2020, no header): cores, GB, GPUs.
protocol::Expected<std::vector<FleetNodeSpec>> loadPai2020(const std::string& path);
// `gpu_model, gpu_capacity_num, cpu_num, node_name` rows (Alibaba spot 2026, with a header); memory is not in the
// trace and is taken as 8 GiB per core.
protocol::Expected<std::vector<FleetNodeSpec>> loadSpot2026(const std::string& path);
// A mixed fleet: x86_64 CPU servers, x86_64 GPU servers, aarch64 and riscv64 servers, an NPU and an FPGA host.
std::vector<FleetNodeSpec> generateFleet(std::size_t count, std::uint64_t seed);
// `count` nodes taken from `specs` in order, cycling, named `<prefix>-<i>`.
std::vector<FleetNodeSpec> takeNodes(const std::vector<FleetNodeSpec>& specs, std::size_t count, const std::string& prefix);

// Utilisation over time from the first two columns (CPU %, memory %) of a load-series CSV with a header.
struct LoadSeries {
    std::vector<double> cpu; // 0..1
    std::vector<double> memory; // 0..1
    double bucketSeconds = 30;
    // The value at `seconds` of trace time (wrapping), or 0.3 / 0.5 for an empty series.
    std::pair<double, double> at(double seconds) const;
};
protocol::Expected<LoadSeries> loadLoadSeries(const std::string& path, double bucketSeconds);

struct SimulatedAgentStats {
    std::uint64_t launches = 0;
    std::uint64_t duplicateLaunches = 0; // launches of an (id, incarnation) already held: answered, not started again
    std::uint64_t stops = 0;
};

class SimulatedAgent {
public:
    SimulatedAgent(boost::asio::io_context& io, FleetNodeSpec spec, AgentConnectionConfig config,
        const LoadSeries* load, double timeScale, double phaseSeconds, protocol::LogSink log);

    void start() { m_connection->start(); }
    void stop() { m_connection->stop(); }
    bool joined() const { return m_connection->joined(); }
    std::size_t running() const { return m_workloads.size(); }
    const SimulatedAgentStats& stats() const { return m_stats; }
    const AgentConnection& connection() const { return *m_connection; }

private:
    protocol::Inventory inventory() const;
    protocol::UtilisationSample sample() const;
    void onCommand(const protocol::Message& message);

    FleetNodeSpec m_spec;
    const LoadSeries* m_load;
    double m_timeScale;
    double m_phaseSeconds; // each node starts at its own place in the series
    std::chrono::steady_clock::time_point m_started;
    std::map<std::int64_t, protocol::WorkloadStatus> m_workloads;
    struct Held {
        std::string pool;
        std::int64_t cpuMillis = 0, memoryMiB = 0;
    };
    std::map<std::int64_t, Held> m_held; // what each workload of `m_workloads` launched here asked for
    std::int32_t m_nextPid = 1000;
    SimulatedAgentStats m_stats;
    std::shared_ptr<AgentConnection> m_connection;
};

} // namespace tidepool::agent
