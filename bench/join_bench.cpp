// tidepool-bench-join: what the core's thread pays when many agents join at once — a daemon's restart, or a network
// partition healing, brings every agent back within seconds — and what a burst of work placed right after costs.
//   tidepool-bench-join [--agents N] [--workloads W] [--rounds R] --json
// It builds the real control plane and scheduler (no store, agents simulated in-process as in `tidepool-bench-console`)
// with 20 pools, then N agents join (hello and inventory: 85% x86 servers, 10% of them with 8 GPUs, 10% aarch64
// servers, 5% FPGA or NPU hosts), then W workloads are submitted and placed. It repeats this R times (a fresh control
// plane each time) and prints the median of each timing as one JSON object: all the joins, the slowest thousand of
// them, and the burst.
#include "bench/bench_fleet.h"
#include "bench/timing.h"
#include "core/api/control_plane.h"

#include <boost/asio/io_context.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tidepool;
using bench::Clock;
using bench::median;
using bench::millisSince;

namespace {

struct Round {
    double joinMs = 0;
    double slowestThousandMs = 0; // the thousand joins that took longest together, one after another
    double burstMs = 0;
    std::size_t ready = 0;
    std::size_t placed = 0;
};

Round runRound(int agents, int workloads)
{
    Round round;
    boost::asio::io_context io;
    api::AgentLink link { [](const std::string&, const protocol::Message&) { return true; },
        [](const std::string&, const std::string&) { return true; } };
    auto plane = api::ControlPlane::create(io, api::ControlPlaneConfig {}, std::move(link), {}, nullptr);
    if (!plane) {
        std::fprintf(stderr, "tidepool-bench-join: %s\n", plane.error().message.c_str());
        std::exit(1);
    }
    api::ControlPlane& p = **plane;
    for (int i = 0; i < 20; ++i) {
        api::PoolRequest pool;
        pool.name = "pool-" + std::to_string(i);
        pool.businessLine = "line-" + std::to_string(i % 5);
        (void)p.createPool(pool);
    }
    std::vector<double> perThousand;
    const auto start = Clock::now();
    auto thousand = Clock::now();
    for (int n = 0; n < agents; ++n) {
        const std::string name = "node-" + std::to_string(n);
        p.onJoined(name, "bench", protocol::Hello { name, "bench", std::nullopt });
        p.onInventory(name, bench::fleetInventory(n));
        if ((n + 1) % 1000 == 0) {
            perThousand.push_back(millisSince(thousand));
            thousand = Clock::now();
        }
    }
    io.restart();
    io.poll();
    round.joinMs = millisSince(start);
    round.slowestThousandMs
        = perThousand.empty() ? round.joinMs : *std::max_element(perThousand.begin(), perThousand.end());
    for (const api::LiveNode& node : p.nodes())
        round.ready += node.state == api::NodeState::Ready;

    const auto burst = Clock::now();
    for (int w = 0; w < workloads; ++w) {
        api::SubmitRequest request;
        request.name = "job-" + std::to_string(w);
        request.pool = "pool-" + std::to_string(w % 20);
        request.requests.cpuMillis = 1000 + 500 * (w % 7);
        request.requests.memoryMiB = 2048 + 1024 * (w % 7);
        if (w % 10 >= 8) {
            request.accelerators.kind = AcceleratorKind::Gpu;
            request.accelerators.count = 1;
            request.accelerators.sharePerDevice = 250 * (w % 4 + 1);
        }
        request.argv = { "/bin/true" };
        if (auto id = p.submit(std::move(request)); id && p.workload(*id)->node != kNoNode)
            ++round.placed;
    }
    io.restart();
    io.poll();
    round.burstMs = millisSince(burst);
    p.stop();
    return round;
}

} // namespace

int main(int argc, char** argv)
{
    int agents = 10'000, workloads = 10'000, rounds = 3;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "--agents" || arg == "--workloads" || arg == "--rounds") && i + 1 < argc) {
            const int value = std::max(0, std::atoi(argv[++i]));
            (arg == "--agents" ? agents : arg == "--workloads" ? workloads : rounds) = value;
        } else if (arg != "--json") {
            std::fprintf(stderr, "usage: tidepool-bench-join [--agents N] [--workloads W] [--rounds R] --json\n");
            return 2;
        }
    }
    std::vector<double> join, slowest, burst;
    Round last;
    for (int r = 0; r < std::max(1, rounds); ++r) {
        last = runRound(agents, workloads);
        join.push_back(last.joinMs);
        slowest.push_back(last.slowestThousandMs);
        burst.push_back(last.burstMs);
    }
    const nlohmann::json out { { "agents", agents }, { "workloads", workloads }, { "rounds", join.size() },
        { "ready", last.ready }, { "placed", last.placed }, { "join_ms", median(join) },
        { "join_us_per_agent", agents > 0 ? median(join) * 1000.0 / agents : 0.0 },
        { "slowest_thousand_joins_ms", median(slowest) }, { "burst_ms", median(burst) },
        { "burst_us_per_workload", workloads > 0 ? median(burst) * 1000.0 / workloads : 0.0 } };
    std::puts(out.dump().c_str());
    return 0;
}
