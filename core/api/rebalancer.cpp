#include "core/api/rebalancer.h"

#include "core/rebalance/consolidate.h"
#include "core/rebalance/hotspots.h"
#include "core/rebalance/tier_moves.h"
#include "core/sched/filters.h"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace tidepool::api {

using rebalance::Action;
using rebalance::Proposal;
using rebalance::ProposalKind;
using rebalance::ProposalState;

namespace {

constexpr std::int64_t kStepMs = store::kAggregateBucketMs;
// Who resizes a workload for an approved right-sizing proposal: followed by its id.
constexpr const char* kResizeProposalActor = "resize proposal ";
constexpr std::size_t kStepsPerDay = 86'400'000 / kStepMs; // 5-minute buckets in a day

// The key of the hot tier's latest forecast peak of one accelerator kind in `m_lastPeaks` ("tier:hot" for GPUs, as
// before there were others).
std::string hotPeakKey(AcceleratorKind kind)
{
    return kind == AcceleratorKind::Gpu ? std::string("tier:hot") : "tier:hot:" + std::string(toString(kind));
}

// A quota action's resource: the quota it changes, its amount and what it expects, in the resource's unit.
struct QuotaChange {
    enum class Of : std::uint8_t { Cpu, Memory, Accelerator };
    Of of = Of::Cpu;
    AcceleratorKind kind = AcceleratorKind::None; // Accelerator
    std::int64_t amount = 0; // Set: the new quota; Take, Give: how much
    std::int64_t expect = 0; // Set: the quota it was planned on; Take: the floor to keep
    bool set = false, take = false;
    std::string what() const
    {
        std::string name(toString(kind)); // "GPU quota"
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
        return of == Of::Cpu ? "CPU quota" : of == Of::Memory ? "memory quota" : name + " quota";
    }
    // As the history names it: "cpu", "memory", "gpu", "npu", "fpga".
    std::string resource() const
    {
        return of == Of::Cpu ? "cpu" : of == Of::Memory ? "memory" : std::string(toString(kind));
    }
    std::string unit() const { return of == Of::Cpu ? " mCPU" : of == Of::Memory ? " MiB" : " share units"; }
    std::int64_t quotaOf(const Pool& pool) const
    {
        return of == Of::Cpu   ? pool.quota.cpuMillis
            : of == Of::Memory ? pool.quota.memoryMiB
                               : pool.acceleratorQuota[static_cast<std::size_t>(kind)];
    }
    std::int64_t& quotaIn(PoolRequest& request) const
    {
        return of == Of::Cpu   ? request.cpuMillis
            : of == Of::Memory ? request.memoryMiB
                               : request.acceleratorQuota[static_cast<std::size_t>(kind)];
    }
    // What the pool's workloads hold of it: a memory limit or an accelerator quota is never lowered below that (the
    // kernel would reclaim or kill to enforce a limit; workloads would outlive a quota they exceed). CPU may be
    // lowered: the kernel throttles.
    std::optional<std::int64_t> heldIn(const Pool& pool) const
    {
        if (of == Of::Memory)
            return pool.used.memoryMiB;
        if (of == Of::Accelerator)
            return pool.acceleratorUsed[static_cast<std::size_t>(kind)];
        return std::nullopt;
    }
};

QuotaChange quotaChange(const Action& a)
{
    using Type = Action::Type;
    QuotaChange q;
    q.of = a.changesCpuQuota()   ? QuotaChange::Of::Cpu
        : a.changesMemoryQuota() ? QuotaChange::Of::Memory
                                 : QuotaChange::Of::Accelerator;
    q.kind = a.accelerator;
    const rebalance::QuotaAmounts amounts = rebalance::quotaAmounts(a);
    q.amount = amounts.amount;
    q.expect = amounts.expect;
    q.set = a.type == Type::SetCpuQuota || a.type == Type::SetMemoryQuota || a.type == Type::SetAcceleratorQuota;
    q.take = a.type == Type::TakeCpuQuota || a.type == Type::TakeMemoryQuota || a.type == Type::TakeAcceleratorQuota;
    return q;
}

std::string describe(const Action& a)
{
    switch (a.type) {
    case Action::Type::SetCpuQuota:
    case Action::Type::TakeCpuQuota:
    case Action::Type::GiveCpuQuota:
    case Action::Type::SetMemoryQuota:
    case Action::Type::TakeMemoryQuota:
    case Action::Type::GiveMemoryQuota:
    case Action::Type::SetAcceleratorQuota:
    case Action::Type::TakeAcceleratorQuota:
    case Action::Type::GiveAcceleratorQuota: {
        const QuotaChange q = quotaChange(a);
        if (q.set)
            return "set pool " + a.target + "'s " + q.what() + " from " + std::to_string(q.expect) + " to "
                + std::to_string(q.amount) + q.unit();
        return (q.take ? "take " : "give ") + std::to_string(q.amount) + q.unit() + (q.take ? " of" : " back to")
            + " pool " + a.target + "'s " + q.what();
    }
    case Action::Type::Cordon:
        return "cordon node " + a.target;
    case Action::Type::Uncordon:
        return "uncordon node " + a.target;
    case Action::Type::Reserve:
        return "reserve hot node " + a.target + " for the peak";
    case Action::Type::Release:
        return "lend hot node " + a.target + " to batch";
    case Action::Type::Drain:
        return "drain hot node " + a.target + " for the peak (no new batch; the batch there runs on)";
    case Action::Type::Evict: return "stop the batch still on reserved hot node " + a.target;
    case Action::Type::HoldDeferrable:
        return a.untilMs > 0 ? "hold deferrable batch until " + std::to_string(a.untilMs) + " (Unix ms)"
                             : "lift the hold on deferrable batch";
    case Action::Type::Resize:
        return "resize workload " + std::to_string(a.workload) + " on " + a.target + " from "
            + std::to_string(a.expectCpuMillis) + "m CPU, " + std::to_string(a.expectMemoryMiB) + " MiB to "
            + std::to_string(a.cpuMillis) + "m CPU, " + std::to_string(a.memoryMiB) + " MiB";
    case Action::Type::Migrate:
        if (a.fromDevice < 0)
            return "move workload " + std::to_string(a.workload) + " from " + a.from + " to " + a.target;
        return "move workload " + std::to_string(a.workload) + " from " + a.from + " GPU " + std::to_string(a.fromDevice)
            + " to " + a.target + " GPU " + std::to_string(a.device);
    case Action::Type::Invalid:
        break;
    }
    return "nothing";
}

// The action that undoes `a` once it has been applied.
Action inverse(const Action& a)
{
    Action back = a;
    if (a.type == Action::Type::SetCpuQuota) {
        back.cpuMillis = a.expectCpuMillis;
        back.expectCpuMillis = a.cpuMillis;
    } else if (a.type == Action::Type::SetMemoryQuota) {
        back.memoryMiB = a.expectMemoryMiB;
        back.expectMemoryMiB = a.memoryMiB;
    } else if (a.type == Action::Type::SetAcceleratorQuota) {
        back.quotaShare = a.expectQuotaShare;
        back.expectQuotaShare = a.quotaShare;
    } else if (a.type == Action::Type::Cordon) {
        back.type = Action::Type::Uncordon;
    } else if (a.type == Action::Type::Uncordon) {
        back.type = Action::Type::Cordon;
        back.reason = std::string(rebalance::kPowerDownCordon) + " (restored by a rollback)";
    } else if (a.type == Action::Type::Reserve || a.type == Action::Type::Drain) {
        back.type = Action::Type::Release;
    } else if (a.type == Action::Type::Evict) {
        back.type = Action::Type::Invalid; // nothing to undo: the stopped batch waits in the queue
    } else if (a.type == Action::Type::Release) {
        back.type = Action::Type::Reserve;
    } else if (a.type == Action::Type::HoldDeferrable) {
        back.untilMs = 0;
    } else if (a.type == Action::Type::TakeCpuQuota) {
        back.type = Action::Type::GiveCpuQuota;
    } else if (a.type == Action::Type::GiveCpuQuota) {
        back.type = Action::Type::TakeCpuQuota;
    } else if (a.type == Action::Type::TakeMemoryQuota) {
        back.type = Action::Type::GiveMemoryQuota;
    } else if (a.type == Action::Type::GiveMemoryQuota) {
        back.type = Action::Type::TakeMemoryQuota;
    } else if (a.type == Action::Type::TakeAcceleratorQuota) {
        back.type = Action::Type::GiveAcceleratorQuota;
    } else if (a.type == Action::Type::GiveAcceleratorQuota) {
        back.type = Action::Type::TakeAcceleratorQuota;
    } else if (a.type == Action::Type::Migrate) {
        std::swap(back.from, back.target);
        std::swap(back.fromDevice, back.device);
    } else if (a.type == Action::Type::Resize) {
        std::swap(back.cpuMillis, back.expectCpuMillis);
        std::swap(back.memoryMiB, back.expectMemoryMiB);
    }
    return back;
}

// Why a quota action no longer holds on the pool as it is now ("" when it does): a quota set other than the one it was
// planned on, or a donor that would keep less than its own forecast need.
std::string quotaStaleness(const ControlPlane& plane, const Action& a)
{
    const auto pool = plane.poolByName(a.target);
    if (!pool)
        return "pool " + a.target + " no longer exists";
    const QuotaChange q = quotaChange(a);
    const std::int64_t now = q.quotaOf(plane.cluster().pool(*pool));
    if (q.set && now != q.expect)
        return "pool " + a.target + "'s " + q.what() + " is " + std::to_string(now) + q.unit() + ", not the "
            + std::to_string(q.expect) + " it was planned on";
    if (q.take && now - q.amount < q.expect)
        return "pool " + a.target + "'s " + q.what() + " is " + std::to_string(now) + q.unit() + ": taking "
            + std::to_string(q.amount) + " would leave less than the " + std::to_string(q.expect)
            + " its forecast needs";
    return {};
}

// Applies a quota action; "" when done, else what went wrong.
std::string applyQuota(ControlPlane& plane, const Action& a)
{
    const auto pool = plane.poolByName(a.target);
    if (!pool)
        return "pool " + a.target + " no longer exists";
    const QuotaChange q = quotaChange(a);
    PoolRequest request = plane.poolRequestOf(*pool);
    std::int64_t& quota = q.quotaIn(request);
    quota = q.set ? q.amount : quota + (q.take ? -q.amount : q.amount);
    if (quota < 0)
        return "pool " + a.target + "'s " + q.what() + " would go below zero";
    // The agents enforce a memory quota in the pool's cgroups: below what its workloads hold, the kernel would
    // reclaim their memory or kill them; an accelerator quota below what they hold leaves the pool over its quota.
    // Rolling back a raise is refused alike when the pool has grown into it.
    if (const auto held = q.heldIn(plane.cluster().pool(*pool)); held && quota < *held)
        return "pool " + a.target + "'s " + q.what() + " would go to " + std::to_string(quota) + q.unit()
            + ", below the " + std::to_string(*held) + q.unit() + " its workloads hold";
    if (auto done = plane.updatePool(a.target, request); !done)
        return done.error().message;
    return {};
}

} // namespace

