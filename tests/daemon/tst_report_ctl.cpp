// Reports end to end: a real `tidepoold` on a database seeded with yesterday's history (two nodes, a web pool whose
// business line has a Chinese name and a pool whose business line is a spreadsheet formula), `GET /v1/report` with a
// viewer token, and `tidepoolctl report` writing CSV, HTML and PDF with no display. The PDF is read back with poppler
// (`pdftotext`: the Chinese labels are text; `pdftoppm -png`: the pages render and the charts are drawn). Bad periods,
// an unknown scope and an unwritable output are refused naming what was wrong. The daemon's daily report (caught up
// at start) lands in its report directory, and one it cannot write is logged without disturbing the daemon.
// Every process started here is stopped in `cleanupTestCase` (and dies with the test, `PR_SET_PDEATHSIG`).

#include "core/api/operator_tokens.h"
#include "core/rebalance/proposal.h"
#include "core/report/report.h"
#include "tests/ui/daemon_fixture.h"
#include "ui/bridge/core_bridge.h"
#include "ui/bridge/remote_backend.h"

#include <QDir>
#include <QImage>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <memory>

using namespace tidepool;
using nlohmann::json;

namespace {

constexpr std::int64_t kDayMs = 86'400'000;
constexpr std::int64_t kStep = store::kAggregateBucketMs;

// Yesterday, UTC: the day the daemon's daily report covers.
std::int64_t yesterday()
{
    return api::unixMillis() / kDayMs * kDayMs - kDayMs;
}

QString dayText(std::int64_t ms)
{
    return QString::fromStdString(report::formatTime(ms).substr(0, 10));
}

// Yesterday's history: pool web-0 (business line 网上商城, on the warm node n1) asks for 3 cores, pool calc (business
// line "=SUM(A1)+1", on the hot node g1) for 6 cores and 1 GPU; n1 uses 2 cores, g1 5 cores and its two GPUs at 40 %.
// A quota raise of web-0 was applied at 07:00, its reason in clauses.
void seedYesterday(const std::string& path)
{
    auto opened = store::openSqliteStore(path);
    QVERIFY(opened);
    store::Store& s = **opened;
    s.putPool({ "web-0", "网上商城", "warm", 8000, kUnlimited, 100 });
    s.putPool({ "calc", "=SUM(A1)+1", "hot", 16000, kUnlimited, 100 });
    store::StoredNode n1;
    n1.name = "n1";
    n1.isa = "x86_64";
    n1.tier = "warm";
    n1.cpuMillis = 16000;
    n1.memoryMiB = 65536;
    s.putNode(n1);
    store::StoredNode g1 = n1;
    g1.name = "g1";
    g1.tier = "hot";
    g1.cpuMillis = 32000;
    g1.devices
        = json::array({ { { "kind", "gpu" }, { "model", "A100" }, { "memoryMiB", 40960 }, { "shareCapacity", 1000 } },
            { { "kind", "gpu" }, { "model", "A100" }, { "memoryMiB", 40960 }, { "shareCapacity", 1000 } } });
    s.putNode(g1);
    std::vector<store::Sample> samples;
    const double pi = std::acos(-1.0);
    for (std::int64_t t = yesterday(); t < yesterday() + kDayMs; t += kStep) {
        // A daily swing around the means, so that the charts have a shape; its mean over the day is 0.
        const double swing = std::sin(2 * pi * static_cast<double>(t - yesterday()) / kDayMs);
        samples.push_back({ { "pool", "web-0", "cpu" }, t, 3000 + 1000 * swing });
        samples.push_back({ { "pool", "web-0", "memory" }, t, 8192 });
        samples.push_back({ { "pool", "calc", "cpu" }, t, 6000 });
        samples.push_back({ { "pool", "calc", "gpu" }, t, 1000 });
        samples.push_back({ { "tier", "warm", "cpu" }, t, 3000 + 1000 * swing });
        samples.push_back({ { "tier", "hot", "cpu" }, t, 6000 });
        samples.push_back({ { "tier", "hot", "gpu" }, t, 1000 });
        samples.push_back({ { "node", "n1", "cpu" }, t, 2000 + 800 * swing });
        samples.push_back({ { "node", "g1", "cpu" }, t, 5000 });
        samples.push_back({ { "node", "g1", "gpu_util" }, t, 0.4 });
    }
    s.addSamples(samples);
    rebalance::Proposal raise;
    raise.id = 1;
    raise.kind = rebalance::ProposalKind::Quota;
    raise.state = rebalance::ProposalState::Applied;
    raise.risk = rebalance::Risk::Low;
    raise.plan = { rebalance::Action::setCpuQuota("web-0", 10000, 8000) };
    rebalance::explain(raise, { rebalance::clause("quota-raise", { rebalance::amountArg(10000, "cpu") }) });
    raise.createdMs = yesterday() + 6 * 3'600'000;
    raise.expiresMs = raise.createdMs + 3'600'000;
    raise.decidedMs = yesterday() + 7 * 3'600'000;
    raise.decidedBy = "token:otto";
    s.putProposal(rebalance::toStored(raise));
    QVERIFY(s.commit());
    QVERIFY(s.maintain(api::unixMillis(), store::Retention { 0, 0, 0, 0, 0 }));
}

bool hasTool(const char* name)
{
    return !QStandardPaths::findExecutable(QString::fromUtf8(name)).isEmpty();
}

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

Run runProgram(const QString& program, const QStringList& args)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // No display: tidepoolctl must find its way to the offscreen platform by itself.
    for (const char* name :
        { "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "TIDEPOOL_SERVER", "TIDEPOOL_TOKEN_FILE" })
        env.remove(QString::fromUtf8(name));
    process.setProcessEnvironment(env);
    process.start(program, args);
    Run run;
    if (!process.waitForFinished(60'000)) {
        process.kill();
        process.waitForFinished();
        run.err = program + QStringLiteral(" did not finish within 60 s");
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

QString readText(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// Pixels that are clearly coloured (not white, grey or black): the charts' lines and bars; text and frames are grey.
int colouredPixels(const QImage& image)
{
    int count = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (std::max({ c.red(), c.green(), c.blue() }) - std::min({ c.red(), c.green(), c.blue() }) > 60)
                ++count;
        }
    return count;
}

} // namespace

class TestReportCtl : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void cleanup();

    void apiAnswersTheSeededNumbersToAViewer();
    void csvIsFormulaSafe();
    void htmlInChinese();
    void pdfWithChartsAndChineseLabels_data();
    void pdfWithChartsAndChineseLabels();
    void badRequestsNameWhatWasWrong_data();
    void badRequestsNameWhatWasWrong();
    void periodTakesTheTimesAuditTakes();
    void consoleOverConnectFetchesTheReport();
    void dailyReportIsWrittenAtStart();
    void unwritableReportDirectoryIsLoggedAndTheDaemonGoesOn();

private:
    Run ctl(const QStringList& args) const
    {
        return runProgram(fixture::binary("tidepoolctl"),
            QStringList { QStringLiteral("--server"), QStringLiteral("127.0.0.1:") + QString::number(m_apiPort),
                QStringLiteral("--token-file"), m_viewerFile }
                + args);
    }
    QString path(const char* name) const { return m_dir.filePath(QString::fromUtf8(name)); }
    QStringList daemonArgs(const QString& db, const QString& reportDir) const
    {
        return { QStringLiteral("--db"), db, QStringLiteral("--join-token-file"), m_joinFile,
            QStringLiteral("--operator-token-file"), m_tokensFile, QStringLiteral("--config"), m_configFile,
            QStringLiteral("--report-dir"), reportDir };
    }

    QTemporaryDir m_dir;
    QString m_joinFile;
    QString m_tokensFile;
    QString m_viewerFile;
    std::string m_viewerToken;
    QString m_configFile;
    std::uint16_t m_apiPort = 0;
    std::unique_ptr<QProcess> m_daemon;
    std::unique_ptr<QProcess> m_broken; // the daemon whose report directory cannot be written
};

void TestReportCtl::initTestCase()
{
    QVERIFY(m_dir.isValid());
    for (const char* name : { "tidepoold", "tidepoolctl" })
        QVERIFY2(QFile::exists(fixture::binary(name)), name);
    m_joinFile = fixture::writeFile(path("join.token"), fixture::randomToken().toUtf8() + '\n');
    m_tokensFile = path("tokens");
    auto viewer = api::addToken(m_tokensFile.toStdString(), "vera", api::Role::Viewer);
    QVERIFY2(viewer, viewer ? "" : viewer.error().message.c_str());
    m_viewerToken = *viewer;
    m_viewerFile = fixture::writeFile(path("vera.token"), QByteArray::fromStdString(*viewer) + '\n');
    // Prices per node class, and the daily report due at midnight, so that it is caught up at start.
    m_configFile = fixture::writeFile(path("tidepoold.json"),
        R"({"reportDailyAt": "00:00", "reportCurrency": "CNY", "reportPrices": {
              "warm-x86_64": {"cpuCoreHour": 0.1, "memoryGiBHour": 0.01},
              "hot-x86_64-gpu": {"cpuCoreHour": 0.2, "gpuHour": 3}}})");
    seedYesterday(path("t.db").toStdString());
    QVERIFY(QDir().mkpath(path("reports")));
    m_daemon = std::make_unique<QProcess>();
    m_apiPort = fixture::startDaemon(*m_daemon, daemonArgs(path("t.db"), path("reports")), path("tidepoold.log"));
    QVERIFY2(m_apiPort != 0, qPrintable(readText(path("tidepoold.log"))));
}

void TestReportCtl::cleanupTestCase()
{
    fixture::stopProcess(m_daemon.get());
    fixture::stopProcess(m_broken.get());
}

void TestReportCtl::cleanup()
{
    if (QTest::currentTestFailed())
        qWarning("tidepoold's log so far:\n%s", qPrintable(readText(path("tidepoold.log")).right(4000)));
}

void TestReportCtl::apiAnswersTheSeededNumbersToAViewer()
{
    int status = 0;
    const std::string target = "/v1/report?from=" + std::to_string(yesterday())
        + "&to=" + std::to_string(yesterday() + kDayMs) + "&scope=pool&name=web-0";
    const json j = fixture::call(m_apiPort, m_viewerToken, api::HttpMethod::Get, target, {}, &status);
    QCOMPARE(status, 200);
    QCOMPARE(j["request"]["scope"].get<std::string>(), std::string("pool"));
    const json& cpu = j["utilisation"][0];
    QCOMPARE(cpu["resource"].get<std::string>(), std::string("cpu"));
    QVERIFY2(qAbs(cpu["requestedMean"].get<double>() - 3.0) < 0.01, cpu.dump().c_str()); // the swing averages out
    QVERIFY(qAbs(cpu["requestedPeak"].get<double>() - 4.0) < 0.05);
    QCOMPARE(cpu["requested"].size(), j["buckets"].size());
    QCOMPARE(j["costs"][0]["businessLine"].get<std::string>(), std::string("网上商城"));
    QVERIFY(qAbs(j["costs"][0]["cpuCoreHours"].get<double>() - 72.0) < 0.5); // 3 cores for 24 hours
    // Closed proposals are kept for 90 days by default: a report reaching further back says that it lacks the older
    // ones; yesterday's does not.
    const auto mentionsRetention = [](const json& report) {
        return std::any_of(report["notes"].begin(), report["notes"].end(),
            [](const json& n) { return n.get<std::string>().find("kept for 90 days") != std::string::npos; });
    };
    QVERIFY2(!mentionsRetention(j), j["notes"].dump().c_str());
    const json old = fixture::call(m_apiPort, m_viewerToken, api::HttpMethod::Get,
        "/v1/report?from=" + std::to_string(yesterday() - 91 * kDayMs)
            + "&to=" + std::to_string(yesterday() - 90 * kDayMs),
        {}, &status);
    QCOMPARE(status, 200);
    QVERIFY2(mentionsRetention(old), old["notes"].dump().c_str());

    const json missing
        = fixture::call(m_apiPort, m_viewerToken, api::HttpMethod::Get, "/v1/report?scope=pool&name=nope", {}, &status);
    QCOMPARE(status, 404);
    QVERIFY2(missing["error"].get<std::string>().find("unknown pool \"nope\" (known: calc, default, web-0)")
            != std::string::npos,
        missing.dump().c_str());
    const json backwards = fixture::call(
        m_apiPort, m_viewerToken, api::HttpMethod::Get, "/v1/report?from=2026-12-02&to=2026-12-01", {}, &status);
    QCOMPARE(status, 400);
    QVERIFY(backwards["error"].get<std::string>().find("`from` (2026-12-02 00:00) must be before `to`")
        != std::string::npos);
}

void TestReportCtl::csvIsFormulaSafe()
{
    const QString file = path("day.csv");
    const Run run = ctl({ QStringLiteral("report"), QStringLiteral("--day"), dayText(yesterday()),
        QStringLiteral("--format"), QStringLiteral("csv"), QStringLiteral("-o"), file });
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    const QString csv = readText(file);
    QVERIFY(csv.startsWith(QStringLiteral("section,subject,measure,time,value,unit\r\n")));
    QVERIFY2(csv.contains(QStringLiteral("\r\ncosts,'=SUM(A1)+1,cost,,")), qPrintable(csv.right(800)));
    QVERIFY(!csv.contains(QStringLiteral(",=SUM")));
    QVERIFY(csv.contains(QStringLiteral("\r\ncosts,网上商城,cpu_core_hours,,72")));
    QVERIFY(csv.contains(QStringLiteral("\r\nutilisation,gpu,capacity,,2,devices\r\n")));
}

void TestReportCtl::htmlInChinese()
{
    const QString file = path("day.html");
    const Run run = ctl({ QStringLiteral("report"), QStringLiteral("--day"), dayText(yesterday()),
        QStringLiteral("--language"), QStringLiteral("zh_CN"), QStringLiteral("-o"), file });
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    const QString html = readText(file);
    QVERIFY(html.contains(QStringLiteral("<html lang=\"zh-CN\">")));
    QVERIFY(html.contains(QStringLiteral("利用率：申请量与实际用量")));
    QVERIFY(html.contains(QStringLiteral("<svg")));
    QVERIFY(html.contains(QStringLiteral("=SUM(A1)+1"))); // text in HTML, nothing to neutralise
    // The stored proposal's reason, worded from its clauses through the daemon's API.
    QVERIFY2(html.contains(QStringLiteral("在高峰前将其提高到 10000 mCPU")), qPrintable(html.right(3000)));
}

void TestReportCtl::pdfWithChartsAndChineseLabels_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<QStringList>("words");
    QTest::newRow("en") << QStringLiteral("en")
                        << QStringList { QStringLiteral("Utilisation: requested vs used"),
                               QStringLiteral("Tier occupancy"), QStringLiteral("Cost per business line"),
                               QStringLiteral("raise it to 10000 mCPU") };
    QTest::newRow("zh_CN") << QStringLiteral("zh_CN")
                           << QStringList { QStringLiteral("利用率：申请量与实际用量"), QStringLiteral("层级占用"),
                                  QStringLiteral("各业务线成本"), QStringLiteral("网上商城"),
                                  QStringLiteral("在高峰前将其提高到") };
}

