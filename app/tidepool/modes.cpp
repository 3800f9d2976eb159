#include "app/tidepool/modes.h"

#include "core/api/api_client.h"
#include "core/api/daemon_config.h"
#include "core/api/operator_tokens.h"
#include "core/store/store.h"
#include "ui/bridge/core_bridge.h"
#include "ui/bridge/embedded_backend.h"
#include "ui/bridge/remote_backend.h"
#include "ui/remote_text.h"
#include "ui/settings.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include <cstdio>
#include <string>
#include <vector>

namespace tidepool::app {

namespace {

tl::unexpected<QString> failure(const QString& message)
{
    return tl::unexpected(message);
}

// A port option: 1 to 65535, or 0 where `allowZero` (pick a free one).
tl::expected<int, QString> portValue(const QCommandLineParser& parser, const QString& name, int fallback)
{
    if (!parser.isSet(name))
        return fallback;
    bool ok = false;
    const int port = parser.value(name).toInt(&ok);
    if (!ok || port < 0 || port > 65535)
        return failure(QCoreApplication::translate("main", "--%1 must be a port number from 0 to 65535").arg(name));
    return port;
}

// The embedded core's join token: the file given, or one under the data folder, made with a fresh random token on
// the first run (mode 0600) so that a single box works at once; its path is printed for the agents' operators.
tl::expected<QString, QString> joinTokenFile(const ModeChoice& choice, const QString& dataDir)
{
    if (!choice.joinTokenFile.isEmpty())
        return choice.joinTokenFile;
    const QString path = QDir(dataDir).filePath(QStringLiteral("join.token"));
    if (!QFile::exists(path)) {
        QFile file(path);
        const QByteArray token = QByteArray::fromStdString(api::generateToken()) + '\n';
        if (!file.open(QIODevice::WriteOnly | QIODevice::NewOnly)
            || !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)
            || file.write(token) != token.size())
            return failure(QCoreApplication::translate("main", "cannot write the join token file %1: %2")
                               .arg(path, file.errorString()));
        std::fprintf(stderr, "%s\n",
            qPrintable(QCoreApplication::translate(
                "main", "tidepool: made a join token for agents in %1 (give it to tidepool-agent --join-token-file)")
                           .arg(path)));
    }
    return path;
}

tl::expected<std::unique_ptr<ui::ConsoleBackend>, QString> startEmbedded(
    const ModeChoice& choice, ui::ConsoleEvents events)
{
    const QString dataDir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (dataDir.isEmpty() || !QDir().mkpath(dataDir))
        return failure(QCoreApplication::translate("main", "cannot create the data folder %1").arg(dataDir));
    const QString db = choice.db.isEmpty() ? QDir(dataDir).filePath(QStringLiteral("tidepool.db")) : choice.db;
    if (!store::isPostgresLocation(db.toStdString()) && !QFileInfo(QFileInfo(db).absolutePath()).isDir())
        return failure(QCoreApplication::translate("main", "--db: the folder %1 does not exist")
                           .arg(QFileInfo(db).absolutePath()));
    auto joinFile = joinTokenFile(choice, dataDir);
    if (!joinFile)
        return tl::unexpected(joinFile.error());
    // The daemon's own option parser checks everything as it does for tidepoold (token files, the config file).
    std::vector<std::string> args { "tidepool", "--agent-listen", "0.0.0.0:" + std::to_string(choice.agentPort), "--db",
        db.toStdString(), "--join-token-file", joinFile->toStdString(), "--api-listen",
        choice.apiPort > 0 ? "127.0.0.1:" + std::to_string(choice.apiPort) : std::string() };
    if (!choice.operatorTokenFile.isEmpty())
        args.insert(args.end(), { "--operator-token-file", choice.operatorTokenFile.toStdString() });
    if (!choice.coreConfig.isEmpty())
        args.insert(args.end(), { "--config", choice.coreConfig.toStdString() });
    std::vector<const char*> argv;
    for (const std::string& arg : args)
        argv.push_back(arg.c_str());
    auto config = api::parseDaemonConfig(static_cast<int>(argv.size()), argv.data());
    if (!config)
        return failure(QString::fromStdString(config.error().message));
    for (const std::string& warning : config->warnings)
        std::fprintf(stderr, "tidepool: warning: %s\n", warning.c_str());
    ui::EmbeddedConfig embedded;
    embedded.core = std::move(*config);
    return std::make_unique<ui::EmbeddedBackend>(std::move(embedded), std::move(events));
}

tl::expected<std::unique_ptr<ui::ConsoleBackend>, QString> startRemote(
    const ModeChoice& choice, ui::ConsoleEvents events)
{
    auto endpoint = ui::parseConnectUrl(choice.url.toStdString());
    if (!endpoint)
        return failure(QStringLiteral("--connect: ") + QString::fromStdString(endpoint.error().message));
    QString tokenFile = choice.tokenFile;
    if (tokenFile.isEmpty())
        tokenFile = qEnvironmentVariable("TIDEPOOL_TOKEN_FILE");
    if (tokenFile.isEmpty())
        return failure(QCoreApplication::translate(
            "main", "no operator token: give --token-file FILE or set TIDEPOOL_TOKEN_FILE"));
    auto token = api::readSecretFile(tokenFile.toStdString(), "operator token");
    if (!token)
        return failure(QString::fromStdString(token.error().message));
    ui::RemoteConfig config;
    const QString& caFile = choice.caFile;
    if (endpoint->tls) {
        // Checked here, so that an unreadable CA file is said at once instead of as a connection that keeps failing.
        api::ApiClient probe(endpoint->host, endpoint->port, {});
        if (auto usable = probe.useTls(caFile.toStdString()); !usable)
            return failure(QStringLiteral("--ca: ") + QString::fromStdString(usable.error().message));
    }
    config.caFile = caFile.toStdString();
    config.endpoint = std::move(*endpoint);
    config.token = std::move(*token);
    config.describe = ui::remoteProblemText;
    return std::make_unique<ui::RemoteBackend>(std::move(config), std::move(events));
}

} // namespace

