// tidepool: the operator console. The composition root: parses the options, builds the core (the demo's simulated
// fleet, the embedded single-box core or a connection to a tidepoold, each on its own thread: modes.h), the bridge
// and the shell with its window, runs the event loop, and shuts down in order: the core first (stop accepting, stop
// the timer, join its thread), then the shell and its window, then the bridge.
#include "app/tidepool/modes.h"
#include "ui/bridge/core_bridge.h"
#include "ui/bridge/demo_core.h"
#include "ui/settings.h"
#include "ui/translations.h"
#include "ui/views/console_shell.h"
#include "ui/views/main_window.h"
#include "ui/views/screenshot_set.h"
#include "ui/pdf/report_pdf.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>
#include <memory>
#include <optional>

namespace {

struct Options {
    bool demo = false;
    tidepool::app::ModeChoice mode; // the embedded core or a tidepoold (modes.h); the demo when `demo`
    QString screenshots; // render every tab in each language and theme there once proposals wait, then quit
    QString report; // with the demo: write a report of its last simulated day there once proposals wait, then quit
    QString reportLanguage; // "en" or "zh_CN"
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
        QCoreApplication::translate("main",
            "Render every tab in English and Chinese, light and dark, to PNG files in DIR once proposals wait, then "
            "quit."),
        QStringLiteral("DIR"));
    const QCommandLineOption report(QStringLiteral("report"),
        QCoreApplication::translate("main",
            "With --demo: once proposals wait, write a report of the last simulated 24 hours to FILE (PDF, HTML or CSV "
            "by its extension), then quit."),
        QStringLiteral("FILE"));
    const QCommandLineOption reportLanguage(QStringLiteral("report-language"),
        QCoreApplication::translate("main", "The language of --report: en or zh_CN."), QStringLiteral("LANGUAGE"),
        QStringLiteral("en"));
    parser.addOptions({ demo, data, days, tick, screenshots, report, reportLanguage });
    tidepool::app::addModeOptions(parser);
    parser.process(app);

    Options options;
    options.demo = parser.isSet(demo);
    auto mode = tidepool::app::readModeOptions(parser, options.demo);
    if (!mode)
        fail(mode.error());
    options.mode = *mode;
    options.screenshots = parser.value(screenshots);
    options.report = parser.value(report);
    options.reportLanguage = parser.value(reportLanguage);
    if (!options.report.isEmpty() && !options.demo)
        fail(QCoreApplication::translate("main", "--report needs --demo (File → Export report… works in every mode)"));
    if (!options.report.isEmpty() && !options.screenshots.isEmpty())
        fail(QCoreApplication::translate("main", "--report and --screenshots are made one at a time"));
    if (!tidepool::report::parseLanguage(options.reportLanguage.toStdString()))
        fail(QCoreApplication::translate("main", "--report-language must be en or zh_CN"));
    const QString suffix = QFileInfo(options.report).suffix();
    if (!options.report.isEmpty() && suffix != QLatin1String("pdf") && suffix != QLatin1String("html")
        && suffix != QLatin1String("csv"))
        fail(QCoreApplication::translate("main", "--report: the file must end in .pdf, .html or .csv"));
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
    // Time-sliced accelerators beside the GPUs, so that the Accelerators view has FPGA slots and NPU cores to show
    // (their load is synthetic: core/sim/README.md).
    scenario.fpgaNodes = 2;
    scenario.npuNodes = 1;
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
    // The options' help in the remembered language; the shell installs it again for the window.
    tidepool::ui::installTranslators(tidepool::ui::localeOf(tidepool::ui::settings::language()));
    Options options = parse(app);
    // The demo's database is thrown away with the run.
    std::optional<QTemporaryDir> dbDir;
    if (options.demo) {
        dbDir.emplace(QDir::tempPath() + QStringLiteral("/tidepool-demo-XXXXXX"));
        if (!dbDir->isValid()) {
            std::fprintf(stderr, "tidepool: cannot create a temporary folder for the demo's database: %s\n",
                qPrintable(dbDir->errorString()));
            return 1;
        }
        options.core.demo.scenario.dbPath = dbDir->filePath(QStringLiteral("tidepool-demo.db")).toStdString();
    }