void TestReportCtl::pdfWithChartsAndChineseLabels()
{
    QFETCH(QString, language);
    QFETCH(QStringList, words);
    if (!hasTool("pdftotext") || !hasTool("pdftoppm"))
        QSKIP("poppler-utils (pdftotext, pdftoppm) is not installed");
    const QString file = path("day-") + language + QStringLiteral(".pdf");
    const Run run
        = ctl({ QStringLiteral("report"), QStringLiteral("--day"), dayText(yesterday()), QStringLiteral("--language"),
            language, QStringLiteral("--format"), QStringLiteral("pdf"), QStringLiteral("-o"), file });
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QFile pdf(file);
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.read(5) == "%PDF-");

    const Run text = runProgram(QStringLiteral("pdftotext"), { QStringLiteral("-layout"), file, QStringLiteral("-") });
    QCOMPARE(text.exitCode, 0);
    for (const QString& word : words)
        QVERIFY2(text.out.contains(word), qPrintable(word + QStringLiteral(" is not in:\n") + text.out.left(3000)));

    const QString prefix = path("page-") + language;
    const Run png = runProgram(QStringLiteral("pdftoppm"),
        { QStringLiteral("-png"), QStringLiteral("-r"), QStringLiteral("60"), file, prefix });
    QCOMPARE(png.exitCode, 0);
    const QStringList pages
        = QDir(m_dir.path()).entryList({ QStringLiteral("page-") + language + QStringLiteral("-*.png") });
    QVERIFY2(pages.size() >= 2, qPrintable(pages.join(QLatin1Char(' '))));
    const QImage first(m_dir.filePath(pages.front()));
    QVERIFY(!first.isNull());
    QVERIFY2(colouredPixels(first) > 500, "the first page's charts drew nothing");
}

