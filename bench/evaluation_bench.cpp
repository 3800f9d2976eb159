// tidepool-bench-evaluation: what the store and the 5-minute evaluation cost, on a real SQLite file or PostgreSQL
// database.
//   tidepool-bench-evaluation [--pools N] [--gpu-pools G] [--days D] [--db PATH|postgresql://...]
//                             [--closed-proposals P [--proposal-days K]] --json
// It writes D days of 5-minute CPU and memory history for N pools (a daily cycle with noise), as the history recorder
// would, and GPU history for the first G of them (default 0), which hold a GPU quota of two GPUs that the loop then
// forecasts and shifts as well (the even ones peak above it daily, the odd ones use half a GPU); aggregates it, then
// runs the evaluation (forecast every pool, plan, keep the proposals) three times, then times 200 small commits of the
// kind an API call makes (a workload and two audit entries), and prints the median of each timing as one JSON object.
// It empties the database first: the SQLite file is deleted, and in PostgreSQL the store's tables are dropped. With
// --closed-proposals P the store first holds P applied quota proposals, created evenly over the last year (a daemon's
// proposals after a year), which the rebalancer restores; --proposal-days K is the retention of closed proposals
// (`RebalanceConfig::keepClosedProposals` and `store::Retention::proposalMs`, default 90, 0 = forever). It then also
// reports the restore, the store's pruning, the proposals kept, the time to turn every proposal kept into JSON text
// (what `GET /v1/proposals` answered before it answered pages) and its first page of 1000, and the process's resident
// memory after all that (the restore of every stored proposal included).
#include "bench/timing.h"
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
#include <fstream>
#include <limits>
#include <random>
#include <string>

using namespace tidepool;
using bench::Clock;
using bench::median;
using bench::millisSince;

namespace {

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

// The process's resident set size in MiB (Linux), 0 when unknown.
double residentMiB()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmRSS:", 0) == 0)
            return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
    return 0;
}

// An applied quota proposal as the loop writes one: its reason, effect, plan and the two steps applying it took.
store::StoredProposal closedProposal(std::int64_t id, std::int64_t createdMs)
{
    const std::string pool = "pool-" + std::to_string(id % 100);
    rebalance::Proposal p;
    p.id = id;
    p.kind = rebalance::ProposalKind::Quota;
    p.state = rebalance::ProposalState::Applied;
    p.risk = rebalance::Risk::Low;
    p.key = "quota:" + pool;
    p.reason = "pool " + pool + " is forecast to peak at 5200 mCPU (p90) at 14:35, above its 4000 mCPU quota; raise it "
        + "by 1500 mCPU ahead of the peak, taken from pool-7 (forecast p90 2100 of 6000 mCPU)";
    p.effect.utilisationBefore = 0.93;
    p.effect.utilisationAfter = 0.71;
    p.effect.sloRisk = "p90 peak within 10% of the new quota";
    p.plan
        = { rebalance::Action::setCpuQuota(pool, 5500, 4000), rebalance::Action::takeCpuQuota("pool-7", 1500, 2100) };
    p.stateVersion = static_cast<std::uint64_t>(id) * 17;
    p.createdMs = createdMs;
    p.expiresMs = createdMs + 15 * 60'000;
    p.decidedBy = "rule:auto-approve-low-risk-quota";
    p.decidedMs = createdMs + 1000;
    p.steps
        = nlohmann::json::array({ { { "step", "set " + pool + " CPU quota 4000 -> 5500 mCPU" }, { "outcome", "done" } },
            { { "step", "take 1500 mCPU from pool-7" }, { "outcome", "done" } } });
    return rebalance::toStored(p);
}

} // namespace

