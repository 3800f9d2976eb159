#include "core/report/report_builder.h"

#include "core/forecast/backtest.h"
#include "core/forecast/model.h"
#include "core/report/labels.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>
#include <tuple>

namespace tidepool::report {

namespace {

constexpr std::int64_t kMinuteMs = 60'000;
constexpr std::int64_t kHourMs = 60 * kMinuteMs;
constexpr std::size_t kMaxBuckets = 48;
constexpr std::size_t kMaxForecastPools = 12;
constexpr std::size_t kForecastHorizonSteps = 12; // one hour of 5-minute steps, as the evaluation plans
const std::vector<std::string> kAcceleratorKinds { "gpu", "npu", "fpga" };
const std::vector<std::string> kTiers { "hot", "warm", "cold" };

using Buckets = std::vector<double>; // per bucket; NaN = nothing recorded

// The scope resolved to the pools and nodes it covers.
struct Scope {
    std::vector<const PoolFacts*> pools;
    std::vector<const NodeFacts*> nodes;
    std::set<std::string> poolNames;
    std::set<std::string> nodeNames;
    std::string tier; // for a tier scope
};

std::string knownList(const std::set<std::string>& names)
{
    std::string out;
    for (const std::string& n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out.empty() ? "none" : out;
}

// A pool deleted before the period began had nothing in it; one deleted during it counts up to its deletion.
bool livedIn(const PoolFacts& pool, const ReportRequest& request)
{
    return pool.deletedMs == 0 || pool.deletedMs > request.fromMs;
}

Expected<Scope> resolveScope(const ReportRequest& request, const ClusterFacts& facts)
{
    Scope scope;
    const auto addNodes = [&](const std::set<std::string>& names) {
        for (const NodeFacts& n : facts.nodes)
            if (names.count(n.name) && scope.nodeNames.insert(n.name).second)
                scope.nodes.push_back(&n);
    };
    switch (request.scope) {
    case ScopeKind::Cluster:
        for (const PoolFacts& p : facts.pools)
            if (livedIn(p, request))
                scope.pools.push_back(&p);
        for (const NodeFacts& n : facts.nodes)
            scope.nodes.push_back(&n);
        break;
    case ScopeKind::BusinessLine:
    case ScopeKind::Pool: {
        const bool line = request.scope == ScopeKind::BusinessLine;
        std::set<std::string> known;
        std::set<std::string> nodes;
        for (const PoolFacts& p : facts.pools) {
            if (!livedIn(p, request))
                continue;
            const std::string& key = line ? p.businessLine : p.name;
            known.insert(key);
            if (key != request.name)
                continue;
            scope.pools.push_back(&p);
            nodes.insert(p.nodes.begin(), p.nodes.end());
        }
        const auto gone = std::find_if(facts.pools.begin(), facts.pools.end(),
            [&](const PoolFacts& p) { return !line && p.deletedMs != 0 && p.name == request.name; });
        if (scope.pools.empty() && gone != facts.pools.end())
            return makeError(ErrorCode::NotFound,
                "pool " + gone->name + " was deleted at " + formatTime(gone->deletedMs)
                    + " UTC, before the period began: it has nothing to report");
        if (scope.pools.empty())
            return makeError(ErrorCode::NotFound,
                std::string(line ? "unknown business line" : "unknown pool") + " \"" + clipText(request.name, 128)
                    + "\" (known: " + knownList(known) + ")");
        addNodes(nodes);
        break;
    }
    case ScopeKind::Tier: {
        const auto tier = parseTier(request.name);
        if (!tier)
            return makeError(
                ErrorCode::NotFound, "unknown tier \"" + clipText(request.name, 128) + "\" (known: hot, warm, cold)");
        scope.tier = std::string(toString(*tier));
        for (const PoolFacts& p : facts.pools)
            if (p.tier == scope.tier && livedIn(p, request))
                scope.pools.push_back(&p);
        for (const NodeFacts& n : facts.nodes)
            if (n.tier == scope.tier)
                scope.nodes.push_back(&n);
        break;
    }
    case ScopeKind::Invalid: return makeError(ErrorCode::InvalidArgument, "no scope given");
    }
    for (const PoolFacts* p : scope.pools)
        scope.poolNames.insert(p->name);
    for (const NodeFacts* n : scope.nodes)
        scope.nodeNames.insert(n->name);
    return scope;
}

double mean(const Buckets& values)
{
    double sum = 0;
    std::size_t count = 0;
    for (const double v : values)
        if (measured(v)) {
            sum += v;
            ++count;
        }
    return count ? sum / static_cast<double>(count) : kNotMeasured;
}

double peak(const Buckets& values)
{
    double best = kNotMeasured;
    for (const double v : values)
        if (measured(v) && (!measured(best) || v > best))
            best = v;
    return best;
}

// Adds `b` into `a` bucket by bucket, times `factor`; a bucket stays NaN only while neither has a value.
void accumulate(Buckets& a, const Buckets& b, double factor = 1.0)
{
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
        if (measured(b[i]))
            a[i] = (measured(a[i]) ? a[i] : 0.0) + b[i] * factor;
}

class HistoryReader {
public:
    HistoryReader(store::Store& store, const ReportRequest& request, std::int64_t stepMs, std::size_t buckets)
        : m_store(store)
        , m_request(request)
        , m_stepMs(stepMs)
        , m_buckets(buckets)
    {
    }

    // The series' mean per bucket of the period; cached by key.
    Expected<Buckets> read(const store::SeriesKey& key)
    {
        if (const auto it = m_cache.find(key); it != m_cache.end())
            return it->second;
        auto points = meanOver(key, m_request.fromMs, m_request.toMs);
        if (!points)
            return tl::unexpected(points.error());
        std::vector<double> sum(m_buckets, 0.0);
        std::vector<int> count(m_buckets, 0);
        for (const auto& [atMs, value] : *points) {
            const auto i = static_cast<std::size_t>((atMs - m_request.fromMs) / m_stepMs);
            if (atMs < m_request.fromMs || i >= m_buckets)
                continue;
            sum[i] += value;
            ++count[i];
        }
        Buckets out(m_buckets, kNotMeasured);
        for (std::size_t i = 0; i < m_buckets; ++i)
            if (count[i])
                out[i] = sum[i] / count[i];
        m_cache.emplace(key, out);
        return out;
    }

    // The series' mean over [fromMs, toMs), NaN when nothing was recorded.
    Expected<double> meanBetween(const store::SeriesKey& key, std::int64_t fromMs, std::int64_t toMs)
    {
        auto points = meanOver(key, fromMs, toMs);
        if (!points)
            return tl::unexpected(points.error());
        Buckets values;
        for (const auto& point : *points)
            values.push_back(point.second);
        return mean(values);
    }

    // The 5-minute aggregates, then the raw samples after the last of them.
    Expected<std::vector<std::pair<std::int64_t, double>>> meanOver(
        const store::SeriesKey& key, std::int64_t fromMs, std::int64_t toMs)
    {
        auto aggregates = m_store.history(key, fromMs, toMs, store::Resolution::FiveMinutes);
        if (!aggregates)
            return makeError(ErrorCode::IoError, "cannot read the history: " + aggregates.error().message);
        std::vector<std::pair<std::int64_t, double>> points;
        std::int64_t rawFrom = fromMs;
        for (const store::HistoryPoint& p : *aggregates) {
            points.emplace_back(p.atMs, p.mean);
            rawFrom = std::max(rawFrom, p.atMs + store::kAggregateBucketMs);
        }
        if (rawFrom < toMs) {
            auto raw = m_store.history(key, rawFrom, toMs, store::Resolution::Raw);
            if (!raw)
                return makeError(ErrorCode::IoError, "cannot read the history: " + raw.error().message);
            for (const store::HistoryPoint& p : *raw)
                points.emplace_back(p.atMs, p.mean);
        }
        return points;
    }

private:
    store::Store& m_store;
    const ReportRequest& m_request;
    std::int64_t m_stepMs;
    std::size_t m_buckets;
    std::map<store::SeriesKey, Buckets> m_cache;
};

#define TP_TRY(var, expr)                                                                                              \
    auto var = (expr);                                                                                                 \
    if (!var)                                                                                                          \
        return tl::unexpected(var.error());

struct Builder {
    const ReportRequest& request;
    const ClusterFacts& facts;
    const ReportSettings& settings;
    Scope scope;
    HistoryReader reader;
    ReportData data;
    int m_estimatedPower = 0; // nodes whose power came from the estimates
    // Of the period until now: its hours, and those in which the scope's CPU requests were recorded. Means skip the
    // hours without records (a pool created within the period, the daemon not running), so the report says so.
    double m_elapsedHours = 0;
    double m_recordedHours = 0;

    std::size_t bucketCount() const { return data.buckets.size(); }
    double bucketHours(std::size_t i) const
    {
        const std::int64_t start = data.buckets[i];
        return static_cast<double>(std::min(data.stepMs, request.toMs - start)) / static_cast<double>(kHourMs);
    }

    // What the scope requested of `resource` ("cpu", "memory", a kind), in the series' own unit.
    Expected<Buckets> requested(const std::string& resource)
    {
        if (request.scope == ScopeKind::Tier)
            return reader.read({ "tier", scope.tier, resource });
        Buckets total(bucketCount(), kNotMeasured);
        for (const PoolFacts* p : scope.pools) {
            TP_TRY(series, reader.read({ "pool", p->name, resource }));
            accumulate(total, *series);
        }
        return total;
    }

    // What a node used of `resource`, in the unit of the pool series (millis, MiB, milli-devices).
    Expected<Buckets> nodeUsed(const NodeFacts& node, const std::string& resource)
    {
        if (resource == "cpu" || resource == "memory")
            return reader.read({ "node", node.name, resource });
        const auto devices = node.devices.find(resource);
        if (devices == node.devices.end() || devices->second == 0)
            return Buckets(bucketCount(), kNotMeasured);
        TP_TRY(util, reader.read({ "node", node.name, resource + "_util" }));
        Buckets out(bucketCount(), kNotMeasured);
        accumulate(out, *util, 1000.0 * devices->second);
        return out;
    }

    // What the scope used of `resource`, and whose use that is (`ResourceUse::usedBy`): a pool's or a business line's
    // CPU and memory are its pools' measured use (`pool/<name>/<resource>_used`) where any of them was measured in
    // the period — its nodes carry every pool and the host besides; otherwise what the scope's nodes used.
    Expected<std::pair<Buckets, std::string>> used(const std::string& resource)
    {
        if ((request.scope == ScopeKind::Pool || request.scope == ScopeKind::BusinessLine)
            && (resource == "cpu" || resource == "memory")) {
            Buckets total(bucketCount(), kNotMeasured);
            for (const PoolFacts* p : scope.pools) {
                TP_TRY(series, reader.read({ "pool", p->name, resource + "_used" }));
                accumulate(total, *series);
            }
            if (std::any_of(total.begin(), total.end(), [](double v) { return measured(v); }))
                return std::pair { std::move(total), std::string("pools") };
        }
        Buckets total(bucketCount(), kNotMeasured);
        for (const NodeFacts* n : scope.nodes) {
            TP_TRY(series, nodeUsed(*n, resource));
            accumulate(total, *series);
        }
        return std::pair { std::move(total), std::string("nodes") };
    }

    Expected<void> utilisation()
    {
        std::vector<std::string> resources { "cpu", "memory" };
        for (const std::string& kind : kAcceleratorKinds) {
            bool present = false;
            for (const NodeFacts* n : scope.nodes)
                present = present || n->devices.count(kind);
            if (!present) { // no device of the kind in scope, but maybe requests for one that waited
                TP_TRY(asked, requested(kind));
                present = measured(peak(*asked)) && peak(*asked) > 0;
            }
            if (present)
                resources.push_back(kind);
        }
        for (const std::string& resource : resources) {
            ResourceUse use;
            use.resource = resource;
            const double scale = resource == "memory" ? 1.0 / 1024.0 : 1.0 / 1000.0;
            use.unit = resource == "cpu" ? "cores" : resource == "memory" ? "GiB" : "devices";
            for (const NodeFacts* n : scope.nodes) {
                if (resource == "cpu")
                    use.capacity += n->cpuCores;
                else if (resource == "memory")
                    use.capacity += n->memoryGiB;
                else if (const auto it = n->devices.find(resource); it != n->devices.end())
                    use.capacity += it->second;
            }
            TP_TRY(asked, requested(resource));
            TP_TRY(measuredUse, used(resource));
            use.requested = Buckets(bucketCount(), kNotMeasured);
            use.used = Buckets(bucketCount(), kNotMeasured);
            accumulate(use.requested, *asked, scale);
            accumulate(use.used, measuredUse->first, scale);
            use.usedBy = measuredUse->second;
            if (resource == "cpu")
                for (std::size_t i = 0; i < use.requested.size(); ++i)
                    if (data.buckets[i] < facts.nowMs) {
                        m_elapsedHours += bucketHours(i);
                        m_recordedHours += measured(use.requested[i]) ? bucketHours(i) : 0.0;
                    }
            use.requestedMean = mean(use.requested);
            use.requestedPeak = peak(use.requested);
            use.usedMean = mean(use.used);
            use.usedPeak = peak(use.used);
            data.utilisation.push_back(std::move(use));
        }
        return {};
    }

    Expected<void> tiers()
    {
        for (const std::string& tier : kTiers) {
            TierOccupancy row;
            row.tier = tier;
            Buckets cpuUsed(bucketCount(), kNotMeasured);
            for (const NodeFacts* n : scope.nodes) {
                if (n->tier != tier)
                    continue;
                ++row.nodes;
                row.cpuCapacity += n->cpuCores;
                for (const auto& [kind, count] : n->devices)
                    row.acceleratorCapacity += count;
                TP_TRY(series, reader.read({ "node", n->name, "cpu" }));
                accumulate(cpuUsed, *series, 1.0 / 1000.0);
            }
            row.cpuUsedMean = mean(cpuUsed);
            // Asked: the tier's work (or the scope's pools of the tier), placed or waiting. Held: the tier's nodes'
            // allocations (or those pools' placed work).
            Buckets cpuAsked(bucketCount(), kNotMeasured), cpuHeld(bucketCount(), kNotMeasured);
            Buckets acceleratorsAsked(bucketCount(), kNotMeasured), acceleratorsHeld(bucketCount(), kNotMeasured);
            const auto add = [&](const std::string& scopeKind, const std::string& name) -> Expected<void> {
                for (const auto& [suffix, cpuInto, acceleratorsInto] :
                    { std::tuple { "", &cpuAsked, &acceleratorsAsked },
                        std::tuple { "_placed", &cpuHeld, &acceleratorsHeld } }) {
                    TP_TRY(cpu, reader.read({ scopeKind, name, "cpu" + std::string(suffix) }));
                    accumulate(*cpuInto, *cpu, 1.0 / 1000.0);
                    for (const std::string& kind : kAcceleratorKinds) {
                        TP_TRY(series, reader.read({ scopeKind, name, kind + suffix }));
                        accumulate(*acceleratorsInto, *series, 1.0 / 1000.0);
                    }
                }
                return {};
            };
            if (request.scope == ScopeKind::Cluster || scope.tier == tier) {
                if (auto added = add("tier", tier); !added)
                    return added;
            } else {
                for (const PoolFacts* p : scope.pools)
                    if (p->tier == tier)
                        if (auto added = add("pool", p->name); !added)
                            return added;
            }
            row.cpuRequestedMean = mean(cpuAsked);
            row.cpuAllocatedMean = mean(cpuHeld);
            row.acceleratorRequestedMean = mean(acceleratorsAsked);
            row.acceleratorAllocatedMean = mean(acceleratorsHeld);
            if (row.nodes > 0 || measured(row.cpuRequestedMean))
                data.tiers.push_back(row);
        }
        return {};
    }

    void pending()
    {
        std::vector<double> waits;
        PendingStats& stats = data.pending;
        for (const WorkloadFacts& w : facts.workloads) {
            if (w.submittedMs < request.fromMs || w.submittedMs >= request.toMs)
                continue;
            const bool inScope = request.scope == ScopeKind::Cluster
                || (request.scope == ScopeKind::Tier ? w.tier == scope.tier : scope.poolNames.count(w.pool) > 0);
            if (!inScope)
                continue;
            ++stats.submitted;
            std::int64_t end = facts.nowMs;
            if (w.placedMs > 0) {
                ++stats.placed;
                end = w.placedMs;
            } else if (w.finishedMs > 0) {
                end = w.finishedMs; // cancelled or failed while it waited
            } else {
                ++stats.waiting;
            }
            waits.push_back(static_cast<double>(std::max<std::int64_t>(0, end - w.submittedMs)));
        }
        if (waits.empty())
            return;
        std::sort(waits.begin(), waits.end());
        const auto rank = [&](double q) {
            const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(waits.size())));
            return waits[std::clamp<std::size_t>(k, 1, waits.size()) - 1];
        };
        stats.meanMs = std::accumulate(waits.begin(), waits.end(), 0.0) / static_cast<double>(waits.size());
        stats.p50Ms = rank(0.5);
        stats.p90Ms = rank(0.9);
        stats.maxMs = waits.back();
    }