void TestReportCtl::badRequestsNameWhatWasWrong_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QString out = path("bad.csv");
    const QString csv = QStringLiteral("csv");
    QTest::newRow("from after to")
        << QStringList { QStringLiteral("--from"), QStringLiteral("2026-12-02"), QStringLiteral("--to"),
               QStringLiteral("2026-12-01"), QStringLiteral("-o"), out }
        << 2
        << QStringLiteral(
               "report: the period is empty: --from (2026-12-02 00:00) must be before --to (2026-12-01 00:00)");
    QTest::newRow("a day yet to come") << QStringList {
        QStringLiteral("--day"), QStringLiteral("2099-01-01"), QStringLiteral("-o"), out
    } << 1 << QStringLiteral("tidepoolctl: the period starts at 2099-01-01 00:00, which has not come yet");
    QTest::newRow("unparsable from") << QStringList { QStringLiteral("--from"), QStringLiteral("last tuesday"),
        QStringLiteral("--to"), QStringLiteral("2026-12-01"), QStringLiteral("-o"), out }
                                     << 2 << QStringLiteral("report: --from: \"last tuesday\" is not a time");
    QTest::newRow("no such day") << QStringList { QStringLiteral("--from"), QStringLiteral("2026-02-29"),
        QStringLiteral("-o"), out }
                                 << 2 << QStringLiteral("report: --from: \"2026-02-29\" is not a time");
    QTest::newRow("bad day") << QStringList { QStringLiteral("--day"), QStringLiteral("2026-12"), QStringLiteral("-o"),
        out } << 2 << QStringLiteral("--day \"2026-12\" must be a date YYYY-MM-DD");
    QTest::newRow("unknown pool") << QStringList { QStringLiteral("--scope"), QStringLiteral("pool"),
        QStringLiteral("--name"), QStringLiteral("nope"), QStringLiteral("-o"),
        out } << 1 << QStringLiteral("unknown pool \"nope\" (known: calc, default, web-0) (HTTP 404)");
    QTest::newRow("unknown business line") << QStringList { QStringLiteral("--scope"), QStringLiteral("business-line"),
        QStringLiteral("--name"), QStringLiteral("零售"), QStringLiteral("-o"), out }
                                           << 1 << QStringLiteral("unknown business line \"零售\"");
    QTest::newRow("unknown scope kind") << QStringList { QStringLiteral("--scope"), QStringLiteral("rack"),
        QStringLiteral("--name"), QStringLiteral("r1"), QStringLiteral("-o"), out }
                                        << 2 << QStringLiteral("--scope \"rack\" is not one of cluster, business-line");
    QTest::newRow("missing directory") << QStringList { QStringLiteral("-o"), path("no-such-dir/r.pdf") } << 2
                                       << QStringLiteral("-o ") + path("no-such-dir/r.pdf")
            + QStringLiteral(": cannot write in ") + path("no-such-dir")
            + QStringLiteral(": No such file or directory");
    QTest::newRow("directory is a file") << QStringList { QStringLiteral("-o"), path("join.token/r.csv") } << 2
                                         << QStringLiteral(": Not a directory");
    QTest::newRow("no format") << QStringList { QStringLiteral("-o"), path("report.txt") } << 2
                               << QStringLiteral("--format pdf|html|csv|json is required");
    QTest::newRow("no output") << QStringList { QStringLiteral("--format"), csv } << 2
                               << QStringLiteral("-o FILE is required");
}

