#pragma once
// A rebalance proposal: what the evaluation loop suggests, why, what it would change and what it would gain, and
// the steps it took once approved.
//
//   pending ──approve──▶ approved ──apply──▶ applied | failed
//      │ └──reject──▶ rejected
//      └──(expiry, superseded, re-planned)──▶ expired
//
// A plan is a list of actions, each naming the state it was planned on (`expect…`), so that approving can tell
// whether that state still holds before it changes anything.
//
// Thread affinity: none; plain values.

#include "core/model/pool.h"
#include "core/rebalance/reason.h"
#include "core/store/store.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::rebalance {

enum class ProposalKind : std::uint8_t {
    Invalid,
    Quota,
    PowerDown,
    PowerUp,
    Lend,
    Reclaim,
    Consolidate,
    Migrate,
    Defer,
    Resize
};
inline constexpr std::size_t kProposalKindCount = 10;
enum class ProposalState : std::uint8_t { Invalid, Pending, Approved, Rejected, Expired, Applied, Failed };
inline constexpr std::size_t kProposalStateCount = 7;
static_assert(static_cast<std::size_t>(ProposalKind::Resize) + 1 == kProposalKindCount);
static_assert(static_cast<std::size_t>(ProposalState::Failed) + 1 == kProposalStateCount);
enum class Risk : std::uint8_t { Invalid, Low, Medium, High };

std::string_view toString(ProposalKind kind);
std::string_view toString(ProposalState state);
std::string_view toString(Risk risk);
std::optional<ProposalKind> parseProposalKind(std::string_view text);
std::optional<ProposalState> parseProposalState(std::string_view text);
std::optional<Risk> parseRisk(std::string_view text);

// One step of a plan.
struct Action {
    // Reserve: keep a hot node's accelerators for the next peak (its batch moves to the cold tier); Release: lend
    // them to batch again. Migrate: move `workload` from node `from`, device `fromDevice`, to node `target`, device
    // `device` (it restarts there).
    // TakeCpuQuota: lower a donor pool's CPU quota by `cpuMillis`, provided at least `expectCpuMillis` (its own
    // forecast need) stays: several raises may draw on one donor and each still holds after the others.
    // SetMemoryQuota, TakeMemoryQuota, GiveMemoryQuota: the same for a pool's memory limit, in `memoryMiB` and
    // `expectMemoryMiB`; a memory limit is never lowered below what the pool's workloads hold (the kernel would
    // reclaim or kill to enforce it).
    // SetAcceleratorQuota, TakeAcceleratorQuota, GiveAcceleratorQuota: the same for a pool's quota of the accelerator
    // kind `accelerator`, in that kind's share units (milli-GPUs, NPU cores, FPGA slots), in `quotaShare` and
    // `expectQuotaShare`; never below the share the pool's workloads hold (they would outlive a quota they exceed).
    // HoldDeferrable: deferrable batch waits for the low-carbon window at `untilMs` (each at most to its deadline).
    // Reserve: a hot node is kept for the peak and the batch on it is stopped; Drain: kept for the peak, but the
    // batch on it runs on to its end (no new batch lands); Evict: the batch still on a reserved node is stopped.
    // Resize: `workload`, running on node `target`, asks for `cpuMillis` and `memoryMiB` instead of the
    // `expectCpuMillis` and `expectMemoryMiB` it was planned on, resized in place (its limits stay).
    enum class Type : std::uint8_t {
        Invalid,
        SetCpuQuota,
        Cordon,
        Uncordon,
        Reserve,
        Release,
        Migrate,
        TakeCpuQuota,
        GiveCpuQuota,
        HoldDeferrable,
        Drain,
        Evict,
        SetMemoryQuota,
        TakeMemoryQuota,
        GiveMemoryQuota,
        SetAcceleratorQuota,
        TakeAcceleratorQuota,
        GiveAcceleratorQuota,
        Resize
    };
    Type type = Type::Invalid;
    std::string target; // the pool or node
    std::int64_t cpuMillis = 0; // SetCpuQuota: the new quota
    std::int64_t expectCpuMillis = 0; // SetCpuQuota: the quota it was planned on
    std::int64_t memoryMiB = 0; // SetMemoryQuota: the new limit; Take/GiveMemoryQuota: the amount
    std::int64_t expectMemoryMiB = 0; // SetMemoryQuota: the limit it was planned on; TakeMemoryQuota: the floor
    std::string reason; // Cordon: the cordon's reason
    std::int64_t workload = 0; // Migrate, Resize
    std::string from; // Migrate: the node it runs on
    std::int32_t fromDevice = -1;
    std::int32_t device = -1;
    std::int32_t share = 0; // Migrate: the share it holds, planned on
    std::int64_t untilMs = 0; // HoldDeferrable
    AcceleratorKind accelerator = AcceleratorKind::None; // Set/Take/GiveAcceleratorQuota: the quota's kind
    std::int64_t quotaShare = 0; // SetAcceleratorQuota: the new quota; Take/Give: the amount
    std::int64_t expectQuotaShare = 0; // SetAcceleratorQuota: the quota it was planned on; Take: the floor
    bool operator==(const Action&) const = default;

