#include "ui/translations.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QTranslator>

namespace tidepool::ui {

bool installTranslators(const QLocale& locale)
{
    // Parented to the application: they live as long as it does.
    auto* qt = new QTranslator(QCoreApplication::instance());
    if (qt->load(
            locale, QStringLiteral("qtbase"), QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qt);
    auto* own = new QTranslator(QCoreApplication::instance());
    if (!own->load(locale, QStringLiteral("tidepool"), QStringLiteral("_"), QStringLiteral(":/i18n")))
        return false;
    return QCoreApplication::installTranslator(own);
}

} // namespace tidepool::ui
