// Reports (core/report): the numbers of a report over a small history whose answers are known by hand, the scope
// and period checks, the JSON round trip, and the CSV and HTML renderers with hostile names (formula injection,
// quoting, markup).
#include "core/report/csv_report.h"
#include "core/report/html_report.h"
#include "core/report/labels.h"
#include "core/report/report_builder.h"
#include "core/report/report_facts.h"
#include "core/report/report_json.h"
#include "core/store/store.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tidepool;
using namespace tidepool::report;

namespace {

constexpr std::int64_t kMin = 60'000;
constexpr std::int64_t kHour = 60 * kMin;
constexpr std::int64_t kStep = store::kAggregateBucketMs;

// 2026-12-01 00:00 UTC.
std::int64_t day()
{
    return *parseReportTime("2026-12-01", "from");
}

// A small RFC 4180 reader: the records of `text` (CRLF or LF line ends), fields unquoted.
std::vector<std::vector<std::string>> parseCsv(const std::string& text)
{
    std::vector<std::vector<std::string>> rows(1);
    std::string field;
    bool quoted = false, wasQuoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"' && field.empty() && !wasQuoted) {
            quoted = wasQuoted = true;
        } else if (c == ',') {
            rows.back().push_back(field);
            field.clear();
            wasQuoted = false;
        } else if (c == '\r') {
        } else if (c == '\n') {
            rows.back().push_back(field);
            field.clear();
            wasQuoted = false;
            rows.emplace_back();
        } else {
            field += c;
        }
    }
    if (!field.empty() || !rows.back().empty())
        rows.back().push_back(field);
    if (rows.back().empty())
        rows.pop_back();
    return rows;
}

QString s(const char* text)
{
    return QString::fromUtf8(text);
}

bool isNumber(const std::string& text)
{
    if (text.empty())
        return false;
    char* end = nullptr;
    std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size();
}

ReportData hostileReport(Language language)
{
    ReportData d;
    d.request = { day(), day() + 24 * kHour, ScopeKind::Cluster, "", language };
    d.stepMs = 12 * kHour;
    d.buckets = { day(), day() + 12 * kHour };
    d.utilisation.push_back({ "cpu", "cores", 8, 2, 3, 1, 1.5, { 2, 2 }, { 1, kNotMeasured } });
    d.forecasts.push_back({ "=HYPERLINK(\"http://evil.example/\",\"x\")", "cpu", "seasonal", 3, 80, 0.5, 10, "" });
    d.proposals.push_back({ 7, "quota", "applied", "low", "-2+3,\"quoted\"\nsecond line", day(), day() + kHour,
        "@SUM(A1:A9)", 0.5, 0.45, -150 });
    d.energy = { 1.5, 0.6, 62.5, 400, { 0.75, 0.75 } };
    d.currency = "CNY";
    d.costs.push_back({ "+cmd|' /C calc'!A0", 48, 96, 0, 5.76, {} });
    d.costs.push_back({ "<script>alert(1)</script>\" onload=\"x", 1, 1, 0, kNotMeasured, {} });
    d.costs.push_back({ "\tTabbed", 1, 1, 0, 1, {} });
    return d;
}

} // namespace

class TestReport : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<store::Store> m_store;
    ClusterFacts m_facts;
    ReportSettings m_settings;

    ReportRequest request(ScopeKind scope = ScopeKind::Cluster, std::string name = {})
    {
        return { day(), day() + 24 * kHour, scope, std::move(name), Language::En };
    }

    static const ResourceUse* resource(const ReportData& d, const std::string& name)
    {
        for (const ResourceUse& u : d.utilisation)
            if (u.resource == name)
                return &u;
        return nullptr;
    }

