#include "ui/views/proposal_detail.h"

#include "ui/labels.h"
#include "ui/models/proposals_model.h"

#include <QLabel>
#include <QScrollArea>
#include <QStringList>
#include <QVBoxLayout>

namespace tidepool::ui {

namespace {
QString escaped(const std::string& text)
{
    return QString::fromStdString(text).toHtmlEscaped();
}
} // namespace

ProposalDetail::ProposalDetail(QWidget* parent)
    : QWidget(parent)
    , m_body(new QLabel(this))
{
    m_body->setObjectName(QStringLiteral("proposalDetail"));
    m_body->setTextFormat(Qt::RichText);
    m_body->setWordWrap(true);
    m_body->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_body->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_body);
    scroll->setWidgetResizable(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);
    showProposal(nullptr);
}

QString ProposalDetail::text() const
{
    return m_body->text();
}

void ProposalDetail::showProposal(const ProposalRow* p)
{
    if (!p) {
        m_body->setText(tr("Select a proposal to see why it was made and what it would change."));
        return;
    }
    QStringList html;
    html << tr("<h3>#%1 %2 — %3</h3>").arg(p->id).arg(proposalKindLabel(p->kind), escaped(p->subject));
    html << tr("<p><b>State:</b> %1 &nbsp; <b>Risk:</b> %2 &nbsp; <b>Expires:</b> %3</p>")
                .arg(proposalStateLabel(p->state), riskLabel(p->risk), timeText(p->expiresMs));
    html << tr("<p><b>Why:</b> %1</p>").arg(reasonText(p->why, p->reason).toHtmlEscaped());
    const QString effect = ProposalsModel::effectText(*p);
    html << tr("<p><b>Predicted effect:</b> %1</p>").arg(effect.isEmpty() ? tr("none stated") : effect.toHtmlEscaped());
    if (!p->sloRisk.empty())
        html << tr("<p><b>Service-level risk:</b> %1</p>").arg(reasonText(p->sloRiskWhy, p->sloRisk).toHtmlEscaped());
    if (!p->plan.empty()) {
        QStringList steps;
        for (const std::string& step : p->plan)
            steps << QStringLiteral("<li>%1</li>").arg(planStepText(step).toHtmlEscaped());
        html << tr("<p><b>Plan:</b></p><ol>%1</ol>").arg(steps.join(QString()));
    }
    if (!p->decidedBy.empty())
        html << tr("<p><b>Decided by</b> %1 at %2</p>").arg(escaped(p->decidedBy), timeText(p->decidedMs));
    if (!p->detail.empty())
        html << tr("<p><b>Outcome:</b> %1</p>").arg(escaped(p->detail));
    m_body->setText(html.join(QString()));
}

} // namespace tidepool::ui
