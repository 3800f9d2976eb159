// The console's command-line modes (app/tidepool/modes.cpp) against a real tidepoold whose API speaks HTTPS: a
// `--connect https://… --ca FILE` console remembers the URL and the CA as an absolute path once its first snapshot
// arrived, and `--reconnect` — from another folder, with no --ca — attaches again verified against that CA; --ca given
// with --reconnect wins over the remembered one (another CA is refused, saying so); $TIDEPOOL_CA stands in for --ca;
// --reconnect with nothing remembered, or options of another mode, are refused naming the option.
#include "app/tidepool/modes.h"
#include "daemon_fixture.h"
#include "ui/bridge/core_bridge.h"
#include "ui/settings.h"

#include <QCommandLineParser>
#include <QDir>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace tidepool;

namespace {

tl::expected<app::ModeChoice, QString> choose(const QStringList& args)
{
    QCommandLineParser parser;
    app::addModeOptions(parser);
    if (!parser.parse(QStringList { QStringLiteral("tidepool") } + args))
        return tl::unexpected(parser.errorText());
    return app::readModeOptions(parser, false);
}

// A console as `tidepool` builds one for a mode: the backend `startBackend` makes, behind a bridge that remembers the
// connection.
struct Console {
    ui::CoreBridge bridge;
    std::unique_ptr<ui::ConsoleBackend> backend;
    QStringList failures;
    QString startError;

    explicit Console(const app::ModeChoice& choice)
    {
        QObject::connect(&bridge, &ui::CoreBridge::coreFailed, &bridge, [this](const QString& m) { failures << m; });
        auto started = app::startBackend(choice, bridge.events());
        if (!started) {
            startError = started.error();
            return;
        }
        backend = std::move(*started);
        app::rememberConnection(bridge, choice);
        bridge.setBackend(backend.get());
    }
    ~Console()
    {
        bridge.setBackend(nullptr);
        if (backend)
            backend->stop();
    }
};

} // namespace

class TestModes : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_startDir;
    QString m_tokenFile;
    QProcess m_daemon;
    std::uint16_t m_port = 0;

    QString path(const QString& name) const { return m_dir.filePath(name); }
    QString url() const { return QStringLiteral("https://127.0.0.1:%1").arg(m_port); }

