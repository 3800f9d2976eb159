// The node agent's discovery and telemetry: /proc/cpuinfo of x86_64, aarch64 and riscv64 nodes, /proc/meminfo,
// CPU lists and cgroup CPU limits from fixtures; discovery of a fixture tree and of this machine; the accelerator
// inventory file's strict validation; NVML absent, failing and present (a fake libnvidia-ml.so.1 with two GPUs,
// loaded through the agent's real dlopen path); probe commands that succeed, time out, fail or print bad JSON;
// and the sampler's CPU utilisation, exact on fixtures and rising on this machine while threads spin.

#include "agents/inventory/accelerator_file.h"
#include "agents/inventory/inventory.h"
#include "agents/inventory/nvml.h"
#include "agents/inventory/probe_command.h"
#include "agents/telemetry/pool_usage.h"
#include "agents/telemetry/sampler.h"
#include "protocol/messages.h"

#include <QTemporaryDir>
#include <QtTest>

#include <dlfcn.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <fstream>
#include <thread>
#include <variant>

using namespace tidepool;
using namespace tidepool::agent;
using namespace std::chrono_literals;

namespace {

QString qs(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

bool contains(const std::vector<std::string>& words, std::string_view word)
{
    return std::find(words.begin(), words.end(), word) != words.end();
}

bool sortedUnique(const std::vector<std::string>& words)
{
    return std::adjacent_find(words.begin(), words.end(), std::greater_equal<>()) == words.end();
}

void writeFile(const std::filesystem::path& path, std::string_view content)
{
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
}

std::filesystem::path writeScript(const std::filesystem::path& path, std::string_view body)
{
    writeFile(path, "#!/bin/sh\n" + std::string(body) + "\n");
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path;
}

// Two hyper-threads of one core: the second lacks avx512f, so the node does not offer it.
constexpr std::string_view kCpuInfoX86 = R"(processor	: 0
vendor_id	: GenuineIntel
cpu family	: 6
model		: 106
model name	: Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz
stepping	: 6
flags		: fpu vme de pse tsc msr sse sse2 ssse3 sse4_1 sse4_2 avx avx2 avx512f sse2 aes
bugs		: spectre_v1 spectre_v2
bogomips	: 4600.00
power management:

processor	: 1
vendor_id	: GenuineIntel
model name	: Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz
flags		: fpu vme de pse tsc msr sse sse2 ssse3 sse4_1 sse4_2 avx avx2 aes
bugs		: spectre_v1 spectre_v2
power management:

)";

// A big.LITTLE aarch64 board: no "model name", the model is in "CPU implementer"/"CPU part".
constexpr std::string_view kCpuInfoAarch64 = R"(processor	: 0
BogoMIPS	: 48.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x4
CPU part	: 0xd0b
CPU revision	: 0

processor	: 1
BogoMIPS	: 48.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x2
CPU part	: 0xd05
CPU revision	: 0

processor	: 2
BogoMIPS	: 48.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x2
CPU part	: 0xd05
CPU revision	: 0
)";

constexpr std::string_view kCpuInfoNeoverse = R"(processor	: 0
BogoMIPS	: 50.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x3
CPU part	: 0xd0c
CPU revision	: 1
)";

// A StarFive VisionFive 2 (SiFive U74 cores).
constexpr std::string_view kCpuInfoRiscv64 = R"(processor	: 0
hart		: 1
isa		: rv64imafdc_zicntr_zicsr_zifencei_zihpm_zba_zbb
mmu		: sv39
uarch		: sifive,u74-mc
mvendorid	: 0x489
marchid		: 0x8000000000000007
mimpid		: 0x4210427

processor	: 1
hart		: 2
isa		: rv64imafdc_zicntr_zicsr_zifencei_zihpm_zba_zbb
mmu		: sv39
uarch		: sifive,u74-mc
mvendorid	: 0x489
marchid		: 0x8000000000000007
mimpid		: 0x4210427
)";

// QEMU's virt machine: no uarch, "rv64gc" (g = imafd_zicsr_zifencei).
constexpr std::string_view kCpuInfoRiscv64Qemu = R"(processor	: 0
hart		: 0
isa		: rv64gc
mmu		: sv48
mvendorid	: 0x0
marchid		: 0x0
mimpid		: 0x0
)";

constexpr std::string_view kMemInfo = R"(MemTotal:       32768000 kB
MemFree:         1000000 kB
MemAvailable:   24576000 kB
Buffers:          100000 kB
Cached:          2000000 kB
SwapTotal:             0 kB
HugePages_Total:       0
)";

// The `inventory` message of `node` after a round trip through the very decoder the core runs; the error's text
// when the decoder rejects it.
std::variant<protocol::Inventory, std::string> throughTheWire(const NodeInventory& node)
{
    const auto decoded = protocol::decodeMessage(protocol::encodeMessage(toProtocolInventory(node)));
    if (!decoded)
        return decoded.error().message;
    return std::get<protocol::Inventory>(*decoded);
}

const char* wireError(const std::variant<protocol::Inventory, std::string>& wire)
{
    const auto* error = std::get_if<std::string>(&wire);
    return error ? error->c_str() : "";
}

std::string statWith(std::string_view cpuLine)
{
    return std::string(cpuLine) + "\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 12345\nctxt 999\n";
}

} // namespace

class TestInventory : public QObject {
    Q_OBJECT

private slots:
    void cpuInfoX86();
    void cpuInfoAarch64();
    void cpuInfoRiscv64();
    void cpuInfoRejectsMalformedText_data();
    void cpuInfoRejectsMalformedText();
    void isaNames_data();
    void isaNames();
    void memInfo();
    void cpuListsAndCgroupLimits();
    void discoversFixtureTree();
    void discoversThisMachine();
    void acceleratorListIsExpanded();
    void acceleratorListRejectsBadEntries_data();
    void acceleratorListRejectsBadEntries();
    void acceleratorFileErrorsNameTheFile();
    void nvmlAbsentMeansNoGpus();
    void nvmlFakeLibraryGivesTwoGpus();
    void nvmlInitFailureIsAReason();
    void samplerComputesFromFixtures();
    void samplerKeepsPreviousReadingOnBadInput();
    void samplerCpuUtilisationRisesWhileThreadsSpin();
    void poolUsageIsARateBetweenReadings();
    void probeCommandSucceeds();
    void probeCommandTimesOutAndIsKilled();
    void probeCommandNonZeroExit();
    void probeCommandBadJsonOrMissing();

private:
    QTemporaryDir m_dir;
    std::filesystem::path dir() const { return m_dir.path().toStdString(); }
};

