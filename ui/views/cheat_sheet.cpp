#include "ui/views/cheat_sheet.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

namespace tidepool::ui {

CheatSheet::CheatSheet(const QList<CommandPalette::Entry>& entries, QWidget* parent)
    : QDialog(parent)
    , m_table(new QTableWidget(this))
{
    setObjectName(QStringLiteral("cheatSheet"));
    setWindowTitle(tr("Keyboard shortcuts"));
    QList<QPair<QString, QString>> rows;
    rows.append({ QStringLiteral("/"), tr("Focus the filter of the table in view") });
    for (const CommandPalette::Entry& entry : entries) {
        if (!entry.action || entry.action->shortcut().isEmpty())
            continue;
        QString name = entry.action->text();
        name.remove(QLatin1Char('&'));
        if (!entry.menu.isEmpty())
            name = entry.menu + QStringLiteral(" › ") + name;
        rows.append({ entry.action->shortcut().toString(QKeySequence::NativeText), name });
    }
    m_table->setColumnCount(2);
    m_table->setRowCount(static_cast<int>(rows.size()));
    m_table->setHorizontalHeaderLabels({ tr("Keys"), tr("Does") });
    for (int r = 0; r < rows.size(); ++r) {
        auto* keys = new QTableWidgetItem(rows.at(r).first);
        keys->setFlags(Qt::ItemIsEnabled);
        auto* what = new QTableWidgetItem(rows.at(r).second);
        what->setFlags(Qt::ItemIsEnabled);
        m_table->setItem(r, 0, keys);
        m_table->setItem(r, 1, what);
    }
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    resize(520, 420);
}

} // namespace tidepool::ui
