// Each live-system policy makes the choice it promises on a small hand-built cluster: spread keeps headroom
// (dominant share), energy adds the fewest watts, tier prefers the home tier and keeps batch off hot nodes,
// cross-isa prefers native nodes, priority keeps room for more important pending work. Also: profiles naming
// unknown policies are reported by `Scheduler::create`.

#include "core/sched/filters.h"
#include "tests/core/cluster_builder.h"

#include <QtTest>

using namespace tidepool;
using namespace tidepool::test;

namespace {

// Fills `node` with a CPU-only workload of `cpuMillis`/`memoryMiB`, bound directly.
void occupy(ClusterState& c, NodeId node, WorkloadId id, std::int64_t cpuMillis, std::int64_t memoryMiB = 0)
{
    QVERIFY(c.addWorkload(cpuWorkload(id, cpuMillis, memoryMiB)));
    QVERIFY(c.bind(Placement { id, node, {}, false }));
}

// The raw-then-normalized scores one policy gives the nodes of `c` for `w`, in node order.
std::vector<std::int64_t> policyScores(const std::string& policy, const ClusterState& c, const Workload& w)
{
    auto p = PolicyRegistry::withBuiltins().make(policy, PolicyOptions {});
    const SlowdownTable slowdowns;
    const ScoreContext ctx { c, slowdowns };
    p->prepare(ctx, w);
    std::vector<std::int64_t> scores;
    for (const Node& n : c.nodes()) {
        Candidate cand { n.id, !w.runsNatively(n.isa), -1 };
        scores.push_back(p->score(ctx, n, w, cand));
    }
    p->normalize(scores);
    return scores;
}

} // namespace

class TestPolicies : public QObject {
    Q_OBJECT

private slots:
    void everyLivePolicyIsRegistered_data();
    void everyLivePolicyIsRegistered();
    void spreadPrefersMostHeadroom();
    void spreadUsesDominantShare();
    void spreadPutsFractionalGpuOnLoosestDevice();
    void energyPrefersPoweredNodeOverEmptyOne();
    void energyPrefersEfficientNode();
    void energyCountsAcceleratorWatts();
    void energyPrefersBusyNodeAmongPowered();
    void energyScoresAreScaledZeroToHundred();
    void tierPrefersHomeTier_data();
    void tierPrefersHomeTier();
    void allowedTiersAgreesWithTheTierFilter();
    void crossIsaPrefersNativeNode();
    void priorityKeepsRoomForMoreImportantPendingWork();
    void priorityIgnoresLessImportantPendingWork();
    void aNodeAddedAfterTheIndexIsFound();
    void createReportsUnknownPolicies();
    void constructorSkipsUnknownPolicies();
    void defaultProfileNamesKnownPolicies();
    void defaultProfilePrefersHomeTierAndNativeIsa();
};

void TestPolicies::everyLivePolicyIsRegistered_data()
{
    QTest::addColumn<QString>("policy");
    for (const char* name : { "spread", "energy", "tier", "cross-isa", "priority" })
        QTest::newRow(name) << QString::fromLatin1(name);
}

void TestPolicies::everyLivePolicyIsRegistered()
{
    QFETCH(QString, policy);
    const std::string name = policy.toStdString();
    const PolicyRegistry registry = PolicyRegistry::withBuiltins();
    auto made = registry.make(name, PolicyOptions {});
    QVERIFY(made);
    QCOMPARE(std::string(made->name()), name);
    const auto profile = builtinProfile(name, registry);
    QVERIFY(profile.has_value());
    QCOMPARE(profile->preemption, name == "priority");
}

void TestPolicies::spreadPrefersMostHeadroom()
{
    ClusterState c;
    const NodeId busy = c.addNode(cpuNode("busy", 8000));
    const NodeId idle = c.addNode(cpuNode("idle", 8000));
    occupy(c, busy, 100, 6000);
    auto s = makeScheduler(c, singlePolicy("spread"));
    QCOMPARE(addAndPlace(c, *s, cpuWorkload(1, 1000)), idle);
    // Once the idle node is the busier one, the next workload goes back to the other.
    occupy(c, idle, 101, 6000);
    s->nodesChanged();
    QCOMPARE(addAndPlace(c, *s, cpuWorkload(2, 1000)), busy);
}

