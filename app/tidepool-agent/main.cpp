// tidepool-agent: the node agent. Discovers the node (/proc, uname, NUMA, NVML by dlopen, an accelerator file or
// probe commands), enforces the core's pools with cgroups, runs workloads in them (through qemu-user when built for
// another ISA), measures that translation's slowdown, and keeps its workloads running while the core is away.
// One io_context thread runs everything; workload processes live under shims and survive the agent.
#include "agents/crossisa/slowdown.h"
#include "agents/crossisa/translator.h"
#include "agents/inventory/inventory.h"
#include "agents/inventory/nvml.h"
#include "agents/isolation/cgroup_layout.h"
#include "agents/isolation/cgroups.h"
#include "agents/isolation/net_shaper.h"
#include "agents/isolation/pool_notes.h"
#include "agents/net/agent_connection.h"
#include "agents/runner/core_commands.h"
#include "agents/runner/file_watch.h"
#include "agents/runner/log_tail.h"
#include "agents/runner/log_waits.h"
#include "agents/runner/runner.h"
#include "agents/telemetry/pool_usage.h"
#include "agents/telemetry/sampler.h"
#include "protocol/owner_lock.h"
#include "protocol/transport/tls.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

namespace {

using namespace tidepool;
namespace fs = std::filesystem;

constexpr const char* kUsage
    = R"(usage: tidepool-agent --core HOST:PORT --join-token-file FILE --state-dir DIR [options]
  --join-token-file FILE   the shared join token, or a single-use bootstrap token (one line of the core's
                           agent-tokens, made by `tidepoold certs init`): the first node that joins with it keeps it
  --name NAME              the node's name (default: the host name)
  --accelerator-file FILE  accelerators NVML cannot see (default /etc/tidepool/accelerators.json; absent = none)
  --probe PROGRAM          a probe command printing accelerators as JSON (repeatable; run without a shell)
  --nvml-library PATH      default libnvidia-ml.so.1 (absent = no NVIDIA GPUs)
  --bench-dir DIR          where isabench-<isa> builds are (default: beside this program)
  --tls-ca FILE            connect with TLS, verifying the core's certificate against this CA (PEM)
  --tls-server-name NAME   the name the core's certificate must carry (default: the --core host)
  --tls-cert FILE --tls-key FILE   a client certificate, when the core requires one
  --keep-finished SECONDS  how long a finished workload's records stay in the state dir (default 86400); the core
                           learns the end from them when it was away at the time
  --keep-replaced SECONDS  how long records moved to <state-dir>/replaced/ are kept (default 2592000, 30 days): those
                           of finished workloads whose ids a core gave to other workloads (its database replaced)
  --keep-replaced-count N  the most records kept in <state-dir>/replaced/, the newest (default 64)
  --log-cap-mib MIB        the most each running workload's stdout.log and stderr.log may hold (default 64; 0 = no
                           limit); past it, the newest half of it is kept in stdout.log.1 and the file is emptied
  --net-shape DEVICE[:MBPS]   shape the node's egress through DEVICE by pool (HTB classes, cgroup v1 net_prio):
                           each pool is guaranteed what its workloads here asked for and may borrow up to the link;
                           MBPS is the link's rate (default: the device's speed). The core counts it as the node's
                           network capacity (a core from before shaping refuses the inventory: upgrade it first);
                           one agent per device
  --cgroup-name NAME       the cgroup under the agent's own that holds its pools (default tidepool); one agent per
                           name: a second agent in the same cgroup needs another, or it refuses to start
  --no-slowdown            do not measure translation slowdowns
  --verbose                log protocol events too
)";

const protocol::LogSink logLine = protocol::stderrLogSink("tidepool-agent");

int fail(const std::string& message)
{
    std::fprintf(stderr, "tidepool-agent: %s\n", message.c_str());
    return 2;
}

