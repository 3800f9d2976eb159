// tidepool-sim scenario: see scenario.h. The core runs unmodified; this file plays the agents, the autoscalers, the
// batch users and the operator, and keeps the books.

#include "core/sim/scenario.h"

#include "core/api/control_plane.h"
#include "core/api/history_recorder.h"
#include "core/api/rebalancer.h"
#include "core/forecast/series.h"
#include "core/model/csv.h"
#include "core/rebalance/evaluator.h"
#include "core/sim/latency.h"
#include "core/sim/load_shape.h"
#include "core/sim/simulated_core.h"
#include "core/sim/openb.h"
#include "core/store/store.h"

#include <boost/asio/io_context.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <set>

namespace tidepool::sim {

namespace {

constexpr std::int64_t kMinuteMs = 60'000;
constexpr std::int64_t kHourMs = 60 * kMinuteMs;
constexpr std::int64_t kDayMs = 24 * kHourMs;
constexpr std::int64_t kReplicaCpuMillis = 4000; // one service replica
constexpr std::int64_t kReplicaMemoryMiB = 8192;
constexpr std::int64_t kInferenceCpuMillis = 8000; // one inference replica, with one whole GPU
constexpr std::int64_t kInferenceMemoryMiB = 32768;
constexpr std::int32_t kGpusPerHotNode = 8;
constexpr std::int64_t kWarmCpu = 64'000, kWarmMemory = 256 * 1024;
constexpr std::int64_t kHotCpu = 96'000, kHotMemory = 768 * 1024;
constexpr std::int64_t kColdCpu = 64'000, kColdMemory = 256 * 1024;
constexpr double kSlowP99S = 0.2;
// Hosts of time-sliced accelerators (see `SliceStream`).
constexpr int kFpgasPerNode = 2;
constexpr std::int32_t kFpgaSlots = 8; // time-slice slots of one FPGA
constexpr std::int64_t kFpgaMemoryMiB = 64 * 1024;
constexpr std::int64_t kFpgaCpu = 32'000, kFpgaHostMemory = 128 * 1024;
constexpr int kNpusPerNode = 4;
constexpr std::int32_t kNpuCores = 8;
constexpr std::int64_t kNpuMemoryMiB = 24 * 1024;
constexpr std::int64_t kNpuHostCpu = 64'000, kNpuHostMemory = 256 * 1024;

struct Line {
    std::string name;
    const LoadShape* shape = nullptr;
    std::int64_t offsetMs = 0; // where in the series the simulation's start falls
    double peakMillis = 0; // CPU at the shape's peak over the run
    std::deque<WorkloadId> replicas; // oldest first
    double demandMillis = 0; // now
    std::deque<std::pair<std::int64_t, std::size_t>> recentWanted; // the scale-down window's counts, oldest first
};

struct BatchJob {
    OpenbPod pod;
    std::int64_t arriveMs = 0;
    std::int64_t runtimeMs = 0;
};

struct BatchRecord {
    std::size_t job = 0;
    std::int64_t submittedMs = 0;
    std::int64_t firstStartMs = 0;
    std::int64_t endMs = 0;
    std::size_t starts = 0;
    bool measured = false;
    double lostGpuHours = 0; // GPU-hours its stopped runs had done, lost with them
};

// A stream of time-sliced accelerator work: FPGA slots or NPU cores, 1 to `maxShare` of one device each. Its load is
// synthetic, as ../shared/data has no trace of such work: arrivals are a Poisson process whose rate follows a load
// series' shape (so it rises and falls with the rest of the fleet), with `peakPerMinute` arrivals a minute at the
// shape's peak; sizes are uniform and run times log-uniform between `minRunMs` and `maxRunMs`.
struct SliceStream {
    std::string pool; // its own pool and business line
    std::string prefix; // workloads are named prefix-0001, prefix-0002...
    AcceleratorKind kind = AcceleratorKind::None;
    const LoadShape* shape = nullptr;
    std::int64_t offsetMs = 0;
    double peakPerMinute = 0;
    std::int32_t maxShare = 4;
    std::int64_t minRunMs = 5 * kMinuteMs;
    std::int64_t maxRunMs = kHourMs;
    std::int64_t cpuMillis = 0;
    std::int64_t memoryMiB = 0;
    std::int32_t priority = 60; // over services and batch, under inference
    int submitted = 0;
};

struct SliceJob {
    std::size_t stream = 0;
    std::int64_t runtimeMs = 0; // from each start: a restarted job runs again from the beginning
};

using Running = SimulatedAgents::Running;

class Simulation {
public:
    explicit Simulation(const ScenarioConfig& config)
        : m_config(config)
    {
    }

    Expected<void> start();
    void step();
    bool done() const { return m_now >= m_endMs; }
    void poll()
    {
        m_plane->whenSaved([](const std::optional<std::string>&) {});
        pump();
    }
    ScenarioResult result() const;
    api::ControlPlane& plane() { return *m_plane; }
    api::Rebalancer* rebalancer() { return m_rebalancer.get(); }
    std::int64_t nowMs() const { return m_now; }

private:
    Expected<void> loadLoad();
    Expected<void> buildCore();
    void joinNodes();
    void createPools();
    void pump();
    std::int64_t launched(WorkloadId id);
    void stopped(WorkloadId id, const Running& running);
    std::int64_t launchMs(WorkloadId id) const;
    void finishBatch();
    void submitArrivals();
    void planSlices(std::int64_t runMs);
    void finishSlices();
    void submitSlices();
    std::size_t stabilised(Line& line, std::size_t wanted);
    std::size_t forecastRise();
    void scaleLines();
    void scaleInference();
    void heartbeat();
    void evaluate();
    void account();
    void finish();
    void debugLine() const;
    bool measuring() const { return m_now >= m_measureFromMs; }
    bool surprised() const
    {
        const auto& s = m_config.surprise;
        return s.durationMs > 0 && m_now >= m_startMs + s.atMs && m_now < m_startMs + s.atMs + s.durationMs;
    }
    // A load's share of its peak now: its trace's, or what the surprise makes of it.
    double loadNow(const Line& line, bool surprisable) const
    {
        const double traced = line.shape->at(m_now - m_startMs + line.offsetMs);
        return surprisable && surprised() ? traced * m_config.surprise.factor + m_config.surprise.add : traced;
    }
    const bool m_debug = std::getenv("TIDEPOOL_SIM_DEBUG") != nullptr;
    // TIDEPOOL_SIM_DEBUG=<minutes>: a line that often (30 by default).
    const std::int64_t m_debugEveryMs
        = std::max(1, std::atoi(m_debug ? std::getenv("TIDEPOOL_SIM_DEBUG") : "30")) * kMinuteMs;
    // Static allocation's inference nodes: its peak in GPUs with the headroom the evaluation plans with (this run's,
    // or the daemon's default: the batch load is offered against the latter, so that runs differing in the headroom
    // see the same batch).
    int staticReservedNodes(double headroom) const
    {
        const double peakGpus = m_config.inferencePeakShare * static_cast<double>(m_config.hotNodes * kGpusPerHotNode);
        return std::min(m_config.hotNodes, static_cast<int>(std::ceil(peakGpus * headroom / kGpusPerHotNode - 1e-9)));
    }
    int staticReservedNodes() const { return staticReservedNodes(m_config.headroom); }

