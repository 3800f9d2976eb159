// The openb replay: stream construction, the placement loop through the real `Scheduler`, and the allocation
// columns, following the authors' simulator and analysis scripts step by step (../shared/data/README.md).

#include "core/sim/openb.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

namespace tidepool::sim {

namespace {

double round2(double x)
{
    return std::round(x * 100.0) / 100.0;
}

std::int64_t allocatedShare(const ClusterState& cluster)
{
    std::int64_t used = 0;
    for (const Node& node : cluster.nodes())
        for (const Device& d : node.devices)
            used += d.shareCapacity - d.shareFree;
    return used;
}

} // namespace

std::vector<const OpenbPod*> openbStream(const std::vector<OpenbPod>& pods, std::int64_t gpuCapacityMilli,
    const ReplayOptions& options, std::size_t nodeCount, std::vector<std::uint32_t>& tieRank)
{
    std::mt19937_64 rng(options.seed);
    std::vector<const OpenbPod*> sorted;
    sorted.reserve(pods.size());
    for (const OpenbPod& p : pods)
        sorted.push_back(&p);
    std::stable_sort(
        sorted.begin(), sorted.end(), [](const OpenbPod* a, const OpenbPod* b) { return a->name < b->name; });

    std::vector<const OpenbPod*> stream = sorted;
    std::shuffle(stream.begin(), stream.end(), rng);

    // Inflation: append random draws from the sorted list until the next draw would pass the target; the
    // copies stay at the end of the stream, unshuffled, as in the reference.
    if (options.inflation > 0 && !sorted.empty()) {
        const double limit = options.inflation * static_cast<double>(gpuCapacityMilli);
        std::int64_t total = 0;
        for (const OpenbPod* p : stream)
            total += p->requestedMilli();
        std::uniform_int_distribution<std::size_t> pick(0, sorted.size() - 1);
        for (;;) {
            const OpenbPod* p = sorted[pick(rng)];
            if (static_cast<double>(total + p->gpuMilli) > limit)
                break;
            stream.push_back(p);
            total += p->requestedMilli();
        }
    }

    // One node order per seed breaks score ties for the whole run (the reference renames nodes with a random
    // prefix and picks the smallest name among equal scores).
    tieRank.resize(nodeCount);
    std::iota(tieRank.begin(), tieRank.end(), 0u);
    std::shuffle(tieRank.begin(), tieRank.end(), rng);
    return stream;
}

std::vector<double> allocationColumns(const std::vector<double>& arrivedPct, const std::vector<double>& allocatedPct)
{
    std::vector<double> columns(kAllocationColumns, std::numeric_limits<double>::quiet_NaN());
    std::vector<double> sum(kAllocationColumns, 0.0);
    std::vector<std::int64_t> rows(kAllocationColumns, 0);
    for (std::size_t i = 0; i < arrivedPct.size(); ++i) {
        const double x = std::nearbyint(arrivedPct[i]); // half to even, like the reference's pandas rounding
        if (x >= 0 && x < kAllocationColumns) {
            sum[static_cast<std::size_t>(x)] += allocatedPct[i];
            ++rows[static_cast<std::size_t>(x)];
        }
    }
    for (int x = 0; x < kAllocationColumns; ++x) {
        const auto c = static_cast<std::size_t>(x);
        if (rows[c] > 0) {
            columns[c] = sum[c] / static_cast<double>(rows[c]);
            continue;
        }
        // No row landed on this column (a large pod jumped over it): average the rows within one point.
        double s = 0;
        std::int64_t n = 0;
        for (std::size_t i = 0; i < arrivedPct.size(); ++i)
            if (std::abs(arrivedPct[i] - x) <= 1.0) {
                s += allocatedPct[i];
                ++n;
            }
        if (n > 0)
            columns[c] = s / static_cast<double>(n);
    }
    return columns;
}

Expected<ReplayResult> replayOpenb(const std::vector<OpenbNode>& nodes, const std::vector<OpenbPod>& pods,
    const std::string& policy, const ReplayOptions& options, const PolicyRegistry& registry)
{
    const auto started = std::chrono::steady_clock::now();
    std::optional<Profile> profile = builtinProfile(policy, registry);
    if (!profile)
        return makeError(ErrorCode::InvalidArgument, "unknown policy '" + policy + "'");
    profile->preemption = false; // pods are placed once or skipped; nothing is evicted

    ClusterState cluster = makeOpenbCluster(nodes);
    std::int64_t capacityMilli = 0;
    for (const Node& node : cluster.nodes())
        capacityMilli += node.deviceShareCapacityTotal();
    if (capacityMilli == 0)
        return makeError(ErrorCode::InvalidArgument, "the node list has no GPUs");

    // Fragmentation-aware policies learn their typical shapes from the original, uninflated list.
    PolicyOptions policyOptions;
    policyOptions.seed = options.seed;
    policyOptions.typicalMix.reserve(pods.size());
    for (std::size_t i = 0; i < pods.size(); ++i)
        policyOptions.typicalMix.push_back(makeOpenbWorkload(pods[i], static_cast<WorkloadId>(i), cluster));

    SchedulerConfig config;
    config.exhaustive = true;
    const std::vector<const OpenbPod*> stream
        = openbStream(pods, capacityMilli, options, cluster.nodes().size(), config.tieRank);
    Scheduler scheduler(cluster, *profile, registry, policyOptions, std::move(config));

    ReplayResult result;
    result.policy = policy;
    result.seed = options.seed;
    result.gpusTotal = capacityMilli / kGpuShareCapacity;
    result.podsOriginal = static_cast<std::int64_t>(pods.size());
    result.podsTotal = static_cast<std::int64_t>(stream.size());
    std::vector<double> arrivedPct;
    std::vector<double> allocatedPct;
    arrivedPct.reserve(stream.size());
    allocatedPct.reserve(stream.size());
    std::int64_t arrivedMilli = 0;
    std::int64_t allocatedMilli = 0;
    for (std::size_t i = 0; i < stream.size(); ++i) {
        const OpenbPod& pod = *stream[i];
        const auto id = static_cast<WorkloadId>(i);
        if (auto added = cluster.addWorkload(makeOpenbWorkload(pod, id, cluster)); !added)
            return tl::unexpected(added.error());
        const Decision decision = scheduler.place(id);
        if (decision.placement) {
            for (const DeviceShare& s : decision.placement->shares)
                allocatedMilli += s.share;
        } else {
            RepairOutcome repaired;
            if (options.repair) {
                repaired = options.repair(scheduler, cluster, id);
                result.moves += repaired.moves;
                allocatedMilli = allocatedShare(cluster); // moves may have touched any node
            }
            if (!repaired.placed) {
                ++result.podsFailed;
                result.gpuPodsFailed += pod.gpus > 0;
            }
        }
        if (options.checkInvariants) {
            if (auto ok = cluster.checkInvariants(); !ok)
                return makeError(
                    ok.error().code, "after pod " + std::to_string(i) + " ('" + pod.name + "'): " + ok.error().message);
        }
        arrivedMilli += pod.requestedMilli();
        arrivedPct.push_back(100.0 * static_cast<double>(arrivedMilli) / static_cast<double>(capacityMilli));
        allocatedPct.push_back(
            round2(100.0 * static_cast<double>(allocatedMilli) / static_cast<double>(capacityMilli)));
    }
    result.allocationPct = allocationColumns(arrivedPct, allocatedPct);
    result.unallocatedPctAt100 = 100.0 - result.allocationPct[100];
    result.wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    return result;
}

} // namespace tidepool::sim