    static Action setCpuQuota(std::string pool, std::int64_t cpuMillis, std::int64_t expectCpuMillis)
    {
        Action a;
        a.type = Type::SetCpuQuota;
        a.target = std::move(pool);
        a.cpuMillis = cpuMillis;
        a.expectCpuMillis = expectCpuMillis;
        return a;
    }
    static Action resize(std::int64_t workload, std::string node, std::int64_t cpuMillis, std::int64_t expectCpuMillis,
        std::int64_t memoryMiB, std::int64_t expectMemoryMiB)
    {
        Action a;
        a.type = Type::Resize;
        a.target = std::move(node);
        a.workload = workload;
        a.cpuMillis = cpuMillis;
        a.expectCpuMillis = expectCpuMillis;
        a.memoryMiB = memoryMiB;
        a.expectMemoryMiB = expectMemoryMiB;
        return a;
    }
    static Action takeCpuQuota(std::string pool, std::int64_t cpuMillis, std::int64_t floorMillis)
    {
        Action a;
        a.type = Type::TakeCpuQuota;
        a.target = std::move(pool);
        a.cpuMillis = cpuMillis;
        a.expectCpuMillis = floorMillis;
        return a;
    }
    static Action setMemoryQuota(std::string pool, std::int64_t memoryMiB, std::int64_t expectMemoryMiB)
    {
        Action a;
        a.type = Type::SetMemoryQuota;
        a.target = std::move(pool);
        a.memoryMiB = memoryMiB;
        a.expectMemoryMiB = expectMemoryMiB;
        return a;
    }
    static Action takeMemoryQuota(std::string pool, std::int64_t memoryMiB, std::int64_t floorMiB)
    {
        Action a;
        a.type = Type::TakeMemoryQuota;
        a.target = std::move(pool);
        a.memoryMiB = memoryMiB;
        a.expectMemoryMiB = floorMiB;
        return a;
    }
    static Action setAcceleratorQuota(std::string pool, AcceleratorKind kind, std::int64_t share, std::int64_t expect)
    {
        Action a;
        a.type = Type::SetAcceleratorQuota;
        a.target = std::move(pool);
        a.accelerator = kind;
        a.quotaShare = share;
        a.expectQuotaShare = expect;
        return a;
    }
    static Action takeAcceleratorQuota(std::string pool, AcceleratorKind kind, std::int64_t share, std::int64_t floor)
    {
        Action a = setAcceleratorQuota(std::move(pool), kind, share, floor);
        a.type = Type::TakeAcceleratorQuota;
        return a;
    }
    bool changesCpuQuota() const
    {
        return type == Type::SetCpuQuota || type == Type::TakeCpuQuota || type == Type::GiveCpuQuota;
    }
    bool changesMemoryQuota() const
    {
        return type == Type::SetMemoryQuota || type == Type::TakeMemoryQuota || type == Type::GiveMemoryQuota;
    }
    bool changesAcceleratorQuota() const
    {
        return type == Type::SetAcceleratorQuota || type == Type::TakeAcceleratorQuota
            || type == Type::GiveAcceleratorQuota;
    }
    bool changesQuota() const { return changesCpuQuota() || changesMemoryQuota() || changesAcceleratorQuota(); }
    // Cordon (with `reason`), Uncordon, Reserve or Release of `node`.
    static Action onNode(Type type, std::string node, std::string reason = {})
    {
        Action a;
        a.type = type;
        a.target = std::move(node);
        a.reason = std::move(reason);
        return a;
    }
};

