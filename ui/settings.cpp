#include "ui/settings.h"

#include "ui/translations.h"

#include <QSettings>

namespace tidepool::ui::settings {

namespace {

const QString kLanguage = QStringLiteral("language");
const QString kTheme = QStringLiteral("theme");
const QString kConnectUrl = QStringLiteral("connect/url");
const QString kConnectCaFile = QStringLiteral("connect/caFile");
const QString kGeometry = QStringLiteral("window/geometry");
const QString kOpenTab = QStringLiteral("window/tab");

QString columnsKey(const QString& page)
{
    return QStringLiteral("columns/") + page + QStringLiteral("/hidden");
}

} // namespace

QString language()
{
    const QString key = QSettings().value(kLanguage).toString();
    return languageKeys().contains(key) ? key : QStringLiteral("system");
}

void setLanguage(const QString& key)
{
    QSettings().setValue(kLanguage, key);
}

Theme theme()
{
    return parseTheme(QSettings().value(kTheme).toString()).value_or(Theme::System);
}

void setTheme(Theme theme)
{
    QSettings().setValue(kTheme, themeKey(theme));
}

QString connectUrl()
{
    return QSettings().value(kConnectUrl).toString();
}

void setConnectUrl(const QString& url)
{
    QSettings().setValue(kConnectUrl, url);
}

QString connectCaFile()
{
    return QSettings().value(kConnectCaFile).toString();
}

void setConnectCaFile(const QString& path)
{
    QSettings().setValue(kConnectCaFile, path);
}

QByteArray windowGeometry()
{
    return QSettings().value(kGeometry).toByteArray();
}

void setWindowGeometry(const QByteArray& geometry)
{
    QSettings().setValue(kGeometry, geometry);
}

QString openTab()
{
    return QSettings().value(kOpenTab).toString();
}

void setOpenTab(const QString& objectName)
{
    QSettings().setValue(kOpenTab, objectName);
}

QStringList hiddenColumns(const QString& page)
{
    return QSettings().value(columnsKey(page)).toStringList();
}

void setHiddenColumns(const QString& page, const QStringList& keys)
{
    QSettings().setValue(columnsKey(page), keys);
}

} // namespace tidepool::ui::settings