void TestPolicies::spreadUsesDominantShare()
{
    ClusterState c;
    // `cpuFree` has idle CPU but its memory is nearly gone; `balanced` is half used in both.
    const NodeId cpuFree = c.addNode(cpuNode("cpu-free", 8000, 16384));
    const NodeId balanced = c.addNode(cpuNode("balanced", 8000, 16384));
    occupy(c, cpuFree, 100, 0, 14000);
    occupy(c, balanced, 101, 4000, 8192);
    auto s = makeScheduler(c, singlePolicy("spread"));
    QCOMPARE(addAndPlace(c, *s, cpuWorkload(1, 500, 512)), balanced);
}

void TestPolicies::spreadPutsFractionalGpuOnLoosestDevice()
{
    ClusterState c;
    const ModelId a100 = c.internModel("A100");
    const NodeId n = c.addNode(acceleratorNode("gpu", AcceleratorKind::Gpu, a100, 2));
    auto s = makeScheduler(c, singlePolicy("spread"));
    QCOMPARE(addAndPlace(c, *s, acceleratorWorkload(1, AcceleratorKind::Gpu, 1, 300)), n);
    QCOMPARE(addAndPlace(c, *s, acceleratorWorkload(2, AcceleratorKind::Gpu, 1, 300)), n);
    // Packing would put both on one device; spreading uses the other, emptier one.
    QVERIFY(c.workload(1)->placement->shares[0].device != c.workload(2)->placement->shares[0].device);
}

void TestPolicies::energyPrefersPoweredNodeOverEmptyOne()
{
    ClusterState c;
    const NodeId empty = c.addNode(cpuNode("empty"));
    const NodeId powered = c.addNode(cpuNode("powered"));
    occupy(c, powered, 100, 1000);
    auto s = makeScheduler(c, singlePolicy("energy"));
    // The empty node comes first in node order, so only the idle-watts cost can send the workload elsewhere.
    QCOMPARE(addAndPlace(c, *s, cpuWorkload(1, 1000)), powered);
    (void)empty;
}

void TestPolicies::energyPrefersEfficientNode()
{
    ClusterState c;
    Node hungry = cpuNode("hungry");
    hungry.power = { 200.0, 600.0, 0.0 };
    Node frugal = cpuNode("frugal");
    frugal.power = { 40.0, 120.0, 0.0 };
    c.addNode(hungry);
    const NodeId f = c.addNode(frugal);
    auto s = makeScheduler(c, singlePolicy("energy"));
    QCOMPARE(addAndPlace(c, *s, cpuWorkload(1, 2000)), f);
}

void TestPolicies::energyCountsAcceleratorWatts()
{
    ClusterState c;
    const ModelId a100 = c.internModel("A100");
    const ModelId l4 = c.internModel("L4");
    Node big = acceleratorNode("a100", AcceleratorKind::Gpu, a100, 1);
    big.power = { 100.0, 300.0, 400.0 };
    Node small = acceleratorNode("l4", AcceleratorKind::Gpu, l4, 1);
    small.power = { 100.0, 300.0, 70.0 };
    c.addNode(big);
    const NodeId s4 = c.addNode(small);
    auto s = makeScheduler(c, singlePolicy("energy"));
    // Same CPU and idle watts: only the device's peak watts tell the nodes apart.
    QCOMPARE(addAndPlace(c, *s, acceleratorWorkload(1, AcceleratorKind::Gpu, 1, 500)), s4);
}

