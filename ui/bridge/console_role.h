#pragma once
// What the console may ask of its core, by the role it has there (`ConsoleSnapshot::role`): the daemon's own rule
// (`api::requiredRole`), so that a button or a drag the core would answer with 403 is off before anyone tries, and its
// tooltip says which role it needs. An empty role (not known yet) allows everything: the core still decides.
//
// Thread affinity: none; pure functions.

#include <boost/beast/http/verb.hpp>

#include <string>
#include <string_view>

namespace tidepool::ui {

// Whether `role` may call `verb` on `path` ("/v1/pools/web").
bool roleAllows(const std::string& role, boost::beast::http::verb verb, std::string_view path);
// The least role that may ("operator"), as the daemon names it.
std::string roleNeeded(boost::beast::http::verb verb, std::string_view path);

} // namespace tidepool::ui