// A quota action's amount (Set: the new quota; Take, Give: how much) and what it expects (Set: the quota it was planned
// on; Take, Give: the donor's floor), in its resource's unit.
struct QuotaAmounts {
    std::int64_t amount = 0;
    std::int64_t expect = 0;
};
QuotaAmounts quotaAmounts(const Action& a);

// What a proposal is predicted to change. Zero where it does not apply.
struct Effect {
    double utilisationBefore = 0.0; // of the resource it acts on, 0..1
    double utilisationAfter = 0.0;
    double gpusFreed = 0.0;
    double wattsSaved = 0.0; // negative: watts added
    double co2GramsPerHour = 0.0; // at the region's carbon intensity
    std::string sloRisk; // in words: "none", "p90 peak within 5% of the quota", ...
    Why sloRiskWhy; // the same as clauses (`reason.h`); empty in proposals stored before them
    bool operator==(const Effect&) const = default;
};

struct Proposal {
    std::int64_t id = 0;
    ProposalKind kind = ProposalKind::Invalid;
    ProposalState state = ProposalState::Invalid;
    Risk risk = Risk::Invalid;
    std::string key; // what it is about ("quota:batch", "power:node-7"): one pending proposal per key
    std::string reason; // in English: what `why` says
    Why why; // the reason in clauses, for a console to word in its own language; empty in proposals stored before it
    Effect effect;
    std::vector<Action> plan;
    std::uint64_t stateVersion = 0;
    std::int64_t createdMs = 0;
    std::int64_t expiresMs = 0;
    std::string decidedBy;
    std::int64_t decidedMs = 0;
    nlohmann::json steps = nlohmann::json::array(); // [{action, outcome}] as applying went
    std::string detail; // why it failed, expired or was re-planned
    bool open() const { return state == ProposalState::Pending; }
    // Decided or expired, and nothing left to do: what the retention may forget (`store::kPruneProposalsSql`).
    bool closed() const { return state != ProposalState::Pending && state != ProposalState::Approved; }
};

// How far apart two quota amounts may be and still be the same advice: a step of each resource (accelerators: by
// kind, in share units; the `None` entry is unused).
struct QuotaSteps {
    std::int64_t cpuMillis = 500;
    std::int64_t memoryMiB = 512;
    std::array<std::int64_t, kAcceleratorKindCount> acceleratorShare { 0, 500, 1, 1 };
};

// The same advice: the same steps on the same targets, quota amounts within a step of each other (and each quota
// planned on the same quota). A pending proposal is kept when the next evaluation gives equivalent advice, so that an
// operator is not asked to approve a target that moves by a step every five minutes.
bool equivalentPlans(const std::vector<Action>& a, const std::vector<Action>& b, QuotaSteps steps);

// Sets the proposal's reason: `why`, and the English it makes.
void explain(Proposal& p, Why why);
// Sets the effect's service-level risk likewise.
void explainRisk(Effect& effect, Why why);

nlohmann::json toJson(const Action& action);
nlohmann::json toJson(const Effect& effect);
nlohmann::json toJson(const Proposal& proposal);
store::StoredProposal toStored(const Proposal& proposal);
// The error names the proposal and the field that could not be read.
Expected<Proposal> fromStored(const store::StoredProposal& stored);

} // namespace tidepool::rebalance
