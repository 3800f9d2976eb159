// The real node agent on this machine, as root, driven through the real daemon: a pool's CPU quota holds a
// two-thread spinner to half a core, a workload past its pool's memory limit is reported OOM-killed, an aarch64
// binary runs through qemu-user with its slowdown reported, an agent killed with SIGKILL and restarted adopts its
// running workload (same PID, nothing started twice), and an agent with a wrong join token is refused. Relaunches of
// one workload id on one node (a new incarnation each): one whose agent lost track of it is started again there, and a
// consolidation proposal moves a share of one GPU to the other GPU of the same node, where it runs again while the
// stopped copy's end is ignored.
// Skips, saying why, when not root, without cgroup controllers, or without qemu-user and the aarch64 build.
// Each agent of the suite has a base cgroup named after the suite's pid (`base`), removed at its end: an agent
// already running on this host on the default base, or another run of the suite, is left alone and does not refuse
// the suite's agents.
#include "harness.h"
#include "protocol/messages.h"

#include <QFile>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>

namespace http = harness::http;
using harness::kBin;
using harness::request;
using harness::waitFor;
using nlohmann::json;

namespace {

bool processAlive(int pid)
{
    return pid > 0 && kill(pid, 0) == 0;
}

// CPU time of a workload's cgroup in seconds, from the paths the runner recorded in its launch record.
double cgroupCpuSeconds(const QString& stateDir, std::int64_t id)
{
    std::ifstream in((stateDir + QStringLiteral("/workloads/%1/launch.json").arg(id)).toStdString());
    const json record = json::parse(in, nullptr, false);
    if (!record.is_object() || !record.contains("cgroup"))
        return -1;
    const json& cgroup = record["cgroup"];
    if (cgroup.contains("cpuacct") && cgroup["cpuacct"].is_string() && !cgroup["cpuacct"].get<std::string>().empty()) {
        std::ifstream usage(cgroup["cpuacct"].get<std::string>() + "/cpuacct.usage");
        double ns = -1;
        usage >> ns;
        return ns < 0 ? -1 : ns / 1e9;
    }
    for (const char* key : { "unified", "cpu" }) {
        if (!cgroup.contains(key) || !cgroup[key].is_string())
            continue;
        std::ifstream stat(cgroup[key].get<std::string>() + "/cpu.stat");
        std::string name;
        double value = 0;
        while (stat >> name >> value)
            if (name == "usage_usec")
                return value / 1e6;
    }
    return -1;
}

} // namespace

