#pragma once
// The database a store suite runs against. CTest runs tst_store and tst_history twice: as themselves on SQLite files,
// and as tst_store_postgres and tst_history_postgres with TIDEPOOL_TEST_STORE=postgresql, on PostgreSQL. There
// TIDEPOOL_TEST_POSTGRES is a connection string of a server where the test may create databases (scripts/test starts a
// throwaway one); each test case gets a database of its own, dropped after it.
#include "core/store/store.h"

#include <QTemporaryDir>
#include <QtTest>

#include <libpq-fe.h>
#include <sqlite3.h>

#include <cctype>
#include <cstdlib>
#include <memory>
#include <string>
#include <unistd.h>

namespace tidepool::testing {

class StoreBackend {
public:
    StoreBackend()
        : StoreBackend(
            std::getenv("TIDEPOOL_TEST_STORE") && std::string(std::getenv("TIDEPOOL_TEST_STORE")) == "postgresql")
    {
    }
    explicit StoreBackend(bool postgres)
        : m_postgres(postgres)
        , m_server(std::getenv("TIDEPOOL_TEST_POSTGRES") ? std::getenv("TIDEPOOL_TEST_POSTGRES") : "")
    {
    }

    ~StoreBackend() { drop(); }
    StoreBackend(const StoreBackend&) = delete;
    StoreBackend& operator=(const StoreBackend&) = delete;

    bool postgres() const { return m_postgres; }

    // Why the suite cannot run here ("" when it can): a PostgreSQL run without a server.
    std::string unavailable() const
    {
        if (!m_postgres || !m_server.empty())
            return {};
        return "TIDEPOOL_TEST_POSTGRES is not set: it names a PostgreSQL server where the test may create databases, "
               "e.g. \"host=/tmp/pg dbname=postgres user=tidepool\". scripts/test starts a throwaway one "
               "(tidepool_start_postgres in scripts/lib.sh; Debian packages postgresql and libpq-dev)";
    }
    // Without a server a PostgreSQL run skips on a developer's machine and fails in CI, where it must run.
    static bool mustRun() { return std::getenv("CI") && std::string(std::getenv("CI")) == "true"; }

    // A new, empty database for one test case.
    bool fresh()
    {
        drop();
        if (!m_postgres) {
            m_location = m_dir.filePath(QStringLiteral("store.db")).toStdString();
            for (const char* suffix : { "", "-wal", "-shm" })
                QFile::remove(QString::fromStdString(m_location + suffix));
            return m_dir.isValid();
        }
        static int counter = 0;
        m_database = "tidepool_test_" + std::to_string(getpid()) + "_" + std::to_string(++counter);
        m_location = withDatabase(m_database);
        return !m_location.empty()
            && adminExec("CREATE DATABASE " + m_database + " TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'");
    }
    void drop()
    {
        if (m_postgres && !m_database.empty())
            adminExec("DROP DATABASE IF EXISTS " + m_database + " WITH (FORCE)");
        m_database.clear();
    }

    // The SQLite file's path or the PostgreSQL connection string of this case's database.
    const std::string& location() const { return m_location; }
    // What an error about this database names: the file's path, or the PostgreSQL database's name.
    const std::string& errorName() const { return m_postgres ? m_database : m_location; }

    // PostgreSQL: this case's database as a libpq URI, as tidepoold's --db takes it
    // (postgresql://?dbname=...&host=...).
    std::string uri() const
    {
        PQconninfoOption* options = PQconninfoParse(m_location.c_str(), nullptr);
        if (!options)
            return {};
        std::string out = "postgresql://";
        char separator = '?';
        for (PQconninfoOption* o = options; o->keyword; ++o) {
            if (!o->val || !*o->val)
                continue;
            out += separator + std::string(o->keyword) + "=";
            separator = '&';
            static const char* hex = "0123456789ABCDEF";
            for (const char* c = o->val; *c; ++c) {
                const auto b = static_cast<unsigned char>(*c);
                if (std::isalnum(b) || b == '-' || b == '_' || b == '.' || b == '~')
                    out += *c;
                else
                    out += { '%', hex[b >> 4], hex[b & 15] };
            }
        }
        PQconninfoFree(options);
        return out;
    }

