#include "ui/views/console_shell.h"

#include "ui/bridge/core_bridge.h"
#include "ui/settings.h"
#include "ui/translations.h"
#include "ui/views/cheat_sheet.h"
#include "ui/views/main_window.h"
#include "ui/views/report_dialog.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QLineEdit>
#include <QMenuBar>
#include <QTabWidget>
#include <QTimer>

namespace tidepool::ui {

namespace {

// A tab's name in the settings: its page's object name, which does not change with the language.
QString tabKey(const QTabWidget* tabs, int index)
{
    const QString name = tabs->widget(index)->objectName();
    return name.isEmpty() ? QStringLiteral("tab%1").arg(index) : name;
}

} // namespace

ConsoleShell::ConsoleShell(CoreBridge& bridge, bool remember, QObject* parent)
    : QObject(parent)
    , m_bridge(bridge)
    , m_remember(remember)
    , m_language(remember ? settings::language() : QStringLiteral("system"))
{
    if (remember)
        applyTheme(settings::theme());
    installTranslators(localeOf(m_language));
    build();
}

ConsoleShell::~ConsoleShell()
{
    rememberWindow();
}

void ConsoleShell::rememberWindow()
{
    if (!m_remember || !m_window)
        return;
    settings::setWindowGeometry(m_window->saveGeometry());
    settings::setOpenTab(tabKey(m_window->tabs(), m_window->tabs()->currentIndex()));
}

void ConsoleShell::build()
{
    QByteArray geometry;
    QString tab;
    bool visible = false;
    if (m_window) {
        geometry = m_window->saveGeometry();
        tab = tabKey(m_window->tabs(), m_window->tabs()->currentIndex());
        visible = m_window->isVisible();
        m_entries.clear();
        m_window.reset();
    } else if (m_remember) {
        geometry = settings::windowGeometry();
        tab = settings::openTab();
    }
    m_window = std::make_unique<MainWindow>(m_bridge);
    if (!geometry.isEmpty())
        m_window->restoreGeometry(geometry);
    QTabWidget* tabs = m_window->tabs();
    for (int i = 0; i < tabs->count(); ++i)
        if (tabKey(tabs, i) == tab)
            tabs->setCurrentIndex(i);
    buildMenus();
    applyChartTheme(m_window.get());
    if (visible)
        m_window->show();
    Q_EMIT windowBuilt(m_window.get());
}

void ConsoleShell::addEntry(QMenu* menu, QAction* action, const QString& menuName)
{
    menu->addAction(action);
    // Shortcuts work wherever the focus is in the window, menus open or not.
    m_window->addAction(action);
    m_entries.append(CommandPalette::Entry { action, menuName });
}

void ConsoleShell::buildMenus()
{
    MainWindow* window = m_window.get();
    QMenuBar* bar = window->menuBar();

    QMenu* file = bar->addMenu(tr("&File"));
    auto* exportReport = new QAction(tr("&Export report…"), window);
    exportReport->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(exportReport, &QAction::triggered, this, [this] { openReportDialog(); });
    addEntry(file, exportReport, tr("File"));
    file->addSeparator();
    auto* quit = new QAction(tr("&Quit"), window);
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, window, &QWidget::close);
    addEntry(file, quit, tr("File"));

    QMenu* view = bar->addMenu(tr("&View"));
    QTabWidget* tabs = window->tabs();
    for (int i = 0; i < tabs->count(); ++i) {
        // The tab's text without a count it may carry: "Proposals (3)" is still "Proposals".
        QString name = tabs->tabText(i);
        if (const auto at = name.indexOf(QStringLiteral(" (")); at > 0)
            name.truncate(at);
        auto* show = new QAction(tr("Go to %1").arg(name), window);
        if (i < 9)
            show->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
        QWidget* page = tabs->widget(i);
        connect(show, &QAction::triggered, tabs, [tabs, page] { tabs->setCurrentWidget(page); });
        addEntry(view, show, tr("View"));
    }
    view->addSeparator();
    auto* refresh = new QAction(tr("&Refresh"), window);
    refresh->setShortcut(QKeySequence::Refresh);
    connect(refresh, &QAction::triggered, this, [this] { m_bridge.refresh(); });
    addEntry(view, refresh, tr("View"));
    auto* palette = new QAction(tr("&Command palette…"), window);
    palette->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    connect(palette, &QAction::triggered, this, [this] { openCommandPalette(); });
    addEntry(view, palette, tr("View"));

