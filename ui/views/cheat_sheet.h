#pragma once
// The keyboard cheat sheet (`?`): every shortcut of the console's actions, and the ones that belong to a page (`/`
// focuses its filter), in a two-column table.
//
// Thread affinity: GUI thread.

#include "ui/views/command_palette.h"

#include <QDialog>

class QTableWidget;

namespace tidepool::ui {

class CheatSheet : public QDialog {
    Q_OBJECT
public:
    CheatSheet(const QList<CommandPalette::Entry>& entries, QWidget* parent = nullptr);

    QTableWidget* table() const { return m_table; }

private:
    QTableWidget* m_table;
};

} // namespace tidepool::ui
