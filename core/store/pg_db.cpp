#include "core/store/pg_db.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include <poll.h>

namespace tidepool::store::pg {

namespace {

// PostgreSQL refuses text that is not UTF-8 and cuts a parameter at a NUL byte, where SQLite kept any bytes: a stray
// byte in a workload's detail would then fail every commit. Such bytes become U+FFFD, as `dumpJson` does for JSON.
bool validUtf8(const std::string& text)
{
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == 0)
            return false;
        if (c < 0x80) {
            ++i;
            continue;
        }
        const std::size_t length = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
        if (length == 0 || (c >= 0xF0 && length != 4) || i + length > text.size())
            return false;
        for (std::size_t k = 1; k < length; ++k)
            if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80)
                return false;
        const auto c1 = static_cast<unsigned char>(text[i + 1]);
        // Overlong forms, UTF-16 surrogates and code points beyond U+10FFFF.
        if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0) || (c == 0xF0 && c1 < 0x90)
            || (c == 0xF4 && c1 >= 0x90))
            return false;
        i += length;
    }
    return true;
}

std::string repairedUtf8(const std::string& text)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        // The longest valid sequence starting here, if any.
        std::size_t taken = 0;
        for (std::size_t length = 1; length <= 4 && i + length <= text.size(); ++length)
            if (validUtf8(text.substr(i, length))) {
                taken = length;
                break;
            }
        if (taken == 0) {
            out += "\xEF\xBF\xBD";
            ++i;
        } else {
            out.append(text, i, taken);
            i += taken;
        }
    }
    return out;
}

// libpq's messages end in a newline and may span lines (one per host tried); an error here is one line.
std::string oneLine(std::string text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at)) {
        std::size_t end = at + 1;
        while (end < text.size() && (text[end] == ' ' || text[end] == '\t'))
            ++end;
        text.replace(at, end - at, "; ");
    }
    return text;
}

// Whether libpq's complaint about a malformed string might quote a password from it.
bool mayHoldPassword(const std::string& conninfo)
{
    if (conninfo.find("password") != std::string::npos)
        return true;
    const auto scheme = conninfo.find("://");
    if (scheme == std::string::npos)
        return false;
    const auto at = conninfo.find('@', scheme);
    return at != std::string::npos && conninfo.find(':', scheme + 3) < at;
}

// Parameters as libpq takes them: pointers to their texts, repaired where they were not UTF-8.
class TextValues {
public:
    explicit TextValues(const Params& params)
    {
        m_repaired.reserve(params.size()); // no reallocation: `m_values` points into it
        for (const std::string& p : params) {
            if (validUtf8(p)) {
                m_values.push_back(p.c_str());
            } else {
                m_repaired.push_back(repairedUtf8(p));
                m_values.push_back(m_repaired.back().c_str());
            }
        }
    }
    int size() const { return static_cast<int>(m_values.size()); }
    const char* const* data() const { return m_values.data(); }

private:
    std::vector<std::string> m_repaired;
    std::vector<const char*> m_values;
};

std::string describe(PGconn* conn)
{
    const char* db = PQdb(conn);
    const char* host = PQhost(conn);
    const char* port = PQport(conn);
    std::string name = std::string("PostgreSQL database ") + (db && *db ? db : "(default)");
    if (host && *host)
        name += std::string(" on ") + host + (port && *port ? std::string(":") + port : std::string());
    return name;
}

// "30 s", "1.5 s", "500 ms": the answer timeout in an error.
std::string duration(std::chrono::milliseconds limit)
{
    const auto ms = limit.count();
    if (ms < 1000)
        return std::to_string(ms) + " ms";
    if (ms % 1000 == 0)
        return std::to_string(ms / 1000) + " s";
    return number(static_cast<double>(ms) / 1000.0) + " s";
}

} // namespace

std::string number(std::int64_t value)
{
    return std::to_string(value);
}

std::string number(double value)
{
    char buffer[32];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return ec == std::errc() ? std::string(buffer, end) : std::string("NaN");
}

std::int64_t Result::integer(int row, int column) const
{
    const char* text = PQgetvalue(m_result, row, column);
    std::int64_t value = 0;
    std::from_chars(text, text + std::strlen(text), value);
    return value;
}

double Result::real(int row, int column) const
{
    const char* text = PQgetvalue(m_result, row, column);
    double value = 0.0;
    std::from_chars(text, text + std::strlen(text), value);
    return value;
}

Connection::Connection(PGconn* conn, std::string conninfo, std::chrono::milliseconds answerTimeout)
    : m_conn(conn)
    , m_conninfo(std::move(conninfo))
    , m_answerTimeout(answerTimeout)
    , m_name(describe(conn))
{
}