    ScenarioConfig m_config;
    std::int64_t m_startMs = 0;
    std::int64_t m_now = 0;
    std::int64_t m_measureFromMs = 0;
    std::int64_t m_endMs = 0;
    std::int64_t m_nextEvaluation = 0;
    std::chrono::steady_clock::time_point m_started;
    std::optional<LoadShape> m_google, m_alibaba, m_genai;
    std::vector<Line> m_lines;
    Line m_inference; // peakMillis here: requests/s at the peak
    double m_inferenceQps = 0;
    std::vector<BatchJob> m_jobs;
    std::size_t m_nextJob = 0;
    std::size_t m_skippedPods = 0;
    double m_batchCompression = 0;

    boost::asio::io_context m_io;
    std::unique_ptr<store::Store> m_store;
    std::unique_ptr<api::ControlPlane> m_plane;
    std::unique_ptr<api::HistoryRecorder> m_recorder;
    std::unique_ptr<api::Rebalancer> m_rebalancer;
    Outbox m_outbox;
    SimulatedAgents m_agents { { [this](WorkloadId id) { return launched(id); },
        [this](WorkloadId id, const Running& running) { stopped(id, running); } } };
    std::map<WorkloadId, BatchRecord> m_batch;
    std::vector<SliceStream> m_streams; // none unless `fpgaNodes` or `npuNodes`
    std::map<WorkloadId, SliceJob> m_slices;
    std::mt19937_64 m_sliceRandom; // the streams' draws only: the rest of the run does not depend on them
    std::uint64_t m_sequence = 0;
    PowerSwitch m_power { m_config.bootMs };

