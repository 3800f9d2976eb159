#include "ui/views/pools_page.h"

#include "ui/bridge/console_role.h"
#include "ui/bridge/core_bridge.h"
#include "ui/models/filter_proxy.h"
#include "ui/models/pools_model.h"
#include "ui/move_text.h"
#include "ui/views/logs_dialog.h"
#include "ui/views/pool_dialog.h"

#include <QBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTreeView>

namespace tidepool::ui {

PoolsPage::PoolsPage(CoreBridge& bridge, PoolsModel* model, QWidget* parent)
    : TablePage(model, true, parent)
    , m_bridge(bridge)
    , m_model(model)
    , m_message(new QLabel(this))
    , m_hint(new QLabel(this))
    , m_new(new QPushButton(tr("&New pool…"), this))
    , m_edit(new QPushButton(tr("&Edit pool…"), this))
    , m_delete(new QPushButton(tr("&Delete pool…"), this))
{
    QLabel* hint = m_hint;
    hint->setObjectName(QStringLiteral("poolsHint"));
    hint->setWordWrap(true);
    m_message->setObjectName(QStringLiteral("poolsMoveMessage"));
    m_message->setWordWrap(true);
    m_message->setMargin(6);
    m_message->setVisible(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_new);
    buttons->addWidget(m_edit);
    buttons->addWidget(m_delete);
    buttons->addStretch(1);
    // Between the filter bar and the tree.
    if (auto* box = qobject_cast<QBoxLayout*>(layout())) {
        box->insertLayout(1, buttons);
        box->insertWidget(2, hint);
        box->insertWidget(3, m_message);
    }
    connect(m_new, &QPushButton::clicked, this, [this] {
        PoolDialog dialog(nullptr, this);
        prepareDialog(dialog);
        if (dialog.exec() == QDialog::Accepted)
            changePool(PoolAction::Create, dialog.poolName(), dialog.body());
    });
    connect(m_edit, &QPushButton::clicked, this, [this] {
        const PoolRow* pool = selectedPool();
        if (!pool)
            return;
        PoolDialog dialog(pool, this);
        prepareDialog(dialog);
        if (dialog.exec() == QDialog::Accepted)
            changePool(PoolAction::Update, dialog.poolName(), dialog.body());
    });
    connect(m_delete, &QPushButton::clicked, this, [this] {
        const PoolRow* pool = selectedPool();
        if (!pool)
            return;
        const QString name = QString::fromStdString(pool->name);
        if (QMessageBox::question(this, tr("Delete pool %1").arg(name),
                tr("Delete pool %1? The core refuses while any of its workloads has not ended; its history stays, and "
                   "reports over the days it lived still count it.")
                    .arg(name))
            == QMessageBox::Yes)
            changePool(PoolAction::Delete, name);
    });
    connect(&m_bridge, &CoreBridge::poolChanged, this, &PoolsPage::onPoolChanged);
    connect(view()->selectionModel(), &QItemSelectionModel::currentChanged, this, &PoolsPage::updateButtons);
    connect(model, &QAbstractItemModel::modelReset, this, &PoolsPage::updateButtons);
    connect(&m_bridge, &CoreBridge::roleChanged, this, &PoolsPage::updateButtons);
    QTreeView* tree = view();
    tree->setDragDropMode(QAbstractItemView::DragDrop);
    tree->setDefaultDropAction(Qt::MoveAction);
    tree->setAcceptDrops(true);
    tree->setDropIndicatorShown(true);
    connect(model, &PoolsModel::moveRequested, this, &PoolsPage::onMoveRequested);
    connect(&m_bridge, &CoreBridge::moveFinished, this, &PoolsPage::onMoveFinished);
    offerWorkloadOutput(tree, m_bridge);
    updateButtons();
}

void PoolsPage::prepareDialog(PoolDialog& dialog) const
{
    QStringList lines;
    if (const SnapshotPtr snapshot = m_bridge.latest())
        for (const PoolRow& pool : snapshot->pools)
            if (!pool.businessLine.empty() && !lines.contains(QString::fromStdString(pool.businessLine)))
                lines << QString::fromStdString(pool.businessLine);
    lines.sort(Qt::CaseInsensitive);
    dialog.suggestBusinessLines(lines);
    if (const PoolRow* like = selectedPool())
        dialog.startLike(*like);
}

const PoolRow* PoolsPage::selectedPool() const
{
    const QModelIndex current = view()->selectionModel()->currentIndex();
    return current.isValid() ? m_model->poolAt(proxy()->mapToSource(current)) : nullptr;
}

void PoolsPage::updateButtons()
{
    using boost::beast::http::verb;
    const std::string& role = m_bridge.role();
    const auto refusal = [&role](verb method, std::string_view path, const QString& what) {
        return roleAllows(role, method, path)
            ? QString()
            : tr("Your token's role (%1) may not %2: that needs the %3 role.")
                  .arg(QString::fromStdString(role), what, QString::fromStdString(roleNeeded(method, path)));
    };
    const QString mayNotCreate = refusal(verb::post, "/v1/pools", tr("create pools"));
    const QString mayNotChange = refusal(verb::put, "/v1/pools/p", tr("change pools"));
    const QString mayNotDelete = refusal(verb::delete_, "/v1/pools/p", tr("delete pools"));
    const QString mayNotMove = refusal(verb::post, "/v1/workloads/0/move", tr("move workloads"));

    const PoolRow* pool = selectedPool();
    m_new->setEnabled(mayNotCreate.isEmpty());
    m_new->setToolTip(mayNotCreate);
    m_edit->setEnabled(pool != nullptr && mayNotChange.isEmpty());
    m_edit->setToolTip(!mayNotChange.isEmpty() ? mayNotChange : pool ? QString() : tr("Select a pool first."));
    // The default pool holds the workloads that name none: the core never deletes it.
    const bool isDefault = pool != nullptr && pool->name == "default";
    m_delete->setEnabled(pool != nullptr && !isDefault && mayNotDelete.isEmpty());
    m_delete->setToolTip(!mayNotDelete.isEmpty() ? mayNotDelete
            : !pool                              ? tr("Select a pool first.")
            : isDefault ? tr("The default pool holds the workloads that name no pool: it is never deleted.")
                        : QString());
    view()->setDragEnabled(mayNotMove.isEmpty());
    m_hint->setText(mayNotMove.isEmpty()
            ? tr("Drag a workload onto another pool (the core picks the node) or onto a node of a pool. The core "
                 "checks the target pool quota and the scheduling rules, then moves it or says why not.")
            : mayNotMove);
}

quint64 PoolsPage::changePool(PoolAction action, const QString& name, const nlohmann::json& body)
{
    const quint64 request = m_bridge.changePool(action, name, body);
    if (request == 0) {
        showMessage(tr("Pool %1 unchanged: no core is attached.").arg(name), true);
        return 0;
    }
    m_poolChanges[request] = action;
    showMessage(action == PoolAction::Create ? tr("Creating pool %1…").arg(name)
            : action == PoolAction::Update   ? tr("Changing pool %1…").arg(name)
                                             : tr("Deleting pool %1…").arg(name),
        false);
    return request;
}

void PoolsPage::onPoolChanged(const PoolResult& result)
{
    if (!m_poolChanges.erase(result.requestId))
        return;
    const QString name = QString::fromStdString(result.name);
    const QString why = QString::fromStdString(result.message);
    switch (result.action) {
    case PoolAction::Create:
        showMessage(
            result.ok ? tr("Pool %1 created.").arg(name) : tr("Pool %1 not created: %2").arg(name, why), !result.ok);
        break;
    case PoolAction::Update:
        showMessage(
            result.ok ? tr("Pool %1 changed.").arg(name) : tr("Pool %1 not changed: %2").arg(name, why), !result.ok);
        break;
    case PoolAction::Delete:
    case PoolAction::Invalid:
        showMessage(
            result.ok ? tr("Pool %1 deleted.").arg(name) : tr("Pool %1 not deleted: %2").arg(name, why), !result.ok);
        break;
    }
    updateButtons();
}

void PoolsPage::onMoveRequested(qint64 workloadId, const QString& pool, const QString& node)
{
    const quint64 request = m_bridge.move(workloadId, node, {}, pool);
    if (request == 0) {
        showMessage(tr("Not moved: no core is attached."), true);
        return;
    }
    m_inFlight[request] = workloadId;
    showMessage(node.isEmpty() ? tr("Moving workload %1 into pool %2…").arg(workloadId).arg(pool)
                               : tr("Moving workload %1 into pool %2, onto node %3…").arg(workloadId).arg(pool, node),
        false);
}

void PoolsPage::onMoveFinished(const MoveResult& result)
{
    // The Tiers board's moves come back through the same bridge: only this page's are answered here.
    const auto it = m_inFlight.find(result.requestId);
    if (it == m_inFlight.end())
        return;
    m_inFlight.erase(it);
    showMessage(moveResultText(result), !result.ok);
}

void PoolsPage::showMessage(const QString& text, bool refused)
{
    m_message->setText(text);
    m_message->setProperty("refused", refused);
    m_message->setStyleSheet(refused ? QStringLiteral("QLabel { background: #ffebee; color: #b71c1c; }")
                                     : QStringLiteral("QLabel { background: #e8f5e9; color: #1b5e20; }"));
    m_message->setVisible(true);
}

} // namespace tidepool::ui
