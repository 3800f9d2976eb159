// tidepool-sim scenario: days of a heterogeneous cluster under static allocation and under Tidepool, side by side
// (core/sim/scenario.h says what is simulated and how).

#include "app/tidepool-sim/scenario_command.h"

#include "app/tidepool-sim/command_args.h"
#include "core/sim/scenario.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <unistd.h>

namespace tidepool::simapp {

namespace {

int usage(const std::string& problem)
{
    std::cerr
        << "tidepool-sim: " << problem << "\n"
        << "usage: tidepool-sim scenario [--mode static|tidepool|both] [--data <dir>] [--db <file>]\n"
        << "                             [--days 8] [--warmup-days 2] [--evaluation-period-ms 300000]\n"
        << "                             [--drain-minutes 0] [--boot-minutes 5] [--max-power-downs-per-day 0]\n"
        << "                             [--headroom 1.2] [--inference-launch-seconds 0]\n"
        << "                             [--service-launch-seconds 0] [--scale-down-minutes 0] [--scale-ahead]\n"
        << "                             [--surprise-at-hour H --surprise-hours N [--surprise-factor 1]\n"
        << "                              [--surprise-add 0] [--surprise-on inference|all]]\n"
        << "                             [--warm-nodes 24] [--hot-nodes 16] [--cold-nodes 4]\n"
        << "                             [--batch-load 0.8] [--batch-start 0] [--inference-service-ms 30] [--json]\n"
        << "  Replays real load (load-series, openb lifetimes) through the real core for --days of simulated\n"
        << "  time, under static allocation and/or Tidepool's evaluation loop with every proposal approved,\n"
        << "  and reports utilisation, batch completion, cost, and inference p99 over the days after warm-up.\n"
        << "  --drain-minutes: how long before a hot node is reserved for a peak it stops taking new batch\n"
        << "  (a multiple of 5; 0 = reserve and stop its batch only when the peak is within the hour).\n"
        << "  --boot-minutes: how long a node powered up again takes before it runs work (0 = at once).\n"
        << "  --max-power-downs-per-day: per node, in any 24 hours (0 = no limit).\n"
        << "  --headroom: forecast peaks are planned with this much to spare, in [1, 3] (static allocation keeps\n"
        << "  the inference peak with it as well).\n"
        << "  --inference-launch-seconds, --service-launch-seconds: how long a replica takes from its launch\n"
        << "  to serving (a model's load, a container's start), holding its resources (in whole minutes).\n"
        << "  --scale-down-minutes: the autoscalers remove a replica only when the load has wanted fewer for\n"
        << "  this long (0 = follow the load minute by minute; Kubernetes' HPA waits 5).\n"
        << "  --scale-ahead: in tidepool mode the inference autoscaler adds the replicas Tidepool's forecast of\n"
        << "  its pool rises by within one inference launch time, so that they have loaded when the load comes.\n"
        << "  --surprise-*: load no forecast knows of, from hour H of the run (inside the measured days) for N\n"
        << "  hours: inference asks factor × its trace + add × its peak (with 'all', the services likewise);\n"
        << "  the output's \"surprise\" object keeps the books of that window.\n"
        << "  --batch-start: where in the openb trace the batch replay starts, a share of its span in [0, 1);\n"
        << "  the trace wraps around (the same load in another order, for the spread of a chaotic run).\n";
    return kExitBadArguments;
}

nlohmann::json surpriseJson(const sim::ScenarioResult::SurpriseBooks& s)
{
    if (s.minutes == 0)
        return nullptr;
    const auto share = [](double missing, double wanted) { return wanted > 0 ? missing / wanted : 0.0; };
    return {
        { "minutes", s.minutes },
        { "inference_unmet_replica_minutes", s.inferenceMissing },
        { "inference_unmet_share", share(s.inferenceMissing, s.inferenceWanted) },
        { "inference_short_minutes", s.inferenceShortMinutes },
        { "inference_short_until_min", s.inferenceShortUntilMin },
        { "inference_slow_minutes", s.inferenceSlowMinutes },
        { "inference_p99_ms", s.inferenceP99S < 0 ? nlohmann::json(nullptr) : nlohmann::json(s.inferenceP99S * 1000) },
        { "service_unmet_replica_minutes", s.serviceMissing },
        { "service_unmet_share", share(s.serviceMissing, s.serviceWanted) },
        { "service_short_minutes", s.serviceShortMinutes },
        { "batch_restarts", s.batchRestarts },
        { "nodes_booting", s.nodesBooting },
    };
}

nlohmann::json toJson(const sim::ScenarioResult& r)
{
    nlohmann::json applied = nlohmann::json::object();
    for (const auto& [kind, count] : r.proposalsApplied)
        applied[kind] = count;
    return {
        { "mode", r.mode },
        { "measured_hours", r.measuredHours },
        { "cpu_utilisation", r.cpuUtilisation },
        { "gpu_utilisation", r.gpuUtilisation },
        { "cpu_allocation", r.cpuAllocation },
        { "gpu_allocation", r.gpuAllocation },
        { "powered_node_hours", r.poweredNodeHours },
        { "hot_node_hours",
            { { "inference", r.hotNodeHours.inference }, { "batch_only", r.hotNodeHours.batchOnly },
                { "idle_reserved", r.hotNodeHours.idleReserved }, { "idle_lent", r.hotNodeHours.idleLent },
                { "booting", r.hotNodeHours.booting } } },
        { "cost", r.cost },
        { "work_core_hours", r.workCoreHours },
        { "work_gpu_hours", r.workGpuHours },
        { "cost_per_work", r.costPerWork },
        { "batch_submitted", r.batchSubmitted },
        { "batch_finished", r.batchFinished },
        { "batch_completion_mean_s", r.batchCompletionMeanS },
        { "batch_completion_p50_s", r.batchCompletionP50S },
        { "batch_completion_p90_s", r.batchCompletionP90S },
        { "batch_wait_mean_s", r.batchWaitMeanS },
        { "batch_restarts", r.batchPreempted },
        { "batch_gpu_hours_lost", r.batchGpuHoursLost },
        { "batch_pending_at_end", r.batchPendingAtEnd },
        { "service_unmet_share", r.serviceUnmetShare },
        { "inference_p99_ms", r.inferenceP99S < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.inferenceP99S * 1000) },
        { "inference_slow_minutes", r.inferenceSlowMinutes },
        { "inference_minutes", r.inferenceMinutes },
        { "inference_unmet_share", r.inferenceUnmetShare },
        { "proposals_created", r.proposalsCreated },
        { "proposals_applied", applied },
        { "invariant_violations", r.invariantViolations },
        { "surprise", surpriseJson(r.surprise) },
        { "wall_ms", r.wallMs },
    };
}

double change(double before, double after)
{
    return before != 0 ? 100.0 * (after - before) / before : 0.0;
}

} // namespace

