// tidepool: the operator console. The composition root: parses the options, builds the core (today the demo's
// simulated fleet on its own thread), the bridge and the window, runs the event loop, and shuts down in order: the
// core first (stop accepting, stop the timer, join its thread), then the window, then the bridge.
#include "ui/bridge/core_bridge.h"
#include "ui/bridge/demo_core.h"
#include "ui/translations.h"
#include "ui/views/main_window.h"
#include "ui/views/screenshots.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QTemporaryDir>

#include <cstdio>
#include <memory>

namespace {

struct Options {
    bool demo = false;
    QString screenshots; // render every tab there once proposals are waiting, then quit
    tidepool::ui::DemoCoreConfig core;
};

// Exits with a message naming the option at fault.
[[noreturn]] void fail(const QString& message)
{
    std::fprintf(stderr, "tidepool: %s\n", qPrintable(message));
    std::exit(2);
}

Options parse(const QApplication& app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QCoreApplication::translate("main", "Tidepool operator console"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption demo(QStringLiteral("demo"),
        QCoreApplication::translate("main", "Run a simulated heterogeneous fleet through the real core."));
    const QCommandLineOption data(QStringLiteral("data-dir"),
        QCoreApplication::translate("main", "The shared data folder (traces and load series)."), QStringLiteral("DIR"),
        QStringLiteral(TIDEPOOL_DEFAULT_DATA));
    const QCommandLineOption days(QStringLiteral("demo-days"),
        QCoreApplication::translate("main", "Simulated days the demo runs (at least 2)."), QStringLiteral("N"),
        QStringLiteral("8"));
    const QCommandLineOption tick(QStringLiteral("tick-ms"),
        QCoreApplication::translate("main", "Wall milliseconds per simulated minute."), QStringLiteral("MS"),
        QStringLiteral("100"));
    const QCommandLineOption screenshots(QStringLiteral("screenshots"),
        QCoreApplication::translate("main", "Render every tab to PNG files in DIR once proposals wait, then quit."),
        QStringLiteral("DIR"));
    parser.addOptions({ demo, data, days, tick, screenshots });
    parser.process(app);

    Options options;
    options.demo = parser.isSet(demo);
    options.screenshots = parser.value(screenshots);
    bool ok = false;
    const qint64 dayCount = parser.value(days).toLongLong(&ok);
    if (!ok || dayCount < 2 || dayCount > 365)
        fail(QCoreApplication::translate("main", "--demo-days must be a whole number from 2 to 365"));
    const qint64 tickMs = parser.value(tick).toLongLong(&ok);
    if (!ok || tickMs < 0 || tickMs > 60'000)
        fail(QCoreApplication::translate("main", "--tick-ms must be a whole number from 0 to 60000"));
    auto& scenario = options.core.demo.scenario;
    scenario.dataDir = QDir(parser.value(data)).absolutePath().toStdString();
    scenario.days = dayCount;
    scenario.warmupDays = 1;
    options.core.tick = std::chrono::milliseconds(tickMs);
    // The forecasts need a day of history before the first quota proposals: run it at full speed.
    options.core.fastForwardMs = 24LL * 3600 * 1000;
    return options;
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("Tidepool"));
    QCoreApplication::setApplicationName(QStringLiteral("tidepool"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TIDEPOOL_VERSION));
    tidepool::ui::installTranslators(QLocale::system());
    Options options = parse(app);
    if (!options.demo) {
        // The embedded empty cluster (agents joining on the agent port) and `--connect URL` come next (issue #5).
        std::fprintf(stderr, "tidepool: only the demo mode exists yet: run `tidepool --demo`\n");
        return 2;
    }
    // The demo's database is thrown away with the run.
    QTemporaryDir dbDir(QDir::tempPath() + QStringLiteral("/tidepool-demo-XXXXXX"));
    if (!dbDir.isValid()) {
        std::fprintf(stderr, "tidepool: cannot create a temporary folder for the demo's database: %s\n",
            qPrintable(dbDir.errorString()));
        return 1;
    }
    options.core.demo.scenario.dbPath = dbDir.filePath(QStringLiteral("tidepool-demo.db")).toStdString();

    tidepool::ui::CoreBridge bridge;
    tidepool::ui::MainWindow window(bridge);
    auto core = std::make_unique<tidepool::ui::DemoCore>(options.core, bridge.events());
    bridge.setBackend(core.get());
    QObject::connect(&bridge, &tidepool::ui::CoreBridge::coreFailed, &window, [&options](const QString& message) {
        std::fprintf(stderr, "tidepool: %s\n", qPrintable(message));
        if (!options.screenshots.isEmpty())
            QCoreApplication::exit(1);
    });
    if (!options.screenshots.isEmpty()) {
        // Once the first proposals wait (the views then show everything they can), render and quit.
        QObject::connect(&bridge, &tidepool::ui::CoreBridge::snapshotChanged, &window,
            [&window, &options, taken = false](const tidepool::ui::SnapshotPtr& snapshot) mutable {
                // Rendering processes events, and so more snapshots: only the first that qualifies is taken.
                if (taken || (snapshot->overview.proposalsWaiting == 0 && !snapshot->finished))
                    return;
                taken = true;
                const QStringList files = tidepool::ui::saveScreenshots(window, options.screenshots);
                for (const QString& file : files)
                    std::fprintf(stdout, "%s\n", qPrintable(file));
                QCoreApplication::exit(files.isEmpty() ? 1 : 0);
            });
    }
    window.show();
    const int status = QApplication::exec();
    bridge.setBackend(nullptr);
    core->stop();
    return status;
}
