#include "ui/views/tiers_page.h"

#include "ui/bridge/console_role.h"
#include "ui/bridge/core_bridge.h"
#include "ui/labels.h"
#include "ui/models/tiers_model.h"
#include "ui/move_text.h"
#include "ui/views/card_delegate.h"
#include "ui/views/logs_dialog.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTreeView>
#include <QVBoxLayout>

namespace tidepool::ui {

namespace {

// Expanding costs a view pass per node group; past this many cards a tier's groups start folded and the operator
// opens the nodes wanted.
constexpr int kExpandAllUpTo = 5000;

} // namespace

TiersPage::TiersPage(CoreBridge& bridge, TiersModel* model, QWidget* parent)
    : QWidget(parent)
    , m_bridge(bridge)
    , m_model(model)
    , m_message(new QLabel(this))
    , m_hint(new QLabel(this))
{
    QLabel* hint = m_hint;
    hint->setObjectName(QStringLiteral("tiersHint"));
    hint->setWordWrap(true);
    m_message->setObjectName(QStringLiteral("moveMessage"));
    m_message->setWordWrap(true);
    m_message->setMargin(6);
    m_message->setVisible(false);

    auto* board = new QHBoxLayout;
    for (const char* tier : { "hot", "warm", "cold" }) {
        auto* header = new QLabel(this);
        header->setObjectName(QStringLiteral("tierHeader-") + QLatin1String(tier));
        auto* view = new QTreeView(this);
        view->setObjectName(QStringLiteral("tierColumn-") + QLatin1String(tier));
        view->setModel(m_model);
        view->setHeaderHidden(true);
        view->setUniformRowHeights(true); // 50,000 cards: only the visible rows are laid out
        view->setItemDelegate(new CardDelegate(view));
        view->setSelectionMode(QAbstractItemView::ExtendedSelection);
        view->setDragDropMode(QAbstractItemView::DragDrop);
        view->setDefaultDropAction(Qt::MoveAction);
        view->setDragEnabled(true);
        view->setAcceptDrops(true);
        view->setDropIndicatorShown(true);
        view->setIndentation(10);
        auto* column = new QVBoxLayout;
        column->addWidget(header);
        column->addWidget(view, 1);
        board->addLayout(column, 1);
        m_columns.emplace_back(header, view);
    }
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(hint);
    layout->addWidget(m_message);
    layout->addLayout(board, 1);

    auto rootAll = [this] {
        for (const auto& [header, view] : m_columns) {
            const QModelIndex tier = m_model->tierIndex(view->objectName().section(QLatin1Char('-'), 1));
            view->setRootIndex(tier);
            if (m_model->cardCount(tier) <= kExpandAllUpTo)
                view->expandAll();
        }
        refreshHeaders();
    };
    connect(m_model, &QAbstractItemModel::modelReset, this, rootAll);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &TiersPage::expandGroups);
    connect(m_model, &QAbstractItemModel::layoutAboutToBeChanged, this, &TiersPage::rememberGroups);
    connect(m_model, &QAbstractItemModel::layoutChanged, this, &TiersPage::expandNewGroups);
    connect(m_model, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex& topLeft) {
        if (!topLeft.parent().isValid())
            refreshHeaders(); // a tier's counts
    });
    connect(m_model, &TiersModel::moveRequested, this, &TiersPage::onMoveRequested);
    connect(&m_bridge, &CoreBridge::moveFinished, this, &TiersPage::onMoveFinished);
    connect(&m_bridge, &CoreBridge::roleChanged, this, &TiersPage::updateRole);
    for (const auto& [header, view] : m_columns)
        offerWorkloadOutput(view, m_bridge);
    updateRole();
    rootAll();
}