int main(int argc, char** argv)
{
    int pools = 100;
    int gpuPools = 0;
    int days = 14;
    long closedProposals = 0;
    long proposalDays = 90;
    std::string db = (std::filesystem::temp_directory_path() / "tidepool-evaluation-bench.db").string();
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "--pools" || arg == "--gpu-pools" || arg == "--days" || arg == "--db" || arg == "--closed-proposals"
                || arg == "--proposal-days")
            && i + 1 < argc) {
            const std::string value = argv[++i];
            if (arg == "--db")
                db = value;
            else if (arg == "--closed-proposals")
                closedProposals = std::max(0L, std::atol(value.c_str()));
            else if (arg == "--proposal-days")
                proposalDays = std::max(0L, std::atol(value.c_str()));
            else if (arg == "--pools")
                pools = std::max(1, std::atoi(value.c_str()));
            else if (arg == "--gpu-pools")
                gpuPools = std::max(0, std::atoi(value.c_str()));
            else
                days = std::max(2, std::atoi(value.c_str()));
        } else if (arg != "--json") {
            std::fprintf(stderr,
                "usage: tidepool-bench-evaluation [--pools N] [--gpu-pools G] [--days D] [--db PATH|URI] "
                "[--closed-proposals P [--proposal-days K]] --json\n");
            return 2;
        }
    }
    gpuPools = std::min(gpuPools, pools);
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
    // A year of closed proposals, written before the control plane loads the store.
    constexpr std::int64_t kDayMs = 86'400'000;
    const std::int64_t startMs = api::unixMillis();
    for (long i = 0; i < closedProposals; ++i) {
        s.putProposal(closedProposal(i + 1, startMs - 365 * kDayMs + i * (365 * kDayMs / closedProposals)));
        if ((i + 1) % 10'000 == 0 || i + 1 == closedProposals)
            if (auto done = s.commit(); !done) {
                std::fprintf(stderr, "tidepool-bench-evaluation: %s\n", done.error().message.c_str());
                return 1;
            }
    }
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
        if (p < gpuPools)
            request.acceleratorQuota[static_cast<std::size_t>(AcceleratorKind::Gpu)] = 2000;
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
            for (int p = 0; p < pools; ++p) {
                const double day = std::cos(2 * pi * static_cast<double>(t + p * 600'000) / 86'400'000.0);
                samples.push_back(
                    { { "pool", "pool-" + std::to_string(p), "cpu" }, t, 3000 + 1500 * day + noise(random) });
                // Memory follows the same day, less deeply (caches stay warm at night).
                samples.push_back(
                    { { "pool", "pool-" + std::to_string(p), "memory" }, t, 8192 + 2048 * day + 4 * noise(random) });
                // GPUs in milli-devices: the even pools up to about two and a half GPUs at the daily peak, the odd
                // ones a steady half GPU, which leaves them GPUs to give.
                if (p < gpuPools)
                    samples.push_back({ { "pool", "pool-" + std::to_string(p), "gpu" }, t,
                        std::max(0.0, p % 2 ? 500 + noise(random) / 3 : 1500 + 700 * day + noise(random)) });
            }
        rows += samples.size();
        s.addSamples(samples);
        if (auto done = s.commit(); !done) {
            std::fprintf(stderr, "tidepool-bench-evaluation: %s\n", done.error().message.c_str());
            return 1;
        }
    }
    const double writeMs = millisSince(writeStart);
    const auto maintainStart = Clock::now();
    if (auto done = s.maintain(now, store::Retention { 0, 0, 0, 0, 0 }); !done)
        return 1;
    const double maintainMs = millisSince(maintainStart);

    api::RebalanceConfig rebalanceConfig;
    rebalanceConfig.keepClosedProposals = std::chrono::milliseconds(proposalDays * kDayMs);
    const auto restoreStart = Clock::now();
    auto rebalancer = api::Rebalancer::create(io, **plane, rebalanceConfig, {});
    if (!rebalancer)
        return 1;
    const double restoreMs = millisSince(restoreStart);
    const std::size_t restored = (*rebalancer)->proposals().size();
    std::vector<double> evaluations;
    for (int round = 0; round < 3; ++round) {
        const auto start = Clock::now();
        (void)(*rebalancer)->evaluateNow(now + round * kStep);
        evaluations.push_back(millisSince(start));
        (void)s.commit();
    }
    const double evaluationMs = median(evaluations);
    // The store's pruning, as the history recorder's maintenance runs it.
    store::Retention retention { 0, 0, 0, 0, proposalDays * kDayMs };
    const auto pruneStart = Clock::now();
    if (auto done = s.maintain(now + 3 * kStep, retention); !done) {
        std::fprintf(stderr, "tidepool-bench-evaluation: %s\n", done.error().message.c_str());
        return 1;
    }
    const double pruneMs = millisSince(pruneStart);
    // Every proposal kept as JSON text (what GET /v1/proposals answered, every second for each remote console, before
    // it answered pages), and the newest 1000 (its first page now).
    std::vector<double> lists, pages;
    std::size_t listBytes = 0, pageBytes = 0;
    for (int round = 0; round < 3; ++round)
        for (const std::size_t limit : { std::numeric_limits<std::size_t>::max(), std::size_t { 1000 } }) {
            const auto start = Clock::now();
            nlohmann::json list = nlohmann::json::array();
            const auto& all = (*rebalancer)->proposals();
            for (auto it = all.rbegin(); it != all.rend() && list.size() < limit; ++it)
                list.push_back(rebalance::toJson(it->second));
            const std::size_t bytes = nlohmann::json { { "proposals", std::move(list) } }.dump().size();
            (limit == 1000 ? pages : lists).push_back(millisSince(start));
            (limit == 1000 ? pageBytes : listBytes) = bytes;
        }
    const double residentAfterEvaluations = residentMiB();

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
    const nlohmann::json out { { "pools", pools }, { "gpu_pools", gpuPools }, { "days", days },
        { "history_rows", rows }, { "history_write_rows_per_s", static_cast<double>(rows) / (writeMs / 1000.0) },
        { "aggregate_ms", maintainMs }, { "evaluation_ms_median", evaluationMs },
        { "evaluation_ms_per_pool", evaluationMs / pools }, { "proposals", (*rebalancer)->proposals().size() },
        { "small_commit_ms_median", median(commits) }, { "store", postgres ? "postgresql" : "sqlite" },
        { "db_bytes", dbBytes }, { "closed_proposals_written", closedProposals }, { "proposal_days", proposalDays },
        { "proposals_restored", restored }, { "restore_ms", restoreMs }, { "store_prune_ms", pruneMs },
        { "proposals_kept", (*rebalancer)->proposals().size() }, { "list_proposals_ms_median", median(lists) },
        { "list_proposals_bytes", listBytes }, { "first_page_ms_median", median(pages) },
        { "first_page_bytes", pageBytes }, { "resident_mib", residentAfterEvaluations } };
    std::printf("%s\n", out.dump().c_str());
    (*plane)->stop();
    return 0;
}
