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

std::map<std::string, RightSizePlan> planRightSizing(
    const std::vector<WorkloadUse>& workloads, const RightSizeConfig& config, const RightSizeRoom* room)
{
    std::map<std::string, RightSizePlan> plans;
    if (config.observeFor.count() <= 0)
        return plans;
    const auto worth = [&](std::int64_t before, std::int64_t after, std::int64_t least) {
        const std::int64_t by = std::abs(after - before);
        return by >= least && static_cast<double>(by) >= config.minChangeFraction * static_cast<double>(before);
    };
    // (size of the change in a common measure, the action) per pool: a core and a GiB weigh alike.
    std::map<std::string, std::vector<std::pair<double, const WorkloadUse*>>> candidates;
    std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> sized;
    for (const WorkloadUse& w : workloads) {
        if (w.observedMs < config.observeFor.count())
            continue;
        std::int64_t cpu
            = rightSizedRequest(w.cpuMillis, w.cpuUsed(), w.cpuLimitMillis, config.cpuStepMillis, config.margin);
        std::int64_t memory
            = rightSizedRequest(w.memoryMiB, w.peakMemoryMiB, w.memoryLimitMiB, config.memoryStepMiB, config.margin);
        // A change too small to be worth it leaves that resource as it is.
        if (!worth(w.cpuMillis, cpu, config.minCpuMillis))
            cpu = w.cpuMillis;
        if (!worth(w.memoryMiB, memory, config.minMemoryMiB))
            memory = w.memoryMiB;
        if (cpu == w.cpuMillis && memory == w.memoryMiB)
            continue;
        sized[w.id] = { cpu, memory };
        const double size = static_cast<double>(std::abs(cpu - w.cpuMillis)) / 1000.0
            + static_cast<double>(std::abs(memory - w.memoryMiB)) / 1024.0;
        candidates[w.pool].emplace_back(size, &w);
    }
    for (auto& [pool, list] : candidates) {
        std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        if (list.size() > config.maxPerProposal)
            list.resize(config.maxPerProposal);
        // Lowers first: what they give back on their nodes and in the pool is room the raises may take.
        const auto lowersOnly = [&](const WorkloadUse* w) {
            const auto [cpu, memory] = sized.at(w->id);
            return cpu <= w->cpuMillis && memory <= w->memoryMiB;
        };
        std::stable_partition(list.begin(), list.end(), [&](const auto& c) { return lowersOnly(c.second); });
        RightSizePlan plan;
        plan.pool = pool;
        std::map<std::string, std::pair<std::int64_t, std::int64_t>> nodeRoom;
        std::pair<std::int64_t, std::int64_t> poolRoom { 0, 0 };
        if (room) {
            nodeRoom = room->nodes;
            if (const auto it = room->pools.find(pool); it != room->pools.end())
                poolRoom = it->second;
        }
        for (const auto& [size, w] : list) {
            const auto [cpu, memory] = sized.at(w->id);
            const std::int64_t moreCpu = cpu - w->cpuMillis, moreMemory = memory - w->memoryMiB;
            if (room) {
                auto& onNode = nodeRoom[w->node];
                // Only what it takes more of must fit: a lower always does (a pool over its quota still gives back).
                const auto fits = [&](const std::pair<std::int64_t, std::int64_t>& free) {
                    return (moreCpu <= 0 || free.first >= moreCpu) && (moreMemory <= 0 || free.second >= moreMemory);
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
            plan.resizes.push_back(Action::resize(w->id, w->node, cpu, w->cpuMillis, memory, w->memoryMiB));
            if (cpu < w->cpuMillis || memory < w->memoryMiB)
                ++plan.lowered;
            if (cpu > w->cpuMillis || memory > w->memoryMiB)
                ++plan.raised;
            plan.cpuBefore += w->cpuMillis;
            plan.cpuAfter += cpu;
            plan.memoryBefore += w->memoryMiB;
            plan.memoryAfter += memory;
            plan.usedCpu += w->cpuUsed();
            plan.peakMemory += w->peakMemoryMiB;
        }
        if (!plan.resizes.empty())
            plans.emplace(pool, std::move(plan));
    }
    return plans;
}

} // namespace tidepool::rebalance
