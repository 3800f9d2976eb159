#include "core/api/http_reply.h"

#include "protocol/json_reader.h"

#include <charconv>

namespace tidepool::api {

namespace http = boost::beast::http;

namespace {

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// Percent-decoding (RFC 3986); `plusIsSpace` for query strings (HTML forms). A malformed escape stays as it is.
std::string decode(std::string_view text, bool plusIsSpace)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '%' && i + 2 < text.size()) {
            const int high = hexValue(text[i + 1]);
            const int low = hexValue(text[i + 2]);
            if (high >= 0 && low >= 0) {
                out += static_cast<char>(high * 16 + low);
                i += 2;
                continue;
            }
        }
        out += plusIsSpace && c == '+' ? ' ' : c;
    }
    return out;
}

} // namespace

net::HttpResponse reply(http::status status, const nlohmann::json& body)
{
    net::HttpResponse response { status, 11 };
    response.set(http::field::content_type, "application/json");
    response.body() = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return response;
}

net::HttpResponse errorReply(int status, const std::string& message)
{
    return reply(static_cast<http::status>(status), nlohmann::json { { "error", message } });
}

std::vector<std::string> splitPath(std::string_view target, std::string_view& query)
{
    const auto q = target.find('?');
    query = q == std::string_view::npos ? std::string_view {} : target.substr(q + 1);
    const std::string_view path = target.substr(0, q);
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= path.size()) {
        const auto slash = path.find('/', start);
        const std::string_view part = path.substr(start, slash == std::string_view::npos ? slash : slash - start);
        if (!part.empty())
            parts.push_back(decode(part, false));
        if (slash == std::string_view::npos)
            break;
        start = slash + 1;
    }
    return parts;
}

std::optional<std::string> queryValue(std::string_view query, std::string_view key)
{
    std::size_t start = 0;
    while (start < query.size()) {
        const auto amp = query.find('&', start);
        const std::string_view pair = query.substr(start, amp == std::string_view::npos ? amp : amp - start);
        const auto eq = pair.find('=');
        if (decode(pair.substr(0, eq), true) == key)
            return decode(eq == std::string_view::npos ? std::string_view {} : pair.substr(eq + 1), true);
        if (amp == std::string_view::npos)
            break;
        start = amp + 1;
    }
    return std::nullopt;
}

std::optional<std::int64_t> parseInteger(std::string_view text)
{
    std::int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        return std::nullopt;
    return value;
}

tl::expected<nlohmann::json, std::string> parseJsonBody(std::string_view body, int maxDepth, std::string_view shape)
{
    if (!protocol::detail::nestingWithin(body, maxDepth))
        return tl::unexpected("the body nests deeper than " + std::to_string(maxDepth) + " levels");
    auto parsed = protocol::detail::parseUniqueKeys(body);
    if (!parsed)
        return tl::unexpected(parsed.error().field.empty()
                ? "the body is " + parsed.error().message
                : parsed.error().message + " in the body: a key may be given once in an object");
    if (!parsed->is_object())
        return tl::unexpected(
            std::string("the body must be a JSON object") + (shape.empty() ? "" : ": " + std::string(shape)));
    return std::move(*parsed);
}

} // namespace tidepool::api
