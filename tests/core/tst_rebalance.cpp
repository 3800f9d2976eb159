// The evaluation and its proposals: the pure planner's peak shifting (a raise taken from pools with forecast slack,
// and the base quota given back in a trough) and energy proposals (idle nodes powered down while the rest holds the
// forecast peak, powered up when it does not), then the whole loop on a real SQLite store and control plane —
// forecasts from stored history, one pending proposal per subject, approval applying only on the state it was
// planned on (else re-planned), rejection, expiry, and everything surviving a restart; the power hook (a real script
// switching nodes off and on, one that fails, one that hangs past its timeout) and the carbon hold across a restart.
#include "core/api/control_plane.h"
#include "core/api/rebalancer.h"
#include "core/api/workload_spec.h"
#include "core/model/pool.h"
#include "core/rebalance/carbon.h"
#include "core/rebalance/rightsize.h"
#include "core/rebalance/whatif.h"
#include "core/store/store.h"

#include <QTemporaryDir>
#include <QtTest>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <stdexcept>
#include <thread>

using namespace tidepool;
using namespace tidepool::api;
using rebalance::Action;
using rebalance::ProposalKind;
using rebalance::ProposalState;

namespace {

constexpr std::int64_t kMinute = 60'000;
constexpr std::int64_t kDay = 24 * 60 * kMinute;
constexpr std::int64_t kNow = 1'800'000'000'000; // on a 5-minute boundary

rebalance::PoolOutlook pool(const std::string& name, std::int64_t quota, std::optional<double> peak)
{
    rebalance::PoolOutlook p;
    p.name = name;
    p.cpuQuotaMillis = quota;
    p.cpuPeakMillis = peak;
    p.peakAtMs = kNow + 30 * kMinute;
    return p;
}

rebalance::NodeOutlook node(const std::string& name, std::int64_t idleForMs, std::string cordon = {})
{
    rebalance::NodeOutlook n;
    n.name = name;
    n.tier = "warm";
    n.ready = true;
    n.cordon = std::move(cordon);
    n.cpuMillis = 8000;
    n.accelerators = 2;
    n.idleSinceMs = idleForMs > 0 ? kNow - idleForMs : 0;
    n.residents = idleForMs > 0 ? 0 : 3;
    return n;
}

// A batch job of one whole GPU.
SubmitRequest oneGpuBatch(const std::string& name)
{
    SubmitRequest batch;
    batch.name = name;
    batch.requests = { 1000, 1024, 0, 0 };
    batch.accelerators.kind = AcceleratorKind::Gpu;
    batch.accelerators.count = 1;
    batch.argv = { "/bin/true" };
    return batch;
}

// A hot GPU node of 8 GPUs, reserved for the inference peak or lent, with `batch` batch workloads on it.
rebalance::NodeOutlook hotNode(const std::string& name, bool reserved, std::size_t batch)
{
    rebalance::NodeOutlook n = node(name, 0);
    n.tier = "hot";
    n.peakReserved = reserved;
    n.acceleratorKind = AcceleratorKind::Gpu;
    n.acceleratorShare = 8000;
    n.batchResidents = batch;
    return n;
}

template <typename E> std::string name(E value)
{
    using rebalance::toString;
    using tidepool::api::toString;
    return std::string(toString(value));
}

// Every proposal the tests looked at, for `cleanupTestCase` to check their reasons' clauses.
std::vector<rebalance::Proposal>& seenProposals()
{
    static std::vector<rebalance::Proposal> seen;
    return seen;
}

std::vector<rebalance::Proposal> ofKind(const std::vector<rebalance::Proposal>& all, ProposalKind kind)
{
    std::vector<rebalance::Proposal> out;
    for (const auto& p : all) {
        seenProposals().push_back(p);
        if (p.kind == kind)
            out.push_back(p);
    }
    return out;
}

// The highest %n in a reason's form: how many arguments it takes.
std::size_t placeholders(std::string_view form)
{
    std::size_t most = 0;
    for (std::size_t i = 0; i + 1 < form.size(); ++i)
        if (form[i] == '%' && form[i + 1] >= '1' && form[i + 1] <= '9')
            most = std::max(most, static_cast<std::size_t>(form[i + 1] - '0'));
    return most;
}

// A pending quota proposal about `key` with `plan` (a set and a take) and, last, the take again as a `give`.
rebalance::Proposal pendingQuota(std::string key, std::vector<Action> plan, Action::Type give)
{
    rebalance::Proposal p;
    p.id = 7;
    p.kind = ProposalKind::Quota;
    p.state = ProposalState::Pending;
    p.risk = rebalance::Risk::Low;
    p.key = std::move(key);
    p.plan = std::move(plan);
    p.plan.push_back(p.plan[1]);
    p.plan.back().type = give;
    return p;
}

} // namespace

class TestRebalance : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    // A fresh one for each test: handlers a finished test left queued must not run against its destroyed objects.
    std::unique_ptr<boost::asio::io_context> m_ioHolder = std::make_unique<boost::asio::io_context>();
    boost::asio::io_context& io() { return *m_ioHolder; }

    std::string dbPath() const { return m_dir.filePath(QStringLiteral("rebalance.db")).toStdString(); }

    std::unique_ptr<ControlPlane> plane(store::Store& store)
    {
        AgentLink link { [](const std::string&, const protocol::Message&) { return true; },
            [](const std::string&, const std::string&) { return true; } };
        auto created = ControlPlane::create(io(), ControlPlaneConfig {}, link, {}, &store);
        if (!created)
            qFatal("%s", created.error().message.c_str());
        return std::move(*created);
    }

    // A control plane without a store whose agents accept everything; `link` to record what it sends.
    std::unique_ptr<ControlPlane> memoryPlane(std::optional<AgentLink> link = std::nullopt)
    {
        auto created = ControlPlane::create(io(), ControlPlaneConfig {},
            link.value_or(AgentLink { [](const std::string&, const protocol::Message&) { return true; },
                [](const std::string&, const std::string&) { return true; } }),
            {}, nullptr);
        if (!created)
            qFatal("%s", created.error().message.c_str());
        return std::move(*created);
    }

    // An x86_64 node named `name` (its session has the same name) with `gpus` T4s of 1000 milli-GPU each.
    static void join(ControlPlane& p, const std::string& name, std::int64_t cpuMillis, std::int64_t memoryMiB, int gpus = 0)
    {
        protocol::Inventory inv;
        inv.isa = "x86_64";
        inv.cpuMillis = cpuMillis;
        inv.memoryMiB = memoryMiB;
        for (int d = 0; d < gpus; ++d)
            inv.devices.push_back(protocol::DeviceInfo { d, "gpu", "T4", 16384, 1000 });
        p.onJoined(name, "127.0.0.1:1", protocol::Hello { name, "t", std::nullopt });
        p.onInventory(name, inv);
    }

    // A plane with one node, n1 (8 cores, 32 GiB, an agent naming every feature), whose agent's resizes land in `sent`.
    std::unique_ptr<ControlPlane> resizingPlane(std::vector<protocol::Resize>& sent)
    {
        auto plane = memoryPlane(AgentLink { [&sent](const std::string&, const protocol::Message& m) {
                                                if (const auto* r = std::get_if<protocol::Resize>(&m))
                                                    sent.push_back(*r);
                                                return true;
                                            },
            [](const std::string&, const std::string&) { return true; } });
        protocol::Inventory inv;
        inv.isa = "x86_64";
        inv.cpuMillis = 8000;
        inv.memoryMiB = 32768;
        plane->onJoined(
            "n1", "127.0.0.1:1", protocol::Hello { "n1", "t", std::nullopt, {}, protocol::knownFeatures() });
        plane->onInventory("n1", inv);
        return plane;
    }

    std::unique_ptr<Rebalancer> rebalancer(ControlPlane& plane, RebalanceConfig config = {})
    {
        auto created = Rebalancer::create(io(), plane, std::move(config), {});
        if (!created)
            qFatal("%s", created.error().message.c_str());
        return std::move(*created);
    }

    // An executable shell script in the test's directory.
    std::string script(const QString& fileName, const std::string& body) const
    {
        const std::string path = m_dir.filePath(fileName).toStdString();
        std::ofstream(path) << "#!/bin/sh\n" << body;
        ::chmod(path.c_str(), 0755);
        return path;
    }

    // Runs the core's thread until proposal `id` is no longer `approved` (its power command is done) or 20 s pass.
    bool waitDecided(const Rebalancer& r, std::int64_t id)
    {
        io().restart(); // stopped when the work guard of an earlier wait went
        auto busy = boost::asio::make_work_guard(io());
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (r.proposal(id)->state == ProposalState::Approved && std::chrono::steady_clock::now() < deadline)
            io().run_for(std::chrono::milliseconds(10));
        return r.proposal(id)->state != ProposalState::Approved;
    }

    // Three idle warm nodes, a rebalancer with the power hook, and the first power-down it proposes.
    std::pair<std::unique_ptr<Rebalancer>, std::int64_t> powerDownWith(
        ControlPlane& p, const std::string& command, std::chrono::milliseconds timeout)
    {
        for (const char* n : { "n1", "n2", "n3" })
            join(p, n, 8000, 32768);
        RebalanceConfig config;
        config.powerCommand = command;
        config.powerCommandTimeout = timeout;
        config.evaluator.idleBeforePowerDown = std::chrono::milliseconds(0);
        auto r = rebalancer(p, config);
        std::int64_t id = 0;
        for (const std::int64_t created : r->evaluateNow(kNow))
            if (r->proposal(created)->kind == ProposalKind::PowerDown && id == 0)
                id = created;
        return { std::move(r), id };
    }

    // A week of 5-minute history of one resource (`pool/<name>/<resource>`, as the recorder writes it) before `kNow`:
    // pool `swinging` swings daily between `mean` - `amplitude` and `mean` + `amplitude`, peaking at `peakAtMs` (and
    // a whole number of days before it); pool `steady`, where named, holds `level`.
    static std::vector<store::Sample> dailySwing(const std::string& resource, const std::string& swinging, double mean,
        double amplitude, const std::string& steady = {}, double level = 0.0,
        std::int64_t peakAtMs = kNow + 30 * kMinute)
    {
        std::vector<store::Sample> samples;
        const double pi = std::acos(-1.0);
        for (std::int64_t t = kNow - 7 * kDay; t < kNow; t += 5 * kMinute) {
            const double phase = 2 * pi * static_cast<double>(t - peakAtMs) / static_cast<double>(kDay);
            samples.push_back({ { "pool", swinging, resource }, t, mean + amplitude * std::cos(phase) });
            if (!steady.empty())
                samples.push_back({ { "pool", steady, resource }, t, level });
        }
        return samples;
    }

    // Every 5 minutes from `fromMs` until `untilMs`, each pool's `resource` at its level.
    static std::vector<store::Sample> levels(const std::string& resource,
        const std::vector<std::pair<std::string, double>>& pools, std::int64_t fromMs, std::int64_t untilMs)
    {
        std::vector<store::Sample> samples;
        for (std::int64_t t = fromMs; t < untilMs; t += 5 * kMinute)
            for (const auto& [pool, level] : pools)
                samples.push_back({ { "pool", pool, resource }, t, level });
        return samples;
    }

    // Writes `samples` as history and aggregates it into 5-minute buckets, as the store has it at `nowMs`.
    [[nodiscard]] static bool writeSamples(
        store::Store& store, const std::vector<store::Sample>& samples, std::int64_t nowMs = kNow)
    {
        store.addSamples(samples);
        return store.commit() && store.maintain(nowMs, store::Retention { 0, 0, 0, 0, 0 });
    }

    // A week of 5-minute history: pool "web" swings daily between 1500 and 4500 mCPU, peaking 30 minutes after
    // `kNow`; pool "batch" holds 2000 mCPU.
    static void writeHistory(store::Store& store)
    {
        QVERIFY(writeSamples(store, dailySwing("cpu", "web", 3000, 1500, "batch", 2000)));
    }

    // Writes `samples` as history (aggregated into 5-minute buckets), runs one evaluation with nodes counted idle at
    // once, and returns the reasons of the power-downs it proposes; nullopt when the history could not be written.
    std::optional<std::vector<std::string>> powerDownReasons(
        ControlPlane& plane, store::Store& store, const std::vector<store::Sample>& samples)
    {
        if (!writeSamples(store, samples))
            return std::nullopt;
        RebalanceConfig config;
        config.evaluator.idleBeforePowerDown = std::chrono::milliseconds(0);
        auto r = rebalancer(plane, config);
        std::vector<std::string> reasons;
        for (const std::int64_t id : r->evaluateNow(kNow))
            if (r->proposal(id)->kind == ProposalKind::PowerDown)
                reasons.push_back(r->proposal(id)->reason);
        return reasons;
    }

    // A running-to-be CPU-only workload of 1 core and 1 GiB in `pool`.
    static WorkloadId submitCompress(ControlPlane& p, int i, const std::string& pool)
    {
        SubmitRequest s;
        s.name = "compress-" + std::to_string(i);
        s.pool = pool;
        s.requests = { 1000, 1024, 0, 0 };
        s.argv = { "/bin/true" };
        return *p.submit(s);
    }

    // An aarch64 node (a cold one) of 8 cores and 32 GiB named `name`, its session the same name.
    static void joinArm(ControlPlane& p, const std::string& name)
    {
        protocol::Inventory arm;
        arm.isa = "aarch64";
        arm.cpuMillis = 8000;
        arm.memoryMiB = 32768;
        p.onJoined(name, "127.0.0.1:1", protocol::Hello { name, "t", std::nullopt });
        p.onInventory(name, arm);
    }

    static void createPool(
        ControlPlane& plane, const std::string& name, std::int64_t cpuMillis, std::int64_t memoryMiB = kUnlimited)
    {
        PoolRequest request;
        request.name = name;
        request.businessLine = name;
        request.cpuMillis = cpuMillis;
        request.memoryMiB = memoryMiB;
        QVERIFY(plane.createPool(request));
    }

