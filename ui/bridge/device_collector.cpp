#include "ui/bridge/device_collector.h"

#include "core/api/control_plane.h"

#include <algorithm>
#include <cmath>

namespace tidepool::ui {

namespace {

bool holdsDevices(api::WorkloadPhase phase)
{
    return phase == api::WorkloadPhase::Launching || phase == api::WorkloadPhase::Running
        || phase == api::WorkloadPhase::Stopping;
}

std::uint16_t perMille(double share)
{
    if (!std::isfinite(share) || share < 0.0)
        return DeviceSampleValue::kNotMeasured;
    return static_cast<std::uint16_t>(std::lround(std::min(share, 1.0) * 1000.0));
}

double ratio(std::int64_t part, std::int64_t whole)
{
    return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

} // namespace

DeviceCollector::DeviceCollector(std::size_t frames, std::int64_t sampleMs)
    : m_maxFrames(frames)
    , m_sampleMs(sampleMs)
{
}

void DeviceCollector::fill(const api::ControlPlane& plane, ConsoleSnapshot& snapshot)
{
    const ClusterState& cluster = plane.cluster();
    const std::vector<api::LiveNode>& nodes = plane.nodes();

    // Where each device lies: node by node, in id order, which is also the order of the rows.
    auto layout = std::make_shared<DeviceLayout>();
    layout->firstOfNode.reserve(nodes.size() + 1);
    std::uint32_t count = 0;
    for (const api::LiveNode& live : nodes) {
        layout->firstOfNode.push_back(count);
        if (live.id != kNoNode)
            count += static_cast<std::uint32_t>(cluster.node(live.id).devices.size());
    }
    layout->firstOfNode.push_back(count);
    if (!m_layout || m_layout->firstOfNode != layout->firstOfNode)
        m_layout = std::move(layout);

    // Every device's row, holders filled in one pass over the workloads.
    std::vector<DeviceRow>& rows = snapshot.devices;
    rows.clear();
    rows.reserve(count);
    for (const api::LiveNode& live : nodes) {
        if (live.id == kNoNode)
            continue;
        const Node& node = cluster.node(live.id);
        for (std::size_t d = 0; d < node.devices.size(); ++d) {
            const Device& device = node.devices[d];
            DeviceRow row;
            row.nodeId = live.id;
            row.index = static_cast<std::int32_t>(d);
            row.key = DeviceRow::keyOf(row.nodeId, row.index);
            row.node = node.name;
            row.tier = std::string(toString(node.tier));
            row.nodeState = std::string(toString(live.state));
            row.kind = std::string(toString(device.kind));
            if (device.model != kNoModel && static_cast<std::size_t>(device.model) < cluster.modelCount())
                row.model = cluster.modelName(device.model);
            row.shareCapacity = device.shareCapacity;
            row.shareAllocated = device.shareCapacity - device.shareFree;
            row.memoryMiB = device.memoryMiB;
            row.memoryAllocatedMiB = device.memoryMiB - device.memoryFreeMiB;
            for (const protocol::DeviceSample& sample : live.devices)
                if (sample.index == row.index) {
                    row.utilisation = std::clamp(sample.utilisation, 0.0, 1.0);
                    row.memoryUsedMiB = sample.memoryUsedMiB;
                }
            rows.push_back(std::move(row));
        }
    }
    for (const auto& [id, w] : plane.workloads()) {
        if (!holdsDevices(w.phase) || w.node == kNoNode || w.devices.empty())
            continue;
        for (const DeviceShare& share : w.devices) {
            const std::int64_t at = m_layout->position(w.node, share.device);
            if (at < 0 || static_cast<std::size_t>(at) >= rows.size())
                continue;
            rows[static_cast<std::size_t>(at)].holders.push_back(
                DeviceHolder { id, w.workload.name, w.poolName, share.share, share.memoryMiB });
        }
    }
    for (DeviceRow& row : rows)
        std::stable_sort(row.holders.begin(), row.holders.end(),
            [](const DeviceHolder& a, const DeviceHolder& b) { return a.share > b.share; });

    // A frame of the history, at most every `m_sampleMs` of the core's clock.
    const std::int64_t now = snapshot.nowMs;
    if (m_maxFrames > 0 && (m_frames.empty() || now - m_lastFrameMs >= m_sampleMs || now < m_lastFrameMs)) {
        auto frame = std::make_shared<DeviceFrame>();
        frame->atMs = now;
        frame->layout = m_layout;
        frame->values.reserve(rows.size());
        for (const DeviceRow& row : rows) {
            DeviceSampleValue v;
            v.utilisation = row.utilisation < 0.0 ? DeviceSampleValue::kNotMeasured : perMille(row.utilisation);
            v.allocated = perMille(ratio(row.shareAllocated, row.shareCapacity));
            v.memoryUsed = row.memoryUsedMiB < 0 ? DeviceSampleValue::kNotMeasured
                                                 : perMille(ratio(row.memoryUsedMiB, row.memoryMiB));
            v.memoryAllocated = perMille(ratio(row.memoryAllocatedMiB, row.memoryMiB));
            frame->values.push_back(v);
        }
        m_frames.push_back(std::move(frame));
        while (m_frames.size() > m_maxFrames)
            m_frames.pop_front();
        m_lastFrameMs = now;
    }
    snapshot.deviceHistory.assign(m_frames.begin(), m_frames.end());
}

} // namespace tidepool::ui