Expected<std::unique_ptr<Rebalancer>> Rebalancer::create(
    boost::asio::io_context& io, ControlPlane& plane, RebalanceConfig config, protocol::LogSink log)
{
    auto model = forecast::ModelRegistry::withBuiltins().make(config.model);
    if (!model)
        return makeError(ErrorCode::InvalidArgument, "forecasting model \"" + config.model + "\" is not known");
    if (config.period <= std::chrono::milliseconds::zero() || config.lookaheadSteps == 0)
        return makeError(ErrorCode::InvalidArgument, "the evaluation period and the lookahead must be positive");
    auto rebalancer = std::make_unique<Rebalancer>(io, plane, std::move(config), std::move(log), std::move(model));
    for (const store::StoredProposal& stored : plane.takeRestoredProposals()) {
        auto proposal = rebalance::fromStored(stored);
        if (!proposal)
            return tl::unexpected(proposal.error());
        rebalancer->m_nextId = std::max(rebalancer->m_nextId, proposal->id + 1);
        if (proposal->state == ProposalState::Applied)
            for (const Action& a : proposal->plan)
                rebalancer->noteQuota(a);
        if (proposal->state == ProposalState::Approved) {
            // Approved but not finished: the daemon stopped while its power command ran.
            proposal->state = ProposalState::Failed;
            proposal->detail = "tidepoold stopped while its power command ran; whether it switched the node is unknown";
            for (auto& step : proposal->steps)
                if (step.value("outcome", std::string()) == "running")
                    step["outcome"] = "unknown: interrupted by a restart";
            rebalancer->save(*proposal);
        }
        rebalancer->m_savedStates.try_emplace(proposal->id, proposal->state); // restored: entered in an earlier run
        rebalancer->m_proposals.emplace(proposal->id, std::move(*proposal));
    }
    return rebalancer;
}

Rebalancer::Rebalancer(boost::asio::io_context& io, ControlPlane& plane, RebalanceConfig config, protocol::LogSink log,
    std::unique_ptr<forecast::Model> model)
    : m_plane(plane)
    , m_config(std::move(config))
    , m_log(std::move(log))
    , m_model(std::move(model))
    , m_io(io)
    , m_timer(io)
{
    m_plane.setResizeRefusedListener([this](WorkloadId workload, const std::string& actor, const std::string& outcome) {
        onResizeRefused(workload, actor, outcome);
    });
}

Rebalancer::~Rebalancer()
{
    m_plane.setResizeRefusedListener({});
    m_timer.cancel();
    m_worker.join(); // a forecast in flight finishes; its result finds `m_alive` gone and is dropped
    // A power command in flight runs to its end or its timeout; its proposal is failed as interrupted at the next start.
    m_powerWorker.join();
}

void Rebalancer::start()
{
    m_running = true;
    if (m_stats.lastEvaluationMs == 0)
        m_stats.lastEvaluationMs = m_plane.nowMs(); // an alert on the loop's age counts from here until the first
    arm();
}

void Rebalancer::stop()
{
    m_running = false;
    m_timer.cancel();
}

void Rebalancer::arm()
{
    m_timer.expires_after(m_config.period);
    m_timer.async_wait([this](const boost::system::error_code& ec) {
        if (ec || !m_running)
            return;
        evaluate(m_plane.nowMs(), [](std::vector<std::int64_t>) {});
        arm();
    });
}

const Proposal* Rebalancer::proposal(std::int64_t id) const
{
    const auto it = m_proposals.find(id);
    return it == m_proposals.end() ? nullptr : &it->second;
}

std::string Rebalancer::whyNoProposal(std::int64_t id) const
{
    if (id <= 0 || id >= m_nextId)
        return "no proposal has id " + std::to_string(id);
    const auto days = std::chrono::duration_cast<std::chrono::hours>(m_config.keepClosedProposals).count() / 24;
    return "proposal " + std::to_string(id)
        + (days > 0 ? " was closed more than " + std::to_string(days) + " days ago and" : "")
        + " is no longer kept; the audit log has its decision";
}

void Rebalancer::save(const Proposal& proposal)
{
    // An approval is counted where it is decided: `approve` saves the outcome, or `approved` while a power command
    // runs.
    const auto [saved, first] = m_savedStates.try_emplace(proposal.id, proposal.state);
    if ((first || saved->second != proposal.state) && proposal.state != ProposalState::Approved)
        ++m_stats.entered[static_cast<std::size_t>(proposal.state)];
    saved->second = proposal.state;
    m_plane.persistProposal(rebalance::toStored(proposal));
}

void Rebalancer::noteQuota(const Action& a)
{
    if (a.type != Action::Type::SetCpuQuota && a.type != Action::Type::SetMemoryQuota
        && a.type != Action::Type::SetAcceleratorQuota)
        return;
    const QuotaChange q = quotaChange(a);
    const std::pair<std::string, std::string> key { a.target, q.resource() };
    const auto base = m_baseQuotas.find(key);
    if (q.amount > q.expect && base == m_baseQuotas.end())
        m_baseQuotas[key] = q.expect; // raised from its base
    else if (base != m_baseQuotas.end() && q.amount <= base->second)
        m_baseQuotas.erase(base); // back at (or below) its base
}

std::optional<forecast::Series> Rebalancer::readSeries(const store::SeriesKey& key, std::int64_t fromMs, std::int64_t toMs)
{
    store::Store* store = m_plane.store();
    if (!store)
        return std::nullopt;
    auto points = store->history(key, fromMs, toMs, store::Resolution::FiveMinutes);
    if (!points) {
        if (m_log)
            m_log("rebalance: cannot read the history of " + key.scope + " " + key.name + ": " + points.error().message);
        return std::nullopt;
    }
    if (points->empty())
        return std::nullopt;
    // On the 5-minute grid from the first stored bucket to the last closed one; missing buckets are gaps.
    const std::int64_t first = points->front().atMs;
    forecast::Series series;
    series.stepSeconds = static_cast<double>(kStepMs) / 1000.0;
    series.values.assign(static_cast<std::size_t>((toMs - first) / kStepMs), std::numeric_limits<double>::quiet_NaN());
    for (const store::HistoryPoint& p : *points)
        series.values[static_cast<std::size_t>((p.atMs - first) / kStepMs)] = p.mean;
    return series;
}

