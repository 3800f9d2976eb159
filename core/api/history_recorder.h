#pragma once
// Utilisation history, the input of forecasting: every `interval` the recorder writes, through the control plane's
// store, one sample per series —
//   pool/<name>/cpu      CPU millis requested by the pool's pending, launching and running workloads
//   pool/<name>/memory   MiB requested, likewise
//   pool/<name>/<kind>   accelerators requested, in milli-devices (a whole device is 1000)
//   tier/<tier>/...      the same by the tier the workloads belong to (hot, warm, cold); tier/<t>/gpu always
//   pool/<name>/<resource>_placed  what the pool's placed (launching, running) workloads hold, same units
//   tier/<tier>/<resource>_placed  what the tier's nodes hold, whatever tier the work is of, same units
//   pool/<name>/cpu_used     CPU millis the pool's cgroups used, as the agents measured it (the mean of each node's
//                            samples in the interval, summed over the nodes), where agents measure pools
//   pool/<name>/memory_used  MiB charged to them, likewise
//   pool/<name>/net_used     Mbit/s they sent, likewise, over the nodes whose agents shape egress
//   node/<name>/cpu      CPU millis in use, the mean of the agent's samples in the interval
//   node/<name>/memory   MiB in use, likewise
//   node/<name>/<kind>_util  mean utilisation (0..1) of the node's accelerators of that kind
// Node samples are binned by their own timestamps, so a backlog an agent buffered while disconnected lands where
// it belongs. Every `maintenanceInterval` the store aggregates closed 5-minute buckets and applies the retention.
//
// Thread affinity: the core's io_context thread. Ownership: borrows the control plane, which must outlive it.

#include "core/api/control_plane.h"

#include <boost/asio/steady_timer.hpp>

namespace tidepool::api {

struct HistoryConfig {
    std::chrono::milliseconds interval { 60'000 };
    std::chrono::milliseconds maintenanceInterval { 5 * 60'000 };
    store::Retention retention;
};

class HistoryRecorder {
public:
    HistoryRecorder(boost::asio::io_context& io, ControlPlane& plane, HistoryConfig config, protocol::LogSink log);
    ~HistoryRecorder() { stop(); }

    void start();
    void stop();

    // One recording at `nowMs` (Unix epoch); normally run by the timer, public for tests.
    void record(std::int64_t nowMs);
    // Aggregation and retention at `nowMs`; normally run by the timer.
    void maintain(std::int64_t nowMs);

private:
    void arm();

    ControlPlane& m_plane;
    HistoryConfig m_config;
    protocol::LogSink m_log;
    boost::asio::steady_timer m_timer;
    Clock::time_point m_nextMaintenance {};
    bool m_running = false;
};

} // namespace tidepool::api