    Expected<void> forecasts()
    {
        const std::int64_t periodMs = request.toMs - request.fromMs;
        const std::int64_t step = store::kAggregateBucketMs;
        const std::int64_t windowEnd = request.toMs / step * step;
        const std::int64_t windowStart
            = (windowEnd - std::clamp<std::int64_t>(5 * periodMs, 2 * 86'400'000LL, 14 * 86'400'000LL)) / step * step;
        std::size_t done = 0;
        for (const PoolFacts* p : scope.pools) {
            if (p->deletedMs != 0)
                continue; // nothing will run in it
            if (done++ == kMaxForecastPools)
                break;
            // CPU always (a pool without history says so); memory where the pool has some, as the evaluation
            // forecasts both for power planning.
            for (const char* resource : { "cpu", "memory" }) {
                auto points = reader.meanOver({ "pool", p->name, resource }, windowStart, windowEnd);
                if (!points)
                    return tl::unexpected(points.error());
                if (points->empty() && std::string_view(resource) != "cpu")
                    continue;
                data.forecasts.push_back(backtestPool(p->name, resource, *points, windowStart, windowEnd));
            }
        }
        return {};
    }

    // The forecasting model's rolling-origin backtest, one hour ahead, on one pool resource's 5-minute means.
    ForecastAccuracy backtestPool(const std::string& pool, const char* resource,
        const std::vector<std::pair<std::int64_t, double>>& points, std::int64_t windowStart,
        std::int64_t windowEnd) const
    {
        const std::int64_t step = store::kAggregateBucketMs;
        // Built once (thread-safe initialisation; only read afterwards, so reports on several threads may share it).
        static const auto registry = forecast::ModelRegistry::withBuiltins();
        ForecastAccuracy row;
        row.pool = pool;
        row.resource = resource;
        row.model = settings.forecastModel;
        forecast::Series series;
        series.stepSeconds = static_cast<double>(step) / 1000.0;
        series.values.assign(static_cast<std::size_t>((windowEnd - windowStart) / step), kNotMeasured);
        std::vector<int> counts(series.values.size(), 0);
        for (const auto& [atMs, value] : points) {
            const auto i = static_cast<std::size_t>((atMs - windowStart) / step);
            if (atMs < windowStart || i >= series.values.size())
                continue;
            series.values[i] = (counts[i] ? series.values[i] * counts[i] : 0.0) + value;
            series.values[i] /= ++counts[i];
        }
        // Leading gaps (before the pool had history) say nothing; the backtest starts at the first value.
        const auto first = std::find_if(series.values.begin(), series.values.end(), measured);
        series.values.erase(series.values.begin(), first);
        const auto model = registry.make(settings.forecastModel);
        const auto split = forecast::makeSplit(series.size(), kForecastHorizonSteps);
        if (!model)
            row.note = "unknown model";
        else if (!split)
            row.note = request.language == Language::ZhCN ? "历史不足" : "not enough history";
        else if (const auto scores = forecast::backtest(*model, series, *split, forecast::maseScale(series, *split));
                 !scores)
            row.note = scores.error().message;
        else {
            row.smapePct = scores->smapePct;
            row.coveragePct = scores->coveragePct;
            row.mase = scores->mase;
            row.scoredPoints = scores->scoredPoints;
            if (!measured(row.mase)) // seasonal naive made no error to scale by
                row.note = request.language == Language::ZhCN ? "历史平稳，MASE 无定义" : "flat history: no MASE";
        }
        return row;
    }

