#pragma once
// Loads the console's catalogue (embedded under :/i18n) and Qt's own for `locale` into the application. English is
// the source language, so a missing catalogue leaves the English text.
//
// Thread affinity: GUI thread, before the first window is built.

#include <QLocale>

namespace tidepool::ui {

// True when the console's own catalogue for `locale` was found and installed.
bool installTranslators(const QLocale& locale);

} // namespace tidepool::ui
