// The control plane's bounded event log (`ClusterEventLog`), which the console's Events view reads: a placement, an
// acknowledgement, an end, node state and cordon changes and audited actions are recorded in order with contiguous
// sequences; an API request's "received" audit entry is not; the oldest events fall off past `keepEvents`.
#include "core/api/control_plane.h"

#include <QtTest>

#include <boost/asio/io_context.hpp>

using namespace tidepool;
using namespace tidepool::api;

namespace {

SubmitRequest request(const std::string& name)
{
    SubmitRequest r;
    r.name = name;
    r.requests.cpuMillis = 1000;
    r.requests.memoryMiB = 512;
    r.argv = { "/bin/true" };
    return r;
}

protocol::Inventory inventory()
{
    protocol::Inventory inv;
    inv.isa = "x86_64";
    inv.cpuMillis = 4000;
    inv.memoryMiB = 8192;
    return inv;
}

std::string describe(const ClusterEvent& e)
{
    return std::to_string(static_cast<int>(e.kind)) + " " + e.subject + " " + e.from + ">" + e.to + " @" + e.node;
}

} // namespace

class TestClusterEvents : public QObject {
    Q_OBJECT

private:
    boost::asio::io_context m_io;

    std::unique_ptr<ControlPlane> makePlane(std::size_t keepEvents)
    {
        ControlPlaneConfig config;
        config.suspectAfter = std::chrono::milliseconds(1000);
        config.lostAfter = std::chrono::milliseconds(3000);
        config.keepEvents = keepEvents;
        AgentLink link { [](const std::string&, const protocol::Message&) { return true; },
            [](const std::string&, const std::string&) { return true; } };
        auto plane = ControlPlane::create(m_io, config, link, {});
        if (!plane)
            qFatal("%s", plane.error().message.c_str());
        return std::move(*plane);
    }

private slots:
    void recordsWhatHappenedInOrder()
    {
        auto plane = makePlane(100);
        plane->onJoined("s1", "127.0.0.1:1", protocol::Hello { "n1", "test", std::nullopt });
        plane->onInventory("s1", inventory());
        const auto id = plane->submit(request("w"));
        QVERIFY(id);
        plane->onWorkloadUpdate("s1", protocol::WorkloadStatus { *id, "running", 10, 0, {}, 0 });
        plane->onWorkloadUpdate("s1", protocol::WorkloadStatus { *id, "exited", 10, 0, {}, 0 });
        QVERIFY(plane->setCordon("n1", "maintenance"));
        store::AuditEntry received;
        received.stage = "received";
        received.action = "POST /v1/proposals/3/approve";
        plane->audit(received);
        store::AuditEntry decided;
        decided.atMs = 42;
        decided.actor = "operator:console";
        decided.action = "proposal.reject";
        decided.target = "proposal/3";
        decided.outcome = "ok";
        decided.detail = nlohmann::json { { "comment", "not now" } };
        plane->audit(decided);

        std::vector<std::string> seen;
        for (const ClusterEvent& e : plane->events().events())
            seen.push_back(describe(e));
        const std::vector<std::string> expected {
            "1 w pending>launching @n1", // placed
            "1 w launching>running @n1", // acknowledged
            "1 w running>succeeded @n1", // ended
            "3 n1 >maintenance @n1", // cordoned
            "4 proposal/3 proposal.reject>ok @", // the decision, not the request's "received" entry
        };
        // The node's own join (joining → ready) comes first.
        QVERIFY(!seen.empty());
        QCOMPARE(plane->events().events().front().kind, ClusterEventKind::NodeState);
        QCOMPARE(std::vector<std::string>(seen.begin() + 1, seen.end()), expected);
        const ClusterEvent& last = plane->events().events().back();
        QCOMPARE(last.actor, std::string("operator:console"));
        QCOMPARE(last.detail, std::string("not now"));
        QCOMPARE(last.atMs, std::int64_t { 42 });
        // Sequences are contiguous and end at the last one pushed.
        std::uint64_t sequence = plane->events().events().front().sequence;
        for (const ClusterEvent& e : plane->events().events())
            QCOMPARE(e.sequence, sequence++);
        QCOMPARE(plane->events().lastSequence(), sequence - 1);

        // The node falls silent: suspect, then lost, and its workloads' requeue is recorded too.
        const auto again = plane->submit(request("w2"));
        QVERIFY(again);
        plane->checkLiveness(Clock::now() + std::chrono::seconds(10));
        std::vector<std::string> states;
        for (const ClusterEvent& e : plane->events().events())
            if (e.kind == ClusterEventKind::NodeState)
                states.push_back(e.from + ">" + e.to);
        QVERIFY2(std::find(states.begin(), states.end(), "ready>suspect") != states.end()
                || std::find(states.begin(), states.end(), "ready>lost") != states.end(),
            "no liveness change recorded");
    }

    void keepsOnlyTheLatest()
    {
        auto plane = makePlane(5);
        plane->onJoined("s1", "127.0.0.1:1", protocol::Hello { "n1", "test", std::nullopt });
        plane->onInventory("s1", inventory());
        for (int i = 0; i < 10; ++i)
            QVERIFY(plane->setCordon("n1", i % 2 ? std::string() : "drain " + std::to_string(i)));
        QCOMPARE(plane->events().events().size(), std::size_t { 5 });
        QCOMPARE(plane->events().lastSequence(), std::uint64_t { 11 }); // the join and ten cordon changes
        QCOMPARE(plane->events().events().front().sequence, std::uint64_t { 7 });
        QCOMPARE(plane->events().events().back().to, std::string());
    }
};

QTEST_APPLESS_MAIN(TestClusterEvents)
#include "tst_cluster_events.moc"
