// The scenario simulator: its queueing model against textbook values, and short runs of both modes through the
// real core (control plane, SQLite store, history, and in `tidepool` mode the evaluation loop with approvals).

#include "core/rebalance/evaluator.h"
#include "core/rebalance/proposal.h"
#include "core/sim/latency.h"
#include "core/sim/load_shape.h"
#include "core/sim/scenario.h"
#include "core/sim/simulated_core.h"
#include "core/store/store.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace tidepool;
using namespace tidepool::sim;

class TestScenario : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    ScenarioConfig small(ScenarioMode mode, const char* db) const
    {
        ScenarioConfig c;
        c.mode = mode;
        c.dataDir = TIDEPOOL_SHARED_DATA;
        c.dbPath = m_dir.filePath(QString::fromUtf8(db)).toStdString();
        c.days = 2;
        c.warmupDays = 1;
        c.warmNodes = 6;
        c.hotNodes = 4;
        c.coldNodes = 2;
        return c;
    }

private slots:
    void erlangCMatchesTheTextbook()
    {
        // Two servers, offered load 1 Erlang: C = 1/3. One server: C = ρ.
        QVERIFY(std::abs(erlangC(2, 1.0) - 1.0 / 3.0) < 1e-12);
        QVERIFY(std::abs(erlangC(1, 0.7) - 0.7) < 1e-12);
        QCOMPARE(erlangC(3, 3.0), 1.0); // unstable
        QCOMPARE(erlangC(4, 0.0), 0.0);
    }

    void sojournQuantilesMatchClosedForms()
    {
        // M/M/1: the sojourn time is Exp(μ − λ), so its p99 is ln(100) / (μ − λ).
        const double p99 = *sojournQuantile({ QueueMinute { 10.0, 1, 1.0 } }, 20.0, 0.99);
        QVERIFY2(std::abs(p99 - std::log(100.0) / 10.0) < 1e-4, std::to_string(p99).c_str());
        // Many servers, light load: almost no waiting, so the p99 is the service time's, ln(100) / μ.
        const double light = *sojournQuantile({ QueueMinute { 1.0, 50, 1.0 } }, 20.0, 0.99);
        QVERIFY(std::abs(light - std::log(100.0) / 20.0) < 1e-3);
        // The equal-rate case (a = μ) is continuous with its neighbours.
        const QueueMinute equal { 20.0, 2, 1.0 }; // 2μ − λ = μ
        const QueueMinute near { 19.999, 2, 1.0 };
        QVERIFY(std::abs(sojournCdf(equal, 20.0, 0.1) - sojournCdf(near, 20.0, 0.1)) < 1e-3);
        // An overloaded minute carrying more than 1% of the requests leaves the p99 unbounded; a lighter one does not.
        QVERIFY(!sojournQuantile({ QueueMinute { 10.0, 1, 98.0 }, QueueMinute { 30.0, 1, 2.0 } }, 20.0, 0.99));
        const auto mixed = sojournQuantile({ QueueMinute { 10.0, 1, 99.5 }, QueueMinute { 30.0, 1, 0.5 } }, 20.0, 0.99);
        QVERIFY(mixed && *mixed > p99);
    }

    // The GenAI fleet's requests become a one-day shape: per-minute sums over pods, stretched onto 288 buckets and
    // normalised to a peak of 1; a broken line is named.
    void requestTraceBecomesADailyShape()
    {
        QVERIFY(m_dir.isValid());
        const std::string path = m_dir.filePath(QStringLiteral("qps.csv")).toStdString();
        {
            std::ofstream out(path);
            out << "timestamp_anon,value,container_ip,request_type\r\n";
            for (int minute = 0; minute < 120; ++minute) // two pods, the second busier in the second hour
                out << minute * 60 << ",1.0,a,x\n" << minute * 60 + 1 << "," << (minute < 60 ? 1.0 : 3.0) << ",b,x\n";
        }
        const auto shape = LoadShape::loadQps(path);
        QVERIFY2(shape, shape ? "" : shape.error().message.c_str());
        QCOMPARE(shape->at(0), 0.5); // 2 of the peak's 4 requests/s
        QCOMPARE(shape->at(23 * 3600'000LL), 1.0);
        QCOMPARE(shape->peak(0, 86'400'000), 1.0);
        {
            std::ofstream out(path, std::ios::app);
            out << "120,lots,c,x\n";
        }
        const auto broken = LoadShape::loadQps(path);
        QVERIFY(!broken);
        QVERIFY2(broken.error().message.find("qps.csv:242:") != std::string::npos, broken.error().message.c_str());
    }

    void staticRunsWithoutProposalsAndKeepsTheBooks()
    {
        QVERIFY(m_dir.isValid());
        const auto r = runScenario(small(ScenarioMode::Static, "static.db"));
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QCOMPARE(r->mode, std::string("static"));
        QCOMPARE(r->measuredHours, std::int64_t { 24 });
        QCOMPARE(r->proposalsCreated, std::size_t { 0 });
        QVERIFY(r->proposalsApplied.empty());
        QCOMPARE(r->invariantViolations, std::size_t { 0 });
        QVERIFY(r->batchSubmitted > 100);
        QVERIFY(r->batchFinished > 0 && r->batchFinished <= r->batchSubmitted);
        QVERIFY(r->batchFinished + r->batchPendingAtEnd <= r->batchSubmitted);
        QCOMPARE(r->batchPreempted, std::size_t { 0 }); // static: nothing is reclaimed or moved
        QCOMPARE(r->batchGpuHoursLost, 0.0);
        for (double u : { r->cpuUtilisation, r->gpuUtilisation, r->cpuAllocation, r->gpuAllocation })
            QVERIFY(u > 0.0 && u <= 1.0);
        QVERIFY(r->cpuUtilisation <= r->cpuAllocation + 1e-9); // services use at most what their replicas hold
        // Every node is on all the time: 12 nodes × 24 hours; the 4 hot nodes' hours split by what they held.
        QCOMPARE(r->poweredNodeHours, 12.0 * 24.0);
        QCOMPARE(r->hotNodeHours.total(), 4.0 * 24.0);
        QVERIFY(r->hotNodeHours.inference > 0 && r->hotNodeHours.batchOnly > 0);
        QCOMPARE(r->hotNodeHours.booting, 0.0); // nothing is powered up
        QCOMPARE(r->inferenceMinutes, std::size_t { 24 * 60 });
        QVERIFY(r->inferenceP99S > 0);
    }

    void tidepoolRunsTheLoopWithApprovalsDeterministically()
    {
        const auto r = runScenario(small(ScenarioMode::Tidepool, "tidepool.db"));
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QCOMPARE(r->invariantViolations, std::size_t { 0 });
        QVERIFY(r->proposalsCreated > 0);
        std::size_t applied = 0;
        for (const auto& [kind, count] : r->proposalsApplied)
            applied += count;
        QVERIFY2(applied > 0, "the operator approved every proposal; some must have applied");
        QVERIFY(r->poweredNodeHours <= 12.0 * 24.0);
        const double hotHours = r->hotNodeHours.total();
        QVERIFY(hotHours > 0 && hotHours <= 4.0 * 24.0);
        QVERIFY(r->hotNodeHours.inference > 0);
        QVERIFY(r->batchFinished > 0);
        // The whole core runs on simulated time: a second run decides everything the same way.
        const auto again = runScenario(small(ScenarioMode::Tidepool, "tidepool-2.db"));
        QVERIFY(again);
        QCOMPARE(again->batchFinished, r->batchFinished);
        QCOMPARE(again->proposalsCreated, r->proposalsCreated);
        QCOMPARE(again->poweredNodeHours, r->poweredNodeHours);
        QCOMPARE(again->batchCompletionMeanS, r->batchCompletionMeanS);
        QCOMPARE(again->batchGpuHoursLost, r->batchGpuHoursLost);
        // Work is lost only where a run was stopped: GPU-hours lost come with restarts.
        QCOMPARE(r->batchGpuHoursLost > 0.0, r->batchPreempted > 0);
    }

    // With a drain window, hot nodes the forecast peak will want stop taking new batch before they are reserved: some
    // applied proposal drains a node and the hourly checks of the books hold. Without the window nothing drains.
    void drainingHotNodesAppliesDrainSteps()
    {
        auto config = small(ScenarioMode::Tidepool, "drain.db");
        config.drainSteps = 12;
        const auto r = runScenario(config);
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QCOMPARE(r->invariantViolations, std::size_t { 0 });
        QVERIFY(r->batchFinished > 0);
        auto store = store::openSqliteStore(config.dbPath);
        QVERIFY2(store, store ? "" : store.error().message.c_str());
        const auto snapshot = (*store)->load();
        QVERIFY2(snapshot, snapshot ? "" : snapshot.error().message.c_str());
        std::size_t drains = 0;
        for (const auto& stored : snapshot->proposals) {
            const auto proposal = rebalance::fromStored(stored);
            QVERIFY2(proposal, proposal ? "" : proposal.error().message.c_str());
            if (proposal->state == rebalance::ProposalState::Applied)
                for (const auto& action : proposal->plan)
                    drains += action.type == rebalance::Action::Type::Drain;
        }
        QVERIFY2(drains > 0, "a two-day run with daily peaks drains some hot node before its peak");
        // The same run without a drain window plans no drain.
        const auto offConfig = small(ScenarioMode::Tidepool, "drain-off.db");
        QVERIFY(runScenario(offConfig));
        auto offStore = store::openSqliteStore(offConfig.dbPath);
        QVERIFY(offStore);
        const auto offSnapshot = (*offStore)->load();
        QVERIFY(offSnapshot);
        for (const auto& stored : offSnapshot->proposals) {
            const auto proposal = rebalance::fromStored(stored);
            QVERIFY(proposal);
            for (const auto& action : proposal->plan)
                QVERIFY(action.type != rebalance::Action::Type::Drain);
        }
    }

    // The simulated power supplies: a node cordoned for power-down goes off once empty (its agent leaves), and one
    // powered up boots for the boot time, drawing power but taking no work, before its agent joins again.
    void poweredUpNodesBootBeforeTheyTakeWork()
    {
        boost::asio::io_context io;
        std::int64_t now = 1'700'000'000'000;
        Outbox outbox;
        auto core = buildSimulatedCore(
            io, m_dir.filePath(QStringLiteral("power.db")).toStdString(), [&] { return now; }, outbox, std::nullopt);
        QVERIFY2(core, core ? "" : core.error().message.c_str());
        api::ControlPlane& plane = *core->plane;
        PowerSwitch power(5 * 60'000);
        protocol::Inventory inventory;
        inventory.isa = "x86_64";
        inventory.cpuMillis = 8000;
        inventory.memoryMiB = 16384;
        power.join(plane, "n1", inventory);
        auto state = [&] { return std::string(api::toString(plane.nodeByName("n1")->state)); };
        QCOMPARE(state(), std::string("ready"));
        power.apply(plane, now);
        QCOMPARE(state(), std::string("ready")); // nothing asked it off

        QVERIFY(plane.setCordon("n1", std::string(kPowerDownCordon) + " by proposal"));
        power.apply(plane, now);
        QCOMPARE(state(), std::string("off"));
        QVERIFY(!PowerSwitch::powered(*plane.nodeByName("n1")));

        now += 60'000;
        QVERIFY(plane.setCordon("n1", "")); // powered up
        QCOMPARE(state(), std::string("booting"));
        QVERIFY(PowerSwitch::powered(*plane.nodeByName("n1")));
        api::SubmitRequest request;
        request.name = "waits";
        request.requests.cpuMillis = 1000;
        request.requests.memoryMiB = 512;
        request.argv = { "/bin/true" };
        const auto id = plane.submit(request);
        QVERIFY(id);
        power.apply(plane, now); // the boot starts now
        now += 4 * 60'000;
        power.apply(plane, now);
        pump(io, outbox, [](const std::string&, const protocol::Message&) {});
        QCOMPARE(state(), std::string("booting"));
        QCOMPARE(std::string(api::toString(plane.workload(*id)->phase)), std::string("pending"));
        now += 60'000;
        power.apply(plane, now);
        pump(io, outbox, [](const std::string&, const protocol::Message&) {});
        QCOMPARE(state(), std::string("ready"));
        QCOMPARE(std::string(api::toString(plane.workload(*id)->phase)), std::string("launching"));
        plane.stop();
    }

    // Another start in the batch trace replays other pods first: the books still balance, the batch figures differ;
    // a start outside [0, 1) is refused, naming it.
    void batchStartReplaysTheTraceFromElsewhere()
    {
        const auto first = runScenario(small(ScenarioMode::Static, "start0.db"));
        auto c = small(ScenarioMode::Static, "start5.db");
        c.batchStart = 0.5;
        const auto later = runScenario(c);
        QVERIFY2(first && later, later ? "" : later.error().message.c_str());
        QVERIFY(later->batchSubmitted > 100);
        QVERIFY(later->batchFinished + later->batchPendingAtEnd <= later->batchSubmitted);
        QCOMPARE(later->invariantViolations, std::size_t { 0 });
        QVERIFY(later->batchCompletionMeanS != first->batchCompletionMeanS
            || later->batchSubmitted != first->batchSubmitted);
        QCOMPARE(later->poweredNodeHours, first->poweredNodeHours); // static: the same cluster, always on
        for (const double bad : { 1.0, -0.1 }) {
            c.batchStart = bad;
            const auto refused = runScenario(c);
            QVERIFY(!refused);
            QVERIFY2(refused.error().message.find("batch start") != std::string::npos, refused.error().message.c_str());
        }
    }

    // The headroom is what static allocation keeps for the inference peak (with 4 hot nodes of 8 GPUs and a peak of
    // half of them: 3 nodes at 20%, 2 at 0%) and what the evaluation plans with; the batch offered stays the same.
    void headroomSetsWhatIsKeptForThePeak()
    {
        QCOMPARE(ScenarioConfig {}.headroom, rebalance::EvaluatorConfig {}.headroom); // the daemon's default
        auto c = small(ScenarioMode::Static, "headroom-20.db");
        const auto twenty = runScenario(c);
        c.dbPath = m_dir.filePath(QStringLiteral("headroom-0.db")).toStdString();
        c.headroom = 1.0;
        const auto none = runScenario(c);
        QVERIFY2(twenty && none, none ? "" : none.error().message.c_str());
        QCOMPARE(none->batchSubmitted, twenty->batchSubmitted);
        // One hot node more for batch: its hours move from the reserved kinds to the lent ones.
        const double reservedTwenty = twenty->hotNodeHours.inference + twenty->hotNodeHours.idleReserved;
        const double reservedNone = none->hotNodeHours.inference + none->hotNodeHours.idleReserved;
        QVERIFY2(reservedTwenty - reservedNone > 23.9,
            qPrintable(QStringLiteral("reserved hot hours %1 at 20%, %2 at 0%").arg(reservedTwenty).arg(reservedNone)));
        QVERIFY(none->batchCompletionMeanS < twenty->batchCompletionMeanS);
        for (const double bad : { 0.9, 3.5 }) {
            c.headroom = bad;
            const auto refused = runScenario(c);
            QVERIFY(!refused);
            QVERIFY2(refused.error().message.find("headroom") != std::string::npos, refused.error().message.c_str());
        }
    }

    // A surprise changes the load only inside its window and keeps the books of that window: a window with nothing
    // added books its minutes and leaves the run as it was; a burst of 0.6 of the inference peak in the trough adds
    // its GPU-hours of work (16 replicas at the peak, kept 60% busy: 5.76 GPUs for 2 hours over the trace's peak
    // level), and Tidepool serves it by taking back GPUs lent to batch. A window outside the measured days, or a
    // factor past 10, is refused, naming the surprise.
    void surpriseLoadIsBookedInItsWindow()
    {
        const auto plain = runScenario(small(ScenarioMode::Static, "surprise-none.db"));
        QVERIFY2(plain, plain ? "" : plain.error().message.c_str());
        QCOMPARE(plain->surprise.minutes, std::size_t { 0 });

        auto c = small(ScenarioMode::Static, "surprise-null.db");
        c.surprise.atMs = 38 * 3'600'000LL; // 14:00 on the measured day: the inference trace's trough
        c.surprise.durationMs = 2 * 3'600'000LL;
        const auto null = runScenario(c);
        QVERIFY2(null, null ? "" : null.error().message.c_str());
        QCOMPARE(null->surprise.minutes, std::size_t { 120 });
        QCOMPARE(null->workGpuHours, plain->workGpuHours);
        QCOMPARE(null->cost, plain->cost);
        QCOMPARE(null->batchCompletionMeanS, plain->batchCompletionMeanS);
        QVERIFY(null->surprise.inferenceWanted > 0);

        c.dbPath = m_dir.filePath(QStringLiteral("surprise-burst.db")).toStdString();
        c.surprise.add = 0.6;
        const auto burst = runScenario(c);
        QVERIFY2(burst, burst ? "" : burst.error().message.c_str());
        const double added = burst->workGpuHours - plain->workGpuHours;
        QVERIFY2(added > 0.8 * 5.76 * 2 && added < 1.25 * 5.76 * 2, std::to_string(added).c_str());
        QVERIFY(burst->surprise.inferenceWanted > null->surprise.inferenceWanted + 120 * 5);
        QCOMPARE(burst->surprise.inferenceMissing, 0.0); // static allocation keeps 3 hot nodes for the peak

        c.mode = ScenarioMode::Tidepool;
        c.dbPath = m_dir.filePath(QStringLiteral("surprise-tidepool.db")).toStdString();
        const auto tidepool = runScenario(c);
        QVERIFY2(tidepool, tidepool ? "" : tidepool.error().message.c_str());
        QCOMPARE(tidepool->surprise.minutes, std::size_t { 120 });
        QCOMPARE(tidepool->surprise.inferenceMissing, 0.0);
        QVERIFY2(tidepool->surprise.batchRestarts > 0, "the burst takes back GPUs lent to batch");
        QCOMPARE(tidepool->invariantViolations, std::size_t { 0 });

        for (const auto& [at, factor] : { std::pair { 20 * 3'600'000LL, 1.0 }, std::pair { 38 * 3'600'000LL, 11.0 } }) {
            c.surprise.atMs = at;
            c.surprise.factor = factor;
            const auto refused = runScenario(c);
            QVERIFY(!refused);
            QVERIFY2(refused.error().message.find("surprise") != std::string::npos, refused.error().message.c_str());
        }
    }

    // A replica loads before it serves: it holds its place, wanted and not running, for its launch time in whole
    // steps; inference and services load separately; the autoscalers' scale-down window keeps replicas through dips
    // that would otherwise make them load again. Bad times are refused, naming them.
    void replicasServeOnlyOnceLoaded()
    {
        const auto plain = runScenario(small(ScenarioMode::Static, "launch-plain.db"));
        QVERIFY2(plain, plain ? "" : plain.error().message.c_str());

        auto c = small(ScenarioMode::Static, "launch-inference.db");
        c.inferenceLaunchMs = 3 * 60'000;
        const auto inference = runScenario(c);
        QVERIFY2(inference, inference ? "" : inference.error().message.c_str());
        QVERIFY2(inference->inferenceUnmetShare > plain->inferenceUnmetShare + 0.005,
            (std::to_string(inference->inferenceUnmetShare) + " " + std::to_string(plain->inferenceUnmetShare))
                .c_str());
        QVERIFY(inference->workGpuHours < plain->workGpuHours); // a loading replica serves nothing
        QVERIFY(inference->inferenceSlowMinutes > plain->inferenceSlowMinutes);
        QCOMPARE(inference->serviceUnmetShare, plain->serviceUnmetShare);
        QCOMPARE(inference->invariantViolations, std::size_t { 0 });

        c.dbPath = m_dir.filePath(QStringLiteral("launch-rounded.db")).toStdString();
        c.inferenceLaunchMs = 150'000; // 2.5 minutes: ready at the third step, as 3 minutes
        const auto rounded = runScenario(c);
        QVERIFY2(rounded, rounded ? "" : rounded.error().message.c_str());
        QCOMPARE(rounded->inferenceUnmetShare, inference->inferenceUnmetShare);

        c.dbPath = m_dir.filePath(QStringLiteral("launch-stabilised.db")).toStdString();
        c.scaleDownDelayMs = 5 * 60'000;
        const auto stabilised = runScenario(c);
        QVERIFY2(stabilised, stabilised ? "" : stabilised.error().message.c_str());
        QVERIFY2(stabilised->inferenceUnmetShare < inference->inferenceUnmetShare,
            (std::to_string(stabilised->inferenceUnmetShare) + " " + std::to_string(inference->inferenceUnmetShare))
                .c_str());
        QVERIFY(stabilised->cost >= inference->cost);

        c.dbPath = m_dir.filePath(QStringLiteral("launch-service.db")).toStdString();
        c.inferenceLaunchMs = 0;
        c.scaleDownDelayMs = 0;
        c.serviceLaunchMs = 60'000;
        const auto service = runScenario(c);
        QVERIFY2(service, service ? "" : service.error().message.c_str());
        QVERIFY2(service->serviceUnmetShare > plain->serviceUnmetShare,
            (std::to_string(service->serviceUnmetShare) + " " + std::to_string(plain->serviceUnmetShare)).c_str());
        QCOMPARE(service->inferenceUnmetShare, plain->inferenceUnmetShare);

        c.serviceLaunchMs = -1;
        const auto negative = runScenario(c);
        QVERIFY(!negative);
        QVERIFY2(negative.error().message.find("launch") != std::string::npos, negative.error().message.c_str());
        c.serviceLaunchMs = 0;
        c.scaleDownDelayMs = 2 * 86'400'000LL;
        const auto tooLong = runScenario(c);
        QVERIFY(!tooLong);
        QVERIFY2(tooLong.error().message.find("scale-down") != std::string::npos, tooLong.error().message.c_str());
    }

    // Scaling ahead of Tidepool's forecast: with 5-minute model loads, an inference autoscaler that adds the replicas
    // the forecast rises by within one load time has them loaded when the load comes: fewer slow minutes, for more
    // replicas. Static allocation has no forecast: the option changes nothing there.
    void inferenceScalesAheadOfTheForecast()
    {
        auto c = small(ScenarioMode::Tidepool, "ahead-off.db");
        c.days = 3; // two days of history for the forecast
        c.warmupDays = 2;
        c.inferenceLaunchMs = 5 * 60'000;
        c.scaleDownDelayMs = 5 * 60'000;
        const auto reactive = runScenario(c);
        QVERIFY2(reactive, reactive ? "" : reactive.error().message.c_str());

        c.dbPath = m_dir.filePath(QStringLiteral("ahead-on.db")).toStdString();
        c.scaleAhead = true;
        const auto ahead = runScenario(c);
        QVERIFY2(ahead, ahead ? "" : ahead.error().message.c_str());
        QVERIFY2(ahead->inferenceSlowMinutes < reactive->inferenceSlowMinutes,
            (std::to_string(ahead->inferenceSlowMinutes) + " " + std::to_string(reactive->inferenceSlowMinutes))
                .c_str());
        QVERIFY2(ahead->inferenceP99S >= 0
                && (reactive->inferenceP99S < 0 || ahead->inferenceP99S < reactive->inferenceP99S),
            (std::to_string(ahead->inferenceP99S) + " " + std::to_string(reactive->inferenceP99S)).c_str());
        QVERIFY2(ahead->cost > reactive->cost, "the replicas added ahead are paid for");
        QCOMPARE(ahead->invariantViolations, std::size_t { 0 });

        c.mode = ScenarioMode::Static;
        c.days = 2;
        c.warmupDays = 1;
        c.dbPath = m_dir.filePath(QStringLiteral("ahead-static.db")).toStdString();
        const auto staticAhead = runScenario(c);
        c.scaleAhead = false;
        c.dbPath = m_dir.filePath(QStringLiteral("ahead-static-off.db")).toStdString();
        const auto staticReactive = runScenario(c);
        QVERIFY(staticAhead && staticReactive);
        QCOMPARE(staticAhead->inferenceSlowMinutes, staticReactive->inferenceSlowMinutes);
        QCOMPARE(staticAhead->inferenceUnmetShare, staticReactive->inferenceUnmetShare);
    }

    void missingDataIsNamed()
    {
        auto c = small(ScenarioMode::Static, "missing.db");
        c.dataDir = m_dir.filePath(QStringLiteral("no-such-dir")).toStdString();
        const auto r = runScenario(c);
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("google2019_instance_usage_28days_300s.csv") != std::string::npos,
            r.error().message.c_str());
        c.days = 1; // not more than the warm-up
        QVERIFY(!runScenario(c));
    }
};

QTEST_GUILESS_MAIN(TestScenario)
#include "tst_scenario.moc"