void addModeOptions(QCommandLineParser& parser)
{
    parser.addOptions({
        { QStringLiteral("connect"),
            QCoreApplication::translate(
                "main", "Attach to a running tidepoold through its API (http://HOST:PORT or https://HOST:PORT)."),
            QStringLiteral("URL") },
        { QStringLiteral("ca"),
            QCoreApplication::translate("main",
                "With --connect https://…: the CA (PEM) the daemon's certificate must chain to (default $TIDEPOOL_CA, "
                "else the system's trust store)."),
            QStringLiteral("FILE") },
        { QStringLiteral("reconnect"),
            QCoreApplication::translate("main", "Attach to the tidepoold the console was last attached to.") },
        { QStringLiteral("token-file"),
            QCoreApplication::translate(
                "main", "The operator token for --connect, first line of FILE (default $TIDEPOOL_TOKEN_FILE)."),
            QStringLiteral("FILE") },
        { QStringLiteral("db"),
            QCoreApplication::translate(
                "main", "The embedded core's store: a SQLite database, or a postgresql:// URL (default: a SQLite "
                        "database in the user's data folder)."),
            QStringLiteral("PATH|URL") },
        { QStringLiteral("agent-port"),
            QCoreApplication::translate("main", "The port agents join the embedded core on (default 7070)."),
            QStringLiteral("PORT") },
        { QStringLiteral("join-token-file"),
            QCoreApplication::translate(
                "main", "The join token agents authenticate with (default: made in the user's data folder)."),
            QStringLiteral("FILE") },
        { QStringLiteral("api-port"),
            QCoreApplication::translate(
                "main", "Serve the embedded core's HTTP API on 127.0.0.1:PORT (needs --operator-token-file)."),
            QStringLiteral("PORT") },
        { QStringLiteral("operator-token-file"),
            QCoreApplication::translate("main", "The operator tokens of the embedded core's HTTP API."),
            QStringLiteral("FILE") },
        { QStringLiteral("core-config"),
            QCoreApplication::translate("main", "The embedded core's settings, a tidepoold JSON config file."),
            QStringLiteral("FILE") },
    });
}

