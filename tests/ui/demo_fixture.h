#pragma once
// The small demo cluster the console suites run: the real core over a simulated fleet of 12 nodes, two days long, whose
// proposals start after one day of history.

#include "ui/bridge/demo_driver.h"

#include <QTemporaryDir>

namespace tidepool::ui::test {

inline DemoConfig smallDemo(const QTemporaryDir& dir)
{
    DemoConfig config;
    config.scenario.dataDir = TIDEPOOL_SHARED_DATA;
    config.scenario.dbPath = dir.filePath(QStringLiteral("console.db")).toStdString();
    config.scenario.days = 2;
    config.scenario.warmupDays = 1;
    config.scenario.warmNodes = 6;
    config.scenario.hotNodes = 4;
    config.scenario.coldNodes = 2;
    return config;
}

inline int pendingCount(const SnapshotPtr& snapshot)
{
    int n = 0;
    if (snapshot)
        for (const ProposalRow& p : snapshot->proposals)
            n += p.state == "pending" ? 1 : 0;
    return n;
}

} // namespace tidepool::ui::test
