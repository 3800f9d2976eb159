#include "ui/translations.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QPointer>
#include <QTranslator>

namespace tidepool::ui {

namespace {

// The translators installed last, removed by the next call. Parented to the application: they live no longer than it.
QPointer<QTranslator> g_qt;
QPointer<QTranslator> g_own;

void replace(QPointer<QTranslator>& slot, QTranslator* next)
{
    if (slot) {
        QCoreApplication::removeTranslator(slot);
        delete slot;
    }
    slot = next;
    if (next)
        QCoreApplication::installTranslator(next);
}

} // namespace

bool installTranslators(const QLocale& locale)
{
    auto* qt = new QTranslator(QCoreApplication::instance());
    if (!qt->load(
            locale, QStringLiteral("qtbase"), QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        delete qt;
        qt = nullptr;
    }
    replace(g_qt, qt);
    auto* own = new QTranslator(QCoreApplication::instance());
    // English is the source language: its catalogue is empty, and the text is right without one.
    const bool english = locale.language() == QLocale::English || locale.language() == QLocale::C;
    if (!own->load(locale, QStringLiteral("tidepool"), QStringLiteral("_"), QStringLiteral(":/i18n"))) {
        delete own;
        replace(g_own, nullptr);
        return english;
    }
    replace(g_own, own);
    return true;
}

QStringList languageKeys()
{
    return { QStringLiteral("system"), QStringLiteral("en"), QStringLiteral("zh_CN") };
}

QLocale localeOf(const QString& languageKey)
{
    if (languageKey == QLatin1String("en"))
        return QLocale(QLocale::English, QLocale::UnitedStates);
    if (languageKey == QLatin1String("zh_CN"))
        return QLocale(QLocale::Chinese, QLocale::China);
    return QLocale::system();
}

QString languageName(const QString& languageKey)
{
    if (languageKey == QLatin1String("en"))
        return QStringLiteral("English");
    if (languageKey == QLatin1String("zh_CN"))
        return QStringLiteral("简体中文");
    return QCoreApplication::translate("tidepool::ui::Languages", "System language");
}

} // namespace tidepool::ui
