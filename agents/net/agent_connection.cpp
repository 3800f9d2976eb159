#include "agents/net/agent_connection.h"

#include <algorithm>

namespace tidepool::agent {

std::shared_ptr<AgentConnection> AgentConnection::create(boost::asio::io_context& io, AgentConnectionConfig config,
    AgentConnectionHandlers handlers, protocol::LogSink log)
{
    return std::make_shared<AgentConnection>(io, std::move(config), std::move(handlers), std::move(log));
}

AgentConnection::AgentConnection(boost::asio::io_context& io, AgentConnectionConfig config,
    AgentConnectionHandlers handlers, protocol::LogSink log)
    : m_io(io)
    , m_config(std::move(config))
    , m_handlers(std::move(handlers))
    , m_log(std::move(log))
    , m_reconnectTimer(io)
    , m_sampleTimer(io)
    , m_backoff(m_config.initialBackoff)
    , m_interval(m_config.sampleInterval)
    , m_random(m_config.seed ? m_config.seed : std::random_device {}())
{
}

void AgentConnection::logLine(const std::string& line) const
{
    if (m_log)
        m_log(line);
}

void AgentConnection::start()
{
    m_stopped = false;
    connect();
    scheduleSample();
}

void AgentConnection::stop()
{
    m_stopped = true;
    m_reconnectTimer.cancel();
    m_sampleTimer.cancel();
    if (m_client)
        m_client->close("the agent is stopping");
}

void AgentConnection::connect()
{
    if (m_stopped)
        return;
    ++m_stats.connects;
    AgentClientEvents events;
    std::weak_ptr<AgentConnection> weak = weak_from_this();
    events.welcomed = [weak](const protocol::Welcome& w) {
        if (auto self = weak.lock())
            self->onWelcome(w);
    };
    events.rejected = [weak](const protocol::Reject& reject) {
        if (auto self = weak.lock())
            self->onRejected(reject);
    };
    events.closed = [weak](const std::string& reason) {
        if (auto self = weak.lock())
            self->onClosed(reason);
    };
    events.command = [weak](const protocol::Message& m) {
        if (auto self = weak.lock(); self && self->m_handlers.command)
            self->m_handlers.command(m);
    };
    AgentClientConfig clientConfig = m_config.client;
    if (m_plainHello)
        clientConfig.hello.features.clear();
    auto client = AgentClient::create(m_io, std::move(clientConfig), std::move(events), m_log);
    if (!client) {
        logLine("agent: cannot connect: " + client.error().message);
        scheduleReconnect();
        return;
    }
    m_client = std::move(*client);
    m_client->start();
}

void AgentConnection::onRejected(const protocol::Reject& reject)
{
    ++m_stats.rejections;
    if (reject.cause == protocol::RejectCause::Replaced)
        m_displaced = reject;
}

void AgentConnection::scheduleReconnect()
{
    if (m_stopped)
        return;
    std::chrono::milliseconds wait {};
    if (m_displaced) {
        // Another agent holds this node's name at the core. Joining again at once would push it off, and it would do
        // the same: wait, longer with each displacement in a row, and say why each time.
        const auto now = std::chrono::steady_clock::now();
        const bool settled = now - m_joinedAt >= m_config.maxDisplacedBackoff;
        m_stats.displacedInARow = settled ? 1 : m_stats.displacedInARow + 1;
        ++m_stats.displacements;
        std::chrono::milliseconds backoff = m_config.displacedBackoff;
        for (std::uint32_t i = 1; i < m_stats.displacedInARow && backoff < m_config.maxDisplacedBackoff; ++i)
            backoff *= 2;
        backoff = std::min(backoff, m_config.maxDisplacedBackoff);
        // Half fixed, half jittered: never an immediate rejoin, and two such agents drift apart.
        std::uniform_int_distribution<std::int64_t> jitter(backoff.count() / 2, backoff.count());
        wait = std::chrono::milliseconds(jitter(m_random));
        m_stats.lastDisplacedWait = wait;
        logLine("agent: displaced: " + m_displaced->reason + "; is another agent running as "
            + m_config.client.hello.nodeName + "? joining again in " + std::to_string(wait.count()) + " ms ("
            + std::to_string(m_stats.displacedInARow) + " displacement(s) in a row)");
        m_displaced.reset();
    } else {
        // Full jitter (a uniform wait in [0, backoff]) spreads a fleet that lost the core at the same moment.
        std::uniform_int_distribution<std::int64_t> jitter(0, m_backoff.count());
        wait = std::chrono::milliseconds(jitter(m_random));
        m_backoff = std::min(m_backoff * 2, m_config.maxBackoff);
    }
    m_reconnectTimer.expires_after(wait);
    m_reconnectTimer.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
        if (auto self = weak.lock(); self && !ec)
            self->connect();
    });
}

