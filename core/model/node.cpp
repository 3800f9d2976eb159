#include "core/model/node.h"

#include <algorithm>

namespace tidepool {

std::int32_t Node::maxDeviceShareFree() const
{
    std::int32_t best = 0;
    for (const Device& d : devices)
        best = std::max(best, d.shareFree);
    return best;
}

std::int32_t Node::idleDeviceCount() const
{
    return static_cast<std::int32_t>(
        std::count_if(devices.begin(), devices.end(), [](const Device& d) { return d.idle(); }));
}

std::int64_t Node::deviceShareFreeTotal() const
{
    std::int64_t total = 0;
    for (const Device& d : devices)
        total += d.shareFree;
    return total;
}

std::int64_t Node::deviceShareCapacityTotal() const
{
    std::int64_t total = 0;
    for (const Device& d : devices)
        total += d.shareCapacity;
    return total;
}

const std::string* Node::label(std::string_view key) const
{
    for (const auto& [k, v] : labels)
        if (k == key)
            return &v;
    return nullptr;
}

} // namespace tidepool
