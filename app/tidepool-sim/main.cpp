// tidepool-sim: trace replay and what-if simulation, headless. Thin main: parse options, load, replay, print.
//
//   tidepool-sim openb --nodes <node csv> --pods <pod csv> --policy <name> --seed <n> [--inflate 1.3]
//                      [--check-invariants] [--json] [--defrag [--defrag-max-moves 6] [--defrag-candidates 16]
//                      [--defrag-chain 1] [--defrag-destination tightest|policy]]
//   tidepool-sim scenario [--mode static|tidepool|both] [--days 8] ... (see scenario_command.cpp)
//   tidepool-sim fpga-scenario [--mode static|static-shared|tidepool|all] [--cards 16,12,...] ... (fpga_command.cpp)
//   tidepool-sim openb-table --nodes <node csv> --pods <pod csv> [--seed <n>] [--inflate 1.3]
//                      (every policy, then `tidepool --defrag`, as a table)

#include "app/tidepool-sim/fpga_command.h"
#include "app/tidepool-sim/scenario_command.h"
#include "core/rebalance/defrag.h"
#include "core/sched/policy.h"
#include "core/sim/openb.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace {

using namespace tidepool;

constexpr int kExitBadArguments = 2;
constexpr int kExitBadInput = 1;

int usage(const std::string& problem)
{
    std::cerr
        << "tidepool-sim: " << problem << "\n"
        << "usage: tidepool-sim openb --nodes <node csv> --pods <pod csv> --policy <name> --seed <n>\n"
        << "                          [--inflate 1.3] [--check-invariants] [--json]\n"
        << "                          [--defrag [--defrag-max-moves 6] [--defrag-candidates 16] [--defrag-chain 1]\n"
        << "                                    [--defrag-destination tightest|policy]]\n"
        << "  --defrag: when a pod fits nowhere, move placed fractional-GPU and CPU-only pods (never whole-GPU\n"
        << "  ones) to make room for it, at most --defrag-max-moves per arriving pod, trying the cheapest\n"
        << "  --defrag-candidates nodes; a moved pod that fits nowhere may move others --defrag-chain levels down.\n"
        << "  An attempt that does not place the pod is rolled back. Every move counts in `moves`.\n"
        << "       tidepool-sim openb-table --nodes <node csv> --pods <pod csv> [--seed <n>] [--inflate 1.3]\n"
        << "       tidepool-sim scenario [--mode static|tidepool|both] [--days 8] [--json] (tidepool-sim scenario --help)\n"
        << "       tidepool-sim fpga-scenario [--mode static|static-shared|tidepool|all] [--cards 16[,12,...]] [--json]\n"
        << "                          (tidepool-sim fpga-scenario --help)\n";
    return kExitBadArguments;
}

// "openb_pod_list_gpushare40.csv" -> "gpushare40".
std::string workloadName(const std::string& podsPath)
{
    std::string name = podsPath.substr(podsPath.find_last_of('/') + 1);
    if (name.size() > 4 && name.ends_with(".csv"))
        name.resize(name.size() - 4);
    constexpr std::string_view prefix = "openb_pod_list_";
    if (name.starts_with(prefix))
        name.erase(0, prefix.size());
    return name;
}

nlohmann::json toJson(
    const sim::ReplayResult& r, const std::string& workload, const std::optional<rebalance::DefragOptions>& defrag)
{
    nlohmann::json j;
    j["policy"] = r.policy;
    j["defrag"] = defrag.has_value();
    if (defrag)
        j["defrag_max_moves"] = defrag->maxMoves;
    j["seed"] = r.seed;
    j["workload"] = workload;
    j["gpus_total"] = r.gpusTotal;
    j["pods_original"] = r.podsOriginal;
    j["pods_total"] = r.podsTotal;
    j["pods_failed"] = r.podsFailed;
    j["gpu_pods_failed"] = r.gpuPodsFailed;
    j["allocation_pct"] = r.allocationPct; // NaN (no sample near a column) prints as null
    j["unallocated_gpu_pct_at_100"] = r.unallocatedPctAt100;
    j["moves"] = r.moves;
    j["wall_ms"] = r.wallMs;
    return j;
}

