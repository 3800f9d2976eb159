// The resource model's bookkeeping: binds and unbinds keep node, device and pool usage exact; a refused bind changes
// nothing; pools, fractional GPUs, whole multi-device requests, NPU cores and FPGA slots are accounted as promised;
// `checkInvariants` notices corruption.

#include "core/model/usage_histogram.h"
#include "tests/core/cluster_builder.h"

#include <QtTest>

using namespace tidepool;
using namespace tidepool::test;

namespace {

// Everything a refused bind must leave untouched.
struct Snapshot {
    std::vector<Resources> nodeFree;
    std::vector<std::vector<std::pair<std::int32_t, std::int64_t>>> deviceFree;
    std::vector<Resources> poolUsed;
    std::vector<std::array<std::int64_t, kAcceleratorKindCount>> poolAcceleratorUsed;
    std::vector<std::size_t> residents;
    std::size_t placed = 0;
    std::vector<std::int64_t> poolPlaced;
    std::uint64_t version = 0;

    explicit Snapshot(const ClusterState& c)
    {
        for (const Node& n : c.nodes()) {
            nodeFree.push_back(n.free);
            residents.push_back(n.residents.size());
            deviceFree.emplace_back();
            for (const Device& d : n.devices)
                deviceFree.back().emplace_back(d.shareFree, d.memoryFreeMiB);
        }
        for (const Pool& p : c.pools()) {
            poolUsed.push_back(p.used);
            poolAcceleratorUsed.push_back(p.acceleratorUsed);
            poolPlaced.push_back(p.placed);
        }
        placed = c.placedCount();
        version = c.version();
    }
    bool operator==(const Snapshot&) const = default;
};

Placement placementOn(WorkloadId w, NodeId node, std::vector<DeviceShare> shares = {})
{
    return Placement { w, node, std::move(shares), false };
}

} // namespace

class TestModel : public QObject {
    Q_OBJECT

private slots:
    void bindAndUnbindKeepUsageExact();
    void refusedBindChangesNothing_data();
    void refusedBindChangesNothing();
    void workloadFitsOnlyInsidePoolQuotaAndNodeCapacity();
    void fractionalGpusShareOneDevice();
    void multiDeviceRequestTakesWholeDevicesOnOneNode();
    void npuCoresAreCountedPerDevice();
    void fpgaFunctionsShareOneDeviceInTimeSlices();
    void checkInvariantsDetectsCorruption_data();
    void checkInvariantsDetectsCorruption();
    void clipTextCutsBetweenCharacters();
    void usageHistogramPercentilesFollowRecentUse();
    void usageHistogramRoundTripsAndRefusesDamage();
};

// Names quoted in error messages are cut to a length, never inside a UTF-8 character (which a reply would show as
// U+FFFD), and say where they were cut.
void TestModel::clipTextCutsBetweenCharacters()
{
    QCOMPARE(clipText("short", 64), std::string("short"));
    QCOMPARE(clipText("abcdef", 6), std::string("abcdef"));
    QCOMPARE(clipText("abcdef", 4), std::string("abcd…"));
    // "é" is two bytes (C3 A9), "水" three (E6 B0 B4): a cut at byte 4 would fall inside the second "水".
    QCOMPARE(clipText("a水水", 5), std::string("a水…"));
    QCOMPARE(clipText("a水水", 4), std::string("a水…"));
    QCOMPARE(clipText("a水水", 7), std::string("a水水"));
    QCOMPARE(clipText("éé", 3), std::string("é…"));
    QCOMPARE(clipText("水", 2), std::string("…"));
}

