#include "core/store/sqlite_db.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

namespace tidepool::store {

namespace {

// Why a database cannot be written, in the operator's terms, when the file system can tell; "" otherwise.
std::string storageProblem(const std::string& path)
{
    const std::filesystem::path file(path);
    const std::string directory = file.has_parent_path() ? file.parent_path().string() : std::string(".");
    struct statvfs fs {};
    if (statvfs(directory.c_str(), &fs) == 0) {
        if (fs.f_flag & ST_RDONLY)
            return "the file system holding it is mounted read-only";
        if (fs.f_bavail == 0)
            return "the file system holding it is full";
    }
    if (access(path.c_str(), F_OK) == 0 && access(path.c_str(), W_OK) != 0)
        return "the file is not writable by this user";
    if (access(directory.c_str(), W_OK) != 0)
        return "its directory " + directory + " is not writable by this user";
    return {};
}

} // namespace

Expected<protocol::OwnerLock> lockDatabase(const std::string& path)
{
    const std::string lockPath = databaseLockPath(path);
    auto lock = protocol::OwnerLock::acquire(lockPath, protocol::OwnerLock::Target::File);
    if (lock)
        return std::move(*lock);
    if (lock.error().error == EROFS)
        return protocol::OwnerLock(); // nothing can write there: opening the database says so
    if (lock.error().heldByAnother())
        return makeError(ErrorCode::AlreadyExists,
            "database " + path + " is in use by another tidepoold or embedded core: " + lock.error().holder()
                + ", holds " + lockPath + " (one writer per database)");
    return makeError(
        ErrorCode::IoError, "database " + path + ": cannot lock " + lockPath + ": " + lock.error().reason());
}

Expected<std::unique_ptr<Database>> Database::open(const std::string& path, bool create)
{
    sqlite3* db = nullptr;
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
    const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
    if (rc != SQLITE_OK) {
        std::string why = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
        sqlite3_close_v2(db);
        if (const std::string problem = storageProblem(path); !problem.empty())
            why += " (" + problem + ")";
        return makeError(ErrorCode::IoError, "database " + path + ": cannot open: " + why);
    }
    return std::make_unique<Database>(db, path);
}

Expected<void> Database::exec(const std::string& sql)
{
    char* message = nullptr;
    if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
        std::string why = message ? message : sqlite3_errmsg(m_db);
        sqlite3_free(message);
        if (const std::string problem = storageProblem(m_path); !problem.empty())
            why += " (" + problem + ")";
        return makeError(ErrorCode::IoError, "database " + m_path + ": " + why);
    }
    return {};
}

tl::unexpected<Error> Database::failure(const std::string& what) const
{
    std::string message = "database " + m_path + ": " + what + ": " + sqlite3_errmsg(m_db);
    if (const std::string problem = storageProblem(m_path); !problem.empty())
        message += " (" + problem + ")";
    return makeError(ErrorCode::IoError, message);
}

} // namespace tidepool::store
