#pragma once
// Loads the console's catalogue (embedded under :/i18n) and Qt's own for `locale` into the application, replacing the
// ones an earlier call installed, so that the language can be switched while the console runs. English is the source
// language, so a missing catalogue leaves the English text.
//
// Thread affinity: GUI thread.

#include <QLocale>
#include <QString>
#include <QStringList>

namespace tidepool::ui {

// True when the console's own catalogue for `locale` was found and installed (always true for English, which needs
// none). Installing sends every widget a LanguageChange event.
bool installTranslators(const QLocale& locale);

// The languages the settings offer, by key: "system" (follow the system's locale), "en", "zh_CN".
QStringList languageKeys();
// The locale a language key stands for: the system's for "system" and for any key it does not know.
QLocale localeOf(const QString& languageKey);
// The language's own name, untranslated ("English", "简体中文"), or a translated "System language".
QString languageName(const QString& languageKey);

} // namespace tidepool::ui
