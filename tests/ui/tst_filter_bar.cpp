// The filter bar over the console's tables and tree: typed text and `key=value` terms filter the rows of a real
// snapshot, keys are the columns' stable names (so filters work in every language), unknown keys are pointed out, and
// the tree keeps the parents of matching rows.
#include "demo_fixture.h"
#include "ui/models/filter_proxy.h"
#include "ui/models/nodes_model.h"
#include "ui/models/pools_model.h"
#include "ui/views/filter_bar.h"
#include "ui/views/table_page.h"

#include <QLabel>
#include <QLineEdit>
#include <QTest>

using namespace tidepool::ui;

class TestFilterBar : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    SnapshotPtr m_snapshot;

    int count(const std::function<bool(const NodeRow&)>& match) const
    {
        return static_cast<int>(std::count_if(m_snapshot->nodes.begin(), m_snapshot->nodes.end(), match));
    }

    static void type(TablePage& page, const QString& text)
    {
        QLineEdit* edit = page.filterBar()->lineEdit();
        edit->clear();
        QTest::keyClicks(edit, text);
        QCOMPARE(page.proxy()->filterText(), text);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        auto started = DemoDriver::start(test::smallDemo(m_dir));
        QVERIFY2(started, started ? "" : started.error().message.c_str());
        for (int i = 0; i < 20; ++i)
            (*started)->advance();
        m_snapshot = (*started)->snapshot();
    }

    void filters_data()
    {
        QTest::addColumn<QString>("filter");
        QTest::addColumn<int>("rows");
        // Expected counts come from the snapshot itself, by the same rule, below.
        QTest::newRow("everything") << QString() << -1;
        QTest::newRow("tier=hot") << QStringLiteral("tier=hot") << 0;
        QTest::newRow("tier=cold") << QStringLiteral("tier=cold") << 1;
        QTest::newRow("free text: aarch64") << QStringLiteral("aarch64") << 2;
        QTest::newRow("two terms: isa=x86 tier=warm") << QStringLiteral("isa=x86 tier=warm") << 3;
        QTest::newRow("case-insensitive: TIER=HOT") << QStringLiteral("TIER=HOT") << 0;
        QTest::newRow("nothing matches") << QStringLiteral("tier=lukewarm") << 4;
    }
    void filters()
    {
        QFETCH(QString, filter);
        QFETCH(int, rows);
        const std::vector<std::function<bool(const NodeRow&)>> rules {
            [](const NodeRow& n) { return n.tier == "hot"; },
            [](const NodeRow& n) { return n.tier == "cold"; },
            [](const NodeRow& n) { return n.isa == "aarch64"; },
            [](const NodeRow& n) { return n.isa == "x86_64" && n.tier == "warm"; },
            [](const NodeRow&) { return false; },
        };
        const int expected
            = rows < 0 ? static_cast<int>(m_snapshot->nodes.size()) : count(rules[static_cast<std::size_t>(rows)]);
        NodesModel model;
        model.setSnapshot(m_snapshot);
        TablePage page(&model, false);
        type(page, filter);
        QCOMPARE(page.proxy()->rowCount(), expected);
        if (rows >= 0) // the filter really filtered
            QVERIFY(expected < static_cast<int>(m_snapshot->nodes.size()));
        for (int r = 0; r < page.proxy()->rowCount(); ++r) {
            const QString name = page.proxy()->index(r, NodesModel::Name).data().toString();
            QVERIFY(!name.isEmpty());
        }
        // Clearing the filter shows every row again.
        page.filterBar()->lineEdit()->clear();
        QCOMPARE(page.proxy()->rowCount(), static_cast<int>(m_snapshot->nodes.size()));
    }

    void unknownKeyIsPointedOut()
    {
        NodesModel model;
        model.setSnapshot(m_snapshot);
        TablePage page(&model, false);
        type(page, QStringLiteral("colour=red"));
        QCOMPARE(page.proxy()->rowCount(), 0);
        auto* hint = page.filterBar()->findChild<QLabel*>(QStringLiteral("filterHint"));
        QVERIFY(hint);
        QVERIFY(hint->text().contains(QStringLiteral("colour")));
        type(page, QStringLiteral("tier=hot"));
        QVERIFY(hint->text().isEmpty());
    }

    void filterFollowsNewSnapshots()
    {
        // The proxy filters rows the model gains after the filter was typed.
        NodesModel model;
        auto hotOnly = std::make_shared<ConsoleSnapshot>(*m_snapshot);
        std::erase_if(hotOnly->nodes, [](const NodeRow& n) { return n.tier != "hot"; });
        model.setSnapshot(hotOnly);
        TablePage page(&model, false);
        type(page, QStringLiteral("tier=cold"));
        QCOMPARE(page.proxy()->rowCount(), 0);
        model.setSnapshot(m_snapshot);
        QCOMPARE(page.proxy()->rowCount(), count([](const NodeRow& n) { return n.tier == "cold"; }));
    }

    void treeKeepsParents()
    {
        PoolsModel model;
        model.setSnapshot(m_snapshot);
        TablePage page(&model, true);
        QVERIFY(!m_snapshot->nodes.empty());
        // A node under some pool: its business line and pool stay visible above it.
        QString node; // a node row (not a pool's row of waiting workloads, whose node is "")
        for (const PoolRow& p : m_snapshot->pools)
            for (const PoolNodeRow& n : p.nodes)
                if (!n.node.empty() && node.isEmpty())
                    node = QString::fromStdString(n.node);
        QVERIFY(!node.isEmpty());
        type(page, QStringLiteral("name=") + node);
        QVERIFY(page.proxy()->rowCount() >= 1);
        bool found = false;
        for (int l = 0; l < page.proxy()->rowCount(); ++l) {
            const QModelIndex line = page.proxy()->index(l, 0);
            for (int p = 0; p < page.proxy()->rowCount(line); ++p) {
                const QModelIndex pool = page.proxy()->index(p, 0, line);
                for (int n = 0; n < page.proxy()->rowCount(pool); ++n)
                    found = found || page.proxy()->index(n, 0, pool).data().toString() == node;
            }
        }
        QVERIFY(found);
    }
};

QTEST_MAIN(TestFilterBar)
#include "tst_filter_bar.moc"
