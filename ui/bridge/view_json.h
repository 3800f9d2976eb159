#pragma once
// The JSON of the console's view rows (`view_rows.h`, `AlertRow`), as tidepoold serves them to consoles attached with
// `--connect` (`console_feed.h`: `GET /v1/devices`, `/v1/events`, `/v1/forecasts`, `/v1/alerts`) and as the remote
// backend reads them back (`remote_backend.h`), so that the Accelerators, Forecasts and Events views and the Overview's
// host alerts show over the API what an embedded console shows.
//
// Shapes (field names as in the structs):
// - a device: {"key", "nodeId", "index", "node", "tier", "nodeState", "kind", "model", "shareCapacity",
//   "shareAllocated", "memoryMiB", "memoryAllocatedMiB", "utilisation" (null: not measured), "memoryUsedMiB" (null: not
//   measured), "holders": [{"workload", "name", "pool", "share", "memoryMiB"}], "slotHolders": [workload id per FPGA
//   slot, 0 = free], "slotsUnnumbered"};
// - device history: {"layouts": [{"firstOfNode": [...], "slotRanges": [[position, first, count]...]}],
//   "frames": [{"atMs", "layout" (its index in "layouts"), "values": [utilisation, allocated, memoryUsed,
//   memoryAllocated, ... four per device, per mille, 65535 = not measured], "slots": null (no FPGA) or {"holders":
//   [workload id per slot of every FPGA], "workloads": [{"workload", "name", "pool"}]}}]}: a layout is sent once
//   however many frames share it;
// - an event: {"sequence", "atMs", "category", "subject", "from", "to", "node", "actor", "detail"};
// - a forecast series: {"scope", "name", "resource", "history": [[atMs, value]], "model", "madeMs",
//   "forecast": [[atMs, mean, p10, p90]], "backtest": {"done", "failure", "horizonSteps", "smapePct", "mase",
//   "coveragePct", "scoredPoints"}}; a value that is not a number (a gap, a MASE without scale) is null;
// - an alert: {"kind", "subject", "detail", "value", "total"}.
//
// The readers check every field and fail naming the first one that is missing or of the wrong type, and where it is
// ("devices[3].holders[0].share"), as a daemon of another version or a damaged answer would have it.
//
// Thread affinity: none (pure functions).

#include "core/model/types.h"
#include "ui/bridge/console_snapshot.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

namespace tidepool::ui {

nlohmann::json toJson(const DeviceRow& row);
nlohmann::json toJson(const EventRow& row);
nlohmann::json toJson(const ForecastSeries& series);
nlohmann::json toJson(const AlertRow& row);
// A device's usage as `GET /v1/devices?changedSince=` sends it: [key, utilisation, memoryUsedMiB], each null where
// not measured.
struct DeviceUsage {
    std::int64_t key = 0;
    double utilisation = -1.0; // as `DeviceRow`: -1 not measured
    std::int64_t memoryUsedMiB = -1;
};
nlohmann::json toJson(const DeviceUsage& usage);
// Frames with the layouts they use, each layout once.
nlohmann::json deviceHistoryToJson(const std::vector<DeviceFramePtr>& frames);

// `where` prefixes the field names in errors ("devices[3]").
Expected<DeviceRow> deviceFromJson(const nlohmann::json& j, const std::string& where);
Expected<EventRow> eventFromJson(const nlohmann::json& j, const std::string& where);
Expected<ForecastSeries> forecastFromJson(const nlohmann::json& j, const std::string& where);
Expected<AlertRow> alertFromJson(const nlohmann::json& j, const std::string& where);
Expected<DeviceUsage> deviceUsageFromJson(const nlohmann::json& j, const std::string& where);
// A frame whose layout equals `previous` shares it, so that frames read at different times share one layout as the
// collector's do. Fails when a frame names a layout that is not there or has fewer values than its layout's devices.
Expected<std::vector<DeviceFramePtr>> deviceHistoryFromJson(
    const nlohmann::json& j, std::shared_ptr<const DeviceLayout> previous = nullptr);

} // namespace tidepool::ui
