// tidepool-bench-drain: what drains cost the core's thread on a large fleet — the drain of a full node all at once,
// and the liveness tick (every 500 ms) while a paced drain waits: for its pace, for a pool's disruption budget, and
// for nodes to take workloads that none takes (each such one is tried again at every tick).
//   tidepool-bench-drain [--agents N] [--residents R] [--ticks T] [--rounds K] --json
// It builds the real control plane and scheduler (no store, agents simulated in-process as in `tidepool-bench-join`),
// N agents of the benchmarks' fleet (bench_fleet.h), R workloads of one core each moved onto one 96-core node and
// running there, then, each on a fresh plane of the round: an all-at-once drain of that node (every move judged by the
// scheduler's filters and placed by its policies); a paced drain of 5 at a time, and T ticks while those 5 launch;
// the same with the workloads' pool holding a disruption budget of 2, T ticks while 2 launch and the rest wait for
// the budget; and the same with every other node cordoned: the drain's start, which tries each of the R once, and T
// ticks in which no node takes any (tried again only once capacity grows). It prints the median of each over K rounds
// as one JSON object.
#include "bench/bench_fleet.h"
#include "bench/timing.h"
#include "core/api/control_plane.h"

#include <boost/asio/io_context.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using namespace tidepool;
using bench::Clock;
using bench::median;
using bench::millisSince;

namespace {

enum class Waiting { Pace, Budget, NoNode };

struct Fleet {
    boost::asio::io_context io;
    std::unique_ptr<api::ControlPlane> plane;
    std::string drained; // the node the residents run on
    std::vector<WorkloadId> residents;
};

// N agents joined, a pool "batch" (with `budget` as its disruption budget), R one-core workloads of it on one
// 96-core node, running there.
std::unique_ptr<Fleet> makeFleet(int agents, int residents, std::int64_t budget)
{
    auto fleet = std::make_unique<Fleet>();
    api::AgentLink link { [](const std::string&, const protocol::Message&) { return true; },
        [](const std::string&, const std::string&) { return true; } };
    auto plane = api::ControlPlane::create(fleet->io, api::ControlPlaneConfig {}, std::move(link), {}, nullptr);
    if (!plane) {
        std::fprintf(stderr, "tidepool-bench-drain: %s\n", plane.error().message.c_str());
        std::exit(1);
    }
    fleet->plane = std::move(*plane);
    api::ControlPlane& p = *fleet->plane;
    api::PoolRequest pool;
    pool.name = "batch";
    pool.maxDisrupted = api::DisruptionBudget::workloads(budget);
    (void)p.createPool(pool);
    for (int n = 0; n < agents; ++n) {
        const std::string name = "node-" + std::to_string(n);
        p.onJoined(name, "bench", protocol::Hello { name, "bench", std::nullopt });
        p.onInventory(name, bench::fleetInventory(n));
    }
    fleet->drained = "node-15"; // a 96-core GPU server: room for 96 one-core workloads
    for (int w = 0; w < residents; ++w) {
        api::SubmitRequest request;
        request.name = "resident-" + std::to_string(w);
        request.pool = "batch";
        request.requests.cpuMillis = 1000;
        request.requests.memoryMiB = 1024;
        request.argv = { "/bin/true" };
        auto id = p.submit(std::move(request));
        if (!id)
            continue;
        api::MoveTarget there;
        there.node = fleet->drained;
        if (const api::LiveWorkload* live = p.workload(*id);
            live->node == kNoNode || p.cluster().node(live->node).name != fleet->drained)
            if (!p.move(*id, there, "bench").moved())
                continue;
        const api::LiveWorkload* live = p.workload(*id);
        p.onWorkloadUpdate(
            fleet->drained, protocol::WorkloadStatus { *id, "running", 1000 + w, 0, {}, live->incarnation });
        fleet->residents.push_back(*id);
    }
    fleet->io.restart();
    fleet->io.poll();
    return fleet;
}

struct Round {
    double allAtOnceMs = 0;
    std::size_t allAtOnceMoved = 0;
    double pacedStartMs = 0;
    double tickPaceUs = 0;
    double tickBudgetUs = 0;
    double tickNoNodeUs = 0;
    double noNodeStartMs = 0; // the drain's start: each of them tried once
    std::int64_t waitingNoNode = 0;
};

// A paced drain of the node, `waiting` as it says, then the median tick of `ticks`.
double pacedTickUs(int agents, int residents, int ticks, Waiting waiting, double* startMs, std::int64_t* blocked)
{
    auto fleet = makeFleet(agents, residents, waiting == Waiting::Budget ? 2 : kUnlimited);
    api::ControlPlane& p = *fleet->plane;
    if (waiting == Waiting::NoNode)
        for (const api::LiveNode& node : p.nodes())
            if (const std::string& name = p.cluster().node(node.id).name; name != fleet->drained)
                (void)p.operatorCordon(name, "bench", "bench");
    const auto start = Clock::now();
    auto drained = p.drain(fleet->drained, "bench", "bench",
        api::DrainOptions { waiting == Waiting::Pace ? 5 : api::kMaxDrainParallel, 0 });
    if (startMs)
        *startMs = millisSince(start);
    if (!drained || !drained->paced) {
        std::fprintf(stderr, "tidepool-bench-drain: the paced drain did not start\n");
        std::exit(1);
    }
    std::vector<double> perTick;
    const std::int64_t now = api::unixMillis();
    for (int t = 0; t < ticks; ++t) {
        const auto tick = Clock::now();
        p.advanceDrains(now + t);
        perTick.push_back(millisSince(tick) * 1000.0);
    }
    if (blocked)
        *blocked = p.nodeByName(fleet->drained)->drain ? p.nodeByName(fleet->drained)->drain->blocked : 0;
    p.stop();
    return median(perTick);
}

Round runRound(int agents, int residents, int ticks)
{
    Round round;
    {
        auto fleet = makeFleet(agents, residents, kUnlimited);
        const auto start = Clock::now();
        auto drained = fleet->plane->drain(fleet->drained, "bench", "bench");
        round.allAtOnceMs = millisSince(start);
        round.allAtOnceMoved = drained ? drained->moved() : 0;
        fleet->plane->stop();
    }
    round.tickPaceUs = pacedTickUs(agents, residents, ticks, Waiting::Pace, &round.pacedStartMs, nullptr);
    round.tickBudgetUs = pacedTickUs(agents, residents, ticks, Waiting::Budget, nullptr, nullptr);
    round.tickNoNodeUs
        = pacedTickUs(agents, residents, ticks, Waiting::NoNode, &round.noNodeStartMs, &round.waitingNoNode);
    return round;
}

} // namespace

