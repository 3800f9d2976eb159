// tidepool-sim fpga-scenario: see fpga_scenario.h. The core runs unmodified; this file plays the FPGA hosts' agents
// and the kernels' users, and keeps the books.

#include "core/sim/fpga_scenario.h"

#include "core/api/control_plane.h"
#include "core/api/history_recorder.h"
#include "core/api/rebalancer.h"
#include "core/sim/load_shape.h"
#include "core/sim/simulated_core.h"
#include "core/store/store.h"

#include <boost/asio/io_context.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <random>

namespace tidepool::sim {

namespace {

constexpr std::int64_t kMinuteMs = 60'000;
constexpr std::int64_t kHourMs = 60 * kMinuteMs;
constexpr std::int64_t kDayMs = 24 * kHourMs;
constexpr int kCardsPerHost = 2;
constexpr std::int32_t kSlotsPerCard = 8; // time-slice slots of one card, as in the console's demo fleet
constexpr std::int64_t kCardMemoryMiB = 64 * 1024;
constexpr std::int64_t kHostCpu = 32'000, kHostMemory = 128 * 1024;
constexpr std::int64_t kJobCpuMillis = 1000, kJobMemoryMiB = 4096; // the host side of one kernel job
constexpr const char* kShellModel = "U250"; // a card with a partial-reconfiguration shell: any kernel, any slot

// A card dedicated to one kernel reports that kernel with its model, as a card flashed with one bitstream would.
std::string dedicatedModel(const FpgaKernel& kernel)
{
    return std::string(kShellModel) + "-" + kernel.name;
}

double meanRunMs(const FpgaKernel& k)
{
    const auto lo = static_cast<double>(k.minRunMs), hi = static_cast<double>(k.maxRunMs);
    return hi > lo ? (hi - lo) / std::log(hi / lo) : lo; // the mean of a log-uniform distribution
}

double quantile(const std::vector<double>& sorted, double q)
{
    if (sorted.empty())
        return 0;
    const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size()))) - 1;
    return sorted[std::min(i, sorted.size() - 1)];
}

struct Job {
    std::size_t kernel = 0;
    std::int64_t arriveMs = 0;
    std::int64_t runtimeMs = 0;
};

struct JobRecord {
    std::size_t job = 0;
    std::int64_t startMs = -1; // -1 = not started yet
    std::int64_t endMs = -1;
    bool measured = false;
};

using Running = SimulatedAgents::Running;

class FpgaSimulation {
public:
    explicit FpgaSimulation(const FpgaScenarioConfig& config)
        : m_config(config)
        , m_kernels(fpgaKernels())
    {
    }

    Expected<void> start();
    bool done() const { return m_now >= m_endMs; }
    void step();
    FpgaScenarioResult result() const;

private:
    Expected<void> planJobs();
    Expected<void> buildCore();
    void joinHosts();
    std::int64_t launched(WorkloadId id);
    void pump();
    void finishJobs();
    void submitJobs();
    void heartbeat();
    void evaluate();
    void account();
    bool measuring() const { return m_now >= m_measureFromMs; }
    bool slotSharing() const { return m_config.mode == FpgaMode::Tidepool || m_config.mode == FpgaMode::TidepoolPower; }

    FpgaScenarioConfig m_config;
    const std::vector<FpgaKernel>& m_kernels;
    std::vector<int> m_split; // cards per kernel (static modes)
    std::map<std::pair<std::string, std::int16_t>, std::size_t> m_cardKernel; // (host, card) → kernel (static modes)
    std::int64_t m_startMs = 0, m_now = 0, m_measureFromMs = 0, m_endMs = 0;
    std::chrono::steady_clock::time_point m_started;
    std::vector<LoadShape> m_shapes; // per kernel
    std::vector<Job> m_jobs; // in arrival order
    std::size_t m_nextJob = 0;

    boost::asio::io_context m_io;
    std::unique_ptr<store::Store> m_store;
    std::unique_ptr<api::ControlPlane> m_plane;
    std::unique_ptr<api::HistoryRecorder> m_recorder;
    std::unique_ptr<api::Rebalancer> m_rebalancer; // `tidepool-power` only
    Outbox m_outbox;
    SimulatedAgents m_agents { { [this](WorkloadId id) { return launched(id); }, {} } };
    std::map<WorkloadId, JobRecord> m_records;
    std::uint64_t m_sequence = 0;
    PowerSwitch m_power { m_config.bootMs };