    Expected<void> proposals()
    {
        // Closed proposals past the retention are dropped here too, so that what the report lists does not depend on
        // whether the rebalancer's next evaluation has forgotten them yet (the note in `buildReport` says so).
        const std::int64_t keptSince = facts.closedProposalsKeptMs > 0 ? facts.nowMs - facts.closedProposalsKeptMs
                                                                       : std::numeric_limits<std::int64_t>::min();
        for (const ProposalFacts& p : facts.proposals) {
            const bool created = p.createdMs >= request.fromMs && p.createdMs < request.toMs;
            const bool decided = p.decidedMs >= request.fromMs && p.decidedMs < request.toMs;
            if (!created && !decided)
                continue;
            const bool closed = p.state != "pending" && p.state != "approved";
            if (closed && p.createdMs < keptSince && p.decidedMs < keptSince)
                continue;
            bool inScope = request.scope == ScopeKind::Cluster;
            for (const auto& [pool, quota] : p.poolQuotas)
                inScope = inScope || scope.poolNames.count(pool);
            for (const std::string& node : p.nodes)
                inScope = inScope || scope.nodeNames.count(node);
            if (!inScope)
                continue;
            ProposalOutcome row;
            row.id = p.id;
            row.kind = p.kind;
            row.state = p.state;
            row.risk = p.risk;
            row.reason = reasonText(request.language, p.why, p.reason);
            row.createdMs = p.createdMs;
            row.decidedMs = p.decidedMs;
            row.decidedBy = p.decidedBy;
            row.predictedUtilisation = p.utilisationAfter > 0 ? p.utilisationAfter : kNotMeasured;
            row.predictedWattsSaved = p.wattsSaved != 0 ? p.wattsSaved : kNotMeasured;
            if (p.state == "applied" && !p.poolQuotas.empty() && p.poolQuotas.front().second > 0) {
                const auto& [pool, quota] = p.poolQuotas.front();
                TP_TRY(after, reader.meanBetween({ "pool", pool, p.quotaSeries }, p.decidedMs, p.decidedMs + kHourMs));
                if (measured(*after))
                    row.realisedUtilisation = *after / quota;
            }
            data.proposals.push_back(std::move(row));
        }
        return {};
    }