Rebalancer::Job Rebalancer::collect(std::int64_t nowMs, bool readHistory)
{
    Job job;
    rebalance::EvaluationInput& input = job.input;
    input.nowMs = nowMs;
    input.stateVersion = m_plane.stateVersion();
    const ClusterState& cluster = m_plane.cluster();

    // Each accelerator kind's unit, and how many of them one device holds: a GPU is 1000 milli-GPUs; an NPU's cores
    // and an FPGA's slots are what the cluster's devices of that kind report (the largest, for a whole-device request).
    job.unitsPerDevice.fill(0.0);
    job.unitsPerDevice[static_cast<std::size_t>(AcceleratorKind::Gpu)] = 1000.0;
    for (const LiveNode& live : m_plane.nodes())
        for (const Device& d : cluster.node(live.id).devices)
            if (d.kind != AcceleratorKind::Gpu) {
                double& units = job.unitsPerDevice[static_cast<std::size_t>(d.kind)];
                units = std::max(units, static_cast<double>(d.shareCapacity));
            }

    // One pass over the workloads: demand now by pool (as the history recorder counts it), the deferrable batch's
    // CPU, and kind by kind the accelerator share waiting for a place and the hot tier's accelerator demand.
    std::map<std::string, double> demand, memoryDemand;
    std::map<std::string, std::array<double, kTierMaskCount>> demandByTiers,
        memoryByTiers; // by the tiers it may run on
    std::map<std::string, std::array<double, kAcceleratorKindCount>> acceleratorDemand; // in each kind's units
    for (const auto& [id, w] : m_plane.workloads()) {
        if (w.phase != WorkloadPhase::Pending && w.phase != WorkloadPhase::Launching && w.phase != WorkloadPhase::Running)
            continue;
        const double cpu = static_cast<double>(w.workload.requests.cpuMillis);
        const double memory = static_cast<double>(w.workload.requests.memoryMiB);
        const std::string& pool = w.poolName.empty() ? std::string(kDefaultPool) : w.poolName;
        const TierMask tiers = filters::allowedTiers(w.workload, filters::poolTier(cluster, w.workload));
        demand[pool] += cpu;
        demandByTiers[pool][tiers] += cpu;
        memoryDemand[pool] += memory;
        memoryByTiers[pool][tiers] += memory;
        if (w.workload.deferrable)
            input.deferrableCpuMillis += cpu;
        const AcceleratorRequest& a = w.workload.accelerators;
        if (!a.any())
            continue;
        const auto kind = static_cast<std::size_t>(a.kind);
        const double share = a.wholeDevices() ? std::max(1.0, job.unitsPerDevice[kind]) * a.count
                                              : static_cast<double>(a.sharePerDevice);
        acceleratorDemand[pool][kind] += share;
        if (w.phase == WorkloadPhase::Pending)
            input.accelerators[kind].pending += share;
        if (w.workload.tier() == Tier::Hot)
            input.accelerators[kind].hotDemand += share;
    }

    job.endMs = nowMs / kStepMs * kStepMs;
    const std::int64_t start = job.endMs - static_cast<std::int64_t>(m_config.historyDays * kStepsPerDay) * kStepMs;
    for (const Pool& pool : cluster.pools()) {
        if (pool.removed)
            continue;
        rebalance::PoolOutlook outlook;
        outlook.name = pool.name;
        outlook.cpuQuotaMillis = pool.quota.cpuMillis;
        outlook.cpuDemandMillis = demand[pool.name];
        outlook.cpuDemandByTiers = demandByTiers[pool.name];
        outlook.memoryDemandMiB = memoryDemand[pool.name];
        outlook.memoryDemandByTiers = memoryByTiers[pool.name];
        if (const auto base = m_baseQuotas.find({ pool.name, "cpu" }); base != m_baseQuotas.end())
            outlook.baseCpuMillis = base->second;
        outlook.memoryQuotaMiB = pool.quota.memoryMiB;
        if (const auto base = m_baseQuotas.find({ pool.name, "memory" }); base != m_baseQuotas.end())
            outlook.baseMemoryMiB = base->second;
        for (std::size_t k = 1; k < kAcceleratorKindCount; ++k) {
            rebalance::QuotaOutlook& a = outlook.accelerators[k];
            a.quota = pool.acceleratorQuota[k];
            a.demand = acceleratorDemand[pool.name][k];
            const std::string kind(toString(static_cast<AcceleratorKind>(k)));
            if (const auto base = m_baseQuotas.find({ pool.name, kind }); base != m_baseQuotas.end())
                a.base = base->second;
        }
        job.history.push_back(readHistory ? readSeries({ "pool", pool.name, "cpu" }, start, job.endMs) : std::nullopt);
        input.pools.push_back(std::move(outlook));
    }
    for (const rebalance::PoolOutlook& pool : input.pools) // the pools' memory, in the same order
        job.history.push_back(
            readHistory ? readSeries({ "pool", pool.name, "memory" }, start, job.endMs) : std::nullopt);
    // Carbon: the intensity series the operator gave, the deferrable batch about, the hold in force.
    input.carbon = m_config.carbon;
    input.carbonHoldUntilMs = m_plane.carbonHoldUntilMs();
    // The hot tier's accelerator demand, kind by kind: the last series of the job. GPUs always (lending plans on
    // them), another kind where the cluster has devices of it.
    for (std::size_t k = 1; k < job.unitsPerDevice.size(); ++k) {
        const auto kind = static_cast<AcceleratorKind>(k);
        if (kind != AcceleratorKind::Gpu && job.unitsPerDevice[k] <= 0)
            continue;
        job.hotKinds.push_back(kind);
        job.history.push_back(
            readHistory ? readSeries({ "tier", "hot", std::string(toString(kind)) }, start, job.endMs) : std::nullopt);
    }
    // Each pool's accelerators of a kind it holds a quota of (neither unlimited nor 0: those are never shifted), the
    // last series of the job.
    for (std::size_t i = 0; i < input.pools.size(); ++i)
        for (std::size_t k = 1; k < kAcceleratorKindCount; ++k) {
            const std::int64_t quota = input.pools[i].accelerators[k].quota;
            if (quota <= 0 || quota >= kUnlimited)
                continue;
            const auto kind = static_cast<AcceleratorKind>(k);
            job.poolAccelerators.emplace_back(i, kind);
            job.history.push_back(readHistory
                    ? readSeries({ "pool", input.pools[i].name, std::string(toString(kind)) }, start, job.endMs)
                    : std::nullopt);
        }

    // Power-downs applied in the last day, by node (`maxPowerDownsPerNodePerDay`).
    std::map<std::string, std::size_t> powerDowns;
    for (const auto& [id, p] : m_proposals)
        if (p.kind == ProposalKind::PowerDown && p.state == rebalance::ProposalState::Applied
            && p.decidedMs > nowMs - 24 * 3'600'000 && !p.plan.empty())
            ++powerDowns[p.plan.front().target];
    for (const LiveNode& live : m_plane.nodes()) {
        const Node& node = cluster.node(live.id);
        rebalance::NodeOutlook outlook;
        outlook.name = node.name;
        outlook.tier = std::string(toString(node.tier));
        outlook.ready = live.state == NodeState::Ready;
        outlook.booting = live.state == NodeState::Booting;
        if (const auto it = powerDowns.find(node.name); it != powerDowns.end())
            outlook.powerDownsToday = it->second;
        outlook.cordon = live.cordon;
        outlook.cpuMillis = node.capacity.cpuMillis;
        outlook.memoryMiB = node.capacity.memoryMiB;
        outlook.residents = node.residents.size();
        outlook.accelerators = node.devices.size();
        outlook.peakReserved = node.peakReserved;
        outlook.acceleratorKind = node.acceleratorKind();
        for (const Device& d : node.devices)
            if (d.kind == outlook.acceleratorKind)
                outlook.acceleratorShare += d.kind == AcceleratorKind::Gpu ? 1000.0 : static_cast<double>(d.shareCapacity);
        for (const WorkloadId resident : node.residents)
            if (const LiveWorkload* w = m_plane.workload(resident); w && w->workload.tier() == Tier::Cold)
                ++outlook.batchResidents;
        // Idle time counts in service only: a node powered back up must be idle a full period again before it goes.
        if (outlook.residents == 0 && outlook.ready && outlook.cordon.empty())
            outlook.idleSinceMs = m_idleSince.try_emplace(node.name, nowMs).first->second;
        else
            m_idleSince.erase(node.name);
        input.nodes.push_back(std::move(outlook));
    }
    return job;
}

