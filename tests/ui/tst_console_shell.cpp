// The console's shell around the real window, over snapshots of the real core (the demo's simulated fleet): the
// language switch rebuilds the window in the new language and keeps its data and open tab; the themes change the
// palette and the charts' theme; the command palette narrows to what is typed and runs the chosen action; the cheat
// sheet lists the shortcuts; F5 asks the core for a fresh snapshot; the column chooser hides columns and the settings
// bring them back hidden in the next window.
#include "demo_fixture.h"
#include "ui/bridge/core_bridge.h"
#include "ui/bridge/demo_core.h"
#include "ui/models/filter_proxy.h"
#include "ui/models/nodes_model.h"
#include "ui/models/pools_model.h"
#include "ui/models/tiers_model.h"
#include "ui/settings.h"
#include "ui/translations.h"
#include "ui/views/cheat_sheet.h"
#include "ui/views/console_shell.h"
#include "ui/views/main_window.h"
#include "ui/views/proposals_page.h"
#include "ui/views/table_page.h"
#include "ui/views/tiers_page.h"

#include <QAction>
#include <QApplication>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QDragEnterEvent>
#include <QMimeData>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <QTreeView>

using namespace tidepool::ui;

class TestConsoleShell : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<DemoDriver> m_driver;

    // Delivers a snapshot of the real core through the bridge, as the core thread would.
    void deliver(CoreBridge& bridge)
    {
        bridge.events().snapshot(m_driver->snapshot());
        QTRY_VERIFY(bridge.latest() != nullptr);
    }

    static QAction* entryNamed(const ConsoleShell& shell, const QString& text)
    {
        for (const CommandPalette::Entry& entry : shell.entries())
            if (entry.action && entry.action->text().remove(QLatin1Char('&')) == text)
                return entry.action;
        return nullptr;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // the settings go to a test location
        qRegisterMetaType<MainWindow*>();
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        auto driver = DemoDriver::start(test::smallDemo(m_dir));
        QVERIFY(driver);
        m_driver = std::move(*driver);
        m_driver->advance();
    }

    // A workload card dragged over the Pools tab opens it, so that the card can be dropped on another pool there.
    void dragOverThePoolsTabOpensIt()
    {
        CoreBridge bridge;
        ConsoleShell shell(bridge, false);
        shell.setLanguage(QStringLiteral("en"));
        deliver(bridge);
        MainWindow* window = shell.window();
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window));
        window->tabs()->setCurrentWidget(window->tiersPage());
        QTabBar* bar = window->tabs()->tabBar();
        const int pools = window->tabs()->indexOf(window->poolsPage());
        QVERIFY(pools >= 0);
        QMimeData mime;
        mime.setData(TiersModel::kMimeType, QByteArray("1"));
        const QPoint at = bar->tabRect(pools).center();
        QDragEnterEvent enter(at, Qt::MoveAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(bar, &enter);
        QDragMoveEvent move(at, Qt::MoveAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(bar, &move);
        QTRY_COMPARE_WITH_TIMEOUT(window->tabs()->currentWidget(), static_cast<QWidget*>(window->poolsPage()), 3'000);
        QDragLeaveEvent leave;
        QApplication::sendEvent(bar, &leave);
    }

    void languageSwitchChangesVisibleText()
    {
        CoreBridge bridge;
        ConsoleShell shell(bridge, false);
        shell.setLanguage(QStringLiteral("en"));
        deliver(bridge);
        QCOMPARE(shell.window()->tabs()->tabText(0), QStringLiteral("Overview"));
        QCOMPARE(shell.window()->menuBar()->actions().first()->text(), QStringLiteral("&File"));
        QCOMPARE(shell.window()->nodesModel()->headerData(NodesModel::Tier, Qt::Horizontal).toString(),
            QStringLiteral("Tier"));
        shell.window()->tabs()->setCurrentWidget(shell.window()->poolsPage());

        QSignalSpy rebuilt(&shell, &ConsoleShell::windowBuilt);
        shell.setLanguage(QStringLiteral("zh_CN"));
        QCOMPARE(rebuilt.count(), 1);
        MainWindow* window = shell.window();
        QCOMPARE(window->tabs()->tabText(0), QStringLiteral("总览"));
        QVERIFY2(window->menuBar()->actions().first()->text().startsWith(QStringLiteral("文件")),
            qPrintable(window->menuBar()->actions().first()->text()));
        QCOMPARE(window->nodesModel()->headerData(NodesModel::Tier, Qt::Horizontal).toString(), QStringLiteral("层级"));
        // The data and the open tab survive the rebuild.
        QCOMPARE(window->nodesModel()->rowCount(), static_cast<int>(m_driver->snapshot()->nodes.size()));
        QCOMPARE(window->tabs()->currentWidget(), static_cast<QWidget*>(window->poolsPage()));
        QVERIFY(entryNamed(shell, QStringLiteral("简体中文"))->isChecked());

        shell.setLanguage(QStringLiteral("en"));
        QCOMPARE(shell.window()->tabs()->tabText(0), QStringLiteral("Overview"));
        // An unknown language is refused and changes nothing.
        shell.setLanguage(QStringLiteral("xx"));
        QCOMPARE(shell.language(), QStringLiteral("en"));
        QCOMPARE(rebuilt.count(), 2);
    }

    void themesChangeThePaletteAndTheCharts()
    {
        CoreBridge bridge;
        ConsoleShell shell(bridge, false);
        shell.setLanguage(QStringLiteral("en"));
        shell.setTheme(Theme::Dark);
        QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 100);
        QVERIFY(QApplication::palette().color(QPalette::WindowText).lightness() > 200);
        QCOMPARE(chartTheme(), QChart::ChartThemeDark);
        QVERIFY(entryNamed(shell, QStringLiteral("Dark"))->isChecked());
        shell.setTheme(Theme::Light);
        QVERIFY(QApplication::palette().color(QPalette::Window).lightness() > 200);
        QCOMPARE(chartTheme(), QChart::ChartThemeLight);
        QVERIFY(entryNamed(shell, QStringLiteral("Light"))->isChecked());
        QVERIFY(!entryNamed(shell, QStringLiteral("Dark"))->isChecked());
        QCOMPARE(parseTheme(QStringLiteral("dark")), std::optional<Theme>(Theme::Dark));
        QCOMPARE(parseTheme(QStringLiteral("purple")), std::nullopt);
        shell.setTheme(Theme::System);
    }

    void commandPaletteRunsWhatIsTyped()
    {
        CoreBridge bridge;
        ConsoleShell shell(bridge, false);
        shell.setLanguage(QStringLiteral("en"));
        MainWindow* window = shell.window();
        window->tabs()->setCurrentIndex(0);
        CommandPalette* palette = shell.openCommandPalette();
        QVERIFY(palette->shownNames().size() == shell.entries().size());
        QTest::keyClicks(palette->lineEdit(), QStringLiteral("go prop"));
        QCOMPARE(palette->shownNames(), QStringList { QStringLiteral("Go to Proposals") });
        QTest::keyClick(palette->lineEdit(), Qt::Key_Return);
        QTRY_COMPARE(window->tabs()->currentWidget(), static_cast<QWidget*>(window->proposalsPage()));

        palette = shell.openCommandPalette();
        QTest::keyClicks(palette->lineEdit(), QStringLiteral("no such command"));
        QVERIFY(palette->shownNames().isEmpty());
        QTest::keyClick(palette->lineEdit(), Qt::Key_Return); // nothing to run: nothing happens
        QCOMPARE(window->tabs()->currentWidget(), static_cast<QWidget*>(window->proposalsPage()));

        // The menu's name and the shortcut are searched too: "theme dark" finds the dark theme.
        palette = shell.openCommandPalette();
        QTest::keyClicks(palette->lineEdit(), QStringLiteral("THEME dark"));
        QCOMPARE(palette->shownNames(), QStringList { QStringLiteral("Dark") });
        palette->reject();
    }

    void cheatSheetListsTheShortcuts()
    {
        CoreBridge bridge;
        ConsoleShell shell(bridge, false);
        shell.setLanguage(QStringLiteral("en"));
        auto* sheet = qobject_cast<CheatSheet*>(shell.openCheatSheet());
        QVERIFY(sheet);
        QStringList keys;
        for (int r = 0; r < sheet->table()->rowCount(); ++r)
            keys << sheet->table()->item(r, 0)->text();
        for (const QKeySequence& expected : { QKeySequence(Qt::CTRL | Qt::Key_K), QKeySequence(QKeySequence::Refresh),
                 QKeySequence(Qt::Key_Question), QKeySequence(Qt::CTRL | Qt::Key_1) })
            QVERIFY2(keys.contains(expected.toString(QKeySequence::NativeText)), qPrintable(keys.join(QLatin1Char(' '))));
        QVERIFY(keys.contains(QStringLiteral("/")));
    }

    void refreshAsksTheCoreForASnapshot()
    {
        QTemporaryDir dir;
        DemoCoreConfig config;
        config.demo = test::smallDemo(dir);
        config.tick = std::chrono::hours(1); // no step of its own while the test looks
        CoreBridge bridge;
        ConsoleShell shell(bridge, false);
        DemoCore core(config, bridge.events());
        bridge.setBackend(&core);
        QTRY_VERIFY_WITH_TIMEOUT(bridge.latest() != nullptr, 30'000);
        const auto before = bridge.latest()->sequence;
        entryNamed(shell, QStringLiteral("Refresh"))->trigger();
        QTRY_VERIFY(bridge.latest()->sequence > before);
        bridge.setBackend(nullptr);
        core.stop();
        QVERIFY(!bridge.refresh());
    }

    void columnChooserHidesAndRemembers()
    {
        QSettings().clear();
        CoreBridge bridge;
        deliver(bridge);
        {
            MainWindow window(bridge);
            TablePage* nodes = window.nodesPage();
            QMenu* menu = nodes->columnMenu();
            QCOMPARE(menu->actions().size(), window.nodesModel()->columnCount());
            QAction* tier = menu->actions().at(NodesModel::Tier);
            QCOMPARE(tier->text(), QStringLiteral("Tier"));
            QVERIFY(tier->isChecked());
            tier->toggle();
            QVERIFY(nodes->view()->isColumnHidden(NodesModel::Tier));
            QCOMPARE(settings::hiddenColumns(QStringLiteral("nodes")), QStringList { QStringLiteral("tier") });
            // Hidden, the column still filters: the keys are the model's, not the view's.
            nodes->proxy()->setFilterText(QStringLiteral("tier=hot"));
            QVERIFY(nodes->proxy()->rowCount() > 0);
        }
        MainWindow next(bridge);
        QVERIFY(next.nodesPage()->view()->isColumnHidden(NodesModel::Tier));
        QVERIFY(!next.nodesPage()->view()->isColumnHidden(NodesModel::Name));
        // The last column shown cannot be hidden.
        TablePage* pools = next.poolsPage();
        for (int c = 1; c < next.poolsModel()->columnCount(); ++c)
            pools->setColumnShown(c, false);
        QVERIFY(!pools->columnMenu()->actions().at(0)->isEnabled());
        QSettings().clear();
    }
};

QTEST_MAIN(TestConsoleShell)
#include "tst_console_shell.moc"
