#include "ui/views/command_palette.h"

#include <QAction>
#include <QCoreApplication>
#include <QKeyEvent>
#include <QLineEdit>
#include <QListWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace tidepool::ui {

namespace {

constexpr int kEntryRole = Qt::UserRole + 1;

QString plainText(const QAction* action)
{
    QString text = action->text();
    text.remove(QLatin1Char('&'));
    return text;
}

} // namespace

CommandPalette::CommandPalette(QList<Entry> entries, QWidget* parent)
    : QDialog(parent)
    , m_entries(std::move(entries))
    , m_edit(new QLineEdit(this))
    , m_list(new QListWidget(this))
{
    setObjectName(QStringLiteral("commandPalette"));
    setWindowTitle(tr("Command palette"));
    m_edit->setObjectName(QStringLiteral("commandEdit"));
    m_edit->setPlaceholderText(tr("Type a command: a tab, a setting, an action…"));
    m_edit->installEventFilter(this);
    m_list->setObjectName(QStringLiteral("commandList"));
    m_list->setUniformItemSizes(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_edit);
    layout->addWidget(m_list, 1);
    resize(520, 360);
    connect(m_edit, &QLineEdit::textChanged, this, &CommandPalette::filter);
    connect(m_edit, &QLineEdit::returnPressed, this, &CommandPalette::runCurrent);
    connect(m_list, &QListWidget::itemActivated, this, &CommandPalette::runCurrent);
    filter(QString());
}

QStringList CommandPalette::shownNames() const
{
    QStringList names;
    for (int i = 0; i < m_list->count(); ++i)
        names << plainText(m_entries.at(m_list->item(i)->data(kEntryRole).toInt()).action.data());
    return names;
}

void CommandPalette::filter(const QString& text)
{
    m_list->clear();
    const QStringList words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (int i = 0; i < m_entries.size(); ++i) {
        const Entry& entry = m_entries.at(i);
        QAction* action = entry.action;
        if (!action || !action->isVisible())
            continue;
        const QString name = plainText(action);
        const QString shortcut = action->shortcut().toString(QKeySequence::NativeText);
        const QString haystack = name + QLatin1Char(' ') + entry.menu + QLatin1Char(' ') + shortcut;
        const bool matches = std::all_of(words.begin(), words.end(),
            [&haystack](const QString& word) { return haystack.contains(word, Qt::CaseInsensitive); });
        if (!matches)
            continue;
        QString label = entry.menu.isEmpty() ? name : entry.menu + QStringLiteral(" › ") + name;
        if (action->isCheckable() && action->isChecked())
            label += QStringLiteral("  ✓");
        auto* item = new QListWidgetItem(label, m_list);
        if (!shortcut.isEmpty())
            item->setToolTip(shortcut);
        item->setData(kEntryRole, i);
        if (!action->isEnabled())
            item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
    }
    for (int i = 0; i < m_list->count(); ++i) {
        if (m_list->item(i)->flags() & Qt::ItemIsEnabled) {
            m_list->setCurrentRow(i);
            break;
        }
    }
}

void CommandPalette::runCurrent()
{
    const QListWidgetItem* item = m_list->currentItem();
    if (!item || !(item->flags() & Qt::ItemIsEnabled))
        return;
    QAction* action = m_entries.at(item->data(kEntryRole).toInt()).action.data();
    if (!action)
        return;
    accept();
    // Queued, so that it runs after the palette has closed and returned: an action may rebuild the window the palette
    // belongs to (a language switch).
    QMetaObject::invokeMethod(action, &QAction::trigger, Qt::QueuedConnection);
}

bool CommandPalette::eventFilter(QObject* watched, QEvent* event)
{
    // Up and down move through the list while the text keeps the focus.
    if (watched == m_edit && event->type() == QEvent::KeyPress) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Down || key->key() == Qt::Key_Up || key->key() == Qt::Key_PageDown
            || key->key() == Qt::Key_PageUp) {
            QCoreApplication::sendEvent(m_list, event);
            return true;
        }
    }
    return QDialog::eventFilter(watched, event);
}

} // namespace tidepool::ui
