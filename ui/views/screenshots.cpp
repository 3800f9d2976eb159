#include "ui/views/screenshots.h"

#include "ui/models/devices_model.h"
#include "ui/models/roles.h"
#include "ui/views/accelerators_page.h"
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
    // The Accelerators tab charts the selected devices: pick the first one that workloads share.
    QTreeView* devices = window.acceleratorsPage()->table()->view();
    if (!devices->selectionModel()->hasSelection())
        for (int row = 0; row < devices->model()->rowCount(); ++row)
            if (devices->model()->index(row, DevicesModel::Holders).data(SortRole).toInt() > 1) {
                devices->setCurrentIndex(devices->model()->index(row, 0));
                break;
            }
    for (int i = 0; i < tabs->count(); ++i) {
        tabs->setCurrentIndex(i);
        QApplication::processEvents(); // lay the tab out before grabbing it
        // Named by the page ("acceleratorsPage" → accelerators.png), whatever the order of the tabs.
        QString name = tabs->widget(i)->objectName();
        if (name.endsWith(QStringLiteral("Page")))
            name.chop(4);
        if (name.isEmpty())
            name = i < static_cast<int>(std::size(kNames)) ? QString::fromLatin1(kNames[i]) : QString::number(i);
        const QString path = QDir(dir).filePath(name + QStringLiteral(".png"));
        if (window.grab().save(path))
            written << path;
    }
    // The Accelerators tab once more with the FPGA most workloads hold, for its slot timeline; then the device charted
    // before is selected again, so that the next theme's shots match these.
    QTreeView* table = window.acceleratorsPage()->table()->view();
    int fpga = -1, most = 0;
    for (int row = 0; row < table->model()->rowCount(); ++row) {
        const int holders = table->model()->index(row, DevicesModel::Holders).data(SortRole).toInt();
        if (table->model()->index(row, DevicesModel::Kind).data(RawTextRole).toString() == QLatin1String("fpga")
            && holders > most) {
            fpga = row;
            most = holders;
        }
    }
    if (fpga >= 0) {
        const QPersistentModelIndex before = table->currentIndex();
        table->setCurrentIndex(table->model()->index(fpga, 0));
        tabs->setCurrentWidget(window.acceleratorsPage());
        QApplication::processEvents();
        const QString path = QDir(dir).filePath(QStringLiteral("accelerators-fpga.png"));
        if (window.grab().save(path))
            written << path;
        if (before.isValid())
            table->setCurrentIndex(before);
        else
            table->selectionModel()->clearSelection();
    }
    tabs->setCurrentIndex(0);
    return written;
}

} // namespace tidepool::ui
