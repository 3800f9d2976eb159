#include "agents/inventory/inventory.h"

#include "agents/inventory/accelerator_file.h"
#include "agents/inventory/nvml.h"
#include "agents/inventory/probe_command.h"
#include "agents/inventory/proc_text.h"

#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <system_error>

namespace tidepool::agent {

namespace {

using namespace proctext;

constexpr std::int64_t kKiBPerMiB = 1024;

bool isNameChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
        || c == '-';
}

// Text as a protocol name: runs of other characters become one '-', without one at either end.
std::string asProtocolName(std::string_view text)
{
    std::string name;
    for (const char c : text) {
        if (isNameChar(c))
            name.push_back(c);
        else if (!name.empty() && name.back() != '-')
            name.push_back('-');
    }
    if (name.size() > protocol::kMaxTokenBytes)
        name.resize(protocol::kMaxTokenBytes);
    while (!name.empty() && name.back() == '-')
        name.pop_back();
    return name.empty() ? std::string("unknown") : name;
}

InventoryExpected<std::int64_t> meminfoValueKiB(
    std::string_view value, std::string_view key, std::size_t lineNumber, const std::string& source)
{
    const auto words = splitWords(value);
    std::int64_t number = 0;
    if (words.empty() || words.size() > 2 || !parseInteger(words[0], number) || number < 0
        || (words.size() == 2 && words[1] != "kB"))
        return makeInventoryError(InventoryErrorCode::Malformed, source, std::string(key),
            lineField(lineNumber) + ": `" + std::string(key) + "` is not a number of kB");
    return number;
}

// The cgroup limit of the agent, the tightest along its cgroup's path to the root; none when there is none or
// the hierarchy cannot be read (the limit is an extra; the host's capacity is what discovery must report).
std::optional<std::int64_t> cgroupCpuLimit(const std::filesystem::path& root, std::vector<std::string>& notes)
{
    const auto membership = readTextFile(root / "proc/self/cgroup");
    if (!membership)
        return std::nullopt;
    std::optional<std::string> unifiedPath;
    std::optional<std::string> cpuPath;
    forEachLine(*membership, [&](std::size_t, std::string_view line) {
        // "hierarchy-id:controllers:path"; "0::/path" is the unified (v2) hierarchy.
        const std::size_t first = line.find(':');
        const std::size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
        if (second == std::string_view::npos)
            return true;
        const std::string_view controllers = line.substr(first + 1, second - first - 1);
        const std::string path(trim(line.substr(second + 1)));
        if (line.substr(0, first) == "0" && controllers.empty())
            unifiedPath = path;
        std::string_view list = controllers;
        while (!list.empty()) {
            const std::size_t comma = list.find(',');
            if (list.substr(0, comma) == "cpu")
                cpuPath = path;
            if (comma == std::string_view::npos)
                break;
            list.remove_prefix(comma + 1);
        }
        return true;
    });

    std::optional<std::int64_t> tightest;
    const auto consider = [&](const std::string& text, const std::filesystem::path& file) {
        const auto limit = parseCgroupCpuMax(text, file.string());
        if (!limit) {
            notes.push_back(limit.error().message);
            return;
        }
        if (*limit && (!tightest || **limit < *tightest))
            tightest = *limit;
    };
    // Walks from the agent's cgroup up to the hierarchy's root, reading `readLimit(directory)` at each level.
    const auto walk = [&](const std::filesystem::path& mount, const std::string& cgroupPath, auto&& readLimit) {
        std::filesystem::path relative = std::filesystem::path(cgroupPath).relative_path();
        for (;;) {
            readLimit(mount / relative);
            if (relative.empty())
                break;
            relative = relative.parent_path();
        }
    };
    if (unifiedPath) {
        walk(root / "sys/fs/cgroup", *unifiedPath, [&](const std::filesystem::path& directory) {
            if (const auto text = readTextFile(directory / "cpu.max"))
                consider(*text, directory / "cpu.max");
        });
    }
    if (cpuPath) {
        for (const char* mount : { "sys/fs/cgroup/cpu", "sys/fs/cgroup/cpu,cpuacct" }) {
            walk(root / mount, *cpuPath, [&](const std::filesystem::path& directory) {
                const auto quota = readTextFile(directory / "cpu.cfs_quota_us");
                const auto period = readTextFile(directory / "cpu.cfs_period_us");
                if (quota && period)
                    consider(
                        std::string(trim(*quota)) + " " + std::string(trim(*period)), directory / "cpu.cfs_quota_us");
            });
        }
    }
    return tightest;
}

// A /proc/sys/kernel file under the root, or the uname field when it cannot be read.
std::string kernelText(const std::filesystem::path& root, const char* file, const char* unameValue)
{
    if (const auto text = readTextFile(root / "proc/sys/kernel" / file); text && !trim(*text).empty())
        return std::string(trim(*text));
    return unameValue;
}

std::int32_t countNumaNodes(const std::filesystem::path& directory, std::vector<std::string>& notes)
{
    std::error_code error;
    std::filesystem::directory_iterator entries(directory, error);
    if (error) {
        notes.push_back(directory.string() + " cannot be read (" + error.message() + "); assuming one NUMA node");
        return 1;
    }
    std::int32_t nodes = 0;
    for (const auto& entry : entries) {
        const std::string name = entry.path().filename().string();
        std::uint32_t number = 0;
        if (name.starts_with("node") && parseInteger(std::string_view(name).substr(4), number))
            ++nodes;
    }
    return std::max(nodes, 1);
}

} // namespace

