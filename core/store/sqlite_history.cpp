#include "core/store/sqlite_history.h"

#include <algorithm>

namespace tidepool::store {

namespace {

constexpr const char* kAggregatedUntil = "aggregated_until_ms";

nlohmann::json parseJson(const std::string& text)
{
    return nlohmann::json::parse(text, nullptr, false);
}

std::string dumpJson(const nlohmann::json& value)
{
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace

Expected<std::int64_t> HistoryTables::seriesId(const SeriesKey& key, bool create)
{
    if (const auto it = m_seriesIds.find(key); it != m_seriesIds.end())
        return it->second;
    if (create) {
        Statement insert(m_db, "INSERT OR IGNORE INTO series (scope, name, resource) VALUES (?,?,?)");
        insert.bind(1, key.scope);
        insert.bind(2, key.name);
        insert.bind(3, key.resource);
        if (!insert.ok() || !insert.run())
            return m_db.failure("cannot add series " + key.scope + "/" + key.name + "/" + key.resource);
    }
    Statement select(m_db, "SELECT id FROM series WHERE scope = ? AND name = ? AND resource = ?");
    select.bind(1, key.scope);
    select.bind(2, key.name);
    select.bind(3, key.resource);
    if (!select.ok())
        return m_db.failure("cannot look up a series");
    const int rc = select.step();
    if (rc == SQLITE_DONE)
        return -1;
    if (rc != SQLITE_ROW)
        return m_db.failure("cannot look up series " + key.scope + "/" + key.name + "/" + key.resource);
    const std::int64_t id = select.integer(0);
    m_seriesIds.emplace(key, id);
    return id;
}

Expected<std::int64_t> HistoryTables::metaInteger(const std::string& key, std::int64_t fallback)
{
    Statement select(m_db, "SELECT value FROM meta WHERE key = ?");
    select.bind(1, key);
    if (!select.ok())
        return m_db.failure("cannot read " + key);
    const int rc = select.step();
    if (rc == SQLITE_DONE)
        return fallback;
    if (rc != SQLITE_ROW)
        return m_db.failure("cannot read " + key);
    return std::stoll(select.text(0));
}

Expected<void> HistoryTables::setMeta(const std::string& key, std::int64_t value)
{
    Statement upsert(m_db, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
    upsert.bind(1, key);
    upsert.bind(2, std::to_string(value));
    if (!upsert.ok() || !upsert.run())
        return m_db.failure("cannot write " + key);
    return {};
}

Expected<void> HistoryTables::writeSamples(const std::vector<Sample>& samples)
{
    if (samples.empty())
        return {};
    Statement insert(m_db, "INSERT OR REPLACE INTO samples (series, at_ms, value) VALUES (?,?,?)");
    if (!insert.ok())
        return m_db.failure("cannot prepare the sample writes");
    auto watermark = metaInteger(kAggregatedUntil, 0);
    if (!watermark)
        return tl::unexpected(watermark.error());
    for (const Sample& s : samples) {
        auto id = seriesId(s.series, true);
        if (!id)
            return tl::unexpected(id.error());
        insert.bind(1, *id);
        insert.bind(2, s.atMs);
        insert.bind(3, s.value);
        if (!insert.run())
            return m_db.failure("cannot write a sample of " + s.series.scope + "/" + s.series.name);
        // A sample for a bucket already aggregated (an agent's buffered backlog) makes that bucket be aggregated again.
        if (s.atMs < *watermark)
            m_earliestLateMs = std::min(m_earliestLateMs, s.atMs);
    }
    return {};
}

Expected<void> HistoryTables::writeForecast(const StoredForecast& forecast)
{
    auto id = seriesId(forecast.series, true);
    if (!id)
        return tl::unexpected(id.error());
    Statement insert(m_db, "INSERT OR REPLACE INTO forecasts (series, made_ms, model, step_ms, points) VALUES (?,?,?,?,?)");
    insert.bind(1, *id);
    insert.bind(2, forecast.madeMs);
    insert.bind(3, forecast.model);
    insert.bind(4, forecast.stepMs);
    insert.bind(5, dumpJson(forecast.points));
    if (!insert.ok() || !insert.run())
        return m_db.failure("cannot write a forecast of " + forecast.series.scope + "/" + forecast.series.name);
    return {};
}

Expected<void> HistoryTables::writeAudit(const std::vector<AuditEntry>& entries)
{
    if (entries.empty())
        return {};
    Statement insert(m_db,
        "INSERT INTO audit (at_ms, actor, source, action, target, outcome, detail, role, stage, request) "
        "VALUES (?,?,?,?,?,?,?,?,?,?)");
    if (!insert.ok())
        return m_db.failure("cannot prepare the audit writes");
    for (const AuditEntry& e : entries) {
        insert.bind(1, e.atMs);
        insert.bind(2, e.actor);
        insert.bind(3, e.source);
        insert.bind(4, e.action);
        insert.bind(5, e.target);
        insert.bind(6, e.outcome);
        insert.bind(7, dumpJson(e.detail));
        insert.bind(8, e.role);
        insert.bind(9, e.stage);
        insert.bind(10, e.request);
        if (!insert.run())
            return m_db.failure("cannot write the audit entry of " + e.action);
    }
    return {};
}

Expected<void> HistoryTables::maintain(std::int64_t nowMs, const Retention& retention)
{
    Transaction transaction(m_db);
    if (auto begun = transaction.begin(); !begun)
        return begun;
    auto watermark = metaInteger(kAggregatedUntil, 0);
    if (!watermark)
        return tl::unexpected(watermark.error());
    const std::int64_t closedUntil = nowMs / kAggregateBucketMs * kAggregateBucketMs;
    std::int64_t from = std::min(*watermark, m_earliestLateMs);
    from = from / kAggregateBucketMs * kAggregateBucketMs;
    Statement ids(m_db, "SELECT id FROM series");
    Statement aggregate(m_db,
        "INSERT OR REPLACE INTO samples_5m (series, bucket_ms, mean, min, max, count) "
        "SELECT series, (at_ms / ?4) * ?4, avg(value), min(value), max(value), count(*) FROM samples "
        "WHERE series = ?1 AND at_ms >= ?2 AND at_ms < ?3 GROUP BY at_ms / ?4");
    Statement pruneRaw(m_db, "DELETE FROM samples WHERE series = ? AND at_ms < ?");
    Statement pruneAggregates(m_db, "DELETE FROM samples_5m WHERE series = ? AND bucket_ms < ?");
    if (!ids.ok() || !aggregate.ok() || !pruneRaw.ok() || !pruneAggregates.ok())
        return m_db.failure("cannot prepare the history housekeeping");
    std::vector<std::int64_t> series;
    while (ids.step() == SQLITE_ROW)
        series.push_back(ids.integer(0));
    // Per series, so that every statement walks the (series, time) primary key instead of the whole table.
    for (const std::int64_t id : series) {
        if (from < closedUntil) {
            aggregate.bind(1, id);
            aggregate.bind(2, from);
            aggregate.bind(3, closedUntil);
            aggregate.bind(4, kAggregateBucketMs);
            if (!aggregate.run())
                return m_db.failure("cannot aggregate the history");
        }
        if (retention.rawMs > 0) {
            pruneRaw.bind(1, id);
            pruneRaw.bind(2, nowMs - retention.rawMs);
            if (!pruneRaw.run())
                return m_db.failure("cannot prune raw samples");
        }
        if (retention.aggregateMs > 0) {
            pruneAggregates.bind(1, id);
            pruneAggregates.bind(2, nowMs - retention.aggregateMs);
            if (!pruneAggregates.run())
                return m_db.failure("cannot prune 5-minute aggregates");
        }
    }
    if (retention.forecastMs > 0) {
        Statement prune(m_db, "DELETE FROM forecasts WHERE made_ms < ?");
        prune.bind(1, nowMs - retention.forecastMs);
        if (!prune.ok() || !prune.run())
            return m_db.failure("cannot prune forecasts");
    }
    if (retention.aggregateMs > 0) {
        // A deleted pool is kept for reports over the history it had; once that is pruned, so is it.
        Statement prune(m_db, "DELETE FROM deleted_pools WHERE deleted_ms < ?");
        prune.bind(1, nowMs - retention.aggregateMs);
        if (!prune.ok() || !prune.run())
            return m_db.failure("cannot prune deleted pools");
    }
    if (retention.auditMs > 0) {
        Statement prune(m_db, "DELETE FROM audit WHERE at_ms < ?");
        prune.bind(1, nowMs - retention.auditMs);
        if (!prune.ok() || !prune.run())
            return m_db.failure("cannot prune the audit log");
    }
    if (retention.proposalMs > 0) {
        Statement prune(m_db, kPruneProposalsSql);
        prune.bind(1, nowMs - retention.proposalMs);
        if (!prune.ok() || !prune.run())
            return m_db.failure("cannot prune closed proposals");
    }
    if (auto set = setMeta(kAggregatedUntil, std::max(*watermark, closedUntil)); !set)
        return set;
    if (auto done = transaction.commit(); !done)
        return done;
    m_earliestLateMs = std::numeric_limits<std::int64_t>::max();
    return {};
}

Expected<std::vector<HistoryPoint>> HistoryTables::history(
    const SeriesKey& series, std::int64_t fromMs, std::int64_t toMs, Resolution resolution)
{
    auto id = seriesId(series, false);
    if (!id)
        return tl::unexpected(id.error());
    std::vector<HistoryPoint> points;
    if (*id < 0)
        return points;
    Statement select(m_db,
        resolution == Resolution::Raw
            ? "SELECT at_ms, value, value, value, 1 FROM samples WHERE series = ? AND at_ms >= ? AND at_ms < ? ORDER BY at_ms"
            : "SELECT bucket_ms, mean, min, max, count FROM samples_5m WHERE series = ? AND bucket_ms >= ? AND bucket_ms < ? "
              "ORDER BY bucket_ms");
    select.bind(1, *id);
    select.bind(2, fromMs);
    select.bind(3, toMs);
    if (!select.ok())
        return m_db.failure("cannot read the history");
    int rc = 0;
    while ((rc = select.step()) == SQLITE_ROW)
        points.push_back(HistoryPoint { select.integer(0), select.real(1), select.real(2), select.real(3), select.integer(4) });
    if (rc != SQLITE_DONE)
        return m_db.failure("cannot read the history of " + series.scope + "/" + series.name);
    return points;
}

Expected<std::vector<SeriesKey>> HistoryTables::seriesList()
{
    Statement select(m_db, "SELECT scope, name, resource FROM series ORDER BY scope, name, resource");
    if (!select.ok())
        return m_db.failure("cannot list the series");
    std::vector<SeriesKey> keys;
    int rc = 0;
    while ((rc = select.step()) == SQLITE_ROW)
        keys.push_back(SeriesKey { select.text(0), select.text(1), select.text(2) });
    if (rc != SQLITE_DONE)
        return m_db.failure("cannot list the series");
    return keys;
}

Expected<std::optional<StoredForecast>> HistoryTables::latestForecast(const SeriesKey& series)
{
    auto id = seriesId(series, false);
    if (!id)
        return tl::unexpected(id.error());
    if (*id < 0)
        return std::optional<StoredForecast>();
    Statement select(m_db,
        "SELECT made_ms, model, step_ms, points FROM forecasts WHERE series = ? ORDER BY made_ms DESC LIMIT 1");
    select.bind(1, *id);
    if (!select.ok())
        return m_db.failure("cannot read the forecasts");
    const int rc = select.step();
    if (rc == SQLITE_DONE)
        return std::optional<StoredForecast>();
    if (rc != SQLITE_ROW)
        return m_db.failure("cannot read the forecast of " + series.scope + "/" + series.name);
    return std::optional<StoredForecast>(
        StoredForecast { series, select.integer(0), select.text(1), select.integer(2), parseJson(select.text(3)) });
}

Expected<std::vector<AuditEntry>> HistoryTables::audit(const AuditQuery& query)
{
    Statement select(m_db,
        "SELECT id, at_ms, actor, source, action, target, outcome, detail, role, stage, request FROM audit "
        "WHERE at_ms >= ? AND at_ms < ? AND id > ? ORDER BY id LIMIT ?");
    select.bind(1, query.fromMs);
    select.bind(2, query.toMs);
    select.bind(3, query.afterId);
    select.bind(4, static_cast<std::int64_t>(query.limit));
    if (!select.ok())
        return m_db.failure("cannot read the audit log");
    std::vector<AuditEntry> entries;
    int rc = 0;
    while ((rc = select.step()) == SQLITE_ROW)
        entries.push_back(AuditEntry { select.integer(0), select.integer(1), select.text(2), select.text(3),
            select.text(4), select.text(5), select.text(6), parseJson(select.text(7)), select.text(8), select.text(9),
            select.text(10) });
    if (rc != SQLITE_DONE)
        return m_db.failure("cannot read the audit log");
    return entries;
}

} // namespace tidepool::store