    // Books, over the measured time.
    double m_steps = 0;
    double m_cpuUse = 0, m_gpuUse = 0, m_cpuAlloc = 0, m_gpuAlloc = 0;
    double m_nodeHours = 0, m_cost = 0, m_coreHours = 0, m_gpuHours = 0;
    ScenarioResult::HotNodeHours m_hotHours;
    double m_serviceWanted = 0, m_serviceMissing = 0;
    double m_inferenceWanted = 0, m_inferenceMissing = 0;
    std::vector<QueueMinute> m_queueMinutes;
    // `forecastRise`'s, read once after each evaluation (which may have stored a newer one; before the first, none).
    std::optional<store::StoredForecast> m_inferenceForecast;
    bool m_forecastToRead = true;
    std::size_t m_aheadNow = 0; // inference replicas added ahead of the forecast now (the debug line's)
    std::size_t m_slowMinutes = 0;
    std::size_t m_created = 0;
    std::size_t m_invariantViolations = 0;
    ScenarioResult::SurpriseBooks m_surprise;
    std::set<std::string> m_bootedInSurprise;
};

Expected<void> Simulation::loadLoad()
{
    auto shapes = loadTraceShapes(m_config.dataDir);
    if (!shapes)
        return tl::unexpected(shapes.error());
    m_google = std::move(shapes->google);
    m_alibaba = std::move(shapes->alibaba);
    m_genai = std::move(shapes->genai);

    const std::int64_t runMs = m_config.days * kDayMs;
    const double warmCpu = static_cast<double>(m_config.warmNodes) * static_cast<double>(kWarmCpu);
    // Three business lines whose own peaks fill 85% of the warm tier: static allocation gives each its peak.
    const std::vector<std::tuple<std::string, const LoadShape*, std::int64_t, double>> lines {
        { "search", &*m_google, 0, 0.38 }, { "ads", &*m_alibaba, 0, 0.27 }, { "video", &*m_google, 8 * kHourMs, 0.35 } };
    for (const auto& [name, shape, offset, share] : lines) {
        Line line;
        line.name = name;
        line.shape = shape;
        line.offsetMs = offset;
        line.peakMillis = 0.85 * share * warmCpu / shape->peak(offset, offset + runMs);
        m_lines.push_back(std::move(line));
    }
    // Inference: the GenAI fleet's requests, day after day; at its peak it wants `inferencePeakShare` of the hot GPUs.
    m_inference.name = "inference";
    m_inference.shape = &*m_genai;
    m_inference.offsetMs = 0;
    const double mu = 1000.0 / m_config.inferenceServiceMs;
    const double peakReplicas
        = m_config.inferencePeakShare * static_cast<double>(m_config.hotNodes * kGpusPerHotNode);
    m_inference.peakMillis = peakReplicas * mu * m_config.inferenceTargetUtilisation
        / m_genai->peak(m_inference.offsetMs, m_inference.offsetMs + runMs);

    // Batch: the openb pods that ended (succeeded or failed) in the trace, with their lifetimes as run times, in
    // arrival order; pods no node of the cluster could hold are left out.
    auto pods = loadOpenbPods(m_config.dataDir + "/openb/openb_pod_list_default.csv");
    if (!pods)
        return tl::unexpected(pods.error());
    std::vector<OpenbPod> ended;
    for (OpenbPod& p : *pods) {
        if (p.creationS < 0 || p.deletionS <= p.creationS)
            continue;
        const bool fits = p.gpus == 0 ? p.cpuMillis <= kColdCpu && p.memoryMiB <= kColdMemory
                                      : p.gpus <= kGpusPerHotNode && p.cpuMillis <= kHotCpu - kInferenceCpuMillis
                && p.memoryMiB <= kHotMemory - kInferenceMemoryMiB;
        if (!fits) {
            ++m_skippedPods;
            continue;
        }
        ended.push_back(std::move(p));
    }
    // The trace's "Running" and "Pending" pods never ended: they are services, not batch.
    std::erase_if(ended, [](const OpenbPod& p) { return p.deletionS - p.creationS > 2 * 86400; });
    std::stable_sort(ended.begin(), ended.end(), [](const OpenbPod& a, const OpenbPod& b) {
        return a.creationS < b.creationS;
    });
    if (ended.size() < 2)
        return makeError(ErrorCode::ParseError, "openb_pod_list_default.csv: fewer than two pods with lifetimes");
    // Compress the gaps between arrivals so that the offered GPU load is `batchLoad` of the GPUs static allocation
    // leaves to batch (the hot nodes its inference peak with the default headroom does not need).
    double gpuSeconds = 0;
    for (const OpenbPod& p : ended)
        gpuSeconds += static_cast<double>(p.requestedMilli()) / 1000.0 * static_cast<double>(p.deletionS - p.creationS);
    const double spanS = static_cast<double>(ended.back().creationS - ended.front().creationS);
    const int reserved = staticReservedNodes(rebalance::EvaluatorConfig {}.headroom);
    const double batchGpus = static_cast<double>((m_config.hotNodes - reserved) * kGpusPerHotNode);
    if (batchGpus <= 0)
        return makeError(ErrorCode::InvalidArgument, "the inference peak leaves static allocation no GPUs for batch");
    m_batchCompression = m_config.batchLoad * batchGpus * spanS / gpuSeconds;
    const double passMs = spanS * 1000.0 / m_batchCompression;
    // Seconds into the trace each pod arrives, from `batchStart` on, wrapping around the span.
    const auto startS = static_cast<std::int64_t>(m_config.batchStart * spanS);
    const auto span = static_cast<std::int64_t>(spanS);
    auto offsetS = [&](const OpenbPod& p) {
        const std::int64_t intoTrace = p.creationS - ended.front().creationS;
        return m_config.batchStart > 0 ? ((intoTrace - startS) % span + span) % span : intoTrace;
    };
    for (int pass = 0; static_cast<double>(pass) * passMs < static_cast<double>(runMs); ++pass)
        for (const OpenbPod& p : ended) {
            BatchJob job;
            job.pod = p;
            job.arriveMs = m_startMs
                + static_cast<std::int64_t>(
                    static_cast<double>(pass) * passMs + static_cast<double>(offsetS(p)) * 1000.0 / m_batchCompression);
            job.runtimeMs = std::max<std::int64_t>(1000, (p.deletionS - p.creationS) * 1000);
            if (job.arriveMs < m_startMs + runMs)
                m_jobs.push_back(std::move(job));
        }
    std::stable_sort(m_jobs.begin(), m_jobs.end(), [](const BatchJob& a, const BatchJob& b) {
        return a.arriveMs < b.arriveMs;
    });
    planSlices(runMs);
    return {};
}

void Simulation::planSlices(std::int64_t runMs)
{
    m_sliceRandom.seed(m_config.seed);
    // Transcoding and speech recognition follow the "video" line's audience: the Google series, 8 hours east.
    const LoadShape* shape = &*m_google;
    const std::int64_t offset = 8 * kHourMs;
    const double peak = shape->peak(offset, offset + runMs);
    const auto add = [&](SliceStream stream, int devices, std::int32_t capacity) {
        if (devices <= 0)
            return;
        stream.shape = shape;
        stream.offsetMs = offset;
        // Occupancy = arrivals × mean run time × mean size (Little's law): three quarters of the slots at the peak.
        const double meanRunMin = static_cast<double>(stream.maxRunMs - stream.minRunMs)
            / std::log(static_cast<double>(stream.maxRunMs) / static_cast<double>(stream.minRunMs)) / kMinuteMs;
        const double meanShare = (1.0 + stream.maxShare) / 2.0;
        stream.peakPerMinute = 0.75 * devices * capacity / (meanRunMin * meanShare) / peak;
        m_streams.push_back(std::move(stream));
    };
    SliceStream fpga;
    fpga.pool = "video-transcode";
    fpga.prefix = "transcode";
    fpga.kind = AcceleratorKind::Fpga;
    fpga.cpuMillis = 1000;
    fpga.memoryMiB = 4096;
    add(std::move(fpga), m_config.fpgaNodes * kFpgasPerNode, kFpgaSlots);
    SliceStream npu;
    npu.pool = "speech-to-text";
    npu.prefix = "speech";
    npu.kind = AcceleratorKind::Npu;
    npu.cpuMillis = 2000;
    npu.memoryMiB = 8192;
    add(std::move(npu), m_config.npuNodes * kNpusPerNode, kNpuCores);
}

Expected<void> Simulation::buildCore()
{
    static_assert(ScenarioConfig {}.drainSteps == api::RebalanceConfig {}.drainSteps);
    std::optional<api::RebalanceConfig> rebalance;
    if (m_config.mode == ScenarioMode::Tidepool) {
        rebalance.emplace();
        rebalance->period = std::chrono::milliseconds(m_config.evaluationPeriodMs);
        rebalance->drainSteps = m_config.drainSteps;
        rebalance->evaluator.maxPowerDownsPerNodePerDay = m_config.maxPowerDownsPerNodePerDay;
        rebalance->evaluator.headroom = m_config.headroom;
    }
    auto core = buildSimulatedCore(
        m_io, m_config.dbPath, [this] { return m_now; }, m_outbox, rebalance);
    if (!core)
        return tl::unexpected(core.error());
    m_store = std::move(core->store);
    m_plane = std::move(core->plane);
    m_recorder = std::move(core->recorder);
    m_rebalancer = std::move(core->rebalancer);
    return {};
}

void Simulation::joinNodes()
{
    const auto join = [&](const std::string& name, const char* isa, std::int64_t cpu, std::int64_t memory, int count,
                          protocol::DeviceInfo device = protocol::DeviceInfo { 0, "gpu", "A10", 24576, 1000 }) {
        protocol::Inventory inventory;
        inventory.isa = isa;
        inventory.cpuMillis = cpu;
        inventory.memoryMiB = memory;
        for (int d = 0; d < count; ++d) {
            device.index = d;
            inventory.devices.push_back(device);
        }
        m_power.join(*m_plane, name, std::move(inventory));
    };
    char name[32];
    for (int i = 0; i < m_config.warmNodes; ++i) {
        std::snprintf(name, sizeof name, "warm-%02d", i + 1);
        join(name, "x86_64", kWarmCpu, kWarmMemory, 0);
    }
    for (int i = 0; i < m_config.hotNodes; ++i) {
        std::snprintf(name, sizeof name, "hot-%02d", i + 1);
        join(name, "x86_64", kHotCpu, kHotMemory, kGpusPerHotNode);
    }
    for (int i = 0; i < m_config.coldNodes; ++i) {
        std::snprintf(name, sizeof name, "cold-%02d", i + 1);
        join(name, "aarch64", kColdCpu, kColdMemory, 0);
    }
    // After the others, so that the node ids (and names) of a fleet without them are as they always were.
    for (int i = 0; i < m_config.fpgaNodes; ++i) {
        std::snprintf(name, sizeof name, "fpga-%02d", i + 1);
        join(name, "x86_64", kFpgaCpu, kFpgaHostMemory, kFpgasPerNode,
            protocol::DeviceInfo { 0, "fpga", "Alveo U250", kFpgaMemoryMiB, kFpgaSlots });
    }
    for (int i = 0; i < m_config.npuNodes; ++i) {
        std::snprintf(name, sizeof name, "npu-%02d", i + 1);
        join(name, "aarch64", kNpuHostCpu, kNpuHostMemory, kNpusPerNode,
            protocol::DeviceInfo { 0, "npu", "Ascend 310P", kNpuMemoryMiB, kNpuCores });
    }
    // Both modes start with the hot nodes the inference peak needs reserved for it; static keeps it so.
    for (int i = 0, reserved = staticReservedNodes(); i < reserved; ++i) {
        std::snprintf(name, sizeof name, "hot-%02d", i + 1);
        (void)m_plane->setPeakReserved(name, true, "kept for real-time inference");
    }
    pump();
}

void Simulation::createPools()
{
    for (const Line& line : m_lines) {
        api::PoolRequest request;
        request.name = line.name;
        request.businessLine = line.name;
        // Its own peak, in whole replicas.
        request.cpuMillis = static_cast<std::int64_t>(std::ceil(line.peakMillis / kReplicaCpuMillis)) * kReplicaCpuMillis;
        (void)m_plane->createPool(request);
    }
    for (const char* name : { "inference", "batch" }) {
        api::PoolRequest request;
        request.name = name;
        request.businessLine = name;
        (void)m_plane->createPool(request);
    }
    for (const SliceStream& stream : m_streams) {
        api::PoolRequest request;
        request.name = stream.pool;
        request.businessLine = stream.pool;
        (void)m_plane->createPool(request);
    }
}

// A launch, as the agents see it: a batch run starts (its first start noted), a replica loads first.
std::int64_t Simulation::launched(WorkloadId id)
{
    if (auto it = m_batch.find(id); it != m_batch.end()) {
        if (it->second.starts++ == 0)
            it->second.firstStartMs = m_now;
    }
    return launchMs(id);
}

// A stop: a batch run's work so far is lost.
void Simulation::stopped(WorkloadId id, const Running& running)
{
    if (auto batch = m_batch.find(id); batch != m_batch.end()) {
        batch->second.lostGpuHours += static_cast<double>(m_jobs[batch->second.job].pod.requestedMilli()) / 1000.0
            * static_cast<double>(m_now - running.startMs) / kHourMs;
        if (surprised())
            ++m_surprise.batchRestarts;
    }
}

// How long the workload takes to serve once launched: replicas load (`ScenarioConfig::inferenceLaunchMs`,
// `serviceLaunchMs`); batch and time-sliced jobs start at once.
std::int64_t Simulation::launchMs(WorkloadId id) const
{
    if (m_batch.contains(id) || m_slices.contains(id))
        return 0;
    const bool inference
        = std::find(m_inference.replicas.begin(), m_inference.replicas.end(), id) != m_inference.replicas.end();
    return inference ? m_config.inferenceLaunchMs : m_config.serviceLaunchMs;
}

void Simulation::pump()
{
    sim::pump(m_io, m_outbox, [this](const std::string& session, const protocol::Message& message) {
        m_agents.deliver(*m_plane, m_now, session, message);
    });
}

void Simulation::finishBatch()
{
    const auto ended = [this](WorkloadId id, const Running& running) {
        const auto it = m_batch.find(id);
        return it != m_batch.end() && m_now >= running.startMs + m_jobs[it->second.job].runtimeMs;
    };
    for (const auto& [id, running] : m_agents.finish(*m_plane, ended)) {
        BatchRecord& record = m_batch[id];
        record.endMs = m_now;
        if (record.measured) {
            const OpenbPod& pod = m_jobs[record.job].pod;
            const double hours = static_cast<double>(m_jobs[record.job].runtimeMs) / kHourMs;
            m_coreHours += static_cast<double>(pod.cpuMillis) / 1000.0 * hours;
            m_gpuHours += static_cast<double>(pod.requestedMilli()) / 1000.0 * hours;
        }
    }
}

void Simulation::submitArrivals()
{
    while (m_nextJob < m_jobs.size() && m_jobs[m_nextJob].arriveMs <= m_now) {
        const OpenbPod& pod = m_jobs[m_nextJob].pod;
        api::SubmitRequest request;
        request.name = pod.name;
        request.pool = "batch";
        request.requests.cpuMillis = pod.cpuMillis;
        request.requests.memoryMiB = pod.memoryMiB;
        request.latency = LatencyClass::Batch;
        if (pod.gpus > 0) {
            request.accelerators.kind = AcceleratorKind::Gpu;
            request.accelerators.count = pod.gpus;
            request.accelerators.sharePerDevice = pod.gpus == 1 && pod.gpuMilli < kGpuShareCapacity ? pod.gpuMilli : 0;
        } else if (m_config.mode == ScenarioMode::Static) {
            request.pinnedTier = Tier::Cold; // static: batch has its own servers
        }
        const auto id = m_plane->submit(std::move(request));
        if (id)
            m_batch[*id] = BatchRecord { m_nextJob, m_now, 0, 0, 0, measuring() };
        ++m_nextJob;
    }
}

void Simulation::finishSlices()
{
    const auto ended = [this](WorkloadId id, const Running& running) {
        const auto it = m_slices.find(id);
        return it != m_slices.end() && m_now >= running.startMs + it->second.runtimeMs;
    };
    for (const auto& [id, running] : m_agents.finish(*m_plane, ended))
        m_slices.erase(id);
}

void Simulation::submitSlices()
{
    const double stepMinutes = static_cast<double>(m_config.stepMs) / kMinuteMs;
    for (std::size_t s = 0; s < m_streams.size(); ++s) {
        SliceStream& stream = m_streams[s];
        const double rate = stream.peakPerMinute * stream.shape->at(m_now - m_startMs + stream.offsetMs);
        if (!(rate > 0))
            continue;
        const int arrivals = std::poisson_distribution<int>(rate * stepMinutes)(m_sliceRandom);
        for (int a = 0; a < arrivals; ++a) {
            const std::int32_t share = std::uniform_int_distribution<std::int32_t>(1, stream.maxShare)(m_sliceRandom);
            const double logRun = std::uniform_real_distribution<double>(std::log(static_cast<double>(stream.minRunMs)),
                std::log(static_cast<double>(stream.maxRunMs)))(m_sliceRandom);
            char name[48];
            std::snprintf(name, sizeof name, "%s-%04d", stream.prefix.c_str(), ++stream.submitted);
            api::SubmitRequest request;
            request.name = name;
            request.pool = stream.pool;
            request.requests.cpuMillis = stream.cpuMillis;
            request.requests.memoryMiB = stream.memoryMiB;
            request.accelerators.kind = stream.kind;
            request.accelerators.count = 1;
            request.accelerators.sharePerDevice = share;
            request.latency = LatencyClass::RealTime;
            request.priority = stream.priority;
            if (const auto id = m_plane->submit(std::move(request)))
                m_slices[*id] = SliceJob { s, static_cast<std::int64_t>(std::exp(logRun)) };
        }
    }
}

// The replicas an autoscaler keeps when the load wants `wanted` now: the most wanted over the scale-down window.
std::size_t Simulation::stabilised(Line& line, std::size_t wanted)
{
    auto& recent = line.recentWanted;
    while (!recent.empty() && recent.front().first <= m_now - m_config.scaleDownDelayMs)
        recent.pop_front();
    recent.emplace_back(m_now, wanted);
    std::size_t most = 0;
    for (const auto& [at, count] : recent)
        most = std::max(most, count);
    return most;
}

// `ScenarioConfig::scaleAhead`: the replicas Tidepool's forecast of the inference pool rises by between now and one
// launch time from now (its mean, step by step; 0 without a forecast yet). Re-read when the loop may have stored a
// newer one.
std::size_t Simulation::forecastRise()
{
    if (!m_config.scaleAhead || m_config.mode != ScenarioMode::Tidepool || m_config.inferenceLaunchMs <= 0)
        return 0;
    if (m_forecastToRead) {
        auto latest = m_store->latestForecast({ "pool", "inference", "cpu" });
        m_inferenceForecast = latest ? *latest : std::nullopt;
        m_forecastToRead = false;
    }
    if (!m_inferenceForecast || m_inferenceForecast->stepMs <= 0 || m_inferenceForecast->points.empty())
        return 0;
    const store::StoredForecast& f = *m_inferenceForecast;
    // The mean at a time, step by step; NaN where a point holds none (a gap is stored as null).
    const auto meanAt = [&](std::int64_t atMs) {
        const auto last = static_cast<std::int64_t>(f.points.size()) - 1;
        const std::int64_t i = std::clamp<std::int64_t>((atMs - f.madeMs) / f.stepMs, 0, last);
        const nlohmann::json& point = f.points[static_cast<std::size_t>(i)];
        return point.is_array() && !point.empty() && point[0].is_number() ? point[0].get<double>()
                                                                          : std::numeric_limits<double>::quiet_NaN();
    };
    const double rise = meanAt(m_now + m_config.inferenceLaunchMs) - meanAt(m_now);
    return rise > 0 ? static_cast<std::size_t>(std::ceil(rise / static_cast<double>(kInferenceCpuMillis))) : 0;
}

void Simulation::scaleLines()
{
    for (Line& line : m_lines) {
        line.demandMillis = line.peakMillis * loadNow(line, m_config.surprise.services);
        const auto wanted
            = stabilised(line, static_cast<std::size_t>(std::ceil(line.demandMillis / kReplicaCpuMillis)));
        while (line.replicas.size() < wanted) {
            api::SubmitRequest request;
            request.name = line.name + "-replica";
            request.pool = line.name;
            request.requests.cpuMillis = kReplicaCpuMillis;
            request.requests.memoryMiB = kReplicaMemoryMiB;
            request.latency = LatencyClass::LatencySensitive;
            request.priority = 50;
            const auto id = m_plane->submit(std::move(request));
            if (!id)
                break;
            line.replicas.push_back(*id);
        }
        while (line.replicas.size() > wanted) { // the newest go first
            (void)m_plane->cancel(line.replicas.back());
            line.replicas.pop_back();
        }
    }
}

void Simulation::scaleInference()
{
    const double mu = 1000.0 / m_config.inferenceServiceMs;
    m_inferenceQps = m_inference.peakMillis * loadNow(m_inference, true);
    const auto wanted = stabilised(m_inference,
        std::max<std::size_t>(
            1, static_cast<std::size_t>(std::ceil(m_inferenceQps / (mu * m_config.inferenceTargetUtilisation))))
            + (m_aheadNow = forecastRise()));
    while (m_inference.replicas.size() < wanted) {
        api::SubmitRequest request;
        request.name = "inference-replica";
        request.pool = "inference";
        request.requests.cpuMillis = kInferenceCpuMillis;
        request.requests.memoryMiB = kInferenceMemoryMiB;
        request.accelerators.kind = AcceleratorKind::Gpu;
        request.accelerators.count = 1;
        request.latency = LatencyClass::RealTime;
        request.priority = 100;
        const auto id = m_plane->submit(std::move(request));
        if (!id)
            break;
        m_inference.replicas.push_back(*id);
    }
    while (m_inference.replicas.size() > wanted) {
        (void)m_plane->cancel(m_inference.replicas.back());
        m_inference.replicas.pop_back();
    }
}

void Simulation::heartbeat()
{
    // What the agents measure: a service replica uses its line's demand spread over the replicas running, an
    // inference replica the share of its GPU the requests keep busy, batch all it asked for.
    std::map<WorkloadId, double> busy; // share of its CPU request a replica uses; batch is absent (1)
    const auto share = [&](const std::deque<WorkloadId>& replicas, double used) {
        std::size_t running = 0;
        for (const WorkloadId id : replicas)
            if (const auto* w = m_plane->workload(id); w && w->phase == api::WorkloadPhase::Running)
                ++running;
        const double factor = running == 0 ? 0.0 : std::min(1.0, used / static_cast<double>(running));
        for (const WorkloadId id : replicas) // one still loading serves nothing yet
            busy[id] = m_agents.loading(id) ? 0.0 : factor;
    };
    for (const Line& line : m_lines)
        share(line.replicas, line.demandMillis / static_cast<double>(kReplicaCpuMillis));
    share(m_inference.replicas, m_inferenceQps * m_config.inferenceServiceMs / 1000.0);
    ++m_sequence;
    for (const api::LiveNode& live : m_plane->nodes()) {
        if (live.sessionId.empty()) // switched off, or booting
            continue;
        const Node& node = m_plane->cluster().node(live.id);
        double usedMillis = 0;
        // The devices as an agent measures them: each busy as the shares on it are, each holder using the memory it
        // requested or, having requested none, its share of the device's.
        protocol::UtilisationSample sample;
        for (std::size_t d = 0; d < node.devices.size(); ++d)
            sample.devices.push_back(protocol::DeviceSample { static_cast<std::int32_t>(d), 0.0, 0 });
        for (const WorkloadId id : node.residents)
            if (const auto* w = m_plane->workload(id)) {
                const auto it = busy.find(id);
                const double factor = it == busy.end() ? 1.0 : it->second;
                usedMillis += static_cast<double>(w->workload.requests.cpuMillis) * factor;
                for (const DeviceShare& s : w->devices) {
                    const auto d = static_cast<std::size_t>(s.device);
                    if (d >= node.devices.size() || node.devices[d].shareCapacity <= 0)
                        continue;
                    sample.devices[d].utilisation = std::min(1.0, sample.devices[d].utilisation
                            + factor * s.share / static_cast<double>(node.devices[d].shareCapacity));
                    sample.devices[d].memoryUsedMiB += s.memoryMiB > 0 ? s.memoryMiB
                        : node.devices[d].memoryMiB * s.share / node.devices[d].shareCapacity;
                }
            }
        sample.timestampMs = m_now;
        sample.cpuUtilisation = usedMillis / static_cast<double>(std::max<std::int64_t>(1, node.capacity.cpuMillis));
        sample.memoryUsedMiB = node.capacity.memoryMiB - node.free.memoryMiB;
        m_plane->onHeartbeat(live.sessionId, protocol::Heartbeat { m_sequence, { sample } });
    }
}

void Simulation::evaluate()
{
    m_recorder->maintain(m_now);
    if (!m_rebalancer)
        return;
    m_created += m_rebalancer->evaluateNow(m_now).size();
    m_forecastToRead = true;
    if (!m_config.operatorApproves)
        return;
    // The operator approves every proposal.
    approveEveryProposal(*m_rebalancer, m_now, [this] {
        pump();
        m_power.apply(*m_plane, m_now); // nodes powered down or up by the proposals just applied
        pump();
    });
}

void Simulation::account()
{
    const double hours = static_cast<double>(m_config.stepMs) / kHourMs;
    const double mu = 1000.0 / m_config.inferenceServiceMs;
    double cpuCapacity = 0, gpuCapacity = 0, cpuAlloc = 0, gpuAlloc = 0, cpuUse = 0, gpuUse = 0;
    for (const api::LiveNode& live : m_plane->nodes()) {
        if (!PowerSwitch::powered(live))
            continue;
        const Node& node = m_plane->cluster().node(live.id);
        if (live.state == api::NodeState::Booting && surprised())
            m_bootedInSurprise.insert(node.name);
        cpuCapacity += static_cast<double>(node.capacity.cpuMillis);
        cpuAlloc += static_cast<double>(node.capacity.cpuMillis - node.free.cpuMillis);
        // The GPU figures are GPUs' only: an FPGA's slots and an NPU's cores are not GPUs.
        for (const Device& d : node.devices)
            if (d.kind == AcceleratorKind::Gpu) {
                gpuCapacity += 1.0;
                gpuAlloc += static_cast<double>(d.shareCapacity - d.shareFree) / static_cast<double>(d.shareCapacity);
            }
        const AcceleratorKind accelerators = node.acceleratorKind();
        const double price = accelerators == AcceleratorKind::Fpga ? m_config.fpgaPrice
            : accelerators == AcceleratorKind::Npu                 ? m_config.npuPrice
            : node.tier == Tier::Hot                               ? m_config.hotPrice
            : node.isa == Isa::Aarch64                             ? m_config.coldPrice
                                                                   : m_config.warmPrice;
        m_nodeHours += hours;
        m_cost += price * hours;
        if (node.tier == Tier::Hot && accelerators == AcceleratorKind::Gpu) {
            const bool inference = std::any_of(node.residents.begin(), node.residents.end(), [&](WorkloadId id) {
                return std::find(m_inference.replicas.begin(), m_inference.replicas.end(), id)
                    != m_inference.replicas.end();
            });
            auto& h = m_hotHours;
            double& held = live.state == api::NodeState::Booting ? h.booting
                : inference                                      ? h.inference
                : !node.residents.empty()                        ? h.batchOnly
                : node.peakReserved                              ? h.idleReserved
                                                                 : h.idleLent;
            held += hours;
        }
    }
    // What is in use: services use their demand (up to the replicas running), inference keeps its GPUs busy as its
    // load asks (and its CPU in proportion), batch uses what it requested.
    std::size_t servingInference = 0;
    for (const WorkloadId id : m_inference.replicas)
        if (const auto* w = m_plane->workload(id); w && w->phase == api::WorkloadPhase::Running)
            ++servingInference;
    double serviceUse = 0;
    bool serviceShort = false;
    for (const Line& line : m_lines) {
        std::size_t running = 0;
        for (const WorkloadId id : line.replicas)
            if (const auto* w = m_plane->workload(id); w && w->phase == api::WorkloadPhase::Running)
                ++running;
        const double served = std::min(line.demandMillis, static_cast<double>(running * kReplicaCpuMillis));
        serviceUse += served;
        m_serviceWanted += static_cast<double>(line.replicas.size());
        m_serviceMissing += static_cast<double>(line.replicas.size() - running);
        if (surprised()) {
            m_surprise.serviceWanted += static_cast<double>(line.replicas.size());
            m_surprise.serviceMissing += static_cast<double>(line.replicas.size() - running);
            serviceShort = serviceShort || running < line.replicas.size();
        }
    }
    const double inferenceBusy = std::min(m_inferenceQps / mu, static_cast<double>(servingInference));
    double batchCpu = 0, batchGpu = 0;
    for (const auto& [id, running] : m_agents.running())
        if (const auto it = m_batch.find(id); it != m_batch.end()) {
            const OpenbPod& pod = m_jobs[it->second.job].pod;
            batchCpu += static_cast<double>(pod.cpuMillis);
            batchGpu += static_cast<double>(pod.requestedMilli()) / 1000.0;
        }
    // Time-sliced work uses the CPU it requested while it runs.
    double sliceCpu = 0;
    for (const auto& [id, running] : m_agents.running())
        if (const auto it = m_slices.find(id); it != m_slices.end())
            sliceCpu += static_cast<double>(m_streams[it->second.stream].cpuMillis);
    const double inferenceCpu = servingInference == 0
        ? 0
        : static_cast<double>(servingInference * kInferenceCpuMillis) * inferenceBusy / static_cast<double>(servingInference);
    cpuUse = serviceUse + batchCpu + inferenceCpu + sliceCpu;
    gpuUse = inferenceBusy + batchGpu;
    m_cpuUse += cpuCapacity > 0 ? cpuUse / cpuCapacity : 0;
    m_gpuUse += gpuCapacity > 0 ? gpuUse / gpuCapacity : 0;
    m_cpuAlloc += cpuCapacity > 0 ? cpuAlloc / cpuCapacity : 0;
    m_gpuAlloc += gpuCapacity > 0 ? gpuAlloc / gpuCapacity : 0;
    m_steps += 1;
    m_coreHours += (serviceUse + inferenceCpu + sliceCpu) / 1000.0 * hours;
    m_gpuHours += inferenceBusy * hours;

    m_inferenceWanted += static_cast<double>(m_inference.replicas.size());
    m_inferenceMissing += static_cast<double>(m_inference.replicas.size() - servingInference);
    const QueueMinute minute { m_inferenceQps, servingInference, m_inferenceQps };
    m_queueMinutes.push_back(minute);
    const auto p99 = sojournQuantile({ minute }, mu, 0.99);
    const bool slow = !p99 || *p99 > kSlowP99S;
    m_slowMinutes += slow;
    if (surprised()) {
        ScenarioResult::SurpriseBooks& b = m_surprise;
        ++b.minutes;
        b.serviceShortMinutes += serviceShort;
        const std::size_t missing = m_inference.replicas.size() - servingInference;
        b.inferenceWanted += static_cast<double>(m_inference.replicas.size());
        b.inferenceMissing += static_cast<double>(missing);
        if (missing > 0) {
            ++b.inferenceShortMinutes;
            b.inferenceShortUntilMin
                = (m_now + m_config.stepMs - m_startMs - m_config.surprise.atMs + kMinuteMs - 1) / kMinuteMs;
        }
        b.inferenceSlowMinutes += slow;
    }
}

ScenarioResult Simulation::result() const
{
    ScenarioResult r;
    r.mode = std::string(toString(m_config.mode));
    r.measuredHours = (m_config.days - m_config.warmupDays) * 24;
    const double steps = std::max(1.0, m_steps);
    r.cpuUtilisation = m_cpuUse / steps;
    r.gpuUtilisation = m_gpuUse / steps;
    r.cpuAllocation = m_cpuAlloc / steps;
    r.gpuAllocation = m_gpuAlloc / steps;
    r.poweredNodeHours = m_nodeHours;
    r.hotNodeHours = m_hotHours;
    r.cost = m_cost;
    r.workCoreHours = m_coreHours;
    r.workGpuHours = m_gpuHours;
    // The work at the price of the resources it used: a warm core-hour at a 64-core server's 64th, a GPU-hour at an
    // 8-GPU server's 8th. 1.0 would be every powered resource busy all the time.
    const double workValue = m_coreHours * m_config.warmPrice / 64.0 + m_gpuHours * m_config.hotPrice / 8.0;
    r.costPerWork = workValue > 0 ? m_cost / workValue : 0;
    std::vector<double> completion;
    double wait = 0;
    for (const auto& [id, b] : m_batch) {
        if (!b.measured)
            continue;
        ++r.batchSubmitted;
        r.batchPreempted += b.starts > 1 ? b.starts - 1 : 0;
        r.batchGpuHoursLost += b.lostGpuHours;
        if (b.endMs == 0)
            continue;
        completion.push_back(static_cast<double>(b.endMs - b.submittedMs) / 1000.0);
        wait += static_cast<double>(b.firstStartMs - b.submittedMs) / 1000.0;
    }
    r.batchFinished = completion.size();
    if (!completion.empty()) {
        std::sort(completion.begin(), completion.end());
        double sum = 0;
        for (double c : completion)
            sum += c;
        r.batchCompletionMeanS = sum / static_cast<double>(completion.size());
        r.batchCompletionP50S = completion[completion.size() / 2];
        r.batchCompletionP90S = completion[completion.size() * 9 / 10];
        r.batchWaitMeanS = wait / static_cast<double>(completion.size());
    }
    r.serviceUnmetShare = m_serviceWanted > 0 ? m_serviceMissing / m_serviceWanted : 0;
    r.inferenceUnmetShare = m_inferenceWanted > 0 ? m_inferenceMissing / m_inferenceWanted : 0;
    const auto p99 = sojournQuantile(m_queueMinutes, 1000.0 / m_config.inferenceServiceMs, 0.99);
    r.inferenceP99S = p99 ? *p99 : -1;
    r.inferenceSlowMinutes = m_slowMinutes;
    r.inferenceMinutes = m_queueMinutes.size();
    if (m_rebalancer) {
        std::map<std::string, std::size_t> applied;
        for (const auto& [id, p] : m_rebalancer->proposals())
            if (p.state == rebalance::ProposalState::Applied)
                ++applied[std::string(rebalance::toString(p.kind))];
        r.proposalsApplied.assign(applied.begin(), applied.end());
    }
    r.proposalsCreated = m_created;
    r.invariantViolations = m_invariantViolations;
    r.surprise = m_surprise;
    r.surprise.nodesBooting = m_bootedInSurprise.size();
    if (m_surprise.minutes > 0) { // the window's minutes: a run of the measured ones, from its first
        const auto first = m_queueMinutes.begin()
            + (m_startMs + m_config.surprise.atMs - m_measureFromMs + m_config.stepMs - 1) / m_config.stepMs;
        const auto windowP99
            = sojournQuantile(std::vector<QueueMinute>(first, first + static_cast<std::ptrdiff_t>(m_surprise.minutes)),
                1000.0 / m_config.inferenceServiceMs, 0.99);
        r.surprise.inferenceP99S = windowP99 ? *windowP99 : -1;
    }
    r.wallMs = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - m_started).count();
    for (const auto& [id, b] : m_batch)
        if (b.measured && b.endMs == 0)
            if (const auto* w = m_plane->workload(id); w && w->phase == api::WorkloadPhase::Pending)
                ++r.batchPendingAtEnd;
    return r;
}

void Simulation::debugLine() const
{
    std::size_t pending = 0, hotOn = 0, hotReserved = 0, down = 0;
    for (const auto& [id, b] : m_batch)
        if (const auto* w = m_plane->workload(id); w && w->phase == api::WorkloadPhase::Pending)
            ++pending;
    for (const api::LiveNode& live : m_plane->nodes()) {
        const Node& node = m_plane->cluster().node(live.id);
        down += !live.cordon.empty();
        if (node.tier == Tier::Hot && live.cordon.empty()) {
            ++hotOn;
            hotReserved += node.peakReserved;
        }
    }
    std::fprintf(stderr,
        "T %5.1fh batch pending %3zu, hot in service %2zu (reserved %2zu), cordoned %2zu, inference %zu (%zu ahead)\n",
        static_cast<double>(m_now - m_startMs) / kHourMs, pending, hotOn, hotReserved, down,
        m_inference.replicas.size(), m_aheadNow);
    for (const Line& line : m_lines) {
        std::size_t waiting = 0;
        std::string why;
        for (const WorkloadId id : line.replicas)
            if (const auto* w = m_plane->workload(id); w && w->phase == api::WorkloadPhase::Pending) {
                ++waiting;
                why = w->detail.substr(0, 160);
            }
        if (waiting > 0)
            std::fprintf(stderr, "  %s: %zu of %zu replicas waiting: %s\n", line.name.c_str(), waiting,
                line.replicas.size(), why.c_str());
    }
}

Expected<void> Simulation::start()
{
    m_started = std::chrono::steady_clock::now();
    using namespace std::chrono;
    // A Monday at midnight UTC; the series start at their own bucket 0 there.
    m_startMs = duration_cast<milliseconds>(sys_days { year { 2026 } / November / 2 }.time_since_epoch()).count();
    m_now = m_startMs;
    m_measureFromMs = m_startMs + m_config.warmupDays * kDayMs;
    m_endMs = m_startMs + m_config.days * kDayMs;
    m_nextEvaluation = m_startMs + m_config.evaluationPeriodMs;
    if (auto loaded = loadLoad(); !loaded)
        return tl::unexpected(loaded.error());
    if (auto built = buildCore(); !built)
        return tl::unexpected(built.error());
    joinNodes();
    createPools();
    return {};
}

void Simulation::step()
{
    if (done())
        return;
    m_agents.reportReady(*m_plane, m_now); // replicas whose load has finished
    finishBatch();
    submitArrivals();
    finishSlices();
    submitSlices();
    scaleLines();
    scaleInference();
    pump();
    // What the daemon's liveness tick does besides liveness (the simulation's agents do not go away): an operator's
    // paced drain (the console's demo), restarts due, launches past their maximum runtime.
    m_plane->advanceDrains(m_now);
    m_plane->releaseRestarts(m_now);
    m_plane->enforceRuntimeLimits(m_now);
    m_power.apply(*m_plane, m_now); // nodes emptied since the last step
    pump();
    heartbeat();
    m_recorder->record(m_now);
    if (m_now >= m_nextEvaluation) {
        evaluate();
        m_nextEvaluation += m_config.evaluationPeriodMs;
    }
    m_plane->whenSaved([](const std::optional<std::string>&) {});
    pump();
    m_power.apply(*m_plane, m_now);
    pump();
    if (measuring())
        account();
    if ((m_now - m_startMs) % kHourMs == 0 && !m_plane->cluster().checkInvariants().has_value())
        ++m_invariantViolations;
    if (m_debug && (m_now - m_startMs) % (m_debugEveryMs) == 0)
        debugLine();
    m_now += m_config.stepMs;
    if (done())
        finish();
}

void Simulation::finish()
{
    m_plane->stop();
    if (m_debug) {
        std::map<std::string, int> why;
        for (const auto& [id, b] : m_batch)
            if (b.endMs == 0)
                if (const auto* w = m_plane->workload(id))
                    ++why[std::string(api::toString(w->phase)) + ": " + w->detail.substr(0, 160)];
        for (const auto& [text, n] : why)
            std::fprintf(stderr, "%5d %s\n", n, text.c_str());
        for (const auto& [id, p] : m_rebalancer ? m_rebalancer->proposals() : std::map<std::int64_t, rebalance::Proposal> {})
            if (p.kind != rebalance::ProposalKind::Quota)
                std::fprintf(stderr, "P %lld %s %s %s\n", static_cast<long long>(p.createdMs - m_startMs) / 60000,
                    std::string(rebalance::toString(p.kind)).c_str(), std::string(rebalance::toString(p.state)).c_str(),
                    p.reason.substr(0, 200).c_str());
    }
}

} // namespace

