#include "ui/views/events_page.h"

#include "ui/models/event_kind_filter.h"
#include "ui/models/events_model.h"
#include "ui/models/filter_proxy.h"
#include "ui/view_labels.h"
#include "ui/views/table_page.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QTreeView>
#include <QVBoxLayout>

namespace tidepool::ui {

EventsPage::EventsPage(EventsModel* events, QWidget* parent)
    : QWidget(parent)
    , m_events(events)
    , m_kinds(new EventKindFilter(this))
    , m_kindBox(new QComboBox(this))
    , m_count(new QLabel(this))
{
    m_kinds->setSourceModel(events);
    m_table = new TablePage(m_kinds, false, this);
    // Newest first.
    m_table->view()->sortByColumn(EventsModel::Time, Qt::DescendingOrder);
    m_kindBox->setObjectName(QStringLiteral("eventKind"));
    m_kindBox->addItem(tr("All kinds"), QString());
    int count = 0;
    const char* const* kinds = eventCategories(&count);
    for (int i = 0; i < count; ++i)
        m_kindBox->addItem(eventCategoryLabel(kinds[i]), QString::fromLatin1(kinds[i]));
    m_kindBox->setToolTip(tr("Show only events of one kind"));
    m_count->setObjectName(QStringLiteral("eventCount"));

    auto* top = new QHBoxLayout;
    auto* label = new QLabel(tr("&Kind:"), this);
    label->setBuddy(m_kindBox);
    top->addWidget(label);
    top->addWidget(m_kindBox);
    top->addStretch(1);
    top->addWidget(m_count);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_table, 1);

    connect(m_kindBox, &QComboBox::currentIndexChanged, this,
        [this](int index) { setKind(m_kindBox->itemData(index).toString()); });
    for (auto signal : { &QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved })
        connect(m_table->proxy(), signal, this, &EventsPage::updateCount);
    connect(m_table->proxy(), &QAbstractItemModel::modelReset, this, &EventsPage::updateCount);
    connect(m_table->proxy(), &QAbstractItemModel::layoutChanged, this, &EventsPage::updateCount);
    updateCount();
}

void EventsPage::setKind(const QString& kind)
{
    m_kinds->setKinds(kind.isEmpty() ? std::set<std::string> {} : std::set<std::string> { kind.toStdString() });
    const int index = m_kindBox->findData(kind);
    if (index >= 0 && index != m_kindBox->currentIndex()) {
        const QSignalBlocker blocker(m_kindBox);
        m_kindBox->setCurrentIndex(index);
    }
    updateCount();
}

void EventsPage::updateCount()
{
    m_count->setText(tr("%1 of %2 events").arg(m_table->proxy()->rowCount()).arg(m_events->rowCount()));
}

} // namespace tidepool::ui