void AgentConnection::onWelcome(const protocol::Welcome& welcome)
{
    ++m_stats.joins;
    m_backoff = m_config.initialBackoff;
    m_joinedAt = std::chrono::steady_clock::now();
    m_corePoolUsage = protocol::hasFeature(welcome.features, protocol::kFeaturePoolUsage);
    m_coreWorkloadUsage = protocol::hasFeature(welcome.features, protocol::kFeatureWorkloadUsage);
    m_coreLogFollow = protocol::hasFeature(welcome.features, protocol::kFeatureLogFollow);
    if (!m_corePoolUsage && !m_config.client.hello.features.empty())
        logLine(std::string("agent: the core reads no pool usage (its welcome names ")
            + (welcome.features.empty() ? "no features" : "no `pool-usage`") + "): samples go without it");
    const std::chrono::milliseconds interval(welcome.heartbeatIntervalMs);
    if (interval != m_interval) {
        m_interval = interval;
        scheduleSample();
    }
    if (m_handlers.inventory)
        m_client->sendJoined(m_handlers.inventory());
    if (m_handlers.linkChanged)
        m_handlers.linkChanged(true);
}

void AgentConnection::onClosed(const std::string& reason)
{
    logLine("agent: disconnected from the core: " + reason);
    if (m_client && m_client->welcome()) {
        m_plainHello = false; // the core may be upgraded by the next join
    } else if (m_client && m_client->helloSent() && !m_client->heardFromCore() && m_client->endedByCore()
        && !m_plainHello && !m_config.client.hello.features.empty()) {
        m_plainHello = true;
        ++m_stats.plainHellos;
        logLine("agent: the core closed the connection on the hello without a word, as a core from before protocol "
                "features does with a hello that names them; joining again without them (no pool usage is sent)");
    }
    if (!m_displaced)
        m_stats.displacedInARow = 0; // ended for another reason: a streak of displacements is over
    if (m_handlers.linkChanged)
        m_handlers.linkChanged(false);
    scheduleReconnect();
}

void AgentConnection::scheduleSample()
{
    if (m_stopped)
        return;
    m_sampleTimer.expires_after(m_interval);
    m_sampleTimer.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
        if (auto self = weak.lock(); self && !ec) {
            self->onSample();
            self->scheduleSample();
        }
    });
}

void AgentConnection::onSample()
{
    if (m_handlers.sample) {
        if (m_buffer.size() >= m_config.telemetryBuffer) {
            m_buffer.pop_front();
            ++m_stats.samplesDropped;
        }
        m_buffer.push_back(m_handlers.sample());
    }
    if (!joined())
        return; // edge autonomy: keep sampling, send when the core is back
    // A backlog (samples kept while away) goes in heartbeats that fit a frame: as many samples as the protocol takes,
    // halved until the encoded message fits (samples with many devices and pools are large), and a few such heartbeats
    // per interval, so that it drains while new samples come. Without a backlog one sample goes, encoded once; without
    // samples (no sampler) an empty heartbeat still says the agent is there.
    constexpr int kHeartbeatsPerInterval = 4;
    for (int sent = 0; sent == 0 || (sent < kHeartbeatsPerInterval && !m_buffer.empty()); ++sent) {
        protocol::Heartbeat heartbeat;
        std::size_t count = std::min(m_buffer.size(), protocol::kMaxSamplesPerHeartbeat);
        heartbeat.samples.assign(m_buffer.begin(), m_buffer.begin() + static_cast<std::ptrdiff_t>(count));
        // A core that does not read pool or workload usage refuses it; the samples were taken before we knew.
        for (protocol::UtilisationSample& sample : heartbeat.samples) {
            if (!m_corePoolUsage)
                sample.pools.clear();
            if (!m_coreWorkloadUsage)
                sample.workloads.clear();
        }
        while (count > 1 && protocol::encodeMessage(heartbeat).size() > m_config.client.maxFrameBytes) {
            count /= 2;
            heartbeat.samples.resize(count);
        }
        heartbeat.sequence = m_sequence + 1;
        if (!m_client->sendHeartbeat(heartbeat))
            return;
        ++m_sequence;
        m_buffer.erase(m_buffer.begin(), m_buffer.begin() + static_cast<std::ptrdiff_t>(count));
        ++m_stats.heartbeatsSent;
    }
}

bool AgentConnection::sendUpdate(const protocol::WorkloadStatus& status)
{
    return joined() && m_client->sendJoined(protocol::WorkloadUpdate { status });
}

bool AgentConnection::sendLogs(protocol::LogReply reply)
{
    if (!m_coreLogFollow)
        reply.start = reply.end = -1;
    return joined() && m_client->sendJoined(reply);
}

bool AgentConnection::sendResized(const protocol::Resized& answer)
{
    return joined() && m_client->sendJoined(answer);
}

} // namespace tidepool::agent