void TestPolicies::energyPrefersBusyNodeAmongPowered()
{
    ClusterState c;
    const NodeId light = c.addNode(cpuNode("light", 8000));
    const NodeId heavy = c.addNode(cpuNode("heavy", 8000));
    occupy(c, light, 100, 1000);
    occupy(c, heavy, 101, 6000);
    auto s = makeScheduler(c, singlePolicy("energy"));
    // Both add the same dynamic watts; consolidating on the busy node lets the light one drain and power down.
    QCOMPARE(addAndPlace(c, *s, cpuWorkload(1, 1000)), heavy);
}

void TestPolicies::energyScoresAreScaledZeroToHundred()
{
    ClusterState c;
    Node a = cpuNode("a");
    a.power = { 100.0, 300.0, 0.0 };
    Node b = cpuNode("b");
    b.power = { 100.0, 500.0, 0.0 };
    c.addNode(a);
    c.addNode(b);
    // Empty nodes: a adds 100 + 200/8 = 125 W, b adds 100 + 400/8 = 150 W for a 1000-millicore workload.
    const auto scores = policyScores("energy", c, cpuWorkload(1, 1000));
    QCOMPARE(scores.size(), std::size_t { 2 });
    QCOMPARE(scores[1], std::int64_t { 0 }); // the most watts added scores 0
    QCOMPARE(scores[0], std::int64_t { 17 }); // 100 * (150 - 125) / 150, proportional to watts saved
}

void TestPolicies::tierPrefersHomeTier_data()
{
    QTest::addColumn<int>("latency"); // LatencyClass
    QTest::addColumn<int>("pinnedTier"); // Tier (0 = follow the latency class)
    QTest::addColumn<int>("expected"); // node index: 0 hot, 1 warm, 2 cold, 3 untiered

    QTest::newRow("real-time goes hot") << int(LatencyClass::RealTime) << 0 << 0;
    QTest::newRow("latency-sensitive goes warm") << int(LatencyClass::LatencySensitive) << 0 << 1;
    QTest::newRow("batch goes cold") << int(LatencyClass::Batch) << 0 << 2;
    QTest::newRow("batch pinned hot goes hot") << int(LatencyClass::Batch) << int(Tier::Hot) << 0;
}

void TestPolicies::tierPrefersHomeTier()
{
    QFETCH(int, latency);
    QFETCH(int, pinnedTier);
    QFETCH(int, expected);
    ClusterState c;
    // Untiered first in node order, so a tie would land there.
    const NodeId untiered = c.addNode(cpuNode("untiered"));
    const NodeId hot = c.addNode(cpuNode("hot", 8000, 16384, Isa::X86_64, Tier::Hot));
    const NodeId warm = c.addNode(cpuNode("warm", 8000, 16384, Isa::X86_64, Tier::Warm));
    const NodeId cold = c.addNode(cpuNode("cold", 8000, 16384, Isa::X86_64, Tier::Cold));
    const NodeId byIndex[] = { hot, warm, cold, untiered };
    auto s = makeScheduler(c, singlePolicy("tier"));
    Workload w = cpuWorkload(1, 1000);
    w.latency = static_cast<LatencyClass>(latency);
    w.pinnedTier = static_cast<Tier>(pinnedTier);
    QCOMPARE(addAndPlace(c, *s, w), byIndex[expected]);
}

