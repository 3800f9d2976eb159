#pragma once
// Small hand-built clusters for the core test suites: nodes, devices and workloads with readable defaults, so that
// each test states only what it is about.

#include "core/model/cluster.h"
#include "core/sched/policies/policies.h"
#include "core/sched/scheduler.h"

#include <QString>
#include <QtTest>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tidepool::test {

inline Node cpuNode(std::string name, std::int64_t cpuMillis = 8000, std::int64_t memoryMiB = 16384,
    Isa isa = Isa::X86_64, Tier tier = Tier::Invalid)
{
    Node n;
    n.name = std::move(name);
    n.isa = isa;
    n.tier = tier;
    n.capacity = { cpuMillis, memoryMiB, 0, 0 };
    n.power = { 100.0, 300.0, 0.0 };
    return n;
}

// A node with `count` identical devices of `kind`: `share` units each (1000 milli-GPUs, NPU cores, FPGA slots).
inline Node acceleratorNode(std::string name, AcceleratorKind kind, ModelId model, int count, std::int32_t share = 1000,
    std::int64_t deviceMemoryMiB = 16384, Isa isa = Isa::X86_64, Tier tier = Tier::Invalid)
{
    Node n = cpuNode(std::move(name), 32000, 131072, isa, tier);
    for (int i = 0; i < count; ++i)
        n.devices.push_back(Device { kind, model, share, share, deviceMemoryMiB, deviceMemoryMiB });
    return n;
}

inline Workload cpuWorkload(
    WorkloadId id, std::int64_t cpuMillis, std::int64_t memoryMiB = 0, std::int32_t priority = 0)
{
    Workload w;
    w.id = id;
    w.name = "w" + std::to_string(id);
    w.requests = { cpuMillis, memoryMiB, 0, 0 };
    w.priority = priority;
    return w;
}

// `count` devices of `kind` taking `sharePerDevice` each (0 or `count > 1` = whole devices).
inline Workload acceleratorWorkload(WorkloadId id, AcceleratorKind kind, std::int32_t count,
    std::int32_t sharePerDevice, std::int64_t memoryMiBPerDevice = 0, std::int32_t priority = 0)
{
    Workload w = cpuWorkload(id, 1000, 1024, priority);
    w.accelerators.kind = kind;
    w.accelerators.count = count;
    w.accelerators.sharePerDevice = sharePerDevice;
    w.accelerators.memoryMiBPerDevice = memoryMiBPerDevice;
    return w;
}

inline Pool makePool(std::string name, std::int64_t cpuQuotaMillis = kUnlimited)
{
    Pool p;
    p.name = std::move(name);
    p.quota.cpuMillis = cpuQuotaMillis;
    return p;
}

// Reject reasons as text for `QCOMPARE`: QtTest's printer would find `tidepool::toString` by argument-dependent
// lookup and fail to compile, and text makes a failure readable.
inline QString text(RejectReason reason)
{
    const std::string_view s = toString(reason);
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

inline Profile singlePolicy(const std::string& policy, bool preemption = false)
{
    return Profile { policy, { { policy, 1.0 } }, preemption };
}

inline std::unique_ptr<Scheduler> makeScheduler(ClusterState& cluster, Profile profile, bool exhaustive = true)
{
    SchedulerConfig config;
    config.exhaustive = exhaustive;
    return std::make_unique<Scheduler>(
        cluster, std::move(profile), PolicyRegistry::withBuiltins(), PolicyOptions {}, config);
}

// Adds the workload and places it; returns the node it landed on (`kNoNode` when pending).
inline NodeId addAndPlace(ClusterState& cluster, Scheduler& scheduler, Workload w)
{
    const WorkloadId id = w.id;
    if (!cluster.addWorkload(std::move(w)))
        return kNoNode;
    const Decision d = scheduler.place(id);
    return d.placement ? d.placement->node : kNoNode;
}

// Binds `w` to `node`, taking the request's share of each listed device (a whole device's 1000 for whole-device
// requests), bypassing any policy: sets up a partly used cluster.
inline void preplace(ClusterState& cluster, Workload w, NodeId node, std::vector<std::int16_t> devices)
{
    const WorkloadId id = w.id;
    std::vector<DeviceShare> shares;
    for (std::int16_t d : devices)
        shares.push_back({ d, w.accelerators.shareOn(1000), 0 });
    QVERIFY(cluster.addWorkload(std::move(w)));
    QVERIFY(cluster.bind(Placement { id, node, shares, false }));
}

} // namespace tidepool::test
