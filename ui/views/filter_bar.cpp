#include "ui/views/filter_bar.h"

#include "ui/models/filter_proxy.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QShortcut>

namespace tidepool::ui {

FilterBar::FilterBar(FilterProxy* proxy, QWidget* parent)
    : QWidget(parent)
    , m_proxy(proxy)
    , m_edit(new QLineEdit(this))
    , m_hint(new QLabel(this))
{
    m_edit->setObjectName(QStringLiteral("filterEdit"));
    m_edit->setClearButtonEnabled(true);
    m_edit->setPlaceholderText(tr("Filter (/): text or key=value, e.g. tier=hot state=ready"));
    m_hint->setObjectName(QStringLiteral("filterHint"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_hint);
    connect(m_edit, &QLineEdit::textChanged, this, &FilterBar::apply);
    auto* focus = new QShortcut(QKeySequence(Qt::Key_Slash), parentWidget() ? parentWidget() : this);
    focus->setContext(Qt::WidgetWithChildrenShortcut);
    connect(focus, &QShortcut::activated, m_edit, [this] {
        m_edit->setFocus(Qt::ShortcutFocusReason);
        m_edit->selectAll();
    });
}

void FilterBar::apply(const QString& text)
{
    m_proxy->setFilterText(text);
    const QStringList unknown = m_proxy->unknownKeys();
    m_hint->setText(unknown.isEmpty() ? QString() : tr("No column named %1").arg(unknown.join(tr(", "))));
}

} // namespace tidepool::ui
