#pragma once
// A report (core/report) as PDF: A4 pages with a header (title, scope, period) and a footer (page number, when it was
// made), the tables of the HTML report, and the charts drawn with QPainter (requested vs used vs capacity per
// resource, energy per interval, tier occupancy). Text is drawn with a CJK font (Noto Sans CJK SC from Debian's
// fonts-noto-cjk, else WenQuanYi Micro Hei from fonts-wqy-microhei, else what fontconfig offers), so that a zh_CN
// report's Chinese is real text in the PDF (searchable, `pdftotext` reads it).
//
// Qt Gui only (QPdfWriter, QPainter): tidepoolctl uses it with no display through `HeadlessGui`, the console from its
// GUI thread.
//
// Thread affinity: a thread that may paint (the GUI thread, or the only thread of a headless program).

#include "core/report/report.h"

#include <QGuiApplication>
#include <QString>

#include <memory>

namespace tidepool::pdf {

// Writes `data` as a PDF to `path`, atomically (QSaveFile: nothing is left at `path` when it fails). Returns an empty
// string, or the error naming the path and the reason. Needs a QGuiApplication (see `HeadlessGui`).
QString writeReportPdf(const report::ReportData& data, const QString& path);

// Writes `data` in `format` ("pdf", "html" or "csv"; HTML and CSV as the core renders them) to `path`, atomically.
// Returns an empty string, or the error naming the path (or the format) and the reason.
QString writeReport(const report::ReportData& data, const QString& format, const QString& path);

// The PDF as bytes (for the console's preview and the tests).
QByteArray renderReportPdf(const report::ReportData& data);

// A QGuiApplication for a program without one: with no DISPLAY and no WAYLAND_DISPLAY it sets QT_QPA_PLATFORM to
// "offscreen" first (unless it is set), so that `tidepoolctl report --format pdf` works on a server. Does nothing
// when an application exists already.
class HeadlessGui {
public:
    HeadlessGui();
    ~HeadlessGui();
    HeadlessGui(const HeadlessGui&) = delete;
    HeadlessGui& operator=(const HeadlessGui&) = delete;

private:
    std::unique_ptr<QGuiApplication> m_app;
};

} // namespace tidepool::pdf
