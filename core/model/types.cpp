#include "core/model/types.h"

namespace tidepool {

std::string clipText(std::string_view text, std::size_t maxBytes)
{
    if (text.size() <= maxBytes)
        return std::string(text);
    std::size_t end = maxBytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) // a continuation byte
        --end;
    return std::string(text.substr(0, end)) + "…";
}

std::string_view toString(Isa isa)
{
    switch (isa) {
    case Isa::X86_64: return "x86_64";
    case Isa::Aarch64: return "aarch64";
    case Isa::Riscv64: return "riscv64";
    case Isa::Invalid: break;
    }
    return "invalid";
}

std::string_view toString(AcceleratorKind kind)
{
    switch (kind) {
    case AcceleratorKind::Gpu: return "gpu";
    case AcceleratorKind::Npu: return "npu";
    case AcceleratorKind::Fpga: return "fpga";
    case AcceleratorKind::None: break;
    }
    return "none";
}

std::string_view toString(Tier tier)
{
    switch (tier) {
    case Tier::Hot: return "hot";
    case Tier::Warm: return "warm";
    case Tier::Cold: return "cold";
    case Tier::Invalid: break;
    }
    return "invalid";
}

std::string_view toString(LatencyClass latency)
{
    switch (latency) {
    case LatencyClass::RealTime: return "real-time";
    case LatencyClass::LatencySensitive: return "latency-sensitive";
    case LatencyClass::Batch: return "batch";
    case LatencyClass::Invalid: break;
    }
    return "invalid";
}

std::optional<Isa> parseIsa(std::string_view text)
{
    if (text == "x86_64" || text == "amd64")
        return Isa::X86_64;
    if (text == "aarch64" || text == "arm64")
        return Isa::Aarch64;
    if (text == "riscv64")
        return Isa::Riscv64;
    return std::nullopt;
}

std::optional<AcceleratorKind> parseAcceleratorKind(std::string_view text)
{
    if (text == "gpu")
        return AcceleratorKind::Gpu;
    if (text == "npu")
        return AcceleratorKind::Npu;
    if (text == "fpga")
        return AcceleratorKind::Fpga;
    if (text == "none")
        return AcceleratorKind::None;
    return std::nullopt;
}

std::optional<Tier> parseTier(std::string_view text)
{
    if (text == "hot")
        return Tier::Hot;
    if (text == "warm")
        return Tier::Warm;
    if (text == "cold")
        return Tier::Cold;
    return std::nullopt;
}

std::optional<LatencyClass> parseLatencyClass(std::string_view text)
{
    if (text == "real-time")
        return LatencyClass::RealTime;
    if (text == "latency-sensitive")
        return LatencyClass::LatencySensitive;
    if (text == "batch")
        return LatencyClass::Batch;
    return std::nullopt;
}

} // namespace tidepool
