// tidepool-bench-console: what the operator console costs on the GUI thread with a large cluster.
//   tidepool-bench-console [--nodes N] [--workloads W] [--updates U] [--churn FRACTION] [--tab OBJECT-NAME] --json
// It builds the real core (control plane and scheduler, no store) with N simulated nodes (warm x86 servers, hot
// 8-GPU servers, cold aarch64 servers, a few FPGA and NPU servers) and W workloads placed and running on them, then
// U times: a tenth of the nodes heartbeat new utilisation, a `churn` share of the workloads end and as many new ones
// are submitted, the core builds a `ConsoleSnapshot` (timed: core thread), and the console's real window (the
// `ConsoleShell`'s `MainWindow`, shown on the offscreen platform) takes it through the `CoreBridge` and repaints
// (timed: GUI thread, from the snapshot's delivery to the end of the event processing it caused, hidden pages'
// catch-up included). Each tab is the visible one for an equal share of the updates (or `--tab` is, for profiling). What the operator feels is the
// longest the GUI thread is held at once: every event the application delivers is timed (`TimingApplication`), and
// each update reports its longest. Switching to a tab (its catch-up and first paint) is timed too. Prints one JSON
// object: medians, p99s and maxima, the first load, and the process's resident memory.
#include "core/api/control_plane.h"
#include "ui/bridge/core_bridge.h"
#include "ui/bridge/snapshot_builder.h"
#include "ui/views/console_shell.h"
#include "ui/views/main_window.h"

#include <boost/asio/io_context.hpp>

#include <nlohmann/json.hpp>

#include <QApplication>
#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTabWidget>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <variant>

using namespace tidepool;
using Clock = std::chrono::steady_clock;

namespace {

// Times every event delivered from the event loop (nested deliveries count in their outermost one) and keeps the
// longest since `resetLongest`.
class TimingApplication : public QApplication {
public:
    using QApplication::QApplication;
    bool notify(QObject* receiver, QEvent* event) override
    {
        if (m_depth++ > 0) {
            const bool done = QApplication::notify(receiver, event);
            --m_depth;
            return done;
        }
        QElapsedTimer timer;
        timer.start();
        const bool done = QApplication::notify(receiver, event);
        const double ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        if (ms > m_longestMs) {
            m_longestMs = ms;
            m_longestWhat = std::string(receiver->metaObject()->className()) + "/" + receiver->objectName().toStdString()
                + " event " + std::to_string(static_cast<int>(event->type()));
        }
        --m_depth;
        return done;
    }
    double longestMs() const { return m_longestMs; }
    const std::string& longestWhat() const { return m_longestWhat; } // the receiver and event type of the longest
    void resetLongest() { m_longestMs = 0.0; }

private:
    int m_depth = 0;
    double m_longestMs = 0.0;
    std::string m_longestWhat;
};

struct Options {
    int nodes = 10'000;
    int workloads = 50'000;
    int updates = 40;
    double churn = 0.01;
    std::string tab; // only this tab visible (its object name, e.g. poolsPage); empty: each in turn
};

double millisSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double quantile(std::vector<double> v, double q)
{
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

nlohmann::json summary(const std::vector<double>& v)
{
    return { { "median_ms", quantile(v, 0.5) }, { "p99_ms", quantile(v, 0.99) },
        { "max_ms", v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()) }, { "samples", v.size() } };
}

long residentKiB()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmRSS:", 0) == 0)
            return std::atol(line.c_str() + 6);
    return 0;
}

// The simulated agents: launches are running at once, stops are acknowledged at once.
class Fleet {
public:
    Fleet(const Options& options)
        : m_options(options)
    {
    }

    bool start()
    {
        api::AgentLink link { [this](const std::string& session, const protocol::Message& message) {
                                 m_outbox.emplace_back(session, message);
                                 return true;
                             },
            [](const std::string&, const std::string&) { return true; } };
        auto plane = api::ControlPlane::create(m_io, api::ControlPlaneConfig {}, std::move(link), {}, nullptr);
        if (!plane) {
            std::fprintf(stderr, "tidepool-bench-console: %s\n", plane.error().message.c_str());
            return false;
        }
        m_plane = std::move(*plane);
        const char* lines[] = { "search", "ads", "video", "maps", "payments" };
        for (int p = 0; p < 20; ++p) {
            api::PoolRequest pool;
            pool.name = "pool-" + std::to_string(p);
            pool.businessLine = lines[p % 5];
            if (!m_plane->createPool(pool))
                return false;
        }
        for (int n = 0; n < m_options.nodes; ++n)
            join(n);
        for (int w = 0; w < m_options.workloads; ++w)
            submit();
        pump();
        return true;
    }

