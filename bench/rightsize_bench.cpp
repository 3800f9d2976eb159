// tidepool-bench-rightsize: what right-sizing's CPU request would have been for real machines' CPU use, sized from
// the peak (as before) or from the 90th percentile of a decaying histogram (`UsageHistogram`, as now), and how often
// the use that followed went above it.
//
//   tidepool-bench-rightsize --nab-dir <NAB realAWSCloudwatch dir> [--train-days 7] [--request 1000]
//                            [--percentile 90]
//
// Each NAB `*_cpu_utilization_*.csv` (an EC2 or RDS instance's CPU in percent, 5-minute steps, 14 days) stands for a
// workload asking `--request` millicores (the instance's whole CPU) and using value% of it. The first `--train-days`
// are what the core measured (each 5-minute value a sample, at its time); the request right-sizing gives then
// (`rebalance::rightSizedRequest`, 15% margin, 10m steps; the minimum-change rule left out) is judged on the days
// after: the share of their samples above it, and by how much ("once"). As the evaluation loop would go on ("daily"):
// from `observeFor` (6 h) on, once a day an operator approves the proposals of the day, each request sized from what
// was measured so far (the histogram keeps learning, older samples weighing less; the peak is of the whole launch)
// where the change is worth one (`rebalance::proposedRequest`: a quarter and 100m), and every sample after is judged
// against the request in force then. "Raises by rule": the same, but a raise is applied at the 5-minute evaluation
// that finds it (a pool's raises are a low-risk proposal of their own, which `autoApprove: ["resize"]` applies), the
// lowers still once a day. Gaps (missing rows) are skipped. Prints JSON: per series, the medians over them, and the
// tail (the largest share of samples above the request of any series).

#include "core/forecast/series.h"
#include "core/model/usage_histogram.h"
#include "core/rebalance/rightsize.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace tidepool;

int usage(const std::string& problem)
{
    std::cerr << "tidepool-bench-rightsize: " << problem << "\n"
              << "usage: tidepool-bench-rightsize --nab-dir <dir> [--train-days 7] [--request 1000] "
                 "[--percentile 90]\n";
    return 2;
}

