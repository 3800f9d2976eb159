#include "ui/views/proposals_page.h"

#include "ui/bridge/console_role.h"
#include "ui/bridge/core_bridge.h"
#include "ui/labels.h"
#include "ui/models/filter_proxy.h"
#include "ui/models/proposals_model.h"
#include "ui/models/roles.h"
#include "ui/views/proposal_detail.h"
#include "ui/views/table_page.h"

#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

namespace tidepool::ui {

ProposalsPage::ProposalsPage(CoreBridge& bridge, ProposalsModel* model, QWidget* parent)
    : QWidget(parent)
    , m_bridge(bridge)
    , m_model(model)
    , m_list(new TablePage(model, false, this))
    , m_detail(new ProposalDetail(this))
    , m_comment(new QLineEdit(this))
    , m_approve(new QPushButton(tr("&Approve"), this))
    , m_reject(new QPushButton(tr("&Reject"), this))
    , m_status(new QLabel(this))
    , m_scope(new QLabel(this))
{
    m_list->view()->sortByColumn(ProposalsModel::Id, Qt::DescendingOrder);
    m_comment->setObjectName(QStringLiteral("commentEdit"));
    m_comment->setPlaceholderText(tr("Comment (required to reject; kept in the audit log)"));
    m_comment->setMaxLength(1000);
    m_approve->setObjectName(QStringLiteral("approveButton"));
    m_reject->setObjectName(QStringLiteral("rejectButton"));
    m_status->setObjectName(QStringLiteral("decisionStatus"));
    m_status->setWordWrap(true);

    auto* right = new QWidget(this);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_approve);
    buttons->addWidget(m_reject);
    buttons->addStretch(1);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->addWidget(m_detail, 1);
    rightLayout->addWidget(m_comment);
    rightLayout->addLayout(buttons);
    rightLayout->addWidget(m_status);

    // A daemon keeps months of decided proposals; snapshots carry the newest of them (`kConsoleClosedProposals`).
    m_scope->setObjectName(QStringLiteral("proposalsScope"));
    m_scope->setWordWrap(true);
    m_scope->setText(tr("Every open proposal and the newest %1 decided or expired ones. Older ones: tidepoolctl "
                        "proposals --before ID, and the audit log.")
                         .arg(kConsoleClosedProposals));
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_list, 1);
    leftLayout->addWidget(m_scope);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(left);
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(m_list->view()->selectionModel(), &QItemSelectionModel::selectionChanged, this,
        &ProposalsPage::onSelectionChanged);
    // Rows change in place as snapshots arrive: keep the detail and the buttons current.
    connect(m_model, &QAbstractItemModel::dataChanged, this, &ProposalsPage::refresh);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ProposalsPage::refresh);
    connect(m_comment, &QLineEdit::textChanged, this, &ProposalsPage::refresh);
    connect(m_approve, &QPushButton::clicked, this, [this] { decide(Decision::Approve); });
    connect(m_reject, &QPushButton::clicked, this, [this] { decide(Decision::Reject); });
    connect(&m_bridge, &CoreBridge::commandFinished, this, &ProposalsPage::onCommandFinished);
    // A role that changes (another token after a reconnect) changes what the buttons allow.
    connect(&m_bridge, &CoreBridge::roleChanged, this, &ProposalsPage::refresh);
    refresh();
}

bool ProposalsPage::select(std::int64_t id)
{
    const int row = m_model->rowOf(id);
    if (row < 0)
        return false;
    const QModelIndex index = m_list->proxy()->mapFromSource(m_model->index(row, 0));
    if (!index.isValid())
        return false;
    m_list->view()->selectionModel()->setCurrentIndex(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    return true;
}

void ProposalsPage::onSelectionChanged()
{
    const QModelIndexList rows = m_list->view()->selectionModel()->selectedRows();
    m_selected.reset();
    if (!rows.isEmpty())
        m_selected = rows.front().data(IdRole).toLongLong();
    refresh();
}

void ProposalsPage::refresh()
{
    const int row = m_selected ? m_model->rowOf(*m_selected) : -1;
    const ProposalRow* proposal = m_model->rowAt(row);
    m_detail->showProposal(proposal);
    const bool pending = proposal && proposal->state == "pending";
    const bool idle = m_inFlight == 0;
    const bool commented = !m_comment->text().trimmed().isEmpty();
    // The core decides (a viewer's decision is answered 403); the buttons say so before anyone tries.
    const std::string& role = m_bridge.role();
    const bool mayDecide = roleAllows(role, boost::beast::http::verb::post, "/v1/proposals/0/approve");
    m_approve->setEnabled(pending && idle && mayDecide);
    m_reject->setEnabled(pending && idle && commented && mayDecide);
    QString why;
    if (!mayDecide)
        why = tr("Your token's role (%1) may look but not decide: deciding proposals needs an operator or an admin "
                 "token.")
                  .arg(QString::fromStdString(role));
    else if (!proposal)
        why = tr("Select a proposal first.");
    else if (!pending)
        why = tr("Only a waiting proposal can be decided; this one is %1.")
                  .arg(m_model->data(m_model->index(row, ProposalsModel::State)).toString());
    else if (!idle)
        why = tr("Waiting for the core to answer the previous decision.");
    m_approve->setToolTip(why);
    m_reject->setToolTip(why.isEmpty() && !commented ? tr("Write a comment saying why it is rejected.") : why);
}

void ProposalsPage::decide(Decision decision)
{
    if (!m_selected || m_inFlight != 0)
        return;
    const QString comment = m_comment->text().trimmed();
    m_inFlight = decision == Decision::Approve ? m_bridge.approve(*m_selected, comment)
                                               : m_bridge.reject(*m_selected, comment);
    m_status->setText(m_inFlight == 0       ? tr("No core is connected.")
            : decision == Decision::Approve ? tr("Approving proposal #%1…").arg(*m_selected)
                                            : tr("Rejecting proposal #%1…").arg(*m_selected));
    refresh();
}

void ProposalsPage::onCommandFinished(const CommandOutcome& outcome)
{
    if (outcome.requestId != m_inFlight)
        return;
    m_inFlight = 0;
    const QString message = QString::fromStdString(outcome.message);
    if (outcome.ok) {
        m_comment->clear();
        const QString done = outcome.decision == Decision::Approve ? tr("Proposal #%1 approved; now %2.")
                                                                   : tr("Proposal #%1 rejected; now %2.");
        m_status->setText(done.arg(outcome.proposalId).arg(proposalStateLabel(outcome.state))
            + (message.isEmpty() ? QString() : QLatin1Char(' ') + message));
    } else {
        m_status->setText(tr("Proposal #%1 was not changed: %2").arg(outcome.proposalId).arg(message));
    }
    refresh();
}

} // namespace tidepool::ui
