// Cross-ISA rules: a workload runs on a foreign ISA only through translation, and only where it permits it; a
// foreign node is otherwise rejected as "wrong ISA"; translated nodes are scored by the per-(source, target)
// slowdown factor, whose default is 1.15 and whose measured value changes the ranking.

#include "tests/core/cluster_builder.h"

#include <QtTest>

#include <limits>

using namespace tidepool;
using namespace tidepool::test;

namespace {

Workload x86Workload(WorkloadId id, bool allowTranslation)
{
    Workload w = cpuWorkload(id, 1000);
    w.nativeIsas = isaBit(Isa::X86_64);
    w.allowTranslation = allowTranslation;
    return w;
}

} // namespace

class TestCrossIsa : public QObject {
    Q_OBJECT

private slots:
    void translationOnlyWherePermitted_data();
    void translationOnlyWherePermitted();
    void anyIsaWorkloadRunsNativelyEverywhere();
    void unavailableTranslationIsWrongIsa();
    void defaultFactorIs115();
    void measuredFactorChangesRanking();
    void multiNativeWorkloadUsesBestFactor();
};

void TestCrossIsa::translationOnlyWherePermitted_data()
{
    QTest::addColumn<bool>("allowTranslation");
    QTest::addColumn<bool>("exhaustive");
    QTest::newRow("forbidden, exhaustive") << false << true;
    QTest::newRow("forbidden, indexed") << false << false;
    QTest::newRow("permitted, exhaustive") << true << true;
    QTest::newRow("permitted, indexed") << true << false;
}

void TestCrossIsa::translationOnlyWherePermitted()
{
    QFETCH(bool, allowTranslation);
    QFETCH(bool, exhaustive);
    ClusterState c;
    c.addNode(cpuNode("arm0", 8000, 16384, Isa::Aarch64));
    c.addNode(cpuNode("arm1", 8000, 16384, Isa::Aarch64));
    c.addNode(cpuNode("rv0", 8000, 16384, Isa::Riscv64));
    auto s = makeScheduler(c, singlePolicy("cross-isa"), exhaustive);
    QVERIFY(c.addWorkload(x86Workload(1, allowTranslation)));
    const Decision d = s->place(1);
    if (allowTranslation) {
        QVERIFY(d.placement.has_value());
        QVERIFY(d.placement->translated);
        QVERIFY(c.workload(1)->placement->translated);
    } else {
        QVERIFY(!d.placement.has_value());
        QCOMPARE(text(d.report.mainReason()), text(RejectReason::WrongIsa));
        QCOMPARE(d.report.rejected[std::size_t(RejectReason::WrongIsa)], 3);
        QCOMPARE(d.report.nodesConsidered, 3);
    }
}

void TestCrossIsa::anyIsaWorkloadRunsNativelyEverywhere()
{
    ClusterState c;
    const NodeId rv = c.addNode(cpuNode("rv", 8000, 16384, Isa::Riscv64));
    auto s = makeScheduler(c, singlePolicy("cross-isa"));
    Workload w = cpuWorkload(1, 1000); // nativeIsas 0: multi-arch image or interpreted
    QCOMPARE(addAndPlace(c, *s, w), rv);
    QVERIFY(!c.workload(1)->placement->translated);
}

void TestCrossIsa::unavailableTranslationIsWrongIsa()
{
    ClusterState c;
    c.addNode(cpuNode("rv", 8000, 16384, Isa::Riscv64));
    auto s = makeScheduler(c, singlePolicy("cross-isa"));
    // An infinite factor says no translator exists for the pair, e.g. an agent found qemu-user missing.
    s->slowdowns().set(Isa::X86_64, Isa::Riscv64, std::numeric_limits<double>::infinity());
    QVERIFY(c.addWorkload(x86Workload(1, true)));
    const Decision d = s->place(1);
    QVERIFY(!d.placement.has_value());
    QCOMPARE(text(d.report.mainReason()), text(RejectReason::WrongIsa));
}

void TestCrossIsa::defaultFactorIs115()
{
    const SlowdownTable table;
    QCOMPARE(table.factor(Isa::X86_64, Isa::Aarch64), 1.15);
    QCOMPARE(table.factor(Isa::Riscv64, Isa::X86_64), 1.15);
    QCOMPARE(table.factor(Isa::Aarch64, Isa::Aarch64), 1.0);
    QCOMPARE(kDefaultTranslationSlowdown, 1.15);

    // The policy turns the default into 100 / 1.15 = 87 for a translated node, 100 for a native one.
    ClusterState c;
    const NodeId arm = c.addNode(cpuNode("arm", 8000, 16384, Isa::Aarch64));
    const NodeId x86 = c.addNode(cpuNode("x86", 8000, 16384, Isa::X86_64));
    auto policy = PolicyRegistry::withBuiltins().make("cross-isa", PolicyOptions {});
    const ScoreContext ctx { c, table };
    const Workload w = x86Workload(1, true);
    Candidate onArm { arm, true, -1 };
    Candidate onX86 { x86, false, -1 };
    QCOMPARE(policy->score(ctx, c.node(arm), w, onArm), std::int64_t { 87 });
    QCOMPARE(policy->score(ctx, c.node(x86), w, onX86), std::int64_t { 100 });
}

void TestCrossIsa::measuredFactorChangesRanking()
{
    ClusterState c;
    const NodeId arm = c.addNode(cpuNode("arm", 8000, 16384, Isa::Aarch64));
    const NodeId rv = c.addNode(cpuNode("rv", 8000, 16384, Isa::Riscv64));
    auto s = makeScheduler(c, singlePolicy("cross-isa"));
    // Equal default factors: node order decides.
    QVERIFY(c.addWorkload(x86Workload(1, true)));
    QCOMPARE(s->place(1, true).placement->node, arm);
    // An agent measures x86_64 on aarch64 at 2.0: the riscv64 node (still 1.15) now ranks first.
    s->slowdowns().set(Isa::X86_64, Isa::Aarch64, 2.0);
    QCOMPARE(s->place(1, true).placement->node, rv);
    // And riscv64 measured at 3.0 sends it back.
    s->slowdowns().set(Isa::X86_64, Isa::Riscv64, 3.0);
    QCOMPARE(s->place(1, true).placement->node, arm);
}

void TestCrossIsa::multiNativeWorkloadUsesBestFactor()
{
    SlowdownTable table;
    table.set(Isa::X86_64, Isa::Riscv64, 1.8);
    table.set(Isa::Aarch64, Isa::Riscv64, 1.3);
    QCOMPARE(table.bestFactor(isaBit(Isa::X86_64) | isaBit(Isa::Aarch64), Isa::Riscv64), 1.3);
    QCOMPARE(table.bestFactor(isaBit(Isa::X86_64), Isa::Riscv64), 1.8);
    QCOMPARE(table.bestFactor(isaBit(Isa::X86_64) | isaBit(Isa::Aarch64), Isa::Aarch64), 1.0);
}

QTEST_APPLESS_MAIN(TestCrossIsa)
#include "tst_crossisa.moc"
