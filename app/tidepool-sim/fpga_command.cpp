// tidepool-sim fpga-scenario: an FPGA fleet under static, dedicated cards and under Tidepool's slot sharing, at one or
// more fleet sizes (core/sim/fpga_scenario.h says what is simulated and how).

#include "app/tidepool-sim/fpga_command.h"

#include "app/tidepool-sim/command_args.h"
#include "core/sim/fpga_scenario.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace tidepool::simapp {

namespace {

int usage(const std::string& problem)
{
    std::cerr << "tidepool-sim: " << problem << "\n"
              << "usage: tidepool-sim fpga-scenario [--mode static|static-shared|tidepool|tidepool-power|all]\n"
              << "                                  [--cards 16[,12,...]]\n"
              << "                                  [--reference-cards 16] [--load 1.0] [--headroom 1.2]\n"
              << "                                  [--days 8] [--warmup-days 1] [--seed 42] [--data <dir>]\n"
              << "                                  [--boot-minutes 5] [--db <file>] [--json]\n"
              << "  Runs synthetic FPGA kernel jobs, whose arrival rates follow real load series, through the real\n"
              << "  core on FPGA hosts of 2 cards x 8 slots: `static` dedicates each card to one kernel type and\n"
              << "  runs one job per card, `static-shared` lets a kernel's jobs share its cards by slots, `tidepool`\n"
              << "  lets any kernel take slots of any card, `tidepool-power` also runs the evaluation loop, every\n"
              << "  proposal approved, which powers idle hosts down and up again. The load is sized for\n"
              << "  --reference-cards cards under\n"
              << "  `static`; each --cards value runs the same jobs on a fleet of that size. Reports slot and card\n"
              << "  utilisation and the jobs' waits over the days after warm-up. --boot-minutes: how long a host\n"
              << "  powered up again takes before it runs work (`tidepool-power`; 0 = at once).\n";
    return kExitBadArguments;
}

bool parseCards(const std::string& text, std::vector<int>& out)
{
    out.clear();
    std::size_t from = 0;
    while (from <= text.size()) {
        const std::size_t comma = std::min(text.find(',', from), text.size());
        int cards = 0;
        if (!parseNumber(text.substr(from, comma - from), cards) || cards <= 0)
            return false;
        out.push_back(cards);
        from = comma + 1;
    }
    return !out.empty();
}

nlohmann::json toJson(const sim::FpgaScenarioResult& r)
{
    nlohmann::json kernels = nlohmann::json::array();
    for (const sim::FpgaKernelResult& k : r.kernels)
        kernels.push_back(
            { { "name", k.name }, { "slots", k.slots }, { "cards", k.cards }, { "submitted", k.submitted },
                { "started", k.started }, { "wait_mean_s", k.waitMeanS }, { "wait_p95_s", k.waitP95S } });
    return {
        { "mode", r.mode },
        { "cards", r.cards },
        { "measured_hours", r.measuredHours },
        { "slot_utilisation", r.slotUtilisation },
        { "slot_allocation", r.slotAllocation },
        { "card_busy", r.cardBusy },
        { "offered_slot_load", r.offeredSlotLoad },
        { "jobs_submitted", r.jobsSubmitted },
        { "jobs_started", r.jobsStarted },
        { "jobs_finished", r.jobsFinished },
        { "jobs_waiting_at_end", r.jobsWaitingAtEnd },
        { "jobs_refused", r.jobsRefused },
        { "wait_mean_s", r.waitMeanS },
        { "wait_p50_s", r.waitP50S },
        { "wait_p95_s", r.waitP95S },
        { "wait_p99_s", r.waitP99S },
        { "wait_max_s", r.waitMaxS },
        { "kernels", kernels },
        { "max_jobs_per_card", r.maxJobsPerCard },
        { "overbooked_card_steps", r.overbookedCardSteps },
        { "mixed_card_steps", r.mixedCardSteps },
        { "foreign_kernel_steps", r.foreignKernelSteps },
        { "invariant_violations", r.invariantViolations },
        { "powered_card_hours", r.poweredCardHours },
        { "min_powered_cards", r.minPoweredCards },
        { "power_downs", r.powerDowns },
        { "power_ups", r.powerUps },
        { "waiting_while_off_steps", r.waitingWhileOffSteps },
        { "wall_ms", r.wallMs },
    };
}

} // namespace

