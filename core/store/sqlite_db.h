#pragma once
// Thin RAII over the SQLite C API, shared by the store's parts: a connection that names its file in every error,
// prepared statements with typed binds and reads, and a transaction guard that rolls back unless committed.
//
// Thread affinity: the thread that owns the store; nothing here is synchronised.

#include "core/model/types.h"
#include "protocol/owner_lock.h"

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>

namespace tidepool::store {

// The one writer of a database file: an exclusive lock (`protocol::OwnerLock`) on `<path>.lock` beside it, held by
// the store while it lives; the kernel lets go when the process dies, `kill -9` included. SQLite's own locks last a
// transaction: without this, two daemons (or a daemon and the console's embedded core, or two simulations) would each
// load the same state and write over each other. Fails, naming the database, the lock file and its holder, while
// another open file holds it. A read-only file system with no lock file there takes no lock (an unheld one is
// returned): nothing can write there, and opening the database says so.
Expected<protocol::OwnerLock> lockDatabase(const std::string& path);
inline std::string databaseLockPath(const std::string& path)
{
    return path + ".lock";
}

class Database {
public:
    Database(sqlite3* db, std::string path)
        : m_db(db)
        , m_path(std::move(path))
    {
    }
    ~Database() { sqlite3_close_v2(m_db); }
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    // Opens (creating when `create`) the file; the error names the path and SQLite's reason.
    static Expected<std::unique_ptr<Database>> open(const std::string& path, bool create = true);

    sqlite3* handle() const { return m_db; }
    const std::string& path() const { return m_path; }
    Expected<void> exec(const std::string& sql);
    // An I/O error naming the database, `what` was being done and SQLite's latest reason.
    tl::unexpected<Error> failure(const std::string& what) const;

private:
    sqlite3* m_db;
    std::string m_path;
};

class Statement {
public:
    Statement(const Database& db, const char* sql)
    {
        m_ok = sqlite3_prepare_v2(db.handle(), sql, -1, &m_statement, nullptr) == SQLITE_OK;
    }
    ~Statement() { sqlite3_finalize(m_statement); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    bool ok() const { return m_ok; }
    void bind(int index, std::int64_t value) { sqlite3_bind_int64(m_statement, index, value); }
    void bind(int index, double value) { sqlite3_bind_double(m_statement, index, value); }
    void bind(int index, const std::string& value)
    {
        sqlite3_bind_text(m_statement, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
    }
    int step() { return sqlite3_step(m_statement); }
    // Steps a statement that returns no rows and makes it ready for the next binds.
    bool run()
    {
        const bool done = sqlite3_step(m_statement) == SQLITE_DONE;
        reset();
        return done;
    }
    void reset()
    {
        sqlite3_reset(m_statement);
        sqlite3_clear_bindings(m_statement);
    }
    std::int64_t integer(int column) { return sqlite3_column_int64(m_statement, column); }
    double real(int column) { return sqlite3_column_double(m_statement, column); }
    std::string text(int column)
    {
        const auto* p = sqlite3_column_text(m_statement, column);
        return p ? std::string(reinterpret_cast<const char*>(p),
                       static_cast<std::size_t>(sqlite3_column_bytes(m_statement, column)))
                 : std::string();
    }

private:
    sqlite3_stmt* m_statement = nullptr;
    bool m_ok = false;
};

// `BEGIN IMMEDIATE` (the writer's lock taken at once, so a busy database fails here and not halfway), rolled back
// on destruction unless `commit` succeeded.
class Transaction {
public:
    explicit Transaction(Database& db)
        : m_db(db)
    {
    }
    ~Transaction()
    {
        if (m_open)
            (void)m_db.exec("ROLLBACK");
    }
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    Expected<void> begin()
    {
        auto begun = m_db.exec("BEGIN IMMEDIATE");
        m_open = begun.has_value();
        return begun;
    }
    Expected<void> commit()
    {
        auto done = m_db.exec("COMMIT");
        if (done)
            m_open = false;
        return done;
    }

private:
    Database& m_db;
    bool m_open = false;
};

} // namespace tidepool::store