void TestInventory::cpuInfoX86()
{
    const auto info = parseCpuInfo(kCpuInfoX86);
    QVERIFY2(info, info ? "" : info.error().message.c_str());
    QCOMPARE(info->processors, 2);
    QCOMPARE(qs(info->model), QStringLiteral("Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz"));
    QVERIFY(sortedUnique(info->features));
    QVERIFY(contains(info->features, "sse2"));
    QVERIFY(contains(info->features, "avx2"));
    QVERIFY2(!contains(info->features, "avx512f"), "a flag one logical CPU lacks is not the node's");
    QVERIFY(!contains(info->features, "spectre_v1")); // "bugs" are not features
    QCOMPARE(info->features.size(), std::size_t { 14 });
}

void TestInventory::cpuInfoAarch64()
{
    const auto info = parseCpuInfo(kCpuInfoAarch64);
    QVERIFY2(info, info ? "" : info.error().message.c_str());
    QCOMPARE(info->processors, 3);
    QCOMPARE(qs(info->model), QStringLiteral("ARM Cortex-A76 + ARM Cortex-A55"));
    QVERIFY(sortedUnique(info->features));
    QCOMPARE(info->features.size(), std::size_t { 16 });
    QCOMPARE(qs(info->features.front()), QStringLiteral("aes"));
    QVERIFY(contains(info->features, "asimd"));
    QVERIFY(contains(info->features, "atomics"));

    const auto server = parseCpuInfo(kCpuInfoNeoverse);
    QVERIFY(server);
    QCOMPARE(qs(server->model), QStringLiteral("ARM Neoverse-N1"));
    QVERIFY(contains(server->features, "ssbs"));

    // A part the table does not know is still named, by its number.
    std::string unknown(kCpuInfoNeoverse);
    unknown.replace(unknown.find("0xd0c"), 5, "0xd99");
    const auto unnamed = parseCpuInfo(unknown);
    QVERIFY(unnamed);
    QCOMPARE(qs(unnamed->model), QStringLiteral("ARM part 0xd99"));
}

void TestInventory::cpuInfoRiscv64()
{
    const auto info = parseCpuInfo(kCpuInfoRiscv64);
    QVERIFY2(info, info ? "" : info.error().message.c_str());
    QCOMPARE(info->processors, 2);
    QCOMPARE(qs(info->model), QStringLiteral("sifive,u74-mc"));
    const std::vector<std::string> expected
        = { "a", "c", "d", "f", "i", "m", "zba", "zbb", "zicntr", "zicsr", "zifencei", "zihpm" };
    QCOMPARE(info->features, expected);

    const auto qemu = parseCpuInfo(kCpuInfoRiscv64Qemu);
    QVERIFY(qemu);
    QCOMPARE(qs(qemu->model), QStringLiteral("RISC-V (mvendorid 0x0, marchid 0x0)"));
    const std::vector<std::string> general = { "a", "c", "d", "f", "i", "m", "zicsr", "zifencei" };
    QCOMPARE(qemu->features, general);
}

void TestInventory::cpuInfoRejectsMalformedText_data()
{
    QTest::addColumn<QString>("content");
    QTest::addColumn<QString>("field");
    QTest::newRow("no colon") << QStringLiteral("processor\t: 0\nmodel name\t: X\nthis line has no separator\n")
                              << QStringLiteral("line 3");
    QTest::newRow("processor not a number") << QStringLiteral("processor\t: zero\n") << QStringLiteral("line 1");
    QTest::newRow("part not hex") << QStringLiteral("processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xzz\n")
                                  << QStringLiteral("line 3");
    QTest::newRow("no processor") << QStringLiteral("model name\t: X\n") << QStringLiteral("processor");
    QTest::newRow("empty") << QString() << QStringLiteral("processor");
}

void TestInventory::cpuInfoRejectsMalformedText()
{
    QFETCH(QString, content);
    QFETCH(QString, field);
    const auto info = parseCpuInfo(content.toStdString(), "fixture/cpuinfo");
    QVERIFY(!info);
    QCOMPARE(info.error().code, InventoryErrorCode::Malformed);
    QCOMPARE(qs(info.error().field), field);
    QVERIFY2(info.error().message.starts_with("fixture/cpuinfo: "), info.error().message.c_str());
}

void TestInventory::isaNames_data()
{
    QTest::addColumn<QString>("machine");
    QTest::addColumn<QString>("isa");
    QTest::newRow("x86_64") << QStringLiteral("x86_64") << QStringLiteral("x86_64");
    QTest::newRow("amd64") << QStringLiteral("AMD64") << QStringLiteral("x86_64");
    QTest::newRow("arm64") << QStringLiteral("arm64") << QStringLiteral("aarch64");
    QTest::newRow("aarch64") << QStringLiteral("aarch64\n") << QStringLiteral("aarch64");
    QTest::newRow("riscv64") << QStringLiteral("riscv64") << QStringLiteral("riscv64");
    QTest::newRow("other") << QStringLiteral("ppc64le") << QStringLiteral("ppc64le");
}

void TestInventory::isaNames()
{
    QFETCH(QString, machine);
    QFETCH(QString, isa);
    QCOMPARE(qs(normaliseIsa(machine.toStdString())), isa);
}

void TestInventory::memInfo()
{
    const auto info = parseMemInfo(kMemInfo);
    QVERIFY(info);
    QCOMPARE(info->totalKiB, std::int64_t { 32768000 });
    QCOMPARE(info->availableKiB, std::int64_t { 24576000 });

    // Kernels before 3.14 have no MemAvailable: free + buffers + cache stands in.
    std::string old(kMemInfo);
    old.erase(old.find("MemAvailable"), old.find("Buffers") - old.find("MemAvailable"));
    const auto estimated = parseMemInfo(old);
    QVERIFY(estimated);
    QCOMPARE(estimated->availableKiB, std::int64_t { 1000000 + 100000 + 2000000 });

    const auto missing = parseMemInfo("MemFree: 10 kB\n", "fixture/meminfo");
    QVERIFY(!missing);
    QCOMPARE(missing.error().code, InventoryErrorCode::MissingField);
    QCOMPARE(qs(missing.error().field), QStringLiteral("MemTotal"));

    const auto garbled = parseMemInfo("MemTotal: lots kB\nMemAvailable: 1 kB\n", "fixture/meminfo");
    QVERIFY(!garbled);
    QCOMPARE(qs(garbled.error().field), QStringLiteral("MemTotal"));
    QVERIFY2(garbled.error().message.find("line 1") != std::string::npos, garbled.error().message.c_str());
}

