// Defragmenting placement (`rebalance::Defragmenter`): an arrival that fits nowhere is placed by moving fractional
// and CPU-only workloads out of its way, never whole-device ones, within the per-arrival bound; an attempt that
// cannot place it leaves every placement exactly as it was; and a defragmenting openb replay keeps every invariant.

#include "cluster_builder.h"

#include "core/rebalance/defrag.h"
#include "core/sim/openb.h"

#include <QtTest>

#include <map>

using namespace tidepool;
using namespace tidepool::test;

namespace {

const std::string kData = std::string(TIDEPOOL_SHARED_DATA) + "/openb/";

Workload gpuPod(WorkloadId id, std::int32_t count, std::int32_t share, std::int64_t cpuMillis = 1000)
{
    Workload w = acceleratorWorkload(id, AcceleratorKind::Gpu, count, share);
    w.requests.cpuMillis = cpuMillis;
    return w;
}

// Every placement in the cluster, comparable as text: node, devices and shares per workload.
std::map<WorkloadId, std::string> placements(const ClusterState& cluster)
{
    std::map<WorkloadId, std::string> out;
    for (const auto& [id, record] : cluster.workloads()) {
        std::string s = "-";
        if (record.placement) {
            s = std::to_string(record.placement->node);
            for (const DeviceShare& d : record.placement->shares)
                s += "/" + std::to_string(d.device) + ":" + std::to_string(d.share);
        }
        out[id] = s;
    }
    return out;
}

NodeId nodeOf(const ClusterState& cluster, WorkloadId id)
{
    const WorkloadRecord* r = cluster.workload(id);
    return r && r->placement ? r->placement->node : kNoNode;
}

// Adds `w`, checks that the scheduler alone cannot place it, then lets the defragmenter try.
rebalance::DefragOutcome arrive(
    ClusterState& cluster, Scheduler& scheduler, rebalance::Defragmenter& defrag, Workload w)
{
    const WorkloadId id = w.id;
    [&] { QVERIFY(cluster.addWorkload(std::move(w))); }();
    [&] { QVERIFY(!scheduler.place(id).placement); }();
    return defrag.makeRoom(scheduler, cluster, id);
}

rebalance::DefragOptions bounded(std::int32_t maxMoves)
{
    rebalance::DefragOptions options;
    options.maxMoves = maxMoves;
    return options;
}

} // namespace

class TestDefrag : public QObject {
    Q_OBJECT

private slots:
    void wholeGpuPodFitsAfterMovingAFractionalPod();
    void wholeGpuPodFitsAfterMovingACpuOnlyPod();
    void fractionalPodFitsAfterMovingASmallerOne();
    void hopelessArrivalLeavesEveryPlacementAsItWas();
    void wholeAndMultiGpuPodsAreNeverMoved();
    void movesPerArrivalStayWithinTheBound_data();
    void movesPerArrivalStayWithinTheBound();
    void chainedMoveMakesRoomForAMovedPod();
    void defragReplayKeepsInvariantsOnAnOpenbSlice();
    void replayWithoutDefragMovesNothing();
};

void TestDefrag::wholeGpuPodFitsAfterMovingAFractionalPod()
{
    // n0's only GPU holds a 300 share, n1's a 500 share: no idle GPU, but the 300 fits beside the 500.
    ClusterState cluster;
    cluster.addNode(acceleratorNode("n0", AcceleratorKind::Gpu, 0, 1));
    cluster.addNode(acceleratorNode("n1", AcceleratorKind::Gpu, 0, 1));
    preplace(cluster, gpuPod(1, 1, 300), 0, { 0 });
    preplace(cluster, gpuPod(2, 1, 500), 1, { 0 });
    auto scheduler = makeScheduler(cluster, singlePolicy("best-fit"));
    rebalance::Defragmenter defrag;

    const rebalance::DefragOutcome out = arrive(cluster, *scheduler, defrag, gpuPod(10, 1, 0));
    QVERIFY(out.placed);
    QCOMPARE(out.moves, std::int64_t { 1 });
    QCOMPARE(nodeOf(cluster, 10), NodeId { 0 });
    QCOMPARE(nodeOf(cluster, 1), NodeId { 1 });
    QCOMPARE(nodeOf(cluster, 2), NodeId { 1 });
    QCOMPARE(cluster.node(1).devices[0].shareFree, 200);
    QVERIFY(cluster.checkInvariants());
}