class TestAgentE2e : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<QProcess> m_daemon;
    std::unique_ptr<QProcess> m_agent;
    std::uint16_t m_agentPort = 0, m_apiPort = 0;
    QString m_log;
    std::string m_token = "operator-token-0123456789abcdef";

    QString path(const QString& name) const { return m_dir.filePath(name); }
    QString stateDir() const { return path(QStringLiteral("state")); }
    // The base cgroup name of one of the suite's agents: the main one's, or (`which`) another's.
    static QString base(const QString& which = {})
    {
        return QStringLiteral("tidepool-e2e-%1").arg(::getpid())
            + (which.isEmpty() ? QString() : QLatin1Char('-') + which);
    }
    // Removes the suite's base cgroups (the agents leave them, empty, as they leave their own), in every hierarchy.
    static void removeBases()
    {
        namespace fs = std::filesystem;
        const std::string main = base().toStdString();
        const auto ours = [&](const std::string& name) { return name == main || name.starts_with(main + '-'); };
        std::vector<fs::path> bases;
        std::error_code ec;
        for (fs::recursive_directory_iterator it("/sys/fs/cgroup", fs::directory_options::skip_permission_denied, ec),
             end;
             !ec && it != end; it.increment(ec))
            if (it->is_directory(ec) && !it->is_symlink(ec) && ours(it->path().filename().string())) {
                bases.push_back(it->path());
                it.disable_recursion_pending();
            }
        for (const fs::path& at : bases) {
            std::vector<fs::path> dirs;
            for (fs::recursive_directory_iterator it(at, ec), end; !ec && it != end; it.increment(ec))
                if (it->is_directory(ec) && !it->is_symlink(ec))
                    dirs.push_back(it->path());
            std::sort(
                dirs.begin(), dirs.end(), [](const fs::path& a, const fs::path& b) { return a.string() > b.string(); });
            dirs.push_back(at);
            for (const fs::path& dir : dirs)
                ::rmdir(dir.c_str()); // the deepest first; one still holding a process stays
        }
    }
    std::unique_ptr<QProcess> m_gpuAgent; // a second agent, with two declared GPUs, for the last test only

    bool startAgent(const QString& tokenFile = QStringLiteral("join.token"))
    {
        m_agent = std::make_unique<QProcess>();
        m_agent->setProcessChannelMode(QProcess::MergedChannels);
        m_agent->setStandardOutputFile(path(QStringLiteral("agent.log")), QIODevice::Append);
        m_agent->start(kBin + QStringLiteral("/tidepool-agent"),
            { QStringLiteral("--core"), QStringLiteral("127.0.0.1:%1").arg(m_agentPort),
                QStringLiteral("--join-token-file"), path(tokenFile), QStringLiteral("--state-dir"), stateDir(),
                QStringLiteral("--name"), QStringLiteral("e2e-node"), QStringLiteral("--accelerator-file"), QString(),
                QStringLiteral("--keep-finished"), QStringLiteral("5"), QStringLiteral("--cgroup-name"), base() });
        return m_agent->waitForStarted(5000);
    }

    double metric(const std::string& series) { return harness::metric(m_apiPort, series); }
    json get(const std::string& target) { return request(m_apiPort, http::verb::get, target, m_token).data(); }

    // tidepoolctl against the daemon as an operator: its exit status, output and errors.
    std::tuple<int, QString, QString> ctl(const QStringList& words)
    {
        QProcess p;
        p.start(kBin + QStringLiteral("/tidepoolctl"),
            QStringList { QStringLiteral("--server"), QStringLiteral("127.0.0.1:%1").arg(m_apiPort),
                QStringLiteral("--token-file"), path(QStringLiteral("op.token")) }
                + words);
        p.waitForFinished(20'000);
        return std::tuple { p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError()) };
    }
    json submit(const json& body)
    {
        const auto r = request(m_apiPort, http::verb::post, "/v1/workloads", m_token, body.dump());
        return r.status == 201 ? r.data() : json { { "error", r.body } };
    }
    bool phaseIs(std::int64_t id, const std::string& phase)
    {
        return get("/v1/workloads/" + std::to_string(id))["phase"] == phase;
    }
    QString agentLog() const
    {
        QFile f(path(QStringLiteral("agent.log")));
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    }

    // Starts an agent "e2e-second" with `extra` options that is expected to refuse to start: "exit N: " and its
    // output once it ended, "still running: …" (killed) when it did not within 15 s.
    QString secondAgent(const QString& stateDir, const QStringList& extra)
    {
        QProcess second;
        second.setProcessChannelMode(QProcess::MergedChannels);
        second.start(kBin + QStringLiteral("/tidepool-agent"),
            QStringList { QStringLiteral("--core"), QStringLiteral("127.0.0.1:%1").arg(m_agentPort),
                QStringLiteral("--join-token-file"), path(QStringLiteral("join.token")), QStringLiteral("--state-dir"),
                stateDir, QStringLiteral("--name"), QStringLiteral("e2e-second"), QStringLiteral("--no-slowdown"),
                QStringLiteral("--accelerator-file"), QString() }
                + extra);
        if (!second.waitForStarted(5000))
            return QStringLiteral("not started");
        const bool ended = second.waitForFinished(15'000);
        const QString output = QString::fromUtf8(second.readAll());
        if (!ended) {
            second.kill();
            second.waitForFinished(5000);
            return QStringLiteral("still running: ") + output;
        }
        return QStringLiteral("exit %1: ").arg(second.exitCode()) + output;
    }

private slots:
    void initTestCase()
    {
        if (geteuid() != 0)
            QSKIP("needs root: the agent creates cgroups");
        if (!std::filesystem::exists("/sys/fs/cgroup/cgroup.controllers")
            && !std::filesystem::exists("/sys/fs/cgroup/cpu") && !std::filesystem::exists("/sys/fs/cgroup/cpu,cpuacct"))
            QSKIP("no cgroup cpu controller is mounted");
        QVERIFY(m_dir.isValid());
        for (const auto& [name, content] : { std::pair { "join.token", "join-token-0123456789abcdef\n" },
                 std::pair { "wrong.token", "not-the-join-token-0123456\n" } }) {
            QFile f(path(QString::fromLatin1(name)));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(content);
        }
        QFile op(path(QStringLiteral("op.token")));
        QVERIFY(op.open(QIODevice::WriteOnly));
        op.write(QByteArray::fromStdString(m_token + "\n"));
        op.close();
        m_daemon = std::make_unique<QProcess>();
        QVERIFY2(harness::startDaemon(*m_daemon,
                     { QStringLiteral("--agent-listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--api-listen"),
                         QStringLiteral("127.0.0.1:0"), QStringLiteral("--db"), path(QStringLiteral("t.db")),
                         QStringLiteral("--join-token-file"), path(QStringLiteral("join.token")),
                         QStringLiteral("--operator-token-file"), path(QStringLiteral("op.token")),
                         QStringLiteral("--heartbeat-interval-ms"), QStringLiteral("500") },
                     m_agentPort, m_apiPort, m_log),
            qPrintable(m_log));
        QVERIFY(startAgent());
        // The agent measures translation slowdowns before it joins (a few seconds of isabench under qemu).
        QVERIFY2(waitFor([&] { return metric("tidepool_nodes{state=\"ready\"}") == 1; }, 90'000), qPrintable(agentLog()));
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/pools", m_token,
                     R"({"name":"half","cpuMillis":500,"memoryMiB":64})")
                     .status,
            201);
    }

    void cleanupTestCase()
    {
        // Stop every workload the suite started, then the processes; the runner's cgroups go with the workloads.
        if (m_apiPort) {
            const json all = get("/v1/workloads"); // a named value: a range-for over a temporary's member dangles
            for (const json& w : all["workloads"])
                request(m_apiPort, http::verb::delete_, "/v1/workloads/" + std::to_string(w["id"].get<int>()), m_token);
        }
        // Cancelled workloads are "stopping" until their agent reports them gone: wait for that, not just "running".
        waitFor(
            [&] {
                return metric("tidepool_workloads{phase=\"running\"}") <= 0
                    && metric("tidepool_workloads{phase=\"stopping\"}") <= 0
                    && metric("tidepool_workloads{phase=\"launching\"}") <= 0;
            },
            30'000);

        for (auto* p : { m_gpuAgent.get(), m_agent.get(), m_daemon.get() })
            if (p) {
                p->terminate();
                if (!p->waitForFinished(5000))
                    p->kill();
            }
        removeBases();
    }

    void cpuQuotaHoldsASpinnerToHalfACore()
    {
        const json w = submit({ { "name", "spin" }, { "pool", "half" }, { "cpuMillis", 500 }, { "memoryMiB", 32 },
            { "command", { "/bin/sh", "-c", "while :; do :; done & while :; do :; done" } } });
        QVERIFY2(w.contains("id"), w.dump().c_str());
        const std::int64_t id = w["id"];
        QVERIFY(waitFor([&] { return phaseIs(id, "running"); }, 10'000));
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        const double before = cgroupCpuSeconds(stateDir(), id);
        QVERIFY(before >= 0);
        const auto started = std::chrono::steady_clock::now();
        // 4 s by default; TIDEPOOL_E2E_CPU_SECONDS=10 gives the issue's 10 s measurement.
        const int window = std::max(1, qEnvironmentVariableIntValue("TIDEPOOL_E2E_CPU_SECONDS"));
        std::this_thread::sleep_for(std::chrono::seconds(qEnvironmentVariableIsSet("TIDEPOOL_E2E_CPU_SECONDS") ? window : 4));
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        const double cores = (cgroupCpuSeconds(stateDir(), id) - before) / seconds;
        qInfo("two spinning threads under a 500-millicore pool used %.3f cores over %.1f s", cores, seconds);
        QVERIFY2(cores <= 0.55, qPrintable(QString::number(cores)));
        QVERIFY2(cores >= 0.2, qPrintable(QString::number(cores))); // it did run
        // What the agent measured the pool's cgroup using comes with its heartbeats: the pool's `measured` and the
        // node's `poolUsage` show the spinner's half core (the kernel's account, not the request), and it falls once
        // the workload is gone.
        json measured;
        QVERIFY2(waitFor(
                     [&] {
                         measured = get("/v1/pools/half")["measured"];
                         return measured.is_object() && measured.value("cpuMillis", 0) >= 300;
                     },
                     10'000),
            measured.dump().c_str());
        QVERIFY2(measured["cpuMillis"].get<int>() <= 560 && measured["nodes"] == 1 && measured["netMbps"].is_null(),
            measured.dump().c_str());
        const std::string node = get("/v1/workloads/" + std::to_string(id))["node"];
        const json nodeRow = get("/v1/nodes/" + node);
        // The agent named its protocol features in its hello, and the core, naming its own, let it send pool usage.
        QCOMPARE(nodeRow["agentFeatures"].get<std::vector<std::string>>(), tidepool::protocol::knownFeatures());
        QVERIFY2(std::any_of(nodeRow["poolUsage"].begin(), nodeRow["poolUsage"].end(),
                     [](const json& u) { return u["name"] == "half" && u["cpuMillis"].get<int>() >= 200; }),
            nodeRow["poolUsage"].dump().c_str());
        // And the workload's own cgroup: the same half core (its two threads held to the pool's quota), its memory.
        json own;
        QVERIFY2(waitFor(
                     [&] {
                         own = get("/v1/workloads/" + std::to_string(id))["measured"];
                         return own.is_object() && own.value("cpuMillis", 0) >= 300;
                     },
                     10'000),
            own.dump().c_str());
        QVERIFY2(own["cpuMillis"].get<int>() <= 560 && own["peakCpuMillis"].get<int>() >= own["cpuMillis"].get<int>()
                && own["memoryMiB"].get<int>() < 32 && own["peakMemoryMiB"].get<int>() >= own["memoryMiB"].get<int>(),
            own.dump().c_str());
        // The pool's cgroup on the node (its workload's parent), which goes once nothing of the pool is left there.
        std::ifstream launchRecord((stateDir() + QStringLiteral("/workloads/%1/launch.json").arg(id)).toStdString());
        const json record = json::parse(launchRecord, nullptr, false);
        QVERIFY(record.is_object() && record.contains("cgroup") && record["cgroup"].contains("memory"));
        const std::filesystem::path poolDir
            = std::filesystem::path(record["cgroup"]["memory"].get<std::string>()).parent_path();
        QCOMPARE(poolDir.filename().string(), std::string("half"));
        QCOMPARE(request(m_apiPort, http::verb::delete_, "/v1/workloads/" + std::to_string(id), m_token).status, 200);
        QVERIFY(waitFor([&] { return phaseIs(id, "cancelled"); }, 15'000));
        QVERIFY2(waitFor(
                     [&] {
                         measured = get("/v1/pools/half")["measured"];
                         // None (a pool that uses nothing is left out of the samples), or next to none.
                         return measured.is_null() || measured.value("cpuMillis", 1000) < 50;
                     },
                     10'000),
            measured.dump().c_str());
        // Nothing of "half" runs on the node now: the core leaves it out of the node's pools at the next heartbeat, and
        // the agent removes its cgroup (with the cancelled workload's, and any a previous agent left empty there).
        QVERIFY2(waitFor([&] { return !std::filesystem::exists(poolDir); }, 15'000), qPrintable(agentLog()));
    }

    void memoryHogIsReportedOomKilled()
    {
        const json w = submit({ { "name", "hog" }, { "pool", "half" }, { "cpuMillis", 100 }, { "memoryMiB", 16 },
            { "command", { "/bin/sh", "-c", "x=$(head -c 150000000 /dev/zero | tr '\\0' a); echo ${#x}" } } });
        QVERIFY2(w.contains("id"), w.dump().c_str());
        const std::int64_t id = w["id"];
        QVERIFY2(waitFor([&] { return phaseIs(id, "oom_killed"); }, 20'000),
            get("/v1/workloads/" + std::to_string(id)).dump().c_str());
    }

    // A workload's own limit (`memoryLimitMiB`) holds it where its pool would not: the default pool here may use the
    // node's memory, the workload only 48 MiB of it, and its agent's cgroup for it says so.
    void aWorkloadsOwnMemoryLimitHoldsIt()
    {
        const json w
            = submit({ { "name", "capped-hog" }, { "cpuMillis", 100 }, { "memoryMiB", 16 }, { "memoryLimitMiB", 48 },
                { "command", { "/bin/sh", "-c", "x=$(head -c 150000000 /dev/zero | tr '\\0' a); echo ${#x}" } } });
        QVERIFY2(w.contains("id"), w.dump().c_str());
        QCOMPARE(w.value("memoryLimitMiB", std::int64_t { 0 }), std::int64_t { 48 });
        const std::int64_t id = w["id"];
        QVERIFY2(waitFor([&] { return phaseIs(id, "oom_killed"); }, 20'000),
            (get("/v1/workloads/" + std::to_string(id)).dump() + "\n" + agentLog().toStdString()).c_str());

        // One below what it asks for is refused, naming the field, and nothing is made of it.
        const auto refused = request(m_apiPort, http::verb::post, "/v1/workloads", m_token,
            json { { "name", "capped-below" }, { "cpuMillis", 100 }, { "memoryMiB", 64 }, { "memoryLimitMiB", 32 },
                { "command", { "/bin/true" } } }
                .dump());
        QCOMPARE(refused.status, 400);
        QVERIFY2(refused.body.find("`memoryLimitMiB` (32) must be at least `memoryMiB` (64)") != std::string::npos,
            refused.body.c_str());

        // Its own CPU limit likewise reaches the kernel: the workload's cgroup has a quota of its own.
        const json throttled = submit({ { "name", "throttled" }, { "cpuMillis", 100 }, { "memoryMiB", 16 },
            { "cpuLimitMillis", 150 }, { "command", { "/bin/sleep", "600" } } });
        QVERIFY2(throttled.contains("id"), throttled.dump().c_str());
        QCOMPARE(throttled.value("cpuLimitMillis", std::int64_t { 0 }), std::int64_t { 150 });
        const std::int64_t throttledId = throttled["id"];
        QVERIFY(waitFor([&] { return phaseIs(throttledId, "running"); }, 15'000));
        std::ifstream launchRecord(
            (stateDir() + QStringLiteral("/workloads/%1/launch.json").arg(throttledId)).toStdString());
        const json record = json::parse(launchRecord, nullptr, false);
        QVERIFY2(record.is_object() && record.contains("cgroup"), record.dump().c_str());
        const std::filesystem::path cpu = record["cgroup"].value("cpu", std::string());
        std::ifstream quota(cpu / (std::filesystem::exists(cpu / "cpu.max") ? "cpu.max" : "cpu.cfs_quota_us"));
        std::string written;
        std::getline(quota, written);
        QVERIFY2(written == "15000" || written == "15000 100000", (cpu.string() + ": " + written).c_str());
        QCOMPARE(
            request(m_apiPort, http::verb::delete_, "/v1/workloads/" + std::to_string(throttledId), m_token).status,
            200);
    }

    // `tidepoolctl resize` of a running workload reaches the kernel through its agent, in place: the workload's cgroup
    // takes the new limits while the same process runs on; the core holds the new request once the agent confirms.
    void aRunningWorkloadIsResizedThroughTidepoolctl()
    {
        const json w = submit({ { "name", "resized" }, { "cpuMillis", 200 }, { "memoryMiB", 32 },
            { "cpuLimitMillis", 400 }, { "memoryLimitMiB", 64 }, { "command", { "/bin/sleep", "600" } } });
        QVERIFY2(w.contains("id"), w.dump().c_str());
        const std::int64_t id = w["id"];
        const std::string path = "/v1/workloads/" + std::to_string(id);
        QVERIFY(waitFor([&] { return phaseIs(id, "running"); }, 15'000));
        const std::int64_t pid = get(path).value("pid", std::int64_t { 0 });
        QVERIFY(pid > 0);

        const auto [status, out, err] = ctl({ QStringLiteral("resize"), QString::number(id), QStringLiteral("--cpu"),
            QStringLiteral("100"), QStringLiteral("--cpu-limit"), QStringLiteral("none"),
            QStringLiteral("--memory-limit"), QStringLiteral("128") });
        QVERIFY2(status == 0, qPrintable(out + err));
        QVERIFY2(out.contains(QStringLiteral("CPU 200m → 100m, CPU limit 400m → none, memory limit 64 MiB → 128 MiB "
                                             "in place on node e2e-node")),
            qPrintable(out));
        QVERIFY2(waitFor([&] { return !get(path).contains("resize"); }, 10'000), get(path).dump().c_str());
        const json now = get(path);
        QCOMPARE(now.value("pid", std::int64_t { 0 }), pid);
        QCOMPARE(now.value("cpuMillis", std::int64_t { 0 }), std::int64_t { 100 });
        QVERIFY(!now.contains("cpuLimitMillis"));
        QCOMPARE(now.value("memoryLimitMiB", std::int64_t { 0 }), std::int64_t { 128 });

        std::ifstream launchRecord((stateDir() + QStringLiteral("/workloads/%1/launch.json").arg(id)).toStdString());
        const json record = json::parse(launchRecord, nullptr, false);
        QVERIFY2(record.is_object() && record.contains("cgroup"), record.dump().c_str());
        const auto firstLine = [](const std::filesystem::path& file) {
            std::ifstream in(file);
            std::string line;
            std::getline(in, line);
            return line;
        };
        const std::filesystem::path cpu = record["cgroup"].value("cpu", std::string());
        const std::filesystem::path memory = record["cgroup"].value("memory", std::string());
        const bool v2 = std::filesystem::exists(cpu / "cpu.max");
        QCOMPARE(firstLine(cpu / (v2 ? "cpu.max" : "cpu.cfs_quota_us")), std::string(v2 ? "max 100000" : "-1"));
        QCOMPARE(firstLine(memory / (v2 ? "memory.max" : "memory.limit_in_bytes")), std::string("134217728"));
        QCOMPARE(firstLine(cpu / (v2 ? "cpu.weight" : "cpu.shares")), std::string(v2 ? "4" : "102"));

        // A limit below its request is refused by the core, naming it; nothing reaches the agent.
        const auto [badStatus, badOut, badErr] = ctl(
            { QStringLiteral("resize"), QString::number(id), QStringLiteral("--memory-limit"), QStringLiteral("16") });
        QCOMPARE(badStatus, 1);
        QVERIFY2(
            badErr.contains(QStringLiteral("16 MiB is below the memory it asks for (32 MiB)")), qPrintable(badErr));
        QCOMPARE(firstLine(memory / (v2 ? "memory.max" : "memory.limit_in_bytes")), std::string("134217728"));
        // The audit log has who resized it.
        const json audit = get("/v1/audit?limit=50");
        bool audited = false;
        for (const json& e : audit.value("entries", json::array()))
            audited = audited
                || (e.value("action", std::string()) == "POST " + path + "/resize"
                    && e.value("outcome", std::string()) == "ok" && e.value("stage", std::string()) == "completed");
        QVERIFY2(audited, audit.dump().c_str());
        QCOMPARE(metric("tidepool_workload_resizes_confirmed_total"), 1.0);
        QCOMPARE(metric("tidepool_workload_resizes_refused_total"), 0.0);
        QCOMPARE(request(m_apiPort, http::verb::delete_, path, m_token).status, 200);
    }

    // The end of a workload's output, read from the real agent that holds it while it runs and after it ended (until
    // the agent's retention removes its record): stdout and stderr apart, a tail of it, escape sequences made visible.
    void workloadOutputIsReadFromItsAgent()
    {
        const json w = submit({ { "name", "talker" }, { "cpuMillis", 100 }, { "memoryMiB", 16 },
            { "command",
                { "/bin/sh", "-c",
                    "echo out-1; echo err-1 >&2; printf 'tab\\there\\n'; printf '\\033[31mred\\n'; exec sleep "
                    "600" } } });
        QVERIFY2(w.contains("id"), w.dump().c_str());
        const std::string logs = "/v1/workloads/" + std::to_string(w["id"].get<std::int64_t>()) + "/logs";
        const std::string expected = "out-1\ntab\there\n\xEF\xBF\xBD[31mred\n";
        json out;
        QVERIFY2(waitFor(
                     [&] {
                         const auto r = request(m_apiPort, http::verb::get, logs, m_token);
                         out = r.status == 200 ? r.data() : json { { "status", r.status }, { "body", r.body } };
                         return out.value("data", std::string()) == expected;
                     },
                     15'000),
            (out.dump() + "\n" + agentLog().toStdString()).c_str());
        QCOMPARE(out["stream"].get<std::string>(), std::string("stdout"));
        QCOMPARE(out["node"].get<std::string>(), get(logs.substr(0, logs.size() - 5))["node"].get<std::string>());
        QCOMPARE(out["sizeBytes"].get<std::int64_t>(), std::int64_t { 24 }); // as written: ESC is one byte there
        QVERIFY(!out["truncated"].get<bool>());
        const json err = get(logs + "?stream=stderr");
        QCOMPARE(err.value("data", std::string()), std::string("err-1\n"));
        const json tail = get(logs + "?bytes=4");
        QCOMPARE(tail.value("data", std::string()), std::string("red\n"));
        QVERIFY(tail["truncated"].get<bool>());
        QCOMPARE(tail["sizeBytes"].get<std::int64_t>(), std::int64_t { 24 });
        for (const char* bad : { "?stream=both", "?bytes=0", "?bytes=262145", "?bytes=lots" }) {
            const auto refused = request(m_apiPort, http::verb::get, logs + bad, m_token);
            QVERIFY2(refused.status == 400, (std::string(bad) + " " + refused.body).c_str());
        }

        // Ended, its output stays with the agent for a while (5 s here), then goes with its record.
        QCOMPARE(request(m_apiPort, http::verb::delete_, logs.substr(0, logs.size() - 5), m_token).status, 200);
        const std::int64_t id = w["id"];
        QVERIFY(waitFor([&] { return phaseIs(id, "cancelled"); }, 15'000));
        QCOMPARE(get(logs).value("data", std::string()), expected);
        const QString dir = stateDir() + QStringLiteral("/workloads/%1").arg(id);
        QVERIFY2(waitFor([&] { return !QFile::exists(dir); }, 15'000), qPrintable(agentLog()));
        const auto gone = request(m_apiPort, http::verb::get, logs, m_token);
        QCOMPARE(gone.status, 404);
        QVERIFY2(gone.body.find("is not held here") != std::string::npos, gone.body.c_str());
    }

    // tidepoolctl logs --follow against the real agent: started before the workload is placed, it waits, then shows
    // what the workload writes as it writes it, each byte once, the last line without its newline too, and stops
    // when it has ended. The API's positions: `start`/`end`, the next read from `end`.
    void aFollowerSeesTheOutputAsItIsWritten()
    {
        const json w = submit({ { "name", "ticker" }, { "cpuMillis", 100 }, { "memoryMiB", 16 },
            { "command",
                { "/bin/sh", "-c",
                    "i=0; while [ $i -lt 6 ]; do echo tick $i; i=$((i+1)); sleep 0.4; done; printf 'caf\303\251 "
                    "and no newline'" } } });
        QVERIFY2(w.contains("id"), w.dump().c_str());
        const std::string id = std::to_string(w["id"].get<std::int64_t>());
        QProcess follower;
        follower.start(kBin + QStringLiteral("/tidepoolctl"),
            { QStringLiteral("--server"), QStringLiteral("127.0.0.1:%1").arg(m_apiPort), QStringLiteral("--token-file"),
                path(QStringLiteral("op.token")), QStringLiteral("logs"), QString::fromStdString(id),
                QStringLiteral("--follow"), QStringLiteral("--interval-ms"), QStringLiteral("150") });
        QVERIFY(follower.waitForStarted());

        // Meanwhile, the API: a read from a position is of what came after it.
        const std::string logs = "/v1/workloads/" + id + "/logs";
        json tail;
        QVERIFY(waitFor(
            [&] {
                const auto r = request(m_apiPort, http::verb::get, logs, m_token);
                tail = r.status == 200 ? r.data() : json();
                return tail.value("data", std::string()).starts_with("tick 0\n");
            },
            15'000));
        QCOMPARE(tail["start"].get<std::int64_t>(), std::int64_t { 0 });
        const std::int64_t end = tail["end"];
        QCOMPARE(end, static_cast<std::int64_t>(tail["data"].get<std::string>().size()));
        const std::string phase = tail["phase"];
        QVERIFY2(phase == "running" || phase == "launching", phase.c_str()); // its start may not be reported yet
        json next;
        QVERIFY(waitFor(
            [&] {
                next = get(logs + "?from=" + std::to_string(end) + "&incarnation=0");
                return !next.value("data", std::string()).empty();
            },
            15'000));
        QCOMPARE(next["start"].get<std::int64_t>(), end);
        QVERIFY2(next["data"].get<std::string>().starts_with("tick "), next.dump().c_str());
        QVERIFY(tail["data"].get<std::string>().find(next["data"].get<std::string>()) == std::string::npos);
        for (const char* bad :
            { "?from=-1", "?from=9007199254740993", "?from=x", "?incarnation=0", "?from=0&incarnation=-1" }) {
            const auto refused = request(m_apiPort, http::verb::get, logs + bad, m_token);
            QVERIFY2(refused.status == 400, (std::string(bad) + " " + refused.body).c_str());
        }

        QVERIFY(follower.waitForFinished(30'000));
        const QByteArray out = follower.readAllStandardOutput();
        const QByteArray err = follower.readAllStandardError();
        QCOMPARE(follower.exitCode(), 0);
        QCOMPARE(out, QByteArray("tick 0\ntick 1\ntick 2\ntick 3\ntick 4\ntick 5\ncaf\xC3\xA9 and no newline"));
        QVERIFY2(err.contains("ended (succeeded): that is all of its stdout"), err.constData());
        QVERIFY2(!err.contains("rotated out"), err.constData());
    }

    // A follower's read with `waitMs` waits at the real agent for the next line instead of answering at once with
    // nothing: the line written three seconds later is in its answer. A reader that goes while its read waits gives
    // its place back (counted in /metrics).
    void aFollowersReadWaitsForTheNextLine()
    {
        const json w = submit({ { "name", "slow-talker" }, { "cpuMillis", 100 }, { "memoryMiB", 16 },
            { "command", { "/bin/sh", "-c", "echo first; sleep 3; echo second; sleep 60" } } });
        QVERIFY2(w.contains("id"), w.dump().c_str());
        const std::string logs = "/v1/workloads/" + std::to_string(w["id"].get<std::int64_t>()) + "/logs";
        json first;
        QVERIFY(waitFor(
            [&] {
                const auto r = request(m_apiPort, http::verb::get, logs, m_token);
                first = r.status == 200 ? r.data() : json();
                return first.value("data", std::string()) == "first\n";
            },
            15'000));
        const std::string from = logs + "?from=" + std::to_string(first["end"].get<std::int64_t>())
            + "&incarnation=" + std::to_string(first["incarnation"].get<std::int64_t>());
        // Without waiting: nothing yet. Waiting: the next line.
        QCOMPARE(get(from).value("data", std::string("?")), std::string());
        const json next = get(from + "&waitMs=10000");
        QVERIFY2(next.value("data", std::string()) == "second\n", next.dump().c_str());
        for (const char* bad : { "&waitMs=30001", "&waitMs=-1", "&waitMs=soon" }) {
            const auto refused = request(m_apiPort, http::verb::get, from + bad, m_token);
            QVERIFY2(refused.status == 400 && refused.body.find("waitMs") != std::string::npos,
                (std::string(bad) + " " + refused.body).c_str());
        }
        QCOMPARE(request(m_apiPort, http::verb::get, logs + "?waitMs=1000", m_token).status, 400); // without `from`

        // A reader that goes: nothing more comes for a minute, and it closes after a moment.
        const double abandoned = metric("tidepool_log_reads_abandoned_total");
        const double gone = metric("tidepool_api_clients_gone_total");
        {
            boost::asio::io_context io;
            boost::asio::ip::tcp::socket socket(io);
            socket.connect({ boost::asio::ip::make_address("127.0.0.1"), m_apiPort });
            const std::string after = logs + "?from=" + std::to_string(next["end"].get<std::int64_t>())
                + "&incarnation=" + std::to_string(next["incarnation"].get<std::int64_t>()) + "&waitMs=30000";
            boost::asio::write(socket,
                boost::asio::buffer(
                    "GET " + after + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + m_token + "\r\n\r\n"));
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            QCOMPARE(socket.available(), std::size_t { 0 }); // still waiting
        }
        QVERIFY(waitFor([&] { return metric("tidepool_log_reads_abandoned_total") == abandoned + 1; }, 5000));
        QCOMPARE(metric("tidepool_api_clients_gone_total"), gone + 1);
    }

    // A workload submitted with tidepoolctl submit --restart on-failure --max-restarts 1 that fails: started again
    // after its back-off (a new launch on the real agent), then failed for good; tidepoolctl shows its restarts, and
    // logs --previous reads the launch before the last one from the agent that still holds it.
    // A workload's own stop grace reaches the agent that stops it: with none (0 s) a cancel kills it at once and its
    // SIGTERM handler never runs; with the daemon's 10 s the handler runs, says so and exits 0, which is still a
    // cancel. Read from their output.
    void aStopGivesTheWorkloadItsOwnGrace()
    {
        const QString script
            = QStringLiteral("trap 'echo got TERM; exit 0' TERM; echo up; while :; do sleep 0.05; done");
        std::map<std::string, std::int64_t> ids;
        for (const auto& [name, grace] : { std::pair { "no-grace", "0s" }, std::pair { "graceful", "" } }) {
            QStringList words { QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("submit"),
                QStringLiteral("--name"), QString::fromLatin1(name), QStringLiteral("--cpu"), QStringLiteral("100"),
                QStringLiteral("--memory"), QStringLiteral("16") };
            if (*grace)
                words << QStringLiteral("--stop-grace") << QString::fromLatin1(grace);
            words << QStringLiteral("--") << QStringLiteral("/bin/sh") << QStringLiteral("-c") << script;
            auto [code, out, err] = ctl(words);
            QVERIFY2(code == 0, qPrintable(out + err));
            const json submitted = json::parse(out.toStdString(), nullptr, false);
            QVERIFY2(submitted.contains("id"), qPrintable(out));
            ids[name] = submitted["id"].get<std::int64_t>();
        }
        QCOMPARE(get("/v1/workloads/" + std::to_string(ids["no-grace"])).value("stopGraceMs", -1), 0);
        QVERIFY(!get("/v1/workloads/" + std::to_string(ids["graceful"])).contains("stopGraceMs"));
        for (const auto& [name, id] : ids) {
            const std::string logs = "/v1/workloads/" + std::to_string(id) + "/logs";
            // Running, and its handler set (it said so after setting it).
            QVERIFY2(
                waitFor([&] { return get(logs).value("data", std::string()).find("up") != std::string::npos; }, 20'000),
                get(logs).dump().c_str());
            auto [code, out, err] = ctl({ QStringLiteral("cancel"), QString::number(id) });
            QVERIFY2(code == 0, qPrintable(out + err));
        }
        for (const auto& [name, id] : ids)
            QVERIFY2(waitFor([&] { return phaseIs(id, "cancelled"); }, 20'000), name.c_str());
        const auto output = [&](std::int64_t id) {
            // The agent's answer once the stop is done: the launch's whole output.
            std::string data;
            waitFor(
                [&] {
                    data = get("/v1/workloads/" + std::to_string(id) + "/logs").value("data", std::string());
                    return data.find("got TERM") != std::string::npos;
                },
                3'000);
            return data;
        };
        QCOMPARE(output(ids["no-grace"]), std::string("up\n")); // killed at once
        QCOMPARE(output(ids["graceful"]), std::string("up\ngot TERM\n"));
    }

    void aFailingWorkloadIsRestartedAndItsPreviousOutputRead()
    {
        auto [code, out, err] = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("submit"),
            QStringLiteral("--name"), QStringLiteral("crashy"), QStringLiteral("--cpu"), QStringLiteral("100"),
            QStringLiteral("--memory"), QStringLiteral("16"), QStringLiteral("--restart"), QStringLiteral("on-failure"),
            QStringLiteral("--max-restarts"), QStringLiteral("1"), QStringLiteral("--"), QStringLiteral("/bin/sh"),
            QStringLiteral("-c"), QStringLiteral("echo run $TIDEPOOL_INCARNATION; exit 3") });
        QVERIFY2(code == 0, qPrintable(out + err));
        const json submitted = json::parse(out.toStdString(), nullptr, false);
        QVERIFY2(submitted.contains("id"), qPrintable(out));
        const std::int64_t id = submitted["id"];
        const std::string workload = "/v1/workloads/" + std::to_string(id);
        QVERIFY2(waitFor([&] { return phaseIs(id, "failed"); }, 20'000), get(workload).dump().c_str());
        const json w = get(workload);
        QCOMPARE(w["restart"].get<std::string>(), std::string("on-failure"));
        QCOMPARE(w["maxRestarts"].get<int>(), 1);
        QCOMPARE(w["restarts"].get<int>(), 1);
        QCOMPARE(w["incarnation"].get<int>(), 1);
        QCOMPARE(w["exitCode"].get<int>(), 3);
        QCOMPARE(w["previous"]["incarnation"].get<int>(), 0);
        QCOMPARE(w["previous"]["node"], w["node"]);
        QVERIFY2(w["detail"].get<std::string>().find(
                     "not restarted again: it has had all the restarts it may have (maxRestarts 1)")
                != std::string::npos,
            w.dump().c_str());
        const std::string metrics = request(m_apiPort, http::verb::get, "/metrics", m_token).body;
        QVERIFY2(metrics.find("\ntidepool_workload_restarts_total 1\n") != std::string::npos, metrics.c_str());

        // The last launch's output, and the one before it.
        std::tie(code, out, err) = ctl({ QStringLiteral("logs"), QString::number(id) });
        QCOMPARE(code, 0);
        QCOMPARE(out, QStringLiteral("run 1\n"));
        std::tie(code, out, err) = ctl({ QStringLiteral("logs"), QString::number(id), QStringLiteral("--previous") });
        QVERIFY2(code == 0, qPrintable(err));
        QCOMPARE(out, QStringLiteral("run 0\n"));
        const json previous = get(workload + "/logs?previous=1");
        QCOMPARE(previous["incarnation"].get<int>(), 0);
        const auto following = request(m_apiPort, http::verb::get, workload + "/logs?previous=1&from=0", m_token);
        QVERIFY2(following.status == 400, following.body.c_str());
        std::tie(code, out, err)
            = ctl({ QStringLiteral("logs"), QString::number(id), QStringLiteral("--previous"), QStringLiteral("-f") });
        QCOMPARE(code, 2);
        QVERIFY2(err.contains(QStringLiteral("--previous reads a launch that has ended")), qPrintable(err));

        // The timeline has its restart, on the node it ended on, by its restart policy.
        std::tie(code, out, err)
            = ctl({ QStringLiteral("-o"), QStringLiteral("json"), QStringLiteral("events"), QStringLiteral("--subject"),
                QStringLiteral("crashy"), QStringLiteral("--category"), QStringLiteral("restart") });
        QVERIFY2(code == 0, qPrintable(err));
        const json timeline = json::parse(out.toStdString(), nullptr, false);
        QVERIFY2(timeline.contains("events") && timeline["events"].size() == 1, qPrintable(out));
        QCOMPARE(timeline["events"][0]["actor"].get<std::string>(), std::string("restart policy"));
        QCOMPARE(timeline["events"][0]["node"], w["node"]);
        QVERIFY2(timeline["events"][0]["detail"].get<std::string>().starts_with(
                     "exited with code 3; restart 1 of at most 1"),
            qPrintable(out));

        // The table and the detail say so.
        std::tie(code, out, err) = ctl({ QStringLiteral("get"), QString::number(id) });
        QVERIFY2(
            out.contains(QStringLiteral("Restart:")) && out.contains(QStringLiteral("on-failure, at most 1 times")),
            qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("Previous launch:")) && out.contains(QStringLiteral("incarnation 0 on ")),
            qPrintable(out));
        std::tie(code, out, err) = ctl({ QStringLiteral("list"), QStringLiteral("--phase"), QStringLiteral("failed") });
        const QStringList lines = out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        const QStringList header = lines.value(0).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        const qsizetype restarts = header.indexOf(QStringLiteral("RESTARTS"));
        QVERIFY2(restarts > 0, qPrintable(out));
        bool found = false;
        for (const QString& line : lines)
            if (line.split(QLatin1Char(' '), Qt::SkipEmptyParts).value(0) == QString::number(id)) {
                found = true;
                QCOMPARE(line.split(QLatin1Char(' '), Qt::SkipEmptyParts).value(restarts), QStringLiteral("1"));
            }
        QVERIFY2(found, qPrintable(out));
        // A bad policy is a usage error that names it.
        std::tie(code, out, err) = ctl({ QStringLiteral("submit"), QStringLiteral("--name"), QStringLiteral("x"),
            QStringLiteral("--cpu"), QStringLiteral("1"), QStringLiteral("--memory"), QStringLiteral("1"),
            QStringLiteral("--restart"), QStringLiteral("sometimes") });
        QCOMPARE(code, 2);
        QVERIFY2(err.contains(QStringLiteral("--restart: \"sometimes\" must be never, on-failure or always")),
            qPrintable(err));
    }

    void exitCodeIsReported()
    {
        const json w = submit({ { "name", "three" }, { "cpuMillis", 100 }, { "memoryMiB", 16 },
            { "command", { "/bin/sh", "-c", "exit 3" } } });
        const std::int64_t id = w["id"];
        QVERIFY(waitFor([&] { return phaseIs(id, "failed"); }, 10'000));
        QCOMPARE(get("/v1/workloads/" + std::to_string(id))["exitCode"].get<int>(), 3);
    }

    void finishedRecordsAreRemovedAfterTheirRetention()
    {
        const json w = submit({ { "name", "brief" }, { "cpuMillis", 100 }, { "memoryMiB", 16 }, { "command", { "/bin/true" } } });
        const std::int64_t id = w["id"];
        QVERIFY(waitFor([&] { return phaseIs(id, "succeeded"); }, 10'000));
        const QString dir = stateDir() + QStringLiteral("/workloads/%1").arg(id);
        QVERIFY(QFile::exists(dir + QStringLiteral("/launch.json"))); // kept for now (the agent keeps them 5 s here)
        QVERIFY2(waitFor([&] { return !QFile::exists(dir); }, 15'000), qPrintable(agentLog()));
        QCOMPARE(get("/v1/workloads/" + std::to_string(id))["phase"].get<std::string>(), std::string("succeeded"));
    }

    void aarch64BinaryRunsThroughQemu()
    {
        const QString arm = kBin + QStringLiteral("/isabench-aarch64");
        if (!QFile::exists(arm))
            QSKIP("isabench-aarch64 was not built (no gcc-aarch64-linux-gnu)");
        if (!QFile::exists(QStringLiteral("/usr/bin/qemu-aarch64-static")))
            QSKIP("no qemu-aarch64-static (Debian qemu-user-static)");
        const json node = get("/v1/nodes/e2e-node");
        QVERIFY2(node["translation"].contains("aarch64"), node.dump().c_str());
        const double factor = node["translation"]["aarch64"];
        qInfo("measured slowdown of aarch64 binaries on this x86_64 host: %.2f", factor);
        QVERIFY(factor > 1.0);
        const json w = submit({ { "name", "arm" }, { "cpuMillis", 100 }, { "memoryMiB", 16 }, { "isas", { "aarch64" } },
            { "allowTranslation", true }, { "command", { arm.toStdString(), "20" } } });
        const std::int64_t id = w["id"];
        QVERIFY(waitFor([&] { return phaseIs(id, "succeeded"); }, 30'000));
        QCOMPARE(get("/v1/workloads/" + std::to_string(id))["translated"].get<bool>(), true);
        QFile out(stateDir() + QStringLiteral("/workloads/%1/stdout.log").arg(id));
        QVERIFY(out.open(QIODevice::ReadOnly));
        QVERIFY(out.readAll().contains("\"isa\":\"aarch64\""));
    }

    void sigkilledAgentAdoptsItsWorkload()
    {
        const json w = submit({ { "name", "sleeper" }, { "cpuMillis", 100 }, { "memoryMiB", 16 },
            { "command", { "/bin/sleep", "120" } } });
        const std::int64_t id = w["id"];
        QVERIFY(waitFor([&] { return phaseIs(id, "running"); }, 10'000));
        const int pid = get("/v1/workloads/" + std::to_string(id))["pid"];
        QVERIFY(processAlive(pid));
        const double launches = metric("tidepool_launches_sent_total");

        ::kill(static_cast<pid_t>(m_agent->processId()), SIGKILL);
        QVERIFY(m_agent->waitForFinished(5000));
        QVERIFY(processAlive(pid)); // edge autonomy: the workload does not die with its agent
        QVERIFY(startAgent());
        QVERIFY(waitFor([&] { return agentLog().contains(QStringLiteral("workload %1 from before: running").arg(id)); }, 30'000));
        QVERIFY(waitFor([&] { return metric("tidepool_nodes{state=\"ready\"}") == 1; }, 30'000));
        std::this_thread::sleep_for(std::chrono::seconds(1));
        const json after = get("/v1/workloads/" + std::to_string(id));
        QCOMPARE(after["phase"].get<std::string>(), std::string("running"));
        QCOMPARE(after["pid"].get<int>(), pid);
        QVERIFY(processAlive(pid));
        QCOMPARE(metric("tidepool_launches_sent_total"), launches); // nothing launched again
        // Across both agents' logs the workload was launched exactly once.
        QCOMPARE(agentLog().count(QStringLiteral("workload %1 (sleeper) launched").arg(id)), qsizetype { 1 });
    }

    // The agent loses track of a workload (its shim and the workload are killed, so nothing records the end): the core
    // places it again, here on the only node, as incarnation 1, which the agent starts beside incarnation 0's records.
    void aWorkloadLostOnItsNodeIsStartedThereAgain()
    {
        const json w = submit({ { "name", "phoenix" }, { "cpuMillis", 100 }, { "memoryMiB", 16 },
            { "command", { "/bin/sleep", "120" } } });
        QVERIFY2(w.contains("id"), w.dump().c_str());
        const std::int64_t id = w["id"];
        QVERIFY(waitFor([&] { return phaseIs(id, "running"); }, 10'000));
        const int pid = get("/v1/workloads/" + std::to_string(id))["pid"];
        std::ifstream in((stateDir() + QStringLiteral("/workloads/%1/launch.json").arg(id)).toStdString());
        const json record = json::parse(in, nullptr, false);
        QVERIFY(record.is_object());
        const int shimPid = record["shimPid"];
        // The shim first, so that nothing records the workload's end: lost, as after a crash of the node's runtime.
        QCOMPARE(::kill(shimPid, SIGKILL), 0);
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        QCOMPARE(::kill(pid, SIGKILL), 0);
        QVERIFY2(waitFor(
                     [&] {
                         const json now = get("/v1/workloads/" + std::to_string(id));
                         return now["phase"] == "running" && now["incarnation"] == 1 && now.value("pid", 0) != pid;
                     },
                     20'000),
            (get("/v1/workloads/" + std::to_string(id)).dump() + "\n" + agentLog().toStdString()).c_str());
        const int again = get("/v1/workloads/" + std::to_string(id))["pid"];
        QVERIFY(processAlive(again));
        QVERIFY(QFile::exists(stateDir() + QStringLiteral("/workloads/%1@1/launch.json").arg(id)));
        QVERIFY(agentLog().contains(QStringLiteral("workload %1@1 (phoenix) launched").arg(id)));
        QCOMPARE(request(m_apiPort, http::verb::delete_, "/v1/workloads/" + std::to_string(id), m_token).status, 200);
        QVERIFY(waitFor([&] { return phaseIs(id, "cancelled"); }, 15'000));
    }

    void wrongJoinTokenIsRefused()
    {
        const double rejected = metric("tidepool_agent_joins_rejected_total");
        QProcess intruder;
        intruder.start(kBin + QStringLiteral("/tidepool-agent"),
            { QStringLiteral("--core"), QStringLiteral("127.0.0.1:%1").arg(m_agentPort),
                QStringLiteral("--join-token-file"), path(QStringLiteral("wrong.token")), QStringLiteral("--state-dir"),
                path(QStringLiteral("intruder")), QStringLiteral("--name"), QStringLiteral("intruder"),
                QStringLiteral("--no-slowdown"), QStringLiteral("--accelerator-file"), QString(),
                QStringLiteral("--cgroup-name"), base(QStringLiteral("intruder")) });
        QVERIFY(intruder.waitForStarted(5000));
        const bool refused = waitFor([&] { return metric("tidepool_agent_joins_rejected_total") > rejected; }, 15'000);
        intruder.kill();
        intruder.waitForFinished(5000);
        QVERIFY(refused);
        QVERIFY(get("/v1/nodes/intruder").contains("error"));
    }

    // A second agent on this host beside the first, on the first one's base cgroup (in this cgroup) or its state dir,
    // would remove the first's pools as ones it was not sent (a launch's empty workload cgroup among them), or adopt,
    // report and forget its workloads: it refuses to start, saying which agent holds what and how to give it another.
    void aSecondAgentOnTheSameBaseOrStateDirRefusesToStart()
    {
        const QString sameBase
            = secondAgent(path(QStringLiteral("state-second")), { QStringLiteral("--cgroup-name"), base() });
        QVERIFY2(sameBase.startsWith(QStringLiteral("exit 2: "))
                && sameBase.contains(
                    QStringLiteral("is held by another agent (tidepool-agent, pid %1)").arg(m_agent->processId()))
                && sameBase.contains(QStringLiteral("--cgroup-name")),
            qPrintable(sameBase));
        const QString sameState
            = secondAgent(stateDir(), { QStringLiteral("--cgroup-name"), base(QStringLiteral("second")) });
        QVERIFY2(sameState.startsWith(QStringLiteral("exit 2: "))
                && sameState.contains(
                    QStringLiteral("--state-dir %1 is in use by another agent (tidepool-agent, pid %2)")
                        .arg(stateDir())
                        .arg(m_agent->processId())),
            qPrintable(sameState));
        QVERIFY(get("/v1/nodes/e2e-second").contains("error")); // it never joined
        QCOMPARE(get("/v1/nodes/e2e-node")["state"].get<std::string>(), std::string("ready")); // the first goes on
    }

    // A node with two GPUs (declared in its accelerator file) holds two batch workloads, each on a GPU of its own and
    // neither full, while one that wants a whole GPU waits: the evaluation proposes moving the lighter one beside the
    // other, and approving it stops it and
    // launches it again with the same id on the other GPU of the same node, as incarnation 1. It runs there; the end
    // of the stopped copy does not end it.
    void consolidationMovesAWorkloadBetweenTheGpusOfOneNode()
    {
        QFile accelerators(path(QStringLiteral("gpus.json")));
        QVERIFY(accelerators.open(QIODevice::WriteOnly));
        accelerators.write(R"([{"kind":"gpu","vendor":"Test","model":"T4","memoryMiB":16384,"shareCapacity":1000,"count":2}])");
        accelerators.close();
        m_gpuAgent = std::make_unique<QProcess>();
        m_gpuAgent->setProcessChannelMode(QProcess::MergedChannels);
        m_gpuAgent->setStandardOutputFile(path(QStringLiteral("gpu-agent.log")), QIODevice::Append);
        m_gpuAgent->start(kBin + QStringLiteral("/tidepool-agent"),
            { QStringLiteral("--core"), QStringLiteral("127.0.0.1:%1").arg(m_agentPort),
                QStringLiteral("--join-token-file"), path(QStringLiteral("join.token")), QStringLiteral("--state-dir"),
                path(QStringLiteral("state-gpu")), QStringLiteral("--name"), QStringLiteral("e2e-gpu"),
                QStringLiteral("--accelerator-file"), path(QStringLiteral("gpus.json")),
                QStringLiteral("--no-slowdown"), QStringLiteral("--cgroup-name"), base(QStringLiteral("gpu")) });
        QVERIFY(m_gpuAgent->waitForStarted(5000));
        QVERIFY(waitFor([&] { return get("/v1/nodes/e2e-gpu")["state"] == "ready"; }, 30'000));

        const auto gpuJob = [&](const char* name, int share) {
            json accelerator { { "kind", "gpu" }, { "count", 1 } };
            if (share > 0)
                accelerator["share"] = share;
            const json w = submit({ { "name", name }, { "cpuMillis", 100 }, { "memoryMiB", 16 }, { "accelerators", accelerator },
                { "command", { "/bin/sleep", "300" } } });
            return w.value("id", std::int64_t { 0 });
        };
        const auto deviceOf = [&](std::int64_t id) {
            const json w = get("/v1/workloads/" + std::to_string(id));
            return w.contains("devices") && !w["devices"].empty() ? w["devices"][0]["device"].get<int>() : -1;
        };
        // Two of 600 take a GPU each; one of 300 joins one of them, whose 600 then goes: 300 on one GPU, 600 on the other.
        const std::int64_t a = gpuJob("big-a", 600), b = gpuJob("big-b", 600), small = gpuJob("small", 300);
        QVERIFY(a && b && small);
        for (const std::int64_t id : { a, b, small })
            QVERIFY2(waitFor([&] { return phaseIs(id, "running"); }, 15'000), get("/v1/workloads/" + std::to_string(id)).dump().c_str());
        QCOMPARE(get("/v1/workloads/" + std::to_string(small))["node"].get<std::string>(), std::string("e2e-gpu"));
        QVERIFY(deviceOf(a) != deviceOf(b));
        const std::int64_t beside = deviceOf(a) == deviceOf(small) ? a : b;
        const std::int64_t stays = beside == a ? b : a;
        QCOMPARE(request(m_apiPort, http::verb::delete_, "/v1/workloads/" + std::to_string(beside), m_token).status, 200);
        QVERIFY(waitFor([&] { return phaseIs(beside, "cancelled"); }, 15'000));
        const int fromDevice = deviceOf(small);
        const int oldPid = get("/v1/workloads/" + std::to_string(small))["pid"];
        const std::int64_t whole = gpuJob("whole", 0); // a whole GPU: neither is free
        QVERIFY(whole);
        QVERIFY(phaseIs(whole, "pending"));

        const auto evaluated = request(m_apiPort, http::verb::post, "/v1/evaluate", m_token, "{}");
        QCOMPARE(evaluated.status, 200);
        std::int64_t proposal = 0;
        const json created = evaluated.data(); // a named value: a range-for over a temporary's member dangles
        for (const json& p : created["created"])
            if (p["kind"] == "consolidate")
                proposal = p["id"];
        QVERIFY2(proposal, evaluated.body.c_str());
        const auto approved = request(m_apiPort, http::verb::post, "/v1/proposals/" + std::to_string(proposal) + "/approve", m_token);
        QCOMPARE(approved.status, 200);
        QCOMPARE(approved.data()["state"].get<std::string>(), std::string("applied"));

        // Running again, on the other GPU of the same node, as incarnation 1: a new process.
        QVERIFY2(waitFor(
                     [&] {
                         const json w = get("/v1/workloads/" + std::to_string(small));
                         return w["phase"] == "running" && w["incarnation"] == 1 && w.value("pid", 0) != oldPid;
                     },
                     20'000),
            get("/v1/workloads/" + std::to_string(small)).dump().c_str());
        QCOMPARE(deviceOf(small), deviceOf(stays));
        QVERIFY(deviceOf(small) != fromDevice);
        QCOMPARE(get("/v1/workloads/" + std::to_string(small))["node"].get<std::string>(), std::string("e2e-gpu"));
        const int newPid = get("/v1/workloads/" + std::to_string(small))["pid"];
        QVERIFY(processAlive(newPid));
        // The stopped copy ended (its SIGTERM recorded) and that is not taken for the new one's end.
        const QString gpuState = path(QStringLiteral("state-gpu/workloads"));
        QVERIFY(waitFor([&] { return QFile::exists(gpuState + QStringLiteral("/%1/exit.json").arg(small)); }, 15'000));
        QVERIFY(!processAlive(oldPid));
        std::this_thread::sleep_for(std::chrono::seconds(1));
        QCOMPARE(get("/v1/workloads/" + std::to_string(small))["phase"].get<std::string>(), std::string("running"));
        QVERIFY(QFile::exists(gpuState + QStringLiteral("/%1@1/launch.json").arg(small)));
        std::ifstream in((gpuState + QStringLiteral("/%1@1/launch.json").arg(small)).toStdString());
        QCOMPARE(json::parse(in, nullptr, false).value("incarnation", -1), 1);

        // The freed GPU takes the whole-GPU workload.
        QVERIFY2(waitFor([&] { return phaseIs(whole, "running"); }, 15'000), get("/v1/workloads/" + std::to_string(whole)).dump().c_str());
        QCOMPARE(deviceOf(whole), fromDevice);

        // Done: cancel what runs there, then let the agent go.
        for (const std::int64_t id : { stays, small, whole })
            QCOMPARE(request(m_apiPort, http::verb::delete_, "/v1/workloads/" + std::to_string(id), m_token).status, 200);
        for (const std::int64_t id : { stays, small, whole })
            QVERIFY(waitFor([&] { return phaseIs(id, "cancelled"); }, 20'000));
    }

    // An agent that shapes its link (`--net-shape`, here one end of a veth pair at 100 Mbit/s) gives the core its rate
    // as the node's network; a workload asking for 60 Mbit/s moved there makes its pool's HTB class on the device
    // guarantee 60, its cgroup carries that class's priority, and when it ends the guarantee goes. tst_net_shaper
    // measures what the kernel then does with the traffic.
    void aShapingAgentGuaranteesAPoolWhatItsWorkloadAskedFor()
    {
        if (std::filesystem::exists("/sys/fs/cgroup/cgroup.controllers"))
            QSKIP("cgroup v2: shaping needs the v1 net_prio hierarchy");
        ::mkdir("/sys/fs/cgroup/net_prio", 0755);
        if (!std::filesystem::exists("/sys/fs/cgroup/net_prio/net_prio.ifpriomap")
            && ::mount("net_prio", "/sys/fs/cgroup/net_prio", "cgroup", 0, "net_prio") != 0)
            QSKIP("no net_prio hierarchy, and it cannot be mounted here");
        const QString device = QStringLiteral("tpe2e%1").arg(::getpid() % 100000);
        const QString ip = QFile::exists(QStringLiteral("/usr/sbin/ip")) ? QStringLiteral("/usr/sbin/ip")
                                                                         : QStringLiteral("/sbin/ip");
        if (QProcess::execute(ip,
                { QStringLiteral("link"), QStringLiteral("add"), device, QStringLiteral("type"), QStringLiteral("veth"),
                    QStringLiteral("peer"), QStringLiteral("name"), device + QStringLiteral("p") })
            != 0)
            QSKIP("cannot add a veth pair");
        const auto removeDevice = qScopeGuard([&] {
            QProcess::execute(ip, { QStringLiteral("link"), QStringLiteral("del"), device });
            // The shaping agent's lock for the device (kept after it ends, as lock files are); this device is gone.
            QFile::remove(QStringLiteral("/run/tidepool-agent/net-shape-%1.lock").arg(device));
        });
        QCOMPARE(
            QProcess::execute(ip, { QStringLiteral("link"), QStringLiteral("set"), device, QStringLiteral("up") }), 0);

        QProcess shaped;
        shaped.setProcessChannelMode(QProcess::MergedChannels);
        shaped.setStandardOutputFile(path(QStringLiteral("shaped-agent.log")), QIODevice::Append);
        shaped.start(kBin + QStringLiteral("/tidepool-agent"),
            { QStringLiteral("--core"), QStringLiteral("127.0.0.1:%1").arg(m_agentPort),
                QStringLiteral("--join-token-file"), path(QStringLiteral("join.token")), QStringLiteral("--state-dir"),
                path(QStringLiteral("state-shaped")), QStringLiteral("--name"), QStringLiteral("e2e-shaped"),
                QStringLiteral("--accelerator-file"), QString(), QStringLiteral("--no-slowdown"),
                QStringLiteral("--net-shape"), device + QStringLiteral(":100"), QStringLiteral("--cgroup-name"),
                base(QStringLiteral("shaped")) });
        QVERIFY(shaped.waitForStarted(5000));
        const auto stopAgent = qScopeGuard([&] {
            shaped.terminate();
            if (!shaped.waitForFinished(5000))
                shaped.kill();
        });
        const auto shapedLog = [&] {
            QFile f(path(QStringLiteral("shaped-agent.log")));
            return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
        };
        QVERIFY2(
            waitFor([&] { return get("/v1/nodes/e2e-shaped")["state"] == "ready"; }, 30'000), qPrintable(shapedLog()));
        const json node = get("/v1/nodes/e2e-shaped");
        QCOMPARE(node.value("netMbps", 0), 100);
        QVERIFY(!get("/v1/nodes/e2e-node").contains("netMbps")); // not shaped: not counted
        // Another agent (its own base and state dir) shaping the same device would rebuild its HTB tree: refused.
        const QString sameDevice = secondAgent(path(QStringLiteral("state-second-shaper")),
            { QStringLiteral("--cgroup-name"), base(QStringLiteral("second")), QStringLiteral("--net-shape"),
                device + QStringLiteral(":100") });
        QVERIFY2(sameDevice.startsWith(QStringLiteral("exit 2: "))
                && sameDevice.contains(QStringLiteral("device %1 is shaped by another agent (tidepool-agent, pid %2")
                                           .arg(device)
                                           .arg(shaped.processId())),
            qPrintable(sameDevice));

        const auto classes = [&] {
            QProcess tc;
            tc.start(QStringLiteral("/usr/sbin/tc"),
                { QStringLiteral("class"), QStringLiteral("show"), QStringLiteral("dev"), device });
            tc.waitForFinished(5000);
            return QString::fromUtf8(tc.readAllStandardOutput());
        };
        const json w = submit({ { "name", "stream" }, { "pool", "half" }, { "cpuMillis", 100 }, { "memoryMiB", 16 },
            // Busy enough to be measured (a pool that used nothing is left out of the agent's samples).
            { "netBandwidthMbps", 60 }, { "command", { "/bin/sh", "-c", "while :; do sleep 0.05; done" } } });
        QVERIFY2(w.contains("id"), w.dump().c_str());
        const std::int64_t id = w["id"];
        QVERIFY2(waitFor([&] { return phaseIs(id, "running"); }, 10'000),
            qPrintable(QString::fromStdString(get("/v1/workloads/" + std::to_string(id)).dump() + "\n")
                + shapedLog().right(1500) + agentLog().right(1500)));
        if (get("/v1/workloads/" + std::to_string(id))["node"] != "e2e-shaped") {
            const auto moved = request(m_apiPort, http::verb::post, "/v1/workloads/" + std::to_string(id) + "/move",
                m_token, json { { "node", "e2e-shaped" } }.dump());
            QVERIFY2(moved.status == 200, moved.body.c_str());
        }
        QVERIFY2(waitFor(
                     [&] {
                         const json now = get("/v1/workloads/" + std::to_string(id));
                         return now["phase"] == "running" && now["node"] == "e2e-shaped";
                     },
                     15'000),
            get("/v1/workloads/" + std::to_string(id)).dump().c_str());
        QCOMPARE(get("/v1/nodes/e2e-shaped").value("netMbpsFree", -1), 40);
        // The pool's class guarantees 60 (sent with the next heartbeat's check), borrowing up to the link.
        const QRegularExpression sixty(
            QStringLiteral("class htb 1:([0-9a-f]+) parent 1:1 [^\\n]*rate 60Mbit ceil 100Mbit"));
        QVERIFY2(
            waitFor([&] { return sixty.match(classes()).hasMatch(); }, 10'000), qPrintable(classes() + shapedLog()));
        const std::uint32_t minor = sixty.match(classes()).captured(1).toUInt(nullptr, 16);
        // The workload's cgroup puts its packets in that class.
        const json status = get("/v1/workloads/" + std::to_string(id));
        const int incarnation = status.value("incarnation", 0);
        const QString record = path(QStringLiteral("state-shaped/workloads/%1%2/launch.json"))
                                   .arg(id)
                                   .arg(incarnation ? QStringLiteral("@%1").arg(incarnation) : QString());
        std::ifstream in(record.toStdString());
        const json launch = json::parse(in, nullptr, false);
        QVERIFY2(launch.is_object() && !launch["cgroup"].value("netPrio", std::string()).empty(),
            record.toUtf8().constData());
        QFile map(QString::fromStdString(launch["cgroup"]["netPrio"].get<std::string>())
            + QStringLiteral("/net_prio.ifpriomap"));
        QVERIFY(map.open(QIODevice::ReadOnly));
        const QString expected = device + QStringLiteral(" %1").arg((1u << 16) | minor);
        QVERIFY2(QString::fromUtf8(map.readAll()).contains(expected), qPrintable(expected));
        // A shaping agent measures the pool's egress too (its class's bytes): the pool's `measured` has a rate.
        json measured;
        QVERIFY2(waitFor(
                     [&] {
                         measured = get("/v1/pools/half")["measured"];
                         return measured.is_object() && measured["netNodes"] == 1 && measured["netMbps"].is_number();
                     },
                     10'000),
            measured.dump().c_str());

        QCOMPARE(request(m_apiPort, http::verb::delete_, "/v1/workloads/" + std::to_string(id), m_token).status, 200);
        QVERIFY(waitFor([&] { return phaseIs(id, "cancelled"); }, 15'000));
        QVERIFY2(waitFor([&] { return !sixty.match(classes()).hasMatch(); }, 10'000), qPrintable(classes()));
        QCOMPARE(get("/v1/nodes/e2e-shaped").value("netMbpsFree", -1), 100);
    }
};

QTEST_GUILESS_MAIN(TestAgentE2e)
#include "tst_agent_e2e.moc"