void TestModel::bindAndUnbindKeepUsageExact()
{
    ClusterState c;
    const PoolId pool = c.addPool(makePool("web"));
    const NodeId n = c.addNode(cpuNode("n0", 4000, 8192));
    QVERIFY(c.attach(pool, n));
    Workload w = cpuWorkload(1, 1000, 1024);
    w.pool = pool;
    QVERIFY(c.addWorkload(w));
    const std::uint64_t nodeVersion = c.node(n).version;

    QVERIFY(c.bind(placementOn(1, n)));
    QCOMPARE(c.node(n).free, (Resources { 3000, 7168, 0, 0 }));
    QCOMPARE(c.pool(pool).used, (Resources { 1000, 1024, 0, 0 }));
    QCOMPARE(c.node(n).residents, std::vector<WorkloadId> { 1 });
    QCOMPARE(c.placedCount(), std::size_t { 1 });
    QCOMPARE(c.pool(pool).placed, std::int64_t { 1 });
    QVERIFY(c.node(n).version > nodeVersion);
    QVERIFY(c.workload(1)->placement.has_value());
    QVERIFY(c.checkInvariants());

    QVERIFY(c.unbind(1));
    QCOMPARE(c.node(n).free, c.node(n).capacity);
    QCOMPARE(c.pool(pool).used, Resources {});
    QVERIFY(c.node(n).residents.empty());
    QCOMPARE(c.placedCount(), std::size_t { 0 });
    QCOMPARE(c.pool(pool).placed, std::int64_t { 0 });
    QVERIFY(!c.workload(1)->placement.has_value());
    QVERIFY(c.checkInvariants());
    QVERIFY(!c.unbind(1)); // unbinding twice is refused

    // A workload that asks for nothing still holds its pool: the pool cannot be deleted under it.
    Workload idle = cpuWorkload(2, 0, 0);
    idle.pool = pool;
    QVERIFY(c.addWorkload(idle));
    QVERIFY(c.bind(placementOn(2, n)));
    QCOMPARE(c.pool(pool).used, Resources {});
    const auto refused = c.removePool(pool);
    QVERIFY(!refused);
    QCOMPARE(refused.error().message, std::string("pool web still holds placed workloads"));
    QVERIFY(c.unbind(2));
    QVERIFY(c.removePool(pool));
}

void TestModel::refusedBindChangesNothing_data()
{
    QTest::addColumn<int>("workloadCpu");
    QTest::addColumn<int>("workloadMemory");
    QTest::addColumn<int>("gpuShare"); // 0 = CPU-only workload
    QTest::addColumn<int>("device"); // device the placement names
    QTest::addColumn<bool>("namedTwice"); // the placement names the device twice
    QTest::addColumn<int>("node"); // node the placement names
    QTest::addColumn<int>("expectedCode"); // ErrorCode

    const int capacity = int(ErrorCode::CapacityExceeded);
    const int invalid = int(ErrorCode::InvalidArgument);
    const int notFound = int(ErrorCode::NotFound);
    QTest::newRow("CPU over node capacity") << 9000 << 0 << 0 << -1 << false << 0 << capacity;
    QTest::newRow("memory over node capacity") << 1000 << 99999 << 0 << -1 << false << 0 << capacity;
    QTest::newRow("CPU over pool quota") << 5000 << 0 << 0 << -1 << false << 0 << capacity;
    QTest::newRow("GPU share over device free share") << 1000 << 0 << 600 << 0 << false << 0 << capacity;
    QTest::newRow("device named twice") << 1000 << 0 << 200 << 1 << true << 0 << invalid;
    QTest::newRow("device does not exist") << 1000 << 0 << 200 << 7 << false << 0 << notFound;
    QTest::newRow("node outside the workload's pool") << 1000 << 0 << 0 << -1 << false << 1 << invalid;
    QTest::newRow("node does not exist") << 1000 << 0 << 0 << -1 << false << 42 << notFound;
    QTest::newRow("GPU workload without its device") << 1000 << 0 << 200 << -1 << false << 0 << invalid;
}