    Expected<std::unique_ptr<store::Store>> open(const store::PostgresOptions& options = {}) const
    {
        return m_postgres ? store::openPostgresStore(m_location, options) : store::openSqliteStore(m_location);
    }

    // Runs SQL on a connection of its own (so that it is another client of the database than the store).
    bool execute(const std::string& sql) const
    {
        if (!m_postgres) {
            sqlite3* db = nullptr;
            sqlite3_open(m_location.c_str(), &db);
            const bool ok = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
            sqlite3_close(db);
            return ok;
        }
        return exec(m_location, sql);
    }

    // Marks the database as written by a newer tidepoold.
    bool setSchemaVersion(int version) const
    {
        return execute(m_postgres ? "UPDATE schema_version SET version = " + std::to_string(version)
                                  : "PRAGMA user_version=" + std::to_string(version));
    }

    // Another client holds the write lock: SQLite's exclusive lock, or PostgreSQL's on the pools table (the store
    // then gives up after its 2 s lock timeout). Released when the returned guard goes.
    std::shared_ptr<void> holdWriteLock() const
    {
        if (!m_postgres) {
            sqlite3* other = nullptr;
            sqlite3_open(m_location.c_str(), &other);
            if (sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) != SQLITE_OK) {
                sqlite3_close(other);
                return nullptr;
            }
            return std::shared_ptr<void>(other, [](void* db) {
                sqlite3_exec(static_cast<sqlite3*>(db), "ROLLBACK", nullptr, nullptr, nullptr);
                sqlite3_close(static_cast<sqlite3*>(db));
            });
        }
        PGconn* other = PQconnectdb(m_location.c_str());
        PGresult* r = PQexec(other, "BEGIN; LOCK TABLE pools IN ACCESS EXCLUSIVE MODE");
        const bool locked = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
        if (!locked) {
            PQfinish(other);
            return nullptr;
        }
        return std::shared_ptr<void>(other, [](void* conn) { PQfinish(static_cast<PGconn*>(conn)); });
    }

    // PostgreSQL only: ends every other session on this case's database, as a server restart or a network fault would.
    int killConnections() const
    {
        PGconn* admin = PQconnectdb(m_server.c_str());
        const char* values[] = { m_database.c_str() };
        PGresult* r = PQexecParams(admin,
            // Only the backends it ended: one whose client has just gone (a refused open) may still be listed while it
            // exits, and terminating it then returns false (it was counted, and the count was one too many).
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE datname = $1 "
            "AND pid <> pg_backend_pid()",
            1, nullptr, values, nullptr, nullptr, 0);
        const int killed = PQresultStatus(r) == PGRES_TUPLES_OK ? std::atoi(PQgetvalue(r, 0, 0)) : -1;
        PQclear(r);
        PQfinish(admin);
        return killed;
    }

private:
    static bool exec(const std::string& conninfo, const std::string& sql)
    {
        PGconn* conn = PQconnectdb(conninfo.c_str());
        PGresult* r = PQexec(conn, sql.c_str());
        const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
        if (!ok)
            qWarning("%s: %s", sql.c_str(), PQerrorMessage(conn));
        PQclear(r);
        PQfinish(conn);
        return ok;
    }
    bool adminExec(const std::string& sql) const { return exec(m_server, sql); }

    // The server's connection string with `database` instead of its own, as key='value' pairs.
    std::string withDatabase(const std::string& database) const
    {
        char* error = nullptr;
        PQconninfoOption* options = PQconninfoParse(m_server.c_str(), &error);
        if (!options) {
            qWarning("TIDEPOOL_TEST_POSTGRES is not a valid connection string: %s", error ? error : "");
            PQfreemem(error);
            return {};
        }
        std::string out = "dbname='" + database + "'";
        for (PQconninfoOption* o = options; o->keyword; ++o) {
            if (!o->val || std::string(o->keyword) == "dbname")
                continue;
            std::string value;
            for (const char* c = o->val; *c; ++c) {
                if (*c == '\'' || *c == '\\')
                    value += '\\';
                value += *c;
            }
            out += std::string(" ") + o->keyword + "='" + value + "'";
        }
        PQconninfoFree(options);
        return out;
    }

    bool m_postgres;
    std::string m_server;
    QTemporaryDir m_dir;
    std::string m_location;
    std::string m_database;
};

} // namespace tidepool::testing
