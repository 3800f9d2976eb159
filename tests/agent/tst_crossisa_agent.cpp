// The agent's cross-ISA support: the ELF reader names the ISA of the isabench builds and of /bin/sh and turns short,
// truncated or garbage files into errors naming the path; the translator gives no prefix for native binaries, qemu
// for foreign ones and an error naming the ISA when there is none; isabench really runs through qemu-user and comes
// out slower; measured factors are cached per ISA pair and qemu version and re-measured when either changes.
// ISAs whose cross compiler or qemu-user is not installed are skipped, saying which.

#include "agents/crossisa/elf.h"
#include "agents/crossisa/slowdown.h"
#include "agents/crossisa/translator.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace tidepool::agent::crossisa;
namespace fs = std::filesystem;

namespace {

const fs::path kBinDir = TIDEPOOL_BIN_DIR;

std::string readAll(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void writeFile(const fs::path& path, const std::string& bytes, bool executable = false)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    if (executable)
        fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
}

// A 64-byte ELF header (64-bit unless `elfClass` says otherwise) with no program headers.
std::string elfHeader(std::uint16_t machine, unsigned char elfClass = 2, unsigned char byteOrder = 1)
{
    std::string h(64, '\0');
    h[0] = '\x7f';
    h[1] = 'E';
    h[2] = 'L';
    h[3] = 'F';
    h[4] = static_cast<char>(elfClass);
    h[5] = static_cast<char>(byteOrder);
    h[6] = 1;
    h[16] = 2; // ET_EXEC
    const bool little = byteOrder == 1;
    h[little ? 18 : 19] = static_cast<char>(machine & 0xff);
    h[little ? 19 : 18] = static_cast<char>(machine >> 8);
    return h;
}

QString q(const std::string& text)
{
    return QString::fromStdString(text);
}

// A stand-in for qemu-<target>-static: answers `--version` with `version`, and runs the host's isabench in place of
// the target binary it is given, relabelling its output as the target's (and, if asked, corrupting the checksum).
void writeFakeQemu(const fs::path& path, const std::string& version, const std::string& hostIsa,
    const std::string& targetIsa, bool wrongChecksum = false)
{
    const std::string native = (kBinDir / ("isabench-" + hostIsa)).string();
    std::string sed = "s/\"isa\":\"" + hostIsa + "\"/\"isa\":\"" + targetIsa + "\"/";
    if (wrongChecksum)
        sed += "; s/\"checksum\":\"./\"checksum\":\"X/";
    writeFile(path,
        "#!/bin/sh\n"
        "if [ \"$1\" = --version ]; then echo '"
            + version
            + "'; exit 0; fi\n"
              "shift\n"
              "\""
            + native + "\" \"$@\" | sed '" + sed + "'\n",
        true);
}

std::string foreignIsa()
{
    return hostIsa() == "aarch64" ? "riscv64" : "aarch64";
}

std::uint16_t machineOf(const std::string& isa)
{
    return isa == "x86_64" ? 62 : isa == "aarch64" ? 183 : 243;
}

} // namespace

class TestCrossIsaAgent : public QObject {
    Q_OBJECT

private slots:
    void elfNamesIsaOfIsabenchBuilds_data();
    void elfNamesIsaOfIsabenchBuilds();
    void elfOfBinShIsHostAndDynamic();
    void badFilesAreErrorsNamingThePath_data();
    void badFilesAreErrorsNamingThePath();
    void everyTruncationOfARealBinaryIsHandled();
    void unknownMachineHasNoIsa();
    void normalisesIsaSpellings();
    void wrapperForNativeBinaryIsEmpty();
    void wrapperForForeignBinaryIsQemu();
    void wrapperWithoutTranslatorNamesTheIsa();
    void wrapperForUnknownMachineNamesThePath();
    void translatedIsabenchIsSlower_data();
    void translatedIsabenchIsSlower();
    void cacheIsReusedPerPairAndQemuVersion();
    void corruptCacheIsReplaced();
    void wrongTranslatedChecksumIsAnError();
    void runCountIsChecked();
};

