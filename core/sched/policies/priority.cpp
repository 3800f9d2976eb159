// The scoring half of priority with preemption (the eviction half is `Scheduler::tryPreempt` in
// `core/sched/preemption.cpp`): do not take the last room that more important pending work could use.
//
// Before each placement the policy looks at a few pending workloads of equal or higher priority than the one being
// placed ("reserves", highest priority first). A node scores 100 minus the share of reserves that fit on it now but
// would no longer fit after this placement; nodes where nothing of the sort happens score 100. The fit test is a
// capacity test (CPU, memory, bandwidths, accelerator kind/model/share, ISA or translation, pool membership), not
// the full filter: it only has to tell "this placement eats that room" apart from "it does not".
//
// Pending work is what the scheduler tried and could not place: a workload that went through `prepare` and was not
// bound before the next `prepare`. The policy remembers the `kMaxPending` most important of them and drops each
// when it is bound or gone, so a placement costs O(kMaxPending) and never scans the cluster's workloads.

#include "core/sched/policies/policies.h"
#include "core/sched/filters.h"
#include "core/sched/scheduler.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>

namespace tidepool {

namespace {

constexpr std::size_t kMaxReserves = 4;
constexpr std::size_t kMaxPending = 16;

// Whether reserve `r` could go on `node` at all, whatever the free capacity (ISA or translation, pool membership).
bool mayUse(const Node& node, const Workload& r)
{
    if (!r.runsNatively(node.isa) && !r.allowTranslation)
        return false;
    return r.pool == kNoPool || std::find(node.pools.begin(), node.pools.end(), r.pool) != node.pools.end();
}

// Whether `r` fits in `free` and on `devices`; no allocation (`filters::accelerator` reads only the devices).
bool fits(const Resources& free, const Node& devices, const Workload& r)
{
    return free.fits(r.requests) && filters::accelerator(devices, r) == RejectReason::None;
}

class PriorityPolicy final : public Policy {
public:
    std::string_view name() const override { return "priority"; }

    void prepare(const ScoreContext& ctx, const Workload& w) override
    {
        if (m_last && !m_lastBound)
            remember(ctx.cluster, *m_last);
        m_last = w.id;
        m_lastBound = false;
        m_reserves.clear();
        for (std::size_t i = 0; i < m_pending.size();) {
            const WorkloadRecord* r = ctx.cluster.workload(m_pending[i]);
            if (!r || r->placement) {
                m_pending.erase(m_pending.begin() + static_cast<std::ptrdiff_t>(i));
                continue;
            }
            if (r->workload.id != w.id && r->workload.priority >= w.priority)
                m_reserves.push_back(&r->workload);
            ++i;
        }
        std::stable_sort(m_reserves.begin(), m_reserves.end(),
            [](const Workload* a, const Workload* b) { return a->priority > b->priority; });
        if (m_reserves.size() > kMaxReserves)
            m_reserves.resize(kMaxReserves);
    }

    void onBind(const ScoreContext&, const Workload& w, const Placement&) override
    {
        if (w.id == m_last)
            m_lastBound = true;
        m_pending.erase(std::remove(m_pending.begin(), m_pending.end(), w.id), m_pending.end());
    }

    std::int64_t score(const ScoreContext&, const Node& node, const Workload& w, Candidate& candidate) override
    {
        if (m_reserves.empty())
            return 100;
        const Resources after = node.free - w.requests;
        // The devices after this placement, built only when a reserve asks for accelerators, in a scratch node
        // whose vector keeps its capacity from call to call.
        bool devicesReady = false;
        std::size_t eaten = 0;
        for (const Workload* r : m_reserves) {
            if (!mayUse(node, *r) || !fits(node.free, node, *r))
                continue; // no room for it now: this placement cannot take it away
            if (r->accelerators.any() && !devicesReady) {
                m_after.devices.assign(node.devices.begin(), node.devices.end());
                for (const DeviceShare& s : defaultDeviceChoice(node, w, candidate.device)) {
                    Device& d = m_after.devices[static_cast<std::size_t>(s.device)];
                    d.shareFree -= s.share;
                    d.memoryFreeMiB -= s.memoryMiB;
                }
                devicesReady = true;
            }
            const Node& devicesAfter = w.accelerators.any() && devicesReady ? m_after : node;
            eaten += !fits(after, devicesAfter, *r);
        }
        return std::llround(100.0 * (1.0 - static_cast<double>(eaten) / static_cast<double>(m_reserves.size())));
    }

private:
    // Keeps the most important pending workloads: when full, a new one replaces the least important if it beats it.
    void remember(const ClusterState& cluster, WorkloadId id)
    {
        const WorkloadRecord* r = cluster.workload(id);
        if (!r || r->placement || std::find(m_pending.begin(), m_pending.end(), id) != m_pending.end())
            return;
        if (m_pending.size() < kMaxPending) {
            m_pending.push_back(id);
            return;
        }
        auto least = std::min_element(m_pending.begin(), m_pending.end(), [&](WorkloadId a, WorkloadId b) {
            const WorkloadRecord* ra = cluster.workload(a);
            const WorkloadRecord* rb = cluster.workload(b);
            return (ra ? ra->workload.priority : INT32_MIN) < (rb ? rb->workload.priority : INT32_MIN);
        });
        const WorkloadRecord* rl = cluster.workload(*least);
        if (!rl || rl->workload.priority < r->workload.priority)
            *least = id;
    }

    std::vector<WorkloadId> m_pending;
    std::vector<const Workload*> m_reserves;
    Node m_after; // scratch of `score`: only its devices are used
    std::optional<WorkloadId> m_last; // the workload of the previous `prepare`
    bool m_lastBound = false;
};

} // namespace

std::unique_ptr<Policy> makePriorityPolicy(const PolicyOptions&)
{
    return std::make_unique<PriorityPolicy>();
}

} // namespace tidepool
