#include "ui/views/slot_timeline_view.h"

#include "ui/models/slot_timeline_model.h"

#include <QDateTime>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <array>

namespace tidepool::ui {

namespace {

constexpr int kMaxRowHeight = 30;
constexpr int kMinRowHeight = 12;
constexpr int kMinLabelWidth = 28; // narrower blocks go unlabelled: the tooltip names them
constexpr std::int64_t kMinuteMs = 60'000;

// Tableau 10: distinct from each other, and mid-toned enough to read on the light and the dark theme's base.
constexpr std::array<QRgb, 10> kColours
    = { 0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f, 0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac };

// Black or white, whichever reads better on `background`.
QColor textOn(const QColor& background)
{
    const double luminance = 0.299 * background.redF() + 0.587 * background.greenF() + 0.114 * background.blueF();
    return luminance > 0.6 ? QColor(Qt::black) : QColor(Qt::white);
}

// A tick step that puts a label about every `pixels` across `spanMs` drawn over `width`.
std::int64_t tickStepMs(std::int64_t spanMs, int width, int pixels)
{
    static constexpr std::int64_t kStepsMin[] = { 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080 };
    const double wanted = static_cast<double>(spanMs) * pixels / std::max(1, width);
    for (const std::int64_t minutes : kStepsMin)
        if (static_cast<double>(minutes * kMinuteMs) >= wanted)
            return minutes * kMinuteMs;
    return kStepsMin[std::size(kStepsMin) - 1] * kMinuteMs;
}

} // namespace

SlotTimelineView::SlotTimelineView(SlotTimelineModel* model, QWidget* parent)
    : QWidget(parent)
    , m_model(model)
{
    setObjectName(QStringLiteral("slotTimeline"));
    setAttribute(Qt::WA_OpaquePaintEvent);
    connect(m_model, &SlotTimelineModel::timelineChanged, this, qOverload<>(&QWidget::update));
    connect(m_model, &QAbstractItemModel::modelReset, this, qOverload<>(&QWidget::update));
}

QColor SlotTimelineView::workloadColour(std::int64_t workload)
{
    // Ids come in submission order, interleaved with other work: a multiplicative hash spreads neighbours apart.
    const std::uint64_t hash = static_cast<std::uint64_t>(workload) * 0x9E3779B97F4A7C15ull;
    return QColor::fromRgb(kColours[(hash >> 32) % kColours.size()]);
}

QSize SlotTimelineView::sizeHint() const
{
    const int rows = std::max(1, m_model->slotCount());
    return QSize(480, rows * 22 + 2 * fontMetrics().height() + 12);
}

QSize SlotTimelineView::minimumSizeHint() const
{
    const int rows = std::max(1, m_model->slotCount());
    return QSize(200, rows * kMinRowHeight + fontMetrics().height() + 12);
}

QRect SlotTimelineView::plotRect() const
{
    const QFontMetrics metrics = fontMetrics();
    const int labels = metrics.horizontalAdvance(tr("Slot %1").arg(std::max(0, m_model->slotCount() - 1))) + 10;
    return rect().adjusted(labels, 4, -8, -(metrics.height() + 8));
}

int SlotTimelineView::rowHeight() const
{
    const int slotCount = std::max(1, m_model->slotCount());
    return std::clamp(plotRect().height() / slotCount, kMinRowHeight, kMaxRowHeight);
}

int SlotTimelineView::xOf(std::int64_t ms) const
{
    const QRect plot = plotRect();
    const std::int64_t first = m_model->firstMs();
    const std::int64_t span = std::max<std::int64_t>(kMinuteMs, m_model->untilMs() - first);
    const double at = static_cast<double>(ms - first) / static_cast<double>(span);
    return plot.left() + static_cast<int>(std::clamp(at, 0.0, 1.0) * plot.width() + 0.5);
}

QRect SlotTimelineView::spanRect(const SlotSpan& span) const
{
    if (span.slot < 0 || span.slot >= m_model->slotCount())
        return {};
    const QRect plot = plotRect();
    const int height = rowHeight();
    const int left = xOf(span.startMs);
    // A pixel between a block and the next one in its slot; a span seen in one frame only still shows, 2 pixels wide.
    const int width = std::max(2, xOf(span.endMs) - left - 1);
    return QRect(left, plot.top() + span.slot * height + 2, width, height - 3);
}

const SlotSpan* SlotTimelineView::spanAt(const QPoint& pos) const
{
    for (const SlotSpan& span : m_model->rows())
        if (spanRect(span).contains(pos))
            return &span;
    return nullptr;
}

void SlotTimelineView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    const QPalette& pal = palette();
    painter.fillRect(rect(), pal.color(QPalette::Window));
    const int slotCount = m_model->slotCount();
    if (slotCount <= 0) {
        painter.setPen(pal.color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, tr("No slot history for this FPGA yet."));
        return;
    }
    const QRect plot = plotRect();
    const int height = rowHeight();
    const QRect rows(plot.left(), plot.top(), plot.width(), height * slotCount);