std::string_view toString(ScenarioMode mode)
{
    switch (mode) {
    case ScenarioMode::Static: return "static";
    case ScenarioMode::Tidepool: return "tidepool";
    case ScenarioMode::Invalid: break;
    }
    return "invalid";
}

Expected<void> validate(const ScenarioConfig& config)
{
    if (config.mode == ScenarioMode::Invalid)
        return makeError(ErrorCode::InvalidArgument, "scenario mode: static or tidepool");
    if (config.days <= config.warmupDays || config.warmupDays < 0)
        return makeError(ErrorCode::InvalidArgument, "days must be more than warmup-days");
    if (config.stepMs <= 0 || config.evaluationPeriodMs < config.stepMs)
        return makeError(ErrorCode::InvalidArgument, "the evaluation period must be at least one step");
    if (config.warmNodes < 1 || config.hotNodes < 1 || config.coldNodes < 0)
        return makeError(ErrorCode::InvalidArgument, "a cluster needs warm and hot nodes");
    if (config.fpgaNodes < 0 || config.npuNodes < 0)
        return makeError(ErrorCode::InvalidArgument, "the FPGA and NPU host counts must not be negative");
    if (!(config.headroom >= 1 && config.headroom <= 3))
        return makeError(ErrorCode::InvalidArgument,
            "the headroom multiplies forecast peaks, in [1, 3], not " + std::to_string(config.headroom));
    const auto& surprise = config.surprise;
    if (surprise.durationMs < 0)
        return makeError(ErrorCode::InvalidArgument, "the surprise's duration must not be negative");
    if (!(surprise.factor >= 0 && surprise.factor <= 10))
        return makeError(ErrorCode::InvalidArgument,
            "the surprise's factor multiplies the load, in [0, 10], not " + std::to_string(surprise.factor));
    if (!(surprise.add >= 0 && surprise.add <= 10))
        return makeError(ErrorCode::InvalidArgument,
            "the surprise's addition is a share of the peak, in [0, 10], not " + std::to_string(surprise.add));
    if (surprise.durationMs > 0
        && (surprise.atMs < config.warmupDays * kDayMs || surprise.atMs + surprise.durationMs > config.days * kDayMs))
        return makeError(ErrorCode::InvalidArgument,
            "the surprise must fall inside the measured days, hours " + std::to_string(config.warmupDays * 24) + " to "
                + std::to_string(config.days * 24) + " of the run");
    if (config.inferenceLaunchMs < 0 || config.serviceLaunchMs < 0 || config.inferenceLaunchMs > kDayMs
        || config.serviceLaunchMs > kDayMs)
        return makeError(ErrorCode::InvalidArgument, "a replica's launch time must be between 0 and a day");
    if (config.scaleDownDelayMs < 0 || config.scaleDownDelayMs > kDayMs)
        return makeError(ErrorCode::InvalidArgument, "the autoscalers' scale-down delay must be between 0 and a day");
    if (!(config.batchStart >= 0 && config.batchStart < 1))
        return makeError(ErrorCode::InvalidArgument,
            "the batch start is a share of the trace's span, in [0, 1), not " + std::to_string(config.batchStart));
    return {};
}

