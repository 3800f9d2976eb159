#pragma once
// The drag payload of workloads, shared by the Tiers board and the Pools tree so that a workload dragged from either
// drops on either: one line per workload, "id<TAB>tier<TAB>node<TAB>pool", under one mime type. Each carries where it
// was, so that a model refuses a drop on the same place at once, without asking the core.
//
// Thread affinity: GUI thread.

#include "ui/bridge/workload_rows.h"

#include <QString>

#include <string>
#include <vector>

class QMimeData;

namespace tidepool::ui {

inline const QString kWorkloadMimeType = QStringLiteral("application/x-tidepool-workloads");

struct DraggedWorkload {
    qint64 id = 0;
    std::string tier; // its node's tier; its home tier while it waits
    std::string node; // empty while it waits
    std::string pool;
};

// The payload of `rows` (null rows skipped); null when there are none. The caller owns it (Qt's `mimeData` contract).
QMimeData* encodeWorkloads(const std::vector<const WorkloadRow*>& rows);
// The workloads of a payload; empty when it is not one (another type, or damaged lines, which are skipped).
std::vector<DraggedWorkload> decodeWorkloads(const QMimeData* data);

} // namespace tidepool::ui