void TestInventory::cpuListsAndCgroupLimits()
{
    QCOMPARE(parseCpuList("0-3,8,10-11\n", "online").value_or(-1), 7);
    QCOMPARE(parseCpuList("0\n", "online").value_or(-1), 1);
    QVERIFY(!parseCpuList("3-1", "online"));
    QVERIFY(!parseCpuList("", "online"));
    QVERIFY(!parseCpuList("0-x", "online"));

    QCOMPARE(parseCgroupCpuMax("150000 100000\n", "cpu.max").value_or(std::nullopt), std::optional<std::int64_t>(1500));
    QCOMPARE(parseCgroupCpuMax("50000 100000", "cpu.max").value_or(std::nullopt), std::optional<std::int64_t>(500));
    const auto unlimited = parseCgroupCpuMax("max 100000\n", "cpu.max");
    QVERIFY(unlimited && !*unlimited);
    const auto v1Unlimited = parseCgroupCpuMax("-1 100000", "cpu.cfs_quota_us");
    QVERIFY(v1Unlimited && !*v1Unlimited);
    QVERIFY(!parseCgroupCpuMax("150000", "cpu.max"));
    QVERIFY(!parseCgroupCpuMax("150000 0", "cpu.max"));
}

void TestInventory::discoversFixtureTree()
{
    QVERIFY(m_dir.isValid());
    const std::filesystem::path root = dir() / "aarch64-node";
    writeFile(root / "proc/cpuinfo", kCpuInfoNeoverse);
    writeFile(root / "proc/meminfo", kMemInfo);
    writeFile(root / "proc/sys/kernel/hostname", "arm-node-7\n");
    writeFile(root / "proc/sys/kernel/osrelease", "6.1.0-18-arm64\n");
    writeFile(root / "proc/self/cgroup", "0::/agents.slice/tidepool.service\n");
    // The agent's own cgroup has no limit; its parent allows 4 CPUs: the tightest along the path counts.
    writeFile(root / "sys/fs/cgroup/agents.slice/tidepool.service/cpu.max", "max 100000\n");
    writeFile(root / "sys/fs/cgroup/agents.slice/cpu.max", "400000 100000\n");
    writeFile(root / "sys/devices/system/cpu/online", "0-63\n");
    writeFile(root / "sys/devices/system/node/node0/cpulist", "0-31\n");
    writeFile(root / "sys/devices/system/node/node1/cpulist", "32-63\n");
    writeFile(root / "sys/devices/system/node/has_cpu", "0-1\n");
    writeFile(root / "etc/accelerators.json",
        R"([{"kind": "npu", "vendor": "Huawei", "model": "Ascend 910B", "memoryMiB": 65536, "shareCapacity": 32,
             "count": 2}])");
    const auto probe = writeScript(root / "probe.sh",
        R"(echo '[{"kind":"fpga","vendor":"Xilinx","model":"Alveo U250","memoryMiB":65536,"shareCapacity":4}]')");

    DiscoveryOptions options;
    options.rootPrefix = root;
    options.machine = "arm64";
    options.acceleratorFile = root / "etc/accelerators.json";
    options.probeCommands = { { probe.string() } };
    const auto discovery = discover(options);
    QVERIFY2(discovery, discovery ? "" : discovery.error().message.c_str());
    const NodeInventory& node = discovery->inventory;
    QCOMPARE(qs(node.hostname), QStringLiteral("arm-node-7"));
    QCOMPARE(qs(node.isa), QStringLiteral("aarch64"));
    QCOMPARE(qs(node.kernelRelease), QStringLiteral("6.1.0-18-arm64"));
    QCOMPARE(qs(node.cpuModel), QStringLiteral("ARM Neoverse-N1"));
    QVERIFY(contains(node.cpuFeatures, "asimd"));
    QCOMPARE(node.logicalCpus, 64); // from the online list, not the one processor of the cpuinfo fixture
    QCOMPARE(node.cpuMillis, std::int64_t { 64'000 });
    QCOMPARE(node.cgroupCpuLimitMillis, std::optional<std::int64_t>(4000));
    QCOMPARE(node.memoryMiB, std::int64_t { 32000 });
    QCOMPARE(node.numaNodes, 2);

    QCOMPARE(node.devices.size(), std::size_t { 3 });
    for (std::size_t i = 0; i < node.devices.size(); ++i)
        QCOMPARE(node.devices[i].index, static_cast<std::int32_t>(i));
    QCOMPARE(node.devices[0].kind, AcceleratorKind::Npu);
    QCOMPARE(node.devices[1].source, DeviceSource::InventoryFile);
    QCOMPARE(qs(node.devices[1].model), QStringLiteral("Ascend 910B"));
    QCOMPARE(node.devices[1].shareCapacity, std::int64_t { 32 });
    QCOMPARE(node.devices[2].kind, AcceleratorKind::Fpga);
    QCOMPARE(node.devices[2].source, DeviceSource::Probe);
    QCOMPARE(qs(node.devices[2].vendor), QStringLiteral("Xilinx"));

    const protocol::InventorySummary summary = summarise(node);
    QCOMPARE(summary.cpuMillis, std::int64_t { 4000 }); // the cgroup's, not the host's
    QCOMPARE(summary.accelerators, 3);
    QCOMPARE(qs(summary.isa), QStringLiteral("aarch64"));

    const auto wire = throughTheWire(node);
    QVERIFY2(std::holds_alternative<protocol::Inventory>(wire), wireError(wire));
    const auto& message = std::get<protocol::Inventory>(wire);
    QCOMPARE(message.cpuMillis, std::int64_t { 4000 });
    QCOMPARE(message.numaNodes, 2);
    QCOMPARE(message.cpuFeatures, node.cpuFeatures);
    QCOMPARE(message.devices.size(), std::size_t { 3 });
    QCOMPARE(qs(message.devices[1].model), QStringLiteral("Ascend-910B")); // a protocol name has no spaces
    QCOMPARE(qs(message.devices[2].kind), QStringLiteral("fpga"));
    QCOMPARE(message.devices[2].shareCapacity, 4);

    // An operator's declaration that does not hold fails discovery, naming the file and the field.
    writeFile(root / "etc/accelerators.json", R"([{"kind": "npu", "vendor": "Huawei", "model": "Ascend 910B",
        "shareCapacity": 32}])");
    const auto badFile = discover(options);
    QVERIFY(!badFile);
    QCOMPARE(qs(badFile.error().field), QStringLiteral("[0].memoryMiB"));
    QCOMPARE(qs(badFile.error().source), qs((root / "etc/accelerators.json").string()));

    // A missing file declares nothing; a failing probe fails discovery.
    options.acceleratorFile = root / "etc/absent.json";
    options.probeCommands = { { writeScript(root / "fail.sh", "exit 1").string() } };
    const auto badProbe = discover(options);
    QVERIFY(!badProbe);
    QCOMPARE(badProbe.error().code, InventoryErrorCode::ProbeFailed);
    options.probeCommands.clear();
    const auto bare = discover(options);
    QVERIFY(bare);
    QVERIFY(bare->inventory.devices.empty());
    QVERIFY(std::any_of(bare->notes.begin(), bare->notes.end(),
        [](const std::string& note) { return note.find("absent.json") != std::string::npos; }));

    // /proc/cpuinfo is essential.
    std::filesystem::remove(root / "proc/cpuinfo");
    const auto noCpuinfo = discover(options);
    QVERIFY(!noCpuinfo);
    QCOMPARE(noCpuinfo.error().code, InventoryErrorCode::Unreadable);
    QVERIFY(noCpuinfo.error().message.find("cpuinfo") != std::string::npos);
}

