// File → Export report… over the demo's real core (DemoCore + CoreBridge, the core on its own thread): the dialog asks
// the core through the bridge and writes CSV and PDF files with what it answers; a pool the core does not know, an
// empty period and a file that cannot be written are refused in the dialog's status line, naming what was wrong. The
// console's menu opens the dialog.
#include "demo_fixture.h"

#include "ui/bridge/core_bridge.h"
#include "ui/bridge/demo_core.h"
#include "ui/views/console_shell.h"
#include "ui/views/main_window.h"
#include "ui/views/report_dialog.h"

#include <QtTest>

#include <QAction>
#include <QComboBox>
#include <QDateTimeEdit>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QTemporaryDir>

#include <memory>

using namespace tidepool;
using namespace tidepool::ui;

class TestReportDialog : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<CoreBridge> m_bridge;
    std::unique_ptr<DemoCore> m_core;

    // A dialog over the last two simulated hours, writing `file` in `format`.
    std::unique_ptr<ReportDialog> dialog(const QString& file, const QString& format)
    {
        auto d = std::make_unique<ReportDialog>(*m_bridge);
        const std::int64_t now = m_bridge->latest()->nowMs;
        d->toEdit()->setDateTime(QDateTime::fromMSecsSinceEpoch(now, Qt::UTC));
        d->fromEdit()->setDateTime(QDateTime::fromMSecsSinceEpoch(now - 2 * 3'600'000, Qt::UTC));
        d->formatBox()->setCurrentIndex(d->formatBox()->findData(format));
        d->pathEdit()->setText(file);
        return d;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        DemoCoreConfig config;
        config.demo = test::smallDemo(m_dir);
        config.fastForwardMs = 3LL * 3600 * 1000; // three simulated hours of history at full speed
        config.fastForwardPublishSteps = 30;
        config.tick = std::chrono::milliseconds(200);
        m_bridge = std::make_unique<CoreBridge>();
        m_core = std::make_unique<DemoCore>(config, m_bridge->events());
        m_bridge->setBackend(m_core.get());
        QTRY_VERIFY_WITH_TIMEOUT(m_bridge->latest() && m_bridge->latest()->sequence > 6, 60'000);
    }

    void cleanupTestCase()
    {
        m_bridge->setBackend(nullptr);
        m_core->stop();
    }

    void csvOfAPoolInChinese()
    {
        const QString file = m_dir.filePath(QStringLiteral("pool.csv"));
        auto d = dialog(file, QStringLiteral("csv"));
        d->languageBox()->setCurrentIndex(d->languageBox()->findData(QStringLiteral("zh_CN")));
        d->scopeBox()->setCurrentIndex(d->scopeBox()->findData(QStringLiteral("pool")));
        // The names offered are the snapshot's pools.
        QVERIFY(d->nameBox()->count() == static_cast<int>(m_bridge->latest()->pools.size()));
        const int batch = d->nameBox()->findText(QStringLiteral("batch"));
        QVERIFY2(batch >= 0, "the demo has a batch pool");
        d->nameBox()->setCurrentIndex(batch);
        QSignalSpy exported(d.get(), &ReportDialog::exported);
        QTest::mouseClick(d->exportButton(), Qt::LeftButton);
        QVERIFY(!d->exportButton()->isEnabled()); // while the core makes it
        QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, 30'000);
        QCOMPARE(d->statusLabel()->text(), QStringLiteral("Saved to ") + file);
        QVERIFY(d->exportButton()->isEnabled());
        QFile csv(file);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QByteArray content = csv.readAll();
        QVERIFY(content.startsWith("\xEF\xBB\xBF"
                                   "section,subject,measure,time,value,unit\r\n"));
        QVERIFY(content.contains("\r\nreport,pool,name,,batch,\r\n"));
        // The demo's batch pool asked for CPU in these hours.
        const qsizetype at = content.indexOf("\r\nutilisation,cpu,requested_mean,,");
        QVERIFY(at >= 0);
        const QByteArray value = content.mid(at + 35).split(',').front();
        QVERIFY2(value.toDouble() > 0, value.constData());
    }

    void pdfOfTheCluster()
    {
        const QString file = m_dir.filePath(QStringLiteral("cluster.pdf"));
        auto d = dialog(file, QStringLiteral("pdf"));
        QVERIFY(!d->nameBox()->isEnabled()); // the cluster has no name
        QSignalSpy exported(d.get(), &ReportDialog::exported);
        QVERIFY(d->startExport());
        QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, 30'000);
        QFile pdf(file);
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QCOMPARE(pdf.read(5), QByteArray("%PDF-"));
        QVERIFY(pdf.size() > 5'000);
    }

    void unknownPoolIsNamed()
    {
        auto d = dialog(m_dir.filePath(QStringLiteral("nope.csv")), QStringLiteral("csv"));
        d->scopeBox()->setCurrentIndex(d->scopeBox()->findData(QStringLiteral("pool")));
        d->nameBox()->setEditText(QStringLiteral("no-such-pool"));
        QSignalSpy failed(d.get(), &ReportDialog::failed);
        QVERIFY(d->startExport());
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30'000);
        QVERIFY2(d->statusLabel()->text().startsWith(
                     QStringLiteral("The report could not be made: unknown pool \"no-such-pool\" (known: ")),
            qPrintable(d->statusLabel()->text()));
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("nope.csv"))));
    }

    void emptyPeriodIsRefusedBeforeAsking()
    {
        auto d = dialog(m_dir.filePath(QStringLiteral("empty.csv")), QStringLiteral("csv"));
        d->fromEdit()->setDateTime(d->toEdit()->dateTime());
        QVERIFY(!d->startExport());
        QVERIFY2(d->statusLabel()->text().startsWith(QStringLiteral("The period is empty: “From” (")),
            qPrintable(d->statusLabel()->text()));
        QVERIFY(d->exportButton()->isEnabled());
    }

    void unwritableFileIsNamed()
    {
        // A file under a regular file: no directory there (root may write anywhere else).
        const QString blocker = m_dir.filePath(QStringLiteral("plain-file"));
        QFile plain(blocker);
        QVERIFY(plain.open(QIODevice::WriteOnly));
        plain.close();
        const QString file = blocker + QStringLiteral("/report.csv");
        auto d = dialog(file, QStringLiteral("csv"));
        QSignalSpy failed(d.get(), &ReportDialog::failed);
        QVERIFY(d->startExport());
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30'000);
        QVERIFY2(d->statusLabel()->text().startsWith(
                     QStringLiteral("The report could not be saved: cannot write ") + file + QStringLiteral(": ")),
            qPrintable(d->statusLabel()->text()));
    }

    void fileMenuOpensTheDialog()
    {
        ConsoleShell shell(*m_bridge, false);
        QAction* action = nullptr;
        for (QAction* menu : shell.window()->menuBar()->actions())
            if (menu->menu())
                for (QAction* entry : menu->menu()->actions())
                    if (entry->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_E))
                        action = entry;
        QVERIFY(action);
        QCOMPARE(action->text(), QStringLiteral("&Export report…"));
        action->trigger();
        QTRY_VERIFY(shell.window()->findChild<ReportDialog*>() != nullptr);
    }
};

QTEST_MAIN(TestReportDialog)
#include "tst_report_dialog.moc"
