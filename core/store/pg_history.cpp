#include "core/store/pg_history.h"

#include <algorithm>

namespace tidepool::store::pg {

namespace {

constexpr const char* kAggregatedUntil = "aggregated_until_ms";
// Rows per sample statement: three array parameters of about 2 MB at most.
constexpr std::size_t kSamplesPerStatement = 50'000;

nlohmann::json parseJson(const std::string& text)
{
    return nlohmann::json::parse(text, nullptr, false);
}

std::string dumpJson(const nlohmann::json& value)
{
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string seriesName(const SeriesKey& key)
{
    return key.scope + "/" + key.name + "/" + key.resource;
}

} // namespace

Expected<std::int64_t> HistoryTables::seriesId(const SeriesKey& key, bool create)
{
    if (const auto it = m_seriesIds.find(key); it != m_seriesIds.end())
        return it->second;
    // The no-op update makes RETURNING give the id of a series that exists already.
    auto found = create ? m_connection.query("INSERT INTO series (scope, name, resource) VALUES ($1, $2, $3) "
                                             "ON CONFLICT (scope, name, resource) DO UPDATE SET scope = EXCLUDED.scope "
                                             "RETURNING id",
                     { key.scope, key.name, key.resource }, "cannot add series " + seriesName(key))
                        : m_connection.query("SELECT id FROM series WHERE scope = $1 AND name = $2 AND resource = $3",
                            { key.scope, key.name, key.resource }, "cannot look up series " + seriesName(key));
    if (!found)
        return tl::unexpected(found.error());
    if (found->rows() == 0)
        return -1;
    const std::int64_t id = found->integer(0, 0);
    m_seriesIds.emplace(key, id);
    return id;
}

Expected<std::int64_t> HistoryTables::watermark()
{
    if (m_watermark)
        return *m_watermark;
    auto read = m_connection.query(
        "SELECT value FROM meta WHERE key = $1", { kAggregatedUntil }, std::string("cannot read ") + kAggregatedUntil);
    if (!read)
        return tl::unexpected(read.error());
    m_watermark = read->rows() == 0 ? 0 : read->integer(0, 0);
    return *m_watermark;
}

Expected<void> HistoryTables::prepare(const PendingChanges& changes)
{
    for (const Sample& s : changes.samples)
        if (auto id = seriesId(s.series, true); !id)
            return tl::unexpected(id.error());
    for (const StoredForecast& f : changes.forecasts)
        if (auto id = seriesId(f.series, true); !id)
            return tl::unexpected(id.error());
    if (!changes.samples.empty())
        if (auto read = watermark(); !read)
            return tl::unexpected(read.error());
    return {};
}

void HistoryTables::writeSamples(Pipeline& pipeline, const std::vector<Sample>& samples)
{
    if (samples.empty())
        return;
    // One statement may not change a row twice: of samples at the same (series, time), the last one wins, as when
    // SQLite replaces them one by one.
    std::map<std::pair<std::int64_t, std::int64_t>, double> latest;
    for (const Sample& s : samples) {
        latest[{ m_seriesIds.at(s.series), s.atMs }] = s.value;
        // A sample for a bucket already aggregated (an agent's buffered backlog) makes that bucket be aggregated again.
        if (s.atMs < m_watermark.value_or(0))
            m_earliestLateMs = std::min(m_earliestLateMs, s.atMs);
    }
    std::vector<std::int64_t> ids, times;
    std::vector<double> values;
    const auto flush = [&] {
        pipeline.add("INSERT INTO samples (series, at_ms, value) "
                     "SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::float8[]) "
                     "ON CONFLICT (series, at_ms) DO UPDATE SET value = EXCLUDED.value",
            { numberArray(ids), numberArray(times), numberArray(values) },
            "cannot write " + std::to_string(ids.size()) + " samples");
        ids.clear();
        times.clear();
        values.clear();
    };
    for (const auto& [at, value] : latest) {
        ids.push_back(at.first);
        times.push_back(at.second);
        values.push_back(value);
        if (ids.size() == kSamplesPerStatement)
            flush();
    }
    if (!ids.empty())
        flush();
}

void HistoryTables::writeForecast(Pipeline& pipeline, const StoredForecast& forecast)
{
    pipeline.add("INSERT INTO forecasts (series, made_ms, model, step_ms, points) VALUES ($1, $2, $3, $4, $5) "
                 "ON CONFLICT (series, made_ms) DO UPDATE SET model = EXCLUDED.model, step_ms = EXCLUDED.step_ms, "
                 "points = EXCLUDED.points",
        { number(m_seriesIds.at(forecast.series)), number(forecast.madeMs), forecast.model, number(forecast.stepMs),
            dumpJson(forecast.points) },
        "cannot write a forecast of " + seriesName(forecast.series));
}

void HistoryTables::writeAudit(Pipeline& pipeline, const std::vector<AuditEntry>& entries)
{
    for (const AuditEntry& e : entries)
        pipeline.add("INSERT INTO audit (at_ms, actor, source, action, target, outcome, detail, role, stage, request) "
                     "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            { number(e.atMs), e.actor, e.source, e.action, e.target, e.outcome, dumpJson(e.detail), e.role, e.stage,
                e.request },
            "cannot write the audit entry of " + e.action);
}

Expected<void> HistoryTables::maintain(std::int64_t nowMs, const Retention& retention)
{
    Transaction transaction(m_connection);
    if (auto begun = transaction.begin(); !begun)
        return begun;
    m_watermark.reset(); // read again inside the transaction
    auto from = watermark();
    if (!from)
        return tl::unexpected(from.error());
    const std::int64_t aggregatedUntil = *from;
    const std::int64_t closedUntil = nowMs / kAggregateBucketMs * kAggregateBucketMs;
    const std::int64_t start = std::min(aggregatedUntil, m_earliestLateMs) / kAggregateBucketMs * kAggregateBucketMs;
    auto ids = m_connection.query("SELECT id FROM series", {}, "cannot list the series");
    if (!ids)
        return tl::unexpected(ids.error());
    {
        Pipeline pipeline(m_connection);
        // Per series, so that every statement walks the (series, time) primary key instead of the whole table.
        for (int row = 0; row < ids->rows(); ++row) {
            const std::string id = ids->text(row, 0);
            if (start < closedUntil)
                pipeline.add("INSERT INTO samples_5m (series, bucket_ms, mean, min, max, count) "
                             "SELECT series, bucket, avg(value), min(value), max(value), count(*) FROM ("
                             "  SELECT series, at_ms / $4::bigint * $4::bigint AS bucket, value FROM samples "
                             "  WHERE series = $1::bigint AND at_ms >= $2::bigint AND at_ms < $3::bigint) AS raw "
                             "GROUP BY series, bucket "
                             "ON CONFLICT (series, bucket_ms) DO UPDATE SET mean = EXCLUDED.mean, min = EXCLUDED.min, "
                             "max = EXCLUDED.max, count = EXCLUDED.count",
                    { id, number(start), number(closedUntil), number(kAggregateBucketMs) },
                    "cannot aggregate the history");
            if (retention.rawMs > 0)
                pipeline.add("DELETE FROM samples WHERE series = $1 AND at_ms < $2",
                    { id, number(nowMs - retention.rawMs) }, "cannot prune raw samples");
            if (retention.aggregateMs > 0)
                pipeline.add("DELETE FROM samples_5m WHERE series = $1 AND bucket_ms < $2",
                    { id, number(nowMs - retention.aggregateMs) }, "cannot prune 5-minute aggregates");
        }
        if (retention.forecastMs > 0)
            pipeline.add("DELETE FROM forecasts WHERE made_ms < $1", { number(nowMs - retention.forecastMs) },
                "cannot prune forecasts");
        if (retention.aggregateMs > 0) // kept for reports over the history it had, which is now pruned
            pipeline.add("DELETE FROM deleted_pools WHERE deleted_ms < $1", { number(nowMs - retention.aggregateMs) },
                "cannot prune deleted pools");
        if (retention.auditMs > 0)
            pipeline.add("DELETE FROM audit WHERE at_ms < $1", { number(nowMs - retention.auditMs) },
                "cannot prune the audit log");
        if (retention.proposalMs > 0)
            pipeline.add(kPruneProposalsSql, { number(nowMs - retention.proposalMs) }, "cannot prune closed proposals");
        pipeline.add(
            "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            { kAggregatedUntil, number(std::max(aggregatedUntil, closedUntil)) },
            std::string("cannot write ") + kAggregatedUntil);
        if (auto done = pipeline.finish(); !done) {
            m_watermark.reset();
            return done;
        }
    }
    if (auto done = transaction.commit(); !done) {
        m_watermark.reset();
        return done;
    }
    m_watermark = std::max(aggregatedUntil, closedUntil);
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
    auto read = m_connection.query(resolution == Resolution::Raw
            ? "SELECT at_ms, value, value, value, 1 FROM samples WHERE series = $1 AND at_ms >= $2 AND at_ms < $3 "
              "ORDER BY at_ms"
            : "SELECT bucket_ms, mean, min, max, count FROM samples_5m WHERE series = $1 AND bucket_ms >= $2 "
              "AND bucket_ms < $3 ORDER BY bucket_ms",
        { number(*id), number(fromMs), number(toMs) }, "cannot read the history of " + seriesName(series));
    if (!read)
        return tl::unexpected(read.error());
    points.reserve(static_cast<std::size_t>(read->rows()));
    for (int r = 0; r < read->rows(); ++r)
        points.push_back(HistoryPoint {
            read->integer(r, 0), read->real(r, 1), read->real(r, 2), read->real(r, 3), read->integer(r, 4) });
    return points;
}

Expected<std::vector<SeriesKey>> HistoryTables::seriesList()
{
    // Byte order, as SQLite sorts, whatever the database's collation.
    auto read = m_connection.query("SELECT scope, name, resource FROM series "
                                   "ORDER BY scope COLLATE \"C\", name COLLATE \"C\", resource COLLATE \"C\"",
        {}, "cannot list the series");
    if (!read)
        return tl::unexpected(read.error());
    std::vector<SeriesKey> keys;
    for (int r = 0; r < read->rows(); ++r)
        keys.push_back(SeriesKey { read->text(r, 0), read->text(r, 1), read->text(r, 2) });
    return keys;
}

Expected<std::optional<StoredForecast>> HistoryTables::latestForecast(const SeriesKey& series)
{
    auto id = seriesId(series, false);
    if (!id)
        return tl::unexpected(id.error());
    if (*id < 0)
        return std::optional<StoredForecast>();
    auto read = m_connection.query(
        "SELECT made_ms, model, step_ms, points FROM forecasts WHERE series = $1 ORDER BY made_ms DESC LIMIT 1",
        { number(*id) }, "cannot read the forecast of " + seriesName(series));
    if (!read)
        return tl::unexpected(read.error());
    if (read->rows() == 0)
        return std::optional<StoredForecast>();
    return std::optional<StoredForecast>(StoredForecast {
        series, read->integer(0, 0), read->text(0, 1), read->integer(0, 2), parseJson(read->text(0, 3)) });
}

Expected<std::vector<AuditEntry>> HistoryTables::audit(const AuditQuery& query)
{
    const auto limit = static_cast<std::int64_t>(
        std::min<std::size_t>(query.limit, static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())));
    auto read = m_connection.query(
        "SELECT id, at_ms, actor, source, action, target, outcome, detail, role, stage, request FROM audit "
        "WHERE at_ms >= $1 AND at_ms < $2 AND id > $3 ORDER BY id LIMIT $4",
        { number(query.fromMs), number(query.toMs), number(query.afterId), number(limit) },
        "cannot read the audit log");
    if (!read)
        return tl::unexpected(read.error());
    std::vector<AuditEntry> entries;
    for (int r = 0; r < read->rows(); ++r)
        entries.push_back(AuditEntry { read->integer(r, 0), read->integer(r, 1), read->text(r, 2), read->text(r, 3),
            read->text(r, 4), read->text(r, 5), read->text(r, 6), parseJson(read->text(r, 7)), read->text(r, 8),
            read->text(r, 9), read->text(r, 10) });
    return entries;
}

} // namespace tidepool::store::pg
