// The FPGA scenario: short runs of its four modes through the real core (control plane, scheduler, SQLite store,
// history), checking what each mode promises about cards and slots, that every mode gets the same jobs, and that a
// rerun decides the same.

#include "core/sim/fpga_scenario.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>
#include <numeric>

using namespace tidepool;
using namespace tidepool::sim;

class TestFpgaScenario : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    std::map<std::pair<FpgaMode, int>, FpgaScenarioResult> m_runs; // shared by the cases, so each runs once

    // One measured day on 8 cards (4 hosts) sized for 8 cards: about a thousand jobs.
    FpgaScenarioConfig small(FpgaMode mode, const char* db, int cards = 8) const
    {
        FpgaScenarioConfig c;
        c.mode = mode;
        c.dataDir = TIDEPOOL_SHARED_DATA;
        c.dbPath = m_dir.filePath(QString::fromUtf8(db)).toStdString();
        c.days = 1;
        c.warmupDays = 0;
        c.cards = cards;
        c.referenceCards = 8;
        return c;
    }

    static FpgaScenarioResult run(const FpgaScenarioConfig& config)
    {
        auto r = runFpgaScenario(config);
        if (!r)
            qFatal("%s", r.error().message.c_str());
        return *r;
    }

    const FpgaScenarioResult& runOnce(FpgaMode mode, int cards = 8)
    {
        const auto key = std::pair { mode, cards };
        if (!m_runs.count(key)) {
            const std::string db = std::string(sim::toString(mode)) + "-" + std::to_string(cards) + ".db";
            m_runs.emplace(key, run(small(mode, db.c_str(), cards)));
        }
        return m_runs.at(key);
    }

    // What every mode keeps: the core's books balance, no card holds more than its slots, the wait books add up.
    static void checkBooks(const FpgaScenarioResult& r)
    {
        QCOMPARE(r.invariantViolations, std::size_t { 0 });
        QCOMPARE(r.overbookedCardSteps, std::size_t { 0 });
        QCOMPARE(r.measuredHours, std::int64_t { 24 });
        QVERIFY(r.jobsSubmitted > 500);
        QVERIFY(r.jobsFinished > 0 && r.jobsFinished <= r.jobsStarted);
        QCOMPARE(r.jobsStarted + r.jobsWaitingAtEnd, r.jobsSubmitted);
        QCOMPARE(r.jobsRefused, std::size_t { 0 });
        for (double u : { r.slotUtilisation, r.slotAllocation, r.cardBusy })
            QVERIFY(u > 0.0 && u <= 1.0);
        QVERIFY(r.slotUtilisation <= r.slotAllocation + 1e-12);
        QVERIFY(r.waitP50S <= r.waitP95S && r.waitP95S <= r.waitP99S && r.waitP99S <= r.waitMaxS);
        std::size_t submitted = 0;
        for (const FpgaKernelResult& k : r.kernels)
            submitted += k.submitted;
        QCOMPARE(submitted, r.jobsSubmitted);
    }

