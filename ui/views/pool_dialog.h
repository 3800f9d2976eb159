#pragma once
// The Pools tab's New pool… and Edit pool… dialog: a pool's name (new pools only), business line, tier and quotas
// (CPU, memory, memory and network bandwidth, GPU, NPU and FPGA share units), each quota "unlimited" at its lowest
// value, and its block IO weight (1..10000, 100 the default). `body` is what `POST /v1/pools` and
// `PUT /v1/pools/{name}` take (`PoolCommand::body`): the core checks it and says what is wrong, in the page's message
// strip.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_snapshot.h"

#include <QDialog>

#include <nlohmann/json.hpp>

#include <array>

class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace tidepool::ui {

class PoolDialog : public QDialog {
    Q_OBJECT
public:
    // A new pool (`pool` null) or an edit of `pool`, filled in with its settings.
    PoolDialog(const PoolRow* pool, QWidget* parent = nullptr);

    // A new pool beside `like` (the row selected when New pool… was pressed): its business line and tier to begin
    // with; the quotas stay unlimited.
    void startLike(const PoolRow& like);
    // The business lines the cluster has, offered as the line is typed (a new name is as good: reports take it).
    void suggestBusinessLines(const QStringList& lines);

    bool editing() const { return m_editing; }
    QString poolName() const;
    nlohmann::json body() const;

    // For tests and the screenshots: the controls as a user fills them.
    QLineEdit* nameEdit() const { return m_name; }
    QLineEdit* businessLineEdit() const { return m_businessLine; }
    QComboBox* tierBox() const { return m_tier; }
    QDoubleSpinBox* cpuBox() const { return m_cpu; }
    QDoubleSpinBox* memoryBox() const { return m_memory; }
    QSpinBox* memBandwidthBox() const { return m_memBandwidth; }
    QSpinBox* networkBox() const { return m_network; }
    QSpinBox* ioWeightBox() const { return m_ioWeight; }
    QSpinBox* disruptionBudgetBox() const { return m_maxDisrupted; }
    QComboBox* disruptionUnitBox() const { return m_disruptionUnit; } // workloads, or % of the pool's
    QSpinBox* acceleratorBox(int kind) const { return m_accelerators[static_cast<std::size_t>(kind)]; } // 0 gpu

private:
    bool m_editing = false;
    QLineEdit* m_name;
    QLineEdit* m_businessLine;
    QComboBox* m_tier;
    QDoubleSpinBox* m_cpu; // cores; 0: unlimited
    QDoubleSpinBox* m_memory; // GiB; 0: unlimited
    QSpinBox* m_memBandwidth; // MB/s; 0: unlimited
    QSpinBox* m_network; // Mbit/s; 0: unlimited
    QSpinBox* m_ioWeight;
    QSpinBox* m_maxDisrupted; // -1: no budget
    QComboBox* m_disruptionUnit; // data: false for a number of workloads, true for a percentage
    std::array<QSpinBox*, 3> m_accelerators {}; // gpu, npu, fpga share units; -1: unlimited
};

} // namespace tidepool::ui