// The evaluation plans capacity by the tiers a workload may run on (`filters::allowedTiers`); the scheduler decides
// with `filters::tier`. For every latency class, pin and node tier, the two agree (a peak reservation aside).
void TestPolicies::allowedTiersAgreesWithTheTierFilter()
{
    std::size_t spills = 0;
    std::size_t poolBound = 0;
    for (const auto poolTier : { Tier::Invalid, Tier::Hot, Tier::Warm, Tier::Cold })
        for (const auto latency : { LatencyClass::RealTime, LatencyClass::LatencySensitive, LatencyClass::Batch })
            for (const auto pinned : { Tier::Invalid, Tier::Hot, Tier::Warm, Tier::Cold }) {
                Workload w = cpuWorkload(1, 1000);
                w.latency = latency;
                w.pinnedTier = pinned;
                const TierMask allowed = filters::allowedTiers(w, poolTier);
                for (const auto node : { Tier::Hot, Tier::Warm, Tier::Cold }) {
                    const bool takes = filters::tier(node, false, w, poolTier) == RejectReason::None;
                    QVERIFY2(takes == ((allowed & tierBit(node)) != 0),
                        (std::string(toString(latency)) + " pinned " + std::string(toString(pinned)) + " in a "
                            + std::string(toString(poolTier)) + " pool on " + std::string(toString(node)))
                            .c_str());
                    if (poolTier == Tier::Invalid) {
                        spills += takes && node != w.tier();
                    } else if (takes) {
                        // A pool's tier holds its workloads whatever their latency class; a pin to another refuses all.
                        QVERIFY(node == poolTier);
                        QVERIFY(pinned == Tier::Invalid || pinned == poolTier);
                        ++poolBound;
                    }
                }
                QVERIFY(filters::tier(Tier::Invalid, false, w, poolTier) == RejectReason::None); // untiered: anything
            }
    QCOMPARE(spills, std::size_t { 3 }); // real-time to warm, batch to hot and to warm
    QCOMPARE(poolBound, std::size_t { 3 * 3 * 2 }); // per pool tier, every latency class unpinned or pinned alike
}

void TestPolicies::crossIsaPrefersNativeNode()
{
    ClusterState c;
    const NodeId arm = c.addNode(cpuNode("arm", 8000, 16384, Isa::Aarch64));
    const NodeId x86 = c.addNode(cpuNode("x86", 8000, 16384, Isa::X86_64));
    auto s = makeScheduler(c, singlePolicy("cross-isa"));
    Workload w = cpuWorkload(1, 1000);
    w.nativeIsas = isaBit(Isa::X86_64);
    w.allowTranslation = true;
    QCOMPARE(addAndPlace(c, *s, w), x86);
    QVERIFY(!c.workload(1)->placement->translated);
    // With the native node full, translation is the fallback, and it is marked as such.
    occupy(c, x86, 100, 7000);
    s->nodesChanged();
    Workload next = w;
    next.id = 2;
    QCOMPARE(addAndPlace(c, *s, next), arm);
    QVERIFY(c.workload(2)->placement->translated);
}

void TestPolicies::priorityKeepsRoomForMoreImportantPendingWork()
{
    ClusterState c;
    const NodeId roomy = c.addNode(cpuNode("roomy", 3500));
    const NodeId small = c.addNode(cpuNode("small", 2000));
    auto s = makeScheduler(c, singlePolicy("priority"));
    // A priority-9 workload of 3000 millicores is tried while `roomy` is busy, and waits.
    QCOMPARE(addAndPlace(c, *s, cpuWorkload(10, 2000, 0, 0)), roomy);
    QCOMPARE(addAndPlace(c, *s, cpuWorkload(50, 3000, 0, 9)), kNoNode);
    QVERIFY(s->release(10));
    // A priority-1 workload of 1000 on `roomy` would leave 2500, too little for the waiting one; on `small` it
    // takes nothing the waiting one could use. Node order alone would have chosen `roomy`.
    QCOMPARE(addAndPlace(c, *s, cpuWorkload(1, 1000, 0, 1)), small);
    QVERIFY(s->place(50).placement.has_value());
    QCOMPARE(c.workload(50)->placement->node, roomy);
}

void TestPolicies::priorityIgnoresLessImportantPendingWork()
{
    ClusterState c;
    const NodeId roomy = c.addNode(cpuNode("roomy", 3500));
    c.addNode(cpuNode("small", 2000));
    auto s = makeScheduler(c, singlePolicy("priority"));
    QCOMPARE(addAndPlace(c, *s, cpuWorkload(10, 2000, 0, 0)), roomy);
    QCOMPARE(addAndPlace(c, *s, cpuWorkload(50, 3000, 0, 0)), kNoNode);
    QVERIFY(s->release(10));
    // The waiting workload is less important than the new one: no room is kept for it, and node order decides.
    QCOMPARE(addAndPlace(c, *s, cpuWorkload(1, 1000, 0, 5)), roomy);
}

