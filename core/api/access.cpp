#include "core/api/access.h"

namespace tidepool::api {

namespace http = boost::beast::http;

std::string_view toString(Role role)
{
    switch (role) {
    case Role::Viewer: return "viewer";
    case Role::Operator: return "operator";
    case Role::Admin: return "admin";
    case Role::Invalid: break;
    }
    return "invalid";
}

std::optional<Role> parseRole(std::string_view text)
{
    for (const Role role : { Role::Viewer, Role::Operator, Role::Admin })
        if (text == toString(role))
            return role;
    return std::nullopt;
}

Role requiredRole(http::verb verb, const std::vector<std::string>& parts)
{
    const std::string resource = parts.size() > 1 ? parts[1] : std::string();
    // A workload's output may hold what its owner would not show everyone (addresses, keys printed by mistake): an
    // operator's, as the audit log is.
    const bool logs = resource == "workloads" && parts.size() == 4 && parts[3] == "logs";
    if (verb == http::verb::get || verb == http::verb::head)
        return resource == "audit" || logs ? Role::Operator : Role::Viewer;
    if (resource == "workloads"
        && ((verb == http::verb::post && parts.size() == 2) || (verb == http::verb::delete_ && parts.size() == 3)))
        return Role::Operator;
    if (resource == "workloads" && verb == http::verb::post && parts.size() == 4
        && (parts[3] == "move" || parts[3] == "resize"))
        return Role::Operator;
    // Taking a node out of service and back, as an approved power-down proposal does.
    if (resource == "nodes" && verb == http::verb::post && parts.size() == 4
        && (parts[3] == "cordon" || parts[3] == "uncordon" || parts[3] == "drain"))
        return Role::Operator;
    if (resource == "proposals" && verb == http::verb::post && parts.size() == 4
        && (parts[3] == "approve" || parts[3] == "reject"))
        return Role::Operator;
    if ((resource == "evaluate" || resource == "whatif") && verb == http::verb::post && parts.size() == 2)
        return Role::Operator;
    if (resource == "pools"
        && ((verb == http::verb::post && parts.size() == 2)
            || ((verb == http::verb::put || verb == http::verb::delete_) && parts.size() == 3)))
        return Role::Admin;
    // Fail closed: a change this table does not name (a route added without a row here) is the admin's.
    return Role::Admin;
}

std::vector<http::verb> allowedMethods(const std::vector<std::string>& parts)
{
    using enum http::verb;
    if (parts.size() == 1 && (parts[0] == "healthz" || parts[0] == "metrics"))
        return { get, head };
    if (parts.size() < 2 || parts[0] != "v1")
        return {};
    const std::string& resource = parts[1];
    if (parts.size() == 2) {
        if (resource == "workloads" || resource == "pools")
            return { get, head, post };
        if (resource == "evaluate" || resource == "whatif")
            return { post };
        for (const char* read : { "summary", "nodes", "proposals", "history", "series", "audit", "whoami", "report" })
            if (resource == read)
                return { get, head };
        return {};
    }
    if (parts.size() == 3) {
        if (resource == "workloads")
            return { get, head, delete_ };
        if (resource == "pools")
            return { get, head, put, delete_ };
        if (resource == "nodes" || resource == "proposals")
            return { get, head };
        return {};
    }
    if (parts.size() == 4) {
        if (resource == "workloads" && (parts[3] == "why" || parts[3] == "logs"))
            return { get, head };
        if ((resource == "workloads" && (parts[3] == "move" || parts[3] == "resize"))
            || (resource == "nodes" && (parts[3] == "cordon" || parts[3] == "uncordon" || parts[3] == "drain"))
            || (resource == "proposals" && (parts[3] == "approve" || parts[3] == "reject")))
            return { post };
    }
    return {};
}

std::string allowHeader(const std::vector<http::verb>& methods)
{
    std::string out;
    for (const http::verb method : methods)
        out += (out.empty() ? "" : ", ") + std::string(http::to_string(method));
    return out;
}

} // namespace tidepool::api
