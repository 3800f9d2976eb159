#pragma once
// The console's light and dark themes: the Fusion style with a palette of its own, so that both look the same on every
// desktop. `System` keeps the platform's style and palette (the default). Charts follow through `chartTheme`.
//
// Thread affinity: GUI thread.

#include <QString>
#include <QtCharts/QChart>

#include <optional>

class QWidget;

namespace tidepool::ui {

enum class Theme { System, Light, Dark };

// The settings' and the command line's names: "system", "light", "dark".
QString themeKey(Theme theme);
std::optional<Theme> parseTheme(const QString& key);

// Applies `theme` to the application: its style and palette, and the theme of every chart in its widgets.
void applyTheme(Theme theme);
// The theme last applied (System before any).
Theme currentTheme();
// The chart theme that matches the application's theme: new charts take it, `applyTheme` updates existing ones.
QChart::ChartTheme chartTheme();
// Gives every chart under `root` the current chart theme (for windows built after `applyTheme`).
void applyChartTheme(QWidget* root);

} // namespace tidepool::ui