void TestModel::refusedBindChangesNothing()
{
    QFETCH(int, workloadCpu);
    QFETCH(int, workloadMemory);
    QFETCH(int, gpuShare);
    QFETCH(int, device);
    QFETCH(bool, namedTwice);
    QFETCH(int, node);
    QFETCH(int, expectedCode);

    ClusterState c;
    const ModelId a100 = c.internModel("A100");
    const PoolId pool = c.addPool(makePool("quota", 4000));
    Node gpu = acceleratorNode("gpu", AcceleratorKind::Gpu, a100, 2);
    gpu.capacity = { 8000, 16384, 0, 0 };
    const NodeId n0 = c.addNode(gpu);
    c.addNode(cpuNode("outside"));
    QVERIFY(c.attach(pool, n0));
    // Something already placed, so that "nothing changed" covers non-empty state.
    Workload resident = acceleratorWorkload(1, AcceleratorKind::Gpu, 1, 500);
    resident.pool = pool;
    QVERIFY(c.addWorkload(resident));
    QVERIFY(c.bind(placementOn(1, n0, { { 0, 500, 0 } })));

    Workload w = cpuWorkload(2, workloadCpu, workloadMemory);
    w.pool = pool;
    std::vector<DeviceShare> shares;
    if (gpuShare > 0) {
        w.accelerators = { AcceleratorKind::Gpu, 1, gpuShare, 0, {} };
        if (device >= 0)
            shares.push_back({ static_cast<std::int16_t>(device), gpuShare, 0 });
        if (namedTwice)
            shares.push_back(shares.back());
    }
    QVERIFY(c.addWorkload(w));
    const Snapshot before(c);

    const auto result = c.bind(placementOn(2, node, shares));
    QVERIFY(!result);
    QCOMPARE(int(result.error().code), expectedCode);
    QVERIFY(!result.error().message.empty());
    QVERIFY(Snapshot(c) == before);
    QVERIFY(!c.workload(2)->placement.has_value());
    QVERIFY(c.checkInvariants());
}

void TestModel::workloadFitsOnlyInsidePoolQuotaAndNodeCapacity()
{
    ClusterState c;
    const PoolId pool = c.addPool(makePool("batch", 5000));
    const NodeId n0 = c.addNode(cpuNode("n0", 4000));
    const NodeId n1 = c.addNode(cpuNode("n1", 4000));
    QVERIFY(c.attach(pool, n0));
    QVERIFY(c.attach(pool, n1));
    auto scheduler = makeScheduler(c, singlePolicy("spread"));

    auto inPool = [&](WorkloadId id, std::int64_t cpu) {
        Workload w = cpuWorkload(id, cpu);
        w.pool = pool;
        return w;
    };
    // The node has room for 4000 but a 4500 request exceeds every node, within quota: node capacity decides.
    QCOMPARE(addAndPlace(c, *scheduler, inPool(1, 4500)), kNoNode);
    QCOMPARE(addAndPlace(c, *scheduler, inPool(2, 3000)), n0);
    // 3000 more would fit on n1 (4000 free) but only 2000 of the pool's quota is left.
    QVERIFY(c.addWorkload(inPool(3, 3000)));
    const Decision refused = scheduler->place(3);
    QVERIFY(!refused.placement);
    // n0 (1000 free) is short of CPU; n1 has the CPU but the pool has no quota left.
    QCOMPARE(refused.report.rejected[std::size_t(RejectReason::InsufficientCpu)], 1);
    QCOMPARE(refused.report.rejected[std::size_t(RejectReason::PoolQuotaExhausted)], 1);
    QVERIFY(!c.bind(placementOn(3, n1)));
    QCOMPARE(addAndPlace(c, *scheduler, inPool(4, 2000)), n1);
    QCOMPARE(c.pool(pool).used.cpuMillis, std::int64_t { 5000 });
    // Releasing gives the quota back.
    QVERIFY(scheduler->release(2));
    QVERIFY(scheduler->place(3).placement.has_value());
    QVERIFY(c.checkInvariants());
}

void TestModel::fractionalGpusShareOneDevice()
{
    ClusterState c;
    const ModelId a100 = c.internModel("A100");
    const PoolId pool = c.addPool(makePool("gpu"));
    const NodeId n = c.addNode(acceleratorNode("gpu", AcceleratorKind::Gpu, a100, 2, 1000, 16384));
    QVERIFY(c.attach(pool, n));
    auto scheduler = makeScheduler(c, singlePolicy("tier"));

    // Three 300-milli-GPU requests pack onto device 0 (the default device choice takes the tightest fit).
    for (WorkloadId id = 1; id <= 3; ++id) {
        Workload w = acceleratorWorkload(id, AcceleratorKind::Gpu, 1, 300, 4096);
        w.pool = pool;
        QCOMPARE(addAndPlace(c, *scheduler, w), n);
        QCOMPARE(c.workload(id)->placement->shares.size(), std::size_t { 1 });
        QCOMPARE(c.workload(id)->placement->shares[0].device, std::int16_t { 0 });
    }
    QCOMPARE(c.node(n).devices[0].shareFree, 100);
    QCOMPARE(c.node(n).devices[0].memoryFreeMiB, std::int64_t { 16384 - 3 * 4096 });
    QVERIFY(c.node(n).devices[1].idle());
    QCOMPARE(c.pool(pool).acceleratorUsed[std::size_t(AcceleratorKind::Gpu)], std::int64_t { 900 });
    // A fourth does not fit in the 100 left on device 0, so it opens device 1.
    Workload fourth = acceleratorWorkload(4, AcceleratorKind::Gpu, 1, 300, 4096);
    fourth.pool = pool;
    QCOMPARE(addAndPlace(c, *scheduler, fourth), n);
    QCOMPARE(c.workload(4)->placement->shares[0].device, std::int16_t { 1 });
    QVERIFY(c.checkInvariants());

    QVERIFY(scheduler->release(2));
    QCOMPARE(c.node(n).devices[0].shareFree, 400);
    QCOMPARE(c.pool(pool).acceleratorUsed[std::size_t(AcceleratorKind::Gpu)], std::int64_t { 900 });
    QVERIFY(c.checkInvariants());
}