void TestDefrag::wholeGpuPodFitsAfterMovingACpuOnlyPod()
{
    // The idle GPU sits on a node whose CPU a CPU-only pod has taken; a CPU node has room for that pod.
    ClusterState cluster;
    cluster.addNode(acceleratorNode("gpu", AcceleratorKind::Gpu, 0, 1)); // 32 cores
    cluster.addNode(cpuNode("cpu", 32000, 131072));
    preplace(cluster, cpuWorkload(1, 30000), 0, {});
    auto scheduler = makeScheduler(cluster, singlePolicy("best-fit"));
    rebalance::Defragmenter defrag;

    const rebalance::DefragOutcome out = arrive(cluster, *scheduler, defrag, gpuPod(10, 1, 0, 8000));
    QVERIFY(out.placed);
    QCOMPARE(out.moves, std::int64_t { 1 });
    QCOMPARE(nodeOf(cluster, 10), NodeId { 0 });
    QCOMPARE(nodeOf(cluster, 1), NodeId { 1 });
    QVERIFY(cluster.checkInvariants());
}

void TestDefrag::fractionalPodFitsAfterMovingASmallerOne()
{
    // A 500 share: n0's GPU has 400 free (a 400 and a 200 on it), n1's 200. Moving the 200 to n1 frees 600 on n0.
    ClusterState cluster;
    cluster.addNode(acceleratorNode("n0", AcceleratorKind::Gpu, 0, 1));
    cluster.addNode(acceleratorNode("n1", AcceleratorKind::Gpu, 0, 1));
    preplace(cluster, gpuPod(1, 1, 400), 0, { 0 });
    preplace(cluster, gpuPod(2, 1, 200), 0, { 0 });
    preplace(cluster, gpuPod(3, 1, 800), 1, { 0 });
    auto scheduler = makeScheduler(cluster, singlePolicy("best-fit"));
    rebalance::Defragmenter defrag;

    const rebalance::DefragOutcome out = arrive(cluster, *scheduler, defrag, gpuPod(10, 1, 500));
    QVERIFY(out.placed);
    QCOMPARE(out.moves, std::int64_t { 1 });
    QCOMPARE(nodeOf(cluster, 10), NodeId { 0 });
    QCOMPARE(nodeOf(cluster, 2), NodeId { 1 });
    QCOMPARE(nodeOf(cluster, 1), NodeId { 0 });
    QCOMPARE(cluster.node(0).devices[0].shareFree, 100);
    QCOMPARE(cluster.node(1).devices[0].shareFree, 0);
    QVERIFY(cluster.checkInvariants());
}

void TestDefrag::hopelessArrivalLeavesEveryPlacementAsItWas()
{
    // n0 device 1 holds a 600 share that could leave for the arrival's sake, but nothing takes a 600 elsewhere
    // (n1's GPUs have 500 and 0 free) and no chained move helps: the attempt (release, place the arrival, fail
    // to rebind, chain, fail) must be undone to the exact device.
    ClusterState cluster;
    cluster.addNode(acceleratorNode("n0", AcceleratorKind::Gpu, 0, 2));
    cluster.addNode(acceleratorNode("n1", AcceleratorKind::Gpu, 0, 2));
    preplace(cluster, gpuPod(1, 1, 0), 0, { 0 });
    preplace(cluster, gpuPod(2, 1, 600), 0, { 1 });
    preplace(cluster, gpuPod(3, 1, 500), 1, { 0 });
    preplace(cluster, gpuPod(4, 1, 0), 1, { 1 });
    auto scheduler = makeScheduler(cluster, singlePolicy("best-fit"));
    const auto before = placements(cluster);
    const Resources n0Free = cluster.node(0).free;
    rebalance::Defragmenter defrag;

    const rebalance::DefragOutcome out = arrive(cluster, *scheduler, defrag, gpuPod(10, 1, 0));
    QVERIFY(!out.placed);
    QCOMPARE(out.moves, std::int64_t { 0 });
    auto after = placements(cluster);
    QCOMPARE(after.at(10), std::string("-"));
    after.erase(10);
    QCOMPARE(after, before);
    QVERIFY(cluster.node(0).free == n0Free);
    QCOMPARE(cluster.node(0).devices[1].shareFree, 400);
    QVERIFY(cluster.checkInvariants());
    // The scheduler's own view was restored too: the same request still fits nowhere.
    QVERIFY(!scheduler->place(10, true).placement);
}

