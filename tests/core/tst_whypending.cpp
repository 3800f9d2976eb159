// "Why pending" and "why here": a failed placement reports one main reason and the count of nodes rejected for each
// reason, summing to the nodes considered; a successful one carries the same structure. Both hold in the exhaustive
// mode and in the default indexed, bounded mode.

#include "tests/core/cluster_builder.h"

#include "core/sched/class_matcher.h"

#include <QtTest>

#include <limits>
#include <map>
#include <numeric>

using namespace tidepool;
using namespace tidepool::test;

namespace {

std::int32_t count(const FilterReport& r, RejectReason reason)
{
    return r.rejected[std::size_t(reason)];
}

std::int32_t rejectedTotal(const FilterReport& r)
{
    return std::accumulate(r.rejected.begin(), r.rejected.end(), 0);
}

// A cluster where every node rejects the zoo workload (a real-time x86_64 job in pool "inference" asking for half an
// A100) for one reason of its own, with wrong-ISA nodes the most common. With `withFeasible` one node fits.
struct Zoo {
    ClusterState cluster;
    std::map<RejectReason, std::int32_t> expected;
    PoolId pool = kNoPool;
    ModelId a100 = kNoModel;
    bool built = true; // every attach, add and bind of the setup succeeded

    explicit Zoo(bool withFeasible)
    {
        a100 = cluster.internModel("A100");
        const ModelId t4 = cluster.internModel("T4");
        pool = cluster.addPool(makePool("inference"));
        auto add = [&](Node n, RejectReason why, bool inPool = true) {
            const NodeId id = cluster.addNode(std::move(n));
            if (inPool)
                built = built && cluster.attach(pool, id).has_value();
            if (why != RejectReason::None)
                ++expected[why];
            return id;
        };
        auto gpu = [&](const char* name, ModelId model = kNoModel, Isa isa = Isa::X86_64, Tier tier = Tier::Hot) {
            const ModelId m = model == kNoModel ? a100 : model;
            return acceleratorNode(name, AcceleratorKind::Gpu, m, 1, 1000, 16384, isa, tier);
        };
        Node cordoned = gpu("cordoned");
        cordoned.schedulable = false;
        add(cordoned, RejectReason::Unschedulable);
        add(gpu("elsewhere"), RejectReason::NotInPool, false);
        add(gpu("cold", kNoModel, Isa::X86_64, Tier::Cold), RejectReason::TierNotAllowed);
        for (const char* name : { "arm0", "arm1", "arm2" })
            add(gpu(name, kNoModel, Isa::Aarch64), RejectReason::WrongIsa);
        add(cpuNode("cpu-only", 8000, 16384, Isa::X86_64, Tier::Hot), RejectReason::NoAccelerator);
        add(gpu("t4", t4), RejectReason::WrongAcceleratorModel);
        for (const char* name : { "busy0", "busy1" }) {
            const NodeId id = add(gpu(name), RejectReason::InsufficientAcceleratorShare);
            Workload filler = acceleratorWorkload(1000 + id, AcceleratorKind::Gpu, 1, 800);
            built = built && cluster.addWorkload(filler).has_value()
                && cluster.bind(Placement { filler.id, id, { { 0, 800, 0 } }, false }).has_value();
        }
        Node smallCpu = gpu("small-cpu");
        smallCpu.capacity.cpuMillis = 500;
        add(smallCpu, RejectReason::InsufficientCpu);
        Node smallMemory = gpu("small-memory");
        smallMemory.capacity.memoryMiB = 512;
        add(smallMemory, RejectReason::InsufficientMemory);
        if (withFeasible)
            add(gpu("fits"), RejectReason::None);
        built = built && cluster.addWorkload(workload(1)).has_value();
    }

    Workload workload(WorkloadId id) const
    {
        Workload w = acceleratorWorkload(id, AcceleratorKind::Gpu, 1, 500, 1024);
        w.latency = LatencyClass::RealTime;
        w.nativeIsas = isaBit(Isa::X86_64);
        w.pool = pool;
        w.accelerators.allowedModels = { a100 };
        return w;
    }
};

} // namespace

class TestWhyPending : public QObject {
    Q_OBJECT

private slots:
    void failureCountsEveryReason_data();
    void failureCountsEveryReason();
    void successExplainsWhyHere_data();
    void successExplainsWhyHere();
    void singleReasonClusters_data();
    void singleReasonClusters();
    void keptClassMatchesEqualFreshOnes();
};

void TestWhyPending::failureCountsEveryReason_data()
{
    QTest::addColumn<bool>("exhaustive");
    QTest::newRow("exhaustive") << true;
    QTest::newRow("indexed") << false;
}

