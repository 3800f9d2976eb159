// Priority with preemption: victims are the lowest priorities first (newest first within one), never of equal or
// higher priority than the workload; the fewest victims win; a dry run changes nothing; with only equal-priority
// residents the workload stays pending; if a placement fails, nobody is evicted for nothing.

#include "tests/core/cluster_builder.h"

#include <QtTest>

using namespace tidepool;
using namespace tidepool::test;

namespace {

// Binds a CPU-only resident of `priority` directly on `node`.
void resident(ClusterState& c, NodeId node, WorkloadId id, std::int64_t cpuMillis, std::int32_t priority)
{
    QVERIFY(c.addWorkload(cpuWorkload(id, cpuMillis, 0, priority)));
    QVERIFY(c.bind(Placement { id, node, {}, false }));
}

std::unique_ptr<Scheduler> preemptingScheduler(ClusterState& c)
{
    return makeScheduler(c, Profile { "preempt", { { "priority", 1.0 } }, true });
}

struct State {
    std::vector<Resources> free;
    std::vector<std::vector<WorkloadId>> residents;
    std::vector<std::int32_t> deviceFree;
    std::uint64_t version = 0;

    explicit State(const ClusterState& c)
    {
        for (const Node& n : c.nodes()) {
            free.push_back(n.free);
            residents.push_back(n.residents);
            for (const Device& d : n.devices)
                deviceFree.push_back(d.shareFree);
        }
        version = c.version();
    }
    bool operator==(const State&) const = default;
};

} // namespace

class TestPreemption : public QObject {
    Q_OBJECT

private slots:
    void evictsLowestPriorityNodeFirst();
    void evictsNewestWithinLowestPriority();
    void neverEvictsEqualOrHigherPriority_data();
    void neverEvictsEqualOrHigherPriority();
    void prefersFewestVictims();
    void keepsVictimsThatDoNotHelp();
    void freesAcceleratorShare();
    void dryRunChangesNothing();
    void profileWithoutPreemptionEvictsNothing();
    void equalCostsGoToTheTieOrder_data();
    void equalCostsGoToTheTieOrder();
    void aNodeItIsKeptOffIsNoPlaceToPreempt();
};

void TestPreemption::evictsLowestPriorityNodeFirst()
{
    ClusterState c;
    const NodeId n0 = c.addNode(cpuNode("n0", 4000));
    const NodeId n1 = c.addNode(cpuNode("n1", 4000));
    resident(c, n0, 10, 4000, 3);
    resident(c, n1, 11, 4000, 1);
    auto s = preemptingScheduler(c);
    QVERIFY(c.addWorkload(cpuWorkload(1, 2000, 0, 5)));
    const Decision d = s->place(1);
    QVERIFY(d.placement.has_value());
    QCOMPARE(d.placement->node, n1);
    QCOMPARE(d.victims, std::vector<WorkloadId> { 11 });
    QVERIFY(!c.workload(11)->placement.has_value()); // evicted, still known, pending
    QVERIFY(c.workload(10)->placement.has_value());
    QVERIFY(c.checkInvariants());
}

void TestPreemption::evictsNewestWithinLowestPriority()
{
    ClusterState c;
    const NodeId n = c.addNode(cpuNode("n", 4000));
    resident(c, n, 10, 1000, 1); // oldest priority 1
    resident(c, n, 11, 1000, 2);
    resident(c, n, 12, 1000, 1); // newest priority 1: the least sunk work
    resident(c, n, 13, 1000, 1);
    auto s = preemptingScheduler(c);
    QVERIFY(c.addWorkload(cpuWorkload(1, 2000, 0, 5)));
    const Decision d = s->place(1);
    QVERIFY(d.placement.has_value());
    QCOMPARE(d.victims, (std::vector<WorkloadId> { 13, 12 }));
    QVERIFY(c.workload(10)->placement.has_value());
    QVERIFY(c.workload(11)->placement.has_value());
}

void TestPreemption::neverEvictsEqualOrHigherPriority_data()
{
    QTest::addColumn<int>("residentPriority");
    QTest::newRow("equal priority") << 5;
    QTest::newRow("higher priority") << 7;
}

