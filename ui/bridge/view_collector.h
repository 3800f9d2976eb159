#pragma once
// What the Accelerators, Forecasts and Events views need beyond `buildSnapshot`, kept between snapshots by the backend
// that builds them: the devices and their sample history (`DeviceCollector`), the forecasts (`ForecastCollector`) and
// the event timeline (`EventCollector`).
//
// Thread affinity: the core's thread.

#include "ui/bridge/device_collector.h"
#include "ui/bridge/event_collector.h"
#include "ui/bridge/forecast_collector.h"

namespace tidepool::ui {

class ViewCollector {
public:
    // `rebalancer` may be null (no proposals).
    void fill(const api::ControlPlane& plane, const api::Rebalancer* rebalancer, ConsoleSnapshot& snapshot);
    ForecastCollector& forecasts() { return m_forecasts; }

private:
    DeviceCollector m_devices;
    ForecastCollector m_forecasts;
    EventCollector m_events;
};

} // namespace tidepool::ui