void TestModel::multiDeviceRequestTakesWholeDevicesOnOneNode()
{
    ClusterState c;
    const ModelId a100 = c.internModel("A100");
    const NodeId n0 = c.addNode(acceleratorNode("g0", AcceleratorKind::Gpu, a100, 2));
    const NodeId n1 = c.addNode(acceleratorNode("g1", AcceleratorKind::Gpu, a100, 4));
    auto scheduler = makeScheduler(c, singlePolicy("tier"));

    // Three whole GPUs: n0 has two idle, so only n1 qualifies; the request is never split across nodes.
    QCOMPARE(addAndPlace(c, *scheduler, acceleratorWorkload(1, AcceleratorKind::Gpu, 3, 1000)), n1);
    const Placement& p = *c.workload(1)->placement;
    QCOMPARE(p.shares.size(), std::size_t { 3 });
    for (const DeviceShare& s : p.shares) {
        QCOMPARE(s.share, 1000);
        QCOMPARE(c.node(n1).devices[std::size_t(s.device)].shareFree, 0);
    }
    QCOMPARE(c.node(n1).idleDeviceCount(), 1);
    // Another three-GPU request: 2 idle on n0 plus 1 on n1 would be enough in total, but not on one node.
    QVERIFY(c.addWorkload(acceleratorWorkload(2, AcceleratorKind::Gpu, 3, 1000)));
    const Decision pending = scheduler->place(2);
    QVERIFY(!pending.placement);
    QCOMPARE(text(pending.report.mainReason()), text(RejectReason::NotEnoughIdleAccelerators));
    // A bind that names fewer devices than the request is refused, so a request cannot be taken in part.
    QVERIFY(!c.bind(placementOn(2, n0, { { 0, 1000, 0 }, { 1, 1000, 0 } })));
    // Whole devices are whole: a partly used device does not count as one.
    QCOMPARE(addAndPlace(c, *scheduler, acceleratorWorkload(3, AcceleratorKind::Gpu, 1, 100)), n0);
    QCOMPARE(addAndPlace(c, *scheduler, acceleratorWorkload(4, AcceleratorKind::Gpu, 2, 0)), kNoNode);
    QVERIFY(c.checkInvariants());
}

void TestModel::npuCoresAreCountedPerDevice()
{
    ClusterState c;
    const ModelId ascend = c.internModel("Ascend310");
    const NodeId n = c.addNode(acceleratorNode("npu", AcceleratorKind::Npu, ascend, 1, 8, 8192));
    auto scheduler = makeScheduler(c, singlePolicy("tier"));

    QCOMPARE(addAndPlace(c, *scheduler, acceleratorWorkload(1, AcceleratorKind::Npu, 1, 3)), n);
    QCOMPARE(addAndPlace(c, *scheduler, acceleratorWorkload(2, AcceleratorKind::Npu, 1, 3)), n);
    QCOMPARE(c.node(n).devices[0].shareFree, 2);
    // Three more cores than the two left: pending, for lack of accelerator share.
    QVERIFY(c.addWorkload(acceleratorWorkload(3, AcceleratorKind::Npu, 1, 3)));
    const Decision d = scheduler->place(3);
    QVERIFY(!d.placement);
    QCOMPARE(text(d.report.mainReason()), text(RejectReason::InsufficientAcceleratorShare));
    QCOMPARE(addAndPlace(c, *scheduler, acceleratorWorkload(4, AcceleratorKind::Npu, 1, 2)), n);
    QCOMPARE(c.node(n).devices[0].shareFree, 0);
    QVERIFY(c.checkInvariants());
}

