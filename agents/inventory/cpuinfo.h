#pragma once
// The CPU part of node discovery: the ISA from `uname -m`, and the model and features from /proc/cpuinfo as x86_64,
// aarch64 and riscv64 kernels write it. aarch64 kernels write no model name: it comes from "CPU implementer" and
// "CPU part" (named as the kernel's arch/arm64/include/asm/cputype.h names them, or by number). riscv64 kernels
// write the ISA string ("rv64imafdc_zicsr…"), whose extensions become the features.
//
// Thread affinity: none; pure functions.

#include "agents/inventory/inventory_error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::agent {

// `uname -m` as an ISA token: "amd64" → "x86_64", "arm64" → "aarch64"; other names lower-cased as they are.
std::string normaliseIsa(std::string_view machine);

struct CpuInfo {
    std::string model; // distinct models joined with " + " on heterogeneous (big.LITTLE) CPUs; "unknown" if none
    std::vector<std::string> features; // sorted, without duplicates, those of every processor
    std::int32_t processors = 0; // `processor` entries
};

// Parses /proc/cpuinfo as x86_64 ("model name", "flags"), aarch64 ("CPU implementer"/"CPU part", "Features") and
// riscv64 ("uarch", "isa": the extensions of "rv64imafdc_zicsr" become "a", "c", "d", "f", "i", "m", "zicsr")
// kernels write it. Fails, naming the line, on a line that is not `key: value`, and when there is no processor.
InventoryExpected<CpuInfo> parseCpuInfo(std::string_view content, std::string_view source = "/proc/cpuinfo");

} // namespace tidepool::agent
