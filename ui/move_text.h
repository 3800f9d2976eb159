#pragma once
// Display text for the answer to an operator's move (`MoveResult`): the core's refusal codes and the scheduler's
// filter reasons ("insufficient CPU"), translated. Unknown names are shown as they are.
//
// Thread affinity: GUI thread (translators).

#include "ui/bridge/workload_rows.h"

#include <QString>

namespace tidepool::ui {

QString rejectReasonLabel(const std::string& reason);
// "no accelerator of the requested kind (2 of 2 nodes); insufficient CPU (1 of 2 nodes)".
QString reasonsText(const MoveResult& result);
// One sentence: where it went, or why it did not move.
QString moveResultText(const MoveResult& result);

} // namespace tidepool::ui
