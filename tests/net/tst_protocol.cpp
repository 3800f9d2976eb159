// The agent ⇄ core protocol: framing (round trips, byte-by-byte delivery, oversized and empty lengths rejected before
// any allocation), strict message validation naming the field, the join cryptography (HMAC-SHA256 known answers,
// the verifier), and the agent server and client over real loopback sockets: a good join with a heartbeat, a wrong
// token rejected and counted, hostile clients disconnected without touching state.

// Boost.Asio before QtTest, so that Qt's `signals`/`slots` macros cannot reach into Boost's headers.
#include "agents/fleet/fleet.h"
#include "agents/net/agent_client.h"
#include "agents/net/agent_connection.h"
#include "core/api/control_plane.h"
#include "core/net/agent_server.h"
#include "core/net/certificates.h"
#include "protocol/frame.h"
#include "protocol/join.h"
#include "protocol/messages.h"
#include "protocol/transport/tls.h"
#include "run_until.h"

#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <nlohmann/json.hpp>

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <thread>

using namespace tidepool;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using nlohmann::json;

namespace {

const std::string kToken = "correct-horse-battery-staple-0123456789";

std::string bytesOf(std::initializer_list<unsigned> bytes)
{
    std::string s;
    for (const unsigned b : bytes)
        s.push_back(static_cast<char>(b));
    return s;
}

std::string frameOf(std::string_view payload)
{
    auto frame = protocol::encodeFrame(payload);
    return frame ? *frame : std::string();
}

std::string toHex(const protocol::Mac& mac)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    for (const auto b : mac) {
        hex.push_back(kDigits[b >> 4]);
        hex.push_back(kDigits[b & 0xf]);
    }
    return hex;
}

protocol::Hello helloFor(std::string name)
{
    return protocol::Hello { std::move(name), "tidepool-agent 0.1.0",
        protocol::InventorySummary { "x86_64", 64000, 262144, 4 } };
}

protocol::Heartbeat sampleHeartbeat(std::uint64_t sequence)
{
    protocol::Heartbeat h;
    h.sequence = sequence;
    h.samples.push_back({ 1'700'000'000'000, 0.25, 4096, { { 0, 0.5, 8000 }, { 1, 1.0, 16000 } } });
    h.samples.push_back({ 1'700'000'001'000, 0.0, 0, {} });
    // Pool usage: measured network where the agent shapes (a rate with a fraction), absent where it does not.
    h.samples[0].pools = { { "web", 1250, 2048, 37.5 }, { "batch.cold", 0, 0, -1.0 } };
    h.samples[0].workloads = { { 42, 0, 980, 512 }, { 7, 3, 0, 0 } };
    return h;
}