std::int64_t effectiveCpuMillis(const NodeInventory& inventory)
{
    if (inventory.cgroupCpuLimitMillis)
        return std::min(inventory.cpuMillis, *inventory.cgroupCpuLimitMillis);
    return inventory.cpuMillis;
}

protocol::InventorySummary summarise(const NodeInventory& inventory)
{
    protocol::InventorySummary summary;
    summary.isa = inventory.isa;
    summary.cpuMillis = effectiveCpuMillis(inventory);
    summary.memoryMiB = inventory.memoryMiB;
    summary.accelerators = static_cast<std::int32_t>(inventory.devices.size());
    return summary;
}

protocol::Inventory toProtocolInventory(const NodeInventory& inventory)
{
    protocol::Inventory out;
    out.isa = inventory.isa;
    out.cpuModel = inventory.cpuModel.substr(0, protocol::kMaxTextBytes);
    for (const auto& feature : inventory.cpuFeatures) {
        if (out.cpuFeatures.size() == protocol::kMaxCpuFeatures)
            break;
        if (!feature.empty() && feature.size() <= protocol::kMaxTokenBytes
            && std::all_of(feature.begin(), feature.end(), [](char c) { return isNameChar(c); }))
            out.cpuFeatures.push_back(feature);
    }
    out.cpuMillis = effectiveCpuMillis(inventory);
    out.memoryMiB = inventory.memoryMiB;
    out.numaNodes = inventory.numaNodes;
    for (const AcceleratorDevice& device : inventory.devices) {
        protocol::DeviceInfo info;
        info.index = device.index;
        info.kind = std::string(kindName(device.kind));
        info.model = asProtocolName(device.model);
        info.memoryMiB = device.memoryMiB;
        info.shareCapacity = static_cast<std::int32_t>(device.shareCapacity);
        out.devices.push_back(std::move(info));
    }
    return out;
}

InventoryExpected<MemInfo> parseMemInfo(std::string_view content, std::string_view source)
{
    const std::string label(source);
    std::optional<std::int64_t> total;
    std::optional<std::int64_t> available;
    std::int64_t freeKiB = 0;
    std::int64_t buffersKiB = 0;
    std::int64_t cachedKiB = 0;
    bool sawFree = false;
    std::optional<InventoryError> error;
    forEachLine(content, [&](std::size_t lineNumber, std::string_view line) {
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos)
            return true;
        const std::string_view key = trim(line.substr(0, colon));
        std::int64_t* target = nullptr;
        std::optional<std::int64_t>* optionalTarget = nullptr;
        if (key == "MemTotal")
            optionalTarget = &total;
        else if (key == "MemAvailable")
            optionalTarget = &available;
        else if (key == "MemFree") {
            target = &freeKiB;
            sawFree = true;
        } else if (key == "Buffers")
            target = &buffersKiB;
        else if (key == "Cached")
            target = &cachedKiB;
        else
            return true;
        const auto value = meminfoValueKiB(line.substr(colon + 1), key, lineNumber, label);
        if (!value) {
            error = value.error();
            return false;
        }
        if (target)
            *target = *value;
        else
            *optionalTarget = *value;
        return true;
    });
    if (error)
        return tl::unexpected(std::move(*error));
    if (!total || *total <= 0)
        return makeInventoryError(InventoryErrorCode::MissingField, label, "MemTotal", "`MemTotal` is missing or zero");
    if (!available && !sawFree)
        return makeInventoryError(
            InventoryErrorCode::MissingField, label, "MemAvailable", "neither `MemAvailable` nor `MemFree` is present");
    MemInfo info;
    info.totalKiB = *total;
    info.availableKiB = std::clamp(available.value_or(freeKiB + buffersKiB + cachedKiB), std::int64_t { 0 }, *total);
    return info;
}

