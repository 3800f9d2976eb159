#include "core/sched/reasons.h"

#include <algorithm>
#include <vector>

namespace tidepool {

std::string_view toString(RejectReason reason)
{
    switch (reason) {
    case RejectReason::None: return "none";
    case RejectReason::Unschedulable: return "node unschedulable";
    case RejectReason::NotInPool: return "not in the workload's pool";
    case RejectReason::TierNotAllowed: return "tier not allowed";
    case RejectReason::PeakReserved: return "reserved for forecast peak";
    case RejectReason::WrongIsa: return "wrong ISA and no translation";
    case RejectReason::NoAccelerator: return "no accelerator of the requested kind";
    case RejectReason::WrongAcceleratorModel: return "wrong accelerator model";
    case RejectReason::InsufficientAcceleratorShare: return "insufficient accelerator share";
    case RejectReason::InsufficientAcceleratorMemory: return "insufficient accelerator memory";
    case RejectReason::NotEnoughIdleAccelerators: return "not enough idle whole accelerators";
    case RejectReason::InsufficientCpu: return "insufficient CPU";
    case RejectReason::InsufficientMemory: return "insufficient memory";
    case RejectReason::InsufficientMemBandwidth: return "insufficient memory bandwidth";
    case RejectReason::InsufficientNetBandwidth: return "insufficient network bandwidth";
    case RejectReason::PoolQuotaExhausted: return "pool quota exhausted";
    case RejectReason::PolicyRejected: return "rejected by policy";
    case RejectReason::IdHeldThere: return "its id held there by another workload";
    case RejectReason::Count: break;
    }
    return "unknown";
}

RejectReason FilterReport::mainReason() const
{
    std::size_t best = 0;
    for (std::size_t i = 1; i < kRejectReasonCount; ++i)
        if (rejected[i] > rejected[best])
            best = i;
    return rejected[best] > 0 ? static_cast<RejectReason>(best) : RejectReason::None;
}

std::string FilterReport::summary() const
{
    std::vector<std::size_t> order;
    for (std::size_t i = 1; i < kRejectReasonCount; ++i)
        if (rejected[i] > 0)
            order.push_back(i);
    std::stable_sort(
        order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rejected[a] > rejected[b]; });
    std::string text = std::to_string(feasible) + "/" + std::to_string(nodesConsidered) + " nodes feasible";
    const char* sep = ": ";
    for (std::size_t i : order) {
        text += sep;
        text += std::to_string(rejected[i]);
        text += ' ';
        text += toString(static_cast<RejectReason>(i));
        sep = ", ";
    }
    return text;
}

} // namespace tidepool