PGconn* Connection::connect(const std::string& conninfo)
{
    // The string's own settings override a connection timeout of 10 s (libpq waits forever by default, and a commit
    // that reconnects runs on the core's thread); the application name shows tidepoold in pg_stat_activity.
    const char* keywords[] = { "connect_timeout", "dbname", "fallback_application_name", nullptr };
    const char* values[] = { "10", conninfo.c_str(), "tidepoold", nullptr };
    PGconn* conn = PQconnectdbParams(keywords, values, 1);
    // Non-blocking: sending never waits for the server to take the data; `flush` and `awaitResult` wait instead,
    // with the answer timeout.
    if (conn && PQstatus(conn) == CONNECTION_OK)
        PQsetnonblocking(conn, 1);
    return conn;
}

Expected<std::unique_ptr<Connection>> Connection::open(
    const std::string& conninfo, std::chrono::milliseconds answerTimeout)
{
    char* parseError = nullptr;
    if (PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &parseError)) {
        PQconninfoFree(options);
    } else {
        std::string why = parseError ? oneLine(parseError) : std::string("out of memory");
        PQfreemem(parseError);
        if (mayHoldPassword(conninfo))
            why = "libpq's reason is not shown, as it may quote the password";
        return makeError(ErrorCode::InvalidArgument, "the PostgreSQL connection string is not valid: " + why);
    }
    PGconn* conn = connect(conninfo);
    if (!conn)
        return makeError(ErrorCode::IoError, "PostgreSQL: cannot connect: out of memory");
    std::unique_ptr<Connection> connection(new Connection(conn, conninfo, answerTimeout));
    if (connection->broken())
        return makeError(ErrorCode::IoError,
            connection->m_name + ": cannot connect: " + oneLine(PQerrorMessage(connection->m_conn)));
    if (auto ready = connection->setUpSession(); !ready)
        return tl::unexpected(ready.error());
    return connection;
}

Expected<void> Connection::setUpSession()
{
    // A commit is durable before it returns, whatever the server's default; a lock held by someone else fails a
    // statement after 2 s (as SQLite's busy timeout) instead of stalling the core; notices stay off stderr.
    return exec("SET synchronous_commit TO on; SET lock_timeout TO '2s'; SET client_min_messages TO error; "
                "SET client_encoding TO 'UTF8'",
        "cannot set up the session");
}

Expected<void> Connection::reconnect()
{
    // A new connection rather than `PQreset`: after a timeout the old one is already closed.
    PQfinish(m_conn);
    m_conn = connect(m_conninfo);
    if (!m_conn)
        return makeError(ErrorCode::IoError, m_name + ": cannot reconnect: out of memory");
    if (broken())
        return makeError(ErrorCode::IoError, m_name + ": cannot reconnect: " + oneLine(PQerrorMessage(m_conn)));
    return setUpSession();
}

Expected<Result> Connection::query(const char* sql, const Params& params, const std::string& what)
{
    if (broken())
        return failure(what);
    const TextValues values(params);
    if (PQsendQueryParams(m_conn, sql, values.size(), nullptr, values.data(), nullptr, nullptr, 0) != 1)
        return failure(what);
    return collect(what);
}

Expected<void> Connection::exec(const char* sql, const std::string& what)
{
    auto done = execLast(sql, what);
    if (!done)
        return tl::unexpected(done.error());
    return {};
}

Expected<Result> Connection::execLast(const char* sql, const std::string& what)
{
    if (broken())
        return failure(what);
    if (PQsendQuery(m_conn, sql) != 1)
        return failure(what);
    return collect(what);
}

Expected<Result> Connection::collect(const std::string& what)
{
    if (auto sent = flush(what); !sent)
        return tl::unexpected(sent.error());
    std::optional<Result> last;
    std::optional<Error> error;
    while (true) {
        auto next = awaitResult(what);
        if (!next)
            return next; // timed out: the connection is closed, nothing more to read
        const PGresult* r = next->handle();
        if (!r)
            break;
        const ExecStatusType status = PQresultStatus(r);
        if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && !error)
            error = failure(what, r).value();
        last = std::move(*next);
    }
    if (error)
        return tl::unexpected(*error);
    if (!last)
        return failure(what);
    return std::move(*last);
}

int Connection::waitFor(short events) const
{
    pollfd fd { PQsocket(m_conn), events, 0 };
    if (fd.fd < 0)
        return POLLERR; // no socket: libpq reports why at the next read or write
    using Clock = std::chrono::steady_clock;
    const Clock::time_point deadline = Clock::now() + m_answerTimeout;
    while (true) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
        const int ready = poll(&fd, 1, static_cast<int>(std::clamp<std::int64_t>(left, 0, 1 << 30)));
        if (ready > 0)
            return fd.revents;
        if (ready == 0)
            return 0;
        if (errno != EINTR) // a signal does not extend the wait
            return POLLERR;
    }
}

