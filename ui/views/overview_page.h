#pragma once
// The cluster at a glance: nodes by ISA and state, accelerators by kind, each tier's CPU and accelerator occupancy,
// workloads by phase, pending workloads and proposals waiting for a decision, and the alerts (`alerts.h`): nodes lost,
// a store that cannot be written, a disk filling up, certificates expiring.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"

#include <QWidget>

#include <array>

class QLabel;
class QProgressBar;

namespace tidepool::ui {

class OverviewPage : public QWidget {
    Q_OBJECT
public:
    explicit OverviewPage(QWidget* parent = nullptr);

    void setSnapshot(const SnapshotPtr& snapshot);

private:
    QString nodesTable(const OverviewCounts& counts) const;
    static QString alertText(const AlertRow& alert);

    QLabel* m_clock;
    QLabel* m_nodes;
    QLabel* m_accelerators;
    QLabel* m_workloads;
    QLabel* m_pending;
    QLabel* m_proposals;
    QLabel* m_alerts;
    struct TierBars {
        QLabel* label = nullptr;
        QProgressBar* cpu = nullptr;
        QProgressBar* accelerators = nullptr;
    };
    std::array<TierBars, 3> m_tiers {};
};

} // namespace tidepool::ui