    double intensityAt(std::int64_t atMs) const
    {
        double value = settings.carbonGramsPerKWh;
        for (const auto& [t, g] : settings.carbon) {
            if (t > atMs)
                break;
            value = g;
        }
        return value;
    }

    Expected<void> energy()
    {
        EnergySummary& e = data.energy;
        e.kWhPerBucket.assign(bucketCount(), 0.0);
        double wattHours = 0;
        double hours = 0;
        for (std::size_t i = 0; i < bucketCount(); ++i)
            hours += bucketHours(i);
        for (const NodeFacts* node : scope.nodes) {
            NodeFacts estimated = *node;
            if (estimated.peakWatts <= 0 && estimated.idleWatts <= 0) {
                int devices = 0;
                for (const auto& [kind, count] : estimated.devices)
                    devices += count;
                estimated.idleWatts = settings.idleWattsPerNode + settings.idleWattsPerAccelerator * devices;
                estimated.peakWatts = estimated.idleWatts + settings.wattsPerBusyCore * estimated.cpuCores;
                ++m_estimatedPower;
            }
            const NodeFacts* n = &estimated;
            TP_TRY(cpu, reader.read({ "node", n->name, "cpu" }));
            std::vector<Buckets> utils;
            std::vector<int> counts;
            for (const auto& [kind, count] : n->devices) {
                TP_TRY(util, reader.read({ "node", n->name, kind + "_util" }));
                utils.push_back(*util);
                counts.push_back(count);
            }
            for (std::size_t i = 0; i < bucketCount(); ++i) {
                bool on = measured((*cpu)[i]);
                double watts = 0;
                if (on && n->cpuCores > 0)
                    watts += n->idleWatts
                        + (n->peakWatts - n->idleWatts) * std::clamp((*cpu)[i] / 1000.0 / n->cpuCores, 0.0, 1.0);
                for (std::size_t k = 0; k < utils.size(); ++k)
                    if (measured(utils[k][i])) {
                        if (!on)
                            watts += n->idleWatts;
                        on = true;
                        watts += n->acceleratorPeakWatts * counts[k] * std::clamp(utils[k][i], 0.0, 1.0);
                    }
                const double wh = watts * bucketHours(i);
                wattHours += wh;
                e.kWhPerBucket[i] += wh / 1000.0;
            }
        }
        for (std::size_t i = 0; i < bucketCount(); ++i) {
            const std::int64_t middle = data.buckets[i] + std::min(data.stepMs, request.toMs - data.buckets[i]) / 2;
            e.co2Kg += e.kWhPerBucket[i] * intensityAt(middle) / 1000.0;
        }
        e.kWh = wattHours / 1000.0;
        e.meanWatts = hours > 0 ? wattHours / hours : kNotMeasured;
        e.gramsPerKWh = e.kWh > 0 ? e.co2Kg * 1000.0 / e.kWh : intensityAt(request.fromMs);
        return {};
    }