void TestInventory::discoversThisMachine()
{
    DiscoveryOptions options;
    options.acceleratorFile.clear(); // this machine's /etc is not the test's to rely on
    const auto discovery = discover(options);
    QVERIFY2(discovery, discovery ? "" : discovery.error().message.c_str());
    const NodeInventory& node = discovery->inventory;

#if defined(__x86_64__)
    QCOMPARE(qs(node.isa), QStringLiteral("x86_64"));
    QVERIFY(contains(node.cpuFeatures, "sse2"));
#elif defined(__aarch64__)
    QCOMPARE(qs(node.isa), QStringLiteral("aarch64"));
#elif defined(__riscv) && __riscv_xlen == 64
    QCOMPARE(qs(node.isa), QStringLiteral("riscv64"));
#endif
    QVERIFY(sortedUnique(node.cpuFeatures));
    QVERIFY(!node.cpuModel.empty());
    QCOMPARE(static_cast<long>(node.logicalCpus), sysconf(_SC_NPROCESSORS_ONLN));
    QVERIFY(node.logicalCpus >= static_cast<std::int32_t>(std::thread::hardware_concurrency()));
    QCOMPARE(node.cpuMillis, std::int64_t { node.logicalCpus } * 1000);

    const long long physicalMiB
        = static_cast<long long>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE) / (1024 * 1024);
    QVERIFY(node.memoryMiB > 0);
    QVERIFY2(std::llabs(node.memoryMiB - physicalMiB) <= 1,
        qPrintable(QStringLiteral("MemTotal %1 MiB, sysconf %2 MiB").arg(node.memoryMiB).arg(physicalMiB)));
    QVERIFY(node.numaNodes >= 1);

    char hostname[256] = {};
    QCOMPARE(gethostname(hostname, sizeof hostname - 1), 0);
    QCOMPARE(qs(node.hostname), qs(hostname));
    utsname names {};
    QCOMPARE(uname(&names), 0);
    QCOMPARE(qs(node.kernelRelease), qs(names.release));
    QVERIFY(node.devices.empty()); // no NVML, no file, no probe
    const auto wire = throughTheWire(node);
    QVERIFY2(std::holds_alternative<protocol::Inventory>(wire), wireError(wire));
    QCOMPARE(std::get<protocol::Inventory>(wire).cpuFeatures, node.cpuFeatures);
}

void TestInventory::acceleratorListIsExpanded()
{
    const auto devices = parseAcceleratorList(R"([
        {"kind": "npu", "vendor": "Huawei", "model": "Ascend 910B", "memoryMiB": 65536, "shareCapacity": 32,
         "count": 8},
        {"kind": "fpga", "vendor": "Xilinx", "model": "Alveo U250", "memoryMiB": 0, "shareCapacity": 4},
        {"kind": "gpu", "vendor": "AMD", "model": "Instinct MI300X", "memoryMiB": 196608, "shareCapacity": 1000}
    ])",
        "accelerators.json", DeviceSource::InventoryFile);
    QVERIFY2(devices, devices ? "" : devices.error().message.c_str());
    QCOMPARE(devices->size(), std::size_t { 10 });
    for (std::size_t i = 0; i < devices->size(); ++i) {
        QCOMPARE((*devices)[i].index, static_cast<std::int32_t>(i));
        QCOMPARE((*devices)[i].source, DeviceSource::InventoryFile);
    }
    QCOMPARE((*devices)[7].kind, AcceleratorKind::Npu);
    QCOMPARE((*devices)[7].memoryMiB, std::int64_t { 65536 });
    QCOMPARE((*devices)[8].kind, AcceleratorKind::Fpga);
    QCOMPARE(qs((*devices)[8].model), QStringLiteral("Alveo U250"));
    QCOMPARE((*devices)[8].shareCapacity, std::int64_t { 4 });
    QCOMPARE((*devices)[9].kind, AcceleratorKind::Gpu);
    QCOMPARE(qs((*devices)[9].vendor), QStringLiteral("AMD"));

    const auto empty = parseAcceleratorList("[]", "accelerators.json", DeviceSource::InventoryFile);
    QVERIFY(empty && empty->empty());
}