    // Books, over the measured time.
    double m_steps = 0, m_busySlots = 0, m_heldSlots = 0, m_busyCards = 0;
    std::size_t m_refused = 0;
    std::size_t m_maxJobsPerCard = 0, m_overbooked = 0, m_mixed = 0, m_foreign = 0, m_invariantViolations = 0;
    double m_poweredCardSteps = 0;
    int m_minPoweredCards = std::numeric_limits<int>::max();
    std::size_t m_waitingWhileOff = 0;
};

Expected<void> FpgaSimulation::planJobs()
{
    auto shapes = loadTraceShapes(m_config.dataDir);
    if (!shapes)
        return tl::unexpected(shapes.error());
    // In `fpgaKernels` order; the offsets put "transcode" 8 hours east, as the "video" line of `scenario`.
    m_shapes = { shapes->google, shapes->genai, shapes->alibaba, shapes->google };
    const std::vector<std::int64_t> offsets { 8 * kHourMs, 0, 0, 0 };

    const std::int64_t runMs = m_config.days * kDayMs;
    const double stepMinutes = static_cast<double>(m_config.stepMs) / kMinuteMs;
    // Each kernel bought referenceCards ÷ kernels cards for its peak with the headroom: at its peak it keeps that many
    // ÷ headroom jobs running, so its peak arrival rate is that ÷ its mean run time.
    const double peakJobs = m_config.load * static_cast<double>(m_config.referenceCards)
        / static_cast<double>(m_kernels.size()) / m_config.headroom;
    for (std::size_t k = 0; k < m_kernels.size(); ++k) {
        const FpgaKernel& kernel = m_kernels[k];
        const LoadShape& shape = m_shapes[k];
        const double peak = shape.peak(offsets[k], offsets[k] + runMs);
        const double peakPerMinute = peakJobs / (meanRunMs(kernel) / kMinuteMs);
        // Each kernel draws from its own stream, so that its jobs do not depend on the others'.
        std::mt19937_64 random(m_config.seed * 1'000'003 + k);
        std::uniform_real_distribution<double> logRun(
            std::log(static_cast<double>(kernel.minRunMs)), std::log(static_cast<double>(kernel.maxRunMs)));
        for (std::int64_t t = 0; t < runMs; t += m_config.stepMs) {
            const double rate = peakPerMinute * shape.at(t + offsets[k]) / peak * stepMinutes;
            if (!(rate > 0))
                continue;
            const int arrivals = std::poisson_distribution<int>(rate)(random);
            for (int a = 0; a < arrivals; ++a)
                m_jobs.push_back(
                    Job { k, m_startMs + t, std::max<std::int64_t>(1000, std::llround(std::exp(logRun(random)))) });
        }
    }
    std::stable_sort(m_jobs.begin(), m_jobs.end(), [](const Job& a, const Job& b) { return a.arriveMs < b.arriveMs; });
    return {};
}