void TestDefrag::wholeAndMultiGpuPodsAreNeverMoved()
{
    QVERIFY(!rebalance::isMovable(gpuPod(0, 1, 0)));
    QVERIFY(!rebalance::isMovable(gpuPod(0, 2, 0)));
    QVERIFY(rebalance::isMovable(gpuPod(0, 1, 300)));
    QVERIFY(rebalance::isMovable(cpuWorkload(0, 1000)));
    {
        // Moving the whole-GPU pod from n0 to n1's idle GPU would make room for a 2-GPU arrival on n0.
        ClusterState cluster;
        cluster.addNode(acceleratorNode("n0", AcceleratorKind::Gpu, 0, 2));
        cluster.addNode(acceleratorNode("n1", AcceleratorKind::Gpu, 0, 1));
        preplace(cluster, gpuPod(1, 1, 0), 0, { 0 });
        auto scheduler = makeScheduler(cluster, singlePolicy("best-fit"));
        const auto before = placements(cluster);
        rebalance::Defragmenter defrag;
        const rebalance::DefragOutcome out = arrive(cluster, *scheduler, defrag, gpuPod(10, 2, 0));
        QVERIFY(!out.placed);
        QCOMPARE(out.moves, std::int64_t { 0 });
        auto after = placements(cluster);
        after.erase(10);
        QCOMPARE(after, before);
    }
    {
        // Moving the 2-GPU pod from n0 to n1 would make room for a 4-GPU arrival on n0.
        ClusterState cluster;
        cluster.addNode(acceleratorNode("n0", AcceleratorKind::Gpu, 0, 4));
        cluster.addNode(acceleratorNode("n1", AcceleratorKind::Gpu, 0, 2));
        preplace(cluster, gpuPod(1, 2, 0), 0, { 0, 1 });
        auto scheduler = makeScheduler(cluster, singlePolicy("best-fit"));
        const auto before = placements(cluster);
        rebalance::Defragmenter defrag;
        const rebalance::DefragOutcome out = arrive(cluster, *scheduler, defrag, gpuPod(10, 4, 0));
        QVERIFY(!out.placed);
        QCOMPARE(out.moves, std::int64_t { 0 });
        auto after = placements(cluster);
        after.erase(10);
        QCOMPARE(after, before);
    }
}

void TestDefrag::movesPerArrivalStayWithinTheBound_data()
{
    QTest::addColumn<int>("maxMoves");
    QTest::addColumn<bool>("placed");
    QTest::newRow("three moves allowed, four needed") << 3 << false;
    QTest::newRow("four moves allowed") << 4 << true;
    QTest::newRow("six moves allowed") << 6 << true;
}

void TestDefrag::movesPerArrivalStayWithinTheBound()
{
    // Emptying n0's GPU takes four moves: four 250 shares, each into one of n1's 250 slivers.
    QFETCH(int, maxMoves);
    QFETCH(bool, placed);
    ClusterState cluster;
    cluster.addNode(acceleratorNode("n0", AcceleratorKind::Gpu, 0, 1));
    cluster.addNode(acceleratorNode("n1", AcceleratorKind::Gpu, 0, 4));
    for (WorkloadId id = 1; id <= 4; ++id)
        preplace(cluster, gpuPod(id, 1, 250), 0, { 0 });
    for (WorkloadId id = 5; id <= 8; ++id)
        preplace(cluster, gpuPod(id, 1, 750), 1, { static_cast<std::int16_t>(id - 5) });
    auto scheduler = makeScheduler(cluster, singlePolicy("best-fit"));
    const auto before = placements(cluster);
    rebalance::Defragmenter defrag(bounded(maxMoves));

    const rebalance::DefragOutcome out = arrive(cluster, *scheduler, defrag, gpuPod(10, 1, 0));
    QCOMPARE(out.placed, placed);
    QVERIFY(out.moves <= maxMoves);
    QCOMPARE(out.moves, placed ? std::int64_t { 4 } : std::int64_t { 0 });
    if (!placed) {
        auto after = placements(cluster);
        after.erase(10);
        QCOMPARE(after, before);
    }
    QVERIFY(cluster.checkInvariants());
}