void TestCrossIsaAgent::elfNamesIsaOfIsabenchBuilds_data()
{
    QTest::addColumn<QString>("isa");
    QTest::addColumn<int>("machine");
    QTest::newRow("x86_64") << QStringLiteral("x86_64") << 62;
    QTest::newRow("aarch64") << QStringLiteral("aarch64") << 183;
    QTest::newRow("riscv64") << QStringLiteral("riscv64") << 243;
}

void TestCrossIsaAgent::elfNamesIsaOfIsabenchBuilds()
{
    QFETCH(QString, isa);
    QFETCH(int, machine);
    const fs::path bench = isabenchPath(kBinDir, isa.toStdString());
    if (!fs::exists(bench))
        QSKIP(qPrintable(QStringLiteral("%1 was not built (no %2-linux-gnu-gcc with a static C library)")
                             .arg(q(bench.string()), isa)));
    const auto info = readElfInfo(bench);
    QVERIFY2(info, info ? "" : info.error().message.c_str());
    QCOMPARE(q(info->isa), isa);
    QCOMPARE(int(info->machine), machine);
    QCOMPARE(info->elfClass, ElfClass::Elf64);
    QCOMPARE(info->byteOrder, ByteOrder::Little);
    QVERIFY2(!info->dynamic, "isabench is linked with -static: no PT_INTERP");
}

void TestCrossIsaAgent::elfOfBinShIsHostAndDynamic()
{
    const auto info = readElfInfo("/bin/sh");
    QVERIFY2(info, info ? "" : info.error().message.c_str());
    QCOMPARE(q(info->isa), q(hostIsa()));
    QVERIFY2(info->dynamic, "Debian's /bin/sh (dash) is dynamically linked");
}

void TestCrossIsaAgent::badFilesAreErrorsNamingThePath_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("code");

    std::string garbage(4096, '\0');
    std::uint32_t x = 12345;
    for (char& c : garbage) {
        x = x * 1103515245u + 12345u;
        c = static_cast<char>(x >> 24);
    }
    std::string badClass = elfHeader(62);
    badClass[4] = 7;
    std::string badOrder = elfHeader(62);
    badOrder[5] = 0;
    std::string badVersion = elfHeader(62);
    badVersion[6] = 9;
    // One program header of 56 bytes announced at offset 64, in a 64-byte file.
    std::string tablePastEnd = elfHeader(62);
    tablePastEnd[32] = 64; // e_phoff
    tablePastEnd[54] = 56; // e_phentsize
    tablePastEnd[56] = 1; // e_phnum
    std::string hugeOffset = tablePastEnd;
    for (int i = 32; i < 40; ++i)
        hugeOffset[i] = '\xff';
    std::string tinyEntries = tablePastEnd;
    tinyEntries[54] = 8;
    std::string xnumWithoutSections = elfHeader(62);
    xnumWithoutSections[54] = 56;
    xnumWithoutSections[56] = '\xff';
    xnumWithoutSections[57] = '\xff';

    auto row = [](const char* name, const std::string& bytes, ErrorCode code) {
        QTest::newRow(name) << QByteArray(bytes.data(), qsizetype(bytes.size())) << int(code);
    };
    row("empty", "", ErrorCode::NotElf);
    row("three bytes of magic", "\x7f\x45L", ErrorCode::NotElf);
    row("shell script", "#!/bin/sh\necho hello from a script that is long enough\n", ErrorCode::NotElf);
    row("random bytes", garbage, ErrorCode::NotElf);
    row("ELF ident only", elfHeader(62).substr(0, 16), ErrorCode::MalformedElf);
    row("header cut at 40 bytes", elfHeader(62).substr(0, 40), ErrorCode::MalformedElf);
    row("unknown class", badClass, ErrorCode::MalformedElf);
    row("unknown byte order", badOrder, ErrorCode::MalformedElf);
    row("unknown version", badVersion, ErrorCode::MalformedElf);
    row("program headers past the end", tablePastEnd, ErrorCode::MalformedElf);
    row("program headers at offset 2^64-1", hugeOffset, ErrorCode::MalformedElf);
    row("program header entries too small", tinyEntries, ErrorCode::MalformedElf);
    row("PN_XNUM without section headers", xnumWithoutSections, ErrorCode::MalformedElf);
}

