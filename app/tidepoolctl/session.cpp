// The session: the one connection to tidepoold a run of tidepoolctl uses, the operator token, and the choice
// between the daemon's JSON and a table. The token is read only when the first request is about to be sent, so
// that a wrong command line is reported without touching it, and it never appears in a message.
#include "app/tidepoolctl/ctl.h"

#include "core/api/daemon_config.h"

#include <algorithm>
#include <cstdio>

namespace tidepool::ctl {

Session::Session(GlobalOptions options, std::string host, std::uint16_t port)
    : m_options(std::move(options))
    , m_host(std::move(host))
    , m_port(port)
{
}

Result<api::ApiResponse> Session::exchange(api::HttpMethod method, const std::string& target, const std::string& body)
{
    if (!m_client) {
        if (m_options.tokenFile.empty())
            return usageError("no operator token: give --token-file FILE or set TIDEPOOL_TOKEN_FILE");
        auto token = api::readSecretFile(m_options.tokenFile, "operator token");
        if (!token)
            return usageError(token.error().message);
        // A line of tidepoold's own token file (NAME:ROLE:sha256:SALT:HASH) is a hash, which no server accepts.
        if (std::count(token->begin(), token->end(), ':') == 4 && token->find(":sha256:") != std::string::npos)
            return usageError("operator token file " + m_options.tokenFile
                + " holds tidepoold's hashed token list, not a token; give the file holding the token that `tidepoold "
                  "token add` printed");
        auto client = std::make_unique<api::ApiClient>(m_host, m_port, std::move(*token), m_options.timeout);
        if (m_options.tls)
            if (auto tls = client->useTls(m_options.caFile); !tls)
                return usageError((m_options.caSource.empty() ? std::string() : m_options.caSource + ": ")
                    + tls.error().message);
        m_client = std::move(client);
    }
    auto response = m_client->request(method, target, body);
    if (!response)
        return tl::unexpected(Failure { 1, response.error().message });
    return std::move(*response);
}

Failure Session::failureOf(const api::ApiResponse& response) const
{
    std::string message;
    const json j = json::parse(response.body, nullptr, false); // discarded when it is not JSON
    // The daemon's words are made terminal-safe; the lines tidepoolctl adds below are its own.
    if (j.is_object() && j.contains("error") && j["error"].is_string())
        message = terminalSafe(j["error"].get<std::string>());
    if (message.empty())
        message = "tidepoold at " + (m_options.tls ? m_client->url() : m_client->address()) + " answered HTTP "
            + std::to_string(response.status);
    else
        message += " (HTTP " + std::to_string(response.status) + ")";
    if (response.status == 401)
        message += "\ntidepoolctl: the token in " + m_options.tokenFile
            + " was refused; check --token-file or TIDEPOOL_TOKEN_FILE";
    if (response.status == 403 && j.is_object() && j.value("requiredRole", json()).is_string()) {
        const std::string needed = terminalSafe(j["requiredRole"].get<std::string>());
        message += "\ntidepoolctl: the token in " + m_options.tokenFile + " has the "
            + (j.value("role", json()).is_string() ? terminalSafe(j["role"].get<std::string>()) : std::string("wrong"))
            + " role; this needs " + needed + " or above: use a token with that role (an admin makes one with "
            + "`tidepoold token add --role " + needed + "`)";
    }
    return Failure { 1, message };
}

Result<std::string> Session::call(api::HttpMethod method, const std::string& target, const std::string& body)
{
    auto response = exchange(method, target, body);
    if (!response)
        return tl::unexpected(response.error());
    if (response->status >= 200 && response->status < 300)
        return std::move(response->body);
    return tl::unexpected(failureOf(*response));
}

Result<void> Session::show(const std::string& body, const std::function<void(const json&)>& render) const
{
    if (m_options.output == Output::Json) {
        std::fputs(body.c_str(), stdout);
        if (body.empty() || body.back() != '\n')
            std::fputc('\n', stdout);
        return {};
    }
    try {
        render(json::parse(body));
    } catch (const json::exception& e) {
        return tl::unexpected(Failure { 1, "unexpected response from tidepoold: " + std::string(e.what()) });
    }
    return {};
}

Result<void> Session::callAndShow(api::HttpMethod method, const std::string& target,
    const std::function<void(const json&)>& render, const std::string& body)
{
    auto response = call(method, target, body);
    if (!response)
        return tl::unexpected(response.error());
    return show(*response, render);
}

} // namespace tidepool::ctl
