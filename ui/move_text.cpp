#include "ui/move_text.h"

#include "ui/labels.h"

#include <QCoreApplication>

#include <array>

namespace tidepool::ui {

namespace {

struct Name {
    const char* key;
    const char* text;
};

// `RejectReason`'s names (core/sched/reasons.cpp).
constexpr std::array kReasons { Name { "node unschedulable", QT_TRANSLATE_NOOP("MoveText", "node out of service") },
    Name { "not in the workload's pool", QT_TRANSLATE_NOOP("MoveText", "not in the workload's pool") },
    Name { "tier not allowed",
        QT_TRANSLATE_NOOP("MoveText", "its pool's tier or its latency class keeps it off this tier") },
    Name { "reserved for forecast peak", QT_TRANSLATE_NOOP("MoveText", "reserved for the forecast peak") },
    Name { "wrong ISA and no translation", QT_TRANSLATE_NOOP("MoveText", "wrong ISA and no translation") },
    Name {
        "no accelerator of the requested kind", QT_TRANSLATE_NOOP("MoveText", "no accelerator of the requested kind") },
    Name { "wrong accelerator model", QT_TRANSLATE_NOOP("MoveText", "wrong accelerator model") },
    Name { "insufficient accelerator share", QT_TRANSLATE_NOOP("MoveText", "not enough free accelerator share") },
    Name { "insufficient accelerator memory", QT_TRANSLATE_NOOP("MoveText", "not enough free accelerator memory") },
    Name { "not enough idle whole accelerators",
        QT_TRANSLATE_NOOP("MoveText", "not enough idle accelerators for whole devices (a shared one does not count)") },
    Name { "insufficient CPU", QT_TRANSLATE_NOOP("MoveText", "not enough free CPU") },
    Name { "insufficient memory", QT_TRANSLATE_NOOP("MoveText", "not enough free memory") },
    Name { "insufficient memory bandwidth", QT_TRANSLATE_NOOP("MoveText", "not enough memory bandwidth") },
    Name { "insufficient network bandwidth", QT_TRANSLATE_NOOP("MoveText", "not enough network bandwidth") },
    Name { "pool quota exhausted", QT_TRANSLATE_NOOP("MoveText", "its pool's quota is used up") },
    Name { "rejected by policy", QT_TRANSLATE_NOOP("MoveText", "refused by a scheduling policy") },
    Name { "its id held there by another workload",
        QT_TRANSLATE_NOOP("MoveText", "another workload runs under its id there") } };

QString workloadName(const MoveResult& r)
{
    return r.workload.empty() ? QCoreApplication::translate("MoveText", "Workload %1").arg(r.workloadId)
                              : QString::fromStdString(r.workload);
}

// The node asked for, else the pool, else the tier.
QString targetText(const MoveResult& r, const std::string& node)
{
    if (!node.empty())
        return QCoreApplication::translate("MoveText", "node %1").arg(QString::fromStdString(node));
    if (!r.pool.empty())
        return QCoreApplication::translate("MoveText", "pool %1").arg(QString::fromStdString(r.pool));
    return QCoreApplication::translate("MoveText", "the %1 tier").arg(tierLabel(r.tier));
}

} // namespace

QString rejectReasonLabel(const std::string& reason)
{
    for (const Name& name : kReasons)
        if (reason == name.key)
            return QCoreApplication::translate("MoveText", name.text);
    return QString::fromStdString(reason);
}

QString reasonsText(const MoveResult& result)
{
    QStringList parts;
    for (const ReasonCount& r : result.reasons)
        parts << QCoreApplication::translate("MoveText", "%1 (%2 of %3 nodes)")
                     .arg(rejectReasonLabel(r.reason))
                     .arg(r.nodes)
                     .arg(result.nodesConsidered);
    return parts.join(QCoreApplication::translate("MoveText", "; "));
}

QString moveResultText(const MoveResult& r)
{
    const QString name = workloadName(r);
    if (r.ok && !r.pool.empty())
        return QCoreApplication::translate("MoveText", "%1 moved to node %2 in pool %3.")
            .arg(name, QString::fromStdString(r.node), QString::fromStdString(r.pool));
    if (r.ok)
        return QCoreApplication::translate("MoveText", "%1 moved to node %2.")
            .arg(name, QString::fromStdString(r.node));
    // The node asked for when there was one, else the tier.
    const QString target
        = targetText(r, r.refusal == "no_feasible_node" && r.nodesConsidered > 1 ? std::string() : r.node);
    if (r.refusal == "no_feasible_node")
        return QCoreApplication::translate("MoveText", "%1 cannot move to %2: %3.").arg(name, target, reasonsText(r));
    if (r.refusal == "pool_tier")
        return QCoreApplication::translate(
            "MoveText", "%1 cannot move to %2: its pool keeps its workloads on the %3 tier.")
            .arg(name, target, tierLabel(r.poolTier));
    if (r.refusal == "pool_quota")
        return QCoreApplication::translate("MoveText", "%1 cannot move into pool %2: its quota cannot hold it (%3).")
            .arg(name, QString::fromStdString(r.pool), QString::fromStdString(r.message));
    if (r.refusal == "already_there" && r.node.empty() && !r.pool.empty())
        return QCoreApplication::translate("MoveText", "%1 is in pool %2 already.")
            .arg(name, QString::fromStdString(r.pool));
    if (r.refusal == "already_there")
        return QCoreApplication::translate("MoveText", "%1 is on %2 already.").arg(name, target);
    if (r.refusal == "not_movable")
        return QCoreApplication::translate("MoveText", "%1 cannot move: it has ended or is stopping.").arg(name);
    if (r.refusal == "no_workload")
        return QCoreApplication::translate("MoveText", "%1 no longer exists.").arg(name);
    // The core names a missing pool before it looks at the node ("no pool is named …").
    if (r.refusal == "no_target" && !r.pool.empty() && r.message.rfind("no pool", 0) == 0)
        return QCoreApplication::translate("MoveText", "%1 cannot move into pool %2: there is no such pool.")
            .arg(name, QString::fromStdString(r.pool));
    if (r.refusal == "no_target")
        return QCoreApplication::translate("MoveText", "%1 cannot move to %2: there is no such node.")
            .arg(name, target);
    if (r.refusal == "read_only")
        return QCoreApplication::translate("MoveText", "%1 was not moved: the core cannot save changes now (%2).")
            .arg(name, QString::fromStdString(r.message));
    if (r.refusal == "not_saved")
        return QCoreApplication::translate("MoveText", "%1 was moved but the move could not be saved (%2).")
            .arg(name, QString::fromStdString(r.message));
    if (r.refusal == "stopped")
        return QCoreApplication::translate("MoveText", "%1 was not moved: the core has stopped.").arg(name);
    if (r.refusal == "unsupported")
        return QCoreApplication::translate(
            "MoveText", "%1 was not moved: moving workloads is not supported over the API yet.")
            .arg(name);
    if (r.refusal == "unreachable")
        return QCoreApplication::translate("MoveText", "%1 was not moved: tidepoold could not be reached (%2).")
            .arg(name, QString::fromStdString(r.message));
    if (r.refusal == "starting")
        return QCoreApplication::translate("MoveText", "%1 was not moved: the core is still starting.").arg(name);
    return QCoreApplication::translate("MoveText", "%1 was not moved: %2").arg(name, QString::fromStdString(r.message));
}

} // namespace tidepool::ui
