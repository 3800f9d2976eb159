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
    const std::vector<WorkloadUse>& workloads, const RightSizeConfig& config)
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
            = rightSizedRequest(w.cpuMillis, w.peakCpuMillis, w.cpuLimitMillis, config.cpuStepMillis, config.margin);
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
        RightSizePlan& plan = plans[pool];
        plan.pool = pool;
        for (const auto& [size, w] : list) {
            const auto [cpu, memory] = sized.at(w->id);
            plan.resizes.push_back(Action::resize(w->id, w->node, cpu, w->cpuMillis, memory, w->memoryMiB));
            if (cpu < w->cpuMillis || memory < w->memoryMiB)
                ++plan.lowered;
            if (cpu > w->cpuMillis || memory > w->memoryMiB)
                ++plan.raised;
            plan.cpuBefore += w->cpuMillis;
            plan.cpuAfter += cpu;
            plan.memoryBefore += w->memoryMiB;
            plan.memoryAfter += memory;
            plan.peakCpu += w->peakCpuMillis;
            plan.peakMemory += w->peakMemoryMiB;
        }
    }
    return plans;
}

} // namespace tidepool::rebalance
