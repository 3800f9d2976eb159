#pragma once
// Draws an FPGA's slot timeline (a `SlotTimelineModel`): one row per time-slice slot, time along x over the history
// the model was read from (up to the end of its last frame's time, so that the right edge is now), a block per span of
// a workload in a slot, in the workload's colour (the same in every slot it holds) and labelled with its name where
// that fits; free time stays empty. A tooltip over a block names the workload, its pool, its slots and when it held
// them. Painted by hand from the model's rows at each change: a few dozen rectangles, cheaper than a chart's series and
// items.
//
// Thread affinity: GUI thread. The model is borrowed and must outlive the view.

#include <QWidget>

#include <cstdint>

namespace tidepool::ui {

class SlotTimelineModel;
struct SlotSpan;

class SlotTimelineView : public QWidget {
    Q_OBJECT
public:
    explicit SlotTimelineView(SlotTimelineModel* model, QWidget* parent = nullptr);

    // The colour of a workload's blocks: fixed by its id, mid-toned so that it reads on light and dark themes.
    static QColor workloadColour(std::int64_t workload);
    // The span drawn under `pos` (widget coordinates), or null.
    const SlotSpan* spanAt(const QPoint& pos) const;
    // Where the span is drawn (empty when it is not).
    QRect spanRect(const SlotSpan& span) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    QRect plotRect() const; // the slots' rows, without the slot labels on the left and the time axis below
    int rowHeight() const;
    int xOf(std::int64_t ms) const;

    SlotTimelineModel* m_model;
};

} // namespace tidepool::ui