int runFpgaScenarioCommand(int argc, char** argv, const std::string& defaultDataDir)
{
    sim::FpgaScenarioConfig config;
    config.dataDir = defaultDataDir;
    std::string mode = "all";
    std::vector<int> cards { config.cards };
    std::string db;
    bool json = false;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--json") {
            json = true;
            continue;
        }
        if (arg == "--help")
            return usage("help");
        if (i + 1 >= argc)
            return usage(arg.starts_with("--") ? "option " + arg + " needs a value" : "unknown argument '" + arg + "'");
        const std::string value = argv[++i];
        bool ok = true;
        if (arg == "--mode")
            mode = value, ok = mode == "all" || sim::parseFpgaMode(mode) != sim::FpgaMode::Invalid;
        else if (arg == "--cards")
            ok = parseCards(value, cards);
        else if (arg == "--reference-cards")
            ok = parseNumber(value, config.referenceCards);
        else if (arg == "--load")
            ok = parseNumber(value, config.load);
        else if (arg == "--headroom")
            ok = parseNumber(value, config.headroom);
        else if (arg == "--days")
            ok = parseNumber(value, config.days);
        else if (arg == "--warmup-days")
            ok = parseNumber(value, config.warmupDays);
        else if (arg == "--seed")
            ok = parseNumber(value, config.seed);
        else if (arg == "--boot-minutes") {
            std::int64_t minutes = 0;
            ok = parseNumber(value, minutes) && minutes >= 0 && minutes <= 24 * 60;
            config.bootMs = minutes * 60'000;
        } else if (arg == "--data")
            config.dataDir = value;
        else if (arg == "--db")
            db = value;
        else
            return usage("unknown option '" + arg + "'");
        if (!ok)
            return usage("bad value '" + value + "' for " + arg);
    }
    const std::string dbBase = db.empty() ? "/tmp/tidepool-sim-fpga-" + std::to_string(::getpid()) : db;

    nlohmann::json kernels = nlohmann::json::array();
    for (const sim::FpgaKernel& k : sim::fpgaKernels())
        kernels.push_back({ { "name", k.name }, { "series", k.series }, { "slots", k.slots },
            { "min_run_s", k.minRunMs / 1000 }, { "max_run_s", k.maxRunMs / 1000 } });
    nlohmann::json out { { "reference_cards", config.referenceCards }, { "load", config.load },
        { "headroom", config.headroom }, { "seed", config.seed }, { "kernels", kernels },
        { "runs", nlohmann::json::array() } };
    std::optional<sim::FpgaScenarioResult> reference; // static on the fleet the load was sized for
    std::optional<sim::FpgaScenarioResult> fit; // the smallest tidepool fleet that waits no longer than it
    for (const sim::FpgaMode m :
        { sim::FpgaMode::Static, sim::FpgaMode::StaticShared, sim::FpgaMode::Tidepool, sim::FpgaMode::TidepoolPower }) {
        const std::string name(sim::toString(m));
        if (mode != "all" && mode != name)
            continue;
        for (const int n : cards) {
            config.mode = m;
            config.cards = n;
            config.dbPath = dbBase + "-" + name + "-" + std::to_string(n) + ".db";
            auto result = sim::runFpgaScenario(config);
            if (!result) {
                std::cerr << "tidepool-sim: " << result.error().message << "\n";
                return kExitFailed;
            }
            out["runs"].push_back(toJson(*result));
            if (!json)
                std::fprintf(stderr,
                    "tidepool-sim: %-14s %3d cards: slots busy %5.1f%%, held %5.1f%%, cards busy %5.1f%%, wait mean "
                    "%6.0f s "
                    "p95 %6.0f s, %zu waiting at end, %.0f card-hours powered (%lld ms)\n",
                    name.c_str(), n, 100 * result->slotUtilisation, 100 * result->slotAllocation,
                    100 * result->cardBusy, result->waitMeanS, result->waitP95S, result->jobsWaitingAtEnd,
                    result->poweredCardHours, static_cast<long long>(result->wallMs));
            if (m == sim::FpgaMode::Static && n == config.referenceCards)
                reference = *result;
            if (m == sim::FpgaMode::Tidepool && reference && result->waitMeanS <= reference->waitMeanS
                && result->waitP95S <= reference->waitP95S && (!fit || n < fit->cards))
                fit = *result;
        }
    }
    if (reference) {
        nlohmann::json claim { { "static_cards", reference->cards },
            { "static_slot_utilisation", reference->slotUtilisation }, { "static_card_busy", reference->cardBusy },
            { "static_wait_mean_s", reference->waitMeanS }, { "static_wait_p95_s", reference->waitP95S } };
        claim["rule"] = "the smallest tidepool fleet run whose mean and p95 wait are not above static's at "
                        "reference-cards";
        if (fit)
            claim.update({ { "tidepool_cards", fit->cards }, { "tidepool_slot_utilisation", fit->slotUtilisation },
                { "tidepool_card_busy", fit->cardBusy }, { "tidepool_wait_mean_s", fit->waitMeanS },
                { "tidepool_wait_p95_s", fit->waitP95S } });
        else
            claim["tidepool_cards"] = nullptr; // no tidepool run met the rule
        out["claim"] = claim;
    }
    std::cout << out.dump(json ? -1 : 2) << "\n";
    return 0;
}

} // namespace tidepool::simapp
