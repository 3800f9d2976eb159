#pragma once
// How an operator's drain empties a node (`ControlPlane::drain`, `POST /v1/nodes/{name}/drain`, `tidepoolctl nodes
// drain`), apart from the control plane so that tidepoolctl checks the same limits without the core's headers.

#include <cstdint>

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

} // namespace tidepool::api
