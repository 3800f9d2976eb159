#pragma once
// The filter line above a table or tree: text and `key=value` terms (see `FilterProxy`), a hint when a key names no
// column, and `/` focuses it from anywhere in its page.
//
// Thread affinity: GUI thread.

#include <QWidget>

class QLabel;
class QLineEdit;

namespace tidepool::ui {

class FilterProxy;

class FilterBar : public QWidget {
    Q_OBJECT
public:
    explicit FilterBar(FilterProxy* proxy, QWidget* parent = nullptr);

    QLineEdit* lineEdit() const { return m_edit; }

private:
    void apply(const QString& text);

    FilterProxy* m_proxy;
    QLineEdit* m_edit;
    QLabel* m_hint;
};

} // namespace tidepool::ui
