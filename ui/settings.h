#pragma once
// What the console remembers between runs, in `QSettings` (organisation "Tidepool", application "tidepool": on Linux
// ~/.config/Tidepool/tidepool.conf): the language and theme chosen in Settings, the last `--connect` URL, the window's
// geometry and open tab, and the columns hidden in each table. One function per choice, so that every key is named
// once.
//
// Thread affinity: GUI thread.

#include "ui/theme.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace tidepool::ui::settings {

QString language(); // a `languageKeys()` key; "system" when unset or unknown
void setLanguage(const QString& key);

Theme theme(); // System when unset or unknown
void setTheme(Theme theme);

QString connectUrl(); // empty when never connected
void setConnectUrl(const QString& url);
QString connectCaFile(); // the CA file of an https:// connection; empty for the system's trust store
void setConnectCaFile(const QString& path);

QByteArray windowGeometry();
void setWindowGeometry(const QByteArray& geometry);
QString openTab(); // the object name of the tab open at the end of the last run
void setOpenTab(const QString& objectName);

// Columns the operator hid in the table whose page is named `page`, by the columns' stable keys.
QStringList hiddenColumns(const QString& page);
void setHiddenColumns(const QString& page, const QStringList& keys);

} // namespace tidepool::ui::settings
