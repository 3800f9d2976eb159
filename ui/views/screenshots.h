#pragma once
// Renders every tab of the main window to `<dir>/<tab>.png`, named by the page (overview.png, nodes.png, pools.png,
// tiers.png, proposals.png, accelerators.png, forecasts.png, events.png), and the Accelerators tab once more with an
// FPGA selected, for its slot timeline (accelerators-fpga.png; only when the fleet has an FPGA that is held), for
// documentation and for looking at the console where there is no display (QT_QPA_PLATFORM=offscreen).
//
// Thread affinity: GUI thread.

#include <QString>
#include <QStringList>

namespace tidepool::ui {

class MainWindow;

// The files written; an empty list when `dir` cannot be created. Leaves the first tab current.
QStringList saveScreenshots(MainWindow& window, const QString& dir);

} // namespace tidepool::ui
