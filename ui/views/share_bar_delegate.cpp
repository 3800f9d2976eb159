#include "ui/views/share_bar_delegate.h"

#include "ui/models/roles.h"

#include <QApplication>
#include <QPainter>
#include <QStyleOptionProgressBar>

#include <algorithm>

namespace tidepool::ui {

void ShareBarDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    bool ok = false;
    const QVariant shareData = index.data(ShareRole);
    const double share = (shareData.isValid() ? shareData : index.data(SortRole)).toDouble(&ok);
    if (!ok || share < 0) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    // The row's background and selection first, then the bar inside the cell's margins.
    QStyleOptionViewItem background = option;
    initStyleOption(&background, index);
    background.text.clear();
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &background, painter, widget);

    QStyleOptionProgressBar bar;
    bar.rect = option.rect.adjusted(2, 2, -2, -2);
    bar.minimum = 0;
    bar.maximum = 1000;
    bar.progress = static_cast<int>(std::clamp(share, 0.0, 1.0) * 1000.0);
    bar.text = index.data(Qt::DisplayRole).toString();
    bar.textVisible = true;
    bar.textAlignment = Qt::AlignCenter;
    bar.state = option.state | QStyle::State_Horizontal;
    if (share > 0.9)
        bar.palette.setColor(QPalette::Highlight, QColor(0xc6, 0x28, 0x28));
    style->drawControl(QStyle::CE_ProgressBar, &bar, painter, widget);
}

} // namespace tidepool::ui
