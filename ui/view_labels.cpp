#include "ui/view_labels.h"

#include "ui/labels.h"

#include <QCoreApplication>

#include <array>

namespace tidepool::ui {

namespace {

struct Name {
    const char* key;
    const char* text;
};

template <std::size_t N> QString lookup(const std::array<Name, N>& names, const std::string& key)
{
    for (const Name& name : names)
        if (key == name.key)
            return QCoreApplication::translate("ViewLabels", name.text);
    return QString::fromStdString(key);
}

constexpr std::array kCategories { Name { "placement", QT_TRANSLATE_NOOP("ViewLabels", "placement") },
    Name { "migration", QT_TRANSLATE_NOOP("ViewLabels", "migration") },
    Name { "requeue", QT_TRANSLATE_NOOP("ViewLabels", "requeued") },
    Name { "restart", QT_TRANSLATE_NOOP("ViewLabels", "restarted") },
    Name { "stop", QT_TRANSLATE_NOOP("ViewLabels", "stop") },
    Name { "finish", QT_TRANSLATE_NOOP("ViewLabels", "finished") },
    Name { "node", QT_TRANSLATE_NOOP("ViewLabels", "node state") },
    Name { "cordon", QT_TRANSLATE_NOOP("ViewLabels", "cordon") },
    Name { "drain", QT_TRANSLATE_NOOP("ViewLabels", "drain") },
    Name { "approval", QT_TRANSLATE_NOOP("ViewLabels", "decision") },
    Name { "proposal", QT_TRANSLATE_NOOP("ViewLabels", "proposal") },
    Name { "audit", QT_TRANSLATE_NOOP("ViewLabels", "operator action") } };
constexpr const char* kCategoryKeys[] = { "placement", "migration", "requeue", "restart", "stop", "finish", "node",
    "cordon", "drain", "approval", "proposal", "audit" };

constexpr std::array kResources { Name { "cpu", QT_TRANSLATE_NOOP("ViewLabels", "CPU") },
    Name { "memory", QT_TRANSLATE_NOOP("ViewLabels", "memory") },
    Name { "gpu", QT_TRANSLATE_NOOP("ViewLabels", "GPU") }, Name { "npu", QT_TRANSLATE_NOOP("ViewLabels", "NPU") },
    Name { "fpga", QT_TRANSLATE_NOOP("ViewLabels", "FPGA") } };

} // namespace

QString eventCategoryLabel(const std::string& category)
{
    return lookup(kCategories, category);
}

const char* const* eventCategories(int* count)
{
    *count = static_cast<int>(std::size(kCategoryKeys));
    return kCategoryKeys;
}

QString resourceLabel(const std::string& resource)
{
    return lookup(kResources, resource);
}

QString seriesScopeLabel(const std::string& scope, const std::string& name)
{
    if (scope == "pool")
        return QCoreApplication::translate("ViewLabels", "pool %1").arg(QString::fromStdString(name));
    if (scope == "tier")
        return QCoreApplication::translate("ViewLabels", "%1 tier").arg(tierLabel(name));
    return QString::fromStdString(scope + ' ' + name);
}

QString seriesValueText(const std::string& resource, double value)
{
    if (resource == "cpu")
        return coresText(static_cast<std::int64_t>(value));
    if (resource == "memory")
        return memoryText(static_cast<std::int64_t>(value));
    if (resource == "gpu" || resource == "npu" || resource == "fpga")
        return QCoreApplication::translate("ViewLabels", "%1 devices").arg(value / 1000.0, 0, 'f', 2);
    return QString::number(value, 'f', 1);
}

QString deviceShareText(const std::string& kind, std::int64_t share, std::int64_t capacity)
{
    if (kind == "fpga")
        return QCoreApplication::translate("ViewLabels", "%1 of %2 slots").arg(share).arg(capacity);
    if (kind == "npu")
        return QCoreApplication::translate("ViewLabels", "%1 of %2 cores").arg(share).arg(capacity);
    return percentText(capacity > 0 ? static_cast<double>(share) / static_cast<double>(capacity) : -1.0);
}

} // namespace tidepool::ui
