#include "ui/views/table_page.h"

#include "ui/models/filter_proxy.h"
#include "ui/models/roles.h"
#include "ui/settings.h"
#include "ui/views/filter_bar.h"
#include "ui/views/share_bar_delegate.h"

#include <QHeaderView>
#include <QMenu>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace tidepool::ui {

TablePage::TablePage(QAbstractItemModel* source, bool tree, QWidget* parent)
    : QWidget(parent)
    , m_proxy(new FilterProxy(this))
    , m_view(new QTreeView(this))
{
    m_proxy->setSourceModel(source);
    m_filterBar = new FilterBar(m_proxy, this);
    m_view->setObjectName(QStringLiteral("itemView"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(0, Qt::AscendingOrder);
    m_view->setRootIsDecorated(tree);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->header()->setStretchLastSection(false);
    connect(source, &QAbstractItemModel::modelReset, m_view, [this, tree] {
        if (tree && m_expandDepth < 0)
            m_view->expandAll();
        else if (tree)
            m_view->expandToDepth(m_expandDepth);
        // Fit the columns to the first rows once; after that they are the operator's.
        if (!m_sized && m_proxy->rowCount() > 0) {
            m_sized = true;
            QHeaderView* header = m_view->header();
            header->resizeSections(QHeaderView::ResizeToContents);
            // Long text (a proposal's reason) is read in its tooltip or detail, not by scrolling sideways.
            constexpr int kMaxWidth = 360;
            for (int c = 0; c < header->count(); ++c)
                header->resizeSection(c, std::min(header->sectionSize(c), kMaxWidth));
        }
    });
    m_view->header()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view->header(), &QHeaderView::customContextMenuRequested, this,
        [this](const QPoint& at) { columnMenu()->popup(m_view->header()->mapToGlobal(at)); });
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_filterBar);
    layout->addWidget(m_view, 1);
}

void TablePage::addFooter(QWidget* widget)
{
    layout()->addWidget(widget);
}

QMenu* TablePage::columnMenu()
{
    // Built afresh each time: the header's text follows the language.
    delete m_columnMenu;
    m_columnMenu = new QMenu(tr("Columns"), this);
    const QAbstractItemModel* model = m_view->model();
    const int columns = model->columnCount();
    int shown = 0;
    for (int c = 0; c < columns; ++c)
        shown += m_view->isColumnHidden(c) ? 0 : 1;
    for (int c = 0; c < columns; ++c) {
        QAction* action = m_columnMenu->addAction(model->headerData(c, Qt::Horizontal).toString());
        action->setCheckable(true);
        action->setChecked(!m_view->isColumnHidden(c));
        // The last column shown cannot go: a table without columns has no header to bring them back from.
        action->setEnabled(m_view->isColumnHidden(c) || shown > 1);
        connect(action, &QAction::toggled, this, [this, c](bool on) { setColumnShown(c, on); });
    }
    return m_columnMenu;
}

void TablePage::setColumnShown(int column, bool shown)
{
    m_view->setColumnHidden(column, !shown);
    if (m_settingsName.isEmpty())
        return;
    QStringList hidden;
    const QAbstractItemModel* model = m_view->model();
    for (int c = 0; c < model->columnCount(); ++c)
        if (m_view->isColumnHidden(c))
            hidden << model->headerData(c, Qt::Horizontal, ColumnKeyRole).toString();
    settings::setHiddenColumns(m_settingsName, hidden);
}

void TablePage::rememberColumnsAs(const QString& name)
{
    m_settingsName = name;
    const QStringList hidden = settings::hiddenColumns(name);
    const QAbstractItemModel* model = m_view->model();
    int shown = 0;
    for (int c = 0; c < model->columnCount(); ++c) {
        const bool hide = hidden.contains(model->headerData(c, Qt::Horizontal, ColumnKeyRole).toString());
        m_view->setColumnHidden(c, hide);
        shown += hide ? 0 : 1;
    }
    if (shown == 0 && model->columnCount() > 0) // a settings file edited by hand
        m_view->setColumnHidden(0, false);
}

void TablePage::showSharesAsBars(int column)
{
    m_view->setItemDelegateForColumn(column, new ShareBarDelegate(m_view));
}

} // namespace tidepool::ui
