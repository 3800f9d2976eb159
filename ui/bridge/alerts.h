#pragma once
// What the Overview warns an operator of: nodes lost or late, a store that cannot be written, a disk that fills up,
// certificates that expire. `addRowAlerts` reads only the snapshot's own rows (so a console attached over the API gets
// them too); `hostAlerts` looks at the machine the core runs on (its store's disk, its certificate files): a console
// that embeds the core does so itself, and tidepoold does it for consoles attached with --connect (`GET /v1/alerts`,
// `console_feed.h`). Plain C++, no Qt.
//
// Thread affinity: the core's thread, while it builds a snapshot (it reads files and the file system).

#include "ui/bridge/console_snapshot.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace tidepool::api {
struct DaemonConfig;
} // namespace tidepool::api

namespace tidepool::ui {

struct HostAlertSources {
    std::string storeDirectory; // where the database lives; empty: none (no disk alert)
    std::vector<std::string> certificates; // PEM files whose expiry to watch (the agent link's, the API's)
    std::uint64_t diskLowBytes = 1ull << 30; // low when less than this is free…
    double diskLowShare = 0.05; // …or less than this share of the file system
    std::chrono::hours certificateWarning { 24 * 30 }; // warn this long before a certificate expires
};

// What a core configured so has to watch: the disk of its database, its agent link's and API's certificates.
HostAlertSources hostAlertSources(const api::DaemonConfig& config);

// Nodes lost and suspect, and a store that cannot be written.
void addRowAlerts(ConsoleSnapshot& snapshot);
// The store's disk and the certificates, as of `nowMs` (the core's clock).
std::vector<AlertRow> hostAlerts(const HostAlertSources& sources, std::int64_t nowMs);
// `hostAlerts` as of the snapshot's clock, put in their place among the snapshot's alerts.
void addHostAlerts(ConsoleSnapshot& snapshot, const HostAlertSources& sources);
// Puts `host` (disk and certificate alerts, made here or by tidepoold) after the store's and before the nodes' alerts.
void insertHostAlerts(ConsoleSnapshot& snapshot, std::vector<AlertRow> host);

// One check each: nullopt when all is well.
std::optional<AlertRow> diskAlert(const std::string& directory, std::uint64_t lowBytes, double lowShare);
std::optional<AlertRow> certificateAlert(const std::string& pemFile, std::int64_t nowMs, std::chrono::hours warning);

} // namespace tidepool::ui
