#include "ui/bridge/console_role.h"

#include "core/api/access.h"
#include "core/api/http_reply.h"

namespace tidepool::ui {

namespace {

api::Role needed(boost::beast::http::verb verb, std::string_view path)
{
    std::string_view query;
    return api::requiredRole(verb, api::splitPath(path, query));
}

} // namespace

bool roleAllows(const std::string& role, boost::beast::http::verb verb, std::string_view path)
{
    if (role.empty())
        return true;
    const auto have = api::parseRole(role);
    return have && *have >= needed(verb, path);
}

std::string roleNeeded(boost::beast::http::verb verb, std::string_view path)
{
    return std::string(api::toString(needed(verb, path)));
}

} // namespace tidepool::ui
