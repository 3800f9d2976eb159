#pragma once
// Reports for a period and a scope (the cluster, a business line, a pool or a tier): utilisation (requested vs used)
// per resource and accelerator kind, tier occupancy, pending time, forecast accuracy, the proposals with their outcome
// and realised effect against the predicted one, energy and carbon, and cost per business line.
//
// `ReportData` is built on the core's thread from the store's history and the cluster as the control plane knows it
// (`report_builder.h`), travels as JSON (`GET /v1/report`, `report_json.h`), and is rendered as CSV or HTML by the
// core (`csv_report.h`, `html_report.h`) and as PDF by the Qt library in `ui/pdf/`. Labels come in English and
// Simplified Chinese from a table of the core's own (`labels.h`): the core has no Qt `tr()`.
//
// Units in the data are the reader's: CPU in cores, memory in GiB, accelerators in devices, energy in kWh, carbon in
// kg CO2, durations in milliseconds, times in Unix epoch milliseconds. A value that could not be measured is NaN
// (JSON `null`), never zero.
//
// Thread affinity: none; plain values.

#include "core/model/types.h"
#include "core/rebalance/reason.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tidepool::report {

enum class ScopeKind : std::uint8_t { Invalid = 0, Cluster, BusinessLine, Pool, Tier };
enum class Language : std::uint8_t { Invalid = 0, En, ZhCN };

std::string_view toString(ScopeKind scope); // "cluster", "business-line", "pool", "tier"
std::string_view toString(Language language); // "en", "zh_CN"
std::optional<ScopeKind> parseScopeKind(std::string_view text);
std::optional<Language> parseLanguage(std::string_view text); // "en", "zh_CN" (also "zh-CN", "zh")

inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();
inline bool measured(double value)
{
    return !std::isnan(value);
}

struct ReportRequest {
    std::int64_t fromMs = 0; // inclusive
    std::int64_t toMs = 0; // exclusive
    ScopeKind scope = ScopeKind::Cluster;
    std::string name; // the business line, pool or tier; "" for the cluster
    Language language = Language::En;
};

// A point in time as a report's period takes it: Unix epoch milliseconds, a date `YYYY-MM-DD` (its midnight, UTC), or
// `YYYY-MM-DDTHH:MM[:SS][Z]` (UTC). The error names `field` and quotes (the start of) the text.
Expected<std::int64_t> parseReportTime(std::string_view text, std::string_view field);

// Checks a request made of text (the API's query, tidepoolctl's options): `from` and `to` as `parseReportTime` takes
// them, `from` before `to`, a period of at most 92 days, a known scope kind with a name (none for the cluster), a
// known language. Whether the name exists is the builder's to say. Errors name the field.
Expected<ReportRequest> makeReportRequest(std::string_view from, std::string_view to, std::string_view scope,
    std::string_view name, std::string_view language);

// Prices of one node class, per hour of what is requested on it, in `ReportSettings::currency`.
struct NodeClassPrice {
    double cpuCoreHour = 0.0;
    double memoryGiBHour = 0.0;
    std::map<std::string, double> acceleratorHour; // by kind ("gpu", "npu", "fpga"), per whole device
    bool operator==(const NodeClassPrice&) const = default;
};

// What the daemon's configuration adds to a report.
struct ReportSettings {
    // By node class: a node's `class` label, else `<tier>-<isa>` with `-<accelerator kind>` when it has devices
    // (`hot-x86_64-gpu`); "*" prices every class not named. No price: the cost is not measured.
    std::map<std::string, NodeClassPrice> prices;
    std::string currency = "CNY";
    // The grid's carbon intensity over time (Unix ms, g CO2 per kWh), ascending; before its first point, and when
    // empty, `carbonGramsPerKWh` applies.
    std::vector<std::pair<std::int64_t, double>> carbon;
    double carbonGramsPerKWh = 400.0;
    std::string forecastModel = "seasonal";
    // For a node without a power model (restored before its agent returned, or an agent that reports none): the
    // rebalancer's estimates (`EvaluatorConfig`).
    double idleWattsPerNode = 100.0;
    double idleWattsPerAccelerator = 30.0;
    double wattsPerBusyCore = 10.0;
};

// The cluster as the report needs it: plain values taken from the control plane on its thread (`report_facts.h`).
struct NodeFacts {
    std::string name;
    std::string tier;
    std::string isa;
    std::string nodeClass;
    double cpuCores = 0;
    double memoryGiB = 0;
    std::map<std::string, int> devices; // count by accelerator kind
    double idleWatts = 0;
    double peakWatts = 0;
    double acceleratorPeakWatts = 0; // per device at full use
};

struct PoolFacts {
    std::string name;
    std::string businessLine;
    std::string tier; // "" = any
    std::vector<std::string> nodes;
    // When an operator deleted it (0: it exists). A deleted pool counts in reports over periods that began before it
    // was deleted, as it was then; its history ends there.
    std::int64_t deletedMs = 0;
};

struct WorkloadFacts {
    std::int64_t id = 0;
    std::string pool;
    std::string tier; // the tier it belongs on
    std::int64_t submittedMs = 0;
    std::int64_t placedMs = 0; // 0 = not placed yet
    std::int64_t finishedMs = 0; // 0 = not finished
};

