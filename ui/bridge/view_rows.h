#pragma once
// The parts of a `ConsoleSnapshot` behind the Accelerators, Forecasts and Events views: every accelerator device with
// the workloads holding shares of it, a bounded history of their samples, each pool's and tier's history with its
// latest forecast, and the cluster's recent events. Plain C++ with the core's own names, built on the core's thread
// (`view_collector.h`); what does not change between snapshots is shared between them, not copied.
//
// Thread affinity: none once built; shared read-only between threads.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tidepool::ui {

// A workload holding part of a device.
struct DeviceHolder {
    std::int64_t workload = 0;
    std::string name;
    std::string pool;
    std::int32_t share = 0; // of the device's `shareCapacity`
    std::int64_t memoryMiB = 0;
    bool operator==(const DeviceHolder&) const = default;
};

struct DeviceRow {
    std::int64_t key = 0; // node id × 65536 + index: rows are sorted by it
    std::int32_t nodeId = -1;
    std::int32_t index = 0; // on its node
    std::string node;
    std::string tier;
    std::string nodeState;
    std::string kind; // gpu, npu, fpga
    std::string model;
    std::int32_t shareCapacity = 0; // milli-GPUs, NPU cores, FPGA slots
    std::int32_t shareAllocated = 0; // requested by its holders
    std::int64_t memoryMiB = 0;
    std::int64_t memoryAllocatedMiB = 0;
    double utilisation = -1.0; // measured by its agent, 0..1; -1: not measured
    std::int64_t memoryUsedMiB = -1; // measured; -1: not measured
    std::vector<DeviceHolder> holders; // largest share first
    // FPGAs only (empty for other kinds): the workload in each time-slice slot, `shareCapacity` long, 0 = free. The
    // core counts an FPGA's free slots without naming them; `DeviceCollector` numbers them so that a slot timeline does
    // not jump: a holder takes the lowest free slots when it appears and keeps them until it leaves.
    std::vector<std::int64_t> slotHolders;
    // Slots the holders hold that `slotHolders` could not number (their shares past the device's slots, or past
    // `kMaxNumberedSlots`): 0 unless the books disagree.
    std::int32_t slotsUnnumbered = 0;
    bool operator==(const DeviceRow&) const = default;

    static std::int64_t keyOf(std::int32_t nodeId, std::int32_t index)
    {
        return static_cast<std::int64_t>(nodeId) * 65536 + index;
    }
};

// One sample of every device at one time. Values are per mille (0..1000) so that a long history of a large fleet stays
// small; `kNotMeasured` where the agent sent nothing.
struct DeviceSampleValue {
    static constexpr std::uint16_t kNotMeasured = 0xFFFF;
    std::uint16_t utilisation = kNotMeasured; // measured busy share
    std::uint16_t allocated = 0; // share requested by the holders
    std::uint16_t memoryUsed = kNotMeasured; // measured, of the device's memory
    std::uint16_t memoryAllocated = 0; // held by the holders, of the device's memory
};

// An FPGA's slots numbered beyond this many are not tracked (no FPGA has that many; an agent that says so is wrong).
inline constexpr std::int32_t kMaxNumberedSlots = 256;

// Where one FPGA's slots lie in a frame's `SlotFrame::holders`.
struct SlotRange {
    std::uint32_t position = 0; // the device's, in `DeviceFrame::values`
    std::uint32_t first = 0; // its slot 0
    std::uint32_t count = 0; // its slots numbered: `shareCapacity`, at most `kMaxNumberedSlots`
    bool operator==(const SlotRange&) const = default;
};

