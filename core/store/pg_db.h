#pragma once
// Thin RAII over libpq for the PostgreSQL store: a connection that names its server and database (never a password)
// in every error and can be taken up again after the server dropped it, parameterised queries with typed reads, and a
// pipeline that sends many statements before reading their results, so that a commit costs a few round trips rather
// than one per row. Every wait for the server is bounded (the connection's answer timeout): libpq runs in non-blocking
// mode and the waits are `poll` calls on its socket, so that a server that stopped answering fails the operation
// instead of blocking the core's thread.
//
// Thread affinity: the thread that owns the store; nothing here is synchronised.

#include "core/model/types.h"

#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tidepool::store::pg {

// A query's parameters in libpq's text format. Values always travel as parameters, never inside the SQL.
using Params = std::vector<std::string>;

std::string number(std::int64_t value);
std::string number(double value); // the shortest text that reads back as the same double
inline std::string boolean(bool value)
{
    return value ? "true" : "false";
}
// A PostgreSQL array literal of numbers (`{1,2,3}`), for statements that `unnest` a whole batch in one parameter.
template <typename T> std::string numberArray(const std::vector<T>& values)
{
    std::string out = "{";
    for (const T& v : values) {
        if (out.size() > 1)
            out += ',';
        out += number(v);
    }
    return out + '}';
}

class Result {
public:
    explicit Result(PGresult* result)
        : m_result(result)
    {
    }
    ~Result() { PQclear(m_result); }
    Result(Result&& other) noexcept
        : m_result(std::exchange(other.m_result, nullptr))
    {
    }
    Result& operator=(Result&& other) noexcept
    {
        if (this != &other) {
            PQclear(m_result);
            m_result = std::exchange(other.m_result, nullptr);
        }
        return *this;
    }
    Result(const Result&) = delete;
    Result& operator=(const Result&) = delete;

    int rows() const { return PQntuples(m_result); }
    std::string text(int row, int column) const
    {
        return std::string(
            PQgetvalue(m_result, row, column), static_cast<std::size_t>(PQgetlength(m_result, row, column)));
    }
    std::int64_t integer(int row, int column) const;
    double real(int row, int column) const;
    bool boolean(int row, int column) const { return PQgetvalue(m_result, row, column)[0] == 't'; }
    const PGresult* handle() const { return m_result; }

private:
    PGresult* m_result;
};

class Connection {
public:
    ~Connection() { PQfinish(m_conn); }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    // Connects with a libpq URI (`postgresql://user@host:port/database`) or `key=value` string; a password belongs in
    // ~/.pgpass or PGPASSFILE. The error names the server and database and libpq's reason, never the password.
    // `answerTimeout` bounds every later wait for the server (see `PostgresOptions`).
    static Expected<std::unique_ptr<Connection>> open(
        const std::string& conninfo, std::chrono::milliseconds answerTimeout);

    // "PostgreSQL database D on HOST:PORT": what every error of this connection starts with.
    const std::string& name() const { return m_name; }
    // The server closed the connection (a restart, `pg_terminate_backend`, a network fault), or this side closed it
    // after the server did not answer in time: `reconnect` before use.
    bool broken() const { return !m_conn || PQstatus(m_conn) != CONNECTION_OK; }
    Expected<void> reconnect();

    // Runs one parameterised statement; `what` names it in the error ("cannot write pool batch").
    Expected<Result> query(const char* sql, const Params& params, const std::string& what);
    // Runs statements without parameters (the schema, `BEGIN`); several may be separated by semicolons.
    Expected<void> exec(const char* sql, const std::string& what);
    // As `exec`, and returns the last statement's result.
    Expected<Result> execLast(const char* sql, const std::string& what);

    // An I/O error: this connection's name, `what` was being done and PostgreSQL's message (from `result`, else the
    // connection's latest).
    tl::unexpected<Error> failure(const std::string& what, const PGresult* result = nullptr) const;

    // Sends what libpq has queued, waiting at most the answer timeout each time the server takes nothing.
    Expected<void> flush(const std::string& what);
    // The next result of what was sent (a null one ends a statement's results), waiting at most the answer timeout
    // each time nothing arrives. A server that stays silent longer fails it and the connection is closed.
    Expected<Result> awaitResult(const std::string& what);

    // Null once the connection was closed after a timeout, until `reconnect`.
    PGconn* handle() const { return m_conn; }

private:
    Connection(PGconn* conn, std::string conninfo, std::chrono::milliseconds answerTimeout);
    static PGconn* connect(const std::string& conninfo);
    Expected<void> setUpSession();
    // Reads every result of the statements sent: the last one, or the first failure.
    Expected<Result> collect(const std::string& what);
    // Waits until the socket is ready for `events`: its revents, 0 after the answer timeout.
    int waitFor(short events) const;
    // Closes the connection after the server did not answer in time, so that the server ends the session (and
    // releases its locks) as soon as it runs again.
    tl::unexpected<Error> timedOut(const std::string& what);

    PGconn* m_conn;
    std::string m_conninfo; // to connect again (libpq keeps a password from it in memory as well)
    std::chrono::milliseconds m_answerTimeout;
    std::string m_name;
};

// `BEGIN`, rolled back on destruction unless `commit` succeeded (or the connection is gone, and the server rolled it
// back itself).
class Transaction {
public:
    explicit Transaction(Connection& connection)
        : m_connection(connection)
    {
    }
    ~Transaction()
    {
        if (m_open && !m_connection.broken())
            (void)m_connection.exec("ROLLBACK", "cannot roll back");
    }
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    Expected<void> begin()
    {
        auto begun = m_connection.exec("BEGIN", "cannot begin a transaction");
        m_open = begun.has_value();
        return begun;
    }
    // `BEGIN` and the transaction's id (`txid_current()`, which assigns one), in one round trip: what
    // `txid_status` is asked about a commit whose answer was lost with the connection.
    Expected<std::int64_t> beginWithId()
    {
        auto begun = m_connection.execLast("BEGIN; SELECT txid_current()", "cannot begin a transaction");
        m_open = begun.has_value();
        if (!begun)
            return tl::unexpected(begun.error());
        return begun->integer(0, 0);
    }
    // The commit already ran (as the last statement of a pipeline).
    void committed() { m_open = false; }
    Expected<void> commit()
    {
        auto done = m_connection.exec("COMMIT", "cannot commit");
        if (done)
            m_open = false;
        return done;
    }

private:
    Connection& m_connection;
    bool m_open = false;
};

// Statements sent without waiting for each one's result (libpq's pipeline mode) and checked together by `finish`.
// After the first failure the server skips the rest up to the next sync point; `finish` reports that failure.
// Every `kSyncEvery` statements a sync point reads the results so far, so that neither side's buffers fill up.
class Pipeline {
public:
    explicit Pipeline(Connection& connection);
    ~Pipeline();
    Pipeline(const Pipeline&) = delete;
    Pipeline& operator=(const Pipeline&) = delete;

    void add(const char* sql, const Params& params, std::string what);
    Expected<void> finish();

private:
    static constexpr std::size_t kSyncEvery = 256;
    void sync();

    Connection& m_connection;
    std::vector<std::string> m_unread; // what each statement sent since the last sync point does
    std::optional<Error> m_error; // the first failure
    bool m_entered = false;
};

} // namespace tidepool::store::pg