InventoryExpected<std::int32_t> parseCpuList(std::string_view content, std::string_view source)
{
    const std::string label(source);
    const std::string_view list = trim(content);
    const auto bad = [&](std::string_view range) {
        return makeInventoryError(InventoryErrorCode::Malformed, label, {},
            "\"" + std::string(range.substr(0, 32)) + "\" is not a CPU number or range");
    };
    if (list.empty())
        return makeInventoryError(InventoryErrorCode::Malformed, label, {}, "the CPU list is empty");
    std::int64_t count = 0;
    std::string_view rest = list;
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        const std::string_view range = rest.substr(0, comma);
        const std::size_t dash = range.find('-');
        std::uint32_t low = 0;
        std::uint32_t high = 0;
        if (!parseInteger(range.substr(0, dash), low))
            return bad(range);
        high = low;
        if (dash != std::string_view::npos && (!parseInteger(range.substr(dash + 1), high) || high < low))
            return bad(range);
        count += static_cast<std::int64_t>(high) - low + 1;
        if (count > std::numeric_limits<std::int32_t>::max() / 1000)
            return bad(range);
        if (comma == std::string_view::npos)
            break;
        rest.remove_prefix(comma + 1);
    }
    return static_cast<std::int32_t>(count);
}

InventoryExpected<std::optional<std::int64_t>> parseCgroupCpuMax(std::string_view content, std::string_view source)
{
    const std::string label(source);
    const auto words = splitWords(content);
    const auto bad = [&] {
        return makeInventoryError(InventoryErrorCode::Malformed, label, {},
            "\"" + std::string(trim(content).substr(0, 48)) + "\" is not `<quota> <period>`");
    };
    if (words.size() != 2)
        return bad();
    std::int64_t period = 0;
    if (!parseInteger(words[1], period) || period <= 0)
        return bad();
    if (words[0] == "max")
        return std::optional<std::int64_t>();
    std::int64_t quota = 0;
    if (!parseInteger(words[0], quota))
        return bad();
    if (quota < 0) // cgroup v1: -1 is no limit
        return std::optional<std::int64_t>();
    if (quota > std::numeric_limits<std::int64_t>::max() / 1000)
        return bad();
    // Rounded up: a quota of 1.5 CPUs in a 3-CPU cgroup still lets a 1500-milli-CPU pool run.
    return std::optional<std::int64_t>((quota * 1000 + period - 1) / period);
}

InventoryExpected<std::string> readTextFile(const std::filesystem::path& path, std::size_t maxBytes)
{
    const std::string label = path.string();
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return makeInventoryError(InventoryErrorCode::Unreadable, label, {}, std::strerror(errno));
    std::string text;
    char buffer[8192];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const int readError = errno;
            ::close(fd);
            return makeInventoryError(InventoryErrorCode::Unreadable, label, {}, std::strerror(readError));
        }
        if (n == 0)
            break;
        text.append(buffer, static_cast<std::size_t>(n));
        if (text.size() > maxBytes) {
            ::close(fd);
            return makeInventoryError(InventoryErrorCode::OutOfRange, label, {},
                "the file is longer than " + std::to_string(maxBytes) + " bytes");
        }
    }
    ::close(fd);
    return text;
}

