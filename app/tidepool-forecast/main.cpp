// tidepool-forecast: load forecasting, headless. Thin main: parse options, load the series, backtest, print.
//
//   tidepool-forecast backtest --series <csv> --column <name> --step <seconds> --horizon <points> [--model <name>]
//                              [--json]

#include "core/forecast/backtest.h"
#include "core/forecast/model.h"
#include "core/forecast/series.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace {

using namespace tidepool;
using namespace tidepool::forecast;

// Bad options and bad input files alike exit with 2 and one line on stderr, so that scripts can tell them from a
// crash.
constexpr int kExitBadInput = 2;

void printUsage(std::ostream& out)
{
    out << "usage: tidepool-forecast backtest --series <csv> --column <name> --step <seconds> --horizon <points>\n"
        << "                                  [--model <name>] [--json]\n"
        << "  Holds out the final max(horizon, points/5) buckets, forecasts them from rolling origins with the model\n"
        << "  (default: seasonal) and the baselines, and reports sMAPE (%), MASE and the p10-p90 coverage (%).\n"
        << "  A `timestamp` column, when present, places rows on the step grid; missing buckets are gaps.\n"
        << "  Models: seasonal, seasonal-naive-daily, seasonal-naive-weekly, periodic.\n";
}

int fail(const std::string& problem)
{
    std::cerr << "tidepool-forecast: " << problem << "\n";
    return kExitBadInput;
}

std::optional<std::size_t> parseCount(std::string_view text)
{
    std::size_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value == 0)
        return std::nullopt;
    return value;
}

nlohmann::json number(double value)
{
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

nlohmann::json toJson(const Scores& s)
{
    return { { "smape", number(s.smapePct) }, { "mase", number(s.mase) },
        { "coverage_p10_p90", number(s.coveragePct) } };
}

} // namespace

int main(int argc, char** argv)
{
    const auto started = std::chrono::steady_clock::now();
    if (argc < 2)
        return fail("missing command (expected backtest; see --help)");
    const std::string_view command = argv[1];
    if (command == "--help" || command == "-h")
        return printUsage(std::cout), 0;
    if (command != "backtest")
        return fail("unknown command '" + std::string(command) + "' (expected backtest)");

    std::map<std::string, std::string, std::less<>> values;
    bool json = false;
    for (int i = 2; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--help" || arg == "-h")
            return printUsage(std::cout), 0;
        if (arg == "--json") {
            json = true;
            continue;
        }
        if (arg != "--series" && arg != "--column" && arg != "--step" && arg != "--horizon" && arg != "--model")
            return fail("unknown option '" + std::string(arg) + "'");
        if (i + 1 >= argc)
            return fail("option " + std::string(arg) + " needs a value");
        values[std::string(arg.substr(2))] = argv[++i];
    }
    for (const char* required : { "series", "column", "step", "horizon" })
        if (!values.contains(required))
            return fail(std::string("missing option --") + required);
    const auto stepSeconds = parseCount(values["step"]);
    if (!stepSeconds)
        return fail("--step: not a positive whole number of seconds: '" + values["step"] + "'");
    const auto horizon = parseCount(values["horizon"]);
    if (!horizon)
        return fail("--horizon: not a positive whole number of points: '" + values["horizon"] + "'");
    const std::string modelName = values.contains("model") ? values["model"] : std::string(kSeasonalModel);
    const ModelRegistry registry = ModelRegistry::withBuiltins();
    const auto model = registry.make(modelName);
    if (!model)
        return fail("--model: unknown model '" + modelName + "'");

    // Rows that share a step of the grid are averaged rather than refused here: NAB's AWS exports repeat one
    // timestamp where the local clock jumped for daylight saving time, and the output counts them.
    SeriesCsvOptions options;
    options.column = values["column"];
    options.stepSeconds = static_cast<double>(*stepSeconds);
    options.duplicates = DuplicateTimestamps::Average;
    auto loaded = loadSeriesCsv(values["series"], options);
    if (!loaded)
        return fail(loaded.error().message);
    const Series& series = loaded->series;
    auto split = makeSplit(series.size(), *horizon);
    if (!split)
        return fail(values["series"] + ": " + split.error().message);
    const MaseScale scale = maseScale(series, *split);
    const Series training = series.prefix(split->trainEnd);

    // The model's own cost, per forecast: what the evaluation loop pays per pool and resource every time it refits.
    const auto modelStarted = std::chrono::steady_clock::now();
    auto scores = backtest(*model, series, *split, scale);
    const double fitMsPerOrigin
        = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - modelStarted).count()
        / static_cast<double>(split->origins.size());
    if (!scores)
        return fail(modelName + ": " + scores.error().message);
    nlohmann::json baselines = nlohmann::json::object();
    nlohmann::json absent = nlohmann::json::object();
    for (const std::string& name : baselineNames()) {
        const auto baseline = registry.make(name);
        if (std::string why = baseline->unavailableReason(training); !why.empty()) {
            absent[name] = why + " at the first origin";
            continue;
        }
        auto s = backtest(*baseline, series, *split, scale);
        if (!s)
            return fail(name + ": " + s.error().message);
        baselines[name] = toJson(*s);
    }

    nlohmann::json out;
    out["series"] = values["series"];
    out["column"] = options.column;
    out["step_s"] = *stepSeconds;
    out["horizon"] = *horizon;
    out["points"] = series.size();
    out["gap_points"] = loaded->gapBuckets;
    out["merged_rows"] = loaded->mergedRows;
    out["training_points"] = split->trainEnd;
    out["held_out"] = split->heldOut;
    out["origins"] = split->origins.size();
    out["scored_points"] = scores->scoredPoints;
    out["mase_scale"] = scale.name;
    out["model"] = modelName;
    out.update(toJson(*scores));
    out["baselines"] = baselines;
    out["baselines_absent"] = absent;
    out["fit_ms_per_origin"] = fitMsPerOrigin;
    out["wall_ms"] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();

    if (json) {
        std::cout << out.dump() << "\n";
        return 0;
    }
    std::printf("%s [%s]: %zu points, %zu held out, %zu origins, horizon %zu x %zu s\n", values["series"].c_str(),
        options.column.c_str(), series.size(), split->heldOut, split->origins.size(), *horizon, *stepSeconds);
    std::printf("%s: %.1f ms per forecast\n", modelName.c_str(), fitMsPerOrigin);
    std::printf("%-24s %10s %8s %10s\n", "model", "sMAPE %", "MASE", "cover %");
    auto row = [](const std::string& name, const nlohmann::json& j) {
        std::printf("%-24s %10.2f %8.3f %10.1f\n", name.c_str(), j["smape"].is_null() ? NAN : j["smape"].get<double>(),
            j["mase"].is_null() ? NAN : j["mase"].get<double>(),
            j["coverage_p10_p90"].is_null() ? NAN : j["coverage_p10_p90"].get<double>());
    };
    row(modelName, out);
    for (const auto& [name, j] : baselines.items())
        row(name, j);
    for (const auto& [name, why] : absent.items())
        std::printf("%-24s (absent: %s)\n", name.c_str(), why.get<std::string>().c_str());
    return 0;
}