void TestWhyPending::failureCountsEveryReason()
{
    QFETCH(bool, exhaustive);
    Zoo zoo(false);
    QVERIFY(zoo.built);
    auto s = makeScheduler(zoo.cluster, singlePolicy("tier"), exhaustive);
    const Decision d = s->place(1);
    QVERIFY(!d.placement.has_value());
    QCOMPARE(text(d.report.mainReason()), text(RejectReason::WrongIsa));
    QCOMPARE(d.report.feasible, 0);
    QCOMPARE(d.report.nodesConsidered, std::int32_t(zoo.cluster.nodes().size()));
    QCOMPARE(rejectedTotal(d.report), d.report.nodesConsidered);
    for (std::size_t i = 1; i < kRejectReasonCount; ++i) {
        const auto reason = static_cast<RejectReason>(i);
        const auto it = zoo.expected.find(reason);
        QVERIFY2(count(d.report, reason) == (it == zoo.expected.end() ? 0 : it->second), toString(reason).data());
    }
    const std::string why = d.reason();
    QVERIFY2(why.rfind("pending: wrong ISA and no translation; 0/12 nodes feasible: 3 wrong ISA", 0) == 0, why.c_str());
    QVERIFY(zoo.cluster.checkInvariants());
}

void TestWhyPending::successExplainsWhyHere_data()
{
    QTest::addColumn<bool>("exhaustive");
    QTest::newRow("exhaustive") << true;
    QTest::newRow("indexed") << false;
}

void TestWhyPending::successExplainsWhyHere()
{
    QFETCH(bool, exhaustive);
    Zoo zoo(true);
    QVERIFY(zoo.built);
    auto s = makeScheduler(zoo.cluster, singlePolicy("tier"), exhaustive);
    const Decision d = s->place(1);
    QVERIFY(d.placement.has_value());
    QCOMPARE(zoo.cluster.node(d.placement->node).name, std::string("fits"));
    QCOMPARE(d.report.feasible, 1);
    QCOMPARE(rejectedTotal(d.report) + d.report.feasible, d.report.nodesConsidered);
    QVERIFY(d.reason().rfind("placed on node ", 0) == 0);
    if (exhaustive) {
        QCOMPARE(d.report.nodesConsidered, std::int32_t(zoo.cluster.nodes().size()));
        for (const auto& [reason, n] : zoo.expected)
            QVERIFY2(count(d.report, reason) == n, toString(reason).data());
    } else {
        // The index rejects whole classes of nodes in bulk (and counts them) and never visits nodes whose free
        // capacity key is below the request, so every count is either exact or zero, and the visited nodes add up.
        QVERIFY(d.report.nodesConsidered <= std::int32_t(zoo.cluster.nodes().size()));
        for (const auto& [reason, n] : zoo.expected)
            QVERIFY2(count(d.report, reason) == n || count(d.report, reason) == 0, toString(reason).data());
        for (RejectReason bulk : { RejectReason::NotInPool, RejectReason::TierNotAllowed, RejectReason::WrongIsa,
                 RejectReason::NoAccelerator, RejectReason::WrongAcceleratorModel })
            QVERIFY2(count(d.report, bulk) == zoo.expected[bulk], toString(bulk).data());
    }
}

void TestWhyPending::singleReasonClusters_data()
{
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<bool>("exhaustive");
    QTest::addColumn<int>("expected"); // RejectReason, counted on all 3 nodes
    for (bool exhaustive : { true, false }) {
        const char* mode = exhaustive ? "exhaustive" : "indexed";
        auto row = [&](const char* scenario, RejectReason reason) {
            QTest::addRow("%s, %s", scenario, mode) << QString::fromLatin1(scenario) << exhaustive << int(reason);
        };
        row("pool quota exhausted", RejectReason::PoolQuotaExhausted);
        row("peak reserved", RejectReason::PeakReserved);
        row("insufficient GPU share", RejectReason::InsufficientAcceleratorShare);
        row("tier not allowed", RejectReason::TierNotAllowed);
        row("pool on another tier", RejectReason::TierNotAllowed);
        row("insufficient GPU memory", RejectReason::InsufficientAcceleratorMemory);
        row("whole GPU short of memory", RejectReason::InsufficientAcceleratorMemory);
        row("whole GPU on a shared one", RejectReason::NotEnoughIdleAccelerators);
    }
}