    QMenu* settingsMenu = bar->addMenu(tr("&Settings"));
    QMenu* language = settingsMenu->addMenu(tr("&Language"));
    auto* languages = new QActionGroup(window);
    for (const QString& key : languageKeys()) {
        auto* choose = new QAction(languageName(key), languages);
        choose->setCheckable(true);
        choose->setChecked(key == m_language);
        choose->setData(QStringLiteral("language:") + key);
        // Queued: the window that holds this action is rebuilt.
        connect(choose, &QAction::triggered, this,
            [this, key] { QTimer::singleShot(0, this, [this, key] { setLanguage(key); }); });
        addEntry(language, choose, tr("Settings › Language"));
    }
    QMenu* theme = settingsMenu->addMenu(tr("&Theme"));
    auto* themes = new QActionGroup(window);
    const std::pair<Theme, QString> themeNames[] = {
        { Theme::System, tr("System") },
        { Theme::Light, tr("Light") },
        { Theme::Dark, tr("Dark") },
    };
    for (const auto& [choice, name] : themeNames) {
        auto* choose = new QAction(name, themes);
        choose->setCheckable(true);
        choose->setChecked(choice == currentTheme());
        choose->setData(QStringLiteral("theme:") + themeKey(choice));
        connect(choose, &QAction::triggered, this, [this, choice] { setTheme(choice); });
        addEntry(theme, choose, tr("Settings › Theme"));
    }

    QMenu* help = bar->addMenu(tr("&Help"));
    auto* cheat = new QAction(tr("&Keyboard shortcuts"), window);
    cheat->setShortcut(QKeySequence(Qt::Key_Question));
    connect(cheat, &QAction::triggered, this, [this] { openCheatSheet(); });
    addEntry(help, cheat, tr("Help"));
}

void ConsoleShell::setLanguage(const QString& key)
{
    if (!languageKeys().contains(key))
        return;
    m_language = key;
    if (m_remember)
        settings::setLanguage(key);
    installTranslators(localeOf(key));
    build();
}

void ConsoleShell::setTheme(Theme theme)
{
    applyTheme(theme);
    if (m_remember)
        settings::setTheme(theme);
    // The menu's check mark follows a switch made elsewhere (a test, the screenshots).
    const QString checked = QStringLiteral("theme:") + themeKey(theme);
    for (const CommandPalette::Entry& entry : m_entries)
        if (entry.action && entry.action->data().toString() == checked)
            entry.action->setChecked(true);
}

CommandPalette* ConsoleShell::openCommandPalette()
{
    delete m_dialog;
    auto* palette = new CommandPalette(m_entries, m_window.get());
    palette->setAttribute(Qt::WA_DeleteOnClose);
    m_dialog = palette;
    palette->show();
    palette->lineEdit()->setFocus();
    return palette;
}

QDialog* ConsoleShell::openCheatSheet()
{
    delete m_dialog;
    auto* sheet = new CheatSheet(m_entries, m_window.get());
    sheet->setAttribute(Qt::WA_DeleteOnClose);
    m_dialog = sheet;
    sheet->show();
    return sheet;
}

ReportDialog* ConsoleShell::openReportDialog()
{
    delete m_dialog;
    auto* dialog = new ReportDialog(m_bridge, m_window.get());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_dialog = dialog;
    dialog->show();
    return dialog;
}

} // namespace tidepool::ui
