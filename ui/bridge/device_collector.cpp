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

std::int32_t numberSlots(
    std::vector<std::int64_t>& numbered, std::int32_t capacity, const std::vector<DeviceHolder>& holders)
{
    const auto size = static_cast<std::size_t>(std::clamp(capacity, 0, kMaxNumberedSlots));
    numbered.resize(size, 0); // a device that shrank drops its last slots: their holders are numbered again below
    // What each workload holds, by id (one share per device; summed should a workload come twice).
    std::vector<std::pair<std::int64_t, std::int64_t>> wanted;
    wanted.reserve(holders.size());
    for (const DeviceHolder& h : holders)
        if (h.workload != 0 && h.share > 0)
            wanted.emplace_back(h.workload, h.share);
    std::sort(wanted.begin(), wanted.end());
    std::vector<std::pair<std::int64_t, std::int64_t>> merged;
    for (const auto& [id, share] : wanted)
        if (!merged.empty() && merged.back().first == id)
            merged.back().second += share;
        else
            merged.emplace_back(id, share);
    const auto holderOf = [&merged](std::int64_t id) -> std::ptrdiff_t {
        const auto it = std::lower_bound(merged.begin(), merged.end(), std::pair<std::int64_t, std::int64_t> { id, 0 });
        return it != merged.end() && it->first == id ? it - merged.begin() : -1;
    };
    // Give back the slots of workloads that left, and those of a holder past its share (its highest).
    std::vector<std::int64_t> kept(merged.size(), 0);
    for (std::int64_t& slot : numbered) {
        if (slot == 0)
            continue;
        const std::ptrdiff_t h = holderOf(slot);
        if (h < 0 || kept[static_cast<std::size_t>(h)] >= merged[static_cast<std::size_t>(h)].second)
            slot = 0;
        else
            ++kept[static_cast<std::size_t>(h)];
    }
    // Holders short of their share, in the order of their ids, take the lowest free slots.
    std::int64_t unnumbered = 0;
    std::size_t next = 0;
    for (std::size_t h = 0; h < merged.size(); ++h) {
        std::int64_t need = merged[h].second - kept[h];
        for (; need > 0 && next < numbered.size(); ++next)
            if (numbered[next] == 0) {
                numbered[next] = merged[h].first;
                --need;
            }
        unnumbered += need;
    }
    return static_cast<std::int32_t>(std::min<std::int64_t>(unnumbered, std::numeric_limits<std::int32_t>::max()));
}

// The FPGAs' slots for a frame: the previous frame's when nothing changed hands.
std::shared_ptr<const SlotFrame> DeviceCollector::takeSlotFrame(const std::vector<DeviceRow>& rows)
{
    auto frame = std::make_shared<SlotFrame>();
    for (const SlotRange& range : m_layout->slotRanges) {
        const std::size_t first = frame->holders.size();
        frame->holders.resize(first + range.count, 0);
        if (range.position >= rows.size())
            continue;
        const DeviceRow& row = rows[range.position];
        std::copy_n(row.slotHolders.begin(), std::min<std::size_t>(range.count, row.slotHolders.size()),
            frame->holders.begin() + static_cast<std::ptrdiff_t>(first));
        for (const DeviceHolder& h : row.holders)
            if (std::find(row.slotHolders.begin(), row.slotHolders.end(), h.workload) != row.slotHolders.end())
                frame->workloads.push_back(SlotHolder { h.workload, h.name, h.pool });
    }
    std::sort(frame->workloads.begin(), frame->workloads.end(),
        [](const SlotHolder& a, const SlotHolder& b) { return a.workload < b.workload; });
    frame->workloads.erase(std::unique(frame->workloads.begin(), frame->workloads.end(),
                               [](const SlotHolder& a, const SlotHolder& b) { return a.workload == b.workload; }),
        frame->workloads.end());
    if (!m_lastSlots || !(*m_lastSlots == *frame))
        m_lastSlots = std::move(frame);
    return m_lastSlots;
}

DeviceCollector::DeviceCollector(std::size_t frames, std::int64_t sampleMs)
    : m_maxFrames(frames)
    , m_sampleMs(sampleMs)
{
}

void DeviceCollector::fill(const api::ControlPlane& plane, ConsoleSnapshot& snapshot)
{
    const ClusterState& cluster = plane.cluster();
    const std::vector<api::LiveNode>& nodes = plane.nodes();

    // Where each device lies: node by node, in id order, which is also the order of the rows; and where each FPGA's
    // slots lie.
    auto layout = std::make_shared<DeviceLayout>();
    layout->firstOfNode.reserve(nodes.size() + 1);
    std::uint32_t count = 0;
    std::uint32_t slotCount = 0;
    for (const api::LiveNode& live : nodes) {
        layout->firstOfNode.push_back(count);
        if (live.id == kNoNode)
            continue;
        const std::vector<Device>& devices = cluster.node(live.id).devices;
        for (std::size_t d = 0; d < devices.size(); ++d)
            if (devices[d].kind == AcceleratorKind::Fpga) {
                const auto rangeSlots
                    = static_cast<std::uint32_t>(std::clamp(devices[d].shareCapacity, 0, kMaxNumberedSlots));
                layout->slotRanges.push_back(
                    SlotRange { count + static_cast<std::uint32_t>(d), slotCount, rangeSlots });
                slotCount += rangeSlots;
            }
        count += static_cast<std::uint32_t>(devices.size());
    }
    layout->firstOfNode.push_back(count);
    if (!m_layout || m_layout->firstOfNode != layout->firstOfNode || m_layout->slotRanges != layout->slotRanges)
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
    // The FPGAs' slots, numbered on from the last snapshot's; devices that left are forgotten.
    std::map<std::int64_t, std::vector<std::int64_t>> numbering;
    for (const SlotRange& range : m_layout->slotRanges) {
        if (range.position >= rows.size())
            continue;
        DeviceRow& row = rows[range.position];
        std::vector<std::int64_t>& numbered = numbering[row.key];
        if (const auto it = m_slots.find(row.key); it != m_slots.end())
            numbered = std::move(it->second);
        row.slotsUnnumbered = numberSlots(numbered, row.shareCapacity, row.holders);
        row.slotHolders = numbered;
    }
    m_slots = std::move(numbering);

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
        if (!m_layout->slotRanges.empty())
            frame->slotFrame = takeSlotFrame(rows);
        m_frames.push_back(std::move(frame));
        while (m_frames.size() > m_maxFrames)
            m_frames.pop_front();
        m_lastFrameMs = now;
    }
    snapshot.deviceHistory.assign(m_frames.begin(), m_frames.end());
}

} // namespace tidepool::ui