void TestModel::fpgaFunctionsShareOneDeviceInTimeSlices()
{
    ClusterState c;
    const ModelId alveo = c.internModel("AlveoU250");
    const NodeId n = c.addNode(acceleratorNode("fpga", AcceleratorKind::Fpga, alveo, 1, 4, 65536));
    auto scheduler = makeScheduler(c, singlePolicy("tier"));

    // Four logic functions take one time-slice slot each of the same device.
    for (WorkloadId id = 1; id <= 4; ++id) {
        QCOMPARE(addAndPlace(c, *scheduler, acceleratorWorkload(id, AcceleratorKind::Fpga, 1, 1, 8192)), n);
        QCOMPARE(c.workload(id)->placement->shares[0].device, std::int16_t { 0 });
    }
    QCOMPARE(c.node(n).devices[0].shareFree, 0);
    QCOMPARE(c.node(n).devices[0].memoryFreeMiB, std::int64_t { 65536 - 4 * 8192 });
    QCOMPARE(addAndPlace(c, *scheduler, acceleratorWorkload(5, AcceleratorKind::Fpga, 1, 1, 8192)), kNoNode);
    // When one function leaves, its slot is free for the waiting one.
    QVERIFY(scheduler->release(2));
    QVERIFY(scheduler->place(5).placement.has_value());
    QVERIFY(c.checkInvariants());
}

void TestModel::checkInvariantsDetectsCorruption_data()
{
    QTest::addColumn<QString>("corruption");
    QTest::newRow("node free CPU disagrees with placements") << QStringLiteral("cpu");
    QTest::newRow("node over capacity") << QStringLiteral("negative");
    QTest::newRow("device free share disagrees") << QStringLiteral("share");
    QTest::newRow("device memory over capacity") << QStringLiteral("deviceMemory");
}

void TestModel::checkInvariantsDetectsCorruption()
{
    QFETCH(QString, corruption);
    ClusterState c;
    const ModelId a100 = c.internModel("A100");
    const NodeId n = c.addNode(acceleratorNode("gpu", AcceleratorKind::Gpu, a100, 1));
    QVERIFY(c.addWorkload(acceleratorWorkload(1, AcceleratorKind::Gpu, 1, 500, 1024)));
    QVERIFY(c.bind(placementOn(1, n, { { 0, 500, 1024 } })));
    QVERIFY(c.checkInvariants());

    Node& node = c.mutableNode(n);
    if (corruption == QLatin1String("cpu"))
        node.free.cpuMillis += 1;
    else if (corruption == QLatin1String("negative"))
        node.free.memoryMiB = -1;
    else if (corruption == QLatin1String("share"))
        node.devices[0].shareFree = 1000;
    else
        node.devices[0].memoryFreeMiB = -5;
    const auto result = c.checkInvariants();
    QVERIFY(!result);
    QVERIFY(result.error().message.find("gpu") != std::string::npos); // names the node
}

