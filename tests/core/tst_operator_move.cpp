// An operator's move of a workload onto a node, a tier or into another pool (`ControlPlane::move`, the console's Tiers
// board and Pools tree): the scheduler's filters judge the target with the workload's own resources released; a move
// is bound, stopped where it ran and launched there as a new incarnation; a refused one (no accelerator there, no
// room, its pool's tier, the target pool's quota, already there) says why, per reason, and changes nothing. A move into
// another pool charges that pool's quota, releases the old one's, and survives a restart on a real SQLite store.
#include "core/api/control_plane.h"
#include "core/store/store.h"

#include <QTemporaryDir>
#include <QtTest>

#include <boost/asio/io_context.hpp>

using namespace tidepool;
using namespace tidepool::api;

// Values compared as their names, so that a failure prints them.
template <typename E> std::string name(E value)
{
    using tidepool::toString;
    using tidepool::api::toString;
    return std::string(toString(value));
}

namespace {

struct Sent {
    std::string session;
    protocol::Message message;
};

protocol::Inventory inventory(const std::string& isa, int gpus)
{
    protocol::Inventory inv;
    inv.isa = isa;
    inv.cpuMillis = 4000;
    inv.memoryMiB = 8192;
    for (int i = 0; i < gpus; ++i)
        inv.devices.push_back(protocol::DeviceInfo { i, "gpu", "A100", 40960, 1000 });
    return inv;
}

SubmitRequest request(const std::string& name, std::int64_t cpu, std::int32_t gpuShare = 0)
{
    SubmitRequest r;
    r.name = name;
    r.requests.cpuMillis = cpu;
    r.requests.memoryMiB = 512;
    r.latency = LatencyClass::Batch;
    if (gpuShare > 0)
        r.accelerators = AcceleratorRequest { AcceleratorKind::Gpu, 1, gpuShare, 1024, {} };
    r.argv = { "/bin/sleep", "60" };
    return r;
}

} // namespace

class TestOperatorMove : public QObject {
    Q_OBJECT

private:
    boost::asio::io_context m_io;
    std::vector<Sent> m_sent;
    std::unique_ptr<ControlPlane> m_plane;
    std::int64_t m_nowMs = 0; // the plane's clock where set (0: the wall clock)

    void join(const std::string& session, const std::string& name, const std::string& isa, int gpus)
    {
        m_plane->onJoined(session, "127.0.0.1:1", protocol::Hello { name, "test", std::nullopt });
        m_plane->onInventory(session, inventory(isa, gpus));
    }

    WorkloadId submit(SubmitRequest r)
    {
        auto id = m_plane->submit(std::move(r));
        if (!id)
            qFatal("submit failed: %s", id.error().message.c_str());
        return *id;
    }

    std::string nodeOf(WorkloadId id) const
    {
        const LiveWorkload* w = m_plane->workload(id);
        return w && w->node != kNoNode ? m_plane->cluster().node(w->node).name : std::string();
    }

    // Pool "batch", no quota, with disruption budget `budget`.
    PoolId batchPool(DisruptionBudget budget)
    {
        PoolRequest batch;
        batch.name = "batch";
        batch.maxDisrupted = budget;
        const auto created = m_plane->createPool(batch);
        if (!created)
            qFatal("creating pool batch failed: %s", created.error().message.c_str());
        return *created;
    }

    // A workload of 500 millicores in `pool`, moved onto warm-1 when placed elsewhere, running there.
    WorkloadId runningOnWarm(const std::string& name, const std::string& pool)
    {
        SubmitRequest r = request(name, 500);
        r.pool = pool;
        const WorkloadId id = submit(r);
        if (nodeOf(id) != "warm-1"
            && !m_plane->move(id, MoveTarget { "warm-1", Tier::Invalid, {} }, "operator:test").moved())
            qFatal("%s cannot move onto warm-1", name.c_str());
        m_plane->onWorkloadUpdate(
            "s-warm", protocol::WorkloadStatus { id, "running", 100, 0, {}, m_plane->workload(id)->incarnation });
        return id;
    }

    template <typename T> std::size_t sentCount() const
    {
        std::size_t n = 0;
        for (const Sent& s : m_sent)
            n += std::holds_alternative<T>(s.message) ? 1 : 0;
        return n;
    }

    static int rejected(const MoveOutcome& outcome, RejectReason reason)
    {
        return outcome.report.rejected[static_cast<std::size_t>(reason)];
    }

    PoolId createPool(const std::string& poolName, std::int64_t cpuMillis, Tier tier = Tier::Invalid)
    {
        PoolRequest pool;
        pool.name = poolName;
        pool.cpuMillis = cpuMillis;
        pool.tier = tier;
        auto created = m_plane->createPool(pool);
        if (!created)
            qFatal("createPool failed: %s", created.error().message.c_str());
        return *created;
    }

    const Pool& pool(const std::string& poolName) const
    {
        return m_plane->cluster().pool(*m_plane->poolByName(poolName));
    }

    // The launches sent, latest last.
    std::vector<protocol::Launch> launches() const
    {
        std::vector<protocol::Launch> out;
        for (const Sent& s : m_sent)
            if (const auto* launch = std::get_if<protocol::Launch>(&s.message))
                out.push_back(*launch);
        return out;
    }

private slots:
    void init()
    {
        m_sent.clear();
        AgentLink link {
            [this](const std::string& s, const protocol::Message& m) {
                m_sent.push_back({ s, m });
                return true;
            },
            [](const std::string&, const std::string&) { return true; },
        };
        m_nowMs = 0;
        ControlPlaneConfig config;
        config.clock = [this] { return m_nowMs > 0 ? m_nowMs : unixMillis(); };
        auto plane = ControlPlane::create(m_io, config, link, {});
        QVERIFY(plane);
        m_plane = std::move(*plane);
        // One node per tier: a GPU server (hot), an x86 CPU server (warm), an ARM CPU server (cold).
        join("s-hot", "hot-1", "x86_64", 2);
        join("s-warm", "warm-1", "x86_64", 0);
        join("s-cold", "cold-1", "aarch64", 0);
        QCOMPARE(name(m_plane->cluster().node(m_plane->nodeByName("cold-1")->id).tier), name(Tier::Cold));
    }

    void movingToATierPlacesItOnANodeOfThatTierAsANewIncarnation()
    {
        const WorkloadId id = submit(request("batch", 1000));
        const std::string from = nodeOf(id);
        QVERIFY(!from.empty());
        const Tier fromTier = m_plane->cluster().node(m_plane->workload(id)->node).tier;
        const Tier to = fromTier == Tier::Cold ? Tier::Warm : Tier::Cold;
        m_sent.clear();

        const MoveOutcome outcome = m_plane->move(id, MoveTarget { {}, to, {} }, "operator:test");
        QVERIFY2(outcome.moved(), outcome.message.c_str());
        const LiveWorkload* w = m_plane->workload(id);
        QCOMPARE(name(m_plane->cluster().node(w->node).tier), name(to));
        QCOMPARE(outcome.node, nodeOf(id));
        QCOMPARE(name(w->phase), name(WorkloadPhase::Launching));
        QCOMPARE(w->incarnation, 1);
        QVERIFY(w->detail.find("operator:test") != std::string::npos);
        QCOMPARE(outcome.report.feasible, 1);
        // Stopped where it ran, launched where it goes.
        QCOMPARE(sentCount<protocol::Stop>(), std::size_t { 1 });
        QCOMPARE(m_sent.front().session,
            std::string(from == "warm-1" ? "s-warm"
                    : from == "cold-1"   ? "s-cold"
                                         : "s-hot"));
        QCOMPARE(sentCount<protocol::Launch>(), std::size_t { 1 });
        // The books follow: the node it left is free again.
        QCOMPARE(m_plane->cluster().node(m_plane->nodeByName(from)->id).free.cpuMillis, std::int64_t { 4000 });
    }

