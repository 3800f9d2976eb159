#pragma once
// The slot timeline of one FPGA over the snapshot's bounded device history: one row per span of one workload in one
// time-slice slot (as `DeviceCollector` numbers them), sorted by slot and start. Each frame stands for the time until
// the next one (the last for as long as the one before it), so a span starts at the first frame the workload was in
// the slot and ends at the first frame it was not, or at the end of the last frame's time while it is still there: its
// times are as exact as the frames are dense. Free time has no row. Rows are diffed by (slot, start), so a new
// snapshot extends the open spans in place and adds the new ones. The Accelerators page draws it
// (`SlotTimelineView`).
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"
#include "ui/models/keyed_table_model.h"

#include <utility>

namespace tidepool::ui {

struct SlotSpan {
    std::int32_t slot = 0;
    std::int64_t startMs = 0;
    std::int64_t endMs = 0;
    bool startsBefore = false; // already in the slot at the history's first frame
    bool open = false; // still in the slot at the last frame
    std::int64_t workload = 0;
    std::string name;
    std::string pool;
    std::int32_t heldSlots = 0; // the slots the workload held on the device at the span's last frame
    bool operator==(const SlotSpan&) const = default;

    std::pair<std::int32_t, std::int64_t> key() const { return { slot, startMs }; }
};

// The spans of one FPGA in `frames`, with the extent of the history they were read from.
struct SlotTimeline {
    std::vector<SlotSpan> spans; // by slot, then start
    std::int32_t slotCount = 0; // the most slots the device had in the frames
    std::int64_t firstMs = 0; // the first and last frame that knew the device (0 when none did)
    std::int64_t lastMs = 0;
    std::int64_t untilMs = 0; // the end of the last frame's time: where open spans end
};

class SlotTimelineModel : public KeyedTableModel<SlotSpan> {
    Q_OBJECT
public:
    enum Column : int { Slot, Workload, Pool, Slots, Start, End, ColumnCount };

    explicit SlotTimelineModel(QObject* parent = nullptr);

    // The FPGA shown, by `DeviceRow::keyOf`; takes effect with the next `setSnapshot`. (-1, -1): none.
    void setDevice(std::int32_t nodeId, std::int32_t index);
    std::int32_t nodeId() const { return m_nodeId; }
    std::int32_t deviceIndex() const { return m_index; }
    void setSnapshot(const SnapshotPtr& snapshot);

    std::int32_t slotCount() const { return m_slotCount; }
    std::int64_t firstMs() const { return m_firstMs; }
    std::int64_t lastMs() const { return m_lastMs; }
    std::int64_t untilMs() const { return m_untilMs; }

    // The timeline `setSnapshot` would show for the device, from `frames` (oldest first).
    static SlotTimeline timelineOf(const std::vector<DeviceFramePtr>& frames, std::int32_t nodeId, std::int32_t index);
    // "10:02 – 10:47", with "before" and "now" for a span cut by the history's ends.
    static QString periodText(const SlotSpan& span);

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    // After every `setDevice` and `setSnapshot` (the rows, the slot count or the extent may have changed).
    void timelineChanged();

private:
    std::int32_t m_nodeId = -1;
    std::int32_t m_index = -1;
    std::int32_t m_slotCount = 0;
    std::int64_t m_firstMs = 0;
    std::int64_t m_lastMs = 0;
    std::int64_t m_untilMs = 0;
};

} // namespace tidepool::ui