void TestReportCtl::badRequestsNameWhatWasWrong()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const Run run = ctl(QStringList { QStringLiteral("report") } + args);
    QVERIFY2(run.err.contains(message), qPrintable(run.err));
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY(!QFile::exists(path("bad.csv")));
}

// --from and --to take what `audit` and `history` take: an offset, a time before now, "now".
void TestReportCtl::periodTakesTheTimesAuditTakes()
{
    const QString file = path("period.json");
    const auto period = [&](const QStringList& times) -> std::pair<std::int64_t, std::int64_t> {
        const Run run = ctl(QStringList { QStringLiteral("report") } + times
            + QStringList { QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("-o"), file });
        if (run.exitCode != 0) {
            qWarning("%s", qPrintable(run.err));
            return { -1, -1 };
        }
        const json report = json::parse(readText(file).toStdString());
        return { report["request"]["fromMs"].get<std::int64_t>(), report["request"]["toMs"].get<std::int64_t>() };
    };
    // 01:00 at +01:00 is midnight UTC.
    const auto [from, to] = period({ QStringLiteral("--from"), dayText(yesterday()) + QStringLiteral("T01:00:00+01:00"),
        QStringLiteral("--to"), dayText(yesterday()) + QStringLiteral("T12:00:00.500Z") });
    QCOMPARE(from, yesterday());
    QCOMPARE(to, yesterday() + kDayMs / 2 + 500);
    const std::int64_t before = api::unixMillis();
    const auto [agoFrom, agoTo]
        = period({ QStringLiteral("--from"), QStringLiteral("-2h"), QStringLiteral("--to"), QStringLiteral("now") });
    QCOMPARE(agoTo - agoFrom, std::int64_t { 2 * 3'600'000 });
    QVERIFY(agoTo >= before && agoTo <= api::unixMillis());
}