    tidepool::ui::CoreBridge bridge;
    // Screenshots and --report leave the operator's settings (language, theme, geometry) alone.
    auto shell = std::make_unique<tidepool::ui::ConsoleShell>(bridge, options.screenshots.isEmpty() && options.report.isEmpty());
    std::unique_ptr<tidepool::ui::ConsoleBackend> core;
    if (options.demo) {
        core = std::make_unique<tidepool::ui::DemoCore>(options.core, bridge.events());
    } else {
        auto started = tidepool::app::startBackend(options.mode, bridge.events());
        if (!started) {
            std::fprintf(stderr, "tidepool: %s\n", qPrintable(started.error()));
            return 2;
        }
        core = std::move(*started);
        tidepool::app::rememberConnection(bridge, options.mode);
    }
    bridge.setBackend(core.get());
    QObject::connect(&bridge, &tidepool::ui::CoreBridge::coreFailed, shell.get(), [&options](const QString& message) {
        std::fprintf(stderr, "tidepool: %s\n", qPrintable(message));
        if (!options.screenshots.isEmpty() || !options.report.isEmpty())
            QCoreApplication::exit(1);
    });
    if (!options.screenshots.isEmpty()) {
        // Once the first proposals wait and a forecast has been backtested (the views then show everything they can),
        // render and quit.
        QObject::connect(&bridge, &tidepool::ui::CoreBridge::snapshotChanged, shell.get(),
            [&shell, &options, taken = false](const tidepool::ui::SnapshotPtr& snapshot) mutable {
                // Rendering processes events, and so more snapshots: only the first that qualifies is taken.
                const bool ready = snapshot->overview.proposalsWaiting > 0
                    && tidepool::ui::hasBacktestedForecast(snapshot->forecasts);
                if (taken || (!ready && !snapshot->finished))
                    return;
                taken = true;
                // Queued: a language switch rebuilds the window, which must not happen inside its own slot.
                QTimer::singleShot(0, shell.get(), [&shell, &options] {
                    const QStringList files = tidepool::ui::saveScreenshotSet(*shell, options.screenshots);
                    for (const QString& file : files)
                        std::fprintf(stdout, "%s\n", qPrintable(file));
                    QCoreApplication::exit(files.isEmpty() ? 1 : 0);
                });
            });
    }
    if (!options.report.isEmpty()) {
        // Once proposals wait and a forecast has been backtested (a day has been simulated), the report of the last
        // 24 simulated hours, through the same path as File → Export report.
        QObject::connect(&bridge, &tidepool::ui::CoreBridge::snapshotChanged, shell.get(),
            [&bridge, &options, asked = false](const tidepool::ui::SnapshotPtr& snapshot) mutable {
                const bool ready = snapshot->overview.proposalsWaiting > 0
                    && tidepool::ui::hasBacktestedForecast(snapshot->forecasts);
                if (asked || (!ready && !snapshot->finished))
                    return;
                asked = true;
                constexpr std::int64_t kHourMs = 3'600'000;
                tidepool::report::ReportRequest request;
                request.toMs = snapshot->nowMs / kHourMs * kHourMs;
                request.fromMs = request.toMs - 24 * kHourMs;
                request.language = *tidepool::report::parseLanguage(options.reportLanguage.toStdString());
                bridge.requestReport(request);
            });
        QObject::connect(&bridge, &tidepool::ui::CoreBridge::reportFinished, shell.get(),
            [&options](const tidepool::ui::ReportResult& result) {
                QString error = result.data ? QString() : QString::fromStdString(result.message);
                if (result.data)
                    error = tidepool::pdf::writeReport(*result.data, QFileInfo(options.report).suffix(), options.report);
                if (error.isEmpty())
                    std::fprintf(stdout, "%s\n", qPrintable(options.report));
                else
                    std::fprintf(stderr, "tidepool: %s\n", qPrintable(error));
                QCoreApplication::exit(error.isEmpty() ? 0 : 1);
            });
    }
    shell->window()->show();
    const int status = QApplication::exec();
    bridge.setBackend(nullptr);
    core->stop();
    shell.reset();
    return status;
}
