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

std::int64_t roundUp(double value, std::int64_t step)
{
    return static_cast<std::int64_t>(std::ceil(value / static_cast<double>(step))) * step;
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

// Why an idle accelerator node may go: nothing of its kind waits, and what stays in service holds the hot tier's
// forecast peak of its kind.
Clause acceleratorsLeft(const NodeOutlook& node, double leftInService, double hotNeeded)
{
    const std::string kind(toString(node.acceleratorKind));
    const bool lent = node.acceleratorKind == AcceleratorKind::Gpu; // GPUs: those running batch do not count
    return clause(lent ? "accelerators-left-free" : "accelerators-left",
        { termArg(kind), amountArg(leftInService, kind), amountArg(std::ceil(hotNeeded), kind) });
}

// One resource that quotas hold (CPU in millicores, memory in MiB, an accelerator kind in its share units): where each
// pool's figures are, what nodes hold of it, and how its proposals' actions and amounts are written.
struct QuotaResource {
    std::string term; // in reasons (`reasonTerms`) and amounts' units: "cpu", "memory", "gpu", "npu", "fpga"
    std::string keySuffix; // after "quota:<pool>"
    std::int64_t step;
    std::function<QuotaOutlook(const PoolOutlook&)> figures;
    std::function<std::int64_t(const NodeOutlook&)> capacity;
    std::function<Action(std::string, std::int64_t, std::int64_t)> set;
    std::function<Action(std::string, std::int64_t, std::int64_t)> take;
};

// A raise one resource's planning proposed: which proposal, for which pool and resource (an index into the
// resources planned), to what.
struct QuotaRaise {
    std::size_t proposal = 0; // in the proposals planned
    std::string pool;
    std::size_t resource = 0;
    std::int64_t raised = 0;
};

std::int64_t quotaNeed(const QuotaOutlook& f, const EvaluatorConfig& config, std::int64_t step)
{
    return roundUp(std::max(*f.peak, f.demand) * config.headroom, step);
}

void planQuotas(const EvaluationInput& input, const EvaluatorConfig& config, const QuotaResource& r,
    std::size_t resource, std::vector<Proposal>& out, std::vector<QuotaRaise>& raises)
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
            const std::int64_t need = quotaNeed(f, config, r.step);
            needOf[pool->name] = need;
            if (f.quota - need >= r.step)
                slack[pool->name] = (f.quota - need) / r.step * r.step;
        }
    }
    // Capacity no quota holds is what nodes in service have beyond the quotas, less what the pools with no limit of
    // it ask for now: a GPU lent to batch of such a pool is held by that batch, not idle.
    std::int64_t capacity = 0;
    for (const NodeOutlook& node : input.nodes)
        if (serving(node))
            capacity += r.capacity(node);
    double unlimitedDemand = 0.0;
    for (const PoolOutlook& pool : input.pools)
        if (const QuotaOutlook f = r.figures(pool); f.quota >= kUnlimited)
            unlimitedDemand += f.demand;
    std::int64_t unquoted
        = std::max<std::int64_t>(0, capacity - quotaTotal - static_cast<std::int64_t>(std::ceil(unlimitedDemand)))
        / r.step * r.step;

    const auto amount = [&](double value) { return amountArg(value, r.term); };
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
            Why sources;
            bool donorsTight = false;
            for (auto& [donor, available] : donors) {
                if (missing <= 0)
                    break;
                const std::int64_t take = std::min(available, missing);
                p.plan.push_back(r.take(donor, take, needOf[donor]));
                slack[donor] -= take;
                missing -= take;
                donorsTight = donorsTight || slack[donor] < r.step;
                sources.push_back(clause("quota-from-pool", { amount(static_cast<double>(take)), donor }));
            }
            if (missing > 0 && unquoted > 0) {
                const std::int64_t take = std::min(unquoted, missing);
                unquoted -= take;
                missing -= take;
                sources.push_back(clause("quota-from-capacity", { amount(static_cast<double>(take)) }));
            }
            const std::int64_t raised = need - missing;
            if (raised - quota < r.step)
                continue; // nothing to shift: the operator sees the pool's forecast, not an empty proposal
            p.plan.insert(p.plan.begin(), r.set(pool->name, raised, quota));
            Why why { clause("quota-above",
                          { pool->name, amount(peak), timeArg(f.peakAtMs), amount(std::ceil(peak * config.headroom)),
                              std::lround((config.headroom - 1) * 100), termArg(r.term),
                              amount(static_cast<double>(quota)) }),
                clause("quota-raise", { amount(static_cast<double>(raised)) }) };
            why.insert(why.end(), sources.begin(), sources.end());
            explain(p, std::move(why));
            p.effect.utilisationBefore = peak / static_cast<double>(quota);
            p.effect.utilisationAfter = peak / static_cast<double>(raised);
            explainRisk(
                p.effect, { clause(raised >= peak ? "risk-fits-raised" : "risk-exceeds-raised", { termArg(r.term) }) });
            p.risk = donorsTight ? Risk::Medium : Risk::Low;
            raises.push_back({ out.size(), pool->name, resource, raised });
            out.push_back(std::move(p));
        } else if (f.base && *f.base < quota && need <= *f.base) {
            Proposal p = newProposal(ProposalKind::Quota, key, input, config);
            p.plan.push_back(r.set(pool->name, *f.base, quota));
            explain(p,
                { clause("quota-fits-base",
                      { pool->name, amount(peak), termArg(r.term), amount(static_cast<double>(*f.base)) }),
                    clause("quota-give-back", { amount(static_cast<double>(quota - *f.base)) }) });
            p.effect.utilisationBefore = peak / static_cast<double>(quota);
            p.effect.utilisationAfter = peak / static_cast<double>(*f.base);
            explainRisk(p.effect, { clause("risk-fits-base", { termArg(r.term) }) });
            p.risk = Risk::Low;
            out.push_back(std::move(p));
        }
    }
}

