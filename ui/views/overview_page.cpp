#include "ui/views/overview_page.h"

#include "ui/labels.h"

#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QProgressBar>
#include <QStringList>
#include <QVBoxLayout>

#include <set>

namespace tidepool::ui {

namespace {

QLabel* valueLabel(const char* objectName, QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setObjectName(QString::fromLatin1(objectName));
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

int permille(std::int64_t part, std::int64_t whole)
{
    return whole > 0 ? static_cast<int>(1000 * part / whole) : 0;
}

} // namespace

OverviewPage::OverviewPage(QWidget* parent)
    : QWidget(parent)
    , m_clock(valueLabel("clock", this))
    , m_nodes(valueLabel("nodesByIsa", this))
    , m_accelerators(valueLabel("accelerators", this))
    , m_workloads(valueLabel("workloads", this))
    , m_pending(valueLabel("pending", this))
    , m_proposals(valueLabel("proposalsWaiting", this))
    , m_alerts(valueLabel("alerts", this))
{
    auto* alerts = new QGroupBox(tr("Alerts"), this);
    auto* alertsLayout = new QVBoxLayout(alerts);
    m_alerts->setWordWrap(true);
    m_alerts->setText(tr("No alerts"));
    alertsLayout->addWidget(m_alerts);

    auto* counts = new QGroupBox(tr("Cluster"), this);
    auto* form = new QFormLayout(counts);
    form->addRow(tr("Clock:"), m_clock);
    form->addRow(tr("Nodes by ISA and state:"), m_nodes);
    form->addRow(tr("Accelerators:"), m_accelerators);
    form->addRow(tr("Workloads:"), m_workloads);
    form->addRow(tr("Pending workloads:"), m_pending);
    form->addRow(tr("Proposals waiting:"), m_proposals);

    auto* tiers = new QGroupBox(tr("Tier occupancy (allocated)"), this);
    auto* grid = new QGridLayout(tiers);
    grid->addWidget(new QLabel(tr("CPU"), tiers), 0, 1);
    grid->addWidget(new QLabel(tr("Accelerators"), tiers), 0, 2);
    for (std::size_t i = 0; i < m_tiers.size(); ++i) {
        TierBars& bars = m_tiers[i];
        bars.label = new QLabel(tiers);
        bars.cpu = new QProgressBar(tiers);
        bars.accelerators = new QProgressBar(tiers);
        for (QProgressBar* bar : { bars.cpu, bars.accelerators }) {
            bar->setRange(0, 1000);
            bar->setFormat(tr("%p %"));
        }
        const int row = static_cast<int>(i) + 1;
        grid->addWidget(bars.label, row, 0);
        grid->addWidget(bars.cpu, row, 1);
        grid->addWidget(bars.accelerators, row, 2);
    }

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(alerts);
    layout->addWidget(counts);
    layout->addWidget(tiers);
    layout->addStretch(1);
}

QString OverviewPage::nodesTable(const OverviewCounts& counts) const
{
    std::set<std::string> states;
    for (const auto& [isa, byState] : counts.nodesByIsaAndState)
        for (const auto& [state, n] : byState)
            states.insert(state);
    QStringList lines;
    for (const auto& [isa, byState] : counts.nodesByIsaAndState) {
        QStringList parts;
        for (const std::string& state : states) {
            const auto it = byState.find(state);
            parts << tr("%1 %2").arg(it == byState.end() ? 0 : it->second).arg(nodeStateLabel(state));
        }
        lines << tr("%1: %2").arg(isaLabel(isa), parts.join(tr(", ")));
    }
    return lines.isEmpty() ? tr("no nodes") : lines.join(QLatin1Char('\n'));
}

QString OverviewPage::alertText(const AlertRow& a)
{
    const QString subject = QString::fromStdString(a.subject);
    const QString detail = QString::fromStdString(a.detail);
    if (a.kind == "node-lost")
        return tr("Node %1 is lost: its agent has not been heard from, and its workloads are being placed again.")
            .arg(subject);
    if (a.kind == "node-suspect")
        return tr("Node %1 is late: no heartbeat for a while; it takes no new work.").arg(subject);
    if (a.kind == "read-only")
        return tr("The store cannot be written (%1): changes are refused until it can.").arg(detail);
    if (a.kind == "disk-low")
        return tr("Disk low: %1 free of %2 where the store lives (%3).")
            .arg(memoryText(a.value / (1024 * 1024)), memoryText(a.total / (1024 * 1024)), subject);
    if (a.kind == "disk-unreadable")
        return tr("The free space of %1 cannot be read: %2.").arg(subject, detail);
    if (a.kind == "certificate-expiring")
        return tr("Certificate %1 expires on %2.").arg(subject, timeText(a.value));
    if (a.kind == "certificate-expired")
        return tr("Certificate %1 expired on %2: TLS peers refuse it.").arg(subject, timeText(a.value));
    if (a.kind == "certificate-unreadable")
        return tr("Certificate %1 cannot be read: %2.").arg(subject, detail);
    return tr("%1: %2 %3").arg(QString::fromStdString(a.kind), subject, detail);
}

void OverviewPage::setSnapshot(const SnapshotPtr& snapshot)
{
    if (!snapshot)
        return;
    // The first few in full; a thousand lost nodes are a count, not a page of lines.
    constexpr int kShown = 8;
    QStringList alerts;
    for (std::size_t i = 0; i < snapshot->alerts.size() && i < kShown; ++i)
        alerts << alertText(snapshot->alerts[i]);
    if (snapshot->alerts.size() > kShown)
        alerts << tr("… and %n more.", nullptr, static_cast<int>(snapshot->alerts.size() - kShown));
    m_alerts->setText(alerts.isEmpty() ? tr("No alerts") : alerts.join(QLatin1Char('\n')));
    const bool alarmed = !alerts.isEmpty();
    if (m_alerts->property("alarmed").toBool() != alarmed) { // a new style sheet polishes and lays out again
        m_alerts->setProperty("alarmed", alarmed);
        m_alerts->setStyleSheet(alarmed ? QStringLiteral("color: #c62828;") : QString());
    }
    const OverviewCounts& o = snapshot->overview;
    QString clock = timeText(snapshot->nowMs);
    if (snapshot->finished)
        clock = tr("%1 (the demo run has ended)").arg(clock);
    if (!snapshot->readOnlyReason.empty())
        clock = tr("%1 — read-only: %2").arg(clock, QString::fromStdString(snapshot->readOnlyReason));
    m_clock->setText(clock);
    m_nodes->setText(nodesTable(o));
    QStringList accelerators;
    for (const auto& [kind, n] : o.acceleratorsByKind)
        accelerators << tr("%1 %2").arg(n).arg(acceleratorLabel(kind));
    m_accelerators->setText(accelerators.isEmpty() ? tr("none") : accelerators.join(tr(", ")));
    QStringList phases;
    for (const auto& [phase, n] : o.workloadsByPhase)
        phases << tr("%1 %2").arg(n).arg(phaseLabel(phase));
    QStringList tiers;
    for (const auto& [tier, n] : o.activeWorkloadsByTier)
        tiers << tr("%1 on %2").arg(n).arg(tierLabel(tier));
    m_workloads->setText(
        phases.isEmpty() ? tr("none") : tr("%1 (active: %2)").arg(phases.join(tr(", ")), tiers.join(tr(", "))));
    m_pending->setText(QString::number(o.pendingWorkloads));
    m_proposals->setText(QString::number(o.proposalsWaiting));
    for (std::size_t i = 0; i < m_tiers.size() && i < o.tiers.size(); ++i) {
        const TierLoad& t = o.tiers[i];
        m_tiers[i].label->setText(tr("%1 (%n node(s))", nullptr, t.nodes).arg(tierLabel(t.tier)));
        m_tiers[i].cpu->setValue(permille(t.cpuAllocatedMillis, t.cpuMillis));
        m_tiers[i].accelerators->setValue(permille(t.acceleratorShareAllocated, t.acceleratorShare));
        m_tiers[i].accelerators->setEnabled(t.acceleratorShare > 0);
    }
}

} // namespace tidepool::ui
