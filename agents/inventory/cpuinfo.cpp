#include "agents/inventory/cpuinfo.h"

#include "agents/inventory/proc_text.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <iterator>
#include <optional>

namespace tidepool::agent {

namespace {

using namespace proctext;

// --- aarch64: the model from "CPU implementer" and "CPU part", as the kernel's cputype.h names them ---

struct ArmPart {
    std::uint32_t implementer;
    std::uint32_t part;
    std::string_view name;
};

constexpr std::array<std::pair<std::uint32_t, std::string_view>, 14> kArmImplementers = { {
    { 0x41, "ARM" },
    { 0x42, "Broadcom" },
    { 0x43, "Cavium" },
    { 0x46, "Fujitsu" },
    { 0x48, "HiSilicon" },
    { 0x4e, "NVIDIA" },
    { 0x50, "APM" },
    { 0x51, "Qualcomm" },
    { 0x53, "Samsung" },
    { 0x56, "Marvell" },
    { 0x61, "Apple" },
    { 0x69, "Intel" },
    { 0x6d, "Microsoft" },
    { 0xc0, "Ampere" },
} };

constexpr std::array<ArmPart, 22> kArmParts = { {
    { 0x41, 0xd03, "Cortex-A53" },
    { 0x41, 0xd04, "Cortex-A35" },
    { 0x41, 0xd05, "Cortex-A55" },
    { 0x41, 0xd07, "Cortex-A57" },
    { 0x41, 0xd08, "Cortex-A72" },
    { 0x41, 0xd09, "Cortex-A73" },
    { 0x41, 0xd0a, "Cortex-A75" },
    { 0x41, 0xd0b, "Cortex-A76" },
    { 0x41, 0xd0c, "Neoverse-N1" },
    { 0x41, 0xd0d, "Cortex-A77" },
    { 0x41, 0xd40, "Neoverse-V1" },
    { 0x41, 0xd41, "Cortex-A78" },
    { 0x41, 0xd44, "Cortex-X1" },
    { 0x41, 0xd46, "Cortex-A510" },
    { 0x41, 0xd47, "Cortex-A710" },
    { 0x41, 0xd48, "Cortex-X2" },
    { 0x41, 0xd49, "Neoverse-N2" },
    { 0x41, 0xd4f, "Neoverse-V2" },
    { 0x46, 0x001, "A64FX" },
    { 0x48, 0xd01, "Kunpeng-920" },
    { 0x4e, 0x004, "Carmel" },
    { 0xc0, 0xac3, "Ampere-1" },
} };

std::string hexText(std::uint32_t value, int digits)
{
    std::array<char, 16> buffer {};
    const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, 16);
    std::string text(buffer.data(), end);
    if (static_cast<int>(text.size()) < digits)
        text.insert(0, static_cast<std::size_t>(digits) - text.size(), '0');
    return "0x" + text;
}

std::string armModel(std::uint32_t implementer, std::optional<std::uint32_t> part)
{
    const auto vendor = std::find_if(kArmImplementers.begin(), kArmImplementers.end(),
        [&](const auto& entry) { return entry.first == implementer; });
    std::string model
        = vendor != kArmImplementers.end() ? std::string(vendor->second) : "implementer " + hexText(implementer, 2);
    if (!part)
        return model;
    const auto known = std::find_if(kArmParts.begin(), kArmParts.end(),
        [&](const ArmPart& entry) { return entry.implementer == implementer && entry.part == *part; });
    return model + (known != kArmParts.end() ? " " + std::string(known->name) : " part " + hexText(*part, 3));
}

// --- riscv64: the extensions of an ISA string ---

// "rv64imafdc_zicsr_zifencei" → a c d f i m zicsr zifencei. "g" stands for "imafd_zicsr_zifencei"; version numbers
// ("2p1") are dropped.
std::vector<std::string> riscvExtensions(std::string_view isaString)
{
    std::vector<std::string> extensions;
    std::string isa = lowerCase(trim(isaString));
    std::string_view rest = isa;
    for (const std::string_view base : { "rv64", "rv32", "rv128" }) {
        if (rest.starts_with(base)) {
            rest.remove_prefix(base.size());
            break;
        }
    }
    bool first = true;
    while (!rest.empty()) {
        const std::size_t underscore = rest.find('_');
        const std::string_view part = rest.substr(0, underscore);
        if (first) {
            // Single-letter extensions, each possibly followed by a version such as "2p0".
            for (std::size_t i = 0; i < part.size(); ++i) {
                const char c = part[i];
                if (std::isdigit(static_cast<unsigned char>(c)))
                    continue;
                if (c == 'p' && i > 0 && std::isdigit(static_cast<unsigned char>(part[i - 1])))
                    continue;
                if (c == 'g') {
                    for (const char* implied : { "i", "m", "a", "f", "d", "zicsr", "zifencei" })
                        extensions.emplace_back(implied);
                    continue;
                }
                extensions.emplace_back(1, c);
            }
            first = false;
        } else if (!part.empty()) {
            extensions.emplace_back(part);
        }
        if (underscore == std::string_view::npos)
            break;
        rest.remove_prefix(underscore + 1);
    }
    return extensions;
}

// What one `processor` block of /proc/cpuinfo says.
struct ProcessorBlock {
    std::string modelName; // x86 "model name"
    std::optional<std::uint32_t> implementer; // aarch64 "CPU implementer"
    std::optional<std::uint32_t> part; // aarch64 "CPU part"
    std::string uarch; // riscv64 "uarch"
    std::string mvendorid; // riscv64
    std::string marchid; // riscv64
    bool riscv = false; // an "isa" line was seen
    std::optional<std::vector<std::string>> features; // sorted, without duplicates

