#pragma once
// The PostgreSQL store's schema: the same tables and meaning as SQLite's at the same version (`kSchemaVersion`), kept
// in a one-row `schema_version` table, and forward migrations applied in one transaction with the version, so that a
// crash mid-migration leaves the previous version intact. A database from a newer version is refused.
//
// Thread affinity: the thread that owns the connection.

#include "core/store/pg_db.h"

namespace tidepool::store::pg {

// Brings the database to `target` (`kSchemaVersion` but in tests; PostgreSQL support began at version 6, so an empty
// database goes to 6 or beyond), creating the tables in an empty one.
Expected<void> migrate(Connection& connection, int target);

} // namespace tidepool::store::pg