    // A tenth of the nodes report new utilisation; `churn` of the workloads end and as many new ones come.
    void step()
    {
        std::uniform_real_distribution<double> load(0.05, 0.95);
        for (int n = m_cursor; n < m_options.nodes; n += 10) {
            protocol::UtilisationSample sample;
            sample.timestampMs = m_plane->nowMs();
            sample.cpuUtilisation = load(m_rng);
            sample.memoryUsedMiB = 1024 * (n % 200);
            for (int d = 0; d < devicesOf(n); ++d)
                sample.devices.push_back(protocol::DeviceSample { d, load(m_rng), 4096 });
            m_plane->onHeartbeat(nodeName(n), protocol::Heartbeat { ++m_sequence, { sample } });
        }
        m_cursor = (m_cursor + 1) % 10;
        const auto ending = static_cast<int>(m_options.churn * m_options.workloads);
        for (int i = 0; i < ending && !m_running.empty(); ++i) {
            const auto it = m_running.begin();
            m_plane->onWorkloadUpdate(it->second.session,
                protocol::WorkloadStatus { it->first, "exited", 4242, 0, "", it->second.incarnation });
            m_running.erase(it);
            submit();
        }
        pump();
    }

    api::ControlPlane& plane() { return *m_plane; }

private:
    struct Running {
        std::string session;
        std::int32_t incarnation = 0;
    };

    static std::string nodeName(int n)
    {
        char name[32];
        std::snprintf(name, sizeof name, "node-%05d", n);
        return name;
    }

    // 60% warm x86, 25% hot 8-GPU, 10% cold aarch64, 5% with FPGAs (4 devices of 8 slots) and NPUs.
    static int devicesOf(int n)
    {
        const int kind = n % 20;
        return kind < 12 ? 0 : kind < 17 ? 8 : kind < 19 ? 0 : 4;
    }

