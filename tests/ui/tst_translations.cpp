// The console's catalogues are built into it and loaded by locale: in Simplified Chinese the window's text is
// Chinese, the core's names shown in the models are translated, and the `key=value` filter keys stay the same.
#include "demo_fixture.h"
#include "ui/bridge/core_bridge.h"
#include "ui/labels.h"
#include "ui/models/filter_proxy.h"
#include "ui/models/nodes_model.h"
#include "ui/translations.h"
#include "ui/views/main_window.h"
#include "ui/views/table_page.h"

#include <QCoreApplication>
#include <QFile>
#include <QTabWidget>
#include <QTest>
#include <QTranslator>

using namespace tidepool::ui;

class TestTranslations : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void catalogueIsEmbedded()
    {
        QTranslator zh;
        QVERIFY(zh.load(QStringLiteral(":/i18n/tidepool_zh_CN.qm")));
        QTranslator en;
        QVERIFY(en.load(QStringLiteral(":/i18n/tidepool_en.qm")));
    }

    void chineseCatalogueIsComplete()
    {
        // Every message of the Simplified Chinese catalogue is translated (refresh it with the `update_translations`
        // target after adding strings, then translate what it marks unfinished).
        QFile ts(QStringLiteral(TIDEPOOL_SOURCE_DIR "/translations/tidepool_zh_CN.ts"));
        QVERIFY(ts.open(QIODevice::ReadOnly));
        const QByteArray text = ts.readAll();
        QVERIFY(text.contains("<message"));
        QCOMPARE(text.count("type=\"unfinished\""), 0);
        QCOMPARE(text.count("type=\"vanished\""), 0);
    }

    void chineseWindow()
    {
        QVERIFY(installTranslators(QLocale(QLocale::Chinese, QLocale::China)));
        CoreBridge bridge;
        MainWindow window(bridge);
        QCOMPARE(window.tabs()->tabText(0), QStringLiteral("总览"));
        QCOMPARE(window.tabs()->tabText(3), QStringLiteral("调度建议"));

        QTemporaryDir dir;
        auto driver = DemoDriver::start(test::smallDemo(dir));
        QVERIFY(driver);
        (*driver)->advance();
        window.nodesModel()->setSnapshot((*driver)->snapshot());
        QCOMPARE(window.nodesModel()->headerData(NodesModel::Tier, Qt::Horizontal).toString(), QStringLiteral("层级"));
        const QString tier = window.nodesModel()->index(0, NodesModel::Tier).data().toString();
        QVERIFY2(tier == QStringLiteral("冷") || tier == QStringLiteral("温") || tier == QStringLiteral("热"),
            qPrintable(tier));
        // Filter keys are the columns' stable names, whatever the language.
        window.nodesPage()->proxy()->setFilterText(QStringLiteral("tier=hot"));
        QCOMPARE(window.nodesPage()->proxy()->rowCount(), 4);
        // A proposal's plan steps are translated in the context they are marked in.
        QCOMPARE(planStepText(R"({"action":"set_accelerator_quota","target":"ml","accelerator":"gpu",)"
                              R"("quotaShare":4000,"expectQuotaShare":2000})"),
            QStringLiteral("将资源池 ml 的GPU 配额从 2000 份额单位 调整为 4000 份额单位"));
    }
};

QTEST_MAIN(TestTranslations)
#include "tst_translations.moc"
