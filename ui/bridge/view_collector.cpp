#include "ui/bridge/view_collector.h"

#include "core/api/rebalancer.h"

namespace tidepool::ui {

void ViewCollector::fill(const api::ControlPlane& plane, const api::Rebalancer* rebalancer, ConsoleSnapshot& snapshot)
{
    m_devices.fill(plane, snapshot);
    m_forecasts.fill(plane, snapshot, rebalancer ? rebalancer->evaluations() : 0);
    m_events.fill(plane, rebalancer, snapshot);
}

} // namespace tidepool::ui