    void join(int n)
    {
        protocol::Inventory inventory;
        const int kind = n % 20;
        inventory.isa = kind >= 17 && kind < 19 ? "aarch64" : "x86_64";
        inventory.cpuMillis = kind < 12 ? 64'000 : 96'000;
        inventory.memoryMiB = 512 * 1024;
        for (int d = 0; d < devicesOf(n); ++d) {
            if (kind < 17)
                inventory.devices.push_back(protocol::DeviceInfo { d, "gpu", "A10", 24'576, 1000 });
            else
                inventory.devices.push_back(protocol::DeviceInfo { d, n % 2 ? "fpga" : "npu", n % 2 ? "U250" : "910B",
                    16'384, n % 2 ? 8 : 32 });
        }
        const std::string name = nodeName(n);
        m_plane->onJoined(name, "bench", protocol::Hello { name, "bench", std::nullopt });
        m_plane->onInventory(name, inventory);
    }

    void submit()
    {
        std::uniform_int_distribution<int> shape(0, 9);
        api::SubmitRequest request;
        const int id = m_submitted++;
        request.name = "job-" + std::to_string(id);
        request.pool = "pool-" + std::to_string(id % 20);
        const int s = shape(m_rng);
        request.requests.cpuMillis = 1000 + 500 * s;
        request.requests.memoryMiB = 2048 + 1024 * s;
        if (s >= 7) { // a fractional GPU share, as most of openb's pods
            request.accelerators.kind = AcceleratorKind::Gpu;
            request.accelerators.count = 1;
            request.accelerators.sharePerDevice = 250 * (s - 6);
            request.latency = LatencyClass::RealTime;
        }
        (void)m_plane->submit(std::move(request));
    }

    void pump()
    {
        for (int round = 0; round < 100; ++round) {
            m_io.restart();
            m_io.poll();
            if (m_outbox.empty())
                return;
            for (const auto& [session, message] : std::exchange(m_outbox, {})) {
                if (const auto* launch = std::get_if<protocol::Launch>(&message)) {
                    m_running[launch->workloadId] = Running { session, launch->incarnation };
                    m_plane->onWorkloadUpdate(session,
                        protocol::WorkloadStatus { launch->workloadId, "running", 4242, 0, "", launch->incarnation });
                } else if (const auto* stop = std::get_if<protocol::Stop>(&message)) {
                    const auto it = m_running.find(stop->workloadId);
                    if (it == m_running.end())
                        continue;
                    m_plane->onWorkloadUpdate(session,
                        protocol::WorkloadStatus { stop->workloadId, "stopped", 0, 15, "", it->second.incarnation });
                    m_running.erase(it);
                }
            }
        }
    }

    Options m_options;
    boost::asio::io_context m_io;
    std::unique_ptr<api::ControlPlane> m_plane;
    std::vector<std::pair<std::string, protocol::Message>> m_outbox;
    std::map<WorkloadId, Running> m_running;
    std::mt19937_64 m_rng { 42 };
    std::uint64_t m_sequence = 0;
    int m_submitted = 0;
    int m_cursor = 0;
};

Options parse(int argc, char** argv)
{
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool hasValue = i + 1 < argc;
        if (arg == "--nodes" && hasValue)
            options.nodes = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--workloads" && hasValue)
            options.workloads = std::max(0, std::atoi(argv[++i]));
        else if (arg == "--updates" && hasValue)
            options.updates = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--churn" && hasValue)
            options.churn = std::clamp(std::atof(argv[++i]), 0.0, 1.0);
        else if (arg == "--tab" && hasValue)
            options.tab = argv[++i];
        else if (arg != "--json") {
            std::fprintf(stderr, "usage: tidepool-bench-console [--nodes N] [--workloads W] [--updates U] "
                                 "[--churn FRACTION] [--tab OBJECT-NAME] --json\n");
            std::exit(2);
        }
    }
    return options;
}

} // namespace

int main(int argc, char** argv)
{
    if (!std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    const Options options = parse(argc, argv);
    TimingApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true); // the operator's settings stay as they are

    const auto built = Clock::now();
    Fleet fleet(options);
    if (!fleet.start())
        return 1;
    const double coreSetupMs = millisSince(built);
    const long rssCoreKiB = residentKiB();

    ui::CoreBridge bridge;
    ui::ConsoleShell shell(bridge, false);
    ui::MainWindow* window = shell.window();
    window->resize(1600, 1000);
    window->show();
    QApplication::processEvents();
    const long rssWindowKiB = residentKiB();

    std::uint64_t sequence = 0;
    std::vector<double> buildMs;
    // Delivers one snapshot as the core thread would, and times the GUI thread's work for it.
    const auto deliver = [&] {
        const auto start = Clock::now();
        auto snapshot = ui::buildSnapshot(fleet.plane(), nullptr, ++sequence, "bench");
        buildMs.push_back(millisSince(start));
        bridge.events().snapshot(std::move(snapshot));
        QElapsedTimer gui;
        gui.start();
        app.resetLongest();
        QApplication::processEvents(); // the queued drain: the visible page's models, then its repaint
        while (window->pagesBehind() > 0) // the hidden pages, one a turn
            QApplication::processEvents();
        QApplication::processEvents(); // repaints the first pass scheduled
        return std::pair { static_cast<double>(gui.nsecsElapsed()) / 1e6, app.longestMs() };
    };

    const double firstLoadMs = deliver().first;
    const long rssLoadedKiB = residentKiB();
    QTabWidget* tabs = window->tabs();
    nlohmann::json perTab = nlohmann::json::object();
    nlohmann::json perTabLongest = nlohmann::json::object();
    std::vector<double> all;
    std::vector<double> longest;
    std::vector<double> switchMs;
    std::vector<double> stepMs;
    for (int i = 0; i < options.updates; ++i) {
        int tab = i * tabs->count() / options.updates;
        if (!options.tab.empty()) {
            tab = -1;
            for (int t = 0; t < tabs->count(); ++t)
                if (tabs->widget(t)->objectName().toStdString() == options.tab)
                    tab = t;
            if (tab < 0) {
                std::fprintf(stderr, "tidepool-bench-console: no tab named %s\n", options.tab.c_str());
                return 2;
            }
        }
        if (tab != tabs->currentIndex()) {
            QElapsedTimer switching;
            switching.start();
            tabs->setCurrentIndex(tab);
            QApplication::processEvents();
            switchMs.push_back(static_cast<double>(switching.nsecsElapsed()) / 1e6);
        }
        const auto stepStart = Clock::now();
        fleet.step();
        stepMs.push_back(millisSince(stepStart));
        const auto [ms, longestMs] = deliver();
        if (std::getenv("TIDEPOOL_BENCH_TRACE"))
            std::fprintf(stderr, "update %d (tab %d): %.1f ms, longest %.1f ms: %s\n", i, tab, ms, longestMs,
                app.longestWhat().c_str());
        all.push_back(ms);
        longest.push_back(longestMs);
        const std::string name = tabs->widget(tab)->objectName().toStdString();
        perTab[name].push_back(ms);
        perTabLongest[name].push_back(longestMs);
    }
    nlohmann::json tabsJson = nlohmann::json::object();
    for (auto& [name, values] : perTab.items())
        tabsJson[name] = summary(values.get<std::vector<double>>());
    nlohmann::json tabsLongestJson = nlohmann::json::object();
    for (auto& [name, values] : perTabLongest.items())
        tabsLongestJson[name] = summary(values.get<std::vector<double>>());

    const auto& snapshot = *bridge.latest();
    nlohmann::json out {
        { "nodes", snapshot.nodes.size() },
        { "workloads_placed", fleet.plane().phaseCounts()[static_cast<std::size_t>(api::WorkloadPhase::Running)] },
        { "updates", options.updates },
        { "churn", options.churn },
        { "core_setup_ms", coreSetupMs },
        { "core_step_ms", summary(stepMs) },
        { "snapshot_build_ms", summary(buildMs) },
        { "gui_first_load_ms", firstLoadMs },
        { "gui_update_ms", summary(all) },
        { "gui_update_ms_by_tab", tabsJson },
        { "gui_longest_block_ms", summary(longest) },
        { "gui_longest_block_ms_by_tab", tabsLongestJson },
        { "tab_switch_ms", summary(switchMs) },
        { "rss_mib", { { "core", rssCoreKiB / 1024 }, { "window", rssWindowKiB / 1024 }, { "loaded", rssLoadedKiB / 1024 },
                         { "end", residentKiB() / 1024 } } },
    };
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
}