void Rebalancer::forecastAll(Job& job) const
{
    const std::size_t horizon = std::max(m_config.lookaheadSteps, m_config.forecastSteps);
    job.forecasts.assign(job.history.size(), std::nullopt);
    for (std::size_t i = 0; i < job.history.size(); ++i) {
        const auto& series = job.history[i];
        if (!series || !m_model->unavailableReason(*series).empty()
            || static_cast<std::size_t>(std::count_if(
                   series->values.begin(), series->values.end(), [](double v) { return !forecast::isGap(v); }))
                < m_config.minHistorySteps)
            continue;
        if (auto f = m_model->forecast(*series, horizon); f && f->size() >= m_config.lookaheadSteps)
            job.forecasts[i] = std::move(*f);
    }
}

void Rebalancer::applyForecasts(Job& job, bool store)
{
    const std::size_t pools = job.input.pools.size();
    const std::size_t hotEnd = 2 * pools + job.hotKinds.size();
    for (std::size_t i = 0; i < job.forecasts.size(); ++i) {
        const auto& f = job.forecasts[i];
        // Which series: a pool's CPU, a pool's memory, the hot tier's accelerators of one kind, or a pool's
        // accelerators of one kind (`Job::history`).
        const bool poolAccelerators = i >= hotEnd;
        const bool hotTier = !poolAccelerators && i >= 2 * pools;
        const bool memory = !hotTier && !poolAccelerators && i >= pools;
        rebalance::PoolOutlook* pool = hotTier ? nullptr
            : poolAccelerators                 ? &job.input.pools[job.poolAccelerators[i - hotEnd].first]
                                               : &job.input.pools[memory ? i - pools : i];
        const AcceleratorKind kind = hotTier ? job.hotKinds[i - 2 * pools]
            : poolAccelerators               ? job.poolAccelerators[i - hotEnd].second
                                             : AcceleratorKind::None;
        const std::string resource = poolAccelerators ? std::string(toString(kind)) : memory ? "memory" : "cpu";
        const std::string peakKey = hotTier ? hotPeakKey(kind)
            : poolAccelerators              ? "pool-" + resource + ":" + pool->name
                                            : (memory ? "pool-memory:" : "pool:") + pool->name;
        const std::string recentKey = "recent:" + peakKey;
        if (!f && poolAccelerators)
            continue; // no forecast, no quota proposal; power planning goes by the hot tier's accelerators
        if (!f) {
            // Too little history for a forecast: the highest 5-minute mean of the last day stands in for power
            // planning.
            const auto& history = job.history[i];
            double recent = 0.0;
            if (history)
                for (std::size_t t = history->size() - std::min<std::size_t>(history->size(), kStepsPerDay);
                     t < history->size(); ++t)
                    if (!forecast::isGap(history->values[t]))
                        recent = std::max(recent, history->values[t]);
            if (recent > 0.0 && hotTier) {
                recent
                    *= job.unitsPerDevice[static_cast<std::size_t>(kind)] / 1000.0; // milli-devices to the kind's units
                job.input.accelerator(kind).hotRecentPeak = recent;
            } else if (recent > 0.0)
                (memory ? pool->memoryRecentPeakMiB : pool->cpuRecentPeakMillis) = recent;
            if (recent > 0.0)
                m_lastPeaks[recentKey] = { recent, job.endMs };
            else
                m_lastPeaks.erase(recentKey);
            continue;
        }
        m_lastPeaks.erase(recentKey);
        // The p90 peak over the lookahead, and when.
        double peak = -1.0;
        std::int64_t peakAt = 0;
        for (std::size_t h = 0; h < m_config.lookaheadSteps; ++h)
            if (std::isfinite(f->p90[h]) && f->p90[h] > peak) {
                peak = f->p90[h];
                peakAt = job.endMs + static_cast<std::int64_t>(h) * kStepMs;
            }
        // And over the drain window after it (hot nodes only): the peak a node starts draining for.
        double drainPeak = peak;
        std::int64_t drainPeakAt = peakAt;
        for (std::size_t h = m_config.lookaheadSteps;
             h < m_config.lookaheadSteps + m_config.drainSteps && h < f->size(); ++h)
            if (std::isfinite(f->p90[h]) && f->p90[h] > drainPeak) {
                drainPeak = f->p90[h];
                drainPeakAt = job.endMs + static_cast<std::int64_t>(h) * kStepMs;
            }
        if (peak >= 0.0) {
            if (hotTier) {
                // The history is in milli-devices (history_recorder.h); the evaluation counts in the kind's units.
                peak *= job.unitsPerDevice[static_cast<std::size_t>(kind)] / 1000.0;
                drainPeak *= job.unitsPerDevice[static_cast<std::size_t>(kind)] / 1000.0;
                job.input.accelerator(kind).hotPeak = peak;
                job.input.accelerator(kind).hotPeakAtMs = peakAt;
                job.input.accelerator(kind).drainPeak = drainPeak;
                job.input.accelerator(kind).drainPeakAtMs = drainPeakAt;
                m_lastPeaks[peakKey + ":drain"] = { drainPeak, drainPeakAt };
            } else if (poolAccelerators) {
                // Milli-devices too; a pool's quota counts in the kind's share units.
                peak *= job.unitsPerDevice[static_cast<std::size_t>(kind)] / 1000.0;
                pool->accelerators[static_cast<std::size_t>(kind)].peak = peak;
                pool->accelerators[static_cast<std::size_t>(kind)].peakAtMs = peakAt;
            } else if (memory) {
                pool->memoryPeakMiB = peak;
                pool->memoryPeakAtMs = peakAt;
            } else {
                pool->cpuPeakMillis = peak;
                pool->peakAtMs = peakAt;
            }
            m_lastPeaks[peakKey] = { peak, peakAt };
        }
        if (!store)
            continue;
        nlohmann::json points = nlohmann::json::array();
        for (std::size_t h = 0; h < f->size(); ++h)
            points.push_back({ f->mean[h], f->p10[h], f->p90[h] });
        const store::SeriesKey key = hotTier ? store::SeriesKey { "tier", "hot", std::string(toString(kind)) }
                                             : store::SeriesKey { "pool", pool->name, resource };
        m_plane.persistForecast(store::StoredForecast { key, job.endMs, m_model->name(), kStepMs, std::move(points) });
    }
}

std::vector<std::int64_t> Rebalancer::finish(Job& job)
{
    applyForecasts(job, true);
    ++m_stats.evaluations;
    m_stats.lastEvaluationMs = m_plane.nowMs();
    m_stats.lastEvaluationSeconds
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - job.started).count();
    return decide(job.input);
}

rebalance::EvaluationInput Rebalancer::snapshot(std::int64_t nowMs)
{
    // The state as it is now, with the peaks the latest evaluation forecast: a re-plan must not stall the core's
    // thread for the forecasts (tens of milliseconds per pool).
    Job job = collect(nowMs, false);
    for (rebalance::PoolOutlook& pool : job.input.pools) {
        if (const auto it = m_lastPeaks.find("pool:" + pool.name); it != m_lastPeaks.end())
            std::tie(pool.cpuPeakMillis, pool.peakAtMs) = std::pair { std::optional<double>(it->second.first), it->second.second };
        if (const auto it = m_lastPeaks.find("recent:pool:" + pool.name); it != m_lastPeaks.end())
            pool.cpuRecentPeakMillis = it->second.first;
        if (const auto it = m_lastPeaks.find("pool-memory:" + pool.name); it != m_lastPeaks.end())
            std::tie(pool.memoryPeakMiB, pool.memoryPeakAtMs)
                = std::pair { std::optional<double>(it->second.first), it->second.second };
        if (const auto it = m_lastPeaks.find("recent:pool-memory:" + pool.name); it != m_lastPeaks.end())
            pool.memoryRecentPeakMiB = it->second.first;
    }
    for (const auto& [index, kind] : job.poolAccelerators) {
        rebalance::PoolOutlook& pool = job.input.pools[index];
        if (const auto it = m_lastPeaks.find("pool-" + std::string(toString(kind)) + ":" + pool.name);
            it != m_lastPeaks.end())
            std::tie(pool.accelerators[static_cast<std::size_t>(kind)].peak,
                pool.accelerators[static_cast<std::size_t>(kind)].peakAtMs)
                = std::pair { std::optional<double>(it->second.first), it->second.second };
    }
    for (const AcceleratorKind kind : job.hotKinds) {
        if (const auto it = m_lastPeaks.find("recent:" + hotPeakKey(kind)); it != m_lastPeaks.end())
            job.input.accelerator(kind).hotRecentPeak = it->second.first;
        if (const auto it = m_lastPeaks.find(hotPeakKey(kind)); it != m_lastPeaks.end()) {
            job.input.accelerator(kind).hotPeak = it->second.first;
            job.input.accelerator(kind).hotPeakAtMs = it->second.second;
            if (const auto drain = m_lastPeaks.find(hotPeakKey(kind) + ":drain"); drain != m_lastPeaks.end())
                std::tie(job.input.accelerator(kind).drainPeak, job.input.accelerator(kind).drainPeakAtMs)
                    = std::pair { std::optional<double>(drain->second.first), drain->second.second };
        }
    }
    return job.input;
}

