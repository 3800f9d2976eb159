// The console's catalogues are built into it and loaded by locale: in Simplified Chinese the window's text is
// Chinese, the core's names shown in the models are translated, and the `key=value` filter keys stay the same.
#include "core/rebalance/reason.h"
#include "core/sched/reasons.h"
#include "demo_fixture.h"
#include "ui/bridge/core_bridge.h"
#include "ui/labels.h"
#include "ui/models/filter_proxy.h"
#include "ui/models/nodes_model.h"
#include "ui/move_text.h"
#include "ui/translations.h"
#include "ui/views/main_window.h"
#include "ui/views/table_page.h"

#include <QCoreApplication>
#include <QFile>
#include <QTabWidget>
#include <QTest>
#include <QTranslator>

#include <algorithm>

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
        // So is a proposal's reason, clause by clause, with its amounts in the console's units and terms translated.
        namespace rb = tidepool::rebalance;
        const rb::Why why { rb::clause("quota-above",
                                { "web", rb::amountArg(5000, "cpu"), rb::timeArg(0), rb::amountArg(6000, "cpu"), 20,
                                    rb::termArg("cpu"), rb::amountArg(4000, "cpu") }),
            rb::clause("quota-from-pool", { rb::amountArg(2000, "cpu"), "batch" }),
            rb::clause("capacity-short-tiers",
                { rb::termArg("memory"), rb::termArg("hot+warm"), rb::amountArg(1024, "memory"),
                    rb::amountArg(2048, "memory"), rb::amountArg(512, "memory") }),
            rb::clause("accelerators-short", { rb::termArg("npu"), rb::amountArg(3, "npu") }) };
        QCOMPARE(reasonText(rb::toJson(why).dump(), rb::english(why)),
            QStringLiteral("资源池 web 预计在 ") + timeText(0) + QStringLiteral(" 前后需要 ") + coresText(5000)
                + QStringLiteral("（p90），留 20% 余量为 ") + coresText(6000) + QStringLiteral("，超出其 CPU 配额 ")
                + coresText(4000) + QStringLiteral("；从资源池 batch 调用 ") + coresText(2000)
                + QStringLiteral("；只能运行在热或温层节点上的作业的预测 内存 峰值（") + memoryText(1024)
                + QStringLiteral("，p90；含余量 ") + memoryText(2048) + QStringLiteral("）超出在役热或温层节点的 ")
                + memoryText(512)
                + QStringLiteral(
                    "；在役的 NPU 加速器比热层的 NPU 预测峰值（含余量）加上等待中的 NPU 作业少 3 个 NPU 核心"));
        const rb::Why risk { rb::clause("risk-rest-spare", { 15 }) };
        QCOMPARE(reasonText(rb::toJson(risk).dump(), rb::english(risk)),
            QStringLiteral("其余部分能承载预测峰值，并有 15% 的富余"));
    }

    // Every reason the scheduler gives for refusing a node has words of the console's, in Chinese too: a reason the
    // table missed would reach the operator as the core's English key.
    void everySchedulingReasonHasWordsInChinese()
    {
        QVERIFY(installTranslators(QLocale(QLocale::Chinese, QLocale::China)));
        for (std::size_t i = 1; i < tidepool::kRejectReasonCount; ++i) {
            const std::string key(tidepool::toString(static_cast<tidepool::RejectReason>(i)));
            const QString label = rejectReasonLabel(key);
            QVERIFY2(label != QString::fromStdString(key), key.c_str());
            QVERIFY2(std::any_of(label.begin(), label.end(), [](QChar c) { return c.unicode() >= 0x4e00; }),
                qPrintable(label));
        }
    }
};

QTEST_MAIN(TestTranslations)
#include "tst_translations.moc"
