// The control plane without sockets: agent events fed in directly, commands recorded from its `AgentLink`, time
// driven through `checkLiveness`. Covers registration and pools, launch and acknowledgement, reconciliation after a
// reconnect (launches resent, copies running elsewhere stopped, pending work re-adopted where it runs), liveness
// (suspect, lost, re-placed), duplicate node names, cancellation while a node is away, and incarnations: every relaunch
// of a workload (migrated on its node, requeued) carries a new one, and statuses of older ones are ignored.
#include "core/api/control_plane.h"
#include "core/api/workload_spec.h"

#include <QtTest>

#include <algorithm>
#include <set>

#include <boost/asio/io_context.hpp>

using namespace tidepool;
using namespace tidepool::api;

// States compared as their names, so that a failure prints them.
template <typename E> std::string name(E value)
{
    return std::string(tidepool::api::toString(value));
}

namespace {

struct Sent {
    std::string session;
    protocol::Message message;
};

// An agent from before protocol features.
protocol::Hello hello(const std::string& name)
{
    return protocol::Hello { name, "test", std::nullopt };
}

// An agent of this build, naming every feature it speaks.
protocol::Hello helloNamingFeatures(const std::string& name)
{
    protocol::Hello featured = hello(name);
    featured.features = protocol::knownFeatures();
    return featured;
}

protocol::Inventory inventory(std::vector<protocol::WorkloadStatus> workloads = {})
{
    protocol::Inventory inv;
    inv.isa = "x86_64";
    inv.cpuMillis = 4000;
    inv.memoryMiB = 8192;
    inv.workloads = std::move(workloads);
    return inv;
}

SubmitRequest request(const std::string& name, std::int64_t cpu = 1000)
{
    SubmitRequest r;
    r.name = name;
    r.requests.cpuMillis = cpu;
    r.requests.memoryMiB = 512;
    r.argv = { "/bin/sleep", "60" };
    return r;
}

protocol::WorkloadStatus status(
    WorkloadId id, const std::string& state, std::int32_t pid = 100, std::int32_t code = 0, std::int32_t incarnation = 0)
{
    return protocol::WorkloadStatus { id, state, pid, code, {}, incarnation };
}

} // namespace

class TestControlPlane : public QObject {
    Q_OBJECT

private:
    boost::asio::io_context m_io;
    std::vector<Sent> m_sent;
    std::vector<std::string> m_disconnected;
    std::vector<std::string> m_log;
    std::unique_ptr<ControlPlane> m_plane;
    Clock::time_point m_start;
    std::int64_t m_nowMs = 0; // the plane's wall clock when set; else the system's

    template <typename T> std::vector<T> sentOf(const std::string& session)
    {
        std::vector<T> out;
        for (const Sent& s : m_sent)
            if (s.session == session)
                if (const auto* m = std::get_if<T>(&s.message))
                    out.push_back(*m);
        return out;
    }

    // An agent from before protocol features joins, or (`joinNamingFeatures`) one of this build.
    void join(const std::string& session, const std::string& name, std::vector<protocol::WorkloadStatus> held = {})
    {
        m_plane->onJoined(session, "127.0.0.1:1", hello(name));
        m_plane->onInventory(session, inventory(std::move(held)));
    }
    void joinNamingFeatures(
        const std::string& session, const std::string& name, std::vector<protocol::WorkloadStatus> held = {})
    {
        m_plane->onJoined(session, "127.0.0.1:1", helloNamingFeatures(name));
        m_plane->onInventory(session, inventory(std::move(held)));
    }

    WorkloadId submit(const std::string& name, std::int64_t cpu = 1000)
    {
        auto id = m_plane->submit(request(name, cpu));
        if (!id)
            qFatal("submit failed: %s", id.error().message.c_str());
        return *id;
    }

    std::string nodeOf(WorkloadId id)
    {
        const LiveWorkload* w = m_plane->workload(id);
        return w && w->node != kNoNode ? m_plane->cluster().node(w->node).name : std::string();
    }

private slots:
    void cleanup()
    {
        // What the test's plane posted runs while it is there: a later test's poll must not run it on a plane gone.
        m_io.poll();
        m_io.restart();
        m_plane.reset();
    }

    void init()
    {
        m_sent.clear();
        m_disconnected.clear();
        m_log.clear();
        ControlPlaneConfig config;
        config.suspectAfter = std::chrono::milliseconds(1000);
        config.lostAfter = std::chrono::milliseconds(3000);
        config.logsTimeout = std::chrono::milliseconds(200);
        config.agentMaxFrameBytes = 256 * 1024;
        m_nowMs = 0;
        config.clock = [this] { return m_nowMs > 0 ? m_nowMs : unixMillis(); };
        AgentLink link {
            [this](const std::string& s, const protocol::Message& m) {
                m_sent.push_back({ s, m });
                return true;
            },
            [this](const std::string& s, const std::string&) {
                m_disconnected.push_back(s);
                return true;
            },
        };
        auto plane
            = ControlPlane::create(m_io, config, link, [this](std::string_view line) { m_log.emplace_back(line); });
        QVERIFY(plane);
        m_plane = std::move(*plane);
        m_start = Clock::now();
    }

    bool logMentions(std::string_view text) const
    {
        return std::any_of(
            m_log.begin(), m_log.end(), [&](const std::string& line) { return line.find(text) != std::string::npos; });
    }

