#include "ui/theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QWidget>
#include <QtCharts/QChartView>

namespace tidepool::ui {

namespace {

Theme g_theme = Theme::System;
QString g_platformStyle; // the style the application started with, for `System`
QPalette g_platformPalette;
bool g_platformSaved = false;

QPalette darkPalette()
{
    // Contrast kept at WCAG AA for body text (#e6e6e6 on #2b2b2b is 11:1; disabled text 4.6:1).
    QPalette p;
    const QColor window(0x2b, 0x2b, 0x2b);
    const QColor base(0x1f, 0x1f, 0x1f);
    const QColor text(0xe6, 0xe6, 0xe6);
    const QColor disabled(0x8c, 0x8c, 0x8c);
    const QColor highlight(0x3d, 0x7e, 0xcc);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x28, 0x28, 0x28));
    p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3a, 0x3a));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Light, QColor(0x45, 0x45, 0x45));
    p.setColor(QPalette::Midlight, QColor(0x3a, 0x3a, 0x3a));
    p.setColor(QPalette::Mid, QColor(0x30, 0x30, 0x30));
    p.setColor(QPalette::Dark, QColor(0x18, 0x18, 0x18));
    p.setColor(QPalette::Shadow, Qt::black);
    for (const auto role : { QPalette::WindowText, QPalette::Text, QPalette::ButtonText })
        p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x50, 0x50, 0x50));
    return p;
}

// After the Fusion style is set: its standard palette, with a few colours of our own.
QPalette lightPalette()
{
    QPalette p = QApplication::style()->standardPalette();
    p.setColor(QPalette::AlternateBase, QColor(0xf3, 0xf5, 0xf8));
    p.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xbf));
    return p;
}

} // namespace

QString themeKey(Theme theme)
{
    switch (theme) {
    case Theme::System: return QStringLiteral("system");
    case Theme::Light: return QStringLiteral("light");
    case Theme::Dark: return QStringLiteral("dark");
    }
    return QStringLiteral("system");
}

std::optional<Theme> parseTheme(const QString& key)
{
    for (const Theme theme : { Theme::System, Theme::Light, Theme::Dark })
        if (key == themeKey(theme))
            return theme;
    return std::nullopt;
}

void applyTheme(Theme theme)
{
    if (!g_platformSaved) {
        g_platformStyle = QApplication::style()->name();
        g_platformPalette = QApplication::palette();
        g_platformSaved = true;
    }
    g_theme = theme;
    switch (theme) {
    case Theme::System:
        QApplication::setStyle(g_platformStyle);
        QApplication::setPalette(g_platformPalette);
        break;
    case Theme::Light:
        QApplication::setStyle(QStringLiteral("Fusion"));
        QApplication::setPalette(lightPalette());
        break;
    case Theme::Dark:
        QApplication::setStyle(QStringLiteral("Fusion"));
        QApplication::setPalette(darkPalette());
        break;
    }
    for (QWidget* top : QApplication::topLevelWidgets())
        applyChartTheme(top);
}

Theme currentTheme()
{
    return g_theme;
}

QChart::ChartTheme chartTheme()
{
    if (g_theme == Theme::Dark)
        return QChart::ChartThemeDark;
    if (g_theme == Theme::System && QApplication::palette().color(QPalette::Window).lightness() < 128)
        return QChart::ChartThemeDark;
    return QChart::ChartThemeLight;
}

void applyChartTheme(QWidget* root)
{
    if (!root)
        return;
    const QChart::ChartTheme theme = chartTheme();
    for (QChartView* view : root->findChildren<QChartView*>()) {
        if (QChart* chart = view->chart(); chart && chart->theme() != theme) {
            // A chart theme resets the series' colours: the views that colour series themselves do it again on
            // their next update.
            chart->setTheme(theme);
        }
    }
}

} // namespace tidepool::ui