void TestPreemption::neverEvictsEqualOrHigherPriority()
{
    QFETCH(int, residentPriority);
    ClusterState c;
    const NodeId n = c.addNode(cpuNode("n", 4000));
    resident(c, n, 10, 3000, residentPriority);
    resident(c, n, 11, 1000, residentPriority);
    auto s = preemptingScheduler(c);
    QVERIFY(c.addWorkload(cpuWorkload(1, 2000, 0, 5)));
    const State before(c);
    const Decision d = s->place(1);
    QVERIFY(!d.placement.has_value());
    QVERIFY(d.victims.empty());
    QCOMPARE(text(d.report.mainReason()), text(RejectReason::InsufficientCpu));
    QVERIFY(State(c) == before);
}

void TestPreemption::prefersFewestVictims()
{
    ClusterState c;
    const NodeId two = c.addNode(cpuNode("two", 4000));
    const NodeId one = c.addNode(cpuNode("one", 4000));
    resident(c, two, 10, 2000, 1);
    resident(c, two, 11, 2000, 1);
    resident(c, one, 12, 4000, 1);
    auto s = preemptingScheduler(c);
    QVERIFY(c.addWorkload(cpuWorkload(1, 3000, 0, 5)));
    const Decision d = s->place(1);
    QVERIFY(d.placement.has_value());
    QCOMPARE(d.placement->node, one);
    QCOMPARE(d.victims, std::vector<WorkloadId> { 12 });
}

void TestPreemption::keepsVictimsThatDoNotHelp()
{
    ClusterState c;
    const ModelId a100 = c.internModel("A100");
    const NodeId n = c.addNode(acceleratorNode("gpu", AcceleratorKind::Gpu, a100, 1));
    // The lowest-priority resident uses only CPU; evicting it would not free any GPU share.
    resident(c, n, 10, 1000, 1);
    QVERIFY(c.addWorkload(acceleratorWorkload(11, AcceleratorKind::Gpu, 1, 800, 0, 2)));
    QVERIFY(c.bind(Placement { 11, n, { { 0, 800, 0 } }, false }));
    auto s = preemptingScheduler(c);
    QVERIFY(c.addWorkload(acceleratorWorkload(1, AcceleratorKind::Gpu, 1, 500, 0, 5)));
    const Decision d = s->place(1);
    QVERIFY(d.placement.has_value());
    QCOMPARE(d.victims, std::vector<WorkloadId> { 11 });
    QVERIFY(c.workload(10)->placement.has_value());
    QVERIFY(c.checkInvariants());
}

void TestPreemption::freesAcceleratorShare()
{
    ClusterState c;
    const ModelId a100 = c.internModel("A100");
    const PoolId pool = c.addPool(makePool("gpu"));
    const NodeId n = c.addNode(acceleratorNode("gpu", AcceleratorKind::Gpu, a100, 1));
    QVERIFY(c.attach(pool, n));
    Workload low = acceleratorWorkload(10, AcceleratorKind::Gpu, 1, 700, 0, 1);
    low.pool = pool;
    QVERIFY(c.addWorkload(low));
    QVERIFY(c.bind(Placement { 10, n, { { 0, 700, 0 } }, false }));
    auto s = preemptingScheduler(c);
    Workload high = acceleratorWorkload(1, AcceleratorKind::Gpu, 1, 600, 0, 4);
    high.pool = pool;
    QVERIFY(c.addWorkload(high));
    const Decision d = s->place(1);
    QVERIFY(d.placement.has_value());
    QCOMPARE(d.victims, std::vector<WorkloadId> { 10 });
    QCOMPARE(c.node(n).devices[0].shareFree, 400);
    QCOMPARE(c.pool(pool).acceleratorUsed[std::size_t(AcceleratorKind::Gpu)], std::int64_t { 600 });
    QVERIFY(c.checkInvariants());
}

void TestPreemption::dryRunChangesNothing()
{
    ClusterState c;
    const ModelId a100 = c.internModel("A100");
    const NodeId n = c.addNode(acceleratorNode("gpu", AcceleratorKind::Gpu, a100, 1));
    QVERIFY(c.addWorkload(acceleratorWorkload(10, AcceleratorKind::Gpu, 1, 700, 0, 1)));
    QVERIFY(c.bind(Placement { 10, n, { { 0, 700, 0 } }, false }));
    auto s = preemptingScheduler(c);
    QVERIFY(c.addWorkload(acceleratorWorkload(1, AcceleratorKind::Gpu, 1, 600, 0, 4)));
    const State before(c);

    const Decision dry = s->place(1, true);
    QVERIFY(State(c) == before);
    QVERIFY(c.workload(10)->placement.has_value());
    QVERIFY(!c.workload(1)->placement.has_value());
    // The dry run still says what would happen: the victims, and a placement complete with its device share.
    QCOMPARE(dry.victims, std::vector<WorkloadId> { 10 });
    QVERIFY(dry.placement.has_value());
    QCOMPARE(dry.placement->node, n);
    QCOMPARE(dry.placement->shares.size(), std::size_t { 1 });
    QCOMPARE(dry.placement->shares[0].share, 600);

    // And the real run does what the dry run said.
    const Decision real = s->place(1);
    QCOMPARE(real.victims, dry.victims);
    QVERIFY(real.placement.has_value());
    QCOMPARE(real.placement->node, dry.placement->node);
    QVERIFY(c.checkInvariants());
}

