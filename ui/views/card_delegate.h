#pragma once
// Paints the Tiers board's rows (`TiersModel`): a node (or the waiting group) as a header with its summary, a workload
// as a card: its name and phase, its pool and resources, and the answer to its last move (moving, moved, refused and
// why). Every row has the same height, so that a view of 50,000 cards lays out only what it shows.
//
// Thread affinity: GUI thread.

#include <QStyledItemDelegate>

namespace tidepool::ui {

class CardDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

} // namespace tidepool::ui