void Rebalancer::evaluate(std::int64_t nowMs, std::function<void(std::vector<std::int64_t>)> done)
{
    if (m_evaluating) {
        done({}); // the one in flight will report what it finds
        return;
    }
    m_evaluating = true;
    auto job = std::make_shared<Job>(collect(nowMs));
    boost::asio::post(m_worker, [this, job, done = std::move(done), alive = std::weak_ptr<int>(m_alive)]() mutable {
        forecastAll(*job);
        boost::asio::post(m_io, [this, job, done = std::move(done), alive]() mutable {
            if (!alive.lock())
                return;
            m_evaluating = false;
            done(finish(*job));
        });
    });
}

std::vector<std::int64_t> Rebalancer::evaluateNow(std::int64_t nowMs)
{
    Job job = collect(nowMs);
    forecastAll(job);
    return finish(job);
}

std::int64_t Rebalancer::add(Proposal proposal)
{
    proposal.id = m_nextId++;
    save(proposal);
    const std::int64_t id = proposal.id;
    if (m_log)
        m_log("rebalance: proposal " + std::to_string(id) + " (" + std::string(toString(proposal.kind)) + ", "
            + std::string(toString(proposal.risk)) + " risk): " + proposal.reason);
    m_proposals.emplace(id, std::move(proposal));
    return id;
}

namespace {

// Keeps the first of `plan`'s migrations of each pool that its disruption budget has room for now, and drops the rest;
// how many it dropped.
std::size_t fitToDisruptionBudgets(std::vector<Action>& plan, const ControlPlane& plane)
{
    std::map<PoolId, std::int64_t> taken;
    const auto before = plan.size();
    std::erase_if(plan, [&](const Action& a) {
        if (a.type != Action::Type::Migrate)
            return false;
        const LiveWorkload* w = plane.workload(a.workload);
        if (!w)
            return false; // the approval's staleness check says so
        std::int64_t& n = taken[w->workload.pool];
        if (!plane.disruptionBudgetRefusal(w->workload.pool, n + 1).empty())
            return true;
        ++n;
        return false;
    });
    return before - plan.size();
}

} // namespace

std::vector<Proposal> Rebalancer::plan(const rebalance::EvaluationInput& input) const
{
    std::vector<Proposal> proposals = rebalance::evaluate(input, m_config.evaluator);
    // Consolidation works on the cluster itself: batch holding a share of one GPU may move (and restart).
    // Only work whose pool's disruption budget has room for one more move.
    const auto budgetRoom = [this](const Workload& w) { return m_plane.disruptionBudgetRefusal(w.pool).empty(); };
    const auto movable = [this, &budgetRoom](const Workload& w) {
        const LiveWorkload* live = m_plane.workload(w.id);
        return live && live->phase == WorkloadPhase::Running && w.tier() == Tier::Cold
            && w.accelerators.kind == AcceleratorKind::Gpu && w.accelerators.any() && !w.accelerators.wholeDevices()
            && budgetRoom(w);
    };
    const rebalance::ConsolidationPlan consolidation
        = rebalance::planConsolidation(m_plane.cluster(), m_plane.registry(), movable, m_config.maxConsolidationMoves,
            m_config.consolidateWithinNodes);
    // Only for work that waits for whole GPUs: every move restarts a batch workload, so freeing GPUs nobody waits
    // for would cost work and gain nothing.
    std::size_t wantedWhole = 0;
    for (const auto& [id, w] : m_plane.workloads())
        if (w.phase == WorkloadPhase::Pending && w.workload.accelerators.kind == AcceleratorKind::Gpu
            && w.workload.accelerators.wholeDevices())
            wantedWhole += static_cast<std::size_t>(w.workload.accelerators.count);
    // Its moves free GPUs together: one its pools' budgets cannot take whole is not proposed now.
    std::vector<Action> consolidationMoves = consolidation.moves;
    const bool withinBudgets = fitToDisruptionBudgets(consolidationMoves, m_plane) == 0;
    if (!withinBudgets && m_log)
        m_log("rebalance: a consolidation freeing " + std::to_string(consolidation.gpusFreed)
            + " GPUs waits: its moves exceed a pool's disruption budget");
    if (wantedWhole > 0 && consolidation.gpusFreed >= m_config.minGpusFreed && withinBudgets) {
        Proposal p = rebalance::newProposal(ProposalKind::Consolidate, "consolidate:gpu", input, m_config.evaluator);
        p.plan = consolidation.moves;
        rebalance::explain(p,
            { rebalance::clause("gpus-fragmented", { consolidation.moves.size(), consolidation.gpusFreed }),
                rebalance::clause("whole-gpus-wanted", { wantedWhole }), rebalance::clause("moved-restart") });
        p.effect.gpusFreed = static_cast<double>(consolidation.gpusFreed);
        rebalance::explainRisk(p.effect, { rebalance::clause("risk-batch-moves") });
        p.risk = rebalance::Risk::Medium;
        proposals.push_back(std::move(p));
    }
    // Hot spots: nodes whose agents report their CPU at or above the threshold shed CPU-only batch to cool nodes.
    std::map<NodeId, double> measured;
    for (const LiveNode& live : m_plane.nodes())
        if (live.state == NodeState::Ready && live.heartbeats > 0)
            measured[live.id] = live.cpuUtilisation;
    const auto cpuBatch = [this, &budgetRoom](const Workload& w) {
        const LiveWorkload* live = m_plane.workload(w.id);
        return live && live->phase == WorkloadPhase::Running && w.tier() == Tier::Cold && !w.accelerators.any()
            && budgetRoom(w);
    };
    rebalance::HotSpotPlan hotSpots
        = rebalance::planHotSpotMoves(m_plane.cluster(), m_plane.registry(), measured, cpuBatch, m_config.hotSpots);
    // Each move cools its node on its own: as many as the pools' budgets take now, the rest at a later evaluation.
    (void)fitToDisruptionBudgets(hotSpots.moves, m_plane);
    if (!hotSpots.moves.empty()) {
        Proposal p = rebalance::newProposal(ProposalKind::Migrate, "hotspots", input, m_config.evaluator);
        p.plan = hotSpots.moves;
        std::string nodes;
        for (const std::string& n : hotSpots.hotNodes)
            nodes += (nodes.empty() ? "" : ", ") + n;
        rebalance::explain(p,
            { rebalance::clause(hotSpots.hotNodes.size() > 1 ? "hot-spots" : "hot-spot",
                  { nodes, static_cast<int>(m_config.hotSpots.hotAbove * 100) }),
                rebalance::clause("hot-spot-moves", { hotSpots.moves.size() }) });
        rebalance::explainRisk(p.effect, { rebalance::clause("risk-hot-spots") });
        p.risk = rebalance::Risk::Medium;
        proposals.push_back(std::move(p));
    }
    // Work a pool's new tier left behind: its running CPU-only workloads on other tiers' nodes move to its tier.
    const auto running = [this, &budgetRoom](const Workload& w) {
        const LiveWorkload* live = m_plane.workload(w.id);
        return live && live->phase == WorkloadPhase::Running && !w.accelerators.any() && budgetRoom(w);
    };
    for (const Pool& pool : m_plane.cluster().pools()) {
        if (pool.tier == Tier::Invalid || pool.removed)
            continue;
        rebalance::TierMovePlan tierMoves
            = rebalance::planTierMoves(m_plane.cluster(), m_plane.registry(), pool.id, running, m_config.maxTierMoves);
        (void)fitToDisruptionBudgets(tierMoves.moves, m_plane);
        if (tierMoves.moves.empty())
            continue;
        Proposal p = rebalance::newProposal(ProposalKind::Migrate, "tier:" + pool.name, input, m_config.evaluator);
        p.plan = tierMoves.moves;
        const nlohmann::json tier = rebalance::termArg(toString(pool.tier));
        rebalance::explain(p,
            { rebalance::clause("off-tier", { pool.name, tier, tierMoves.offTier }),
                rebalance::clause("off-tier-moves", { tierMoves.moves.size() }), rebalance::clause("moved-restart") });
        rebalance::explainRisk(p.effect, { rebalance::clause("risk-off-tier") });
        p.risk = rebalance::Risk::Medium;
        proposals.push_back(std::move(p));
    }
    planRightSizing(input, proposals);
    return proposals;
}