    void nodeRegistersGetsPoolsAndTakesWork()
    {
        join("s1", "n1");
        QCOMPARE(name(m_plane->nodeByName("n1")->state), name(NodeState::Ready));
        // An agent from before protocol features is sent every pool at its join, as it always was.
        auto pools = sentOf<protocol::PoolConfig>("s1");
        QCOMPARE(pools.size(), std::size_t { 1 });
        QCOMPARE(pools[0].pools.size(), std::size_t { 1 });
        QCOMPARE(pools[0].pools.at(0).name, std::string("default"));
        QCOMPARE(pools[0].pools.at(0).cpuMillis, std::int64_t { 4000 }); // capped by the node

        const WorkloadId id = submit("w");
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Launching));
        QCOMPARE(sentOf<protocol::PoolConfig>("s1").size(), std::size_t { 1 }); // its pool was there already
        const auto launches = sentOf<protocol::Launch>("s1");
        QCOMPARE(launches.size(), std::size_t { 1 });
        QCOMPARE(launches[0].workloadId, id);
        QCOMPARE(launches[0].argv, (std::vector<std::string> { "/bin/sleep", "60" }));
        m_plane->onWorkloadUpdate("s1", status(id, "running", 4321));
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Running));
        QCOMPARE(m_plane->workload(id)->pid, 4321);
        QCOMPARE(m_plane->stats().acknowledged, std::uint64_t { 1 });

        m_plane->onWorkloadUpdate("s1", status(id, "oom_killed", 4321, 9));
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::OomKilled));
        QCOMPARE(m_plane->cluster().node(0).free.cpuMillis, std::int64_t { 4000 }); // released
    }

    // A submission's own memory limit reaches its launch and stays in what the store keeps of it; one below what it
    // asked for is refused naming both fields, before anything is placed.
    void aWorkloadsMemoryLimitGoesWithItsLaunch()
    {
        join("s1", "n1");
        const nlohmann::json body = { { "name", "capped" }, { "cpuMillis", 500 }, { "memoryMiB", 256 },
            { "memoryLimitMiB", 1024 }, { "cpuLimitMillis", 2000 }, { "command", { "/bin/sleep", "60" } } };
        auto parsed = api::parseNewSubmission(body);
        QVERIFY2(parsed, parsed ? "" : parsed.error().message.c_str());
        QCOMPARE(parsed->memoryLimitMiB, std::int64_t { 1024 });
        auto id = m_plane->submit(std::move(*parsed));
        QVERIFY(id);
        const auto launches = sentOf<protocol::Launch>("s1");
        QCOMPARE(launches.size(), std::size_t { 1 });
        QCOMPARE(launches[0].memoryMiB, std::int64_t { 256 });
        QCOMPARE(launches[0].memoryLimitMiB, std::int64_t { 1024 });
        QCOMPARE(launches[0].cpuLimitMillis, std::int64_t { 2000 });
        const nlohmann::json kept = api::submissionJson(*m_plane->workload(*id), m_plane->cluster());
        QCOMPARE(kept.value("memoryLimitMiB", std::int64_t { 0 }), std::int64_t { 1024 });
        auto restored = api::parseSubmitRequest(kept);
        QVERIFY(restored);
        QCOMPARE(restored->memoryLimitMiB, std::int64_t { 1024 });
        QCOMPARE(restored->cpuLimitMillis, std::int64_t { 2000 });

        // Without one, neither the launch nor the kept submission carries one.
        const WorkloadId plain = submit("plain");
        QCOMPARE(sentOf<protocol::Launch>("s1").back().memoryLimitMiB, std::int64_t { 0 });
        QCOMPARE(sentOf<protocol::Launch>("s1").back().cpuLimitMillis, std::int64_t { 0 });
        QVERIFY(!api::submissionJson(*m_plane->workload(plain), m_plane->cluster()).contains("memoryLimitMiB"));

        nlohmann::json below = body;
        below["memoryLimitMiB"] = 128;
        const auto refused = api::parseNewSubmission(below, "workloads[2]");
        QVERIFY(!refused);
        QCOMPARE(refused.error().status, 400);
        QVERIFY2(refused.error().message.find("`workloads[2].memoryLimitMiB` (128) must be at least "
                                              "`workloads[2].memoryMiB` (256)")
                != std::string::npos,
            refused.error().message.c_str());
        below["memoryLimitMiB"] = 0;
        QVERIFY(!api::parseNewSubmission(below));
        nlohmann::json slow = body;
        slow["cpuLimitMillis"] = 400;
        const auto slower = api::parseNewSubmission(slow);
        QVERIFY(!slower);
        QVERIFY2(slower.error().message.find("`cpuLimitMillis` (400) must be at least `cpuMillis` (500)")
                != std::string::npos,
            slower.error().message.c_str());
    }

    // An operator's read of a workload's output goes to the agent of the node it ran on, names its launch, and is
    // answered once: with the agent's answer, or with why there is none (no such workload, never placed, an agent
    // from before logs, its agent gone, no answer in time); an answer from another session or a late one is dropped.
    void logsAreAskedOfTheAgentThatHoldsThem()
    {
        std::vector<LogsAnswer> answers;
        const auto ask = [&](WorkloadId id, bool stderrStream = false) {
            m_plane->queryLogs(LogsQuery { id, stderrStream, 4096 }, [&](LogsAnswer a) { answers.push_back(a); });
        };
        ask(999);
        QCOMPARE(answers.back().status, 404);
        QVERIFY2(answers.back().error == "no workload has id 999", answers.back().error.c_str());

        const WorkloadId waiting = submit("early"); // no node yet
        ask(waiting);
        QCOMPARE(answers.back().status, 409);
        QVERIFY2(answers.back().error.find("on no node") != std::string::npos, answers.back().error.c_str());

        // An agent from before logs is not asked.
        join("old", "n-old");
        m_io.poll();
        QCOMPARE(nodeOf(waiting), std::string("n-old"));
        ask(waiting);
        QCOMPARE(answers.back().status, 503);
        QVERIFY2(
            answers.back().error.find("from before workload logs") != std::string::npos, answers.back().error.c_str());
        QVERIFY(sentOf<protocol::LogRequest>("old").empty());
        QVERIFY(m_plane->cancel(waiting));
        m_plane->onWorkloadUpdate("old", status(waiting, "killed", 100, 15));
        m_plane->onLeft("old", "switched off");

        // One from before following output is asked for the end, not from a position.
        protocol::Hello logsOnly = helloNamingFeatures("n-logs");
        std::erase(logsOnly.features, std::string(protocol::kFeatureLogFollow));
        m_plane->onJoined("logs", "127.0.0.1:1", logsOnly);
        m_plane->onInventory("logs", inventory({}));
        const WorkloadId read = submit("read");
        QCOMPARE(nodeOf(read), std::string("n-logs"));
        m_plane->queryLogs(LogsQuery { read, false, 4096, 100, -1 }, [&](LogsAnswer a) { answers.push_back(a); });
        QCOMPARE(answers.back().status, 503);
        QVERIFY2(answers.back().error.find("from before following output") != std::string::npos,
            answers.back().error.c_str());
        QVERIFY(sentOf<protocol::LogRequest>("logs").empty());
        ask(read);
        QCOMPARE(sentOf<protocol::LogRequest>("logs").size(), std::size_t { 1 });
        QCOMPARE(sentOf<protocol::LogRequest>("logs")[0].from, std::int64_t { -1 });
        m_plane->onLogReply(
            "logs", protocol::LogReply { sentOf<protocol::LogRequest>("logs")[0].requestId, "end\n", 4, false, {} });
        QCOMPARE(answers.back().status, 200);
        QVERIFY(m_plane->cancel(read));
        m_plane->onWorkloadUpdate("logs", status(read, "killed", 100, 15));
        m_plane->onLeft("logs", "switched off");

        joinNamingFeatures("s1", "n1");
        const WorkloadId id = submit("talker");
        QCOMPARE(nodeOf(id), std::string("n1"));
        ask(id, true);
        const std::size_t before = answers.size();
        auto requests = sentOf<protocol::LogRequest>("s1");
        QCOMPARE(requests.size(), std::size_t { 1 });
        QCOMPARE(requests[0].workloadId, id);
        QVERIFY(requests[0].stderrStream);
        QCOMPARE(requests[0].maxBytes, std::int64_t { 4096 });
        // However much is asked, no more than an answer in one of the core's frames (256 KiB here) can carry.
        m_plane->queryLogs(LogsQuery { id, false, protocol::kMaxLogBytes }, [](LogsAnswer) {});
        QCOMPARE(sentOf<protocol::LogRequest>("s1").back().maxBytes, std::int64_t { (256 * 1024 - 1024) / 3 });
        QCOMPARE(answers.size(), before); // waits for the agent
        // Another session's answer under its id is not this request's.
        m_plane->onLogReply("old", protocol::LogReply { requests[0].requestId, "forged\n", 7, false, {} });
        QCOMPARE(answers.size(), before);
        m_plane->onLogReply("s1", protocol::LogReply { requests[0].requestId, "hello\n", 6, false, {} });
        QCOMPARE(answers.size(), before + 1);
        QCOMPARE(answers.back().status, 200);
        QCOMPARE(answers.back().node, std::string("n1"));
        QCOMPARE(answers.back().reply.data, std::string("hello\n"));
        m_plane->onLogReply("s1", protocol::LogReply { requests[0].requestId, "again\n", 6, false, {} });
        QCOMPARE(answers.size(), before + 1); // answered once
        QCOMPARE(name(answers.back().phase), name(WorkloadPhase::Launching)); // its phase when asked

        // A follower's read goes on from a position in the launch it names; in another launch's stream that
        // position means nothing, and the current launch is read from its beginning.
        const auto follow = [&](std::int64_t from, std::int32_t incarnation) {
            m_plane->queryLogs(
                LogsQuery { id, false, 4096, from, incarnation }, [&](LogsAnswer a) { answers.push_back(a); });
            return sentOf<protocol::LogRequest>("s1").back();
        };
        QCOMPARE(follow(12'345, 0).from, std::int64_t { 12'345 });
        QCOMPARE(follow(12'345, -1).from, std::int64_t { 12'345 });
        QCOMPARE(follow(12'345, 3).from, std::int64_t { 0 });
        QCOMPARE(follow(-1, -1).from, std::int64_t { -1 }); // the end, as before
        const auto followed = sentOf<protocol::LogRequest>("s1");
        m_plane->onLogReply("s1",
            protocol::LogReply { followed[followed.size() - 4].requestId, "on\n", 70'000, true, {}, 12'345, 12'348 });
        QCOMPARE(answers.back().reply.start, std::int64_t { 12'345 });
        QCOMPARE(answers.back().reply.end, std::int64_t { 12'348 });
        for (std::size_t i = followed.size() - 3; i < followed.size(); ++i)
            m_plane->onLogReply("s1", protocol::LogReply { followed[i].requestId, {}, 0, false, "not held here" });

        // The agent holds nothing: a 404 with its words.
        ask(id);
        requests = sentOf<protocol::LogRequest>("s1");
        m_plane->onLogReply("s1", protocol::LogReply { requests.back().requestId, {}, 0, false, "not held here" });
        QCOMPARE(answers.back().status, 404);
        QVERIFY2(answers.back().error.find("not held here") != std::string::npos, answers.back().error.c_str());

        // No answer in time: 504, once; the late answer finds nobody waiting.
        ask(id);
        const std::int64_t late = sentOf<protocol::LogRequest>("s1").back().requestId;
        const std::size_t asked = answers.size();
        m_io.restart();
        m_io.run_for(std::chrono::milliseconds(500));
        QCOMPARE(answers.size(), asked + 1);
        QCOMPARE(answers.back().status, 504);
        m_plane->onLogReply("s1", protocol::LogReply { late, "late\n", 5, false, {} });
        QCOMPARE(answers.size(), asked + 1);

        // Its agent leaves before answering: 503 at once, and the timer that was set finds nothing to end.
        ask(id);
        m_plane->onLeft("s1", "connection reset");
        QCOMPARE(answers.back().status, 503);
        QVERIFY2(answers.back().error.find("left before answering (connection reset)") != std::string::npos,
            answers.back().error.c_str());
        const std::size_t left = answers.size();
        m_io.restart();
        m_io.run_for(std::chrono::milliseconds(300));
        QCOMPARE(answers.size(), left);
        // While it is away, nothing is asked.
        ask(id);
        QCOMPARE(answers.back().status, 503);
        QVERIFY2(answers.back().error.find("is not connected now") != std::string::npos, answers.back().error.c_str());
    }

    // A follower's read with `waitMs` is held at an agent that waits (log-wait): the request carries the wait and the
    // core waits that much longer for the answer. Held reads count apart (`kMaxLogFollows`), so that a crowd of
    // followers keeps no operator's read out; beyond them a follower is asked without waiting. A reader that goes
    // gives its place back (`abandonLogs`), and its agent's answer finds nobody. An agent from before waiting is asked
    // without it.
    void aFollowersReadWaitsAtTheAgent()
    {
        std::vector<LogsAnswer> answers;
        const auto collect = [&](LogsAnswer a) { answers.push_back(std::move(a)); };
        protocol::Hello noWait = helloNamingFeatures("n0");
        std::erase(noWait.features, std::string(protocol::kFeatureLogWait));
        m_plane->onJoined("s0", "127.0.0.1:1", noWait);
        m_plane->onInventory("s0", inventory({}));
        const WorkloadId quiet = submit("quiet");
        QCOMPARE(nodeOf(quiet), std::string("n0"));
        LogsQuery q { quiet, false, 4096, 100, -1 };
        q.waitMs = 300;
        QVERIFY(m_plane->queryLogs(q, collect) > 0);
        QCOMPARE(sentOf<protocol::LogRequest>("s0").back().waitMs, 0);
        m_plane->onLeft("s0", "switched off");
        QCOMPARE(answers.back().status, 503);

        joinNamingFeatures("s1", "n1");
        const WorkloadId id = submit("talker");
        QCOMPARE(nodeOf(id), std::string("n1"));
        q.workload = id;
        const std::size_t before = answers.size();
        const std::int64_t held = m_plane->queryLogs(q, collect);
        QCOMPARE(held, sentOf<protocol::LogRequest>("s1").back().requestId);
        QCOMPARE(sentOf<protocol::LogRequest>("s1").back().waitMs, 300);
        // Past `logsTimeout` (200 ms) but within the wait and it: still waiting; then a 504 that says so.
        m_io.restart();
        m_io.run_for(std::chrono::milliseconds(400));
        QCOMPARE(answers.size(), before);
        m_io.restart();
        m_io.run_for(std::chrono::milliseconds(300));
        QCOMPARE(answers.size(), before + 1);
        QCOMPARE(answers.back().status, 504);
        QVERIFY2(answers.back().error.find("within 200 ms after the read's wait") != std::string::npos,
            answers.back().error.c_str());
        // Answered with output as it comes.
        q.waitMs = 20'000;
        m_plane->queryLogs(q, collect);
        m_plane->onLogReply("s1",
            protocol::LogReply {
                sentOf<protocol::LogRequest>("s1").back().requestId, "line\n", 5, false, {}, 100, 105 });
        QCOMPARE(answers.back().status, 200);
        QCOMPARE(answers.back().reply.data, std::string("line\n"));
        QCOMPARE(m_plane->logReadsWaiting(), std::size_t { 0 });

        // A crowd of followers: each held; the next one is asked without waiting, and an operator's read still goes.
        std::vector<std::int64_t> crowd;
        for (std::size_t i = 0; i < ControlPlane::kMaxLogFollows; ++i)
            crowd.push_back(m_plane->queryLogs(q, collect));
        QCOMPARE(sentOf<protocol::LogRequest>("s1").back().waitMs, 20'000);
        const std::int64_t beyond = m_plane->queryLogs(q, collect);
        QCOMPARE(sentOf<protocol::LogRequest>("s1").back().waitMs, 0);
        const std::int64_t plain = m_plane->queryLogs(LogsQuery { id, false, 4096 }, collect);
        QVERIFY(beyond > 0 && plain > 0);
        QCOMPARE(answers.size(), before + 2); // none refused: all wait for the agent
        // They go: their places are free, the next follower is held again, and their answers find nobody.
        for (const std::int64_t r : crowd)
            m_plane->abandonLogs(r);
        QCOMPARE(m_plane->logReadsWaiting(), std::size_t { 2 });
        QCOMPARE(m_plane->stats().logReadsAbandoned, std::uint64_t { ControlPlane::kMaxLogFollows });
        m_plane->queryLogs(q, collect);
        QCOMPARE(sentOf<protocol::LogRequest>("s1").back().waitMs, 20'000);
        m_plane->onLogReply("s1", protocol::LogReply { crowd.front(), "late\n", 5, false, {}, 105, 110 });
        QCOMPARE(answers.size(), before + 2);
        m_plane->abandonLogs(crowd.front()); // twice: nothing more
        QCOMPARE(m_plane->stats().logReadsAbandoned, std::uint64_t { ControlPlane::kMaxLogFollows });
    }

    void exitCodesBecomePhases()
    {
        join("s1", "n1");
        const WorkloadId ok = submit("ok");
        const WorkloadId bad = submit("bad");
        const WorkloadId broken = submit("broken");
        m_plane->onWorkloadUpdate("s1", status(ok, "exited", 1, 0));
        m_plane->onWorkloadUpdate("s1", status(bad, "exited", 1, 3));
        m_plane->onWorkloadUpdate("s1", status(broken, "failed", 0, 0));
        QCOMPARE(name(m_plane->workload(ok)->phase), name(WorkloadPhase::Succeeded));
        QCOMPARE(name(m_plane->workload(bad)->phase), name(WorkloadPhase::Failed));
        QCOMPARE(m_plane->workload(bad)->exitCode, 3);
        QCOMPARE(name(m_plane->workload(broken)->phase), name(WorkloadPhase::Failed));
    }

    // Restart policies: on-failure starts a workload again after a failed launch, always also after a clean exit,
    // after a back-off that doubles in a crash loop; at most `maxRestarts` times; never after a cancel. Each restart
    // is a new launch, and the one before it stays readable.
    void restartPoliciesStartEndedWorkloadsAgain()
    {
        joinNamingFeatures("s1", "n1");
        m_nowMs = 1'000'000'000'000;
        const auto submitWith = [&](const std::string& n, RestartPolicy policy, std::int32_t most) {
            SubmitRequest r = request(n, 500);
            r.restart = policy;
            r.maxRestarts = most;
            return *m_plane->submit(r);
        };
        const WorkloadId crashy = submitWith("crashy", RestartPolicy::OnFailure, 2);
        const WorkloadId clean = submitWith("clean", RestartPolicy::OnFailure, -1);
        const WorkloadId always = submitWith("always", RestartPolicy::Always, -1);
        const WorkloadId once = submit("once", 500); // never
        const auto launches = [&] {
            std::vector<std::int32_t> incarnations;
            for (const protocol::Launch& l : sentOf<protocol::Launch>("s1"))
                if (l.workloadId == crashy)
                    incarnations.push_back(l.incarnation);
            return incarnations;
        };
        QCOMPARE(launches(), std::vector<std::int32_t> { 0 });

        // Ran, then exited 3: back in the queue for a restart in a second, off its node, a new incarnation.
        m_plane->onWorkloadUpdate("s1", status(crashy, "running", 10));
        m_nowMs += 100;
        m_plane->onWorkloadUpdate("s1", status(crashy, "exited", 10, 3));
        const LiveWorkload* w = m_plane->workload(crashy);
        QCOMPARE(name(w->phase), name(WorkloadPhase::Pending));
        QCOMPARE(w->node, kNoNode);
        QCOMPARE(w->restarts, 1);
        QCOMPARE(w->exitCode, 3);
        QCOMPARE(w->restartAtMs, m_nowMs + 1000);
        QCOMPARE(w->incarnation, 1);
        QCOMPARE(m_plane->cluster().node(w->previousNode).name, std::string("n1"));
        QCOMPARE(w->previousIncarnation, 0);
        QVERIFY2(w->detail.find("exited with code 3; restart 1 of at most 2 (restart on-failure) after 1000 ms") == 0,
            w->detail.c_str());
        // What it held is free again (4000 millicores; 1500 held by the other three).
        QCOMPARE(m_plane->cluster().node(m_plane->nodeByName("n1")->id).free.cpuMillis, std::int64_t { 2500 });
        // Not before its time.
        m_plane->releaseRestarts(m_nowMs + 999);
        m_io.poll();
        m_io.restart();
        QCOMPARE(name(w->phase), name(WorkloadPhase::Pending));
        QCOMPARE(launches(), std::vector<std::int32_t> { 0 });
        m_nowMs += 1000;
        m_plane->releaseRestarts(m_nowMs);
        m_io.poll();
        m_io.restart();
        QCOMPARE(name(w->phase), name(WorkloadPhase::Launching));
        QCOMPARE(launches(), (std::vector<std::int32_t> { 0, 1 }));
        QCOMPARE(w->restartAtMs, std::int64_t { 0 });
        // A status of the launch before is no news of this one.
        m_plane->onWorkloadUpdate("s1", status(crashy, "exited", 10, 3, 0));
        QCOMPARE(name(w->phase), name(WorkloadPhase::Launching));
        QCOMPARE(w->restarts, 1);

        // Could not start, twice in a row: the back-off doubles, and after the second restart it stays failed.
        m_plane->onWorkloadUpdate("s1", status(crashy, "failed", 0, 0, 1));
        QCOMPARE(name(w->phase), name(WorkloadPhase::Pending));
        QCOMPARE(w->restarts, 2);
        QCOMPARE(w->restartAtMs, m_nowMs + 2000);
        QCOMPARE(w->previousIncarnation, 1);
        m_nowMs += 2000;
        m_plane->releaseRestarts(m_nowMs);
        m_io.poll();
        m_io.restart();
        QCOMPARE(launches(), (std::vector<std::int32_t> { 0, 1, 2 }));
        m_plane->onWorkloadUpdate("s1", status(crashy, "exited", 11, 4, 2));
        QCOMPARE(name(w->phase), name(WorkloadPhase::Failed));
        QCOMPARE(w->exitCode, 4);
        QCOMPARE(w->restarts, 2);
        QVERIFY2(w->detail
                == "exited with code 4; not restarted again: it has had all the restarts it may have (maxRestarts 2)",
            w->detail.c_str());
        QCOMPARE(m_plane->cluster().node(w->node).name, std::string("n1")); // where it ran last, as any ended one

        // on-failure after exit 0: done. never: ended as before.
        m_plane->onWorkloadUpdate("s1", status(clean, "exited", 12, 0));
        QCOMPARE(name(m_plane->workload(clean)->phase), name(WorkloadPhase::Succeeded));
        m_plane->onWorkloadUpdate("s1", status(once, "exited", 13, 3));
        QCOMPARE(name(m_plane->workload(once)->phase), name(WorkloadPhase::Failed));
        QCOMPARE(m_plane->workload(once)->restarts, 0);

        // always: also after exit 0, and killed by a signal. Cancelled while it waits for its restart: it stays so.
        m_plane->onWorkloadUpdate("s1", status(always, "exited", 14, 0));
        QCOMPARE(name(m_plane->workload(always)->phase), name(WorkloadPhase::Pending));
        const std::int64_t due = m_plane->workload(always)->restartAtMs;
        QVERIFY(m_plane->cancel(always));
        QCOMPARE(name(m_plane->workload(always)->phase), name(WorkloadPhase::Cancelled));
        m_plane->releaseRestarts(due);
        m_io.poll();
        m_io.restart();
        QCOMPARE(name(m_plane->workload(always)->phase), name(WorkloadPhase::Cancelled));
        QCOMPARE(m_plane->stats().restarts, std::uint64_t { 3 });
    }

    // The back-off doubles while launches end soon after starting (1, 2, 4 s), up to its most, and starts over after
    // a launch that ran longer than `restartResetAfter` (10 minutes).
    // A restart goes back where the launch ran when that node still takes it (its data and caches are there), though
    // the policies would pick another node (here n1: equal scores, the first node); a node that no longer takes it
    // (cordoned), or a launch that could not start there, sends it through the queue to another.
    void aRestartIsPlacedWhereItsLastLaunchRan()
    {
        joinNamingFeatures("s1", "n1");
        joinNamingFeatures("s2", "n2");
        m_nowMs = 1'000'000'000'000;
        SubmitRequest r = request("cache-warm", 500);
        r.restart = RestartPolicy::OnFailure;
        const WorkloadId id = *m_plane->submit(r);
        if (nodeOf(id) != "n2")
            QVERIFY(m_plane->move(id, MoveTarget { "n2", Tier::Invalid, {} }, "operator:test").moved());
        const auto crash = [&](const std::string& session) {
            const LiveWorkload* w = m_plane->workload(id);
            m_plane->onWorkloadUpdate(session, status(id, "running", 10, 0, w->incarnation));
            m_nowMs += 100;
            m_plane->onWorkloadUpdate(session, status(id, "exited", 10, 1, w->incarnation));
            QCOMPARE(name(w->phase), name(WorkloadPhase::Pending));
            m_nowMs = w->restartAtMs;
            m_plane->releaseRestarts(m_nowMs);
            m_io.poll();
            m_io.restart();
        };
        crash("s2");
        const LiveWorkload* w = m_plane->workload(id);
        QCOMPARE(name(w->phase), name(WorkloadPhase::Launching));
        QCOMPARE(nodeOf(id), std::string("n2"));
        QVERIFY2(
            w->detail == "restarted on node n2, where its last launch ran (restart 1; that launch: exited with code 1)",
            w->detail.c_str());
        QCOMPARE(sentOf<protocol::Launch>("s2").back().incarnation, w->incarnation);

        // n2 cordoned: the next restart goes through the queue, to n1.
        QVERIFY(m_plane->operatorCordon("n2", "disk", "operator:alice"));
        crash("s2");
        QCOMPARE(name(w->phase), name(WorkloadPhase::Launching));
        QCOMPARE(nodeOf(id), std::string("n1"));
        QVERIFY2(!w->detail.starts_with("restarted on node"), w->detail.c_str());

        // A launch that could not start on n2 (what it runs is not there) is not restarted there again.
        QVERIFY(m_plane->operatorUncordon("n2", "operator:alice"));
        QVERIFY(m_plane->move(id, MoveTarget { "n2", Tier::Invalid, {} }, "operator:test").moved());
        m_plane->onWorkloadUpdate("s2", status(id, "failed", 0, 0, w->incarnation));
        QCOMPARE(name(w->phase), name(WorkloadPhase::Pending));
        m_nowMs = w->restartAtMs;
        m_plane->releaseRestarts(m_nowMs);
        m_io.poll();
        m_io.restart();
        QCOMPARE(name(w->phase), name(WorkloadPhase::Launching));
        QCOMPARE(nodeOf(id), std::string("n1"));
    }

    // A workload's own stop grace (SIGTERM → SIGKILL) goes with each stop of it; one without gets the core's. One that
    // handles the SIGTERM and exits by itself is cancelled all the same (its restart policy does not start it again).
    // The grace is part of the submission kept in the store, read back as it was; out of range it is refused.
    void aStopCarriesTheWorkloadsOwnGrace()
    {
        join("s1", "n1");
        SubmitRequest r = request("saver", 500);
        r.stopGraceMs = 2500;
        r.restart = RestartPolicy::Always;
        const WorkloadId saver = *m_plane->submit(r);
        const WorkloadId plain = submit("plain", 500);
        for (const WorkloadId id : { saver, plain }) {
            m_plane->onWorkloadUpdate("s1", status(id, "running", 10));
            QVERIFY(m_plane->cancel(id));
        }
        std::map<WorkloadId, std::int32_t> grace;
        for (const protocol::Stop& stop : sentOf<protocol::Stop>("s1"))
            grace[stop.workloadId] = stop.graceMs;
        QCOMPARE(grace.at(saver), 2500);
        QCOMPARE(grace.at(plain), 10'000); // ControlPlaneConfig::stopGraceMs
        // The saver handles SIGTERM and exits 0 by itself: still a cancel, not a success, and not restarted.
        m_plane->onWorkloadUpdate("s1", status(saver, "exited", 10, 0));
        QCOMPARE(name(m_plane->workload(saver)->phase), name(WorkloadPhase::Cancelled));
        QCOMPARE(m_plane->workload(saver)->detail, std::string("stopped on request; it exited with code 0"));

        const nlohmann::json spec = submissionJson(*m_plane->workload(saver), m_plane->cluster());
        QCOMPARE(spec.value("stopGraceMs", -1), 2500);
        QVERIFY(!submissionJson(*m_plane->workload(plain), m_plane->cluster()).contains("stopGraceMs"));
        const auto again = parseSubmitRequest(spec);
        QVERIFY2(again, again ? "" : again.error().message.c_str());
        QCOMPARE(again->stopGraceMs, 2500);
        nlohmann::json tooLong = spec;
        tooLong["stopGraceMs"] = kMaxStopGraceMs + 1;
        const auto refused = parseSubmitRequest(tooLong);
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.find("stopGraceMs") != std::string::npos, refused.error().message.c_str());
    }

    void aCrashLoopBacksOffAndALongRunStartsItOver()
    {
        joinNamingFeatures("s1", "n1");
        m_nowMs = 1'000'000'000'000;
        SubmitRequest r = request("service", 500);
        r.restart = RestartPolicy::Always;
        const WorkloadId id = *m_plane->submit(r);
        const LiveWorkload* w = m_plane->workload(id);
        const auto runAndEnd = [&](std::int64_t ranMs) {
            m_plane->onWorkloadUpdate("s1", status(id, "running", 10, 0, w->incarnation));
            m_nowMs += ranMs;
            m_plane->onWorkloadUpdate("s1", status(id, "killed", 10, 9, w->incarnation));
            const std::int64_t backoff = w->restartAtMs - m_nowMs;
            m_nowMs = w->restartAtMs;
            m_plane->releaseRestarts(m_nowMs);
            m_io.poll();
            m_io.restart();
            return backoff;
        };
        QCOMPARE(runAndEnd(50), std::int64_t { 1000 });
        QCOMPARE(runAndEnd(50), std::int64_t { 2000 });
        QCOMPARE(runAndEnd(50), std::int64_t { 4000 });
        for (int i = 0; i < 10; ++i)
            runAndEnd(50);
        QCOMPARE(runAndEnd(50), std::int64_t { 300'000 }); // at most five minutes
        QCOMPARE(runAndEnd(601'000), std::int64_t { 1000 });
        QCOMPARE(runAndEnd(50), std::int64_t { 2000 });
        QCOMPARE(w->restarts, 16);
        QCOMPARE(w->incarnation, 16);
        QVERIFY2(w->detail.starts_with("restarted on node n1, where its last launch ran (restart 16; that launch: "
                                       "killed by signal 9)"),
            w->detail.c_str()); // placed again, where it ran
        QCOMPARE(name(w->phase), name(WorkloadPhase::Launching));
    }

    // A launch that runs past its maximum runtime is stopped and fails, whatever its restart policy; each launch's
    // limit counts from when that launch was seen running; one on a node that is away fails at once and is stopped
    // there on its return. (`away` has no restart policy: stopped at 60 s with `endless`.)
    void aLaunchPastItsMaximumRuntimeIsStoppedAndFails()
    {
        joinNamingFeatures("s1", "n1");
        joinNamingFeatures("s2", "n2");
        m_nowMs = 1'000'000'000'000;
        const std::int64_t t0 = m_nowMs;
        const auto submitLimited = [&](const std::string& n, RestartPolicy policy) {
            SubmitRequest r = request(n, 500);
            r.maxRuntimeMs = 60'000;
            r.restart = policy;
            return *m_plane->submit(r);
        };
        const WorkloadId endless = submitLimited("endless", RestartPolicy::Always);
        const WorkloadId crashy = submitLimited("crashy", RestartPolicy::OnFailure);
        const WorkloadId away = submitLimited("away", RestartPolicy::Never);
        for (const WorkloadId id : { endless, crashy, away })
            m_plane->onWorkloadUpdate(nodeOf(id) == "n1" ? "s1" : "s2", status(id, "running", 10));
        const auto onN1 = [&](WorkloadId id) { return nodeOf(id) == "n1"; };
        const std::string endlessSession = onN1(endless) ? "s1" : "s2";

        // crashy fails at 30 s and is restarted; its new launch runs from 31 s.
        m_nowMs = t0 + 30'000;
        m_plane->onWorkloadUpdate(onN1(crashy) ? "s1" : "s2", status(crashy, "exited", 10, 3));
        m_nowMs = t0 + 31'000;
        m_plane->releaseRestarts(m_nowMs);
        m_io.poll();
        m_io.restart();
        QCOMPARE(m_plane->workload(crashy)->incarnation, 1);
        m_plane->onWorkloadUpdate(onN1(crashy) ? "s1" : "s2", status(crashy, "running", 11, 0, 1));

        m_plane->enforceRuntimeLimits(t0 + 59'999);
        QCOMPARE(name(m_plane->workload(endless)->phase), name(WorkloadPhase::Running));
        m_nowMs = t0 + 60'000;
        m_plane->enforceRuntimeLimits(m_nowMs);
        const LiveWorkload* w = m_plane->workload(endless);
        QCOMPARE(name(w->phase), name(WorkloadPhase::Stopping));
        QVERIFY2(w->detail == "stopping: ran past its maximum runtime of 60000 ms", w->detail.c_str());
        std::vector<protocol::Stop> stops;
        for (const protocol::Stop& stop : sentOf<protocol::Stop>(endlessSession))
            if (stop.workloadId == endless)
                stops.push_back(stop);
        QCOMPARE(stops.size(), std::size_t { 1 });
        QCOMPARE(stops.back().incarnation, std::optional<std::int32_t>(0));
        // Its limit counts from its own launch: crashy's second launch runs on.
        QCOMPARE(name(m_plane->workload(crashy)->phase), name(WorkloadPhase::Running));
        QCOMPARE(name(m_plane->workload(away)->phase), name(WorkloadPhase::Stopping));
        // Stopped: it failed, and its restart policy does not start it again.
        m_plane->onWorkloadUpdate(endlessSession, status(endless, "killed", 10, 15));
        QCOMPARE(name(w->phase), name(WorkloadPhase::Failed));
        QVERIFY2(w->detail == "stopped: ran past its maximum runtime of 60000 ms", w->detail.c_str());
        QCOMPARE(w->restarts, 0);
        QCOMPARE(w->restartAtMs, std::int64_t { 0 });

        // crashy's second launch at 91 s; its node away by then: failed at once, stopped on its return.
        const std::string crashySession = onN1(crashy) ? "s1" : "s2";
        m_plane->onLeft(crashySession, "connection reset");
        m_nowMs = t0 + 91'000;
        m_plane->enforceRuntimeLimits(m_nowMs);
        const LiveWorkload* c = m_plane->workload(crashy);
        QCOMPARE(name(c->phase), name(WorkloadPhase::Failed));
        QVERIFY2(c->detail.find("ran past its maximum runtime of 60000 ms; its node was unreachable") == 0,
            c->detail.c_str());
        QCOMPARE(m_plane->stats().overran, std::uint64_t { 3 }); // endless, away (its limit passed at 60 s), crashy
    }

    // The launch before the current one is read on the node it ran on, by its incarnation; a read of the current
    // launch while it waits for its restart says where the previous one is.
    void thePreviousLaunchsOutputIsRead()
    {
        joinNamingFeatures("s1", "n1");
        SubmitRequest r = request("crashy", 500);
        r.restart = RestartPolicy::OnFailure;
        const WorkloadId id = *m_plane->submit(r);
        std::vector<LogsAnswer> answers;
        const auto ask = [&](bool previous) {
            LogsQuery q { id, false, 4096 };
            q.previous = previous;
            m_plane->queryLogs(q, [&](LogsAnswer a) { answers.push_back(a); });
        };
        ask(true);
        QCOMPARE(answers.back().status, 404);
        QVERIFY2(answers.back().error
                == "workload " + std::to_string(id) + " has had no launch before its current one (incarnation 0)",
            answers.back().error.c_str());
        m_plane->onWorkloadUpdate("s1", status(id, "exited", 10, 3));
        ask(false);
        QCOMPARE(answers.back().status, 409);
        QVERIFY2(answers.back().error.find("its previous launch (incarnation 0, on node n1) is read with previous=1")
                != std::string::npos,
            answers.back().error.c_str());
        const std::size_t before = answers.size();
        ask(true);
        QCOMPARE(answers.size(), before); // asked of n1's agent
        const protocol::LogRequest sent = sentOf<protocol::LogRequest>("s1").back();
        QCOMPARE(sent.incarnation, 0);
        QCOMPARE(sent.workloadId, id);
        m_plane->onLogReply("s1", protocol::LogReply { sent.requestId, "boom\n", 5, false, {} });
        QCOMPARE(answers.back().status, 200);
        QCOMPARE(answers.back().incarnation, 0);
        QCOMPARE(answers.back().node, std::string("n1"));
        QCOMPARE(answers.back().reply.data, std::string("boom\n"));
        // Not followed: it has ended.
        LogsQuery following { id, false, 4096, 0, 0 };
        following.previous = true;
        m_plane->queryLogs(following, [&](LogsAnswer a) { answers.push_back(a); });
        QCOMPARE(answers.back().status, 400);
    }

    void pendingWorkWaitsAndIsPlacedWhenCapacityFrees()
    {
        join("s1", "n1");
        const WorkloadId big = submit("big", 4000);
        const WorkloadId next = submit("next", 1000);
        QCOMPARE(name(m_plane->workload(next)->phase), name(WorkloadPhase::Pending));
        QVERIFY(m_plane->why(*m_plane->workload(next)).find("insufficient CPU") != std::string::npos);
        m_plane->onWorkloadUpdate("s1", status(big, "exited", 1, 0));
        m_io.poll(); // the posted retry
        m_io.restart();
        QCOMPARE(name(m_plane->workload(next)->phase), name(WorkloadPhase::Launching));
    }

    // A plane destroyed before its io_context ran the retry it had posted is not touched by it (the daemon stops its io
    // first, but an embedding console or a test's fixture may not): the handler runs and does nothing.
    void aPlaneGoneBeforeItsIoRunsWhatItPostedIsNotTouched()
    {
        join("s1", "n1");
        const WorkloadId big = submit("big", 4000);
        submit("next", 1000); // waits: the retry is posted when the big one ends
        m_plane->onWorkloadUpdate("s1", status(big, "exited", 1, 0));
        const std::size_t launches = sentOf<protocol::Launch>("s1").size();
        m_plane.reset();
        QCOMPARE(m_io.poll(), std::size_t { 1 }); // the retry, a no-op now (was a use after free)
        m_io.restart();
        QCOMPARE(sentOf<protocol::Launch>("s1").size(), launches); // it placed nothing
    }

    void aRetryPassTriesEachShapeOnce()
    {
        join("s1", "n1");
        const WorkloadId blocker = submit("blocker", 4000);
        for (int i = 0; i < 200; ++i)
            submit("big-" + std::to_string(i), 3000); // each waits: the node has no room
        const WorkloadId small = submit("small", 500);
        QCOMPARE(m_plane->phaseCounts()[static_cast<std::size_t>(WorkloadPhase::Pending)], std::size_t { 201 });
        // The blocker ends: one pass places one big workload (3000 of 4000 millicores), tries the big shape once
        // more and skips the other 198, then places the small one behind them.
        const auto failuresBefore = m_plane->stats().placementFailures;
        m_plane->onWorkloadUpdate("s1", status(blocker, "exited", 1, 0));
        m_io.poll();
        m_io.restart();
        QCOMPARE(m_plane->stats().placementFailures - failuresBefore, std::uint64_t { 1 });
        QCOMPARE(m_plane->phaseCounts()[static_cast<std::size_t>(WorkloadPhase::Pending)], std::size_t { 199 });
        QCOMPARE(name(m_plane->workload(small)->phase), name(WorkloadPhase::Launching));
    }

    // A workload waiting for its pool's quota does not hold up later work that has room (it waited for the next change
    // of capacity, nodes idle): later work is tried after it, in a pass of its own, and a shape known to fail at the
    // capacity there is is not tried again. A preempted workload that fits elsewhere goes there at once.
    void workWaitingForItsQuotaDoesNotHoldUpTheRest()
    {
        join("s1", "n1"); // 4000 millicores
        PoolRequest small;
        small.name = "small";
        small.cpuMillis = 500;
        QVERIFY(m_plane->createPool(small));
        SubmitRequest a = request("a", 400);
        a.pool = "small";
        SubmitRequest b = a;
        b.name = "b";
        const WorkloadId first = *m_plane->submit(a);
        const WorkloadId held = *m_plane->submit(b);
        QCOMPARE(name(m_plane->workload(first)->phase), name(WorkloadPhase::Launching));
        QCOMPARE(name(m_plane->workload(held)->phase), name(WorkloadPhase::Pending));
        QVERIFY(m_plane->why(*m_plane->workload(held)).find("pool small quota") != std::string::npos);

        const WorkloadId later = submit("later", 100);
        QVERIFY(m_plane->why(*m_plane->workload(later)).find("queued behind") != std::string::npos);
        m_io.poll(); // the pass it posted: `held` is tried first and fails again, then `later` is placed
        m_io.restart();
        QCOMPARE(name(m_plane->workload(later)->phase), name(WorkloadPhase::Launching));
        QCOMPARE(name(m_plane->workload(held)->phase), name(WorkloadPhase::Pending));
        // Another arrival: `held`'s shape is known to fail at this capacity and is not tried again.
        const auto failures = m_plane->stats().placementFailures;
        const WorkloadId another = submit("another", 100);
        m_io.poll();
        m_io.restart();
        QCOMPARE(name(m_plane->workload(another)->phase), name(WorkloadPhase::Launching));
        QCOMPARE(m_plane->stats().placementFailures, failures);
        // Capacity frees (`first` ends): the pool's quota has room, and `held` is placed.
        m_plane->onWorkloadUpdate("s1", status(first, "exited", 1, 0));
        m_io.poll();
        m_io.restart();
        QCOMPARE(name(m_plane->workload(held)->phase), name(WorkloadPhase::Launching));

        // Preemption: a victim that fits on another node goes there in the pass the preemption posts, not at the
        // next change of capacity. `urgent` runs natively on x86 only, so it can only take n1, from `low`; `low` runs
        // anywhere, and an aarch64 node has room.
        for (const WorkloadId id : { held, later, another })
            m_plane->onWorkloadUpdate("s1", status(id, "exited", 1, 0));
        m_io.poll();
        m_io.restart();
        const WorkloadId low = submit("low", 3000);
        QCOMPARE(nodeOf(low), std::string("n1"));
        m_plane->onJoined("s2", "127.0.0.1:2", hello("n2"));
        protocol::Inventory arm = inventory();
        arm.isa = "aarch64";
        m_plane->onInventory("s2", arm);
        m_io.poll();
        m_io.restart();
        SubmitRequest urgent = request("urgent", 3000);
        urgent.priority = 100;
        urgent.nativeIsas = isaBit(Isa::X86_64);
        const WorkloadId high = *m_plane->submit(urgent);
        QCOMPARE(nodeOf(high), std::string("n1"));
        const std::string whyHigh = m_plane->why(*m_plane->workload(high));
        QVERIFY2(whyHigh.find("placed on n1 by preempting workload " + std::to_string(low)
                     + " (priority 0); without preempting, 0/2 nodes feasible")
                != std::string::npos,
            whyHigh.c_str());
        QCOMPARE(name(m_plane->workload(low)->phase), name(WorkloadPhase::Pending));
        m_io.poll();
        m_io.restart();
        QCOMPARE(name(m_plane->workload(low)->phase), name(WorkloadPhase::Launching));
        QCOMPARE(nodeOf(low), std::string("n2"));
    }

    void reconnectResendsUnreceivedLaunches()
    {
        join("s1", "n1");
        const WorkloadId acked = submit("acked");
        const WorkloadId unacked = submit("unacked");
        m_plane->onWorkloadUpdate("s1", status(acked, "running"));
        m_plane->onLeft("s1", "connection reset");
        m_sent.clear();
        // The agent comes back holding only the acknowledged one: the other launch never reached it.
        join("s2", "n1", { status(acked, "running") });
        const auto launches = sentOf<protocol::Launch>("s2");
        QCOMPARE(launches.size(), std::size_t { 1 });
        QCOMPARE(launches[0].workloadId, unacked);
        QCOMPARE(name(m_plane->workload(acked)->phase), name(WorkloadPhase::Running));
        QCOMPARE(m_plane->nodes().size(), std::size_t { 1 }); // the same node, not a second one
    }

    // At most `launchWindow` launches are in flight to a node: a burst onto one node goes as the agent answers, so
    // that its connection's queue never overflows (a batch of 5,000 tiny workloads on one node closed its session,
    // and every rejoin sent them all again). A rejoin forgets what was in flight and sends again what did not arrive,
    // within the window too.
    void launchesToOneNodeGoAsTheAgentAnswers()
    {
        join("s1", "n1");
        std::vector<WorkloadId> ids;
        for (int i = 0; i < 300; ++i) {
            SubmitRequest tiny = request("tiny-" + std::to_string(i), 10);
            tiny.requests.memoryMiB = 1;
            ids.push_back(*m_plane->submit(tiny));
        }
        const std::size_t window = ControlPlaneConfig {}.launchWindow;
        QCOMPARE(sentOf<protocol::Launch>("s1").size(), window);
        for (const WorkloadId id : ids)
            QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Launching)); // placed, all of them
        // Each answer lets one more go, in the order they were placed; a repeated answer lets none.
        m_plane->onWorkloadUpdate("s1", status(ids[0], "running"));
        m_plane->onWorkloadUpdate("s1", status(ids[0], "running"));
        auto launches = sentOf<protocol::Launch>("s1");
        QCOMPARE(launches.size(), window + 1);
        QCOMPARE(launches.back().workloadId, ids[window]);
        // One waiting is cancelled meanwhile: it ends at once (nothing runs to stop) and is skipped, not launched.
        QVERIFY(m_plane->cancel(ids[window + 1]));
        QCOMPARE(name(m_plane->workload(ids[window + 1])->phase), name(WorkloadPhase::Cancelled));
        QCOMPARE(sentOf<protocol::Stop>("s1").size(), std::size_t { 0 });
        m_plane->onWorkloadUpdate("s1", status(ids[1], "failed", 0, 1));
        launches = sentOf<protocol::Launch>("s1");
        QCOMPARE(launches.size(), window + 2);
        QCOMPARE(launches.back().workloadId, ids[window + 2]);
        // The agent comes back holding the first launches, running: what it lacks goes again, within the window.
        m_plane->onLeft("s1", "connection reset");
        std::vector<protocol::WorkloadStatus> held;
        for (std::size_t i = 0; i < 100; ++i)
            if (i != 1) // ended
                held.push_back(status(ids[i], "running"));
        join("s2", "n1", held);
        launches = sentOf<protocol::Launch>("s2");
        QCOMPARE(launches.size(), window);
        for (const protocol::Launch& l : launches)
            QVERIFY(l.workloadId >= ids[100]);
        // Answering every launch as it comes sends the rest, each once.
        std::set<WorkloadId> launched;
        for (std::size_t answered = 0; answered < sentOf<protocol::Launch>("s2").size(); ++answered) {
            const protocol::Launch l = sentOf<protocol::Launch>("s2")[answered];
            QVERIFY(launched.insert(l.workloadId).second);
            m_plane->onWorkloadUpdate("s2", status(l.workloadId, "running"));
        }
        QCOMPARE(launched.size(), std::size_t { 300 - 100 - 1 }); // less the cancelled one
        for (const WorkloadId id : ids)
            if (id != ids[window + 1] && id != ids[1])
                QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Running));
    }

    // An agent keeps the records of the workloads it ran for a day. A core whose database was replaced numbers
    // workloads from 1 again: an id an agent reports and the core does not know is not given to a new workload, whose
    // launch the agent would take for the record's.
    void anIdAnAgentHoldsIsNotGivenToANewWorkload()
    {
        join("s1", "n1", { status(12, "running", 55), status(7, "succeeded") });
        QCOMPARE(submit("after-running"), WorkloadId { 13 });
        join("s2", "n2", { status(20, "succeeded") }); // a finished record counts as well
        QCOMPARE(submit("after-finished"), WorkloadId { 21 });
        join("s3", "n3", { status(3, "failed") }); // below the next id: nothing changes
        QCOMPARE(submit("next"), WorkloadId { 22 });
    }

    // An id far beyond those the core gave out (up to 2^53 on the wire) is not taken into its numbering: logged,
    // naming the node and the id, and ignored. Within `adoptedIdMargin` of its own highest id it still is.
    void aFarOffIdAnAgentReportsIsNotAdopted()
    {
        const WorkloadId margin = ControlPlaneConfig {}.adoptedIdMargin;
        join("s1", "n1", { status(protocol::kMaxWorkloadId, "running", 55), status(margin + 1, "exited") });
        QVERIFY(logMentions("node n1 reports workload " + std::to_string(protocol::kMaxWorkloadId)));
        QVERIFY(logMentions("node n1 reports workload " + std::to_string(margin + 1)));
        QCOMPARE(m_plane->stats().foreignIdsIgnored, std::uint64_t { 2 });
        QCOMPARE(submit("first"), WorkloadId { 1 });
        // The margin is counted from the highest id the core gave out itself, 1 now.
        join("s2", "n2", { status(margin + 1, "exited") });
        QCOMPARE(submit("past-it"), margin + 2);
        // The margin counts from the highest id the core gave out itself (margin + 2 now), not from one it adopted.
        join("s3", "n3", { status(margin + 2 + margin + 1, "exited") });
        QCOMPARE(m_plane->stats().foreignIdsIgnored, std::uint64_t { 3 });
        QCOMPARE(submit("next"), margin + 3);
    }

    // A pending workload launched before (its node lost) is taken back on a node joining for the first time that runs
    // it: the node is bound to at once, before it is marked ready.
    void aPendingWorkloadIsReadoptedOnANodeNewToTheCore()
    {
        join("s1", "n1");
        const WorkloadId id = submit("w");
        m_plane->onWorkloadUpdate("s1", status(id, "running", 77));
        m_plane->checkLiveness(Clock::now() + std::chrono::milliseconds(3500));
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Pending));
        join("s2", "n2", { status(id, "running", 88) });
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Running));
        QCOMPARE(nodeOf(id), std::string("n2"));
        QCOMPARE(m_plane->workload(id)->pid, 88);
        const WorkloadId next = submit("next", 500); // the scheduler's index still places work, on n2
        QCOMPARE(name(m_plane->workload(next)->phase), name(WorkloadPhase::Launching));
        QCOMPARE(nodeOf(next), std::string("n2"));
    }

    // A workload submitted before any node joined was never launched: an agent that then joins running a workload
    // under its id (one of a core whose database this one lacks) runs another workload, which is neither taken for
    // this one nor stopped.
    void aPendingWorkloadNeverLaunchedIsNotTakenForWhatRunsUnderItsId()
    {
        const WorkloadId id = submit("new");
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Pending)); // no nodes yet
        join("s1", "n1", { status(id, "running", 77) });
        QVERIFY(m_plane->workload(id)->pid != 77);
        QVERIFY(m_plane->workload(id)->phase != WorkloadPhase::Running);
        QVERIFY(sentOf<protocol::Stop>("s1").empty());
        QCOMPARE(m_plane->stats().foreignWorkloadsLeftAlone, std::uint64_t { 1 });
        QVERIFY(
            logMentions("node n1 runs workload " + std::to_string(id) + ", an id this core gave to a workload (new)"));
        // The agent would refuse its launch beside the other one: it waits for another node, saying why.
        m_io.poll();
        m_io.restart();
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Pending));
        QVERIFY(sentOf<protocol::Launch>("s1").empty());
        QVERIFY2(m_plane->workload(id)->detail.find("its id held there by another workload") != std::string::npos,
            m_plane->workload(id)->detail.c_str());
        join("s2", "n2");
        m_io.poll();
        m_io.restart();
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Launching));
        QCOMPARE(nodeOf(id), std::string("n2"));
        m_plane->onWorkloadUpdate("s2", status(id, "running", 78));
        // Placed and running on n2, it still has no copy on n1 to stop: the other workload is left alone, counted once.
        m_plane->onWorkloadUpdate("s1", status(id, "running", 77));
        m_plane->onLeft("s1", "network");
        join("s3", "n1", { status(id, "running", 77) });
        QVERIFY(sentOf<protocol::Stop>("s1").empty());
        QVERIFY(sentOf<protocol::Stop>("s3").empty());
        QCOMPARE(m_plane->stats().foreignWorkloadsLeftAlone, std::uint64_t { 1 });
        QCOMPARE(m_plane->stats().duplicateStops, std::uint64_t { 0 });
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Running));
    }

    // A node whose agent shapes its link (its inventory gives the rate) has that much network, and the pools it is sent
    // carry each pool's guaranteed rate there: what the pool's workloads placed on it asked for, sent again at the next
    // heartbeat whenever that changes. A node that does not shape is sent no rates and counts as unlimited.
    void aShapedNodeGuaranteesEachPoolWhatItsWorkloadsAskedFor()
    {
        // The guarantee the agent was last told for the pool, by a pools message or a launch carrying the pool; -1:
        // nothing sent yet, -2: the last pools message left the pool out.
        const auto rateOf = [this](const std::string& session, const std::string& pool) -> std::int64_t {
            std::int64_t rate = -1;
            for (const Sent& sent : m_sent) {
                if (sent.session != session)
                    continue;
                if (const auto* config = std::get_if<protocol::PoolConfig>(&sent.message)) {
                    rate = -2;
                    for (const protocol::PoolLimits& p : config->pools)
                        if (p.name == pool)
                            rate = p.netMbps;
                } else if (const auto* launch = std::get_if<protocol::Launch>(&sent.message);
                           launch && launch->poolLimits && launch->poolLimits->name == pool) {
                    rate = launch->poolLimits->netMbps;
                }
            }
            return rate;
        };
        const protocol::Hello featured = helloNamingFeatures("n1");
        m_plane->onJoined("s1", "127.0.0.1:1", featured);
        protocol::Inventory shaped = inventory();
        shaped.netMbps = 1000;
        m_plane->onInventory("s1", shaped);
        const NodeId n1 = m_plane->nodeByName("n1")->id;
        QCOMPARE(m_plane->cluster().node(n1).capacity.netBandwidthMbps, std::int64_t { 1000 });
        SubmitRequest streaming = request("stream", 500);
        streaming.requests.netBandwidthMbps = 600;
        const WorkloadId id = *m_plane->submit(streaming);
        QCOMPARE(nodeOf(id), std::string("n1"));
        const std::string pool = m_plane->workload(id)->poolName;
        // The pool went with the launch, the stream's guarantee in it; heartbeats then send nothing while it holds.
        QCOMPARE(rateOf("s1", pool), std::int64_t { 600 });
        const std::size_t sentBefore = sentOf<protocol::PoolConfig>("s1").size();
        m_plane->onHeartbeat("s1", protocol::Heartbeat { 1, {} });
        m_plane->onHeartbeat("s1", protocol::Heartbeat { 2, {} });
        QCOMPARE(sentOf<protocol::PoolConfig>("s1").size(), sentBefore);
        // No more than the link: a second stream waits, saying why.
        SubmitRequest second = streaming;
        second.name = "stream-2";
        const WorkloadId waiting = *m_plane->submit(second);
        QCOMPARE(name(m_plane->workload(waiting)->phase), name(WorkloadPhase::Pending));
        QVERIFY2(m_plane->workload(waiting)->detail.find("insufficient network bandwidth") != std::string::npos,
            m_plane->workload(waiting)->detail.c_str());
        // A node that does not shape: unlimited, and no rates in its pools (an agent from before shaping refuses them).
        join("s2", "n2");
        m_io.poll();
        m_io.restart();
        QCOMPARE(nodeOf(waiting), std::string("n2"));
        m_plane->onHeartbeat("s2", protocol::Heartbeat { 1, {} });
        QCOMPARE(rateOf("s2", pool), std::int64_t { 0 });
        // The agent comes back with a slower link than the stream holds: nothing more goes there, and capacity comes
        // down to the link once the stream ends.
        m_plane->onLeft("s1", "restart");
        m_plane->onJoined("s3", "127.0.0.1:1", featured);
        shaped.netMbps = 400;
        shaped.workloads = { status(id, "running") };
        m_plane->onInventory("s3", shaped);
        QCOMPARE(m_plane->cluster().node(n1).capacity.netBandwidthMbps, std::int64_t { 600 });
        QCOMPARE(m_plane->cluster().node(n1).free.netBandwidthMbps, std::int64_t { 0 });
        QVERIFY(logMentions("shapes its link at 400 Mbit/s, less than the 600 Mbit/s its workloads are guaranteed"));
        QVERIFY(m_plane->cluster().checkInvariants());
        // The stream ends: its pool, in use there no more, is left out of the next message (the agent drops its class
        // and the guarantee with it), and the capacity comes down to the link.
        QCOMPARE(rateOf("s3", pool), std::int64_t { 600 });
        QVERIFY(m_plane->cancel(id));
        m_plane->onWorkloadUpdate("s3", status(id, "stopped"));
        m_plane->onHeartbeat("s3", protocol::Heartbeat { 3, {} });
        QCOMPARE(rateOf("s3", pool), std::int64_t { -2 });
        QVERIFY(sentOf<protocol::PoolConfig>("s3").back().pools.empty());
        QCOMPARE(m_plane->cluster().node(n1).capacity.netBandwidthMbps, std::int64_t { 400 });
        QCOMPARE(m_plane->cluster().node(n1).free.netBandwidthMbps, std::int64_t { 400 });
    }

    // One kept off a node does not keep the others of its shape waiting; once the other workload under its id ends,
    // the node takes it.
    void aNodeTakesAPendingWorkloadOnceTheOtherUnderItsIdEnds()
    {
        const WorkloadId id = submit("new");
        const WorkloadId same = submit("same-shape"); // tried after it in the same pass
        join("s1", "n1", { status(id, "running", 77) });
        m_io.poll();
        m_io.restart();
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Pending));
        QCOMPARE(name(m_plane->workload(same)->phase), name(WorkloadPhase::Launching));
        m_plane->onWorkloadUpdate("s1", status(id, "exited", 77));
        m_io.poll();
        m_io.restart();
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Launching));
        QCOMPARE(nodeOf(id), std::string("n1"));
        QCOMPARE(sentOf<protocol::Launch>("s1").size(), std::size_t { 2 });
    }

    // Every stop names the launch it means: a cancel, a preemption, a copy placed elsewhere now.
    void everyStopNamesItsIncarnation()
    {
        join("s1", "n1");
        const WorkloadId id = submit("w");
        m_plane->onWorkloadUpdate("s1", status(id, "running"));
        QVERIFY(m_plane->migrate(id, "n1", -1, "n1", -1)); // now incarnation 1
        m_plane->onWorkloadUpdate("s1", status(id, "running", 101, 0, 1));
        QVERIFY(m_plane->cancel(id));
        const auto stops = sentOf<protocol::Stop>("s1");
        QCOMPARE(stops.size(), std::size_t { 2 });
        QCOMPARE(stops[0].incarnation, std::optional<std::int32_t>(0));
        QCOMPARE(stops[1].incarnation, std::optional<std::int32_t>(1));
    }

    // At most `stopWindow` stops are in flight to a node: a reconnect that stops thousands at once (cancelled while the
    // node was away) would overrun its connection's queue. Each answer (the copy's end, or the agent saying it holds
    // nothing to stop) lets one more go; a `running` status is no answer; a stop already on its way is not sent again;
    // one never answered leaves the window after `stopAnswerTimeout`.
    void stopsToOneNodeGoAsTheAgentAnswers()
    {
        join("s1", "n1");
        std::vector<WorkloadId> ids;
        std::vector<protocol::WorkloadStatus> held;
        for (int i = 0; i < 300; ++i) {
            SubmitRequest tiny = request("tiny-" + std::to_string(i), 10);
            tiny.requests.memoryMiB = 1;
            ids.push_back(*m_plane->submit(tiny));
            held.push_back(status(ids.back(), "running"));
        }
        m_plane->onLeft("s1", "network");
        for (const WorkloadId id : ids)
            QVERIFY(m_plane->cancel(id));
        m_sent.clear();
        join("s2", "n1", held);
        const std::size_t window = ControlPlaneConfig {}.stopWindow;
        QCOMPARE(sentOf<protocol::Stop>("s2").size(), window);
        m_plane->onWorkloadUpdate("s2", status(ids[0], "running")); // older news: no answer
        QCOMPARE(sentOf<protocol::Stop>("s2").size(), window);
        m_plane->onWorkloadUpdate("s2", status(ids[0], "stopped"));
        m_plane->onWorkloadUpdate("s2", status(ids[0], "stopped")); // a repeated answer lets none go
        auto stops = sentOf<protocol::Stop>("s2");
        QCOMPARE(stops.size(), window + 1);
        QCOMPARE(stops.back().workloadId, ids[window]);
        m_plane->onWorkloadUpdate("s2", status(ids[1], "lost"));
        QCOMPARE(sentOf<protocol::Stop>("s2").size(), window + 2);
        // Answering each as it comes sends the rest, each once.
        std::set<WorkloadId> stopped;
        for (std::size_t answered = 0; answered < sentOf<protocol::Stop>("s2").size(); ++answered) {
            const protocol::Stop stop = sentOf<protocol::Stop>("s2")[answered];
            QVERIFY(stopped.insert(stop.workloadId).second);
            QCOMPARE(stop.incarnation, std::optional<std::int32_t>(0));
            m_plane->onWorkloadUpdate("s2", status(stop.workloadId, "stopped"));
        }
        QCOMPARE(stopped.size(), ids.size());
        QCOMPARE(m_plane->stats().stopsSent, std::uint64_t { 300 });

        // An agent that never answers (from before stops were answered) does not wedge the window.
        m_plane->onLeft("s2", "network");
        m_sent.clear();
        join("s3", "n1", held);
        QCOMPARE(sentOf<protocol::Stop>("s3").size(), window);
        m_plane->checkLiveness(Clock::now() + ControlPlaneConfig {}.stopAnswerTimeout + std::chrono::seconds(1));
        QCOMPARE(sentOf<protocol::Stop>("s3").size(), 2 * window);
        QCOMPARE(m_plane->stats().stopsUnanswered, std::uint64_t { window });
    }

    // A node powered down by a proposal goes off, not lost, when its agent leaves or falls silent; lifting the cordon
    // (a power-up) makes it booting, which takes no work until its agent is back; one whose agent never comes back is
    // declared lost after the boot timeout.
    void poweredDownNodeIsOffAndBootsWhenPoweredUp()
    {
        join("s1", "n1");
        join("s2", "n2");
        join("s3", "n3");
        // An operator's cordon is not a power-down: its agent leaving makes it suspect (no new work goes to a node
        // that cannot be told to run it), and liveness decides whether it is lost.
        QVERIFY(m_plane->setCordon("n3", "maintenance"));
        m_plane->onLeft("s3", "connection closed");
        QCOMPARE(name(m_plane->nodeByName("n3")->state), name(NodeState::Suspect));
        // n1 holds a workload when it is cordoned for power-down: it is not off while it holds it.
        const WorkloadId id = submit("w", 4000);
        QCOMPARE(nodeOf(id), std::string("n1"));
        QVERIFY(m_plane->setCordon("n1", std::string(kPowerDownCordon) + " by proposal"));
        m_plane->onLeft("s1", "connection closed");
        QCOMPARE(name(m_plane->nodeByName("n1")->state), name(NodeState::Suspect));
        join("s1b", "n1", { status(id, "running") });
        QCOMPARE(name(m_plane->nodeByName("n1")->state), name(NodeState::Ready));
        m_plane->onWorkloadUpdate("s1b", status(id, "exited", 100, 0));
        QVERIFY(m_plane->cluster().node(m_plane->nodeByName("n1")->id).residents.empty());
        m_plane->onLeft("s1b", "switched off");
        QCOMPARE(name(m_plane->nodeByName("n1")->state), name(NodeState::Off));

        // n2 is switched off without its agent saying goodbye: silent, it is off rather than suspect and lost.
        QVERIFY(m_plane->setCordon("n2", std::string(kPowerDownCordon) + " by proposal"));
        m_plane->checkLiveness(Clock::now() + std::chrono::milliseconds(1500));
        QCOMPARE(name(m_plane->nodeByName("n2")->state), name(NodeState::Off));
        QCOMPARE(name(m_plane->nodeByName("n3")->state), name(NodeState::Suspect)); // the operator's cordon
        m_plane->checkLiveness(Clock::now() + std::chrono::milliseconds(10'000));
        QCOMPARE(name(m_plane->nodeByName("n1")->state), name(NodeState::Off));
        QCOMPARE(name(m_plane->nodeByName("n2")->state), name(NodeState::Off));
        QCOMPARE(name(m_plane->nodeByName("n3")->state), name(NodeState::Lost));
        QCOMPARE(m_plane->stats().nodesLost, std::uint64_t { 1 }); // n3 only

        // Power-up: booting, taking no work; its agent back: ready, and the waiting work lands.
        QVERIFY(m_plane->setCordon("n1", ""));
        QCOMPARE(name(m_plane->nodeByName("n1")->state), name(NodeState::Booting));
        const WorkloadId waiting = submit("waiting", 2000);
        QCOMPARE(name(m_plane->workload(waiting)->phase), name(WorkloadPhase::Pending));
        join("s1c", "n1");
        m_io.poll();
        m_io.restart();
        QCOMPARE(name(m_plane->nodeByName("n1")->state), name(NodeState::Ready));
        QCOMPARE(nodeOf(waiting), std::string("n1"));

        // A power-up rolled back leaves the node off; one whose agent never comes back is lost after the timeout.
        QVERIFY(m_plane->setCordon("n2", ""));
        QCOMPARE(name(m_plane->nodeByName("n2")->state), name(NodeState::Booting));
        QVERIFY(m_plane->setCordon("n2", std::string(kPowerDownCordon) + " (restored by a rollback)"));
        QCOMPARE(name(m_plane->nodeByName("n2")->state), name(NodeState::Off));
        QVERIFY(m_plane->setCordon("n2", ""));
        const auto timeout = m_plane->config().bootTimeout;
        m_plane->checkLiveness(Clock::now() + timeout - std::chrono::seconds(5));
        QCOMPARE(name(m_plane->nodeByName("n2")->state), name(NodeState::Booting));
        m_plane->checkLiveness(Clock::now() + timeout + std::chrono::seconds(1));
        QCOMPARE(name(m_plane->nodeByName("n2")->state), name(NodeState::Lost));
        QCOMPARE(m_plane->stats().nodesLost, std::uint64_t { 3 }); // and n1, ready and silent that long
        m_io.poll(); // what the plane posted runs before the next test replaces it
        m_io.restart();
    }

    void lostNodeIsReplacedAndItsCopyStoppedOnReturn()
    {
        join("s1", "n1");
        const WorkloadId id = submit("w");
        m_plane->onWorkloadUpdate("s1", status(id, "running"));
        join("s2", "n2");
        // n2 heartbeats, n1 falls silent.
        m_plane->checkLiveness(Clock::now() + std::chrono::milliseconds(1500));
        QCOMPARE(name(m_plane->nodeByName("n1")->state), name(NodeState::Suspect));
        QCOMPARE(name(m_plane->nodeByName("n2")->state), name(NodeState::Suspect));
        m_plane->onHeartbeat("s2", protocol::Heartbeat { 1, {} }); // a heartbeat clears suspicion at once
        QCOMPARE(name(m_plane->nodeByName("n2")->state), name(NodeState::Ready));
        QCOMPARE(nodeOf(id), std::string("n1")); // suspect is not lost: the workload stays
        m_plane->checkLiveness(Clock::now() + std::chrono::milliseconds(3500));
        QCOMPARE(name(m_plane->nodeByName("n1")->state), name(NodeState::Lost));
        QCOMPARE(m_plane->stats().replacedAfterLoss, std::uint64_t { 1 });
        m_io.poll();
        m_io.restart();
        // n2 was declared lost as well at +3.5 s in this clock, so bring it back first.
        m_plane->onHeartbeat("s2", protocol::Heartbeat { 2, {} });
        join("s2b", "n2");
        m_io.poll();
        m_io.restart();
        QCOMPARE(nodeOf(id), std::string("n2"));

        // n1 returns, still running its copy: that copy is stopped, n2's stays.
        m_sent.clear();
        join("s3", "n1", { status(id, "running") });
        const auto stops = sentOf<protocol::Stop>("s3");
        QCOMPARE(stops.size(), std::size_t { 1 });
        QCOMPARE(stops[0].workloadId, id);
        QCOMPARE(m_plane->stats().duplicateStops, std::uint64_t { 1 });
        QCOMPARE(nodeOf(id), std::string("n2"));
    }

    // A move within one node (what consolidating GPUs of a node does): stopped and launched again with the same id
    // and a new incarnation; the stopped copy's end is no news of the new one.
    void aRelaunchOnTheSameNodeIsANewIncarnation()
    {
        join("s1", "n1");
        const WorkloadId id = submit("w");
        QCOMPARE(sentOf<protocol::Launch>("s1").back().incarnation, 0);
        m_plane->onWorkloadUpdate("s1", status(id, "running", 10));
        m_sent.clear();
        QVERIFY(m_plane->migrate(id, "n1", -1, "n1", -1));
        QCOMPARE(m_sent.size(), std::size_t { 2 });
        const auto* stop = std::get_if<protocol::Stop>(&m_sent[0].message);
        QVERIFY(stop); // first the old copy: the launch it is, never every incarnation the agent holds
        QCOMPARE(stop->incarnation, std::optional<std::int32_t>(0));
        const auto* relaunch = std::get_if<protocol::Launch>(&m_sent[1].message);
        QVERIFY(relaunch);
        QCOMPARE(relaunch->workloadId, id);
        QCOMPARE(relaunch->incarnation, 1);
        QCOMPARE(m_plane->workload(id)->incarnation, 1);

        // The old copy ends by the stop: stale, the workload is still being launched.
        m_plane->onWorkloadUpdate("s1", status(id, "killed", 0, 15, 0));
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Launching));
        m_plane->onWorkloadUpdate("s1", status(id, "running", 11, 0, 1));
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Running));
        QCOMPARE(m_plane->workload(id)->pid, 11);
        m_plane->onWorkloadUpdate("s1", status(id, "exited", 0, 0, 0));
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Running));

        // Its agent loses track of it: requeued, and its next launch (here again) is incarnation 2.
        m_sent.clear();
        m_plane->onWorkloadUpdate("s1", status(id, "lost", 0, 0, 1));
        m_io.poll();
        m_io.restart();
        const auto launches = sentOf<protocol::Launch>("s1");
        QCOMPARE(launches.size(), std::size_t { 1 });
        QCOMPARE(launches[0].incarnation, 2);
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Launching));
    }

    // Moved just before its node went away (the stop and the launch never reached it): on return the node still runs
    // the old incarnation. That copy alone is stopped and the current one is launched.
    void reconnectStopsAnOlderIncarnationAndLaunchesTheCurrent()
    {
        join("s1", "n1");
        const WorkloadId id = submit("w");
        m_plane->onWorkloadUpdate("s1", status(id, "running", 10));
        QVERIFY(m_plane->migrate(id, "n1", -1, "n1", -1));
        m_plane->onLeft("s1", "connection reset"); // before the stop and the launch reached the agent
        m_sent.clear();
        join("s2", "n1", { status(id, "running", 10, 0, 0) });
        const auto stops = sentOf<protocol::Stop>("s2");
        QCOMPARE(stops.size(), std::size_t { 1 });
        QCOMPARE(stops[0].incarnation, std::optional<std::int32_t>(0));
        const auto launches = sentOf<protocol::Launch>("s2");
        QCOMPARE(launches.size(), std::size_t { 1 });
        QCOMPARE(launches[0].incarnation, 1);
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Launching));
        QCOMPARE(m_plane->stats().duplicateStops, std::uint64_t { 1 });

        // Once both are reported, the current one counts and nothing is sent again.
        m_sent.clear();
        m_plane->onLeft("s2", "connection reset");
        join("s3", "n1", { status(id, "killed", 0, 15, 0), status(id, "running", 12, 0, 1) });
        QVERIFY(sentOf<protocol::Stop>("s3").empty());
        QVERIFY(sentOf<protocol::Launch>("s3").empty());
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Running));
        QCOMPARE(m_plane->workload(id)->pid, 12);
    }

    void pendingWorkloadIsReadoptedWhereItRuns()
    {
        join("s1", "n1");
        const WorkloadId id = submit("w");
        m_plane->onWorkloadUpdate("s1", status(id, "running", 77));
        m_plane->checkLiveness(Clock::now() + std::chrono::milliseconds(3500));
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Pending)); // nowhere else to go
        m_sent.clear();
        join("s2", "n1", { status(id, "running", 77) });
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Running));
        QCOMPARE(nodeOf(id), std::string("n1"));
        QCOMPARE(m_plane->workload(id)->pid, 77);
        QVERIFY(sentOf<protocol::Stop>("s2").empty());
        QVERIFY(sentOf<protocol::Launch>("s2").empty()); // not started twice
        m_io.poll();
        m_io.restart();
        QVERIFY(sentOf<protocol::Launch>("s2").empty());
    }

    void measuredTranslationFactorsReachTheScheduler()
    {
        QCOMPARE(m_plane->slowdowns().factor(Isa::Aarch64, Isa::X86_64), kDefaultTranslationSlowdown);
        m_plane->onJoined("s1", "127.0.0.1:1", hello("n1"));
        protocol::Inventory inv = inventory();
        inv.translation = { protocol::TranslationFactor { "aarch64", 2.31 }, protocol::TranslationFactor { "riscv64", 1.73 } };
        m_plane->onInventory("s1", inv);
        QCOMPARE(m_plane->slowdowns().factor(Isa::Aarch64, Isa::X86_64), 2.31);
        QCOMPARE(m_plane->slowdowns().factor(Isa::Riscv64, Isa::X86_64), 1.73);
        QCOMPARE(m_plane->slowdowns().factor(Isa::X86_64, Isa::Aarch64), kDefaultTranslationSlowdown); // not measured
        // A workload built for aarch64 that may be translated lands here and is marked as translated.
        SubmitRequest r = request("arm", 500);
        r.nativeIsas = isaBit(Isa::Aarch64);
        r.allowTranslation = true;
        const auto id = m_plane->submit(r);
        QVERIFY(id);
        QVERIFY(m_plane->workload(*id)->translated);
        r.allowTranslation = false;
        const auto refused = m_plane->submit(r);
        QCOMPARE(name(m_plane->workload(*refused)->phase), name(WorkloadPhase::Pending));
        QVERIFY(m_plane->why(*m_plane->workload(*refused)).find("ISA") != std::string::npos);
    }

    void sameNodeNameReplacesTheOlderSession()
    {
        join("s1", "n1");
        m_plane->onJoined("s2", "127.0.0.1:2", hello("n1"));
        QCOMPARE(m_disconnected, std::vector<std::string> { "s1" });
        // The older session's agent is told why, so that, should it be alive (two agents under one name), it backs off.
        const auto rejects = sentOf<protocol::Reject>("s1");
        QCOMPARE(rejects.size(), std::size_t { 1 });
        QCOMPARE(protocol::toString(rejects[0].cause), std::string_view("replaced"));
        QVERIFY2(rejects[0].reason.find("another agent joined as node n1 from 127.0.0.1:2") != std::string::npos,
            rejects[0].reason.c_str());
        QCOMPARE(m_plane->stats().sessionsReplaced, std::uint64_t { 1 });
        m_plane->onInventory("s2", inventory());
        m_plane->onLeft("s1", "replaced"); // the old session's close arrives late: it must not detach the node
        QCOMPARE(m_plane->nodeByName("n1")->sessionId, std::string("s2"));
        QCOMPARE(m_plane->nodes().size(), std::size_t { 1 });
    }

    void aCancelledWorkloadTheAgentLostIsCancelledNotRequeued()
    {
        join("s1", "n1");
        const WorkloadId id = submit("w");
        m_plane->onWorkloadUpdate("s1", status(id, "running"));
        QVERIFY(m_plane->cancel(id));
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Stopping));
        m_plane->onWorkloadUpdate("s1", status(id, "lost", 0));
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Cancelled));
        // Without a cancel, "lost" puts the workload back in the queue.
        const WorkloadId other = submit("other");
        m_plane->onWorkloadUpdate("s1", status(other, "running"));
        m_plane->onWorkloadUpdate("s1", status(other, "lost", 0));
        QCOMPARE(name(m_plane->workload(other)->phase), name(WorkloadPhase::Pending));
    }

    void cancelWhileAwayStopsOnReturn()
    {
        join("s1", "n1");
        const WorkloadId id = submit("w");
        m_plane->onWorkloadUpdate("s1", status(id, "running"));
        m_plane->onLeft("s1", "network");
        QVERIFY(m_plane->cancel(id));
        QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Cancelled));
        QCOMPARE(m_plane->cancel(id).error().status, 409);
        QCOMPARE(m_plane->cancel(12345).error().status, 404);
        m_sent.clear();
        join("s2", "n1", { status(id, "running") });
        const auto stops = sentOf<protocol::Stop>("s2");
        QCOMPARE(stops.size(), std::size_t { 1 });
        QCOMPARE(stops[0].workloadId, id);
    }

    // A pool whose last workload on a node ended leaves that node's next pools message (at its next heartbeat), so that
    // its agent removes the pool's cgroup; while nothing changes, heartbeats send nothing.
    void aNodeIsSentOnlyThePoolsItsWorkloadsUse()
    {
        joinNamingFeatures("s1", "n1");
        PoolRequest batch;
        batch.name = "batch";
        batch.cpuMillis = 2000;
        batch.memoryMiB = 1024;
        QVERIFY(m_plane->createPool(batch));
        SubmitRequest r = request("job", 100);
        r.pool = "batch";
        const WorkloadId job = *m_plane->submit(r);
        submit("svc"); // in the default pool
        const auto poolNames = [this] {
            std::vector<std::string> names;
            const auto configs = sentOf<protocol::PoolConfig>("s1");
            for (const protocol::PoolLimits& p : configs.back().pools)
                names.push_back(p.name);
            return names;
        };
        QVERIFY(poolNames().empty()); // the join's: nothing ran there
        std::vector<std::string> carried; // each pool went with its first launch there
        for (const protocol::Launch& launch : sentOf<protocol::Launch>("s1"))
            if (launch.poolLimits)
                carried.push_back(launch.poolLimits->name);
        QCOMPARE(carried, (std::vector<std::string> { "batch", "default" }));
        const std::size_t before = sentOf<protocol::PoolConfig>("s1").size();
        m_plane->onHeartbeat("s1", protocol::Heartbeat { 1, {} });
        QCOMPARE(sentOf<protocol::PoolConfig>("s1").size(), before);
        m_plane->onWorkloadUpdate("s1", status(job, "exited"));
        QCOMPARE(name(m_plane->workload(job) ? m_plane->workload(job)->phase : WorkloadPhase::Succeeded),
            name(WorkloadPhase::Succeeded));
        m_plane->onHeartbeat("s1", protocol::Heartbeat { 2, {} });
        QCOMPARE(sentOf<protocol::PoolConfig>("s1").size(), before + 1);
        QCOMPARE(poolNames(), (std::vector<std::string> { "default" }));
        m_plane->onHeartbeat("s1", protocol::Heartbeat { 3, {} });
        QCOMPARE(sentOf<protocol::PoolConfig>("s1").size(), before + 1);
    }

    // An agent that names launch-pool gets a pool it was not sent inside that pool's first launch there, with the
    // pool's limits and (shaped) its guarantee, and no pools message for it; the pool then counts as sent: the next
    // launch into it carries nothing, heartbeats send nothing while it is in use, and once it is not, the next pools
    // message leaves it out and a later launch into it carries it again.
    void aLaunchCarriesItsPoolToAnAgentThatTakesThat()
    {
        const protocol::Hello featured = helloNamingFeatures("n1");
        m_plane->onJoined("s1", "127.0.0.1:1", featured);
        protocol::Inventory shaped = inventory();
        shaped.netMbps = 1000;
        m_plane->onInventory("s1", shaped);
        QCOMPARE(sentOf<protocol::PoolConfig>("s1").size(), std::size_t { 1 }); // the join's, empty
        PoolRequest batch;
        batch.name = "batch";
        batch.cpuMillis = 6000; // beyond the node's 4000: capped there
        batch.memoryMiB = 1024;
        QVERIFY(m_plane->createPool(batch));
        SubmitRequest r = request("stream", 500);
        r.pool = "batch";
        r.requests.netBandwidthMbps = 300;
        const WorkloadId stream = *m_plane->submit(r);
        QCOMPARE(sentOf<protocol::PoolConfig>("s1").size(), std::size_t { 1 });
        auto launches = sentOf<protocol::Launch>("s1");
        QCOMPARE(launches.size(), std::size_t { 1 });
        QVERIFY(launches.back().poolLimits);
        QCOMPARE(launches.back().poolLimits->name, std::string("batch"));
        QCOMPARE(launches.back().poolLimits->cpuMillis, std::int64_t { 4000 });
        QCOMPARE(launches.back().poolLimits->memoryMiB, std::int64_t { 1024 });
        QCOMPARE(launches.back().poolLimits->netMbps, std::int64_t { 300 });
        SubmitRequest plain = request("svc", 200);
        plain.pool = "batch";
        const WorkloadId svc = *m_plane->submit(plain);
        launches = sentOf<protocol::Launch>("s1");
        QCOMPARE(launches.size(), std::size_t { 2 });
        QVERIFY(!launches.back().poolLimits);
        m_plane->onHeartbeat("s1", protocol::Heartbeat { 1, {} });
        QCOMPARE(sentOf<protocol::PoolConfig>("s1").size(), std::size_t { 1 });
        m_plane->onWorkloadUpdate("s1", status(stream, "exited"));
        m_plane->onWorkloadUpdate("s1", status(svc, "exited"));
        m_plane->onHeartbeat("s1", protocol::Heartbeat { 2, {} });
        const auto configs = sentOf<protocol::PoolConfig>("s1");
        QCOMPARE(configs.size(), std::size_t { 2 });
        QVERIFY(configs.back().pools.empty());
        submit("web"); // the default pool, never sent here: carried too
        plain.name = "svc-again";
        QVERIFY(m_plane->submit(plain));
        launches = sentOf<protocol::Launch>("s1");
        QCOMPARE(launches.size(), std::size_t { 4 });
        QVERIFY(launches[2].poolLimits && launches[2].poolLimits->name == "default");
        QVERIFY(launches[3].poolLimits && launches[3].poolLimits->name == "batch");
        QCOMPARE(launches[3].poolLimits->netMbps, std::int64_t { 0 });
        QCOMPARE(sentOf<protocol::PoolConfig>("s1").size(), std::size_t { 2 });
    }

    // An agent from before protocol features removes no pool's cgroup: it is sent every pool, as before, at its join
    // and with the first launch into a pool created since, and never a pool inside a launch. So a burst into many new
    // pools costs its node one pools message, not one a pool each a pool longer than the last; and a pool whose
    // workloads there ended stays in its list (no message at every heartbeat to drop it).
    void anAgentFromBeforeFeaturesIsSentEveryPool()
    {
        join("s1", "n1");
        QCOMPARE(sentOf<protocol::PoolConfig>("s1").back().pools.size(), std::size_t { 1 }); // "default"
        std::vector<WorkloadId> ids;
        for (const char* name : { "p1", "p2", "p3" }) {
            PoolRequest pool;
            pool.name = name;
            pool.cpuMillis = 1000;
            pool.memoryMiB = 512;
            QVERIFY(m_plane->createPool(pool));
        }
        for (const char* pool : { "p1", "p2", "p3" }) {
            SubmitRequest r = request(std::string("in-") + pool, 100);
            r.pool = pool;
            ids.push_back(*m_plane->submit(r));
        }
        auto configs = sentOf<protocol::PoolConfig>("s1");
        QCOMPARE(configs.size(), std::size_t { 2 }); // the join's, and one before the first launch into p1
        std::vector<std::string> names;
        for (const protocol::PoolLimits& p : configs.back().pools)
            names.push_back(p.name);
        QCOMPARE(names, (std::vector<std::string> { "default", "p1", "p2", "p3" }));
        const auto launches = sentOf<protocol::Launch>("s1");
        QCOMPARE(launches.size(), std::size_t { 3 });
        for (const protocol::Launch& launch : launches)
            QVERIFY(!launch.poolLimits);
        for (const WorkloadId id : ids)
            m_plane->onWorkloadUpdate("s1", status(id, "exited"));
        m_plane->onHeartbeat("s1", protocol::Heartbeat { 1, {} });
        m_plane->onHeartbeat("s1", protocol::Heartbeat { 2, {} });
        QCOMPARE(sentOf<protocol::PoolConfig>("s1").size(), std::size_t { 2 });
    }

    // A pool is deleted only once its work has ended: never the default pool; one with work that has not ended is
    // refused, naming how much and the first. Deleted, it leaves every node (the agent's pools no longer name it, and
    // work naming it is refused), the records of work that ended in it keep its name, and the name is free for
    // another pool.
    void aPoolIsDeletedOnlyOnceItsWorkHasEnded()
    {
        joinNamingFeatures("s1", "n1");
        QCOMPARE(m_plane->deletePool("default").error().status, 409);
        QCOMPARE(m_plane->deletePool("nowhere").error().status, 404);
        PoolRequest batch;
        batch.name = "batch";
        batch.cpuMillis = 2000;
        batch.memoryMiB = 1024;
        const auto created = m_plane->createPool(batch);
        QVERIFY(created);
        SubmitRequest r = request("job", 100);
        r.pool = "batch";
        const WorkloadId job = *m_plane->submit(r);
        r.name = "other";
        const WorkloadId other = *m_plane->submit(r);
        m_plane->onWorkloadUpdate("s1", status(job, "running"));

        auto refused = m_plane->deletePool("batch");
        QVERIFY(!refused);
        QCOMPARE(refused.error().status, 409);
        const std::string both = "pool batch still holds 2 workloads that have not ended (the first: workload "
            + std::to_string(job) + ", job, running)";
        QVERIFY2(refused.error().message.starts_with(both), refused.error().message.c_str());
        m_plane->onWorkloadUpdate("s1", status(job, "exited"));
        refused = m_plane->deletePool("batch");
        QVERIFY(!refused);
        const std::string one
            = "pool batch still holds 1 workload that has not ended (the first: workload " + std::to_string(other);
        QVERIFY2(refused.error().message.starts_with(one), refused.error().message.c_str());
        QVERIFY(m_plane->poolByName("batch"));

        m_plane->onWorkloadUpdate("s1", status(other, "exited", 101, 3));
        QCOMPARE(name(m_plane->workload(other)->phase), name(WorkloadPhase::Failed));
        const std::size_t configsBefore = sentOf<protocol::PoolConfig>("s1").size();
        QVERIFY(m_plane->deletePool("batch"));
        QVERIFY(!m_plane->poolByName("batch"));
        QVERIFY(m_plane->cluster().pool(*created).removed);
        QVERIFY(m_plane->cluster().pool(*created).nodes.empty());
        const Node& node = m_plane->cluster().node(m_plane->nodeByName("n1")->id);
        QVERIFY(std::find(node.pools.begin(), node.pools.end(), *created) == node.pools.end());
        // The agent was sent its pools without it (it removes the pool's cgroups).
        const auto configs = sentOf<protocol::PoolConfig>("s1");
        QCOMPARE(configs.size(), configsBefore + 1);
        for (const protocol::PoolLimits& p : configs.back().pools)
            QVERIFY(p.name != "batch");
        QVERIFY(logMentions("control: pool batch deleted"));
        QCOMPARE(m_plane->workload(job)->poolName, std::string("batch"));
        QCOMPARE(m_plane->deletePool("batch").error().status, 404);

        r.name = "late";
        const auto late = m_plane->submit(r);
        QVERIFY(!late);
        QCOMPARE(late.error().status, 400);
        QVERIFY2(
            late.error().message.find("no pool is named \"batch\"") != std::string::npos, late.error().message.c_str());

        // The name is free: a pool made under it is another pool, whose work is placed.
        batch.cpuMillis = 500;
        const auto again = m_plane->createPool(batch);
        QVERIFY(again);
        QVERIFY(*again != *created);
        const WorkloadId next = *m_plane->submit(r);
        QCOMPARE(nodeOf(next), std::string("n1"));
        QCOMPARE(m_plane->cluster().pool(*again).used.cpuMillis, std::int64_t { 100 });
        QCOMPARE(m_plane->cluster().pool(*created).used.cpuMillis, std::int64_t { 0 });
        QVERIFY(m_plane->cluster().checkInvariants());
    }

    // A pool created reaches each node's agent with its first launch there, just before it, not at once (which sent
    // every node every pool at each creation); a node is sent only the pools its workloads use, at a join too; a
    // change goes to the nodes that have the pool.
    void poolsAreValidatedAndPropagated()
    {
        joinNamingFeatures("s1", "n1");
        joinNamingFeatures("s2", "n2");
        const std::size_t before = m_sent.size();
        PoolRequest pool;
        pool.name = "batch";
        pool.cpuMillis = 500;
        pool.memoryMiB = 64;
        QVERIFY(m_plane->createPool(pool));
        QCOMPARE(m_plane->createPool(pool).error().status, 409);
        QCOMPARE(m_sent.size(), before); // nothing to any agent yet
        SubmitRequest r = request("w", 400);
        r.requests.memoryMiB = 32;
        r.pool = "batch";
        const auto inPool = m_plane->submit(r);
        QVERIFY(inPool);
        QCOMPARE(name(m_plane->workload(*inPool)->phase), name(WorkloadPhase::Launching));
        const std::string placedOn = nodeOf(*inPool);
        const std::string session = placedOn == "n1" ? "s1" : "s2", other = placedOn == "n1" ? "s2" : "s1";
        QCOMPARE(m_sent.size(), before + 1); // the launch, carrying the pool, to that node alone
        QCOMPARE(m_sent[before].session, session);
        const protocol::Launch launch = std::get<protocol::Launch>(m_sent[before].message);
        QCOMPARE(launch.pool, std::string("batch"));
        QVERIFY(launch.poolLimits);
        QCOMPARE(launch.poolLimits->name, std::string("batch"));
        QCOMPARE(launch.poolLimits->cpuMillis, std::int64_t { 500 });
        QCOMPARE(launch.poolLimits->memoryMiB, std::int64_t { 64 });
        // Another launch into it there carries nothing, and no pools message goes.
        SubmitRequest small = r;
        small.name = "w-small";
        small.requests.cpuMillis = 50;
        const auto smallId = m_plane->submit(small);
        QVERIFY(smallId);
        QVERIFY(!sentOf<protocol::Launch>(session).back().poolLimits);
        QCOMPARE(sentOf<protocol::PoolConfig>(session).size(), std::size_t { 1 }); // the join's, empty
        // A change reaches the node that has the pool, not the other.
        const std::size_t otherConfigs = sentOf<protocol::PoolConfig>(other).size();
        PoolRequest raised = m_plane->poolRequestOf(*m_plane->poolByName("batch"));
        raised.cpuMillis = 900;
        QVERIFY(m_plane->updatePool("batch", raised));
        QCOMPARE(sentOf<protocol::PoolConfig>(session).back().pools.back().cpuMillis, std::int64_t { 900 });
        QCOMPARE(sentOf<protocol::PoolConfig>(other).size(), otherConfigs);
        // A node joining now gets none (nothing of theirs runs there); the node where batch runs, joining again, gets
        // batch alone.
        joinNamingFeatures("s3", "n3");
        QVERIFY(sentOf<protocol::PoolConfig>("s3").back().pools.empty());
        m_plane->onLeft(session, "restart");
        joinNamingFeatures("s4", placedOn, { status(*inPool, "running", 100), status(*smallId, "running", 101) });
        QCOMPARE(sentOf<protocol::PoolConfig>("s4").front().pools.size(), std::size_t { 1 });
        QCOMPARE(sentOf<protocol::PoolConfig>("s4").front().pools.front().name, std::string("batch"));
        raised.cpuMillis = 500;
        QVERIFY(m_plane->updatePool("batch", raised));
        const auto over = m_plane->submit(r); // 800 > 500 millicores of quota
        QVERIFY(over);
        QCOMPARE(name(m_plane->workload(*over)->phase), name(WorkloadPhase::Pending));
        QVERIFY(m_plane->why(*m_plane->workload(*over)).find("quota") != std::string::npos);
        r.pool = "nope";
        QCOMPARE(m_plane->submit(r).error().status, 400);
    }

    void aPoolsTierHoldsItsWorkloadsWhateverTheirLatency()
    {
        // An x86 CPU server is warm; batch would spill onto it, and latency-sensitive work belongs there. A pool on the
        // cold tier keeps both off it until a cold (ARM) server joins.
        join("s-warm", "warm-1");
        PoolRequest archive;
        archive.name = "archive";
        archive.tier = Tier::Cold;
        QVERIFY(m_plane->createPool(archive));
        SubmitRequest batch = request("compress");
        batch.pool = "archive";
        const auto batchSubmitted = m_plane->submit(batch);
        QVERIFY2(batchSubmitted, batchSubmitted ? "" : batchSubmitted.error().message.c_str());
        const WorkloadId batchId = *batchSubmitted;
        SubmitRequest service = request("index-api");
        service.pool = "archive";
        service.latency = LatencyClass::LatencySensitive;
        const auto serviceSubmitted = m_plane->submit(service);
        QVERIFY2(serviceSubmitted, serviceSubmitted ? "" : serviceSubmitted.error().message.c_str());
        const WorkloadId serviceId = *serviceSubmitted;
        m_io.poll(); // the pass its submission posted
        m_io.restart();
        for (const WorkloadId id : { batchId, serviceId }) {
            QCOMPARE(name(m_plane->workload(id)->phase), name(WorkloadPhase::Pending));
            const std::string why = m_plane->why(*m_plane->workload(id));
            QVERIFY2(why.find("pool archive keeps its workloads on the cold tier") != std::string::npos, why.c_str());
        }
        // Work outside the pool still spills to warm as before.
        const WorkloadId loose = submit("loose");
        m_io.poll();
        m_io.restart();
        QCOMPARE(nodeOf(loose), std::string("warm-1"));

        m_plane->onJoined("s-cold", "127.0.0.1:2", hello("cold-1"));
        protocol::Inventory arm = inventory();
        arm.isa = "aarch64";
        m_plane->onInventory("s-cold", arm);
        m_plane->retryPending();
        QCOMPARE(nodeOf(batchId), std::string("cold-1"));
        QCOMPARE(nodeOf(serviceId), std::string("cold-1"));

        // A pin the pool's tier contradicts could never be placed: refused at submission, and a pool may not move to a
        // tier its pinned workloads are not on.
        SubmitRequest pinned = request("pinned-warm");
        pinned.pool = "archive";
        pinned.pinnedTier = Tier::Warm;
        const auto refused = m_plane->submit(pinned);
        QVERIFY(!refused);
        QCOMPARE(refused.error().status, 400);
        QVERIFY2(refused.error().message.find("keeps its workloads on the cold tier") != std::string::npos,
            refused.error().message.c_str());
        PoolRequest open;
        open.name = "open";
        QVERIFY(m_plane->createPool(open));
        pinned.pool = "open";
        const auto pinnedSubmitted = m_plane->submit(pinned);
        QVERIFY2(pinnedSubmitted, pinnedSubmitted ? "" : pinnedSubmitted.error().message.c_str());
        const WorkloadId pinnedId = *pinnedSubmitted;
        QCOMPARE(nodeOf(pinnedId), std::string("warm-1"));
        PoolRequest toCold = m_plane->poolRequestOf(*m_plane->poolByName("open"));
        toCold.tier = Tier::Cold;
        const auto moved = m_plane->updatePool("open", toCold);
        QVERIFY(!moved);
        QCOMPARE(moved.error().status, 409);
        QVERIFY2(moved.error().message.find(
                     "workload " + std::to_string(pinnedId) + " (pinned-warm) is pinned to the warm tier")
                != std::string::npos,
            moved.error().message.c_str());
        toCold.tier = Tier::Warm;
        QVERIFY(m_plane->updatePool("open", toCold));

        // A pool whose tier is set after its work was placed keeps that work where it is, and counts it.
        PoolRequest drift;
        drift.name = "drift";
        QVERIFY(m_plane->createPool(drift));
        SubmitRequest drifter = request("drifter");
        drifter.pool = "drift";
        const auto drifterSubmitted = m_plane->submit(drifter);
        QVERIFY(drifterSubmitted);
        const std::string placedOn = nodeOf(*drifterSubmitted);
        QVERIFY2(placedOn == "warm-1" || placedOn == "cold-1", placedOn.c_str());
        const PoolId driftId = *m_plane->poolByName("drift");
        QCOMPARE(m_plane->workloadsOffTier(driftId), std::size_t { 0 }); // no tier yet
        drift = m_plane->poolRequestOf(driftId);
        drift.tier = placedOn == "warm-1" ? Tier::Cold : Tier::Warm;
        QVERIFY(m_plane->updatePool("drift", drift));
        QCOMPARE(nodeOf(*drifterSubmitted), placedOn); // not moved
        QCOMPARE(m_plane->workloadsOffTier(driftId), std::size_t { 1 });
        drift.tier = placedOn == "warm-1" ? Tier::Warm : Tier::Cold;
        QVERIFY(m_plane->updatePool("drift", drift));
        QCOMPARE(m_plane->workloadsOffTier(driftId), std::size_t { 0 });
    }

    // A running workload is resized where it runs (`ControlPlane::resize`): its node and pool are charged the new size,
    // its agent is sent the new CPU weight and limits (not for the memory request alone, which is the core's), and its
    // answer confirms it or says why not; one that did not arrive is sent again when the agent rejoins.
    void aRunningWorkloadIsResizedInPlace()
    {
        joinNamingFeatures("s1", "n1"); // 4000 millicores, 8192 MiB
        const WorkloadId a = submit("a", 1000);
        m_plane->onWorkloadUpdate("s1", status(a, "running"));
        QCOMPARE(name(m_plane->workload(a)->phase), name(WorkloadPhase::Running));
        const Node& node = m_plane->cluster().node(0);
        QCOMPARE(node.free.cpuMillis, std::int64_t { 3000 });

        ResizeRequest down;
        down.cpuMillis = 250;
        down.memoryLimitMiB = 1024;
        const auto done = m_plane->resize(a, down, "token:ops");
        QVERIFY2(done, done ? "" : done.error().message.c_str());
        QVERIFY(done->changed);
        QVERIFY(done->sentToAgent);
        QCOMPARE(done->node, std::string("n1"));
        QVERIFY2(done->message.find("resized by token:ops: CPU 1000m → 250m, memory limit none → 1024 MiB in place on "
                                    "node n1")
                != std::string::npos,
            done->message.c_str());
        auto resizes = sentOf<protocol::Resize>("s1");
        QCOMPARE(resizes.size(), std::size_t { 1 });
        QCOMPARE(resizes[0], (protocol::Resize { a, 0, 250, 512, 1024, 0 }));
        QCOMPARE(node.free.cpuMillis, std::int64_t { 3750 });
        QCOMPARE(m_plane->cluster().pool(0).used.cpuMillis, std::int64_t { 250 });
        QVERIFY(m_plane->cluster().checkInvariants());
        QVERIFY(m_plane->workload(a)->resizeUnconfirmed());
        QCOMPARE(api::submissionJson(*m_plane->workload(a), m_plane->cluster()).value("cpuMillis", 0), 250);
        m_plane->onResized("s1", protocol::Resized { a, 0, {} });
        QVERIFY(!m_plane->workload(a)->resizeUnconfirmed());
        QVERIFY(m_plane->workload(a)->resizeRefused.empty());

        // The same again changes nothing and sends nothing; the memory request alone is the core's.
        const auto same = m_plane->resize(a, down, "token:ops");
        QVERIFY(same && !same->changed);
        ResizeRequest memory;
        memory.memoryMiB = 768;
        const auto more = m_plane->resize(a, memory, "token:ops");
        QVERIFY(more && more->changed && !more->sentToAgent);
        QCOMPARE(sentOf<protocol::Resize>("s1").size(), std::size_t { 1 });
        QCOMPARE(node.free.memoryMiB, std::int64_t { 8192 - 768 });

        // More than the node has room for beside the rest: refused, nothing changes.
        const WorkloadId b = submit("b", 3000);
        m_plane->onWorkloadUpdate("s1", status(b, "running"));
        ResizeRequest up;
        up.cpuMillis = 1500;
        const auto refused = m_plane->resize(a, up, "token:ops");
        QVERIFY(!refused);
        QCOMPARE(refused.error().status, 409);
        QVERIFY2(refused.error().message.find("node n1 has no room for it (CPU: it would ask for 1500m and 1000m are "
                                              "free beside what else runs there)")
                != std::string::npos,
            refused.error().message.c_str());
        QCOMPARE(m_plane->workload(a)->workload.requests.cpuMillis, std::int64_t { 250 });
        QCOMPARE(node.free.cpuMillis, std::int64_t { 750 });
        QVERIFY(m_plane->cluster().checkInvariants());
        up.cpuMillis = 1000; // exactly what is free with its own released
        QVERIFY(m_plane->resize(a, up, "token:ops"));
        QCOMPARE(node.free.cpuMillis, std::int64_t { 0 });

        // A stale answer changes nothing; its agent's refusal is kept and audited, and the core goes back to what the
        // agent holds (250m), where the node has room for it.
        m_plane->onResized("s1", protocol::Resized { a, 3, "another launch" });
        QVERIFY(m_plane->workload(a)->resizeUnconfirmed());
        m_plane->onResized("s1", protocol::Resized { a, 0, "the workload holds 900 MiB now" });
        QVERIFY(!m_plane->workload(a)->resizeUnconfirmed());
        QCOMPARE(m_plane->workload(a)->resizeRefused,
            std::string("refused by the agent of node n1: the workload holds 900 MiB now; its requests and limits are "
                        "back to what its launch holds"));
        QCOMPARE(m_plane->workload(a)->workload.requests.cpuMillis, std::int64_t { 250 });
        QCOMPARE(m_plane->workload(a)->memoryLimitMiB, std::int64_t { 1024 });
        QCOMPARE(node.free.cpuMillis, std::int64_t { 750 });
        QVERIFY(logMentions("resize refused by the agent of node n1"));
        QVERIFY(m_plane->cluster().checkInvariants());

        // Two on their way: the first confirmed, the second refused: back to the first.
        for (const std::int64_t cpu : { 300, 350 }) {
            ResizeRequest step;
            step.cpuMillis = cpu;
            QVERIFY(m_plane->resize(a, step, "token:ops"));
        }
        QCOMPARE(m_plane->workload(a)->resizesSent.size(), std::size_t { 2 });
        m_plane->onResized("s1", protocol::Resized { a, 0, {} });
        QVERIFY(m_plane->workload(a)->resizeUnconfirmed());
        m_plane->onResized("s1", protocol::Resized { a, 0, "cpu.shares: No space left on device" });
        QCOMPARE(m_plane->workload(a)->workload.requests.cpuMillis, std::int64_t { 300 });
        QCOMPARE(node.free.cpuMillis, std::int64_t { 700 });

        // Refused after the room it gave up was taken: the core keeps charging the new size, and says so.
        ResizeRequest down100;
        down100.cpuMillis = 100;
        QVERIFY(m_plane->resize(a, down100, "token:ops"));
        const WorkloadId c = submit("c", 900);
        QCOMPARE(nodeOf(c), std::string("n1"));
        m_plane->onWorkloadUpdate("s1", status(c, "running"));
        m_plane->onResized("s1", protocol::Resized { a, 0, "the workload holds 900 MiB now" });
        QCOMPARE(m_plane->workload(a)->workload.requests.cpuMillis, std::int64_t { 100 });
        QVERIFY2(m_plane->workload(a)->resizeRefused.find("; the core still charges it the new size (node n1 has no "
                                                          "room for it (CPU: it would ask for 300m and 100m are free")
                != std::string::npos,
            m_plane->workload(a)->resizeRefused.c_str());
        QVERIFY(m_plane->cluster().checkInvariants());

        // Not answered before its agent left: the latest sent again to the next session.
        ResizeRequest less;
        less.cpuMillis = 90;
        QVERIFY(m_plane->resize(a, less, "token:ops"));
        QVERIFY(m_plane->workload(a)->resizeUnconfirmed());
        QVERIFY(m_plane->workload(a)->resizeRefused.empty());
        m_plane->onLeft("s1", "connection reset");
        joinNamingFeatures("s2", "n1", { status(a, "running"), status(b, "running"), status(c, "running") });
        resizes = sentOf<protocol::Resize>("s2");
        QCOMPARE(resizes.size(), std::size_t { 1 });
        QCOMPARE(resizes[0].cpuMillis, std::int64_t { 90 });
        QCOMPARE(resizes[0].memoryLimitMiB, std::int64_t { 1024 });
        QCOMPARE(m_plane->workload(a)->resizesSent.size(), std::size_t { 1 });
        m_plane->onResized("s2", protocol::Resized { a, 0, {} });
        QVERIFY(!m_plane->workload(a)->resizeUnconfirmed());
        // For /metrics: seven new sizes (not the one it asked for already, nor the refused ones), three confirmed by
        // its agent and three refused.
        QCOMPARE(m_plane->stats().resizes, std::uint64_t { 7 });
        QCOMPARE(m_plane->stats().resizesConfirmed, std::uint64_t { 3 });
        QCOMPARE(m_plane->stats().resizesRefused, std::uint64_t { 3 });
    }

    // What `resize` refuses, each with a status and words that say why, changing nothing; and a waiting workload,
    // which is simply placed at its new size.
    void aResizeIsRefusedWhenItCannotBeDone()
    {
        const auto refusal = [&](WorkloadId id, const ResizeRequest& r, int status, const std::string& words) {
            const auto out = m_plane->resize(id, r, "token:ops");
            if (out)
                return QStringLiteral("resized: %1").arg(QString::fromStdString(out->message));
            if (out.error().status != status || out.error().message.find(words) == std::string::npos)
                return QStringLiteral("%1 %2").arg(out.error().status).arg(QString::fromStdString(out.error().message));
            return QString();
        };
        ResizeRequest half;
        half.cpuMillis = 500;
        QCOMPARE(refusal(99, half, 404, "no workload has id 99"), QString());

        join("s-old", "old"); // an agent from before features
        const WorkloadId onOld = submit("on-old", 1000);
        QCOMPARE(nodeOf(onOld), std::string("old"));
        QCOMPARE(refusal(onOld, half, 409, "launching on node old"), QString());
        m_plane->onWorkloadUpdate("s-old", status(onOld, "running"));
        QCOMPARE(refusal(onOld, half, 409, "the agent of node old is from before resizing"), QString());
        ResizeRequest memoryOnly;
        memoryOnly.memoryMiB = 256;
        QVERIFY(m_plane->resize(onOld, memoryOnly, "token:ops")); // the core's alone: no agent needed
        QVERIFY(sentOf<protocol::Resize>("s-old").empty());

        ResizeRequest nothing;
        nothing.cpuMillis = 0;
        nothing.memoryMiB = 0;
        QCOMPARE(refusal(onOld, nothing, 400, "would ask for nothing"), QString());
        ResizeRequest tight;
        tight.memoryLimitMiB = 128;
        QCOMPARE(refusal(onOld, tight, 400, "128 MiB is below the memory it asks for (256 MiB)"), QString());
        ResizeRequest slow;
        slow.cpuLimitMillis = 500;
        QCOMPARE(refusal(onOld, slow, 400, "500m is below the CPU it asks for (1000m)"), QString());

        m_plane->onLeft("s-old", "connection reset");
        QCOMPARE(refusal(onOld, half, 503, "is not connected now"), QString());

        // Measured above the limit asked for.
        joinNamingFeatures("s1", "n1");
        PoolRequest small;
        small.name = "small";
        small.cpuMillis = 1200;
        QVERIFY(m_plane->createPool(small));
        SubmitRequest inSmall = request("in-small", 1000);
        inSmall.pool = "small";
        const WorkloadId pooled = *m_plane->submit(inSmall);
        QCOMPARE(nodeOf(pooled), std::string("n1"));
        m_plane->onWorkloadUpdate("s1", status(pooled, "running"));
        protocol::Heartbeat beat;
        beat.samples.push_back(protocol::UtilisationSample { 1'000, 0.5, 1024, {} });
        beat.samples.back().workloads.push_back({ pooled, 0, 700, 900 });
        m_plane->onHeartbeat("s1", beat);
        ResizeRequest capped;
        capped.memoryLimitMiB = 600;
        QCOMPARE(refusal(pooled, capped, 409,
                     "used 900 MiB at its latest sample, more than the new memory limit of "
                     "600 MiB"),
            QString());
        // More than its pool's quota leaves.
        ResizeRequest big;
        big.cpuMillis = 1500;
        QCOMPARE(refusal(pooled, big, 409,
                     "pool small quota: CPU: it asks for 1500 millicores and 1200 of the "
                     "pool's 1200 are left (300 short)"),
            QString());
        QCOMPARE(m_plane->cluster().pool(*m_plane->poolByName("small")).used.cpuMillis, std::int64_t { 1000 });
        QVERIFY(sentOf<protocol::Resize>("s1").empty());

        // Ended, or being stopped.
        QVERIFY(m_plane->cancel(pooled));
        QCOMPARE(refusal(pooled, half, 409, "is being stopped"), QString());
        m_plane->onWorkloadUpdate("s1", status(pooled, "stopped"));
        QCOMPARE(refusal(pooled, half, 409, "has ended (cancelled)"), QString());

        // Waiting: too big for any node, then placed once it asks for what fits.
        const WorkloadId huge = submit("huge", 10'000);
        QCOMPARE(name(m_plane->workload(huge)->phase), name(WorkloadPhase::Pending));
        ResizeRequest fits;
        fits.cpuMillis = 2000;
        const auto placed = m_plane->resize(huge, fits, "token:ops");
        QVERIFY(placed && placed->changed && placed->node.empty() && !placed->sentToAgent);
        m_io.poll();
        m_io.restart();
        QCOMPARE(nodeOf(huge), std::string("n1"));
        QCOMPARE(sentOf<protocol::Launch>("s1").back().cpuMillis, std::int64_t { 2000 });
        QVERIFY(m_plane->cluster().checkInvariants());
    }
};

QTEST_GUILESS_MAIN(TestControlPlane)
#include "tst_control_plane.moc"