Expected<ScenarioResult> runScenario(const ScenarioConfig& config)
{
    auto run = ScenarioRun::start(config);
    if (!run)
        return tl::unexpected(run.error());
    while (!(*run)->done())
        (*run)->step();
    return (*run)->result();
}

struct ScenarioRun::Impl {
    explicit Impl(const ScenarioConfig& config)
        : simulation(config)
    {
    }
    Simulation simulation;
};

Expected<std::unique_ptr<ScenarioRun>> ScenarioRun::start(const ScenarioConfig& config)
{
    if (auto invalid = validate(config); !invalid)
        return tl::unexpected(invalid.error());
    std::unique_ptr<ScenarioRun> run(new ScenarioRun);
    run->m_impl = std::make_unique<Impl>(config);
    if (auto started = run->m_impl->simulation.start(); !started)
        return tl::unexpected(started.error());
    return run;
}

ScenarioRun::~ScenarioRun() = default;
bool ScenarioRun::done() const { return m_impl->simulation.done(); }
void ScenarioRun::step() { m_impl->simulation.step(); }
void ScenarioRun::poll() { m_impl->simulation.poll(); }
ScenarioResult ScenarioRun::result() const { return m_impl->simulation.result(); }
api::ControlPlane& ScenarioRun::plane() { return m_impl->simulation.plane(); }
api::Rebalancer* ScenarioRun::rebalancer() { return m_impl->simulation.rebalancer(); }
std::int64_t ScenarioRun::nowMs() const { return m_impl->simulation.nowMs(); }

} // namespace tidepool::sim