void Rebalancer::planRightSizing(const rebalance::EvaluationInput& input, std::vector<Proposal>& proposals) const
{
    if (m_config.rightSize.observeFor.count() <= 0)
        return;
    // Running workloads measured on their own node, this launch (`MeasuredWorkloadUse`), that ask for CPU or memory.
    std::vector<rebalance::WorkloadUse> use;
    for (const auto& [id, w] : m_plane.workloads()) {
        if (w.phase != WorkloadPhase::Running || w.node == kNoNode || w.measured.atMs == 0 || w.measured.sinceMs == 0
            || !w.rightSize)
            continue;
        // Resized in place by its agent: one from before resizing would refuse it (it could only restart).
        if (!protocol::hasFeature(
                m_plane.nodes()[static_cast<std::size_t>(w.node)].agentFeatures, protocol::kFeatureResize))
            continue;
        const Resources& asks = w.workload.requests;
        use.push_back(rebalance::WorkloadUse { id, w.workload.name, w.poolName, m_plane.cluster().node(w.node).name,
            asks.cpuMillis, asks.memoryMiB, w.cpuLimitMillis, w.memoryLimitMiB, w.measured.atMs - w.measured.sinceMs,
            w.measured.peakCpuMillis, w.measured.peakMemoryMiB,
            w.cpuHistogram.empty() ? -1 : w.cpuHistogram.percentile(m_config.rightSize.cpuPercentile) });
    }
    // What raises may take now: each node's free room, and what each pool's quotas leave.
    rebalance::RightSizeRoom room;
    for (const Node& n : m_plane.cluster().nodes())
        room.nodes[n.name] = { n.free.cpuMillis, n.free.memoryMiB };
    for (const Pool& p : m_plane.cluster().pools()) {
        const auto left = [](std::int64_t quota, std::int64_t used) {
            return quota >= kUnlimited ? std::numeric_limits<std::int64_t>::max() / 2 : quota - used;
        };
        room.pools[p.name] = { left(p.quota.cpuMillis, p.used.cpuMillis), left(p.quota.memoryMiB, p.used.memoryMiB) };
    }
    const rebalance::RightSizeConfig& config = m_config.rightSize;
    for (const rebalance::RightSizePlan& plan : rebalance::planRightSizing(use, config, &room)) {
        const std::string& pool = plan.pool;
        Proposal p = rebalance::newProposal(
            ProposalKind::Resize, (plan.raises ? "resize-up:" : "resize:") + pool, input, m_config.evaluator);
        p.plan = plan.resizes;
        const auto cpu = [](std::int64_t millis) { return rebalance::amountArg(static_cast<double>(millis), "cpu"); };
        const auto memory = [](std::int64_t mib) { return rebalance::amountArg(static_cast<double>(mib), "memory"); };
        rebalance::Why why { rebalance::clause("resize-used",
                                 { plan.resizes.size(), pool, cpu(plan.usedCpu),
                                     static_cast<int>(std::lround(config.cpuPercentile * 100.0)),
                                     memory(plan.peakMemory), config.observeFor.count() / 3'600'000,
                                     cpu(plan.cpuBefore), memory(plan.memoryBefore) }),
            rebalance::clause("resize-to-target",
                { cpu(plan.cpuAfter), memory(plan.memoryAfter),
                    static_cast<int>(std::lround((config.margin - 1.0) * 100.0)) }) };
        if (plan.raises)
            why.push_back(rebalance::clause("resize-raised", { plan.resizes.size() }));
        if (plan.noRoom > 0)
            why.push_back(rebalance::clause("resize-no-room", { plan.noRoom }));
        why.push_back(rebalance::clause("resize-in-place"));
        rebalance::explain(p, std::move(why));
        // Of the CPU they ask for, how much they use (each its percentile): before and after.
        const auto share = [](std::int64_t used, std::int64_t asked) {
            return asked > 0 ? std::min(1.0, static_cast<double>(used) / static_cast<double>(asked)) : 0.0;
        };
        p.effect.utilisationBefore = share(plan.usedCpu, plan.cpuBefore);
        p.effect.utilisationAfter = share(plan.usedCpu, plan.cpuAfter);
        // A raise only reserves what is used already: a rule may apply it at once (`autoApprove`).
        rebalance::explainRisk(
            p.effect, { rebalance::clause(plan.raises ? "risk-resize-raise" : "risk-resize-lower") });
        p.risk = plan.raises ? rebalance::Risk::Low : rebalance::Risk::Medium;
        proposals.push_back(std::move(p));
    }
}

std::vector<std::int64_t> Rebalancer::decide(const rebalance::EvaluationInput& input)
{
    const std::int64_t nowMs = input.nowMs;
    std::vector<Proposal> fresh = plan(input);
    std::map<std::string, Proposal*> pendingByKey;
    std::set<std::string> inFlight; // approved, their power command still running: nothing new about them yet
    std::map<std::string, const Proposal*> rejectedByKey; // the latest rejection of each subject within the hold
    for (auto& [id, p] : m_proposals) {
        if (p.open())
            pendingByKey[p.key] = &p;
        else if (p.state == ProposalState::Approved)
            inFlight.insert(p.key);
        else if (p.state == ProposalState::Rejected && nowMs - p.decidedMs < m_config.rejectionHold.count())
            rejectedByKey[p.key] = &p; // ids grow with time: the last one seen is the latest
    }
    const rebalance::QuotaSteps tolerance { m_config.evaluator.quotaStepMillis, m_config.evaluator.quotaStepMiB,
        m_config.evaluator.acceleratorQuotaStep };
    std::erase_if(fresh, [&](const Proposal& p) {
        if (inFlight.count(p.key) > 0)
            return true;
        // What an operator rejected a while ago, planned the same again: not proposed until the hold has passed.
        const auto rejected = rejectedByKey.find(p.key);
        return rejected != rejectedByKey.end() && !pendingByKey.count(p.key)
            && rebalance::equivalentPlans(rejected->second->plan, p.plan, tolerance);
    });

    std::vector<std::int64_t> created;
    std::set<std::string> proposedKeys;
    for (Proposal& p : fresh) {
        proposedKeys.insert(p.key);
        const auto existing = pendingByKey.find(p.key);
        if (existing != pendingByKey.end()) {
            Proposal& old = *existing->second;
            if (nowMs <= old.expiresMs && rebalance::equivalentPlans(old.plan, p.plan, tolerance)) {
                // Still the same advice (to within a quota step): it stays, valid for another round, so that an
                // operator is not chasing a target that moves by a step every evaluation. Its reasoning is renewed
                // only when the plan is the very same; otherwise it keeps the reasoning that goes with its plan.
                old.expiresMs = p.expiresMs;
                if (old.plan == p.plan) {
                    old.reason = p.reason;
                    old.why = p.why;
                    old.effect = p.effect;
                    old.stateVersion = p.stateVersion;
                }
                save(old);
                continue;
            }
            old.state = ProposalState::Expired;
            old.detail = "superseded by proposal " + std::to_string(m_nextId);
            save(old);
        }
        created.push_back(add(std::move(p)));
    }
    for (auto& [id, p] : m_proposals) {
        if (!p.open() || std::find(created.begin(), created.end(), id) != created.end())
            continue;
        if (nowMs > p.expiresMs)
            p.detail = "not decided before it expired";
        else if (!proposedKeys.count(p.key))
            p.detail = "the latest evaluation no longer proposes it";
        else
            continue;
        p.state = ProposalState::Expired;
        save(p);
    }
    // Closed proposals past the retention leave memory (the store's maintenance deletes them on its own schedule).
    if (m_config.keepClosedProposals > std::chrono::milliseconds::zero()) {
        const std::int64_t cutoff = nowMs - m_config.keepClosedProposals.count();
        std::erase_if(m_proposals, [this, cutoff](const auto& entry) {
            const Proposal& p = entry.second;
            const bool forget = p.closed() && p.createdMs < cutoff && p.decidedMs < cutoff;
            if (forget)
                m_savedStates.erase(p.id);
            return forget;
        });
    }
    // Rules: low-risk proposals of the configured kinds are applied without waiting for an operator.
    for (const std::int64_t id : created) {
        const Proposal& p = m_proposals.at(id);
        if (p.risk == rebalance::Risk::Low
            && std::find(m_config.autoApprove.begin(), m_config.autoApprove.end(), p.kind) != m_config.autoApprove.end()) {
            const std::string actor = "rule:auto-approve-low-risk-" + std::string(toString(p.kind));
            const auto approved = approve(id, actor, nowMs);
            m_plane.audit(store::AuditEntry { 0, nowMs, actor, "", "proposal.approve", "proposal " + std::to_string(id),
                approved ? std::string(toString((*approved)->state)) : approved.error().message, nlohmann::json::object(),
                "", "completed", "" });
        }
    }
    return created;
}