double medianOf(std::vector<double> values)
{
    if (values.empty())
        return 0.0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

// How the use after training fared against `request`: the share of samples above it, the mean excess of those (a
// fraction of the request), and the largest use (a multiple of the request).
nlohmann::json judged(const std::vector<double>& after, std::int64_t request)
{
    std::size_t samples = 0, over = 0;
    double excess = 0.0, worst = 0.0;
    for (const double use : after) {
        if (forecast::isGap(use))
            continue;
        ++samples;
        worst = std::max(worst, use / static_cast<double>(request));
        if (use > static_cast<double>(request)) {
            ++over;
            excess += (use - static_cast<double>(request)) / static_cast<double>(request);
        }
    }
    return { { "requestMillis", request },
        { "overPct", samples ? 100.0 * static_cast<double>(over) / static_cast<double>(samples) : 0.0 },
        { "meanExcessPct", over ? 100.0 * excess / static_cast<double>(over) : 0.0 }, { "maxUseOfRequest", worst } };
}

// The daily loop: the share of samples (from the first resize on) above the request in force, and the mean request
// over them as a share of what was asked.
nlohmann::json daily(const std::vector<double>& use, std::int64_t asked, bool fromPercentile, bool raisesByRule,
    const rebalance::RightSizeConfig& c)
{
    constexpr std::size_t kStepsPerDay = 288;
    const auto observeSteps = static_cast<std::size_t>(c.observeFor.count() / 300'000);
    std::int64_t request = asked, peak = 0;
    UsageHistogram histogram;
    std::size_t samples = 0, over = 0, resizes = 0;
    double requested = 0.0;
    for (std::size_t i = 0; i < use.size(); ++i) {
        const bool operatorsDay = i >= observeSteps && (i - observeSteps) % kStepsPerDay == 0;
        if ((operatorsDay || (raisesByRule && i >= observeSteps)) && !histogram.empty()) {
            const std::int64_t used = fromPercentile ? histogram.percentile(c.cpuPercentile) : peak;
            const std::int64_t sized = rebalance::proposedRequest(request, used, 0, c.cpuStepMillis, c.minCpuMillis, c);
            if (sized != request && (operatorsDay || sized > request)) {
                request = sized;
                ++resizes;
            }
        }
        if (forecast::isGap(use[i]))
            continue;
        const auto millis = static_cast<std::int64_t>(std::llround(use[i]));
        if (i >= observeSteps) {
            ++samples;
            over += millis > request ? 1 : 0;
            requested += static_cast<double>(request);
        }
        peak = std::max(peak, millis);
        histogram.add(millis, static_cast<std::int64_t>(i) * 300'000);
    }
    return { { "resizes", resizes }, { "finalRequestMillis", request },
        { "overPct", samples ? 100.0 * static_cast<double>(over) / static_cast<double>(samples) : 0.0 },
        { "meanRequestPct",
            samples ? 100.0 * requested / static_cast<double>(samples) / static_cast<double>(asked) : 100.0 } };
}

bool parseNumber(const std::string& text, double& out)
{
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
}

} // namespace

int main(int argc, char** argv)
{
    std::string dir;
    double trainDays = 7.0, requestMillis = 1000.0, percentile = 90.0;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i + 1 >= argc)
            return usage(arg + " needs a value");
        const std::string value = argv[++i];
        if (arg == "--nab-dir")
            dir = value;
        else if (arg == "--train-days") {
            if (!parseNumber(value, trainDays) || trainDays <= 0 || trainDays >= 14)
                return usage("--train-days must be a number of days above 0 and below 14");
        } else if (arg == "--percentile") {
            if (!parseNumber(value, percentile) || percentile < 50 || percentile > 100)
                return usage("--percentile must be a number from 50 to 100 (the daemon's rightSizeCpuPercentile)");
        } else if (arg == "--request") {
            if (!parseNumber(value, requestMillis) || requestMillis < 10)
                return usage("--request must be a number of millicores from 10");
        } else
            return usage("unknown option " + arg);
    }
    if (dir.empty())
        return usage("--nab-dir is required");
    std::vector<std::filesystem::path> files;
    std::error_code listed;
    for (const auto& entry : std::filesystem::directory_iterator(dir, listed))
        if (entry.path().filename().string().find("cpu_utilization") != std::string::npos)
            files.push_back(entry.path());
    if (listed || files.empty())
        return usage("no *cpu_utilization*.csv in " + dir + (listed ? ": " + listed.message() : std::string()));
    std::sort(files.begin(), files.end());

    rebalance::RightSizeConfig config;
    config.cpuPercentile = percentile / 100.0;
    const auto asked = static_cast<std::int64_t>(requestMillis);
    nlohmann::json series = nlohmann::json::array();
    std::vector<double> reclaimedPeak, reclaimedPercentile, overPeak, overPercentile;
    // Per loop ("daily", "raisesByRule") and figure ("meanRequestPctFromPeak", ...): one value per series.
    std::map<std::string, std::map<std::string, std::vector<double>>> loops;
    for (const auto& path : files) {
        forecast::SeriesCsvOptions options;
        options.column = "value";
        options.stepSeconds = 300;
        options.duplicates = forecast::DuplicateTimestamps::Average; // NAB repeats an hour at a clock change
        auto loaded = forecast::loadSeriesCsv(path.string(), options);
        if (!loaded) {
            std::cerr << "tidepool-bench-rightsize: " << loaded.error().message << "\n";
            return 1;
        }
        const std::vector<double>& percent = loaded->series.values;
        const auto trainSteps = static_cast<std::size_t>(trainDays * 86400.0 / 300.0);
        if (percent.size() <= trainSteps)
            return usage(path.string() + " holds " + std::to_string(percent.size()) + " steps, not more than the "
                + std::to_string(trainSteps) + " of training");
        std::vector<double> use(percent.size());
        std::transform(percent.begin(), percent.end(), use.begin(),
            [&](double p) { return forecast::isGap(p) ? p : p / 100.0 * requestMillis; });

        std::int64_t peak = 0;
        UsageHistogram histogram;
        for (std::size_t i = 0; i < trainSteps; ++i) {
            if (forecast::isGap(use[i]))
                continue;
            const auto millis = static_cast<std::int64_t>(std::llround(use[i]));
            peak = std::max(peak, millis);
            histogram.add(millis, static_cast<std::int64_t>(i) * 300'000);
        }
        const std::int64_t atPercentile = histogram.percentile(config.cpuPercentile);
        const auto sized = [&](std::int64_t used) {
            return rebalance::rightSizedRequest(asked, used, 0, config.cpuStepMillis, config.margin);
        };
        const std::vector<double> after(use.begin() + static_cast<std::ptrdiff_t>(trainSteps), use.end());
        nlohmann::json fromPeak = judged(after, sized(peak));
        nlohmann::json fromPercentile = judged(after, sized(atPercentile));
        reclaimedPeak.push_back(100.0 * (1.0 - static_cast<double>(sized(peak)) / requestMillis));
        reclaimedPercentile.push_back(100.0 * (1.0 - static_cast<double>(sized(atPercentile)) / requestMillis));
        overPeak.push_back(fromPeak["overPct"].get<double>());
        overPercentile.push_back(fromPercentile["overPct"].get<double>());
        nlohmann::json one { { "series", path.stem().string() }, { "trainPeakMillis", peak },
            { "trainPercentileMillis", atPercentile },
            { "once", { { "fromPeak", std::move(fromPeak) }, { "fromPercentile", std::move(fromPercentile) } } } };
        for (const bool byRule : { false, true }) {
            const std::string loop = byRule ? "raisesByRule" : "daily";
            for (const bool fromPercentile : { false, true }) {
                nlohmann::json result = daily(use, asked, fromPercentile, byRule, config);
                const std::string from = fromPercentile ? "FromPercentile" : "FromPeak";
                loops[loop]["meanRequestPct" + from].push_back(result["meanRequestPct"].get<double>());
                loops[loop]["overPct" + from].push_back(result["overPct"].get<double>());
                one[loop][fromPercentile ? "fromPercentile" : "fromPeak"] = std::move(result);
            }
        }
        series.push_back(std::move(one));
    }
    nlohmann::json median { { "once",
        { { "reclaimedPctFromPeak", medianOf(reclaimedPeak) },
            { "reclaimedPctFromPercentile", medianOf(reclaimedPercentile) }, { "overPctFromPeak", medianOf(overPeak) },
            { "overPctFromPercentile", medianOf(overPercentile) } } } };
    nlohmann::json tail = nlohmann::json::object();
    for (const auto& [loop, figures] : loops)
        for (const auto& [figure, values] : figures) {
            median[loop][figure] = medianOf(values);
            if (figure.rfind("overPct", 0) == 0)
                tail[loop][figure] = *std::max_element(values.begin(), values.end());
        }
    const nlohmann::json out { { "requestMillis", asked }, { "trainDays", trainDays }, { "percentile", percentile },
        { "margin", config.margin }, { "series", series }, { "median", median }, { "tail", tail } };
    std::cout << out.dump(2) << "\n";
    return 0;
}