void TestInventory::acceleratorListRejectsBadEntries_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("field");
    QTest::addColumn<int>("code");
    const QString good
        = QStringLiteral(R"({"kind": "npu", "vendor": "V", "model": "M", "memoryMiB": 1024, "shareCapacity": 8})");
    const auto row = [&](const char* name, const QString& json, const char* field, InventoryErrorCode code) {
        QTest::newRow(name) << json << QString::fromUtf8(field) << int(code);
    };
    row("missing memoryMiB", QStringLiteral("[") + good + QStringLiteral(R"(, {"kind": "npu", "vendor": "V",
        "model": "M", "shareCapacity": 8}])"),
        "[1].memoryMiB", InventoryErrorCode::MissingField);
    row("shareCapacity a string", QStringLiteral(R"([{"kind": "gpu", "vendor": "V", "model": "M", "memoryMiB": 1,
        "shareCapacity": "1000"}])"),
        "[0].shareCapacity", InventoryErrorCode::WrongType);
    row("unknown kind", QStringLiteral(R"([{"kind": "tpu", "vendor": "V", "model": "M", "memoryMiB": 1,
        "shareCapacity": 1}])"),
        "[0].kind", InventoryErrorCode::OutOfRange);
    row("unknown field",
        QStringLiteral("[") + good + QStringLiteral(",") + good.chopped(1) + QStringLiteral(R"(, "colour": "red"}])"),
        "[1].colour", InventoryErrorCode::UnknownField);
    row("negative memory", QStringLiteral(R"([{"kind": "npu", "vendor": "V", "model": "M", "memoryMiB": -1,
        "shareCapacity": 1}])"),
        "[0].memoryMiB", InventoryErrorCode::OutOfRange);
    row("zero share capacity", QStringLiteral(R"([{"kind": "npu", "vendor": "V", "model": "M", "memoryMiB": 1,
        "shareCapacity": 0}])"),
        "[0].shareCapacity", InventoryErrorCode::OutOfRange);
    row("zero count", QStringLiteral("[") + good.chopped(1) + QStringLiteral(R"(, "count": 0}])"), "[0].count",
        InventoryErrorCode::OutOfRange);
    row("too many devices",
        QStringLiteral("[") + good.chopped(1) + QStringLiteral(R"(, "count": 1000},)") + good.chopped(1)
            + QStringLiteral(R"(, "count": 100}])"),
        "[1].count", InventoryErrorCode::OutOfRange);
    row("empty vendor", QStringLiteral(R"([{"kind": "npu", "vendor": "", "model": "M", "memoryMiB": 1,
        "shareCapacity": 1}])"),
        "[0].vendor", InventoryErrorCode::OutOfRange);
    row("entry not an object", QStringLiteral("[") + good + QStringLiteral(", 7]"), "[1]",
        InventoryErrorCode::WrongType);
    row("not an array", good, "", InventoryErrorCode::WrongType);
    row("not JSON", QStringLiteral("[\n{\"kind\": \"npu\",,}]"), "", InventoryErrorCode::Malformed);
}

void TestInventory::acceleratorListRejectsBadEntries()
{
    QFETCH(QString, json);
    QFETCH(QString, field);
    QFETCH(int, code);
    const auto devices = parseAcceleratorList(json.toStdString(), "site.json", DeviceSource::InventoryFile);
    QVERIFY(!devices);
    QCOMPARE(int(devices.error().code), code);
    QCOMPARE(qs(devices.error().field), field);
    const std::string& message = devices.error().message;
    QVERIFY2(message.starts_with("site.json: "), message.c_str());
    if (!field.isEmpty())
        QVERIFY2(message.find(field.toStdString()) != std::string::npos, message.c_str());
    if (code == int(InventoryErrorCode::Malformed))
        QVERIFY2(message.find("line 2") != std::string::npos, message.c_str());
}

void TestInventory::acceleratorFileErrorsNameTheFile()
{
    const std::filesystem::path path = dir() / "bad-accelerators.json";
    writeFile(path, R"([{"kind": "fpga", "vendor": "Intel", "model": "Agilex", "memoryMiB": 8192,
        "shareCapacity": 2.5}])");
    const auto devices = loadAcceleratorFile(path);
    QVERIFY(!devices);
    QCOMPARE(qs(devices.error().source), qs(path.string()));
    QCOMPARE(qs(devices.error().field), QStringLiteral("[0].shareCapacity"));
    QVERIFY2(devices.error().message.starts_with(path.string() + ": "), devices.error().message.c_str());

    const auto missing = loadAcceleratorFile(dir() / "absent.json");
    QVERIFY(!missing);
    QCOMPARE(missing.error().code, InventoryErrorCode::Unreadable);
}

void TestInventory::nvmlAbsentMeansNoGpus()
{
    const Nvml absent("/nonexistent/tidepool/libnvidia-ml.so.1");
    QVERIFY(!absent.available());
    QVERIFY(absent.devices().empty());
    QVERIFY(absent.sample().devices.empty());
    QVERIFY2(absent.reason().find("no NVIDIA GPUs") != std::string::npos, absent.reason().c_str());
    QVERIFY2(
        absent.reason().find("/nonexistent/tidepool/libnvidia-ml.so.1") != std::string::npos, absent.reason().c_str());

    // A library that is not NVML (the C maths library) is named for what it lacks.
    const Nvml notNvml("libm.so.6");
    QVERIFY(!notNvml.available());
    QVERIFY2(notNvml.reason().find("lacks nvmlInit_v2") != std::string::npos, notNvml.reason().c_str());

    // Discovery with an absent NVML finds no GPU and says why.
    DiscoveryOptions options;
    options.nvml = &absent;
    options.acceleratorFile.clear();
    const auto discovery = discover(options);
    QVERIFY(discovery);
    QVERIFY(discovery->inventory.devices.empty());
    QVERIFY(std::find(discovery->notes.begin(), discovery->notes.end(), absent.reason()) != discovery->notes.end());
}