    const NodeClassPrice* priceOf(const std::string& nodeClass) const
    {
        if (const auto it = settings.prices.find(nodeClass); it != settings.prices.end())
            return &it->second;
        if (const auto it = settings.prices.find("*"); it != settings.prices.end())
            return &it->second;
        return nullptr;
    }

    // The pool's price: its nodes' class prices weighted by their CPU; "*" for a pool without nodes.
    std::optional<NodeClassPrice> poolPrice(const PoolFacts& pool) const
    {
        NodeClassPrice sum;
        double weight = 0;
        for (const NodeFacts& n : facts.nodes) {
            if (std::find(pool.nodes.begin(), pool.nodes.end(), n.name) == pool.nodes.end())
                continue;
            const NodeClassPrice* price = priceOf(n.nodeClass);
            if (!price)
                continue;
            const double w = std::max(n.cpuCores, 1.0);
            sum.cpuCoreHour += price->cpuCoreHour * w;
            sum.memoryGiBHour += price->memoryGiBHour * w;
            for (const auto& [kind, perHour] : price->acceleratorHour)
                sum.acceleratorHour[kind] += perHour * w;
            weight += w;
        }
        if (weight == 0) {
            const auto it = settings.prices.find("*");
            if (it == settings.prices.end())
                return std::nullopt;
            return it->second;
        }
        sum.cpuCoreHour /= weight;
        sum.memoryGiBHour /= weight;
        for (auto& [kind, perHour] : sum.acceleratorHour)
            perHour /= weight;
        return sum;
    }