// Every message type, with and without its optional parts.
std::vector<protocol::Message> sampleMessages()
{
    protocol::Challenge challenge;
    for (std::size_t i = 0; i < challenge.nonce.size(); ++i)
        challenge.nonce[i] = static_cast<std::uint8_t>(i * 7 + 1);
    protocol::Auth auth;
    for (std::size_t i = 0; i < auth.mac.size(); ++i)
        auth.mac[i] = static_cast<std::uint8_t>(255 - i);
    return {
        helloFor("gpu-node-01.rack3"),
        protocol::Hello { "n0", "0.1", std::nullopt },
        protocol::Hello { "n1", "0.2", std::nullopt, {}, protocol::knownFeatures() },
        protocol::Hello { "n2", "0.3", std::nullopt, {}, { "pool-usage", "a-feature-from-a-later-agent" } },
        challenge,
        auth,
        protocol::Welcome { "0123456789abcdef", 1000 },
        protocol::Welcome { "0123456789abcdef", 1000, protocol::knownFeatures() },
        protocol::Reject { "authentication failed: wrong join token — 请检查令牌" },
        protocol::Reject { "another agent joined as node n1 from 10.0.0.2:4000", protocol::RejectCause::Replaced },
        protocol::Reject { "declared lost: silent too long", protocol::RejectCause::Closed },
        sampleHeartbeat(42),
        protocol::Heartbeat { 0, {} },
        protocol::Heartbeat { std::numeric_limits<std::uint64_t>::max(), {} },
        protocol::Inventory { "aarch64", "Neoverse-N1", { "asimd", "fp" }, 64'000, 262'144, 2,
            { protocol::DeviceInfo { 0, "gpu", "A100-SXM4-80GB", 81'920, 1000 },
                protocol::DeviceInfo { 1, "fpga", "Alveo-U250", 65'536, 8 } },
            { protocol::TranslationFactor { "x86_64", 4.25 } },
            { protocol::WorkloadStatus { 7, "running", 4242, 0, {} },
                protocol::WorkloadStatus { 8, "oom_killed", 0, 9, "memory limit 64 MiB" } } },
        protocol::Inventory { "x86_64", {}, {}, 1000, 1024, 1, {}, {}, {} },
        protocol::Inventory { "x86_64", {}, {}, 1000, 1024, 1, {}, {}, {}, 10'000 },
        protocol::WorkloadUpdate { protocol::WorkloadStatus { 9, "exited", 17, 3, {} } },
        protocol::WorkloadUpdate { protocol::WorkloadStatus { 9, "killed", 0, 15, "moved to GPU 1", 2 } },
        protocol::PoolConfig {
            { protocol::PoolLimits { "default", 4000, 8192, 100 }, protocol::PoolLimits { "batch", 500, 64, 10 } } },
        protocol::PoolConfig { { protocol::PoolLimits { "gold", 4000, 8192, 100, 2500 } } },
        protocol::Launch { 9, "infer-7", "batch", { "/usr/bin/python3", "-c", "print('hi there')" },
            { "CUDA_VISIBLE_DEVICES=0", "A=b=c" }, 500, 64, { 0, 3 }, 3,
            protocol::PoolLimits { "batch", 500, 64, 10, 200 } },
        protocol::Launch { 12, "first-of-gold", "gold", { "/bin/true" }, {}, 0, 0, {}, 0,
            protocol::PoolLimits { "gold", 4000, 8192, 100 } },
        protocol::Launch { 10, "hold", "default", {}, {}, 0, 0, {}, 0 },
        protocol::Launch { 13, "capped", "default", { "/bin/true" }, {}, 100, 64, {}, 1, std::nullopt, 256 },
        protocol::Launch { 14, "throttled", "default", { "/bin/true" }, {}, 100, 64, {}, 0, std::nullopt, 0, 250 },
        protocol::Launch { 11, "again", "default", { "/bin/true" }, {}, 0, 0, {}, protocol::kMaxIncarnation },
        protocol::Stop { 9, 0, std::nullopt },
        protocol::Stop { 9, 10'000, 0 },
        protocol::Stop { 9, 10'000, 7 },
        protocol::LogRequest { 4, 9, 1, false, 4096, 1'234'567, 20'000 }, // a follower's next read, held for output
        protocol::LogRequest { 7, 9, 1, false, 4096, 0 },
        protocol::LogRequest { 5, 9, 0, false, 65'536 },
        protocol::LogRequest { 6, 9, 2, true, protocol::kMaxLogBytes },
        protocol::LogReply { 4, "second line\n", 70'000, true, {}, 1'234'567, 1'234'579 },
        protocol::LogReply { 5, "first line\n\tindented \xE2\x9C\x93\n", 70'000, true, {} },
        protocol::LogReply { 6, {}, 0, false, {} },
        protocol::LogReply { 7, {}, 0, false, "workload 9 (incarnation 2) is not held here" },
        protocol::Resize { 9, 2, 500, 256, 1024, 1000 },
        protocol::Resize { 9, 0, 0, 0, 0, 0 }, // the default weight, no limits of its own
        protocol::Resize { 9, 1, 250, 64, 64, 250 }, // limits equal to the requests
        protocol::Resized { 9, 2, {} },
        protocol::Resized { 9, 0, "workload 9 (incarnation 0) is not held here" },
    };
}

// A valid JSON object for each message type, to be broken one field at a time.
json validJson(const std::string& type)
{
    for (const protocol::Message& m : sampleMessages())
        if (protocol::typeName(m) == type)
            return json::parse(protocol::encodeMessage(m));
    return json();
}

using tidepool::testing::runUntil;

// The daemon's core on loopback, without a store: a control plane wired to an agent server as `CoreHost` wires them.
struct LiveCore {
    asio::io_context io;
    std::vector<std::string> log;
    std::shared_ptr<net::AgentServer> server;
    std::unique_ptr<api::ControlPlane> plane;
    std::uint16_t port = 0;

    explicit LiveCore(api::ControlPlaneConfig planeConfig = {}, net::AgentServerConfig serverConfig = {})
    {
        const protocol::LogSink sink = [this](std::string_view line) { log.emplace_back(line); };
        api::AgentLink link {
            [this](const std::string& s, const protocol::Message& m) { return server->send(s, m); },
            [this](const std::string& s, const std::string& why) { return server->disconnect(s, why); },
        };
        auto created = api::ControlPlane::create(io, planeConfig, link, sink);
        if (!created)
            qFatal("control plane: %s", created.error().message.c_str());
        plane = std::move(*created);
        api::ControlPlane& core = *plane;
        serverConfig.joinToken = kToken;
        serverConfig.heartbeatIntervalMs = planeConfig.heartbeatIntervalMs;
        net::AgentServerEvents events;
        events.joined = [&core](const net::JoinedAgent& a) { core.onJoined(a.sessionId, a.remote, a.hello); };
        events.inventory = [&core](const std::string& s, const protocol::Inventory& i) { core.onInventory(s, i); };
        events.heartbeat = [&core](const std::string& s, const protocol::Heartbeat& h) { core.onHeartbeat(s, h); };
        events.workloadUpdate
            = [&core](const std::string& s, const protocol::WorkloadStatus& w) { core.onWorkloadUpdate(s, w); };
        events.left = [&core](const std::string& s, const std::string& why) { core.onLeft(s, why); };
        server = net::AgentServer::create(io, serverConfig, events, sink);
        if (auto bound = server->listen("127.0.0.1", 0))
            port = *bound;
    }
    ~LiveCore()
    {
        server->stop();
        if (QTest::currentTestFailed())
            for (const std::string& line : log)
                qInfo("core: %s", line.c_str());
    }

    agent::AgentConnectionConfig agentConfig() const
    {
        agent::AgentConnectionConfig config;
        config.client.host = "127.0.0.1";
        config.client.port = port;
        config.client.joinToken = kToken;
        config.client.hello = helloFor("any"); // the simulated agent names its node
        config.initialBackoff = 20ms;
        config.maxBackoff = 80ms;
        config.sampleInterval = 50ms;
        return config;
    }
};

bool mentions(const std::vector<std::string>& lines, std::string_view text)
{
    return std::any_of(
        lines.begin(), lines.end(), [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

// An agent server on 127.0.0.1 with an ephemeral port, recording what it reports.
struct Loopback {
    asio::io_context io;
    std::vector<std::string> log;
    std::vector<net::JoinedAgent> joined;
    std::vector<protocol::Heartbeat> heartbeats;
    std::shared_ptr<net::AgentServer> server;
    std::uint16_t port = 0;
    std::string listenError;

    explicit Loopback(net::AgentServerConfig config = {})
    {
        if (config.joinToken.empty() && config.bootstrapTokens.empty())
            config.joinToken = kToken;
        net::AgentServerEvents events;
        events.joined = [this](const net::JoinedAgent& agent) { joined.push_back(agent); };
        events.heartbeat = [this](const std::string&, const protocol::Heartbeat& h) { heartbeats.push_back(h); };
        server = net::AgentServer::create(
            io, std::move(config), std::move(events), [this](std::string_view line) { log.emplace_back(line); });
        auto bound = server->listen("127.0.0.1", 0);
        if (bound)
            port = *bound;
        else
            listenError = bound.error().message;
    }
    ~Loopback() { server->stop(); }

    bool logMentions(std::string_view text) const
    {
        return std::any_of(
            log.begin(), log.end(), [&](const std::string& line) { return line.find(text) != std::string::npos; });
    }

    std::shared_ptr<agent::AgentClient> client(const std::string& token, const std::string& name,
        std::vector<std::string>* rejections = nullptr, std::shared_ptr<asio::ssl::context> tls = {},
        std::vector<std::string>* closes = nullptr, const std::string& tlsServerName = {})
    {
        agent::AgentClientConfig config;
        config.host = "127.0.0.1";
        config.port = port;
        config.tls = std::move(tls);
        config.tlsServerName = tlsServerName;
        config.joinToken = token;
        config.hello = helloFor(name);
        agent::AgentClientEvents events;
        if (rejections)
            events.rejected = [rejections](const protocol::Reject& reject) { rejections->push_back(reject.reason); };
        if (closes)
            events.closed = [closes](const std::string& reason) { closes->push_back(reason); };
        auto created = agent::AgentClient::create(io, std::move(config), std::move(events), {});
        return created ? *created : nullptr;
    }

    // Joins a well-behaved agent; true once welcomed.
    bool goodAgentJoins(const std::string& name)
    {
        auto c = client(kToken, name);
        if (!c)
            return false;
        c->start();
        const bool ok = runUntil(io, [&] { return c->state() == agent::AgentClient::State::Joined; });
        c->close("test done");
        return ok;
    }
};

// A raw TCP peer that sends arbitrary bytes and waits for the server to close the connection.
struct RawPeer {
    asio::ip::tcp::socket socket;
    bool closedByServer = false;
    std::array<char, 256> buffer {};

    RawPeer(asio::io_context& io, std::uint16_t port)
        : socket(io)
    {
        boost::system::error_code ec;
        socket.connect({ asio::ip::make_address("127.0.0.1"), port }, ec);
    }
    void send(const std::string& bytes)
    {
        boost::system::error_code ec;
        asio::write(socket, asio::buffer(bytes), ec);
    }
    void awaitClose()
    {
        socket.async_read_some(asio::buffer(buffer), [this](const boost::system::error_code& ec, std::size_t) {
            if (ec)
                closedByServer = true; // end of file, or a reset when unread bytes remained
            else
                awaitClose();
        });
    }
};

} // namespace

class TestProtocol : public QObject {
    Q_OBJECT

private slots:
    void framesRoundTripInAnyPieces_data();
    void framesRoundTripInAnyPieces();
    void oversizedLengthRejectedBeforeAllocation_data();
    void oversizedLengthRejectedBeforeAllocation();
    void announcedLengthIsNotReservedUpFront();
    void zeroLengthFrameIsAnError();
    void encoderEnforcesTheLimit();

    void everyMessageRoundTrips_data();
    void everyMessageRoundTrips();
    void validationErrorsNameTheField_data();
    void validationErrorsNameTheField();
    void malformedPayloadsAreErrors_data();
    void malformedPayloadsAreErrors();
    void hostileNameIsNotEchoed();
    void incarnationIsOptionalOnTheWire();
    void wholeNumbersWrittenAsDoublesAreNamedSo();

    void hmacSha256KnownAnswers_data();
    void hmacSha256KnownAnswers();
    void verifierAcceptsOnlyTheRightAnswer();
    void noncesAreFresh();
    void clientRefusesAnInvalidHello();

    void agentJoinsAndHeartbeats();
    void wrongTokenIsRejectedAndCounted();
    void hostileClientIsDisconnected_data();
    void hostileClientIsDisconnected();
    void silentClientTimesOut();
    void acceptFailureBacksOffAndRecovers();
    void shortJoinTokenIsRefused();
    void tlsJoinsAndRefusesWhatItMust();
    void expiredOrForeignAgentCertificateIsRefused();
    void bootstrapTokensHaveOneShape();
    void bootstrapTokenIsSingleUse();
    void bootstrapTokenBindingsOutliveTheServer();
    void unrecordedBindingIsRefusedAndForgotten();
    void connectionBuffersTelemetryAndReconnects();
    void aBacklogGoesInHeartbeatsThatFitAFrame();
    void featuresDecideWhatEachSideSends();
    void aCoreFromBeforeFeaturesGetsAPlainHello();
    void aResetOrSilenceOnTheHelloKeepsTheFeatures();
    void fullWriteQueuesCloseOrDrop();
    void aDisplacedAgentIsToldWhyAndBacksOff();
    void stopsToOneNodeAreWindowedAndAllAnswered();
};

void TestProtocol::framesRoundTripInAnyPieces_data()
{
    QTest::addColumn<int>("pieceBytes");
    QTest::newRow("byte by byte") << 1;
    QTest::newRow("3-byte pieces (splits headers)") << 3;
    QTest::newRow("7-byte pieces") << 7;
    QTest::newRow("all at once") << (1 << 20);
}

void TestProtocol::framesRoundTripInAnyPieces()
{
    QFETCH(int, pieceBytes);
    const std::vector<std::string> payloads
        = { "a", std::string(300, 'x'), "{\"type\":\"hello\"}", std::string(70'000, '\x01') };
    std::string stream;
    for (const auto& p : payloads)
        stream += frameOf(p);
    QCOMPARE(stream.size(), 4 * payloads.size() + 1 + 300 + 16 + 70'000);
    QCOMPARE(stream.substr(0, 5), bytesOf({ 0, 0, 0, 1, 'a' })); // big-endian length first

    protocol::FrameDecoder decoder;
    std::vector<std::string> frames;
    for (std::size_t at = 0; at < stream.size(); at += static_cast<std::size_t>(pieceBytes)) {
        QVERIFY(decoder.feed(std::string_view(stream).substr(at, static_cast<std::size_t>(pieceBytes)), frames));
        QVERIFY(decoder.bufferedBytes() <= 4 + 70'000);
    }
    QCOMPARE(frames, payloads);
    QCOMPARE(decoder.bufferedBytes(), std::size_t { 0 });
    QVERIFY(!decoder.failed());
}

void TestProtocol::oversizedLengthRejectedBeforeAllocation_data()
{
    QTest::addColumn<quint32>("length");
    QTest::addColumn<QString>("sizeText");
    QTest::newRow("0xFFFFFFFF") << quint32 { 0xFFFFFFFFu } << QStringLiteral("4294967295");
    QTest::newRow("one over the maximum")
        << quint32 { protocol::kDefaultMaxFrameBytes + 1 } << QStringLiteral("1048577");
}

void TestProtocol::oversizedLengthRejectedBeforeAllocation()
{
    QFETCH(quint32, length);
    QFETCH(QString, sizeText);
    protocol::FrameDecoder decoder; // 1 MiB maximum
    const std::size_t emptyCapacity = std::string().capacity();
    std::vector<std::string> frames;
    // A good frame first, then the hostile header, then payload bytes in the same read.
    std::string stream = frameOf("ok");
    stream += bytesOf({ length >> 24, (length >> 16) & 0xff, (length >> 8) & 0xff, length & 0xff });
    stream += std::string(100, 'z');
    const auto fed = decoder.feed(stream, frames);
    QVERIFY(!fed);
    QCOMPARE(int(fed.error().code), int(protocol::ErrorCode::FrameTooLarge));
    QVERIFY2(fed.error().message.find(sizeText.toStdString()) != std::string::npos, fed.error().message.c_str());
    QVERIFY2(fed.error().message.find("1048576") != std::string::npos, fed.error().message.c_str());
    QCOMPARE(frames, std::vector<std::string> { "ok" });
    QCOMPARE(decoder.bufferedBytes(), std::size_t { 0 });
    QCOMPARE(decoder.reservedBytes(), emptyCapacity);
    // The decoder stays failed and takes nothing more.
    QVERIFY(!decoder.feed(std::string(1000, 'z'), frames));
    QCOMPARE(decoder.bufferedBytes(), std::size_t { 0 });
    QCOMPARE(decoder.reservedBytes(), emptyCapacity);

    // Exactly the maximum is accepted.
    protocol::FrameDecoder atLimit(1024);
    frames.clear();
    QVERIFY(atLimit.feed(*protocol::encodeFrame(std::string(1024, 'm'), 1024), frames));
    QCOMPARE(frames.size(), std::size_t { 1 });
}

void TestProtocol::announcedLengthIsNotReservedUpFront()
{
    // A peer that announces the full 1 MiB and sends ten bytes makes the decoder hold ten bytes, not a mebibyte.
    protocol::FrameDecoder decoder;
    std::vector<std::string> frames;
    QVERIFY(decoder.feed(bytesOf({ 0x00, 0x10, 0x00, 0x00 }) + std::string(10, 'p'), frames));
    QVERIFY(frames.empty());
    QCOMPARE(decoder.bufferedBytes(), std::size_t { 14 });
    QVERIFY2(decoder.reservedBytes() < 1024, std::to_string(decoder.reservedBytes()).c_str());
}

void TestProtocol::zeroLengthFrameIsAnError()
{
    protocol::FrameDecoder decoder;
    std::vector<std::string> frames;
    const auto fed = decoder.feed(bytesOf({ 0, 0, 0, 0 }), frames);
    QVERIFY(!fed);
    QCOMPARE(int(fed.error().code), int(protocol::ErrorCode::EmptyFrame));
    QVERIFY(decoder.failed());
    QVERIFY(frames.empty());
}

void TestProtocol::encoderEnforcesTheLimit()
{
    const auto empty = protocol::encodeFrame("");
    QVERIFY(!empty);
    QCOMPARE(int(empty.error().code), int(protocol::ErrorCode::EmptyFrame));
    const auto big = protocol::encodeFrame(std::string(2049, 'b'), 2048);
    QVERIFY(!big);
    QCOMPARE(int(big.error().code), int(protocol::ErrorCode::FrameTooLarge));
    QVERIFY(
        big.error().message.find("2049") != std::string::npos && big.error().message.find("2048") != std::string::npos);
}

void TestProtocol::everyMessageRoundTrips_data()
{
    QTest::addColumn<int>("index");
    const auto messages = sampleMessages();
    for (std::size_t i = 0; i < messages.size(); ++i)
        QTest::addRow("%zu %s", i, std::string(protocol::typeName(messages[i])).c_str()) << int(i);
}

void TestProtocol::everyMessageRoundTrips()
{
    QFETCH(int, index);
    const protocol::Message message = sampleMessages().at(static_cast<std::size_t>(index));
    const std::string text = protocol::encodeMessage(message);
    const json j = json::parse(text);
    QCOMPARE(j.at("type").get<std::string>(), std::string(protocol::typeName(message)));
    QCOMPARE(j.at("version").get<int>(), protocol::kProtocolVersion);
    const auto decoded = protocol::decodeMessage(text);
    QVERIFY2(decoded, decoded ? "" : decoded.error().message.c_str());
    QCOMPARE(decoded->index(), message.index());
    QVERIFY(*decoded == message);
}

void TestProtocol::validationErrorsNameTheField_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("pointer"); // JSON pointer of the field to change
    QTest::addColumn<QByteArray>("value"); // its new JSON value; empty = remove the field
    QTest::addColumn<QString>("field");
    QTest::addColumn<int>("code");
    using C = protocol::ErrorCode;
    const auto row
        = [](const char* name, const char* type, const char* pointer, QByteArray value, const char* field, C code) {
              QTest::newRow(name) << QString::fromLatin1(type) << QString::fromLatin1(pointer) << value
                                  << QString::fromLatin1(field) << int(code);
          };
    row("version missing", "hello", "/version", "", "version", C::MissingField);
    row("version a string", "hello", "/version", "\"1\"", "version", C::WrongType);
    row("version 2", "hello", "/version", "2", "version", C::UnsupportedVersion);
    row("version 0", "heartbeat", "/version", "0", "version", C::UnsupportedVersion);
    row("type missing", "hello", "/type", "", "type", C::MissingField);
    row("type a number", "hello", "/type", "7", "type", C::WrongType);
    row("type unknown", "hello", "/type", "\"goodbye\"", "type", C::UnknownType);
    row("unknown top-level field", "hello", "/admin", "true", "admin", C::UnknownField);
    row("reject cause unknown", "reject", "/cause", "\"bogus\"", "cause", C::OutOfRange);
    row("reject cause a number", "reject", "/cause", "3", "cause", C::WrongType);
    row("nodeName missing", "hello", "/nodeName", "", "nodeName", C::MissingField);
    row("nodeName a number", "hello", "/nodeName", "42", "nodeName", C::WrongType);
    row("nodeName empty", "hello", "/nodeName", "\"\"", "nodeName", C::OutOfRange);
    row("nodeName 254 bytes", "hello", "/nodeName", QByteArray("\"") + QByteArray(254, 'n') + "\"", "nodeName",
        C::OutOfRange);
    row("nodeName with BEL", "hello", "/nodeName", "\"node\\u0007\"", "nodeName", C::BadName);
    row("nodeName with NUL", "hello", "/nodeName", "\"no\\u0000de\"", "nodeName", C::BadName);
    row("nodeName with newline", "hello", "/nodeName", "\"node\\nINFO fake log line\"", "nodeName", C::BadName);
    row("nodeName with a space", "hello", "/nodeName", "\"my node\"", "nodeName", C::BadName);
    row("nodeName with a slash", "hello", "/nodeName", "\"../etc\"", "nodeName", C::BadName);
    row("agentVersion with ESC", "hello", "/agentVersion", "\"0.1\\u001b[31m\"", "agentVersion", C::BadName);
    row("agentVersion too long", "hello", "/agentVersion", QByteArray("\"") + QByteArray(1025, 'v') + "\"",
        "agentVersion", C::OutOfRange);
    row("features not an array", "hello", "/features", "\"pool-usage\"", "features", C::WrongType);
    row("feature with a space", "hello", "/features", "[\"pool-usage\", \"pool usage\"]", "features[1]", C::BadName);
    row("feature a number", "hello", "/features", "[7]", "features[0]", C::WrongType);
    {
        QByteArray many = "[";
        for (std::size_t i = 0; i <= protocol::kMaxFeatures; ++i)
            many += (i ? ",\"f" : "\"f") + QByteArray::number(qulonglong(i)) + "\"";
        row("65 features", "hello", "/features", many + "]", "features", C::OutOfRange);
    }
    row("welcome feature with a newline", "welcome", "/features", "[\"a\\nb\"]", "features[0]", C::BadName);
    row("inventory not an object", "hello", "/inventory", "[]", "inventory", C::WrongType);
    row("inventory.cpuMillis negative", "hello", "/inventory/cpuMillis", "-1", "inventory.cpuMillis", C::OutOfRange);
    row("inventory.cpuMillis fractional", "hello", "/inventory/cpuMillis", "1.5", "inventory.cpuMillis", C::WrongType);
    row("inventory.memoryMiB huge", "hello", "/inventory/memoryMiB", "18446744073709551615", "inventory.memoryMiB",
        C::OutOfRange);
    row("inventory.isa missing", "hello", "/inventory/isa", "", "inventory.isa", C::MissingField);
    row("inventory unknown field", "hello", "/inventory/extra", "1", "inventory.extra", C::UnknownField);
    row("nonce short", "challenge", "/nonce", "\"abcd\"", "nonce", C::OutOfRange);
    row("nonce not hex", "challenge", "/nonce", QByteArray("\"") + QByteArray(64, 'g') + "\"", "nonce", C::WrongType);
    row("mac missing", "auth", "/mac", "", "mac", C::MissingField);
    row("mac a number", "auth", "/mac", "0", "mac", C::WrongType);
    row("heartbeatIntervalMs zero", "welcome", "/heartbeatIntervalMs", "0", "heartbeatIntervalMs", C::OutOfRange);
    row("heartbeatIntervalMs over an hour", "welcome", "/heartbeatIntervalMs", "3600001", "heartbeatIntervalMs",
        C::OutOfRange);
    row("sessionId with a space", "welcome", "/sessionId", "\"a b\"", "sessionId", C::BadName);
    row("reason missing", "reject", "/reason", "", "reason", C::MissingField);
    row("sequence negative", "heartbeat", "/sequence", "-1", "sequence", C::OutOfRange);
    row("sequence a string", "heartbeat", "/sequence", "\"1\"", "sequence", C::WrongType);
    row("samples not an array", "heartbeat", "/samples", "{}", "samples", C::WrongType);
    row("sample not an object", "heartbeat", "/samples/1", "5", "samples[1]", C::WrongType);
    row("cpuUtilisation above 1", "heartbeat", "/samples/0/cpuUtilisation", "1.5", "samples[0].cpuUtilisation",
        C::OutOfRange);
    row("cpuUtilisation negative", "heartbeat", "/samples/1/cpuUtilisation", "-0.01", "samples[1].cpuUtilisation",
        C::OutOfRange);
    row("timestampMs missing", "heartbeat", "/samples/1/timestampMs", "", "samples[1].timestampMs", C::MissingField);
    row("device utilisation a string", "heartbeat", "/samples/0/devices/1/utilisation", "\"x\"",
        "samples[0].devices[1].utilisation", C::WrongType);
    row("device index out of range", "heartbeat", "/samples/0/devices/0/index", "1024", "samples[0].devices[0].index",
        C::OutOfRange);
    row("device unknown field", "heartbeat", "/samples/0/devices/0/temperature", "80",
        "samples[0].devices[0].temperature", C::UnknownField);
    row("pool usage not an array", "heartbeat", "/samples/0/pools", "{}", "samples[0].pools", C::WrongType);
    row("pool usage name with a slash", "heartbeat", "/samples/0/pools/0/name", "\"../web\"",
        "samples[0].pools[0].name", C::BadName);
    row("pool usage cpuMillis negative", "heartbeat", "/samples/0/pools/1/cpuMillis", "-1",
        "samples[0].pools[1].cpuMillis", C::OutOfRange);
    row("pool usage memoryMiB missing", "heartbeat", "/samples/0/pools/0/memoryMiB", "",
        "samples[0].pools[0].memoryMiB", C::MissingField);
    row("pool usage netMbps negative", "heartbeat", "/samples/0/pools/0/netMbps", "-0.5", "samples[0].pools[0].netMbps",
        C::OutOfRange);
    row("pool usage netMbps a string", "heartbeat", "/samples/0/pools/0/netMbps", "\"37\"",
        "samples[0].pools[0].netMbps", C::WrongType);
    row("workload usage id 0", "heartbeat", "/samples/0/workloads/0/workloadId", "0",
        "samples[0].workloads[0].workloadId", C::OutOfRange);
    row("workload usage incarnation negative", "heartbeat", "/samples/0/workloads/1/incarnation", "-1",
        "samples[0].workloads[1].incarnation", C::OutOfRange);
    row("workload usage cpuMillis a string", "heartbeat", "/samples/0/workloads/0/cpuMillis", "\"980\"",
        "samples[0].workloads[0].cpuMillis", C::WrongType);
    row("workload usage memoryMiB missing", "heartbeat", "/samples/0/workloads/1/memoryMiB", "",
        "samples[0].workloads[1].memoryMiB", C::MissingField);
    row("workload usage unknown field", "heartbeat", "/samples/0/workloads/0/pid", "5", "samples[0].workloads[0].pid",
        C::UnknownField);
    row("pool usage unknown field", "heartbeat", "/samples/0/pools/1/ioBytes", "5", "samples[0].pools[1].ioBytes",
        C::UnknownField);
    row("inventory isa missing", "inventory", "/isa", "", "isa", C::MissingField);
    row("inventory cpuFeatures item with a space", "inventory", "/cpuFeatures/1", "\"a b\"", "cpuFeatures[1]",
        C::BadName);
    row("inventory device kind unknown", "inventory", "/devices/1/kind", "\"tpu\"", "devices[1].kind", C::OutOfRange);
    row("inventory device shareCapacity zero", "inventory", "/devices/0/shareCapacity", "0", "devices[0].shareCapacity",
        C::OutOfRange);
    row("inventory translation factor below 1", "inventory", "/translation/0/factor", "0.5", "translation[0].factor",
        C::OutOfRange);
    row("inventory workload state unknown", "inventory", "/workloads/0/state", "\"zombie\"", "workloads[0].state",
        C::OutOfRange);
    row("inventory workload id zero", "inventory", "/workloads/1/workloadId", "0", "workloads[1].workloadId",
        C::OutOfRange);
    row("inventory workload unknown field", "inventory", "/workloads/0/rss", "1", "workloads[0].rss", C::UnknownField);
    row("workload_state status missing", "workload_state", "/status", "", "status", C::MissingField);
    row("workload_state exitCode 300", "workload_state", "/status/exitCode", "300", "status.exitCode", C::OutOfRange);
    row("pools name with a slash", "pools", "/pools/1/name", "\"../etc\"", "pools[1].name", C::BadName);
    row("pools cpuMillis zero", "pools", "/pools/0/cpuMillis", "0", "pools[0].cpuMillis", C::OutOfRange);
    row("pools ioWeight 0", "pools", "/pools/0/ioWeight", "0", "pools[0].ioWeight", C::OutOfRange);
    row("pools netMbps 0", "pools", "/pools/0/netMbps", "0", "pools[0].netMbps", C::OutOfRange);
    row("pools netMbps a string", "pools", "/pools/1/netMbps", "\"1G\"", "pools[1].netMbps", C::WrongType);
    row("inventory netMbps negative", "inventory", "/netMbps", "-100", "netMbps", C::OutOfRange);
    row("inventory netMbps beyond 10 Tbit/s", "inventory", "/netMbps", "10000001", "netMbps", C::OutOfRange);
    row("launch argv item empty", "launch", "/argv/1", "\"\"", "argv[1]", C::OutOfRange);
    row("launch argv item a number", "launch", "/argv/0", "3", "argv[0]", C::WrongType);
    row("launch env without =", "launch", "/env/0", "\"PATH\"", "env[0]", C::BadName);
    row("launch env starting with =", "launch", "/env/1", "\"=x\"", "env[1]", C::BadName);
    row("launch device index negative", "launch", "/devices/1", "-1", "devices[1]", C::OutOfRange);
    row("launch pool missing", "launch", "/pool", "", "pool", C::MissingField);
    row("launch workloadId beyond 2^53", "launch", "/workloadId", "9007199254740993", "workloadId", C::OutOfRange);
    row("stop graceMs negative", "stop", "/graceMs", "-5", "graceMs", C::OutOfRange);
    row("launch incarnation negative", "launch", "/incarnation", "-1", "incarnation", C::OutOfRange);
    row("launch poolLimits of another pool", "launch", "/poolLimits/name", "\"default\"", "poolLimits.name",
        C::OutOfRange);
    row("launch poolLimits not an object", "launch", "/poolLimits", "[]", "poolLimits", C::WrongType);
    row("launch poolLimits memoryMiB missing", "launch", "/poolLimits/memoryMiB", "", "poolLimits.memoryMiB",
        C::MissingField);
    row("launch poolLimits netMbps 0", "launch", "/poolLimits/netMbps", "0", "poolLimits.netMbps", C::OutOfRange);
    row("launch poolLimits unknown field", "launch", "/poolLimits/swapMiB", "5", "poolLimits.swapMiB", C::UnknownField);
    row("launch incarnation beyond 2^31", "launch", "/incarnation", "2147483648", "incarnation", C::OutOfRange);
    row("launch incarnation a string", "launch", "/incarnation", "\"1\"", "incarnation", C::WrongType);
    row("stop incarnation negative", "stop", "/incarnation", "-2", "incarnation", C::OutOfRange);
    row("workload_state incarnation negative", "workload_state", "/status/incarnation", "-1", "status.incarnation",
        C::OutOfRange);
    row("inventory workload incarnation fractional", "inventory", "/workloads/0/incarnation", "1.5",
        "workloads[0].incarnation", C::WrongType);
    QByteArray manySamples = "[";
    for (int i = 0; i <= 1024; ++i)
        manySamples += (i ? ",{}" : "{}");
    manySamples += "]";
    row("1025 samples", "heartbeat", "/samples", manySamples, "samples", C::OutOfRange);
    QByteArray manyPools = "[";
    for (int i = 0; i <= 256; ++i)
        manyPools += (i ? ",{}" : "{}");
    manyPools += "]";
    row("257 pools in a sample", "heartbeat", "/samples/1/pools", manyPools, "samples[1].pools", C::OutOfRange);
    row("log stream unknown", "log_request", "/stream", "\"both\"", "stream", C::OutOfRange);
    row("log maxBytes 0", "log_request", "/maxBytes", "0", "maxBytes", C::OutOfRange);
    row("log maxBytes past the most", "log_request", "/maxBytes", "262145", "maxBytes", C::OutOfRange);
    row("log requestId missing", "log_request", "/requestId", "", "requestId", C::MissingField);
    // A workload's output reaches a terminal: escape sequences never travel, newlines and tabs do.
    row("log data with ESC", "logs", "/data", "\"red \\u001b[31m\"", "data", C::BadName);
    row("log data with a carriage return", "logs", "/data", "\"50%\\r\"", "data", C::BadName);
    row("log data and error", "logs", "/error", "\"gone\"", "error", C::OutOfRange);
    row("log reply truncated a string", "logs", "/truncated", "\"yes\"", "truncated", C::WrongType);
    row("log from negative", "log_request", "/from", "-1", "from", C::OutOfRange);
    row("log from past 2^53", "log_request", "/from", "9007199254740993", "from", C::OutOfRange);
    row("log waitMs beyond 30 s", "log_request", "/waitMs", "30001", "waitMs", C::OutOfRange);
    row("log waitMs 0", "log_request", "/waitMs", "0", "waitMs", C::OutOfRange);
    row("log waitMs without from", "log_request", "/from", "", "waitMs", C::OutOfRange);
    row("log reply end before its start", "logs", "/end", "1234566", "end", C::OutOfRange);
    row("log reply end without a start", "logs", "/start", "", "start", C::MissingField);
    row("log reply start without an end", "logs", "/end", "", "end", C::MissingField);
    row("resize memory limit below its request", "resize", "/memoryLimitMiB", "255", "memoryLimitMiB", C::OutOfRange);
    row("resize CPU limit below its request", "resize", "/cpuLimitMillis", "499", "cpuLimitMillis", C::OutOfRange);
    row("resize CPU above the most", "resize", "/cpuMillis", "1073741825", "cpuMillis", C::OutOfRange);
    row("resize negative CPU", "resize", "/cpuMillis", "-1", "cpuMillis", C::OutOfRange);
    row("resize without its limits", "resize", "/memoryLimitMiB", "", "memoryLimitMiB", C::MissingField);
    row("resize workload 0", "resize", "/workloadId", "0", "workloadId", C::OutOfRange);
    row("resize unknown field", "resize", "/swap", "0", "swap", C::UnknownField);
    row("resized error with ESC", "resized", "/error", "\"cleared \\u001b[2J\"", "error", C::BadName);
}

void TestProtocol::validationErrorsNameTheField()
{
    QFETCH(QString, type);
    QFETCH(QString, pointer);
    QFETCH(QByteArray, value);
    QFETCH(QString, field);
    QFETCH(int, code);
    json j = validJson(type.toStdString());
    QVERIFY(j.is_object());
    QVERIFY(protocol::decodeMessage(j.dump())); // the base is valid, so only the change below can break it
    const json::json_pointer ptr(pointer.toStdString());
    if (value.isEmpty())
        j.at(ptr.parent_pointer()).erase(ptr.back());
    else
        j[ptr] = json::parse(value.toStdString());
    const auto decoded = protocol::decodeMessage(j.dump());
    QVERIFY(!decoded);
    QCOMPARE(QString::fromStdString(decoded.error().field), field);
    QCOMPARE(int(decoded.error().code), code);
    QVERIFY2(decoded.error().message.find("`" + field.toStdString() + "`") != std::string::npos,
        decoded.error().message.c_str());
}

// A whole number a JSON parser keeps as a double (written with an exponent, or beyond 64 bits) is refused as what it
// is, not as "a fractional number" (an exploratory run found 18446744073709551616 called fractional).
void TestProtocol::wholeNumbersWrittenAsDoublesAreNamedSo()
{
    const std::pair<const char*, const char*> cases[] = {
        { "5e2", "a number written with an exponent or a fraction (500): write whole numbers as plain digits" },
        { "18446744073709551616", "a number beyond the integers it may hold (1.8446744073709552e+19)" },
        { "1.5", "not a fractional number" },
    };
    for (const auto& [value, said] : cases) {
        json j = validJson("hello");
        j["inventory"]["cpuMillis"] = json::parse(value);
        const auto decoded = protocol::decodeMessage(j.dump());
        QVERIFY(!decoded);
        QCOMPARE(int(decoded.error().code), int(protocol::ErrorCode::WrongType));
        QVERIFY2(decoded.error().message.find(said) != std::string::npos, decoded.error().message.c_str());
    }
}

// Peers from before incarnations neither send nor know the field: absent reads as 0 (a stop without one is for every
// incarnation), and a first launch (0) or its statuses go out without it, as they did before.
void TestProtocol::incarnationIsOptionalOnTheWire()
{
    const std::string oldLaunch = R"({"type":"launch","version":1,"workloadId":5,"name":"w","pool":"default",)"
                                  R"("argv":["/bin/true"],"env":[],"cpuMillis":1,"memoryMiB":1,"devices":[]})";
    auto decoded = protocol::decodeMessage(oldLaunch);
    QVERIFY2(decoded, decoded ? "" : decoded.error().message.c_str());
    QCOMPARE(std::get<protocol::Launch>(*decoded).incarnation, 0);
    decoded = protocol::decodeMessage(R"({"type":"stop","version":1,"workloadId":5,"graceMs":0})");
    QVERIFY(decoded);
    QVERIFY(!std::get<protocol::Stop>(*decoded).incarnation);
    decoded = protocol::decodeMessage(
        R"({"type":"workload_state","version":1,"status":{"workloadId":5,"state":"running","pid":1,"exitCode":0}})");
    QVERIFY(decoded);
    QCOMPARE(std::get<protocol::WorkloadUpdate>(*decoded).status.incarnation, 0);

    protocol::Launch first { 5, "w", "default", { "/bin/true" }, {}, 1, 1, {}, 0 };
    QVERIFY(!json::parse(protocol::encodeMessage(first)).contains("incarnation"));
    first.incarnation = 4;
    QCOMPARE(json::parse(protocol::encodeMessage(first)).at("incarnation").get<int>(), 4);
    QVERIFY(!json::parse(protocol::encodeMessage(protocol::WorkloadUpdate { { 5, "running", 1, 0, {} } }))
                 .at("status")
                 .contains("incarnation"));
    QVERIFY(!json::parse(protocol::encodeMessage(protocol::Stop { 5, 0, std::nullopt })).contains("incarnation"));
    QCOMPARE(json::parse(protocol::encodeMessage(protocol::Stop { 5, 0, 0 })).at("incarnation").get<int>(), 0);

    // A bad one is refused with the field named, whatever else the launch holds.
    json bad = json::parse(oldLaunch);
    bad["incarnation"] = -1;
    const auto refused = protocol::decodeMessage(bad.dump());
    QVERIFY(!refused);
    QCOMPARE(refused.error().field, std::string("incarnation"));
    QVERIFY2(refused.error().message.find("`incarnation` is -1") != std::string::npos, refused.error().message.c_str());

    // A workload's own memory limit likewise: only a launch that sets one carries it, and it may not be below what
    // the workload asked for (an agent would start it only to have the kernel kill it).
    QVERIFY(!json::parse(protocol::encodeMessage(first)).contains("memoryLimitMiB"));
    json capped = json::parse(oldLaunch);
    capped["memoryMiB"] = 512;
    capped["memoryLimitMiB"] = 256;
    const auto below = protocol::decodeMessage(capped.dump());
    QVERIFY(!below);
    QCOMPARE(below.error().field, std::string("memoryLimitMiB"));
    QVERIFY2(
        below.error().message.find("at least `memoryMiB` (512)") != std::string::npos, below.error().message.c_str());
    capped["memoryLimitMiB"] = 512;
    const auto equal = protocol::decodeMessage(capped.dump());
    QVERIFY2(equal, equal ? "" : equal.error().message.c_str());
    QCOMPARE(std::get<protocol::Launch>(*equal).memoryLimitMiB, 512);
    // And its own CPU limit (the old launch asks for 1 millicore; a quota below 10 the kernel would not take).
    QVERIFY(!json::parse(protocol::encodeMessage(first)).contains("cpuLimitMillis"));
    capped["cpuLimitMillis"] = 5;
    const auto tooSmall = protocol::decodeMessage(capped.dump());
    QVERIFY(!tooSmall);
    QCOMPARE(tooSmall.error().field, std::string("cpuLimitMillis"));
    capped["cpuMillis"] = 500;
    capped["cpuLimitMillis"] = 400;
    const auto belowRequest = protocol::decodeMessage(capped.dump());
    QVERIFY(!belowRequest);
    QVERIFY2(belowRequest.error().message.find("at least `cpuMillis` (500)") != std::string::npos,
        belowRequest.error().message.c_str());

    // Likewise the network shaping fields: agents and cores that do not shape neither send nor read them.
    const json pools = json::parse(
        protocol::encodeMessage(protocol::PoolConfig { { protocol::PoolLimits { "default", 4000, 8192, 100 } } }));
    QVERIFY(!pools.at("pools").at(0).contains("netMbps"));
    QVERIFY(!json::parse(protocol::encodeMessage(protocol::Inventory { "x86_64", {}, {}, 1000, 1024, 1, {}, {}, {} }))
                 .contains("netMbps"));
}

void TestProtocol::malformedPayloadsAreErrors_data()
{
    QTest::addColumn<QByteArray>("payload");
    QTest::newRow("not JSON") << QByteArray("hello there");
    QTest::newRow("truncated object") << QByteArray("{\"type\":\"hello\",");
    QTest::newRow("an array") << QByteArray("[1,2,3]");
    QTest::newRow("a string") << QByteArray("\"hello\"");
    QTest::newRow("invalid UTF-8") << QByteArray(
        "{\"type\":\"hello\",\"version\":1,\"nodeName\":\"\xff\xfe\",\"agentVersion\":\"1\"}");
    QTest::newRow("100000 nested arrays") << (QByteArray(100'000, '[') + QByteArray(100'000, ']'));
    QTest::newRow("nesting hidden after a string")
        << (QByteArray("{\"a\":\"[[[[\",\"b\":") + QByteArray(20, '[') + QByteArray(20, ']') + "}");
    QTest::newRow("trailing garbage") << QByteArray("{} {}");
}

void TestProtocol::malformedPayloadsAreErrors()
{
    QFETCH(QByteArray, payload);
    const auto decoded
        = protocol::decodeMessage(std::string_view(payload.constData(), static_cast<std::size_t>(payload.size())));
    QVERIFY(!decoded);
    QCOMPARE(int(decoded.error().code), int(protocol::ErrorCode::MalformedJson));
    QVERIFY(decoded.error().field.empty());
}

void TestProtocol::hostileNameIsNotEchoed()
{
    json j = validJson("hello");
    j["nodeName"] = std::string(100'000, 'A');
    const auto decoded = protocol::decodeMessage(j.dump());
    QVERIFY(!decoded);
    QCOMPARE(decoded.error().field, std::string("nodeName"));
    QVERIFY2(decoded.error().message.size() < 200, "a hostile value must not be copied into the error");
    QVERIFY(decoded.error().message.find("100000") != std::string::npos);

    // A syntax error inside a huge or non-UTF-8 string: the parser's message would quote the token (found by the
    // fuzzer); only the position may come back.
    const std::string unterminated = R"({"version":1,"type":"hello","nodeName":")" + std::string(1'000'000, 'A') + '\x01';
    const auto broken = protocol::decodeMessage(unterminated);
    QVERIFY(!broken);
    QCOMPARE(int(broken.error().code), int(protocol::ErrorCode::MalformedJson));
    QVERIFY2(broken.error().message.size() < 100, broken.error().message.substr(0, 200).c_str());
    const auto badUtf8 = protocol::decodeMessage("{\"a\":\"\xff\xfe\"");
    QVERIFY(!badUtf8);
    QVERIFY(badUtf8.error().message.find('\xff') == std::string::npos);
}

void TestProtocol::hmacSha256KnownAnswers_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<QString>("mac");
    // RFC 4231, test cases 1 and 2.
    QTest::newRow("RFC 4231 case 1") << QByteArray(20, '\x0b') << QByteArray("Hi There")
                                     << QStringLiteral(
                                            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    QTest::newRow("RFC 4231 case 2") << QByteArray("Jefe") << QByteArray("what do ya want for nothing?")
                                     << QStringLiteral(
                                            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

void TestProtocol::hmacSha256KnownAnswers()
{
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, data);
    QFETCH(QString, mac);
    const auto computed = protocol::hmacSha256(key.toStdString(), data.toStdString());
    QVERIFY(computed);
    QCOMPARE(QString::fromStdString(toHex(*computed)), mac);
}

void TestProtocol::verifierAcceptsOnlyTheRightAnswer()
{
    const protocol::JoinVerifier verifier(kToken);
    const protocol::Hello hello = helloFor("node-a");
    const auto pending = verifier.challenge(hello);
    QVERIFY(pending);
    QCOMPARE(pending->nodeName, std::string("node-a"));

    const auto right = protocol::answerChallenge(kToken, hello, pending->challenge);
    QVERIFY(right);
    QVERIFY(verifier.verify(*pending, *right));
    // The MAC covers the label, the nonce and the node name, keyed with the token.
    const auto expected = protocol::hmacSha256(kToken,
        std::string("tidepool-join-v1") + '\0'
            + std::string(reinterpret_cast<const char*>(pending->challenge.nonce.data()), 32) + "node-a");
    QVERIFY(expected);
    QCOMPARE(toHex(right->mac), toHex(*expected));

    const auto wrongToken = protocol::answerChallenge(kToken + "x", hello, pending->challenge);
    QVERIFY(!verifier.verify(*pending, *wrongToken));
    const auto otherName = protocol::answerChallenge(kToken, helloFor("node-b"), pending->challenge);
    QVERIFY(!verifier.verify(*pending, *otherName));
    protocol::Challenge otherNonce = pending->challenge;
    otherNonce.nonce[0] ^= 1;
    QVERIFY(!verifier.verify(*pending, *protocol::answerChallenge(kToken, hello, otherNonce)));
    protocol::Auth flipped = *right;
    flipped.mac[31] ^= 0x80;
    QVERIFY(!verifier.verify(*pending, flipped));
}

void TestProtocol::noncesAreFresh()
{
    const auto a = protocol::randomNonce();
    const auto b = protocol::randomNonce();
    QVERIFY(a && b);
    QVERIFY(*a != *b);
    QVERIFY(*a != protocol::Nonce {});
    const auto id = protocol::randomHex(16);
    QVERIFY(id);
    QCOMPARE(id->size(), std::size_t { 32 });
}

void TestProtocol::clientRefusesAnInvalidHello()
{
    asio::io_context io;
    agent::AgentClientConfig config;
    config.host = "127.0.0.1";
    config.port = 1;
    config.joinToken = kToken;
    config.hello = helloFor("bad\tname");
    const auto created = agent::AgentClient::create(io, config, {}, {});
    QVERIFY(!created);
    QCOMPARE(created.error().field, std::string("nodeName"));
    config.hello = helloFor("good-name");
    config.joinToken = "short";
    const auto shortToken = agent::AgentClient::create(io, config, {}, {});
    QVERIFY(!shortToken);
    QCOMPARE(shortToken.error().field, std::string("joinToken"));
}

void TestProtocol::agentJoinsAndHeartbeats()
{
    net::AgentServerConfig config;
    config.heartbeatIntervalMs = 750;
    Loopback loop(config);
    QVERIFY2(loop.port != 0, loop.listenError.c_str());
    auto client = loop.client(kToken, "node-7");
    QVERIFY(client);
    client->start();
    QVERIFY(runUntil(loop.io, [&] { return client->state() == agent::AgentClient::State::Joined; }));
    QCOMPARE(client->welcome()->heartbeatIntervalMs, 750);
    QCOMPARE(loop.joined.size(), std::size_t { 1 });
    QCOMPARE(loop.joined[0].hello, helloFor("node-7"));
    QCOMPARE(loop.joined[0].sessionId, client->welcome()->sessionId);

    QVERIFY(client->sendHeartbeat(sampleHeartbeat(1)));
    QVERIFY(client->sendHeartbeat(sampleHeartbeat(2)));
    QVERIFY(runUntil(loop.io, [&] { return loop.heartbeats.size() == 2; }));
    QCOMPARE(loop.heartbeats[0], sampleHeartbeat(1));
    QCOMPARE(loop.heartbeats[1], sampleHeartbeat(2));
    const auto& stats = loop.server->stats();
    QCOMPARE(stats.agentsJoined, std::uint64_t { 1 });
    QCOMPARE(stats.heartbeats, std::uint64_t { 2 });
    QCOMPARE(stats.joinsRejected, std::uint64_t { 0 });
    QCOMPARE(stats.badFrames, std::uint64_t { 0 });
    QCOMPARE(loop.server->connectionCount(), std::size_t { 1 });

    // A replayed sequence number is a protocol error: the connection closes, the heartbeat is not delivered.
    QVERIFY(client->sendHeartbeat(sampleHeartbeat(2)));
    QVERIFY(runUntil(loop.io, [&] { return client->state() == agent::AgentClient::State::Closed; }));
    QCOMPARE(loop.heartbeats.size(), std::size_t { 2 });
    QCOMPARE(loop.server->stats().badFrames, std::uint64_t { 1 });
}

void TestProtocol::wrongTokenIsRejectedAndCounted()
{
    Loopback loop;
    QVERIFY2(loop.port != 0, loop.listenError.c_str());
    std::vector<std::string> rejections;
    auto client = loop.client("not-the-join-token-at-all-000000", "intruder", &rejections);
    QVERIFY(client);
    client->start();
    QVERIFY(runUntil(loop.io, [&] { return client->state() == agent::AgentClient::State::Closed; }));
    QCOMPARE(rejections.size(), std::size_t { 1 });
    QVERIFY(rejections[0].find("wrong join token") != std::string::npos);
    QVERIFY(!client->welcome());
    QCOMPARE(loop.server->stats().joinsRejected, std::uint64_t { 1 });
    QCOMPARE(loop.server->stats().agentsJoined, std::uint64_t { 0 });
    QVERIFY(loop.joined.empty());
    QVERIFY(loop.logMentions("node intruder)"));
    QVERIFY(loop.logMentions("join rejected: wrong join token"));
    QVERIFY(runUntil(loop.io, [&] { return loop.server->connectionCount() == 0; }));
}

void TestProtocol::hostileClientIsDisconnected_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("logged");
    const auto frame = [](const std::string& payload) { return QByteArray::fromStdString(frameOf(payload)); };
    QTest::newRow("oversized header") << QByteArray("\xff\xff\xff\xff", 4)
                                      << QStringLiteral("frame length 4294967295 exceeds the maximum of 1048576 bytes");
    QTest::newRow("oversized header after a hello")
        << (frame(protocol::encodeMessage(helloFor("n1"))) + QByteArray("\x00\x20\x00\x00", 4))
        << QStringLiteral("frame length 2097152 exceeds");
    QTest::newRow("zero-length frame") << QByteArray(4, '\0') << QStringLiteral("frame length 0");
    QTest::newRow("malformed JSON") << frame("{\"type\": \"hello\", oops") << QStringLiteral("malformed JSON");
    QTest::newRow("hello with a control character")
        << frame("{\"type\":\"hello\",\"version\":1,\"nodeName\":\"a\\u0001b\",\"agentVersion\":\"1\"}")
        << QStringLiteral("`nodeName` contains the control character 0x01");
    QTest::newRow("wrong version") << frame(
        "{\"type\":\"hello\",\"version\":9,\"nodeName\":\"a\",\"agentVersion\":\"1\"}")
                                   << QStringLiteral("protocol version 9 is not supported");
    QTest::newRow("heartbeat before join")
        << frame(protocol::encodeMessage(sampleHeartbeat(1))) << QStringLiteral("unexpected `heartbeat`");
    QTest::newRow("auth before hello") << frame(protocol::encodeMessage(protocol::Auth {}))
                                       << QStringLiteral("unexpected `auth`");
}

void TestProtocol::hostileClientIsDisconnected()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, logged);
    Loopback loop;
    QVERIFY2(loop.port != 0, loop.listenError.c_str());
    RawPeer peer(loop.io, loop.port);
    QVERIFY(peer.socket.is_open());
    peer.send(bytes.toStdString());
    peer.awaitClose();
    QVERIFY(runUntil(loop.io, [&] { return peer.closedByServer; }));
    QCOMPARE(loop.server->stats().badFrames, std::uint64_t { 1 });
    QVERIFY2(loop.logMentions(logged.toStdString()), loop.log.empty() ? "no log" : loop.log.back().c_str());
    QVERIFY(loop.joined.empty());
    QVERIFY(loop.heartbeats.empty());

    // The server is unharmed: a good agent joins afterwards.
    QVERIFY(loop.goodAgentJoins("good-node"));
    QCOMPARE(loop.joined.size(), std::size_t { 1 });
    QCOMPARE(loop.server->stats().agentsJoined, std::uint64_t { 1 });
    QCOMPARE(loop.server->stats().badFrames, std::uint64_t { 1 });
}

void TestProtocol::silentClientTimesOut()
{
    net::AgentServerConfig config;
    config.joinTimeout = 200ms;
    Loopback loop(config);
    QVERIFY2(loop.port != 0, loop.listenError.c_str());
    RawPeer peer(loop.io, loop.port);
    peer.awaitClose();
    QVERIFY(runUntil(
        loop.io, [&] { return peer.closedByServer; }, 3000ms));
    QCOMPARE(loop.server->stats().joinTimeouts, std::uint64_t { 1 });
    QVERIFY(loop.logMentions("did not complete the join within 200 ms"));
}

void TestProtocol::acceptFailureBacksOffAndRecovers()
{
    Loopback loop;
    QVERIFY2(loop.port != 0, loop.listenError.c_str());
    RawPeer peer(loop.io, loop.port); // queued in the listen backlog; not accepted until the io_context runs
    QVERIFY(peer.socket.is_open());
    // Out of descriptors: the lowest free descriptor number becomes the limit, so the server's accept fails (EMFILE).
    rlimit saved {};
    QCOMPARE(getrlimit(RLIMIT_NOFILE, &saved), 0);
    int lowestFree = 0;
    while (fcntl(lowestFree, F_GETFD) != -1)
        ++lowestFree;
    rlimit tight = saved;
    tight.rlim_cur = static_cast<rlim_t>(lowestFree);
    QCOMPARE(setrlimit(RLIMIT_NOFILE, &tight), 0);
    const bool failed = runUntil(
        loop.io, [&] { return loop.logMentions("accept failed"); }, 2000ms);
    const std::size_t failuresLogged = static_cast<std::size_t>(std::count_if(loop.log.begin(), loop.log.end(),
        [](const std::string& l) { return l.find("accept failed") != std::string::npos; }));
    // Give a spinning listener time to show itself: with the back-off, a few retries at most in 300 ms.
    runUntil(
        loop.io, [] { return false; }, 300ms);
    const auto retries = static_cast<std::size_t>(std::count_if(loop.log.begin(), loop.log.end(),
        [](const std::string& l) { return l.find("accept failed") != std::string::npos; }));
    QCOMPARE(setrlimit(RLIMIT_NOFILE, &saved), 0);
    QVERIFY(failed);
    QVERIFY(failuresLogged >= 1);
    QVERIFY2(retries <= 5, std::to_string(retries).c_str());
    QCOMPARE(loop.server->stats().connectionsAccepted, std::uint64_t { 0 });
    // Descriptors again: the queued connection is accepted on a retry and a good agent joins.
    QVERIFY(runUntil(
        loop.io, [&] { return loop.server->stats().connectionsAccepted >= 1; }, 3000ms));
    QVERIFY(loop.goodAgentJoins("after-emfile"));
}

void TestProtocol::shortJoinTokenIsRefused()
{
    net::AgentServerConfig config;
    config.joinToken = "tooshort";
    Loopback loop(config);
    QCOMPARE(loop.port, std::uint16_t { 0 });
    QVERIFY2(loop.listenError.find("at least 16") != std::string::npos, loop.listenError.c_str());
}

// TLS with certificates made by scripts/make-certs: an agent that trusts the CA and dials a name the certificate
// carries joins; one that trusts another CA, dials a name the certificate lacks, or speaks plain TCP does not; with
// client certificates required, an agent without one is refused too.
void TestProtocol::tlsJoinsAndRefusesWhatItMust()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString script = QStringLiteral(TIDEPOOL_SOURCE_DIR "/scripts/make-certs");
    for (const auto& [sub, args] : { std::pair { QStringLiteral("good"), QStringList { QStringLiteral("core.test"), QStringLiteral("node-1") } },
             std::pair { QStringLiteral("other"), QStringList { QStringLiteral("core.test") } } }) {
        QProcess make;
        make.start(QStringLiteral("bash"), QStringList { script, dir.filePath(sub) } + args);
        QVERIFY(make.waitForFinished(30'000));
        QVERIFY2(make.exitCode() == 0, make.readAllStandardError().constData());
    }
    const auto file = [&](const char* name) { return dir.filePath(QString::fromLatin1(name)).toStdString(); };
    auto serverTls = transport::makeServerContext({ file("good/core.pem"), file("good/core.key"), {} });
    QVERIFY2(serverTls, serverTls ? "" : serverTls.error().c_str());
    auto trusting = transport::makeClientContext({ file("good/ca.pem"), {}, {} });
    auto strange = transport::makeClientContext({ file("other/ca.pem"), {}, {} });
    QVERIFY(trusting && strange);
    QVERIFY(!transport::makeServerContext({ file("good/core.pem"), file("other/core.key"), {} })); // key mismatch
    const auto missing = transport::makeClientContext({ file("good/nope.pem"), {}, {} });
    QVERIFY(!missing);
    QVERIFY(missing.error().find("nope.pem") != std::string::npos);

    net::AgentServerConfig config;
    config.tls = *serverTls;
    Loopback loop(config);
    QVERIFY2(loop.port != 0, loop.listenError.c_str());
    const auto joins = [&](std::shared_ptr<asio::ssl::context> tls, const std::string& serverName,
                           std::vector<std::string>& closes) {
        auto c = loop.client(kToken, "node-" + std::to_string(loop.joined.size()), nullptr, std::move(tls), &closes, serverName);
        c->start();
        runUntil(loop.io, [&] {
            return c->state() == agent::AgentClient::State::Joined || c->state() == agent::AgentClient::State::Closed;
        });
        const bool joined = c->state() == agent::AgentClient::State::Joined;
        c->close("test done");
        return joined;
    };
    std::vector<std::string> closes;
    QVERIFY(joins(*trusting, {}, closes)); // dials 127.0.0.1, which the certificate names
    QVERIFY(joins(*trusting, "core.test", closes));
    closes.clear();
    QVERIFY(!joins(*strange, {}, closes)); // a certificate from a CA the agent does not trust
    QVERIFY2(!closes.empty() && closes[0].find("TLS handshake") != std::string::npos, closes.empty() ? "" : closes[0].c_str());
    closes.clear();
    QVERIFY(!joins(*trusting, "impostor.test", closes)); // chains to the CA but names another host
    QVERIFY(!closes.empty() && closes[0].find("TLS handshake") != std::string::npos);
    closes.clear();
    QVERIFY(!joins(nullptr, {}, closes)); // plain TCP to a TLS listener
    QVERIFY(runUntil(loop.io, [&] { return loop.server->stats().tlsHandshakeFailures >= 3; }));
    QCOMPARE(loop.joined.size(), std::size_t { 2 });

    // Client certificates required.
    auto mutualServer = transport::makeServerContext({ file("good/core.pem"), file("good/core.key"), file("good/ca.pem") });
    auto withCert = transport::makeClientContext({ file("good/ca.pem"), file("good/node-1.pem"), file("good/node-1.key") });
    QVERIFY(mutualServer && withCert);
    net::AgentServerConfig mutualConfig;
    mutualConfig.tls = *mutualServer;
    Loopback mutual(mutualConfig);
    const auto mutualJoins = [&](std::shared_ptr<asio::ssl::context> tls) {
        auto c = mutual.client(kToken, "node-1", nullptr, std::move(tls));
        c->start();
        runUntil(mutual.io, [&] { return c->state() == agent::AgentClient::State::Joined || c->state() == agent::AgentClient::State::Closed; });
        const bool joined = c->state() == agent::AgentClient::State::Joined;
        c->close("test done");
        return joined;
    };
    QVERIFY(mutualJoins(*withCert));
    QVERIFY(!mutualJoins(*trusting));
    QVERIFY(runUntil(mutual.io, [&] { return mutual.server->stats().tlsHandshakeFailures >= 1; }));
}

// Mutual TLS with certificates made in C++ (core/net/certificates.h): an agent whose certificate the CA signed joins;
// one whose certificate has expired, or was signed by another CA, is refused at the handshake, counted, and the log
// says what was wrong with the certificate.
void TestProtocol::expiredOrForeignAgentCertificateIsRefused()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto write = [&](const char* name, const std::string& content) {
        QFile f(dir.filePath(QString::fromLatin1(name)));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content.data(), static_cast<qint64>(content.size()));
    };
    const auto file = [&](const char* name) { return dir.filePath(QString::fromLatin1(name)).toStdString(); };
    auto ca = net::makeCertificateAuthority("test CA", 30);
    auto otherCa = net::makeCertificateAuthority("another CA", 30);
    QVERIFY(ca && otherCa);
    auto core = net::issueCertificate(*ca, { "core.test", { "core.test", "127.0.0.1" }, net::CertificateUsage::Server, 30, 0 });
    auto good = net::issueCertificate(*ca, { "node-1", { "node-1" }, net::CertificateUsage::Client, 30, 0 });
    // Valid for one day, three days ago.
    auto expired = net::issueCertificate(*ca, { "node-2", { "node-2" }, net::CertificateUsage::Client, 1, -3 * 86'400 });
    auto foreign = net::issueCertificate(*otherCa, { "node-3", { "node-3" }, net::CertificateUsage::Client, 30, 0 });
    QVERIFY(core && good && expired && foreign);
    QVERIFY(!net::issueCertificate(*ca, { "x", { "bad name!" }, net::CertificateUsage::Server, 30, 0 }));
    write("ca.pem", ca->certificatePem);
    write("core.pem", core->certificatePem);
    write("core.key", core->keyPem);
    for (const auto& [name, pair] : { std::pair { "good", &*good }, std::pair { "expired", &*expired }, std::pair { "foreign", &*foreign } }) {
        write((std::string(name) + ".pem").c_str(), pair->certificatePem);
        write((std::string(name) + ".key").c_str(), pair->keyPem);
    }

    auto server = transport::makeServerContext({ file("core.pem"), file("core.key"), file("ca.pem") });
    QVERIFY2(server, server ? "" : server.error().c_str());
    net::AgentServerConfig config;
    config.tls = *server;
    Loopback loop(config);
    QVERIFY2(loop.port != 0, loop.listenError.c_str());
    const auto joins = [&](const char* who, const std::string& node) {
        auto client = transport::makeClientContext(
            { file("ca.pem"), file((std::string(who) + ".pem").c_str()), file((std::string(who) + ".key").c_str()) });
        if (!client)
            return false;
        auto c = loop.client(kToken, node, nullptr, *client);
        c->start();
        runUntil(loop.io, [&] { return c->state() == agent::AgentClient::State::Joined || c->state() == agent::AgentClient::State::Closed; });
        const bool joined = c->state() == agent::AgentClient::State::Joined;
        c->close("test done");
        return joined;
    };
    QVERIFY(joins("good", "node-1"));
    QVERIFY(!joins("expired", "node-2"));
    QVERIFY(runUntil(loop.io, [&] { return loop.logMentions("certificate has expired"); }));
    QVERIFY(!joins("foreign", "node-3"));
    QVERIFY(runUntil(loop.io, [&] { return loop.server->stats().tlsHandshakeFailures >= 2; }));
    QVERIFY(loop.logMentions("unable to get local issuer certificate"));
    QCOMPARE(loop.joined.size(), std::size_t { 1 });
    QCOMPARE(loop.joined[0].hello.nodeName, std::string("node-1"));
}

void TestProtocol::bootstrapTokensHaveOneShape()
{
    auto made = protocol::makeBootstrapToken();
    QVERIFY(made);
    const std::string text = protocol::bootstrapTokenText(*made);
    QCOMPARE(text.size(), std::size_t { 5 + 16 + 1 + 64 });
    QVERIFY(protocol::parseBootstrapToken(text) == std::optional<protocol::BootstrapToken>(*made));
    QVERIFY(*protocol::makeBootstrapToken() != *made);
    for (const std::string& other : { kToken, text.substr(1), text + "0", "tpb1." + made->id + "-" + made->secret,
             "tpb1." + std::string(16, 'G') + "." + made->secret })
        QVERIFY2(!protocol::parseBootstrapToken(other), other.c_str());
    // A verifier with no shared token never takes an answer keyed with the empty token, which anyone could compute.
    const protocol::JoinVerifier verifier({}, { *made });
    const auto hello = helloFor("n1");
    auto pending = verifier.challenge(hello);
    QVERIFY(pending);
    const auto emptyKeyed = protocol::answerChallenge("", hello, pending->challenge);
    QVERIFY(emptyKeyed && !verifier.verify(*pending, *emptyKeyed));
    protocol::Hello named = hello;
    named.tokenId = made->id;
    auto bootstrapPending = verifier.challenge(named);
    QVERIFY(bootstrapPending);
    const auto answer = protocol::answerChallenge(text, named, bootstrapPending->challenge);
    QVERIFY(answer && verifier.verify(*bootstrapPending, *answer));
    // The secret keys the MAC: the token text as a shared token does not.
    const auto wrongKey = protocol::answerChallenge(made->secret + "x", named, bootstrapPending->challenge);
    QVERIFY(wrongKey && !verifier.verify(*bootstrapPending, *wrongKey));
    // The hello carries the id on the wire; the secret never.
    const std::string wire = protocol::encodeMessage(named);
    QVERIFY(wire.find(made->id) != std::string::npos);
    QVERIFY(wire.find(made->secret) == std::string::npos);
    QVERIFY(std::get<protocol::Hello>(*protocol::decodeMessage(wire)) == named);
}

namespace {

// Joins `node` with `token`; true once welcomed. `reason` receives the core's reject, if any.
bool joinsWith(Loopback& loop, const std::string& token, const std::string& node, std::string* reason = nullptr)
{
    std::vector<std::string> rejections;
    auto c = loop.client(token, node, &rejections);
    if (!c)
        return false;
    c->start();
    runUntil(loop.io, [&] { return c->state() == agent::AgentClient::State::Joined || c->state() == agent::AgentClient::State::Closed; });
    const bool joined = c->state() == agent::AgentClient::State::Joined;
    c->close("test done");
    if (reason && !rejections.empty())
        *reason = rejections.front();
    return joined;
}

std::vector<protocol::BootstrapToken> someBootstrapTokens(int n)
{
    std::vector<protocol::BootstrapToken> tokens;
    for (int i = 0; i < n; ++i)
        tokens.push_back(*protocol::makeBootstrapToken());
    return tokens;
}

} // namespace

// A bootstrap token joins the first node that uses it, and that node again (its reconnects); another node presenting
// it is refused with a reason naming the token and the node, logged and counted. Unknown tokens and, on a core that
// holds only bootstrap tokens, the shared token are refused too.
void TestProtocol::bootstrapTokenIsSingleUse()
{
    const auto tokens = someBootstrapTokens(2);
    const std::string first = protocol::bootstrapTokenText(tokens[0]);
    const std::string second = protocol::bootstrapTokenText(tokens[1]);
    net::AgentServerConfig config;
    config.bootstrapTokens = tokens;
    Loopback loop(config);
    QVERIFY2(loop.port != 0, loop.listenError.c_str());

    QVERIFY(joinsWith(loop, first, "node-a"));
    QCOMPARE(loop.server->tokenBindings().at(tokens[0].id), std::string("node-a"));
    QVERIFY(joinsWith(loop, first, "node-a")); // a reconnect
    std::string reason;
    QVERIFY(!joinsWith(loop, first, "node-b", &reason));
    QVERIFY2(reason.find("bootstrap token " + tokens[0].id + " was already used by node node-a") != std::string::npos,
        reason.c_str());
    QCOMPARE(loop.server->stats().tokenReuseRefused, std::uint64_t { 1 });
    QCOMPARE(loop.server->stats().joinsRejected, std::uint64_t { 1 });
    QVERIFY(loop.logMentions("bootstrap token " + tokens[0].id + " is already bound to node node-a"));
    QVERIFY(joinsWith(loop, second, "node-b"));

    reason.clear();
    const std::string unknown = protocol::bootstrapTokenText(*protocol::makeBootstrapToken());
    QVERIFY(!joinsWith(loop, unknown, "node-c", &reason));
    QVERIFY2(reason.find("unknown bootstrap token") != std::string::npos, reason.c_str());
    reason.clear();
    QVERIFY(!joinsWith(loop, kToken, "node-c", &reason));
    QVERIFY2(reason.find("bootstrap tokens only") != std::string::npos, reason.c_str());
    QCOMPARE(loop.server->stats().joinsRejected, std::uint64_t { 3 });
    QCOMPARE(loop.server->stats().tokenReuseRefused, std::uint64_t { 1 });
    QCOMPARE(loop.joined.size(), std::size_t { 3 });

    // The shared join token keeps working beside bootstrap tokens when the core has one.
    net::AgentServerConfig both;
    both.joinToken = kToken;
    both.bootstrapTokens = tokens;
    Loopback mixed(both);
    QVERIFY(joinsWith(mixed, kToken, "old-agent"));
    QVERIFY(joinsWith(mixed, first, "node-a"));
}

// The bindings a server made are what the next one starts from (tidepoold keeps them in its store): after a
// "restart", the bound node joins again and another is still refused. The welcome waits for the binding to be
// durable.
void TestProtocol::bootstrapTokenBindingsOutliveTheServer()
{
    const auto tokens = someBootstrapTokens(1);
    const std::string token = protocol::bootstrapTokenText(tokens[0]);
    std::map<std::string, std::string> durable;
    std::vector<net::BindingDone> waiting;
    net::AgentServerConfig config;
    config.bootstrapTokens = tokens;
    config.persistBinding = [&](const std::string& id, const std::string& node, net::BindingDone done) {
        durable[id] = node;
        waiting.push_back(std::move(done));
    };
    std::map<std::string, std::string> restored;
    {
        Loopback loop(config);
        auto c = loop.client(token, "node-a");
        c->start();
        QVERIFY(runUntil(loop.io, [&] { return !waiting.empty(); }));
        // Not welcomed before the binding is durable.
        runUntil(loop.io, [] { return false; }, 100ms);
        QVERIFY(c->state() != agent::AgentClient::State::Joined);
        QVERIFY(loop.joined.empty());
        waiting.front()(std::nullopt);
        QVERIFY(runUntil(loop.io, [&] { return c->state() == agent::AgentClient::State::Joined; }));
        c->close("test done");
        restored = loop.server->tokenBindings();
    }
    QVERIFY(durable == restored);
    net::AgentServerConfig again;
    again.bootstrapTokens = tokens;
    again.tokenBindings = durable;
    Loopback restarted(again);
    std::string reason;
    QVERIFY(!joinsWith(restarted, token, "node-b", &reason));
    QVERIFY2(reason.find("already used by node node-a") != std::string::npos, reason.c_str());
    QVERIFY(joinsWith(restarted, token, "node-a"));
}

// A binding that cannot be made durable admits nobody and is forgotten, so the token is not lost.
void TestProtocol::unrecordedBindingIsRefusedAndForgotten()
{
    const auto tokens = someBootstrapTokens(1);
    const std::string token = protocol::bootstrapTokenText(tokens[0]);
    bool failing = true;
    net::AgentServerConfig config;
    config.bootstrapTokens = tokens;
    config.persistBinding = [&](const std::string&, const std::string&, net::BindingDone done) {
        done(failing ? std::optional<std::string>("disk I/O error") : std::nullopt);
    };
    Loopback loop(config);
    std::string reason;
    QVERIFY(!joinsWith(loop, token, "node-a", &reason));
    QVERIFY2(reason.find("cannot record") != std::string::npos, reason.c_str());
    QVERIFY(loop.logMentions("disk I/O error"));
    QVERIFY(loop.server->tokenBindings().empty());
    failing = false;
    QVERIFY(joinsWith(loop, token, "node-b"));
    QCOMPARE(loop.server->tokenBindings().at(tokens[0].id), std::string("node-b"));
}

// The agent's lasting link: while the core is unreachable it keeps sampling into a bounded buffer (dropping the
// oldest), retries with back-off, and once the core is there joins, sends its inventory and flushes the buffer in
// its next heartbeat; when the core goes away again it reconnects by itself.
namespace {

// A port with nothing listening: taken, then closed.
std::uint16_t closedPort()
{
    Loopback probe;
    return probe.port;
}

// A lasting link of agent `node` to 127.0.0.1:`port`, sampling every `sampleInterval` into a buffer of `buffer`.
agent::AgentConnectionConfig connectionTo(std::uint16_t port, const std::string& node,
    std::chrono::milliseconds maxBackoff, std::chrono::milliseconds sampleInterval, std::size_t buffer,
    std::uint64_t seed)
{
    agent::AgentConnectionConfig config;
    config.client.host = "127.0.0.1";
    config.client.port = port;
    config.client.joinToken = kToken;
    config.client.hello = helloFor(node);
    config.client.hello.features = protocol::knownFeatures();
    config.initialBackoff = 20ms;
    config.maxBackoff = maxBackoff;
    config.sampleInterval = sampleInterval;
    config.telemetryBuffer = buffer;
    config.seed = seed;
    return config;
}

// Samples numbered from 1, each with one pool's use.
std::function<protocol::UtilisationSample()> onePoolSampler()
{
    return [clock = std::int64_t { 0 }]() mutable {
        protocol::UtilisationSample s;
        s.timestampMs = ++clock;
        s.pools.push_back({ "batch", 500, 64, -1.0 });
        return s;
    };
}

protocol::Inventory smallInventory()
{
    protocol::Inventory inv;
    inv.isa = "x86_64";
    inv.cpuMillis = 1000;
    inv.memoryMiB = 1024;
    return inv;
}

} // namespace

void TestProtocol::connectionBuffersTelemetryAndReconnects()
{
    const std::uint16_t port = closedPort();
    asio::io_context io;
    std::vector<protocol::Inventory> inventories;
    std::vector<protocol::Heartbeat> heartbeats;
    std::int64_t sampleClock = 0;
    const agent::AgentConnectionConfig config = connectionTo(port, "edge-1", 80ms, 10ms, 5, 7);
    agent::AgentConnectionHandlers handlers;
    handlers.inventory = smallInventory;
    handlers.sample = [&] {
        protocol::UtilisationSample s;
        s.timestampMs = ++sampleClock;
        return s;
    };
    auto connection = agent::AgentConnection::create(io, config, handlers, {});
    connection->start();
    QVERIFY(runUntil(io, [&] { return connection->stats().samplesDropped >= 3 && connection->stats().connects >= 3; }));
    QCOMPARE(connection->bufferedSamples(), std::size_t { 5 }); // bounded: the oldest went
    QVERIFY(!connection->joined());

    // The core appears on that port.
    net::AgentServerConfig serverConfig;
    serverConfig.joinToken = kToken;
    serverConfig.heartbeatIntervalMs = 10;
    net::AgentServerEvents events;
    events.inventory = [&](const std::string&, const protocol::Inventory& inv) { inventories.push_back(inv); };
    events.heartbeat = [&](const std::string&, const protocol::Heartbeat& h) { heartbeats.push_back(h); };
    auto server = net::AgentServer::create(io, serverConfig, events, {});
    QVERIFY(server->listen("127.0.0.1", port));
    QVERIFY(runUntil(io, [&] { return !heartbeats.empty(); }));
    QCOMPARE(inventories.size(), std::size_t { 1 });
    // The first heartbeat carries the buffered samples, newest last and in order; none of the kept ones is lost.
    QVERIFY(heartbeats[0].samples.size() >= 5);
    for (std::size_t i = 1; i < heartbeats[0].samples.size(); ++i)
        QCOMPARE(heartbeats[0].samples[i].timestampMs, heartbeats[0].samples[i - 1].timestampMs + 1);
    QCOMPARE(connection->bufferedSamples(), std::size_t { 0 });

    // The core goes away and comes back: the agent joins again by itself and sends its inventory again. Stopping, the
    // core told it so (a reject, cause closed) before the connection closed, rather than resetting it.
    QCOMPARE(connection->stats().rejections, std::uint64_t { 0 });
    server->dismissAll("the core is stopping");
    QVERIFY(runUntil(io, [&] { return !connection->joined(); }));
    QVERIFY(runUntil(io, [&] { return server->connectionCount() == 0; }));
    server->stop();
    QCOMPARE(connection->stats().rejections, std::uint64_t { 1 });
    QCOMPARE(connection->stats().displacements, std::uint64_t { 0 });
    auto again = net::AgentServer::create(io, serverConfig, events, {});
    QVERIFY(again->listen("127.0.0.1", port));
    QVERIFY(runUntil(io, [&] { return inventories.size() == 2 && connection->joined(); }));
    QVERIFY(connection->stats().joins >= 2);
    connection->stop();
    again->stop();
}

// Samples with many pools are large: an hour's backlog of them does not fit one frame. The agent sends it in
// heartbeats that do, a few per interval, and the core takes every one: no sample is lost or sent twice, and the
// connection stays up.
void TestProtocol::aBacklogGoesInHeartbeatsThatFitAFrame()
{
    const std::uint16_t port = closedPort();
    asio::io_context io;
    std::vector<protocol::Heartbeat> heartbeats;
    std::int64_t sampleClock = 0;
    const agent::AgentConnectionConfig config = connectionTo(port, "many-pools", 40ms, 5ms, 150, 3);
    agent::AgentConnectionHandlers handlers;
    handlers.inventory = smallInventory;
    const auto sampleAt = [](std::int64_t timestampMs) {
        protocol::UtilisationSample s;
        s.timestampMs = timestampMs;
        for (int p = 0; p < static_cast<int>(protocol::kMaxPoolsPerNode); ++p)
            s.pools.push_back({ "business-line-pool-" + std::to_string(p), 123456, 65536, 12345.678 });
        return s;
    };
    handlers.sample = [&] { return sampleAt(++sampleClock); };
    auto connection = agent::AgentConnection::create(io, config, handlers, {});
    connection->start();
    QVERIFY(runUntil(io, [&] { return connection->bufferedSamples() == config.telemetryBuffer; }));
    protocol::Heartbeat all;
    for (std::int64_t i = 0; i < 150; ++i)
        all.samples.push_back(sampleAt(i));
    QVERIFY(protocol::encodeMessage(all).size() > protocol::kDefaultMaxFrameBytes); // the backlog is over a frame

    net::AgentServerConfig serverConfig;
    serverConfig.joinToken = kToken;
    serverConfig.heartbeatIntervalMs = 50;
    net::AgentServerEvents events;
    events.heartbeat = [&](const std::string&, const protocol::Heartbeat& h) { heartbeats.push_back(h); };
    auto server = net::AgentServer::create(io, serverConfig, events, {});
    QVERIFY(server->listen("127.0.0.1", port));
    QVERIFY(runUntil(io, [&] { return connection->joined() && connection->bufferedSamples() <= 1; }));
    QVERIFY(runUntil(io, [&] { return !heartbeats.empty() && heartbeats.back().samples.size() == 1; }));
    QVERIFY2(heartbeats.size() >= 3, std::to_string(heartbeats.size()).c_str());
    QVERIFY(heartbeats.front().samples.size() > 1 && heartbeats.front().samples.size() < 150);
    // The pools went with them: this core reads them (and the agent would leave them out for one that does not).
    QCOMPARE(heartbeats.front().samples.front().pools.size(), protocol::kMaxPoolsPerNode);
    std::int64_t expected = heartbeats.front().samples.front().timestampMs;
    for (const protocol::Heartbeat& h : heartbeats)
        for (const protocol::UtilisationSample& s : h.samples)
            QCOMPARE(s.timestampMs, expected++);
    QCOMPARE(connection->stats().rejections, std::uint64_t { 0 });
    QCOMPARE(connection->stats().joins, std::uint64_t { 1 }); // the connection stayed up throughout
    connection->stop();
    server->stop();
}

// Features: the hello names what the agent speaks and the welcome what the core reads. Samples' pool usage goes only to
// a core that reads it (a test plays a core without it by taking the feature away), and the core takes every
// heartbeat either way; an agent from before features gets a welcome that names none, which it could not read.
void TestProtocol::featuresDecideWhatEachSideSends()
{
    for (const bool readsPools : { true, false }) {
        net::AgentServerConfig config;
        config.heartbeatIntervalMs = 10;
        if (!readsPools)
            config.features = { std::string(protocol::kFeatureIncarnation), "a-feature-this-agent-does-not-know" };
        Loopback loop(config);
        agent::AgentConnectionHandlers handlers;
        handlers.inventory = smallInventory;
        handlers.sample = onePoolSampler();
        auto connection = agent::AgentConnection::create(
            loop.io, connectionTo(loop.port, "edge-2", 80ms, 10ms, 16, 5), handlers, {});
        connection->start();
        QVERIFY(runUntil(loop.io, [&] { return loop.heartbeats.size() >= 3; }));
        QCOMPARE(loop.joined.size(), std::size_t { 1 });
        QCOMPARE(loop.joined[0].hello.features, protocol::knownFeatures());
        std::size_t samples = 0;
        for (const protocol::Heartbeat& h : loop.heartbeats)
            for (const protocol::UtilisationSample& s : h.samples) {
                QCOMPARE(s.pools.size(), std::size_t { readsPools ? 1u : 0u });
                ++samples;
            }
        QVERIFY(samples >= 3);
        QCOMPARE(loop.server->stats().badFrames, std::uint64_t { 0 });
        QCOMPARE(connection->stats().joins, std::uint64_t { 1 });
        connection->stop();
    }

    // A raw client: without features in its hello the welcome names none; with them, the core's.
    Loopback loop;
    for (const bool named : { false, true }) {
        agent::AgentClientConfig config;
        config.host = "127.0.0.1";
        config.port = loop.port;
        config.joinToken = kToken;
        config.hello = helloFor(named ? "with-features" : "from-before-features");
        if (named)
            config.hello.features = { "pool-usage" };
        auto client = *agent::AgentClient::create(loop.io, config, {}, {});
        client->start();
        QVERIFY(runUntil(loop.io, [&] { return client->state() == agent::AgentClient::State::Joined; }));
        QCOMPARE(client->welcome()->features, named ? protocol::knownFeatures() : std::vector<std::string> {});
        client->close("test done");
    }
}

// A core from before features refuses a hello that names them as it refuses any unknown field: it closes the
// connection without a word. The agent then joins without them (and sends no pool usage, which that core would refuse
// too); once that session ends, it tries them again, for the core may have been upgraded. Played here by a listener
// that reads the hello and closes, then a core of today on the same port.
void TestProtocol::aCoreFromBeforeFeaturesGetsAPlainHello()
{
    asio::io_context io;
    asio::ip::tcp::acceptor oldCore(io, { asio::ip::make_address("127.0.0.1"), 0 });
    const std::uint16_t port = oldCore.local_endpoint().port();
    asio::ip::tcp::socket peer(io);
    std::array<char, 4096> buffer {};
    protocol::FrameDecoder decoder(protocol::kDefaultMaxFrameBytes);
    std::vector<std::string> hellos;
    std::function<void()> readHello = [&] {
        peer.async_read_some(asio::buffer(buffer), [&](const boost::system::error_code& ec, std::size_t n) {
            if (ec)
                return;
            if (!decoder.feed(std::string_view(buffer.data(), n), hellos) || !hellos.empty()) {
                peer.close(); // a strict decoder that meets an unknown field: a bad frame, closed without a word
                oldCore.close();
                return;
            }
            readHello();
        });
    };
    oldCore.async_accept(peer, [&](const boost::system::error_code& ec) {
        if (!ec)
            readHello();
    });

    std::vector<std::string> log;
    agent::AgentConnectionHandlers handlers;
    handlers.inventory = smallInventory;
    handlers.sample = onePoolSampler();
    auto connection = agent::AgentConnection::create(io, connectionTo(port, "edge-3", 40ms, 10ms, 16, 9), handlers,
        [&](std::string_view line) { log.emplace_back(line); });
    connection->start();
    QVERIFY(runUntil(io, [&] { return connection->stats().plainHellos == 1; }));
    QCOMPARE(hellos.size(), std::size_t { 1 });
    QVERIFY2(hellos[0].find("\"features\":[\"incarnation\",\"pool-usage\"") != std::string::npos, hellos[0].c_str());
    QVERIFY(mentions(log, "joining again without them"));

    std::vector<net::JoinedAgent> joined;
    std::vector<protocol::Heartbeat> heartbeats;
    net::AgentServerConfig serverConfig;
    serverConfig.joinToken = kToken;
    serverConfig.heartbeatIntervalMs = 10;
    net::AgentServerEvents events;
    events.joined = [&](const net::JoinedAgent& agent) { joined.push_back(agent); };
    events.heartbeat = [&](const std::string&, const protocol::Heartbeat& h) { heartbeats.push_back(h); };
    auto server = net::AgentServer::create(io, serverConfig, events, {});
    QVERIFY(server->listen("127.0.0.1", port));
    QVERIFY(runUntil(io, [&] { return heartbeats.size() >= 2; }));
    QCOMPARE(joined.size(), std::size_t { 1 });
    QVERIFY(joined[0].hello.features.empty()); // the plain hello
    for (const protocol::Heartbeat& h : heartbeats)
        for (const protocol::UtilisationSample& s : h.samples)
            QVERIFY(s.pools.empty()); // its welcome named no features: nothing it might refuse

    // The session ends (the core restarts, upgraded say): the next join names the features again, and pools follow.
    server->dismissAll("the core is stopping");
    QVERIFY(runUntil(io, [&] { return !connection->joined() && server->connectionCount() == 0; }));
    server->stop();
    auto upgraded = net::AgentServer::create(io, serverConfig, events, {});
    QVERIFY(upgraded->listen("127.0.0.1", port));
    QVERIFY(runUntil(io, [&] { return joined.size() == 2 && connection->joined(); }));
    QCOMPARE(joined[1].hello.features, protocol::knownFeatures());
    heartbeats.clear();
    QVERIFY(runUntil(io, [&] { return !heartbeats.empty() && !heartbeats.back().samples.empty(); }));
    QCOMPARE(heartbeats.back().samples.back().pools.size(), std::size_t { 1 });
    QCOMPARE(connection->stats().plainHellos, std::uint64_t { 1 });
    QCOMPARE(upgraded->stats().badFrames, std::uint64_t { 0 });
    connection->stop();
    upgraded->stop();
}

// Only a core that ends the stream on the hello is taken for one from before features: a connection reset on the
// hello (a network failure, a core that died with the hello unread) or a core that says nothing until the join times
// out is not, and the next hello names the features again.
void TestProtocol::aResetOrSilenceOnTheHelloKeepsTheFeatures()
{
    asio::io_context io;
    asio::ip::tcp::acceptor listener(io, { asio::ip::make_address("127.0.0.1"), 0 });
    const std::uint16_t port = listener.local_endpoint().port();
    std::array<char, 4096> buffer {};
    std::vector<std::string> hellos;
    std::vector<std::shared_ptr<asio::ip::tcp::socket>> kept; // the silent ones, held open
    std::function<void()> accept = [&] {
        auto peer = std::make_shared<asio::ip::tcp::socket>(io);
        listener.async_accept(*peer, [&, peer](const boost::system::error_code& ec) {
            if (ec)
                return;
            auto decoder = std::make_shared<protocol::FrameDecoder>(protocol::kDefaultMaxFrameBytes);
            auto read = std::make_shared<std::function<void()>>();
            *read = [&, peer, decoder, read] {
                peer->async_read_some(
                    asio::buffer(buffer), [&, peer, decoder, read](const boost::system::error_code& e, std::size_t n) {
                        if (e)
                            return;
                        const std::size_t before = hellos.size();
                        if (!decoder->feed(std::string_view(buffer.data(), n), hellos))
                            return;
                        if (hellos.size() == before)
                            return (*read)();
                        if (hellos.size() == 1) { // the first: reset (a linger of 0 makes the close an RST)
                            peer->set_option(asio::socket_base::linger(true, 0));
                            peer->close();
                        } else {
                            kept.push_back(peer); // the second: silence until the agent's join timeout
                        }
                    });
            };
            (*read)();
            accept();
        });
    };
    accept();

    std::vector<std::string> log;
    agent::AgentConnectionHandlers handlers;
    handlers.inventory = smallInventory;
    handlers.sample = onePoolSampler();
    agent::AgentConnectionConfig config = connectionTo(port, "edge-4", 40ms, 10ms, 16, 11);
    config.client.joinTimeout = 100ms;
    auto connection
        = agent::AgentConnection::create(io, config, handlers, [&](std::string_view line) { log.emplace_back(line); });
    connection->start();
    QVERIFY(runUntil(io, [&] { return hellos.size() >= 3; }));
    for (const std::string& hello : hellos)
        QVERIFY2(hello.find("\"features\":[\"incarnation\",\"pool-usage\"") != std::string::npos, hello.c_str());
    QCOMPARE(connection->stats().plainHellos, std::uint64_t { 0 });
    QVERIFY(!mentions(log, "joining again without them"));
    QVERIFY(mentions(log, "no welcome within"));
    connection->stop();
    listener.close();
}

// Bounded write queues: the core closes the connection of an agent whose queue is full (it does not read); the agent
// drops frames (and counts them) while its queue to a slow core is full. Frames are queued without running the
// io_context in between, so that no write can complete.
void TestProtocol::fullWriteQueuesCloseOrDrop()
{
    net::AgentServerConfig config;
    config.maxQueuedFrames = 4;
    Loopback loop(config);
    auto client = loop.client(kToken, "slow-reader");
    client->start();
    QVERIFY(runUntil(loop.io, [&] { return client->state() == agent::AgentClient::State::Joined; }));
    const std::string session = loop.joined.at(0).sessionId;
    int accepted = 0;
    for (int i = 0; i < 10; ++i)
        accepted += loop.server->send(session, protocol::Stop { i + 1, 0, std::nullopt }) ? 1 : 0;
    QCOMPARE(accepted, 4); // one in flight plus three queued; the fifth finds four frames waiting and closes
    QVERIFY(loop.logMentions("does not read: 4 frames queued"));
    QVERIFY(!loop.server->send(session, protocol::Stop { 99, 0, std::nullopt }));

    Loopback other;
    agent::AgentClientConfig clientConfig;
    clientConfig.host = "127.0.0.1";
    clientConfig.port = other.port;
    clientConfig.joinToken = kToken;
    clientConfig.hello = helloFor("chatty");
    clientConfig.maxQueuedFrames = 8;
    auto chatty = *agent::AgentClient::create(other.io, clientConfig, {}, {});
    chatty->start();
    QVERIFY(runUntil(other.io, [&] { return chatty->state() == agent::AgentClient::State::Joined; }));
    int sent = 0;
    for (int i = 1; i <= 20; ++i)
        sent += chatty->sendHeartbeat(sampleHeartbeat(static_cast<std::uint64_t>(i))) ? 1 : 0;
    QCOMPARE(sent, 8);
    QCOMPARE(chatty->droppedFrames(), std::uint64_t { 12 });
    QCOMPARE(chatty->state(), agent::AgentClient::State::Joined); // dropping is not closing
    QVERIFY(runUntil(other.io, [&] { return other.heartbeats.size() == 8; }));
    chatty->close("test done");
}

// Two agents under one node name: each join pushes the other's session off. The core tells the agent it pushes off
// why (a `reject`, cause `replaced`, written before the session closes); that agent says so in its log and waits before
// it joins again, twice as long with each displacement in a row, instead of pushing the other off at once in turn.
void TestProtocol::aDisplacedAgentIsToldWhyAndBacksOff()
{
    LiveCore core;
    QVERIFY(core.port);
    std::vector<std::string> firstLog, secondLog;
    auto config = core.agentConfig();
    config.displacedBackoff = 100ms;
    config.maxDisplacedBackoff = 1600ms;
    const agent::FleetNodeSpec twin { "twin", "x86_64", 4000, 8192, {} };
    config.seed = 1;
    agent::SimulatedAgent first(
        core.io, twin, config, nullptr, 1.0, 0.0, [&](std::string_view line) { firstLog.emplace_back(line); });
    config.seed = 2;
    agent::SimulatedAgent second(
        core.io, twin, config, nullptr, 1.0, 0.0, [&](std::string_view line) { secondLog.emplace_back(line); });
    first.start();
    QVERIFY(runUntil(core.io, [&] {
        const api::LiveNode* node = core.plane->nodeByName("twin");
        return first.joined() && node && node->state == api::NodeState::Ready;
    }));
    second.start();
    QVERIFY(runUntil(core.io, [&] { return first.connection().stats().displacements == 1 && second.joined(); }));
    // Told why, and says so: who joined under its name, and when it tries again.
    QVERIFY(mentions(firstLog, "agent: the core ended the session (replaced): another agent joined as node twin from"));
    QVERIFY(mentions(firstLog, "agent: displaced: another agent joined as node twin"));
    QVERIFY(mentions(firstLog, "is another agent running as twin? joining again in"));
    QVERIFY(core.plane->stats().sessionsReplaced >= 1);
    const auto firstWait = first.connection().stats().lastDisplacedWait;
    QVERIFY2(firstWait >= 50ms && firstWait <= 100ms, std::to_string(firstWait.count()).c_str());

    // They take turns, each waiting longer with each displacement in a row: 100, 200, 400, 800, 1600 ms at most.
    QVERIFY(runUntil(
        core.io,
        [&] { return first.connection().stats().displacements >= 4 && second.connection().stats().displacements >= 3; },
        20s));
    for (const agent::SimulatedAgent* twinAgent : { &first, &second }) {
        const auto& stats = twinAgent->connection().stats();
        QVERIFY2(stats.displacedInARow >= 3, std::to_string(stats.displacedInARow).c_str());
        const auto full = std::min(100ms * (1 << (stats.displacedInARow - 1)), 1600ms);
        QVERIFY2(stats.lastDisplacedWait >= full / 2 && stats.lastDisplacedWait <= full,
            (std::to_string(stats.lastDisplacedWait.count()) + " ms after " + std::to_string(stats.displacedInARow)
                + " in a row")
                .c_str());
        // Flapping would have joined hundreds of times in these seconds.
        QVERIFY2(stats.joins <= stats.displacements + 1, std::to_string(stats.joins).c_str());
    }
    first.stop();
    second.stop();
}

// A reconnect that stops more workloads than the session's queue holds: the core sends them within its stop window,
// each answer lets the next go, and every one is answered while the session stays up (without the window the queue
// overflows, the session is closed, and every rejoin sends them all again).
void TestProtocol::stopsToOneNodeAreWindowedAndAllAnswered()
{
    api::ControlPlaneConfig planeConfig;
    planeConfig.launchWindow = 16;
    planeConfig.stopWindow = 16;
    net::AgentServerConfig serverConfig;
    serverConfig.maxQueuedFrames = 64;
    LiveCore core(planeConfig, serverConfig);
    QVERIFY(core.port);
    agent::SimulatedAgent node(core.io, agent::FleetNodeSpec { "busy", "x86_64", 64'000, 65'536, {} },
        core.agentConfig(), nullptr, 1.0, 0.0, {});
    node.start();
    QVERIFY(runUntil(core.io, [&] {
        const api::LiveNode* live = core.plane->nodeByName("busy");
        return live && live->state == api::NodeState::Ready;
    }));
    constexpr int kWorkloads = 300;
    std::vector<WorkloadId> ids;
    for (int i = 0; i < kWorkloads; ++i) {
        api::SubmitRequest tiny;
        tiny.name = "tiny-" + std::to_string(i);
        tiny.requests.cpuMillis = 10;
        tiny.requests.memoryMiB = 1;
        tiny.argv = { "/bin/true" };
        auto id = core.plane->submit(tiny);
        QVERIFY(id);
        ids.push_back(*id);
    }
    QVERIFY(runUntil(
        core.io, [&] { return node.running() == kWorkloads; }, 20s));
    // The node goes away; everything it runs is cancelled meanwhile; it comes back running all of it.
    node.stop();
    QVERIFY(runUntil(core.io, [&] { return core.plane->nodeByName("busy")->sessionId.empty(); }));
    for (const WorkloadId id : ids)
        QVERIFY(core.plane->cancel(id));
    const auto joinsBefore = core.server->stats().agentsJoined;
    node.start();
    QVERIFY2(runUntil(
                 core.io, [&] { return node.running() == 0; }, 20s),
        std::to_string(node.running()).c_str());
    QCOMPARE(node.stats().stops, std::uint64_t { kWorkloads });
    QCOMPARE(core.plane->stats().stopsSent, std::uint64_t { kWorkloads });
    // One join, and the session it made stays up.
    QCOMPARE(core.server->stats().agentsJoined, joinsBefore + 1);
    const std::string session = core.plane->nodeByName("busy")->sessionId;
    QVERIFY(!session.empty());
    QVERIFY(!mentions(core.log, "does not read"));
    runUntil(
        core.io, [] { return false; }, 300ms);
    QCOMPARE(core.plane->nodeByName("busy")->sessionId, session);
    QVERIFY(core.plane->nodeByName("busy")->stopsInFlight.empty());
    node.stop();
}

QTEST_APPLESS_MAIN(TestProtocol)
#include "tst_protocol.moc"