void TestCrossIsaAgent::badFilesAreErrorsNamingThePath()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, code);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path path = fs::path(dir.path().toStdString()) / "workload.bin";
    writeFile(path, bytes.toStdString());

    const auto info = readElfInfo(path);
    QVERIFY(!info);
    QCOMPARE(int(info.error().code), code);
    QVERIFY2(info.error().message.find(path.string()) != std::string::npos, info.error().message.c_str());

    // The translator passes the reader's error on, path and all.
    const auto wrapper = Translator().wrapperFor(path);
    QVERIFY(!wrapper);
    QCOMPARE(int(wrapper.error().code), code);
    QVERIFY(wrapper.error().message.find(path.string()) != std::string::npos);
}

void TestCrossIsaAgent::everyTruncationOfARealBinaryIsHandled()
{
    // Every prefix of a real executable's headers: an error naming the file, or (once the program headers are whole)
    // the right answer. Under the asan preset this also proves no read strays past what the file holds.
    const std::string whole = readAll("/bin/sh");
    QVERIFY(whole.size() > 4096);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path path = fs::path(dir.path().toStdString()) / "truncated";
    for (std::size_t size = 0; size <= 1024; ++size) {
        writeFile(path, whole.substr(0, size));
        const auto info = readElfInfo(path);
        if (info) {
            QCOMPARE(q(info->isa), q(hostIsa()));
            QVERIFY(info->dynamic);
        } else {
            QVERIFY2(info.error().message.find(path.string()) != std::string::npos, info.error().message.c_str());
        }
    }
}

void TestCrossIsaAgent::unknownMachineHasNoIsa()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path path = fs::path(dir.path().toStdString()) / "arm32";
    writeFile(path, elfHeader(40, 1)); // EM_ARM, 32-bit: well-formed, but no ISA of ours
    auto info = readElfInfo(path);
    QVERIFY2(info, info ? "" : info.error().message.c_str());
    QCOMPARE(info->elfClass, ElfClass::Elf32);
    QCOMPARE(int(info->machine), 40);
    QVERIFY(info->isa.empty());

    writeFile(path, elfHeader(183, 2, 2)); // big-endian AArch64 is not "aarch64"
    info = readElfInfo(path);
    QVERIFY(info);
    QCOMPARE(info->byteOrder, ByteOrder::Big);
    QCOMPARE(int(info->machine), 183);
    QVERIFY(info->isa.empty());

    QCOMPARE(isaOfMachine(243, ElfClass::Elf64, ByteOrder::Little), std::string_view("riscv64"));
    QVERIFY(isaOfMachine(243, ElfClass::Elf32, ByteOrder::Little).empty()); // riscv32
    QVERIFY(isaOfMachine(62, ElfClass::Elf32, ByteOrder::Little).empty()); // x32
}

void TestCrossIsaAgent::normalisesIsaSpellings()
{
    QCOMPARE(q(normaliseIsa("amd64")), QStringLiteral("x86_64"));
    QCOMPARE(q(normaliseIsa("arm64")), QStringLiteral("aarch64"));
    QCOMPARE(q(normaliseIsa("riscv64")), QStringLiteral("riscv64"));
    QVERIFY(!hostIsa().empty());
    QCOMPARE(q(Translator(TranslatorConfig { "amd64", {}, std::string() }).hostIsa()), QStringLiteral("x86_64"));
}

void TestCrossIsaAgent::wrapperForNativeBinaryIsEmpty()
{
    const auto wrapper = Translator().wrapperFor("/bin/sh");
    QVERIFY2(wrapper, wrapper ? "" : wrapper.error().message.c_str());
    QVERIFY(wrapper->empty());
    const fs::path bench = isabenchPath(kBinDir, hostIsa());
    if (fs::exists(bench)) {
        const auto benchWrapper = Translator().wrapperFor(bench);
        QVERIFY(benchWrapper && benchWrapper->empty());
    }
}

