// The real node agent on this machine, as root, driven through the real daemon: a pool's CPU quota holds a
// two-thread spinner to half a core, a workload past its pool's memory limit is reported OOM-killed, an aarch64
// binary runs through qemu-user with its slowdown reported, an agent killed with SIGKILL and restarted adopts its
// running workload (same PID, nothing started twice), and an agent with a wrong join token is refused.
// Skips, saying why, when not root, without cgroup controllers, or without qemu-user and the aarch64 build.
#include "harness.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

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

    bool startAgent(const QString& tokenFile = QStringLiteral("join.token"))
    {
        m_agent = std::make_unique<QProcess>();
        m_agent->setProcessChannelMode(QProcess::MergedChannels);
        m_agent->setStandardOutputFile(path(QStringLiteral("agent.log")), QIODevice::Append);
        m_agent->start(kBin + QStringLiteral("/tidepool-agent"),
            { QStringLiteral("--core"), QStringLiteral("127.0.0.1:%1").arg(m_agentPort), QStringLiteral("--join-token-file"),
                path(tokenFile), QStringLiteral("--state-dir"), stateDir(), QStringLiteral("--name"),
                QStringLiteral("e2e-node"), QStringLiteral("--accelerator-file"), QString(), QStringLiteral("--keep-finished"),
                QStringLiteral("5") });
        return m_agent->waitForStarted(5000);
    }

    double metric(const std::string& series) { return harness::metric(m_apiPort, series); }
    json get(const std::string& target) { return request(m_apiPort, http::verb::get, target, m_token).data(); }
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

        for (auto* p : { m_agent.get(), m_daemon.get() })
            if (p) {
                p->terminate();
                if (!p->waitForFinished(5000))
                    p->kill();
            }
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
        QCOMPARE(request(m_apiPort, http::verb::delete_, "/v1/workloads/" + std::to_string(id), m_token).status, 200);
        QVERIFY(waitFor([&] { return phaseIs(id, "cancelled"); }, 15'000));
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

    void wrongJoinTokenIsRefused()
    {
        const double rejected = metric("tidepool_agent_joins_rejected_total");
        QProcess intruder;
        intruder.start(kBin + QStringLiteral("/tidepool-agent"),
            { QStringLiteral("--core"), QStringLiteral("127.0.0.1:%1").arg(m_agentPort), QStringLiteral("--join-token-file"),
                path(QStringLiteral("wrong.token")), QStringLiteral("--state-dir"), path(QStringLiteral("intruder")),
                QStringLiteral("--name"), QStringLiteral("intruder"), QStringLiteral("--no-slowdown"),
                QStringLiteral("--accelerator-file"), QString() });
        QVERIFY(intruder.waitForStarted(5000));
        const bool refused = waitFor([&] { return metric("tidepool_agent_joins_rejected_total") > rejected; }, 15'000);
        intruder.kill();
        intruder.waitForFinished(5000);
        QVERIFY(refused);
        QVERIFY(get("/v1/nodes/intruder").contains("error"));
    }
};

QTEST_GUILESS_MAIN(TestAgentE2e)
#include "tst_agent_e2e.moc"
