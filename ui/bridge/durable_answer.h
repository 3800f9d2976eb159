#pragma once
// The end an operator's change on a live core shares (`executePoolCommand`, `executeNodeCommand`): its audit entry
// written, and its result answered once the control plane says the change and the entry are durable; a change made
// but not saved is answered as not done, saying why.
//
// Thread affinity: the core's thread.

#include "core/api/control_plane.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>

namespace tidepool::ui {

// `Result` has `ok` and `message`. `done` is called once, from a later turn of the core's event loop, or at once when
// the plane persists nothing.
template <typename Result>
void auditAndAnswerWhenSaved(
    api::ControlPlane& plane, store::AuditEntry entry, Result result, std::function<void(Result)> done)
{
    plane.audit(std::move(entry));
    plane.whenSaved(
        [result = std::move(result), done = std::move(done)](const std::optional<std::string>& notSaved) mutable {
            if (notSaved && result.ok) {
                result.ok = false;
                result.message = "the change was made but could not be saved (" + *notSaved + ")";
            }
            done(std::move(result));
        });
}

} // namespace tidepool::ui