Expected<void> FpgaSimulation::buildCore()
{
    std::optional<api::RebalanceConfig> rebalance;
    if (m_config.mode == FpgaMode::TidepoolPower) {
        rebalance.emplace();
        rebalance->period = std::chrono::milliseconds(m_config.evaluationPeriodMs);
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

void FpgaSimulation::joinHosts()
{
    m_split = staticCardSplit(m_config);
    // The kernel each card is dedicated to, in card order: the first split[0] cards to the first kernel, and so on.
    std::vector<std::size_t> cardKernel;
    for (std::size_t k = 0; k < m_split.size(); ++k)
        cardKernel.insert(cardKernel.end(), static_cast<std::size_t>(m_split[k]), k);
    char name[32];
    for (int card = 0, host = 0; card < m_config.cards; ++host) {
        std::snprintf(name, sizeof name, "fpga-%02d", host + 1);
        protocol::Inventory inventory;
        inventory.isa = "x86_64";
        inventory.cpuMillis = kHostCpu;
        inventory.memoryMiB = kHostMemory;
        for (int d = 0; d < kCardsPerHost && card < m_config.cards; ++d, ++card) {
            std::string model = kShellModel;
            if (!cardKernel.empty()) {
                const std::size_t k = cardKernel[static_cast<std::size_t>(card)];
                model = dedicatedModel(m_kernels[k]);
                m_cardKernel[{ name, static_cast<std::int16_t>(d) }] = k;
            }
            inventory.devices.push_back(protocol::DeviceInfo { d, "fpga", model, kCardMemoryMiB, kSlotsPerCard });
        }
        m_power.join(*m_plane, name, std::move(inventory));
    }
    for (const FpgaKernel& kernel : m_kernels) {
        api::PoolRequest request;
        request.name = kernel.name;
        request.businessLine = kernel.name;
        (void)m_plane->createPool(request);
    }
    pump();
}

// A job's first start is noted; it runs at once (nothing to load).
std::int64_t FpgaSimulation::launched(WorkloadId id)
{
    if (auto it = m_records.find(id); it != m_records.end() && it->second.startMs < 0)
        it->second.startMs = m_now;
    return 0;
}

void FpgaSimulation::pump()
{
    sim::pump(m_io, m_outbox, [this](const std::string& session, const protocol::Message& message) {
        m_agents.deliver(*m_plane, m_now, session, message);
    });
}

void FpgaSimulation::finishJobs()
{
    const auto ended = [this](WorkloadId id, const Running& running) {
        return m_now >= running.startMs + m_jobs[m_records.at(id).job].runtimeMs;
    };
    for (const auto& [id, running] : m_agents.finish(*m_plane, ended))
        m_records.at(id).endMs = m_now;
}

void FpgaSimulation::submitJobs()
{
    const bool tidepool = slotSharing();
    for (; m_nextJob < m_jobs.size() && m_jobs[m_nextJob].arriveMs <= m_now; ++m_nextJob) {
        const FpgaKernel& kernel = m_kernels[m_jobs[m_nextJob].kernel];
        api::SubmitRequest request;
        request.name = kernel.name;
        request.pool = kernel.name;
        request.requests.cpuMillis = kJobCpuMillis;
        request.requests.memoryMiB = kJobMemoryMiB;
        request.accelerators.kind = AcceleratorKind::Fpga;
        request.accelerators.count = 1;
        // `static` takes the whole card (share 0); the others take the kernel's slots.
        request.accelerators.sharePerDevice = m_config.mode == FpgaMode::Static ? 0 : kernel.slots;
        if (!tidepool)
            request.acceleratorModels = { dedicatedModel(kernel) };
        request.latency = LatencyClass::RealTime;
        request.priority = 60;
        if (const auto id = m_plane->submit(std::move(request)))
            m_records[*id] = JobRecord { m_nextJob, -1, -1, measuring() };
        else
            ++m_refused; // counted, so that a run whose jobs the core turned away cannot pass for a light one
    }
}

void FpgaSimulation::heartbeat()
{
    // What the agents measure: each card busy in the share of its slots its kernels occupy.
    ++m_sequence;
    for (const api::LiveNode& live : m_plane->nodes()) {
        if (live.sessionId.empty())
            continue; // switched off or booting: no agent to report
        const Node& node = m_plane->cluster().node(live.id);
        protocol::UtilisationSample sample;
        sample.timestampMs = m_now;
        for (std::size_t d = 0; d < node.devices.size(); ++d)
            sample.devices.push_back(protocol::DeviceSample { static_cast<std::int32_t>(d), 0.0, 0 });
        double cpu = 0;
        for (const WorkloadId id : node.residents)
            if (const auto* w = m_plane->workload(id); w && m_records.count(id)) {
                cpu += static_cast<double>(w->workload.requests.cpuMillis);
                const FpgaKernel& kernel = m_kernels[m_jobs[m_records.at(id).job].kernel];
                for (const DeviceShare& s : w->devices)
                    if (static_cast<std::size_t>(s.device) < sample.devices.size())
                        sample.devices[static_cast<std::size_t>(s.device)].utilisation
                            += static_cast<double>(kernel.slots) / kSlotsPerCard;
            }
        sample.cpuUtilisation = cpu / static_cast<double>(std::max<std::int64_t>(1, node.capacity.cpuMillis));
        sample.memoryUsedMiB = node.capacity.memoryMiB - node.free.memoryMiB;
        m_plane->onHeartbeat(live.sessionId, protocol::Heartbeat { m_sequence, { sample } });
    }
}

void FpgaSimulation::evaluate()
{
    if (!m_rebalancer)
        return;
    m_rebalancer->evaluateNow(m_now);
    // The operator approves every proposal, as in `scenario`.
    approveEveryProposal(*m_rebalancer, m_now, [this] {
        pump();
        m_power.apply(*m_plane, m_now); // hosts powered down or up by the proposals just applied
        pump();
    });
}

void FpgaSimulation::account()
{
    // Every card, from the core's books: slots held, and from the jobs running on it: the kernels' own slots.
    struct Card {
        std::int32_t shareSum = 0; // of the holders' placements
        std::size_t jobs = 0;
        std::int32_t busySlots = 0;
        std::optional<std::size_t> kernel;
        bool mixed = false;
        bool foreign = false;
    };
    std::map<std::pair<NodeId, std::int16_t>, Card> cards;
    for (const auto& [id, running] : m_agents.running()) {
        const api::LiveWorkload* w = m_plane->workload(id);
        if (!w || w->node == kNoNode)
            continue;
        const std::size_t kernel = m_jobs[m_records.at(id).job].kernel;
        const std::string& host = m_plane->cluster().node(w->node).name;
        for (const DeviceShare& s : w->devices) {
            Card& card = cards[{ w->node, s.device }];
            card.shareSum += s.share;
            ++card.jobs;
            card.busySlots += m_kernels[kernel].slots;
            card.mixed = card.mixed || (card.kernel && *card.kernel != kernel);
            card.kernel = kernel;
            if (const auto it = m_cardKernel.find({ host, s.device }); it != m_cardKernel.end() && it->second != kernel)
                card.foreign = true;
        }
    }
    double poweredSlots = 0, held = 0, busy = 0, busyCards = 0;
    bool hostOff = false;
    for (const api::LiveNode& live : m_plane->nodes()) {
        if (!PowerSwitch::powered(live)) {
            hostOff = true;
            continue;
        }
        const Node& node = m_plane->cluster().node(live.id);
        for (std::size_t d = 0; d < node.devices.size(); ++d) {
            const Device& device = node.devices[d];
            poweredSlots += device.shareCapacity;
            held += device.shareCapacity - device.shareFree;
            busyCards += device.shareFree < device.shareCapacity ? 1 : 0;
            const auto it = cards.find({ live.id, static_cast<std::int16_t>(d) });
            if (it == cards.end())
                continue;
            const Card& card = it->second;
            busy += card.busySlots;
            m_maxJobsPerCard = std::max(m_maxJobsPerCard, card.jobs);
            m_overbooked += card.shareSum > device.shareCapacity || card.busySlots > device.shareCapacity
                || card.shareSum != device.shareCapacity - device.shareFree;
            m_mixed += card.mixed;
            m_foreign += card.foreign;
        }
    }
    if (!measuring())
        return;
    // Work left waiting past an evaluation while a host it could have had was off.
    if (hostOff)
        for (const auto& [id, record] : m_records)
            if (record.startMs < 0 && m_now - m_jobs[record.job].arriveMs > m_config.evaluationPeriodMs) {
                ++m_waitingWhileOff;
                break;
            }
    const int poweredCards = static_cast<int>(std::lround(poweredSlots / kSlotsPerCard));
    m_minPoweredCards = std::min(m_minPoweredCards, poweredCards);
    m_poweredCardSteps += poweredCards;
    if (poweredSlots <= 0)
        return;
    m_steps += 1;
    m_busySlots += busy / poweredSlots;
    m_heldSlots += held / poweredSlots;
    m_busyCards += busyCards / (poweredSlots / kSlotsPerCard);
}

void FpgaSimulation::step()
{
    if (done())
        return;
    finishJobs();
    m_power.apply(*m_plane, m_now); // hosts emptied since the last step
    pump();
    heartbeat();
    submitJobs();
    pump();
    m_recorder->record(m_now);
    if ((m_now - m_startMs) % (5 * kMinuteMs) == 0)
        m_recorder->maintain(m_now);
    m_plane->whenSaved([](const std::optional<std::string>&) {});
    pump();
    if ((m_now - m_startMs) % m_config.evaluationPeriodMs == 0)
        evaluate();
    m_power.apply(*m_plane, m_now);
    pump();
    account();
    if ((m_now - m_startMs) % kHourMs == 0 && !m_plane->cluster().checkInvariants().has_value())
        ++m_invariantViolations;
    m_now += m_config.stepMs;
    if (done())
        m_plane->stop();
}

FpgaScenarioResult FpgaSimulation::result() const
{
    FpgaScenarioResult r;
    r.mode = std::string(toString(m_config.mode));
    r.cards = m_config.cards;
    r.measuredHours = (m_config.days - m_config.warmupDays) * 24;
    const double steps = std::max(1.0, m_steps);
    r.slotUtilisation = m_busySlots / steps;
    r.slotAllocation = m_heldSlots / steps;
    r.cardBusy = m_busyCards / steps;
    for (const FpgaKernel& kernel : m_kernels)
        r.kernels.push_back(FpgaKernelResult { kernel.name, kernel.slots, 0, 0, 0, 0, 0 });
    for (std::size_t k = 0; k < m_split.size(); ++k)
        r.kernels[k].cards = m_split[k];

    // A job still waiting counts with its wait so far; its run time counts in the offered load as submitted.
    const auto stepCeil
        = [&](std::int64_t ms) { return (ms + m_config.stepMs - 1) / m_config.stepMs * m_config.stepMs; };
    std::vector<double> waits;
    std::vector<std::vector<double>> kernelWaits(m_kernels.size());
    double offeredSlotMs = 0;
    for (const auto& [id, record] : m_records) {
        if (!record.measured)
            continue;
        const Job& job = m_jobs[record.job];
        ++r.jobsSubmitted;
        ++r.kernels[job.kernel].submitted;
        offeredSlotMs
            += static_cast<double>(m_kernels[job.kernel].slots) * static_cast<double>(stepCeil(job.runtimeMs));
        const bool started = record.startMs >= 0;
        r.jobsStarted += started;
        r.kernels[job.kernel].started += started;
        r.jobsFinished += record.endMs >= 0;
        r.jobsWaitingAtEnd += !started;
        const double wait = static_cast<double>((started ? record.startMs : m_endMs) - job.arriveMs) / 1000.0;
        waits.push_back(wait);
        kernelWaits[job.kernel].push_back(wait);
    }
    const double measuredMs = static_cast<double>((m_config.days - m_config.warmupDays) * kDayMs);
    r.offeredSlotLoad = offeredSlotMs / (static_cast<double>(m_config.cards) * kSlotsPerCard * measuredMs);
    const auto summarise = [](std::vector<double>& w, double& mean) {
        std::sort(w.begin(), w.end());
        mean = w.empty() ? 0 : std::accumulate(w.begin(), w.end(), 0.0) / static_cast<double>(w.size());
    };
    summarise(waits, r.waitMeanS);
    r.waitP50S = quantile(waits, 0.50);
    r.waitP95S = quantile(waits, 0.95);
    r.waitP99S = quantile(waits, 0.99);
    r.waitMaxS = waits.empty() ? 0 : waits.back();
    for (std::size_t k = 0; k < m_kernels.size(); ++k) {
        summarise(kernelWaits[k], r.kernels[k].waitMeanS);
        r.kernels[k].waitP95S = quantile(kernelWaits[k], 0.95);
    }
    r.jobsRefused = m_refused;
    r.maxJobsPerCard = m_maxJobsPerCard;
    r.overbookedCardSteps = m_overbooked;
    r.mixedCardSteps = m_mixed;
    r.foreignKernelSteps = m_foreign;
    r.invariantViolations = m_invariantViolations;
    r.poweredCardHours = m_poweredCardSteps * static_cast<double>(m_config.stepMs) / kHourMs;
    r.minPoweredCards = m_minPoweredCards == std::numeric_limits<int>::max() ? 0 : m_minPoweredCards;
    r.waitingWhileOffSteps = m_waitingWhileOff;
    if (m_rebalancer)
        for (const auto& [id, proposal] : m_rebalancer->proposals())
            if (proposal.state == rebalance::ProposalState::Applied) {
                r.powerDowns += proposal.kind == rebalance::ProposalKind::PowerDown;
                r.powerUps += proposal.kind == rebalance::ProposalKind::PowerUp;
            }
    r.wallMs
        = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - m_started).count();
    return r;
}

Expected<void> FpgaSimulation::start()
{
    m_started = std::chrono::steady_clock::now();
    using namespace std::chrono;
    // A Monday at midnight UTC, as in `scenario`; the series start at their own bucket 0 there.
    m_startMs = duration_cast<milliseconds>(sys_days { year { 2026 } / November / 2 }.time_since_epoch()).count();
    m_now = m_startMs;
    m_measureFromMs = m_startMs + m_config.warmupDays * kDayMs;
    m_endMs = m_startMs + m_config.days * kDayMs;
    if (auto planned = planJobs(); !planned)
        return tl::unexpected(planned.error());
    if (auto built = buildCore(); !built)
        return tl::unexpected(built.error());
    joinHosts();
    return {};
}

} // namespace

