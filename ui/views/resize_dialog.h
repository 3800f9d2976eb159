#pragma once
// Resize…: an operator's change of one workload's CPU and memory requests and its own limits (the context menu of the
// Tiers board's cards and the Pools tree's workloads, beside Show output…). Filled in with what it asks for now, and
// what its node measured it using where that is known; OK sends it (`CoreBridge::resize`: the embedded core's
// `ControlPlane::resize`, or tidepoold's `POST /v1/workloads/{id}/resize`) and waits for the answer: done, it closes;
// refused, the core's reason shows under the fields and the operator may change them and try again. A waiting workload
// is placed at its new size; a running one is resized in place, without a restart.
//
// Thread affinity: GUI thread.

#include "ui/bridge/console_backend.h"
#include "ui/bridge/workload_rows.h"

#include <QDialog>

class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QMenu;
class QSpinBox;

namespace tidepool::ui {

class CoreBridge;

class ResizeDialog : public QDialog {
    Q_OBJECT
public:
    ResizeDialog(CoreBridge& bridge, const WorkloadRow& workload, QWidget* parent = nullptr);

    // For tests and the screenshots: the controls as a user fills them, and what the dialog says.
    QDoubleSpinBox* cpuBox() const { return m_cpu; }
    QSpinBox* memoryBox() const { return m_memory; }
    QDoubleSpinBox* cpuLimitBox() const { return m_cpuLimit; }
    QSpinBox* memoryLimitBox() const { return m_memoryLimit; }
    QLabel* messageLabel() const { return m_message; }
    quint64 pendingRequest() const { return m_request; }

    void accept() override; // sends the resize; closes once the core has done it

private:
    void finished(const ResizeResult& result);

    CoreBridge& m_bridge;
    qint64 m_workloadId = 0;
    QDoubleSpinBox* m_cpu; // cores
    QSpinBox* m_memory; // MiB
    QDoubleSpinBox* m_cpuLimit; // cores; 0: none of its own
    QSpinBox* m_memoryLimit; // MiB; 0: none of its own
    QLabel* m_message;
    QDialogButtonBox* m_buttons;
    quint64 m_request = 0; // the resize on its way; 0: none
};

// Adds Resize… for workload `workloadId` to `menu` (the workload context menu `offerWorkloadOutput` makes), off where
// the console's role may not resize or the latest snapshot no longer has the workload; the dialog opens over `parent`.
void addResizeAction(QMenu& menu, QWidget* parent, CoreBridge& bridge, qint64 workloadId);

} // namespace tidepool::ui
