#include "core/rebalance/rightsize.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace tidepool::rebalance {

std::int64_t rightSizedRequest(
    std::int64_t asked, std::int64_t used, std::int64_t limit, std::int64_t step, double margin)
{
    if (asked <= 0)
        return asked; // none asked stays none: the scheduler never counted it there
    const double wanted = std::ceil(static_cast<double>(std::max<std::int64_t>(used, 0)) * margin);
    std::int64_t request
        = std::max<std::int64_t>(step, static_cast<std::int64_t>(std::ceil(wanted / static_cast<double>(step))) * step);
    if (limit > 0)
        request = std::min(request, limit);
    return request;
}

std::int64_t proposedRequest(std::int64_t asked, std::int64_t used, std::int64_t limit, std::int64_t step,
    std::int64_t least, const RightSizeConfig& config)
{
    const std::int64_t sized = rightSizedRequest(asked, used, limit, step, config.margin);
    const std::int64_t by = std::abs(sized - asked);
    return by >= least && static_cast<double>(by) >= config.minChangeFraction * static_cast<double>(asked) ? sized
                                                                                                           : asked;
}

std::vector<RightSizePlan> planRightSizing(
    const std::vector<WorkloadUse>& workloads, const RightSizeConfig& config, const RightSizeRoom* room)
{
    std::vector<RightSizePlan> plans;
    if (config.observeFor.count() <= 0)
        return plans;
    // One resize of one workload: less, or more, of what it changes; the other resource as it asks.
    struct Candidate {
        const WorkloadUse* use;
        std::int64_t cpu, memory;
        double size; // of the change in a common measure: a core and a GiB weigh alike
    };
    // Per pool: its lowers (false) and its raises (true).
    std::map<std::pair<std::string, bool>, std::vector<Candidate>> candidates;
    for (const WorkloadUse& w : workloads) {
        if (w.observedMs < config.observeFor.count())
            continue;
        const std::int64_t cpu = proposedRequest(
            w.cpuMillis, w.cpuUsed(), w.cpuLimitMillis, config.cpuStepMillis, config.minCpuMillis, config);
        const std::int64_t memory = proposedRequest(
            w.memoryMiB, w.peakMemoryMiB, w.memoryLimitMiB, config.memoryStepMiB, config.minMemoryMiB, config);
        for (const bool raise : { false, true }) {
            const auto keep = [raise](std::int64_t asked, std::int64_t sized) {
                return (raise ? sized > asked : sized < asked) ? sized : asked;
            };
            Candidate c { &w, keep(w.cpuMillis, cpu), keep(w.memoryMiB, memory), 0.0 };
            c.size = static_cast<double>(std::abs(c.cpu - w.cpuMillis)) / 1000.0
                + static_cast<double>(std::abs(c.memory - w.memoryMiB)) / 1024.0;
            if (c.size > 0.0)
                candidates[{ w.pool, raise }].push_back(c);
        }
    }
    for (auto& [key, list] : candidates) {
        const auto& [pool, raises] = key;
        std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.size > b.size; });
        if (list.size() > config.maxPerProposal)
            list.resize(config.maxPerProposal);
        RightSizePlan plan;
        plan.pool = pool;
        plan.raises = raises;
        std::map<std::string, std::pair<std::int64_t, std::int64_t>> nodeRoom;
        std::pair<std::int64_t, std::int64_t> poolRoom { 0, 0 };
        if (room) {
            nodeRoom = room->nodes;
            if (const auto it = room->pools.find(pool); it != room->pools.end())
                poolRoom = it->second;
        }
        for (const Candidate& c : list) {
            const WorkloadUse& w = *c.use;
            if (raises && room) {
                const std::int64_t moreCpu = c.cpu - w.cpuMillis, moreMemory = c.memory - w.memoryMiB;
                auto& onNode = nodeRoom[w.node];
                // Only what it takes more of must fit (a pool over its CPU quota may still take memory).
                const auto fits = [&](const std::pair<std::int64_t, std::int64_t>& free) {
                    return (moreCpu == 0 || free.first >= moreCpu) && (moreMemory == 0 || free.second >= moreMemory);
                };
                if (!fits(onNode) || !fits(poolRoom)) {
                    ++plan.noRoom;
                    continue;
                }
                onNode.first -= moreCpu;
                onNode.second -= moreMemory;
                poolRoom.first -= moreCpu;
                poolRoom.second -= moreMemory;
            }
            plan.resizes.push_back(Action::resize(w.id, w.node, c.cpu, w.cpuMillis, c.memory, w.memoryMiB));
            plan.cpuBefore += w.cpuMillis;
            plan.cpuAfter += c.cpu;
            plan.memoryBefore += w.memoryMiB;
            plan.memoryAfter += c.memory;
            plan.usedCpu += w.cpuUsed();
            plan.peakMemory += w.peakMemoryMiB;
        }
        if (!plan.resizes.empty())
            plans.push_back(std::move(plan));
    }
    return plans;
}

} // namespace tidepool::rebalance