void TestInventory::nvmlFakeLibraryGivesTwoGpus()
{
    // The test's own handle on the fake reaches its controls; the agent's dlopen of the same file shares it.
    void* fake = dlopen(TIDEPOOL_FAKE_NVML, RTLD_NOW | RTLD_LOCAL);
    QVERIFY2(fake, dlerror());
    const auto liveInits = reinterpret_cast<int (*)()>(dlsym(fake, "fakeNvmlLiveInits"));
    const auto setGpu
        = reinterpret_cast<void (*)(unsigned, unsigned, unsigned long long, int)>(dlsym(fake, "fakeNvmlSetGpu"));
    QVERIFY(liveInits && setGpu);

    {
        const Nvml nvml(TIDEPOOL_FAKE_NVML);
        QVERIFY2(nvml.available(), nvml.reason().c_str());
        QCOMPARE(liveInits(), 1);
        QCOMPARE(qs(nvml.reason()), QStringLiteral("NVML: 2 GPUs"));
        const auto& devices = nvml.devices();
        QCOMPARE(devices.size(), std::size_t { 2 });
        QCOMPARE(qs(devices[0].model), QStringLiteral("Tidepool Fake GPU Alpha"));
        QCOMPARE(qs(devices[1].model), QStringLiteral("Tidepool Fake GPU Beta"));
        QCOMPARE(devices[0].memoryMiB, std::int64_t { 16384 });
        QCOMPARE(devices[1].memoryMiB, std::int64_t { 81920 });
        for (std::size_t i = 0; i < devices.size(); ++i) {
            QCOMPARE(devices[i].index, static_cast<std::int32_t>(i));
            QCOMPARE(devices[i].kind, AcceleratorKind::Gpu);
            QCOMPARE(qs(devices[i].vendor), QStringLiteral("NVIDIA"));
            QCOMPARE(devices[i].shareCapacity, kGpuShareCapacity);
            QCOMPARE(devices[i].source, DeviceSource::Nvml);
            QVERIFY(devices[i].uuid && devices[i].uuid->starts_with("GPU-"));
        }
        QVERIFY(*devices[0].uuid != *devices[1].uuid);

        NvmlSamples samples = nvml.sample();
        QVERIFY(samples.problems.empty());
        QCOMPARE(samples.devices.size(), std::size_t { 2 });
        QCOMPARE(samples.devices[0].index, 0);
        QCOMPARE(samples.devices[0].utilisation, 0.25);
        QCOMPARE(samples.devices[0].memoryUsedMiB, std::int64_t { 1024 });
        QCOMPARE(samples.devices[1].index, 1);
        QCOMPARE(samples.devices[1].utilisation, 0.75);
        QCOMPARE(samples.devices[1].memoryUsedMiB, std::int64_t { 40960 });

        // Samples follow the devices; a device whose query fails is left out of that sample and named.
        setGpu(1, 10, 2048, 1);
        setGpu(0, 0, 0, 0);
        samples = nvml.sample();
        QCOMPARE(samples.devices.size(), std::size_t { 1 });
        QCOMPARE(samples.devices[0].index, 1);
        QCOMPARE(samples.devices[0].utilisation, 0.10);
        QCOMPARE(samples.devices[0].memoryUsedMiB, std::int64_t { 2048 });
        QCOMPARE(samples.problems.size(), std::size_t { 1 });
        QVERIFY2(samples.problems[0].find("GPU 0") != std::string::npos
                && samples.problems[0].find("Not Supported") != std::string::npos,
            samples.problems[0].c_str());
        setGpu(0, 25, 1024, 1);
        setGpu(1, 75, 40960, 1);

        // Discovery puts NVML's GPUs first, then the declared devices.
        DiscoveryOptions options;
        options.nvml = &nvml;
        options.acceleratorFile = dir() / "one-npu.json";
        writeFile(options.acceleratorFile, R"([{"kind": "npu", "vendor": "V", "model": "M", "memoryMiB": 1,
            "shareCapacity": 2}])");
        const auto discovery = discover(options);
        QVERIFY2(discovery, discovery ? "" : discovery.error().message.c_str());
        QCOMPARE(discovery->inventory.devices.size(), std::size_t { 3 });
        QCOMPARE(discovery->inventory.devices[1].source, DeviceSource::Nvml);
        QCOMPARE(discovery->inventory.devices[2].source, DeviceSource::InventoryFile);
        QCOMPARE(discovery->inventory.devices[2].index, 2);
        const auto wire = throughTheWire(discovery->inventory);
        QVERIFY2(std::holds_alternative<protocol::Inventory>(wire), wireError(wire));
        QCOMPARE(qs(std::get<protocol::Inventory>(wire).devices[0].model), QStringLiteral("Tidepool-Fake-GPU-Alpha"));
        QCOMPARE(std::get<protocol::Inventory>(wire).devices[0].shareCapacity, 1000);

        // The sampler carries the GPUs' samples.
        Sampler sampler(SamplerOptions { "/", &nvml, [] { return std::int64_t { 42 }; } });
        const auto sample = sampler.sample();
        QVERIFY(sample);
        QCOMPARE(sample->devices.size(), std::size_t { 2 });
        QCOMPARE(sample->devices[1].utilisation, 0.75);
    }
    QCOMPARE(liveInits(), 0); // the destructor shut NVML down
    dlclose(fake);
}

void TestInventory::nvmlInitFailureIsAReason()
{
    void* fake = dlopen(TIDEPOOL_FAKE_NVML, RTLD_NOW | RTLD_LOCAL);
    QVERIFY2(fake, dlerror());
    const auto setInitResult = reinterpret_cast<void (*)(int)>(dlsym(fake, "fakeNvmlSetInitResult"));
    const auto liveInits = reinterpret_cast<int (*)()>(dlsym(fake, "fakeNvmlLiveInits"));
    QVERIFY(setInitResult && liveInits);
    setInitResult(9); // NVML_ERROR_DRIVER_NOT_LOADED
    {
        const Nvml nvml(TIDEPOOL_FAKE_NVML);
        QVERIFY(!nvml.available());
        QVERIFY(nvml.devices().empty());
        QVERIFY2(nvml.reason().find("nvmlInit_v2: Driver Not Loaded") != std::string::npos, nvml.reason().c_str());
    }
    setInitResult(0);
    QCOMPARE(liveInits(), 0);
    dlclose(fake);
}

void TestInventory::samplerComputesFromFixtures()
{
    std::int64_t now = 1'700'000'000'000;
    Sampler sampler(SamplerOptions { "/", nullptr, [&] { return now; } });
    // user nice system idle iowait irq softirq steal guest guest_nice
    const auto first = sampler.sampleFrom(statWith("cpu  1000 0 500 8000 100 0 0 0 50 0"), kMemInfo);
    QVERIFY2(first, first ? "" : first.error().message.c_str());
    QVERIFY(!first->cpuUtilisation); // the first sample only primes
    QVERIFY(!toUtilisationSample(*first));
    QCOMPARE(first->memoryUsedMiB, std::int64_t { (32768000 - 24576000) / 1024 });
    QCOMPARE(first->timestampMs, now);

    // +150 user, +50 system, +20 irq, +10 steal, +700 idle, +70 iowait (idle too), +30 guest (already in user).
    now += 1000;
    const auto second = sampler.sampleFrom(statWith("cpu  1150 0 550 8700 170 20 0 10 80 0"), kMemInfo);
    QVERIFY(second && second->cpuUtilisation);
    QCOMPARE(*second->cpuUtilisation, 230.0 / 1000.0);
    const auto wire = toUtilisationSample(*second);
    QVERIFY(wire);
    QCOMPARE(wire->timestampMs, now);
    QCOMPARE(wire->cpuUtilisation, 0.23);
    QCOMPARE(wire->memoryUsedMiB, second->memoryUsedMiB);

    // No tick passed: no utilisation rather than a division by zero.
    const auto same = sampler.sampleFrom(statWith("cpu  1150 0 550 8700 170 20 0 10 80 0"), kMemInfo);
    QVERIFY(same && !same->cpuUtilisation);

    const auto times = parseProcStat(statWith("cpu  10 20 30 40"));
    QVERIFY(times);
    QCOMPARE(times->total, std::uint64_t { 100 });
    QCOMPARE(times->busy, std::uint64_t { 60 });
    QCOMPARE(cpuUtilisationBetween(CpuTimes { 10, 100 }, CpuTimes { 60, 200 }), std::optional<double>(0.5));
    QCOMPARE(cpuUtilisationBetween(CpuTimes { 10, 100 }, CpuTimes { 5, 200 }), std::optional<double>());
}

