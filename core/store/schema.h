#pragma once
// The store's schema and its forward migrations: `kMigrations[i]` takes a database from version i to i + 1, in one
// transaction with its `PRAGMA user_version`, so that a crash mid-migration leaves the previous version intact.
//
// Thread affinity: the thread that owns the database.

#include "core/store/sqlite_db.h"

namespace tidepool::store {

// Brings the database to `target` (at most `kSchemaVersion`); refuses a database newer than this build.
Expected<void> migrate(Database& db, int target);
Expected<int> schemaVersion(Database& db);

} // namespace tidepool::store
