#include "ui/views/table_page.h"

#include "ui/models/filter_proxy.h"
#include "ui/views/filter_bar.h"
#include "ui/views/share_bar_delegate.h"

#include <QHeaderView>
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
        if (tree)
            m_view->expandAll();
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
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_filterBar);
    layout->addWidget(m_view, 1);
}

void TablePage::showSharesAsBars(int column)
{
    m_view->setItemDelegateForColumn(column, new ShareBarDelegate(m_view));
}

} // namespace tidepool::ui