// Where each device's value lies in a frame; shared by the frames until the fleet's devices change.
struct DeviceLayout {
    std::vector<std::uint32_t> firstOfNode; // by node id, then one past the last device: node n has devices
                                            // [firstOfNode[n], firstOfNode[n + 1])
    std::vector<SlotRange> slotRanges; // the FPGAs, by position; empty in a fleet without
    // The position of (node, index) in a frame's `values`, or -1 when that frame did not know the device.
    std::int64_t position(std::int32_t nodeId, std::int32_t index) const
    {
        if (nodeId < 0 || index < 0 || static_cast<std::size_t>(nodeId) + 1 >= firstOfNode.size())
            return -1;
        const std::uint32_t first = firstOfNode[static_cast<std::size_t>(nodeId)];
        const std::uint32_t end = firstOfNode[static_cast<std::size_t>(nodeId) + 1];
        return first + static_cast<std::uint32_t>(index) < end ? static_cast<std::int64_t>(first) + index : -1;
    }
    // The slots of the FPGA (node, index), or null when it is not an FPGA of this layout.
    const SlotRange* slotRange(std::int32_t nodeId, std::int32_t index) const
    {
        const std::int64_t at = position(nodeId, index);
        const auto it = std::lower_bound(slotRanges.begin(), slotRanges.end(), at,
            [](const SlotRange& r, std::int64_t p) { return static_cast<std::int64_t>(r.position) < p; });
        return at >= 0 && it != slotRanges.end() && static_cast<std::int64_t>(it->position) == at ? &*it : nullptr;
    }
};

// A workload in a slot, with what a timeline labels it with.
struct SlotHolder {
    std::int64_t workload = 0;
    std::string name;
    std::string pool;
    bool operator==(const SlotHolder&) const = default;
};

// Every FPGA's slots at one time; consecutive frames share one while no slot changes hands.
struct SlotFrame {
    std::vector<std::int64_t> holders; // the workload in each slot, 0 = free, the `slotRanges` one after another
    std::vector<SlotHolder> workloads; // those in `holders`, by id
    bool operator==(const SlotFrame&) const = default;
};

struct DeviceFrame {
    std::int64_t atMs = 0;
    std::shared_ptr<const DeviceLayout> layout;
    std::vector<DeviceSampleValue> values;
    std::shared_ptr<const SlotFrame> slotFrame; // null when the layout has no FPGA
};
using DeviceFramePtr = std::shared_ptr<const DeviceFrame>;

// A history series (`scope` "pool" or "tier", its name, the resource: "cpu", "memory", "gpu"...) on the 5-minute grid,
// with the latest forecast the rebalancer stored for it and how well that model backtests on it.
struct ForecastPoint {
    std::int64_t atMs = 0;
    double mean = 0.0;
    double p10 = 0.0;
    double p90 = 0.0;
};

struct HistoryValue {
    std::int64_t atMs = 0;
    double value = 0.0; // the bucket's mean
    bool operator==(const HistoryValue&) const = default;
};

struct BacktestError {
    bool done = false; // false: not run yet (too little history, or running)
    std::string failure; // why it could not be run; empty when it ran
    std::int64_t horizonSteps = 0;
    double smapePct = 0.0;
    double mase = 0.0; // NaN when the naive scale is 0
    double coveragePct = 0.0; // of the actual values inside [p10, p90]; 80 is nominal
    std::size_t scoredPoints = 0;
};

struct ForecastSeries {
    std::string scope;
    std::string name;
    std::string resource;
    std::vector<HistoryValue> history; // oldest first
    std::string model; // empty: no forecast stored
    std::int64_t madeMs = 0;
    std::vector<ForecastPoint> forecast; // the steps after `madeMs`
    BacktestError backtest;

    std::string key() const { return scope + '/' + name + '/' + resource; }
};
using ForecastSeriesPtr = std::shared_ptr<const ForecastSeries>;

// One thing that happened. `category` groups them for the kind filter: placement, migration, requeue, start, stop,
// finish, node, approval, audit, proposal.
struct EventRow {
    std::uint64_t sequence = 0; // rows are sorted by it; each is immutable once made
    std::int64_t atMs = 0;
    std::string category;
    std::string subject; // a workload's or node's name, "proposal/12"
    std::string from; // phase, node state, proposal state before
    std::string to; // after (or the audit outcome)
    std::string node;
    std::string actor;
    std::string detail; // in English
    std::string detailWhy; // a new proposal's reason as clauses (JSON, as `ProposalRow::why`); "" otherwise
};
using EventRowPtr = std::shared_ptr<const EventRow>;

} // namespace tidepool::ui

namespace tidepool::ui {

// True when some series has a forecast whose backtest has run: what `--screenshots` waits for, so that the Forecasts
// view shows one.
inline bool hasBacktestedForecast(const std::vector<ForecastSeriesPtr>& forecasts)
{
    for (const ForecastSeriesPtr& s : forecasts)
        if (s && !s->model.empty() && s->backtest.done)
            return true;
    return false;
}

} // namespace tidepool::ui
