#include "ui/views/screenshot_set.h"

#include "ui/views/console_shell.h"
#include "ui/views/screenshots.h"

#include <QApplication>
#include <QDir>

namespace tidepool::ui {

QStringList saveScreenshotSet(ConsoleShell& shell, const QString& dir)
{
    QStringList written;
    for (const QString& language : { QStringLiteral("en"), QStringLiteral("zh_CN") }) {
        shell.setLanguage(language);
        for (const Theme theme : { Theme::Light, Theme::Dark }) {
            shell.setTheme(theme);
            QApplication::processEvents(); // the new palette and the rebuilt window laid out
            written += saveScreenshots(*shell.window(), QDir(dir).filePath(language + QLatin1Char('-') + themeKey(theme)));
        }
    }
    return written;
}

} // namespace tidepool::ui