void TestWhyPending::singleReasonClusters()
{
    QFETCH(QString, scenario);
    QFETCH(bool, exhaustive);
    QFETCH(int, expected);
    ClusterState c;
    const ModelId a100 = c.internModel("A100");
    const PoolId pool = c.addPool(makePool("p", 2000));
    Workload w = acceleratorWorkload(1, AcceleratorKind::Gpu, 1, 500);
    w.pool = pool;
    for (int i = 0; i < 3; ++i) {
        Node n = acceleratorNode(
            "n" + std::to_string(i), AcceleratorKind::Gpu, a100, 1, 1000, 16384, Isa::X86_64, Tier::Hot);
        n.peakReserved = scenario == QLatin1String("peak reserved");
        QVERIFY(c.attach(pool, c.addNode(n)));
    }
    if (scenario == QLatin1String("pool quota exhausted")) {
        w.requests.cpuMillis = 3000; // every node has 32000 millicores, the pool only 2000
    } else if (scenario == QLatin1String("peak reserved")) {
        w.latency = LatencyClass::Batch;
    } else if (scenario == QLatin1String("insufficient GPU share")) {
        w.accelerators.sharePerDevice = 1200;
    } else if (scenario == QLatin1String("pool on another tier")) {
        c.mutablePool(pool).tier = Tier::Warm; // real-time work, hot nodes: only the pool's tier keeps it off
        w.latency = LatencyClass::RealTime;
    } else if (scenario == QLatin1String("insufficient GPU memory")) {
        w.accelerators.memoryMiBPerDevice = 20000; // half a GPU is free on each, 16384 MiB of memory
    } else if (scenario == QLatin1String("whole GPU short of memory")) {
        w.accelerators.sharePerDevice = 0;
        w.accelerators.memoryMiBPerDevice = 20000;
    } else if (scenario == QLatin1String("whole GPU on a shared one")) {
        w.accelerators.sharePerDevice = 0; // half of each GPU is free, so none is whole
        for (NodeId n = 0; n < 3; ++n) {
            const Workload half = acceleratorWorkload(100 + n, AcceleratorKind::Gpu, 1, 500);
            QVERIFY(c.addWorkload(half));
            QVERIFY(c.bind(Placement { half.id, n, { { 0, 500, 0 } }, false }));
        }
    } else {
        w.latency = LatencyClass::LatencySensitive; // warm only, and every node is hot
    }
    QVERIFY(c.addWorkload(w));
    auto s = makeScheduler(c, singlePolicy("tier"), exhaustive);
    const Decision d = s->place(1);
    QVERIFY(!d.placement.has_value());
    QCOMPARE(text(d.report.mainReason()), text(static_cast<RejectReason>(expected)));
    QCOMPARE(count(d.report, static_cast<RejectReason>(expected)), 3);
    QCOMPARE(d.report.nodesConsidered, 3);
}

void TestWhyPending::keptClassMatchesEqualFreshOnes()
{
    // The index walk keeps the static class checks per workload signature. Whatever the workload, a kept result must
    // equal one computed afresh, also after the slowdown table changes and after the index is rebuilt.
    Zoo zoo(true);
    QVERIFY(zoo.built);
    NodeIndex index;
    index.rebuild(zoo.cluster);
    SlowdownTable slowdowns;
    std::vector<Workload> workloads;
    for (bool pooled : { false, true })
        for (LatencyClass latency : { LatencyClass::RealTime, LatencyClass::LatencySensitive, LatencyClass::Batch })
            for (IsaMask isas : { IsaMask { 0 }, isaBit(Isa::X86_64), isaBit(Isa::Aarch64) })
                for (int accelerator = 0; accelerator < 3; ++accelerator) {
                    Workload w = accelerator == 0 ? cpuWorkload(7, 1000) : zoo.workload(7);
                    if (accelerator == 1)
                        w.accelerators.allowedModels.clear();
                    w.pool = pooled ? zoo.pool : kNoPool;
                    w.latency = latency;
                    w.nativeIsas = isas;
                    w.allowTranslation = isas == isaBit(Isa::Aarch64);
                    workloads.push_back(w);
                }
    ClassMatcher kept;
    auto compareAll = [&] {
        for (int pass = 0; pass < 2; ++pass) // the second pass reads what the first one kept
            for (const Workload& w : workloads)
                for (const Tier poolTier : { Tier::Invalid, Tier::Hot, Tier::Cold }) {
                    ClassMatcher fresh;
                    const ClassMatcher::Result& expected = fresh.match(index, w, poolTier, slowdowns);
                    const ClassMatcher::Result& got = kept.match(index, w, poolTier, slowdowns);
                    QCOMPARE(got.rejected.rejected, expected.rejected.rejected);
                    QCOMPARE(got.rejected.nodesConsidered, expected.rejected.nodesConsidered);
                    QCOMPARE(got.matching.size(), expected.matching.size());
                    for (std::size_t i = 0; i < got.matching.size(); ++i) {
                        QCOMPARE(got.matching[i].cls, expected.matching[i].cls);
                        QCOMPARE(got.matching[i].translated, expected.matching[i].translated);
                        QCOMPARE(got.matching[i].peakSensitive, expected.matching[i].peakSensitive);
                    }
                }
    };
    compareAll();
    // Translation from aarch64 to x86_64 becomes impossible: translated classes stop matching.
    slowdowns.set(Isa::Aarch64, Isa::X86_64, std::numeric_limits<double>::infinity());
    compareAll();
    // A node is cordoned and the index rebuilt: the class counts change.
    Node extra = acceleratorNode("late", AcceleratorKind::Gpu, zoo.a100, 1);
    extra.schedulable = false;
    zoo.cluster.addNode(std::move(extra));
    index.rebuild(zoo.cluster);
    compareAll();
}

QTEST_APPLESS_MAIN(TestWhyPending)
#include "tst_whypending.moc"