private slots:
    // The reasons of every proposal the tests saw are made of known clauses, each with the arguments its form takes,
    // and read in English as the proposal's reason.
    void cleanupTestCase()
    {
        QVERIFY(seenProposals().size() > 50);
        std::set<std::string> codes;
        for (const rebalance::Proposal& p : seenProposals()) {
            QVERIFY2(!p.why.empty(), p.reason.c_str());
            QCOMPARE(rebalance::english(p.why), p.reason);
            QVERIFY2(!p.effect.sloRiskWhy.empty(), p.reason.c_str());
            QCOMPARE(rebalance::english(p.effect.sloRiskWhy), p.effect.sloRisk);
            rebalance::Why all = p.why;
            all.insert(all.end(), p.effect.sloRiskWhy.begin(), p.effect.sloRiskWhy.end());
            for (const rebalance::Clause& c : all) {
                const rebalance::ReasonForm* form = rebalance::reasonForm(c.code);
                QVERIFY2(form, c.code.c_str());
                QVERIFY2(c.args.is_array() && c.args.size() == placeholders(form->english), c.code.c_str());
                codes.insert(c.code);
            }
        }
        QVERIFY2(codes.size() >= 25, std::to_string(codes.size()).c_str()); // most forms were seen
    }

    void init()
    {
        m_ioHolder = std::make_unique<boost::asio::io_context>();
        QVERIFY(m_dir.isValid());
        for (const char* suffix : { "", "-wal", "-shm" })
            QFile::remove(QString::fromStdString(dbPath() + suffix));
    }

    void raiseAheadOfAPeakComesFromSlack()
    {
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        input.pools = { pool("web", 4000, 4500.0), pool("batch", 8000, 2000.0), pool("adhoc", 3000, std::nullopt) };
        input.nodes = { node("a", 0), node("b", 0) };
        const auto quota = ofKind(rebalance::evaluate(input, {}), ProposalKind::Quota);
        QCOMPARE(quota.size(), std::size_t { 1 });
        const auto& p = quota[0];
        QCOMPARE(p.key, std::string("quota:web"));
        // 4500 × 1.2 = 5400 → 5500 in 500 mCPU steps; the 1500 come from batch, whose 2000 × 1.2 leave 5500 slack.
        QCOMPARE(p.plan, (std::vector<Action> { Action::setCpuQuota("web", 5500, 4000),
                             Action::takeCpuQuota("batch", 1500, 2500) }));
        QCOMPARE(name(p.risk), name(rebalance::Risk::Low));
        QVERIFY(p.reason.find("08:30 UTC") != std::string::npos);
        QVERIFY(p.effect.utilisationBefore > 1.0 && p.effect.utilisationAfter < 1.0);
        QCOMPARE(name(p.state), name(ProposalState::Pending));
        QCOMPARE(p.expiresMs, kNow + 10 * kMinute);
    }

    // A quota raise that the next evaluation plans a step higher or lower is the same advice; a different target,
    // a raise planned on another quota, or a bigger change is not.
    void equivalentAdviceWithinAQuotaStep()
    {
        const std::vector<Action> plan { Action::setCpuQuota("web", 5500, 4000), Action::takeCpuQuota("batch", 1500, 2500) };
        QVERIFY(rebalance::equivalentPlans(plan, plan, {}));
        QVERIFY(rebalance::equivalentPlans(
            plan, { Action::setCpuQuota("web", 6000, 4000), Action::takeCpuQuota("batch", 2000, 2000) }, {}));
        QVERIFY(!rebalance::equivalentPlans(
            plan, { Action::setCpuQuota("web", 6500, 4000), Action::takeCpuQuota("batch", 2500, 2500) }, {}));
        QVERIFY(!rebalance::equivalentPlans(
            plan, { Action::setCpuQuota("web", 5500, 4500), Action::takeCpuQuota("batch", 1000, 2500) }, {}));
        QVERIFY(!rebalance::equivalentPlans(
            plan, { Action::setCpuQuota("web", 5500, 4000), Action::takeCpuQuota("ads", 1500, 2500) }, {}));
        QVERIFY(!rebalance::equivalentPlans(plan, { Action::setCpuQuota("web", 5500, 4000) }, {}));
        // Other actions must match exactly.
        const std::vector<Action> cordon { Action::onNode(Action::Type::Cordon, "n1", "powered down by proposal") };
        QVERIFY(rebalance::equivalentPlans(cordon, cordon, {}));
        QVERIFY(!rebalance::equivalentPlans(
            cordon, { Action::onNode(Action::Type::Cordon, "n2", "powered down by proposal") }, {}));
    }

    void troughGivesTheBaseBack()
    {
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        auto web = pool("web", 5500, 1000.0);
        web.baseCpuMillis = 4000;
        auto unlimited = pool("free", kUnlimited, 100.0);
        input.pools = { web, unlimited };
        const auto quota = ofKind(rebalance::evaluate(input, {}), ProposalKind::Quota);
        QCOMPARE(quota.size(), std::size_t { 1 });
        QCOMPARE(quota[0].plan, (std::vector<Action> { Action::setCpuQuota("web", 4000, 5500) }));
        // Without a base there is nothing to give back.
        input.pools[0].baseCpuMillis.reset();
        QVERIFY(ofKind(rebalance::evaluate(input, {}), ProposalKind::Quota).empty());
    }

    // Memory limits shift as CPU quotas do, as proposals of their own: a pool whose forecast memory peak (or the
    // memory its workloads ask for now) exceeds its limit gets a raise from pools with memory to spare and from
    // memory no limit holds, in 512 MiB steps, and its base back in the trough.
    void memoryQuotaShiftsAsCpuDoes()
    {
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        auto web = pool("web", kUnlimited, 3000.0);
        web.memoryQuotaMiB = 16384;
        web.memoryPeakMiB = 16000.0;
        web.memoryPeakAtMs = kNow + 90 * kMinute;
        auto batch = pool("batch", kUnlimited, 1000.0);
        batch.memoryQuotaMiB = 40960;
        batch.memoryPeakMiB = 8000.0;
        auto free = pool("free", kUnlimited, 1000.0); // no limit: neither raised nor a donor
        free.memoryPeakMiB = 90000.0;
        input.pools = { web, batch, free };
        auto quota = ofKind(rebalance::evaluate(input, {}), ProposalKind::Quota);
        QCOMPARE(quota.size(), std::size_t { 1 }); // no CPU quota is limited
        QCOMPARE(quota[0].key, std::string("quota:web:memory"));
        // 16000 × 1.2 = 19200 → 19456 in 512 MiB steps; batch needs 8000 × 1.2 = 9600 → 9728 and gives 3072.
        QCOMPARE(quota[0].plan,
            (std::vector<Action> {
                Action::setMemoryQuota("web", 19456, 16384), Action::takeMemoryQuota("batch", 3072, 9728) }));
        QVERIFY2(quota[0].reason.find("memory quota of 16384 MiB") != std::string::npos
                && quota[0].reason.find("09:30 UTC") != std::string::npos,
            quota[0].reason.c_str());
        QCOMPARE(name(quota[0].risk), name(rebalance::Risk::Low));

        // What its workloads ask for now counts when above the forecast; a CPU quota in need is a proposal apart.
        input.pools[0].memoryDemandMiB = 20000.0; // 24000 with headroom
        input.pools[0].cpuQuotaMillis = 2000;
        input.pools[1].cpuQuotaMillis = 8000;
        quota = ofKind(rebalance::evaluate(input, {}), ProposalKind::Quota);
        QCOMPARE(quota.size(), std::size_t { 2 });
        QCOMPARE(quota[0].key, std::string("quota:web"));
        QCOMPARE(quota[1].key, std::string("quota:web:memory"));
        QCOMPARE(quota[1].plan[0], Action::setMemoryQuota("web", 24064, 16384));

        // Memory no limit holds pays for what donors cannot give.
        input.pools[1].memoryQuotaMiB = 10000; // 272 above its need: less than a step to spare
        input.nodes = { node("a", 0), node("b", 0) };
        input.nodes[0].memoryMiB = input.nodes[1].memoryMiB = 32768; // 65536 against 26384 in limits
        quota = ofKind(rebalance::evaluate(input, {}), ProposalKind::Quota);
        QCOMPARE(quota.back().plan, (std::vector<Action> { Action::setMemoryQuota("web", 24064, 16384) }));
        QVERIFY2(quota.back().reason.find("7680 MiB of capacity no quota holds") != std::string::npos,
            quota.back().reason.c_str());

        // The trough: a pool raised earlier whose peak fits its base again gives back what it was raised by.
        rebalance::EvaluationInput trough;
        trough.nowMs = kNow;
        auto raised = pool("web", kUnlimited, 1000.0);
        raised.memoryQuotaMiB = 19456;
        raised.baseMemoryMiB = 16384;
        raised.memoryPeakMiB = 9000.0; // 10800 with headroom
        trough.pools = { raised };
        quota = ofKind(rebalance::evaluate(trough, {}), ProposalKind::Quota);
        QCOMPARE(quota.size(), std::size_t { 1 });
        QCOMPARE(quota[0].plan, (std::vector<Action> { Action::setMemoryQuota("web", 16384, 19456) }));
        QVERIFY2(quota[0].reason.find("give back the 3072 MiB") != std::string::npos, quota[0].reason.c_str());
        // Not while what its workloads ask for now needs more than the base.
        trough.pools[0].memoryDemandMiB = 15000.0;
        QVERIFY(ofKind(rebalance::evaluate(trough, {}), ProposalKind::Quota).empty());
    }

    // A pool runs into whichever quota is short first: a CPU raise with the memory limit still short of the forecast
    // does not say the peak fits; with the memory raise proposed too, each names the other.
    void aRaiseSaysWhichOtherQuotaHoldsThePool()
    {
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        auto web = pool("web", 2000, 3000.0); // needs 3600 → 4000 in 500 steps
        web.memoryQuotaMiB = 16384;
        web.memoryPeakMiB = 16000.0; // needs 19200 → 19456
        web.memoryPeakAtMs = kNow + 30 * kMinute;
        auto batch = pool("batch", 8000, 1000.0); // gives 6500 millicores
        batch.memoryQuotaMiB = 16384;
        batch.memoryPeakMiB = 15000.0; // needs 18432: nothing to give
        input.pools = { web, batch };
        auto quota = ofKind(rebalance::evaluate(input, {}), ProposalKind::Quota);
        QCOMPARE(quota.size(), std::size_t { 1 });
        QCOMPARE(quota[0].key, std::string("quota:web"));
        QCOMPARE(quota[0].effect.sloRiskWhy.size(), std::size_t { 1 });
        QCOMPARE(quota[0].effect.sloRiskWhy[0].code, std::string("risk-held-by"));
        QCOMPARE(quota[0].effect.sloRisk,
            std::string("the pool's memory quota of 16384 MiB still holds it below its forecast need of 19456 MiB: "
                        "work will wait"));
        QCOMPARE(name(quota[0].risk), name(rebalance::Risk::Medium));

        // Memory to give: the memory raise is proposed too, and each says the peak needs the other.
        input.pools[1].memoryQuotaMiB = 40960;
        quota = ofKind(rebalance::evaluate(input, {}), ProposalKind::Quota);
        QCOMPARE(quota.size(), std::size_t { 2 });
        QCOMPARE(quota[0].key, std::string("quota:web"));
        QCOMPARE(quota[1].key, std::string("quota:web:memory"));
        QCOMPARE(quota[0].effect.sloRisk,
            std::string("none: the p90 peak fits the raised CPU quota; the peak also needs the memory raise proposed "
                        "with it: approve both"));
        QCOMPARE(quota[1].effect.sloRiskWhy.back().code, std::string("risk-raise-too"));
        QCOMPARE(name(quota[0].risk), name(rebalance::Risk::Low));

        // A pool whose other limits hold its peak reads as before.
        input.pools[0].memoryPeakMiB = 8000.0;
        quota = ofKind(rebalance::evaluate(input, {}), ProposalKind::Quota);
        QCOMPARE(quota.size(), std::size_t { 1 });
        QCOMPARE(quota[0].effect.sloRisk, std::string("none: the p90 peak fits the raised CPU quota"));
    }

    // A memory quota action reads back from the store as it was written, and the next round's plan a step away is
    // the same advice.
    void memoryQuotaActionsRoundTrip()
    {
        const rebalance::Proposal p = pendingQuota("quota:web:memory",
            { Action::setMemoryQuota("web", 19456, 16384), Action::takeMemoryQuota("batch", 3072, 9728) },
            Action::Type::GiveMemoryQuota);
        const auto back = rebalance::fromStored(rebalance::toStored(p));
        QVERIFY(back);
        QCOMPARE(back->plan, p.plan);
        QCOMPARE(rebalance::toJson(p.plan[0]).value("action", std::string()), std::string("set_memory_quota"));
        const std::vector<Action> next { Action::setMemoryQuota("web", 19968, 16384),
            Action::takeMemoryQuota("batch", 3584, 9728), p.plan[2] };
        QVERIFY(rebalance::equivalentPlans(p.plan, next, {}));
        QVERIFY(!rebalance::equivalentPlans(p.plan, next, { 500, 256 }));
        QVERIFY(!rebalance::equivalentPlans(
            p.plan, { Action::setMemoryQuota("web", 19456, 16896), p.plan[1], p.plan[2] }, {}));
    }

    // Accelerator quotas shift as CPU quotas do, kind by kind in share units, as proposals of their own: a pool whose
    // forecast GPU peak exceeds its GPU quota takes what other pools' forecasts leave idle, in half-GPU steps, and NPU
    // cores no quota holds in steps of one core; a pool kept off a kind (quota 0) is neither raised nor drawn on.
    void acceleratorQuotasShiftAsCpuDoes()
    {
        const auto gpu = static_cast<std::size_t>(AcceleratorKind::Gpu);
        const auto npu = static_cast<std::size_t>(AcceleratorKind::Npu);
        const auto limit = [](rebalance::PoolOutlook p, std::size_t kind, std::int64_t quota,
                               std::optional<double> peak, double demand = 0.0) {
            p.accelerators[kind].quota = quota;
            p.accelerators[kind].peak = peak;
            p.accelerators[kind].peakAtMs = kNow + 90 * kMinute;
            p.accelerators[kind].demand = demand;
            return p;
        };
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        auto ml = limit(pool("ml", kUnlimited, 1000.0), gpu, 2000, 3000.0, 1000.0); // 3600 with headroom: 4000
        ml = limit(ml, npu, 8, 10.0); // 12 with headroom
        const auto batch = limit(pool("batch", kUnlimited, 1000.0), gpu, 6000, 1500.0); // needs 2000, 4000 to spare
        const auto off = limit(pool("off", kUnlimited, 1000.0), gpu, 0, 5000.0); // kept off GPUs
        const auto free = limit(pool("free", kUnlimited, 1000.0), gpu, kUnlimited, 100.0);
        input.pools = { ml, batch, off, free };
        input.nodes = { node("npu-1", 0) };
        input.nodes[0].acceleratorKind = AcceleratorKind::Npu;
        input.nodes[0].acceleratorShare = 32.0; // 24 NPU cores no quota holds
        auto quota = ofKind(rebalance::evaluate(input, {}), ProposalKind::Quota);
        QCOMPARE(quota.size(), std::size_t { 2 });
        QCOMPARE(quota[0].key, std::string("quota:ml:gpu"));
        QCOMPARE(quota[0].plan,
            (std::vector<Action> { Action::setAcceleratorQuota("ml", AcceleratorKind::Gpu, 4000, 2000),
                Action::takeAcceleratorQuota("batch", AcceleratorKind::Gpu, 2000, 2000) }));
        QVERIFY2(quota[0].reason.find("above its GPU quota of 2000 milli-devices") != std::string::npos
                && quota[0].reason.find("2000 milli-devices from pool batch") != std::string::npos
                && quota[0].reason.find("09:30 UTC") != std::string::npos,
            quota[0].reason.c_str());
        QCOMPARE(name(quota[0].risk), name(rebalance::Risk::Low)); // batch keeps 2000 to spare
        QCOMPARE(quota[1].key, std::string("quota:ml:npu"));
        QCOMPARE(
            quota[1].plan, (std::vector<Action> { Action::setAcceleratorQuota("ml", AcceleratorKind::Npu, 12, 8) }));
        QVERIFY2(quota[1].reason.find("4 NPU cores of capacity no quota holds") != std::string::npos,
            quota[1].reason.c_str());

        // What its workloads ask for now counts when above the forecast.
        input.pools[0].accelerators[gpu].demand = 3500.0; // 4200 with headroom: 4500
        quota = ofKind(rebalance::evaluate(input, {}), ProposalKind::Quota);
        QCOMPARE(quota[0].plan[0], Action::setAcceleratorQuota("ml", AcceleratorKind::Gpu, 4500, 2000));

        // GPUs that pools with no GPU quota use are not capacity no quota holds: two hot nodes of 4 GPUs, one reserved,
        // one lent to the batch of a pool with no limit, which holds 5 GPUs (one waits); 8000 - 2000 in quotas - 5000
        // held leaves 1000 for ml, which asks for 2000 more.
        rebalance::EvaluationInput lent;
        lent.nowMs = kNow;
        auto cold = limit(pool("cold", kUnlimited, 1000.0), gpu, kUnlimited, std::nullopt, 5000.0);
        lent.pools = { limit(pool("ml", kUnlimited, 1000.0), gpu, 2000, 3000.0), cold };
        lent.nodes = { node("hot-1", 0), node("hot-2", 0) };
        for (rebalance::NodeOutlook& n : lent.nodes) {
            n.tier = "hot";
            n.accelerators = 4;
            n.acceleratorKind = AcceleratorKind::Gpu;
            n.acceleratorShare = 4000.0;
        }
        lent.nodes[0].peakReserved = true;
        lent.nodes[1].batchResidents = 4;
        quota = ofKind(rebalance::evaluate(lent, {}), ProposalKind::Quota);
        QCOMPARE(quota.size(), std::size_t { 1 });
        QCOMPARE(quota[0].plan,
            (std::vector<Action> { Action::setAcceleratorQuota("ml", AcceleratorKind::Gpu, 3000, 2000) }));
        QVERIFY2(quota[0].reason.find("1000 milli-devices of capacity no quota holds") != std::string::npos,
            quota[0].reason.c_str());
        QCOMPARE(quota[0].effect.utilisationAfter, 1.0); // the p90 peak fills it, without headroom
        // Its batch done, the lent node's GPUs are idle capacity again.
        lent.pools[1].accelerators[gpu].demand = 0.0;
        quota = ofKind(rebalance::evaluate(lent, {}), ProposalKind::Quota);
        QCOMPARE(quota[0].plan[0], Action::setAcceleratorQuota("ml", AcceleratorKind::Gpu, 4000, 2000));

        // The trough: a pool raised earlier whose peak fits its base again gives back what it was raised by.
        rebalance::EvaluationInput trough;
        trough.nowMs = kNow;
        auto raised = limit(pool("ml", kUnlimited, 1000.0), gpu, 4000, 1000.0); // 1200 with headroom: 1500
        raised.accelerators[gpu].base = 2000;
        trough.pools = { raised };
        quota = ofKind(rebalance::evaluate(trough, {}), ProposalKind::Quota);
        QCOMPARE(quota.size(), std::size_t { 1 });
        QCOMPARE(quota[0].plan,
            (std::vector<Action> { Action::setAcceleratorQuota("ml", AcceleratorKind::Gpu, 2000, 4000) }));
        QVERIFY2(
            quota[0].reason.find("give back the 2000 milli-devices") != std::string::npos, quota[0].reason.c_str());
        // Not while what its workloads ask for now needs more than the base.
        trough.pools[0].accelerators[gpu].demand = 1800.0;
        QVERIFY(ofKind(rebalance::evaluate(trough, {}), ProposalKind::Quota).empty());
    }

    // A proposal's reason is kept as clauses (a code and its arguments) beside the English they make: stored and read
    // back whole, served in its JSON as `why`. A stored clause with no code is an error that names it; a proposal
    // stored before clauses existed reads with none (the console shows its English); a clause this build does not
    // know reads as its code.
    void reasonsAreClausesAConsoleCanWord()
    {
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        input.pools = { pool("web", 4000, 5000.0), pool("batch", 8000, 2000.0) };
        const auto quota = ofKind(rebalance::evaluate(input, {}), ProposalKind::Quota);
        QCOMPARE(quota.size(), std::size_t { 1 });
        rebalance::Proposal p = quota[0];
        p.id = 3;
        p.state = ProposalState::Pending;
        QCOMPARE(p.why.size(), std::size_t { 3 });
        QCOMPARE(p.why[0].code, std::string("quota-above"));
        const nlohmann::json& args = p.why[0].args;
        QVERIFY(args[0] == "web");
        QVERIFY(args[1] == rebalance::amountArg(5000.0, "cpu"));
        QVERIFY(args[2] == rebalance::timeArg(kNow + 30 * kMinute));
        QVERIFY(args[4] == 20); // % headroom
        QVERIFY(args[5] == rebalance::termArg("cpu"));
        QVERIFY2(p.reason.find("above its CPU quota of 4000 mCPU; raise it to 6000 mCPU ahead of the peak; take 2000 "
                               "mCPU from pool batch")
                != std::string::npos,
            p.reason.c_str());
        QCOMPARE(rebalance::toJson(p)["why"][2]["code"].get<std::string>(), std::string("quota-from-pool"));

        auto stored = rebalance::toStored(p);
        const auto back = rebalance::fromStored(stored);
        QVERIFY(back);
        QVERIFY(back->why == p.why);
        QCOMPARE(back->reason, p.reason);
        QCOMPARE(back->effect.sloRiskWhy.at(0).code, std::string("risk-fits-raised"));
        QVERIFY(back->effect == p.effect);
        auto badRisk = stored;
        badRisk.effect["sloRiskWhy"] = nlohmann::json::array({ 7 });
        QVERIFY2(!rebalance::fromStored(badRisk)
                && rebalance::fromStored(badRisk).error().message.find("field `effect.sloRiskWhy[0]` has no `code`")
                    != std::string::npos,
            "a service-level risk clause with no code");

        stored.plan["why"][1] = nlohmann::json { { "args", nlohmann::json::array() } };
        auto broken = rebalance::fromStored(stored);
        QVERIFY(!broken);
        QVERIFY2(
            broken.error().message.find("stored proposal 3: field `plan.why[1]` has no `code`") != std::string::npos,
            broken.error().message.c_str());
        stored.plan["why"] = "raise it";
        broken = rebalance::fromStored(stored);
        QVERIFY(!broken);
        QVERIFY2(broken.error().message.find("field `plan.why` is not an array of clauses") != std::string::npos,
            broken.error().message.c_str());
        stored.plan.erase("why");
        const auto old = rebalance::fromStored(stored);
        QVERIFY(old && old->why.empty());
        QCOMPARE(old->reason, p.reason);

        QCOMPARE(rebalance::english({ rebalance::clause("from-a-newer-daemon", { 1 }), p.why[1] }),
            std::string("from-a-newer-daemon; raise it to 6000 mCPU ahead of the peak"));
        // Tiers are a term each, a set of them joined.
        QCOMPARE(rebalance::englishArg(rebalance::termArg("hot+warm")), std::string("hot or warm"));
    }

    // An accelerator quota action reads back from the store as it was written, names its kind in JSON, and the next
    // round's plan a step away is the same advice; a stored action with no kind is an error that names the field.
    void acceleratorQuotaActionsRoundTrip()
    {
        const rebalance::Proposal p = pendingQuota("quota:ml:gpu",
            { Action::setAcceleratorQuota("ml", AcceleratorKind::Gpu, 4000, 2000),
                Action::takeAcceleratorQuota("batch", AcceleratorKind::Gpu, 2000, 2000) },
            Action::Type::GiveAcceleratorQuota);
        auto stored = rebalance::toStored(p);
        const auto back = rebalance::fromStored(stored);
        QVERIFY(back);
        QCOMPARE(back->plan, p.plan);
        const auto json = rebalance::toJson(p.plan[0]);
        QCOMPARE(json.value("action", std::string()), std::string("set_accelerator_quota"));
        QCOMPARE(json.value("accelerator", std::string()), std::string("gpu"));
        QCOMPARE(json.value("expectQuotaShare", 0), 2000);
        QCOMPARE(rebalance::toJson(p.plan[1]).value("floorQuotaShare", 0), 2000);
        const std::vector<Action> next { Action::setAcceleratorQuota("ml", AcceleratorKind::Gpu, 4500, 2000),
            Action::takeAcceleratorQuota("batch", AcceleratorKind::Gpu, 2500, 2000), p.plan[2] };
        QVERIFY(rebalance::equivalentPlans(p.plan, next, {}));
        rebalance::QuotaSteps finer;
        finer.acceleratorShare[static_cast<std::size_t>(AcceleratorKind::Gpu)] = 250;
        QVERIFY(!rebalance::equivalentPlans(p.plan, next, finer));
        auto npu = p.plan;
        for (Action& a : npu)
            a.accelerator = AcceleratorKind::Npu;
        QVERIFY(!rebalance::equivalentPlans(p.plan, npu, {}));
        stored.plan["actions"][0].erase("accelerator");
        const auto broken = rebalance::fromStored(stored);
        QVERIFY(!broken);
        QVERIFY2(broken.error().message.find("plan.actions.accelerator") != std::string::npos,
            broken.error().message.c_str());
    }

    void idleNodesPowerDownWhileTheRestHoldsThePeak()
    {
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        input.pools = { pool("web", kUnlimited, 6000.0) }; // 7200 with headroom
        input.nodes = { node("busy", 0), node("idle-long", 60 * kMinute), node("idle-short", 5 * kMinute),
            node("idle-2", 45 * kMinute) };
        auto down = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown);
        // 32000 in service; each power-down leaves 24000 then 16000, both above 7200; idle-short is not idle long
        // enough.
        QCOMPARE(down.size(), std::size_t { 2 });
        QCOMPARE(down[0].key, std::string("power:idle-long"));
        QCOMPARE(down[1].key, std::string("power:idle-2"));
        QCOMPARE(down[0].effect.wattsSaved, 160.0);
        QVERIFY(down[0].plan[0].reason.rfind(rebalance::kPowerDownCordon, 0) == 0);

        // A peak that needs them back: the powered-down nodes are proposed up, largest first, until it fits.
        input.pools = { pool("web", kUnlimited, 20000.0) }; // 24000 with headroom
        input.nodes = { node("busy", 0), node("idle-2", 45 * kMinute), node("down-1", 0, "powered down by proposal"),
            node("down-2", 0, "powered down by proposal"), node("maintenance", 0, "disk replacement") };
        input.nodes[2].ready = input.nodes[3].ready = input.nodes[4].ready = true;
        auto up = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerUp);
        QCOMPARE(up.size(), std::size_t { 1 }); // 16000 + 8000 = 24000 is enough; the operator's cordon is not touched
        QCOMPARE(up[0].key, std::string("power:down-1"));
        QCOMPARE(up[0].plan[0].type, Action::Type::Uncordon);
        QVERIFY(ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown).empty());
    }

    // A memory-bound pool keeps the nodes its memory needs however idle their cores: power-down holds the forecast
    // memory peak as it holds the CPU one (or, without a forecast, the highest recent load), and a memory peak beyond
    // the nodes in service brings powered-down ones back, saying so. Without memory figures the CPU alone decides.
    void memoryIsHeldAsCpuIs()
    {
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        auto cache = pool("cache", kUnlimited, 2000.0); // 2400 mCPU with headroom: one node's cores would do
        cache.memoryPeakMiB = 40'000.0; // 48000 MiB with headroom, 52800 with the power-down margin
        input.pools = { cache };
        input.nodes = { node("busy", 0), node("idle-1", 60 * kMinute), node("idle-2", 60 * kMinute) };
        for (auto& n : input.nodes)
            n.memoryMiB = 32768;
        // 98304 MiB in service: one idle node may go (65536 left), not both (32768).
        const auto down = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown);
        QCOMPARE(down.size(), std::size_t { 1 });
        QVERIFY2(down[0].reason.find("and memory peak (40000 MiB p90)") != std::string::npos, down[0].reason.c_str());
        // The risk is the tighter resource's: 65536 MiB over a 40000 MiB peak (CPU: 16000 over 2000).
        QVERIFY2(down[0].effect.sloRisk.find("63% to spare") != std::string::npos, down[0].effect.sloRisk.c_str());

        input.pools[0].memoryPeakMiB.reset();
        QCOMPARE(ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown).size(), std::size_t { 2 });
        input.pools[0].memoryRecentPeakMiB = 40'000.0; // too little history: the last day's highest load stands in
        QCOMPARE(ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown).size(), std::size_t { 1 });
        input.pools[0].memoryRecentPeakMiB = 0.0;
        input.pools[0].memoryDemandMiB = 70'000.0; // and at least the demand now: no node can go
        QVERIFY(ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown).empty());

        // Tier by tier, as the CPU: memory that may live only on warm nodes must fit the warm ones, however much the
        // hot tier has. 40000 MiB of it, on the busy warm node and an idle one; two idle hot nodes of 65536 MiB.
        input.pools[0].memoryDemandMiB = 20'000.0;
        input.pools[0].memoryDemandByTiers[tierBit(Tier::Warm)] = 20'000.0; // the peak is twice the demand now
        input.pools[0].memoryPeakMiB = 40'000.0;
        input.nodes = { node("busy", 0), node("idle-w", 60 * kMinute), node("idle-h1", 90 * kMinute),
            node("idle-h2", 60 * kMinute) };
        input.nodes[0].memoryMiB = input.nodes[1].memoryMiB = 32768;
        for (const std::size_t hot : { 2, 3 }) {
            input.nodes[hot].tier = "hot";
            input.nodes[hot].memoryMiB = 65536;
        }
        auto tiered = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown);
        QCOMPARE(tiered.size(), std::size_t { 1 }); // one hot node (the last of its tier stays), not the warm one
        QCOMPARE(tiered[0].key, std::string("power:idle-h1"));
        input.pools[0].memoryDemandByTiers = {}; // memory that may live anywhere: the warm node may go as well
        tiered = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown);
        QCOMPARE(tiered.size(), std::size_t { 2 });
        QCOMPARE(tiered[1].key, std::string("power:idle-w"));

        cache.memoryPeakMiB = 60'000.0; // 72000 MiB with headroom
        input.pools = { cache };
        input.nodes = { node("busy", 0), node("down-small", 0, "powered down by proposal"),
            node("down-large", 0, "powered down by proposal") };
        input.nodes[0].memoryMiB = input.nodes[1].memoryMiB = 32768;
        input.nodes[2].memoryMiB = 65536;
        const auto all = rebalance::evaluate(input, {});
        const auto up = ofKind(all, ProposalKind::PowerUp);
        QCOMPARE(up.size(), std::size_t { 1 }); // 32768 + 65536 hold it: the larger alone comes back
        QCOMPARE(up[0].key, std::string("power:down-large"));
        QVERIFY2(up[0].reason.find("the forecast memory peak (60000 MiB p90, 72000 MiB with headroom) exceeds the "
                                   "32768 MiB of nodes in service")
                != std::string::npos,
            up[0].reason.c_str());
        QVERIFY(ofKind(all, ProposalKind::PowerDown).empty());
    }

    // A pool with too little history for a forecast counts at its highest load of the last day, not at its demand
    // now: a new pool in its first night must not have its morning's capacity powered down. The same for the hot
    // tier's accelerators.
    void aPoolWithoutAForecastIsHeldAtItsRecentPeak()
    {
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        auto fresh = pool("fresh", kUnlimited, std::nullopt);
        fresh.cpuDemandMillis = 1000;
        input.pools = { fresh };
        input.nodes = { node("busy", 0), node("idle-1", 60 * kMinute), node("idle-2", 60 * kMinute) };
        QCOMPARE(ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown).size(), std::size_t { 2 });
        // 12000 × 1.2 = 14400, and 10% more: 16000 must stay, so one of the idle nodes may go.
        input.pools[0].cpuRecentPeakMillis = 12000;
        const auto down = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown);
        QCOMPARE(down.size(), std::size_t { 1 });
        QVERIFY2(
            down[0].reason.find("pools fresh are counted at the highest load of the last day: too little history for a "
                                "forecast")
                != std::string::npos,
            down[0].reason.c_str());
        // With a forecast, the forecast decides (quota planning ignores the recent peak as well: no proposal).
        input.pools[0].cpuPeakMillis = 2000.0;
        QCOMPARE(ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown).size(), std::size_t { 1 });
        input.pools[0].cpuRecentPeakMillis = 0;
        QCOMPARE(ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown).size(), std::size_t { 2 });

        // An idle hot node of 8 GPUs beside one in use: with no forecast and no demand now it may go; with the hot
        // tier's highest load of the last day at 7 GPUs it may not (the 8000 left < 7000 × 1.2 × 1.1).
        rebalance::EvaluationInput hot;
        hot.nowMs = kNow;
        hot.pools = { pool("infer", kUnlimited, 1000.0) };
        auto idleHot = hotNode("hot-idle", false, 0);
        idleHot.residents = 0;
        idleHot.idleSinceMs = kNow - 60 * kMinute;
        hot.nodes = { hotNode("hot-busy", true, 0), idleHot, node("warm", 0) };
        QCOMPARE(ofKind(rebalance::evaluate(hot, {}), ProposalKind::PowerDown).size(), std::size_t { 1 });
        hot.accelerator(AcceleratorKind::Gpu).hotRecentPeak = 7000;
        QVERIFY(ofKind(rebalance::evaluate(hot, {}), ProposalKind::PowerDown).empty());
    }

    // The loop: six hours of history (under a day) at 12 cores for pool "fresh", which asks for nothing now; the
    // rebalancer has no forecast for it, holds its recent peak, and so powers down one of three idle nodes, not two.
    void theLoopHoldsTheRecentPeakOfAPoolWithTooLittleHistory()
    {
        auto store = store::openSqliteStore(dbPath());
        QVERIFY(store);
        auto p = plane(**store);
        for (const char* n : { "n1", "n2", "n3", "n4" })
            join(*p, n, 8000, 32768);
        createPool(*p, "fresh", kUnlimited);
        std::vector<store::Sample> samples;
        for (std::int64_t t = kNow - 6 * 60 * kMinute; t < kNow - 60 * kMinute; t += 5 * kMinute)
            samples.push_back({ { "pool", "fresh", "cpu" }, t, 12000 });
        const auto downs = powerDownReasons(*p, **store, samples);
        QVERIFY(downs);
        // 32000 in service; 12000 × 1.2 × 1.1 = 15840 must stay: two may go (16000 left). At demand now (0) three
        // would (minReadyPerTier keeps the last).
        QCOMPARE(downs->size(), std::size_t { 2 });
        QVERIFY2(
            (*downs)[0].find("pools fresh are counted at the highest load") != std::string::npos, (*downs)[0].c_str());
    }

    // Services may run only on warm nodes: idle CPU on the hot tier does not let a warm node be powered down that the
    // services' forecast needs, and a warm node comes back for them although the cluster as a whole has the room.
    void powerIsPlannedTierByTier()
    {
        auto services = [](double now, double peak) {
            auto p = pool("services", kUnlimited, peak);
            p.cpuDemandMillis = now;
            p.cpuDemandByTiers[tierBit(Tier::Warm)] = now; // latency-sensitive: warm nodes only
            return p;
        };
        auto hotCpuNode = [](const std::string& name, std::int64_t idleForMs, std::string cordon = {}) {
            auto n = node(name, idleForMs, std::move(cordon));
            n.tier = "hot";
            return n;
        };
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        // 13000 × 1.2 = 15600, × 1.1 = 17160 to power a node down: the warm tier holds 24000, 16000 without idle-w.
        input.pools = { services(10000, 13000) };
        input.nodes = { node("busy-w1", 0), node("busy-w2", 0), node("idle-w", 60 * kMinute),
            hotCpuNode("idle-h1", 90 * kMinute), hotCpuNode("idle-h2", 60 * kMinute) };
        auto down = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown);
        QCOMPARE(down.size(), std::size_t { 1 }); // one hot node (the last of its tier stays); not the warm one
        QCOMPARE(down[0].key, std::string("power:idle-h1"));
        // Counted as work that may run anywhere, the same demand would let the warm node go (the cluster holds 40000).
        input.pools[0].cpuDemandByTiers = {};
        down = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown);
        QCOMPARE(down.size(), std::size_t { 2 });
        QCOMPARE(down[0].key, std::string("power:idle-h1"));
        QCOMPARE(down[1].key, std::string("power:idle-w"));

        // 20000 × 1.2 = 24000 for the services against 16000 of warm nodes in service (32000 with the hot ones): the
        // warm node powered down comes back, the hot one does not.
        input.pools = { services(10000, 20000) };
        input.nodes = { node("busy-w1", 0), node("busy-w2", 0), node("down-w", 0, "powered down by proposal"),
            hotCpuNode("busy-h", 0), hotCpuNode("idle-h", 60 * kMinute),
            hotCpuNode("down-h", 0, "powered down by proposal") };
        input.nodes[2].ready = input.nodes[5].ready = true;
        const auto all = rebalance::evaluate(input, {});
        const auto up = ofKind(all, ProposalKind::PowerUp);
        QCOMPARE(up.size(), std::size_t { 1 });
        QCOMPARE(up[0].key, std::string("power:down-w"));
        QVERIFY2(up[0].reason.find("may run only on warm nodes (20000 mCPU p90, 24000 mCPU with headroom) exceeds "
                                   "the 16000 mCPU of warm nodes in service")
                != std::string::npos,
            up[0].reason.c_str());
        QVERIFY(ofKind(all, ProposalKind::PowerDown).empty()); // short somewhere: nothing goes down this round
        // Work that may run anywhere is held by the cluster as a whole: nothing comes back.
        input.pools[0].cpuDemandByTiers = {};
        QVERIFY(ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerUp).empty());
    }

    // Accelerator nodes: an idle one stays in service while accelerator work waits or while the hot tier's forecast
    // peak needs its GPUs, and one powered down comes back for them. A node is powered down only with a margin above
    // the forecast, so that the next, slightly higher forecast does not bring it straight back.
    void acceleratorWorkAndTheHotPeakKeepGpuNodes()
    {
        auto gpuNode = [](const std::string& name, std::string cordon = {}) {
            auto n = node(name, 60 * kMinute, std::move(cordon));
            n.tier = "hot";
            n.accelerators = 8;
            n.acceleratorKind = AcceleratorKind::Gpu;
            n.acceleratorShare = 8000;
            return n;
        };
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        input.pools = { pool("web", kUnlimited, 1000.0) };
        input.nodes = { node("busy", 0), gpuNode("gpu-1"), gpuNode("gpu-2"), gpuNode("gpu-3") };
        input.nodes[0].tier = "hot";
        QCOMPARE(ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown).size(), std::size_t { 3 });

        input.accelerator(AcceleratorKind::Gpu).pending = 500; // half a GPU waits
        QVERIFY(ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown).empty());

        input.accelerator(AcceleratorKind::Gpu).pending = 0;
        // 14400 with headroom: two of the three GPU nodes must stay.
        input.accelerator(AcceleratorKind::Gpu).hotPeak = 12000.0;
        auto down = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown);
        QCOMPARE(down.size(), std::size_t { 1 });

        // Powered down, and accelerator work waits: brought back, one node's eight GPUs at a time.
        input.accelerator(AcceleratorKind::Gpu).hotPeak.reset();
        input.nodes = { node("busy", 0), gpuNode("gpu-1"), gpuNode("gpu-2", "powered down by proposal"),
            gpuNode("gpu-3", "powered down by proposal") };
        input.nodes[0].tier = "hot";
        input.accelerator(AcceleratorKind::Gpu).pending = 3000;
        auto up = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerUp);
        QCOMPARE(up.size(), std::size_t { 1 });
        QVERIFY(up[0].reason.find("3000 milli-devices short") != std::string::npos);
        input.accelerator(AcceleratorKind::Gpu).pending = 9000;
        QCOMPARE(ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerUp).size(), std::size_t { 2 });

        // The margin: 4 nodes of 8000 mCPU, a forecast of 6500 (7800 with headroom). Powering one down leaves 24000,
        // two 16000, three 8000: 8000 holds 7800 but not 7800 × 1.1, so the third stays.
        input = {};
        input.nowMs = kNow;
        input.pools = { pool("web", kUnlimited, 6500.0) };
        input.nodes = { node("busy", 0), node("idle-1", 60 * kMinute), node("idle-2", 60 * kMinute),
            node("idle-3", 60 * kMinute) };
        QCOMPARE(ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown).size(), std::size_t { 2 });
        rebalance::EvaluatorConfig noMargin;
        noMargin.powerDownMargin = 0;
        QCOMPARE(ofKind(rebalance::evaluate(input, noMargin), ProposalKind::PowerDown).size(), std::size_t { 3 });
    }

    // Accelerators are counted kind by kind, each in its own units. Before, only GPUs were accelerators: an idle
    // FPGA host went down like a CPU server even with FPGA work waiting, nothing brought it back, and waiting FPGA
    // slots counted as milli-GPUs, keeping idle GPU nodes on (and bringing powered-down ones back) for work they
    // cannot take.
    void fpgaWorkKeepsAndBringsBackFpgaHostsOnly()
    {
        auto fpgaHost = [](const std::string& name, std::string cordon = {}) {
            auto n = node(name, 60 * kMinute, std::move(cordon));
            n.tier = "hot";
            n.cpuMillis = 32000;
            n.accelerators = 2;
            n.acceleratorKind = AcceleratorKind::Fpga;
            n.acceleratorShare = 16; // two cards of 8 slots
            return n;
        };
        auto gpuNode = [](const std::string& name, std::string cordon = {}) {
            auto n = node(name, 60 * kMinute, std::move(cordon));
            n.tier = "hot";
            n.accelerators = 8;
            n.acceleratorKind = AcceleratorKind::Gpu;
            n.acceleratorShare = 8000;
            return n;
        };
        const auto keys = [](const std::vector<rebalance::Proposal>& proposals) {
            std::set<std::string> out;
            for (const auto& p : proposals)
                out.insert(p.key);
            return out;
        };
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        input.pools = { pool("web", kUnlimited, 1000.0) };
        input.nodes = { node("busy", 0), node("cpu-idle", 60 * kMinute), fpgaHost("fpga-1"), fpgaHost("fpga-2"),
            gpuNode("gpu-1") };
        input.nodes[0].tier = input.nodes[1].tier = "hot";

        // Nothing of any kind waits or is forecast: every idle node may go, the FPGA hosts saying why they may.
        auto down = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown);
        QCOMPARE(keys(down),
            (std::set<std::string> { "power:cpu-idle", "power:fpga-1", "power:fpga-2", "power:gpu-1" }));
        const auto fpgaDown = std::find_if(down.begin(), down.end(), [](const auto& p) { return p.key == "power:fpga-2"; });
        QVERIFY2(fpgaDown->reason.find("no FPGA work waits, and the 0 FPGA slots left in service hold the hot tier's "
                                       "forecast FPGA peak (0 FPGA slots with headroom)")
                != std::string::npos,
            fpgaDown->reason.c_str());

        // Four FPGA slots wait: both idle FPGA hosts stay (either could take them), and nothing else is held back —
        // not the idle CPU server, not the idle GPU node.
        input.accelerator(AcceleratorKind::Fpga).pending = 4;
        down = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown);
        QCOMPARE(keys(down), (std::set<std::string> { "power:cpu-idle", "power:gpu-1" }));
        QVERIFY(ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerUp).empty());

        // The hot tier's FPGA peak is forecast at 10 slots (12 with headroom, 13.2 with the margin): one host of 16
        // slots must stay, the other may go.
        input.accelerator(AcceleratorKind::Fpga).pending = 0;
        input.accelerator(AcceleratorKind::Fpga).hotPeak = 10.0;
        down = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown);
        QCOMPARE(down.size(), std::size_t { 3 });
        QCOMPARE(keys(down).count("power:fpga-1") + keys(down).count("power:fpga-2"), std::size_t { 1 });

        // Both FPGA hosts powered down, FPGA work waits: one comes back for it (16 slots cover 4), no GPU node does.
        input.accelerator(AcceleratorKind::Fpga).hotPeak.reset();
        input.accelerator(AcceleratorKind::Fpga).pending = 4;
        input.nodes = { node("busy", 0), fpgaHost("fpga-1", "powered down by proposal"),
            fpgaHost("fpga-2", "powered down by proposal"), gpuNode("gpu-1", "powered down by proposal") };
        input.nodes[0].tier = "hot";
        auto up = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerUp);
        QCOMPARE(up.size(), std::size_t { 1 });
        QVERIFY(up[0].key == "power:fpga-1" || up[0].key == "power:fpga-2");
        QVERIFY2(up[0].reason.find("FPGA accelerators in service fall 4 FPGA slots short of the hot tier's forecast "
                                   "FPGA peak")
                != std::string::npos,
            up[0].reason.c_str());
        // More than one host holds: both come back. GPU work waiting brings back the GPU node and no FPGA host.
        input.accelerator(AcceleratorKind::Fpga).pending = 20;
        QCOMPARE(ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerUp).size(), std::size_t { 2 });
        input.accelerator(AcceleratorKind::Fpga).pending = 0;
        input.accelerator(AcceleratorKind::Gpu).pending = 500;
        up = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerUp);
        QCOMPARE(keys(up), (std::set<std::string> { "power:gpu-1" }));
        // A forecast FPGA peak with nothing waiting brings a host back ahead of it.
        input.accelerator(AcceleratorKind::Gpu).pending = 0;
        input.accelerator(AcceleratorKind::Fpga).hotPeak = 6.0;
        up = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerUp);
        QCOMPARE(up.size(), std::size_t { 1 });
        QVERIFY(up[0].key != "power:gpu-1");
        // Lending concerns GPUs only: a forecast FPGA peak reserves no hot node.
        QVERIFY(ofKind(rebalance::evaluate(input, {}), ProposalKind::Reclaim).empty());
    }

    // The loop's own accounting on a real control plane: a waiting FPGA job counts as its slots of FPGA demand (not
    // as milli-GPUs), so the idle FPGA host stays in service and the idle GPU node is proposed for power-down.
    void theLoopCountsWaitingFpgaSlotsAsFpga()
    {
        auto p = memoryPlane();
        join(*p, "cpu-1", 8000, 16384);
        join(*p, "gpu-1", 8000, 16384, 2);
        protocol::Inventory inv;
        inv.isa = "x86_64";
        inv.cpuMillis = 32000;
        inv.memoryMiB = 131072;
        for (int d = 0; d < 2; ++d)
            inv.devices.push_back(protocol::DeviceInfo { d, "fpga", "U250", 65536, 8 });
        p->onJoined("fpga-1", "127.0.0.1:1", protocol::Hello { "fpga-1", "t", std::nullopt });
        p->onInventory("fpga-1", inv);
        // A job that no FPGA here can take (it asks for 3 whole cards), so that it waits.
        SubmitRequest job;
        job.name = "transcode";
        job.requests = { 1000, 4096, 0, 0 };
        job.accelerators.kind = AcceleratorKind::Fpga;
        job.accelerators.count = 3;
        job.argv = { "/bin/true" };
        const auto id = p->submit(job);
        QVERIFY(id);
        QCOMPARE(name(p->workload(*id)->phase), std::string("pending"));
        RebalanceConfig config;
        config.evaluator.idleBeforePowerDown = std::chrono::milliseconds(0);
        config.evaluator.minReadyPerTier = 0;
        auto r = rebalancer(*p, config);
        std::set<std::string> down;
        for (const std::int64_t created : r->evaluateNow(kNow))
            if (r->proposal(created)->kind == ProposalKind::PowerDown)
                down.insert(r->proposal(created)->key);
        QVERIFY(!down.count("power:fpga-1")); // 24 FPGA slots wait
        QVERIFY(down.count("power:gpu-1")); // before, the waiting slots were 24 milli-GPUs and kept it on
        QVERIFY(down.count("power:cpu-1"));
    }

    void hotAcceleratorsAreReservedBeforeAPeakAndLentInATrough()
    {
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        input.nodes = { hotNode("h1", true, 0), hotNode("h2", false, 2), hotNode("h3", false, 0), node("warm", 0) };
        // No forecast of the hot tier: nothing about lending.
        QVERIFY(ofKind(rebalance::evaluate(input, {}), ProposalKind::Reclaim).empty());

        // 12 GPUs (p90) × 1.2 = 14.4: h1 (reserved) and h3 (no batch on it) hold it.
        input.accelerator(AcceleratorKind::Gpu).hotPeak = 12000;
        input.accelerator(AcceleratorKind::Gpu).hotPeakAtMs = kNow + 20 * kMinute;
        auto reclaim = ofKind(rebalance::evaluate(input, {}), ProposalKind::Reclaim);
        QCOMPARE(reclaim.size(), std::size_t { 1 });
        QCOMPARE(reclaim[0].key, std::string("lending:hot"));
        QCOMPARE(reclaim[0].plan, (std::vector<Action> { Action::onNode(Action::Type::Reserve, "h3") }));
        QCOMPARE(name(reclaim[0].risk), name(rebalance::Risk::Low));
        QCOMPARE(reclaim[0].effect.gpusFreed, 8.0);

        // 20 × 1.2 = 24: all three, and the batch on h2 has to move: a medium risk.
        input.accelerator(AcceleratorKind::Gpu).hotPeak = 20000;
        reclaim = ofKind(rebalance::evaluate(input, {}), ProposalKind::Reclaim);
        QCOMPARE(reclaim[0].plan.size(), std::size_t { 2 });
        QCOMPARE(reclaim[0].plan[1].target, std::string("h2"));
        QCOMPARE(name(reclaim[0].risk), name(rebalance::Risk::Medium));
        QVERIFY(reclaim[0].reason.find("2 batch workloads") != std::string::npos);

        // A trough: 3 × 1.2 = 3.6 fits h1; the reserved h2 is lent to batch.
        input.nodes = { hotNode("h1", true, 0), hotNode("h2", true, 0), hotNode("h3", false, 4) };
        input.accelerator(AcceleratorKind::Gpu).hotPeak = 3000;
        const auto all = rebalance::evaluate(input, {});
        QVERIFY(ofKind(all, ProposalKind::Reclaim).empty());
        const auto lend = ofKind(all, ProposalKind::Lend);
        QCOMPARE(lend.size(), std::size_t { 1 });
        QCOMPARE(lend[0].plan, (std::vector<Action> { Action::onNode(Action::Type::Release, "h2") }));
        QCOMPARE(name(lend[0].risk), name(rebalance::Risk::Low)); // 8 kept against 3.6 needed
    }

    // A hot node powered down earlier is powered up and reserved for the peak before a lent node running batch is
    // reserved (which would stop its batch); planned once, by the lending plan. And a node is not powered down that
    // this would bring straight back.
    void aPoweredDownHotNodeComesBackForThePeakBeforeBatchIsStopped()
    {
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        input.nodes = { hotNode("h1", true, 0), hotNode("h2", false, 2), hotNode("h3", false, 0) };
        input.nodes[2].cordon = "powered down by proposal (idle since 01:00)";
        auto& gpu = input.accelerator(AcceleratorKind::Gpu);
        gpu.hotPeak = 12000; // 14400 with headroom: h1 and one more
        gpu.hotPeakAtMs = kNow + 30 * kMinute;
        auto all = rebalance::evaluate(input, {});
        QVERIFY(ofKind(all, ProposalKind::Reclaim).empty()); // h2's batch runs on
        auto up = ofKind(all, ProposalKind::PowerUp);
        QCOMPARE(up.size(), std::size_t { 1 });
        QCOMPARE(up[0].key, std::string("power:h3"));
        QCOMPARE(up[0].plan,
            (std::vector<Action> {
                Action::onNode(Action::Type::Uncordon, "h3"), Action::onNode(Action::Type::Reserve, "h3") }));
        QVERIFY2(
            up[0].reason.find("rather than stop the batch on lent nodes") != std::string::npos, up[0].reason.c_str());

        // 24000 with headroom: h3 comes back and h2 is reserved as well, its batch moved.
        gpu.hotPeak = 20000;
        all = rebalance::evaluate(input, {});
        QCOMPARE(ofKind(all, ProposalKind::PowerUp).size(), std::size_t { 1 });
        const auto reclaim = ofKind(all, ProposalKind::Reclaim);
        QCOMPARE(reclaim.size(), std::size_t { 1 });
        QCOMPARE(reclaim[0].plan, (std::vector<Action> { Action::onNode(Action::Type::Reserve, "h2") }));

        // A ready lent node with no batch is taken before powering one up; one reserved before it was powered down is
        // only powered up.
        input.nodes.push_back(hotNode("h4", false, 0));
        gpu.hotPeak = 12000;
        all = rebalance::evaluate(input, {});
        QVERIFY(ofKind(all, ProposalKind::PowerUp).empty());
        QCOMPARE(ofKind(all, ProposalKind::Reclaim)[0].plan,
            (std::vector<Action> { Action::onNode(Action::Type::Reserve, "h4") }));
        input.nodes.pop_back();
        input.nodes[2].peakReserved = true;
        input.nodes[0].peakReserved = false;
        up = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerUp);
        QCOMPARE(up.size(), std::size_t { 1 });
        QCOMPARE(up[0].plan, (std::vector<Action> { Action::onNode(Action::Type::Uncordon, "h3") }));

        // The other way round: an idle reserved node is not powered down while only lent nodes running batch would
        // be left for the peak (it would come straight back); with a lent node free of batch beside it, it may go.
        input.nodes = { hotNode("h1", true, 0), hotNode("h2", false, 2), hotNode("h3", false, 1) };
        input.nodes[0].residents = 0;
        input.nodes[0].idleSinceMs = kNow - 60 * kMinute;
        gpu.hotPeak = 6000; // 7200 with headroom; 7920 with the margin
        QVERIFY(ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown).empty());
        input.nodes[2].batchResidents = 0;
        const auto down = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown);
        QCOMPARE(down.size(), std::size_t { 1 });
        QCOMPARE(down[0].key, std::string("power:h1"));
        QVERIFY2(down[0].reason.find("the 8000 milli-devices left in service with no batch on them hold the hot tier's")
                != std::string::npos,
            down[0].reason.c_str());
    }

    // A node powered up and still booting (its agent not back) is capacity on its way: the next evaluation does not
    // power up another node for the same shortfall, for CPU or for the hot tier's GPU peak, and does not power the
    // booting one down. A node merely not ready (lost) is not counted.
    void aBootingNodeCountsAsComing()
    {
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        input.pools = { pool("web", kUnlimited, 20000.0) }; // 24000 with headroom
        input.nodes = { node("busy", 0), node("idle", 45 * kMinute), node("booting", 0),
            node("down-1", 0, "powered down by proposal"), node("down-2", 0, "powered down by proposal") };
        rebalance::NodeOutlook& booting = input.nodes[2];
        booting.ready = false;
        booting.residents = 0;
        auto up = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerUp);
        QCOMPARE(up.size(), std::size_t { 1 }); // not ready and not booting: 16000 in service, one more needed
        QCOMPARE(up[0].key, std::string("power:down-1"));
        booting.booting = true;
        auto all = rebalance::evaluate(input, {});
        QVERIFY(ofKind(all, ProposalKind::PowerUp).empty()); // 24000 with the booting node
        QVERIFY(ofKind(all, ProposalKind::PowerDown).empty()); // the booting node is not idle in service

        // The hot tier: a booting hot node reserved for the peak holds it; the powered-down one stays down.
        input = {};
        input.nowMs = kNow;
        input.nodes = { hotNode("h1", true, 0), hotNode("h2", true, 0), hotNode("h3", false, 2) };
        input.nodes[2].cordon = "powered down by proposal (idle since 01:00)";
        input.nodes[2].batchResidents = input.nodes[2].residents = 0;
        input.nodes[1].ready = false;
        auto& gpu = input.accelerator(AcceleratorKind::Gpu);
        gpu.hotPeak = 12000; // 14400 with headroom: two nodes
        gpu.hotPeakAtMs = kNow + 30 * kMinute;
        up = ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerUp);
        QCOMPARE(up.size(), std::size_t { 1 });
        QCOMPARE(up[0].key, std::string("power:h3"));
        input.nodes[1].booting = true;
        all = rebalance::evaluate(input, {});
        QVERIFY(ofKind(all, ProposalKind::PowerUp).empty());
        QVERIFY(ofKind(all, ProposalKind::Reclaim).empty());
    }

    // `maxPowerDownsPerNodePerDay`: a node powered down that often in the last 24 hours stays on, however idle; the
    // rebalancer counts the power-downs it applied.
    void aNodeIsPoweredDownAtMostSoOftenADay()
    {
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        input.pools = { pool("web", kUnlimited, 1000.0) };
        input.nodes = { node("busy", 0), node("idle", 60 * kMinute) };
        input.nodes[1].powerDownsToday = 2;
        QCOMPARE(ofKind(rebalance::evaluate(input, {}), ProposalKind::PowerDown).size(), std::size_t { 1 });
        rebalance::EvaluatorConfig limited;
        limited.maxPowerDownsPerNodePerDay = 2;
        QVERIFY(ofKind(rebalance::evaluate(input, limited), ProposalKind::PowerDown).empty());
        input.nodes[1].powerDownsToday = 1;
        QCOMPARE(ofKind(rebalance::evaluate(input, limited), ProposalKind::PowerDown).size(), std::size_t { 1 });

        // Through the rebalancer: n1 is powered down, an operator brings it back, and it is not proposed again the
        // same day; a day later it may go again.
        auto plane = memoryPlane();
        for (const char* n : { "n1", "n2", "n3" })
            join(*plane, n, 8000, 32768);
        RebalanceConfig config;
        config.evaluator.idleBeforePowerDown = std::chrono::milliseconds(0);
        config.evaluator.maxPowerDownsPerNodePerDay = 1;
        auto r = rebalancer(*plane, config);
        auto downs = [&](std::int64_t at) {
            std::map<std::string, std::int64_t> out;
            for (const std::int64_t created : r->evaluateNow(at))
                if (r->proposal(created)->kind == ProposalKind::PowerDown)
                    out[r->proposal(created)->plan.at(0).target] = created;
            return out;
        };
        auto first = downs(kNow);
        QVERIFY(first.count("n1"));
        QVERIFY(r->approve(first["n1"], "operator:test", kNow));
        QCOMPARE(name(r->proposal(first["n1"])->state), name(ProposalState::Applied));
        QVERIFY(plane->setCordon("n1", "")); // its agent never left: back in service at once
        QVERIFY(!downs(kNow + 10 * kMinute).count("n1"));
        QVERIFY(downs(kNow + kDay + 10 * kMinute).count("n1"));
    }

    // A peak beyond the lookahead (within the drain window) drains hot nodes: no new batch starts there, the batch
    // there runs on, nothing is stopped (a low risk). When the peak comes within the lookahead, the batch still on a
    // drained node is stopped (evicted); lending is judged against the drain window's peak.
    void hotNodesDrainForAPeakBeyondTheLookahead()
    {
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        input.nodes = { hotNode("h1", true, 0), hotNode("h2", false, 2), hotNode("h3", false, 0) };
        auto& gpu = input.accelerator(AcceleratorKind::Gpu);
        // Within the lookahead 5 × 1.2 = 6 (h1 holds it); beyond it 12 × 1.2 = 14.4: h3 drains (no batch on it first).
        gpu.hotPeak = 5000;
        gpu.hotPeakAtMs = kNow + 20 * kMinute;
        gpu.drainPeak = 12000;
        gpu.drainPeakAtMs = kNow + 90 * kMinute;
        auto reclaim = ofKind(rebalance::evaluate(input, {}), ProposalKind::Reclaim);
        QCOMPARE(reclaim.size(), std::size_t { 1 });
        QCOMPARE(reclaim[0].plan, (std::vector<Action> { Action::onNode(Action::Type::Drain, "h3") }));
        QCOMPARE(name(reclaim[0].risk), name(rebalance::Risk::Low));
        QVERIFY2(
            reclaim[0].reason.find("drain 1 hot nodes (8 devices)") != std::string::npos, reclaim[0].reason.c_str());

        // 20 × 1.2 = 24 beyond the lookahead: h3 and h2 drain; h2's two batch workloads run on, still a low risk.
        gpu.drainPeak = 20000;
        reclaim = ofKind(rebalance::evaluate(input, {}), ProposalKind::Reclaim);
        QCOMPARE(reclaim[0].plan,
            (std::vector<Action> {
                Action::onNode(Action::Type::Drain, "h3"), Action::onNode(Action::Type::Drain, "h2") }));
        QCOMPARE(name(reclaim[0].risk), name(rebalance::Risk::Low));
        QVERIFY2(
            reclaim[0].reason.find("let the 2 batch workloads running there end on their own") != std::string::npos,
            reclaim[0].reason.c_str());
        QCOMPARE(reclaim[0].effect.gpusFreed, 16.0);

        // Drained, and the peak is now within the lookahead: the batch still on h2 is stopped (a medium risk); h3,
        // drained and empty, needs nothing.
        input.nodes = { hotNode("h1", true, 0), hotNode("h2", true, 1), hotNode("h3", true, 0) };
        gpu.hotPeak = 20000;
        reclaim = ofKind(rebalance::evaluate(input, {}), ProposalKind::Reclaim);
        QCOMPARE(reclaim.size(), std::size_t { 1 });
        QCOMPARE(reclaim[0].plan, (std::vector<Action> { Action::onNode(Action::Type::Evict, "h2") }));
        QCOMPARE(name(reclaim[0].risk), name(rebalance::Risk::Medium));
        QVERIFY2(
            reclaim[0].reason.find("make room on 1 drained hot nodes; move the 1 batch workloads") != std::string::npos,
            reclaim[0].reason.c_str());
        // Nothing left on them: nothing to reclaim, nothing to lend.
        input.nodes = { hotNode("h1", true, 0), hotNode("h2", true, 0), hotNode("h3", true, 0) };
        QVERIFY(ofKind(rebalance::evaluate(input, {}), ProposalKind::Reclaim).empty());
        QVERIFY(ofKind(rebalance::evaluate(input, {}), ProposalKind::Lend).empty());

        // A trough within the lookahead, a peak beyond it: what the later peak needs stays reserved. Without a drain
        // window h2 and h3 are lent.
        gpu.hotPeak = 3000;
        gpu.drainPeak = 12000;
        auto all = rebalance::evaluate(input, {});
        QVERIFY(ofKind(all, ProposalKind::Reclaim).empty());
        auto lend = ofKind(all, ProposalKind::Lend);
        QCOMPARE(lend.size(), std::size_t { 1 });
        QCOMPARE(lend[0].plan, (std::vector<Action> { Action::onNode(Action::Type::Release, "h3") }));
        gpu.drainPeak.reset();
        lend = ofKind(rebalance::evaluate(input, {}), ProposalKind::Lend);
        QCOMPARE(lend[0].plan.size(), std::size_t { 2 });
    }

    // Draining a hot node starts no new batch there and leaves the batch running there alone; reserving it then
    // stops what is still there.
    void drainingAHotNodeLetsItsBatchRunOn()
    {
        auto p = memoryPlane();
        join(*p, "gpu-1", 8000, 16384, 2);
        SubmitRequest batch = oneGpuBatch("train");
        const auto first = p->submit(batch);
        QVERIFY(first);
        QCOMPARE(name(p->workload(*first)->phase), std::string("launching"));
        const auto drained = p->setPeakReserved("gpu-1", true, "test", false);
        QVERIFY(drained);
        QCOMPARE(*drained, std::size_t { 0 });
        QVERIFY(p->cluster().node(p->workload(*first)->node).peakReserved);
        QCOMPARE(name(p->workload(*first)->phase), std::string("launching"));
        batch.name = "train-2";
        const auto second = p->submit(batch); // the second GPU is free, but the node drains
        QVERIFY(second);
        QCOMPARE(name(p->workload(*second)->phase), std::string("pending"));
        // Draining again changes nothing; reserving (stopping the batch) moves the first to the queue.
        QCOMPARE(*p->setPeakReserved("gpu-1", true, "test", false), std::size_t { 0 });
        QCOMPARE(name(p->workload(*first)->phase), std::string("launching"));
        QCOMPARE(*p->setPeakReserved("gpu-1", true, "test"), std::size_t { 1 });
        QCOMPARE(name(p->workload(*first)->phase), std::string("pending"));
        QVERIFY(p->workload(*first)->detail.find("reserved for the next peak") != std::string::npos);
        QVERIFY(p->cluster().checkInvariants());
    }

    // Reserving a hot node moves the batch running there to the queue (here nowhere else fits it, so it waits);
    // lending it again places the batch back.
    void reservingAHotNodeMovesItsBatch()
    {
        auto opened = store::openSqliteStore(dbPath());
        auto p = plane(**opened);
        join(*p, "gpu-1", 8000, 16384, 1);
        SubmitRequest batch = oneGpuBatch("train");
        const auto id = p->submit(batch);
        QVERIFY(id);
        QCOMPARE(name(p->workload(*id)->phase), std::string("launching"));
        const auto moved = p->setPeakReserved("gpu-1", true, "test");
        QVERIFY(moved);
        QCOMPARE(*moved, std::size_t { 1 });
        QCOMPARE(name(p->workload(*id)->phase), std::string("pending"));
        QVERIFY(p->workload(*id)->detail.find("reserved for the next peak") != std::string::npos);
        p->retryPending();
        QCOMPARE(name(p->workload(*id)->phase), std::string("pending")); // no batch on a reserved hot node
        QVERIFY(p->setPeakReserved("gpu-1", false, "test"));
        p->retryPending();
        QCOMPARE(name(p->workload(*id)->phase), std::string("launching"));
        QCOMPARE(p->setPeakReserved("nowhere", true, "test").error().status, 404);
    }

    // What-if with a pool's GPU quota: three one-GPU jobs on two GPU nodes; a quota of one GPU leaves two waiting
    // and frees GPUs, one of none keeps all three out, and the live cluster keeps all three.
    void whatIfTriesAcceleratorQuotas()
    {
        auto opened = store::openSqliteStore(dbPath());
        auto p = plane(**opened);
        createPool(*p, "ml", 64000);
        join(*p, "gpu-1", 8000, 16384, 2);
        join(*p, "gpu-2", 8000, 16384, 2);
        std::vector<WorkloadId> ids;
        for (int i = 0; i < 3; ++i) {
            SubmitRequest job = oneGpuBatch("train-" + std::to_string(i));
            job.pool = "ml";
            ids.push_back(*p->submit(job));
        }
        QCOMPARE(p->cluster().placedCount(), std::size_t { 3 });
        rebalance::WhatIfChange change;
        change.poolAcceleratorShare[{ "ml", AcceleratorKind::Gpu }] = 1000;
        auto result = rebalance::whatIf(p->cluster(), p->registry(), "default", ids, change);
        QVERIFY2(result, result ? "" : result.error().message.c_str());
        QCOMPARE(result->withoutChange.placed, std::size_t { 3 });
        QCOMPARE(result->withChange.placed, std::size_t { 1 });
        QCOMPARE(result->withChange.stopped, std::size_t { 2 });
        QCOMPARE(result->withChange.idleGpus, result->withoutChange.idleGpus + 2.0);
        change.poolAcceleratorShare[{ "ml", AcceleratorKind::Gpu }] = 0;
        result = rebalance::whatIf(p->cluster(), p->registry(), "default", ids, change);
        QVERIFY(result);
        QCOMPARE(result->withChange.placed, std::size_t { 0 });
        // Another kind's quota does not hold GPU work.
        change = {};
        change.poolAcceleratorShare[{ "ml", AcceleratorKind::Fpga }] = 0;
        result = rebalance::whatIf(p->cluster(), p->registry(), "default", ids, change);
        QVERIFY(result);
        QCOMPARE(result->withChange.placed, std::size_t { 3 });
        QCOMPARE(p->cluster().placedCount(), std::size_t { 3 });
        QCOMPARE(p->cluster().pool(*p->poolByName("ml")).acceleratorQuota[1], kUnlimited);
    }

    // What-if re-simulates everything placed or waiting on a copy: taking a node out or lowering a quota shows what
    // would stop, beside a re-simulation without the change; the live cluster is not touched.
    void whatIfShowsTheDifferenceAndChangesNothing()
    {
        auto plane = memoryPlane();
        ControlPlane& p = *plane;
        createPool(p, "web", 8000);
        join(p, "n1", 4000, 16384);
        join(p, "n2", 4000, 16384);
        std::vector<WorkloadId> ids;
        for (int i = 0; i < 4; ++i) {
            SubmitRequest s;
            s.name = "svc-" + std::to_string(i);
            s.pool = "web";
            s.requests = { 1500, 512, 0, 0 };
            s.latency = LatencyClass::LatencySensitive;
            s.argv = { "/bin/true" };
            ids.push_back(*p.submit(s));
        }
        QCOMPARE(p.cluster().placedCount(), std::size_t { 4 });

        rebalance::WhatIfChange change;
        change.removeNodes = { "n1" };
        auto result = rebalance::whatIf(p.cluster(), p.registry(), "default", ids, change);
        QVERIFY2(result, result ? "" : result.error().message.c_str());
        QCOMPARE(result->withoutChange.placed, std::size_t { 4 });
        QCOMPARE(result->withChange.placed, std::size_t { 2 }); // 4000 mCPU left holds two of 1500
        QCOMPARE(result->withChange.waiting, std::size_t { 2 });
        QVERIFY(result->withChange.stopped >= 2);
        QVERIFY(result->withChange.sloAtRisk >= 2);
        for (const auto& m : result->changes)
            QVERIFY(m.to != "n1");
        // The change's own effect: exactly the workloads the re-simulation places differently with it than without
        // it; two of the four lose their place, none goes to n1.
        std::size_t lost = 0;
        for (const auto& m : result->effect) {
            QVERIFY(m.to != "n1");
            lost += m.to.empty() && !m.from.empty();
        }
        QCOMPARE(lost, std::size_t { 2 });
        // No change, no effect, whatever the re-simulation reshuffles against now.
        result = rebalance::whatIf(p.cluster(), p.registry(), "default", ids, {});
        QVERIFY(result);
        QVERIFY(result->effect.empty());

        change = {};
        change.poolCpuMillis["web"] = 3000;
        result = rebalance::whatIf(p.cluster(), p.registry(), "default", ids, change);
        QVERIFY(result);
        QCOMPARE(result->withChange.placed, std::size_t { 2 });
        QCOMPARE(result->withChange.stopped, std::size_t { 2 });

        change = {};
        change.poolMemoryMiB["web"] = 1024; // two of 512 MiB
        result = rebalance::whatIf(p.cluster(), p.registry(), "default", ids, change);
        QVERIFY(result);
        QCOMPARE(result->withChange.placed, std::size_t { 2 });
        QCOMPARE(result->withChange.waiting, std::size_t { 2 });
        change = {};
        change.poolMemoryMiB["nope"] = 1;
        result = rebalance::whatIf(p.cluster(), p.registry(), "default", ids, change);
        QVERIFY(!result);
        QVERIFY(result.error().message.find("poolMemory") != std::string::npos);

        change = {};
        change.poolCpuMillis["nope"] = 1;
        result = rebalance::whatIf(p.cluster(), p.registry(), "default", ids, change);
        QVERIFY(!result);
        QVERIFY(result.error().message.find("nope") != std::string::npos);
        change = {};
        change.poolAcceleratorShare[{ "nope", AcceleratorKind::Gpu }] = 1;
        result = rebalance::whatIf(p.cluster(), p.registry(), "default", ids, change);
        QVERIFY(!result);
        QVERIFY(result.error().message.find("poolAccelerators") != std::string::npos);
        change = {};
        change.profile = "no-such-profile";
        QVERIFY(!rebalance::whatIf(p.cluster(), p.registry(), "default", ids, change));

        // Nothing moved for real.
        QCOMPARE(p.cluster().placedCount(), std::size_t { 4 });
        QCOMPARE(p.cluster().pool(*p.poolByName("web")).quota.cpuMillis, std::int64_t { 8000 });
        QVERIFY(p.cluster().node(p.nodeByName("n1")->id).schedulable);
        QVERIFY(p.cluster().checkInvariants());
    }

    // Two batch workloads holding 300 milli-GPU each on two GPUs, and a workload waiting for three whole GPUs:
    // consolidation moves one beside the other, which frees the third; approving it migrates the workload (stopped
    // there, launched here) and nothing goes over. Without the waiting workload nothing is proposed.
    void fragmentedGpusAreConsolidated()
    {
        std::vector<std::pair<std::string, protocol::Message>> sent;
        AgentLink link { [&](const std::string& s, const protocol::Message& m) {
                            sent.emplace_back(s, m);
                            return true;
                        },
            [](const std::string&, const std::string&) { return true; } };
        auto plane = memoryPlane(link);
        ControlPlane& p = *plane;
        join(p, "g1", 16000, 65536, 4);
        std::vector<WorkloadId> ids;
        for (int i = 0; i < 2; ++i) {
            SubmitRequest s;
            s.name = "train-" + std::to_string(i);
            s.requests = { 1000, 1024, 0, 0 };
            s.accelerators.kind = AcceleratorKind::Gpu;
            s.accelerators.count = 1;
            s.accelerators.sharePerDevice = 300;
            s.argv = { "/bin/true" };
            ids.push_back(*p.submit(s));
            p.onWorkloadUpdate("g1", protocol::WorkloadStatus { ids.back(), "running", 100 + i, 0, {} });
        }
        // Spread them over GPUs 0 and 1, whatever the policy chose.
        for (int i = 0; i < 2; ++i) {
            const auto device = p.workload(ids[i])->devices[0].device;
            if (device != i) {
                QVERIFY(p.migrate(ids[i], "g1", device, "g1", i));
                p.onWorkloadUpdate(
                    "g1", protocol::WorkloadStatus { ids[i], "running", 200 + i, 0, {}, p.workload(ids[i])->incarnation });
            }
        }
        QCOMPARE(p.workload(ids[0])->devices[0].device, std::int16_t { 0 });
        QCOMPARE(p.workload(ids[1])->devices[0].device, std::int16_t { 1 });

        // Nothing waits for whole GPUs: no consolidation is worth the restarts it costs.
        QVERIFY(rebalancer(p)->evaluateNow(kNow).empty());
        SubmitRequest wide;
        wide.name = "wide";
        wide.requests = { 1000, 1024, 0, 0 };
        wide.accelerators.kind = AcceleratorKind::Gpu;
        wide.accelerators.count = 3;
        wide.argv = { "/bin/true" };
        const WorkloadId waiting = *p.submit(wide);
        QCOMPARE(name(p.workload(waiting)->phase), std::string("pending"));

        // Only moves between nodes when told so (for agents from before incarnations); this cluster has one node.
        RebalanceConfig between;
        between.consolidateWithinNodes = false;
        QVERIFY(rebalancer(p, between)->evaluateNow(kNow).empty());
        auto r = rebalancer(p); // by default within nodes too: each move is a new incarnation of the workload
        const auto proposals = r->evaluateNow(kNow);
        QCOMPARE(proposals.size(), std::size_t { 1 });
        const auto* proposal = r->proposal(proposals[0]);
        QCOMPARE(name(proposal->kind), std::string("consolidate"));
        QCOMPARE(proposal->effect.gpusFreed, 1.0);
        QCOMPARE(proposal->plan.size(), std::size_t { 1 });
        const Action move = proposal->plan[0];
        QCOMPARE(move.type, Action::Type::Migrate);
        QCOMPARE(move.from, std::string("g1"));
        QVERIFY(move.fromDevice != move.device);

        sent.clear();
        const auto approved = r->approve(proposal->id, "operator:test", kNow + kMinute);
        QVERIFY2(approved, approved ? "" : approved.error().message.c_str());
        QCOMPARE(name((*approved)->state), name(ProposalState::Applied));
        const LiveWorkload* moved = p.workload(move.workload);
        QCOMPARE(moved->devices[0].device, static_cast<std::int16_t>(move.device));
        QCOMPARE(name(moved->phase), std::string("launching"));
        // The old copy is stopped and the new one launched, as the workload's next incarnation.
        QVERIFY(std::any_of(sent.begin(), sent.end(), [](const auto& s) { return std::holds_alternative<protocol::Stop>(s.second); }));
        const auto relaunch = std::find_if(
            sent.begin(), sent.end(), [](const auto& s) { return std::holds_alternative<protocol::Launch>(s.second); });
        QVERIFY(relaunch != sent.end());
        QCOMPARE(std::get<protocol::Launch>(relaunch->second).incarnation, moved->incarnation);
        QVERIFY(moved->incarnation > 0);
        QVERIFY(p.cluster().checkInvariants());
        const auto& devices = p.cluster().node(p.nodeByName("g1")->id).devices;
        QCOMPARE(std::count_if(devices.begin(), devices.end(), [](const Device& d) { return d.idle(); }), 3L);
    }

    // A node its agent reports at 95% CPU sheds the largest CPU-only batch to the coolest node that takes it, enough
    // to fall under 90%; approving moves it.
    void hotSpotsShedBatch()
    {
        auto plane = memoryPlane();
        ControlPlane& p = *plane;
        join(p, "hot-1", 8000, 32768);
        join(p, "cool-1", 8000, 32768);
        std::vector<WorkloadId> ids;
        for (int i = 0; i < 3; ++i) {
            SubmitRequest s;
            s.name = "etl-" + std::to_string(i);
            s.requests = { i == 1 ? 3000 : 1000, 1024, 0, 0 };
            s.argv = { "/bin/true" };
            ids.push_back(*p.submit(s));
            const std::string node = p.cluster().node(p.workload(ids.back())->node).name;
            const std::string session = node == "hot-1" ? "hot-1" : "cool-1";
            p.onWorkloadUpdate(session, protocol::WorkloadStatus { ids.back(), "running", 10 + i, 0, {} });
            if (node != "hot-1") {
                QVERIFY(p.migrate(ids.back(), node, -1, "hot-1", -1));
                p.onWorkloadUpdate("hot-1",
                    protocol::WorkloadStatus { ids.back(), "running", 20 + i, 0, {}, p.workload(ids.back())->incarnation });
            }
        }
        for (const auto& [session, cpu] : { std::pair { "hot-1", 0.95 }, std::pair { "cool-1", 0.10 } }) {
            protocol::Heartbeat hb;
            hb.samples.push_back(protocol::UtilisationSample { kNow, cpu, 1024, {} });
            p.onHeartbeat(session, hb);
        }
        auto r = rebalancer(p);
        const auto proposals = r->evaluateNow(kNow);
        QCOMPARE(proposals.size(), std::size_t { 1 });
        const auto* proposal = r->proposal(proposals[0]);
        QCOMPARE(name(proposal->kind), std::string("migrate"));
        // 0.95 − 3000/8000 = 0.575: one move, the largest.
        QCOMPARE(proposal->plan.size(), std::size_t { 1 });
        QCOMPARE(proposal->plan[0].workload, std::int64_t { ids[1] });
        QCOMPARE(proposal->plan[0].target, std::string("cool-1"));
        QVERIFY(proposal->reason.find("hot-1") != std::string::npos);
        const auto approved = r->approve(proposal->id, "operator:test", kNow + kMinute);
        QVERIFY2(approved, approved ? "" : approved.error().message.c_str());
        QCOMPARE(name((*approved)->state), name(ProposalState::Applied));
        QCOMPARE(p.cluster().node(p.workload(ids[1])->node).name, std::string("cool-1"));
        QVERIFY(p.cluster().checkInvariants());
    }

    // A pool bound to a tier after its work was placed keeps that work where it runs; the evaluation proposes moving
    // its running CPU-only workloads to nodes of the tier, and approving moves them.
    void workALaterTierLeftBehindIsProposedToMove()
    {
        auto plane = memoryPlane();
        ControlPlane& p = *plane;
        join(p, "warm-1", 8000, 32768);
        PoolRequest archive;
        archive.name = "archive";
        QVERIFY(p.createPool(archive));
        std::vector<WorkloadId> ids;
        for (int i = 0; i < 2; ++i) {
            ids.push_back(submitCompress(p, i, "archive"));
            QCOMPARE(p.cluster().node(p.workload(ids.back())->node).name, std::string("warm-1"));
        }
        p.onWorkloadUpdate("warm-1", protocol::WorkloadStatus { ids[0], "running", 10, 0, {} }); // the other launches
        joinArm(p, "cold-1");
        auto r = rebalancer(p);
        QVERIFY(r->evaluateNow(kNow).empty()); // no tier yet: nothing left behind

        PoolRequest cold = p.poolRequestOf(*p.poolByName("archive"));
        cold.tier = Tier::Cold;
        QVERIFY(p.updatePool("archive", cold));
        QCOMPARE(p.workloadsOffTier(*p.poolByName("archive")), std::size_t { 2 });
        const auto proposals = r->evaluateNow(kNow);
        QCOMPARE(proposals.size(), std::size_t { 1 });
        const auto* proposal = r->proposal(proposals[0]);
        QCOMPARE(name(proposal->kind), std::string("migrate"));
        QCOMPARE(proposal->key, std::string("tier:archive"));
        QCOMPARE(proposal->plan.size(), std::size_t { 1 }); // the running one; the launching one is not moved
        QCOMPARE(proposal->plan[0].workload, std::int64_t { ids[0] });
        QCOMPARE(proposal->plan[0].target, std::string("cold-1"));
        QVERIFY2(proposal->reason.find("pool archive keeps its workloads on the cold tier; 2 of them still run on "
                                       "other tiers' nodes")
                != std::string::npos,
            proposal->reason.c_str());
        const auto approved = r->approve(proposal->id, "operator:test", kNow + kMinute);
        QVERIFY2(approved, approved ? "" : approved.error().message.c_str());
        QCOMPARE(name((*approved)->state), name(ProposalState::Applied));
        QCOMPARE(p.cluster().node(p.workload(ids[0])->node).name, std::string("cold-1"));
        QCOMPARE(p.workloadsOffTier(*p.poolByName("archive")), std::size_t { 1 });
        QVERIFY(p.cluster().checkInvariants());
    }

    // A pool's disruption budget caps what a proposal migrates of it: the evaluation proposes as many moves as the
    // budget has room for now, an approval whose moves the budget no longer takes is re-planned within it, and a moved
    // workload counts against it until it runs on its new node.
    void migrationsKeepWithinAPoolsDisruptionBudget()
    {
        auto plane = memoryPlane();
        ControlPlane& p = *plane;
        join(p, "warm-1", 8000, 32768);
        PoolRequest archive;
        archive.name = "archive";
        archive.maxDisrupted = DisruptionBudget::workloads(2);
        QVERIFY(p.createPool(archive));
        const PoolId pool = *p.poolByName("archive");
        std::vector<WorkloadId> ids;
        for (int i = 0; i < 3; ++i) {
            ids.push_back(submitCompress(p, i, "archive"));
            p.onWorkloadUpdate("warm-1", protocol::WorkloadStatus { ids.back(), "running", 10 + i, 0, {} });
        }
        joinArm(p, "cold-1");
        PoolRequest cold = p.poolRequestOf(pool);
        cold.tier = Tier::Cold;
        QVERIFY(p.updatePool("archive", cold));
        auto r = rebalancer(p);

        // Three left behind, two moves proposed: the budget's.
        auto proposals = r->evaluateNow(kNow);
        QCOMPARE(proposals.size(), std::size_t { 1 });
        const std::int64_t planned = proposals[0];
        QCOMPARE(r->proposal(planned)->plan.size(), std::size_t { 2 });

        // The budget lowered to one before the approval: re-planned with one move, which the approval applies.
        cold.maxDisrupted = DisruptionBudget::workloads(1);
        QVERIFY(p.updatePool("archive", cold));
        const auto stale = r->approve(planned, "operator:test", kNow + kMinute);
        QVERIFY(!stale);
        QCOMPARE(stale.error().status, 409);
        QVERIFY2(stale.error().message.find("pool archive's disruption budget has room for 1 of the 2 moves of its "
                                            "workloads asked (0 moving, at most 1 at once)); re-planned as proposal")
                != std::string::npos,
            stale.error().message.c_str());
        const std::int64_t replanned = std::prev(r->proposals().end())->first;
        QCOMPARE(r->proposal(replanned)->plan.size(), std::size_t { 1 });
        const auto approved = r->approve(replanned, "operator:test", kNow + kMinute);
        QVERIFY2(approved, approved ? "" : approved.error().message.c_str());
        QCOMPARE(name((*approved)->state), name(ProposalState::Applied));
        const WorkloadId moved = static_cast<WorkloadId>((*approved)->plan[0].workload);
        QCOMPARE(p.disruptedIn(pool), std::int64_t { 1 });

        // While it launches, nothing more of the pool is proposed; once it runs, the next move is.
        for (const std::int64_t id : r->evaluateNow(kNow + 2 * kMinute))
            QVERIFY2(r->proposal(id)->key != "tier:archive", r->proposal(id)->reason.c_str());
        p.onWorkloadUpdate(
            "cold-1", protocol::WorkloadStatus { moved, "running", 30, 0, {}, p.workload(moved)->incarnation });
        QCOMPARE(p.disruptedIn(pool), std::int64_t { 0 });
        proposals = r->evaluateNow(kNow + 3 * kMinute);
        QCOMPARE(proposals.size(), std::size_t { 1 });
        QCOMPARE(r->proposal(proposals[0])->key, std::string("tier:archive"));
        QCOMPARE(r->proposal(proposals[0])->plan.size(), std::size_t { 1 });
        QVERIFY(r->proposal(proposals[0])->plan[0].workload != std::int64_t { moved });
    }

    void deferrableBatchWaitsForALowCarbonWindow()
    {
        rebalance::EvaluationInput input;
        input.nowMs = kNow;
        input.carbon = { { kNow - 60 * kMinute, 450 }, { kNow + 60 * kMinute, 400 }, { kNow + 180 * kMinute, 180 },
            { kNow + 240 * kMinute, 170 }, { kNow + 20 * 60 * kMinute, 50 } };
        // Nothing deferrable about: nothing to propose.
        QVERIFY(ofKind(rebalance::evaluate(input, {}), ProposalKind::Defer).empty());
        input.deferrableCpuMillis = 8000;
        auto defer = ofKind(rebalance::evaluate(input, {}), ProposalKind::Defer);
        QCOMPARE(defer.size(), std::size_t { 1 });
        // The cleanest point within 12 hours (the 50 g/kWh one is 20 hours away).
        QCOMPARE(defer[0].plan[0].type, Action::Type::HoldDeferrable);
        QCOMPARE(defer[0].plan[0].untilMs, kNow + 240 * kMinute);
        // 8 cores × 10 W × (450 − 170) g/kWh = 22.4 g/h.
        QCOMPARE(defer[0].effect.co2GramsPerHour, 8 * 10.0 / 1000.0 * 280.0);
        QCOMPARE(name(defer[0].risk), name(rebalance::Risk::Low));
        // A hold in force, or a window not clean enough (20% by default): nothing.
        input.carbonHoldUntilMs = kNow + kMinute;
        QVERIFY(ofKind(rebalance::evaluate(input, {}), ProposalKind::Defer).empty());
        input.carbonHoldUntilMs = 0;
        input.carbon = { { kNow - kMinute, 300 }, { kNow + 60 * kMinute, 250 } };
        QVERIFY(ofKind(rebalance::evaluate(input, {}), ProposalKind::Defer).empty());
    }

    void carbonHoldKeepsDeferrableBatchUntilItsWindowOrDeadline()
    {
        auto plane = memoryPlane();
        ControlPlane& p = *plane;
        join(p, "n1", 8000, 32768);
        const std::int64_t now = unixMillis();
        p.setCarbonHold(now + 3'600'000, "test");
        auto job = [&](const char* n, bool deferrable, std::int64_t deadline) {
            SubmitRequest s;
            s.name = n;
            s.requests = { 500, 256, 0, 0 };
            s.deferrable = deferrable;
            s.deadlineMs = deadline;
            s.argv = { "/bin/true" };
            return *p.submit(s);
        };
        const WorkloadId held = job("held", true, 0);
        const WorkloadId due = job("due", true, now + 200);
        const WorkloadId plain = job("plain", false, 0);
        QCOMPARE(name(p.workload(plain)->phase), std::string("launching"));
        QCOMPARE(name(p.workload(held)->phase), std::string("pending"));
        QVERIFY(p.workload(held)->detail.rfind("held for a low-carbon window", 0) == 0);
        QCOMPARE(p.workload(held)->deadlineMs, p.workload(held)->submittedMs + kDefaultDeferralMs);
        QCOMPARE(name(p.workload(due)->phase), std::string("pending"));
        // Its own deadline comes first: placed then, while the other still waits for the window.
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
        p.releaseHeld(unixMillis());
        p.retryPending();
        QCOMPARE(name(p.workload(due)->phase), std::string("launching"));
        QCOMPARE(name(p.workload(held)->phase), std::string("pending"));
        // The window comes: the hold ends and the rest is placed.
        p.releaseHeld(now + 3'600'000);
        QCOMPARE(p.carbonHoldUntilMs(), std::int64_t { 0 });
        p.retryPending();
        QCOMPARE(name(p.workload(held)->phase), std::string("launching"));

        // The submission's own checks.
        auto spec = parseSubmitRequest(nlohmann::json { { "name", "x" }, { "cpuMillis", 1 }, { "memoryMiB", 1 },
            { "latency", "real-time" }, { "deferrable", true } });
        QVERIFY(!spec);
        QVERIFY2(spec.error().message.find("deferrable") != std::string::npos, spec.error().message.c_str());
        spec = parseSubmitRequest(nlohmann::json { { "name", "x" }, { "cpuMillis", 1 }, { "memoryMiB", 1 }, { "deadlineMs", 5 } });
        QVERIFY(!spec);
        QVERIFY2(spec.error().message.find("deadlineMs") != std::string::npos, spec.error().message.c_str());
    }

    void carbonIntensityLoadsAndNamesBadLines()
    {
        const QString good = m_dir.filePath(QStringLiteral("carbon.csv"));
        QFile f(good);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("timestamp,gco2_per_kwh\n2027-01-15T08:00:00Z,420\n2027-01-15T09:00:00Z,390.5\n");
        f.close();
        const auto loaded = rebalance::loadCarbonIntensity(good.toStdString());
        QVERIFY2(loaded, loaded ? "" : loaded.error().message.c_str());
        QCOMPARE(loaded->size(), std::size_t { 2 });
        QCOMPARE(loaded->front().first, kNow); // 2027-01-15 08:00 UTC
        QCOMPARE(loaded->back().first, kNow + 60 * kMinute);
        QCOMPARE(loaded->back().second, 390.5);
        const QString bad = m_dir.filePath(QStringLiteral("bad.csv"));
        QFile g(bad);
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write("timestamp,gco2_per_kwh\n2027-01-15T08:00:00Z,420\n2027-01-15T09:00:00Z,lots\n");
        g.close();
        const auto refused = rebalance::loadCarbonIntensity(bad.toStdString());
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.find("bad.csv:3:") != std::string::npos, refused.error().message.c_str());
    }

    // A plan whose second step fails when applied (its target ran out of CPU after it was planned; the plan's own
    // check looks at the GPU it moves to, which still has room) rolls the first step back and says which failed.
    // (A workload waits for a whole GPU, so that the consolidation is proposed at all.)
    void aFailedStepRollsBackTheOnesBefore()
    {
        auto plane = memoryPlane();
        ControlPlane& p = *plane;
        join(p, "g1", 8000, 65536, 1);
        join(p, "g2", 8000, 65536, 1);
        // Puts a running workload where the test wants it, whatever the policy chose.
        auto place = [&](const char* n, std::int32_t share, std::int64_t cpu, const std::string& node) {
            SubmitRequest s;
            s.name = n;
            s.requests = { cpu, 512, 0, 0 };
            if (share > 0) {
                s.accelerators.kind = AcceleratorKind::Gpu;
                s.accelerators.count = 1;
                s.accelerators.sharePerDevice = share;
            }
            s.argv = { "/bin/true" };
            const WorkloadId id = *p.submit(s);
            const std::string at = p.cluster().node(p.workload(id)->node).name;
            if (at != node)
                [&] { QVERIFY(p.migrate(id, at, share > 0 ? 0 : -1, node, share > 0 ? 0 : -1)); }();
            p.onWorkloadUpdate(node, protocol::WorkloadStatus { id, "running", 1, 0, {}, p.workload(id)->incarnation });
            return id;
        };
        const WorkloadId a = place("a", 200, 1000, "g1");
        const WorkloadId b = place("b", 200, 1000, "g1");
        place("c", 500, 1000, "g2");
        SubmitRequest wide; // waits for a whole GPU: what makes consolidating worth its restarts
        wide.name = "wide";
        wide.requests = { 500, 512, 0, 0 };
        wide.accelerators.kind = AcceleratorKind::Gpu;
        wide.accelerators.count = 1;
        wide.argv = { "/bin/true" };
        const auto waiting = p.submit(wide);
        QVERIFY(waiting);
        auto r = rebalancer(p);
        const auto proposals = r->evaluateNow(kNow);
        QCOMPARE(proposals.size(), std::size_t { 1 });
        QVERIFY(p.cancel(*waiting)); // out of the queue, so that the hog below is placed at once
        const auto* proposal = r->proposal(proposals[0]);
        QCOMPARE(proposal->plan.size(), std::size_t { 2 }); // a and b onto g2's GPU, freeing g1's
        QCOMPARE(proposal->plan[0].target, std::string("g2"));
        // Then g2's CPU fills up: 1000 stay free, enough for the first move only.
        place("hog", 0, 6000, "g2");
        const auto applied = r->approve(proposal->id, "operator:test", kNow + kMinute);
        QVERIFY(applied);
        QCOMPARE(name((*applied)->state), name(ProposalState::Failed));
        QVERIFY2((*applied)->detail.find("failed") != std::string::npos
                && (*applied)->detail.find("every earlier step was rolled back") != std::string::npos,
            (*applied)->detail.c_str());
        // Steps: the first move done, the second failed, the first undone.
        QCOMPARE((*applied)->steps.size(), std::size_t { 3 });
        QVERIFY((*applied)->steps[2]["step"].get<std::string>().rfind("roll back", 0) == 0);
        QCOMPARE((*applied)->steps[2]["outcome"].get<std::string>(), std::string("done"));
        QCOMPARE(p.cluster().node(p.workload(a)->node).name, std::string("g1"));
        QCOMPARE(p.cluster().node(p.workload(b)->node).name, std::string("g1"));
        QVERIFY(p.cluster().checkInvariants());
    }

    // The power hook: approving a power-down cordons the idle node and then runs `<command> off <node>` (a real child
    // process, here a script that records its arguments); approving the power-up that a peak brings runs `<command> on
    // <node>` before the cordon is lifted. Until the command is done the proposal is approved with the step running.
    void powerCommandSwitchesNodesOffAndOn()
    {
        const std::string log = m_dir.filePath(QStringLiteral("power.log")).toStdString();
        std::remove(log.c_str());
        const std::string command = script(QStringLiteral("power-ok.sh"), "echo \"$@\" >> '" + log + "'\n");
        auto plane = memoryPlane();
        ControlPlane& p = *plane;
        auto [r, id] = powerDownWith(p, command, std::chrono::seconds(10));
        QVERIFY(id != 0);
        const std::string node = r->proposal(id)->plan.at(0).target;
        const auto approved = r->approve(id, "operator:test", kNow + kMinute);
        QVERIFY2(approved, approved ? "" : approved.error().message.c_str());
        QCOMPARE(name((*approved)->state), name(ProposalState::Approved)); // switching off
        QCOMPARE((*approved)->steps.size(), std::size_t { 2 });
        QCOMPARE((*approved)->steps[1]["outcome"].get<std::string>(), std::string("running"));
        QVERIFY(p.nodeByName(node)->cordon.rfind(rebalance::kPowerDownCordon, 0) == 0); // cordoned first
        QVERIFY(waitDecided(*r, id));
        const auto* down = r->proposal(id);
        QCOMPARE(name(down->state), name(ProposalState::Applied));
        QCOMPARE(down->steps[1]["step"].get<std::string>(), "power node " + node + " off (" + command + " off " + node + ")");
        QCOMPARE(down->steps[1]["outcome"].get<std::string>(), std::string("done"));
        std::ifstream in(log);
        std::string line;
        QVERIFY(std::getline(in, line));
        QCOMPARE(line, "off " + node);
        // Switched off, its agent goes: the node is off, not lost.
        p.onLeft(node, "connection closed");
        QCOMPARE(name(p.nodeByName(node)->state), name(NodeState::Off));

        // A peak needs it back: 15000 mCPU asked of the 16000 in service (18000 with headroom).
        for (int i = 0; i < 2; ++i) {
            SubmitRequest s;
            s.name = "peak-" + std::to_string(i);
            s.requests = { 7500, 1024, 0, 0 };
            s.argv = { "/bin/true" };
            QVERIFY(p.submit(s));
        }
        std::int64_t upId = 0;
        for (const std::int64_t created : r->evaluateNow(kNow + 5 * kMinute))
            if (r->proposal(created)->kind == ProposalKind::PowerUp)
                upId = created;
        QVERIFY(upId != 0);
        QCOMPARE(r->proposal(upId)->plan.at(0).target, node);
        const auto up = r->approve(upId, "operator:test", kNow + 6 * kMinute);
        QVERIFY2(up, up ? "" : up.error().message.c_str());
        QCOMPARE(name((*up)->state), name(ProposalState::Approved));
        QVERIFY(!p.nodeByName(node)->cordon.empty()); // switched on first, uncordoned after
        QVERIFY(waitDecided(*r, upId));
        QCOMPARE(name(r->proposal(upId)->state), name(ProposalState::Applied));
        QCOMPARE(r->proposal(upId)->steps.size(), std::size_t { 2 }); // power on, then uncordon
        QVERIFY(p.nodeByName(node)->cordon.empty());
        QVERIFY(std::getline(in, line));
        QCOMPARE(line, "on " + node);
        // Booting until its agent is back; meanwhile the next evaluation counts it and does not power up another node
        // that was powered down (n4) for the same peak.
        QCOMPARE(name(p.nodeByName(node)->state), name(NodeState::Booting));
        join(p, "n4", 8000, 32768);
        QVERIFY(p.setCordon("n4", std::string(rebalance::kPowerDownCordon) + " by proposal"));
        for (const std::int64_t created : r->evaluateNow(kNow + 10 * kMinute))
            QVERIFY2(r->proposal(created)->kind != ProposalKind::PowerUp, r->proposal(created)->reason.c_str());
        join(p, node, 8000, 32768);
        QCOMPARE(name(p.nodeByName(node)->state), name(NodeState::Ready));
    }

    // A power command that fails, or hangs past its timeout, fails its step with the exit status (or the timeout) and
    // the tail of its standard error, and the cordon before it is rolled back; a failed power-up leaves the cordon.
    void aFailingOrHangingPowerCommandRollsBack()
    {
        const std::string failing = script(QStringLiteral("power-fails.sh"),
            "echo 'ipmitool: connecting' >&2\necho \"no BMC answers for $2 at 10.0.0.7\" >&2\nexit 3\n");
        const std::string hanging = script(QStringLiteral("power-hangs.sh"), "echo 'waiting for the BMC' >&2\nsleep 30\n");
        for (const auto& [command, expected] :
            { std::pair { failing, std::string("exit status 3") }, std::pair { hanging, std::string("timed out after 1000 ms (killed)") } }) {
            auto plane = memoryPlane();
            ControlPlane& p = *plane;
            auto [r, id] = powerDownWith(p, command, std::chrono::milliseconds(1000));
            QVERIFY(id != 0);
            const std::string node = r->proposal(id)->plan.at(0).target;
            const auto started = std::chrono::steady_clock::now();
            QVERIFY(r->approve(id, "operator:test", kNow + kMinute));
            QVERIFY(waitDecided(*r, id));
            // The hanging one is killed with its process group at the timeout, not waited for.
            QVERIFY(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
            const auto* proposal = r->proposal(id);
            QCOMPARE(name(proposal->state), name(ProposalState::Failed));
            QCOMPARE(proposal->steps.size(), std::size_t { 3 }); // cordon, power off, roll back the cordon
            const std::string outcome = proposal->steps[1]["outcome"].get<std::string>();
            QVERIFY2(outcome.rfind("failed: " + expected, 0) == 0, outcome.c_str());
            if (command == failing)
                QVERIFY2(outcome.find("ipmitool: connecting|no BMC answers for " + node + " at 10.0.0.7") != std::string::npos,
                    outcome.c_str());
            else
                QVERIFY2(outcome.find("waiting for the BMC") != std::string::npos, outcome.c_str());
            QCOMPARE(proposal->steps[2]["step"].get<std::string>(), "roll back: uncordon node " + node);
            QCOMPARE(proposal->steps[2]["outcome"].get<std::string>(), std::string("done"));
            QVERIFY2(proposal->detail.find(expected) != std::string::npos
                    && proposal->detail.find("every earlier step was rolled back") != std::string::npos,
                proposal->detail.c_str());
            QVERIFY(p.nodeByName(node)->cordon.empty()); // it stays on, so it takes work again
        }

        // A power-up whose command fails: nothing was done, the node stays cordoned.
        auto plane = memoryPlane();
        ControlPlane& p = *plane;
        auto [r, unused] = powerDownWith(p, failing, std::chrono::seconds(10));
        QVERIFY(p.setCordon("n3", std::string(rebalance::kPowerDownCordon) + " by hand"));
        for (int i = 0; i < 2; ++i) {
            SubmitRequest s;
            s.name = "peak-" + std::to_string(i);
            s.requests = { 7500, 1024, 0, 0 };
            s.argv = { "/bin/true" };
            QVERIFY(p.submit(s));
        }
        std::int64_t upId = 0;
        for (const std::int64_t created : r->evaluateNow(kNow + 5 * kMinute))
            if (r->proposal(created)->kind == ProposalKind::PowerUp)
                upId = created;
        QVERIFY(upId != 0);
        QVERIFY(r->approve(upId, "operator:test", kNow + 6 * kMinute));
        QVERIFY(waitDecided(*r, upId));
        QCOMPARE(name(r->proposal(upId)->state), name(ProposalState::Failed));
        QCOMPARE(r->proposal(upId)->steps.size(), std::size_t { 1 });
        QVERIFY2(r->proposal(upId)->steps[0]["outcome"].get<std::string>().rfind("failed: exit status 3", 0) == 0,
            r->proposal(upId)->steps[0].dump().c_str());
        QVERIFY(!p.nodeByName("n3")->cordon.empty());
    }

    // The carbon hold is kept in the store: a restart inside the window keeps deferrable batch held (restored pending
    // work is held again, new work too), the window's end releases it, and a lifted hold stays lifted.
    void carbonHoldSurvivesARestart()
    {
        std::int64_t clock = kNow;
        ControlPlaneConfig config;
        config.clock = [&clock] { return clock; };
        const AgentLink link { [](const std::string&, const protocol::Message&) { return true; },
            [](const std::string&, const std::string&) { return true; } };
        auto open = [&](store::Store& store) {
            auto created = ControlPlane::create(io(), config, link, {}, &store);
            if (!created)
                qFatal("%s", created.error().message.c_str());
            return std::move(*created);
        };
        auto deferrable = [](const char* n) {
            SubmitRequest s;
            s.name = n;
            s.requests = { 500, 256, 0, 0 };
            s.deferrable = true;
            s.argv = { "/bin/true" };
            return s;
        };
        const std::int64_t window = kNow + 60 * kMinute;
        WorkloadId held = 0;
        {
            auto opened = store::openSqliteStore(dbPath());
            QVERIFY(opened);
            auto p = open(**opened);
            join(*p, "n1", 8000, 32768);
            p->setCarbonHold(window, "a carbon proposal");
            held = *p->submit(deferrable("held"));
            QCOMPARE(name(p->workload(held)->phase), std::string("pending"));
            p->stop();
        }
        clock = kNow + 10 * kMinute;
        {
            auto opened = store::openSqliteStore(dbPath());
            QVERIFY(opened);
            auto p = open(**opened);
            QCOMPARE(p->carbonHoldUntilMs(), window);
            join(*p, "n1", 8000, 32768); // its agent returns: pending work is tried again
            io().poll();
            io().restart();
            p->retryPending();
            QCOMPARE(name(p->workload(held)->phase), std::string("pending"));
            QVERIFY2(p->workload(held)->detail.rfind("held for a low-carbon window until " + std::to_string(window), 0) == 0,
                p->workload(held)->detail.c_str());
            const WorkloadId later = *p->submit(deferrable("later"));
            QCOMPARE(name(p->workload(later)->phase), std::string("pending"));
            // The window comes: both are placed, and the hold is gone.
            clock = window + kMinute;
            p->releaseHeld(clock);
            p->retryPending();
            QCOMPARE(name(p->workload(held)->phase), std::string("launching"));
            QCOMPARE(name(p->workload(later)->phase), std::string("launching"));
            QCOMPARE(p->carbonHoldUntilMs(), std::int64_t { 0 });
            p->stop();
        }
        {
            auto opened = store::openSqliteStore(dbPath());
            auto p = open(**opened);
            QCOMPARE(p->carbonHoldUntilMs(), std::int64_t { 0 });
            p->stop();
            // A damaged stored hold is refused at start, naming the setting and the field.
            (*opened)->putMeta("carbon_hold", R"({"untilMs":"soon"})");
            QVERIFY((*opened)->commit());
        }
        auto opened = store::openSqliteStore(dbPath());
        const auto refused = ControlPlane::create(io(), config, link, {}, opened->get());
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.find("carbon_hold") != std::string::npos
                && refused.error().message.find("`untilMs`") != std::string::npos,
            refused.error().message.c_str());
    }

    void loopForecastsProposesAndApplies()
    {
        std::int64_t proposalId = 0;
        {
            auto opened = store::openSqliteStore(dbPath());
            QVERIFY(opened);
            auto p = plane(**opened);
            createPool(*p, "web", 4000);
            createPool(*p, "batch", 8000);
            writeHistory(**opened);
            auto r = rebalancer(*p);
            const auto created = r->evaluateNow(kNow);
            QCOMPARE(created.size(), std::size_t { 1 });
            proposalId = created[0];
            const auto* proposal = r->proposal(proposalId);
            QCOMPARE(proposal->key, std::string("quota:web"));
            QCOMPARE(proposal->plan[0].expectCpuMillis, std::int64_t { 4000 });
            QVERIFY2(proposal->plan[0].cpuMillis >= 5500, proposal->reason.c_str()); // the p90 peak is at least 4500

            // The forecast was stored for the console.
            p->stop();
            const auto forecast = (*opened)->latestForecast({ "pool", "web", "cpu" });
            QVERIFY(forecast && *forecast);
            QCOMPARE((*forecast)->points.size(), std::size_t { 288 });

            // The same advice next round keeps the same proposal.
            QVERIFY(r->evaluateNow(kNow + 5 * kMinute).empty());
            QCOMPARE(name(r->proposal(proposalId)->state), name(ProposalState::Pending));

            const auto approved = r->approve(proposalId, "operator:test", kNow + 6 * kMinute);
            QVERIFY2(approved, approved ? "" : approved.error().message.c_str());
            QCOMPARE(name((*approved)->state), name(ProposalState::Applied));
            QCOMPARE((*approved)->steps.size(), std::size_t { 2 });
            QCOMPARE(p->cluster().pool(*p->poolByName("web")).quota.cpuMillis, proposal->plan[0].cpuMillis);
            QCOMPARE(p->cluster().pool(*p->poolByName("batch")).quota.cpuMillis, 8000 - proposal->plan[1].cpuMillis);
            // Approving twice is refused and changes nothing.
            const auto again = r->approve(proposalId, "operator:test", kNow + 6 * kMinute);
            QVERIFY(!again);
            QCOMPARE(again.error().status, 409);
            p->stop();
        }
        // After a restart: the decision, its steps and the raised quota are all there.
        auto opened = store::openSqliteStore(dbPath());
        auto p = plane(**opened);
        auto r = rebalancer(*p);
        const auto* restored = r->proposal(proposalId);
        QVERIFY(restored);
        QCOMPARE(name(restored->state), name(ProposalState::Applied));
        QCOMPARE(restored->decidedBy, std::string("operator:test"));
        QCOMPARE(restored->steps.size(), std::size_t { 2 });
        QVERIFY(p->cluster().pool(*p->poolByName("web")).quota.cpuMillis >= 5500);
    }

    // The loop forecasts each pool's memory from its history beside its CPU, stores the forecast for the console,
    // and holds its peak in power planning: a pool whose cores fit one node and whose memory needs two keeps two on.
    void theLoopForecastsMemoryAndHoldsItsPeak()
    {
        auto opened = store::openSqliteStore(dbPath());
        QVERIFY(opened);
        auto p = plane(**opened);
        createPool(*p, "cache", 16000);
        for (const char* n : { "n1", "n2", "n3" })
            join(*p, n, 8000, 32768);
        auto samples = dailySwing("cpu", "cache", 1000, 200, {}, 0.0, kNow);
        std::ranges::copy(dailySwing("memory", "cache", 38'000, 2'000, {}, 0.0, kNow), std::back_inserter(samples));
        const auto reasons = powerDownReasons(*p, **opened, samples);
        QVERIFY(reasons);
        // About 40000 MiB at its p90 peak, 48000 with headroom: two of the three 32768 MiB nodes must stay.
        QCOMPARE(reasons->size(), std::size_t { 1 });
        QVERIFY2((*reasons)[0].find("memory peak") != std::string::npos, (*reasons)[0].c_str());
        p->stop();
        const auto forecast = (*opened)->latestForecast({ "pool", "cache", "memory" });
        QVERIFY(forecast && *forecast);
        QCOMPARE((*forecast)->points.size(), std::size_t { 288 });
        const double p90 = (*forecast)->points[0][2].get<double>();
        QVERIFY2(p90 > 38'000 && p90 < 44'000, std::to_string(p90).c_str());
    }

    // The loop raises a memory limit ahead of the pool's forecast peak, from a pool with memory to spare. Applying
    // never takes a limit below what the pool's workloads hold (the agents enforce it in cgroups, where the kernel
    // would reclaim or kill): that step fails and the raise before it is rolled back. Applied, the new limits reach
    // the agents. After a restart the raise's base is remembered, and the trough gives it back.
    void theLoopShiftsMemoryAndNeverCutsBelowWhatIsHeld()
    {
        std::vector<protocol::PoolConfig> sent;
        const AgentLink link { [&](const std::string&, const protocol::Message& m) {
                                  if (const auto* config = std::get_if<protocol::PoolConfig>(&m))
                                      sent.push_back(*config);
                                  return true;
                              },
            [](const std::string&, const std::string&) { return true; } };
        const auto limitSent = [&](const std::string& pool) -> std::int64_t {
            for (auto it = sent.rbegin(); it != sent.rend(); ++it)
                for (const protocol::PoolLimits& limits : it->pools)
                    if (limits.name == pool)
                        return limits.memoryMiB;
            return -1;
        };
        const auto memoryQuota
            = [](ControlPlane& p, const char* pool) { return p.cluster().pool(*p.poolByName(pool)).quota.memoryMiB; };
        // Web swings daily up to 16000 MiB, 30 minutes after `kNow`; batch holds 8000.
        const auto samples = dailySwing("memory", "web", 12'000, 4'000, "batch", 8'000);
        std::int64_t raisedTo = 0;
        {
            auto opened = store::openSqliteStore(dbPath());
            QVERIFY(opened);
            auto created = ControlPlane::create(io(), ControlPlaneConfig {}, link, {}, opened->get());
            QVERIFY(created);
            ControlPlane& p = **created;
            createPool(p, "web", kUnlimited, 16384);
            createPool(p, "batch", kUnlimited, 65536);
            QVERIFY(writeSamples(**opened, samples));
            auto r = rebalancer(p);
            auto ids = r->evaluateNow(kNow);
            QCOMPARE(ids.size(), std::size_t { 1 });
            const rebalance::Proposal* raise = r->proposal(ids[0]);
            QCOMPARE(raise->key, std::string("quota:web:memory"));
            QCOMPARE(raise->plan.size(), std::size_t { 2 });
            QCOMPARE(raise->plan[0].expectMemoryMiB, std::int64_t { 16384 });
            raisedTo = raise->plan[0].memoryMiB;
            QVERIFY2(raisedTo >= 19456, raise->reason.c_str()); // the p90 peak is at least 16000, 19200 with headroom
            const std::int64_t taken = raise->plan[1].memoryMiB;
            QCOMPARE(taken, raisedTo - 16384);

            // Batch grows after the plan: taking from it now would leave less than its running workload holds.
            join(p, "n1", 8000, 131072);
            // A service of web's and a small batch job there too: a node's agent holds only the pools that run
            // something on it, and these are the ones whose limits it is sent.
            for (const auto& [small, pool, memory] :
                { std::tuple { "web-svc", "web", 1024 }, std::tuple { "batch-small", "batch", 512 } }) {
                SubmitRequest request;
                request.name = small;
                request.pool = pool;
                request.requests = { 100, memory, 0, 0 };
                request.argv = { "/bin/true" };
                QVERIFY(p.submit(request));
            }
            SubmitRequest big;
            big.name = "big";
            big.pool = "batch";
            big.requests = { 1000, 65536 - taken, 0, 0 }; // with batch-small's 512, 512 more than it may keep
            big.argv = { "/bin/true" };
            const auto bigId = p.submit(big);
            QVERIFY(bigId);
            p.onWorkloadUpdate(
                "n1", protocol::WorkloadStatus { *bigId, "running", 1, 0, {}, p.workload(*bigId)->incarnation });
            auto applied = r->approve(ids[0], "operator:test", kNow + kMinute);
            QVERIFY(applied);
            QCOMPARE(name((*applied)->state), name(ProposalState::Failed));
            QVERIFY2((*applied)->detail.find("its workloads hold") != std::string::npos
                    && (*applied)->detail.find("every earlier step was rolled back") != std::string::npos,
                (*applied)->detail.c_str());
            QCOMPARE(memoryQuota(p, "web"), std::int64_t { 16384 }); // the raise was rolled back
            QCOMPARE(memoryQuota(p, "batch"), std::int64_t { 65536 });
            QCOMPARE(limitSent("web"), std::int64_t { 16384 });
            QVERIFY(p.cluster().checkInvariants());

            // The workload gone, the next round proposes the raise again and it applies.
            QVERIFY(p.cancel(*bigId));
            p.onWorkloadUpdate(
                "n1", protocol::WorkloadStatus { *bigId, "stopped", 1, 0, {}, p.workload(*bigId)->incarnation });
            ids = r->evaluateNow(kNow + 5 * kMinute);
            QCOMPARE(ids.size(), std::size_t { 1 });
            applied = r->approve(ids[0], "operator:test", kNow + 6 * kMinute);
            QVERIFY2(applied && (*applied)->state == ProposalState::Applied,
                applied ? (*applied)->detail.c_str() : applied.error().message.c_str());
            raisedTo = (*applied)->plan[0].memoryMiB;
            QCOMPARE(memoryQuota(p, "web"), raisedTo);
            QCOMPARE(memoryQuota(p, "batch"), 65536 - (*applied)->plan[1].memoryMiB);
            QCOMPARE(limitSent("web"), raisedTo); // the node has more than either limit
            QCOMPARE(limitSent("batch"), 65536 - (*applied)->plan[1].memoryMiB);
            p.stop();
        }
        // A restart later, two days of web at 4000 MiB: its forecast fits the base again, which gives the raise back.
        auto opened = store::openSqliteStore(dbPath());
        QVERIFY(opened);
        auto created = ControlPlane::create(io(), ControlPlaneConfig {}, link, {}, opened->get());
        QVERIFY(created);
        ControlPlane& p = **created;
        QCOMPARE(memoryQuota(p, "web"), raisedTo);
        QVERIFY(writeSamples(**opened,
            levels("memory", { { "web", 4'000 }, { "batch", 8'000 } }, kNow, kNow + 2 * kDay), kNow + 2 * kDay));
        auto r = rebalancer(p);
        const auto ids = r->evaluateNow(kNow + 2 * kDay);
        QCOMPARE(ids.size(), std::size_t { 1 });
        const rebalance::Proposal* back = r->proposal(ids[0]);
        QCOMPARE(back->key, std::string("quota:web:memory"));
        QCOMPARE(back->plan, (std::vector<Action> { Action::setMemoryQuota("web", 16384, raisedTo) }));
        QVERIFY(r->approve(ids[0], "operator:test", kNow + 2 * kDay + kMinute));
        QCOMPARE(memoryQuota(p, "web"), std::int64_t { 16384 });
        p.stop();
    }

    // The loop forecasts each pool's GPUs from their history and shifts GPU quota as it does memory: the raise comes
    // from a pool whose forecast leaves GPUs idle, is refused whole when that pool's workloads have grown into what
    // would be taken (nothing half-applied), applies once they are gone, and is given back in the trough after a
    // restart (the base quota survives it).
    void theLoopShiftsGpuQuotaAndNeverCutsBelowWhatIsHeld()
    {
        const auto gpu = static_cast<std::size_t>(AcceleratorKind::Gpu);
        const auto gpuQuota = [gpu](ControlPlane& p, const char* pool) {
            return p.cluster().pool(*p.poolByName(pool)).acceleratorQuota[gpu];
        };
        const auto createGpuPool = [gpu](ControlPlane& p, const std::string& name, std::int64_t share) {
            PoolRequest request;
            request.name = name;
            request.businessLine = name;
            request.acceleratorQuota[gpu] = share;
            QVERIFY(p.createPool(request));
        };
        std::int64_t raisedTo = 0;
        {
            auto opened = store::openSqliteStore(dbPath());
            QVERIFY(opened);
            auto p = plane(**opened);
            createGpuPool(*p, "ml", 2000);
            createGpuPool(*p, "batch", 6000);
            // ml swings daily up to 3000 milli-GPUs, 30 minutes after `kNow`; batch holds 1000.
            QVERIFY(writeSamples(**opened, dailySwing("gpu", "ml", 2'000, 1'000, "batch", 1'000)));
            auto r = rebalancer(*p);
            auto ids = r->evaluateNow(kNow);
            QCOMPARE(ids.size(), std::size_t { 1 });
            const rebalance::Proposal* raise = r->proposal(ids[0]);
            QCOMPARE(raise->key, std::string("quota:ml:gpu"));
            QCOMPARE(raise->plan.size(), std::size_t { 2 });
            QCOMPARE(raise->plan[0].type, Action::Type::SetAcceleratorQuota);
            QCOMPARE(raise->plan[0].expectQuotaShare, std::int64_t { 2000 });
            raisedTo = raise->plan[0].quotaShare;
            QVERIFY2(raisedTo >= 4000, raise->reason.c_str()); // the p90 peak is at least 3000, 3600 with headroom
            QCOMPARE(raise->plan[1].target, std::string("batch"));
            const std::int64_t taken = raise->plan[1].quotaShare;
            QCOMPARE(taken, raisedTo - 2000);
            QVERIFY(p->store()->latestForecast({ "pool", "ml", "gpu" })); // stored for the console

            // Batch grows after the plan: taking from it now would leave it below what its workloads hold.
            join(*p, "n1", 64000, 262144, 8);
            SubmitRequest big = oneGpuBatch("big");
            big.pool = "batch";
            big.accelerators.count = static_cast<std::int32_t>((6000 - taken) / 1000 + 1);
            const auto bigId = p->submit(big);
            QVERIFY(bigId);
            p->onWorkloadUpdate(
                "n1", protocol::WorkloadStatus { *bigId, "running", 1, 0, {}, p->workload(*bigId)->incarnation });
            QVERIFY(p->cluster().pool(*p->poolByName("batch")).acceleratorUsed[gpu] > 6000 - taken);
            auto applied = r->approve(ids[0], "operator:test", kNow + kMinute);
            QVERIFY(applied);
            QCOMPARE(name((*applied)->state), name(ProposalState::Failed));
            QVERIFY2((*applied)->detail.find("its workloads hold") != std::string::npos
                    && (*applied)->detail.find("every earlier step was rolled back") != std::string::npos,
                (*applied)->detail.c_str());
            QCOMPARE(gpuQuota(*p, "ml"), std::int64_t { 2000 }); // the raise was rolled back
            QCOMPARE(gpuQuota(*p, "batch"), std::int64_t { 6000 });
            QVERIFY(p->cluster().checkInvariants());

            // The workload gone, the next round proposes the raise again and it applies.
            QVERIFY(p->cancel(*bigId));
            p->onWorkloadUpdate(
                "n1", protocol::WorkloadStatus { *bigId, "stopped", 1, 0, {}, p->workload(*bigId)->incarnation });
            ids = r->evaluateNow(kNow + 5 * kMinute);
            QCOMPARE(ids.size(), std::size_t { 1 });
            applied = r->approve(ids[0], "operator:test", kNow + 6 * kMinute);
            QVERIFY2(applied && (*applied)->state == ProposalState::Applied,
                applied ? (*applied)->detail.c_str() : applied.error().message.c_str());
            raisedTo = (*applied)->plan[0].quotaShare;
            QCOMPARE(gpuQuota(*p, "ml"), raisedTo);
            QCOMPARE(gpuQuota(*p, "batch"), 6000 - (*applied)->plan[1].quotaShare);
            p->stop();
        }
        // A restart later, two days of ml at 500 milli-GPUs: its forecast fits the base again, which gives the raise
        // back.
        auto opened = store::openSqliteStore(dbPath());
        QVERIFY(opened);
        auto p = plane(**opened);
        QCOMPARE(gpuQuota(*p, "ml"), raisedTo);
        QVERIFY(writeSamples(
            **opened, levels("gpu", { { "ml", 500 }, { "batch", 1'000 } }, kNow, kNow + 2 * kDay), kNow + 2 * kDay));
        auto r = rebalancer(*p);
        const auto ids = r->evaluateNow(kNow + 2 * kDay);
        QCOMPARE(ids.size(), std::size_t { 1 });
        const rebalance::Proposal* back = r->proposal(ids[0]);
        QCOMPARE(back->key, std::string("quota:ml:gpu"));
        QCOMPARE(back->plan,
            (std::vector<Action> { Action::setAcceleratorQuota("ml", AcceleratorKind::Gpu, 2000, raisedTo) }));
        QVERIFY(r->approve(ids[0], "operator:test", kNow + 2 * kDay + kMinute));
        QCOMPARE(gpuQuota(*p, "ml"), std::int64_t { 2000 });
        p->stop();
    }

    void staleApprovalIsReplanned()
    {
        auto opened = store::openSqliteStore(dbPath());
        auto p = plane(**opened);
        createPool(*p, "web", 4000);
        createPool(*p, "batch", 8000);
        writeHistory(**opened);
        auto r = rebalancer(*p);
        const auto created = r->evaluateNow(kNow);
        QCOMPARE(created.size(), std::size_t { 1 });
        // Someone changes the web pool's quota after the plan was made.
        PoolRequest changed = p->poolRequestOf(*p->poolByName("web"));
        changed.cpuMillis = 4500;
        QVERIFY(p->updatePool("web", changed));
        const auto entered = [&](ProposalState state) { return r->stats().entered[static_cast<std::size_t>(state)]; };
        QCOMPARE(r->stats().evaluations, std::uint64_t { 1 });
        QCOMPARE(entered(ProposalState::Pending), std::uint64_t { 1 });
        const auto refused = r->approve(created[0], "operator:test", kNow + kMinute);
        QVERIFY(!refused);
        QCOMPARE(refused.error().status, 409);
        // For /metrics: the stale one expired, unapproved, and the re-plan is a new pending proposal.
        QCOMPARE(entered(ProposalState::Expired), std::uint64_t { 1 });
        QCOMPARE(entered(ProposalState::Approved), std::uint64_t { 0 });
        QCOMPARE(entered(ProposalState::Pending), std::uint64_t { 2 });
        QVERIFY2(refused.error().message.find("4500") != std::string::npos, refused.error().message.c_str());
        QVERIFY2(refused.error().message.find("re-planned as proposal") != std::string::npos, refused.error().message.c_str());
        QCOMPARE(name(r->proposal(created[0])->state), name(ProposalState::Expired));
        QCOMPARE(p->cluster().pool(*p->poolByName("web")).quota.cpuMillis, std::int64_t { 4500 }); // nothing applied
        // The re-plan starts from the quota as it is now.
        const rebalance::Proposal* replanned = nullptr;
        for (const auto& [id, proposal] : r->proposals())
            if (proposal.open())
                replanned = &proposal;
        QVERIFY(replanned);
        QCOMPARE(replanned->plan[0].expectCpuMillis, std::int64_t { 4500 });
        QVERIFY(r->approve(replanned->id, "operator:test", kNow + kMinute));
        QCOMPARE(entered(ProposalState::Approved), std::uint64_t { 1 });
        QCOMPARE(entered(ProposalState::Applied), std::uint64_t { 1 });
        QCOMPARE(entered(ProposalState::Pending), std::uint64_t { 2 });
    }

    // Two pools raised from one donor: approving the first leaves the second valid, because a donor's action takes
    // an amount and only asks that the donor keeps its own forecast need.
    void raisesFromOneDonorDoNotInvalidateEachOther()
    {
        auto opened = store::openSqliteStore(dbPath());
        auto p = plane(**opened);
        createPool(*p, "web", 4000);
        createPool(*p, "web2", 4000);
        createPool(*p, "batch", 20000);
        writeHistory(**opened);
        std::vector<store::Sample> samples;
        auto web = (*opened)->history({ "pool", "web", "cpu" }, 0, kNow, store::Resolution::Raw);
        for (const auto& point : *web)
            samples.push_back({ { "pool", "web2", "cpu" }, point.atMs, point.mean });
        QVERIFY(writeSamples(**opened, samples));
        auto r = rebalancer(*p);
        const auto created = r->evaluateNow(kNow);
        QCOMPARE(created.size(), std::size_t { 2 });
        for (const auto id : created) {
            const auto approved = r->approve(id, "operator:test", kNow + kMinute);
            QVERIFY2(approved, approved ? "" : approved.error().message.c_str());
            QCOMPARE(name((*approved)->state), name(ProposalState::Applied));
        }
        const std::int64_t raised = r->proposal(created[0])->plan[0].cpuMillis - 4000;
        QCOMPARE(p->cluster().pool(*p->poolByName("batch")).quota.cpuMillis, 20000 - 2 * raised);
    }

    // A rejected proposal is not proposed again while the evaluation plans the same for its subject, until the hold
    // has passed (it came back five minutes later); with no hold it comes back at the next evaluation.
    void aRejectedProposalIsNotProposedAgainForAWhile()
    {
        for (const std::int64_t holdMs : { 6 * 60 * kMinute, std::int64_t { 0 } }) {
            auto plane = memoryPlane();
            for (const char* n : { "n1", "n2", "n3" })
                join(*plane, n, 8000, 32768);
            RebalanceConfig config;
            config.evaluator.idleBeforePowerDown = std::chrono::milliseconds(0);
            config.rejectionHold = std::chrono::milliseconds(holdMs);
            auto r = rebalancer(*plane, config);
            std::string key;
            std::int64_t rejected = 0;
            for (const std::int64_t id : r->evaluateNow(kNow))
                if (r->proposal(id)->kind == ProposalKind::PowerDown && key.empty()) {
                    key = r->proposal(id)->key;
                    rejected = id;
                }
            QVERIFY(!key.empty());
            QVERIFY(r->reject(rejected, "operator:test", "keep it warm", kNow + kMinute));
            const auto openWithKey = [&] {
                for (const auto& [id, p] : r->proposals())
                    if (p.open() && p.key == key)
                        return true;
                return false;
            };
            r->evaluateNow(kNow + 5 * kMinute);
            QCOMPARE(openWithKey(), holdMs == 0);
            if (holdMs == 0)
                continue;
            r->evaluateNow(kNow + holdMs - 5 * kMinute);
            QVERIFY(!openWithKey());
            r->evaluateNow(kNow + holdMs + 5 * kMinute);
            QVERIFY(openWithKey());
        }
    }

    // `keepClosedProposals`: a closed proposal is forgotten once it was created and decided longer ago than that; an
    // open one stays however old, and asking for a forgotten one says so.
    void closedProposalsAreForgottenAfterTheRetention()
    {
        auto plane = memoryPlane();
        for (const char* n : { "n1", "n2", "n3" })
            join(*plane, n, 8000, 32768);
        RebalanceConfig config;
        config.evaluator.idleBeforePowerDown = std::chrono::milliseconds(0);
        config.keepClosedProposals = std::chrono::milliseconds(2 * kDay);
        auto r = rebalancer(*plane, config);
        std::vector<std::int64_t> downs;
        const std::vector<std::int64_t> firstRound = r->evaluateNow(kNow);
        std::size_t created = firstRound.size();
        for (const std::int64_t id : firstRound)
            if (r->proposal(id)->kind == ProposalKind::PowerDown)
                downs.push_back(id);
        QVERIFY2(downs.size() >= 2, "three idle nodes give at least two power-downs");
        QVERIFY(r->reject(downs[0], "operator:test", "keep it warm", kNow + kMinute));
        // Evaluated every 5 minutes for two days: the rejected one is still there at the end (created two days ago,
        // decided a minute later), and the other power-down stays pending, the same advice every round.
        for (std::int64_t t = kNow + 5 * kMinute; t <= kNow + 2 * kDay; t += 5 * kMinute)
            created += r->evaluateNow(t).size();
        QVERIFY(r->proposal(downs[0]));
        // For /metrics: a proposal saved again every round in the same state entered it once.
        QCOMPARE(r->stats().entered[static_cast<std::size_t>(ProposalState::Pending)], std::uint64_t { created });
        QCOMPARE(r->stats().entered[static_cast<std::size_t>(ProposalState::Rejected)], std::uint64_t { 1 });
        QCOMPARE(r->stats().evaluations, std::uint64_t { 2 * kDay / (5 * kMinute) + 1 });
        // Past the retention: the rejected one is forgotten, the pending one (created as long ago) is not.
        r->evaluateNow(kNow + 2 * kDay + 5 * kMinute);
        QVERIFY(!r->proposal(downs[0]));
        QVERIFY(r->proposal(downs[1]));
        QCOMPARE(name(r->proposal(downs[1])->state), name(ProposalState::Pending));
        const auto gone = r->approve(downs[0], "operator:test", kNow + 2 * kDay + 3 * kMinute);
        QVERIFY(!gone);
        QCOMPARE(gone.error().status, 404);
        QVERIFY2(gone.error().message.find("closed more than 2 days ago and is no longer kept") != std::string::npos,
            gone.error().message.c_str());
        QCOMPARE(r->whyNoProposal(1000), std::string("no proposal has id 1000"));
        // With 0 nothing is forgotten.
        config.keepClosedProposals = std::chrono::milliseconds(0);
        auto all = rebalancer(*plane, config);
        const std::int64_t first = all->evaluateNow(kNow).front();
        QVERIFY(all->reject(first, "operator:test", "no", kNow + kMinute));
        all->evaluateNow(kNow + 400 * kDay);
        QVERIFY(all->proposal(first));
    }

    void rejectionAndExpiryAreFinal()
    {
        auto opened = store::openSqliteStore(dbPath());
        auto p = plane(**opened);
        createPool(*p, "web", 4000);
        createPool(*p, "batch", 8000);
        writeHistory(**opened);
        RebalanceConfig config;
        config.rejectionHold = std::chrono::milliseconds(0); // the hold: aRejectedProposalIsNotProposedAgainForAWhile
        auto r = rebalancer(*p, config);
        const auto first = r->evaluateNow(kNow);
        QCOMPARE(first.size(), std::size_t { 1 });
        const auto rejected = r->reject(first[0], "operator:test", "the web launch moved to Friday", kNow + kMinute);
        QVERIFY(rejected);
        QCOMPARE((*rejected)->detail, std::string("the web launch moved to Friday"));
        QVERIFY(!r->approve(first[0], "operator:test", kNow + kMinute));
        // Without a hold the next round proposes it afresh (a rejection is not a standing rule); left alone, that one
        // expires.
        const auto second = r->evaluateNow(kNow + 5 * kMinute);
        QCOMPARE(second.size(), std::size_t { 1 });
        const auto late = r->approve(second[0], "operator:test", kNow + 30 * kMinute);
        QVERIFY(!late);
        QVERIFY(late.error().message.find("expired") != std::string::npos);
        QCOMPARE(name(r->proposal(second[0])->state), name(ProposalState::Expired));
        QCOMPARE(name(r->proposal(first[0])->state), name(ProposalState::Rejected));
    }

    // The loop's own path: history read here, forecasts fitted on the rebalancer's worker, the result finished on
    // this (the core's) thread once the io_context runs.
    void evaluationForecastsOnTheWorker()
    {
        auto opened = store::openSqliteStore(dbPath());
        auto p = plane(**opened);
        createPool(*p, "web", 4000);
        createPool(*p, "batch", 8000);
        writeHistory(**opened);
        auto r = rebalancer(*p);
        std::optional<std::vector<std::int64_t>> created;
        r->evaluate(kNow, [&](std::vector<std::int64_t> ids) { created = std::move(ids); });
        QVERIFY(!created); // nothing finishes before the core's thread runs the result
        // Kept busy while the worker forecasts: an io_context with nothing to do stops, and the result would never run.
        auto busy = boost::asio::make_work_guard(io());
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (!created && std::chrono::steady_clock::now() < deadline)
            io().run_for(std::chrono::milliseconds(10));
        QVERIFY(created);
        QCOMPARE(created->size(), std::size_t { 1 });
        QCOMPARE(r->proposal(created->front())->key, std::string("quota:web"));
    }

    void tooLittleHistoryProposesNoQuota()
    {
        auto opened = store::openSqliteStore(dbPath());
        auto p = plane(**opened);
        createPool(*p, "web", 1000);
        std::vector<store::Sample> samples;
        for (std::int64_t t = kNow - 6 * 60 * kMinute; t < kNow; t += 5 * kMinute)
            samples.push_back({ { "pool", "web", "cpu" }, t, 5000 }); // far above the quota, but only six hours
        QVERIFY(writeSamples(**opened, samples));
        auto r = rebalancer(*p);
        QVERIFY(r->evaluateNow(kNow).empty());
    }

    // Right-sizing from measured peaks: each request becomes its peak with the margin, rounded up to a step, within
    // its own limit; small changes, workloads measured too briefly and resources asked none of are left alone; pools
    // are planned apart, and in each its lowers apart from its raises, their largest changes first.
    void rightSizingPlansFromPeaks()
    {
        using rebalance::WorkloadUse;
        constexpr std::int64_t kHour = 60 * kMinute;
        const std::vector<WorkloadUse> use {
            { 1, "idle-api", "web", "n1", 2000, 4096, 0, 0, 7 * kHour, 300, 900 }, // far over: lowered
            { 2, "busy-etl", "web", "n1", 500, 512, 0, 0, 7 * kHour, 900, 600 }, // under: raised
            { 3, "new", "web", "n1", 2000, 4096, 0, 0, 1 * kHour, 10, 10 }, // measured for an hour only
            { 4, "near", "web", "n2", 1000, 1024, 0, 0, 7 * kHour, 800, 900 }, // within the minimum change
            { 5, "capped", "batch", "n2", 100, 128, 0, 512, 7 * kHour, 100, 600 }, // raised to its limit, no more
            { 6, "memory-only", "batch", "n2", 0, 2048, 0, 0, 7 * kHour, 700, 200 }, // asked no CPU: none
            { 8, "mixed", "web", "n2", 2000, 512, 0, 0, 7 * kHour, 300, 900 }, // CPU lowered, memory raised
        };
        rebalance::RightSizeConfig config;
        const auto plans = rebalance::planRightSizing(use, config);
        const auto planOf = [](const std::vector<rebalance::RightSizePlan>& all, const std::string& pool,
                                bool raises) -> const rebalance::RightSizePlan& {
            const auto it = std::find_if(all.begin(), all.end(),
                [&](const rebalance::RightSizePlan& p) { return p.pool == pool && p.raises == raises; });
            if (it == all.end())
                throw std::runtime_error("no plan of " + std::string(raises ? "raises" : "lowers") + " for " + pool);
            return *it;
        };
        // Each pool's lowers before its raises.
        QCOMPARE(plans.size(), std::size_t { 4 });
        QCOMPARE(plans[0].pool + (plans[0].raises ? "+" : "-") + plans[1].pool + (plans[1].raises ? "+" : "-")
                + plans[2].pool + (plans[2].raises ? "+" : "-") + plans[3].pool + (plans[3].raises ? "+" : "-"),
            std::string("batch-batch+web-web+"));
        const rebalance::RightSizePlan& webLowers = planOf(plans, "web", false);
        QCOMPARE(webLowers.resizes.size(), std::size_t { 2 });
        // 300 × 1.15 = 345 → 350m; 900 × 1.15 = 1035 → 1040 MiB. The larger change first.
        QCOMPARE(webLowers.resizes[0], Action::resize(1, "n1", 350, 2000, 1040, 4096));
        // The mixed one's lower: its CPU only, its memory as it asks.
        QCOMPARE(webLowers.resizes[1], Action::resize(8, "n2", 350, 2000, 512, 512));
        QCOMPARE(webLowers.cpuBefore, std::int64_t { 4000 });
        QCOMPARE(webLowers.cpuAfter, std::int64_t { 700 });
        QCOMPARE(webLowers.memoryBefore, std::int64_t { 4608 });
        QCOMPARE(webLowers.memoryAfter, std::int64_t { 1552 });
        QCOMPARE(webLowers.peakMemory, std::int64_t { 1800 });
        const rebalance::RightSizePlan& webRaises = planOf(plans, "web", true);
        QCOMPARE(webRaises.resizes.size(), std::size_t { 2 });
        // 900 × 1.15 = 1035 → 1040m; 600 × 1.15 = 690 → 704 MiB.
        QCOMPARE(webRaises.resizes[0], Action::resize(2, "n1", 1040, 500, 704, 512));
        // The mixed one's raise: its memory only (900 × 1.15 = 1035 → 1040 MiB), its CPU as it asks.
        QCOMPARE(webRaises.resizes[1], Action::resize(8, "n2", 2000, 2000, 1040, 512));
        QCOMPARE(webRaises.cpuBefore, std::int64_t { 2500 });
        QCOMPARE(webRaises.cpuAfter, std::int64_t { 3040 });
        QCOMPARE(planOf(plans, "batch", false).resizes,
            std::vector<Action> { Action::resize(6, "n2", 0, 0, 240, 2048) }); // 200 × 1.15 = 230 → 240 MiB
        QCOMPARE(planOf(plans, "batch", true).resizes,
            std::vector<Action> { Action::resize(5, "n2", 100, 100, 512, 128) }); // 690 MiB wanted, its limit 512
        QCOMPARE(rebalance::rightSizedRequest(0, 700, 0, 10, 1.15), std::int64_t { 0 });
        QCOMPARE(rebalance::rightSizedRequest(500, 0, 0, 10, 1.15), std::int64_t { 10 }); // never below a step
        QCOMPARE(rebalance::proposedRequest(1000, 800, 0, 10, 100, config), std::int64_t { 1000 }); // 920m: too small
        QCOMPARE(rebalance::proposedRequest(1000, 600, 0, 10, 100, config), std::int64_t { 690 });
        QCOMPARE(rebalance::proposedRequest(1000, 600, 0, 10, 400, config), std::int64_t { 1000 }); // under `least`
        // CPU from its percentile where one is kept: a 4-core spike does not keep 2 cores asked for (its memory,
        // 900 × 1.15 = 1040 MiB against 1024, is within the minimum change).
        const WorkloadUse spiky { 7, "spiky", "web", "n1", 2000, 1024, 0, 0, 7 * kHour, 4000, 900, 300 };
        const auto fromPercentile = rebalance::planRightSizing({ spiky }, config);
        QCOMPARE(fromPercentile.size(), std::size_t { 1 });
        QCOMPARE(fromPercentile[0].resizes.at(0), Action::resize(7, "n1", 350, 2000, 1024, 1024));
        QCOMPARE(fromPercentile[0].usedCpu, std::int64_t { 300 });
        QCOMPARE(webLowers.usedCpu, std::int64_t { 600 }); // peaks stand for percentiles not kept

        // With the room raises may take: a raise its node or its pool's quota has no room for now is left out (and
        // said); what a lower in the same pool would give back is not counted on, since it may not be approved.
        const std::vector<WorkloadUse> tight {
            { 10, "idle", "mix", "n8", 2000, 4096, 0, 0, 7 * kHour, 300, 900 }, // lowered: would give back 1650m
            { 11, "grows-n8", "mix", "n8", 500, 512, 0, 0, 7 * kHour, 900, 600 }, // +540m, +192 MiB
            { 12, "grows-n9", "mix", "n9", 500, 512, 0, 0, 7 * kHour, 900, 600 }, // +540m, +192 MiB
        };
        rebalance::RightSizeRoom room;
        room.nodes = { { "n8", { 0, 0 } }, { "n9", { 100, 4096 } } };
        room.pools = { { "mix", { 1'000'000, 1'000'000 } } };
        auto roomy = rebalance::planRightSizing(tight, config, &room);
        QCOMPARE(roomy.size(), std::size_t { 1 }); // the lowers only: neither raise has room now
        QVERIFY(!roomy[0].raises);
        QCOMPARE(roomy[0].resizes.size(), std::size_t { 1 });
        room.nodes["n8"] = { 540, 192 };
        roomy = rebalance::planRightSizing(tight, config, &room);
        QCOMPARE(roomy.size(), std::size_t { 2 });
        QCOMPARE(roomy[1].resizes, std::vector<Action> { Action::resize(11, "n8", 1040, 500, 704, 512) });
        QCOMPARE(roomy[1].noRoom, std::size_t { 1 });
        room.nodes["n9"] = { 10'000, 10'000 };
        room.pools["mix"] = { 1080, 384 }; // both, exactly
        roomy = rebalance::planRightSizing(tight, config, &room);
        QCOMPARE(roomy.at(1).resizes.size(), std::size_t { 2 });
        room.pools["mix"] = { 1079, 384 };
        roomy = rebalance::planRightSizing(tight, config, &room);
        QCOMPARE(roomy.at(1).resizes.size(), std::size_t { 1 });
        QCOMPARE(roomy.at(1).noRoom, std::size_t { 1 });
        // A pool over its CPU quota takes no more CPU, but a raise of memory alone still fits it.
        room.pools["mix"] = { -1000, 10'000 };
        const WorkloadUse memoryOnly { 13, "memory-grows", "mix", "n9", 500, 512, 0, 0, 7 * kHour, 400, 600 };
        roomy = rebalance::planRightSizing({ tight[2], memoryOnly }, config, &room);
        QCOMPARE(roomy.size(), std::size_t { 1 });
        QCOMPARE(roomy[0].resizes, std::vector<Action> { Action::resize(13, "n9", 500, 500, 704, 512) });
        QCOMPARE(roomy[0].noRoom, std::size_t { 1 });

        config.maxPerProposal = 1;
        QCOMPARE(planOf(rebalance::planRightSizing(use, config), "web", false).resizes.size(), std::size_t { 1 });
        config.observeFor = std::chrono::milliseconds(0); // off
        QVERIFY(rebalance::planRightSizing(use, config).empty());

        // Advice from peaks that moved a little is the same advice (a rejection holds); another workload's is not.
        const rebalance::QuotaSteps steps;
        QVERIFY(rebalance::equivalentPlans({ Action::resize(1, "n1", 350, 2000, 1040, 4096) },
            { Action::resize(1, "n1", 380, 2000, 1104, 4096) }, steps));
        QVERIFY(!rebalance::equivalentPlans({ Action::resize(1, "n1", 350, 2000, 1040, 4096) },
            { Action::resize(1, "n1", 1350, 2000, 1040, 4096) }, steps));
        QVERIFY(!rebalance::equivalentPlans({ Action::resize(1, "n1", 350, 2000, 1040, 4096) },
            { Action::resize(7, "n1", 350, 2000, 1040, 4096) }, steps));
        // Stored and read back.
        rebalance::Proposal p = pendingQuota("resize:web",
            { Action::resize(1, "n1", 350, 2000, 1040, 4096), Action::resize(2, "n1", 1040, 500, 704, 512) },
            Action::Type::Resize);
        p.kind = ProposalKind::Resize;
        p.plan.pop_back();
        const auto back = rebalance::fromStored(rebalance::toStored(p));
        QVERIFY2(back, back ? "" : back.error().message.c_str());
        QCOMPARE(name(back->kind), std::string("resize"));
        QCOMPARE(back->plan, p.plan);
    }

    // The loop proposes right-sizing a pool's over-provisioned running workloads once they have been measured long
    // enough; approving resizes each in place (its agent is told), a stale plan is re-planned, and the workload's new
    // request is what its node and pool are charged.
    void overProvisionedWorkloadsAreRightSized()
    {
        std::vector<protocol::Resize> sent;
        auto plane = resizingPlane(sent);
        ControlPlane& p = *plane;
        std::vector<WorkloadId> ids;
        for (int i = 0; i < 4; ++i) {
            SubmitRequest s;
            s.name = "api-" + std::to_string(i);
            s.requests = { 2000, 4096, 0, 0 };
            s.argv = { "/bin/sleep", "3600" };
            s.rightSize = i != 3; // sized on purpose: never proposed
            ids.push_back(*p.submit(s));
            p.onWorkloadUpdate("n1", protocol::WorkloadStatus { ids.back(), "running", 10 + i, 0, {} });
        }
        // Measured over seven hours: two idle, one using all it asks for, one idle that is sized on purpose.
        // The first idle one starts with a spike of 1.5 cores (a warm-up): its CPU is sized from the 90th percentile of
        // its samples, not from that.
        const auto beat = [&](std::int64_t atMs, std::int64_t firstCpu) {
            protocol::Heartbeat hb;
            hb.samples.push_back(protocol::UtilisationSample { atMs, 0.2, 4096, {} });
            hb.samples.back().workloads = { { ids[0], 0, firstCpu, 700 }, { ids[1], 0, 100, 500 },
                { ids[2], 0, 1990, 4000 }, { ids[3], 0, 10, 100 } };
            p.onHeartbeat("n1", hb);
        };
        beat(kNow - 7 * 60 * kMinute, 1500);
        auto r = rebalancer(p);
        QVERIFY(r->evaluateNow(kNow - 6 * 60 * kMinute).empty()); // measured for an hour: too soon
        for (int k = 1; k <= 14; ++k) // every half hour
            beat(kNow - 7 * 60 * kMinute + k * 30 * kMinute, 200);
        QCOMPARE(p.workload(ids[0])->measured.peakCpuMillis, std::int64_t { 1500 });
        const auto created = r->evaluateNow(kNow);
        QCOMPARE(created.size(), std::size_t { 1 });
        const rebalance::Proposal* proposal = r->proposal(created[0]);
        seenProposals().push_back(*proposal);
        QCOMPARE(name(proposal->kind), std::string("resize"));
        QCOMPARE(proposal->key, std::string("resize:default"));
        QCOMPARE(name(proposal->risk), name(rebalance::Risk::Medium));
        QCOMPARE(proposal->plan.size(), std::size_t { 2 });
        // The 90th percentiles are the upper edges of their 5% buckets: 100m → 105m, 200m → 206m. 105 × 1.15 = 120.75
        // → 130m, 500 × 1.15 = 575 → 576 MiB; 206 × 1.15 = 236.9 → 240m, 700 × 1.15 = 805 → 816 MiB.
        QCOMPARE(proposal->plan[0], Action::resize(ids[1], "n1", 130, 2000, 576, 4096));
        QCOMPARE(proposal->plan[1], Action::resize(ids[0], "n1", 240, 2000, 816, 4096));
        QVERIFY2(proposal->reason.find("2 running workloads of pool default used 311 mCPU (each the 90th percentile "
                                       "of its CPU samples) and at most 1200 MiB (each its memory's peak) together "
                                       "over at least 6 hours, against the 4000 mCPU and 8192 MiB they ask for; ask "
                                       "for 370 mCPU and 1392 MiB instead: each of those with 15% to spare; each is "
                                       "resized where it runs, without a restart")
                != std::string::npos,
            proposal->reason.c_str());
        QCOMPARE(proposal->effect.utilisationBefore, 311.0 / 4000.0);
        QCOMPARE(proposal->effect.utilisationAfter, 311.0 / 370.0);

        const auto approved = r->approve(proposal->id, "operator:test", kNow + kMinute);
        QVERIFY2(approved, approved ? "" : approved.error().message.c_str());
        QCOMPARE(name((*approved)->state), name(ProposalState::Applied));
        QCOMPARE(p.workload(ids[0])->workload.requests.cpuMillis, std::int64_t { 240 });
        QCOMPARE(p.workload(ids[1])->workload.requests.memoryMiB, std::int64_t { 576 });
        QCOMPARE(p.workload(ids[2])->workload.requests.cpuMillis, std::int64_t { 2000 });
        QCOMPARE(p.workload(ids[3])->workload.requests.cpuMillis, std::int64_t { 2000 });
        QCOMPARE(p.cluster().node(0).free.cpuMillis, std::int64_t { 8000 - 2000 - 2000 - 240 - 130 });
        // Kept with the submission: a restarted core leaves it alone too.
        QCOMPARE(api::submissionJson(*p.workload(ids[3]), p.cluster()).value("rightSize", true), false);
        QVERIFY(!api::parseSubmitRequest(api::submissionJson(*p.workload(ids[3]), p.cluster()))->rightSize);
        QVERIFY(!api::submissionJson(*p.workload(ids[0]), p.cluster()).contains("rightSize"));
        QVERIFY(p.cluster().checkInvariants());
        QCOMPARE(sent.size(), std::size_t { 2 });
        QCOMPARE(sent[0].cpuMillis, std::int64_t { 130 });
        // Right-sized: nothing more to propose.
        QVERIFY(ofKind(
            [&] {
                std::vector<rebalance::Proposal> all;
                for (const std::int64_t id : r->evaluateNow(kNow + 5 * kMinute))
                    all.push_back(*r->proposal(id));
                return all;
            }(),
            ProposalKind::Resize)
                    .empty());

        // Its agent refuses one of them afterwards: the workload goes back to what it asked, and the applied proposal
        // says so in its steps and detail, instead of reading as in force there.
        p.onResized("n1", protocol::Resized { ids[1], 0, "memory.limit_in_bytes: device busy" });
        QCOMPARE(p.workload(ids[1])->workload.requests.memoryMiB, std::int64_t { 4096 });
        const rebalance::Proposal* refused = r->proposal(proposal->id);
        QCOMPARE(name(refused->state), name(ProposalState::Applied));
        QVERIFY2(refused->detail.find("workload " + std::to_string(ids[1])
                     + "'s resize was refused by the agent of "
                       "node n1: memory.limit_in_bytes: device busy")
                != std::string::npos,
            refused->detail.c_str());
        QCOMPARE(
            refused->steps.back().value("outcome", std::string()).rfind("refused afterwards: ", 0), std::size_t { 0 });
        // An operator's own resize refused is no proposal's.
        ResizeRequest own;
        own.cpuMillis = 300;
        QVERIFY(p.resize(ids[0], own, "token:alice"));
        const std::size_t steps = refused->steps.size();
        p.onResized("n1", protocol::Resized { ids[0], 0, {} }); // the proposal's, confirmed
        p.onResized("n1", protocol::Resized { ids[0], 0, "no" }); // alice's, refused
        QCOMPARE(r->proposal(proposal->id)->steps.size(), steps);
        // Back to what its agent confirmed: the proposal's size.
        QCOMPARE(p.workload(ids[0])->workload.requests.cpuMillis, std::int64_t { 240 });

        // Planned on requests an operator has changed since: re-planned, nothing applied.
        ResizeRequest more;
        more.cpuMillis = 1500;
        QVERIFY(p.resize(ids[0], more, "operator:test"));
        const auto again = r->evaluateNow(kNow + 10 * kMinute);
        QCOMPARE(again.size(), std::size_t { 1 });
        ResizeRequest other;
        other.cpuMillis = 1800;
        QVERIFY(p.resize(ids[0], other, "operator:test"));
        const auto stale = r->approve(again[0], "operator:test", kNow + 11 * kMinute);
        QVERIFY(!stale);
        QCOMPARE(stale.error().status, 409);
        QVERIFY2(stale.error().message.find("asks for 1800m CPU and 816 MiB, not the 1500m and 816 MiB it was planned "
                                            "on")
                != std::string::npos,
            stale.error().message.c_str());
        QCOMPARE(p.workload(ids[0])->workload.requests.cpuMillis, std::int64_t { 1800 });
    }

    // A pool's raises are a proposal of their own, low-risk: a rule (`autoApprove`) applies them at the evaluation that
    // finds them, while its lowers wait for an operator. Without the rule both wait.
    void raisesAreProposedApartAndAppliedByRule()
    {
        for (const bool rule : { true, false }) {
            std::vector<protocol::Resize> sent;
            auto plane = resizingPlane(sent);
            ControlPlane& p = *plane;
            std::vector<WorkloadId> ids;
            for (int i = 0; i < 2; ++i) {
                SubmitRequest s;
                s.name = i == 0 ? "idle" : "busy";
                s.requests = { 1000, 1024, 0, 0 };
                s.argv = { "/bin/sleep", "3600" };
                ids.push_back(*p.submit(s));
                p.onWorkloadUpdate("n1", protocol::WorkloadStatus { ids.back(), "running", 10 + i, 0, {} });
            }
            // Seven hours: the idle one uses 100m of its 1000m, the busy one 1500m.
            for (int k = 0; k <= 14; ++k) {
                protocol::Heartbeat hb;
                hb.samples.push_back(
                    protocol::UtilisationSample { kNow - 7 * 60 * kMinute + k * 30 * kMinute, 0.3, 2048, {} });
                hb.samples.back().workloads = { { ids[0], 0, 100, 1000 }, { ids[1], 0, 1500, 1000 } };
                p.onHeartbeat("n1", hb);
            }
            RebalanceConfig config;
            if (rule)
                config.autoApprove = { ProposalKind::Resize };
            auto r = rebalancer(p, config);
            const auto created = r->evaluateNow(kNow);
            QCOMPARE(created.size(), std::size_t { 2 });
            const rebalance::Proposal* lowers = r->proposal(created[0]);
            const rebalance::Proposal* raises = r->proposal(created[1]);
            QCOMPARE(lowers->key, std::string("resize:default"));
            QCOMPARE(name(lowers->risk), name(rebalance::Risk::Medium));
            // 100m is within the 5% bucket of 105m: 105 × 1.15 = 120.75 → 130m.
            QCOMPARE(lowers->plan, std::vector<Action> { Action::resize(ids[0], "n1", 130, 1000, 1024, 1024) });
            QCOMPARE(name(lowers->state), name(ProposalState::Pending));
            QCOMPARE(raises->key, std::string("resize-up:default"));
            QCOMPARE(name(raises->risk), name(rebalance::Risk::Low));
            QVERIFY2(raises->reason.find("1 of them use more than they ask for") != std::string::npos,
                raises->reason.c_str());
            QCOMPARE(raises->plan.size(), std::size_t { 1 });
            QCOMPARE(raises->plan[0].workload, ids[1]);
            QVERIFY(raises->plan[0].cpuMillis > 1500);
            QCOMPARE(p.workload(ids[0])->workload.requests.cpuMillis, std::int64_t { 1000 });
            if (rule) {
                QCOMPARE(name(raises->state), name(ProposalState::Applied));
                QCOMPARE(raises->decidedBy, std::string("rule:auto-approve-low-risk-resize"));
                QCOMPARE(p.workload(ids[1])->workload.requests.cpuMillis, raises->plan[0].cpuMillis);
                QCOMPARE(sent.size(), std::size_t { 1 });
                QCOMPARE(sent[0].workloadId, ids[1]);
            } else {
                QCOMPARE(name(raises->state), name(ProposalState::Pending));
                QCOMPARE(p.workload(ids[1])->workload.requests.cpuMillis, std::int64_t { 1000 });
                QVERIFY(sent.empty());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestRebalance)
#include "tst_rebalance.moc"