void TestReportCtl::consoleOverConnectFetchesTheReport()
{
    // The console's --connect path: RemoteBackend on its thread, answers through the CoreBridge on this thread.
    ui::CoreBridge bridge;
    ui::RemoteConfig config;
    config.endpoint = *ui::parseConnectUrl("http://127.0.0.1:" + std::to_string(m_apiPort));
    config.token = m_viewerToken;
    ui::RemoteBackend backend(config, bridge.events());
    bridge.setBackend(&backend);
    QSignalSpy finished(&bridge, &ui::CoreBridge::reportFinished);
    report::ReportRequest request;
    request.fromMs = yesterday();
    request.toMs = yesterday() + kDayMs;
    request.scope = report::ScopeKind::BusinessLine;
    request.name = "网上商城"; // sent percent-encoded
    request.language = report::Language::ZhCN;
    const quint64 id = bridge.requestReport(request);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20'000);
    const auto result = finished.takeFirst().at(0).value<ui::ReportResult>();
    QCOMPARE(result.requestId, id);
    QVERIFY2(result.data, result.message.c_str());
    QCOMPARE(result.data->request.name, std::string("网上商城"));
    QCOMPARE(result.data->pools, 1);
    QVERIFY(qAbs(result.data->utilisation.at(0).requestedMean - 3.0) < 0.01);

    request.scope = report::ScopeKind::Pool;
    request.name = "nope";
    bridge.requestReport(request);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20'000);
    const auto refused = finished.takeFirst().at(0).value<ui::ReportResult>();
    QVERIFY(!refused.data);
    QCOMPARE(refused.message, std::string("unknown pool \"nope\" (known: calc, default, web-0)"));
    bridge.setBackend(nullptr);
    backend.stop();
}