    std::string model() const
    {
        if (!modelName.empty())
            return modelName;
        if (implementer)
            return armModel(*implementer, part);
        if (!uarch.empty())
            return uarch;
        if (riscv)
            return mvendorid.empty() ? "RISC-V" : "RISC-V (mvendorid " + mvendorid + ", marchid " + marchid + ")";
        return {};
    }
};

std::vector<std::string> sortedUnique(std::vector<std::string> words)
{
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    return words;
}

} // namespace

std::string normaliseIsa(std::string_view machine)
{
    const std::string lower = lowerCase(trim(machine));
    if (lower == "amd64" || lower == "x86_64" || lower == "x64")
        return "x86_64";
    if (lower == "arm64" || lower == "aarch64")
        return "aarch64";
    return lower;
}

InventoryExpected<CpuInfo> parseCpuInfo(std::string_view content, std::string_view source)
{
    const std::string label(source);
    std::vector<ProcessorBlock> blocks;
    std::optional<InventoryError> error;
    forEachLine(content, [&](std::size_t lineNumber, std::string_view line) {
        if (trim(line).empty())
            return true;
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) {
            error = inventoryError(InventoryErrorCode::Malformed, label, lineField(lineNumber),
                lineField(lineNumber) + " is not `key: value`");
            return false;
        }
        const std::string_view key = trim(line.substr(0, colon));
        const std::string_view value = trim(line.substr(colon + 1));
        if (key == "processor") {
            std::uint32_t number = 0;
            if (!parseInteger(value, number)) {
                error = inventoryError(InventoryErrorCode::Malformed, label, lineField(lineNumber),
                    lineField(lineNumber) + ": `processor` is \"" + std::string(value.substr(0, 32))
                        + "\", not a number");
                return false;
            }
            blocks.emplace_back();
            return true;
        }
        if (blocks.empty())
            return true; // a preamble before the first processor, as some kernels write; nothing we use
        ProcessorBlock& block = blocks.back();
        if (key == "model name") {
            block.modelName = value;
        } else if (key == "flags" || key == "Features") {
            std::vector<std::string> words;
            for (const auto word : splitWords(value))
                words.emplace_back(word);
            block.features = sortedUnique(std::move(words));
        } else if (key == "CPU implementer" || key == "CPU part") {
            std::uint32_t number = 0;
            if (!parseHex(value, number)) {
                error = inventoryError(InventoryErrorCode::Malformed, label, lineField(lineNumber),
                    lineField(lineNumber) + ": `" + std::string(key) + "` is not a hexadecimal number");
                return false;
            }
            (key == "CPU part" ? block.part : block.implementer) = number;
        } else if (key == "isa") {
            block.riscv = true;
            block.features = sortedUnique(riscvExtensions(value));
        } else if (key == "uarch") {
            block.uarch = value;
        } else if (key == "mvendorid") {
            block.mvendorid = value;
        } else if (key == "marchid") {
            block.marchid = value;
        }
        return true;
    });
    if (error)
        return tl::unexpected(std::move(*error));
    if (blocks.empty())
        return makeInventoryError(InventoryErrorCode::Malformed, label, "processor", "there is no `processor` entry");

    CpuInfo info;
    info.processors = static_cast<std::int32_t>(blocks.size());
    std::vector<std::string> models;
    for (const ProcessorBlock& block : blocks) {
        const std::string model = block.model();
        if (!model.empty() && std::find(models.begin(), models.end(), model) == models.end())
            models.push_back(model);
    }
    for (const auto& model : models)
        info.model += (info.model.empty() ? "" : " + ") + model;
    if (info.model.empty())
        info.model = "unknown";

    // A feature counts when every processor that lists features has it: a workload may run on any of them.
    bool first = true;
    for (const ProcessorBlock& block : blocks) {
        if (!block.features)
            continue;
        if (first) {
            info.features = *block.features;
            first = false;
            continue;
        }
        std::vector<std::string> common;
        std::set_intersection(info.features.begin(), info.features.end(), block.features->begin(),
            block.features->end(), std::back_inserter(common));
        info.features = std::move(common);
    }
    return info;
}

} // namespace tidepool::agent