void TestDefrag::chainedMoveMakesRoomForAMovedPod()
{
    // The arrival may only use model 0, so only n0's GPU can take it once its 600 share leaves. That share fits
    // n1's model-1 GPU, but n1's CPU is taken by a CPU-only pod, which has to leave for the CPU node n2 first.
    ClusterState cluster;
    cluster.addNode(acceleratorNode("n0", AcceleratorKind::Gpu, 0, 1));
    cluster.addNode(acceleratorNode("n1", AcceleratorKind::Gpu, 1, 1));
    cluster.addNode(cpuNode("n2", 32000, 131072));
    preplace(cluster, gpuPod(1, 1, 600), 0, { 0 });
    preplace(cluster, cpuWorkload(2, 31500), 1, {});
    auto scheduler = makeScheduler(cluster, singlePolicy("best-fit"));
    const auto before = placements(cluster);
    Workload arrival = gpuPod(10, 1, 0);
    arrival.accelerators.allowedModels = { 0 };

    rebalance::DefragOptions unchained;
    unchained.chainDepth = 0;
    rebalance::Defragmenter shallow(unchained);
    QVERIFY(!arrive(cluster, *scheduler, shallow, arrival).placed);
    auto after = placements(cluster);
    after.erase(10);
    QCOMPARE(after, before);

    rebalance::Defragmenter chained; // one level of chaining by default
    const rebalance::DefragOutcome out = chained.makeRoom(*scheduler, cluster, 10);
    QVERIFY(out.placed);
    QCOMPARE(out.moves, std::int64_t { 2 });
    QCOMPARE(nodeOf(cluster, 10), NodeId { 0 });
    QCOMPARE(nodeOf(cluster, 1), NodeId { 1 });
    QCOMPARE(nodeOf(cluster, 2), NodeId { 2 });
    QVERIFY(cluster.checkInvariants());
}

void TestDefrag::defragReplayKeepsInvariantsOnAnOpenbSlice()
{
    // A slice the test makes from the real files (every 20th node, every 10th pod), replayed with the invariant
    // check after every pod, with defragmentation on: every move stays within capacity.
    auto nodes = sim::loadOpenbNodes(kData + "openb_node_list_gpu_node.csv");
    auto pods = sim::loadOpenbPods(kData + "openb_pod_list_default.csv");
    QVERIFY(nodes && pods);
    std::vector<sim::OpenbNode> nodeSlice;
    std::vector<sim::OpenbPod> podSlice;
    for (std::size_t i = 0; i < nodes->size(); i += 20)
        nodeSlice.push_back((*nodes)[i]);
    for (std::size_t i = 0; i < pods->size(); i += 10)
        podSlice.push_back((*pods)[i]);
    const PolicyRegistry registry = PolicyRegistry::withBuiltins();
    for (const char* policy : { "fgd", "best-fit" }) {
        sim::ReplayOptions options;
        options.seed = 7;
        options.checkInvariants = true;
        auto plain = sim::replayOpenb(nodeSlice, podSlice, policy, options, registry);
        rebalance::Defragmenter defrag(bounded(4));
        std::int64_t maxPerArrival = 0;
        options.repair = [&](Scheduler& scheduler, ClusterState& cluster, WorkloadId id) {
            const rebalance::DefragOutcome out = defrag.makeRoom(scheduler, cluster, id);
            maxPerArrival = std::max(maxPerArrival, out.moves);
            if (!out.placed && out.moves != 0)
                maxPerArrival = 1000; // a failed attempt must leave nothing moved
            return sim::RepairOutcome { out.placed, out.moves };
        };
        auto moved = sim::replayOpenb(nodeSlice, podSlice, policy, options, registry);
        QVERIFY2(plain && moved, moved ? policy : moved.error().message.c_str());
        QCOMPARE(plain->moves, std::int64_t { 0 });
        QVERIFY2(moved->moves > 0, policy);
        QVERIFY(maxPerArrival <= 4);
        QVERIFY2(moved->podsFailed < plain->podsFailed, policy);
        QCOMPARE(moved->podsTotal, plain->podsTotal);
    }
}

void TestDefrag::replayWithoutDefragMovesNothing()
{
    auto nodes = sim::loadOpenbNodes(kData + "openb_node_list_gpu_node.csv");
    auto pods = sim::loadOpenbPods(kData + "openb_pod_list_gpushare40.csv");
    QVERIFY(nodes && pods);
    std::vector<sim::OpenbNode> nodeSlice;
    std::vector<sim::OpenbPod> podSlice;
    for (std::size_t i = 0; i < nodes->size(); i += 10)
        nodeSlice.push_back((*nodes)[i]);
    for (std::size_t i = 0; i < pods->size(); i += 5)
        podSlice.push_back((*pods)[i]);
    const PolicyRegistry registry = PolicyRegistry::withBuiltins();
    for (const char* policy : { "fgd", "tidepool" }) {
        sim::ReplayOptions options;
        options.seed = 42;
        auto result = sim::replayOpenb(nodeSlice, podSlice, policy, options, registry);
        QVERIFY(result);
        QVERIFY(result->podsFailed > 0); // room was short, yet without a repair step nothing moved
        QCOMPARE(result->moves, std::int64_t { 0 });
    }
}

QTEST_APPLESS_MAIN(TestDefrag)
#include "tst_defrag.moc"