int runScenarioCommand(int argc, char** argv, const std::string& defaultDataDir)
{
    sim::ScenarioConfig config;
    config.dataDir = defaultDataDir;
    std::string mode = "both";
    std::string db;
    bool json = false;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--json") {
            json = true;
            continue;
        }
        if (arg == "--scale-ahead") {
            config.scaleAhead = true;
            continue;
        }
        if (arg == "--help")
            return usage("help");
        if (i + 1 >= argc)
            return usage(arg.starts_with("--") ? "option " + arg + " needs a value" : "unknown argument '" + arg + "'");
        const std::string value = argv[++i];
        bool ok = true;
        if (arg == "--mode")
            mode = value, ok = mode == "static" || mode == "tidepool" || mode == "both";
        else if (arg == "--data")
            config.dataDir = value;
        else if (arg == "--db")
            db = value;
        else if (arg == "--days")
            ok = parseNumber(value, config.days);
        else if (arg == "--warmup-days")
            ok = parseNumber(value, config.warmupDays);
        else if (arg == "--evaluation-period-ms")
            ok = parseNumber(value, config.evaluationPeriodMs);
        else if (arg == "--drain-minutes") {
            std::int64_t minutes = 0;
            ok = parseNumber(value, minutes) && minutes >= 0 && minutes % 5 == 0;
            config.drainSteps = static_cast<std::size_t>(minutes / 5);
        } else if (arg == "--headroom") {
            ok = parseNumber(value, config.headroom);
        } else if (arg == "--max-power-downs-per-day") {
            ok = parseNumber(value, config.maxPowerDownsPerNodePerDay);
        } else if (arg == "--boot-minutes") {
            std::int64_t minutes = 0;
            ok = parseNumber(value, minutes) && minutes >= 0 && minutes <= 24 * 60;
            config.bootMs = minutes * 60'000;
        } else if (arg == "--inference-launch-seconds" || arg == "--service-launch-seconds") {
            double seconds = 0;
            ok = parseNumber(value, seconds) && seconds >= 0 && seconds <= 86'400;
            (arg == "--inference-launch-seconds" ? config.inferenceLaunchMs : config.serviceLaunchMs)
                = static_cast<std::int64_t>(std::llround(seconds * 1000.0));
        } else if (arg == "--scale-down-minutes") {
            double minutes = 0;
            ok = parseNumber(value, minutes) && minutes >= 0 && minutes <= 24 * 60;
            config.scaleDownDelayMs = static_cast<std::int64_t>(std::llround(minutes * 60'000.0));
        } else if (arg == "--warm-nodes")
            ok = parseNumber(value, config.warmNodes) && config.warmNodes > 0;
        else if (arg == "--hot-nodes")
            ok = parseNumber(value, config.hotNodes) && config.hotNodes > 0;
        else if (arg == "--cold-nodes")
            ok = parseNumber(value, config.coldNodes) && config.coldNodes >= 0;
        else if (arg == "--batch-load")
            ok = parseNumber(value, config.batchLoad) && config.batchLoad > 0;
        else if (arg == "--batch-start")
            ok = parseNumber(value, config.batchStart) && config.batchStart >= 0 && config.batchStart < 1;
        else if (arg == "--surprise-at-hour" || arg == "--surprise-hours") {
            double hours = 0;
            ok = parseNumber(value, hours) && hours >= 0 && hours <= 1e5;
            (arg == "--surprise-at-hour" ? config.surprise.atMs : config.surprise.durationMs)
                = static_cast<std::int64_t>(std::llround(hours * 3'600'000.0));
        } else if (arg == "--surprise-factor")
            ok = parseNumber(value, config.surprise.factor);
        else if (arg == "--surprise-add")
            ok = parseNumber(value, config.surprise.add);
        else if (arg == "--surprise-on")
            config.surprise.services = value == "all", ok = value == "all" || value == "inference";
        else if (arg == "--inference-service-ms")
            ok = parseNumber(value, config.inferenceServiceMs) && config.inferenceServiceMs > 0;
        else
            return usage("unknown option '" + arg + "'");
        if (!ok)
            return usage("bad value '" + value + "' for " + arg);
    }
    const std::string dbBase = db.empty() ? "/tmp/tidepool-sim-" + std::to_string(::getpid()) : db;

    nlohmann::json out = nlohmann::json::object();
    std::map<std::string, sim::ScenarioResult> results;
    for (const auto& [name, m] : { std::pair { "static", sim::ScenarioMode::Static },
             std::pair { "tidepool", sim::ScenarioMode::Tidepool } }) {
        if (mode != "both" && mode != name)
            continue;
        config.mode = m;
        config.dbPath = dbBase + "-" + name + ".db";
        auto result = sim::runScenario(config);
        if (!result) {
            std::cerr << "tidepool-sim: " << result.error().message << "\n";
            return kExitFailed;
        }
        out[name] = toJson(*result);
        results.emplace(name, *result);
        if (!json)
            std::cerr << "tidepool-sim: " << name << " done in " << result->wallMs << " ms\n";
    }
    if (results.size() == 2) {
        const sim::ScenarioResult& s = results.at("static");
        const sim::ScenarioResult& t = results.at("tidepool");
        out["comparison"] = {
            { "cpu_utilisation_change_pct", change(s.cpuUtilisation, t.cpuUtilisation) },
            { "gpu_utilisation_change_pct", change(s.gpuUtilisation, t.gpuUtilisation) },
            { "batch_completion_mean_change_pct", change(s.batchCompletionMeanS, t.batchCompletionMeanS) },
            { "batch_completion_p50_change_pct", change(s.batchCompletionP50S, t.batchCompletionP50S) },
            { "cost_change_pct", change(s.cost, t.cost) },
            { "cost_per_work_change_pct", change(s.costPerWork, t.costPerWork) },
        };
    }
    std::cout << out.dump(json ? -1 : 2) << "\n";
    return 0;
}

} // namespace tidepool::simapp
