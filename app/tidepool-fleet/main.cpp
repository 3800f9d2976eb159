// tidepool-fleet: N simulated agents in one process, each with its own TCP connection to the core, speaking the
// real protocol (join, inventory, heartbeats, launch and stop acknowledgements). Inventories come from the real
// fleets in ../shared/data/fleets or are generated; utilisation follows a load series with a time scale.
#include "agents/fleet/fleet.h"
#include "protocol/transport/tls.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <sys/resource.h>

#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <thread>

namespace {

using namespace tidepool;

constexpr const char* kUsage = R"(usage: tidepool-fleet --core HOST:PORT --join-token-file FILE --nodes N [options]
  --inventory generated|pai2020|spot2026   where the nodes come from (default generated)
  --data DIR             the shared data folder (default ../shared/data beside the checkout)
  --load-series FILE     CSV whose first two columns (CPU %, memory %) drive utilisation
  --bucket-seconds S     the series' step (default 30)
  --time-scale X         trace seconds per real second (default 60)
  --prefix NAME          node names are NAME-0, NAME-1, ... (default fleet)
  --threads T            io threads, agents split among them (default 1)
  --seed N               generated fleet and back-off jitter (default 42)
  --report-every S       print a JSON status line every S seconds (default 5; 0 = never)
  --net-mbps M           every node says it shapes its link at M Mbit/s (as `tidepool-agent --net-shape`; default 0,
                         not shaped): the core counts it as the node's network and sends each pool's guarantee
  --no-pool-usage        samples carry no pools' measured use and hellos name no protocol features (as agents from
                         before them); by default each pool's use is its held workloads' requests times the node's
                         load, as a real agent measures it, sent to a core that reads it
  --no-workload-usage    samples carry no running workload's measured use (by default each one's requests times the
                         node's load)
  --tls-ca FILE          connect with TLS, verifying the core's certificate against this CA
  --tls-server-name NAME the name the core's certificate must carry (default: the --core host)
  --verbose              log every agent's connection events
)";

struct Options {
    std::string host;
    std::uint16_t port = 0;
    std::string tokenFile;
    std::size_t nodes = 0;
    std::string inventory = "generated";
    std::string data = TIDEPOOL_DEFAULT_DATA;
    std::string loadSeries;
    double bucketSeconds = 30;
    double timeScale = 60;
    std::string prefix = "fleet";
    std::size_t threads = 1;
    std::uint64_t seed = 42;
    double reportEvery = 5;
    std::int64_t netMbps = 0;
    bool poolUsage = true;
    bool workloadUsage = true;
    bool verbose = false;
    std::string tlsCa;
    std::string tlsServerName;
};

bool parseNumber(const std::string& text, double& out)
{
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && ptr == text.data() + text.size() && out >= 0;
}

