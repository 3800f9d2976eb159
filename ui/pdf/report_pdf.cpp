#include "ui/pdf/report_pdf.h"

#include "core/report/csv_report.h"
#include "core/report/html_report.h"
#include "core/report/labels.h"

#include <QBuffer>
#include <QFontMetricsF>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPainterPath>
#include <QPdfWriter>
#include <QSaveFile>

#include <algorithm>
#include <cstdlib>

namespace tidepool::pdf {

namespace {

using report::Language;
using report::ReportData;

// Everything is laid out in points (1/72 inch) on A4: the writer's resolution is 72 dpi, so that a device unit is a
// point. Coordinates are real numbers and the PDF keeps them as such: lines and text stay sharp at any zoom.
constexpr int kResolution = 72;
constexpr double kPageWidth = 595.28, kPageHeight = 841.89, kMargin = 42.0;
constexpr double kContentWidth = kPageWidth - 2 * kMargin;
constexpr double kTop = kMargin + 34.0; // below the header
constexpr double kBottom = kPageHeight - kMargin - 16.0; // above the footer
const QColor kRequested(0x2b, 0x6c, 0xb0);
const QColor kUsed(0xdd, 0x6b, 0x20);
const QColor kCapacity(0x71, 0x80, 0x96);
const QColor kEnergy(0x38, 0xa1, 0x69);
const QColor kGrid(0xe2, 0xe8, 0xf0);
const QColor kFrame(0xcb, 0xd5, 0xe0);
const QColor kHeaderFill(0xed, 0xf2, 0xf7);

QString q(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QFont font(double points, bool bold = false)
{
    QFont f;
    f.setFamilies({ QStringLiteral("WenQuanYi Micro Hei"), QStringLiteral("Noto Sans CJK SC"),
        QStringLiteral("Noto Sans"), QStringLiteral("DejaVu Sans") });
    f.setPointSizeF(points);
    f.setBold(bold);
    return f;
}

class Layout {
public:
    Layout(QPdfWriter& writer, const ReportData& data)
        : m_writer(writer)
        , m_data(data)
        , m_lang(data.request.language)
    {
        m_painter.begin(&m_writer);
        m_painter.setRenderHint(QPainter::Antialiasing);
        startPage();
    }

    bool finish()
    {
        footer();
        return m_painter.end();
    }

    QString L(const char* key) const { return q(report::label(m_lang, key)); }
    QString value(std::string_view v) const { return q(report::valueLabel(m_lang, v)); }

    // Starts a new page unless `height` points fit below.
    void ensure(double height)
    {
        if (m_y + height <= kBottom)
            return;
        footer();
        m_writer.newPage();
        startPage();
    }

    void heading(const QString& text)
    {
        ensure(60);
        m_y += 8;
        m_painter.setFont(font(13, true));
        m_painter.setPen(Qt::black);
        m_painter.drawText(QRectF(kMargin, m_y, kContentWidth, 18), Qt::AlignLeft | Qt::AlignVCenter, text);
        m_y += 22;
    }

    // A subheading kept on one page with the `keep` points that follow it (its chart).
    void subheading(const QString& text, double keep = 0)
    {
        ensure(30 + keep);
        m_painter.setFont(font(10, true));
        m_painter.setPen(Qt::black);
        m_painter.drawText(QRectF(kMargin, m_y, kContentWidth, 14), Qt::AlignLeft | Qt::AlignVCenter, text);
        m_y += 16;
    }

    void paragraph(const QString& text, double size = 8.5)
    {
        m_painter.setFont(font(size));
        const QRectF bounds
            = m_painter.boundingRect(QRectF(kMargin, 0, kContentWidth, 1000), Qt::TextWordWrap | Qt::AlignLeft, text);
        ensure(bounds.height() + 4);
        m_painter.setPen(QColor(0x2d, 0x37, 0x48));
        m_painter.drawText(
            QRectF(kMargin, m_y, kContentWidth, bounds.height()), Qt::TextWordWrap | Qt::AlignLeft, text);
        m_y += bounds.height() + 4;
    }

    // A table with its header row; columns sized to their content and shrunk to the page, cells elided to fit.
    void table(const QStringList& headers, const QList<QStringList>& rows)
    {
        const QFont bodyFont = font(8);
        const QFont headFont = font(8, true);
        const QFontMetricsF body(bodyFont, &m_writer);
        const QFontMetricsF head(headFont, &m_writer);
        const auto columns = headers.size();
        // Each column as wide as its content; when they do not fit, the widest are cut to one limit (the reasons
        // and names are elided, the numbers and short words stay whole).
        QList<double> widths(columns, 0.0);
        for (qsizetype c = 0; c < columns; ++c) {
            // A header may wrap at its spaces (two lines at most): its longest word counts, or half of it when it has
            // no space (Chinese headers wrap anywhere).
            for (const QString& word : headers[c].split(QLatin1Char(' ')))
                widths[c] = std::max(widths[c], head.horizontalAdvance(word));
            const bool latin
                = std::all_of(headers[c].cbegin(), headers[c].cend(), [](QChar ch) { return ch.unicode() < 0x2E80; });
            if (!latin)
                widths[c] = std::min(widths[c], head.horizontalAdvance(headers[c]) / 2 + 8);
            for (const QStringList& row : rows)
                widths[c] = std::max(widths[c], body.horizontalAdvance(row.value(c)));
            widths[c] += 8;
        }
        double total = 0;
        for (const double w : widths)
            total += w;
        if (total > kContentWidth) {
            QList<double> sorted = widths;
            std::sort(sorted.begin(), sorted.end());
            double below = 0; // the sum of the columns narrower than the limit
            double limit = kContentWidth / static_cast<double>(columns);
            for (qsizetype i = 0; i < sorted.size(); ++i) {
                const double candidate = (kContentWidth - below) / static_cast<double>(sorted.size() - i);
                if (sorted[i] > candidate) {
                    limit = candidate;
                    break;
                }
                below += sorted[i];
            }
            for (double& w : widths)
                w = std::min(w, limit);
            total = 0;
            for (const double w : widths)
                total += w;
        }
        for (double& w : widths)
            w *= kContentWidth / total;
        const double rowHeight = 13;
        // The header row is as tall as its most wrapped header.
        double headerHeight = rowHeight;
        for (qsizetype c = 0; c < columns; ++c)
            headerHeight = std::max(headerHeight,
                head.boundingRect(QRectF(0, 0, widths[c] - 6, 1000), Qt::TextWordWrap, headers[c]).height() + 4);
        const auto drawRow = [&](const QStringList& cells, bool header) {
            const double height = header ? headerHeight : rowHeight;
            ensure(height);
            double x = kMargin;
            m_painter.setFont(header ? headFont : bodyFont);
            const QFontMetricsF& metrics = header ? head : body;
            for (qsizetype c = 0; c < columns; ++c) {
                const QRectF cell(x, m_y, widths[c], height);
                if (header)
                    m_painter.fillRect(cell, kHeaderFill);
                m_painter.setPen(kFrame);
                m_painter.drawRect(cell);
                m_painter.setPen(Qt::black);
                const QRectF inner = cell.adjusted(3, 0, -3, 0);
                if (header && metrics.horizontalAdvance(cells.value(c)) > inner.width())
                    m_painter.drawText(inner, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, cells.value(c));
                else
                    m_painter.drawText(inner, Qt::AlignLeft | Qt::AlignVCenter,
                        metrics.elidedText(cells.value(c), Qt::ElideRight, inner.width()));
                x += widths[c];
            }
            m_y += height;
        };
        ensure(headerHeight + rowHeight * std::min<qsizetype>(rows.size(), 2));
        drawRow(headers, true);
        for (const QStringList& row : rows)
            drawRow(row, false);
        m_y += 10;
    }

    // Requested and used (and the capacity as a dashed line) per bucket.
    void lineChart(const report::ResourceUse& use)
    {
        const double height = 150;
        ensure(height + 34);
        double top = std::max(use.capacity, 0.0);
        for (const auto* values : { &use.requested, &use.used })
            for (const double v : *values)
                if (report::measured(v))
                    top = std::max(top, v);
        top = report::niceAxisTop(top);
        const QRectF plot = frame(height, top);
        const std::size_t n = m_data.buckets.size();
        const auto x = [&](std::size_t i) {
            return plot.left()
                + plot.width() * (static_cast<double>(i) + 0.5) / static_cast<double>(std::max<std::size_t>(n, 1));
        };
        const auto y = [&](double v) { return plot.bottom() - plot.height() * v / top; };
        if (use.capacity > 0) {
            QPen pen(kCapacity, 1.2, Qt::DashLine);
            m_painter.setPen(pen);
            m_painter.drawLine(QPointF(plot.left(), y(use.capacity)), QPointF(plot.right(), y(use.capacity)));
        }
        for (const auto& [values, colour] : { std::pair { &use.requested, kRequested }, { &use.used, kUsed } }) {
            QPainterPath path;
            bool drawing = false;
            for (std::size_t i = 0; i < n && i < values->size(); ++i) {
                if (!report::measured((*values)[i])) {
                    drawing = false;
                    continue;
                }
                const QPointF point(x(i), y((*values)[i]));
                if (drawing)
                    path.lineTo(point);
                else
                    path.moveTo(point);
                drawing = true;
            }
            m_painter.setPen(QPen(colour, 1.8));
            m_painter.setBrush(Qt::NoBrush);
            m_painter.drawPath(path);
        }
        timeAxis(plot);
        legend({ { L("requested"), kRequested }, { L("used"), kUsed }, { L("capacity"), kCapacity } });
    }

    void barChart(const std::vector<double>& values, const QColor& colour)
    {
        const double height = 120;
        ensure(height + 34);
        double top = 0;
        for (const double v : values)
            if (report::measured(v))
                top = std::max(top, v);
        top = report::niceAxisTop(top);
        const QRectF plot = frame(height, top);
        const double slot = plot.width() / static_cast<double>(std::max<std::size_t>(values.size(), 1));
        for (std::size_t i = 0; i < values.size(); ++i) {
            if (!report::measured(values[i]))
                continue;
            const double h = plot.height() * values[i] / top;
            m_painter.fillRect(
                QRectF(plot.left() + slot * static_cast<double>(i) + slot * 0.1, plot.bottom() - h, slot * 0.8, h),
                colour);
        }
        timeAxis(plot);
        m_y += 4;
    }

    // Per tier, the share of its CPU capacity allocated and used, as horizontal bars.
    void tierBars(const std::vector<report::TierOccupancy>& tiers)
    {
        const double rowHeight = 22;
        ensure(rowHeight * static_cast<double>(tiers.size()) + 30);
        const double labelWidth = 60;
        const double barWidth = kContentWidth - labelWidth - 50;
        m_painter.setFont(font(8));
        for (const report::TierOccupancy& t : tiers) {
            m_painter.setPen(Qt::black);
            m_painter.drawText(
                QRectF(kMargin, m_y, labelWidth, rowHeight), Qt::AlignLeft | Qt::AlignVCenter, value(t.tier));
            const double x0 = kMargin + labelWidth;
            m_painter.setPen(kFrame);
            m_painter.setBrush(Qt::NoBrush);
            m_painter.drawRect(QRectF(x0, m_y + 2, barWidth, rowHeight - 4));
            double row = m_y + 3;
            for (const auto& [share, colour] :
                { std::pair { t.cpuAllocatedMean, kRequested }, std::pair { t.cpuUsedMean, kUsed } }) {
                if (report::measured(share) && t.cpuCapacity > 0) {
                    const double fraction = std::clamp(share / t.cpuCapacity, 0.0, 1.0);
                    m_painter.fillRect(QRectF(x0 + 1, row, (barWidth - 2) * fraction, (rowHeight - 8) / 2), colour);
                    m_painter.setPen(Qt::black);
                    m_painter.drawText(QRectF(x0 + barWidth + 4, row - 2, 46, (rowHeight - 4) / 2 + 2),
                        Qt::AlignLeft | Qt::AlignVCenter,
                        QString::number(fraction * 100.0, 'f', 0) + QStringLiteral(" %"));
                }
                row += (rowHeight - 6) / 2;
            }
            m_y += rowHeight;
        }
        legend({ { L("cpu-allocated"), kRequested }, { L("cpu-used"), kUsed } });
    }

private:
    void startPage()
    {
        ++m_page;
        m_painter.setFont(font(11, true));
        m_painter.setPen(Qt::black);
        m_painter.drawText(QRectF(kMargin, kMargin, kContentWidth, 16), Qt::AlignLeft | Qt::AlignVCenter,
            L("title") + QStringLiteral(" — ") + q(report::scopeTitle(m_data.request)));
        m_painter.setFont(font(8));
        m_painter.setPen(QColor(0x4a, 0x55, 0x68));
        m_painter.drawText(QRectF(kMargin, kMargin + 16, kContentWidth, 12), Qt::AlignLeft | Qt::AlignVCenter,
            L("period") + QStringLiteral(": ") + q(report::formatTime(m_data.request.fromMs)) + QStringLiteral(" – ")
                + q(report::formatTime(m_data.request.toMs)) + QLatin1Char(' ') + L("utc"));
        m_painter.setPen(kFrame);
        m_painter.drawLine(QPointF(kMargin, kTop - 4), QPointF(kPageWidth - kMargin, kTop - 4));
        m_y = kTop + 4;
    }

    void footer()
    {
        m_painter.setFont(font(7.5));
        m_painter.setPen(QColor(0x4a, 0x55, 0x68));
        const QRectF line(kMargin, kPageHeight - kMargin - 10, kContentWidth, 12);
        m_painter.drawText(line, Qt::AlignLeft | Qt::AlignVCenter,
            L("generated") + QStringLiteral(": ") + q(report::formatTime(m_data.generatedMs)) + QLatin1Char(' ')
                + L("utc"));
        m_painter.drawText(line, Qt::AlignRight | Qt::AlignVCenter,
            m_lang == Language::ZhCN ? QStringLiteral("第 %1 页").arg(m_page)
                                     : L("page") + QLatin1Char(' ') + QString::number(m_page));
    }

    // The plot area with its frame, grid and value axis; `m_y` moves below it.
    QRectF frame(double height, double top)
    {
        const QRectF plot(kMargin + 40, m_y, kContentWidth - 46, height);
        m_painter.fillRect(plot, QColor(0xf7, 0xfa, 0xfc));
        m_painter.setFont(font(7));
        for (int g = 0; g <= 4; ++g) {
            const double v = top * g / 4.0;
            const double yy = plot.bottom() - plot.height() * g / 4.0;
            m_painter.setPen(kGrid);
            m_painter.drawLine(QPointF(plot.left(), yy), QPointF(plot.right(), yy));
            m_painter.setPen(QColor(0x4a, 0x55, 0x68));
            m_painter.drawText(QRectF(kMargin, yy - 6, 36, 12), Qt::AlignRight | Qt::AlignVCenter,
                q(report::formatNumber(v,
                    top < 4        ? 2
                        : top < 40 ? 1
                                   : 0)));
        }
        m_painter.setPen(kFrame);
        m_painter.setBrush(Qt::NoBrush);
        m_painter.drawRect(plot);
        m_y += height;
        return plot;
    }

    void timeAxis(const QRectF& plot)
    {
        const std::size_t n = m_data.buckets.size();
        const std::size_t every = std::max<std::size_t>(1, n / 6);
        m_painter.setFont(font(7));
        m_painter.setPen(QColor(0x4a, 0x55, 0x68));
        for (std::size_t i = 0; i < n; i += every) {
            const double x = plot.left() + plot.width() * (static_cast<double>(i) + 0.5) / static_cast<double>(n);
            m_painter.drawText(QRectF(x - 30, plot.bottom() + 2, 60, 11), Qt::AlignHCenter | Qt::AlignTop,
                q(report::formatTime(m_data.buckets[i]).substr(5)));
        }
        m_y += 14;
    }

    void legend(std::initializer_list<std::pair<QString, QColor>> items)
    {
        m_painter.setFont(font(7.5));
        double x = kMargin + 40;
        for (const auto& [text, colour] : items) {
            m_painter.fillRect(QRectF(x, m_y + 4, 14, 3), colour);
            m_painter.setPen(Qt::black);
            const double w = QFontMetricsF(m_painter.font(), &m_writer).horizontalAdvance(text);
            m_painter.drawText(QRectF(x + 18, m_y, w + 4, 11), Qt::AlignLeft | Qt::AlignVCenter, text);
            x += 18 + w + 18;
        }
        m_y += 18;
    }

    QPdfWriter& m_writer;
    const ReportData& m_data;
    Language m_lang;
    QPainter m_painter;
    double m_y = 0;
    int m_page = 0;
};

QString percent(double part, double whole)
{
    return report::measured(part) && whole > 0 ? QString::number(part / whole * 100.0, 'f', 0) + QStringLiteral(" %")
                                               : QStringLiteral("—");
}

QString share(double value)
{
    return report::measured(value) ? QString::number(value * 100.0, 'f', 0) + QStringLiteral(" %")
                                   : QStringLiteral("—");
}

QString n(double value, int digits = 1)
{
    return q(report::formatNumber(value, digits));
}

bool paint(QPdfWriter& writer, const ReportData& d)
{
    writer.setResolution(kResolution);
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    writer.setTitle(
        q(report::label(d.request.language, "title")) + QStringLiteral(" — ") + q(report::scopeTitle(d.request)));
    writer.setCreator(QStringLiteral("Tidepool"));
    Layout page(writer, d);
    const auto L = [&](const char* key) { return page.L(key); };

    page.paragraph(L("scope") + QStringLiteral(": ") + q(report::scopeTitle(d.request)) + QStringLiteral("    ")
            + L("nodes") + QStringLiteral(": ") + QString::number(d.nodes) + QStringLiteral("    ") + L("pools")
            + QStringLiteral(": ") + QString::number(d.pools),
        9);

    page.heading(L("utilisation"));
    QList<QStringList> rows;
    for (const report::ResourceUse& u : d.utilisation)
        rows.append({ page.value(u.resource), page.value(u.unit), n(u.capacity), n(u.requestedMean), n(u.requestedPeak),
            n(u.usedMean), n(u.usedPeak), percent(u.requestedMean, u.capacity), percent(u.usedMean, u.capacity) });
    page.table({ L("resource"), L("unit"), L("capacity"), L("requested-mean"), L("requested-peak"), L("used-mean"),
                   L("used-peak"), L("requested-share"), L("used-share") },
        rows);
    for (const report::ResourceUse& u : d.utilisation) {
        page.subheading(page.value(u.resource) + QStringLiteral(" (") + page.value(u.unit) + QLatin1Char(')'), 184);
        page.lineChart(u);
    }

    page.heading(L("tiers"));
    rows.clear();
    for (const report::TierOccupancy& t : d.tiers)
        rows.append({ page.value(t.tier), QString::number(t.nodes), n(t.cpuCapacity), n(t.cpuAllocatedMean),
            n(t.cpuUsedMean), percent(t.cpuAllocatedMean, t.cpuCapacity), n(t.cpuRequestedMean),
            n(t.acceleratorCapacity, 0), n(t.acceleratorAllocatedMean, 2), n(t.acceleratorRequestedMean, 2) });
    page.table({ L("tier"), L("nodes"), L("cpu-capacity"), L("cpu-allocated"), L("cpu-used"), L("occupancy"),
                   L("cpu-requested"), L("accelerators"), L("accelerators-allocated"), L("accelerators-requested") },
        rows);
    if (!d.tiers.empty())
        page.tierBars(d.tiers);

    page.heading(L("pending"));
    const report::PendingStats& p = d.pending;
    page.table({ L("submitted"), L("placed"), L("waiting"), L("mean"), L("p50"), L("p90"), L("max") },
        { { QString::number(p.submitted), QString::number(p.placed), QString::number(p.waiting),
            q(report::formatDuration(p.meanMs)), q(report::formatDuration(p.p50Ms)), q(report::formatDuration(p.p90Ms)),
            q(report::formatDuration(p.maxMs)) } });

    page.heading(L("forecasts"));
    if (d.forecasts.empty())
        page.paragraph(L("none"));
    else {
        rows.clear();
        for (const report::ForecastAccuracy& f : d.forecasts)
            rows.append({ q(f.pool), page.value(f.resource), q(f.model), n(f.smapePct), n(f.coveragePct), n(f.mase, 2),
                QString::number(f.scoredPoints), q(f.note) });
        page.table(
            { L("pool"), L("resource"), L("model"), L("smape"), L("coverage"), L("mase"), L("points"), L("note") },
            rows);
    }

    page.heading(L("proposals"));
    if (d.proposals.empty())
        page.paragraph(L("none"));
    else {
        rows.clear();
        for (const report::ProposalOutcome& o : d.proposals)
            rows.append({ QString::number(o.id), page.value(o.kind), page.value(o.state), page.value(o.risk),
                q(report::formatTime(o.createdMs)).mid(5), q(o.decidedBy), share(o.predictedUtilisation),
                share(o.realisedUtilisation), n(o.predictedWattsSaved, 0), q(o.reason) });
        page.table({ L("id"), L("kind"), L("state"), L("risk"), L("created"), L("decided-by"), L("predicted"),
                       L("realised"), L("watts-saved"), L("reason") },
            rows);
    }

    page.heading(L("energy"));
    page.table({ L("energy-kwh"), L("co2-kg"), L("mean-watts"), L("intensity") },
        { { n(d.energy.kWh, 2), n(d.energy.co2Kg, 2), n(d.energy.meanWatts, 0), n(d.energy.gramsPerKWh, 0) } });
    page.subheading(L("energy-per-bucket"), 154);
    page.barChart(d.energy.kWhPerBucket, kEnergy);

    page.heading(L("costs"));
    if (d.costs.empty())
        page.paragraph(L("none"));
    else {
        rows.clear();
        for (const report::BusinessLineCost& c : d.costs)
            rows.append({ q(report::costSubject(d.request.language, c)), n(c.cpuCoreHours), n(c.memoryGiBHours),
                n(c.acceleratorHours),
                report::measured(c.cost) ? n(c.cost, 2) + QLatin1Char(' ') + q(d.currency) : QStringLiteral("—") });
        page.table(
            { L("business-line"), L("cpu-core-hours"), L("memory-gib-hours"), L("accelerator-hours"), L("cost") },
            rows);
    }

    page.heading(L("notes"));
    for (const std::string& note : d.notes)
        page.paragraph(QStringLiteral("• ") + q(note));
    return page.finish();
}

} // namespace

QByteArray renderReportPdf(const report::ReportData& data)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter writer(&buffer);
        if (!paint(writer, data))
            return {};
    }
    return bytes;
}

