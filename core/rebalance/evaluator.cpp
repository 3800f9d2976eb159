#include "core/rebalance/evaluator.h"

#include "core/model/pool.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>
#include <functional>
#include <limits>
#include <map>
#include <string_view>
#include <tuple>

namespace tidepool::rebalance {

namespace {

std::string clockTime(std::int64_t unixMs)
{
    const std::time_t seconds = static_cast<std::time_t>(unixMs / 1000);
    std::tm utc {};
    gmtime_r(&seconds, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%H:%M UTC", &utc);
    return text;
}

std::int64_t roundUp(double value, std::int64_t step)
{
    return static_cast<std::int64_t>(std::ceil(value / static_cast<double>(step))) * step;
}

std::string millicores(std::int64_t value)
{
    return std::to_string(value) + " mCPU";
}

bool poweredDown(const NodeOutlook& node)
{
    return node.cordon.rfind(kPowerDownCordon, 0) == 0;
}

// Ready and nobody cordoned it, or powered up and booting: its capacity is there or on its way, and proposing another
// node up for the same shortfall would power up two.
bool serving(const NodeOutlook& node)
{
    return (node.ready || node.booting) && node.cordon.empty();
}

std::size_t kindIndex(AcceleratorKind kind)
{
    return static_cast<std::size_t>(kind);
}

std::string kindName(AcceleratorKind kind)
{
    switch (kind) {
    case AcceleratorKind::Gpu: return "GPU";
    case AcceleratorKind::Npu: return "NPU";
    case AcceleratorKind::Fpga: return "FPGA";
    case AcceleratorKind::None: break;
    }
    return "accelerator";
}

// The unit a kind's share is counted in (`Device::shareCapacity`).
std::string unitName(AcceleratorKind kind)
{
    switch (kind) {
    case AcceleratorKind::Gpu: return "milli-devices";
    case AcceleratorKind::Npu: return "NPU cores";
    case AcceleratorKind::Fpga: return "FPGA slots";
    case AcceleratorKind::None: break;
    }
    return "units";
}

// Why an idle accelerator node may go: nothing of its kind waits, and what stays in service holds the hot tier's
// forecast peak of its kind.
std::string acceleratorsLeft(const NodeOutlook& node, double leftInService, double hotNeeded)
{
    const std::string kind = kindName(node.acceleratorKind);
    const bool lent = node.acceleratorKind == AcceleratorKind::Gpu; // GPUs: those running batch do not count
    return "; no " + kind + " work waits, and the " + std::to_string(static_cast<std::int64_t>(leftInService)) + " "
        + unitName(node.acceleratorKind) + " left in service" + (lent ? " with no batch on them" : "")
        + " hold the hot tier's forecast " + kind + " peak ("
        + std::to_string(static_cast<std::int64_t>(std::ceil(hotNeeded))) + " with headroom)";
}

std::string mebibytes(std::int64_t value)
{
    return std::to_string(value) + " MiB";
}

// One resource that quotas hold (CPU in millicores, memory in MiB, an accelerator kind in its share units): where each
// pool's figures are, what nodes hold of it, and how its proposals' actions and amounts are written.
struct QuotaResource {
    std::string what; // in reasons: "CPU quota", "memory quota", "GPU quota"
    std::string keySuffix; // after "quota:<pool>"
    std::int64_t step;
    std::function<QuotaOutlook(const PoolOutlook&)> figures;
    std::function<std::int64_t(const NodeOutlook&)> capacity;
    std::function<Action(std::string, std::int64_t, std::int64_t)> set;
    std::function<Action(std::string, std::int64_t, std::int64_t)> take;
    std::function<std::string(std::int64_t)> amount;
};

void planQuotas(
    const EvaluationInput& input, const EvaluatorConfig& config, const QuotaResource& r, std::vector<Proposal>& out)
{
    // A quota of 0 keeps a pool off the resource (an accelerator kind it must not use): not a quota to shift.
    std::vector<std::pair<const PoolOutlook*, QuotaOutlook>> limited;
    for (const PoolOutlook& pool : input.pools)
        if (QuotaOutlook f = r.figures(pool); f.quota > 0 && f.quota < kUnlimited)
            limited.emplace_back(&pool, std::move(f));
    // What each pool needs at its forecast peak, and what it could give up.
    std::map<std::string, std::int64_t> slack, needOf;
    std::int64_t quotaTotal = 0;
    for (const auto& [pool, f] : limited) {
        quotaTotal += f.quota;
        if (f.peak) {
            const std::int64_t need = roundUp(std::max(*f.peak, f.demand) * config.headroom, r.step);
            needOf[pool->name] = need;
            if (f.quota - need >= r.step)
                slack[pool->name] = (f.quota - need) / r.step * r.step;
        }
    }
    std::int64_t capacity = 0;
    for (const NodeOutlook& node : input.nodes)
        if (serving(node))
            capacity += r.capacity(node);
    std::int64_t unquoted = std::max<std::int64_t>(0, capacity - quotaTotal) / r.step * r.step;

    const std::string& what = r.what;
    for (const auto& [pool, f] : limited) {
        if (!f.peak)
            continue;
        const double peak = std::max(*f.peak, f.demand);
        const std::int64_t need = roundUp(peak * config.headroom, r.step);
        const std::int64_t quota = f.quota;
        const std::string key = "quota:" + pool->name + r.keySuffix;
        if (need > quota) {
            Proposal p = newProposal(ProposalKind::Quota, key, input, config);
            std::int64_t missing = need - quota;
            std::vector<std::pair<std::string, std::int64_t>> donors(slack.begin(), slack.end());
            std::erase_if(donors, [&](const auto& d) { return d.first == pool->name; });
            std::sort(donors.begin(), donors.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
            std::string sources;
            bool donorsTight = false;
            for (auto& [donor, available] : donors) {
                if (missing <= 0)
                    break;
                const std::int64_t take = std::min(available, missing);
                p.plan.push_back(r.take(donor, take, needOf[donor]));
                slack[donor] -= take;
                missing -= take;
                donorsTight = donorsTight || slack[donor] < r.step;
                sources += (sources.empty() ? "" : ", ") + r.amount(take) + " from pool " + donor;
            }
            if (missing > 0 && unquoted > 0) {
                const std::int64_t take = std::min(unquoted, missing);
                unquoted -= take;
                missing -= take;
                sources += (sources.empty() ? "" : ", ") + r.amount(take) + " of capacity no quota holds";
            }
            const std::int64_t raised = need - missing;
            if (raised - quota < r.step)
                continue; // nothing to shift: the operator sees the pool's forecast, not an empty proposal
            p.plan.insert(p.plan.begin(), r.set(pool->name, raised, quota));
            p.reason = "pool " + pool->name + " is forecast to need " + r.amount(static_cast<std::int64_t>(peak))
                + " (p90) around " + clockTime(f.peakAtMs) + ", "
                + r.amount(static_cast<std::int64_t>(std::ceil(peak * config.headroom))) + " with "
                + std::to_string(static_cast<int>(std::lround((config.headroom - 1) * 100))) + "% headroom, above its "
                + what + " of " + r.amount(quota) + "; raise it to " + r.amount(raised) + " ahead of the peak ("
                + sources + ")";
            p.effect.utilisationBefore = peak / static_cast<double>(quota);
            p.effect.utilisationAfter = peak / static_cast<double>(raised);
            p.effect.sloRisk = raised >= peak ? "none: the p90 peak fits the raised " + what
                                              : "the p90 peak still exceeds the raised " + what + ": work will wait";
            p.risk = donorsTight ? Risk::Medium : Risk::Low;
            out.push_back(std::move(p));
        } else if (f.base && *f.base < quota && need <= *f.base) {
            Proposal p = newProposal(ProposalKind::Quota, key, input, config);
            p.plan.push_back(r.set(pool->name, *f.base, quota));
            p.reason = "pool " + pool->name + "'s forecast peak (" + r.amount(static_cast<std::int64_t>(peak))
                + " p90) fits its base " + what + " of " + r.amount(*f.base) + " again; give back the "
                + r.amount(quota - *f.base) + " it was raised by";
            p.effect.utilisationBefore = peak / static_cast<double>(quota);
            p.effect.utilisationAfter = peak / static_cast<double>(*f.base);
            p.effect.sloRisk = "none: the p90 peak with headroom fits the base " + what;
            p.risk = Risk::Low;
            out.push_back(std::move(p));
        }
    }
}

void planQuotas(const EvaluationInput& input, const EvaluatorConfig& config, std::vector<Proposal>& out)
{
    planQuotas(input, config,
        QuotaResource { "CPU quota", "", config.quotaStepMillis,
            [](const PoolOutlook& p) {
                return QuotaOutlook { p.cpuQuotaMillis, p.baseCpuMillis, p.cpuDemandMillis, p.cpuPeakMillis,
                    p.peakAtMs };
            },
            [](const NodeOutlook& n) { return n.cpuMillis; }, &Action::setCpuQuota, &Action::takeCpuQuota,
            &millicores },
        out);
    planQuotas(input, config,
        QuotaResource { "memory quota", ":memory", config.quotaStepMiB,
            [](const PoolOutlook& p) {
                return QuotaOutlook { p.memoryQuotaMiB, p.baseMemoryMiB, p.memoryDemandMiB, p.memoryPeakMiB,
                    p.memoryPeakAtMs };
            },
            [](const NodeOutlook& n) { return n.memoryMiB; }, &Action::setMemoryQuota, &Action::takeMemoryQuota,
            &mebibytes },
        out);
    // Accelerators kind by kind, in the kind's share units: a pool's share of GPUs is shifted like its cores.
    for (const AcceleratorKind kind : { AcceleratorKind::Gpu, AcceleratorKind::Npu, AcceleratorKind::Fpga }) {
        const std::size_t k = kindIndex(kind);
        const std::string unit = unitName(kind);
        planQuotas(input, config,
            QuotaResource { kindName(kind) + " quota", ":" + std::string(toString(kind)),
                std::max<std::int64_t>(1, config.acceleratorQuotaStep[k]),
                [k](const PoolOutlook& p) { return p.accelerators[k]; },
                [kind](const NodeOutlook& n) {
                    return n.acceleratorKind == kind ? static_cast<std::int64_t>(n.acceleratorShare)
                                                     : std::int64_t { 0 };
                },
                [kind](std::string pool, std::int64_t share, std::int64_t expect) {
                    return Action::setAcceleratorQuota(std::move(pool), kind, share, expect);
                },
                [kind](std::string pool, std::int64_t share, std::int64_t floor) {
                    return Action::takeAcceleratorQuota(std::move(pool), kind, share, floor);
                },
                [unit](std::int64_t value) { return std::to_string(value) + " " + unit; } },
            out);
    }
}

void planLending(const EvaluationInput& input, const EvaluatorConfig& config, std::vector<Proposal>& out)
{
    // GPUs only: lending moves cold batch onto hot GPUs between peaks; the other kinds are not lent.
    const AcceleratorOutlook& gpus = input.accelerator(AcceleratorKind::Gpu);
    if (!gpus.hotPeak)
        return;
    const double peak = std::max(*gpus.hotPeak, gpus.hotDemand);
    const double need = peak * config.headroom;
    // A peak just beyond the lookahead drains nodes: no new batch lands there, and the batch running there has until
    // the peak is within the lookahead to end on its own; then what is left is stopped.
    const double drainPeak = std::max(peak, gpus.drainPeak.value_or(peak));
    const double drainNeed = drainPeak * config.headroom;
    std::vector<const NodeOutlook*> hot;
    for (const NodeOutlook& node : input.nodes)
        if (node.tier == "hot" && node.acceleratorKind == AcceleratorKind::Gpu && node.acceleratorShare > 0
            && (serving(node) || poweredDown(node)))
            hot.push_back(&node);
    // Keep what is reserved and in service already (no churn), then the nodes with the least batch to move, then the
    // largest. A node powered down earlier comes after the ready ones with no batch and before any running batch:
    // powering it up for the peak costs its idle draw for a while; reserving a lent node throws away the work of the
    // batch on it.
    auto rank = [](const NodeOutlook* n) {
        return poweredDown(*n) ? 2 : n->peakReserved ? 0 : n->batchResidents == 0 ? 1 : 3;
    };
    std::sort(hot.begin(), hot.end(), [&](const auto* a, const auto* b) {
        return std::tuple { rank(a), a->batchResidents, -a->acceleratorShare, a->name }
        < std::tuple { rank(b), b->batchResidents, -b->acceleratorShare, b->name };
    });
    std::vector<const NodeOutlook*> reserve, evict, drain, release, wake;
    double kept = 0.0, keptForDrain = 0.0, reservedBefore = 0.0;
    for (const NodeOutlook* node : hot) {
        if (node->peakReserved && !poweredDown(*node))
            reservedBefore += node->acceleratorShare;
        const bool needed = kept < need;
        const bool neededSoon = keptForDrain < drainNeed;
        if (needed)
            kept += node->acceleratorShare;
        if (neededSoon)
            keptForDrain += node->acceleratorShare;
        if (poweredDown(*node)) {
            if (needed)
                wake.push_back(node); // powered up, and reserved on the way
            continue;
        }
        if (needed && !node->peakReserved)
            reserve.push_back(node);
        else if (needed && node->batchResidents > 0)
            evict.push_back(node); // drained, and the batch still there has to make room now
        else if (neededSoon && !node->peakReserved)
            drain.push_back(node);
        else if (!neededSoon && node->peakReserved)
            release.push_back(node);
    }
    double total = 0.0;
    for (const NodeOutlook* node : hot)
        total += node->acceleratorShare;
    auto devices = [](double milli) { return std::to_string(static_cast<std::int64_t>(std::lround(milli / 1000.0))); };
    for (const NodeOutlook* node : wake) {
        Proposal p = newProposal(ProposalKind::PowerUp, "power:" + node->name, input, config);
        p.plan.push_back(Action::onNode(Action::Type::Uncordon, node->name));
        if (!node->peakReserved)
            p.plan.push_back(Action::onNode(Action::Type::Reserve, node->name));
        p.reason = "hot-tier accelerator demand is forecast to reach " + devices(peak) + " devices (p90) around "
            + clockTime(gpus.hotPeakAtMs) + "; power hot node " + node->name + " up again and reserve its "
            + std::to_string(node->accelerators) + " accelerators for it, rather than stop the batch on lent nodes";
        const double watts
            = config.idleWattsPerNode + config.idleWattsPerAccelerator * static_cast<double>(node->accelerators);
        p.effect.wattsSaved = -watts;
        p.effect.co2GramsPerHour = -watts * config.carbonGramsPerKWh / 1000.0;
        p.effect.gpusFreed = node->acceleratorShare / 1000.0; // for the hot tier
        p.effect.sloRisk = "lowers it: the forecast peak finds reserved accelerators";
        p.risk = Risk::Low;
        out.push_back(std::move(p));
    }
    if (!reserve.empty() || !evict.empty() || !drain.empty()) {
        const bool now = !reserve.empty() || !evict.empty();
        Proposal p = newProposal(ProposalKind::Reclaim, "lending:hot", input, config);
        double milli = 0.0, drained = 0.0;
        std::size_t stopped = 0, runningOn = 0;
        for (const NodeOutlook* node : reserve) {
            p.plan.push_back(Action::onNode(Action::Type::Reserve, node->name));
            milli += node->acceleratorShare;
            stopped += node->batchResidents;
        }
        for (const NodeOutlook* node : evict) {
            p.plan.push_back(Action::onNode(Action::Type::Evict, node->name));
            stopped += node->batchResidents;
        }
        for (const NodeOutlook* node : drain) {
            p.plan.push_back(Action::onNode(Action::Type::Drain, node->name));
            drained += node->acceleratorShare;
            runningOn += node->batchResidents;
        }
        std::string reason;
        if (now) {
            reason = "hot-tier accelerator demand is forecast to reach " + devices(peak) + " devices (p90) around "
                + clockTime(gpus.hotPeakAtMs) + "; ";
            if (!reserve.empty())
                reason += "reserve " + std::to_string(reserve.size()) + " more hot nodes (" + devices(milli)
                    + " devices) for it";
            if (!evict.empty())
                reason += std::string(reserve.empty() ? "" : ", ") + "make room on " + std::to_string(evict.size())
                    + " drained hot nodes";
            if (stopped)
                reason += ", moving the " + std::to_string(stopped) + " batch workloads on them to the cold tier";
        }
        if (!drain.empty())
            reason += std::string(now ? "; it" : "hot-tier accelerator demand") + " is forecast to reach "
                + devices(drainPeak) + " devices (p90) around " + clockTime(gpus.drainPeakAtMs) + ": drain "
                + std::to_string(drain.size()) + " hot nodes (" + devices(drained)
                + " devices) for it, starting no new batch there"
                + (runningOn ? " and letting the " + std::to_string(runningOn)
                            + " batch workloads running there end on their own until then"
                             : std::string());
        p.reason = reason;
        p.effect.utilisationBefore = total > 0 ? peak / std::max(1.0, reservedBefore) : 0.0;
        p.effect.utilisationAfter = peak / std::max(1.0, reservedBefore + milli + drained);
        p.effect.gpusFreed = (milli + drained) / 1000.0; // for the hot tier
        p.effect.sloRisk = "lowers it: the forecast peak finds reserved accelerators";
        p.risk = stopped > 0 ? Risk::Medium : Risk::Low;
        out.push_back(std::move(p));
    } else if (!release.empty()) {
        Proposal p = newProposal(ProposalKind::Lend, "lending:hot", input, config);
        double milli = 0.0;
        for (const NodeOutlook* node : release) {
            p.plan.push_back(Action::onNode(Action::Type::Release, node->name));
            milli += node->acceleratorShare;
        }
        p.reason = "hot-tier accelerator demand is forecast to stay under " + devices(drainPeak)
            + " devices (p90) for the lookahead; lend " + std::to_string(release.size()) + " reserved hot nodes ("
            + devices(milli) + " devices) to batch until the next peak";
        p.effect.utilisationBefore = drainPeak / std::max(1.0, reservedBefore);
        p.effect.utilisationAfter = drainPeak / std::max(1.0, reservedBefore - milli);
        p.effect.gpusFreed = milli / 1000.0; // for batch
        p.effect.sloRisk = keptForDrain >= drainNeed * 1.5
            ? "none: what stays reserved holds the peak with 50% to spare"
            : "what stays reserved holds the forecast peak with headroom";
        p.risk = keptForDrain >= drainNeed * 1.5 ? Risk::Low : Risk::Medium;
        out.push_back(std::move(p));
    }
}

void planCarbon(const EvaluationInput& input, const EvaluatorConfig& config, std::vector<Proposal>& out)
{
    if (input.carbon.empty() || input.deferrableCpuMillis <= 0.0 || input.carbonHoldUntilMs > input.nowMs)
        return;
    // The intensity now: the latest point at or before now.
    const auto after = std::upper_bound(input.carbon.begin(), input.carbon.end(), input.nowMs,
        [](std::int64_t t, const auto& point) { return t < point.first; });
    if (after == input.carbon.begin())
        return;
    const double now = std::prev(after)->second;
    std::optional<std::pair<std::int64_t, double>> best;
    for (auto it = after; it != input.carbon.end() && it->first <= input.nowMs + config.maxDeferral.count(); ++it)
        if (std::isfinite(it->second) && (!best || it->second < best->second))
            best = *it;
    if (!best || best->second > now * (1.0 - config.minCarbonSaving))
        return;
    Proposal p = newProposal(ProposalKind::Defer, "carbon:hold", input, config);
    Action hold;
    hold.type = Action::Type::HoldDeferrable;
    hold.untilMs = best->first;
    p.plan.push_back(hold);
    p.reason = "the grid's carbon intensity is " + std::to_string(static_cast<int>(now)) + " g/kWh now and forecast to fall to "
        + std::to_string(static_cast<int>(best->second)) + " g/kWh at " + clockTime(best->first)
        + "; hold deferrable batch until then (each still starts by its own deadline)";
    const double cores = input.deferrableCpuMillis / 1000.0;
    p.effect.co2GramsPerHour = cores * config.wattsPerBusyCore / 1000.0 * (now - best->second);
    p.effect.sloRisk = "none: only deferrable batch waits, and never past its deadline";
    p.risk = Risk::Low;
    out.push_back(std::move(p));
}

// The CPU the forecast needs against the CPU in service, for every set of tiers: the work that may run only on the
// tiers of a set must fit the set's nodes and the untiered ones (which take anything). The set of all tiers is the
// whole cluster; the smaller sets catch a tier emptied by power-downs while other tiers have room its work may not
// use (services on warm nodes, idle CPU on the hot tier). By Hall's theorem the sets together are also enough for
// the demand to fit, CPU taken as divisible.
struct TierBudget {
    std::array<double, kTierMaskCount> peak {}; // forecast p90 (or demand now) of the work allowed within the set
    std::array<double, kTierMaskCount> needed {}; // the same with headroom
    std::array<double, kTierMaskCount> capacity {}; // of the set's nodes in service

    static bool serves(TierMask node, TierMask set) { return node == 0 || (node & set) != 0; }
    void add(TierMask node, double cpuMillis)
    {
        for (TierMask set = 1; set <= kAllTiers; ++set)
            if (serves(node, set))
                capacity[set] += cpuMillis;
    }
    // The smallest set whose forecast does not fit once `cpuMillis` of `node` is gone (with `margin` more than the
    // headroom), or 0 when every set still fits.
    TierMask shortWithout(TierMask node, double cpuMillis, double margin) const
    {
        for (TierMask set : kSetsSmallestFirst)
            if (serves(node, set) && capacity[set] - cpuMillis < needed[set] * (1.0 + margin))
                return set;
        return 0;
    }
    static constexpr std::array<TierMask, 7> kSetsSmallestFirst { 1, 2, 4, 3, 5, 6, 7 };
};

TierMask nodeTiers(const NodeOutlook& node)
{
    const auto tier = parseTier(node.tier);
    return tier ? tierBit(*tier) : TierMask { 0 };
}

// "a", "a <last> b", "a, b <last> c".
std::string joined(const std::vector<std::string>& names, std::string_view last)
{
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i)
        out += (i == 0 ? "" : i + 1 == names.size() ? std::string(last) : ", ") + names[i];
    return out;
}

// "warm", "hot or warm", "hot, warm or cold".
std::string tierSetName(TierMask set)
{
    std::vector<std::string> names;
    for (const Tier tier : { Tier::Hot, Tier::Warm, Tier::Cold })
        if (set & tierBit(tier))
            names.emplace_back(toString(tier));
    return joined(names, " or ");
}

// The resources power planning holds the forecast of: a node powered down takes its cores and its memory alike.
enum class Resource : std::size_t { Cpu, Memory };
constexpr std::array kResources { Resource::Cpu, Resource::Memory };

double capacityOf(const NodeOutlook& node, Resource resource)
{
    return static_cast<double>(resource == Resource::Cpu ? node.cpuMillis : node.memoryMiB);
}

// "12000 mCPU", "65536 MiB".
std::string amount(double value, Resource resource)
{
    const auto whole = static_cast<std::int64_t>(value);
    return resource == Resource::Cpu ? millicores(whole) : std::to_string(whole) + " MiB";
}

// One budget a resource, both changed together as nodes go and come.
struct Budgets {
    std::array<TierBudget, kResources.size()> of;
    TierBudget& operator[](Resource r) { return of[static_cast<std::size_t>(r)]; }
    const TierBudget& operator[](Resource r) const { return of[static_cast<std::size_t>(r)]; }
    void add(const NodeOutlook& node, double sign = 1.0)
    {
        for (const Resource r : kResources)
            (*this)[r].add(nodeTiers(node), sign * capacityOf(node, r));
    }
};

// The cluster's forecast peak of one resource: each pool's p90 peak where it has a forecast, its highest load of the
// last day where it has too little history for one, and at least its demand now, split by the tiers its workloads
// may run on as its demand now is (all tiers where it has none now). `total` gets the whole peak; the pools held at
// their recent peak are added to `heldAtRecentPeak`.
TierBudget plannedPeak(const std::vector<PoolOutlook>& pools, Resource resource, double headroom, double& total,
    std::vector<std::string>& heldAtRecentPeak)
{
    TierBudget budget;
    total = 0.0;
    for (const PoolOutlook& pool : pools) {
        const bool cpu = resource == Resource::Cpu;
        const double now = cpu ? pool.cpuDemandMillis : pool.memoryDemandMiB;
        const std::optional<double>& forecast = cpu ? pool.cpuPeakMillis : pool.memoryPeakMiB;
        const double recent = cpu ? pool.cpuRecentPeakMillis : pool.memoryRecentPeakMiB;
        const auto& byTiers = cpu ? pool.cpuDemandByTiers : pool.memoryDemandByTiers;
        const double peak = std::max({ now, forecast.value_or(0.0), recent });
        if (!forecast && recent > now
            && std::find(heldAtRecentPeak.begin(), heldAtRecentPeak.end(), pool.name) == heldAtRecentPeak.end())
            heldAtRecentPeak.push_back(pool.name);
        total += peak;
        if (!(now > 0)) {
            budget.peak[kAllTiers] += peak;
            continue;
        }
        const double scale = peak / now;
        double accounted = 0;
        for (TierMask allowed = 0; allowed <= kAllTiers; ++allowed) {
            const double share = byTiers[allowed];
            accounted += share;
            for (TierMask set = 1; set <= kAllTiers; ++set)
                if ((allowed & set) == allowed)
                    budget.peak[set] += share * scale;
        }
        budget.peak[kAllTiers] += std::max(0.0, now - accounted) * scale;
    }
    budget.peak[kAllTiers] = std::max(budget.peak[kAllTiers], total); // rounding aside, the whole demand
    for (TierMask set = 1; set <= kAllTiers; ++set)
        budget.needed[set] = budget.peak[set] * headroom;
    return budget;
}

void planPower(const EvaluationInput& input, const EvaluatorConfig& config, std::vector<Proposal>& out)
{
    Budgets budgets;
    std::array<double, kResources.size()> peakOf {}; // the whole cluster's, by resource
    std::vector<std::string> heldAtRecentPeak; // pools counted at their highest recent load
    for (const Resource r : kResources)
        budgets[r]
            = plannedPeak(input.pools, r, config.headroom, peakOf[static_cast<std::size_t>(r)], heldAtRecentPeak);
    const double demand = peakOf[static_cast<std::size_t>(Resource::Cpu)];
    std::map<std::string, std::size_t> readyPerTier;
    for (const NodeOutlook& node : input.nodes)
        if (serving(node)) {
            budgets.add(node);
            ++readyPerTier[node.tier];
        }
    auto watts = [&](const NodeOutlook& node) {
        return config.idleWattsPerNode + config.idleWattsPerAccelerator * static_cast<double>(node.accelerators);
    };

    // Accelerators, kind by kind and each in its own units: those of a kind in service must hold the hot tier's
    // forecast peak of that kind with headroom, and the work of that kind waiting for a place; short of that,
    // powered-down nodes of that kind come back, most accelerators first. An FPGA slot is not a milli-GPU: work
    // waiting for FPGAs brings back FPGA hosts only, and keeps on only them.
    std::array<double, kAcceleratorKindCount> inService {}, hotNeeded {};
    auto proposedUp = [&](const NodeOutlook& node) {
        return std::any_of(out.begin(), out.end(),
            [&](const Proposal& q) { return q.kind == ProposalKind::PowerUp && q.key == "power:" + node.name; });
    };
    // GPUs that hold the hot tier's peak without stopping batch: a GPU node is powered down only while these hold
    // it, else the lending plan would power it straight back up rather than stop the batch on lent nodes.
    double gpusFreeOfBatch = 0;
    for (const NodeOutlook& node : input.nodes)
        if (serving(node)) {
            inService[kindIndex(node.acceleratorKind)] += node.acceleratorShare;
            if (node.acceleratorKind == AcceleratorKind::Gpu && node.batchResidents == 0)
                gpusFreeOfBatch += node.acceleratorShare;
        } else if (proposedUp(node)) { // by the lending plan, for the hot tier's peak
            inService[kindIndex(node.acceleratorKind)] += node.acceleratorShare;
            if (node.acceleratorKind == AcceleratorKind::Gpu)
                gpusFreeOfBatch += node.acceleratorShare;
            budgets.add(node);
        }
    for (std::size_t k = 1; k < inService.size(); ++k) {
        const auto kind = static_cast<AcceleratorKind>(k);
        const AcceleratorOutlook& demand = input.accelerator(kind);
        hotNeeded[k]
            = std::max({ demand.hotDemand, demand.hotPeak.value_or(0.0), demand.hotRecentPeak }) * config.headroom;
        const double acceleratorsShort = demand.pending + std::max(0.0, hotNeeded[k] - inService[k]);
        if (!(acceleratorsShort > 0))
            continue;
        std::vector<const NodeOutlook*> down;
        for (const NodeOutlook& node : input.nodes)
            if (poweredDown(node) && node.acceleratorKind == kind && node.acceleratorShare > 0 && !proposedUp(node))
                down.push_back(&node);
        std::sort(down.begin(), down.end(),
            [](const auto* a, const auto* b) { return a->acceleratorShare > b->acceleratorShare; });
        double covered = 0;
        for (const NodeOutlook* node : down) {
            if (covered >= acceleratorsShort)
                break;
            Proposal p = newProposal(ProposalKind::PowerUp, "power:" + node->name, input, config);
            p.plan.push_back(Action::onNode(Action::Type::Uncordon, node->name));
            // GPUs keep the words they always had; another kind is named, with its units.
            const std::string named = kind == AcceleratorKind::Gpu ? "" : kindName(kind) + " ";
            p.reason = named + "accelerators in service fall " + std::to_string(static_cast<std::int64_t>(acceleratorsShort))
                + " " + unitName(kind) + " short of the hot tier's forecast " + named + "peak with headroom and the "
                + named + "work waiting for them; power node " + node->name + " up again for its "
                + std::to_string(node->accelerators) + " " + named + "accelerators";
            p.effect.wattsSaved = -watts(*node);
            p.effect.co2GramsPerHour = -watts(*node) * config.carbonGramsPerKWh / 1000.0;
            p.effect.sloRisk = "lowers it: waiting work gets a place";
            p.risk = Risk::Low;
            covered += node->acceleratorShare;
            budgets.add(*node);
            out.push_back(std::move(p));
        }
    }

    // CPU, then memory: where the forecast of some set of tiers exceeds the capacity in service there, bring back
    // nodes powered down earlier that serve the set, largest first, until it fits; the smallest sets first (a warm
    // node brought back for the services counts for the whole cluster too, and for both resources).
    bool shortOfCapacity = false;
    for (const Resource r : kResources)
        for (TierMask set : TierBudget::kSetsSmallestFirst) {
            TierBudget& budget = budgets[r];
            if (!(budget.needed[set] > budget.capacity[set]))
                continue;
            shortOfCapacity = true;
            std::vector<const NodeOutlook*> down;
            for (const NodeOutlook& node : input.nodes)
                if (poweredDown(node) && TierBudget::serves(nodeTiers(node), set))
                    down.push_back(&node);
            std::sort(down.begin(), down.end(),
                [r](const auto* a, const auto* b) { return capacityOf(*a, r) > capacityOf(*b, r); });
            for (const NodeOutlook* node : down) {
                if (budget.needed[set] <= budget.capacity[set])
                    break;
                if (proposedUp(*node))
                    continue; // brought back already: for the hot peak, waiting accelerator work, a smaller set of
                              // tiers or the other resource
                Proposal p = newProposal(ProposalKind::PowerUp, "power:" + node->name, input, config);
                p.plan.push_back(Action::onNode(Action::Type::Uncordon, node->name));
                const std::string of
                    = set == kAllTiers ? "" : " of work that may run only on " + tierSetName(set) + " nodes";
                p.reason = std::string("the forecast ") + (r == Resource::Cpu ? "CPU" : "memory") + " peak" + of + " ("
                    + amount(budget.peak[set], r) + " p90, " + amount(budget.needed[set], r)
                    + " with headroom) exceeds the " + amount(budget.capacity[set], r) + " of "
                    + (set == kAllTiers ? "" : tierSetName(set) + " ") + "nodes in service; power node " + node->name
                    + " up again";
                const TierBudget& cpu = budgets[Resource::Cpu];
                p.effect.utilisationBefore = cpu.peak[set] / std::max(1.0, cpu.capacity[set]);
                budgets.add(*node);
                p.effect.utilisationAfter = cpu.peak[set] / std::max(1.0, cpu.capacity[set]);
                p.effect.wattsSaved = -watts(*node);
                p.effect.co2GramsPerHour = -watts(*node) * config.carbonGramsPerKWh / 1000.0;
                p.effect.sloRisk = "lowers it: more capacity for the peak";
                p.risk = Risk::Low;
                out.push_back(std::move(p));
            }
        }
    if (shortOfCapacity)
        return;

    std::vector<const NodeOutlook*> idle;
    for (const NodeOutlook& node : input.nodes)
        if (node.ready && node.cordon.empty() && node.residents == 0 && node.idleSinceMs > 0
            && input.nowMs - node.idleSinceMs >= config.idleBeforePowerDown.count())
            idle.push_back(&node);
    // The most power saved first; then the longest idle.
    std::sort(idle.begin(), idle.end(), [&](const auto* a, const auto* b) {
        return std::pair { watts(*a), -a->idleSinceMs } > std::pair { watts(*b), -b->idleSinceMs };
    });
    std::size_t proposed = 0;
    for (const NodeOutlook* node : idle) {
        if (proposed >= config.maxPowerDownsPerRound)
            break;
        const TierMask tiers = nodeTiers(*node);
        const auto cpu = static_cast<double>(node->cpuMillis);
        const bool leavesShort = std::any_of(kResources.begin(), kResources.end(), [&](Resource r) {
            return budgets[r].shortWithout(tiers, capacityOf(*node, r), config.powerDownMargin) != 0;
        });
        if (leavesShort || readyPerTier[node->tier] <= config.minReadyPerTier)
            continue;
        if (config.maxPowerDownsPerNodePerDay > 0 && node->powerDownsToday >= config.maxPowerDownsPerNodePerDay)
            continue; // cycled enough for one day
        const std::size_t k = kindIndex(node->acceleratorKind);
        const double leftInService = inService[k] - node->acceleratorShare;
        const bool gpu = node->acceleratorKind == AcceleratorKind::Gpu;
        const double leftForPeak = gpu ? gpusFreeOfBatch - node->acceleratorShare : leftInService;
        if (node->acceleratorShare > 0
            && (input.accelerators[k].pending > 0 || leftForPeak < hotNeeded[k] * (1.0 + config.powerDownMargin)))
            continue; // waiting work of its kind, or the hot tier's forecast peak of its kind, needs its accelerators
        inService[k] = leftInService;
        if (gpu)
            gpusFreeOfBatch = leftForPeak;
        Proposal p = newProposal(ProposalKind::PowerDown, "power:" + node->name, input, config);
        p.plan.push_back(Action::onNode(Action::Type::Cordon, node->name,
            std::string(kPowerDownCordon) + " by proposal (idle since " + clockTime(node->idleSinceMs) + ")"));
        const double idleMinutes = static_cast<double>(input.nowMs - node->idleSinceMs) / 60'000.0;
        const double memoryPeak = peakOf[static_cast<std::size_t>(Resource::Memory)];
        p.reason = "node " + node->name + " has run nothing for " + std::to_string(static_cast<int>(idleMinutes))
            + " minutes and the rest of the cluster holds the forecast CPU peak ("
            + millicores(static_cast<std::int64_t>(demand)) + " p90"
            + (memoryPeak > 0 ? ") and memory peak (" + amount(memoryPeak, Resource::Memory) + " p90" : std::string())
            + (heldAtRecentPeak.empty() ? std::string()
                                        : std::string(heldAtRecentPeak.size() == 1 ? ", and pool " : ", and pools ")
                        + joined(heldAtRecentPeak, " and ")
                        + " at the highest load of the last day: too little history for a forecast")
            + ") with headroom"
            + (node->acceleratorShare > 0 ? acceleratorsLeft(*node, leftForPeak, hotNeeded[k]) : std::string())
            + "; cordon it and power it down";
        const TierBudget& cpuBudget = budgets[Resource::Cpu];
        p.effect.utilisationBefore = demand / std::max(1.0, cpuBudget.capacity[kAllTiers]);
        p.effect.utilisationAfter = demand / std::max(1.0, cpuBudget.capacity[kAllTiers] - cpu);
        p.effect.wattsSaved = watts(*node);
        p.effect.co2GramsPerHour = watts(*node) * config.carbonGramsPerKWh / 1000.0;
        // The tightest set of tiers the node serves, in the tighter resource: what is left of it over its forecast.
        double margin = std::numeric_limits<double>::infinity();
        for (const Resource r : kResources)
            for (TierMask set = 1; set <= kAllTiers; ++set)
                if (const TierBudget& b = budgets[r]; TierBudget::serves(tiers, set) && b.peak[set] > 0)
                    margin = std::min(margin, (b.capacity[set] - capacityOf(*node, r)) / b.peak[set]);
        p.effect.sloRisk = margin >= 2.0 ? "none: the rest holds twice the forecast peak"
                                         : "the rest holds the forecast peak with " + std::to_string(static_cast<int>((margin - 1.0) * 100)) + "% to spare";
        p.risk = margin >= 2.0 ? Risk::Low : Risk::Medium;
        budgets.add(*node, -1.0);
        --readyPerTier[node->tier];
        ++proposed;
        out.push_back(std::move(p));
    }
}

} // namespace

Proposal newProposal(ProposalKind kind, std::string key, const EvaluationInput& input, const EvaluatorConfig& config)
{
    Proposal p;
    p.kind = kind;
    p.state = ProposalState::Pending;
    p.key = std::move(key);
    p.stateVersion = input.stateVersion;
    p.createdMs = input.nowMs;
    p.expiresMs = input.nowMs + config.validity.count();
    return p;
}

std::vector<Proposal> evaluate(const EvaluationInput& input, const EvaluatorConfig& config)
{
    std::vector<Proposal> proposals;
    planQuotas(input, config, proposals);
    planLending(input, config, proposals);
    planCarbon(input, config, proposals);
    planPower(input, config, proposals);
    return proposals;
}

} // namespace tidepool::rebalance
