#include "ui/labels.h"

#include <QCoreApplication>
#include <QDateTime>

#include <array>
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
    Name { "defer", QT_TRANSLATE_NOOP("Labels", "defer batch") } };
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

QString percentText(double share)
{
    if (share < 0)
        return QStringLiteral("—");
    return QCoreApplication::translate("Labels", "%1 %").arg(share * 100.0, 0, 'f', 1);
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

QString timeText(std::int64_t unixMs)
{
    if (unixMs <= 0)
        return QStringLiteral("—");
    return QLocale().toString(QDateTime::fromMSecsSinceEpoch(unixMs), QLocale::ShortFormat);
}

} // namespace tidepool::ui