tl::expected<ModeChoice, QString> readModeOptions(const QCommandLineParser& parser, bool demo)
{
    ModeChoice choice;
    const bool connect = parser.isSet(QStringLiteral("connect"));
    const bool reconnect = parser.isSet(QStringLiteral("reconnect"));
    if (int(demo) + int(connect) + int(reconnect) > 1)
        return failure(QCoreApplication::translate("main", "--demo, --connect and --reconnect exclude each other"));
    choice.mode = demo ? Mode::Demo : connect || reconnect ? Mode::Remote : Mode::Embedded;
    if (reconnect) {
        choice.url = ui::settings::connectUrl();
        choice.caFile = ui::settings::connectCaFile();
        if (choice.url.isEmpty())
            return failure(QCoreApplication::translate(
                "main", "--reconnect: the console has not been attached to a tidepoold yet; use --connect URL"));
    } else if (connect) {
        choice.url = parser.value(QStringLiteral("connect"));
    }
    if (choice.mode == Mode::Remote) {
        auto endpoint = ui::parseConnectUrl(choice.url.toStdString());
        if (!endpoint)
            return failure(QStringLiteral("--connect: ") + QString::fromStdString(endpoint.error().message));
        if (parser.isSet(QStringLiteral("ca")) && !endpoint->tls)
            return failure(QCoreApplication::translate("main", "--ca is for --connect https://…"));
        choice.tokenFile = parser.value(QStringLiteral("token-file"));
        // The CA: --ca, else the remembered one (--reconnect), else $TIDEPOOL_CA. Kept as an absolute path, so that
        // the one remembered still names the same file when --reconnect runs from another folder.
        if (parser.isSet(QStringLiteral("ca")))
            choice.caFile = parser.value(QStringLiteral("ca"));
        if (choice.caFile.isEmpty() && endpoint->tls)
            choice.caFile = qEnvironmentVariable("TIDEPOOL_CA");
        if (!choice.caFile.isEmpty())
            choice.caFile = QFileInfo(choice.caFile).absoluteFilePath();
    }
    if (parser.isSet(QStringLiteral("ca")) && choice.mode != Mode::Remote)
        return failure(QCoreApplication::translate("main", "--ca is for --connect https://…"));
    const QStringList embeddedOnly { QStringLiteral("db"), QStringLiteral("agent-port"),
        QStringLiteral("join-token-file"), QStringLiteral("api-port"), QStringLiteral("operator-token-file"),
        QStringLiteral("core-config") };
    for (const QString& name : embeddedOnly)
        if (choice.mode != Mode::Embedded && parser.isSet(name))
            return failure(QCoreApplication::translate(
                "main", "--%1 is for the embedded core (tidepool without --demo or --connect)")
                               .arg(name));
    if (choice.mode == Mode::Embedded && parser.isSet(QStringLiteral("token-file")))
        return failure(QCoreApplication::translate("main", "--token-file is for --connect"));
    auto agentPort = portValue(parser, QStringLiteral("agent-port"), 7070);
    auto apiPort = portValue(parser, QStringLiteral("api-port"), 0);
    if (!agentPort)
        return tl::unexpected(agentPort.error());
    if (!apiPort)
        return tl::unexpected(apiPort.error());
    choice.agentPort = *agentPort;
    choice.apiPort = *apiPort;
    choice.db = parser.value(QStringLiteral("db"));
    choice.joinTokenFile = parser.value(QStringLiteral("join-token-file"));
    choice.operatorTokenFile = parser.value(QStringLiteral("operator-token-file"));
    choice.coreConfig = parser.value(QStringLiteral("core-config"));
    if (choice.apiPort > 0 && choice.operatorTokenFile.isEmpty())
        return failure(QCoreApplication::translate(
            "main", "--api-port needs --operator-token-file: the API authenticates every caller"));
    return choice;
}

tl::expected<std::unique_ptr<ui::ConsoleBackend>, QString> startBackend(
    const ModeChoice& choice, ui::ConsoleEvents events)
{
    if (choice.mode == Mode::Remote)
        return startRemote(choice, std::move(events));
    if (choice.mode == Mode::Embedded) {
        const QString remembered = ui::settings::connectUrl();
        if (!remembered.isEmpty())
            std::fprintf(stderr, "%s\n",
                qPrintable(QCoreApplication::translate(
                    "main", "tidepool: starting the embedded core; `tidepool --reconnect` attaches to %1 again")
                               .arg(remembered)));
        return startEmbedded(choice, std::move(events));
    }
    return failure(QCoreApplication::translate("main", "the demo is not started here"));
}

void rememberConnection(ui::CoreBridge& bridge, const ModeChoice& choice)
{
    if (choice.mode != Mode::Remote)
        return;
    auto remembered = std::make_shared<bool>(false);
    QObject::connect(&bridge, &ui::CoreBridge::snapshotChanged, &bridge,
        [remembered, url = choice.url, ca = choice.caFile] {
            if (std::exchange(*remembered, true))
                return;
            ui::settings::setConnectUrl(url);
            ui::settings::setConnectCaFile(ca);
        });
}

} // namespace tidepool::app