private slots:
    void staticCardsAreSplitByPeakNeed()
    {
        // `static`: every kernel keeps as many jobs running at its peak, one per card, so the cards split evenly.
        auto c = small(FpgaMode::Static, "split.db", 16);
        QCOMPARE(staticCardSplit(c), (std::vector<int> { 4, 4, 4, 4 }));
        c.cards = 6;
        QCOMPARE(staticCardSplit(c), (std::vector<int> { 2, 2, 1, 1 }));
        // `static-shared`: a card holds 4 transcodes (2 slots), 2 inferences (4), 8 compressions (1), 2 ranks (3), so
        // the kernels whose jobs take more slots get more cards; each keeps at least one.
        c.mode = FpgaMode::StaticShared;
        c.cards = 16;
        const std::vector<int> shared = staticCardSplit(c);
        QCOMPARE(std::accumulate(shared.begin(), shared.end(), 0), 16);
        QCOMPARE(shared, (std::vector<int> { 3, 6, 2, 5 }));
        c.cards = 4;
        QCOMPARE(staticCardSplit(c), (std::vector<int> { 1, 1, 1, 1 }));
        c.mode = FpgaMode::Tidepool;
        QVERIFY(staticCardSplit(c).empty());
    }

    void staticNeverSharesACard()
    {
        QVERIFY(m_dir.isValid());
        const FpgaScenarioResult& r = runOnce(FpgaMode::Static);
        checkBooks(r);
        QCOMPARE(r.mode, std::string("static"));
        QCOMPARE(r.maxJobsPerCard, std::size_t { 1 });
        QCOMPARE(r.mixedCardSteps, std::size_t { 0 });
        QCOMPARE(r.foreignKernelSteps, std::size_t { 0 }); // every job ran on a card of its own kernel
        // A job holds its whole card: the slots held are the busy cards' slots, and more than its kernel works.
        QVERIFY(std::abs(r.slotAllocation - r.cardBusy) < 1e-9);
        QVERIFY(r.slotUtilisation < r.slotAllocation);
        int cards = 0;
        for (const FpgaKernelResult& k : r.kernels) {
            QVERIFY(k.cards >= 1);
            cards += k.cards;
        }
        QCOMPARE(cards, 8);
    }

    void staticSharedKeepsEachCardToItsKernel()
    {
        const FpgaScenarioResult& r = runOnce(FpgaMode::StaticShared);
        checkBooks(r);
        QVERIFY2(r.maxJobsPerCard > 1, "a kernel's jobs share its cards by slots");
        QCOMPARE(r.mixedCardSteps, std::size_t { 0 });
        QCOMPARE(r.foreignKernelSteps, std::size_t { 0 });
        QVERIFY(std::abs(r.slotAllocation - r.slotUtilisation) < 1e-9); // a job holds its kernel's slots only
    }

    void tidepoolPacksKernelsTogetherAndDecidesTheSameTwice()
    {
        const FpgaScenarioResult& r = runOnce(FpgaMode::Tidepool);
        checkBooks(r);
        QVERIFY2(r.mixedCardSteps > 0, "time-slicing puts kernels of different types on one card");
        QVERIFY(r.maxJobsPerCard > 1 && r.maxJobsPerCard <= 8);
        QCOMPARE(r.foreignKernelSteps, std::size_t { 0 }); // no card is dedicated
        QVERIFY(std::abs(r.slotAllocation - r.slotUtilisation) < 1e-9);
        for (const FpgaKernelResult& k : r.kernels)
            QCOMPARE(k.cards, 0);
        // The whole core runs on simulated time and the jobs are drawn before it starts: a rerun is identical.
        const FpgaScenarioResult again = run(small(FpgaMode::Tidepool, "tidepool-again.db"));
        QCOMPARE(again.jobsStarted, r.jobsStarted);
        QCOMPARE(again.jobsFinished, r.jobsFinished);
        QCOMPARE(again.waitMeanS, r.waitMeanS);
        QCOMPARE(again.waitMaxS, r.waitMaxS);
        QCOMPARE(again.slotUtilisation, r.slotUtilisation);
        QCOMPARE(again.cardBusy, r.cardBusy);
        QCOMPARE(again.mixedCardSteps, r.mixedCardSteps);
    }

    // `tidepool-power`: the evaluation loop, every proposal approved, switches idle hosts off at night and brings them
    // back for the day (a warm-up day gives it history to forecast from). No job waits past an evaluation while a
    // host is off, and the utilisation counts the powered cards only. Beside `tidepool` on the same two days.
    void tidepoolPowerSwitchesIdleHostsOffAndBackOn()
    {
        auto twoDays = [&](FpgaMode mode, const char* db) {
            FpgaScenarioConfig c = small(mode, db);
            c.days = 2;
            c.warmupDays = 1;
            return run(c);
        };
        const FpgaScenarioResult r = twoDays(FpgaMode::TidepoolPower, "power.db");
        const FpgaScenarioResult t = twoDays(FpgaMode::Tidepool, "power-reference.db");
        checkBooks(r);
        QCOMPARE(r.mode, std::string("tidepool-power"));
        QCOMPARE(r.jobsSubmitted, t.jobsSubmitted);
        QCOMPARE(t.poweredCardHours, 8.0 * 24.0); // without the loop every card is on all the time
        QCOMPARE(t.minPoweredCards, 8);
        QCOMPARE(t.powerDowns + t.powerUps, std::size_t { 0 });
        QVERIFY2(r.powerDowns > 0 && r.powerUps > 0,
            (std::to_string(r.powerDowns) + " down, " + std::to_string(r.powerUps) + " up").c_str());
        QVERIFY2(r.minPoweredCards < 8 && r.poweredCardHours < 8.0 * 24.0, std::to_string(r.poweredCardHours).c_str());
        QCOMPARE(r.waitingWhileOffSteps, std::size_t { 0 });
        QCOMPARE(r.jobsWaitingAtEnd, std::size_t { 0 });
        // The same work on fewer powered cards: each powered slot is busier.
        QVERIFY(r.slotUtilisation > t.slotUtilisation);
        QVERIFY(parseFpgaMode("tidepool-power") == FpgaMode::TidepoolPower);
    }

    void everyModeAndFleetGetsTheSameJobs()
    {
        const FpgaScenarioResult& s = runOnce(FpgaMode::Static);
        const FpgaScenarioResult& t = runOnce(FpgaMode::Tidepool);
        QCOMPARE(t.jobsSubmitted, s.jobsSubmitted);
        QCOMPARE(t.offeredSlotLoad, s.offeredSlotLoad);
        for (std::size_t k = 0; k < s.kernels.size(); ++k)
            QCOMPARE(t.kernels[k].submitted, s.kernels[k].submitted);
        // Half the cards: the same jobs, twice the offered load per slot.
        const FpgaScenarioResult& half = runOnce(FpgaMode::Tidepool, 4);
        QCOMPARE(half.jobsSubmitted, s.jobsSubmitted);
        QVERIFY(std::abs(half.offeredSlotLoad - 2 * s.offeredSlotLoad) < 1e-12);
        // On 4 cards static has one card per kernel and runs one job on it at a time; sharing slots waits less.
        const FpgaScenarioResult& staticHalf = runOnce(FpgaMode::Static, 4);
        QVERIFY2(half.waitMeanS < staticHalf.waitMeanS,
            (std::to_string(half.waitMeanS) + " s against " + std::to_string(staticHalf.waitMeanS) + " s").c_str());
    }

    void badSettingsAreNamed()
    {
        auto c = small(FpgaMode::Tidepool, "bad.db", 3);
        auto r = runFpgaScenario(c);
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("cards") != std::string::npos, r.error().message.c_str());
        c.cards = 8;
        c.headroom = 0.5;
        QVERIFY(!runFpgaScenario(c));
        c.headroom = 1.2;
        c.dataDir = m_dir.filePath(QStringLiteral("no-such-dir")).toStdString();
        r = runFpgaScenario(c);
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("google2019_instance_usage_28days_300s.csv") != std::string::npos,
            r.error().message.c_str());
        QVERIFY(parseFpgaMode("static-shared") == FpgaMode::StaticShared);
        QVERIFY(parseFpgaMode("dedicated") == FpgaMode::Invalid);
    }
};

QTEST_GUILESS_MAIN(TestFpgaScenario)
#include "tst_fpga_scenario.moc"