void TestCrossIsaAgent::wrapperForForeignBinaryIsQemu()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path root = dir.path().toStdString();
    const std::string isa = foreignIsa();
    const fs::path binary = root / "foreign";
    writeFile(binary, elfHeader(machineOf(isa)));
    fs::create_directories(root / "qemu");
    fs::create_directories(root / "path");

    // Nothing on the search path and no configured directory: no translator.
    const TranslatorConfig none { {}, {}, (root / "path").string() };
    QVERIFY(!Translator(none).wrapperFor(binary));

    // A plain qemu-<isa> on the search path is found ...
    const fs::path plain = root / "path" / ("qemu-" + isa);
    writeFile(plain, "#!/bin/sh\n", true);
    auto wrapper = Translator(none).wrapperFor(binary);
    QVERIFY2(wrapper, wrapper ? "" : wrapper.error().message.c_str());
    QCOMPARE(*wrapper, std::vector<std::string> { plain.string() });

    // ... but the configured directory comes first, and qemu-<isa>-static before qemu-<isa>.
    const fs::path configured = root / "qemu" / ("qemu-" + isa);
    writeFile(configured, "#!/bin/sh\n", true);
    const TranslatorConfig withDir { {}, { root / "qemu" }, (root / "path").string() };
    QCOMPARE(*Translator(withDir).wrapperFor(binary), std::vector<std::string> { configured.string() });
    const fs::path staticOnPath = root / "path" / ("qemu-" + isa + "-static");
    writeFile(staticOnPath, "#!/bin/sh\n", true);
    QCOMPARE(*Translator(withDir).wrapperFor(binary), std::vector<std::string> { staticOnPath.string() });

    // A file that is not executable is no translator.
    fs::permissions(staticOnPath, fs::perms::owner_read | fs::perms::owner_write);
    fs::permissions(configured, fs::perms::owner_read | fs::perms::owner_write);
    QCOMPARE(*Translator(withDir).wrapperFor(binary), std::vector<std::string> { plain.string() });

    // The real one, when installed, for the real isabench build.
    const fs::path bench = isabenchPath(kBinDir, isa);
    if (Translator().translatorFor(isa) && fs::exists(bench)) {
        const auto real = Translator().wrapperFor(bench);
        QVERIFY2(real, real ? "" : real.error().message.c_str());
        QCOMPARE(real->size(), std::size_t(1));
        QVERIFY(fs::path(real->front()).filename().string().starts_with("qemu-" + isa));
    }
}

void TestCrossIsaAgent::wrapperWithoutTranslatorNamesTheIsa()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path binary = fs::path(dir.path().toStdString()) / "riscv-tool";
    writeFile(binary, elfHeader(243));
    const Translator translator(TranslatorConfig { "x86_64", {}, std::string() });
    const auto wrapper = translator.wrapperFor(binary);
    QVERIFY(!wrapper);
    QCOMPARE(wrapper.error().code, ErrorCode::NoTranslator);
    QVERIFY2(wrapper.error().message.find("riscv64") != std::string::npos, wrapper.error().message.c_str());
    QVERIFY(wrapper.error().message.find("qemu-riscv64-static") != std::string::npos);
    QVERIFY(wrapper.error().message.find(binary.string()) != std::string::npos);

    // ISA names never become paths.
    QVERIFY(!translator.translatorFor("../../bin/sh"));
    QCOMPARE(translator.wrapperForIsa("../x").error().code, ErrorCode::BadArgument);
}

void TestCrossIsaAgent::wrapperForUnknownMachineNamesThePath()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path binary = fs::path(dir.path().toStdString()) / "mips-tool";
    writeFile(binary, elfHeader(8)); // EM_MIPS
    const auto wrapper = Translator().wrapperFor(binary);
    QVERIFY(!wrapper);
    QCOMPARE(wrapper.error().code, ErrorCode::UnknownIsa);
    QVERIFY(wrapper.error().message.find(binary.string()) != std::string::npos);
    QVERIFY2(wrapper.error().message.find("machine 8") != std::string::npos, wrapper.error().message.c_str());
}

void TestCrossIsaAgent::translatedIsabenchIsSlower_data()
{
    QTest::addColumn<QString>("isa");
    QTest::newRow("aarch64") << QStringLiteral("aarch64");
    QTest::newRow("riscv64") << QStringLiteral("riscv64");
}