void TiersPage::updateRole()
{
    const std::string& role = m_bridge.role();
    const bool mayMove = roleAllows(role, boost::beast::http::verb::post, "/v1/workloads/0/move");
    for (const auto& [header, view] : m_columns)
        view->setDragEnabled(mayMove);
    m_hint->setText(mayMove
            ? tr("Drag a workload onto another tier (the core picks the node) or onto a node. The core checks the "
                 "move against the scheduler's rules and either makes it or says why not.")
            : tr("Your token's role (%1) may look but not move workloads: moving them needs the %2 role.")
                  .arg(QString::fromStdString(role),
                      QString::fromStdString(roleNeeded(boost::beast::http::verb::post, "/v1/workloads/0/move"))));
}

QTreeView* TiersPage::column(const QString& tier) const
{
    for (const auto& [header, view] : m_columns)
        if (view->objectName() == QStringLiteral("tierColumn-") + tier)
            return view;
    return nullptr;
}

void TiersPage::expandGroups(const QModelIndex& parent, int first, int last)
{
    // New node groups of a tier open like the others, while the tier is small enough.
    if (!parent.isValid() || parent.parent().isValid() || m_model->cardCount(parent) > kExpandAllUpTo)
        return;
    QTreeView* view = column(parent.data(TiersModel::TierRole).toString());
    if (!view)
        return;
    for (int row = first; row <= last; ++row)
        view->expand(m_model->index(row, 0, parent));
}

void TiersPage::rememberGroups()
{
    m_groupsBefore.clear();
    for (int t = 0; t < m_model->rowCount(); ++t) {
        const QModelIndex tier = m_model->index(t, 0);
        if (m_model->cardCount(tier) > kExpandAllUpTo)
            continue;
        std::set<QString>& groups = m_groupsBefore[tier.data(TiersModel::TierRole).toString()];
        for (int g = 0; g < m_model->rowCount(tier); ++g)
            groups.insert(m_model->index(g, 0, tier).data(TiersModel::NodeRole).toString());
    }
}

void TiersPage::expandNewGroups()
{
    for (const auto& [name, before] : m_groupsBefore) {
        const QModelIndex tier = m_model->tierIndex(name);
        QTreeView* view = column(name);
        if (!tier.isValid() || !view || m_model->cardCount(tier) > kExpandAllUpTo)
            continue;
        for (int g = 0; g < m_model->rowCount(tier); ++g) {
            const QModelIndex group = m_model->index(g, 0, tier);
            if (!before.contains(group.data(TiersModel::NodeRole).toString()))
                view->expand(group);
        }
    }
    m_groupsBefore.clear();
}

void TiersPage::refreshHeaders()
{
    for (const auto& [header, view] : m_columns) {
        const QModelIndex tier = view->rootIndex();
        if (!tier.isValid())
            continue;
        header->setText(QStringLiteral("<b>%1</b> — %2")
                            .arg(tr("%1 tier").arg(tierLabel(tier.data(TiersModel::TierRole).toString().toStdString())),
                                tier.data(TiersModel::SubtitleRole).toString()));
    }
}

void TiersPage::onMoveRequested(qint64 workloadId, const QString& node, const QString& tier)
{
    const quint64 request = m_bridge.move(workloadId, node, tier);
    if (request == 0) {
        m_model->setNote(workloadId, tr("Not moved: no core is attached."), TiersModel::NoteState::Refused);
        return;
    }
    m_inFlight[request] = workloadId;
}

void TiersPage::onMoveFinished(const MoveResult& result)
{
    const auto it = m_inFlight.find(result.requestId);
    if (it == m_inFlight.end())
        return;
    m_inFlight.erase(it);
    const QString text = moveResultText(result);
    m_model->setNote(result.workloadId, result.ok ? tr("Moved to %1").arg(QString::fromStdString(result.node)) : text,
        result.ok ? TiersModel::NoteState::Moved : TiersModel::NoteState::Refused);
    m_message->setText(text);
    m_message->setProperty("refused", !result.ok);
    m_message->setStyleSheet(result.ok ? QStringLiteral("QLabel { background: #e8f5e9; color: #1b5e20; }")
                                       : QStringLiteral("QLabel { background: #ffebee; color: #b71c1c; }"));
    m_message->setVisible(true);
}

} // namespace tidepool::ui
