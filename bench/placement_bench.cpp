// tidepool-bench placement: placement throughput and latency of the scheduler on a synthetic heterogeneous
// cluster in steady state. The cluster is filled to a realistic level first; then every measured placement is
// paired with the release of an earlier workload (churn), so utilisation stays near the fill level. Only
// `Scheduler::place` is timed, one call at a time, on one thread.

#include "bench/synthetic_cluster.h"
#include "core/sched/scheduler.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <unordered_map>

using namespace tidepool;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
    std::int32_t nodes = 1000;
    std::int64_t workloads = 10000;
    std::string policy = "default";
    std::uint64_t seed = 42;
    bool json = false;
    double fillPct = 80;
    std::int32_t scoreBudget = 0; // 0 = the scheduler's default
    bool exhaustive = false;
    bool noPreemption = false; // measures a profile's scoring without its preemption search
};

int usage()
{
    std::cerr
        << "usage: tidepool-bench placement --nodes <n> --workloads <m> [--policy <profile>] [--seed <s>]\n"
           "                                [--fill-pct <p>] [--score-budget <b>] [--exhaustive] [--no-preemption]\n"
           "                                [--json]\n";
    return 2;
}

bool parse(int argc, char** argv, Options& o)
{
    if (argc < 2 || std::string(argv[1]) != "placement")
        return false;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
        const char* v = nullptr;
        if (a == "--json")
            o.json = true;
        else if (a == "--exhaustive")
            o.exhaustive = true;
        else if (a == "--no-preemption")
            o.noPreemption = true;
        else if ((a == "--nodes") && (v = value()))
            o.nodes = std::atoi(v);
        else if (a == "--workloads" && (v = value()))
            o.workloads = std::atoll(v);
        else if (a == "--policy" && (v = value()))
            o.policy = v;
        else if (a == "--seed" && (v = value()))
            o.seed = std::strtoull(v, nullptr, 10);
        else if (a == "--fill-pct" && (v = value()))
            o.fillPct = std::atof(v);
        else if (a == "--score-budget" && (v = value()))
            o.scoreBudget = std::atoi(v);
        else
            return false;
    }
    return o.nodes > 0 && o.workloads > 0 && o.fillPct > 0 && o.fillPct < 100;
}

std::string cpuModel()
{
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0)
            return line.substr(line.find(':') + 2);
    return "unknown";
}

// What one live workload holds, so that utilisation is tracked without scanning the cluster.
struct Held {
    std::int64_t cpuMillis = 0;
    std::int64_t gpuShare = 0;
};

class Bench {
public:
    Bench(const Options& o, ClusterState& cluster, const bench::SyntheticCluster& synthetic)
        : m_options(o)
        , m_cluster(cluster)
        , m_synthetic(synthetic)
        , m_generator(cluster, synthetic, o.seed + 1)
        , m_rng(o.seed + 2)
    {
    }

    double cpuUtil() const
    {
        return 100.0 * static_cast<double>(m_cpuUsed) / static_cast<double>(m_synthetic.cpuMillisTotal);
    }
    double gpuUtil() const
    {
        return m_synthetic.gpuShareTotal == 0
            ? 0
            : 100.0 * static_cast<double>(m_gpuUsed) / static_cast<double>(m_synthetic.gpuShareTotal);
    }
    double util() const { return std::max(cpuUtil(), gpuUtil()); }

    // Places until CPU or GPU utilisation reaches the fill level; gives up after a bounded number of tries.
    void fill(Scheduler& scheduler, nlohmann::json& out)
    {
        m_scheduler = &scheduler;
        const auto start = Clock::now();
        std::int64_t tries = 0;
        std::int64_t failed = 0;
        while (util() < m_options.fillPct && tries < 100LL * m_options.nodes) {
            ++tries;
            Decision d = placeNext(nullptr);
            failed += !d.placement;
        }
        out["fill_placed"] = tries - failed;
        out["fill_failed"] = failed;
        out["fill_ms"] = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    }

