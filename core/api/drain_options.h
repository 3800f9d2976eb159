#pragma once
// How an operator's drain empties a node (`ControlPlane::drain`, `POST /v1/nodes/{name}/drain`, `tidepoolctl nodes
// drain`), apart from the control plane so that tidepoolctl checks the same limits without the core's headers.

#include "core/model/pool.h"

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tidepool::api {

// How a drain empties its node (`ControlPlane::drain`), as Nomad's `migrate { max_parallel }` and `node drain
// -deadline`: all at once, or a few at a time.
struct DrainOptions {
    // At most this many of the node's workloads moving at once: a moved one counts until it runs on its new node (or
    // ends), and the next waits, still running where it is, until then. 0: every one moves at once.
    std::int32_t maxParallel = 0;
    // With `maxParallel`: how long the drain may take, from its start (ms; 0: no limit). Once it has passed, what is
    // left moves at once, and what no other node takes is stopped and queued again (pending) so that the node is empty.
    std::int64_t deadlineMs = 0;
};
inline constexpr std::int32_t kMaxDrainParallel = 10'000;
inline constexpr std::int64_t kMaxDrainDeadlineMs = 366LL * 24 * 3600 * 1000;
// The largest disruption budget a pool may have (`PoolRequest::maxDisrupted`): drains also wait for those.
inline constexpr std::int64_t kMaxDisruptionBudget = 1'000'000;

// A pool's disruption budget (`PoolRequest::maxDisrupted`), as a Kubernetes PodDisruptionBudget's maxUnavailable: how
// many of its workloads drains and approved migrations may have on their way at once, as a number of workloads or as
// a percentage of the pool's workloads (those placed, and those moved that wait for a node), rounded up as Kubernetes
// rounds it: 10% of 4 workloads lets 1 move, 0% none.
struct DisruptionBudget {
    std::int64_t count = kUnlimited; // 0..kMaxDisruptionBudget; kUnlimited: no budget unless `percent` says one
    std::int32_t percent = -1; // 0..100; -1: `count` says it

    static DisruptionBudget workloads(std::int64_t n) { return { n, -1 }; }
    static DisruptionBudget share(std::int32_t percent) { return { kUnlimited, percent }; }
    bool isNone() const { return percent < 0 && count >= kUnlimited; }
    // How many of a pool's `workloads` may be moving at once; kUnlimited without a budget.
    std::int64_t allowed(std::int64_t workloads) const
    {
        return percent < 0 ? count : (workloads * percent + 99) / 100;
    }
    bool operator==(const DisruptionBudget&) const = default;
};

// "3", "25%", or "none".
inline std::string toString(const DisruptionBudget& budget)
{
    if (budget.percent >= 0)
        return std::to_string(budget.percent) + "%";
    return budget.isNone() ? std::string("none") : std::to_string(budget.count);
}

// "N" (0..kMaxDisruptionBudget) or "N%" (0..100), digits only; nullopt for anything else (the caller names the field).
inline std::optional<DisruptionBudget> parseDisruptionBudget(std::string_view text)
{
    const bool percent = !text.empty() && text.back() == '%';
    if (percent)
        text.remove_suffix(1);
    if (text.empty() || text.size() > 7 || text.find_first_not_of("0123456789") != std::string_view::npos)
        return std::nullopt;
    std::int64_t n = 0;
    std::from_chars(text.data(), text.data() + text.size(), n);
    if (percent)
        return n <= 100 ? std::optional(DisruptionBudget::share(static_cast<std::int32_t>(n))) : std::nullopt;
    return n <= kMaxDisruptionBudget ? std::optional(DisruptionBudget::workloads(n)) : std::nullopt;
}

} // namespace tidepool::api