void TestCrossIsaAgent::translatedIsabenchIsSlower()
{
    QFETCH(QString, isa);
    const std::string target = isa.toStdString();
    const Translator translator;
    if (target == translator.hostIsa())
        QSKIP("the host's own ISA: nothing to translate");
    if (!fs::exists(isabenchPath(kBinDir, translator.hostIsa())))
        QSKIP("the host's isabench was not built (no C compiler that links statically)");
    if (!fs::exists(isabenchPath(kBinDir, target)))
        QSKIP(qPrintable(QStringLiteral("isabench-%1 was not built (no %1-linux-gnu-gcc)").arg(isa)));
    if (!translator.translatorFor(target))
        QSKIP(qPrintable(QStringLiteral("no qemu-%1-static on PATH (Debian package qemu-user-static)").arg(isa)));

    const auto m = measureSlowdown(translator, kBinDir, target);
    QVERIFY2(m, m ? "" : m.error().message.c_str());
    QCOMPARE(m->nativeNs.size(), std::size_t(3));
    QCOMPARE(m->translatedNs.size(), std::size_t(3));
    QVERIFY(!m->fromCache);
    QVERIFY(m->qemuVersion.starts_with("qemu-" + target));
    QVERIFY(m->nativeMedianNs > 0);
    qInfo("%s -> %s under %s: native median %.1f ms, translated median %.1f ms, factor %.2f", m->hostIsa.c_str(),
        target.c_str(), m->qemuVersion.c_str(), double(m->nativeMedianNs) / 1e6, double(m->translatedMedianNs) / 1e6,
        m->factor);
    QVERIFY2(m->factor > 1.0, qPrintable(QStringLiteral("factor %1").arg(m->factor)));
    QCOMPARE(m->factor, double(m->translatedMedianNs) / double(m->nativeMedianNs));
}

void TestCrossIsaAgent::cacheIsReusedPerPairAndQemuVersion()
{
    const std::string host = hostIsa();
    if (!fs::exists(isabenchPath(kBinDir, host)))
        QSKIP("the host's isabench was not built");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path root = dir.path().toStdString();
    const std::string target = foreignIsa();
    // The bench directory: the host's real isabench and a stand-in for the target's (the fake qemu ignores it).
    fs::create_directories(root / "bench");
    fs::create_directories(root / "empty");
    fs::copy_file(isabenchPath(kBinDir, host), isabenchPath(root / "bench", host));
    writeFile(isabenchPath(root / "bench", target), elfHeader(machineOf(target)));
    fs::create_directories(root / "qemu");
    const fs::path qemu = root / "qemu" / ("qemu-" + target + "-static");
    writeFakeQemu(qemu, "qemu-fake version 1", host, target);
    const Translator translator(TranslatorConfig { {}, { root / "qemu" }, std::string() });

    SlowdownOptions options;
    options.cachePath = root / "state" / "slowdown.json";
    options.benchArgs = { "10" }; // a few milliseconds a run

    const auto first = measureSlowdown(translator, root / "bench", target, options);
    QVERIFY2(first, first ? "" : first.error().message.c_str());
    QVERIFY(!first->fromCache);
    QVERIFY2(first->cacheProblem.empty(), first->cacheProblem.c_str());
    QCOMPARE(q(first->qemuVersion), QStringLiteral("qemu-fake version 1"));
    QVERIFY(fs::exists(options.cachePath));
    QVERIFY(readAll(options.cachePath).find(host + "->" + target) != std::string::npos);

    // Reused: no isabench is run (there is none in the empty directory), and the result is the stored one.
    const auto second = measureSlowdown(translator, root / "empty", target, options);
    QVERIFY2(second, second ? "" : second.error().message.c_str());
    QVERIFY(second->fromCache);
    QCOMPARE(second->factor, first->factor);
    QCOMPARE(second->nativeNs, first->nativeNs);
    QCOMPARE(second->translatedNs, first->translatedNs);

    // Other benchmark arguments: measured again.
    SlowdownOptions otherArgs = options;
    otherArgs.benchArgs = { "11" };
    QVERIFY(!measureSlowdown(translator, root / "empty", target, otherArgs));

    // Another qemu version: measured again (and fails here, for want of isabench), then measured and stored.
    writeFakeQemu(qemu, "qemu-fake version 2", host, target);
    const auto stale = measureSlowdown(translator, root / "empty", target, options);
    QVERIFY(!stale);
    QCOMPARE(stale.error().code, ErrorCode::BenchmarkFailed);
    QVERIFY2(stale.error().message.find("isabench-") != std::string::npos, stale.error().message.c_str());
    const auto third = measureSlowdown(translator, root / "bench", target, options);
    QVERIFY2(third, third ? "" : third.error().message.c_str());
    QVERIFY(!third->fromCache);
    QVERIFY(readAll(options.cachePath).find("qemu-fake version 2") != std::string::npos);
    const auto fourth = measureSlowdown(translator, root / "empty", target, options);
    QVERIFY(fourth && fourth->fromCache);

    // The host's own ISA is not translated: factor 1, nothing run.
    const auto native = measureSlowdown(translator, root / "empty", host, options);
    QVERIFY(native);
    QCOMPARE(native->factor, 1.0);
    QVERIFY(native->nativeNs.empty());
}