    void measure(Scheduler& scheduler, nlohmann::json& out)
    {
        m_scheduler = &scheduler;
        std::vector<std::int64_t> ns;
        ns.reserve(static_cast<std::size_t>(m_options.workloads));
        std::int64_t failed = 0;
        std::int64_t released = 0;
        std::int64_t preempted = 0;
        std::map<std::string, std::int64_t> failedBy;
        double scoredSum = 0; // feasible nodes the policies scored
        double consideredSum = 0; // nodes counted in the report, one by one or by class
        double utilCpuSum = 0;
        double utilGpuSum = 0;
        double utilMin = 100;
        double utilMax = 0;
        const auto start = Clock::now();
        for (std::int64_t i = 0; i < m_options.workloads; ++i) {
            // Release first while at or above the fill level, so utilisation hovers around it.
            if (util() >= m_options.fillPct - 2.0 && !m_live.empty()) {
                releaseRandom();
                ++released;
            }
            std::int64_t took = 0;
            Decision d = placeNext(&took);
            ns.push_back(took);
            failed += !d.placement;
            if (!d.placement)
                ++failedBy[std::string(toString(d.report.mainReason()))];
            preempted += static_cast<std::int64_t>(d.victims.size());
            scoredSum += d.report.feasible;
            consideredSum += d.report.nodesConsidered;
            utilCpuSum += cpuUtil();
            utilGpuSum += gpuUtil();
            utilMin = std::min(utilMin, util());
            utilMax = std::max(utilMax, util());
        }
        const double wallMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        double totalNs = 0;
        for (std::int64_t t : ns)
            totalNs += static_cast<double>(t);
        auto percentile = [&](double p) {
            std::vector<std::int64_t> copy = ns;
            const auto k = static_cast<std::size_t>(p * static_cast<double>(copy.size() - 1));
            std::nth_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(k), copy.end());
            return static_cast<double>(copy[k]) / 1000.0;
        };
        const auto n = static_cast<double>(ns.size());
        out["placements_per_s"] = n / (totalNs / 1e9);
        out["mean_us"] = totalNs / n / 1000.0;
        out["p50_us"] = percentile(0.50);
        out["p90_us"] = percentile(0.90);
        out["p99_us"] = percentile(0.99);
        out["max_us"] = percentile(1.0);
        out["failed"] = failed;
        out["failed_by_reason"] = failedBy;
        out["scored_mean"] = scoredSum / n;
        out["considered_mean"] = consideredSum / n;
        out["released"] = released;
        out["preempted"] = preempted;
        out["utilisation_cpu_pct"] = utilCpuSum / n;
        out["utilisation_gpu_pct"] = utilGpuSum / n;
        out["utilisation_range_pct"] = { utilMin, utilMax };
        out["measure_wall_ms"] = wallMs;
    }

private:
    // Places the oldest preempted workload waiting to come back, else a new one from the stream. A workload
    // that does not fit is dropped, so that the pending set stays as small as in a live system that retries.
    Decision placeNext(std::int64_t* tookNs)
    {
        WorkloadId id = 0;
        if (!m_requeued.empty()) {
            id = m_requeued.front();
            m_requeued.erase(m_requeued.begin());
        } else {
            id = m_nextId++;
            (void)m_cluster.addWorkload(m_generator.next(id));
        }
        const auto t0 = Clock::now();
        Decision d = m_scheduler->place(id);
        const auto t1 = Clock::now();
        if (tookNs)
            *tookNs = std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
        for (WorkloadId victim : d.victims) {
            forget(victim);
            m_requeued.push_back(victim);
        }
        if (d.placement) {
            Held h;
            h.cpuMillis = m_cluster.workload(id)->workload.requests.cpuMillis;
            const Node& node = m_cluster.node(d.placement->node);
            for (const DeviceShare& s : d.placement->shares)
                if (node.devices[static_cast<std::size_t>(s.device)].kind == AcceleratorKind::Gpu)
                    h.gpuShare += s.share;
            m_cpuUsed += h.cpuMillis;
            m_gpuUsed += h.gpuShare;
            m_where[id] = m_live.size();
            m_live.push_back({ id, h });
        } else {
            (void)m_cluster.removeWorkload(id);
        }
        return d;
    }

    void releaseRandom()
    {
        const std::size_t i = std::uniform_int_distribution<std::size_t>(0, m_live.size() - 1)(m_rng);
        const WorkloadId id = m_live[i].first;
        (void)m_scheduler->release(id);
        forget(id);
        (void)m_cluster.removeWorkload(id);
    }

    // Drops a workload that is no longer placed (released or preempted) from the live set.
    void forget(WorkloadId id)
    {
        auto it = m_where.find(id);
        if (it == m_where.end())
            return;
        const std::size_t i = it->second;
        m_cpuUsed -= m_live[i].second.cpuMillis;
        m_gpuUsed -= m_live[i].second.gpuShare;
        m_where.erase(it);
        if (i + 1 != m_live.size()) {
            m_live[i] = m_live.back();
            m_where[m_live[i].first] = i;
        }
        m_live.pop_back();
    }

    const Options& m_options;
    ClusterState& m_cluster;
    const bench::SyntheticCluster& m_synthetic;
    Scheduler* m_scheduler = nullptr;
    bench::WorkloadGenerator m_generator;
    std::mt19937_64 m_rng;
    WorkloadId m_nextId = 1;
    std::vector<std::pair<WorkloadId, Held>> m_live;
    std::vector<WorkloadId> m_requeued; // preempted, waiting to be placed again
    std::unordered_map<WorkloadId, std::size_t> m_where;
    std::int64_t m_cpuUsed = 0;
    std::int64_t m_gpuUsed = 0;
};

} // namespace

