// tidepool-bench-evaluation: what the store and the 5-minute evaluation cost, on a real SQLite file or PostgreSQL
// database.
//   tidepool-bench-evaluation [--pools N] [--days D] [--db PATH|postgresql://...] --json
// It writes D days of 5-minute CPU history for N pools (a daily cycle with noise), as the history recorder would,
// aggregates it, then runs the evaluation (forecast every pool, plan, keep the proposals) three times, then times 200
// small commits of the kind an API call makes (a workload and two audit entries), and prints the median of each
// timing as one JSON object. It empties the database first: the SQLite file is deleted, and in PostgreSQL the store's
// tables are dropped.
#include "core/api/control_plane.h"
#include "core/api/rebalancer.h"
#include "core/store/store.h"

#include <boost/asio/io_context.hpp>

#include <libpq-fe.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

using namespace tidepool;
using Clock = std::chrono::steady_clock;

namespace {

double millisSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Runs `sql` on a connection of its own and returns the first value of its result ("" on failure, said on stderr).
std::string postgresScalar(const std::string& conninfo, const char* sql)
{
    PGconn* conn = PQconnectdb(conninfo.c_str());
    PGresult* r = PQexec(conn, sql);
    std::string value;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0)
        value = PQgetvalue(r, 0, 0);
    else if (PQresultStatus(r) != PGRES_COMMAND_OK)
        std::fprintf(stderr, "tidepool-bench-evaluation: %s", PQerrorMessage(conn));
    PQclear(r);
    PQfinish(conn);
    return value;
}

} // namespace

int main(int argc, char** argv)
{
    int pools = 100;
    int days = 14;
    std::string db = (std::filesystem::temp_directory_path() / "tidepool-evaluation-bench.db").string();
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "--pools" || arg == "--days" || arg == "--db") && i + 1 < argc) {
            const std::string value = argv[++i];
            if (arg == "--db")
                db = value;
            else if (arg == "--pools")
                pools = std::max(1, std::atoi(value.c_str()));
            else
                days = std::max(2, std::atoi(value.c_str()));
        } else if (arg != "--json") {
            std::fprintf(stderr, "usage: tidepool-bench-evaluation [--pools N] [--days D] [--db PATH|URI] --json\n");
            return 2;
        }
    }
    const bool postgres = store::isPostgresLocation(db);
    if (postgres)
        postgresScalar(db, "SET client_min_messages TO warning; DROP TABLE IF EXISTS schema_version, pools, nodes, devices, "
                           "workloads, placements, series, samples, samples_5m, forecasts, proposals, audit, meta");
    else
        for (const char* suffix : { "", "-wal", "-shm" })
            std::filesystem::remove(db + suffix);
    auto opened = store::openStore(db);
    if (!opened) {
        std::fprintf(stderr, "tidepool-bench-evaluation: %s\n", opened.error().message.c_str());
        return 1;
    }
    store::Store& s = **opened;
    boost::asio::io_context io;
    api::AgentLink link { [](const std::string&, const protocol::Message&) { return true; },
        [](const std::string&, const std::string&) { return true; } };
    auto plane = api::ControlPlane::create(io, api::ControlPlaneConfig {}, link, {}, &s);
    if (!plane)
        return 1;
    for (int p = 0; p < pools; ++p) {
        api::PoolRequest request;
        request.name = "pool-" + std::to_string(p);
        request.businessLine = "line-" + std::to_string(p % 7);
        request.cpuMillis = 4000;
        (void)(*plane)->createPool(request);
    }

    // History: D days of one sample per 5 minutes and pool, written in daily batches as commits.
    constexpr std::int64_t kStep = store::kAggregateBucketMs;
    const std::int64_t now = api::unixMillis() / kStep * kStep;
    std::mt19937 random(42);
    std::normal_distribution<double> noise(0.0, 150.0);
    const double pi = std::acos(-1.0);
    std::size_t rows = 0;
    const auto writeStart = Clock::now();
    for (int d = days; d > 0; --d) {
        std::vector<store::Sample> samples;
        for (std::int64_t t = now - d * 86'400'000LL; t < now - (d - 1) * 86'400'000LL; t += kStep)
            for (int p = 0; p < pools; ++p)
                samples.push_back({ { "pool", "pool-" + std::to_string(p), "cpu" }, t,
                    3000 + 1500 * std::cos(2 * pi * static_cast<double>(t + p * 600'000) / 86'400'000.0) + noise(random) });
        rows += samples.size();
        s.addSamples(samples);
        if (auto done = s.commit(); !done) {
            std::fprintf(stderr, "tidepool-bench-evaluation: %s\n", done.error().message.c_str());
            return 1;
        }
    }
    const double writeMs = millisSince(writeStart);
    const auto maintainStart = Clock::now();
    if (auto done = s.maintain(now, store::Retention { 0, 0, 0, 0 }); !done)
        return 1;
    const double maintainMs = millisSince(maintainStart);

    auto rebalancer = api::Rebalancer::create(io, **plane, api::RebalanceConfig {}, {});
    if (!rebalancer)
        return 1;
    std::vector<double> evaluations;
    for (int round = 0; round < 3; ++round) {
        const auto start = Clock::now();
        (void)(*rebalancer)->evaluateNow(now + round * kStep);
        evaluations.push_back(millisSince(start));
        (void)s.commit();
    }
    const double evaluationMs = median(evaluations);

    // What the API waits for: a commit of one workload's change and its two audit entries.
    std::vector<double> commits;
    for (int i = 0; i < 200; ++i) {
        store::StoredWorkload w;
        w.id = 1'000'000'000;
        w.spec = { { "name", "bench" }, { "cpuMillis", 100 } };
        w.phase = i % 2 ? "running" : "pending";
        w.submittedMs = now + i;
        s.putWorkload(w);
        for (const char* stage : { "received", "completed" })
            s.addAudit(store::AuditEntry { 0, now + i, "token:bench", "127.0.0.1:1", "POST /v1/workloads", "workload",
                "ok", {}, "operator", stage, "r" + std::to_string(i) });
        const auto start = Clock::now();
        if (auto done = s.commit(); !done) {
            std::fprintf(stderr, "tidepool-bench-evaluation: %s\n", done.error().message.c_str());
            return 1;
        }
        commits.push_back(millisSince(start));
    }
    s.removeWorkload(1'000'000'000);
    (void)s.commit();
    const std::uintmax_t dbBytes = postgres
        ? std::strtoull(postgresScalar(db, "SELECT pg_database_size(current_database())").c_str(), nullptr, 10)
        : std::filesystem::file_size(db) + (std::filesystem::exists(db + "-wal") ? std::filesystem::file_size(db + "-wal") : 0);
    const nlohmann::json out { { "pools", pools }, { "days", days }, { "history_rows", rows },
        { "history_write_rows_per_s", static_cast<double>(rows) / (writeMs / 1000.0) },
        { "aggregate_ms", maintainMs }, { "evaluation_ms_median", evaluationMs },
        { "evaluation_ms_per_pool", evaluationMs / pools }, { "proposals", (*rebalancer)->proposals().size() },
        { "small_commit_ms_median", median(commits) }, { "store", postgres ? "postgresql" : "sqlite" },
        { "db_bytes", dbBytes } };
    std::printf("%s\n", out.dump().c_str());
    (*plane)->stop();
    return 0;
}
