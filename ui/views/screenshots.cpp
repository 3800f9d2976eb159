#include "ui/views/screenshots.h"

#include "ui/views/main_window.h"
#include "ui/views/proposals_page.h"
#include "ui/views/table_page.h"

#include <QTreeView>

#include <QApplication>
#include <QDir>
#include <QPixmap>
#include <QTabWidget>

namespace tidepool::ui {

QStringList saveScreenshots(MainWindow& window, const QString& dir)
{
    static const char* const kNames[] = { "overview", "nodes", "pools", "proposals" };
    QStringList written;
    if (!QDir().mkpath(dir))
        return written;
    QTabWidget* tabs = window.tabs();
    // A proposal's detail is the point of its tab: show the first one's when none is selected.
    ProposalsPage* proposals = window.proposalsPage();
    if (!proposals->selectedId() && proposals->list()->view()->model()->rowCount() > 0)
        proposals->list()->view()->setCurrentIndex(proposals->list()->view()->model()->index(0, 0));
    for (int i = 0; i < tabs->count() && i < static_cast<int>(std::size(kNames)); ++i) {
        tabs->setCurrentIndex(i);
        QApplication::processEvents(); // lay the tab out before grabbing it
        const QString path = QDir(dir).filePath(QString::fromLatin1(kNames[i]) + QStringLiteral(".png"));
        if (window.grab().save(path))
            written << path;
    }
    tabs->setCurrentIndex(0);
    return written;
}

} // namespace tidepool::ui
