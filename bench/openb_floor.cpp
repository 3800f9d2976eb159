// tidepool-openb-floor: how low the unallocated GPU % at 100% arrival could go on an openb workload, from the
// fractional GPU shares alone (CPU, memory and GPU models ignored, so the true floors are higher still).
//
//   tidepool-openb-floor --nodes <node csv> --pods <pod csv> [--seeds 42-51] [--inflate 1.3]
//
// For each seed it takes the replay's own stream (`sim::openbStream`) up to 100% arrived GPU demand and prints
// the means over the seeds, as JSON:
//   gap_bound_pct      max over g of (Σ gaps of devices holding a pod of share ≥ 1000−g) − (Σ shares of pods ≤ g):
//                      once those pods are placed, each leaves a gap of at most g that only pods of at most g can
//                      fill, so that much share stays free whatever the placement;
//   best_fit_decreasing_waste_pct
//                      the free share left on opened GPUs by packing all arrived fractional shares offline,
//                      largest first, each into the fullest GPU that takes it (a near-optimal packing).

#include "core/sim/openb.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <iostream>
#include <set>
#include <string>

namespace {

using namespace tidepool;

int usage(const std::string& problem)
{
    std::cerr << "tidepool-openb-floor: " << problem << "\n"
              << "usage: tidepool-openb-floor --nodes <node csv> --pods <pod csv> [--seeds 42-51] [--inflate 1.3]\n";
    return 2;
}

std::int64_t gapBound(const std::vector<std::int32_t>& shares)
{
    std::int64_t best = 0;
    for (std::int32_t g = 0; g < sim::kGpuShareCapacity / 2; ++g) {
        std::int64_t gaps = 0;
        std::int64_t small = 0;
        for (std::int32_t s : shares) {
            if (s >= sim::kGpuShareCapacity - g)
                gaps += sim::kGpuShareCapacity - s;
            if (s <= g)
                small += s;
        }
        best = std::max(best, gaps - small);
    }
    return best;
}

std::int64_t bestFitDecreasingWaste(std::vector<std::int32_t> shares)
{
    std::sort(shares.rbegin(), shares.rend());
    std::multiset<std::int32_t> free; // free share of each opened GPU
    for (std::int32_t s : shares) {
        auto it = free.lower_bound(s);
        if (it == free.end()) {
            free.insert(sim::kGpuShareCapacity - s);
        } else {
            const std::int32_t left = *it - s;
            free.erase(it);
            free.insert(left);
        }
    }
    std::int64_t waste = 0;
    for (std::int32_t f : free)
        waste += f;
    return waste;
}

} // namespace

int main(int argc, char** argv)
{
    std::string nodesPath;
    std::string podsPath;
    int firstSeed = 42;
    int lastSeed = 51;
    double inflation = 1.3;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc)
            return usage("missing value after " + a);
        const std::string v = argv[++i];
        if (a == "--nodes") {
            nodesPath = v;
        } else if (a == "--pods") {
            podsPath = v;
        } else if (a == "--inflate") {
            if (std::from_chars(v.data(), v.data() + v.size(), inflation).ec != std::errc {} || !(inflation > 0))
                return usage("bad --inflate '" + v + "' (want a positive number)");
        } else if (a == "--seeds") {
            const auto dash = v.find('-');
            const std::string last = dash == std::string::npos ? v : v.substr(dash + 1);
            if (std::from_chars(v.data(), v.data() + v.size(), firstSeed).ec != std::errc {}
                || std::from_chars(last.data(), last.data() + last.size(), lastSeed).ec != std::errc {}
                || lastSeed < firstSeed)
                return usage("bad --seeds '" + v + "' (want FIRST-LAST)");
        } else {
            return usage("unknown option " + a);
        }
    }
    if (nodesPath.empty() || podsPath.empty())
        return usage("--nodes and --pods are required");
    auto nodes = sim::loadOpenbNodes(nodesPath);
    auto pods = sim::loadOpenbPods(podsPath);
    if (!nodes || !pods) {
        std::cerr << "tidepool-openb-floor: " << (!nodes ? nodes.error().message : pods.error().message) << "\n";
        return 1;
    }
    std::int64_t capacity = 0;
    for (const sim::OpenbNode& n : *nodes)
        capacity += std::int64_t { n.gpus } * sim::kGpuShareCapacity;
    if (capacity == 0)
        return usage("the node list has no GPUs");

    double gapSum = 0;
    double wasteSum = 0;
    for (int seed = firstSeed; seed <= lastSeed; ++seed) {
        sim::ReplayOptions options;
        options.seed = static_cast<std::uint64_t>(seed);
        options.inflation = inflation;
        std::vector<std::uint32_t> tieRank;
        std::vector<std::int32_t> shares;
        std::int64_t arrived = 0;
        for (const sim::OpenbPod* p : sim::openbStream(*pods, capacity, options, nodes->size(), tieRank)) {
            if (arrived + p->requestedMilli() > capacity)
                break;
            arrived += p->requestedMilli();
            if (p->gpus == 1 && p->gpuMilli < sim::kGpuShareCapacity)
                shares.push_back(p->gpuMilli);
        }
        gapSum += 100.0 * static_cast<double>(gapBound(shares)) / static_cast<double>(capacity);
        wasteSum += 100.0 * static_cast<double>(bestFitDecreasingWaste(shares)) / static_cast<double>(capacity);
    }
    const double n = lastSeed - firstSeed + 1;
    nlohmann::json out;
    out["pods"] = podsPath;
    out["seeds"] = std::to_string(firstSeed) + "-" + std::to_string(lastSeed);
    out["gap_bound_pct"] = gapSum / n;
    out["best_fit_decreasing_waste_pct"] = wasteSum / n;
    std::cout << out.dump() << "\n";
    return 0;
}