int fail(const std::string& message)
{
    std::fprintf(stderr, "tidepool-fleet: %s\n", message.c_str());
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string option = argv[i];
        if (option == "--help") {
            std::cout << kUsage;
            return 0;
        }
        if (option == "--verbose") {
            o.verbose = true;
            continue;
        }
        if (option == "--no-pool-usage") {
            o.poolUsage = false;
            continue;
        }
        if (option == "--no-workload-usage") {
            o.workloadUsage = false;
            continue;
        }
        if (i + 1 >= argc)
            return fail(option + " needs a value");
        const std::string value = argv[++i];
        double n = 0;
        const bool numeric = parseNumber(value, n);
        if (option == "--core") {
            const auto colon = value.rfind(':');
            double port = 0;
            if (colon == std::string::npos || !parseNumber(value.substr(colon + 1), port) || port < 1 || port > 65535)
                return fail("--core: \"" + value + "\" is not HOST:PORT");
            o.host = value.substr(0, colon);
            o.port = static_cast<std::uint16_t>(port);
        } else if (option == "--join-token-file")
            o.tokenFile = value;
        else if (option == "--inventory")
            o.inventory = value;
        else if (option == "--data")
            o.data = value;
        else if (option == "--load-series")
            o.loadSeries = value;
        else if (option == "--prefix")
            o.prefix = value;
        else if (option == "--tls-ca")
            o.tlsCa = value;
        else if (option == "--tls-server-name")
            o.tlsServerName = value;
        else if (!numeric)
            return fail(option + ": \"" + value + "\" is not a non-negative number, or the option is unknown");
        else if (option == "--nodes")
            o.nodes = static_cast<std::size_t>(n);
        else if (option == "--bucket-seconds")
            o.bucketSeconds = n;
        else if (option == "--time-scale")
            o.timeScale = n;
        else if (option == "--threads")
            o.threads = std::max<std::size_t>(1, static_cast<std::size_t>(n));
        else if (option == "--seed")
            o.seed = static_cast<std::uint64_t>(n);
        else if (option == "--report-every")
            o.reportEvery = n;
        else if (option == "--net-mbps" && n >= 1 && n <= 1e7)
            o.netMbps = static_cast<std::int64_t>(n);
        else
            return fail("unknown option " + option + "\n" + kUsage);
    }
    if (o.host.empty() || o.tokenFile.empty() || o.nodes == 0)
        return fail(std::string("--core, --join-token-file and --nodes are required\n") + kUsage);
    std::ifstream tokenIn(o.tokenFile);
    std::string token;
    if (!tokenIn || !std::getline(tokenIn, token) || token.empty())
        return fail("join token file " + o.tokenFile + " cannot be read or is empty");
    while (!token.empty() && (token.back() == '\r' || token.back() == ' '))
        token.pop_back();

    std::vector<agent::FleetNodeSpec> specs;
    if (o.inventory == "generated") {
        specs = agent::generateFleet(o.nodes, o.seed);
    } else if (o.inventory == "pai2020" || o.inventory == "spot2026") {
        auto loaded = o.inventory == "pai2020" ? agent::loadPai2020(o.data + "/fleets/pai2020_machine_spec.csv")
                                               : agent::loadSpot2026(o.data + "/fleets/spot2026_node_info.csv");
        if (!loaded)
            return fail(loaded.error().message);
        specs = std::move(*loaded);
    } else {
        return fail("--inventory must be generated, pai2020 or spot2026");
    }
    auto nodes = agent::takeNodes(specs, o.nodes, o.prefix);
    for (agent::FleetNodeSpec& node : nodes) {
        node.netMbps = o.netMbps;
        node.poolUsage = o.poolUsage;
        node.workloadUsage = o.workloadUsage;
    }

    agent::LoadSeries series;
    if (!o.loadSeries.empty()) {
        auto loaded = agent::loadLoadSeries(o.loadSeries, o.bucketSeconds);
        if (!loaded)
            return fail(loaded.error().message);
        series = std::move(*loaded);
    }

    // Each agent holds one socket.
    rlimit limit {};
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
    }
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < o.nodes + 64)
        return fail("the descriptor limit (" + std::to_string(limit.rlim_cur) + ") is below the " + std::to_string(o.nodes)
            + " sockets the fleet needs; raise `ulimit -n`");

    protocol::LogSink log;
    if (o.verbose)
        log = [](std::string_view line) { std::fprintf(stderr, "tidepool-fleet: %.*s\n", static_cast<int>(line.size()), line.data()); };

    std::shared_ptr<boost::asio::ssl::context> tls;
    if (!o.tlsCa.empty()) {
        auto context = transport::makeClientContext(transport::TlsClientFiles { o.tlsCa, {}, {} });
        if (!context)
            return fail(context.error());
        tls = std::move(*context);
    }

    std::vector<std::unique_ptr<boost::asio::io_context>> contexts;
    for (std::size_t t = 0; t < o.threads; ++t)
        contexts.push_back(std::make_unique<boost::asio::io_context>(1));
    std::vector<std::unique_ptr<agent::SimulatedAgent>> agents;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        agent::AgentConnectionConfig config;
        config.client.host = o.host;
        config.client.port = o.port;
        config.client.joinToken = token;
        config.client.hello.agentVersion = "tidepool-fleet 0.1";
        // Agents from before pool usage were from before features too.
        if (o.poolUsage) {
            config.client.hello.features = protocol::knownFeatures();
            // Its output is made up on the spot: nothing to wait for, so a following read is answered at once.
            std::erase(config.client.hello.features, std::string(protocol::kFeatureLogWait));
        }
        config.client.tls = tls; // one context, shared read-only by every connection
        config.client.tlsServerName = o.tlsServerName;
        config.seed = o.seed * 1'000'003 + i + 1;
        // Spread the nodes over the series so that they do not all peak together.
        const double phase = series.cpu.empty() ? 0.0
                                                : static_cast<double>(i * 7919 % series.cpu.size()) * o.bucketSeconds;
        agents.push_back(std::make_unique<agent::SimulatedAgent>(
            *contexts[i % o.threads], nodes[i], std::move(config), &series, o.timeScale, phase, log));
    }
    for (auto& a : agents)
        a->start();

    boost::asio::io_context& main = *contexts.front();
    boost::asio::signal_set signals(main, SIGTERM, SIGINT);
    signals.async_wait([&](const boost::system::error_code& ec, int) {
        if (ec)
            return;
        for (auto& c : contexts)
            c->stop();
    });
    // Status lines read the agents of other threads without locks: counts only, approximate by design.
    boost::asio::steady_timer report(main);
    const auto started = std::chrono::steady_clock::now();
    std::function<void()> scheduleReport = [&] {
        if (o.reportEvery <= 0)
            return;
        report.expires_after(std::chrono::milliseconds(static_cast<std::int64_t>(o.reportEvery * 1000)));
        report.async_wait([&](const boost::system::error_code& ec) {
            if (ec)
                return;
            std::size_t joined = 0, running = 0;
            std::uint64_t launches = 0, duplicates = 0, heartbeats = 0, rejections = 0;
            for (const auto& a : agents) {
                joined += a->joined() ? 1 : 0;
                running += a->running();
                launches += a->stats().launches;
                duplicates += a->stats().duplicateLaunches;
                heartbeats += a->connection().stats().heartbeatsSent;
                rejections += a->connection().stats().rejections; // sessions the core ended saying why
            }
            std::printf("{\"elapsed_s\":%.1f,\"nodes\":%zu,\"joined\":%zu,\"running\":%zu,\"launches\":%llu,"
                        "\"duplicate_launches\":%llu,\"heartbeats\":%llu,\"rejections\":%llu}\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), agents.size(), joined,
                running, static_cast<unsigned long long>(launches), static_cast<unsigned long long>(duplicates),
                static_cast<unsigned long long>(heartbeats), static_cast<unsigned long long>(rejections));
            std::fflush(stdout);
            scheduleReport();
        });
    };
    scheduleReport();

    std::vector<std::thread> threads;
    for (std::size_t t = 1; t < contexts.size(); ++t)
        threads.emplace_back([&, t] { contexts[t]->run(); });
    main.run();
    for (auto& c : contexts)
        c->stop();
    for (auto& t : threads)
        t.join();
    return 0;
}