    // The slots: alternating rows, each labelled on the left.
    for (int slot = 0; slot < slotCount; ++slot) {
        const QRect row(rows.left(), rows.top() + slot * height, rows.width(), height);
        painter.fillRect(row, pal.color(slot % 2 ? QPalette::AlternateBase : QPalette::Base));
        painter.setPen(pal.color(QPalette::WindowText));
        painter.drawText(
            QRect(0, row.top(), plot.left() - 6, height), Qt::AlignRight | Qt::AlignVCenter, tr("Slot %1").arg(slot));
    }

    // The time axis: a tick and a label every few minutes or hours, with a faint line across the slots.
    const std::int64_t first = m_model->firstMs();
    const std::int64_t last = std::max(m_model->untilMs(), first + kMinuteMs);
    const std::int64_t step = tickStepMs(last - first, plot.width(), 90);
    const bool days = last - first >= 24 * 60 * kMinuteMs;
    const QString format = days ? QStringLiteral("dd HH:mm") : QStringLiteral("HH:mm");
    const QFontMetrics metrics = fontMetrics();
    // Ticks on the local clock's round times.
    const std::int64_t offsetMs = QDateTime::fromMSecsSinceEpoch(first).offsetFromUtc() * 1000LL;
    std::int64_t tick = ((first + offsetMs + step - 1) / step) * step - offsetMs;
    QColor grid = pal.color(QPalette::WindowText);
    grid.setAlpha(40);
    for (; tick <= last; tick += step) {
        const int x = xOf(tick);
        painter.setPen(grid);
        painter.drawLine(x, rows.top(), x, rows.bottom());
        painter.setPen(pal.color(QPalette::WindowText));
        painter.drawLine(x, rows.bottom() + 1, x, rows.bottom() + 4);
        const QString label = QDateTime::fromMSecsSinceEpoch(tick).toString(format);
        const int width = metrics.horizontalAdvance(label);
        const int left = std::clamp(x - width / 2, plot.left() - 4, rect().right() - width);
        painter.drawText(QRect(left, rows.bottom() + 5, width, metrics.height()), Qt::AlignCenter, label);
    }

    // The spans: filled blocks with a pixel between neighbours, named where the name fits.
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    painter.setFont(small);
    const QFontMetrics smallMetrics(small);
    for (const SlotSpan& span : m_model->rows()) {
        const QRect block = spanRect(span);
        if (block.isEmpty())
            continue;
        const QColor colour = workloadColour(span.workload);
        painter.fillRect(block, colour);
        if (block.width() < kMinLabelWidth || block.height() < smallMetrics.height() - 2)
            continue;
        // Elided in the middle: names of one stream differ at their end ("transcode-0455"), and start alike.
        const QString name
            = smallMetrics.elidedText(QString::fromStdString(span.name), Qt::ElideMiddle, block.width() - 6);
        if (name.size() < 4) // an ellipsis and a letter or two say nothing
            continue;
        painter.setPen(textOn(colour));
        painter.drawText(block.adjusted(3, 0, -3, 0), Qt::AlignLeft | Qt::AlignVCenter, name);
    }
    painter.setPen(pal.color(QPalette::Mid));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(rows.adjusted(0, 0, -1, -1));
}

bool SlotTimelineView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const SlotSpan* span = spanAt(help->pos());
        if (!span) {
            QToolTip::hideText();
            event->ignore();
            return true;
        }
        const int row = static_cast<int>(span - m_model->rows().data());
        QToolTip::showText(
            help->globalPos(), m_model->index(row, 0).data(Qt::ToolTipRole).toString(), this, spanRect(*span));
        return true;
    }
    return QWidget::event(event);
}

} // namespace tidepool::ui