Expected<void> Connection::flush(const std::string& what)
{
    if (broken())
        return failure(what);
    while (true) {
        const int left = PQflush(m_conn);
        if (left == 0)
            return {};
        if (left < 0)
            return failure(what);
        const int ready = waitFor(POLLIN | POLLOUT);
        if (ready == 0)
            return timedOut(what);
        // The server may answer (or complain) before it has taken everything: read that, so that neither side waits
        // for the other to read.
        if ((ready & POLLIN) != 0 && PQconsumeInput(m_conn) != 1)
            return failure(what);
    }
}

Expected<Result> Connection::awaitResult(const std::string& what)
{
    if (!m_conn)
        return failure(what);
    // PQgetResult blocks while PQisBusy; on a lost connection it returns the error at once.
    while (PQisBusy(m_conn) && PQstatus(m_conn) == CONNECTION_OK) {
        const int ready = waitFor(POLLIN);
        if (ready == 0)
            return timedOut(what);
        if (PQconsumeInput(m_conn) != 1)
            break; // the connection is lost: PQgetResult says how
    }
    return Result(PQgetResult(m_conn));
}

tl::unexpected<Error> Connection::timedOut(const std::string& what)
{
    PQfinish(m_conn);
    m_conn = nullptr;
    return makeError(ErrorCode::IoError,
        m_name + ": " + what + ": the server did not answer within " + duration(m_answerTimeout)
            + "; the connection is closed, the next attempt connects again");
}

tl::unexpected<Error> Connection::failure(const std::string& what, const PGresult* result) const
{
    if (!m_conn)
        return makeError(ErrorCode::IoError,
            m_name + ": " + what
                + ": not connected (an earlier attempt gave up waiting for the server); the next "
                  "attempt connects again");
    const char* primary = result ? PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
    std::string why = primary ? std::string(primary) : oneLine(PQerrorMessage(m_conn));
    if (const char* detail = result ? PQresultErrorField(result, PG_DIAG_MESSAGE_DETAIL) : nullptr)
        why += " (" + oneLine(detail) + ")";
    if (why.empty())
        why = "no reason given";
    if (broken())
        why += "; the connection is lost, the next attempt reconnects";
    return makeError(ErrorCode::IoError, m_name + ": " + what + ": " + why);
}

Pipeline::Pipeline(Connection& connection)
    : m_connection(connection)
{
    m_entered = PQenterPipelineMode(m_connection.handle()) == 1;
    if (!m_entered)
        m_error = m_connection.failure("cannot start a pipeline").value();
}

Pipeline::~Pipeline()
{
    if (!m_entered)
        return;
    if (!m_unread.empty() && !m_connection.broken())
        sync();
    // On a lost connection this fails; `reconnect` replaces the connection then.
    if (!m_connection.broken())
        PQexitPipelineMode(m_connection.handle());
}

void Pipeline::add(const char* sql, const Params& params, std::string what)
{
    if (m_error)
        return; // the server would skip it anyway
    if (m_connection.broken()) {
        m_error = m_connection.failure(what).value();
        return;
    }
    const TextValues values(params);
    if (PQsendQueryParams(m_connection.handle(), sql, values.size(), nullptr, values.data(), nullptr, nullptr, 0)
        != 1) {
        m_error = m_connection.failure(what).value();
        return;
    }
    m_unread.push_back(std::move(what));
    if (m_unread.size() >= kSyncEvery)
        sync();
}

void Pipeline::sync()
{
    PGconn* conn = m_connection.handle();
    if (!conn || PQpipelineSync(conn) != 1) {
        if (!m_error)
            m_error = m_connection.failure("cannot send the writes").value();
        m_unread.clear();
        return;
    }
    // Each statement's results end with a null; the sync point's result ends the lot.
    std::size_t index = 0;
    const auto what
        = [&] { return index < m_unread.size() ? m_unread[index] : std::string("cannot finish the writes"); };
    if (auto sent = m_connection.flush("cannot send the writes"); !sent) {
        if (!m_error)
            m_error = sent.error();
        m_unread.clear();
        return;
    }
    while (true) {
        auto next = m_connection.awaitResult(what());
        if (!next) { // no answer in time: the connection is closed
            if (!m_error)
                m_error = next.error();
            break;
        }
        const PGresult* r = next->handle();
        if (!r) {
            if (m_connection.broken()) {
                if (!m_error)
                    m_error = m_connection.failure(what()).value();
                break;
            }
            ++index;
            continue;
        }
        const ExecStatusType status = PQresultStatus(r);
        if (status == PGRES_PIPELINE_SYNC)
            break;
        // PGRES_PIPELINE_ABORTED: skipped after an earlier failure, which is the one reported.
        if (status == PGRES_FATAL_ERROR && !m_error)
            m_error = m_connection.failure(what(), r).value();
    }
    m_unread.clear();
}

Expected<void> Pipeline::finish()
{
    if (!m_unread.empty())
        sync();
    if (m_error)
        return tl::unexpected(*m_error);
    return {};
}

} // namespace tidepool::store::pg