void TestReportCtl::dailyReportIsWrittenAtStart()
{
    const QString base = path("reports/tidepool-report-") + dayText(yesterday());
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(base + QStringLiteral(".csv")), 20'000);
    QVERIFY(QFile::exists(base + QStringLiteral(".html")));
    QVERIFY(readText(base + QStringLiteral(".html")).contains(QStringLiteral("<html lang=\"en\">")));
    QVERIFY(readText(base + QStringLiteral(".csv")).contains(QStringLiteral("\r\ncosts,网上商城,cpu_core_hours,,72")));
    // Nothing half-written is left beside them.
    QCOMPARE(QDir(path("reports")).entryList(QDir::Files).size(), 2);
    QVERIFY(
        readText(path("tidepoold.log")).contains(QStringLiteral("report: wrote ") + base + QStringLiteral(".html")));
}

void TestReportCtl::unwritableReportDirectoryIsLoggedAndTheDaemonGoesOn()
{
    // A directory that cannot exist: its parent is a regular file (root may write anywhere else).
    const QString dir = path("join.token/reports");
    seedYesterday(path("broken.db").toStdString());
    m_broken = std::make_unique<QProcess>();
    const std::uint16_t port = fixture::startDaemon(*m_broken, daemonArgs(path("broken.db"), dir), path("broken.log"));
    QVERIFY2(port != 0, qPrintable(readText(path("broken.log"))));
    const QString expected = QStringLiteral("ALERT report: cannot write ") + dir + QStringLiteral("/tidepool-report-")
        + dayText(yesterday()) + QStringLiteral(".html: ");
    QTRY_VERIFY2_WITH_TIMEOUT(
        readText(path("broken.log")).contains(expected), qPrintable(readText(path("broken.log"))), 20'000);
    QVERIFY(readText(path("broken.log")).contains(QStringLiteral("Not a directory")));
    int status = 0;
    const json health = fixture::call(port, m_viewerToken, api::HttpMethod::Get, "/healthz", {}, &status);
    QCOMPARE(status, 200);
    QCOMPARE(m_broken->state(), QProcess::Running);
    fixture::call(port, m_viewerToken, api::HttpMethod::Get, "/v1/report?scope=pool&name=web-0", {}, &status);
    QCOMPARE(status, 200);
}

QTEST_GUILESS_MAIN(TestReportCtl)
#include "tst_report_ctl.moc"