QString writeReportPdf(const report::ReportData& data, const QString& path)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    bool painted = false;
    {
        QPdfWriter writer(&file);
        painted = paint(writer, data);
    }
    if (!painted) {
        file.cancelWriting();
        return QStringLiteral("cannot write %1: the PDF could not be drawn").arg(path);
    }
    if (!file.commit())
        return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    return {};
}

QString writeReport(const report::ReportData& data, const QString& format, const QString& path)
{
    if (format == QLatin1String("pdf"))
        return writeReportPdf(data, path);
    std::string content;
    if (format == QLatin1String("html"))
        content = report::renderHtml(data);
    else if (format == QLatin1String("csv"))
        content = report::renderCsv(data);
    else
        return QStringLiteral("unknown report format \"%1\" (pdf, html or csv)").arg(format);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    if (file.write(content.data(), static_cast<qint64>(content.size())) != static_cast<qint64>(content.size())
        || !file.commit())
        return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    return {};
}

HeadlessGui::HeadlessGui()
{
    if (QGuiApplication::instance())
        return;
    const bool display = std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY");
    if (!display && !std::getenv("QT_QPA_PLATFORM"))
        ::setenv("QT_QPA_PLATFORM", "offscreen", 0);
    static int argc = 1;
    static char name[] = "tidepool-report";
    static char* argv[] = { name, nullptr };
    m_app = std::make_unique<QGuiApplication>(argc, argv);
}

HeadlessGui::~HeadlessGui() = default;

} // namespace tidepool::pdf