struct ProposalFacts {
    std::int64_t id = 0;
    std::string kind;
    std::string state;
    std::string risk;
    std::string reason; // in English
    rebalance::Why why; // the reason in clauses, which the report words in its language; empty before clauses
    std::int64_t createdMs = 0;
    std::int64_t decidedMs = 0;
    std::string decidedBy;
    double utilisationBefore = 0; // predicted, 0..1
    double utilisationAfter = 0;
    double wattsSaved = 0;
    // The plan's targets: pools whose quota it sets (the pool it raises or lowers first, with its new quota in the
    // units of the pool's history, millicores, MiB or milli-GPUs; donors, and NPU or FPGA quotas, whose share units
    // are not the history's milli-devices, with 0) and nodes it acts on. `quotaSeries`: the history series the quota
    // holds ("cpu", "memory", "gpu", ...).
    std::vector<std::pair<std::string, double>> poolQuotas;
    std::string quotaSeries = "cpu";
    std::vector<std::string> nodes;
};

struct ClusterFacts {
    std::vector<NodeFacts> nodes;
    std::vector<PoolFacts> pools;
    std::vector<WorkloadFacts> workloads;
    std::vector<ProposalFacts> proposals;
    // How long closed proposals are kept (tidepoold's `proposalDays`), so that a report reaching further back can say
    // that its older ones are gone; 0 = forever.
    std::int64_t closedProposalsKeptMs = 0;
    std::int64_t nowMs = 0;
};

// --- The report ---

// One resource ("cpu", "memory", "gpu", "npu", "fpga") over the period: per bucket and summarised.
struct ResourceUse {
    std::string resource;
    std::string unit; // "cores", "GiB", "devices"
    double capacity = 0; // of the scope's nodes
    double requestedMean = kNotMeasured;
    double requestedPeak = kNotMeasured;
    double usedMean = kNotMeasured;
    double usedPeak = kNotMeasured;
    std::vector<double> requested; // per bucket, NaN where nothing was recorded
    std::vector<double> used;
    // Whose use `used` is: "pools" — the scope's pools' cgroups, as the agents measured them (a pool or business line
    // scope, CPU and memory, where any of its pools was measured in the period); "nodes" — the scope's nodes', host and
    // every pool on them included (the cluster and tier scopes, accelerators, and pools no agent measured).
    std::string usedBy = "nodes";
};

// A tier's nodes in the scope: what they hold (allocated) against their capacity, which is the occupancy, and what the
// tier's work asks for, placed or still waiting, wherever it runs (so it can pass the capacity).
struct TierOccupancy {
    std::string tier;
    int nodes = 0;
    double cpuCapacity = 0; // cores
    double cpuAllocatedMean = kNotMeasured;
    double cpuRequestedMean = kNotMeasured;
    double cpuUsedMean = kNotMeasured;
    double acceleratorCapacity = 0; // devices of every kind
    double acceleratorAllocatedMean = kNotMeasured;
    double acceleratorRequestedMean = kNotMeasured;
};

struct PendingStats {
    int submitted = 0; // in the period, in scope
    int placed = 0; // of those, placed by now
    int waiting = 0; // of those, still waiting now
    double meanMs = kNotMeasured; // time from submission to placement (to now for those still waiting)
    double p50Ms = kNotMeasured;
    double p90Ms = kNotMeasured;
    double maxMs = kNotMeasured;
};

struct ForecastAccuracy {
    std::string pool;
    std::string resource;
    std::string model;
    double smapePct = kNotMeasured;
    double coveragePct = kNotMeasured; // of actual values inside [p10, p90]; 80 is nominal
    double mase = kNotMeasured;
    std::size_t scoredPoints = 0;
    std::string note; // why it was not measured
};

struct ProposalOutcome {
    std::int64_t id = 0;
    std::string kind;
    std::string state;
    std::string risk;
    std::string reason; // in the report's language
    std::int64_t createdMs = 0;
    std::int64_t decidedMs = 0;
    std::string decidedBy;
    double predictedUtilisation = kNotMeasured; // after, 0..1
    double realisedUtilisation = kNotMeasured; // measured over the hour after it was applied
    double predictedWattsSaved = kNotMeasured;
};

struct EnergySummary {
    double kWh = 0;
    double co2Kg = 0;
    double meanWatts = kNotMeasured;
    double gramsPerKWh = kNotMeasured; // the mean intensity the energy was weighted with
    std::vector<double> kWhPerBucket;
};

// The pools of one business line; a pool with none is a row of its own (`pool` names it, `businessLine` is empty), so
// that pools without one are neither summed together nor shown as a blank line.
struct BusinessLineCost {
    std::string businessLine;
    double cpuCoreHours = 0;
    double memoryGiBHours = 0;
    double acceleratorHours = 0; // devices of every kind
    double cost = kNotMeasured; // NaN when no price applies to its nodes
    std::string pool; // the pool of a row without a business line
};

struct ReportData {
    ReportRequest request;
    std::int64_t generatedMs = 0;
    std::int64_t stepMs = 0; // of the buckets
    std::vector<std::int64_t> buckets; // their starts
    int nodes = 0;
    int pools = 0;
    std::vector<ResourceUse> utilisation;
    std::vector<TierOccupancy> tiers;
    PendingStats pending;
    std::vector<ForecastAccuracy> forecasts;
    std::vector<ProposalOutcome> proposals;
    EnergySummary energy;
    std::string currency;
    std::vector<BusinessLineCost> costs;
    std::vector<std::string> notes; // how numbers were made, in the report's language
};

// The time of `ms` as `YYYY-MM-DD HH:MM` UTC.
std::string formatTime(std::int64_t ms);

} // namespace tidepool::report