    Expected<void> costs()
    {
        data.currency = settings.currency;
        // By business line, then each pool without one.
        std::map<std::pair<std::string, std::string>, BusinessLineCost> lines;
        for (const PoolFacts* p : scope.pools) {
            const std::string pool = p->businessLine.empty() ? p->name : std::string();
            BusinessLineCost& line = lines[{ p->businessLine, pool }];
            line.businessLine = p->businessLine;
            line.pool = pool;
            const auto price = poolPrice(*p);
            const auto hoursOf = [&](const Buckets& values, double scale) {
                double total = 0;
                for (std::size_t i = 0; i < values.size(); ++i)
                    if (measured(values[i]))
                        total += values[i] * scale * bucketHours(i);
                return total;
            };
            TP_TRY(cpu, reader.read({ "pool", p->name, "cpu" }));
            TP_TRY(memory, reader.read({ "pool", p->name, "memory" }));
            const double cpuHours = hoursOf(*cpu, 1.0 / 1000.0);
            const double memoryHours = hoursOf(*memory, 1.0 / 1024.0);
            line.cpuCoreHours += cpuHours;
            line.memoryGiBHours += memoryHours;
            double cost = price ? cpuHours * price->cpuCoreHour + memoryHours * price->memoryGiBHour : kNotMeasured;
            for (const std::string& kind : kAcceleratorKinds) {
                TP_TRY(series, reader.read({ "pool", p->name, kind }));
                const double deviceHours = hoursOf(*series, 1.0 / 1000.0);
                line.acceleratorHours += deviceHours;
                if (price && deviceHours > 0) {
                    const auto it = price->acceleratorHour.find(kind);
                    cost += deviceHours * (it == price->acceleratorHour.end() ? 0.0 : it->second);
                }
            }
            if (measured(cost))
                line.cost = (measured(line.cost) ? line.cost : 0.0) + cost;
        }
        for (auto& [name, line] : lines)
            data.costs.push_back(std::move(line));
        return {};
    }
};

} // namespace