void TestInventory::samplerKeepsPreviousReadingOnBadInput()
{
    Sampler sampler(SamplerOptions {});
    QVERIFY(sampler.sampleFrom(statWith("cpu  100 0 0 900 0 0 0 0 0 0"), kMemInfo));
    const auto noCpuLine = sampler.sampleFrom("intr 1\nctxt 2\n", kMemInfo);
    QVERIFY(!noCpuLine);
    QCOMPARE(qs(noCpuLine.error().field), QStringLiteral("cpu"));
    QVERIFY(noCpuLine.error().message.starts_with("/proc/stat: "));
    const auto garbled = sampler.sampleFrom(statWith("cpu  100 x 0 900"), kMemInfo);
    QVERIFY(!garbled);
    QCOMPARE(garbled.error().code, InventoryErrorCode::Malformed);
    const auto noMemory = sampler.sampleFrom(statWith("cpu  500 0 0 1500 0 0 0 0 0 0"), "MemFree: 1 kB\n");
    QVERIFY(!noMemory);
    QCOMPARE(qs(noMemory.error().field), QStringLiteral("MemTotal"));
    // The failed samples did not replace the reading of the first: 400 busy of 1000 since then.
    const auto next = sampler.sampleFrom(statWith("cpu  500 0 0 1500 0 0 0 0 0 0"), kMemInfo);
    QVERIFY(next && next->cpuUtilisation);
    QCOMPARE(*next->cpuUtilisation, 0.4);
}

