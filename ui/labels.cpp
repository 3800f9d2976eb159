#include "ui/labels.h"

#include "ui/bridge/workload_rows.h"

#include "core/rebalance/reason.h"

#include <QCoreApplication>
#include <QDateTime>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <utility>

namespace tidepool::ui {

namespace {

struct Name {
    const char* key;
    const char* text;
};

template <std::size_t N> QString lookup(const char* context, const std::array<Name, N>& names, const std::string& key)
{
    for (const Name& name : names)
        if (key == name.key)
            return QCoreApplication::translate(context, name.text);
    return QString::fromStdString(key);
}

constexpr std::array kIsas { Name { "x86_64", QT_TRANSLATE_NOOP("Labels", "x86-64") },
    Name { "aarch64", QT_TRANSLATE_NOOP("Labels", "AArch64") },
    Name { "riscv64", QT_TRANSLATE_NOOP("Labels", "RISC-V 64") } };
constexpr std::array kTiers { Name { "hot", QT_TRANSLATE_NOOP("Labels", "hot") },
    Name { "warm", QT_TRANSLATE_NOOP("Labels", "warm") }, Name { "cold", QT_TRANSLATE_NOOP("Labels", "cold") },
    Name { "", QT_TRANSLATE_NOOP("Labels", "any") } };
constexpr std::array kNodeStates { Name { "joining", QT_TRANSLATE_NOOP("Labels", "joining") },
    Name { "ready", QT_TRANSLATE_NOOP("Labels", "ready") }, Name { "suspect", QT_TRANSLATE_NOOP("Labels", "suspect") },
    Name { "lost", QT_TRANSLATE_NOOP("Labels", "lost") }, Name { "off", QT_TRANSLATE_NOOP("Labels", "off") },
    Name { "booting", QT_TRANSLATE_NOOP("Labels", "booting") } };
constexpr std::array kPhases { Name { "pending", QT_TRANSLATE_NOOP("Labels", "pending") },
    Name { "launching", QT_TRANSLATE_NOOP("Labels", "launching") },
    Name { "running", QT_TRANSLATE_NOOP("Labels", "running") },
    Name { "stopping", QT_TRANSLATE_NOOP("Labels", "stopping") },
    Name { "succeeded", QT_TRANSLATE_NOOP("Labels", "succeeded") },
    Name { "failed", QT_TRANSLATE_NOOP("Labels", "failed") }, Name { "killed", QT_TRANSLATE_NOOP("Labels", "killed") },
    Name { "oom_killed", QT_TRANSLATE_NOOP("Labels", "out of memory") },
    Name { "cancelled", QT_TRANSLATE_NOOP("Labels", "cancelled") } };
constexpr std::array kAccelerators { Name { "gpu", QT_TRANSLATE_NOOP("Labels", "GPU") },
    Name { "npu", QT_TRANSLATE_NOOP("Labels", "NPU") }, Name { "fpga", QT_TRANSLATE_NOOP("Labels", "FPGA") },
    Name { "", QT_TRANSLATE_NOOP("Labels", "none") } };
constexpr std::array kKinds { Name { "quota", QT_TRANSLATE_NOOP("Labels", "quota shift") },
    Name { "power_down", QT_TRANSLATE_NOOP("Labels", "power down") },
    Name { "power_up", QT_TRANSLATE_NOOP("Labels", "power up") },
    Name { "lend", QT_TRANSLATE_NOOP("Labels", "lend accelerators") },
    Name { "reclaim", QT_TRANSLATE_NOOP("Labels", "reclaim accelerators") },
    Name { "consolidate", QT_TRANSLATE_NOOP("Labels", "consolidate") },
    Name { "migrate", QT_TRANSLATE_NOOP("Labels", "migrate") },
    Name { "defer", QT_TRANSLATE_NOOP("Labels", "defer batch") },
    Name { "resize", QT_TRANSLATE_NOOP("Labels", "right-size") } };
constexpr std::array kProposalStates { Name { "pending", QT_TRANSLATE_NOOP("Labels", "waiting") },
    Name { "approved", QT_TRANSLATE_NOOP("Labels", "approved") },
    Name { "rejected", QT_TRANSLATE_NOOP("Labels", "rejected") },
    Name { "expired", QT_TRANSLATE_NOOP("Labels", "expired") },
    Name { "applied", QT_TRANSLATE_NOOP("Labels", "applied") },
    Name { "failed", QT_TRANSLATE_NOOP("Labels", "failed") } };
constexpr std::array kRisks { Name { "low", QT_TRANSLATE_NOOP("Labels", "low") },
    Name { "medium", QT_TRANSLATE_NOOP("Labels", "medium") }, Name { "high", QT_TRANSLATE_NOOP("Labels", "high") } };

} // namespace

QString isaLabel(const std::string& isa)
{
    return lookup("Labels", kIsas, isa);
}
QString tierLabel(const std::string& tier)
{
    return lookup("Labels", kTiers, tier);
}
QString nodeStateLabel(const std::string& state)
{
    return lookup("Labels", kNodeStates, state);
}
QString phaseLabel(const std::string& phase)
{
    return lookup("Labels", kPhases, phase);
}
QString acceleratorLabel(const std::string& kind)
{
    return lookup("Labels", kAccelerators, kind);
}
QString proposalKindLabel(const std::string& kind)
{
    return lookup("Labels", kKinds, kind);
}
QString proposalStateLabel(const std::string& state)
{
    return lookup("Labels", kProposalStates, state);
}
QString riskLabel(const std::string& risk)
{
    return lookup("Labels", kRisks, risk);
}

namespace {

// One argument of a reason's clause (`core/rebalance/reason.h`); nullopt when it is none of the kinds there are.
std::optional<QString> reasonArgText(const nlohmann::json& arg)
{
    const auto say
        = [](std::string_view text) { return QCoreApplication::translate("Reason", std::string(text).c_str()); };
    if (arg.is_string())
        return QString::fromStdString(arg.get<std::string>());
    if (arg.is_number_integer())
        return QString::number(arg.get<std::int64_t>());
    if (!arg.is_object())
        return std::nullopt;
    if (const auto n = arg.find("n"); n != arg.end() && n->is_number_integer()) {
        const std::int64_t amount = n->get<std::int64_t>();
        const std::string unit = arg.value("unit", std::string());
        if (unit == "cpu")
            return coresText(amount);
        if (unit == "memory")
            return memoryText(amount);
        const rebalance::ReasonForm* form = rebalance::reasonTerm("unit-" + unit);
        return form ? std::optional(say(form->english).arg(amount)) : std::nullopt;
    }
    if (const auto ms = arg.find("ms"); ms != arg.end() && ms->is_number_integer())
        return timeText(ms->get<std::int64_t>());
    if (const auto term = arg.find("term"); term != arg.end() && term->is_string()) {
        QStringList words;
        for (const QString& code : QString::fromStdString(term->get<std::string>()).split(u'+')) {
            const rebalance::ReasonForm* form = rebalance::reasonTerm(code.toStdString());
            if (!form)
                return std::nullopt;
            words << say(form->english);
        }
        return words.join(QCoreApplication::translate("Reason", " or "));
    }
    return std::nullopt;
}

} // namespace

QString reasonText(const std::string& whyJson, const std::string& english)
{
    const QString fallback = QString::fromStdString(english);
    const nlohmann::json why = nlohmann::json::parse(whyJson, nullptr, false);
    if (!why.is_array() || why.empty())
        return fallback;
    QStringList clauses;
    for (const nlohmann::json& c : why) {
        const rebalance::ReasonForm* form = c.is_object() && c.value("code", nlohmann::json()).is_string()
            ? rebalance::reasonForm(c["code"].get<std::string>())
            : nullptr;
        if (!form || !c.value("args", nlohmann::json::array()).is_array())
            return fallback;
        QString text = QCoreApplication::translate("Reason", std::string(form->english).c_str());
        std::vector<std::string> args;
        for (const nlohmann::json& arg : c.value("args", nlohmann::json::array())) {
            const auto word = reasonArgText(arg);
            if (!word)
                return fallback;
            args.push_back(word->toStdString());
        }
        clauses << QString::fromStdString(rebalance::fillForm(text.toStdString(), args));
    }
    return clauses.join(QCoreApplication::translate("Reason", "; "));
}

QString percentText(double share)
{
    if (share < 0)
        return QStringLiteral("—");
    return QCoreApplication::translate("Labels", "%1 %").arg(share * 100.0, 0, 'f', 1);
}

QString planStepText(const std::string& actionJson)
{
    const nlohmann::json a = nlohmann::json::parse(actionJson, nullptr, false);
    if (!a.is_object() || !a.contains("action") || !a["action"].is_string())
        return QString::fromStdString(actionJson);
    // The sentences are marked for lupdate in the context "PlanStep", and translated there.
    const auto say = [](const char* text) { return QCoreApplication::translate("PlanStep", text); };
    const auto str = [&](const char* key) { return QString::fromStdString(a.value(key, std::string())); };
    const auto num = [&](const char* key, std::int64_t fallback = 0) {
        const auto it = a.find(key);
        return it != a.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
    };
    const std::string type = a["action"].get<std::string>();
    const QString target = str("target");
    const auto quota = [&](const QString& what, const QString& amount, const QString& expect, const QString& floor) {
        if (type.rfind("set_", 0) == 0)
            return say(QT_TRANSLATE_NOOP("PlanStep", "Set pool %1's %2 from %3 to %4"))
                .arg(target, what, expect, amount);
        if (type.rfind("take_", 0) == 0)
            return say(QT_TRANSLATE_NOOP("PlanStep", "Take %1 of pool %2's %3 (it keeps at least %4)"))
                .arg(amount, target, what, floor);
        return say(QT_TRANSLATE_NOOP("PlanStep", "Give %1 back to pool %2's %3")).arg(amount, target, what);
    };
    if (type.find("_cpu_quota") != std::string::npos)
        return quota(say(QT_TRANSLATE_NOOP("PlanStep", "CPU quota")), coresText(num("cpuMillis")),
            coresText(num("expectCpuMillis")), coresText(num("floorCpuMillis")));
    if (type.find("_memory_quota") != std::string::npos)
        return quota(say(QT_TRANSLATE_NOOP("PlanStep", "memory quota")), memoryText(num("memoryMiB")),
            memoryText(num("expectMemoryMiB")), memoryText(num("floorMemoryMiB")));
    if (type.find("_accelerator_quota") != std::string::npos) {
        const auto shares
            = [&](const char* key) { return say(QT_TRANSLATE_NOOP("PlanStep", "%1 share units")).arg(num(key)); };
        return quota(
            say(QT_TRANSLATE_NOOP("PlanStep", "%1 quota")).arg(acceleratorLabel(a.value("accelerator", std::string()))),
            shares("quotaShare"), shares("expectQuotaShare"), shares("floorQuotaShare"));
    }
    if (type == "cordon")
        return say(QT_TRANSLATE_NOOP("PlanStep", "Cordon node %1: %2")).arg(target, str("reason"));
    if (type == "uncordon")
        return say(QT_TRANSLATE_NOOP("PlanStep", "Uncordon node %1")).arg(target);
    if (type == "reserve")
        return say(QT_TRANSLATE_NOOP("PlanStep", "Reserve hot node %1 for the peak (the batch on it stops)"))
            .arg(target);
    if (type == "drain")
        return say(
            QT_TRANSLATE_NOOP("PlanStep", "Drain hot node %1 for the peak (no new batch; the batch there runs on)"))
            .arg(target);
    if (type == "evict")
        return say(QT_TRANSLATE_NOOP("PlanStep", "Stop the batch still on reserved hot node %1")).arg(target);
    if (type == "release")
        return say(QT_TRANSLATE_NOOP("PlanStep", "Lend hot node %1 to batch")).arg(target);
    if (type == "hold_deferrable")
        return num("untilMs") > 0
            ? say(QT_TRANSLATE_NOOP("PlanStep", "Hold deferrable batch until %1")).arg(timeText(num("untilMs")))
            : say(QT_TRANSLATE_NOOP("PlanStep", "Lift the hold on deferrable batch"));
    if (type == "resize")
        return say(QT_TRANSLATE_NOOP("PlanStep", "Resize workload %1 on node %2 in place: CPU %3 → %4, memory %5 → %6"))
            .arg(num("workload"))
            .arg(target, coresText(num("expectCpuMillis")), coresText(num("cpuMillis")),
                memoryText(num("expectMemoryMiB")), memoryText(num("memoryMiB")));
    if (type == "migrate") {
        const std::int64_t fromDevice = num("fromDevice", -1);
        if (fromDevice < 0)
            return say(QT_TRANSLATE_NOOP("PlanStep", "Move workload %1 from node %2 to node %3"))
                .arg(num("workload"))
                .arg(str("from"), target);
        return say(
            QT_TRANSLATE_NOOP("PlanStep", "Move workload %1 from node %2 device %3 to node %4 device %5 (share %6)"))
            .arg(num("workload"))
            .arg(str("from"))
            .arg(fromDevice)
            .arg(target)
            .arg(num("device", -1))
            .arg(num("share"));
    }
    return QString::fromStdString(actionJson);
}

QString coresText(std::int64_t millis)
{
    if (millis < 0)
        return QCoreApplication::translate("Labels", "unlimited");
    return QCoreApplication::translate("Labels", "%1 cores").arg(static_cast<double>(millis) / 1000.0, 0, 'f', 1);
}

QString memoryText(std::int64_t mebibytes)
{
    if (mebibytes < 0)
        return QCoreApplication::translate("Labels", "unlimited");
    return QCoreApplication::translate("Labels", "%1 GiB").arg(static_cast<double>(mebibytes) / 1024.0, 0, 'f', 1);
}

QString measuredUseText(const WorkloadRow& w, std::int64_t nowMs)
{
    if (w.measuredSinceMs <= 0 || w.peakCpuMillis < 0)
        return {};
    const auto minutes = static_cast<int>(std::min<std::int64_t>(
        std::max<std::int64_t>(0, nowMs - w.measuredSinceMs) / 60'000, std::numeric_limits<int>::max()));
    const int hours = minutes / 60;
    const QString over = hours > 0 ? QCoreApplication::translate("Labels", "over %n hour(s)", nullptr, hours)
                                   : QCoreApplication::translate("Labels", "over %n minute(s)", nullptr, minutes);
    const QString cpu = w.cpuP90Millis >= 0
        ? QCoreApplication::translate("Labels", "CPU %1 at the 90th percentile, %2 at most")
              .arg(coresText(w.cpuP90Millis), coresText(w.peakCpuMillis))
        : QCoreApplication::translate("Labels", "CPU %1 at most").arg(coresText(w.peakCpuMillis));
    QString text = QCoreApplication::translate("Labels", "Measured %1: %2").arg(over, cpu);
    if (w.peakMemoryMiB >= 0)
        text = QCoreApplication::translate("Labels", "%1; memory %2 at most").arg(text, memoryText(w.peakMemoryMiB));
    return text;
}

QString timeText(std::int64_t unixMs)
{
    if (unixMs <= 0)
        return QStringLiteral("—");
    return QLocale().toString(QDateTime::fromMSecsSinceEpoch(unixMs), QLocale::ShortFormat);
}

} // namespace tidepool::ui
