#pragma once
// The PostgreSQL store's time-series side, as `HistoryTables` is SQLite's: series ids, raw samples, 5-minute
// aggregates, forecasts, the audit log and their retention. Writes are queued into the caller's pipeline inside its
// transaction; the samples of a commit go in one statement per 50,000 (`unnest` of three arrays). Not a public
// interface.
//
// Thread affinity: the thread that owns the connection.

#include "core/store/pending_changes.h"
#include "core/store/pg_db.h"

#include <limits>
#include <map>
#include <optional>

namespace tidepool::store::pg {

class HistoryTables {
public:
    explicit HistoryTables(Connection& connection)
        : m_connection(connection)
    {
    }

    // Inside the caller's transaction, before its pipeline: the ids of every series `changes` writes (new ones are
    // added) and the aggregation watermark.
    Expected<void> prepare(const PendingChanges& changes);
    // Queued into the caller's pipeline, after `prepare`. Samples at an existing (series, time) replace it.
    void writeSamples(Pipeline& pipeline, const std::vector<Sample>& samples);
    void writeForecast(Pipeline& pipeline, const StoredForecast& forecast);
    void writeAudit(Pipeline& pipeline, const std::vector<AuditEntry>& entries);

    // Aggregates closed buckets and prunes, in a transaction of its own.
    Expected<void> maintain(std::int64_t nowMs, const Retention& retention);

    Expected<std::vector<HistoryPoint>> history(
        const SeriesKey& series, std::int64_t fromMs, std::int64_t toMs, Resolution resolution);
    Expected<std::vector<SeriesKey>> seriesList();
    Expected<std::optional<StoredForecast>> latestForecast(const SeriesKey& series);
    Expected<std::vector<AuditEntry>> audit(const AuditQuery& query);

    // A transaction failed or the connection was taken up again: what was cached from the database may be wrong.
    void forget()
    {
        m_seriesIds.clear();
        m_watermark.reset();
    }

private:
    Expected<std::int64_t> seriesId(const SeriesKey& key, bool create);
    Expected<std::int64_t> watermark();

    Connection& m_connection;
    std::map<SeriesKey, std::int64_t> m_seriesIds;
    std::optional<std::int64_t> m_watermark; // `aggregated_until_ms`; this store is the only writer of it
    std::int64_t m_earliestLateMs
        = std::numeric_limits<std::int64_t>::max(); // samples older than the watermark arrived since then
};

} // namespace tidepool::store::pg
