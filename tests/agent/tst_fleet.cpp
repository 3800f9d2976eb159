// tidepool-fleet's inventories and load series, on the real data in ../shared/data: the Alibaba PAI 2020 and spot
// 2026 fleets give the machine and GPU counts their README states, broken lines are errors naming file, line and
// field, and the load series drives utilisation in 0..1 with a time scale.
#include "agents/fleet/fleet.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <map>
#include <set>
#include <numeric>

using namespace tidepool;

namespace {

const std::string kData = TIDEPOOL_SHARED_DATA;

std::size_t gpus(const std::vector<agent::FleetNodeSpec>& specs)
{
    return std::accumulate(specs.begin(), specs.end(), std::size_t { 0 },
        [](std::size_t n, const agent::FleetNodeSpec& s) { return n + s.devices.size(); });
}

} // namespace

class TestFleet : public QObject {
    Q_OBJECT

private slots:
    void pai2020MatchesItsReadme()
    {
        const auto specs = agent::loadPai2020(kData + "/fleets/pai2020_machine_spec.csv");
        QVERIFY2(specs, specs ? "" : specs.error().message.c_str());
        QCOMPARE(specs->size(), std::size_t { 1897 });
        QCOMPARE(gpus(*specs), std::size_t { 6742 });
        QCOMPARE(specs->front().cpuMillis, std::int64_t { 96'000 });
        QCOMPARE(specs->front().memoryMiB, std::int64_t { 512 * 1024 });
        QVERIFY(specs->front().devices.empty()); // a CPU machine
    }

    void spot2026MatchesItsReadme()
    {
        const auto specs = agent::loadSpot2026(kData + "/fleets/spot2026_node_info.csv");
        QVERIFY2(specs, specs ? "" : specs.error().message.c_str());
        QCOMPARE(specs->size(), std::size_t { 4278 });
        QCOMPARE(gpus(*specs), std::size_t { 10412 });
        for (const auto& d : specs->front().devices)
            QCOMPARE(d.shareCapacity, 1000);
    }

    void brokenLinesNameFileLineAndField()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("fleet.csv")).toStdString();
        std::ofstream(path) << "m1,CPU,96,512,0\nm2,V100,x,512,8\n";
        auto broken = agent::loadPai2020(path);
        QVERIFY(!broken);
        QVERIFY2(broken.error().message.find(path + ":2") != std::string::npos, broken.error().message.c_str());
        QVERIFY(broken.error().message.find("cap_cpu") != std::string::npos);
        std::ofstream(path) << "m1,CPU,96,512\n";
        broken = agent::loadPai2020(path);
        QVERIFY(!broken);
        QVERIFY(broken.error().message.find(path + ":1") != std::string::npos);
        std::ofstream(path) << "m1,CPU,-96,512,0\n";
        QVERIFY(!agent::loadPai2020(path));
        QVERIFY(!agent::loadPai2020(path + ".missing"));
    }

    void loadSeriesDrivesUtilisation()
    {
        const auto series = agent::loadLoadSeries(kData + "/load-series/alibaba2018_machine_usage_8days_300s.csv", 300);
        QVERIFY2(series, series ? "" : series.error().message.c_str());
        QCOMPARE(series->cpu.size(), std::size_t { 2243 }); // the README's row count
        for (std::size_t i = 0; i < series->cpu.size(); ++i) {
            QVERIFY(series->cpu[i] >= 0.0 && series->cpu[i] <= 1.0);
            QVERIFY(series->memory[i] >= 0.0 && series->memory[i] <= 1.0);
        }
        // Bucket i covers [i * 300, (i + 1) * 300) seconds of trace time, and the series wraps.
        QCOMPARE(series->at(0).first, series->cpu[0]);
        QCOMPARE(series->at(299.9).first, series->cpu[0]);
        QCOMPARE(series->at(300).first, series->cpu[1]);
        QCOMPARE(series->at(300.0 * static_cast<double>(series->cpu.size())).first, series->cpu[0]);
    }

    void generatedFleetIsMixedAndDeterministic()
    {
        const auto a = agent::generateFleet(500, 42);
        const auto b = agent::generateFleet(500, 42);
        QCOMPARE(a.size(), std::size_t { 500 });
        std::map<std::string, int> isas;
        std::set<std::string> kinds;
        for (std::size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(a[i].isa, b[i].isa);
            QCOMPARE(a[i].devices.size(), b[i].devices.size());
            ++isas[a[i].isa];
            for (const auto& d : a[i].devices)
                kinds.insert(d.kind);
        }
        QVERIFY(isas["x86_64"] > 0 && isas["aarch64"] > 0 && isas["riscv64"] > 0);
        QCOMPARE(kinds, (std::set<std::string> { "fpga", "gpu", "npu" }));
        const auto named = agent::takeNodes(a, 3, "edge");
        QCOMPARE(named.size(), std::size_t { 3 });
        QCOMPARE(named[2].name, std::string("edge-2"));
    }
};

QTEST_GUILESS_MAIN(TestFleet)
#include "tst_fleet.moc"