// A node added after the index was built is found, even by a caller that did not say so (`nodesChanged`): the
// control plane binds a workload a joining node reports before it marks the node ready.
void TestPolicies::aNodeAddedAfterTheIndexIsFound()
{
    ClusterState c;
    c.addNode(cpuNode("first", 2000));
    auto s = makeScheduler(c, singlePolicy("spread"), false); // the daemon's walk of the index
    QVERIFY(addAndPlace(c, *s, cpuWorkload(1, 1000)) != kNoNode); // the index is built over one node
    const NodeId later = c.addNode(cpuNode("later", 8000));
    QCOMPARE(addAndPlace(c, *s, cpuWorkload(2, 4000)), later);
}

void TestPolicies::createReportsUnknownPolicies()
{
    ClusterState c;
    c.addNode(cpuNode("n0"));
    const PolicyRegistry registry = PolicyRegistry::withBuiltins();
    auto bad = Scheduler::create(c, Profile { "typo", { { "spraed", 1.0 } }, false }, registry, PolicyOptions {});
    QVERIFY(!bad);
    QCOMPARE(int(bad.error().code), int(ErrorCode::NotFound));
    QVERIFY(bad.error().message.find("spraed") != std::string::npos);
    auto negative = Scheduler::create(c, Profile { "neg", { { "spread", -1.0 } }, false }, registry, PolicyOptions {});
    QVERIFY(!negative);
    QCOMPARE(int(negative.error().code), int(ErrorCode::InvalidArgument));
    QVERIFY(!Scheduler::create(c, Profile { "empty", {}, false }, registry, PolicyOptions {}));
    const Profile mix { "mix", { { "spread", 1.0 }, { "energy", 0.5 } }, false };
    auto good = Scheduler::create(c, mix, registry, PolicyOptions {});
    QVERIFY(good);
    QVERIFY(*good != nullptr);
}

void TestPolicies::constructorSkipsUnknownPolicies()
{
    // The constructor keeps working for profiles that name a policy before it exists: the known ones still score.
    ClusterState c;
    const NodeId busy = c.addNode(cpuNode("busy", 8000));
    const NodeId idle = c.addNode(cpuNode("idle", 8000));
    occupy(c, busy, 100, 6000);
    auto s = makeScheduler(c, Profile { "future", { { "not-yet-written", 1.0 }, { "spread", 1.0 } }, false });
    QCOMPARE(addAndPlace(c, *s, cpuWorkload(1, 1000)), idle);
}

void TestPolicies::defaultProfileNamesKnownPolicies()
{
    const PolicyRegistry registry = PolicyRegistry::withBuiltins();
    const auto profile = builtinProfile("default", registry);
    QVERIFY(profile.has_value());
    QVERIFY(profile->preemption);
    const auto names = registry.names();
    for (const ProfileEntry& e : profile->entries)
        QVERIFY2(std::find(names.begin(), names.end(), e.policy) != names.end(), e.policy.c_str());
    QVERIFY(validateProfile(*profile, registry));
}

void TestPolicies::defaultProfilePrefersHomeTierAndNativeIsa()
{
    ClusterState c;
    c.addNode(cpuNode("warm-x86", 8000, 16384, Isa::X86_64, Tier::Warm));
    c.addNode(cpuNode("hot-arm", 8000, 16384, Isa::Aarch64, Tier::Hot));
    const NodeId hotX86 = c.addNode(cpuNode("hot-x86", 8000, 16384, Isa::X86_64, Tier::Hot));
    const PolicyRegistry registry = PolicyRegistry::withBuiltins();
    auto s = makeScheduler(c, *builtinProfile("default", registry));
    Workload w = cpuWorkload(1, 1000);
    w.latency = LatencyClass::RealTime;
    w.nativeIsas = isaBit(Isa::X86_64);
    w.allowTranslation = true;
    QCOMPARE(addAndPlace(c, *s, w), hotX86);
}

QTEST_APPLESS_MAIN(TestPolicies)
#include "tst_policies.moc"
