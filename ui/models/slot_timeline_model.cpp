#include "ui/models/slot_timeline_model.h"

#include "ui/labels.h"
#include "ui/models/roles.h"

#include <QDateTime>
#include <QLocale>

#include <algorithm>
#include <optional>

namespace tidepool::ui {

namespace {

constexpr const char* kKeys[SlotTimelineModel::ColumnCount] = { "slot", "workload", "pool", "slots", "start", "end" };

// The workload `id` as a frame names it.
const SlotHolder* holderIn(const SlotFrame& frame, std::int64_t id)
{
    const auto it = std::lower_bound(frame.workloads.begin(), frame.workloads.end(), id,
        [](const SlotHolder& h, std::int64_t value) { return h.workload < value; });
    return it != frame.workloads.end() && it->workload == id ? &*it : nullptr;
}

} // namespace

SlotTimelineModel::SlotTimelineModel(QObject* parent)
    : KeyedTableModel<SlotSpan>(parent)
{
}

void SlotTimelineModel::setDevice(std::int32_t nodeId, std::int32_t index)
{
    if (nodeId == m_nodeId && index == m_index)
        return;
    m_nodeId = nodeId;
    m_index = index;
    // Another device's spans share no rows with this one's.
    beginResetModel();
    m_rows.clear();
    m_slotCount = 0;
    m_firstMs = m_lastMs = m_untilMs = 0;
    endResetModel();
    Q_EMIT timelineChanged();
}

SlotTimeline SlotTimelineModel::timelineOf(
    const std::vector<DeviceFramePtr>& frames, std::int32_t nodeId, std::int32_t index)
{
    SlotTimeline timeline;
    // A span being followed in each slot, and the frame it was last seen in (for its name and size).
    struct Run {
        SlotSpan span;
        const SlotFrame* lastSeen = nullptr;
        const SlotRange* range = nullptr;
    };
    std::vector<std::optional<Run>> runs;
    const auto close = [&timeline](std::optional<Run>& run, std::int64_t endMs, bool open) {
        if (!run)
            return;
        SlotSpan span = std::move(run->span);
        span.endMs = endMs;
        span.open = open;
        if (const SlotHolder* h = holderIn(*run->lastSeen, span.workload)) {
            span.name = h->name;
            span.pool = h->pool;
        } else {
            span.name = '#' + std::to_string(span.workload); // a frame that did not name it: should not happen
        }
        const auto first = run->lastSeen->holders.begin() + run->range->first;
        span.heldSlots = static_cast<std::int32_t>(std::count(first, first + run->range->count, span.workload));
        timeline.spans.push_back(std::move(span));
        run.reset();
    };
    bool any = false;
    std::int64_t last = 0;
    std::int64_t step = 60'000; // the last frame's time: as long as the one before it (a minute, the collector's pace)
    for (const DeviceFramePtr& frame : frames) {
        if (!frame || !frame->layout || (any && frame->atMs <= last))
            continue;
        const SlotRange* range = frame->layout->slotRange(nodeId, index);
        const SlotFrame* frameSlots = frame->slotFrame.get();
        if (!range || !frameSlots || range->first + range->count > frameSlots->holders.size()) {
            // A frame that did not know the FPGA: what was in its slots is not known to have stayed.
            for (std::optional<Run>& run : runs)
                close(run, frame->atMs, false);
            continue;
        }
        if (!any)
            timeline.firstMs = frame->atMs;
        else
            step = frame->atMs - last;
        any = true;
        last = frame->atMs;
        timeline.lastMs = frame->atMs;
        timeline.slotCount = std::max(timeline.slotCount, static_cast<std::int32_t>(range->count));
        if (runs.size() < range->count)
            runs.resize(range->count);
        for (std::size_t slot = 0; slot < runs.size(); ++slot) {
            const std::int64_t id = slot < range->count ? frameSlots->holders[range->first + slot] : 0;
            std::optional<Run>& run = runs[slot];
            if (run && run->span.workload != id)
                close(run, frame->atMs, false);
            if (id == 0)
                continue;
            if (!run) {
                run.emplace();
                run->span.slot = static_cast<std::int32_t>(slot);
                run->span.startMs = frame->atMs;
                run->span.startsBefore = frame->atMs == timeline.firstMs;
                run->span.workload = id;
            }
            run->lastSeen = frameSlots;
            run->range = range;
        }
    }
    timeline.untilMs = any ? last + step : 0;
    for (std::optional<Run>& run : runs)
        close(run, timeline.untilMs, true);
    std::sort(timeline.spans.begin(), timeline.spans.end(),
        [](const SlotSpan& a, const SlotSpan& b) { return a.key() < b.key(); });
    return timeline;
}

void SlotTimelineModel::setSnapshot(const SnapshotPtr& snapshot)
{
    SlotTimeline timeline;
    if (snapshot && m_nodeId >= 0)
        timeline = timelineOf(snapshot->deviceHistory, m_nodeId, m_index);
    m_slotCount = timeline.slotCount;
    m_firstMs = timeline.firstMs;
    m_lastMs = timeline.lastMs;
    m_untilMs = timeline.untilMs;
    update(std::move(timeline.spans), [](const SlotSpan& span) { return span.key(); });
    Q_EMIT timelineChanged();
}

QString SlotTimelineModel::periodText(const SlotSpan& span)
{
    const QString start = span.startsBefore ? tr("before %1").arg(timeText(span.startMs)) : timeText(span.startMs);
    QString end = tr("now");
    if (!span.open) {
        const QDateTime from = QDateTime::fromMSecsSinceEpoch(span.startMs);
        const QDateTime to = QDateTime::fromMSecsSinceEpoch(span.endMs);
        end = from.date() == to.date() ? QLocale().toString(to.time(), QLocale::ShortFormat) : timeText(span.endMs);
    }
    return tr("%1 – %2").arg(start, end);
}

int SlotTimelineModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SlotTimelineModel::data(const QModelIndex& index, int role) const
{
    const SlotSpan* span = rowAt(index.row());
    if (!span || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    const auto column = static_cast<Column>(index.column());
    if (role == IdRole)
        return QVariant::fromValue<qint64>(span->workload);
    if (role == SortRole) {
        switch (column) {
        case Slot: return span->slot;
        case Workload: return QString::fromStdString(span->name);
        case Pool: return QString::fromStdString(span->pool);
        case Slots: return span->heldSlots;
        case Start: return QVariant::fromValue<qint64>(span->startMs);
        case End: return QVariant::fromValue<qint64>(span->endMs);
        case ColumnCount: break;
        }
        return {};
    }
    if (role == Qt::ToolTipRole)
        return tr("%1\nPool: %2\nSlots held: %3\n%4")
            .arg(QString::fromStdString(span->name), QString::fromStdString(span->pool),
                QString::number(span->heldSlots), periodText(*span));
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case Slot: return span->slot;
    case Workload: return QString::fromStdString(span->name);
    case Pool: return QString::fromStdString(span->pool);
    case Slots: return span->heldSlots;
    case Start: return span->startsBefore ? tr("before %1").arg(timeText(span->startMs)) : timeText(span->startMs);
    case End: return span->open ? tr("now") : timeText(span->endMs);
    case ColumnCount: break;
    }
    return {};
}

QVariant SlotTimelineModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == ColumnKeyRole)
        return QString::fromLatin1(kKeys[section]);
    if (role != Qt::DisplayRole)
        return {};
    switch (static_cast<Column>(section)) {
    case Slot: return tr("Slot");
    case Workload: return tr("Workload");
    case Pool: return tr("Pool");
    case Slots: return tr("Slots");
    case Start: return tr("Start");
    case End: return tr("End");
    case ColumnCount: break;
    }
    return {};
}

} // namespace tidepool::ui
