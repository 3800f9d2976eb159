#pragma once
// The console's screenshots in each language and theme: `<dir>/<language>-<theme>/<tab>.png` for English and
// Simplified Chinese, light and dark (`en-light/overview.png` … `zh_CN-dark/proposals.png`), through the shell's own
// language switch and themes.
//
// Thread affinity: GUI thread; not from a slot of the shell's window (a language switch rebuilds it).

#include <QString>
#include <QStringList>

namespace tidepool::ui {

class ConsoleShell;

// Every file written; an empty list when none could be. Leaves the shell in the last language and theme rendered.
QStringList saveScreenshotSet(ConsoleShell& shell, const QString& dir);

} // namespace tidepool::ui
