#pragma once
// Builds the snapshot's accelerator devices (`DeviceRow`: share and memory allocated, what the agent measured, which
// workloads hold how much) and keeps a bounded history of their samples as shared, immutable frames: a snapshot takes
// the frames by pointer, so publishing one copies no history. A frame is taken at most every `sampleMs` of the core's
// clock; the oldest falls off past `frames`.
//
// FPGAs' slots are numbered here, as the core only counts them: a workload that appears on an FPGA takes the lowest
// free slots (as many as its share; those that appear together in the order of their ids), keeps them while it holds
// that share, and frees them when it leaves; a share that grows takes more the same way, one that shrinks gives back
// its highest. The frames keep the slots' holders (`SlotFrame`), shared while they do not change.
//
// Thread affinity: the core's thread (it reads the control plane).

#include "ui/bridge/console_snapshot.h"

#include <deque>
#include <limits>
#include <map>

namespace tidepool::api {
class ControlPlane;
} // namespace tidepool::api

namespace tidepool::ui {

inline constexpr std::size_t kDeviceHistoryFrames = 120;

// Numbers an FPGA's slots for its holders now (see above): `numbered` holds them as last numbered (empty the first
// time) and is left `capacity` long (at most `kMaxNumberedSlots`), 0 = free. Returns the share the holders hold that
// found no slot: 0 unless their shares exceed the slots, in which case the later holders go short.
std::int32_t numberSlots(
    std::vector<std::int64_t>& numbered, std::int32_t capacity, const std::vector<DeviceHolder>& holders);

class DeviceCollector {
public:
    explicit DeviceCollector(std::size_t frames = kDeviceHistoryFrames, std::int64_t sampleMs = 60'000);

    // Sets `snapshot.devices` and `snapshot.deviceHistory`.
    void fill(const api::ControlPlane& plane, ConsoleSnapshot& snapshot);

    std::int64_t sampleMs() const { return m_sampleMs; }
    std::size_t maxFrames() const { return m_maxFrames; }

private:
    std::shared_ptr<const SlotFrame> takeSlotFrame(const std::vector<DeviceRow>& rows);

    std::size_t m_maxFrames;
    std::int64_t m_sampleMs;
    std::deque<DeviceFramePtr> m_frames;
    std::shared_ptr<const DeviceLayout> m_layout;
    std::map<std::int64_t, std::vector<std::int64_t>> m_slots; // by device key: each FPGA's slots as last numbered
    std::shared_ptr<const SlotFrame> m_lastSlots; // the newest frame's
    std::int64_t m_lastFrameMs = std::numeric_limits<std::int64_t>::min();
};

} // namespace tidepool::ui
