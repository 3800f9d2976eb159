#pragma once
// The command palette (Ctrl+K): every action of the console's menus in one list, narrowed as the operator types (each
// word must appear in the action's name, its menu or its shortcut, in any case), run with Enter or a double click.
// It lists the actions it is given and runs them through `QAction::trigger`, so it can do nothing the menus cannot.
//
// Thread affinity: GUI thread.

#include <QDialog>
#include <QList>
#include <QPointer>

class QAction;
class QLineEdit;
class QListWidget;

namespace tidepool::ui {

class CommandPalette : public QDialog {
    Q_OBJECT
public:
    // `actions` with the menu each belongs to ("View", "Settings › Theme"), in the order they are listed.
    struct Entry {
        QPointer<QAction> action;
        QString menu;
    };
    CommandPalette(QList<Entry> entries, QWidget* parent = nullptr);

    QLineEdit* lineEdit() const { return m_edit; }
    QListWidget* list() const { return m_list; }
    // The entries the current text leaves, in order (their action's text, without mnemonics).
    QStringList shownNames() const;

private:
    void filter(const QString& text);
    void runCurrent();
    bool eventFilter(QObject* watched, QEvent* event) override;

    QList<Entry> m_entries;
    QLineEdit* m_edit;
    QListWidget* m_list;
};

} // namespace tidepool::ui
