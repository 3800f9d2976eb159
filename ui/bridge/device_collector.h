#pragma once
// Builds the snapshot's accelerator devices (`DeviceRow`: share and memory allocated, what the agent measured, which
// workloads hold how much) and keeps a bounded history of their samples as shared, immutable frames: a snapshot takes
// the frames by pointer, so publishing one copies no history. A frame is taken at most every `sampleMs` of the core's
// clock; the oldest falls off past `frames`.
//
// Thread affinity: the core's thread (it reads the control plane).

#include "ui/bridge/console_snapshot.h"

#include <deque>
#include <limits>

namespace tidepool::api {
class ControlPlane;
} // namespace tidepool::api

namespace tidepool::ui {

inline constexpr std::size_t kDeviceHistoryFrames = 120;

class DeviceCollector {
public:
    explicit DeviceCollector(std::size_t frames = kDeviceHistoryFrames, std::int64_t sampleMs = 60'000);

    // Sets `snapshot.devices` and `snapshot.deviceHistory`.
    void fill(const api::ControlPlane& plane, ConsoleSnapshot& snapshot);

private:
    std::size_t m_maxFrames;
    std::int64_t m_sampleMs;
    std::deque<DeviceFramePtr> m_frames;
    std::shared_ptr<const DeviceLayout> m_layout;
    std::int64_t m_lastFrameMs = std::numeric_limits<std::int64_t>::min();
};

} // namespace tidepool::ui