std::string Rebalancer::staleness(const Proposal& proposal) const
{
    for (const Action& a : proposal.plan) {
        switch (a.type) {
        case Action::Type::SetCpuQuota:
        case Action::Type::TakeCpuQuota:
        case Action::Type::GiveCpuQuota:
        case Action::Type::SetMemoryQuota:
        case Action::Type::TakeMemoryQuota:
        case Action::Type::GiveMemoryQuota:
        case Action::Type::SetAcceleratorQuota:
        case Action::Type::TakeAcceleratorQuota:
        case Action::Type::GiveAcceleratorQuota:
            if (std::string why = quotaStaleness(m_plane, a); !why.empty())
                return why;
            break;
        case Action::Type::HoldDeferrable:
            if (m_plane.carbonHoldUntilMs() > m_plane.nowMs())
                return "deferrable batch is already held until " + std::to_string(m_plane.carbonHoldUntilMs());
            break;
        case Action::Type::Cordon: {
            const LiveNode* node = m_plane.nodeByName(a.target);
            if (!node)
                return "node " + a.target + " no longer exists";
            if (node->state != NodeState::Ready || !node->cordon.empty())
                return "node " + a.target + " is no longer ready and in service";
            if (!m_plane.cluster().node(node->id).residents.empty())
                return "node " + a.target + " runs workloads again";
            break;
        }
        case Action::Type::Uncordon: {
            const LiveNode* node = m_plane.nodeByName(a.target);
            if (!node)
                return "node " + a.target + " no longer exists";
            if (node->cordon.rfind(rebalance::kPowerDownCordon, 0) != 0)
                return "node " + a.target + " is no longer powered down";
            break;
        }
        case Action::Type::Reserve:
        case Action::Type::Drain:
        case Action::Type::Release: {
            const LiveNode* node = m_plane.nodeByName(a.target);
            if (!node)
                return "node " + a.target + " no longer exists";
            const bool reserved = m_plane.cluster().node(node->id).peakReserved;
            if (reserved == (a.type != Action::Type::Release))
                return "node " + a.target + (reserved ? " is reserved already" : " is lent already");
            break;
        }
        case Action::Type::Evict: {
            const LiveNode* node = m_plane.nodeByName(a.target);
            if (!node)
                return "node " + a.target + " no longer exists";
            if (!m_plane.cluster().node(node->id).peakReserved)
                return "node " + a.target + " is lent to batch again";
            break;
        }
        case Action::Type::Migrate: {
            const LiveWorkload* w = m_plane.workload(a.workload);
            const LiveNode* from = m_plane.nodeByName(a.from);
            const LiveNode* to = m_plane.nodeByName(a.target);
            if (!w || !from || !to)
                return "workload " + std::to_string(a.workload) + " or node " + a.from + " or " + a.target + " no longer exists";
            const bool holds = a.fromDevice < 0
                ? w->devices.empty()
                : w->devices.size() == 1 && w->devices[0].device == a.fromDevice && w->devices[0].share == a.share;
            if (w->node != from->id || !holds)
                return "workload " + std::to_string(a.workload) + " no longer runs where it was planned on " + a.from;
            const Node& target = m_plane.cluster().node(to->id);
            if (!target.schedulable)
                return "node " + a.target + " no longer takes work";
            if (a.fromDevice >= 0
                && (static_cast<std::size_t>(a.device) >= target.devices.size()
                    || target.devices[static_cast<std::size_t>(a.device)].shareFree < a.share))
                return "GPU " + std::to_string(a.device) + " of " + a.target + " no longer has room";
            break;
        }
        case Action::Type::Resize: {
            const LiveWorkload* w = m_plane.workload(a.workload);
            const LiveNode* on = m_plane.nodeByName(a.target);
            if (!w || !on || w->node != on->id || w->phase != WorkloadPhase::Running)
                return "workload " + std::to_string(a.workload) + " no longer runs on " + a.target;
            const Resources& asks = w->workload.requests;
            if (asks.cpuMillis != a.expectCpuMillis || asks.memoryMiB != a.expectMemoryMiB)
                return "workload " + std::to_string(a.workload) + " asks for " + std::to_string(asks.cpuMillis)
                    + "m CPU and " + std::to_string(asks.memoryMiB) + " MiB, not the "
                    + std::to_string(a.expectCpuMillis) + "m and " + std::to_string(a.expectMemoryMiB)
                    + " MiB it was planned on";
            break;
        }
        case Action::Type::Invalid:
            return "the plan holds an unknown action";
        }
    }
    // Its migrations, pool by pool, against what the pools' disruption budgets have room for now (a drain's moves or
    // an earlier proposal's may have taken it, or an operator lowered it).
    std::map<PoolId, std::int64_t> moves;
    for (const Action& a : proposal.plan)
        if (a.type == Action::Type::Migrate)
            if (const LiveWorkload* w = m_plane.workload(a.workload))
                ++moves[w->workload.pool];
    for (const auto& [pool, n] : moves)
        if (std::string held = m_plane.disruptionBudgetRefusal(pool, n); !held.empty())
            return held;
    return {};
}

std::string Rebalancer::applyAction(const Action& a)
{
    switch (a.type) {
    case Action::Type::SetCpuQuota:
    case Action::Type::TakeCpuQuota:
    case Action::Type::GiveCpuQuota:
    case Action::Type::SetMemoryQuota:
    case Action::Type::TakeMemoryQuota:
    case Action::Type::GiveMemoryQuota:
    case Action::Type::SetAcceleratorQuota:
    case Action::Type::TakeAcceleratorQuota:
    case Action::Type::GiveAcceleratorQuota: {
        if (std::string failed = applyQuota(m_plane, a); !failed.empty())
            return failed;
        noteQuota(a);
        return {};
    }
    case Action::Type::Cordon:
    case Action::Type::Uncordon:
        if (auto done = m_plane.setCordon(a.target, a.type == Action::Type::Cordon ? a.reason : std::string()); !done)
            return done.error().message;
        return {};
    case Action::Type::Reserve:
    case Action::Type::Release:
    case Action::Type::Drain:
    case Action::Type::Evict:
        if (auto done = m_plane.setPeakReserved(
                a.target, a.type != Action::Type::Release, "rebalance proposal", a.type != Action::Type::Drain);
            !done)
            return done.error().message;
        return {};
    case Action::Type::HoldDeferrable:
        m_plane.setCarbonHold(a.untilMs, "a carbon proposal");
        return {};
    case Action::Type::Migrate:
        if (auto done = m_plane.migrate(a.workload, a.from, a.fromDevice, a.target, a.device); !done)
            return done.error().message;
        return {};
    case Action::Type::Resize: {
        ResizeRequest request;
        request.cpuMillis = a.cpuMillis;
        request.memoryMiB = a.memoryMiB;
        const std::string actor
            = m_applying > 0 ? kResizeProposalActor + std::to_string(m_applying) : std::string("a resize proposal");
        if (auto done = m_plane.resize(a.workload, request, actor); !done)
            return done.error().message;
        return {};
    }
    case Action::Type::Invalid:
        break;
    }
    return "unknown action";
}

void Rebalancer::rollBack(Proposal& proposal, const std::vector<const Action*>& done, const std::string& failedStep,
    const std::string& failure)
{
    // Undo what was done, newest first, and say exactly what could not be undone.
    std::string left;
    for (auto it = done.rbegin(); it != done.rend(); ++it) {
        const Action back = inverse(**it);
        if (back.type == Action::Type::Invalid) {
            proposal.steps.push_back({ { "step", "roll back: " + describe(**it) },
                { "outcome", "nothing to undo: the stopped batch waits in the queue" } });
            continue;
        }
        const std::string undoFailure = applyAction(back);
        proposal.steps.push_back({ { "step", "roll back: " + describe(back) },
            { "outcome", undoFailure.empty() ? "done" : "failed: " + undoFailure } });
        if (!undoFailure.empty())
            left += (left.empty() ? "" : "; ") + describe(**it) + " is still in effect (" + undoFailure + ")";
    }
    proposal.state = ProposalState::Failed;
    proposal.detail = "step \"" + failedStep + "\" failed: " + failure
        + (left.empty() ? "; every earlier step was rolled back" : "; " + left);
}

