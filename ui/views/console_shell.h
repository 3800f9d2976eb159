#pragma once
// Everything around the main window that outlives it: the menus and shortcuts (View: a tab per Ctrl+1…9, F5 refresh,
// Ctrl+K command palette; Settings: language and theme; Help: `?` the cheat sheet), the choices kept in `QSettings`
// (language, theme, geometry, open tab) and the language switch. A language switch builds the window anew under the
// new catalogues — every string of every page is translated where it is made, and the models and the latest snapshot
// come back from the bridge — keeping its geometry and open tab; the switch is queued, so an action that asks for it
// (from a menu or the palette) has returned first.
//
// Thread affinity: GUI thread. Ownership: owns the window; borrows the bridge, which must outlive it.

#include "ui/theme.h"
#include "ui/views/command_palette.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

class QMenu;

namespace tidepool::ui {

class ReportDialog;

class CoreBridge;
class MainWindow;

class ConsoleShell : public QObject {
    Q_OBJECT
public:
    // Applies the remembered language and theme (unless `remember` is false: tests and screenshots leave the
    // operator's settings alone) and builds the window, not yet shown.
    explicit ConsoleShell(CoreBridge& bridge, bool remember = true, QObject* parent = nullptr);
    ~ConsoleShell() override;

    MainWindow* window() const { return m_window.get(); }
    QString language() const { return m_language; }

    // Switches to a `languageKeys()` language now (not queued): the window is rebuilt before it returns.
    void setLanguage(const QString& key);
    void setTheme(Theme theme);
    // Every action of the menus, with its menu's name: what the palette lists and the cheat sheet shows.
    QList<CommandPalette::Entry> entries() const { return m_entries; }
    CommandPalette* openCommandPalette();
    QDialog* openCheatSheet();
    // File → Export report…: the dialog, open until it is closed (report_dialog.h).
    ReportDialog* openReportDialog();

Q_SIGNALS:
    // The window was built (at first, and again after a language switch).
    void windowBuilt(tidepool::ui::MainWindow* window);

private:
    void build();
    void buildMenus();
    void rememberWindow();
    void addEntry(QMenu* menu, QAction* action, const QString& menuName);

    CoreBridge& m_bridge;
    bool m_remember;
    QString m_language;
    std::unique_ptr<MainWindow> m_window;
    QList<CommandPalette::Entry> m_entries;
    QPointer<QDialog> m_dialog; // the palette or the cheat sheet, while open
};

} // namespace tidepool::ui