void planQuotas(const EvaluationInput& input, const EvaluatorConfig& config, std::vector<Proposal>& out)
{
    std::vector<QuotaResource> resources;
    resources.push_back(QuotaResource { "cpu", "", config.quotaStepMillis,
        [](const PoolOutlook& p) {
            return QuotaOutlook { p.cpuQuotaMillis, p.baseCpuMillis, p.cpuDemandMillis, p.cpuPeakMillis, p.peakAtMs };
        },
        [](const NodeOutlook& n) { return n.cpuMillis; }, &Action::setCpuQuota, &Action::takeCpuQuota });
    resources.push_back(QuotaResource { "memory", ":memory", config.quotaStepMiB,
        [](const PoolOutlook& p) {
            return QuotaOutlook { p.memoryQuotaMiB, p.baseMemoryMiB, p.memoryDemandMiB, p.memoryPeakMiB,
                p.memoryPeakAtMs };
        },
        [](const NodeOutlook& n) { return n.memoryMiB; }, &Action::setMemoryQuota, &Action::takeMemoryQuota });
    // Accelerators kind by kind, in the kind's share units: a pool's share of GPUs is shifted like its cores.
    for (const AcceleratorKind kind : { AcceleratorKind::Gpu, AcceleratorKind::Npu, AcceleratorKind::Fpga }) {
        const std::size_t k = kindIndex(kind);
        resources.push_back(QuotaResource { std::string(toString(kind)), ":" + std::string(toString(kind)),
            std::max<std::int64_t>(1, config.acceleratorQuotaStep[k]),
            [k](const PoolOutlook& p) { return p.accelerators[k]; },
            [kind](const NodeOutlook& n) {
                return n.acceleratorKind == kind ? static_cast<std::int64_t>(n.acceleratorShare) : std::int64_t { 0 };
            },
            [kind](std::string pool, std::int64_t share, std::int64_t expect) {
                return Action::setAcceleratorQuota(std::move(pool), kind, share, expect);
            },
            [kind](std::string pool, std::int64_t share, std::int64_t floor) {
                return Action::takeAcceleratorQuota(std::move(pool), kind, share, floor);
            } });
    }
    std::vector<QuotaRaise> raises;
    for (std::size_t i = 0; i < resources.size(); ++i)
        planQuotas(input, config, resources[i], i, out, raises);

    // A pool runs into whichever of its quotas is short first. A raise of one resource where another still holds the
    // pool below its forecast need does not make the peak fit: its risk says which limit holds it, and by how much, or
    // that the raise proposed for that one must be approved with it.
    for (const QuotaRaise& raise : raises) {
        const auto pool = std::find_if(
            input.pools.begin(), input.pools.end(), [&](const PoolOutlook& p) { return p.name == raise.pool; });
        if (pool == input.pools.end())
            continue;
        Why held, alongside;
        for (std::size_t j = 0; j < resources.size(); ++j) {
            const QuotaResource& other = resources[j];
            const QuotaOutlook f = other.figures(*pool);
            if (j == raise.resource || !f.peak || f.quota <= 0 || f.quota >= kUnlimited)
                continue;
            const std::int64_t need = quotaNeed(f, config, other.step);
            if (need <= f.quota)
                continue;
            const auto with = std::find_if(raises.begin(), raises.end(),
                [&](const QuotaRaise& q) { return q.pool == raise.pool && q.resource == j; });
            if (with != raises.end() && with->raised >= need)
                alongside.push_back(clause("risk-raise-too", { termArg(other.term) }));
            else
                held.push_back(clause("risk-held-by",
                    { termArg(other.term),
                        amountArg(static_cast<double>(with != raises.end() ? with->raised : f.quota), other.term),
                        amountArg(static_cast<double>(need), other.term) }));
        }
        if (held.empty() && alongside.empty())
            continue;
        Proposal& p = out[raise.proposal];
        Why risk = held.empty() ? p.effect.sloRiskWhy : Why {}; // "the peak fits" no longer holds
        risk.insert(risk.end(), held.begin(), held.end());
        risk.insert(risk.end(), alongside.begin(), alongside.end());
        explainRisk(p.effect, std::move(risk));
        if (!held.empty())
            p.risk = std::max(p.risk, Risk::Medium);
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
    auto devices = [](double milli) { return static_cast<std::int64_t>(std::lround(milli / 1000.0)); };
    for (const NodeOutlook* node : wake) {
        Proposal p = newProposal(ProposalKind::PowerUp, "power:" + node->name, input, config);
        p.plan.push_back(Action::onNode(Action::Type::Uncordon, node->name));
        if (!node->peakReserved)
            p.plan.push_back(Action::onNode(Action::Type::Reserve, node->name));
        explain(p,
            { clause("hot-peak", { devices(peak), timeArg(gpus.hotPeakAtMs) }),
                clause("hot-power-up", { node->name, node->accelerators }) });
        const double watts
            = config.idleWattsPerNode + config.idleWattsPerAccelerator * static_cast<double>(node->accelerators);
        p.effect.wattsSaved = -watts;
        p.effect.co2GramsPerHour = -watts * config.carbonGramsPerKWh / 1000.0;
        p.effect.gpusFreed = node->acceleratorShare / 1000.0; // for the hot tier
        explainRisk(p.effect, { clause("risk-reserved") });
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
        Why why;
        if (now) {
            why.push_back(clause("hot-peak", { devices(peak), timeArg(gpus.hotPeakAtMs) }));
            if (!reserve.empty())
                why.push_back(clause("hot-reserve", { reserve.size(), devices(milli) }));
            if (!evict.empty())
                why.push_back(clause("hot-make-room", { evict.size() }));
            if (stopped)
                why.push_back(clause("hot-move-batch", { stopped }));
        }
        if (!drain.empty()) {
            why.push_back(
                clause(now ? "hot-peak-later" : "hot-peak", { devices(drainPeak), timeArg(gpus.drainPeakAtMs) }));
            why.push_back(clause("hot-drain", { drain.size(), devices(drained) }));
            if (runningOn)
                why.push_back(clause("hot-drain-batch-ends", { runningOn }));
        }
        explain(p, std::move(why));
        p.effect.utilisationBefore = total > 0 ? peak / std::max(1.0, reservedBefore) : 0.0;
        p.effect.utilisationAfter = peak / std::max(1.0, reservedBefore + milli + drained);
        p.effect.gpusFreed = (milli + drained) / 1000.0; // for the hot tier
        explainRisk(p.effect, { clause("risk-reserved") });
        p.risk = stopped > 0 ? Risk::Medium : Risk::Low;
        out.push_back(std::move(p));
    } else if (!release.empty()) {
        Proposal p = newProposal(ProposalKind::Lend, "lending:hot", input, config);
        double milli = 0.0;
        for (const NodeOutlook* node : release) {
            p.plan.push_back(Action::onNode(Action::Type::Release, node->name));
            milli += node->acceleratorShare;
        }
        explain(p,
            { clause("hot-stays-under", { devices(drainPeak) }),
                clause("hot-lend", { release.size(), devices(milli) }) });
        p.effect.utilisationBefore = drainPeak / std::max(1.0, reservedBefore);
        p.effect.utilisationAfter = drainPeak / std::max(1.0, reservedBefore - milli);
        p.effect.gpusFreed = milli / 1000.0; // for batch
        explainRisk(
            p.effect, { clause(keptForDrain >= drainNeed * 1.5 ? "risk-reserved-spare" : "risk-reserved-headroom") });
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
    explain(p,
        { clause("carbon-falls", { static_cast<int>(now), static_cast<int>(best->second), timeArg(best->first) }),
            clause("carbon-hold") });
    const double cores = input.deferrableCpuMillis / 1000.0;
    p.effect.co2GramsPerHour = cores * config.wattsPerBusyCore / 1000.0 * (now - best->second);
    explainRisk(p.effect, { clause("risk-deferrable") });
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

// A term of tiers: "warm", "hot+warm" ("hot or warm").
std::string tierSetName(TierMask set)
{
    std::vector<std::string> names;
    for (const Tier tier : { Tier::Hot, Tier::Warm, Tier::Cold })
        if (set & tierBit(tier))
            names.emplace_back(toString(tier));
    return joined(names, "+");
}

// The resources power planning holds the forecast of: a node powered down takes its cores and its memory alike.
enum class Resource : std::size_t { Cpu, Memory };
constexpr std::array kResources { Resource::Cpu, Resource::Memory };

double capacityOf(const NodeOutlook& node, Resource resource)
{
    return static_cast<double>(resource == Resource::Cpu ? node.cpuMillis : node.memoryMiB);
}

// The term of a resource, and its amounts ("12000 mCPU", "65536 MiB").
std::string termOf(Resource resource)
{
    return resource == Resource::Cpu ? "cpu" : "memory";
}

nlohmann::json amount(double value, Resource resource)
{
    return amountArg(value, termOf(resource));
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
            const std::string named(toString(kind));
            explain(p,
                { clause("accelerators-short", { termArg(named), amountArg(acceleratorsShort, named) }),
                    clause("power-up-for-accelerators", { node->name, node->accelerators, termArg(named) }) });
            p.effect.wattsSaved = -watts(*node);
            p.effect.co2GramsPerHour = -watts(*node) * config.carbonGramsPerKWh / 1000.0;
            explainRisk(p.effect, { clause("risk-waiting-placed") });
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
                const auto what = termArg(termOf(r));
                explain(p,
                    { set == kAllTiers ? clause("capacity-short",
                          { what, amount(budget.peak[set], r), amount(budget.needed[set], r),
                              amount(budget.capacity[set], r) })
                                       : clause("capacity-short-tiers",
                                           { what, termArg(tierSetName(set)), amount(budget.peak[set], r),
                                               amount(budget.needed[set], r), amount(budget.capacity[set], r) }),
                        clause("power-up", { node->name }) });
                const TierBudget& cpu = budgets[Resource::Cpu];
                p.effect.utilisationBefore = cpu.peak[set] / std::max(1.0, cpu.capacity[set]);
                budgets.add(*node);
                p.effect.utilisationAfter = cpu.peak[set] / std::max(1.0, cpu.capacity[set]);
                p.effect.wattsSaved = -watts(*node);
                p.effect.co2GramsPerHour = -watts(*node) * config.carbonGramsPerKWh / 1000.0;
                explainRisk(p.effect, { clause("risk-more-capacity") });
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
        Why why { clause("node-idle", { node->name, static_cast<int>(idleMinutes) }),
            memoryPeak > 0 ? clause(
                "rest-holds-cpu-memory", { amount(demand, Resource::Cpu), amount(memoryPeak, Resource::Memory) })
                           : clause("rest-holds-cpu", { amount(demand, Resource::Cpu) }) };
        if (!heldAtRecentPeak.empty())
            why.push_back(clause("recent-peak-pools", { joined(heldAtRecentPeak, ", ") }));
        if (node->acceleratorShare > 0)
            why.push_back(acceleratorsLeft(*node, leftForPeak, hotNeeded[k]));
        why.push_back(clause("power-down"));
        explain(p, std::move(why));
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
        explainRisk(p.effect,
            { margin >= 2.0 ? clause("risk-rest-twice")
                            : clause("risk-rest-spare", { static_cast<int>((margin - 1.0) * 100) }) });
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