private Q_SLOTS:
    void initTestCase()
    {
        // The settings of this test only (~/.qttest), never the operator's.
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("Tidepool"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_modes"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_startDir = QDir::currentPath();
        for (const char* dir : { "tls", "other-tls" }) {
            QProcess certs;
            certs.start(fixture::binary("tidepoold"),
                { QStringLiteral("certs"), QStringLiteral("init"), QStringLiteral("--dir"), path(QLatin1String(dir)),
                    QStringLiteral("--names"), QStringLiteral("core.test"), QStringLiteral("--agents"),
                    QStringLiteral("0") });
            QVERIFY(certs.waitForFinished(30'000));
            QVERIFY2(certs.exitCode() == 0, certs.readAllStandardError().constData());
        }
        m_tokenFile
            = fixture::writeFile(path(QStringLiteral("operator.token")), fixture::randomToken().toUtf8() + '\n');
        const QString join
            = fixture::writeFile(path(QStringLiteral("join.token")), fixture::randomToken().toUtf8() + '\n');
        m_port = fixture::startDaemon(m_daemon,
            { QStringLiteral("--db"), path(QStringLiteral("modes.db")), QStringLiteral("--join-token-file"), join,
                QStringLiteral("--operator-token-file"), m_tokenFile, QStringLiteral("--api-tls-cert"),
                path(QStringLiteral("tls/core.pem")), QStringLiteral("--api-tls-key"),
                path(QStringLiteral("tls/core.key")) },
            path(QStringLiteral("tidepoold.log")));
        QVERIFY2(m_port != 0, "tidepoold stopped before it was ready");
    }

    void cleanupTestCase()
    {
        QDir::setCurrent(m_startDir);
        fixture::stopProcess(&m_daemon);
        QSettings().clear();
    }

    void cleanup()
    {
        QDir::setCurrent(m_startDir);
        qunsetenv("TIDEPOOL_CA");
    }

    void reconnectWithNothingRememberedIsRefused()
    {
        QSettings().clear();
        const auto choice = choose({ QStringLiteral("--reconnect") });
        QVERIFY(!choice);
        QVERIFY2(choice.error().contains(QStringLiteral("has not been attached to a tidepoold yet")),
            qPrintable(choice.error()));
        const auto mixed
            = choose({ QStringLiteral("--connect"), url(), QStringLiteral("--db"), path(QStringLiteral("x.db")) });
        QVERIFY(!mixed);
        QVERIFY2(mixed.error().contains(QStringLiteral("--db is for the embedded core")), qPrintable(mixed.error()));
        const auto both = choose({ QStringLiteral("--connect"), url(), QStringLiteral("--reconnect") });
        QVERIFY(!both);
        QVERIFY2(both.error().contains(QStringLiteral("exclude each other")), qPrintable(both.error()));
    }

    // --connect with a CA named relative to the working folder; --reconnect from another folder reuses it.
    void reconnectReusesTheRememberedCa()
    {
        QSettings().clear();
        QDir::setCurrent(m_dir.path());
        const auto connect = choose({ QStringLiteral("--connect"), url(), QStringLiteral("--ca"),
            QStringLiteral("tls/ca.pem"), QStringLiteral("--token-file"), m_tokenFile });
        QVERIFY2(connect, connect ? "" : qPrintable(connect.error()));
        QCOMPARE(connect->caFile, path(QStringLiteral("tls/ca.pem")));
        {
            Console first(*connect);
            QVERIFY2(first.startError.isEmpty(), qPrintable(first.startError));
            QTRY_VERIFY_WITH_TIMEOUT(first.bridge.latest() != nullptr, 15'000);
            QVERIFY2(first.failures.isEmpty(), qPrintable(first.failures.join(QLatin1Char('\n'))));
        }
        QCOMPARE(ui::settings::connectUrl(), url());
        QCOMPARE(ui::settings::connectCaFile(), path(QStringLiteral("tls/ca.pem")));

        QDir::setCurrent(QDir::tempPath());
        const auto again = choose({ QStringLiteral("--reconnect"), QStringLiteral("--token-file"), m_tokenFile });
        QVERIFY2(again, again ? "" : qPrintable(again.error()));
        QCOMPARE(again->mode, app::Mode::Remote);
        QCOMPARE(again->url, url());
        QCOMPARE(again->caFile, path(QStringLiteral("tls/ca.pem")));
        Console second(*again);
        QVERIFY2(second.startError.isEmpty(), qPrintable(second.startError));
        QTRY_VERIFY_WITH_TIMEOUT(second.bridge.latest() != nullptr, 15'000);
        QVERIFY2(second.failures.isEmpty(), qPrintable(second.failures.join(QLatin1Char('\n'))));
    }

    // --ca with --reconnect replaces the remembered CA: another CA does not verify the daemon, and the console says so
    // rather than showing anything; the remembered CA stays what worked.
    void caGivenWithReconnectWins()
    {
        QSettings().clear();
        ui::settings::setConnectUrl(url());
        ui::settings::setConnectCaFile(path(QStringLiteral("tls/ca.pem")));
        const auto foreign = choose({ QStringLiteral("--reconnect"), QStringLiteral("--ca"),
            path(QStringLiteral("other-tls/ca.pem")), QStringLiteral("--token-file"), m_tokenFile });
        QVERIFY2(foreign, foreign ? "" : qPrintable(foreign.error()));
        QCOMPARE(foreign->caFile, path(QStringLiteral("other-tls/ca.pem")));
        Console console(*foreign);
        QVERIFY2(console.startError.isEmpty(), qPrintable(console.startError));
        QTRY_VERIFY_WITH_TIMEOUT(!console.failures.isEmpty(), 15'000);
        QVERIFY2(console.failures.first().contains(QStringLiteral("unable to get local issuer certificate")),
            qPrintable(console.failures.first()));
        QVERIFY(!console.bridge.latest());
        QCOMPARE(ui::settings::connectCaFile(), path(QStringLiteral("tls/ca.pem")));
    }

    // $TIDEPOOL_CA stands in for --ca on https:// (as for tidepoolctl), and is what --reconnect remembers.
    void caFromTheEnvironmentIsRemembered()
    {
        QSettings().clear();
        QDir::setCurrent(m_dir.path());
        qputenv("TIDEPOOL_CA", "tls/ca.pem");
        const auto connect
            = choose({ QStringLiteral("--connect"), url(), QStringLiteral("--token-file"), m_tokenFile });
        QVERIFY2(connect, connect ? "" : qPrintable(connect.error()));
        QCOMPARE(connect->caFile, path(QStringLiteral("tls/ca.pem")));
        {
            Console console(*connect);
            QVERIFY2(console.startError.isEmpty(), qPrintable(console.startError));
            QTRY_VERIFY_WITH_TIMEOUT(console.bridge.latest() != nullptr, 15'000);
        }
        QCOMPARE(ui::settings::connectCaFile(), path(QStringLiteral("tls/ca.pem")));
        // An unreadable CA is said before anything connects.
        qputenv("TIDEPOOL_CA", "no-such-ca.pem");
        const auto missing
            = choose({ QStringLiteral("--connect"), url(), QStringLiteral("--token-file"), m_tokenFile });
        QVERIFY(missing);
        Console broken(*missing);
        QVERIFY2(broken.startError.startsWith(QStringLiteral("--ca: ")), qPrintable(broken.startError));
        QVERIFY2(broken.startError.contains(QStringLiteral("no-such-ca.pem")), qPrintable(broken.startError));
    }
};

QTEST_MAIN(TestModes)
#include "tst_modes.moc"