std::int64_t bucketStepMs(std::int64_t periodMs)
{
    static constexpr std::int64_t kSteps[] = { 5 * kMinuteMs, 15 * kMinuteMs, 30 * kMinuteMs, kHourMs, 3 * kHourMs,
        6 * kHourMs, 12 * kHourMs, 24 * kHourMs };
    for (const std::int64_t step : kSteps)
        if ((periodMs + step - 1) / step <= static_cast<std::int64_t>(kMaxBuckets))
            return step;
    return (periodMs + static_cast<std::int64_t>(kMaxBuckets) - 1) / static_cast<std::int64_t>(kMaxBuckets);
}

Expected<ReportData> buildReport(
    const ReportRequest& request, const ClusterFacts& facts, store::Store& store, const ReportSettings& settings)
{
    if (request.toMs <= request.fromMs)
        return makeError(ErrorCode::InvalidArgument, "the period is empty: `from` must be before `to`");
    auto scope = resolveScope(request, facts);
    if (!scope)
        return tl::unexpected(scope.error());
    const std::int64_t step = bucketStepMs(request.toMs - request.fromMs);
    const auto buckets = static_cast<std::size_t>((request.toMs - request.fromMs + step - 1) / step);
    Builder b { request, facts, settings, std::move(*scope), HistoryReader(store, request, step, buckets), {} };
    b.data.request = request;
    b.data.generatedMs = facts.nowMs;
    b.data.stepMs = step;
    for (std::size_t i = 0; i < buckets; ++i)
        b.data.buckets.push_back(request.fromMs + static_cast<std::int64_t>(i) * step);
    b.data.nodes = static_cast<int>(b.scope.nodes.size());
    b.data.pools = static_cast<int>(b.scope.pools.size());
    for (const auto part : { &Builder::utilisation, &Builder::tiers, &Builder::forecasts, &Builder::proposals,
             &Builder::energy, &Builder::costs })
        if (auto done = (b.*part)(); !done)
            return tl::unexpected(done.error());
    b.pending();
    const Language lang = request.language;
    for (const char* key :
        { "note-requested", "note-tiers", "note-energy", "note-cost", "note-forecast", "note-realised" })
        b.data.notes.emplace_back(label(lang, key));
    if (b.m_estimatedPower > 0)
        b.data.notes.push_back(lang == Language::ZhCN
                ? std::to_string(b.m_estimatedPower) + " 个节点没有功率模型，其能耗按估算值计（空闲 "
                    + formatNumber(settings.idleWattsPerNode, 0) + " W，每个忙碌核心 "
                    + formatNumber(settings.wattsPerBusyCore, 0) + " W）。"
                : std::to_string(b.m_estimatedPower) + " node(s) have no power model; their energy is estimated ("
                    + formatNumber(settings.idleWattsPerNode, 0) + " W idle, "
                    + formatNumber(settings.wattsPerBusyCore, 0) + " W per busy core).");
    if (b.m_recordedHours > 0 && b.m_recordedHours < b.m_elapsedHours - 1e-9)
        b.data.notes.push_back(lang == Language::ZhCN
                ? "均值只按有记录的时段计算：本时段已过去的 " + formatNumber(b.m_elapsedHours) + " 小时中有 "
                    + formatNumber(b.m_recordedHours)
                    + " 小时记录了 CPU 申请量（其余时段资源池尚未创建，或守护进程未运行）。"
                : "Means are over the hours with records: CPU requests were recorded in "
                    + formatNumber(b.m_recordedHours) + " of the period's " + formatNumber(b.m_elapsedHours)
                    + " hours so far (in the rest a pool did not exist yet, or the daemon was not running).");
    if (const std::int64_t cutoff = facts.nowMs - facts.closedProposalsKeptMs;
        facts.closedProposalsKeptMs > 0 && request.fromMs < cutoff) {
        const std::string days = std::to_string(facts.closedProposalsKeptMs / (24 * kHourMs));
        b.data.notes.push_back(lang == Language::ZhCN
                ? "已关闭的调整建议只保留 " + days + " 天（tidepoold 配置项 proposalDays）：本报告不含 "
                    + formatTime(cutoff) + " UTC 之前已关闭的建议；其决定仍记录在审计日志中（tidepoolctl audit）。"
                : "Closed proposals are kept for " + days
                    + " days (tidepoold's `proposalDays`): this report lists none closed before " + formatTime(cutoff)
                    + " UTC. The audit log (`tidepoolctl audit`) still holds their decisions.");
    }
    for (const PoolFacts* p : b.scope.pools)
        if (p->deletedMs != 0)
            b.data.notes.push_back(lang == Language::ZhCN
                    ? "资源池 " + p->name + " 已于 " + formatTime(p->deletedMs)
                        + " UTC 删除：本报告计入其删除前的用量与成本，按其删除时的业务线与节点计算。"
                    : "Pool " + p->name + " was deleted at " + formatTime(p->deletedMs)
                        + " UTC: its use and cost until then are counted, under the business line and on the nodes "
                          "it had then.");
    if (settings.prices.empty())
        b.data.notes.emplace_back(lang == Language::ZhCN
                ? "未配置节点类别价格（tidepoold 配置项 reportPrices），成本未计算。"
                : "No node class prices are configured (tidepoold's `reportPrices`), so costs are not measured.");
    return std::move(b.data);
}

} // namespace tidepool::report