void TestCrossIsaAgent::corruptCacheIsReplaced()
{
    const std::string host = hostIsa();
    if (!fs::exists(isabenchPath(kBinDir, host)))
        QSKIP("the host's isabench was not built");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path root = dir.path().toStdString();
    const std::string target = foreignIsa();
    fs::create_directories(root / "qemu");
    writeFakeQemu(root / "qemu" / ("qemu-" + target + "-static"), "qemu-fake version 1", host, target);
    fs::create_directories(root / "bench");
    fs::copy_file(isabenchPath(kBinDir, host), isabenchPath(root / "bench", host));
    writeFile(isabenchPath(root / "bench", target), elfHeader(machineOf(target)));
    const Translator translator(TranslatorConfig { {}, { root / "qemu" }, std::string() });
    SlowdownOptions options;
    options.cachePath = root / "slowdown.json";
    options.benchArgs = { "10" };
    options.runs = 1;

    for (const std::string& junk :
        { std::string("{\"format\": \"one\", \"pairs\": 7}"), std::string("\x01\x02 not json"),
            "{\"format\": 1, \"pairs\": {\"" + host + "->" + target
                + "\": {\"qemuVersion\": \"qemu-fake version 1\", \"benchArgs\": [\"10\"], \"factor\": \"fast\"}}}" }) {
        writeFile(options.cachePath, junk);
        const auto m = measureSlowdown(translator, root / "bench", target, options);
        QVERIFY2(m, m ? "" : m.error().message.c_str());
        QVERIFY(!m->fromCache);
        const auto again = measureSlowdown(translator, root / "bench", target, options);
        QVERIFY(again && again->fromCache);
    }
}

void TestCrossIsaAgent::wrongTranslatedChecksumIsAnError()
{
    const std::string host = hostIsa();
    if (!fs::exists(isabenchPath(kBinDir, host)))
        QSKIP("the host's isabench was not built");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path root = dir.path().toStdString();
    const std::string target = foreignIsa();
    writeFakeQemu(root / ("qemu-" + target + "-static"), "qemu-fake version 1", host, target, true);
    fs::copy_file(isabenchPath(kBinDir, host), isabenchPath(root, host));
    writeFile(isabenchPath(root, target), elfHeader(machineOf(target)));
    SlowdownOptions options;
    options.benchArgs = { "5" };
    const auto m = measureSlowdown(Translator(TranslatorConfig { {}, { root }, std::string() }), root, target, options);
    QVERIFY(!m);
    QCOMPARE(m.error().code, ErrorCode::BenchmarkFailed);
    QVERIFY2(m.error().message.find("translation is wrong") != std::string::npos, m.error().message.c_str());
}

void TestCrossIsaAgent::runCountIsChecked()
{
    SlowdownOptions options;
    options.runs = 0;
    const auto m = measureSlowdown(Translator(), kBinDir, "aarch64", options);
    QVERIFY(!m);
    QCOMPARE(m.error().code, ErrorCode::BadArgument);
}

QTEST_APPLESS_MAIN(TestCrossIsaAgent)
#include "tst_crossisa_agent.moc"