int main(int argc, char** argv)
{
    Options o;
    if (!parse(argc, argv, o))
        return usage();
    const auto start = Clock::now();

    ClusterState cluster;
    const bench::SyntheticCluster synthetic = bench::buildSyntheticCluster(cluster, o.nodes, o.seed);

    PolicyRegistry registry = PolicyRegistry::withBuiltins();
    std::optional<Profile> profile = builtinProfile(o.policy, registry);
    if (!profile) {
        std::cerr << "tidepool-bench: unknown profile '" << o.policy << "'\n";
        return 2;
    }
    if (auto valid = validateProfile(*profile, registry); !valid) {
        std::cerr << "tidepool-bench: " << valid.error().message << "\n";
        return 2;
    }
    nlohmann::json used = nlohmann::json::array();
    for (const ProfileEntry& e : profile->entries)
        used.push_back(e.policy);

    if (o.noPreemption)
        profile->preemption = false;
    PolicyOptions options;
    options.seed = o.seed;
    options.typicalMix = bench::WorkloadGenerator(cluster, synthetic, o.seed + 3).sample(4000);
    SchedulerConfig config;
    config.exhaustive = o.exhaustive;
    if (o.scoreBudget > 0)
        config.scoreBudget = o.scoreBudget;

    nlohmann::json out;
    out["nodes"] = o.nodes;
    out["workloads"] = o.workloads;
    out["policy"] = o.policy;
    out["policies_used"] = used;
    out["seed"] = o.seed;
    out["exhaustive"] = config.exhaustive;
    out["preemption"] = profile->preemption;
    out["score_budget"] = config.scoreBudget;
    out["gpus_total"] = synthetic.gpuShareTotal / 1000;

    Bench bench(o, cluster, synthetic);
    {
        // The fill is not measured and runs without preemption: at 50,000 nodes every failed fill placement would
        // otherwise pay a preemption search over the whole cluster, and the fill would take minutes.
        Profile fillProfile = *profile;
        fillProfile.preemption = false;
        Scheduler filler(cluster, fillProfile, registry, options, config);
        bench.fill(filler, out);
    }
    // The measured scheduler starts on the filled cluster, as a restarted core would.
    Scheduler scheduler(cluster, *profile, registry, std::move(options), config);
    bench.measure(scheduler, out);
    out["wall_ms"] = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    out["hardware_concurrency"] = std::thread::hardware_concurrency();
    out["cpu_model"] = cpuModel();

    if (o.json) {
        std::cout << out.dump() << '\n';
    } else {
        std::cout << o.nodes << " nodes, " << o.workloads << " placements, profile " << o.policy << ": "
                  << out["placements_per_s"].get<double>() << " placements/s, p50 " << out["p50_us"].get<double>()
                  << " us, p99 " << out["p99_us"].get<double>() << " us, failed " << out["failed"] << '\n';
    }
    return 0;
}