int main(int argc, char** argv)
{
    int agents = 2'000, residents = 60, ticks = 50, rounds = 3;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "--agents" || arg == "--residents" || arg == "--ticks" || arg == "--rounds") && i + 1 < argc) {
            const int value = std::max(1, std::atoi(argv[++i]));
            (arg == "--agents" ? agents : arg == "--residents" ? residents : arg == "--ticks" ? ticks : rounds) = value;
        } else if (arg != "--json") {
            std::fprintf(
                stderr, "usage: tidepool-bench-drain [--agents N] [--residents R] [--ticks T] [--rounds K] --json\n");
            return 2;
        }
    }
    residents = std::min(residents, 96);
    std::vector<double> allAtOnce, pacedStart, pace, budget, noNode, noNodeStart;
    Round last;
    for (int r = 0; r < rounds; ++r) {
        last = runRound(agents, residents, ticks);
        allAtOnce.push_back(last.allAtOnceMs);
        pacedStart.push_back(last.pacedStartMs);
        pace.push_back(last.tickPaceUs);
        budget.push_back(last.tickBudgetUs);
        noNode.push_back(last.tickNoNodeUs);
        noNodeStart.push_back(last.noNodeStartMs);
    }
    const nlohmann::json out { { "agents", agents }, { "residents", residents }, { "ticks", ticks },
        { "rounds", rounds }, { "all_at_once_moved", last.allAtOnceMoved },
        { "all_at_once_drain_ms", median(allAtOnce) },
        { "all_at_once_us_per_move", last.allAtOnceMoved > 0 ? median(allAtOnce) * 1000.0 / last.allAtOnceMoved : 0.0 },
        { "paced_start_ms", median(pacedStart) }, { "tick_waiting_for_pace_us", median(pace) },
        { "tick_waiting_for_budget_us", median(budget) }, { "tick_no_node_takes_them_us", median(noNode) },
        { "no_node_waiting", last.waitingNoNode }, { "no_node_start_ms", median(noNodeStart) },
        { "no_node_us_per_waiting",
            last.waitingNoNode > 0 ? median(noNode) / static_cast<double>(last.waitingNoNode) : 0.0 } };
    std::puts(out.dump().c_str());
    return 0;
}
