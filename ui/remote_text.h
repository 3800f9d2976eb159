#pragma once
// Display text for the problems of a console attached to a `tidepoold` (`RemoteProblem`: unreachable, token refused,
// an error status, an unreadable answer), translated. The backend calls it on its own thread: it only reads the
// installed catalogues (`QCoreApplication::translate` is thread-safe).
//
// Thread affinity: any.

#include "ui/bridge/remote_backend.h"

#include <string>

namespace tidepool::ui {

std::string remoteProblemText(const RemoteProblem& problem);

} // namespace tidepool::ui
