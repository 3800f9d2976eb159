// The Overview's alerts: nodes lost and late and a store that cannot be written (from the snapshot's rows), a disk
// filling up and certificates expiring (from the machine, with real files and a real file system), and how the page
// shows them.
#include "ui/bridge/alerts.h"
#include "ui/views/overview_page.h"

#include <QLabel>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <fstream>

using namespace tidepool;
using namespace tidepool::ui;

namespace {

NodeRow nodeIn(const char* name, const char* state)
{
    NodeRow n;
    n.name = name;
    n.state = state;
    return n;
}

std::int64_t nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

class TestAlerts : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void nodesAndTheStoreFromTheRows()
    {
        ConsoleSnapshot s;
        s.nodes = { nodeIn("a", "ready"), nodeIn("b", "lost"), nodeIn("c", "suspect"), nodeIn("d", "joining") };
        s.readOnlyReason = "database or disk is full";
        addRowAlerts(s);
        QCOMPARE(s.alerts.size(), std::size_t { 3 });
        QCOMPARE(s.alerts[0].kind, std::string("read-only"));
        QCOMPARE(s.alerts[0].detail, s.readOnlyReason);
        QCOMPARE(s.alerts[1].kind, std::string("node-lost"));
        QCOMPARE(s.alerts[1].subject, std::string("b"));
        QCOMPARE(s.alerts[2].kind, std::string("node-suspect"));
        QCOMPARE(s.alerts[2].subject, std::string("c"));
    }

    void aDiskWithLessFreeThanTheBoundIsLow()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.path().toStdString();
        // No file system has an exabyte free: low by the byte bound.
        const auto low = diskAlert(path, std::uint64_t { 1 } << 60, 0.0);
        QVERIFY(low);
        QCOMPARE(low->kind, std::string("disk-low"));
        QCOMPARE(low->subject, path);
        QVERIFY(low->value >= 0);
        QVERIFY(low->total > 0);
        QVERIFY(low->value <= low->total);
        // …and by the share bound (more than all of it free is impossible).
        QVERIFY(diskAlert(path, 0, 1.01));
        QVERIFY(!diskAlert(path, 0, 0.0));
        const auto missing = diskAlert(path + "/no/such/dir", 0, 0.0);
        QVERIFY(missing);
        QCOMPARE(missing->kind, std::string("disk-unreadable"));
        QVERIFY(!missing->detail.empty());
    }

    void certificatesThatExpireSoonOrHaveExpired()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString pem = dir.filePath(QStringLiteral("core.pem"));
        QProcess openssl;
        openssl.start(QStringLiteral("openssl"),
            { QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"), QStringLiteral("ec"),
                QStringLiteral("-pkeyopt"), QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes"),
                QStringLiteral("-days"), QStringLiteral("10"), QStringLiteral("-subj"), QStringLiteral("/CN=core.test"),
                QStringLiteral("-keyout"), dir.filePath(QStringLiteral("core.key")), QStringLiteral("-out"), pem });
        QVERIFY(openssl.waitForFinished(30'000));
        QVERIFY2(openssl.exitCode() == 0, openssl.readAllStandardError().constData());
        const std::int64_t now = nowMs();
        using std::chrono::hours;
        const auto soon = certificateAlert(pem.toStdString(), now, hours(24 * 30));
        QVERIFY(soon);
        QCOMPARE(soon->kind, std::string("certificate-expiring"));
        QCOMPARE(soon->subject, pem.toStdString());
        // It expires ten days from now, give or take the seconds the test took.
        const std::int64_t tenDays = 10LL * 86'400'000;
        QVERIFY2(std::abs(soon->value - (now + tenDays)) < 120'000, std::to_string(soon->value - now).c_str());
        QVERIFY(!certificateAlert(pem.toStdString(), now, hours(24 * 5)));
        const auto expired = certificateAlert(pem.toStdString(), now + tenDays + 3'600'000, hours(24 * 30));
        QVERIFY(expired);
        QCOMPARE(expired->kind, std::string("certificate-expired"));

        const std::string garbage = dir.filePath(QStringLiteral("garbage.pem")).toStdString();
        std::ofstream(garbage) << "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n";
        const auto unreadable = certificateAlert(garbage, now, hours(1));
        QVERIFY(unreadable);
        QCOMPARE(unreadable->kind, std::string("certificate-unreadable"));
        QCOMPARE(unreadable->detail, std::string("not a PEM certificate"));
        const auto missing = certificateAlert(garbage + ".missing", now, hours(1));
        QVERIFY(missing);
        QCOMPARE(missing->kind, std::string("certificate-unreadable"));
        QVERIFY(missing->detail.find("No such file") != std::string::npos);

        // The machine's alerts go after the store's and before the nodes'.
        ConsoleSnapshot s;
        s.nowMs = now;
        s.readOnlyReason = "disk I/O error";
        s.nodes = { nodeIn("n1", "lost") };
        addRowAlerts(s);
        HostAlertSources sources;
        sources.storeDirectory = dir.path().toStdString();
        sources.diskLowBytes = std::uint64_t { 1 } << 60;
        sources.certificates = { pem.toStdString() };
        addHostAlerts(s, sources);
        QCOMPARE(s.alerts.size(), std::size_t { 4 });
        QCOMPARE(s.alerts[0].kind, std::string("read-only"));
        QCOMPARE(s.alerts[1].kind, std::string("disk-low"));
        QCOMPARE(s.alerts[2].kind, std::string("certificate-expiring"));
        QCOMPARE(s.alerts[3].kind, std::string("node-lost"));
    }

    void theOverviewListsThemAndCountsTheRest()
    {
        OverviewPage page;
        auto* label = page.findChild<QLabel*>(QStringLiteral("alerts"));
        QVERIFY(label);
        auto quiet = std::make_shared<ConsoleSnapshot>();
        page.setSnapshot(quiet);
        QCOMPARE(label->text(), OverviewPage::tr("No alerts"));
        auto lost = std::make_shared<ConsoleSnapshot>();
        for (int i = 0; i < 11; ++i)
            lost->nodes.push_back(nodeIn(("node-" + std::to_string(i)).c_str(), "lost"));
        lost->readOnlyReason = "database or disk is full";
        addRowAlerts(*lost);
        page.setSnapshot(lost);
        const QString text = label->text();
        QVERIFY2(text.contains(QStringLiteral("database or disk is full")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("node-0")));
        QVERIFY(text.contains(QStringLiteral("node-6")));
        QVERIFY(!text.contains(QStringLiteral("node-7"))); // the eighth line is the store's; the rest are counted
        QVERIFY2(text.contains(OverviewPage::tr("… and %n more.", nullptr, 4)), qPrintable(text));
        page.setSnapshot(quiet);
        QCOMPARE(label->text(), OverviewPage::tr("No alerts"));
    }
};

QTEST_MAIN(TestAlerts)
#include "tst_alerts.moc"