// A workload's CPU histogram (the Vertical Pod Autoscaler's): a percentile is the upper edge of its 5% bucket, so
// within 5% above the value it stands for; rare spikes stay out of the 90th percentile; newer samples weigh more (a
// day older, half as much), so that it follows a workload whose use changed; and a reference time that moves forward
// keeps the weights finite over months.
void TestModel::usageHistogramPercentilesFollowRecentUse()
{
    constexpr std::int64_t kT0 = 1'700'000'000'000;
    constexpr std::int64_t kTen = 10'000; // a heartbeat interval
    UsageHistogram h;
    QVERIFY(h.empty());
    QCOMPARE(h.percentile(0.9), std::int64_t { 0 });
    // Six hours at 200m with a 4-core spike once an hour (a start-up, a cron): the p90 is 200m, the peak is not.
    std::int64_t at = kT0;
    for (int i = 0; i < 6 * 360; ++i, at += kTen)
        h.add(i % 360 == 0 ? 4000 : 200, at);
    const std::int64_t p90 = h.percentile(0.9);
    QVERIFY2(p90 >= 200 && p90 <= 210, std::to_string(p90).c_str());
    QVERIFY(h.percentile(1.0) >= 4000 && h.percentile(1.0) <= 4200);
    QVERIFY(h.percentile(0.0) <= 210);
    // Below the first bucket (10m) and nothing: the first bucket's edge.
    UsageHistogram idle;
    idle.add(0, kT0);
    idle.add(3, kT0 + kTen);
    QCOMPARE(idle.percentile(0.9), std::int64_t { 10 });

    // A day at 1000m, then a day at 100m: the recent day weighs twice the older, so the median is the recent use
    // and the 90th percentile still the older one (a third of the weight lies above 100m).
    UsageHistogram changed;
    at = kT0;
    for (int i = 0; i < 8640; ++i, at += kTen)
        changed.add(1000, at);
    for (int i = 0; i < 8640; ++i, at += kTen)
        changed.add(100, at);
    const std::int64_t median = changed.percentile(0.5);
    QVERIFY2(median >= 100 && median <= 105, std::to_string(median).c_str());
    QVERIFY(changed.percentile(0.9) >= 1000);
    // A week more at 100m: the old day weighs under 1% now.
    for (int i = 0; i < 7 * 8640; ++i, at += kTen)
        changed.add(100, at);
    QVERIFY2(changed.percentile(0.99) <= 105, std::to_string(changed.percentile(0.99)).c_str());

    // A year of samples, a day apart, at 500m: the reference moves on and the weights stay finite.
    UsageHistogram year;
    for (int d = 0; d < 365; ++d)
        year.add(500, kT0 + d * UsageHistogram::kHalfLifeMs);
    const std::int64_t p = year.percentile(0.9);
    QVERIFY2(p >= 500 && p <= 525, std::to_string(p).c_str());
    QVERIFY(year.toJson()["refMs"].get<std::int64_t>() > kT0 + 300 * UsageHistogram::kHalfLifeMs);
    for (const auto& entry : year.toJson()["buckets"])
        QVERIFY(std::isfinite(entry[1].get<double>()));
    // A sample from an agent's backlog, older than the reference, still counts (less).
    year.add(9000, kT0);
    QVERIFY(!year.empty());
}

void TestModel::usageHistogramRoundTripsAndRefusesDamage()
{
    UsageHistogram h;
    for (int i = 0; i < 100; ++i)
        h.add(50 + i * 10, 1'700'000'000'000 + i * 10'000);
    const auto back = UsageHistogram::fromJson(nlohmann::json::parse(h.toJson().dump()), "workload 7");
    QVERIFY2(back, back ? "" : back.error().message.c_str());
    QVERIFY(*back == h);
    QCOMPARE(back->percentile(0.9), h.percentile(0.9));
    QVERIFY(UsageHistogram::fromJson(UsageHistogram {}.toJson(), "w")->empty());

    const std::pair<const char*, const char*> damaged[] = {
        { "[]", "not an object" },
        { R"({"refMs": 1.5, "buckets": []})", "integer \"refMs\"" },
        { R"({"refMs": 1})", "array \"buckets\"" },
        { R"({"refMs": 1, "buckets": [[1]]})", "buckets[0] is not [bucket, weight]" },
        { R"({"refMs": 1, "buckets": [[-1, 2]]})", "buckets[0] is not [bucket, weight]" },
        { R"({"refMs": 1, "buckets": [[0, 1], [240, 2]]})", "buckets[1]: bucket 240 is past the last, 239" },
        { R"({"refMs": 1, "buckets": [[3, -2]]})", "buckets[0]: weight -2 is not a finite number" },
    };
    for (const auto& [text, named] : damaged) {
        const auto parsed = UsageHistogram::fromJson(nlohmann::json::parse(text), "workload 7");
        QVERIFY2(!parsed, text);
        QVERIFY2(parsed.error().message.find("workload 7: CPU histogram: ") == 0, parsed.error().message.c_str());
        QVERIFY2(parsed.error().message.find(named) != std::string::npos, parsed.error().message.c_str());
    }
}

QTEST_APPLESS_MAIN(TestModel)
#include "tst_model.moc"