const std::vector<FpgaKernel>& fpgaKernels()
{
    // Synthetic kernels (assumptions, BENCHMARKS.md §7): the slots a design takes and its run times. The series are
    // real and give only the shape of each kernel's arrival rate over the day and week.
    static const std::vector<FpgaKernel> kernels {
        { "transcode", "Google 2019 avg_cpu, 8 hours east", 2, 2 * kMinuteMs, 30 * kMinuteMs },
        { "inference", "GenAI serving requests (services/qps.csv), daily level of Google 2019", 4, kMinuteMs,
            10 * kMinuteMs },
        { "compress", "Alibaba 2018 cpu_util_percent", 1, kMinuteMs, 20 * kMinuteMs },
        { "rank", "Google 2019 avg_cpu", 3, kMinuteMs, 10 * kMinuteMs },
    };
    return kernels;
}

std::string_view toString(FpgaMode mode)
{
    switch (mode) {
    case FpgaMode::Static: return "static";
    case FpgaMode::StaticShared: return "static-shared";
    case FpgaMode::Tidepool: return "tidepool";
    case FpgaMode::TidepoolPower: return "tidepool-power";
    case FpgaMode::Invalid: break;
    }
    return "invalid";
}

FpgaMode parseFpgaMode(std::string_view text)
{
    for (const FpgaMode mode :
        { FpgaMode::Static, FpgaMode::StaticShared, FpgaMode::Tidepool, FpgaMode::TidepoolPower })
        if (text == toString(mode))
            return mode;
    return FpgaMode::Invalid;
}

