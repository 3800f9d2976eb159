#pragma once
// Shared by the daemon suites: a blocking HTTP/1.1 request over loopback, polling with a deadline, starting
// tidepoold on ephemeral ports (read back from its "ready" log line), and reading one /metrics series.

#include <QProcess>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <thread>

namespace harness {

namespace http = boost::beast::http;

inline const QString kBin = QStringLiteral(TIDEPOOL_BIN_DIR);

struct Reply {
    int status = 0;
    std::string body;
    std::string allow; // the `Allow` header of a 405
    nlohmann::json data() const { return nlohmann::json::parse(body, nullptr, false); }
};

inline Reply request(std::uint16_t port, http::verb verb, const std::string& target, const std::string& token,
    const std::string& body = {})
{
    boost::asio::io_context io;
    boost::asio::ip::tcp::socket socket(io);
    boost::system::error_code ec;
    socket.connect({ boost::asio::ip::make_address("127.0.0.1"), port }, ec);
    if (ec)
        return { -1, ec.message(), {} };
    http::request<http::string_body> req { verb, target, 11 };
    req.set(http::field::host, "127.0.0.1");
    if (!token.empty())
        req.set(http::field::authorization, "Bearer " + token);
    if (!body.empty()) {
        req.set(http::field::content_type, "application/json");
        req.body() = body;
    }
    req.prepare_payload();
    http::write(socket, req, ec);
    if (ec)
        return { -1, ec.message(), {} };
    boost::beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(socket, buffer, res, ec);
    if (ec)
        return { -1, ec.message(), {} };
    return { static_cast<int>(res.result_int()), res.body(), std::string(res[http::field::allow]) };
}

inline bool waitFor(const std::function<bool()>& condition, int timeoutMs)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (std::chrono::steady_clock::now() < deadline) {
        if (condition())
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return condition();
}

// The value of one series ("tidepool_nodes{state=\"ready\"}") on /metrics, or -1.
inline double metric(std::uint16_t apiPort, const std::string& series)
{
    const Reply r = request(apiPort, http::verb::get, "/metrics", {});
    if (r.status != 200)
        return -1;
    const std::string prefix = series + " ";
    std::size_t at = 0;
    while ((at = r.body.find(prefix, at)) != std::string::npos) {
        if (at == 0 || r.body[at - 1] == '\n')
            return std::stod(r.body.substr(at + prefix.size()));
        at += prefix.size();
    }
    return -1;
}

// Starts tidepoold with `args` (which should listen on port 0 or fixed ports) and waits for its "ready" line;
// fills the bound ports. `log` collects its stderr so far.
inline bool startDaemon(QProcess& daemon, const QStringList& args, std::uint16_t& agentPort, std::uint16_t& apiPort,
    QString& log)
{
    daemon.setProcessChannelMode(QProcess::SeparateChannels);
    daemon.start(kBin + QStringLiteral("/tidepoold"), args);
    if (!daemon.waitForStarted(5000))
        return false;
    const QRegularExpression ready(
        QStringLiteral("ready: agents on 127\\.0\\.0\\.1:(\\d+), API on 127\\.0\\.0\\.1:(\\d+)"));
    log.clear();
    return waitFor(
        [&] {
            daemon.waitForReadyRead(50);
            log += QString::fromUtf8(daemon.readAllStandardError());
            const auto match = ready.match(log);
            if (!match.hasMatch())
                return false;
            agentPort = static_cast<std::uint16_t>(match.captured(1).toUInt());
            apiPort = static_cast<std::uint16_t>(match.captured(2).toUInt());
            return true;
        },
        10'000);
}

} // namespace harness