    void aGpuWorkloadOnACpuOnlyTierIsRefusedWithTheReason()
    {
        const WorkloadId id = submit(request("gpu-batch", 1000, 500));
        QCOMPARE(nodeOf(id), std::string("hot-1"));
        const auto devices = m_plane->workload(id)->devices;
        m_sent.clear();

        const MoveOutcome outcome = m_plane->move(id, MoveTarget { {}, Tier::Cold, {} }, "operator:test");
        QVERIFY(!outcome.moved());
        QCOMPARE(name(outcome.refusal), name(MoveRefusal::NoFeasibleNode));
        QCOMPARE(rejected(outcome, RejectReason::NoAccelerator), 1);
        QCOMPARE(outcome.report.feasible, 0);
        // Nothing changed: where it runs, what it holds, what agents were told.
        QCOMPARE(nodeOf(id), std::string("hot-1"));
        QCOMPARE(m_plane->workload(id)->devices.size(), devices.size());
        QCOMPARE(m_plane->workload(id)->incarnation, 0);
        QVERIFY(m_sent.empty());
        const Node& hot = m_plane->cluster().node(m_plane->nodeByName("hot-1")->id);
        QCOMPARE(hot.free.cpuMillis, std::int64_t { 3000 });
        QCOMPARE(hot.deviceShareFreeTotal(), std::int64_t { 1500 });
    }

    void aNodeWithoutRoomIsRefused()
    {
        const WorkloadId big = submit(request("big", 3000));
        const std::string bigNode = nodeOf(big);
        const WorkloadId small = submit(request("small", 2000));
        if (nodeOf(small) == bigNode) // it fits beside `big` nowhere: it went elsewhere
            QFAIL("a 2-core workload landed beside a 3-core one on a 4-core node");
        // `small` onto the node `big` fills: 1 core left.
        const MoveOutcome outcome = m_plane->move(small, MoveTarget { bigNode, Tier::Invalid, {} }, "operator:test");
        QCOMPARE(name(outcome.refusal), name(MoveRefusal::NoFeasibleNode));
        QCOMPARE(rejected(outcome, RejectReason::InsufficientCpu), 1);
        QCOMPARE(outcome.node, bigNode);
        QVERIFY(nodeOf(small) != bigNode);
    }

    void aPoolBoundToATierKeepsItsWorkloadsThere()
    {
        PoolRequest pool;
        pool.name = "inference";
        pool.tier = Tier::Hot;
        QVERIFY(m_plane->createPool(pool));
        SubmitRequest r = request("replica", 1000);
        r.pool = "inference";
        const WorkloadId id = submit(r);
        const std::string before = nodeOf(id);
        // A node of another tier than the pool's, where it is not already (the scheduler leaves the pool's tier to
        // the operator, so it may have landed anywhere).
        const std::string target = before == "warm-1" ? "cold-1" : "warm-1";
        const MoveOutcome outcome = m_plane->move(id, MoveTarget { target, Tier::Invalid, {} }, "operator:test");
        QCOMPARE(name(outcome.refusal), name(MoveRefusal::PoolTier));
        QCOMPARE(rejected(outcome, RejectReason::TierNotAllowed), 1);
        QCOMPARE(nodeOf(id), before);
    }

    void aPendingWorkloadIsPlacedWhereTheOperatorDropsIt()
    {
        // Submitted while only the GPU server is free enough: 3.5 cores elsewhere are taken first.
        const WorkloadId fillWarm = submit(request("fill-1", 4000));
        const WorkloadId fillCold = submit(request("fill-2", 4000));
        const WorkloadId fillHot = submit(request("fill-3", 4000));
        QVERIFY(!nodeOf(fillWarm).empty() && !nodeOf(fillCold).empty() && !nodeOf(fillHot).empty());
        const WorkloadId waiting = submit(request("waiting", 1000));
        QCOMPARE(name(m_plane->workload(waiting)->phase), name(WorkloadPhase::Pending));
        // The operator makes room on the cold node and drops the waiting one there before the retry runs.
        const std::string coldOwner = nodeOf(fillCold) == "cold-1" ? "fill-2"
            : nodeOf(fillWarm) == "cold-1"                         ? "fill-1"
                                                                   : "fill-3";
        const WorkloadId owner = coldOwner == "fill-1" ? fillWarm : coldOwner == "fill-2" ? fillCold : fillHot;
        QVERIFY(m_plane->cancel(owner));
        m_plane->onWorkloadUpdate("s-cold", protocol::WorkloadStatus { owner, "killed", 0, 15, {}, 0 });
        const MoveOutcome outcome = m_plane->move(waiting, MoveTarget { "cold-1", Tier::Invalid, {} }, "operator:test");
        QVERIFY2(outcome.moved(), outcome.message.c_str());
        QCOMPARE(nodeOf(waiting), std::string("cold-1"));
        QCOMPARE(name(m_plane->workload(waiting)->phase), name(WorkloadPhase::Launching));
        QCOMPARE(m_plane->workload(waiting)->incarnation, 0);
        // Out of the queue: the retry that the freed capacity posted finds nothing to place twice.
        m_io.poll();
        m_io.restart();
        QCOMPARE(nodeOf(waiting), std::string("cold-1"));
        QCOMPARE(m_plane->phaseCounts()[static_cast<std::size_t>(WorkloadPhase::Pending)], std::size_t { 0 });
    }

    void refusalsThatNeedNoFilters()
    {
        const WorkloadId id = submit(request("w", 1000));
        const std::string here = nodeOf(id);
        QCOMPARE(name(m_plane->move(id, MoveTarget { here, Tier::Invalid, {} }, "op").refusal),
            name(MoveRefusal::AlreadyThere));
        const Tier tier = m_plane->cluster().node(m_plane->workload(id)->node).tier;
        QCOMPARE(name(m_plane->move(id, MoveTarget { {}, tier, {} }, "op").refusal), name(MoveRefusal::AlreadyThere));
        QCOMPARE(name(m_plane->move(id, MoveTarget { "nowhere", Tier::Invalid, {} }, "op").refusal),
            name(MoveRefusal::NoTarget));
        QCOMPARE(name(m_plane->move(id, MoveTarget {}, "op").refusal), name(MoveRefusal::NoTarget));
        QCOMPARE(name(m_plane->move(id + 100, MoveTarget { {}, Tier::Cold, {} }, "op").refusal),
            name(MoveRefusal::NoWorkload));
        QVERIFY(m_plane->cancel(id));
        QCOMPARE(
            name(m_plane->move(id, MoveTarget { {}, Tier::Hot, {} }, "op").refusal), name(MoveRefusal::NotMovable));
    }