Expected<void> validate(const FpgaScenarioConfig& config)
{
    if (config.mode == FpgaMode::Invalid)
        return makeError(
            ErrorCode::InvalidArgument, "fpga-scenario mode: static, static-shared, tidepool or tidepool-power");
    if (config.evaluationPeriodMs < config.stepMs || config.evaluationPeriodMs % config.stepMs != 0)
        return makeError(ErrorCode::InvalidArgument, "the evaluation period must be a whole number of steps");
    if (config.days <= config.warmupDays || config.warmupDays < 0)
        return makeError(ErrorCode::InvalidArgument, "days must be more than warmup-days");
    if (config.stepMs <= 0 || config.stepMs > kHourMs || kHourMs % config.stepMs != 0)
        return makeError(ErrorCode::InvalidArgument, "the step must divide an hour");
    const auto kernels = static_cast<int>(fpgaKernels().size());
    if (config.cards < kernels || config.referenceCards < kernels)
        return makeError(ErrorCode::InvalidArgument,
            "cards and reference-cards must be at least " + std::to_string(kernels) + ": one per kernel type");
    if (config.cards > 2000)
        return makeError(ErrorCode::InvalidArgument, "cards: at most 2000");
    if (!(config.load > 0) || !(config.headroom >= 1.0))
        return makeError(ErrorCode::InvalidArgument, "load must be positive and headroom at least 1");
    return {};
}

