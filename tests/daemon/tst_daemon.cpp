// The real daemon on loopback: tidepoold and tidepool-fleet started as processes, driven through the HTTP API and
// /metrics. Covers joins and rejected joins, API validation and tokens, placement acknowledged by agents, a node
// killed and declared lost with its workloads placed elsewhere, agents reconnecting to a restarted core, SIGTERM,
// and --check-config.
#include "harness.h"

#include <boost/asio/write.hpp>

#include "core/api/daemon_config.h"
#include "core/api/metrics.h"
#include "core/rebalance/evaluator.h"

#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <thread>

#include <cmath>
#include <map>
#include <set>

#include <memory>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace http = harness::http;
using harness::kBin;
using harness::Reply;
using harness::request;
using harness::waitFor;
using nlohmann::json;

class TestDaemon : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<QProcess> m_daemon;
    std::vector<std::unique_ptr<QProcess>> m_fleets;
    std::uint16_t m_agentPort = 0;
    std::uint16_t m_apiPort = 0;
    std::string m_token;
    QString m_daemonLog;
    int m_database = 0; // each test function starts from an empty database of its own

    QString path(const QString& name) const { return m_dir.filePath(name); }

    static void writeFile(const QString& file, const QByteArray& content)
    {
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
    }

    // Starts tidepoold on ephemeral ports (or the given agent port) and waits for its "ready" line.
    bool startDaemon(std::uint16_t agentPort = 0, const QStringList& extra = {})
    {
        m_daemon = std::make_unique<QProcess>();
        return harness::startDaemon(*m_daemon,
            extra + QStringList { QStringLiteral("--agent-listen"), QStringLiteral("127.0.0.1:%1").arg(agentPort),
                QStringLiteral("--api-listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--db"),
                path(QStringLiteral("test-%1.db").arg(m_database)), QStringLiteral("--join-token-file"), path(QStringLiteral("join.token")),
                QStringLiteral("--operator-token-file"), path(QStringLiteral("op.token")),
                QStringLiteral("--heartbeat-interval-ms"), QStringLiteral("200"), QStringLiteral("--suspect-after-ms"),
                QStringLiteral("1000"), QStringLiteral("--lost-after-ms"), QStringLiteral("2000") },
            m_agentPort, m_apiPort, m_daemonLog);
    }

    QProcess* startFleet(int nodes, const QString& prefix, const QString& tokenFile = QStringLiteral("join.token"),
        const QStringList& extra = {})
    {
        auto fleet = std::make_unique<QProcess>();
        fleet->start(kBin + QStringLiteral("/tidepool-fleet"),
            extra + QStringList { QStringLiteral("--core"), QStringLiteral("127.0.0.1:%1").arg(m_agentPort), QStringLiteral("--join-token-file"),
                path(tokenFile), QStringLiteral("--nodes"), QString::number(nodes), QStringLiteral("--prefix"), prefix,
                QStringLiteral("--report-every"), QStringLiteral("0") });
        fleet->waitForStarted(5000);
        m_fleets.push_back(std::move(fleet));
        return m_fleets.back().get();
    }

    double metric(const std::string& series) { return harness::metric(m_apiPort, series); }

    json get(const std::string& target) { return request(m_apiPort, http::verb::get, target, m_token).data(); }

    bool allPhases(const std::string& phase, std::size_t count)
    {
        const json list = get("/v1/workloads?phase=" + phase);
        return list.contains("workloads") && list["workloads"].size() == count;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_token = "operator-token-0123456789abcdef";
        writeFile(path(QStringLiteral("join.token")), "join-token-0123456789abcdef\n");
        writeFile(path(QStringLiteral("wrong.token")), "some-other-token-0123456789\n");
        writeFile(path(QStringLiteral("op.token")), QByteArray::fromStdString(m_token + "\n"));
    }

    void init()
    {
        ++m_database;
        QVERIFY2(startDaemon(), qPrintable(m_daemonLog));
    }

    void cleanup()
    {
        for (auto& fleet : m_fleets) {
            fleet->kill();
            fleet->waitForFinished(5000);
        }
        m_fleets.clear();
        if (m_daemon) {
            m_daemon->kill();
            m_daemon->waitForFinished(5000);
            m_daemon.reset();
        }
    }

    void fleetJoinsAndWrongTokenIsRefused()
    {
        startFleet(20, QStringLiteral("a"));
        QVERIFY(waitFor([&] { return metric("tidepool_nodes{state=\"ready\"}") == 20; }, 15'000));
        startFleet(2, QStringLiteral("intruder"), QStringLiteral("wrong.token"));
        QVERIFY(waitFor([&] { return metric("tidepool_agent_joins_rejected_total") >= 2; }, 10'000));
        QCOMPARE(metric("tidepool_nodes{state=\"ready\"}"), 20.0);
        const json nodes = get("/v1/nodes");
        QCOMPARE(nodes["nodes"].size(), std::size_t { 20 });
        for (const json& n : nodes["nodes"])
            QVERIFY(n["name"].get<std::string>().rfind("a-", 0) == 0);
        // Heartbeats flow at the configured 200 ms.
        const double before = metric("tidepool_agent_heartbeats_total");
        std::this_thread::sleep_for(std::chrono::milliseconds(1000));
        QVERIFY(metric("tidepool_agent_heartbeats_total") >= before + 20 * 3);
    }

    // The rebalance routes on a fresh daemon: what-if answers the re-simulation and validates its body, proposals
    // are empty, decisions on unknown ids are 404s, and an evaluation without history proposes nothing.
    // /metrics says what each pool, tier and accelerator kind holds and how the evaluation loop is doing, in numbers
    // the test works out from the API's own rows; promtool (where installed) checks the format.
    void metricsShowPoolsTiersAcceleratorsAndTheLoop()
    {
        startFleet(8, QStringLiteral("m"));
        QVERIFY(waitFor([&] { return metric("tidepool_nodes{state=\"ready\"}") == 8; }, 15'000));
        const auto post = [&](const std::string& target, const json& body) {
            return request(m_apiPort, http::verb::post, target, m_token, body.dump());
        };
        QCOMPARE(post("/v1/pools",
                     json { { "name", "ml" }, { "cpuMillis", 20000 }, { "acceleratorQuota", { { "gpu", 1500 } } } })
                     .status,
            201);
        std::vector<int> ids;
        for (int i = 0; i < 2; ++i) {
            const Reply r = post("/v1/workloads",
                json { { "name", "infer-" + std::to_string(i) }, { "pool", "ml" }, { "cpuMillis", 1000 },
                    { "memoryMiB", 256 }, { "accelerators", { { "kind", "gpu" }, { "share", 500 } } },
                    { "command", { "/bin/sleep", "600" } } });
            QCOMPARE(r.status, 201);
            ids.push_back(r.data()["id"].get<int>());
        }
        QVERIFY(waitFor([&] { return allPhases("running", 2); }, 10'000));
        // A heartbeat after the placements, so that every device has reported its utilisation.
        const double beats = metric("tidepool_agent_heartbeats_total");
        QVERIFY(waitFor([&] { return metric("tidepool_agent_heartbeats_total") >= beats + 8; }, 10'000));

        // Expected figures, from the nodes' rows.
        std::map<std::string, std::int64_t> tierCpu, tierCpuAllocated;
        std::int64_t gpus = 0, gpuShare = 0, gpuShareFree = 0;
        const json nodes = get("/v1/nodes")["nodes"];
        for (const json& n : nodes) {
            const std::string tier = n["tier"];
            tierCpu[tier] += n["cpuMillis"].get<std::int64_t>();
            tierCpuAllocated[tier] += n["cpuMillis"].get<std::int64_t>() - n["cpuMillisFree"].get<std::int64_t>();
            for (const json& d : n["devices"])
                if (d["kind"] == "gpu") {
                    ++gpus;
                    gpuShare += d["shareCapacity"].get<std::int64_t>();
                    gpuShareFree += d["shareFree"].get<std::int64_t>();
                }
        }
        QVERIFY(gpus >= 2);
        QCOMPARE(metric(R"(tidepool_pool_cpu_millis{pool="ml",kind="allocated"})"), 2000.0);
        QCOMPARE(metric(R"(tidepool_pool_cpu_millis{pool="ml",kind="quota"})"), 20000.0);
        QCOMPARE(metric(R"(tidepool_pool_memory_mib{pool="ml",kind="allocated"})"), 512.0);
        QCOMPARE(metric(R"(tidepool_pool_accelerator_share{pool="ml",accelerator="gpu",kind="allocated"})"), 1000.0);
        QCOMPARE(metric(R"(tidepool_pool_accelerator_share{pool="ml",accelerator="gpu",kind="quota"})"), 1500.0);
        QCOMPARE(metric(R"(tidepool_pool_workloads{pool="ml",phase="running"})"), 2.0);
        QCOMPARE(metric(R"(tidepool_pool_workloads{pool="ml",phase="pending"})"), 0.0);
        QCOMPARE(metric(R"(tidepool_pool_cpu_millis{pool="default",kind="allocated"})"), 0.0);
        QCOMPARE(metric(R"(tidepool_pool_cpu_millis{pool="default",kind="quota"})"), -1.0); // no quota: no series
        for (const auto& [tier, cpu] : tierCpu) {
            QCOMPARE(metric("tidepool_tier_cpu_millis{tier=\"" + tier + "\",kind=\"capacity\"}"), double(cpu));
            QCOMPARE(metric("tidepool_tier_cpu_millis{tier=\"" + tier + "\",kind=\"allocated\"}"),
                double(tierCpuAllocated[tier]));
        }
        QCOMPARE(metric(R"(tidepool_tier_cpu_millis{tier="hot",kind="allocated"})"), 2000.0); // the GPUs are hot
        QCOMPARE(metric(R"(tidepool_accelerator_devices{accelerator="gpu"})"), double(gpus));
        QCOMPARE(metric(R"(tidepool_accelerator_share{accelerator="gpu",kind="capacity"})"), double(gpuShare));
        QCOMPARE(metric(R"(tidepool_accelerator_share{accelerator="gpu",kind="allocated"})"),
            double(gpuShare - gpuShareFree));
        QCOMPARE(gpuShare - gpuShareFree, std::int64_t { 1000 });
        // The fleet's devices report the node's utilisation, a steady 30%.
        QVERIFY(std::abs(metric(R"(tidepool_accelerator_busy_ratio{accelerator="gpu"})") - 0.3) < 1e-6);

        // The loop: an evaluation asked for counts, and moves the last one's time; its proposals wait.
        QCOMPARE(metric("tidepool_evaluations_total"), 0.0);
        const double startedAt = metric("tidepool_evaluation_last_timestamp_seconds");
        QVERIFY(startedAt > 1.7e9); // the loop's start, before the first evaluation
        const Reply evaluated = post("/v1/evaluate", json::object());
        QCOMPARE(evaluated.status, 200);
        QCOMPARE(metric("tidepool_evaluations_total"), 1.0);
        QVERIFY(metric("tidepool_evaluation_last_timestamp_seconds") >= startedAt);
        QVERIFY(metric("tidepool_evaluation_duration_seconds") > 0.0);
        const double created = double(evaluated.data()["created"].size());
        QCOMPARE(metric(R"(tidepool_proposal_state_changes_total{state="pending"})"), created);
        double pending = 0;
        for (const char* kind :
            { "quota", "power_down", "power_up", "lend", "reclaim", "consolidate", "migrate", "defer" })
            pending += metric(std::string("tidepool_proposals_pending{kind=\"") + kind + "\"}");
        QCOMPARE(pending, created);

        // Label values are escaped as the text format asks.
        QCOMPARE(tidepool::api::labelPair("pool", "a\"b\\c\nd"), std::string("pool=\"a\\\"b\\\\c\\nd\""));
        const QString promtool = QStandardPaths::findExecutable(QStringLiteral("promtool"));
        if (promtool.isEmpty()) {
            qInfo("promtool is not installed: the format is not checked by it here (scripts/package does)");
            return;
        }
        QProcess check;
        check.start(promtool, { QStringLiteral("check"), QStringLiteral("metrics") });
        QVERIFY(check.waitForStarted(5000));
        check.write(QByteArray::fromStdString(request(m_apiPort, http::verb::get, "/metrics", {}).body));
        check.closeWriteChannel();
        QVERIFY(check.waitForFinished(10'000));
        QVERIFY2(check.exitCode() == 0, check.readAllStandardError().constData());
    }

    void whatIfAndProposalRoutesAnswer()
    {
        QProcess* fleet = startFleet(2, QStringLiteral("wi"));
        QVERIFY(waitFor([&] { return metric("tidepool_nodes{state=\"ready\"}") == 2; }, 10'000));
        const std::string body = R"({"name": "w", "cpuMillis": 500, "memoryMiB": 64, "command": ["/bin/sleep", "60"]})";
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/workloads", m_token, body).status, 201);
        const auto whatIf = request(m_apiPort, http::verb::post, "/v1/whatif", m_token, R"({"removeNodes": ["wi-0", "wi-1"]})");
        QCOMPARE(whatIf.status, 200);
        QCOMPARE(whatIf.data()["withoutChange"]["placed"].get<int>(), 1);
        QCOMPARE(whatIf.data()["withChange"]["waiting"].get<int>(), 1);
        const auto unknown = request(m_apiPort, http::verb::post, "/v1/whatif", m_token, R"({"pools": {"nope": 1}})");
        QCOMPARE(unknown.status, 400);
        QVERIFY2(unknown.body.find("nope") != std::string::npos, unknown.body.c_str());
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/whatif", m_token, R"({"colour": 1})").status, 400);
        // A CPU or memory quota of 0 is refused, as a pool's own quota of 0 is: at least 1, or null for none.
        for (const char* bad : { R"({"pools": {"default": 0}})", R"({"poolMemory": {"default": 0}})" }) {
            const auto refused = request(m_apiPort, http::verb::post, "/v1/whatif", m_token, bad);
            QCOMPARE(refused.status, 400);
            QVERIFY2(refused.body.find("at least 1") != std::string::npos, refused.body.c_str());
        }
        // A long name is quoted cut between characters: 30 three-byte characters, cut at 64 bytes, not inside one.
        std::string wide;
        for (int i = 0; i < 30; ++i)
            wide += "水";
        const auto clipped
            = request(m_apiPort, http::verb::post, "/v1/whatif", m_token, R"({"pools": {")" + wide + R"(": 1}})");
        QCOMPARE(clipped.status, 400);
        QVERIFY2(clipped.body.find(wide.substr(0, 63) + "…") != std::string::npos, clipped.body.c_str());
        QVERIFY2(clipped.body.find("\xEF\xBF\xBD") == std::string::npos, clipped.body.c_str()); // no U+FFFD
        // A memory quota below the workload's 64 MiB: it would wait.
        const auto memory
            = request(m_apiPort, http::verb::post, "/v1/whatif", m_token, R"({"poolMemory": {"default": 32}})");
        QCOMPARE(memory.status, 200);
        QCOMPARE(memory.data()["withChange"]["waiting"].get<int>(), 1);
        for (const char* bad : { R"({"poolMemory": {"default": "lots"}})", R"({"poolMemory": [32]})" }) {
            const auto refused = request(m_apiPort, http::verb::post, "/v1/whatif", m_token, bad);
            QCOMPARE(refused.status, 400);
            QVERIFY2(refused.body.find("poolMemory") != std::string::npos, refused.body.c_str());
        }
        // Accelerator quotas by pool and kind, in share units: a CPU workload is not held by a GPU quota of none.
        const auto gpus = request(
            m_apiPort, http::verb::post, "/v1/whatif", m_token, R"({"poolAccelerators": {"default": {"gpu": 0}}})");
        QCOMPARE(gpus.status, 200);
        QCOMPARE(gpus.data()["withChange"]["placed"].get<int>(), 1);
        const std::pair<const char*, const char*> badAccelerators[] = {
            { R"({"poolAccelerators": {"default": {"tpu": 1}}})", "poolAccelerators.default.tpu" },
            { R"({"poolAccelerators": {"default": {"gpu": -1}}})", "poolAccelerators.default.gpu" },
            { R"({"poolAccelerators": {"default": 5}})", "poolAccelerators.default" },
            { R"({"poolAccelerators": {"nope": {"gpu": 1}}})", "nope" },
        };
        for (const auto& [bad, named] : badAccelerators) {
            const auto refused = request(m_apiPort, http::verb::post, "/v1/whatif", m_token, bad);
            QCOMPARE(refused.status, 400);
            QVERIFY2(refused.body.find(named) != std::string::npos, refused.body.c_str());
        }
        QCOMPARE(get("/v1/proposals")["proposals"].size(), std::size_t { 0 });
        QCOMPARE(get("/v1/proposals")["more"], false);
        for (const char* bad : { "/v1/proposals?limit=0", "/v1/proposals?limit=10001", "/v1/proposals?before=x" }) {
            const auto refused = request(m_apiPort, http::verb::get, bad, m_token);
            QCOMPARE(refused.status, 400);
            const std::string named = std::string(bad).find("limit") != std::string::npos ? "`limit`" : "`before`";
            QVERIFY2(refused.body.find(named) != std::string::npos, refused.body.c_str());
        }
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/proposals/9/approve", m_token).status, 404);
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/proposals/x/reject", m_token).status, 400);
        const auto evaluated = request(m_apiPort, http::verb::post, "/v1/evaluate", m_token);
        QCOMPARE(evaluated.status, 200);
        QCOMPARE(evaluated.data()["created"].size(), std::size_t { 0 });
        Q_UNUSED(fleet);
    }

    void apiValidatesEveryRequest()
    {
        const std::string good = R"({"name":"w","cpuMillis":100,"memoryMiB":64})";
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/workloads", {}, good).status, 401);
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/workloads", "operator-token-wrong-0123456", good).status, 401);
        QCOMPARE(metric("tidepool_api_unauthorised_total"), 2.0);

        Reply r = request(m_apiPort, http::verb::post, "/v1/workloads", m_token, R"({"name":"w","cpuMillis":"x","memoryMiB":64})");
        QCOMPARE(r.status, 400);
        QVERIFY2(r.data()["error"].get<std::string>().find("`cpuMillis`") != std::string::npos, r.body.c_str());
        r = request(m_apiPort, http::verb::post, "/v1/workloads", m_token,
            R"({"workloads":[{"name":"ok","cpuMillis":1,"memoryMiB":1},{"name":"bad","cpuMillis":1,"memoryMiB":-1}]})");
        QCOMPARE(r.status, 400);
        QVERIFY2(r.data()["error"].get<std::string>().find("`workloads[1].memoryMiB`") != std::string::npos, r.body.c_str());
        r = request(m_apiPort, http::verb::post, "/v1/workloads", m_token, R"({"name":"w","cpuMillis":1,"memoryMiB":1,"pool":"nope"})");
        QCOMPARE(r.status, 400);
        QVERIFY(r.data()["error"].get<std::string>().find("nope") != std::string::npos);
        r = request(m_apiPort, http::verb::post, "/v1/workloads", m_token, R"({"name":"bad name!","cpuMillis":1,"memoryMiB":1})");
        QCOMPARE(r.status, 400);
        QVERIFY(r.data()["error"].get<std::string>().find("`name`") != std::string::npos);
        r = request(m_apiPort, http::verb::post, "/v1/workloads", m_token, "{not json");
        QCOMPARE(r.status, 400);
        // What the agent sets for each workload may not be set by a submission: a workload could otherwise claim
        // another id or GPUs it was not given.
        for (const char* env : { "TIDEPOOL_WORKLOAD_ID=9", "CUDA_VISIBLE_DEVICES=0,1" }) {
            r = request(m_apiPort, http::verb::post, "/v1/workloads", m_token,
                json { { "workloads",
                           { json { { "name", "w" }, { "cpuMillis", 1 }, { "memoryMiB", 1 },
                               { "env", { "A=1", env } } } } } }
                    .dump());
            QCOMPARE(r.status, 400);
            QVERIFY2(r.data()["error"].get<std::string>().find("`workloads[0].env[1]`") != std::string::npos,
                r.body.c_str());
            QVERIFY2(
                r.data()["error"].get<std::string>().find("set by the agent") != std::string::npos, r.body.c_str());
        }
        // A share is of one GPU: more than 1000 milli-GPUs could never be placed.
        r = request(m_apiPort, http::verb::post, "/v1/workloads", m_token,
            R"({"name":"w","cpuMillis":1,"memoryMiB":1,"accelerators":{"kind":"gpu","share":1500}})");
        QCOMPARE(r.status, 400);
        QVERIFY2(r.data()["error"].get<std::string>().find("`accelerators.share`: 1500 milli-GPUs is more than one GPU")
                != std::string::npos,
            r.body.c_str());
        // A command given must name a program: an agent would only refuse the launch, after a place was taken for it.
        for (const auto& [command, error] :
            { std::pair { json::array(), "field `command` is empty: it must name the program to run" },
                std::pair { json::array({ "", "-x" }), "field `command[0]` is 0 bytes long" } }) {
            r = request(m_apiPort, http::verb::post, "/v1/workloads", m_token,
                json { { "name", "w" }, { "cpuMillis", 1 }, { "memoryMiB", 1 }, { "command", command } }.dump());
            QCOMPARE(r.status, 400);
            QVERIFY2(r.data()["error"].get<std::string>().find(error) != std::string::npos, r.body.c_str());
        }
        // Nothing of the refused requests was submitted.
        QCOMPARE(metric("tidepool_workloads_submitted_total"), 0.0);
        QCOMPARE(request(m_apiPort, http::verb::get, "/v1/workloads/99", m_token).status, 404);
        QCOMPARE(request(m_apiPort, http::verb::get, "/v1/workloads/abc", m_token).status, 400);
        // A pool created through the API takes submissions.
        r = request(m_apiPort, http::verb::post, "/v1/pools", m_token, R"({"name":"batch","cpuMillis":2000,"tier":"cold"})");
        QCOMPARE(r.status, 201);
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/pools", m_token, R"({"name":"batch"})").status, 409);
        // Names a command line or a URL cannot carry as they are.
        for (const char* name : { "-rf", ".", ".." }) {
            r = request(m_apiPort, http::verb::post, "/v1/pools", m_token, json { { "name", name } }.dump());
            QCOMPARE(r.status, 400);
            QVERIFY2(r.body.find("may not begin with '-' or be only dots") != std::string::npos, r.body.c_str());
        }
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/workloads", m_token,
                     R"({"name":"w","cpuMillis":1,"memoryMiB":1,"pool":"batch"})")
                     .status,
            201);
        QCOMPARE(metric("tidepool_workloads{phase=\"pending\"}"), 1.0); // no nodes yet
    }

    // A method a path does not take is a 405 whose `Allow` header lists those it does, on every route (read routes
    // the console's feed adds included); a path no route has stays a 404.
    void wrongMethodsAre405WithTheAllowedMethods()
    {
        struct Case {
            http::verb verb;
            const char* target;
            const char* allow;
        };
        const Case cases[] = {
            { http::verb::delete_, "/v1/pools", "GET, HEAD, POST" },
            { http::verb::put, "/v1/pools", "GET, HEAD, POST" },
            { http::verb::post, "/v1/pools/default", "GET, HEAD, PUT, DELETE" },
            { http::verb::put, "/v1/workloads", "GET, HEAD, POST" },
            { http::verb::put, "/v1/workloads/1", "GET, HEAD, DELETE" },
            { http::verb::post, "/v1/workloads/1/why", "GET, HEAD" },
            { http::verb::get, "/v1/workloads/1/move", "POST" },
            { http::verb::delete_, "/v1/nodes", "GET, HEAD" },
            { http::verb::put, "/v1/nodes/n1", "GET, HEAD" },
            { http::verb::get, "/v1/evaluate", "POST" },
            { http::verb::get, "/v1/whatif", "POST" },
            { http::verb::post, "/v1/summary", "GET, HEAD" },
            { http::verb::delete_, "/v1/proposals/1", "GET, HEAD" },
            { http::verb::get, "/v1/proposals/1/approve", "POST" },
            { http::verb::post, "/v1/audit?after=0", "GET, HEAD" },
            { http::verb::post, "/v1/whoami", "GET, HEAD" },
            { http::verb::post, "/v1/events", "GET, HEAD" }, // a read route of the console's feed
            { http::verb::post, "/healthz", "GET, HEAD" }, // no token needed, as for GET
            { http::verb::delete_, "/metrics", "GET, HEAD" },
        };
        const json poolsBefore = get("/v1/pools");
        for (const Case& c : cases) {
            const std::string token = std::string(c.target).rfind("/v1/", 0) == 0 ? m_token : std::string();
            const Reply r = request(m_apiPort, c.verb, c.target, token);
            const auto method = http::to_string(c.verb);
            const std::string what = std::string(method.data(), method.size()) + " " + c.target + ": "
                + std::to_string(r.status) + " " + r.body + " Allow: " + r.allow;
            QVERIFY2(r.status == 405, what.c_str());
            QVERIFY2(r.allow == c.allow, what.c_str());
            QVERIFY2(
                r.data().value("error", std::string()).find(std::string("it takes ") + c.allow) != std::string::npos,
                what.c_str());
        }
        // Nothing was changed, and a path no route has is still not found.
        QCOMPARE(get("/v1/pools"), poolsBefore);
        QCOMPARE(request(m_apiPort, http::verb::delete_, "/v1/nothing", m_token).status, 404);
        QCOMPARE(request(m_apiPort, http::verb::get, "/v1/pools/default/x", m_token).status, 404);
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/evaluate/now", m_token).status, 404);
        QCOMPARE(request(m_apiPort, http::verb::post, "/nothing", {}).status, 404);
        // A token is still needed before the method is judged under /v1.
        QCOMPARE(request(m_apiPort, http::verb::delete_, "/v1/pools", {}).status, 401);
    }

    // RFC 9112 §3.2.2: a request target in absolute form, as a proxy sends it, is routed by its path.
    void absoluteFormTargetsAreRouted()
    {
        const std::string origin = "http://127.0.0.1:" + std::to_string(m_apiPort);
        const Reply nodes = request(m_apiPort, http::verb::get, origin + "/v1/nodes", m_token);
        QCOMPARE(nodes.status, 200);
        QVERIFY2(nodes.data().contains("nodes"), nodes.body.c_str());
        QCOMPARE(request(m_apiPort, http::verb::get, origin + "/healthz", {}).status, 200);
        const Reply created = request(
            m_apiPort, http::verb::post, origin + "/v1/pools", m_token, R"({"name":"proxied","cpuMillis":1000})");
        QCOMPARE(created.status, 201);
        QCOMPARE(request(m_apiPort, http::verb::get, origin + "/v1/pools/proxied?x=1", m_token).status, 200);
    }

    // POST /v1/evaluate takes no parameters: a body it would ignore is refused, naming what was wrong.
    void evaluateRefusesABodyItWouldIgnore()
    {
        const std::pair<const char*, const char*> refusals[] = {
            { R"({"pool": "web"})", "field `pool` is not known: POST /v1/evaluate takes no fields" },
            { R"({"dryRun": true, "x": 1})", "field `dryRun` is not known" },
            { R"([])", "the body must be a JSON object: POST /v1/evaluate takes an empty body or {}" },
            { R"("now")", "the body must be a JSON object" },
            { "{not json", "the body is not valid JSON (error at byte" },
        };
        for (const auto& [body, message] : refusals) {
            const Reply r = request(m_apiPort, http::verb::post, "/v1/evaluate", m_token, body);
            QCOMPARE(r.status, 400);
            QVERIFY2(r.data().value("error", std::string()).find(message) != std::string::npos, r.body.c_str());
        }
        for (const char* body : { "", "{}", " { } \n" }) {
            const Reply r = request(m_apiPort, http::verb::post, "/v1/evaluate", m_token, body);
            QCOMPARE(r.status, 200);
            QVERIFY2(r.data().contains("created"), r.body.c_str());
        }
    }

    // A key given twice in one object is refused, naming it by its path, in every body the API reads; nothing
    // changes.
    void repeatedKeysAreRefusedNamingTheKey()
    {
        struct Case {
            http::verb verb;
            const char* target;
            const char* body;
            const char* named;
        };
        const Case cases[] = {
            { http::verb::post, "/v1/workloads", R"({"name":"a","cpuMillis":100,"memoryMiB":64,"name":"b"})",
                "field `name` appears twice in the body" },
            { http::verb::post, "/v1/workloads",
                R"({"workloads":[{"name":"a","cpuMillis":1,"memoryMiB":1},{"name":"b","cpuMillis":1,"cpuMillis":2,"memoryMiB":1}]})",
                "field `workloads[1].cpuMillis` appears twice" },
            { http::verb::post, "/v1/pools", R"({"name":"p","cpuMillis":1000,"cpuMillis":10})",
                "field `cpuMillis` appears twice" },
            { http::verb::put, "/v1/pools/default", R"({"cpuMillis":1000,"cpuMillis":10})",
                "field `cpuMillis` appears twice" },
            { http::verb::post, "/v1/workloads/1/move", R"({"pool":"default","pool":"other"})",
                "field `pool` appears twice" },
            { http::verb::post, "/v1/whatif", R"({"pools":{"default":1,"default":2}})",
                "field `pools.default` appears twice" },
            { http::verb::post, "/v1/proposals/1/reject", R"({"reason":"a","reason":"b"})",
                "field `reason` appears twice" },
            { http::verb::post, "/v1/evaluate", R"({"a":1,"a":1})", "field `a` appears twice" },
        };
        const json poolsBefore = get("/v1/pools");
        for (const Case& c : cases) {
            const Reply r = request(m_apiPort, c.verb, c.target, m_token, c.body);
            const std::string what = std::string(c.target) + ": " + std::to_string(r.status) + " " + r.body;
            QVERIFY2(r.status == 400, what.c_str());
            QVERIFY2(r.data().value("error", std::string()).find(c.named) != std::string::npos, what.c_str());
        }
        QCOMPARE(metric("tidepool_workloads_submitted_total"), 0.0);
        QCOMPARE(get("/v1/pools"), poolsBefore);
        // The same bodies without the repeat are taken.
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/workloads", m_token,
                     R"({"name":"a","cpuMillis":100,"memoryMiB":64})")
                     .status,
            201);
    }

    // The API server's limits come from the command line (and the config file), and its timeouts are counted by
    // phase in /metrics.
    void apiLimitsAreSetAndTimeoutsCounted()
    {
        cleanup();
        ++m_database;
        QVERIFY2(startDaemon(0,
                     { QStringLiteral("--api-header-timeout-ms"), QStringLiteral("300"),
                         QStringLiteral("--api-body-timeout-ms"), QStringLiteral("300"),
                         QStringLiteral("--api-max-body-bytes"), QStringLiteral("4096") }),
            qPrintable(m_daemonLog));
        for (const char* phase : { "header", "body", "write" })
            QCOMPARE(metric(std::string("tidepool_api_timeouts_total{phase=\"") + phase + "\"}"), 0.0);

        // Headers that stop, and a body that stops: each closed in the time set, not the defaults (10 s).
        const auto closedWithin = [this](const std::string& bytes, int ms) {
            boost::asio::io_context io;
            boost::asio::ip::tcp::socket socket(io);
            socket.connect({ boost::asio::ip::make_address("127.0.0.1"), m_apiPort });
            boost::asio::write(socket, boost::asio::buffer(bytes));
            const auto started = std::chrono::steady_clock::now();
            char byte = 0;
            boost::system::error_code ec;
            // Blocks until the daemon closes the connection; the test's own timeout bounds it.
            const std::size_t n = socket.read_some(boost::asio::buffer(&byte, 1), ec);
            const auto took = std::chrono::steady_clock::now() - started;
            return n == 0 && ec && took < std::chrono::milliseconds(ms);
        };
        QVERIFY(closedWithin("GET /v1/nodes HTTP/1.1\r\nHost: 127.0.0.1\r\n", 3000));
        // The daemon closes the socket at the deadline and counts the timeout as its read ends, just after.
        QVERIFY(waitFor([&] { return metric("tidepool_api_timeouts_total{phase=\"header\"}") == 1.0; }, 2000));
        QVERIFY(closedWithin("POST /v1/workloads HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + m_token
                + "\r\nContent-Length: 100\r\n\r\n{\"name\"",
            3000));
        QVERIFY(waitFor([&] { return metric("tidepool_api_timeouts_total{phase=\"body\"}") == 1.0; }, 2000));
        QCOMPARE(metric("tidepool_api_timeouts_total{phase=\"header\"}"), 1.0);
        QCOMPARE(metric("tidepool_api_timeouts_total{phase=\"write\"}"), 0.0);
        // A console's waiting read of events whose client goes is counted as it goes, not when its minute is up.
        QCOMPARE(metric("tidepool_api_clients_gone_total"), 0.0);
        {
            boost::asio::io_context io;
            boost::asio::ip::tcp::socket socket(io);
            socket.connect({ boost::asio::ip::make_address("127.0.0.1"), m_apiPort });
            const json latest = get("/v1/events");
            boost::asio::write(socket,
                boost::asio::buffer("GET /v1/events?waitMs=60000&after=" + std::to_string(latest.value("latest", 0))
                    + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + m_token + "\r\n\r\n"));
            // Still waiting after a moment: nothing has been answered.
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            QCOMPARE(socket.available(), std::size_t { 0 });
        }
        QVERIFY(waitFor([&] { return metric("tidepool_api_clients_gone_total") == 1.0; }, 2000));
        // The body limit set: a body over 4096 bytes is refused with 413.
        const Reply big = request(m_apiPort, http::verb::post, "/v1/workloads", m_token,
            R"({"name":")" + std::string(5000, 'x') + R"(","cpuMillis":1,"memoryMiB":1})");
        QCOMPARE(big.status, 413);
    }

    void headAnswersAsGetWithoutTheBody()
    {
        // HEAD then GET of each on one connection: the HEAD's answer has the GET's headers, Content-Length
        // included, and no body (the GET's answer would not parse after a stray body).
        boost::asio::io_context io;
        boost::asio::ip::tcp::socket socket(io);
        socket.connect({ boost::asio::ip::make_address("127.0.0.1"), m_apiPort });
        boost::beast::flat_buffer buffer;
        const auto ask = [&](http::verb verb, const std::string& target, const std::string& token) {
            http::request<http::empty_body> req { verb, target, 11 };
            req.set(http::field::host, "127.0.0.1");
            if (!token.empty())
                req.set(http::field::authorization, "Bearer " + token);
            http::write(socket, req);
            http::response_parser<http::string_body> parser;
            parser.skip(verb == http::verb::head);
            http::read(socket, buffer, parser);
            return parser.release();
        };
        for (const std::string target : { "/healthz", "/metrics", "/v1/pools" }) {
            const auto head = ask(http::verb::head, target, m_token);
            QCOMPARE(head.result_int(), 200u);
            QVERIFY(head.body().empty());
            const auto got = ask(http::verb::get, target, m_token);
            QCOMPARE(got.result_int(), 200u);
            QCOMPARE(std::string(head[http::field::content_type]), std::string(got[http::field::content_type]));
            if (target != "/metrics") // its counters move between the two
                QCOMPARE(std::string(head[http::field::content_length]), std::to_string(got.body().size()));
            else
                QVERIFY(std::stoul(std::string(head[http::field::content_length])) > 0);
        }
        // A HEAD needs a token under /v1, as a GET does.
        QCOMPARE(ask(http::verb::head, "/v1/pools", {}).result_int(), 401u);
        QCOMPARE(metric("tidepool_api_connections_evicted_total"), 0.0);
    }

    void workloadsArePlacedAcknowledgedAndCancelled()
    {
        startFleet(10, QStringLiteral("n"));
        QVERIFY(waitFor([&] { return metric("tidepool_nodes{state=\"ready\"}") == 10; }, 15'000));
        json batch { { "workloads", json::array() } };
        for (int i = 0; i < 100; ++i)
            batch["workloads"].push_back(json { { "name", "w" + std::to_string(i) }, { "cpuMillis", 500 },
                { "memoryMiB", 256 }, { "command", { "/bin/true" } } });
        const Reply r = request(m_apiPort, http::verb::post, "/v1/workloads", m_token, batch.dump());
        QCOMPARE(r.status, 201);
        QCOMPARE(r.data()["workloads"].size(), std::size_t { 100 });
        QVERIFY(waitFor([&] { return metric("tidepool_workloads{phase=\"running\"}") == 100; }, 10'000));
        QCOMPARE(metric("tidepool_launches_acknowledged_total"), 100.0);
        // Pages of 30 in id order: each but the last says there is more and where the next starts; together they hold
        // every workload once (a list cut at the limit said nothing before).
        std::set<int> listed;
        std::string after = "0";
        for (int page = 0; page < 4; ++page) {
            const json list = get("/v1/workloads?limit=30&after=" + after);
            QCOMPARE(list["workloads"].size(), std::size_t(page < 3 ? 30 : 10));
            QCOMPARE(list["more"].get<bool>(), page < 3);
            for (const json& w : list["workloads"])
                QVERIFY(listed.insert(w["id"].get<int>()).second);
            if (page < 3) {
                QCOMPARE(list["nextAfter"], list["workloads"].back()["id"]);
                after = std::to_string(list["nextAfter"].get<int>());
            }
        }
        QCOMPARE(listed.size(), std::size_t { 100 });
        QCOMPARE(request(m_apiPort, http::verb::get, "/v1/workloads?after=-1", m_token).status, 400);
        const json why = get("/v1/workloads/1/why");
        QCOMPARE(why["phase"].get<std::string>(), std::string("running"));
        QVERIFY(why["reason"].get<std::string>().rfind("placed on n-", 0) == 0);
        QVERIFY(why["report"]["nodesConsidered"].get<int>() >= 1);

        QCOMPARE(request(m_apiPort, http::verb::delete_, "/v1/workloads/1", m_token).status, 200);
        QVERIFY(waitFor([&] { return get("/v1/workloads/1")["phase"] == "cancelled"; }, 5000));
        QCOMPARE(request(m_apiPort, http::verb::delete_, "/v1/workloads/1", m_token).status, 409);

        // More than fits stays pending, with the main reason named.
        const Reply big = request(m_apiPort, http::verb::post, "/v1/workloads", m_token,
            R"({"name":"huge","cpuMillis":100000000,"memoryMiB":1})");
        QCOMPARE(big.status, 201);
        const json hugeWhy = get("/v1/workloads/" + std::to_string(big.data()["id"].get<int>()) + "/why");
        QCOMPARE(hugeWhy["phase"].get<std::string>(), std::string("pending"));
        QCOMPARE(hugeWhy["report"]["mainReason"].get<std::string>(), std::string("insufficient CPU"));
        QCOMPARE(hugeWhy["report"]["nodesConsidered"].get<int>(), 10);
    }

    // What the console's --connect mode reads besides the operators' fields (ui/bridge/remote_snapshot.h): node and
    // pool ids, a node's peak reservation, a pool's accelerator use and bandwidth quotas, a workload's home tier and
    // bandwidth, the core's clock, its read-only reason and the active workloads by tier.
    void consoleFieldsAreInTheJson()
    {
        startFleet(2, QStringLiteral("c"));
        QVERIFY(waitFor([&] { return metric("tidepool_nodes{state=\"ready\"}") == 2; }, 10'000));
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/pools", m_token, R"({"name":"batch","cpuMillis":2000})")
                     .status,
            201);
        const Reply submitted = request(m_apiPort, http::verb::post, "/v1/workloads", m_token,
            R"({"name":"etl","cpuMillis":500,"memoryMiB":64,"pool":"batch","latency":"batch"})");
        QCOMPARE(submitted.status, 201);
        const int id = submitted.data()["id"].get<int>();
        QVERIFY(waitFor([&] { return get("/v1/workloads/" + std::to_string(id))["phase"] == "running"; }, 10'000));

        std::set<int> ids;
        const json nodes = get("/v1/nodes")["nodes"]; // named: a range-for over a temporary's member dangles
        for (const json& n : nodes) {
            QVERIFY(n["id"].is_number_integer());
            ids.insert(n["id"].get<int>());
            QCOMPARE(n["peakReserved"].get<bool>(), false);
        }
        QVERIFY2(ids.size() == 2, nodes.dump().c_str());
        bool sawBatch = false;
        const json pools = get("/v1/pools")["pools"];
        for (const json& p : pools) {
            QVERIFY(p["id"].is_number_integer());
            QCOMPARE(p["acceleratorShareUsed"].get<int>(), 0);
            QVERIFY(p["memBandwidthMBps"].is_null());
            QVERIFY(p["netBandwidthMbps"].is_null());
            if (p["name"] == "batch") {
                sawBatch = true;
                QCOMPARE(p["cpuMillisUsed"].get<int>(), 500);
            }
        }
        QVERIFY(sawBatch);
        // The fleet's agents say what each pool uses of their nodes (its held requests times the node's load, 0.3 for
        // CPU and 0.5 for memory without a series): the pool's `measured`, once a heartbeat came after the launch.
        json measured;
        QVERIFY2(waitFor(
                     [&] {
                         measured = get("/v1/pools/batch")["measured"];
                         return measured.is_object();
                     },
                     10'000),
            measured.dump().c_str());
        QCOMPARE(measured,
            (json { { "nodes", 1 }, { "cpuMillis", 150 }, { "memoryMiB", 32 }, { "netNodes", 0 },
                { "netMbps", nullptr } }));
        QVERIFY(get("/v1/pools/default")["measured"].is_null()); // nothing of it runs anywhere
        const json w = get("/v1/workloads/" + std::to_string(id));
        QCOMPARE(w["tier"].get<std::string>(), std::string("cold"));
        QCOMPARE(w["memBandwidthMBps"].get<int>(), 0);
        QCOMPARE(w["netBandwidthMbps"].get<int>(), 0);
        const json summary = get("/v1/summary");
        const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::system_clock::now().time_since_epoch()).count();
        QVERIFY(std::abs(summary["nowMs"].get<std::int64_t>() - now) < 60'000);
        QCOMPARE(summary["readOnlyReason"].get<std::string>(), std::string());
        QCOMPARE(summary["activeWorkloadsByTier"],
            (json { { "hot", 0 }, { "warm", 0 }, { "cold", 1 } }));
    }

    // `changedSince`: after a full list, only what changed since, ended workloads included, oldest change first; a
    // limit cuts it short with `more`; a cursor of another run of the daemon is a 410, a malformed one a 400.
    // Large lists are written on one serialiser thread: a crowd of them is bounded (503, retry) and a small page is
    // answered on the core's thread without waiting behind them.
    void aCrowdOfLargeReadsNeitherQueuesWithoutBoundNorHoldsUpASmallOne()
    {
        json batch = json::array();
        for (int i = 0; i < 8000; ++i)
            batch.push_back(json { { "name", "w" + std::to_string(i) }, { "cpuMillis", 100 }, { "memoryMiB", 64 } });
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/workloads", m_token, json { { "workloads", batch } }.dump())
                     .status,
            201);
        constexpr int kReaders = 48;
        std::vector<Reply> large(kReaders);
        std::atomic<int> largeDone { 0 };
        std::vector<std::thread> readers;
        for (int i = 0; i < kReaders; ++i)
            readers.emplace_back([&, i] {
                large[static_cast<std::size_t>(i)]
                    = request(m_apiPort, http::verb::get, "/v1/workloads?limit=10000", m_token);
                ++largeDone;
            });
        // Once the serialiser is full (one was refused), a small page: answered at once, not behind those it holds.
        QVERIFY(waitFor([&] { return metric("tidepool_api_refused_busy_total") >= 1; }, 30'000));
        const Reply small = request(m_apiPort, http::verb::get, "/v1/workloads?limit=5", m_token);
        const int doneWhenSmallAnswered = largeDone.load();
        for (std::thread& t : readers)
            t.join();
        QCOMPARE(small.status, 200);
        QCOMPARE(small.data()["workloads"].size(), std::size_t { 5 });
        QVERIFY2(doneWhenSmallAnswered < kReaders, std::to_string(doneWhenSmallAnswered).c_str());
        int answered = 0, busy = 0;
        for (const Reply& r : large) {
            if (r.status == 200) {
                ++answered;
                QCOMPARE(r.data()["workloads"].size(), std::size_t { 8000 });
            } else {
                QCOMPARE(r.status, 503);
                QVERIFY2(r.data()["error"].get<std::string>().find("busy writing 16 large reads") != std::string::npos,
                    r.body.c_str());
                ++busy;
            }
        }
        QVERIFY2(answered >= 16 && busy >= 1,
            (std::to_string(answered) + " answered, " + std::to_string(busy) + " busy").c_str());
        QCOMPARE(metric("tidepool_api_refused_busy_total"), static_cast<double>(busy));
    }

    void workloadChangesFollowACursor()
    {
        startFleet(2, QStringLiteral("cur"));
        QVERIFY(waitFor([&] { return metric("tidepool_nodes{state=\"ready\"}") == 2; }, 10'000));
        const auto submit = [&](const std::string& name) {
            const Reply reply = request(m_apiPort, http::verb::post, "/v1/workloads", m_token,
                json { { "name", name }, { "cpuMillis", 100 }, { "memoryMiB", 64 } }.dump());
            return reply.status == 201 ? reply.data()["id"].get<int>() : -1;
        };
        const int a = submit("a");
        const int b = submit("b");
        QVERIFY(waitFor([&] { return allPhases("running", 2); }, 10'000));
        const json full = get("/v1/workloads");
        QCOMPARE(full["workloads"].size(), std::size_t { 2 });
        const std::string cursor = full["cursor"].get<std::string>();
        const auto changes = [&](const std::string& since, const std::string& extra = {}) {
            return request(m_apiPort, http::verb::get, "/v1/workloads?changedSince=" + since + extra, m_token);
        };
        QCOMPARE(changes(cursor).data()["workloads"].size(), std::size_t { 0 });
        QCOMPARE(changes(cursor).data()["cursor"].get<std::string>(), cursor);

        const int c = submit("c");
        QVERIFY(waitFor([&] { return get("/v1/workloads/" + std::to_string(c))["phase"] == "running"; }, 10'000));
        QCOMPARE(request(m_apiPort, http::verb::delete_, "/v1/workloads/" + std::to_string(a), m_token).status, 200);
        QVERIFY(waitFor([&] { return get("/v1/workloads/" + std::to_string(a))["phase"] == "cancelled"; }, 10'000));
        const json changed = changes(cursor).data();
        std::vector<int> ids;
        for (const json& w : changed["workloads"])
            ids.push_back(w["id"].get<int>());
        // c ran before a was cancelled: oldest change first.
        QCOMPARE(ids, (std::vector<int> { c, a }));
        QCOMPARE(changed["workloads"][1]["phase"].get<std::string>(), std::string("cancelled"));
        QCOMPARE(changed["more"].get<bool>(), false);
        const std::string next = changed["cursor"].get<std::string>();
        QVERIFY(next != cursor);
        QCOMPARE(changes(next).data()["workloads"].size(), std::size_t { 0 });
        (void)b;

        const json first = changes(cursor, "&limit=1").data();
        QCOMPARE(first["workloads"].size(), std::size_t { 1 });
        QCOMPARE(first["more"].get<bool>(), true);
        const json rest = changes(first["cursor"].get<std::string>()).data();
        QCOMPARE(rest["workloads"].size(), std::size_t { 1 });
        QCOMPARE(rest["workloads"][0]["id"].get<int>(), a);

        const std::string run = cursor.substr(0, cursor.find('.'));
        const Reply stale = changes("0123456789abcdef.5");
        QCOMPARE(stale.status, 410);
        QVERIFY2(stale.body.find("another run of tidepoold") != std::string::npos, stale.body.c_str());
        for (const std::string& bad : { std::string("nonsense"), run + ".x", run + ".-1" }) {
            const Reply refused = changes(bad);
            QCOMPARE(refused.status, 400);
            QVERIFY2(refused.body.find("changedSince") != std::string::npos, refused.body.c_str());
        }
        // A restarted daemon is another run: the old cursor is refused and a new full list gives a new one.
        const std::uint16_t agentPort = m_agentPort;
        m_daemon->terminate();
        QVERIFY(m_daemon->waitForFinished(5000));
        QVERIFY2(startDaemon(agentPort), qPrintable(m_daemonLog));
        QCOMPARE(changes(next).status, 410);
        QVERIFY(get("/v1/workloads")["cursor"].get<std::string>().rfind(run, 0) != 0);
    }

    // A pool's memory and network bandwidth quotas and its accelerator quotas (share units per kind) are set through
    // the API, hold workloads out with a reason naming the resource and the shortfall, change with a PUT (null lifts
    // one) and survive a restart; bad values are 400s naming the field.
    void poolQuotasCoverBandwidthAndAccelerators()
    {
        startFleet(8, QStringLiteral("q"));
        QVERIFY(waitFor([&] { return metric("tidepool_nodes{state=\"ready\"}") == 8; }, 15'000));
        int gpus = 0;
        const json nodes = get("/v1/nodes")["nodes"];
        for (const json& n : nodes)
            for (const json& d : n["devices"])
                gpus += d["kind"] == "gpu" ? 1 : 0;
        QVERIFY2(gpus >= 2, nodes.dump().c_str()); // the generated fleet (seed 42) has GPU nodes among its first 8

        const auto post = [&](const std::string& target, const json& body) {
            return request(m_apiPort, http::verb::post, target, m_token, body.dump());
        };
        const auto put = [&](const json& body) {
            return request(m_apiPort, http::verb::put, "/v1/pools/ml", m_token, body.dump());
        };
        QCOMPARE(post("/v1/pools",
                     json { { "name", "ml" }, { "memBandwidthMBps", 5000 }, { "netBandwidthMbps", 800 },
                         { "acceleratorQuota", { { "gpu", 1000 }, { "fpga", 0 } } } })
                     .status,
            201);
        const json created = get("/v1/pools/ml");
        QCOMPARE(created["memBandwidthMBps"].get<int>(), 5000);
        QCOMPARE(created["netBandwidthMbps"].get<int>(), 800);
        QCOMPARE(created["acceleratorQuota"], (json { { "gpu", 1000 }, { "npu", nullptr }, { "fpga", 0 } }));

        // One whole GPU each: the first fits the quota of 1000 share units, the second waits and says why. The
        // priorities keep preemption out of it (the first outranks both later ones) and let each later one be tried
        // at once rather than queued behind the one before (the third outranks the second).
        const auto submit = [&](const std::string& name, int priority, const json& extra) {
            json body { { "name", name }, { "cpuMillis", 100 }, { "memoryMiB", 64 }, { "pool", "ml" },
                { "latency", "real-time" }, { "priority", priority } };
            body.update(extra);
            const Reply reply = post("/v1/workloads", body);
            return reply.status == 201 ? reply.data()["id"].get<int>() : -reply.status;
        };
        const auto detailOf = [&](int id) { return get("/v1/workloads/" + std::to_string(id)).value("detail", ""); };
        const json gpu { { "accelerators", { { "kind", "gpu" } } }, { "memBandwidthMBps", 1000 } };
        const int first = submit("train-0", 10, gpu);
        QVERIFY(first > 0);
        QVERIFY(waitFor([&] { return get("/v1/workloads/" + std::to_string(first))["phase"] == "running"; }, 10'000));
        // Memory bandwidth: 1000 of 5000 MB/s are taken, a request of 4500 waits.
        const int hungry = submit("stream", 0, json { { "memBandwidthMBps", 4500 } });
        QVERIFY(hungry > 0);
        QVERIFY(waitFor([&] { return !detailOf(hungry).empty(); }, 5'000));
        QVERIFY2(detailOf(hungry).find("pool ml quota: memory bandwidth: it asks for 4500 MB/s and 4000 of the pool's "
                                       "5000 are left (500 short)")
                != std::string::npos,
            detailOf(hungry).c_str());
        const int second = submit("train-1", 5, gpu);
        QVERIFY(second > 0);
        QVERIFY(waitFor([&] { return !detailOf(second).empty(); }, 5'000));
        QCOMPARE(get("/v1/workloads/" + std::to_string(second))["phase"].get<std::string>(), std::string("pending"));
        QVERIFY2(detailOf(second).find("pool ml quota: gpu share: it asks for 1000 share units and 0 of the pool's "
                                       "1000 are left (1000 short)")
                != std::string::npos,
            detailOf(second).c_str());
        const json used = get("/v1/pools/ml");
        QCOMPARE(used["acceleratorUsed"]["gpu"].get<int>(), 1000);
        QCOMPARE(used["memBandwidthMBpsUsed"].get<int>(), 1000);

        // Raising the GPU quota lets the second in; null lifts the memory bandwidth quota; the rest is kept.
        QCOMPARE(
            put(json { { "acceleratorQuota", { { "gpu", 2000 } } }, { "memBandwidthMBps", nullptr } }).status, 200);
        QVERIFY(waitFor([&] { return get("/v1/workloads/" + std::to_string(second))["phase"] == "running"; }, 10'000));
        QVERIFY(waitFor([&] { return get("/v1/workloads/" + std::to_string(hungry))["phase"] == "running"; }, 10'000));
        QCOMPARE(get("/v1/pools/ml")["overQuota"], json::array());
        // Lowered below what runs: nothing is evicted, and the pool says it is over its quota, by how much.
        const Reply lowered = put(json { { "acceleratorQuota", { { "gpu", 1000 } } } });
        QCOMPARE(lowered.status, 200);
        QCOMPARE(lowered.data()["overQuota"],
            (json::array({ json { { "resource", "acceleratorQuota.gpu" }, { "used", 2000 }, { "quota", 1000 } } })));
        QCOMPARE(get("/v1/workloads/" + std::to_string(second))["phase"].get<std::string>(), std::string("running"));
        QCOMPARE(put(json { { "acceleratorQuota", { { "gpu", 2000 } } } }).status, 200);
        const json changed = get("/v1/pools/ml");
        QCOMPARE(changed["acceleratorQuota"], (json { { "gpu", 2000 }, { "npu", nullptr }, { "fpga", 0 } }));
        QVERIFY(changed["memBandwidthMBps"].is_null());
        QCOMPARE(changed["netBandwidthMbps"].get<int>(), 800);

        // Bad values: each refused with the field named, and nothing changed.
        const std::pair<json, std::string> bad[] = {
            { json { { "acceleratorQuota", { { "tpu", 1 } } } }, "acceleratorQuota.tpu" },
            { json { { "acceleratorQuota", { { "gpu", -1 } } } }, "acceleratorQuota.gpu" },
            { json { { "acceleratorQuota", { { "gpu", "lots" } } } }, "acceleratorQuota.gpu" },
            { json { { "acceleratorQuota", 4 } }, "acceleratorQuota" },
            { json { { "netBandwidthMbps", 0 } }, "netBandwidthMbps" },
        };
        for (const auto& [body, field] : bad) {
            const Reply reply = put(body);
            QCOMPARE(reply.status, 400);
            QVERIFY2(reply.body.find(field) != std::string::npos, (body.dump() + " -> " + reply.body).c_str());
        }
        QCOMPARE(get("/v1/pools/ml")["acceleratorQuota"], changed["acceleratorQuota"]);

        // A restart keeps them (schema version 7).
        const std::uint16_t agentPort = m_agentPort;
        m_daemon->terminate();
        QVERIFY(m_daemon->waitForFinished(5000));
        QVERIFY2(startDaemon(agentPort), qPrintable(m_daemonLog));
        const json restored = get("/v1/pools/ml");
        QCOMPARE(restored["acceleratorQuota"], changed["acceleratorQuota"]);
        QVERIFY(restored["memBandwidthMBps"].is_null());
        QCOMPARE(restored["netBandwidthMbps"].get<int>(), 800);
        // And null for the whole object lifts every accelerator quota.
        QCOMPARE(put(json { { "acceleratorQuota", nullptr } }).status, 200);
        QCOMPARE(get("/v1/pools/ml")["acceleratorQuota"],
            (json { { "gpu", nullptr }, { "npu", nullptr }, { "fpga", nullptr } }));
    }

    void lostNodesWorkloadsArePlacedElsewhere()
    {
        QProcess* doomed = startFleet(3, QStringLiteral("doomed"));
        QVERIFY(waitFor([&] { return metric("tidepool_nodes{state=\"ready\"}") == 3; }, 15'000));
        json batch { { "workloads", json::array() } };
        for (int i = 0; i < 6; ++i)
            batch["workloads"].push_back(json { { "name", "w" + std::to_string(i) }, { "cpuMillis", 1000 }, { "memoryMiB", 512 } });
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/workloads", m_token, batch.dump()).status, 201);
        QVERIFY(waitFor([&] { return allPhases("running", 6); }, 10'000));
        startFleet(3, QStringLiteral("spare"));
        QVERIFY(waitFor([&] { return metric("tidepool_nodes{state=\"ready\"}") == 6; }, 15'000));

        doomed->kill(); // SIGKILL: no goodbye, only silence
        doomed->waitForFinished(5000);
        QVERIFY(waitFor([&] { return metric("tidepool_nodes{state=\"lost\"}") == 3; }, 10'000));
        QVERIFY(waitFor([&] { return allPhases("running", 6); }, 10'000));
        const json all = get("/v1/workloads");
        QCOMPARE(all["workloads"].size(), std::size_t { 6 });
        for (const json& w : all["workloads"])
            QVERIFY2(w["node"].get<std::string>().rfind("spare-", 0) == 0, w.dump().c_str());
        QCOMPARE(metric("tidepool_workloads_replaced_after_node_loss_total"), 6.0);
        QCOMPARE(metric("tidepool_launches_acknowledged_total"), 12.0);
    }

    void agentsReconnectToARestartedCore()
    {
        startFleet(8, QStringLiteral("r"));
        QVERIFY(waitFor([&] { return metric("tidepool_nodes{state=\"ready\"}") == 8; }, 15'000));
        json batch { { "workloads", json::array() } };
        for (int i = 0; i < 5; ++i)
            batch["workloads"].push_back(json { { "name", "keep" + std::to_string(i) }, { "cpuMillis", 1000 }, { "memoryMiB", 64 } });
        batch["workloads"].push_back(json { { "name", "too-big" }, { "cpuMillis", 100000000 }, { "memoryMiB", 64 } });
        QCOMPARE(request(m_apiPort, http::verb::post, "/v1/workloads", m_token, batch.dump()).status, 201);
        QVERIFY(waitFor([&] { return allPhases("running", 5); }, 10'000));
        const json before = get("/v1/workloads");
        const std::uint16_t agentPort = m_agentPort;
        m_daemon->terminate(); // SIGTERM: graceful
        QVERIFY(m_daemon->waitForFinished(5000));
        QCOMPARE(m_daemon->exitStatus(), QProcess::NormalExit);
        QCOMPARE(m_daemon->exitCode(), 0);
        QVERIFY(QString::fromUtf8(m_daemon->readAllStandardError()).contains(QStringLiteral("SIGTERM")));
        QVERIFY2(startDaemon(agentPort), qPrintable(m_daemonLog));
        // The restarted core knows its nodes and workloads from the database: nodes wait for their agents.
        QVERIFY2(m_daemonLog.contains(QStringLiteral("restored 1 pools, 8 nodes and 6 workloads")), qPrintable(m_daemonLog));
        // Back-off starts at 0.5 s with full jitter: every agent is back well within 15 s.
        QVERIFY(waitFor([&] { return metric("tidepool_nodes{state=\"ready\"}") == 8; }, 15'000));
        QCOMPARE(metric("tidepool_nodes{state=\"joining\"}") + metric("tidepool_nodes{state=\"lost\"}"), 0.0);
        // Every workload kept its id, node and phase, and none was launched again.
        QVERIFY(allPhases("running", 5));
        const json after = get("/v1/workloads");
        QCOMPARE(after["workloads"].size(), before["workloads"].size());
        for (std::size_t i = 0; i < after["workloads"].size(); ++i) {
            QCOMPARE(after["workloads"][i]["id"], before["workloads"][i]["id"]);
            QCOMPARE(after["workloads"][i]["phase"], before["workloads"][i]["phase"]);
            QCOMPARE(after["workloads"][i].value("node", ""), before["workloads"][i].value("node", ""));
        }
        QCOMPARE(metric("tidepool_launches_sent_total"), 0.0);
    }

    void fleetJoinsOverTls()
    {
        m_daemon->kill();
        m_daemon->waitForFinished(5000);
        QProcess make;
        make.start(QStringLiteral("bash"), { QStringLiteral(TIDEPOOL_SOURCE_DIR "/scripts/make-certs"), path(QStringLiteral("tls")),
                                               QStringLiteral("core.test") });
        QVERIFY(make.waitForFinished(30'000));
        QCOMPARE(make.exitCode(), 0);
        QVERIFY2(startDaemon(0, { QStringLiteral("--tls-cert"), path(QStringLiteral("tls/core.pem")), QStringLiteral("--tls-key"),
                                    path(QStringLiteral("tls/core.key")) }),
            qPrintable(m_daemonLog));
        startFleet(5, QStringLiteral("tls"), QStringLiteral("join.token"),
            { QStringLiteral("--tls-ca"), path(QStringLiteral("tls/ca.pem")) });
        QVERIFY(waitFor([&] { return metric("tidepool_nodes{state=\"ready\"}") == 5; }, 15'000));
        startFleet(2, QStringLiteral("plain")); // no TLS: refused at the handshake
        QVERIFY(waitFor([&] { return metric("tidepool_agent_tls_handshake_failures_total") >= 2; }, 10'000));
        QCOMPARE(metric("tidepool_nodes{state=\"ready\"}"), 5.0);
    }

    void readinessIsNotifiedOnlyOnceListening()
    {
        m_daemon->kill();
        m_daemon->waitForFinished(5000);
        // A systemd-style notification socket: tidepoold sends READY=1 to $NOTIFY_SOCKET once both listeners are bound.
        const std::string socketPath = path(QStringLiteral("notify.sock")).toStdString();
        const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        QVERIFY(fd >= 0);
        sockaddr_un address {};
        address.sun_family = AF_UNIX;
        std::snprintf(address.sun_path, sizeof address.sun_path, "%s", socketPath.c_str());
        ::unlink(socketPath.c_str());
        QCOMPARE(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
        qputenv("NOTIFY_SOCKET", QByteArray::fromStdString(socketPath));
        const bool started = startDaemon();
        qunsetenv("NOTIFY_SOCKET");
        QVERIFY2(started, qPrintable(m_daemonLog));
        char buffer[256] = {};
        const auto received = ::recv(fd, buffer, sizeof buffer - 1, MSG_DONTWAIT);
        QVERIFY2(received > 0, "no READY=1 on $NOTIFY_SOCKET");
        QCOMPARE(std::string(buffer, static_cast<std::size_t>(received)), std::string("READY=1"));
        // Ready meant ready: the API answers.
        QCOMPARE(request(m_apiPort, http::verb::get, "/healthz", {}).status, 200);
        m_daemon->terminate();
        QVERIFY(m_daemon->waitForFinished(5000));
        const auto stopping = ::recv(fd, buffer, sizeof buffer - 1, MSG_DONTWAIT);
        QCOMPARE(std::string(buffer, static_cast<std::size_t>(std::max<ssize_t>(0, stopping))), std::string("STOPPING=1"));
        ::close(fd);
    }

    void checkConfigValidatesAndNamesTheProblem()
    {
        QProcess check;
        const QStringList base { QStringLiteral("--join-token-file"), path(QStringLiteral("join.token")),
            QStringLiteral("--operator-token-file"), path(QStringLiteral("op.token")), QStringLiteral("--check-config") };
        check.start(kBin + QStringLiteral("/tidepoold"), base);
        QVERIFY(check.waitForFinished(5000));
        QCOMPARE(check.exitCode(), 0);

        writeFile(path(QStringLiteral("short.token")), "short\n");
        check.start(kBin + QStringLiteral("/tidepoold"),
            { QStringLiteral("--join-token-file"), path(QStringLiteral("short.token")), QStringLiteral("--operator-token-file"),
                path(QStringLiteral("op.token")), QStringLiteral("--check-config") });
        QVERIFY(check.waitForFinished(5000));
        QCOMPARE(check.exitCode(), 2);
        const QString shortError = QString::fromUtf8(check.readAllStandardError());
        QVERIFY2(shortError.contains(QStringLiteral("short.token")), qPrintable(shortError));
        QVERIFY(!shortError.contains(QStringLiteral("short\n")));

        writeFile(path(QStringLiteral("bad.json")), R"({"apiListen":"127.0.0.1:1","heartbeatIntervalMs":"fast"})");
        check.start(kBin + QStringLiteral("/tidepoold"), QStringList { QStringLiteral("--config"), path(QStringLiteral("bad.json")) } + base);
        QVERIFY(check.waitForFinished(5000));
        QCOMPARE(check.exitCode(), 2);
        const QString configError = QString::fromUtf8(check.readAllStandardError());
        QVERIFY2(configError.contains(QStringLiteral("`heartbeatIntervalMs`")), qPrintable(configError));

        writeFile(path(QStringLiteral("typo.json")), R"({"apiListn":"127.0.0.1:1"})");
        check.start(kBin + QStringLiteral("/tidepoold"), QStringList { QStringLiteral("--config"), path(QStringLiteral("typo.json")) } + base);
        QVERIFY(check.waitForFinished(5000));
        QCOMPARE(check.exitCode(), 2);
        QVERIFY(QString::fromUtf8(check.readAllStandardError()).contains(QStringLiteral("`apiListn`")));

        // The power hook must name a program that can run; its timeout a number in range.
        check.start(kBin + QStringLiteral("/tidepoold"),
            QStringList { QStringLiteral("--power-command"), path(QStringLiteral("no-such-ipmi-wrapper")) } + base);
        QVERIFY(check.waitForFinished(5000));
        QCOMPARE(check.exitCode(), 2);
        const QString powerError = QString::fromUtf8(check.readAllStandardError());
        QVERIFY2(powerError.contains(QStringLiteral("--power-command"))
                && powerError.contains(QStringLiteral("no-such-ipmi-wrapper is not an executable file")),
            qPrintable(powerError));
        check.start(kBin + QStringLiteral("/tidepoold"),
            QStringList { QStringLiteral("--power-command"), QStringLiteral("true"), QStringLiteral("--power-command-timeout-ms"),
                QStringLiteral("-5") }
                + base);
        QVERIFY(check.waitForFinished(5000));
        QCOMPARE(check.exitCode(), 2);
        QVERIFY(QString::fromUtf8(check.readAllStandardError()).contains(QStringLiteral("--power-command-timeout-ms")));
        check.start(kBin + QStringLiteral("/tidepoold"),
            QStringList { QStringLiteral("--power-command"), QStringLiteral("true") } + base);
        QVERIFY(check.waitForFinished(5000));
        QCOMPARE(check.exitCode(), 0); // a bare name is looked up in PATH
        // The drain window is a whole number of the evaluation's 5-minute steps, on the command line and in the file.
        check.start(kBin + QStringLiteral("/tidepoold"),
            QStringList { QStringLiteral("--drain-minutes"), QStringLiteral("30") } + base);
        QVERIFY(check.waitForFinished(5000));
        QCOMPARE(check.exitCode(), 0);
        check.start(kBin + QStringLiteral("/tidepoold"),
            QStringList { QStringLiteral("--drain-minutes"), QStringLiteral("7") } + base);
        QVERIFY(check.waitForFinished(5000));
        QCOMPARE(check.exitCode(), 2);
        const QString drainError = QString::fromUtf8(check.readAllStandardError());
        QVERIFY2(
            drainError.contains(QStringLiteral("--drain-minutes 7 is not a multiple of 5")), qPrintable(drainError));
        writeFile(path(QStringLiteral("drain.json")), R"({"drainMinutes":62})");
        check.start(kBin + QStringLiteral("/tidepoold"),
            QStringList { QStringLiteral("--config"), path(QStringLiteral("drain.json")) } + base);
        QVERIFY(check.waitForFinished(5000));
        QCOMPARE(check.exitCode(), 2);
        const QString drainFileError = QString::fromUtf8(check.readAllStandardError());
        QVERIFY2(drainFileError.contains(QStringLiteral("`drainMinutes` is 62, not a multiple of 5")),
            qPrintable(drainFileError));
        // `--check-config` with `args`: accepted, or refused with an error that names `named`.
        auto accepted = [&](const QStringList& args) {
            check.start(kBin + QStringLiteral("/tidepoold"), args + base);
            return check.waitForFinished(5000) && check.exitCode() == 0;
        };
        auto refusedNaming = [&](const QStringList& args, const QString& named) {
            check.start(kBin + QStringLiteral("/tidepoold"), args + base);
            const bool refused = check.waitForFinished(5000) && check.exitCode() == 2;
            const QString error = QString::fromUtf8(check.readAllStandardError());
            if (!refused || !error.contains(named))
                qWarning("not refused naming %s: %s", qPrintable(named), qPrintable(error));
            return refused && error.contains(named);
        };
        // The power-down limit per node and day: a count within 0–288 (a power-down every 5 minutes), named when not.
        QVERIFY(accepted({ QStringLiteral("--max-power-downs-per-day"), QStringLiteral("3") }));
        QVERIFY(refusedNaming({ QStringLiteral("--max-power-downs-per-day"), QStringLiteral("-1") },
            QStringLiteral("--max-power-downs-per-day")));
        writeFile(path(QStringLiteral("limit.json")), R"({"maxPowerDownsPerNodePerDay":1000})");
        QVERIFY(refusedNaming({ QStringLiteral("--config"), path(QStringLiteral("limit.json")) },
            QStringLiteral("maxPowerDownsPerNodePerDay")));
        // The planning headroom: whole percent, 0-200, on the command line and in the file; the value reaches the
        // evaluation, and the command line overrides the file.
        QVERIFY(accepted({ QStringLiteral("--headroom-percent"), QStringLiteral("10") }));
        QVERIFY(refusedNaming(
            { QStringLiteral("--headroom-percent"), QStringLiteral("250") }, QStringLiteral("--headroom-percent")));
        QVERIFY(refusedNaming(
            { QStringLiteral("--headroom-percent"), QStringLiteral("1.1") }, QStringLiteral("--headroom-percent")));
        writeFile(path(QStringLiteral("headroom.json")), R"({"headroomPercent":-5})");
        QVERIFY(refusedNaming(
            { QStringLiteral("--config"), path(QStringLiteral("headroom.json")) }, QStringLiteral("headroomPercent")));
        writeFile(path(QStringLiteral("headroom.json")), R"({"headroomPercent":35})");
        const std::string headroomFile = path(QStringLiteral("headroom.json")).toStdString();
        // The configuration `options` and the base arguments make, as tidepoold reads its command line.
        auto parsed = [&](const std::vector<const char*>& options) {
            std::vector<std::string> words { "tidepoold" };
            words.insert(words.end(), options.begin(), options.end());
            for (const QString& word : base)
                words.push_back(word.toStdString());
            std::vector<const char*> argv;
            for (const std::string& word : words)
                argv.push_back(word.c_str());
            auto config = tidepool::api::parseDaemonConfig(static_cast<int>(argv.size()), argv.data());
            if (!config)
                qWarning("refused: %s", config.error().message.c_str());
            return config;
        };
        auto headroom = [&](const std::vector<const char*>& options) {
            const auto config = parsed(options);
            return config ? config->rebalance.evaluator.headroom : -1.0;
        };
        QCOMPARE(headroom({}), tidepool::rebalance::EvaluatorConfig {}.headroom);
        QCOMPARE(headroom({ "--config", headroomFile.c_str() }), 1.35);
        QCOMPARE(headroom({ "--config", headroomFile.c_str(), "--headroom-percent", "0" }), 1.0);
        // Right-sizing's CPU percentile: 50-100 in the file (100: the peak), the VPA's 90 when not given.
        writeFile(path(QStringLiteral("percentile.json")), R"({"rightSizeCpuPercentile":95})");
        const std::string percentileFile = path(QStringLiteral("percentile.json")).toStdString();
        QCOMPARE(parsed({ "--config", percentileFile.c_str() })->rebalance.rightSize.cpuPercentile, 0.95);
        QCOMPARE(parsed({})->rebalance.rightSize.cpuPercentile, 0.9);
        writeFile(path(QStringLiteral("percentile.json")), R"({"rightSizeCpuPercentile":40})");
        QVERIFY(refusedNaming({ QStringLiteral("--config"), path(QStringLiteral("percentile.json")) },
            QStringLiteral("rightSizeCpuPercentile")));
        // The core's stop grace and restart back-off: within their ranges, from the file and the command line (which
        // overrides it), and a most below the first refused.
        writeFile(path(QStringLiteral("grace.json")),
            R"({"stopGraceMs":30000,"restartBackoffMs":2000,"restartBackoffMaxMs":60000})");
        const std::string graceFile = path(QStringLiteral("grace.json")).toStdString();
        const auto graceFromFile = parsed({ "--config", graceFile.c_str() });
        QVERIFY(graceFromFile);
        QCOMPARE(graceFromFile->plane.stopGraceMs, 30'000);
        QCOMPARE(graceFromFile->plane.restartBackoff.count(), std::int64_t { 2000 });
        QCOMPARE(graceFromFile->plane.restartBackoffMax.count(), std::int64_t { 60'000 });
        const auto graceOverridden = parsed({ "--config", graceFile.c_str(), "--stop-grace-ms", "0" });
        QVERIFY(graceOverridden);
        QCOMPARE(graceOverridden->plane.stopGraceMs, 0);
        QCOMPARE(parsed({})->plane.stopGraceMs, tidepool::api::ControlPlaneConfig {}.stopGraceMs);
        QVERIFY(refusedNaming(
            { QStringLiteral("--stop-grace-ms"), QStringLiteral("3600001") }, QStringLiteral("--stop-grace-ms")));
        QVERIFY(refusedNaming({ QStringLiteral("--restart-backoff-ms"), QStringLiteral("5000"),
                                  QStringLiteral("--restart-backoff-max-ms"), QStringLiteral("1000") },
            QStringLiteral("--restart-backoff-max-ms (1000) is below --restart-backoff-ms (5000)")));
        writeFile(path(QStringLiteral("grace.json")), R"({"stopGraceMs":-1})");
        QVERIFY(refusedNaming(
            { QStringLiteral("--config"), path(QStringLiteral("grace.json")) }, QStringLiteral("stopGraceMs")));
        // The PostgreSQL answer timeout: 1 s to an hour, on the command line and in the file.
        QVERIFY(accepted({ QStringLiteral("--pg-answer-timeout-ms"), QStringLiteral("5000") }));
        QVERIFY(refusedNaming({ QStringLiteral("--pg-answer-timeout-ms"), QStringLiteral("10") },
            QStringLiteral("--pg-answer-timeout-ms")));
        writeFile(path(QStringLiteral("pg.json")), R"({"postgresAnswerTimeoutMs":"soon"})");
        QVERIFY(refusedNaming({ QStringLiteral("--config"), path(QStringLiteral("pg.json")) },
            QStringLiteral("postgresAnswerTimeoutMs")));
        // The API server's limits: on the command line and in the file, each checked against its range and named
        // when not; the command line overrides the file.
        QVERIFY(accepted({ QStringLiteral("--api-max-connections"), QStringLiteral("64"),
            QStringLiteral("--api-body-timeout-ms"), QStringLiteral("5000") }));
        for (const auto& [option, value] :
            { std::pair { "--api-max-connections", "0" }, std::pair { "--api-max-body-bytes", "100" },
                std::pair { "--api-header-timeout-ms", "50" }, std::pair { "--api-body-timeout-ms", "soon" },
                std::pair { "--api-write-timeout-ms", "600001" }, std::pair { "--api-idle-timeout-ms", "-1" } })
            QVERIFY(refusedNaming({ QString::fromUtf8(option), QString::fromUtf8(value) },
                QStringLiteral("%1: \"%2\" must be a number")
                    .arg(QString::fromUtf8(option), QString::fromUtf8(value))));
        writeFile(path(QStringLiteral("api.json")), R"({"apiBodyTimeoutMs":20})");
        QVERIFY(refusedNaming({ QStringLiteral("--config"), path(QStringLiteral("api.json")) },
            QStringLiteral("field `apiBodyTimeoutMs` is 20; it must be 100 to 600000")));
        writeFile(path(QStringLiteral("api.json")), R"({"apiMaxConnections":"many"})");
        QVERIFY(refusedNaming(
            { QStringLiteral("--config"), path(QStringLiteral("api.json")) }, QStringLiteral("apiMaxConnections")));
        writeFile(path(QStringLiteral("api.json")),
            R"({"apiMaxConnections":64,"apiMaxBodyBytes":65536,"apiHeaderTimeoutMs":2000,"apiBodyTimeoutMs":3000,)"
            R"("apiWriteTimeoutMs":4000,"apiIdleTimeoutMs":5000})");
        const std::string apiFile = path(QStringLiteral("api.json")).toStdString();
        auto limits = [&](const std::vector<const char*>& options) {
            const auto config = parsed(options);
            return config ? config->apiLimits : tidepool::net::HttpServerConfig {};
        };
        const tidepool::net::HttpServerConfig defaults = limits({});
        QCOMPARE(defaults.bodyTimeout, std::chrono::milliseconds(10'000));
        QCOMPARE(defaults.maxConnections, std::size_t { 1024 });
        const tidepool::net::HttpServerConfig fromFile = limits({ "--config", apiFile.c_str() });
        QCOMPARE(fromFile.maxConnections, std::size_t { 64 });
        QCOMPARE(fromFile.maxBodyBytes, std::uint64_t { 65536 });
        QCOMPARE(fromFile.headerTimeout, std::chrono::milliseconds(2000));
        QCOMPARE(fromFile.bodyTimeout, std::chrono::milliseconds(3000));
        QCOMPARE(fromFile.writeTimeout, std::chrono::milliseconds(4000));
        QCOMPARE(fromFile.idleTimeout, std::chrono::milliseconds(5000));
        const tidepool::net::HttpServerConfig overridden
            = limits({ "--config", apiFile.c_str(), "--api-body-timeout-ms", "700", "--api-max-connections", "9" });
        QCOMPARE(overridden.bodyTimeout, std::chrono::milliseconds(700));
        QCOMPARE(overridden.maxConnections, std::size_t { 9 });
        QCOMPARE(overridden.idleTimeout, std::chrono::milliseconds(5000));
        // A connection cap beyond what the open-file limit leaves is accepted with a warning that names both (under a
        // hard limit of 200, lowered for the check alone); within it, no warning.
        const auto descriptorWarning = [&](const QString& connections) {
            check.start(QStringLiteral("/bin/sh"),
                QStringList { QStringLiteral("-c"), QStringLiteral("ulimit -n 200 && exec \"$0\" \"$@\""),
                    kBin + QStringLiteral("/tidepoold"), QStringLiteral("--api-max-connections"), connections }
                    + base);
            if (!check.waitForFinished(5000) || check.exitCode() != 0)
                return QStringLiteral("not accepted");
            return QString::fromUtf8(check.readAllStandardError());
        };
        const QString over = descriptorWarning(QStringLiteral("1024"));
        QVERIFY2(over.contains(QStringLiteral("--api-max-connections 1024 exceeds what the open-file limit of 200")),
            qPrintable(over));
        const QString within = descriptorWarning(QStringLiteral("100"));
        QVERIFY2(!within.contains(QStringLiteral("open-file")) && within != QStringLiteral("not accepted"),
            qPrintable(within));
        // A key given twice in the file is refused, naming it, rather than the last one silently winning.
        writeFile(path(QStringLiteral("twice.json")), R"({"apiMaxConnections":64,"apiMaxConnections":8})");
        QVERIFY(refusedNaming({ QStringLiteral("--config"), path(QStringLiteral("twice.json")) },
            QStringLiteral("field `apiMaxConnections` appears twice")));
        // How long closed proposals are kept: days, 0 = forever, in the file only.
        writeFile(path(QStringLiteral("keep.json")), R"({"proposalDays":30})");
        QVERIFY(accepted({ QStringLiteral("--config"), path(QStringLiteral("keep.json")) }));
        writeFile(path(QStringLiteral("keep.json")), R"({"proposalDays":-3})");
        QVERIFY(refusedNaming(
            { QStringLiteral("--config"), path(QStringLiteral("keep.json")) }, QStringLiteral("proposalDays")));
        check.start(kBin + QStringLiteral("/tidepoold"), { QStringLiteral("--help") });
        QVERIFY(check.waitForFinished(5000));
        QVERIFY(QString::fromUtf8(check.readAllStandardOutput()).contains(QStringLiteral("--power-command PROGRAM")));
    }
};

QTEST_GUILESS_MAIN(TestDaemon)
#include "tst_daemon.moc"