private slots:
    // One day of constant history, known by hand: pool web (business line shop, warm, on node n1) asks for 2 cores and
    // 4 GiB, of which 1.5 cores are placed; pool infer (ai, hot, on node g1 with two GPUs) for 4 cores and one GPU, all
    // placed; g1 also holds 2.4 cores and half a GPU of cold batch (lent); n1 uses 1 core and 2 GiB, g1 uses 8 cores
    // and its GPUs at 50 %.
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        auto opened = store::openSqliteStore(m_dir.filePath(QStringLiteral("report.db")).toStdString());
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        m_store = std::move(*opened);
        std::vector<store::Sample> samples;
        const auto add = [&](std::string scope, std::string name, std::string resource, double value) {
            for (std::int64_t t = day(); t < day() + 24 * kHour; t += kStep)
                samples.push_back({ { scope, name, resource }, t, value });
        };
        add("pool", "web", "cpu", 2000);
        add("pool", "web", "memory", 4096);
        add("pool", "infer", "cpu", 4000);
        add("pool", "infer", "gpu", 1000);
        add("tier", "warm", "cpu", 2000);
        add("tier", "hot", "cpu", 4000);
        add("tier", "hot", "gpu", 1000);
        add("pool", "web", "cpu_placed", 1500);
        add("pool", "infer", "cpu_placed", 4000);
        add("pool", "infer", "gpu_placed", 1000);
        add("tier", "warm", "cpu_placed", 1500);
        add("tier", "hot", "cpu_placed", 6400);
        add("tier", "hot", "gpu_placed", 1500);
        add("node", "n1", "cpu", 1000);
        add("node", "n1", "memory", 2048);
        add("node", "g1", "cpu", 8000);
        add("node", "g1", "gpu_util", 0.5);
        // web's cgroups, as n1's agent measured them: 0.6 of n1's 1 core, 1 GiB of its 2.
        add("pool", "web", "cpu_used", 600);
        add("pool", "web", "memory_used", 1024);
        // Outside the period: must not count.
        samples.push_back({ { "pool", "web", "cpu" }, day() - kHour, 99'000 });
        samples.push_back({ { "pool", "web", "cpu" }, day() + 24 * kHour, 99'000 });
        m_store->addSamples(samples);
        QVERIFY(m_store->commit());
        QVERIFY(m_store->maintain(day() + 25 * kHour, store::Retention { 0, 0, 0, 0, 0 }));

        m_facts.nowMs = day() + 3 * kHour + 30 * kMin;
        m_facts.nodes.push_back({ "n1", "warm", "x86_64", "warm-x86_64", 8, 32, {}, 100, 300, 0 });
        m_facts.nodes.push_back({ "g1", "hot", "x86_64", "hot-x86_64-gpu", 16, 64, { { "gpu", 2 } }, 200, 400, 250 });
        m_facts.pools.push_back({ "web", "shop", "warm", { "n1" } });
        m_facts.pools.push_back({ "infer", "ai", "hot", { "g1" } });
        m_facts.workloads.push_back({ 1, "web", "warm", day() + kHour, day() + kHour + 10 * kMin, 0 });
        m_facts.workloads.push_back({ 2, "web", "warm", day() + 2 * kHour, day() + 2 * kHour + 20 * kMin, 0 });
        m_facts.workloads.push_back({ 3, "infer", "hot", day() + 3 * kHour, 0, 0 });
        m_facts.workloads.push_back({ 4, "web", "warm", day() - kHour, day(), 0 }); // submitted before the period
        ProposalFacts quota;
        quota.id = 1;
        quota.kind = "quota";
        quota.state = "applied";
        quota.risk = "low";
        quota.reason = "pool web is forecast to need more";
        quota.createdMs = day() + 5 * kHour;
        quota.decidedMs = day() + 6 * kHour;
        quota.decidedBy = "token:otto";
        quota.utilisationBefore = 0.9;
        quota.utilisationAfter = 0.5;
        quota.poolQuotas = { { "web", 4000.0 } };
        ProposalFacts power;
        power.id = 2;
        power.kind = "power_down";
        power.state = "pending";
        power.risk = "medium";
        power.createdMs = day() + 7 * kHour;
        power.wattsSaved = 200;
        power.nodes = { "g1" };
        ProposalFacts old = quota;
        old.id = 3;
        old.createdMs = old.decidedMs = day() - 48 * kHour;
        m_facts.proposals = { quota, power, old };

        m_settings.prices["warm-x86_64"] = { 0.10, 0.01, {} };
        m_settings.prices["hot-x86_64-gpu"] = { 0.20, 0.0, { { "gpu", 3.0 } } };
        m_settings.carbon = { { day(), 500.0 }, { day() + 12 * kHour, 100.0 } };
    }

    void clusterNumbers()
    {
        const auto built = buildReport(request(), m_facts, *m_store, m_settings);
        QVERIFY2(built, built ? "" : built.error().message.c_str());
        const ReportData& d = *built;
        QCOMPARE(d.stepMs, 30 * kMin);
        QCOMPARE(d.buckets.size(), std::size_t(48));
        QCOMPARE(d.nodes, 2);
        QCOMPARE(d.pools, 2);

        const ResourceUse* cpu = resource(d, "cpu");
        QVERIFY(cpu);
        QCOMPARE(cpu->capacity, 24.0);
        QCOMPARE(cpu->requestedMean, 6.0); // the samples outside the period left out
        QCOMPARE(cpu->requestedPeak, 6.0);
        QCOMPARE(cpu->usedMean, 9.0);
        QCOMPARE(cpu->requested.size(), std::size_t(48));
        QCOMPARE(cpu->requested.front(), 6.0);
        QCOMPARE(cpu->used.back(), 9.0);
        const ResourceUse* memory = resource(d, "memory");
        QVERIFY(memory);
        QCOMPARE(memory->capacity, 96.0);
        QCOMPARE(memory->requestedMean, 4.0);
        QCOMPARE(memory->usedMean, 2.0);
        const ResourceUse* gpu = resource(d, "gpu");
        QVERIFY(gpu);
        QCOMPARE(gpu->capacity, 2.0);
        QCOMPARE(gpu->requestedMean, 1.0);
        QCOMPARE(gpu->usedMean, 1.0); // two GPUs at 50 %
        QVERIFY(!resource(d, "npu"));

        QCOMPARE(d.tiers.size(), std::size_t(2));
        for (const TierOccupancy& t : d.tiers) {
            QCOMPARE(t.nodes, 1);
            if (t.tier == "hot") {
                QCOMPARE(t.cpuCapacity, 16.0);
                QCOMPARE(t.cpuRequestedMean, 4.0); // the hot tier's work
                QCOMPARE(t.cpuAllocatedMean, 6.4); // what its node holds, the lent batch included
                QCOMPARE(t.cpuUsedMean, 8.0);
                QCOMPARE(t.acceleratorCapacity, 2.0);
                QCOMPARE(t.acceleratorRequestedMean, 1.0);
                QCOMPARE(t.acceleratorAllocatedMean, 1.5);
            } else {
                QCOMPARE(t.tier, std::string("warm"));
                QCOMPARE(t.cpuRequestedMean, 2.0); // half a core still waiting
                QCOMPARE(t.cpuAllocatedMean, 1.5);
                QCOMPARE(t.cpuUsedMean, 1.0);
                QVERIFY(!measured(t.acceleratorAllocatedMean));
            }
        }
        // Occupancy is what the nodes hold over their capacity: 6.4 of 16 cores, 1.5 of 8 (what the tiers ask for
        // would be 25 % of each).
        const std::string html = renderHtml(d);
        QVERIFY(html.find("Occupancy (allocated / capacity)") != std::string::npos);
        QVERIFY(html.find("<td>16.0</td><td>6.4</td><td>8.0</td><td>40 %</td><td>4.0</td>") != std::string::npos);
        QVERIFY(html.find("<td>8.0</td><td>1.5</td><td>1.0</td><td>19 %</td><td>2.0</td>") != std::string::npos);

        // Waits of 10 and 20 minutes (placed) and 30 (still waiting at "now"); the one submitted before is left out.
        QCOMPARE(d.pending.submitted, 3);
        QCOMPARE(d.pending.placed, 2);
        QCOMPARE(d.pending.waiting, 1);
        QCOMPARE(d.pending.meanMs, double(20 * kMin));
        QCOMPARE(d.pending.p50Ms, double(20 * kMin));
        QCOMPARE(d.pending.p90Ms, double(30 * kMin));
        QCOMPARE(d.pending.maxMs, double(30 * kMin));

        // n1: 100 + 200 × 1/8 = 125 W; g1: 200 + 200 × 8/16 + 2 × 250 × 0.5 = 550 W; 675 W for 24 h.
        QVERIFY(qAbs(d.energy.kWh - 16.2) < 1e-9);
        QVERIFY(qAbs(d.energy.meanWatts - 675.0) < 1e-9);
        // 8.1 kWh at 500 g/kWh, then 8.1 kWh at 100 g/kWh.
        QVERIFY(qAbs(d.energy.co2Kg - 4.86) < 1e-9);
        QCOMPARE(d.energy.kWhPerBucket.size(), std::size_t(48));
        QVERIFY(qAbs(d.energy.kWhPerBucket[0] - 0.3375) < 1e-9);

        // shop: 48 core-h × 0.10 + 96 GiB-h × 0.01; ai: 96 core-h × 0.20 + 24 GPU-h × 3.
        QCOMPARE(d.costs.size(), std::size_t(2));
        for (const BusinessLineCost& c : d.costs) {
            if (c.businessLine == "shop") {
                QVERIFY(qAbs(c.cpuCoreHours - 48) < 1e-9);
                QVERIFY(qAbs(c.memoryGiBHours - 96) < 1e-9);
                QVERIFY(qAbs(c.cost - 5.76) < 1e-9);
            } else {
                QCOMPARE(c.businessLine, std::string("ai"));
                QVERIFY(qAbs(c.acceleratorHours - 24) < 1e-9);
                QVERIFY(qAbs(c.cost - 91.2) < 1e-9);
            }
        }

        // Proposals of the period: the applied quota raise (realised: 2 cores of the 4-core quota it set) and the
        // pending power-down; the one from two days before is left out.
        QCOMPARE(d.proposals.size(), std::size_t(2));
        QCOMPARE(d.proposals[0].id, std::int64_t(1));
        QCOMPARE(d.proposals[0].predictedUtilisation, 0.5);
        QCOMPARE(d.proposals[0].realisedUtilisation, 0.5);
        QCOMPARE(d.proposals[1].id, std::int64_t(2));
        QVERIFY(!measured(d.proposals[1].realisedUtilisation));
        QCOMPARE(d.proposals[1].predictedWattsSaved, 200.0);

        // A constant history is forecast without error: each pool's CPU, and web's memory (infer has no memory
        // history, so no memory row). Seasonal naive makes no error on it either: no MASE, and the note says why.
        QCOMPARE(d.forecasts.size(), std::size_t(3));
        QCOMPARE(d.forecasts[1].pool + ":" + d.forecasts[1].resource, std::string("web:memory"));
        for (const ForecastAccuracy& f : d.forecasts) {
            QCOMPARE(f.note, std::string("flat history: no MASE"));
            QVERIFY(!measured(f.mase));
            QVERIFY(f.scoredPoints > 0);
            QVERIFY(f.smapePct < 0.5);
        }
    }

    void narrowScopes()
    {
        const auto pool = buildReport(request(ScopeKind::Pool, "web"), m_facts, *m_store, m_settings);
        QVERIFY(pool);
        QCOMPARE(pool->nodes, 1);
        QCOMPARE(resource(*pool, "cpu")->capacity, 8.0);
        QCOMPARE(resource(*pool, "cpu")->requestedMean, 2.0);
        // A pool's use is its cgroups' where an agent measured them, not its nodes' (which carry every pool).
        QCOMPARE(resource(*pool, "cpu")->usedMean, 0.6);
        QCOMPARE(resource(*pool, "cpu")->usedBy, std::string("pools"));
        QCOMPARE(resource(*pool, "memory")->usedMean, 1.0);
        QCOMPARE(resource(*pool, "memory")->usedBy, std::string("pools"));
        const auto shop = buildReport(request(ScopeKind::BusinessLine, "shop"), m_facts, *m_store, m_settings);
        QVERIFY(shop);
        QCOMPARE(resource(*shop, "cpu")->usedMean, 0.6);
        // The report says whose use it shows.
        QVERIFY(renderHtml(*pool).find("measured the scope&#39;s pools&#39; cgroups") != std::string::npos);
        QVERIFY(renderHtml(*buildReport(request(), m_facts, *m_store, m_settings))
                    .find("the host and every pool on them included")
            != std::string::npos);
        QVERIFY(!resource(*pool, "gpu"));
        QCOMPARE(pool->pending.submitted, 2);
        QCOMPARE(pool->pending.meanMs, double(15 * kMin));
        QCOMPARE(pool->proposals.size(), std::size_t(1)); // the power-down acts on g1, outside the pool
        QCOMPARE(pool->tiers.size(), std::size_t(1)); // the pool's tier, from the pool's series
        QCOMPARE(pool->tiers[0].tier, std::string("warm"));
        QCOMPARE(pool->tiers[0].cpuAllocatedMean, 1.5);
        QCOMPARE(pool->tiers[0].cpuRequestedMean, 2.0);
        QVERIFY(qAbs(pool->energy.kWh - 3.0) < 1e-9); // 125 W for 24 h

        const auto line = buildReport(request(ScopeKind::BusinessLine, "ai"), m_facts, *m_store, m_settings);
        QVERIFY(line);
        QCOMPARE(line->costs.size(), std::size_t(1));
        QCOMPARE(line->costs[0].businessLine, std::string("ai"));
        QCOMPARE(resource(*line, "gpu")->requestedMean, 1.0);
        QCOMPARE(resource(*line, "cpu")->usedBy, std::string("nodes")); // infer's cgroups were not measured
        QCOMPARE(resource(*line, "cpu")->usedMean, 8.0); // g1's

        const auto tier = buildReport(request(ScopeKind::Tier, "hot"), m_facts, *m_store, m_settings);
        QVERIFY(tier);
        QCOMPARE(resource(*tier, "cpu")->requestedMean, 4.0); // the tier's own series
        QCOMPARE(resource(*tier, "cpu")->capacity, 16.0);
        QCOMPARE(tier->tiers.size(), std::size_t(1));
        QCOMPARE(tier->tiers[0].cpuAllocatedMean, 6.4); // the tier's own series
        QCOMPARE(tier->pending.submitted, 1);
    }

    // With closed proposals kept for two days and the report made 55 hours into its day, proposals closed before
    // 07:00 of that day are past the retention: the report leaves them out whether or not the rebalancer has forgotten
    // them yet, and says so; one created before but decided after, and an open one, stay.
    void closedProposalsPastTheRetentionAreLeftOutAndTheReportSaysSo()
    {
        ClusterFacts facts = m_facts;
        facts.closedProposalsKeptMs = 48 * kHour;
        facts.nowMs = day() + 55 * kHour;
        ProposalFacts lateDecision = facts.proposals.front();
        lateDecision.id = 4;
        lateDecision.decidedMs = day() + 7 * kHour + 30 * kMin;
        facts.proposals.push_back(lateDecision);

        const auto built = buildReport(request(), facts, *m_store, m_settings);
        QVERIFY2(built, built ? "" : built.error().message.c_str());
        std::vector<std::int64_t> ids;
        for (const ProposalOutcome& p : built->proposals)
            ids.push_back(p.id);
        QCOMPARE(ids, (std::vector<std::int64_t> { 2, 4 })); // 1 (applied at 06:00) is gone; pending 2 stays
        const std::string expected = "Closed proposals are kept for 2 days (tidepoold's `proposalDays`): this report "
                                     "lists none closed before "
            + formatTime(day() + 7 * kHour) + " UTC.";
        QVERIFY2(std::any_of(built->notes.begin(), built->notes.end(),
                     [&](const std::string& n) { return n.rfind(expected, 0) == 0; }),
            expected.c_str());

        ReportRequest chinese = request();
        chinese.language = Language::ZhCN;
        const auto zh = buildReport(chinese, facts, *m_store, m_settings);
        QVERIFY(zh);
        QVERIFY(std::any_of(zh->notes.begin(), zh->notes.end(),
            [](const std::string& n) { return n.find("proposalDays") != std::string::npos; }));

        // A period that starts after the cutoff has lost nothing: no note. Nor has a core that keeps every proposal.
        ReportRequest recent = request();
        recent.fromMs = day() + 8 * kHour;
        const auto after = buildReport(recent, facts, *m_store, m_settings);
        QVERIFY(after);
        facts.closedProposalsKeptMs = 0;
        const auto keepAll = buildReport(request(), facts, *m_store, m_settings);
        QVERIFY(keepAll);
        QCOMPARE(keepAll->proposals.size(), std::size_t(3));
        for (const auto* d : { &*after, &*keepAll })
            QVERIFY(std::none_of(d->notes.begin(), d->notes.end(),
                [](const std::string& n) { return n.find("proposalDays") != std::string::npos; }));
    }

    // A memory quota raise is measured against the memory its pool asked for: web's 4096 MiB of the 8192 it set.
    void aMemoryQuotaIsRealisedAgainstMemory()
    {
        rebalance::Proposal raise;
        raise.plan = { rebalance::Action::setMemoryQuota("web", 8192, 4096),
            rebalance::Action::takeMemoryQuota("batch", 4096, 2048) };
        const ProposalFacts read = proposalFacts(raise);
        QCOMPARE(read.quotaSeries, std::string("memory"));
        QCOMPARE(
            read.poolQuotas, (std::vector<std::pair<std::string, double>> { { "web", 8192.0 }, { "batch", 0.0 } }));
        ClusterFacts facts = m_facts;
        ProposalFacts memory = facts.proposals[0];
        memory.poolQuotas = read.poolQuotas;
        memory.quotaSeries = read.quotaSeries;
        facts.proposals = { memory };
        const auto built = buildReport(request(), facts, *m_store, m_settings);
        QVERIFY2(built, built ? "" : built.error().message.c_str());
        QCOMPARE(built->proposals.size(), std::size_t(1));
        QCOMPARE(built->proposals[0].realisedUtilisation, 0.5);
        facts.proposals[0].quotaSeries = "cpu"; // 2 cores of 8192 millicores
        const auto asCpu = buildReport(request(), facts, *m_store, m_settings);
        QVERIFY(asCpu);
        QVERIFY(qAbs(asCpu->proposals[0].realisedUtilisation - 2000.0 / 8192.0) < 1e-9);
    }

    // A proposal's reason is worded from its clauses in the report's language, with the console's catalogue of them
    // (the table the build makes from translations/tidepool_zh_CN.ts); the English report, a proposal stored before
    // clauses and a clause this build cannot word keep the daemon's English.
    void proposalReasonsInTheReportsLanguage()
    {
        using namespace rebalance;
        Proposal p;
        p.kind = ProposalKind::Quota;
        p.state = ProposalState::Applied;
        p.plan = { Action::setCpuQuota("web", 6000, 4000), Action::takeCpuQuota("<b>batch</b>", 2000, 1000) };
        explain(p,
            { clause("quota-raise", { amountArg(6000, "cpu") }),
                clause("quota-from-pool", { amountArg(2000, "cpu"), "<b>batch</b>" }),
                clause("capacity-short-tiers",
                    { termArg("cpu"), termArg("hot+warm"), amountArg(9000, "cpu"), amountArg(10800, "cpu"),
                        amountArg(8000, "cpu") }) });
        ProposalFacts worded = proposalFacts(p);
        worded.createdMs = day() + kHour;
        worded.decidedMs = day() + 2 * kHour;
        ProposalFacts before = worded; // stored before clauses
        before.id = 2;
        before.why.clear();
        before.reason = "pool web needs more";
        ProposalFacts newer = worded; // a clause from a newer daemon
        newer.id = 3;
        newer.why.push_back(clause("from-a-newer-daemon", { "x" }));
        newer.reason = p.reason + "; something newer";
        ClusterFacts facts = m_facts;
        facts.proposals = { worded, before, newer };

        ReportRequest zhRequest = request();
        zhRequest.language = Language::ZhCN;
        const auto zh = buildReport(zhRequest, facts, *m_store, m_settings);
        QVERIFY2(zh, zh ? "" : zh.error().message.c_str());
        QCOMPARE(zh->proposals.size(), std::size_t(3));
        const std::string chinese = "在高峰前将其提高到 6000 mCPU；从资源池 <b>batch</b> 调用 2000 mCPU；"
                                    "只能运行在热或温层节点上的作业的预测 CPU 峰值（9000 mCPU，p90；含余量 10800 mCPU）"
                                    "超出在役热或温层节点的 8000 mCPU";
        QCOMPARE(zh->proposals[0].reason, chinese);
        QCOMPARE(zh->proposals[1].reason, std::string("pool web needs more"));
        QCOMPARE(zh->proposals[2].reason, p.reason + "; something newer");
        const auto en = buildReport(request(), facts, *m_store, m_settings);
        QVERIFY(en);
        QCOMPARE(en->proposals[0].reason, p.reason);
        QVERIFY(p.reason.find("take 2000 mCPU from pool <b>batch</b>") != std::string::npos);

        // Every renderer of the core shows it, escaped where it must be.
        const std::string html = renderHtml(*zh);
        QVERIFY(html.find("从资源池 &lt;b&gt;batch&lt;/b&gt; 调用 2000 mCPU") != std::string::npos);
        QVERIFY(renderCsv(*zh).find("超出在役热或温层节点的 8000 mCPU") != std::string::npos);
        // The JSON a remote console renders carries the worded reason.
        const auto back = reportFromJson(toJson(*zh));
        QVERIFY(back);
        QCOMPARE(back->proposals[0].reason, chinese);

        // Every form has its Chinese in the table (a catalogue the build could not read would leave them English).
        for (const ReasonForm& form : reasonForms()) {
            const std::string text(form.english);
            nlohmann::json::array_t args(static_cast<std::size_t>(std::count(text.begin(), text.end(), '%')), "x");
            const Why why { clause(form.code, args) };
            QVERIFY2(reasonText(Language::ZhCN, why, english(why)) != english(why), text.c_str());
        }
    }

    void unknownScopeNamesTheKnownOnes()
    {
        const auto pool = buildReport(request(ScopeKind::Pool, "nope"), m_facts, *m_store, m_settings);
        QVERIFY(!pool);
        QCOMPARE(pool.error().code, ErrorCode::NotFound);
        QVERIFY2(pool.error().message.find("unknown pool \"nope\"") != std::string::npos, pool.error().message.c_str());
        QVERIFY(pool.error().message.find("infer, web") != std::string::npos);
        const auto line = buildReport(request(ScopeKind::BusinessLine, "sales"), m_facts, *m_store, m_settings);
        QVERIFY(!line);
        QVERIFY(line.error().message.find("unknown business line \"sales\" (known: ai, shop)") != std::string::npos);
        const auto tier = buildReport(request(ScopeKind::Tier, "lukewarm"), m_facts, *m_store, m_settings);
        QVERIFY(!tier);
        QVERIFY(tier.error().message.find("unknown tier \"lukewarm\"") != std::string::npos);
    }

    // A pool deleted half-way through the day (its history stops then; here it runs on, which must not matter for
    // what the report takes from the facts) still counts in reports over the day: by its business line, at its nodes'
    // prices, and the report says when it was deleted. It has no forecast (nothing will run in it). Over a period
    // that began after its deletion it is gone, and a report on it says why.
    void aPoolDeletedDuringThePeriodCountsUntilThen()
    {
        ClusterFacts facts = m_facts;
        facts.pools[0].deletedMs = day() + 12 * kHour; // web
        const auto built = buildReport(request(), facts, *m_store, m_settings);
        QVERIFY2(built, built ? "" : built.error().message.c_str());
        QCOMPARE(built->pools, 2);
        bool shop = false;
        for (const BusinessLineCost& c : built->costs)
            if (c.businessLine == "shop") {
                QVERIFY(qAbs(c.cost - 5.76) < 1e-9); // as when it existed: n1's prices
                shop = true;
            }
        QVERIFY(shop);
        for (const ForecastAccuracy& f : built->forecasts)
            QVERIFY2(f.pool != "web", f.pool.c_str());
        const auto note = std::find_if(built->notes.begin(), built->notes.end(),
            [](const std::string& n) { return n.find("Pool web was deleted at 2026-12-01 12:00 UTC") == 0; });
        QVERIFY(note != built->notes.end());
        const auto web = buildReport(request(ScopeKind::Pool, "web"), facts, *m_store, m_settings);
        QVERIFY(web);
        QCOMPARE(resource(*web, "cpu")->requestedMean, 2.0);
        QCOMPARE(web->nodes, 1);

        ReportRequest later = request();
        later.fromMs = day() + 13 * kHour;
        const auto after = buildReport(later, facts, *m_store, m_settings);
        QVERIFY(after);
        QCOMPARE(after->pools, 1);
        for (const BusinessLineCost& c : after->costs)
            QVERIFY(c.businessLine != "shop");
        later.scope = ScopeKind::Pool;
        later.name = "web";
        const auto gone = buildReport(later, facts, *m_store, m_settings);
        QVERIFY(!gone);
        QCOMPARE(gone.error().code, ErrorCode::NotFound);
        QVERIFY2(gone.error().message.find("pool web was deleted at 2026-12-01 12:00 UTC, before the period began")
                != std::string::npos,
            gone.error().message.c_str());
    }

    void noPricesNoCost()
    {
        ReportSettings settings = m_settings;
        settings.prices.clear();
        const auto built = buildReport(request(), m_facts, *m_store, settings);
        QVERIFY(built);
        for (const BusinessLineCost& c : built->costs) {
            QVERIFY(!measured(c.cost));
            QVERIFY(c.cpuCoreHours > 0);
        }
        QVERIFY(built->notes.back().find("reportPrices") != std::string::npos);
    }

    // Pools without a business line are cost rows of their own, named by pool in every format, not one blank row
    // summing them.
    void poolsWithoutABusinessLineAreCostRowsOfTheirOwn()
    {
        ClusterFacts facts = m_facts;
        for (PoolFacts& p : facts.pools)
            p.businessLine.clear();
        const auto built = buildReport(request(), facts, *m_store, m_settings);
        QVERIFY(built);
        QCOMPARE(built->costs.size(), std::size_t(2));
        for (const BusinessLineCost& c : built->costs) {
            QVERIFY(c.businessLine.empty());
            QVERIFY(qAbs(c.cost - (c.pool == "web" ? 5.76 : 91.2)) < 1e-9);
        }
        QCOMPARE(built->costs[0].pool, std::string("infer"));
        QCOMPARE(built->costs[1].pool, std::string("web"));
        QVERIFY(renderHtml(*built).find("<td>Pool web (no business line)</td>") != std::string::npos);
        QVERIFY(renderCsv(*built).find("\r\ncosts,Pool infer (no business line),cost,,") != std::string::npos);
        ReportData zh = *built;
        zh.request.language = Language::ZhCN;
        QVERIFY(renderHtml(zh).find("<td>资源池 web（无业务线）</td>") != std::string::npos);
        const auto back = reportFromJson(nlohmann::json::parse(toJson(*built).dump()));
        QVERIFY(back);
        QCOMPARE(back->costs[1].pool, std::string("web"));
        // A line with a business line keeps it, and no pool.
        const auto lined = buildReport(request(), m_facts, *m_store, m_settings);
        QVERIFY(lined);
        for (const BusinessLineCost& c : lined->costs)
            QVERIFY(c.pool.empty() && !c.businessLine.empty());
    }

    // A pool created half-way through the period: its means are over the hours it was recorded, and the report says
    // how many of the period's hours those were; a pool recorded throughout gets no such note.
    void meansOverPartOfThePeriodSaySo()
    {
        std::vector<store::Sample> samples;
        for (std::int64_t t = day() + 12 * kHour; t < day() + 24 * kHour; t += kStep)
            samples.push_back({ { "pool", "late", "cpu" }, t, 3000 });
        m_store->addSamples(samples);
        QVERIFY(m_store->commit());
        QVERIFY(m_store->maintain(day() + 25 * kHour, store::Retention { 0, 0, 0, 0, 0 }));
        ClusterFacts facts = m_facts;
        facts.nowMs = day() + 25 * kHour;
        facts.pools.push_back({ "late", "shop", "warm", { "n1" } });
        const auto late = buildReport(request(ScopeKind::Pool, "late"), facts, *m_store, m_settings);
        QVERIFY2(late, late ? "" : late.error().message.c_str());
        QCOMPARE(resource(*late, "cpu")->requestedMean, 3.0);
        const auto noted = [](const ReportData& d, const std::string& text) {
            return std::any_of(d.notes.begin(), d.notes.end(),
                [&](const std::string& note) { return note.find(text) != std::string::npos; });
        };
        QVERIFY(noted(*late, "CPU requests were recorded in 12.0 of the period's 24.0 hours so far"));
        const auto web = buildReport(request(ScopeKind::Pool, "web"), facts, *m_store, m_settings);
        QVERIFY(web);
        QVERIFY(!noted(*web, "Means are over the hours with records"));
        // Made at 06:00 of the day, the period so far is six hours, all recorded for web, none for late.
        facts.nowMs = day() + 6 * kHour;
        const auto early = buildReport(request(ScopeKind::Pool, "web"), facts, *m_store, m_settings);
        QVERIFY(early);
        QVERIFY(!noted(*early, "Means are over the hours with records"));
    }

    void periodAndRequestChecks_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("scope");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("language");
        QTest::addColumn<QString>("error"); // a part of the message; empty = accepted
        QTest::newRow("dates") << s("2026-12-01") << s("2026-12-02") << s("") << s("") << s("") << s("");
        QTest::newRow("times") << s("2026-12-01T06:00Z") << s("2026-12-01 18:30:15") << s("pool") << s("web")
                               << s("zh_CN") << s("");
        QTest::newRow("epoch ms") << s("1764547200000") << s("1764633600000") << s("tier") << s("hot") << s("en")
                                  << s("");
        QTest::newRow("from after to") << s("2026-12-02") << s("2026-12-01") << s("") << s("") << s("")
                                       << s("`from` (2026-12-02 00:00) must be before `to` (2026-12-01 00:00)");
        QTest::newRow("empty period") << s("2026-12-01") << s("2026-12-01") << s("") << s("") << s("")
                                      << s("the period is empty");
        QTest::newRow("unparsable from") << s("yesterday") << s("2026-12-01") << s("") << s("") << s("")
                                         << s("`from` \"yesterday\" is not a time");
        QTest::newRow("unparsable to") << s("2026-12-01") << s("2026-13-01") << s("") << s("") << s("")
                                       << s("`to` \"2026-13-01\" is not a time");
        QTest::newRow("no 30 February") << s("2026-02-30") << s("2026-03-02") << s("") << s("") << s("")
                                        << s("`from` \"2026-02-30\"");
        QTest::newRow("trailing text") << s("2026-12-01T10:00Zjunk") << s("2026-12-02") << s("") << s("") << s("")
                                       << s("`from`");
        QTest::newRow("too long") << s("2026-01-01") << s("2026-12-01") << s("") << s("") << s("")
                                  << s("longer than 92 days");
        QTest::newRow("unknown scope") << s("2026-12-01") << s("2026-12-02") << s("galaxy") << s("x") << s("")
                                       << s("`scope` \"galaxy\" is not one of");
        QTest::newRow("pool without name") << s("2026-12-01") << s("2026-12-02") << s("pool") << s("") << s("")
                                           << s("`name` is required with the pool scope");
        QTest::newRow("cluster with name")
            << s("2026-12-01") << s("2026-12-02") << s("cluster") << s("x") << s("") << s("`name` is not taken");
        QTest::newRow("language") << s("2026-12-01") << s("2026-12-02") << s("") << s("") << s("fr")
                                  << s("`language` \"fr\"");
    }

    void periodAndRequestChecks()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, scope);
        QFETCH(QString, name);
        QFETCH(QString, language);
        QFETCH(QString, error);
        const auto made = makeReportRequest(
            from.toStdString(), to.toStdString(), scope.toStdString(), name.toStdString(), language.toStdString());
        if (error.isEmpty()) {
            QVERIFY2(made, made ? "" : made.error().message.c_str());
            QVERIFY(made->fromMs < made->toMs);
            return;
        }
        QVERIFY(!made);
        QVERIFY2(made.error().message.find(error.toStdString()) != std::string::npos, made.error().message.c_str());
    }

    void timesAreUtc()
    {
        QCOMPARE(*parseReportTime("2026-12-01", "from"), std::int64_t(1796083200000));
        QCOMPARE(*parseReportTime("2026-12-01T10:30Z", "from"), std::int64_t(1796083200000) + 10 * kHour + 30 * kMin);
        QCOMPARE(formatTime(1796083200000 + 10 * kHour + 30 * kMin), std::string("2026-12-01 10:30"));
    }

    void jsonRoundTrip()
    {
        const auto built = buildReport(request(), m_facts, *m_store, m_settings);
        QVERIFY(built);
        const nlohmann::json j = toJson(*built);
        QVERIFY(j["proposals"][1]["realisedUtilisation"].is_null()); // not measured is null, not 0
        const auto back = reportFromJson(nlohmann::json::parse(j.dump()));
        QVERIFY2(back, back ? "" : back.error().message.c_str());
        QCOMPARE(toJson(*back).dump(), j.dump());
        QCOMPARE(renderCsv(*back), renderCsv(*built));
        // Whose use `used` is travels; a report from before it says nothing, and its use was the nodes'.
        const auto pool = buildReport(request(ScopeKind::Pool, "web"), m_facts, *m_store, m_settings);
        QVERIFY(pool);
        nlohmann::json poolJson = toJson(*pool);
        QCOMPARE(reportFromJson(poolJson)->utilisation.front().usedBy, std::string("pools"));
        for (nlohmann::json& u : poolJson["utilisation"])
            u.erase("usedBy");
        QCOMPARE(reportFromJson(poolJson)->utilisation.front().usedBy, std::string("nodes"));

        nlohmann::json broken = j;
        broken["utilisation"][0].erase("capacity");
        broken["utilisation"][0]["unit"] = 3;
        const auto refused = reportFromJson(broken);
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.find("`utilisation[0].unit`") != std::string::npos,
            refused.error().message.c_str());
    }

    void csvFieldsAreNeutralisedAndQuoted_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("field");
        QTest::newRow("plain") << s("web-0") << s("web-0");
        QTest::newRow("=") << s("=1+2") << s("'=1+2");
        QTest::newRow("+") << s("+cmd|' /C calc'!A0") << s("'+cmd|' /C calc'!A0");
        QTest::newRow("-") << s("-2+3") << s("'-2+3");
        QTest::newRow("@") << s("@SUM(A1)") << s("'@SUM(A1)");
        QTest::newRow("tab") << s("\t=1") << s("'\t=1");
        QTest::newRow("comma") << s("a,b") << s("\"a,b\"");
        QTest::newRow("quote") << s("say \"hi\"") << s("\"say \"\"hi\"\"\"");
        QTest::newRow("newline") << s("a\nb") << s("\"a\nb\"");
        QTest::newRow("formula with comma")
            << s("=HYPERLINK(\"x\",\"y\")") << s("\"'=HYPERLINK(\"\"x\"\",\"\"y\"\")\"");
        QTest::newRow("chinese") << s("推理") << s("推理");
    }

    void csvFieldsAreNeutralisedAndQuoted()
    {
        QFETCH(QString, text);
        QFETCH(QString, field);
        QCOMPARE(QString::fromStdString(csvTextField(text.toStdString())), field);
    }

    void csvReportHasNoLiveFormula()
    {
        const std::string csv = renderCsv(hostileReport(Language::En));
        const auto rows = parseCsv(csv);
        QVERIFY(rows.size() > 20);
        for (const auto& row : rows) {
            QCOMPARE(row.size(), std::size_t(6)); // quoting kept every record whole
            for (const std::string& field : row)
                QVERIFY2(
                    field.empty() || isNumber(field) || std::string("=+-@\t\r").find(field[0]) == std::string::npos,
                    field.c_str());
        }
        const auto has = [&](const std::vector<std::string>& expected) {
            return std::find(rows.begin(), rows.end(), expected) != rows.end();
        };
        QVERIFY(has({ "forecasts", "'=HYPERLINK(\"http://evil.example/\",\"x\")", "smape", "", "3", "%" }));
        QVERIFY(has({ "proposals", "proposal 7", "reason", "", "'-2+3,\"quoted\"\nsecond line", "" }));
        QVERIFY(has({ "proposals", "proposal 7", "decided_by", "", "'@SUM(A1:A9)", "" }));
        QVERIFY(has({ "proposals", "proposal 7", "predicted_watts_saved", "", "-150", "W" })); // a number stays one
        QVERIFY(has({ "costs", "'+cmd|' /C calc'!A0", "cost", "", "5.76", "CNY" }));
        QVERIFY(has({ "costs", "'\tTabbed", "cost", "", "1", "CNY" }));
        QVERIFY(has({ "utilisation", "cpu", "used", "2026-12-01 12:00", "", "cores" })); // not measured: empty
        QVERIFY(csv.find("\r\n") != std::string::npos);
        QVERIFY(csv.rfind("\xEF\xBB\xBF", 0) == std::string::npos);
        QVERIFY(renderCsv(hostileReport(Language::ZhCN)).rfind("\xEF\xBB\xBF", 0) == 0);
    }

    void htmlEscapesHostileNames()
    {
        const std::string html = renderHtml(hostileReport(Language::En));
        QVERIFY(html.find("<html lang=\"en\">") != std::string::npos);
        QVERIFY(html.find("<meta charset=\"utf-8\">") != std::string::npos);
        QVERIFY(html.find("<script") == std::string::npos);
        QVERIFY(html.find("onload=\"x") == std::string::npos);
        QVERIFY(html.find("&lt;script&gt;alert(1)&lt;/script&gt;&quot; onload=&quot;x") != std::string::npos);
        QVERIFY(html.find("=HYPERLINK(&quot;http://evil.example/&quot;,&quot;x&quot;)") != std::string::npos);
        QVERIFY(html.find("+cmd|&#39; /C calc&#39;!A0") != std::string::npos);
        QVERIFY(html.find("<svg") != std::string::npos); // charts inline
        QVERIFY(html.find("<path d=\"M") != std::string::npos); // with a line drawn
        QVERIFY(html.find("http-equiv") == std::string::npos && html.find(" src=") == std::string::npos);
        QCOMPARE(htmlEscape("a&b<c>\"'"), std::string("a&amp;b&lt;c&gt;&quot;&#39;"));
    }

    void chineseLabels()
    {
        const std::string html = renderHtml(hostileReport(Language::ZhCN));
        QVERIFY(html.find("<html lang=\"zh-CN\">") != std::string::npos);
        for (const char* words : { "利用率：申请量与实际用量", "层级占用", "能耗与碳排放", "各业务线成本", "已执行" })
            QVERIFY2(html.find(words) != std::string::npos, words);
        QCOMPARE(std::string(label(Language::ZhCN, "hot")), std::string("热层"));
        QCOMPARE(std::string(label(Language::En, "hot")), std::string("Hot"));
        QCOMPARE(std::string(label(Language::ZhCN, "no-such-key")), std::string("no-such-key"));
    }
};

QTEST_APPLESS_MAIN(TestReport)
#include "tst_report.moc"