std::vector<int> staticCardSplit(const FpgaScenarioConfig& config)
{
    if (config.mode == FpgaMode::Tidepool || config.mode == FpgaMode::TidepoolPower)
        return {};
    // Every kernel keeps the same number of jobs running at its peak (the load is sized so); a card holds one of
    // them in `static` and slots ÷ the kernel's slots of them in `static-shared`.
    const auto& kernels = fpgaKernels();
    std::vector<double> need;
    for (const FpgaKernel& k : kernels)
        need.push_back(config.mode == FpgaMode::Static ? 1.0 : 1.0 / static_cast<double>(kSlotsPerCard / k.slots));
    // One card each, then each next card to the kernel with the most need per card it has (the first on ties).
    std::vector<int> split(kernels.size(), 1);
    for (int card = static_cast<int>(kernels.size()); card < config.cards; ++card) {
        std::size_t most = 0;
        for (std::size_t k = 1; k < kernels.size(); ++k)
            if (need[k] / split[k] > need[most] / split[most])
                most = k;
        ++split[most];
    }
    return split;
}

Expected<FpgaScenarioResult> runFpgaScenario(const FpgaScenarioConfig& config)
{
    if (auto invalid = validate(config); !invalid)
        return tl::unexpected(invalid.error());
    FpgaSimulation simulation(config);
    if (auto started = simulation.start(); !started)
        return tl::unexpected(started.error());
    while (!simulation.done())
        simulation.step();
    return simulation.result();
}

} // namespace tidepool::sim