void Rebalancer::onResizeRefused(WorkloadId workload, const std::string& actor, const std::string& outcome)
{
    if (!actor.starts_with(kResizeProposalActor))
        return;
    std::int64_t id = 0;
    const std::string digits = actor.substr(std::string_view(kResizeProposalActor).size());
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    const auto it
        = ec == std::errc() && end == digits.data() + digits.size() ? m_proposals.find(id) : m_proposals.end();
    if (it == m_proposals.end())
        return;
    Proposal& p = it->second;
    const std::string name = "workload " + std::to_string(workload);
    p.steps.push_back({ { "step", "resize " + name + " in place" }, { "outcome", "refused afterwards: " + outcome } });
    p.detail += (p.detail.empty() ? "" : "; ") + name + "'s resize was " + outcome;
    save(p);
    if (m_log)
        m_log("rebalance: proposal " + std::to_string(p.id) + ": " + name + "'s resize was " + outcome);
}

void Rebalancer::apply(Proposal& proposal)
{
    m_applying = proposal.id;
    struct Done {
        std::int64_t& applying;
        ~Done() { applying = 0; }
    } applying { m_applying };
    std::vector<const Action*> done;
    for (const Action& a : proposal.plan) {
        const std::string failure = applyAction(a);
        proposal.steps.push_back({ { "step", describe(a) }, { "outcome", failure.empty() ? "done" : "failed: " + failure } });
        if (failure.empty()) {
            done.push_back(&a);
            continue;
        }
        rollBack(proposal, done, describe(a), failure);
        return;
    }
    proposal.state = ProposalState::Applied;
}

std::optional<std::string> Rebalancer::powerTarget(const Proposal& proposal) const
{
    if (m_config.powerCommand.empty())
        return std::nullopt;
    const auto wanted = proposal.kind == ProposalKind::PowerDown ? Action::Type::Cordon
        : proposal.kind == ProposalKind::PowerUp                 ? Action::Type::Uncordon
                                                                 : Action::Type::Invalid;
    for (const Action& a : proposal.plan)
        if (wanted != Action::Type::Invalid && a.type == wanted)
            return a.target;
    return std::nullopt;
}

namespace {

std::string describePower(const std::string& program, const std::string& verb, const std::string& node)
{
    return "power node " + node + " " + verb + " (" + program + " " + verb + " " + node + ")";
}

} // namespace

void Rebalancer::startPower(Proposal& proposal, const std::string& verb, const std::string& node)
{
    proposal.steps.push_back({ { "step", describePower(m_config.powerCommand, verb, node) }, { "outcome", "running" } });
    if (m_log)
        m_log("rebalance: proposal " + std::to_string(proposal.id) + ": running " + m_config.powerCommand + " " + verb + " "
            + node);
    // The command blocks its worker thread up to the timeout; the result comes back to the core's thread.
    boost::asio::post(m_powerWorker,
        [io = &m_io, argv = std::vector<std::string> { m_config.powerCommand, verb, node },
            timeout = m_config.powerCommandTimeout, finish = [this, id = proposal.id, verb, node,
                                                             alive = std::weak_ptr<int>(m_alive)](PowerCommandResult result) {
                if (alive.lock())
                    finishPower(id, verb, node, result);
            }]() mutable {
            PowerCommandResult result = runPowerCommand(argv, timeout);
            boost::asio::post(*io, [finish = std::move(finish), result = std::move(result)]() mutable { finish(std::move(result)); });
        });
}

void Rebalancer::finishPower(
    std::int64_t id, const std::string& verb, const std::string& node, const PowerCommandResult& result)
{
    const auto it = m_proposals.find(id);
    if (it == m_proposals.end() || it->second.state != ProposalState::Approved)
        return;
    Proposal& proposal = it->second;
    const std::string step = describePower(m_config.powerCommand, verb, node);
    const std::string failure = result.succeeded() ? std::string() : result.describe(m_config.powerCommandTimeout);
    for (auto s = proposal.steps.rbegin(); s != proposal.steps.rend(); ++s)
        if ((*s)["step"] == step && (*s)["outcome"] == "running") {
            (*s)["outcome"] = failure.empty() ? std::string("done") : "failed: " + failure;
            break;
        }
    if (verb == "on") {
        // Switched on: now the cordon goes (the node joins when its agent is back). Not switched on: nothing was done.
        if (failure.empty())
            apply(proposal);
        else
            rollBack(proposal, {}, step, failure);
    } else if (failure.empty()) {
        proposal.state = ProposalState::Applied;
    } else {
        // The node stays on: the plan's steps (its cordon) are undone, so that it takes work again.
        std::vector<const Action*> done;
        for (const Action& a : proposal.plan)
            done.push_back(&a);
        rollBack(proposal, done, step, failure);
    }
    save(proposal);
    if (m_log)
        m_log("rebalance: proposal " + std::to_string(id) + ": " + m_config.powerCommand + " " + verb + " " + node + " "
            + (failure.empty() ? "succeeded in " + std::to_string(result.took.count()) + " ms" : "failed: " + failure)
            + "; " + std::string(toString(proposal.state)));
}

ApiResult<Proposal*> Rebalancer::pendingProposal(std::int64_t id)
{
    const auto it = m_proposals.find(id);
    if (it == m_proposals.end())
        return tl::unexpected(ApiError { 404, whyNoProposal(id) });
    if (!it->second.open())
        return tl::unexpected(ApiError { 409,
            "proposal " + std::to_string(id) + " is " + std::string(toString(it->second.state)) + ", not pending" });
    return &it->second;
}

ApiResult<const Proposal*> Rebalancer::approve(std::int64_t id, const std::string& actor, std::int64_t nowMs)
{
    auto pending = pendingProposal(id);
    if (!pending)
        return tl::unexpected(pending.error());
    Proposal& p = **pending;
    if (nowMs > p.expiresMs) {
        p.state = ProposalState::Expired;
        p.detail = "not decided before it expired";
        save(p);
        return tl::unexpected(ApiError { 409, "proposal " + std::to_string(id) + " expired; the next evaluation plans afresh" });
    }
    if (const std::string stale = staleness(p); !stale.empty()) {
        // Planned on a state that no longer holds: plan again on the state as it is, and point at the result.
        p.state = ProposalState::Expired;
        std::string message = "proposal " + std::to_string(id) + " was planned on a state that changed (" + stale + ")";
        std::optional<std::int64_t> replanned;
        for (Proposal& fresh : plan(snapshot(nowMs)))
            if (fresh.key == p.key) {
                for (auto& [otherId, other] : m_proposals)
                    if (other.open() && other.key == p.key && otherId != id) {
                        other.state = ProposalState::Expired;
                        other.detail = "superseded by a re-plan";
                        save(other);
                    }
                replanned = add(std::move(fresh));
                break;
            }
        message += replanned ? "; re-planned as proposal " + std::to_string(*replanned) + ": review and approve that one"
                             : "; on the state as it is now nothing is proposed (the next evaluation plans afresh)";
        p.detail = message;
        save(p);
        return tl::unexpected(ApiError { 409, message });
    }
    p.state = ProposalState::Approved;
    ++m_stats.entered[static_cast<std::size_t>(ProposalState::Approved)];
    p.decidedBy = actor;
    p.decidedMs = nowMs;
    const auto powered = powerTarget(p);
    if (powered && p.kind == ProposalKind::PowerUp) {
        // Switched on before the cordon is lifted; applied (or failed) when the command is done.
        startPower(p, "on", *powered);
    } else {
        apply(p);
        // The staleness check saw the node empty, and its cordon keeps it so: now it can be switched off.
        if (powered && p.state == ProposalState::Applied) {
            p.state = ProposalState::Approved;
            startPower(p, "off", *powered);
        }
    }
    save(p);
    if (m_log)
        m_log("rebalance: proposal " + std::to_string(id) + " approved by " + actor + ": " + std::string(toString(p.state))
            + (p.detail.empty() ? "" : " (" + p.detail + ")"));
    return &p;
}

ApiResult<const Proposal*> Rebalancer::reject(
    std::int64_t id, const std::string& actor, const std::string& why, std::int64_t nowMs)
{
    auto pending = pendingProposal(id);
    if (!pending)
        return tl::unexpected(pending.error());
    Proposal& p = **pending;
    p.state = ProposalState::Rejected;
    p.decidedBy = actor;
    p.decidedMs = nowMs;
    p.detail = why;
    save(p);
    return &p;
}

} // namespace tidepool::api
