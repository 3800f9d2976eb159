#include "core/sched/filters.h"

#include <cmath>

namespace tidepool::filters {

RejectReason tier(Tier nodeTier, bool peakReserved, const Workload& w, Tier poolTier)
{
    if (nodeTier == Tier::Invalid)
        return RejectReason::None;
    if (poolTier != Tier::Invalid)
        return nodeTier == poolTier && (w.pinnedTier == Tier::Invalid || w.pinnedTier == poolTier)
            ? RejectReason::None
            : RejectReason::TierNotAllowed;
    if (w.pinnedTier != Tier::Invalid)
        return nodeTier == w.pinnedTier ? RejectReason::None : RejectReason::TierNotAllowed;
    switch (homeTier(w.latency)) {
    case Tier::Hot:
        return nodeTier == Tier::Hot || nodeTier == Tier::Warm ? RejectReason::None : RejectReason::TierNotAllowed;
    case Tier::Warm: return nodeTier == Tier::Warm ? RejectReason::None : RejectReason::TierNotAllowed;
    case Tier::Cold:
        if (nodeTier == Tier::Hot && peakReserved)
            return RejectReason::PeakReserved;
        return RejectReason::None;
    case Tier::Invalid: break;
    }
    return RejectReason::TierNotAllowed;
}

TierMask allowedTiers(const Workload& w, Tier poolTier)
{
    if (poolTier != Tier::Invalid)
        return w.pinnedTier == Tier::Invalid || w.pinnedTier == poolTier ? tierBit(poolTier) : TierMask { 0 };
    if (w.pinnedTier != Tier::Invalid)
        return tierBit(w.pinnedTier);
    switch (homeTier(w.latency)) {
    case Tier::Hot: return tierBit(Tier::Hot) | tierBit(Tier::Warm);
    case Tier::Warm: return tierBit(Tier::Warm);
    case Tier::Cold: return kAllTiers;
    case Tier::Invalid: break;
    }
    return 0;
}

RejectReason isa(Isa nodeIsa, const Workload& w, const SlowdownTable& slowdowns, bool& translated)
{
    translated = false;
    if (w.runsNatively(nodeIsa))
        return RejectReason::None;
    if (!w.allowTranslation || !std::isfinite(slowdowns.bestFactor(w.nativeIsas, nodeIsa)))
        return RejectReason::WrongIsa;
    translated = true;
    return RejectReason::None;
}

RejectReason accelerator(const Node& node, const Workload& w)
{
    const AcceleratorRequest& a = w.accelerators;
    if (!a.any())
        return RejectReason::None;
    bool kindSeen = false;
    bool modelSeen = false;
    std::int32_t idle = 0;
    std::int32_t idleShortOfMemory = 0; // whole devices free but for their memory
    bool shareShortOfMemory = false; // a device with the share free, but not the memory
    // A node's devices are almost always of one model: ask the request about each model once, not per device.
    ModelId askedModel = kNoModel;
    bool allowed = false;
    for (const Device& d : node.devices) {
        if (d.kind != a.kind)
            continue;
        if (!kindSeen || d.model != askedModel) {
            askedModel = d.model;
            allowed = a.allows(d.model);
        }
        kindSeen = true;
        if (!allowed)
            continue;
        modelSeen = true;
        const bool memory = d.memoryFreeMiB >= a.memoryMiBPerDevice;
        if (a.wholeDevices()) {
            if (d.idle() && memory && ++idle >= a.count)
                return RejectReason::None;
            idleShortOfMemory += d.idle() && !memory;
        } else if (d.shareFree >= a.sharePerDevice) {
            if (memory)
                return RejectReason::None;
            shareShortOfMemory = true;
        }
    }
    if (!kindSeen)
        return RejectReason::NoAccelerator;
    if (!modelSeen)
        return RejectReason::WrongAcceleratorModel;
    // The share is there, its devices' memory is not: say so, rather than blame the share.
    if (shareShortOfMemory || (idleShortOfMemory > 0 && idle + idleShortOfMemory >= a.count))
        return RejectReason::InsufficientAcceleratorMemory;
    // Whole devices are whole: a device shared in part does not count, however much of it is free.
    return a.wholeDevices() ? RejectReason::NotEnoughIdleAccelerators : RejectReason::InsufficientAcceleratorShare;
}

std::int64_t acceleratorShare(const Node& node, const Workload& w)
{
    const AcceleratorRequest& a = w.accelerators;
    if (!a.any())
        return 0;
    for (const Device& d : node.devices)
        if (d.kind == a.kind)
            return std::int64_t { a.shareOn(d.shareCapacity) } * a.count;
    return std::int64_t { a.shareOn(0) } * a.count;
}

} // namespace tidepool::filters