// PATH lookup for the ELF check of the program a launch names.
fs::path findProgram(const std::string& program)
{
    if (program.find('/') != std::string::npos)
        return program;
    for (const char* dir : { "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin" }) {
        const fs::path candidate = fs::path(dir) / program;
        if (access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return program;
}

} // namespace

int main(int argc, char** argv)
{
    std::string core, tokenFile, stateDir, name, nvmlLibrary = std::string(agent::kDefaultNvmlLibrary);
    std::string acceleratorFile = std::string(agent::kDefaultAcceleratorFile);
    transport::TlsClientFiles tlsFiles;
    std::string tlsServerName, netShape, cgroupName = "tidepool";
    std::vector<std::vector<std::string>> probes;
    fs::path benchDir = fs::canonical("/proc/self/exe").parent_path();
    bool measure = true, verbose = false;
    std::chrono::seconds keepFinished { 86'400 };
    std::uint64_t logCapBytes = agent::RunnerConfig().logCapBytes;
    std::chrono::seconds keepReplacedFor = agent::RunnerConfig().keepReplacedFor;
    std::size_t keepReplaced = agent::RunnerConfig().keepReplaced;
    for (int i = 1; i < argc; ++i) {
        const std::string option = argv[i];
        if (option == "--help") {
            std::cout << kUsage;
            return 0;
        }
        if (option == "--no-slowdown" || option == "--verbose") {
            (option == "--verbose" ? verbose : measure) = option == "--verbose";
            continue;
        }
        if (i + 1 >= argc)
            return fail(option + " needs a value");
        const std::string value = argv[++i];
        if (option == "--core")
            core = value;
        else if (option == "--join-token-file")
            tokenFile = value;
        else if (option == "--state-dir")
            stateDir = value;
        else if (option == "--name")
            name = value;
        else if (option == "--accelerator-file")
            acceleratorFile = value;
        else if (option == "--probe")
            probes.push_back({ value });
        else if (option == "--nvml-library")
            nvmlLibrary = value;
        else if (option == "--bench-dir")
            benchDir = value;
        else if (option == "--keep-finished") {
            long long seconds = -1;
            const auto [ptr, e] = std::from_chars(value.data(), value.data() + value.size(), seconds);
            if (e != std::errc() || ptr != value.data() + value.size() || seconds < 0)
                return fail("--keep-finished: \"" + value + "\" is not a number of seconds");
            keepFinished = std::chrono::seconds(seconds);
        } else if (option == "--keep-replaced") {
            long long seconds = -1;
            const auto [ptr, e] = std::from_chars(value.data(), value.data() + value.size(), seconds);
            if (e != std::errc() || ptr != value.data() + value.size() || seconds < 0)
                return fail("--keep-replaced: \"" + value + "\" is not a number of seconds");
            keepReplacedFor = std::chrono::seconds(seconds);
        } else if (option == "--keep-replaced-count") {
            std::size_t count = 0;
            const auto [ptr, e] = std::from_chars(value.data(), value.data() + value.size(), count);
            if (e != std::errc() || ptr != value.data() + value.size() || count > 1'000'000)
                return fail("--keep-replaced-count: \"" + value + "\" is not a count of 0 to 1000000");
            keepReplaced = count;
        } else if (option == "--log-cap-mib") {
            std::uint64_t mib = 0;
            const auto [ptr, e] = std::from_chars(value.data(), value.data() + value.size(), mib);
            if (e != std::errc() || ptr != value.data() + value.size() || mib > (std::uint64_t { 1 } << 30))
                return fail("--log-cap-mib: \"" + value + "\" is not a number of MiB");
            logCapBytes = mib << 20;
        } else if (option == "--net-shape")
            netShape = value;
        else if (option == "--cgroup-name")
            cgroupName = value;
        else if (option == "--tls-ca")
            tlsFiles.ca = value;
        else if (option == "--tls-server-name")
            tlsServerName = value;
        else if (option == "--tls-cert")
            tlsFiles.certificate = value;
        else if (option == "--tls-key")
            tlsFiles.privateKey = value;
        else
            return fail("unknown option " + option + "\n" + kUsage);
    }
    if (core.empty() || tokenFile.empty() || stateDir.empty())
        return fail(std::string("--core, --join-token-file and --state-dir are required\n") + kUsage);
    const auto colon = core.rfind(':');
    unsigned port = 0;
    if (colon == std::string::npos
        || std::from_chars(core.data() + colon + 1, core.data() + core.size(), port).ec != std::errc() || port == 0
        || port > 65535)
        return fail("--core: \"" + core + "\" is not HOST:PORT");
    std::ifstream tokenIn(tokenFile);
    std::string token;
    if (!tokenIn || !std::getline(tokenIn, token) || token.empty())
        return fail("join token file " + tokenFile + " cannot be read or is empty");
    while (!token.empty() && (token.back() == '\r' || token.back() == ' '))
        token.pop_back();
    std::shared_ptr<boost::asio::ssl::context> tls;
    if (!tlsFiles.ca.empty()) {
        if (tlsFiles.certificate.empty() != tlsFiles.privateKey.empty())
            return fail("a client certificate needs both --tls-cert and --tls-key");
        auto context = transport::makeClientContext(tlsFiles);
        if (!context)
            return fail(context.error());
        tls = std::move(*context);
    } else if (!tlsFiles.certificate.empty() || !tlsServerName.empty()) {
        return fail("--tls-cert, --tls-key and --tls-server-name need --tls-ca");
    }
    std::error_code ec;
    fs::create_directories(stateDir, ec);
    if (ec)
        return fail("--state-dir " + stateDir + ": " + ec.message());
    // One agent per state dir, held until it ends: two would adopt, report and forget each other's workloads.
    // A file system that takes no lock on a directory (NFS emulates flock with write locks) is no reason to refuse
    // service: only another agent holding it is.
    auto stateLock = protocol::OwnerLock::acquire(stateDir, protocol::OwnerLock::Target::Directory);
    if (!stateLock && stateLock.error().heldByAnother())
        return fail("--state-dir " + stateDir + " is in use by another agent (" + stateLock.error().holder()
            + "): each agent of a host needs a state dir of its own");
    if (!stateLock)
        logLine("warning: --state-dir " + stateDir + " cannot be locked (" + stateLock.error().reason()
            + "): nothing keeps a second agent off it");

    // What this node is.
    agent::Nvml nvml(nvmlLibrary); // discovery's notes say why there are no NVIDIA GPUs, when there are none
    agent::DiscoveryOptions discoveryOptions;
    discoveryOptions.nvml = &nvml;
    discoveryOptions.acceleratorFile = acceleratorFile;
    discoveryOptions.probeCommands = probes;
    auto discovery = agent::discover(discoveryOptions);
    if (!discovery)
        return fail("discovery failed: " + discovery.error().message);
    for (const std::string& note : discovery->notes)
        logLine(note);
    const agent::NodeInventory node = discovery->inventory;
    if (name.empty())
        name = node.hostname;
    logLine("node " + name + ": " + node.isa + ", " + node.cpuModel + ", " + std::to_string(node.logicalCpus)
        + " CPUs, " + std::to_string(node.memoryMiB) + " MiB, " + std::to_string(node.numaNodes) + " NUMA nodes, "
        + std::to_string(node.devices.size()) + " accelerators");

    // Cross-ISA: what this host can translate, and how much slower.
    agent::crossisa::Translator translator;
    std::vector<protocol::TranslationFactor> factors;
    if (measure) {
        for (const std::string isa : { "x86_64", "aarch64", "riscv64" }) {
            if (isa == translator.hostIsa() || !translator.translatorFor(isa))
                continue;
            agent::crossisa::SlowdownOptions options;
            options.cachePath = fs::path(stateDir) / "slowdown.json";
            auto m = agent::crossisa::measureSlowdown(translator, benchDir, isa, options);
            if (!m) {
                logLine("slowdown of " + isa + " binaries not measured: " + m.error().message);
                continue;
            }
            logLine("slowdown of " + isa + " binaries here: " + std::to_string(m->factor)
                + (m->fromCache ? " (cached)" : " (measured)"));
            factors.push_back(protocol::TranslationFactor { isa, std::max(1.0, m->factor) });
        }
    }

    // Isolation and the workloads that survived a previous agent.
    auto layout = agent::detectCgroupLayout();
    if (!layout)
        return fail("cgroups: " + layout.error().message);
    auto cgroups = agent::PoolCgroups::create(*layout, cgroupName);
    if (!cgroups)
        return fail("cgroups: " + cgroups.error().message);
    // Held until the agent ends: another agent on this base would remove this one's pools as ones it was not sent.
    auto claim = cgroups->claimBase();
    if (!claim && claim.error().code == agent::IsolationErrorCode::Busy)
        return fail("cgroups: " + claim.error().message + " (--cgroup-name)");
    if (!claim)
        logLine("warning: cgroups: " + claim.error().message + ": nothing keeps a second agent off the base");
    for (const std::string& note : cgroups->notes())
        logLine(note);
    std::optional<agent::NetShaper> shaper;
    tl::expected<protocol::OwnerLock, protocol::OwnerLockError> deviceLock; // the shaped device's, held until the end
    if (!netShape.empty()) {
        if (layout->parents.netPrio.empty())
            return fail("--net-shape needs the cgroup v1 net_prio hierarchy, which this host has not mounted (mount -t "
                        "cgroup -o net_prio net_prio /sys/fs/cgroup/net_prio; cgroup v2 has none)");
        auto shapeConfig = agent::NetShaper::parseOption(netShape);
        if (!shapeConfig)
            return fail("--net-shape: " + shapeConfig.error().message);
        // One shaper per device, before it touches the device: two agents would each rebuild its HTB tree.
        const fs::path lockDir = "/run/tidepool-agent";
        fs::create_directories(lockDir, ec);
        const std::string lockFile = (lockDir / ("net-shape-" + shapeConfig->device + ".lock")).string();
        deviceLock = protocol::OwnerLock::acquire(lockFile, protocol::OwnerLock::Target::File);
        if (!deviceLock && deviceLock.error().heldByAnother())
            return fail("--net-shape: device " + shapeConfig->device + " is shaped by another agent ("
                + deviceLock.error().holder() + ", which holds " + lockFile + "): one agent shapes a device");
        if (!deviceLock)
            logLine("warning: --net-shape: " + lockFile + " cannot be locked (" + deviceLock.error().reason()
                + "): nothing keeps a second agent off device " + shapeConfig->device);
        auto made = agent::NetShaper::create(std::move(*shapeConfig));
        if (!made)
            return fail("--net-shape: " + made.error().message);
        // The classes a previous agent gave the pools: their running workloads' cgroups carry those priorities.
        for (const auto& [pool, priority] : cgroups->netPriorities(made->device()))
            made->adopt(pool, priority);
        shaper = std::move(*made);
        logLine("network: shaping egress through " + shaper->device() + " at " + std::to_string(shaper->linkMbps())
            + " Mbit/s by pool (HTB classes, net_prio)");
    }
    agent::RunnerConfig runnerConfig;
    runnerConfig.stateDir = stateDir;
    runnerConfig.logCapBytes = logCapBytes;
    runnerConfig.keepReplaced = keepReplaced;
    runnerConfig.keepReplacedFor = keepReplacedFor;
    auto runner = agent::Runner::create(runnerConfig, *cgroups);
    if (!runner)
        return fail("runner: " + runner.error().message);
    if (logCapBytes > 0 && !runner->capsLogsWithoutLoss())
        logLine("workload output: " + runner->workloadsDir().string()
            + " cannot take a range out of a file (FALLOC_FL_COLLAPSE_RANGE: ext4, xfs); a log past the cap is copied "
              "and truncated, losing what the workload writes in between");
    auto adopted = runner->adopt();
    if (!adopted)
        return fail("state dir " + stateDir + ": " + adopted.error().message);
    for (const agent::WorkloadStatus& w : *adopted)
        logLine("workload " + w.id + " from before: " + agent::workloadStateName(w.state)
            + (w.pid ? ", pid " + std::to_string(w.pid) : std::string()));
    // Records moved aside for workloads of a replaced core's database are kept for a while, and not without bound.
    const auto sweepReplaced = [&] {
        auto removed = runner->sweepReplaced();
        if (!removed)
            logLine("state dir " + stateDir + ": " + removed.error().message);
        else
            for (const fs::path& path : *removed)
                logLine("replaced records " + path.string() + " removed (keeping the newest "
                    + std::to_string(keepReplaced) + ", none older than " + std::to_string(keepReplacedFor.count())
                    + " s)");
    };
    sweepReplaced();

    boost::asio::io_context io(1);
    agent::Sampler sampler(agent::SamplerOptions { "/", &nvml, {} });
    std::map<std::string, agent::WorkloadState> reported; // last state sent per launch (agent::recordName)
    std::shared_ptr<agent::AgentConnection> connection;
    agent::PoolNotes poolNotes; // each pool's "not enforced" notes are logged once, not at every pools message

    agent::AgentConnectionConfig config;
    config.client.host = core.substr(0, colon);
    config.client.port = static_cast<std::uint16_t>(port);
    config.client.joinToken = token;
    config.client.hello = protocol::Hello { name, "tidepool-agent 0.1", agent::summarise(node) };
    config.client.hello.features = protocol::knownFeatures();
    config.client.tls = tls;
    config.client.tlsServerName = tlsServerName;
    agent::AgentConnectionHandlers handlers;
    handlers.inventory = [&] {
        protocol::Inventory inventory = agent::toProtocolInventory(node);
        inventory.translation = factors;
        inventory.netMbps = shaper ? shaper->linkMbps() : 0;
        for (const agent::WorkloadStatus& w : runner->workloads())
            if (auto s = agent::toProtocolStatus(w))
                inventory.workloads.push_back(*s);
        return inventory;
    };
    // The pools of the core's last `pools` message, and those launches brought since (`Launch::poolLimits`): those its
    // workloads here use. The others' cgroups go once they hold nothing (a finished workload's cgroup stays with its
    // records, `--keep-finished`), tried again at each sweep.
    std::optional<std::vector<protocol::PoolLimits>> listedPools;
    const auto removeUnlistedPools = [&] {
        if (!listedPools)
            return; // no word from the core yet: whatever a previous agent left stays
        std::vector<std::string> keep;
        for (const protocol::PoolLimits& p : *listedPools)
            keep.push_back(p.name);
        std::vector<std::string> problems;
        for (const std::string& pool : cgroups->removePoolsOtherThan(keep, problems))
            logLine("pool " + pool + ": removed, no workload of it here any more");
        for (const std::string& problem : problems)
            logLine(problem);
    };
    // The link's classes: one per listed pool with a guarantee (none where the link is not shaped).
    const auto shapeListedPools = [&] {
        if (!shaper || !listedPools)
            return;
        std::vector<agent::PoolRate> rates;
        for (const protocol::PoolLimits& p : *listedPools)
            rates.push_back({ p.name, p.netMbps });
        if (auto shaped = shaper->apply(rates); !shaped)
            logLine("network shaping: " + shaped.error().message);
        else
            for (const std::string& note : *shaped)
                logLine("network shaping: " + note);
    };
    // Creates the pool's cgroups where missing and sets its limits (after shaping: its class is its net priority).
    const auto applyPool = [&](const protocol::PoolLimits& p) {
        agent::PoolLimits limits = agent::cgroupLimitsOf(p);
        if (shaper && shaper->priorityOf(p.name) != 0)
            limits.netPriority = agent::PoolLimits::NetPriority { shaper->device(), shaper->priorityOf(p.name) };
        if (auto created = cgroups->createPool(p.name); !created) {
            logLine("pool " + p.name + ": " + created.error().message);
            return;
        }
        auto applied = cgroups->applyLimits(p.name, limits);
        if (!applied)
            logLine("pool " + p.name + ": " + applied.error().message);
        else
            for (const std::string& note : poolNotes.toLog(p.name, applied->notEnforced))
                logLine("pool " + p.name + ": not enforced: " + note);
    };
    agent::PoolUsageMeter poolMeter;
    agent::PoolUsageMeter workloadMeter; // each running workload's cgroup
    std::vector<std::string> poolProblems; // the last sample's, logged when they change rather than every interval
    handlers.sample = [&] {
        protocol::UtilisationSample out;
        auto s = sampler.sample();
        if (s) {
            out.timestampMs = s->timestampMs;
            out.cpuUtilisation = std::clamp(s->cpuUtilisation.value_or(0.0), 0.0, 1.0);
            out.memoryUsedMiB = s->memoryUsedMiB;
            out.devices = s->devices;
        }
        std::vector<std::string> problems;
        const auto readings = agent::readPools(*cgroups, shaper ? &*shaper : nullptr, problems);
        const std::int64_t atUsec
            = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
                  .count();
        out.pools = poolMeter.next(readings, atUsec);
        out.workloads = agent::workloadUsageOf(
            workloadMeter.next(agent::readWorkloads(*cgroups, runner->workloads(), problems), atUsec));
        if (problems != poolProblems)
            for (const std::string& problem : problems)
                logLine("measured use: " + problem);
        poolProblems = std::move(problems);
        return out;
    };
    // The answer to a read of a workload's output; with `onlyWithOutput`, nullopt while a launch that runs has written
    // nothing from the read's position on (at most kMaxLogBytes from two files, read on the agent's one thread, as
    // its polls read them).
    agent::LogWaits logWaits;
    const auto answerLogs
        = [&](const protocol::LogRequest& r, bool onlyWithOutput) -> std::optional<protocol::LogReply> {
        const auto held
            = runner->status(std::to_string(r.workloadId), static_cast<std::uint32_t>(std::max(0, r.incarnation)));
        const bool ended = !held || agent::isFinal(held->state);
        protocol::LogReply reply = held ? agent::answerLogRequest(r, held->stdoutPath, held->stderrPath, ended)
                                        : agent::answerLogRequest(r, {}, {}, true);
        if (onlyWithOutput && !ended && reply.data.empty() && reply.error.empty())
            return std::nullopt;
        return reply;
    };
    // Held reads answered where there is something to answer now (with `only`, those it names), or whose wait is over.
    const auto answerHeld = [&](const std::function<bool(const protocol::LogRequest&)>& only) {
        for (const protocol::LogReply& reply : logWaits.answerDue(
                 std::chrono::steady_clock::now(), [&](const protocol::LogRequest& r) { return answerLogs(r, true); },
                 [&](const protocol::LogRequest& r) { return *answerLogs(r, false); }, only))
            connection->sendLogs(reply);
    };
    // The file of the stream a read names ("" where its launch is not held here).
    const auto fileOf = [&](const protocol::LogRequest& r) -> std::string {
        const auto held
            = runner->status(std::to_string(r.workloadId), static_cast<std::uint32_t>(std::max(0, r.incarnation)));
        return held ? (r.stderrStream ? held->stderrPath : held->stdoutPath).string() : std::string();
    };
    // The held reads' files are watched: a line written is answered at once, not at the next poll (`FileWatch`).
    agent::FileWatch outputWatch(io, [&](const std::set<std::string>& written) {
        answerHeld([&](const protocol::LogRequest& r) { return written.count(fileOf(r)) > 0; });
    });
    std::string watchProblem;
    const auto watchHeldFiles = [&] {
        std::set<std::string> files;
        logWaits.forEach([&](const protocol::LogRequest& r) {
            if (std::string file = fileOf(r); !file.empty())
                files.insert(std::move(file));
        });
        outputWatch.watchOnly(files);
        if (outputWatch.problem() != watchProblem) {
            watchProblem = outputWatch.problem();
            if (!watchProblem.empty())
                logLine("following output: " + watchProblem + "; held reads are looked at every 200 ms");
        }
    };
    // Held reads were the ended session's: nobody waits for their answers.
    handlers.linkChanged = [&](bool joined) {
        if (!joined) {
            logWaits.clear();
            watchHeldFiles();
        }
    };
    handlers.command = [&](const protocol::Message& message) {
        if (const auto* pools = std::get_if<protocol::PoolConfig>(&message)) {
            listedPools = pools->pools;
            shapeListedPools();
            for (const protocol::PoolLimits& p : pools->pools)
                applyPool(p);
            removeUnlistedPools();
        } else if (const auto* launch = std::get_if<protocol::Launch>(&message)) {
            // A pool the core had not listed here comes with its first launch: listed from now on, made before it.
            if (const auto& p = launch->poolLimits) {
                if (!listedPools)
                    listedPools.emplace();
                const auto listed = std::find_if(listedPools->begin(), listedPools->end(),
                    [&](const protocol::PoolLimits& q) { return q.name == p->name; });
                const bool reshape = listed == listedPools->end() ? p->netMbps != 0 : listed->netMbps != p->netMbps;
                if (listed == listedPools->end())
                    listedPools->push_back(*p);
                else
                    *listed = *p;
                if (reshape)
                    shapeListedPools();
                applyPool(*p);
            }
            const agent::CommandOutcome outcome = agent::applyLaunch(*runner, *launch, [&](agent::LaunchSpec& spec) {
                std::optional<std::string> why;
                if (auto wrapper = translator.wrapperFor(findProgram(spec.argv.front())); wrapper)
                    spec.wrapper = *wrapper;
                else if (wrapper.error().code == agent::crossisa::ErrorCode::NoTranslator)
                    why = wrapper.error().message;
                return why;
            });
            for (const std::string& name : outcome.setAside)
                reported.erase(name);
            if (outcome.launched && outcome.launched->state != agent::WorkloadState::Starting)
                reported[agent::recordName(outcome.launched->id, outcome.launched->incarnation)]
                    = outcome.launched->state;
            for (const std::string& line : outcome.log)
                logLine(line);
            for (const protocol::WorkloadStatus& answer : outcome.answers)
                connection->sendUpdate(answer);
        } else if (const auto* logs = std::get_if<protocol::LogRequest>(&message)) {
            // A following read that finds nothing yet, of a launch that runs, waits for output (`LogWaits`).
            if (auto answer = answerLogs(*logs, logs->waitMs > 0))
                connection->sendLogs(*answer);
            else if (!logWaits.hold(*logs, std::chrono::steady_clock::now()))
                connection->sendLogs(*answerLogs(*logs, false));
            else {
                watchHeldFiles();
                // Written between the look above and the watch: answered now, not at the next poll.
                answerHeld([&](const protocol::LogRequest& r) { return r == *logs; });
            }
        } else if (const auto* resize = std::get_if<protocol::Resize>(&message)) {
            std::vector<std::string> lines;
            const protocol::Resized answer = agent::applyResize(*runner, *resize, lines);
            for (const std::string& line : lines)
                logLine(line);
            connection->sendResized(answer);
        } else if (const auto* stop = std::get_if<protocol::Stop>(&message)) {
            const agent::CommandOutcome outcome = agent::applyStop(*runner, *stop);
            for (const std::string& line : outcome.log)
                logLine(line);
            for (const protocol::WorkloadStatus& answer : outcome.answers)
                connection->sendUpdate(answer);
        }
    };
    connection = agent::AgentConnection::create(io, std::move(config), std::move(handlers),
        verbose ? protocol::LogSink(logLine) : protocol::LogSink([](std::string_view line) {
            if (line.find("disconnected") != std::string_view::npos || line.find("rejected") != std::string_view::npos
                || line.find("displaced") != std::string_view::npos
                || line.find("ended the session") != std::string_view::npos)
                logLine(line);
        }));

    // Workload states: polled, and each change sent (or carried by the next inventory when the core is away).
    boost::asio::steady_timer poll(io);
    std::function<void()> schedulePoll = [&] {
        poll.expires_after(std::chrono::milliseconds(200));
        poll.async_wait([&](const boost::system::error_code& e) {
            if (e)
                return;
            for (const agent::WorkloadStatus& w : runner->poll()) {
                auto& last = reported[agent::recordName(w.id, w.incarnation)];
                if (last == w.state || w.state == agent::WorkloadState::Starting)
                    continue;
                last = w.state;
                logLine(agent::statusLogLine(w));
                if (auto s = agent::toProtocolStatus(w))
                    connection->sendUpdate(*s);
            }
            for (const std::string& problem : runner->takeProblems())
                logLine(problem);
            if (logWaits.size() > 0)
                answerHeld({});
            watchHeldFiles();
            schedulePoll();
        });
    };
    schedulePoll();

    // Finished workloads' records are kept for `keepFinished` after their end (the exit record's time), so that an
    // inventory sent after a long absence still tells the core how they ended; then they are forgotten.
    boost::asio::steady_timer sweep(io);
    const auto sweepEvery = std::clamp<std::chrono::seconds>(keepFinished / 4, std::chrono::seconds(1), std::chrono::seconds(60));
    std::function<void()> scheduleSweep = [&] {
        sweep.expires_after(sweepEvery);
        sweep.async_wait([&](const boost::system::error_code& e) {
            if (e)
                return;
            const auto now = fs::file_time_type::clock::now();
            for (const agent::WorkloadStatus& w : runner->workloads()) {
                if (!agent::isFinal(w.state))
                    continue;
                std::error_code ignored;
                const fs::path dir = w.recordDir;
                auto ended = fs::last_write_time(dir / "exit.json", ignored);
                if (ignored)
                    ended = fs::last_write_time(dir, ignored);
                if (ignored || now - ended < keepFinished)
                    continue;
                if (auto forgotten = runner->forget(w.id, w.incarnation); forgotten) {
                    const std::string what = agent::recordName(w.id, w.incarnation);
                    reported.erase(what);
                    logLine("workload " + what + ": records removed, finished more than "
                        + std::to_string(keepFinished.count()) + " s ago");
                }
            }
            sweepReplaced();
            removeUnlistedPools();
            scheduleSweep();
        });
    };
    scheduleSweep();

    boost::asio::signal_set signals(io, SIGTERM, SIGINT);
    signals.async_wait([&](const boost::system::error_code& e, int) {
        if (e)
            return;
        logLine("stopping; workloads keep running and are adopted by the next agent");
        connection->stop();
        poll.cancel();
        sweep.cancel();
        io.stop();
    });
    connection->start();
    io.run();
    return 0;
}