// The replay owns the scheduler; the defragmenter is handed it for each pod that fits nowhere.
std::function<sim::RepairOutcome(Scheduler&, ClusterState&, WorkloadId)> defragRepair(const rebalance::DefragOptions& o)
{
    return [defragmenter = rebalance::Defragmenter(o)](
               Scheduler& scheduler, ClusterState& cluster, WorkloadId id) mutable {
        const rebalance::DefragOutcome outcome = defragmenter.makeRoom(scheduler, cluster, id);
        return sim::RepairOutcome { outcome.placed, outcome.moves };
    };
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2)
        return usage("missing command");
    const std::string command = argv[1];
    if (command == "scenario")
        return simapp::runScenarioCommand(argc, argv, TIDEPOOL_DEFAULT_DATA);
    if (command == "fpga-scenario")
        return simapp::runFpgaScenarioCommand(argc, argv, TIDEPOOL_DEFAULT_DATA);
    if (command != "openb" && command != "openb-table")
        return usage("unknown command '" + command + "'");

    std::map<std::string, std::string> values;
    bool json = false;
    sim::ReplayOptions options;
    std::optional<rebalance::DefragOptions> defrag;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--json")
            json = true;
        else if (arg == "--check-invariants")
            options.checkInvariants = true;
        else if (arg == "--defrag")
            defrag.emplace();
        else if (arg == "--nodes" || arg == "--pods" || arg == "--policy" || arg == "--seed" || arg == "--inflate"
            || arg == "--defrag-max-moves" || arg == "--defrag-candidates" || arg == "--defrag-chain"
            || arg == "--defrag-destination") {
            if (i + 1 >= argc)
                return usage("option " + arg + " needs a value");
            values[arg] = argv[++i];
        } else {
            return usage("unknown option '" + arg + "'");
        }
    }
    if (!values.count("--nodes") || !values.count("--pods"))
        return usage("--nodes and --pods are required");
    if (command == "openb" && (!values.count("--policy") || !values.count("--seed")))
        return usage("--policy and --seed are required");
    if (values.count("--seed")) {
        const std::string& s = values["--seed"];
        const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), options.seed);
        if (s.empty() || ec != std::errc() || ptr != s.data() + s.size())
            return usage("--seed must be a non-negative integer");
    }
    if (values.count("--inflate")) {
        try {
            std::size_t used = 0;
            options.inflation = std::stod(values["--inflate"], &used);
            if (used != values["--inflate"].size() || !(options.inflation >= 0))
                return usage("--inflate must be a non-negative number");
        } catch (const std::exception&) {
            return usage("--inflate must be a non-negative number");
        }
    }

    const bool defragTuned = values.count("--defrag-max-moves") || values.count("--defrag-candidates")
        || values.count("--defrag-chain") || values.count("--defrag-destination");
    if (defragTuned && !defrag)
        return usage("the --defrag-* options need --defrag");
    if (defrag && command != "openb")
        return usage("--defrag applies to the openb command");
    if (defrag) {
        for (auto [option, field] : { std::pair { "--defrag-max-moves", &defrag->maxMoves },
                 std::pair { "--defrag-candidates", &defrag->candidateNodes },
                 std::pair { "--defrag-chain", &defrag->chainDepth } }) {
            if (!values.count(option))
                continue;
            const std::string& s = values[option];
            const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *field);
            if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || *field < 0)
                return usage(std::string(option) + " must be a non-negative integer");
        }
        if (values.count("--defrag-destination")) {
            const std::string& s = values["--defrag-destination"];
            if (s == "tightest")
                defrag->destination = rebalance::DestinationRule::Tightest;
            else if (s == "policy")
                defrag->destination = rebalance::DestinationRule::Policy;
            else
                return usage("--defrag-destination must be tightest or policy");
        }
        options.repair = defragRepair(*defrag);
    }

    const PolicyRegistry registry = PolicyRegistry::withBuiltins();
    if (command == "openb" && !builtinProfile(values["--policy"], registry)) {
        std::string known;
        for (const std::string& name : registry.names())
            known += (known.empty() ? "" : ", ") + name;
        return usage("unknown policy '" + values["--policy"] + "' (known: " + known + ")");
    }

    auto nodes = sim::loadOpenbNodes(values["--nodes"]);
    if (!nodes) {
        std::cerr << "tidepool-sim: " << nodes.error().message << "\n";
        return kExitBadInput;
    }
    auto pods = sim::loadOpenbPods(values["--pods"]);
    if (!pods) {
        std::cerr << "tidepool-sim: " << pods.error().message << "\n";
        return kExitBadInput;
    }
    const std::string workload = workloadName(values["--pods"]);

    // (policy, defragmenting) runs: the one asked for, or for the table every policy and `tidepool --defrag`.
    std::vector<std::pair<std::string, bool>> runs;
    if (command == "openb") {
        runs.emplace_back(values["--policy"], defrag.has_value());
    } else {
        for (const char* name : { "random", "dotprod", "gpu-clustering", "gpu-packing", "best-fit", "fgd", "tidepool" })
            if (builtinProfile(name, registry))
                runs.emplace_back(name, false);
        runs.emplace_back("tidepool", true);
    }

    if (command == "openb-table" && !json)
        std::printf("openb %s, seed %llu: GPU share left unallocated when arrived demand reaches 100%% of capacity\n",
            workload.c_str(), static_cast<unsigned long long>(options.seed));
    for (const auto& [policy, defragmenting] : runs) {
        if (command == "openb-table")
            options.repair = defragmenting ? defragRepair(rebalance::DefragOptions {}) : nullptr;
        auto result = sim::replayOpenb(*nodes, *pods, policy, options, registry);
        if (!result) {
            std::cerr << "tidepool-sim: " << result.error().message << "\n";
            return kExitBadInput;
        }
        if (json) {
            const auto used = defragmenting ? defrag.value_or(rebalance::DefragOptions {})
                                            : std::optional<rebalance::DefragOptions> {};
            std::cout << toJson(*result, workload, used).dump() << "\n";
        } else if (command == "openb-table") {
            const std::string label = defragmenting ? policy + " --defrag" : policy;
            std::printf("  %-18s %6.2f %%   (%lld of %lld pods failed, %lld moves, %.0f ms)\n", label.c_str(),
                result->unallocatedPctAt100, static_cast<long long>(result->podsFailed),
                static_cast<long long>(result->podsTotal), static_cast<long long>(result->moves), result->wallMs);
        } else {
            std::printf(
                "openb %s, policy %s, seed %llu: %lld GPUs, %lld pods (%lld failed), %.2f%% of GPUs unallocated at "
                "100%% arrival, %lld moves, %.0f ms\n",
                workload.c_str(), policy.c_str(), static_cast<unsigned long long>(result->seed),
                static_cast<long long>(result->gpusTotal), static_cast<long long>(result->podsTotal),
                static_cast<long long>(result->podsFailed), result->unallocatedPctAt100,
                static_cast<long long>(result->moves), result->wallMs);
        }
    }
    return 0;
}