InventoryExpected<Discovery> discover(const DiscoveryOptions& options)
{
    const std::filesystem::path& root = options.rootPrefix;
    Discovery discovery;
    NodeInventory& node = discovery.inventory;
    std::vector<std::string>& notes = discovery.notes;

    utsname names {};
    if (::uname(&names) != 0)
        return makeInventoryError(
            InventoryErrorCode::Unreadable, "uname", {}, std::string("uname failed: ") + std::strerror(errno));
    node.isa = normaliseIsa(options.machine ? std::string_view(*options.machine) : std::string_view(names.machine));
    node.hostname = kernelText(root, "hostname", names.nodename);
    node.kernelRelease = kernelText(root, "osrelease", names.release);

    const std::filesystem::path cpuinfoPath = root / "proc/cpuinfo";
    const auto cpuinfoText = readTextFile(cpuinfoPath);
    if (!cpuinfoText)
        return tl::unexpected(cpuinfoText.error());
    const auto cpuinfo = parseCpuInfo(*cpuinfoText, cpuinfoPath.string());
    if (!cpuinfo)
        return tl::unexpected(cpuinfo.error());
    node.cpuModel = cpuinfo->model;
    node.cpuFeatures = cpuinfo->features;

    // The online CPUs, as sysconf(_SC_NPROCESSORS_ONLN) counts them; /proc/cpuinfo lists the same on most kernels.
    const std::filesystem::path onlinePath = root / "sys/devices/system/cpu/online";
    const auto onlineText = readTextFile(onlinePath);
    const auto online = onlineText ? parseCpuList(*onlineText, onlinePath.string())
                                   : InventoryExpected<std::int32_t>(tl::unexpected(onlineText.error()));
    if (online) {
        node.logicalCpus = *online;
    } else {
        notes.push_back(online.error().message + "; counting the processors of /proc/cpuinfo");
        node.logicalCpus = cpuinfo->processors;
    }
    node.cpuMillis = std::int64_t { node.logicalCpus } * 1000;
    node.cgroupCpuLimitMillis = cgroupCpuLimit(root, notes);

    const std::filesystem::path meminfoPath = root / "proc/meminfo";
    const auto meminfoText = readTextFile(meminfoPath);
    if (!meminfoText)
        return tl::unexpected(meminfoText.error());
    const auto meminfo = parseMemInfo(*meminfoText, meminfoPath.string());
    if (!meminfo)
        return tl::unexpected(meminfo.error());
    node.memoryMiB = meminfo->totalKiB / kKiBPerMiB;
    node.numaNodes = countNumaNodes(root / "sys/devices/system/node", notes);

    // Accelerators: NVML's GPUs first, so that their NVML order is their node index (see `NvmlSamples`).
    if (!options.nvml) {
        notes.emplace_back("NVML not consulted");
    } else {
        notes.push_back(options.nvml->reason());
        node.devices = options.nvml->devices();
    }
    const auto append = [&](std::vector<AcceleratorDevice> devices) {
        for (auto& device : devices) {
            device.index = static_cast<std::int32_t>(node.devices.size());
            node.devices.push_back(std::move(device));
        }
    };
    if (!options.acceleratorFile.empty()) {
        std::error_code error;
        // When existence cannot even be checked (a directory without permission), loading says why.
        if (std::filesystem::exists(options.acceleratorFile, error) || error) {
            auto declared = loadAcceleratorFile(options.acceleratorFile);
            if (!declared)
                return tl::unexpected(declared.error());
            append(std::move(*declared));
        } else {
            notes.push_back("no accelerator inventory file at " + options.acceleratorFile.string());
        }
    }
    for (const auto& command : options.probeCommands) {
        auto probed = runProbeCommand(command, options.probeTimeout);
        if (!probed)
            return tl::unexpected(probed.error());
        append(std::move(*probed));
    }
    if (node.devices.size() > static_cast<std::size_t>(protocol::kMaxAccelerators))
        return makeInventoryError(InventoryErrorCode::OutOfRange, "discovery", "devices",
            "the node has " + std::to_string(node.devices.size()) + " accelerators; at most "
                + std::to_string(protocol::kMaxAccelerators) + " are supported");
    return discovery;
}

} // namespace tidepool::agent
