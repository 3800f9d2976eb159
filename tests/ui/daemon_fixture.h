#pragma once
// Shared by the console suites that run real processes: the bin directory's `tidepoold` and `tidepool-fleet` started
// on loopback with fresh tokens, a database seeded with a week of history (so that an evaluation proposes quota
// raises), and API calls through the real `api::ApiClient`. Every process started here dies with the test
// (`PR_SET_PDEATHSIG`) should it end without cleaning up.

#include "core/api/api_client.h"
#include "core/api/control_plane.h"
#include "core/model/pool.h"
#include "core/store/store.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <QDeadlineTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <sys/prctl.h>

#include <cmath>
#include <csignal>

namespace fixture {

using nlohmann::json;
using namespace tidepool;

inline QString binary(const char* name)
{
    return QString::fromUtf8(TIDEPOOL_BIN_DIR) + QLatin1Char('/') + QString::fromUtf8(name);
}

inline QString randomToken()
{
    static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    QString token;
    for (int i = 0; i < 32; ++i)
        token += QLatin1Char(kAlphabet[QRandomGenerator::system()->bounded(int(sizeof kAlphabet) - 1)]);
    return token;
}

inline QString writeFile(const QString& path, const QByteArray& content)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(content) != content.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

inline void killWithParent(QProcess& process)
{
    process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
}

// A loopback port held open for as long as it lives (a busy port), or released at once (`freePort`).
struct BoundPort {
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor acceptor { io,
        boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0) };
    std::uint16_t port() const { return acceptor.local_endpoint().port(); }
};

// A port nothing listens on (bound, then released).
inline std::uint16_t freePort()
{
    return BoundPort().port();
}

// A database as a daemon would have left it after a week (as tst_ctl and tst_durability seed it): pools web-0 and
// web-1 (4000 mCPU quota each) whose CPU demand swings daily up to 4500 mCPU with the peak 30 minutes from now, and a
// pool "batch" with slack to give, so that an evaluation proposes raising each web pool.
inline void seedWeekOfHistory(const std::string& path)
{
    auto opened = store::openSqliteStore(path);
    QVERIFY(opened);
    store::Store& s = **opened;
    constexpr std::int64_t kStep = store::kAggregateBucketMs;
    const std::int64_t now = api::unixMillis() / kStep * kStep;
    const double pi = std::acos(-1.0);
    std::vector<store::Sample> samples;
    for (int i = 0; i < 2; ++i) {
        const std::string name = "web-" + std::to_string(i);
        s.putPool({ name, "web", "", 4000, kUnlimited, 100 });
        for (std::int64_t t = now - 7 * 86'400'000LL; t < now; t += kStep)
            samples.push_back({ { "pool", name, "cpu" }, t,
                3000 + 1500 * std::cos(2 * pi * static_cast<double>(t - now - 1'800'000) / 86'400'000.0) });
    }
    for (std::int64_t t = now - 7 * 86'400'000LL; t < now; t += kStep)
        samples.push_back({ { "pool", "batch", "cpu" }, t, 2000.0 });
    s.putPool({ "batch", "research", "", 1'000'000, kUnlimited, 100 });
    s.addSamples(samples);
    QVERIFY(s.commit());
    QVERIFY(s.maintain(now, store::Retention { 0, 0, 0, 0 }));
}

// Starts tidepoold on ephemeral ports (or `apiListen`), logging to `log`; returns its API port once both listeners
// are bound and its agent port in `agentPort`; 0 when it stopped before (the log says why).
inline std::uint16_t startDaemon(QProcess& daemon, const QStringList& args, const QString& log,
    std::uint16_t* agentPort = nullptr, const QString& apiListen = QStringLiteral("127.0.0.1:0"))
{
    killWithParent(daemon);
    daemon.setStandardOutputFile(log);
    daemon.setStandardErrorFile(log, QIODevice::Append);
    daemon.start(binary("tidepoold"),
        QStringList { QStringLiteral("--agent-listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--api-listen"),
            apiListen, QStringLiteral("--heartbeat-interval-ms"), QStringLiteral("200"),
            QStringLiteral("--suspect-after-ms"), QStringLiteral("1000"), QStringLiteral("--lost-after-ms"),
            QStringLiteral("2000") }
            + args);
    if (!daemon.waitForStarted())
        return 0;
    const QRegularExpression ready(
        QStringLiteral("ready: agents on 127\\.0\\.0\\.1:(\\d+), API on 127\\.0\\.0\\.1:(\\d+)"));
    for (QDeadlineTimer deadline(15'000); !deadline.hasExpired() && daemon.state() == QProcess::Running;
         QTest::qWait(50)) {
        QFile file(log);
        const QRegularExpressionMatch match = file.open(QIODevice::ReadOnly)
            ? ready.match(QString::fromUtf8(file.readAll()))
            : QRegularExpressionMatch();
        if (!match.hasMatch())
            continue;
        if (agentPort)
            *agentPort = static_cast<std::uint16_t>(match.captured(1).toUInt());
        return static_cast<std::uint16_t>(match.captured(2).toUInt());
    }
    return 0;
}

inline bool startFleet(QProcess& fleet, std::uint16_t agentPort, const QString& joinFile, int nodes, const QString& log)
{
    killWithParent(fleet);
    fleet.setStandardOutputFile(log);
    fleet.setStandardErrorFile(log, QIODevice::Append);
    fleet.start(binary("tidepool-fleet"),
        { QStringLiteral("--core"), QStringLiteral("127.0.0.1:") + QString::number(agentPort),
            QStringLiteral("--join-token-file"), joinFile, QStringLiteral("--nodes"), QString::number(nodes),
            QStringLiteral("--report-every"), QStringLiteral("0") });
    return fleet.waitForStarted();
}

inline void stopProcess(QProcess* process)
{
    if (!process || process->state() == QProcess::NotRunning)
        return;
    process->terminate();
    if (!process->waitForFinished(5'000)) {
        process->kill();
        process->waitForFinished();
    }
}

// One API call; a discarded JSON value when it failed or did not answer JSON, with the status in `status`.
inline json call(std::uint16_t port, const std::string& token, api::HttpMethod method, const std::string& target,
    const std::string& body = {}, int* status = nullptr)
{
    api::ApiClient client("127.0.0.1", port, token);
    auto response = client.request(method, target, body);
    if (status)
        *status = response ? response->status : -1;
    return response ? json::parse(response->body, nullptr, false) : json(json::value_t::discarded);
}

} // namespace fixture