    // Into another pool, with no node named: the core picks one of the pool's nodes, the workload is relaunched there
    // in the new pool's cgroup, the new pool's quota carries it and the old one's is released, and the timeline says
    // where it went.
    void movingIntoAnotherPoolChargesItsQuotaAndReleasesTheOld()
    {
        const PoolId batch = createPool("batch", 3000);
        const WorkloadId id = submit(request("etl", 1000));
        QVERIFY(!nodeOf(id).empty());
        QCOMPARE(pool("default").used.cpuMillis, std::int64_t { 1000 });
        m_sent.clear();

        const MoveOutcome outcome = m_plane->move(id, MoveTarget { {}, Tier::Invalid, "batch" }, "operator:test");
        QVERIFY2(outcome.moved(), outcome.message.c_str());
        const LiveWorkload* w = m_plane->workload(id);
        QCOMPARE(w->poolName, std::string("batch"));
        QCOMPARE(w->workload.pool, batch);
        QCOMPARE(m_plane->cluster().workload(id)->workload.pool, batch);
        QCOMPARE(outcome.pool, std::string("batch"));
        QCOMPARE(outcome.node, nodeOf(id));
        QCOMPARE(name(outcome.tier), name(m_plane->cluster().node(w->node).tier));
        const auto& members = pool("batch").nodes;
        QVERIFY(std::find(members.begin(), members.end(), w->node) != members.end());
        // The books: the new pool carries it, the old one no longer does.
        QCOMPARE(pool("batch").used.cpuMillis, std::int64_t { 1000 });
        QCOMPARE(pool("default").used.cpuMillis, std::int64_t { 0 });
        QVERIFY(m_plane->cluster().checkInvariants());
        // Relaunched as a new incarnation, in its new pool.
        QCOMPARE(w->incarnation, 1);
        QCOMPARE(name(w->phase), name(WorkloadPhase::Launching));
        QCOMPARE(sentCount<protocol::Stop>(), std::size_t { 1 });
        QCOMPARE(launches().size(), std::size_t { 1 });
        QCOMPARE(launches().back().pool, std::string("batch"));
        // The timeline names the pools and the actor.
        const ClusterEvent& last = m_plane->events().events().back();
        QCOMPARE(last.workload, static_cast<std::int64_t>(id));
        QVERIFY2(last.detail.find("from pool default into pool batch by operator:test") != std::string::npos,
            last.detail.c_str());
    }

