#pragma once
// Display text for the names the Accelerators, Forecasts and Events views show (event categories, history resources
// and scopes, device share units), translated; unknown names are shown as they are.
//
// Thread affinity: GUI thread (translators).

#include <QString>

#include <cstdint>
#include <string>

namespace tidepool::ui {

// "placement", "migration", "requeue", "stop", "finish", "node", "cordon", "approval", "proposal", "audit".
QString eventCategoryLabel(const std::string& category);
// The categories the Events view's kind filter offers, in its order.
const char* const* eventCategories(int* count);
// "cpu" → "CPU", "memory", "gpu"...
QString resourceLabel(const std::string& resource);
// "pool" / "tier" with the name: "pool batch", "hot tier".
QString seriesScopeLabel(const std::string& scope, const std::string& name);
// A value of a history series in its resource's unit: CPU millicores as cores, memory MiB, accelerators in
// milli-devices as devices.
QString seriesValueText(const std::string& resource, double value);
// A device's share in its kind's unit: a GPU's per mille as a percentage, NPU cores, FPGA slots.
QString deviceShareText(const std::string& kind, std::int64_t share, std::int64_t capacity);

} // namespace tidepool::ui