// A pool's CPU and egress are rates between two readings of its counters; memory is what is charged now. A pool read
// for the first time, or whose counter went back (its cgroup was made again), only primes; a class made again (sent
// bytes back to 0) gives no network rate for that interval, nor does a pool that had no class. A pool that used
// nothing is left out.
void TestInventory::poolUsageIsARateBetweenReadings()
{
    PoolUsageMeter meter;
    constexpr std::uint64_t kMiB = 1 << 20;
    QVERIFY(
        meter
            .next({ { "web", { 10'000'000, 512 * kMiB, 1'000'000 } }, { "batch", { 5'000'000, kMiB, {} } } }, 1'000'000)
            .empty());
    // Two seconds later: web used 3 s of CPU (1.5 cores) and sent 25 MB (100 Mbit/s); batch 0.5 s (a quarter core)
    // with no class; "new" appears.
    auto used = meter.next({ { "web", { 13'000'000, 700 * kMiB + 1, 26'000'000 } },
                               { "batch", { 5'500'000, 3 * kMiB, {} } }, { "new", { 100, 0, 0 } } },
        3'000'000);
    QCOMPARE(used.size(), std::size_t { 2 });
    QCOMPARE(used[0], (tidepool::protocol::PoolUsage { "batch", 250, 3, -1.0 }));
    QCOMPARE(used[1], (tidepool::protocol::PoolUsage { "web", 1500, 700, 100.0 }));
    // web's class was made again (its bytes went back); "new"'s cgroup too (its CPU went back); batch went away.
    used = meter.next({ { "web", { 13'100'000, 0, 1000 } }, { "new", { 50, 0, 0 } } }, 4'000'000);
    QCOMPARE(used.size(), std::size_t { 1 });
    QCOMPARE(used[0], (tidepool::protocol::PoolUsage { "web", 100, 0, -1.0 }));
    // batch is forgotten: back again, it primes again. A reading at the same instant gives nothing (no time passed).
    QVERIFY(meter.next({ { "batch", { 9'000'000, 0, {} } }, { "web", { 13'200'000, 0, 2000 } } }, 4'000'000).empty());
    used = meter.next({ { "batch", { 9'000'000, 0, {} } }, { "web", { 13'300'000, 0, 127'000 } } }, 5'000'000);
    QCOMPARE(used.size(), std::size_t { 1 }); // batch used nothing: left out
    QCOMPARE(used[0], (tidepool::protocol::PoolUsage { "web", 100, 0, 1.0 }));
    // Memory alone, or sending alone, is use.
    used = meter.next({ { "batch", { 9'000'000, kMiB, {} } }, { "web", { 13'300'000, 0, 127'125 } } }, 6'000'000);
    QCOMPARE(used.size(), std::size_t { 2 });
    QCOMPARE(used[0], (tidepool::protocol::PoolUsage { "batch", 0, 1, -1.0 }));
    QCOMPARE(used[1], (tidepool::protocol::PoolUsage { "web", 0, 0, 0.001 }));
}

void TestInventory::samplerCpuUtilisationRisesWhileThreadsSpin()
{
    // Other processes may load this machine too, so the test bounds the utilisation from below by what this process
    // alone burnt: the node's busy time includes ours.
    const auto processCpuSeconds = [] {
        timespec ts {};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
    };
    const auto statCpus = [] {
        const auto stat = readTextFile("/proc/stat");
        int cpus = 0;
        for (std::size_t at = stat ? stat->find("\ncpu") : std::string::npos; at != std::string::npos;
             at = stat->find("\ncpu", at + 1))
            ++cpus;
        return cpus;
    }();
    QVERIFY(statCpus > 0);

    Sampler sampler(SamplerOptions {});
    QVERIFY(sampler.sample());
    const double cpuBefore = processCpuSeconds();
    const auto wallBefore = std::chrono::steady_clock::now();
    std::atomic<bool> stop { false };
    std::vector<std::thread> spinners;
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 0; i < threads; ++i) {
        spinners.emplace_back([&stop] {
            volatile std::uint64_t counter = 0;
            while (!stop.load(std::memory_order_relaxed))
                counter = counter + 1;
        });
    }
    std::this_thread::sleep_for(800ms);
    const auto busy = sampler.sample();
    const double cpuSpent = processCpuSeconds() - cpuBefore;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallBefore).count();
    stop = true;
    for (auto& spinner : spinners)
        spinner.join();
    QVERIFY2(busy, busy ? "" : busy.error().message.c_str());
    QVERIFY(busy->cpuUtilisation);

    const double ownShare = cpuSpent / (wall * statCpus);
    qInfo("utilisation %.3f while spinning %u threads; this process alone used %.3f of %d CPUs", *busy->cpuUtilisation,
        threads, ownShare, statCpus);
    if (ownShare < 0.1)
        QSKIP("the spinning threads hardly ran (a CPU quota?); the bound would prove nothing");
    // /proc/stat ticks at 100 Hz: allow a few ticks of rounding at each end.
    QVERIFY2(*busy->cpuUtilisation >= ownShare - 0.05,
        qPrintable(QStringLiteral("utilisation %1 below this process's own share %2")
                       .arg(*busy->cpuUtilisation)
                       .arg(ownShare)));
    QVERIFY(*busy->cpuUtilisation <= 1.0);

    // Memory used is a plausible share of the node's memory.
    const auto memory = parseMemInfo(readTextFile("/proc/meminfo").value_or(std::string()));
    QVERIFY(memory);
    QVERIFY(busy->memoryUsedMiB > 0);
    QVERIFY(busy->memoryUsedMiB < memory->totalKiB / 1024);
}

void TestInventory::probeCommandSucceeds()
{
    // The arguments reach the command as they are: no shell expands `$HOME` or splits on the space.
    const auto script = writeScript(dir() / "probe-ok.sh",
        R"(printf '[{"kind":"npu","vendor":"Acme","model":"%s",)"
        R"("memoryMiB":%s,"shareCapacity":16,"count":2}]' "$1" "$2")");
    const auto devices = runProbeCommand({ script.string(), "Model $HOME 1", "32768" }, 5000ms);
    QVERIFY2(devices, devices ? "" : devices.error().message.c_str());
    QCOMPARE(devices->size(), std::size_t { 2 });
    QCOMPARE(qs((*devices)[1].model), QStringLiteral("Model $HOME 1"));
    QCOMPARE((*devices)[1].memoryMiB, std::int64_t { 32768 });
    QCOMPARE((*devices)[1].index, 1);
    QCOMPARE((*devices)[0].source, DeviceSource::Probe);
    QCOMPARE((*devices)[0].kind, AcceleratorKind::Npu);
}

void TestInventory::probeCommandTimesOutAndIsKilled()
{
    // The script's `sleep` is its child: the timeout must reach it too, through the process group.
    const auto pidFile = dir() / "sleeper.pid";
    const auto script = writeScript(dir() / "probe-hang.sh", "sleep 30 &\necho $! > '" + pidFile.string() + "'\nwait");
    const auto started = std::chrono::steady_clock::now();
    const auto devices = runProbeCommand({ script.string() }, 300ms);
    const auto took = std::chrono::steady_clock::now() - started;
    QVERIFY(!devices);
    QCOMPARE(devices.error().code, InventoryErrorCode::ProbeTimedOut);
    QVERIFY2(devices.error().message.find("300 ms") != std::string::npos, devices.error().message.c_str());
    QVERIFY2(devices.error().message.find("probe-hang.sh") != std::string::npos, devices.error().message.c_str());
    QVERIFY(took >= 300ms);
    QVERIFY2(took < 5s, "the probe's timeout did not stop it");

    const auto pidText = readTextFile(pidFile);
    QVERIFY(pidText);
    const std::string sleeper = std::string(pidText->substr(0, pidText->find('\n')));
    // Gone, or a zombie waiting for its new parent to reap it: either way no longer running.
    const auto sleeperRunning = [&] {
        const auto stat = readTextFile("/proc/" + sleeper + "/stat");
        if (!stat)
            return false;
        const std::size_t close = stat->rfind(')');
        return close != std::string::npos && close + 2 < stat->size() && (*stat)[close + 2] != 'Z';
    };
    QTRY_VERIFY_WITH_TIMEOUT(!sleeperRunning(), 2000);
}

void TestInventory::probeCommandNonZeroExit()
{
    const auto script
        = writeScript(dir() / "probe-fail.sh", "echo 'starting' >&2\necho 'npu driver missing' >&2\nexit 3");
    const auto devices = runProbeCommand({ script.string() }, 5000ms);
    QVERIFY(!devices);
    QCOMPARE(devices.error().code, InventoryErrorCode::ProbeFailed);
    const std::string& message = devices.error().message;
    QVERIFY2(message.find("exited with status 3") != std::string::npos, message.c_str());
    QVERIFY2(message.find("npu driver missing") != std::string::npos, message.c_str());
    QVERIFY2(message.starts_with("probe `" + script.string() + "`: "), message.c_str());

    const auto killed = runProbeCommand({ writeScript(dir() / "probe-segv.sh", "kill -SEGV $$").string() }, 5000ms);
    QVERIFY(!killed);
    QCOMPARE(killed.error().code, InventoryErrorCode::ProbeFailed);
    QVERIFY2(killed.error().message.find("signal 11") != std::string::npos, killed.error().message.c_str());
}

void TestInventory::probeCommandBadJsonOrMissing()
{
    const auto script = writeScript(dir() / "probe-text.sh", "echo 'NPU 0: Ascend 910B'");
    const auto devices = runProbeCommand({ script.string() }, 5000ms);
    QVERIFY(!devices);
    QCOMPARE(devices.error().code, InventoryErrorCode::Malformed);
    QVERIFY2(devices.error().message.starts_with("probe `"), devices.error().message.c_str());

    const auto invalid
        = runProbeCommand({ writeScript(dir() / "probe-invalid.sh", R"(echo '[{"kind":"npu"}]')").string() }, 5000ms);
    QVERIFY(!invalid);
    QCOMPARE(qs(invalid.error().field), QStringLiteral("[0].vendor"));

    const auto missing = runProbeCommand({ "/nonexistent/tidepool-probe" }, 5000ms);
    QVERIFY(!missing);
    QCOMPARE(missing.error().code, InventoryErrorCode::ProbeFailed);
    QVERIFY2(missing.error().message.find("cannot start") != std::string::npos, missing.error().message.c_str());

    const auto empty = runProbeCommand({}, 5000ms);
    QVERIFY(!empty);
    QCOMPARE(empty.error().code, InventoryErrorCode::ProbeFailed);
}

QTEST_APPLESS_MAIN(TestInventory)
#include "tst_inventory.moc"
