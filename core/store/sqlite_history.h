#pragma once
// The store's time-series side over SQLite: series ids, raw samples, 5-minute aggregates, forecasts, the audit log
// and their retention. Used by `SqliteStore` inside its transactions; not a public interface.
//
// Thread affinity: the thread that owns the database.

#include "core/store/sqlite_db.h"
#include "core/store/store.h"

#include <limits>
#include <map>

namespace tidepool::store {

class HistoryTables {
public:
    explicit HistoryTables(Database& db)
        : m_db(db)
    {
    }

    // Writes, inside the caller's transaction. Samples at an existing (series, time) replace it.
    Expected<void> writeSamples(const std::vector<Sample>& samples);
    Expected<void> writeForecast(const StoredForecast& forecast);
    Expected<void> writeAudit(const std::vector<AuditEntry>& entries);

    // Aggregates closed buckets and prunes, in a transaction of its own.
    Expected<void> maintain(std::int64_t nowMs, const Retention& retention);

    Expected<std::vector<HistoryPoint>> history(
        const SeriesKey& series, std::int64_t fromMs, std::int64_t toMs, Resolution resolution);
    Expected<std::vector<SeriesKey>> seriesList();
    Expected<std::optional<StoredForecast>> latestForecast(const SeriesKey& series);
    Expected<std::vector<AuditEntry>> audit(const AuditQuery& query);

    // A transaction failed: ids cached from inside it may not exist.
    void forgetUncommitted() { m_seriesIds.clear(); }

private:
    Expected<std::int64_t> seriesId(const SeriesKey& key, bool create);
    Expected<std::int64_t> metaInteger(const std::string& key, std::int64_t fallback);
    Expected<void> setMeta(const std::string& key, std::int64_t value);

    Database& m_db;
    std::map<SeriesKey, std::int64_t> m_seriesIds;
    std::int64_t m_earliestLateMs = std::numeric_limits<std::int64_t>::max(); // samples older than the aggregated watermark arrived since then
};

} // namespace tidepool::store
