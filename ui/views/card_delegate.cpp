#include "ui/views/card_delegate.h"

#include "ui/models/tiers_model.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPath>

namespace tidepool::ui {

namespace {

constexpr int kMargin = 4;
constexpr int kPadding = 6;

QColor phaseColour(const QString& phase)
{
    if (phase == QLatin1String("running"))
        return QColor(0x2e, 0x7d, 0x32);
    if (phase == QLatin1String("pending"))
        return QColor(0xef, 0x6c, 0x00);
    return QColor(0x15, 0x65, 0xc0); // launching, stopping
}

QColor noteColour(TiersModel::NoteState state, const QPalette& palette)
{
    switch (state) {
    case TiersModel::NoteState::Refused: return QColor(0xc6, 0x28, 0x28);
    case TiersModel::NoteState::Moved: return QColor(0x2e, 0x7d, 0x32);
    default: return palette.color(QPalette::PlaceholderText);
    }
}

} // namespace

QSize CardDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex&) const
{
    // Three lines of text: the same for every row (uniform row heights).
    return QSize(200, 3 * option.fontMetrics.height() + 2 * (kMargin + kPadding));
}

void CardDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    const auto level = static_cast<TiersModel::Level>(index.data(TiersModel::LevelRole).toInt());
    const QPalette& palette = option.palette;
    const QFontMetrics& metrics = option.fontMetrics;
    const int line = metrics.height();
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    const QRect box = option.rect.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    const QRect text = box.adjusted(kPadding, kPadding, -kPadding, -kPadding);
    const bool selected = option.state & QStyle::State_Selected;

    if (level != TiersModel::CardLevel) {
        // A node, or the waiting group: a header band.
        painter->fillRect(box, palette.color(QPalette::AlternateBase));
        QFont bold = option.font;
        bold.setBold(true);
        painter->setFont(bold);
        painter->setPen(palette.color(QPalette::Text));
        painter->drawText(QRect(text.left(), text.top(), text.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
            metrics.elidedText(index.data(Qt::DisplayRole).toString(), Qt::ElideRight, text.width()));
        painter->setFont(option.font);
        painter->setPen(palette.color(QPalette::PlaceholderText));
        painter->drawText(QRect(text.left(), text.top() + line, text.width(), 2 * line),
            Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, index.data(TiersModel::SubtitleRole).toString());
        painter->restore();
        return;
    }

    // A card: a rounded box with a stripe in its phase's colour.
    const QString phase = index.data(TiersModel::PhaseRole).toString();
    const auto noteState = static_cast<TiersModel::NoteState>(index.data(TiersModel::NoteStateRole).toInt());
    QPainterPath path;
    path.addRoundedRect(box, 5, 5);
    painter->fillPath(path, selected ? palette.color(QPalette::Highlight) : palette.color(QPalette::Base));
    painter->setPen(QPen(
        noteState == TiersModel::NoteState::Refused ? noteColour(noteState, palette) : palette.color(QPalette::Mid),
        noteState == TiersModel::NoteState::Refused ? 2 : 1));
    painter->drawPath(path);
    painter->fillRect(QRect(box.left() + 1, box.top() + 4, 4, box.height() - 8), phaseColour(phase));

    const QColor textColour = palette.color(selected ? QPalette::HighlightedText : QPalette::Text);
    QFont bold = option.font;
    bold.setBold(true);
    painter->setFont(bold);
    painter->setPen(textColour);
    painter->drawText(QRect(text.left() + 4, text.top(), text.width() - 4, line), Qt::AlignLeft | Qt::AlignVCenter,
        QFontMetrics(bold).elidedText(index.data(Qt::DisplayRole).toString(), Qt::ElideRight, text.width() - 4));
    painter->setFont(option.font);
    painter->setPen(selected ? textColour : palette.color(QPalette::PlaceholderText));
    painter->drawText(QRect(text.left() + 4, text.top() + line, text.width() - 4, line),
        Qt::AlignLeft | Qt::AlignVCenter,
        metrics.elidedText(index.data(TiersModel::SubtitleRole).toString(), Qt::ElideRight, text.width() - 4));
    const QString note = index.data(TiersModel::NoteRole).toString();
    if (!note.isEmpty()) {
        painter->setPen(selected ? textColour : noteColour(noteState, palette));
        painter->drawText(QRect(text.left() + 4, text.top() + 2 * line, text.width() - 4, line),
            Qt::AlignLeft | Qt::AlignVCenter, metrics.elidedText(note, Qt::ElideRight, text.width() - 4));
    }
    painter->restore();
}

} // namespace tidepool::ui