    // A pool and a node together: that node, in that pool. A pool bound to a tier keeps its rule: a pool alone picks
    // a node of its tier, and a node of another tier is not one of the pool's.
    void aPoolWithANodeAndAPoolBoundToATier()
    {
        createPool("batch", 10'000);
        createPool("inference", 10'000, Tier::Hot);
        const WorkloadId id = submit(request("etl", 1000));
        const std::string before = nodeOf(id);
        const std::string target = before == "cold-1" ? "warm-1" : "cold-1";

        MoveOutcome outcome = m_plane->move(id, MoveTarget { target, Tier::Invalid, "batch" }, "operator:test");
        QVERIFY2(outcome.moved(), outcome.message.c_str());
        QCOMPARE(nodeOf(id), target);
        QCOMPARE(m_plane->workload(id)->poolName, std::string("batch"));
        QCOMPARE(outcome.report.nodesConsidered, 1);

        // The hot-bound pool's node is outside it when it is on another tier: refused, nothing changes.
        m_sent.clear();
        outcome = m_plane->move(id, MoveTarget { "warm-1", Tier::Invalid, "inference" }, "operator:test");
        QCOMPARE(name(outcome.refusal), name(MoveRefusal::PoolTier));
        QCOMPARE(name(outcome.poolTier), name(Tier::Hot));
        QCOMPARE(outcome.pool, std::string("inference"));
        QCOMPARE(rejected(outcome, RejectReason::TierNotAllowed), 1);
        QCOMPARE(nodeOf(id), target);
        QCOMPARE(m_plane->workload(id)->poolName, std::string("batch"));
        QCOMPARE(pool("inference").used.cpuMillis, std::int64_t { 0 });
        QVERIFY(m_sent.empty());

        // The pool alone: the core picks among its tier's nodes.
        outcome = m_plane->move(id, MoveTarget { {}, Tier::Invalid, "inference" }, "operator:test");
        QVERIFY2(outcome.moved(), outcome.message.c_str());
        QCOMPARE(nodeOf(id), std::string("hot-1"));
        QCOMPARE(name(outcome.tier), name(Tier::Hot));
        QCOMPARE(pool("inference").used.cpuMillis, std::int64_t { 1000 });
        QCOMPARE(pool("batch").used.cpuMillis, std::int64_t { 0 });
        QVERIFY(m_plane->cluster().checkInvariants());
    }

    // A pool whose quota cannot hold it: refused naming the resource and the shortfall, and nothing changes (where it
    // runs, its pool, both pools' books, what agents were told).
    void aMoveOverTheTargetPoolsQuotaIsRefusedChangingNothing()
    {
        createPool("small", 500);
        const WorkloadId id = submit(request("etl", 1000));
        const std::string before = nodeOf(id);
        m_sent.clear();

        MoveOutcome outcome = m_plane->move(id, MoveTarget { {}, Tier::Invalid, "small" }, "operator:test");
        QCOMPARE(name(outcome.refusal), name(MoveRefusal::PoolQuota));
        QVERIFY2(outcome.message.find("CPU: it asks for 1000 millicores and 500 of the pool's 500 are left (500 short)")
                != std::string::npos,
            outcome.message.c_str());
        QCOMPARE(outcome.pool, std::string("small"));
        // With a node named as well.
        outcome = m_plane->move(
            id, MoveTarget { before == "warm-1" ? "cold-1" : "warm-1", Tier::Invalid, "small" }, "operator:test");
        QCOMPARE(name(outcome.refusal), name(MoveRefusal::PoolQuota));
        // Memory is named when memory is what does not fit.
        PoolRequest tight = m_plane->poolRequestOf(*m_plane->poolByName("small"));
        tight.cpuMillis = kUnlimited;
        tight.memoryMiB = 100;
        QVERIFY(m_plane->updatePool("small", tight));
        outcome = m_plane->move(id, MoveTarget { {}, Tier::Invalid, "small" }, "operator:test");
        QCOMPARE(name(outcome.refusal), name(MoveRefusal::PoolQuota));
        QVERIFY2(outcome.message.find("memory: it asks for 512 MiB and 100 of the pool's 100 are left (412 short)")
                != std::string::npos,
            outcome.message.c_str());

        QCOMPARE(nodeOf(id), before);
        QCOMPARE(m_plane->workload(id)->poolName, std::string("default"));
        QCOMPARE(m_plane->workload(id)->incarnation, 0);
        QCOMPARE(pool("default").used.cpuMillis, std::int64_t { 1000 });
        QCOMPARE(pool("small").used.cpuMillis, std::int64_t { 0 });
        // Agents were told of the changed quota, and of nothing else: no stop, no launch.
        QCOMPARE(sentCount<protocol::Stop>(), std::size_t { 0 });
        QCOMPARE(sentCount<protocol::Launch>(), std::size_t { 0 });
        QVERIFY(m_plane->cluster().checkInvariants());
    }

    // A waiting workload moved into a pool is placed there and leaves the queue.
    void aWaitingWorkloadMovedIntoAPoolIsPlacedThere()
    {
        createPool("batch", 10'000);
        for (const char* fill : { "fill-1", "fill-2", "fill-3" })
            QVERIFY(!nodeOf(submit(request(fill, 3500))).empty());
        const WorkloadId waiting = submit(request("waiting", 1000));
        QCOMPARE(name(m_plane->workload(waiting)->phase), name(WorkloadPhase::Pending));
        // No node has room: refused with the reason, still waiting in its pool.
        MoveOutcome outcome = m_plane->move(waiting, MoveTarget { {}, Tier::Invalid, "batch" }, "operator:test");
        QCOMPARE(name(outcome.refusal), name(MoveRefusal::NoFeasibleNode));
        QCOMPARE(rejected(outcome, RejectReason::InsufficientCpu), 3);
        QCOMPARE(m_plane->workload(waiting)->poolName, std::string("default"));
        QCOMPARE(name(m_plane->workload(waiting)->phase), name(WorkloadPhase::Pending));
        // Room on the cold node: placed there, in the pool.
        const WorkloadId onCold = m_plane->workload(1)->node == m_plane->nodeByName("cold-1")->id ? 1
            : m_plane->workload(2)->node == m_plane->nodeByName("cold-1")->id                     ? 2
                                                                                                  : 3;
        QVERIFY(m_plane->cancel(onCold));
        m_plane->onWorkloadUpdate("s-cold", protocol::WorkloadStatus { onCold, "killed", 0, 15, {}, 0 });
        outcome = m_plane->move(waiting, MoveTarget { {}, Tier::Invalid, "batch" }, "operator:test");
        QVERIFY2(outcome.moved(), outcome.message.c_str());
        QCOMPARE(nodeOf(waiting), std::string("cold-1"));
        QCOMPARE(m_plane->workload(waiting)->poolName, std::string("batch"));
        QCOMPARE(pool("batch").used.cpuMillis, std::int64_t { 1000 });
        m_io.poll();
        m_io.restart();
        QCOMPARE(m_plane->phaseCounts()[static_cast<std::size_t>(WorkloadPhase::Pending)], std::size_t { 0 });
    }

    void poolRefusalsThatNeedNoFilters()
    {
        createPool("batch", 10'000);
        const WorkloadId id = submit(request("w", 1000));
        MoveOutcome outcome = m_plane->move(id, MoveTarget { {}, Tier::Invalid, "nowhere" }, "op");
        QCOMPARE(name(outcome.refusal), name(MoveRefusal::NoTarget));
        QVERIFY2(outcome.message.find("no pool is named \"nowhere\"") != std::string::npos, outcome.message.c_str());
        // Its own pool with no node: nowhere to go.
        QCOMPARE(name(m_plane->move(id, MoveTarget { {}, Tier::Invalid, "default" }, "op").refusal),
            name(MoveRefusal::AlreadyThere));
        // A node that is not on the tier named with it.
        outcome = m_plane->move(id, MoveTarget { "cold-1", Tier::Hot, "batch" }, "op");
        QCOMPARE(name(outcome.refusal), name(MoveRefusal::NoTarget));
        QVERIFY2(outcome.message.find("not the hot tier") != std::string::npos, outcome.message.c_str());
        QCOMPARE(m_plane->workload(id)->poolName, std::string("default"));
    }

    // A node taken out of service: the drain cordons it (by whom, why) and moves each workload placed there onto the
    // best other node that takes it, as a move does; one no other node takes (a GPU workload: only hot-1 has GPUs)
    // stays, running, with the reason. Nothing new lands on a cordoned node; uncordoned, it takes work again.
    void aDrainMovesWhatItCanOffANodeAndSaysWhyTheRestStays()
    {
        std::vector<WorkloadId> cpu;
        for (int i = 0; i < 3; ++i)
            cpu.push_back(submit(request("cpu-" + std::to_string(i), 1000)));
        // All on warm-1, so that the drain has several to move.
        for (const WorkloadId id : cpu)
            if (nodeOf(id) != "warm-1")
                QVERIFY(m_plane->move(id, MoveTarget { "warm-1", Tier::Invalid, {} }, "operator:test").moved());
        const WorkloadId gpu = submit(request("trainer", 1000, 500));
        QCOMPARE(nodeOf(gpu), std::string("hot-1"));
        m_sent.clear();

        const auto drained = m_plane->drain("warm-1", "kernel 6.1", "operator:alice");
        QVERIFY2(drained, drained ? "" : drained.error().message.c_str());
        QCOMPARE(drained->cordon, std::string("by operator:alice: kernel 6.1"));
        QCOMPARE(m_plane->nodeByName("warm-1")->cordon, drained->cordon);
        QCOMPARE(drained->moves.size(), std::size_t { 3 });
        QCOMPARE(drained->moved(), std::size_t { 3 });
        for (const auto& [id, outcome] : drained->moves) {
            QVERIFY2(outcome.moved(), outcome.message.c_str());
            QVERIFY(outcome.node != "warm-1");
            QCOMPARE(nodeOf(id), outcome.node);
            QVERIFY2(
                m_plane->workload(id)->detail.find("moved from warm-1 to " + outcome.node + " by operator:alice") == 0,
                m_plane->workload(id)->detail.c_str());
        }
        // Stopped where they ran, launched where they went.
        QCOMPARE(sentCount<protocol::Stop>(), std::size_t { 3 });
        QCOMPARE(sentCount<protocol::Launch>(), std::size_t { 3 });

        // hot-1's GPU workload has nowhere else to go: it stays, running, and the drain says why; what went to hot-1
        // from warm-1 moves on (warm-1 is cordoned: to cold-1).
        m_sent.clear();
        const auto stuck = m_plane->drain("hot-1", "", "operator:alice");
        QVERIFY(stuck);
        QCOMPARE(stuck->cordon, std::string("by operator:alice: drained"));
        QCOMPARE(stuck->moved(), stuck->moves.size() - 1);
        for (const auto& [id, outcome] : stuck->moves) {
            if (id != gpu) {
                QCOMPARE(outcome.node, std::string("cold-1"));
                continue;
            }
            QCOMPARE(name(outcome.refusal), name(MoveRefusal::NoFeasibleNode));
            // warm-1 is cordoned; cold-1 has no GPU.
            QVERIFY2(rejected(outcome, RejectReason::Unschedulable) == 1, outcome.message.c_str());
            QVERIFY2(rejected(outcome, RejectReason::NoAccelerator) == 1, outcome.message.c_str());
            QVERIFY2(outcome.message.starts_with("no other node can take workload " + std::to_string(gpu) + ": "),
                outcome.message.c_str());
        }
        QCOMPARE(nodeOf(gpu), std::string("hot-1"));
        QCOMPARE(sentCount<protocol::Stop>(), stuck->moved());
        // Cordoned: nothing new lands there, even what only it could take.
        const WorkloadId later = submit(request("later", 500, 500));
        QCOMPARE(nodeOf(later), std::string());
        const std::string why = m_plane->why(*m_plane->workload(later));
        QVERIFY2(why.find("unschedulable") != std::string::npos, why.c_str());
        // Drained again: the GPU workload stays again; the cordon it has is kept.
        const auto again = m_plane->drain("hot-1", "other words", "operator:bob");
        QVERIFY(again);
        QCOMPARE(again->moves.size(), std::size_t { 1 });
        QCOMPARE(again->cordon, std::string("by operator:alice: drained"));

        // Uncordoned: it takes work again, and says what it lifted.
        const auto lifted = m_plane->operatorUncordon("hot-1", "operator:alice");
        QVERIFY(lifted);
        QCOMPARE(*lifted, std::string("by operator:alice: drained"));
        m_io.poll(); // the posted retry of pending work
        m_io.restart();
        QCOMPARE(nodeOf(later), std::string("hot-1"));
        QCOMPARE(*m_plane->operatorUncordon("hot-1", "operator:alice"), std::string()); // nothing to lift

        // A node cordoned for a power-down is not cordoned over (uncordoning it is its power-up); no such node: 404.
        QVERIFY(m_plane->setCordon("cold-1", std::string(kPowerDownCordon) + " by proposal 7"));
        const auto refused = m_plane->operatorCordon("cold-1", "disk", "operator:alice");
        QVERIFY(!refused);
        QCOMPARE(refused.error().status, 409);
        QVERIFY2(refused.error().message.find("power-down") != std::string::npos, refused.error().message.c_str());
        QCOMPARE(m_plane->nodeByName("cold-1")->cordon, std::string(kPowerDownCordon) + " by proposal 7");
        for (const auto& missing : { m_plane->operatorCordon("nope", "", "operator:alice"),
                 m_plane->drain("nope", "", "operator:alice").transform([](const DrainOutcome&) {}) })
            QCOMPARE(missing.error().status, 404);
        // A cordon without a reason still says whose it is; one over another replaces it.
        QVERIFY(m_plane->operatorCordon("warm-1", "", "operator:carol"));
        QCOMPARE(m_plane->nodeByName("warm-1")->cordon, std::string("by operator:carol"));
    }

    // A paced drain (Nomad's max_parallel and -deadline): at most N of the node's workloads moving at once, the next
    // when a moved one runs on its new node (or ends); one no other node takes stays and is tried again, and at the
    // deadline it is stopped and queued again so that the node is empty. Lifting the cordon ends a drain.
    void aPacedDrainMovesAFewAtATimeAndEmptiesTheNodeByItsDeadline()
    {
        m_nowMs = 1'000'000'000'000;
        const std::int64_t t0 = m_nowMs;
        std::vector<WorkloadId> cpu;
        for (int i = 0; i < 3; ++i)
            cpu.push_back(submit(request("cpu-" + std::to_string(i), 500)));
        SubmitRequest pinned = request("pinned", 500);
        pinned.pinnedTier = Tier::Warm; // only warm-1 takes it
        cpu.push_back(submit(pinned));
        for (const WorkloadId id : cpu)
            if (nodeOf(id) != "warm-1")
                QVERIFY(m_plane->move(id, MoveTarget { "warm-1", Tier::Invalid, {} }, "operator:test").moved());
        for (const WorkloadId id : cpu)
            m_plane->onWorkloadUpdate(
                "s-warm", protocol::WorkloadStatus { id, "running", 100, 0, {}, m_plane->workload(id)->incarnation });
        m_sent.clear();

        const auto refusedOptions = { DrainOptions { -1, 0 }, DrainOptions { kMaxDrainParallel + 1, 0 },
            DrainOptions { 0, 60'000 }, DrainOptions { 1, kMaxDrainDeadlineMs + 1 } };
        for (const DrainOptions& bad : refusedOptions) {
            const auto refused = m_plane->drain("warm-1", "", "operator:alice", bad);
            QVERIFY(!refused);
            QCOMPARE(refused.error().status, 400);
        }
        QCOMPARE(m_plane->nodeByName("warm-1")->cordon, std::string()); // refused before it cordoned

        // One at a time: the first moves, the rest wait, running where they are.
        const auto started = m_plane->drain("warm-1", "firmware", "operator:alice", DrainOptions { 1, 60'000 });
        QVERIFY2(started, started ? "" : started.error().message.c_str());
        QCOMPARE(started->moves.size(), std::size_t { 1 });
        QCOMPARE(started->moves[0].first, cpu[0]);
        QVERIFY(started->paced);
        QCOMPARE(started->waiting, std::int64_t { 3 });
        QCOMPARE(started->paced->moving.size(), std::size_t { 1 });
        QCOMPARE(started->paced->deadlineAtMs, t0 + 60'000);
        QCOMPARE(sentCount<protocol::Stop>(), std::size_t { 1 });
        QCOMPARE(sentCount<protocol::Launch>(), std::size_t { 1 });
        QVERIFY(m_plane->nodeByName("warm-1")->drain);

        // Nothing more while the moved one is launching.
        m_nowMs = t0 + 1000;
        m_plane->advanceDrains(m_nowMs);
        QCOMPARE(sentCount<protocol::Stop>(), std::size_t { 1 });
        QCOMPARE(nodeOf(cpu[1]), std::string("warm-1"));

        // It runs on its new node: the next one moves.
        const std::string firstTo = nodeOf(cpu[0]);
        QVERIFY(firstTo != "warm-1");
        m_plane->onWorkloadUpdate(firstTo == "hot-1" ? "s-hot" : "s-cold",
            protocol::WorkloadStatus { cpu[0], "running", 101, 0, {}, m_plane->workload(cpu[0])->incarnation });
        m_plane->advanceDrains(m_nowMs);
        QCOMPARE(sentCount<protocol::Stop>(), std::size_t { 2 });
        QVERIFY(nodeOf(cpu[1]) != "warm-1");
        QCOMPARE(nodeOf(cpu[2]), std::string("warm-1"));

        // It ends instead of running there: that frees the slot as well. Then the pinned one has no other node: it
        // stays, running, and the drain says why, trying again at each step.
        const std::string secondTo = nodeOf(cpu[1]);
        m_plane->onWorkloadUpdate(secondTo == "hot-1" ? "s-hot" : "s-cold",
            protocol::WorkloadStatus { cpu[1], "exited", 0, 0, {}, m_plane->workload(cpu[1])->incarnation });
        m_plane->advanceDrains(m_nowMs);
        QVERIFY(nodeOf(cpu[2]) != "warm-1");
        const std::string thirdTo = nodeOf(cpu[2]);
        m_plane->onWorkloadUpdate(thirdTo == "hot-1" ? "s-hot" : "s-cold",
            protocol::WorkloadStatus { cpu[2], "running", 103, 0, {}, m_plane->workload(cpu[2])->incarnation });
        m_plane->advanceDrains(m_nowMs);
        const LiveNode* warm = m_plane->nodeByName("warm-1");
        QVERIFY(warm->drain);
        QCOMPARE(warm->drain->moved, std::int64_t { 3 });
        QCOMPARE(warm->drain->blocked, std::int64_t { 1 });
        QVERIFY2(warm->drain->blockedReason.starts_with("no other node can take workload " + std::to_string(cpu[3])),
            warm->drain->blockedReason.c_str());
        QCOMPARE(nodeOf(cpu[3]), std::string("warm-1"));
        QCOMPARE(name(m_plane->workload(cpu[3])->phase), name(WorkloadPhase::Running));

        // The deadline: what no node takes is stopped and waits in the queue; the node is empty and the drain over.
        const std::size_t stopsBefore = sentCount<protocol::Stop>();
        m_nowMs = t0 + 60'000;
        m_plane->advanceDrains(m_nowMs);
        QCOMPARE(sentCount<protocol::Stop>(), stopsBefore + 1);
        QCOMPARE(name(m_plane->workload(cpu[3])->phase), name(WorkloadPhase::Pending));
        QVERIFY2(m_plane->workload(cpu[3])->detail.find("evicted from node warm-1 at its drain's deadline") == 0,
            m_plane->workload(cpu[3])->detail.c_str());
        QVERIFY(!m_plane->nodeByName("warm-1")->drain);
        QVERIFY(m_plane->cluster().node(m_plane->nodeByName("warm-1")->id).residents.empty());
        QCOMPARE(m_plane->nodeByName("warm-1")->cordon, std::string("by operator:alice: firmware"));
        QCOMPARE(m_plane->stats().drainMoves, std::uint64_t { 3 });
        QCOMPARE(m_plane->stats().drainEvictions, std::uint64_t { 1 });
        bool finished = false;
        for (const ClusterEvent& e : m_plane->events().events())
            finished = finished || e.detail == "drain finished: 3 moved, 1 queued again at the deadline";
        QVERIFY(finished);

        // Uncordoned, the pinned one goes back to warm-1. Drained again without a deadline it stays, the drain goes on
        // (tried again at each step), and lifting the cordon ends it.
        QVERIFY(m_plane->operatorUncordon("warm-1", "operator:alice"));
        m_io.poll();
        m_io.restart();
        QCOMPARE(nodeOf(cpu[3]), std::string("warm-1"));
        const auto again = m_plane->drain("warm-1", "", "operator:bob", DrainOptions { 2, 0 });
        QVERIFY(again);
        QVERIFY(again->paced);
        QCOMPARE(again->paced->deadlineAtMs, std::int64_t { 0 });
        QCOMPARE(again->waiting, std::int64_t { 1 });
        QCOMPARE(again->paced->blocked, std::int64_t { 1 });
        m_nowMs = t0 + 10 * 86'400'000LL;
        m_plane->advanceDrains(m_nowMs);
        QCOMPARE(nodeOf(cpu[3]), std::string("warm-1")); // no deadline: it stays
        QVERIFY(m_plane->nodeByName("warm-1")->drain);
        QVERIFY(m_plane->operatorUncordon("warm-1", "operator:bob"));
        QVERIFY(!m_plane->nodeByName("warm-1")->drain);
        QCOMPARE(nodeOf(cpu[3]), std::string("warm-1"));
    }

    // A workload no node takes is not tried again at every tick but once capacity grows: a node that joins (here the
    // only other node of its tier) takes it at the next tick.
    void aStuckDrainMoveIsTriedAgainWhenCapacityGrows()
    {
        m_nowMs = 1'000'000'000'000;
        SubmitRequest pinned = request("pinned", 500);
        pinned.pinnedTier = Tier::Warm; // only warm-1 is warm
        const WorkloadId id = submit(pinned);
        QCOMPARE(nodeOf(id), std::string("warm-1"));
        m_plane->onWorkloadUpdate(
            "s-warm", protocol::WorkloadStatus { id, "running", 100, 0, {}, m_plane->workload(id)->incarnation });
        const auto started = m_plane->drain("warm-1", "", "operator:alice", DrainOptions { 1, 0 });
        QVERIFY(started);
        QCOMPARE(started->paced->blocked, std::int64_t { 1 });
        const std::string why = started->paced->blockedReason;
        QVERIFY2(why.starts_with("no other node can take workload " + std::to_string(id)), why.c_str());
        for (int tick = 1; tick <= 3; ++tick) {
            m_plane->advanceDrains(m_nowMs + tick * 500);
            QCOMPARE(nodeOf(id), std::string("warm-1"));
            QCOMPARE(m_plane->nodeByName("warm-1")->drain->blocked, std::int64_t { 1 });
            QCOMPARE(m_plane->nodeByName("warm-1")->drain->blockedReason, why); // the reason it was last refused for
        }
        join("s-warm-2", "warm-2", "x86_64", 0);
        m_plane->advanceDrains(m_nowMs + 2000);
        QCOMPARE(nodeOf(id), std::string("warm-2"));
        QVERIFY(!m_plane->nodeByName("warm-1")->drain);
    }

    // A drain moves each workload where the scheduler would place it, by the profile's policies, not onto the node with
    // the most free CPU: under best-fit, onto the fuller node.
    void aDrainPlacesByTheProfilesPolicies()
    {
        ControlPlaneConfig config;
        config.profile = "best-fit";
        auto plane = ControlPlane::create(m_io, config,
            AgentLink { [](const std::string&, const protocol::Message&) { return true; },
                [](const std::string&, const std::string&) { return true; } },
            {});
        QVERIFY(plane);
        m_plane = std::move(*plane);
        join("s-a", "roomy", "x86_64", 0);
        join("s-b", "busy", "x86_64", 0);
        join("s-c", "source", "x86_64", 0);
        const WorkloadId filler = submit(request("filler", 2500));
        if (nodeOf(filler) != "busy")
            QVERIFY(m_plane->move(filler, MoveTarget { "busy", Tier::Invalid, {} }, "operator:test").moved());
        const WorkloadId moved = submit(request("moved", 500));
        if (nodeOf(moved) != "source")
            QVERIFY(m_plane->move(moved, MoveTarget { "source", Tier::Invalid, {} }, "operator:test").moved());
        const auto drained = m_plane->drain("source", "", "operator:alice");
        QVERIFY(drained);
        QCOMPARE(drained->moved(), std::size_t { 1 });
        QCOMPARE(nodeOf(moved), std::string("busy")); // 1000 left there after it, against roomy's 3500
        QCOMPARE(drained->moves[0].second.node, std::string("busy"));
    }

    // A pool's disruption budget (PodDisruptionBudget's maxUnavailable): drains move no more of its workloads at once
    // than it allows, counting those moved off any node that do not run again yet; the others' turn comes as those
    // run. An all-at-once drain held by a budget goes on by itself; a budget of 0 holds them until it is raised.
    void aPoolsDisruptionBudgetPacesDrains()
    {
        m_nowMs = 1'000'000'000'000;
        const PoolId pool = batchPool(DisruptionBudget::workloads(1));
        QCOMPARE(m_plane->poolMaxDisrupted(pool), std::int64_t { 1 });
        std::vector<WorkloadId> ids;
        for (int i = 0; i < 3; ++i) {
            SubmitRequest r = request("etl-" + std::to_string(i), 500);
            r.pool = "batch";
            ids.push_back(submit(r));
        }
        const WorkloadId other = submit(request("other", 500)); // in the default pool: no budget
        ids.push_back(other);
        for (const WorkloadId id : ids)
            if (nodeOf(id) != "warm-1")
                QVERIFY(m_plane->move(id, MoveTarget { "warm-1", Tier::Invalid, {} }, "operator:test").moved());
        for (const WorkloadId id : ids)
            m_plane->onWorkloadUpdate(
                "s-warm", protocol::WorkloadStatus { id, "running", 100, 0, {}, m_plane->workload(id)->incarnation });
        QCOMPARE(m_plane->disruptedIn(pool), std::int64_t { 0 }); // an operator's own moves are not counted
        m_sent.clear();

        // All at once: one of batch's moves, the default pool's moves, and two of batch's wait, running, for the
        // budget; the drain goes on, paced by it alone.
        const auto drained = m_plane->drain("warm-1", "kernel", "operator:alice");
        QVERIFY2(drained, drained ? "" : drained.error().message.c_str());
        QCOMPARE(drained->moves.size(), std::size_t { 2 }); // a paced drain's answer: the moves it made
        QCOMPARE(drained->moved(), std::size_t { 2 });
        QCOMPARE(drained->moves[0].first, ids[0]);
        QCOMPARE(drained->moves[1].first, other); // the default pool's
        for (const WorkloadId waiting : { ids[1], ids[2] }) {
            QCOMPARE(nodeOf(waiting), std::string("warm-1"));
            QCOMPARE(name(m_plane->workload(waiting)->phase), name(WorkloadPhase::Running));
        }
        QVERIFY(drained->paced);
        QCOMPARE(drained->waiting, std::int64_t { 2 });
        QCOMPARE(drained->paced->maxParallel, kMaxDrainParallel);
        QCOMPARE(drained->paced->blocked, std::int64_t { 2 });
        QCOMPARE(drained->paced->blockedReason,
            std::string("pool batch's disruption budget is taken: 1 of its workloads is moving, at most 1 at once"));
        QCOMPARE(m_plane->disruptedIn(pool), std::int64_t { 1 });
        QCOMPARE(m_plane->stats().drainMoves, std::uint64_t { 2 });
        QCOMPARE(sentCount<protocol::Stop>(), std::size_t { 2 });

        // Nothing more while the moved one launches; once it runs, the next goes.
        m_plane->advanceDrains(m_nowMs);
        QCOMPARE(nodeOf(ids[1]), std::string("warm-1"));
        const auto runs = [&](WorkloadId id) {
            const std::string to = nodeOf(id);
            m_plane->onWorkloadUpdate(to == "hot-1" ? "s-hot" : "s-cold",
                protocol::WorkloadStatus { id, "running", 101, 0, {}, m_plane->workload(id)->incarnation });
        };
        runs(ids[0]);
        QCOMPARE(m_plane->disruptedIn(pool), std::int64_t { 0 });
        m_plane->advanceDrains(m_nowMs);
        QVERIFY(nodeOf(ids[1]) != "warm-1");
        QCOMPARE(nodeOf(ids[2]), std::string("warm-1"));
        QCOMPARE(m_plane->disruptedIn(pool), std::int64_t { 1 });

        // A budget of 0: the last one stays, running, though the one before runs; the drain says why.
        PoolRequest none = m_plane->poolRequestOf(pool);
        none.maxDisrupted = DisruptionBudget::workloads(0);
        QVERIFY(m_plane->updatePool("batch", none));
        runs(ids[1]);
        m_plane->advanceDrains(m_nowMs);
        QCOMPARE(nodeOf(ids[2]), std::string("warm-1"));
        const LiveNode* warm = m_plane->nodeByName("warm-1");
        QVERIFY(warm->drain);
        QCOMPARE(warm->drain->blocked, std::int64_t { 1 });
        QCOMPARE(warm->drain->blockedReason,
            std::string("pool batch's disruption budget lets none of its workloads be moved"));

        // No budget: it moves, and the drain is over.
        none.maxDisrupted = DisruptionBudget {};
        QVERIFY(m_plane->updatePool("batch", none));
        m_plane->advanceDrains(m_nowMs);
        QVERIFY(nodeOf(ids[2]) != "warm-1");
        QVERIFY(!m_plane->nodeByName("warm-1")->drain);
        QVERIFY(m_plane->cluster().node(m_plane->nodeByName("warm-1")->id).residents.empty());
        bool finished = false;
        for (const ClusterEvent& e : m_plane->events().events())
            finished = finished || e.detail == "drain finished: 4 moved";
        QVERIFY(finished);
        QCOMPARE(m_plane->stats().drainMoves, std::uint64_t { 4 });
    }

    // What a workload uses comes with its node's heartbeats (kFeatureWorkloadUsage): the latest sample and the most
    // since its launch started, for its current launch on its own node only; a new launch starts it again.
    void aWorkloadsMeasuredUseIsItsCurrentLaunchs()
    {
        const WorkloadId id = runningOnWarm("measured", std::string(kDefaultPool));
        const std::int32_t incarnation = m_plane->workload(id)->incarnation;
        QCOMPARE(m_plane->workload(id)->measured.atMs, std::int64_t { 0 });
        const auto beat = [&](const std::string& session, std::int64_t atMs, protocol::WorkloadUsage usage) {
            protocol::Heartbeat h;
            h.samples.push_back(protocol::UtilisationSample { atMs, 0.5, 1024, {} });
            h.samples.back().workloads.push_back(usage);
            m_plane->onHeartbeat(session, h);
        };
        beat("s-warm", 1'000, { id, incarnation, 300, 100 });
        beat("s-warm", 2'000, { id, incarnation, 100, 120 });
        QCOMPARE(m_plane->workload(id)->measured, (MeasuredWorkloadUse { 2'000, 100, 120, 300, 120, 1'000 }));
        // Another node's word of it, an older launch's, a sample older than the last: none of them is its use.
        beat("s-hot", 3'000, { id, incarnation, 900, 900 });
        beat("s-warm", 3'000, { id, incarnation - 1, 900, 900 });
        beat("s-warm", 1'500, { id, incarnation, 900, 900 });
        QCOMPARE(m_plane->workload(id)->measured, (MeasuredWorkloadUse { 2'000, 100, 120, 300, 120, 1'000 }));
        // Moved: its new launch is not measured yet.
        QVERIFY(m_plane->move(id, MoveTarget { "hot-1", Tier::Invalid, {} }, "operator:test").moved());
        QVERIFY(m_plane->workload(id)->incarnation > incarnation);
        QCOMPARE(m_plane->workload(id)->measured.atMs, std::int64_t { 0 });
    }

    // A budget as a percentage of the pool's workloads (PodDisruptionBudget's "maxUnavailable: 50%"): how many it lets
    // move follows the pool's size, rounded up as Kubernetes rounds it, and a drain is held by it as by a number.
    void aPercentageBudgetFollowsThePoolsSize()
    {
        m_nowMs = 1'000'000'000'000;
        const PoolId pool = batchPool(DisruptionBudget::share(50));
        QCOMPARE(m_plane->poolMaxDisrupted(pool), std::int64_t { 0 }); // half of none
        QVERIFY(m_plane->poolRequestOf(pool).maxDisrupted == DisruptionBudget::share(50));
        std::vector<WorkloadId> ids;
        for (int i = 0; i < 5; ++i) {
            ids.push_back(runningOnWarm("etl-" + std::to_string(i), "batch"));
            if (i == 0)
                QCOMPARE(m_plane->poolMaxDisrupted(pool), std::int64_t { 1 }); // half of one, rounded up
        }
        QCOMPARE(m_plane->poolMaxDisrupted(pool), std::int64_t { 3 }); // 2.5 of 5
        m_plane->onWorkloadUpdate(
            "s-warm", protocol::WorkloadStatus { ids[4], "exited", 0, 0, {}, m_plane->workload(ids[4])->incarnation });
        QCOMPARE(m_plane->poolMaxDisrupted(pool), std::int64_t { 2 }); // of the 4 left placed
        ids.pop_back();
        for (const auto& [percent, allowed] : { std::pair { 0, 0 }, std::pair { 1, 1 }, std::pair { 25, 1 },
                 std::pair { 26, 2 }, std::pair { 100, 4 } }) {
            PoolRequest changed = m_plane->poolRequestOf(pool);
            changed.maxDisrupted = DisruptionBudget::share(percent);
            QVERIFY(m_plane->updatePool("batch", changed));
            QCOMPARE(m_plane->poolMaxDisrupted(pool), std::int64_t { allowed });
        }
        PoolRequest half = m_plane->poolRequestOf(pool);
        half.maxDisrupted = DisruptionBudget::share(50);
        QVERIFY(m_plane->updatePool("batch", half));

        // An all-at-once drain of the four: two move, two wait for them, the reason naming the percentage.
        const auto drained = m_plane->drain("warm-1", "kernel", "operator:alice");
        QVERIFY2(drained, drained ? "" : drained.error().message.c_str());
        QCOMPARE(drained->moved(), std::size_t { 2 });
        QCOMPARE(drained->waiting, std::int64_t { 2 });
        QVERIFY(drained->paced);
        QCOMPARE(drained->paced->blockedReason,
            std::string("pool batch's disruption budget is taken: 2 of its workloads are moving, at most 2 at once "
                        "(50% of its workloads)"));
        // The moved ones are still the pool's (placed on their new nodes): the budget stays at 2 of 4.
        QCOMPARE(m_plane->poolMaxDisrupted(pool), std::int64_t { 2 });
        QCOMPARE(m_plane->disruptedIn(pool), std::int64_t { 2 });
    }

    // A paced drain's deadline overrides the budget: what is left moves (or is queued again) so that the node is empty.
    void aDrainsDeadlineOverridesTheDisruptionBudget()
    {
        m_nowMs = 1'000'000'000'000;
        const PoolId pool = batchPool(DisruptionBudget::workloads(0));
        std::vector<WorkloadId> ids;
        for (int i = 0; i < 2; ++i)
            ids.push_back(runningOnWarm("etl-" + std::to_string(i), "batch"));
        const auto started = m_plane->drain("warm-1", "", "operator:alice", DrainOptions { 5, 60'000 });
        QVERIFY(started);
        QVERIFY(started->moves.empty());
        QCOMPARE(started->waiting, std::int64_t { 2 });
        QCOMPARE(started->paced->blocked, std::int64_t { 2 });
        m_plane->advanceDrains(m_nowMs + 59'000);
        QCOMPARE(nodeOf(ids[0]), std::string("warm-1"));
        m_plane->advanceDrains(m_nowMs + 60'000);
        QVERIFY(nodeOf(ids[0]) != "warm-1");
        QVERIFY(nodeOf(ids[1]) != "warm-1");
        QVERIFY(!m_plane->nodeByName("warm-1")->drain);
        // Moved past the budget, they count against it until they run.
        QCOMPARE(m_plane->disruptedIn(pool), std::int64_t { 2 });
    }

    // An operator's cordon is kept in the store: a core restarted on the same file keeps the node cordoned.
    void anOperatorsCordonSurvivesARestart()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath(QStringLiteral("cordon.db")).toStdString();
        boost::asio::io_context io;
        {
            auto opened = store::openSqliteStore(path);
            QVERIFY(opened);
            auto first = ControlPlane::create(io, ControlPlaneConfig {}, AgentLink {}, {}, opened->get());
            QVERIFY(first);
            (*first)->onJoined("s-warm", "127.0.0.1:1", protocol::Hello { "warm-1", "test", std::nullopt });
            (*first)->onInventory("s-warm", inventory("x86_64", 0));
            QVERIFY((*first)->operatorCordon("warm-1", "memory errors", "operator:alice"));
            (*first)->stop();
        }
        auto opened = store::openSqliteStore(path);
        QVERIFY(opened);
        auto second = ControlPlane::create(io, ControlPlaneConfig {}, AgentLink {}, {}, opened->get());
        QVERIFY(second);
        QCOMPARE((*second)->nodeByName("warm-1")->cordon, std::string("by operator:alice: memory errors"));
        (*second)->onJoined("s-warm", "127.0.0.1:1", protocol::Hello { "warm-1", "test", std::nullopt });
        (*second)->onInventory("s-warm", inventory("x86_64", 0));
        auto submitted = (*second)->submit(request("etl", 1000));
        QVERIFY(submitted);
        QVERIFY((*second)->workload(*submitted)->node == kNoNode); // the only node is cordoned
        (*second)->stop();
    }

    // The workload's new pool is in the store: a core restarted on the same SQLite file has it in that pool, bound
    // where it was and charged to that pool's quota.
    void aPoolMoveSurvivesARestart()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath(QStringLiteral("move.db")).toStdString();
        boost::asio::io_context io; // its own, so that nothing of these planes outlives them in the suite's
        WorkloadId id = 0;
        std::string movedTo;
        {
            auto opened = store::openSqliteStore(path);
            QVERIFY(opened);
            auto first = ControlPlane::create(io, ControlPlaneConfig {}, AgentLink {}, {}, opened->get());
            QVERIFY(first);
            PoolRequest batch;
            batch.name = "batch";
            batch.cpuMillis = 3000;
            QVERIFY((*first)->createPool(batch));
            (*first)->onJoined("s-warm", "127.0.0.1:1", protocol::Hello { "warm-1", "test", std::nullopt });
            (*first)->onInventory("s-warm", inventory("x86_64", 0));
            (*first)->onJoined("s-cold", "127.0.0.1:2", protocol::Hello { "cold-1", "test", std::nullopt });
            (*first)->onInventory("s-cold", inventory("aarch64", 0));
            auto submitted = (*first)->submit(request("etl", 1000));
            QVERIFY(submitted);
            id = *submitted;
            const MoveOutcome outcome = (*first)->move(id, MoveTarget { {}, Tier::Invalid, "batch" }, "operator:test");
            QVERIFY2(outcome.moved(), outcome.message.c_str());
            movedTo = outcome.node;
            (*first)->stop(); // writes what is left
        }
        auto opened = store::openSqliteStore(path);
        QVERIFY(opened);
        auto second = ControlPlane::create(io, ControlPlaneConfig {}, AgentLink {}, {}, opened->get());
        QVERIFY(second);
        const LiveWorkload* w = (*second)->workload(id);
        QVERIFY(w);
        QCOMPARE(w->poolName, std::string("batch"));
        QCOMPARE(name(w->phase), name(WorkloadPhase::Launching));
        QVERIFY(w->node != kNoNode);
        QCOMPARE((*second)->cluster().node(w->node).name, movedTo);
        const Pool& batch = (*second)->cluster().pool(*(*second)->poolByName("batch"));
        const Pool& fallback = (*second)->cluster().pool(*(*second)->poolByName("default"));
        QCOMPARE(batch.used.cpuMillis, std::int64_t { 1000 });
        QCOMPARE(fallback.used.cpuMillis, std::int64_t { 0 });
        (*second)->stop();
    }
};

QTEST_APPLESS_MAIN(TestOperatorMove)
#include "tst_operator_move.moc"
