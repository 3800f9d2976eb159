#include "core/api/node_rows.h"

#include <cstdint>
#include <cstdio>

namespace tidepool::api {

using nlohmann::json;

bool applyNodeUsage(json& row, const json& usage)
{
    if (!row.is_object() || !usage.is_object())
        return false;
    for (const char* field : kNodeUsageFields)
        if (!usage.contains(field) || !usage[field].is_number())
            return false;
    const json devices = usage.value("devices", json::array());
    if (!devices.is_array())
        return false;
    for (const json& d : devices)
        if (!d.is_object() || !d.contains("index") || !d["index"].is_number_integer() || !d.contains("utilisation")
            || !d["utilisation"].is_number() || !d.contains("memoryUsedMiB") || !d["memoryUsedMiB"].is_number())
            return false;
    const json pools = usage.value(kPoolUsageField, json::array());
    if (!pools.is_array())
        return false;
    for (const json& p : pools)
        if (!p.is_object() || !p.contains("name") || !p["name"].is_string() || !p.contains("cpuMillis")
            || !p["cpuMillis"].is_number() || !p.contains("memoryMiB") || !p["memoryMiB"].is_number()
            || (p.contains("netMbps") && !p["netMbps"].is_number()))
            return false;
    for (const char* field : kNodeUsageFields)
        row[field] = usage[field];
    row[kPoolUsageField] = pools;
    if (row.contains("devices") && row["devices"].is_array()) {
        json& rows = row["devices"];
        for (json& device : rows)
            if (device.is_object())
                for (const char* field : kDeviceUsageFields)
                    device.erase(field);
        for (const json& d : devices) {
            const auto index = d["index"].get<std::int64_t>();
            if (index >= 0 && static_cast<std::size_t>(index) < rows.size() && rows[index].is_object()) {
                rows[index]["utilisation"] = d["utilisation"];
                rows[index]["memoryUsedMiB"] = d["memoryUsedMiB"];
            }
        }
    }
    return true;
}

std::string nodeFingerprint(const json& rest)
{
    std::uint64_t hash = 14695981039346656037ULL;
    for (const char c : rest.dump()) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 1099511628211ULL;
    }
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
    return text;
}

} // namespace tidepool::api
