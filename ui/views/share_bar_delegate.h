#pragma once
// Draws a share (the `ShareRole` of a cell, else its `SortRole`, 0..1; negative = none) as a bar with its text on it: quota used, CPU
// allocated, accelerators in use. Past 90 % the bar takes the highlight of a warning.
//
// Thread affinity: GUI thread.

#include <QStyledItemDelegate>

namespace tidepool::ui {

class ShareBarDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

} // namespace tidepool::ui
