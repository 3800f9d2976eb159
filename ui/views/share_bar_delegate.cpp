#include "ui/views/share_bar_delegate.h"

#include "ui/models/roles.h"

#include <QApplication>
#include <QPainter>

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

    // Drawn by hand: the style's progress bar (gradients, rounded and antialiased edges) cost most of a table's
    // repaint, and a table shows hundreds of bars.
    const QRect frame = option.rect.adjusted(2, 2, -3, -3);
    const QPalette& palette = option.palette;
    const double filled = std::clamp(share, 0.0, 1.0);
    painter->save();
    painter->setPen(palette.color(QPalette::Mid));
    painter->setBrush(palette.color(QPalette::Base));
    painter->drawRect(frame);
    QRect bar = frame.adjusted(1, 1, 0, 0);
    bar.setWidth(static_cast<int>(filled * bar.width() + 0.5));
    if (bar.width() > 0)
        painter->fillRect(bar, share > 0.9 ? QColor(0xc6, 0x28, 0x28) : palette.color(QPalette::Highlight));
    const QString text = index.data(Qt::DisplayRole).toString();
    if (!text.isEmpty()) {
        // Over the filled part in the highlight's text colour, over the rest in the text colour.
        painter->setPen(palette.color(QPalette::Text));
        painter->drawText(frame, Qt::AlignCenter, text);
        if (bar.width() > 0) {
            painter->setClipRect(bar);
            painter->setPen(palette.color(QPalette::HighlightedText));
            painter->drawText(frame, Qt::AlignCenter, text);
        }
    }
    painter->restore();
}

} // namespace tidepool::ui