void TestPreemption::profileWithoutPreemptionEvictsNothing()
{
    ClusterState c;
    const NodeId n = c.addNode(cpuNode("n", 4000));
    resident(c, n, 10, 4000, 0);
    auto s = makeScheduler(c, singlePolicy("spread", false));
    QVERIFY(c.addWorkload(cpuWorkload(1, 1000, 0, 9)));
    const Decision d = s->place(1);
    QVERIFY(!d.placement.has_value());
    QVERIFY(d.victims.empty());
    QVERIFY(c.workload(10)->placement.has_value());
}

void TestPreemption::equalCostsGoToTheTieOrder_data()
{
    QTest::addColumn<bool>("reversed");
    QTest::newRow("node order") << false;
    QTest::newRow("reversed tie rank") << true;
}

void TestPreemption::equalCostsGoToTheTieOrder()
{
    // Five nodes, each full with one resident of the same lowest priority: every choice costs the same, so the tie
    // order decides, even though the search stops early once no remaining node can cost less.
    QFETCH(bool, reversed);
    ClusterState c;
    constexpr int kNodes = 5;
    for (int i = 0; i < kNodes; ++i) {
        const NodeId n = c.addNode(cpuNode("n" + std::to_string(i), 4000));
        resident(c, n, 10 + i, 4000, 1);
    }
    SchedulerConfig config;
    config.exhaustive = true;
    for (int i = 0; i < kNodes; ++i)
        config.tieRank.push_back(static_cast<std::uint32_t>(reversed ? kNodes - 1 - i : i));
    auto created = Scheduler::create(c, Profile { "preempt", { { "priority", 1.0 } }, true },
        PolicyRegistry::withBuiltins(), PolicyOptions {}, config);
    QVERIFY(created.has_value());
    QVERIFY(c.addWorkload(cpuWorkload(1, 2000, 0, 5)));
    const Decision d = (*created)->place(1);
    QVERIFY(d.placement.has_value());
    const NodeId expected = reversed ? kNodes - 1 : 0;
    QCOMPARE(d.placement->node, expected);
    QCOMPARE(d.victims, std::vector<WorkloadId> { 10 + expected });
    QVERIFY(c.checkInvariants());
}

// A workload kept off a node (another workload runs under its id there) neither lands there nor evicts anyone there,
// though the node is the cheapest to preempt on; allowed on it again, it does.
void TestPreemption::aNodeItIsKeptOffIsNoPlaceToPreempt()
{
    ClusterState c;
    const NodeId n0 = c.addNode(cpuNode("n0", 4000));
    const NodeId n1 = c.addNode(cpuNode("n1", 4000));
    resident(c, n0, 10, 4000, 3);
    resident(c, n1, 11, 4000, 1);
    auto s = preemptingScheduler(c);
    QVERIFY(c.addWorkload(cpuWorkload(1, 2000, 0, 5)));
    s->keepOff(1, n1);
    bool translated = false;
    QCOMPARE(toString(s->check(c.node(n1), c.workload(1)->workload, translated)), toString(RejectReason::IdHeldThere));
    const Decision d = s->place(1, true);
    QVERIFY(d.placement.has_value());
    QCOMPARE(d.placement->node, n0);
    QCOMPARE(d.victims, std::vector<WorkloadId> { 10 });
    s->allowOn(1, n1);
    QVERIFY(!s->keepsOffAnywhere(1));
    const Decision again = s->place(1, true);
    QVERIFY(again.placement.has_value());
    QCOMPARE(again.placement->node, n1);
}

QTEST_APPLESS_MAIN(TestPreemption)
#include "tst_preemption.moc"
