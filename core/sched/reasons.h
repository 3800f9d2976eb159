#pragma once
// Why a node was rejected for a workload. "Why pending" reports count rejections per reason over every node
// considered, so the counts always sum to the nodes considered.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/model/types.h"

namespace tidepool {

enum class RejectReason : std::uint8_t {
    None = 0,
    Unschedulable, // cordoned, lost or powered down
    NotInPool, // node does not carry the workload's pool
    TierNotAllowed, // tier and spill rules forbid this node's tier
    PeakReserved, // hot capacity the forecast reserves for the next peak (batch only)
    WrongIsa, // not a native ISA and translation not allowed or not available
    NoAccelerator, // node has no device of the requested kind
    WrongAcceleratorModel,
    InsufficientAcceleratorShare,
    InsufficientAcceleratorMemory, // the share is free, the device memory the workload asks for is not
    NotEnoughIdleAccelerators, // whole devices asked for, and fewer are idle (used by no one, not even in part)
    InsufficientCpu,
    InsufficientMemory,
    InsufficientMemBandwidth,
    InsufficientNetBandwidth,
    PoolQuotaExhausted,
    PolicyRejected, // a policy plugin's own filter said no
    IdHeldThere, // another workload runs under its id there (Scheduler::keepOff)
    Count
};
inline constexpr std::size_t kRejectReasonCount = static_cast<std::size_t>(RejectReason::Count);

std::string_view toString(RejectReason reason);

// The outcome of filtering: per-reason rejection counts and how many nodes were feasible.
struct FilterReport {
    std::array<std::int32_t, kRejectReasonCount> rejected {};
    std::int32_t nodesConsidered = 0;
    std::int32_t feasible = 0;

    void reject(RejectReason reason, std::int32_t count = 1)
    {
        rejected[static_cast<std::size_t>(reason)] += count;
        nodesConsidered += count;
    }
    void accept(std::int32_t count = 1)
    {
        feasible += count;
        nodesConsidered += count;
    }
    // Adds every count of `other`.
    void add(const FilterReport& other)
    {
        for (std::size_t i = 0; i < rejected.size(); ++i)
            rejected[i] += other.rejected[i];
        nodesConsidered += other.nodesConsidered;
        feasible += other.feasible;
    }
    // The reason that rejected the most nodes (`None` when nothing was rejected).
    RejectReason mainReason() const;
    // "0/1213 nodes feasible: 900 insufficient GPU share, 313 insufficient CPU".
    std::string summary() const;
};

} // namespace tidepool
